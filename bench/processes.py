"""Timing whole ``skrafl`` processes, shared by the benchmarks: the environment they run in, one
run's wall and CPU time, the median of repeated runs, and a batch mode's throughput (many inputs on
stdin against the same command with an empty stdin, which is its start-up)."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

PROJECT = Path(__file__).resolve().parents[1]


def env() -> dict:
    """The environment for timed processes: bytecode caching on (as on a user's machine)."""
    out = dict(os.environ)
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    return out


def skrafl(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """``python -m cli.main ARGS`` in the project folder, output captured."""
    cmd = [sys.executable, "-m", "cli.main", *args]
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, cwd=PROJECT, env=env())


def timed(run: Callable[[], subprocess.CompletedProcess]) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall seconds, CPU seconds (user + system of the child) and the result of one ``run()``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = run()
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, r


def time_process(args: list[str], repeat: int, ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Median wall and median CPU seconds of a whole ``skrafl ARGS`` process, after one warm-up run
    (which also writes the bytecode caches); an exit status outside ``ok`` stops the bench."""
    skrafl(*args)
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu, r = timed(lambda: skrafl(*args))
        if r.returncode not in ok:
            raise SystemExit(r.stderr)
        walls.append(wall)
        cpus.append(cpu)
    return statistics.median(walls), statistics.median(cpus)


def batch_throughput(args: list[str], text: str, check: Callable[[str, subprocess.CompletedProcess], None]):
    """A batch command fed ``text`` on stdin: the best (wall, CPU) of 3 runs after a warm-up, and
    the best of 3 with an empty stdin (its start-up). ``check(stdin, result)`` raises on a bad run."""

    def run(stdin: str) -> tuple[float, float]:
        wall, cpu, r = timed(lambda: skrafl(*args, stdin=stdin))
        check(stdin, r)
        return wall, cpu

    run(text)
    return min(run(text) for _ in range(3)), min(run("") for _ in range(3))
