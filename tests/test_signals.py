"""Ctrl-C (SIGINT to the whole process group) at several points of a real ``build`` and ``ingest``.

Every stop must end the same way: exit 130, one line on stderr, the previous output byte-identical,
nothing left behind beside it (no stage, link or lock). The stops are sent three ways:

- from a point of the pipeline (the run's own function wrapped by a small driver): plainly; from
  inside a finalizer (``__del__`` run by the garbage collector, where Python drops an exception: how
  a Ctrl-C was lost in ``tqdm.__del__``, the build then swapping in its new output and exiting 0);
  and a second Ctrl-C during the cleanup of the first;
- from outside, at fractions of a clean run's time, as a user at a terminal would.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clirun import PROJECT_ROOT

pytestmark = pytest.mark.slow  # processes started and stopped: seconds a test

DRIVER = r"""
import gc, os, shutil, signal, sys, importlib
sys.path.insert(0, os.getcwd())  # the checkout under test (run from it), as python -m cli.main

def fire_plain():
    os.killpg(0, signal.SIGINT)
    for _ in range(1000):  # ordinary bytecode: the handler runs here
        pass

class _Bomb:
    def __del__(self):
        os.killpg(0, signal.SIGINT)
        for _ in range(100000):  # the handler runs here, inside a finalizer
            pass

def fire_del():
    b = _Bomb()
    b.cycle = b  # only the garbage collector frees it
    del b
    gc.collect()

def fire_twice():  # a stop now, a second one when the run cleans up after it
    real_rmtree = shutil.rmtree
    def rmtree(*a, **k):
        shutil.rmtree = real_rmtree
        fire_plain()
        return real_rmtree(*a, **k)
    shutil.rmtree = rmtree
    fire_plain()

point, how = os.environ["SKRAFL_TEST_STOP_AT"].rsplit(":", 1)
module, name = point.split(":")
mod = importlib.import_module(module)
real = getattr(mod, name)
fire = {"plain": fire_plain, "del": fire_del, "twice": fire_twice}[how]
fired = []

def wrapped(*a, **k):
    if not fired:
        fired.append(1)
        fire()
    return real(*a, **k)

setattr(mod, name, wrapped)
from cli.main import main
sys.argv = ["skrafl", *sys.argv[1:]]
main()
"""


def _words(n: int, seed: int) -> str:
    letters = "abcdefghijklmnoprstu"
    out, x = [], seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) % 2**31
        length = 2 + x % 9
        w = []
        for _ in range(length):
            x = (x * 1103515245 + 12345) % 2**31
            w.append(letters[(x >> 8) % len(letters)])
        out.append("".join(w))
    return "\n".join(out) + "\n"


def _state(out: Path) -> tuple:
    """The visible output (its target and every file's hash) and every entry beside it."""
    files = {}
    if out.exists():
        real = out.resolve()
        for dirpath, _, names in os.walk(real):
            for name in names:
                p = Path(dirpath) / name
                files[str(p.relative_to(real))] = hashlib.sha256(p.read_bytes()).hexdigest()
    target = os.readlink(out) if out.is_symlink() else None
    return target, files, sorted(p.name for p in out.parent.iterdir())


def _cmd(kind: str, words: Path, out: Path) -> list[str]:
    return [kind, "en", "--source", "wordlist", "--input", str(words), "--out", str(out), "-q"]


def _run(args: list[str], env: dict | None = None, driver: Path | None = None) -> subprocess.CompletedProcess:
    cmd = [sys.executable, str(driver), *args] if driver else [sys.executable, "-m", "cli.main", *args]
    return subprocess.run(
        cmd,
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        start_new_session=True,  # its own process group: os.killpg(0, …) reaches it (and its children) only
    )


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("signals")
    (tmp / "old.txt").write_text(_words(300, 1), encoding="utf-8")
    (tmp / "new.txt").write_text(_words(20000, 2), encoding="utf-8")
    (tmp / "big.txt").write_text(_words(400000, 3), encoding="utf-8")
    (tmp / "driver.py").write_text(DRIVER, encoding="utf-8")
    return {"tmp": tmp, "old": tmp / "old.txt", "new": tmp / "new.txt", "big": tmp / "big.txt", "driver": tmp / "driver.py"}


def _assert_stopped(r: subprocess.CompletedProcess, out: Path, before: tuple) -> None:
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 130, (r.returncode, r.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith("skrafl: stopped by SIGINT"), r.stderr[-2000:]
    assert _state(out) == before  # old output byte-identical, nothing new beside it


POINTS = {
    "build": [
        "pipelines.build:classify",  # polars: the filter
        "pipelines.build:alphabet_order",
        "pipelines.build:_write_rejected",
        "gamecore.kwg:write_kwg",
        "pipelines.atomic:_commit",  # the last step before the swap
    ],
    "ingest": [
        "pipelines.ingest:ingest_into",
        "pipelines.ingest:sha256_file",
        "pipelines.atomic:_commit",
    ],
}
CASES = [(kind, point, how) for kind, points in POINTS.items() for point in points for how in ("plain", "del")]
CASES += [("build", "pipelines.build:alphabet_order", "twice"), ("ingest", "pipelines.ingest:sha256_file", "twice")]


@pytest.mark.parametrize(("kind", "point", "how"), CASES, ids=[f"{k}-{p.split(':')[1]}-{h}" for k, p, h in CASES])
def test_ctrl_c_at_a_point_keeps_the_old_output(kind: str, point: str, how: str, inputs: dict, tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = _run(_cmd(kind, inputs["old"], out))
    assert r.returncode == 0, r.stderr
    before = _state(out)
    r = _run(_cmd(kind, inputs["new"], out), env={"SKRAFL_TEST_STOP_AT": f"{point}:{how}"}, driver=inputs["driver"])
    _assert_stopped(r, out, before)
    r = _run(_cmd(kind, inputs["new"], out))  # and the next run succeeds
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("kind", ["build", "ingest"])
def test_ctrl_c_from_the_terminal_at_several_times(kind: str, inputs: dict, tmp_path: Path) -> None:
    out = tmp_path / "w" / "out"
    r = _run(_cmd(kind, inputs["old"], out))
    assert r.returncode == 0, r.stderr
    before = _state(out)
    started = time.monotonic()
    r = _run(_cmd(kind, inputs["big"], tmp_path / "ref" / "clean"))
    assert r.returncode == 0, r.stderr
    clean = time.monotonic() - started
    for fraction in (0.3, 0.6, 0.85):
        p = subprocess.Popen(
            [sys.executable, "-m", "cli.main", *_cmd(kind, inputs["big"], out)],
            cwd=PROJECT_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            p.wait(timeout=clean * fraction)
        except subprocess.TimeoutExpired:
            sent = time.monotonic()
            os.killpg(p.pid, signal.SIGINT)
            stdout, stderr = p.communicate(timeout=60)
            assert time.monotonic() - sent < 5, f"took {time.monotonic() - sent:.1f} s to stop"
            if p.returncode == 0 and not stderr:
                # the signal landed after the run's last step (a loaded machine): the run is done, and
                # its output must then be the complete new one (same words as the clean run)
                name = "words.txt" if kind == "build" else "entries.parquet"
                assert (out.resolve() / name).read_bytes() == ((tmp_path / "ref" / "clean").resolve() / name).read_bytes()
                before = _state(out)
                continue
            _assert_stopped(subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr), out, before)
        else:  # finished first (a loaded machine): then it must have succeeded
            p.communicate()
            assert p.returncode == 0
            r = _run(_cmd(kind, inputs["old"], out))
            assert r.returncode == 0, r.stderr
            before = _state(out)


_NUMPY_STOP_PROBE = r"""
import os, signal, sys
import numpy.lib._version as v
import polars as pl
from pipelines.stops import Signalled, install_stop_handlers
from pipelines.build import alphabet_order

install_stop_handlers()
real = v.NumpyVersion.__init__

def stopped_here(self, vstring):  # the Ctrl-C lands in NumPy's version check, called from polars
    os.kill(os.getpid(), signal.SIGINT)
    real(self, vstring)

v.NumpyVersion.__init__ = stopped_here
try:
    alphabet_order(pl.Series(["b", "a"]), "ab")
except Signalled:
    print("stopped")
"""


def test_a_stop_inside_polars_first_to_numpy_is_our_stop_not_a_panic() -> None:
    """polars' first to_numpy() calls back into NumPy's Python code; a stop raised there came back
    to its Rust code as an unexpected error: a panic and a 150-line backtrace (seen once in ten
    Ctrl-C of a build). That call is made with stops held, and the stop is raised after it."""
    r = subprocess.run([sys.executable, "-c", _NUMPY_STOP_PROBE], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    assert "panicked" not in r.stderr, r.stderr[:2000]
    assert r.stdout.strip() == "stopped", (r.stdout, r.stderr[-2000:])


def test_a_stop_after_the_run_is_over_cannot_kill_it() -> None:
    """When the interpreter exits after a run, SIGINT and SIGTERM are ignored: Python's
    finalization puts them back to the default action, and a Ctrl-C landing there (freeing a
    large build) killed a complete run silently (exit -2, seen in CI). A caller of main() in its
    own process keeps its handlers (the test run itself is one)."""
    probe = (
        "import atexit, os, signal, sys\n"
        "import cli.main\n"
        "sys.argv = ['skrafl', '--version']\n"
        "try:\n"
        "    cli.main.main()\n"
        "except SystemExit as exc:\n"
        "    print(exc.code, signal.getsignal(signal.SIGINT) is signal.SIG_IGN)\n"
        "atexit._run_exitfuncs()\n"
        "print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN, signal.getsignal(signal.SIGTERM) is signal.SIG_IGN)\n"
    )
    r = subprocess.run([sys.executable, "-c", probe], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60)
    assert r.stdout.splitlines()[-2:] == ["0 False", "True True"], (r.stdout, r.stderr)


# A stop that lands while the console script is still importing the command (before cli.main has
# its stop handlers): one line and 128 + the signal, no KeyboardInterrupt traceback. The stop is sent
# by the process to itself at the moment `from cli.main import main` begins, so the test does not
# depend on timing.
STOP_DURING_IMPORT = """
import builtins, os, signal, sys
sys.argv = ["skrafl", "check", "--lexicon", sys.argv[1], "hestur"]
import cli.client
real_import = builtins.__import__
def importing(name, *args, **kwargs):
    if name == "cli.main":
        os.kill(os.getpid(), getattr(signal, os.environ["STOP_WITH"]))
    return real_import(name, *args, **kwargs)
builtins.__import__ = importing
cli.client.main()
"""


@pytest.mark.parametrize("name, status", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_stop_while_the_command_is_imported_is_one_line(tmp_path, name, status):
    r = subprocess.run(
        [sys.executable, "-c", STOP_DURING_IMPORT, str(tmp_path / "no-lexicon")],
        cwd=PROJECT_ROOT,
        env=dict(os.environ, STOP_WITH=name),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == status, r.stderr
    assert r.stderr.splitlines() == [f"skrafl: stopped by {name} before the command began; nothing was changed"]
    assert r.stdout == ""


def test_an_ignored_sigint_stays_ignored_while_the_command_is_imported(tmp_path):
    """A background job (SIGINT inherited ignored): the early handler does not take it over, so
    the command runs to its end (here: the lexicon is missing, exit 2, one line)."""
    r = subprocess.run(
        [sys.executable, "-c", STOP_DURING_IMPORT, str(tmp_path / "no-lexicon")],
        cwd=PROJECT_ROOT,
        env=dict(os.environ, STOP_WITH="SIGINT"),
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.splitlines()) == 1 and "no lexicon here" in r.stderr, r.stderr


# A background job's SIGINT (inherited ignored) once polars is imported: polars' start-up installs
# a SIGINT handler of its own in C over the SIG_IGN, and a SIGINT then ended the run at once (exit
# 130, no line, no clean-up). The kernel's view of the disposition (/proc: SigIgn) is the check;
# then a SIGINT sent to the process itself after polars has run a query is ignored.
SIGINT_AFTER_POLARS = """
import os, signal, sys
from pipelines.stops import install_stop_handlers
install_stop_handlers()
import polars as pl
pl.DataFrame({"a": [1, 2]}).lazy().select(pl.col("a").sum()).collect()
mask = next(int(line.split()[1], 16) for line in open("/proc/self/status") if line.startswith("SigIgn:"))
print("ignored" if mask & (1 << (signal.SIGINT - 1)) else "caught", flush=True)
os.kill(os.getpid(), signal.SIGINT)
print("still running", flush=True)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_an_ignored_sigint_stays_ignored_once_polars_is_imported():
    r = subprocess.run(
        [sys.executable, "-c", SIGINT_AFTER_POLARS],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    assert (r.returncode, r.stdout.splitlines()) == (0, ["ignored", "still running"]), r.stderr
