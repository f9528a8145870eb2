"""A full disk while an output is written (user trial: replay printed a Python traceback from a
Parquet writer's finalizer, compare called it an internal error, build named no path): one line
naming the output folder, exit 2, the previous output kept and no stage left behind.

A real full file system where this machine allows one (a 64 KiB tmpfs, as root), and the errors
each library raises on a full disk injected into real ``skrafl`` processes elsewhere: pyarrow's
``OSError`` without an errno (``[errno 28]`` in its text), polars' ``ComputeError`` (``os error
28``), a plain ``OSError(ENOSPC)``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import one_error_line, run_skrafl
from test_outputs import snapshot

pytestmark = pytest.mark.slow  # processes started and stopped: seconds a test

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared"))
GCG = SHARED / "corpora" / "gcg"
FULL = "no space left on the device for this output: nothing was changed"  # a new output
KEPT = FULL + ", the previous one is kept"  # replacing one


@pytest.fixture
def tiny_fs(tmp_path):
    """A 64 KiB tmpfs at tmp_path/full (root only; skipped where it cannot be mounted)."""
    full = tmp_path / "full"
    full.mkdir()
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a small tmpfs needs root")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(full)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode(errors='replace').strip()}")
    try:
        yield full
    finally:
        subprocess.run(["umount", "-l", str(full)], capture_output=True)


def _words(tmp_path: Path, n: int) -> Path:
    f = tmp_path / f"words{n}.txt"
    f.write_text("".join(f"{a}{b}{c}{d}\n" for a in "abcdefgh" for b in "aeiou" for c in "klmnprst" for d in "aeiou")[: n * 5])
    return f


@pytest.mark.skipif(not GCG.is_dir(), reason="no corpora in ../shared")
def test_replay_and_build_on_a_full_file_system(tmp_path, tiny_fs):
    games = tmp_path / "games"
    for i in range(12):
        shutil.copytree(GCG, games / f"copy{i}")
    err = one_error_line(run_skrafl("replay", str(games), "--out", str(tiny_fs / "rp"), "-q"))
    assert err == f"skrafl: error: {tiny_fs / 'rp'}: {FULL}"
    assert os.listdir(tiny_fs) == []  # no stage, no lock left
    # a previous output is kept whole
    r = run_skrafl(
        "build", "en", "--source", "wordlist", "--input", str(_words(tmp_path, 3)), "--out", str(tiny_fs / "lex"), "-q"
    )
    assert r.returncode == 0, r.stderr
    before = snapshot(tiny_fs)
    big = _words(tmp_path, 1600)
    err = one_error_line(
        run_skrafl("build", "en", "--source", "wordlist", "--input", str(big), "--out", str(tiny_fs / "lex"), "-q")
    )
    assert err == f"skrafl: error: {tiny_fs / 'lex'}: {KEPT}"
    assert snapshot(tiny_fs) == before


def test_an_input_error_on_an_almost_full_disk_is_the_input_error(tmp_path, tiny_fs):
    """An error about the input keeps its own line even when the output's file system has almost
    no room left (the full-disk guess is only for a library's unexplained IO error)."""
    bad = tmp_path / "bad.txt"
    bad.write_text("cat\n" + "x" * 5000 + "\n", encoding="utf-8")
    err = one_error_line(
        run_skrafl("build", "en", "--source", "wordlist", "--input", str(bad), "--out", str(tiny_fs / "lex"), "-q")
    )
    assert err.startswith(f"skrafl: error: {bad}:2: a line of more than 4096 bytes"), err


def _with_fault(patch: str, *args: str) -> subprocess.CompletedProcess:
    """Run the CLI in a real process after ``patch`` (Python code) made a library's write fail."""
    code = f"import sys\n{patch}\nsys.argv = ['skrafl', *{list(args)!r}]\nfrom cli.main import main\nmain()\n"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)


PYARROW = """
import pyarrow.parquet as pq
def write_table(self, *a, **k):
    raise OSError("Error writing bytes to file. Detail: [errno 28] No space left on device")
pq.ParquetWriter.write_table = write_table
"""

POLARS = """
import polars as pl
def write_parquet(self, *a, **k):
    raise pl.exceptions.ComputeError("parquet: File out of specification: underlying IO error: No space left on device (os error 28)")
pl.DataFrame.write_parquet = write_parquet
"""

OS_ERROR = """
import errno, pathlib
def write_text(self, *a, **k):
    raise OSError(errno.ENOSPC, "No space left on device")
pathlib.Path.write_text = write_text
"""


def test_each_librarys_full_disk_is_one_line(tmp_path):
    words = _words(tmp_path, 200)
    out = tmp_path / "lex"
    r = _with_fault(PYARROW, "build", "en", "--source", "wordlist", "--input", str(words), "--out", str(out), "-q")
    assert one_error_line(r) == f"skrafl: error: {out}: {FULL}"
    assert "Exception ignored" not in r.stderr and not out.exists()
    assert os.listdir(tmp_path) == [words.name]  # no stage left beside it
    lex = tmp_path / "en"
    assert run_skrafl("build", "en", "--source", "wordlist", "--input", str(words), "--out", str(lex), "-q").returncode == 0
    ref = tmp_path / "ref.txt"
    ref.write_text("baka\nzzzz\n", encoding="utf-8")
    for patch in (POLARS, OS_ERROR):
        r = _with_fault(patch, "compare", str(lex), str(ref), "--out", str(tmp_path / "cmp"), "-q")
        assert one_error_line(r) == f"skrafl: error: {tmp_path / 'cmp'}: {FULL}", r.stderr
        assert not (tmp_path / "cmp").exists()


def test_a_finalizers_full_disk_is_not_printed_other_errors_are():
    """A writer closed by its finalizer after its write failed raises the full disk again there:
    Python would print it ("Exception ignored in ... Traceback"); the command's own line has said
    it. Any other error in a finalizer is still printed."""
    code = (
        "import errno\n"
        "from pipelines.stops import install_stop_handlers\n"
        "install_stop_handlers()\n"
        "class Writer:\n"
        "    def __del__(self):\n"
        "        raise OSError('Error writing bytes to file. Detail: [errno 28] No space left on device')\n"
        "class Other:\n"
        "    def __del__(self):\n"
        "        raise ValueError('a bug')\n"
        "w = Writer(); del w\n"
        "o = Other(); del o\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert r.stderr.count("Exception ignored") == 1 and "ValueError: a bug" in r.stderr and "errno 28" not in r.stderr
