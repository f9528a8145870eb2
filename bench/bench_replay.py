"""Time ``skrafl replay``: games per second over the shared corpora (52 GCG files + 10 Netskrafl
records, copied to a batch of a few thousand files), without a lexicon and with the Icelandic one
(``output/is``, when built), single process and ``--workers 2``. Target (issue 4): ≥ 1,000 games/s
per core without ``--analyze``.

Each line gives the wall-clock rate, the CPU time of the parent and the workers together (games
per CPU-second: the per-core rate, whatever else the machine is running) and, for ``--workers 2``,
the speed-up over one process. The load average is printed too: on a busy machine the wall-clock
rates say little, the per-CPU-second ones still do.

Environment: ``BENCH_REPLAY_COPIES`` (default 40 copies of the 62 files = 2,480 games).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared" / "corpora"


def _corpus(tmp: Path, copies: int = 40) -> list[str]:
    files = sorted((SHARED / "gcg").glob("*.gcg")) + sorted((SHARED / "netskrafl" / "games").glob("*.json"))
    out = []
    for i in range(copies):
        for f in files:
            dst = tmp / f"{i:03d}_{f.name}"
            shutil.copy(f, dst)
            out.append(str(dst))
    return out


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the pool's workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main() -> None:
    from pipelines.replay import ReplayOptions, replay_files

    if not SHARED.is_dir():
        print("bench_replay: ../shared absent, skipped")
        return
    lexdir = PROJECT / "output" / "is"
    copies = int(os.environ.get("BENCH_REPLAY_COPIES", "40"))
    with tempfile.TemporaryDirectory() as tmp:
        files = _corpus(Path(tmp), copies)
        cases = [("no lexicon", None)]
        if (lexdir / "lexicon.marisa").is_file():
            cases.append(("lexicon is", str(lexdir)))
        print(f"replay: {len(files)} games; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        for label, lex in cases:
            opts = ReplayOptions(lexicon_dir=lex)
            list(replay_files(files[:20], opts, workers=1))  # warm up (imports, lexicon load)
            single = None
            for workers in (1, 2):
                t0, c0 = time.perf_counter(), _cpu()
                results = list(replay_files(files, opts, workers=workers))
                dt, cpu = time.perf_counter() - t0, _cpu() - c0
                events = sum(r.event_count for r in results)
                extra = ""
                if workers == 1:
                    single = dt
                else:
                    extra = f", {single / dt:.2f}x one process"
                print(
                    f"replay {label:10s} workers={workers}: {len(files) / dt:,.0f} games/s ({events / dt:,.0f} events/s), "
                    f"{len(files) / cpu:,.0f} games per CPU-second{extra}; load {os.getloadavg()[0]:.1f}"
                )


if __name__ == "__main__":
    main()
