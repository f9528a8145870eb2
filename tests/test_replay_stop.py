"""``skrafl replay --workers 2`` stops cleanly: SIGTERM and SIGINT to the parent, and a ``kill -9``
of the parent, leave no worker process behind (within 2 s) and the previous output as it was.

Real processes: the command runs in a subprocess on a folder of copies of the shared corpora, big
enough to be mid-run when the signal comes; its workers are found in ``/proc`` (children of the
parent)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clirun import PROJECT_ROOT

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")]


def _children(pid: int) -> set[int]:
    kids: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids.update(int(k) for k in (task / "children").read_text().split())
        except OSError:
            pass
    return kids


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie, dead but not yet reaped, is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _tree(folder: Path) -> dict[str, bytes]:
    """Every visible file under ``folder`` (through its symbolic link) and its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def big_input(tmp_path_factory, shared) -> Path:
    """6,200 files: 100 copies of the 52 GCG files and 10 Netskrafl records under new names (a run
    of several seconds with two workers)."""
    d = tmp_path_factory.mktemp("many")
    files = sorted((shared / "corpora" / "gcg").glob("*.gcg")) + sorted(
        (shared / "corpora" / "netskrafl" / "games").glob("*.json")
    )
    for i in range(100):
        for f in files:
            shutil.copyfile(f, d / f"{i:03d}_{f.name}")  # copies: a hard link is the same game, read once
    return d


def _previous_output(tmp_path: Path, fixtures: Path) -> tuple[Path, dict[str, bytes]]:
    out = tmp_path / "out"
    res = subprocess.run(
        [sys.executable, "-m", "cli.main", "replay", str(fixtures / "gcg" / "base.gcg"), "--out", str(out), "--quiet"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    before = _tree(out)
    assert "games.parquet" in before and "moves.parquet" in before
    return out, before


def _start(big_input: Path, out: Path) -> tuple[subprocess.Popen, set[int]]:
    """Start the replay and return once its two workers are running (and replaying)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "replay", str(big_input), "--out", str(out), "--workers", "2", "--quiet"],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    workers: set[int] = set()
    while time.monotonic() < deadline and proc.poll() is None:
        workers = _children(proc.pid)
        if len(workers) >= 2:
            break
        time.sleep(0.02)
    assert len(workers) == 2, f"workers not seen (exit {proc.poll()})"
    time.sleep(0.5)  # well into the run (it takes seconds)
    assert proc.poll() is None, "the run ended before the signal: make the input bigger"
    return proc, workers


def _gone_within(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = {p for p in pids if _alive(p)}
        if not left:
            return set()
        time.sleep(0.02)
    return {p for p in pids if _alive(p)}


@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_stops_parent_and_workers(tmp_path, fixtures, big_input, signum, code):
    out, before = _previous_output(tmp_path, fixtures)
    proc, workers = _start(big_input, out)
    t0 = time.monotonic()
    proc.send_signal(signum)
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the parent did not stop within 10 s")
    assert proc.returncode == code, err
    assert _gone_within(workers, 2.0) == set()
    assert time.monotonic() - t0 < 5
    assert "Traceback" not in err and "previous output is kept" in err, err
    assert _tree(out) == before


def test_parent_killed_workers_follow(tmp_path, fixtures, big_input):
    out, before = _previous_output(tmp_path, fixtures)
    proc, workers = _start(big_input, out)
    proc.kill()
    proc.wait(timeout=10)
    assert _gone_within(workers, 2.0) == set()
    assert _tree(out) == before


def test_a_stop_before_any_output_does_not_speak_of_a_previous_one(tmp_path, big_input):
    """A stopped run on a new --out said 'the previous output is kept' (there was none)."""
    out = tmp_path / "new_out"
    proc, workers = _start(big_input, out)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert err.strip().splitlines() == ["skrafl: replay stopped by SIGTERM; nothing written"], err
    assert not os.path.lexists(out)
