"""Time ``skrafl replay``: games per second, without a lexicon and with one, single process and
``--workers 2``. Target (issue 4): ≥ 1,000 games/s per core without ``--analyze``.

Cases (each file copied ``BENCH_REPLAY_COPIES`` times, default 40):

- ``no lexicon``: the shared corpora, 52 GCG files and 10 Netskrafl records;
- ``lexicon is``: the 10 Netskrafl records, every word checked in the Icelandic lexicon
  (``output/is``, when built): the nightly job of a Netskrafl maintainer;
- ``lexicon en``: the 52 GCG files with the English lexicon (``output/en``, when built).

Each line gives the wall-clock rate and the rate per CPU-second (the CPU time of the parent and its
workers together: the per-core rate, whatever else the machine runs), the best of
``BENCH_REPLAY_REPEATS`` runs (default 3). The load average is printed too. On this project's
shared 2-core machines the speed of a core changes by up to 1.6x from minute to minute; the best of
a few runs is the machine's own speed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared" / "corpora"


def _copies(files: list[Path], tmp: Path, copies: int) -> list[str]:
    out = []
    for i in range(copies):
        for f in files:
            dst = tmp / f"{i:03d}_{f.name}"
            if not dst.exists():
                shutil.copy(f, dst)
            out.append(str(dst))
    return out


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the pool's workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _run(files: list[str], opts, workers: int, repeats: int) -> tuple[float, float, int]:
    """Best wall-clock and best CPU time over ``repeats`` runs, and the events replayed."""
    from pipelines.replay import replay_files

    best_wall = best_cpu = float("inf")
    events = 0
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), _cpu()
        results = list(replay_files(files, opts, workers=workers))
        best_wall, best_cpu = min(best_wall, time.perf_counter() - t0), min(best_cpu, _cpu() - c0)
        events = sum(r.event_count for r in results)
        del results
    return best_wall, best_cpu, events


def main() -> None:
    from pipelines.replay import ReplayOptions, replay_files

    if not SHARED.is_dir():
        print("bench_replay: ../shared absent, skipped")
        return
    copies = int(os.environ.get("BENCH_REPLAY_COPIES", "40"))
    repeats = int(os.environ.get("BENCH_REPLAY_REPEATS", "3"))
    gcg = sorted((SHARED / "gcg").glob("*.gcg"))
    records = sorted((SHARED / "netskrafl" / "games").glob("*.json"))
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cases = [("no lexicon", gcg + records, None)]
        for lang, files in (("is", records), ("en", gcg)):
            lexdir = PROJECT / "output" / lang
            if (lexdir / "lexicon.marisa").is_file():
                cases.append((f"lexicon {lang}", files, str(lexdir)))
            else:
                print(f"replay: lexicon {lang} skipped (output/{lang} not built)")
        print(f"replay: {copies} copies of each file, best of {repeats} runs; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        for label, sources, lex in cases:
            files = _copies(sources, tmp, copies)
            opts = ReplayOptions(lexicon_dir=lex)
            list(replay_files(files[: len(sources)], opts, workers=1))  # warm up (imports, lexicon load)
            single = None
            for workers in (1, 2):
                wall, cpu, events = _run(files, opts, workers, repeats)
                extra = ""
                if workers == 1:
                    single = wall
                else:
                    extra = f", {single / wall:.2f}x one process"
                print(
                    f"replay {label:10s} workers={workers}: {len(files):,} games, {len(files) / wall:,.0f} games/s "
                    f"({events / wall:,.0f} events/s), {len(files) / cpu:,.0f} games per CPU-second{extra}; "
                    f"load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
