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
    the best of 3 fed its first line alone (its start-up and one item: an empty stdin is an error,
    ``no positions in -``). Per item after start-up: (whole - one) / (items - 1).
    ``check(stdin, result)`` raises on a bad run."""

    def run(stdin: str) -> tuple[float, float]:
        wall, cpu, r = timed(lambda: skrafl(*args, stdin=stdin))
        check(stdin, r)
        return wall, cpu

    run(text)
    first = text.splitlines(keepends=True)[0]
    return min(run(text) for _ in range(3)), min(run(first) for _ in range(3))


# --- skrafl serve: whole client processes against a running server -------------------

CLIENT = Path(sys.executable).parent / "skrafl"  # the console script (cli.client)


class Served:
    """A ``skrafl serve`` started for the bench (``with Served(tmp, "--preload", DIR) as s``): its
    socket ``s.path``; ``s.child_cpu()`` is the CPU seconds of the commands it has run so far (its
    reaped children, /proc/PID/stat), which a client's own rusage does not include."""

    def __init__(self, folder: Path, *args: str) -> None:
        self.path = Path(folder) / "skrafl.sock"
        self.args = args

    def __enter__(self) -> "Served":
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "serve", "--socket", str(self.path), "-q", *self.args],
            cwd=PROJECT,
            env=env(),
            stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while not self.path.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("skrafl serve did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)

    def child_cpu(self) -> float:
        time.sleep(0.6)  # the server reaps its children at its next turn (every 0.5 s)
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")  # cutime + cstime


def time_command(cmd: list[str], repeat: int, environ: dict | None = None, ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Median wall and median CPU seconds of the process ``cmd`` (in the project folder), after a
    warm-up run; an exit status outside ``ok`` stops the bench."""

    def run() -> subprocess.CompletedProcess:
        return subprocess.run(cmd, capture_output=True, cwd=PROJECT, env=environ or env())

    run()
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu, r = timed(run)
        if r.returncode not in ok:
            raise SystemExit(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr[-500:]}")
        walls.append(wall)
        cpus.append(cpu)
    return statistics.median(walls), statistics.median(cpus)


def served_vs_cold(server: Served, args: list[str], repeat: int, ok: tuple[int, ...] = (0,)) -> dict[str, tuple[float, float]]:
    """The console script ``skrafl ARGS`` with ``SKRAFL_SERVER`` (wall, client CPU, and the server's
    CPU per command in ``served_server_cpu``), without it (cold), and a bare ``python -c pass``."""
    with_server = dict(env(), SKRAFL_SERVER=str(server.path))
    without = env()
    without.pop("SKRAFL_SERVER", None)
    cpu0 = server.child_cpu()
    served = time_command([str(CLIENT), *args], repeat, with_server, ok)
    server_cpu = (server.child_cpu() - cpu0) / (repeat + 1)
    return {
        "served": served,
        "served_server_cpu": (server_cpu, server_cpu),
        "cold": time_command([str(CLIENT), *args], repeat, without, ok),
        "bare": time_command([sys.executable, "-c", "pass"], repeat, without),
    }
