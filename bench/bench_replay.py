"""Time ``skrafl replay``: games per second over the shared corpora (52 GCG files + 10 Netskrafl
records, repeated to 620 files), without a lexicon and with the Icelandic one (``output/is``,
when built), single process and ``--workers 2``. Target (issue 4): ≥ 1,000 games/s per core
without ``--analyze``.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared" / "corpora"


def _corpus(tmp: Path, copies: int = 10) -> list[str]:
    files = sorted((SHARED / "gcg").glob("*.gcg")) + sorted((SHARED / "netskrafl" / "games").glob("*.json"))
    out = []
    for i in range(copies):
        for f in files:
            dst = tmp / f"{i:02d}_{f.name}"
            shutil.copy(f, dst)
            out.append(str(dst))
    return out


def main() -> None:
    from pipelines.replay import ReplayOptions, replay_files

    if not SHARED.is_dir():
        print("bench_replay: ../shared absent, skipped")
        return
    lexdir = PROJECT / "output" / "is"
    with tempfile.TemporaryDirectory() as tmp:
        files = _corpus(Path(tmp))
        cases = [("no lexicon", None)]
        if (lexdir / "lexicon.marisa").is_file():
            cases.append(("lexicon is", str(lexdir)))
        for label, lex in cases:
            for workers in (1, 2):
                opts = ReplayOptions(lexicon_dir=lex)
                list(replay_files(files[:20], opts, workers=1))  # warm up (imports, lexicon load)
                t0, c0 = time.perf_counter(), time.process_time()
                results = list(replay_files(files, opts, workers=workers))
                dt, cpu = time.perf_counter() - t0, time.process_time() - c0
                events = sum(len(r.move_rows) for r in results)
                per_cpu = f", {len(files) / cpu:,.0f} games per CPU-second" if workers == 1 else ""
                print(f"replay {label:10s} workers={workers}: {len(files)} games in {dt:.2f} s = {len(files) / dt:,.0f} games/s ({events / dt:,.0f} events/s{per_cpu})")


if __name__ == "__main__":
    main()
