"""Benchmark the Icelandic lexicon: ingest time, build time and peak memory, check
throughput in-process (words/s), and a single ``skrafl check WORD`` as a whole process.

Targets on a 2-core machine: build from entries.parquet ≤ 20 s and ≤ 2 GiB (the main recipe);
check ≥ 500,000 words/s; a single ``skrafl check WORD`` ≤ 0.3 s. Ingest (BÍN from the islenska
package) is measured, not targeted. Each job runs in a child process so its peak resident memory
(``ru_maxrss`` from ``os.wait4``) is its own. Set ``BENCH_SKIP_INGEST=1`` to reuse output/entries/is.

Run: ``python -m bench lexicon`` (or ``make bench``).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKRAFL = [sys.executable, "-m", "cli.main"]


def timed(cmd: list[str], **kw) -> tuple[float, float, int]:
    """Run ``cmd``; return (wall seconds, peak RSS MiB, exit status)."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - started, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> None:
    out = ROOT / "output" / "is"
    if not os.environ.get("BENCH_SKIP_INGEST") or not (ROOT / "output" / "entries" / "is" / "entries.parquet").is_file():
        secs, mib, rc = timed(SKRAFL + ["ingest", "is", "--quiet"])
        print(f"ingest is (BÍN from islenska): {secs:.1f} s, peak {mib:.0f} MiB, exit {rc}")
    with tempfile.TemporaryDirectory() as tmp:
        secs, mib, rc = timed(SKRAFL + ["build", "is", "--recipe", "is", "--quiet", "--out", tmp + "/is"])
        stats = json.loads(Path(tmp, "is", "build_stats.json").read_text())
        print(
            f"build is (main recipe, from entries.parquet): {secs:.1f} s, peak {mib:.0f} MiB, exit {rc} "
            f"(target ≤ 20 s, ≤ 2048 MiB); phases {stats['phase_seconds']['is']}"
        )
    secs, mib, rc = timed(SKRAFL + ["build", "is", "--quiet"])
    print(f"build is (all recipes: is + amlodi + midlungur, into output/is): {secs:.1f} s, peak {mib:.0f} MiB, exit {rc}")
    try:
        built = json.loads((out / "build_stats.json").read_text())
        print(
            "  words: "
            + ", ".join(f"{name} {n:,}" for name, n in built["words"].items())
            + " (Netskrafl: Amlóði about 118 k, Miðlungur 960,337 of 3-10 letters on the same BÍN)"
        )
    except (OSError, ValueError, KeyError):
        pass

    from gamecore.lexicon import Lexicon

    lex = Lexicon.load(out)
    words = (out / "words.txt").read_text(encoding="utf-8").split()
    rng = random.Random(7)
    sample = rng.sample(words, 250_000) + ["".join(rng.choice("aábdðeé") for _ in range(7)) for _ in range(250_000)]
    lex.contains_many(sample)  # warm: the first pass pages the memory-mapped trie in
    started = time.perf_counter()
    valid = sum(lex.contains_many(sample))
    rate = len(sample) / (time.perf_counter() - started)
    started = time.perf_counter()
    _hits = sum(1 for w in sample if w in lex)  # the one-by-one look-ups being timed
    single_rate = len(sample) / (time.perf_counter() - started)
    print(
        f"check in-process: {rate:,.0f} words/s in a batch (the path of 'skrafl check -'), "
        f"{single_rate:,.0f} words/s one by one, over {len(sample):,} words ({valid:,} valid) (target ≥ 500,000)"
    )

    runs = [timed(SKRAFL + ["check", "--lang", "is", "hestur"])[0] for _ in range(7)]
    print(
        f"skrafl check hestur (whole process): median {statistics.median(runs):.3f} s, "
        f"min {min(runs):.3f} s over 7 runs (target ≤ 0.3 s)"
    )
    exe = shutil.which("skrafl", path=str(ROOT / ".venv" / "bin"))
    if exe:
        runs = [timed([exe, "check", "--lang", "is", "hestur"])[0] for _ in range(7)]
        print(f".venv/bin/skrafl check hestur: median {statistics.median(runs):.3f} s, min {min(runs):.3f} s")


if __name__ == "__main__":
    main()
