"""The output-folder discipline (pipelines/atomic.py, gamecore/folders.py), command by command.

Every command that writes a folder × {a new path, an empty folder, its own previous output,
another command's output, a user folder with files, a symbolic link to a user folder, a file, the
input folder, a folder inside another output} → the documented outcome (README "Guarantees"):
written, or refused with one line and exit 2 with nothing touched. The real entry point, in this
process (``clirun.run_skrafl_here``), and real ``skrafl`` processes where a test needs them: the
lock another run holds, two builds at once, a stop by a signal.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from clirun import run_skrafl, run_skrafl_here

FIXTURES = Path(__file__).resolve().parent / "fixtures"
GCG = FIXTURES / "gcg" / "base.gcg"
GAMES_CSV = FIXTURES / "elo" / "games.csv"


def snapshot(folder: Path) -> dict[str, str]:
    """Every path below ``folder`` (links as their target, files by content hash)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        for name in sorted(dirnames + filenames):
            p = Path(dirpath) / name
            rel = p.relative_to(folder).as_posix()
            if p.is_symlink():
                out[rel] = "-> " + os.readlink(p)
            elif p.is_file():
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                out[rel] = "dir"
    return out


def _words(folder: Path) -> tuple[Path, Path]:
    a = folder / "in" / "a.txt"
    a.parent.mkdir()
    a.write_text("hello\nworld\nquiz\n", encoding="utf-8")
    b = folder / "in" / "b.txt"
    b.write_text("hello\nworld\nquiz\nzebra\njinx\n", encoding="utf-8")
    return a, b


@pytest.fixture()
def words(tmp_path: Path) -> tuple[Path, Path]:
    return _words(tmp_path)


def command(kind: str, out: Path, inputs: dict) -> list[str]:
    """The command line of ``kind`` writing ``out``."""
    if kind == "ingest":
        return ["ingest", "en", "--source", "wordlist", "--input", str(inputs["words"]), "--out", str(out), "-q"]
    if kind == "build":
        return ["build", "en", "--source", "wordlist", "--input", str(inputs["words"]), "--out", str(out), "-q"]
    if kind == "diff":
        return ["diff", str(inputs["lex_a"]), str(inputs["lex_b"]), "--out", str(out), "-q"]
    if kind == "replay":
        return ["replay", str(inputs["games"]), "--out", str(out), "--no-lexicon", "-q"]
    if kind == "export":
        return ["replay", str(inputs["games"]), "--out", str(inputs["scratch"]), "--export-gcg", str(out), "--no-lexicon", "-q"]
    if kind == "elo":
        return ["elo", "--games", str(inputs["table"]), "--out", str(out), "-q"]
    raise AssertionError(kind)


KINDS = ["ingest", "build", "diff", "replay", "export", "elo"]
OWNER = {"ingest": "ingest", "build": "build", "diff": "diff", "replay": "replay", "export": "replay-export", "elo": "elo"}


@pytest.fixture(scope="module")
def built_lexicons(tmp_path_factory) -> Path:
    """The two lexicons of ``words`` (a and b), built once for the module; each test gets a copy."""
    root = tmp_path_factory.mktemp("outputs")
    a, b = _words(root)
    lexicons = root / "lexicons"
    lexicons.mkdir()
    for name, src in (("a", a), ("b", b)):
        r = run_skrafl_here(*command("build", lexicons / name, {"words": src}))
        assert r.returncode == 0, r.stderr
    return lexicons


@pytest.fixture()
def inputs(tmp_path: Path, words, built_lexicons: Path) -> dict:
    a, b = words
    lexicons = tmp_path / "lexicons"
    shutil.copytree(built_lexicons, lexicons, symlinks=True)  # each output: its link and its generation
    games = tmp_path / "games"
    games.mkdir()
    shutil.copy(GCG, games / "base.gcg")
    table = tmp_path / "table"
    table.mkdir()
    shutil.copy(GAMES_CSV, table / "games.csv")
    return {
        "words": a,
        "lex_a": lexicons / "a",
        "lex_b": lexicons / "b",
        "games": games,
        "table": table / "games.csv",
        "scratch": tmp_path / "scratch",
    }


def marker_command(path: Path) -> str:
    return json.loads((path / ".skrafl-output").read_text("utf-8"))["command"]


def assert_refused(r: subprocess.CompletedProcess, *, words: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("skrafl: error:"), r.stderr
    assert "Traceback" not in r.stderr
    assert words in lines[0], lines[0]


@pytest.mark.parametrize("kind", KINDS)
def test_new_empty_and_own_output(kind: str, tmp_path: Path, inputs: dict) -> None:
    out = tmp_path / "work" / "out"
    r = run_skrafl_here(*command(kind, out, inputs))
    assert r.returncode == 0, r.stderr
    assert out.is_symlink() and marker_command(out) == OWNER[kind]
    first = os.readlink(out)
    # its own previous output is replaced whole: a new generation, the old one gone
    r = run_skrafl_here(*command(kind, out, inputs))
    assert r.returncode == 0, r.stderr
    assert os.readlink(out) != first and not (out.parent / first).exists()
    hidden = sorted(p.name for p in out.parent.iterdir() if p.name != "out")
    assert hidden == [os.readlink(out)]  # no stage, no old generation, no lock file left
    # an empty folder is taken
    empty = tmp_path / "empty"
    empty.mkdir()
    r = run_skrafl_here(*command(kind, empty, inputs))
    assert r.returncode == 0, r.stderr
    assert empty.is_symlink() and marker_command(empty) == OWNER[kind]


@pytest.mark.parametrize("kind", KINDS)
def test_refusals_touch_nothing(kind: str, tmp_path: Path, inputs: dict) -> None:
    # a user folder with files
    user = tmp_path / "chain"
    user.mkdir()
    (user / "notes.txt").write_text("x\n")
    # another command's output
    other_kind = "elo" if kind != "elo" else "replay"
    other = tmp_path / "other"
    assert run_skrafl_here(*command(other_kind, other, inputs)).returncode == 0
    # a symbolic link to a user folder, a file, a folder inside another output
    link = tmp_path / "link"
    link.symlink_to(user)
    afile = tmp_path / "file.txt"
    afile.write_text("keep\n")
    inside = other / "sub"
    before = snapshot(tmp_path)
    cases = [
        (user, "skrafl did not write"),
        (other, f"the output of 'skrafl {OWNER[other_kind]}'"),
        (link, "symbolic link that skrafl did not make"),
        (afile, "not a folder"),
        (inside, "lies inside the output of"),
    ]
    for target, words in cases:
        assert_refused(run_skrafl_here(*command(kind, target, inputs)), words=words)
    # the input itself, or a folder holding it
    input_dir = {
        "ingest": inputs["words"].parent,
        "build": inputs["words"].parent,
        "diff": inputs["lex_a"],
        "replay": inputs["games"],
        "export": inputs["games"],
        "elo": inputs["table"].parent,
    }[kind]
    assert_refused(run_skrafl_here(*command(kind, input_dir, inputs)), words="input")
    if kind in ("replay", "export"):
        # inside the folder of game files: the next replay of that folder would read the output
        assert_refused(run_skrafl_here(*command(kind, input_dir / "out", inputs)), words="inside the input folder")
    assert snapshot(tmp_path) == before


def test_reproducer_chain_keeps_user_files(tmp_path: Path, inputs: dict) -> None:
    """The issue's reproducer: replay into a user folder, then elo into it: notes.txt survives."""
    chain = tmp_path / "chain"
    chain.mkdir()
    (chain / "notes.txt").write_text("x\n")
    assert_refused(run_skrafl_here(*command("replay", chain, inputs)), words="skrafl did not write")
    assert_refused(run_skrafl_here(*command("elo", chain, inputs)), words="skrafl did not write")
    assert (chain / "notes.txt").read_text() == "x\n" and sorted(os.listdir(chain)) == ["notes.txt"]


def test_export_never_rewrites_inputs(tmp_path: Path, inputs: dict) -> None:
    before = snapshot(inputs["games"])
    r = run_skrafl_here(
        "replay", str(inputs["games"]), "--out", str(tmp_path / "o"), "--export-gcg", str(inputs["games"]), "--no-lexicon", "-q"
    )
    assert_refused(r, words="input")
    assert snapshot(inputs["games"]) == before
    assert not (tmp_path / "o").exists()


def test_second_writer_fails_while_the_first_holds_the_lock(tmp_path: Path, inputs: dict) -> None:
    out = tmp_path / "lex"
    assert run_skrafl_here(*command("build", out, inputs)).returncode == 0
    before = snapshot(tmp_path)
    fd = os.open(tmp_path / ".lex.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        # a process of its own: this one holds the lock
        assert_refused(run_skrafl(*command("build", out, inputs)), words="another skrafl run is writing this output")
        assert snapshot(tmp_path) == {**before, ".lex.lock": hashlib.sha256(b"").hexdigest()}
    finally:
        os.close(fd)
    assert run_skrafl_here(*command("build", out, inputs)).returncode == 0


@pytest.mark.slow
def test_concurrent_builds_into_one_folder(tmp_path: Path, words) -> None:
    """Two builds started together into one --out: each succeeds or fails with one line; the
    result is one complete build, never an interleaving."""
    import sys

    from clirun import PROJECT_ROOT

    big = tmp_path / "big.txt"
    big.write_text("\n".join(f"{a}{b}{c}{d}" for a in "abcdefgh" for b in "aeiou" for c in "klmnprst" for d in "aeiouy") + "\n")
    out = tmp_path / "lex"
    runs = []
    for src in (big, words[1]):
        cmd = [sys.executable, "-m", "cli.main", *command("build", out, {"words": src})]
        runs.append(subprocess.Popen(cmd, cwd=PROJECT_ROOT, stderr=subprocess.PIPE, text=True))
    results = [(p.wait(timeout=300), p.stderr.read()) for p in runs]
    assert all(rc in (0, 2) for rc, _ in results), results
    assert any(rc == 0 for rc, _ in results)
    for rc, err in results:
        if rc == 2:
            assert "another skrafl run is writing this output" in err and len(err.strip().splitlines()) == 1
    from gamecore.folders import open_output

    gen = open_output(out, checksums=True)
    listed = (gen / "words.txt").read_text().split()
    assert listed in (sorted(big.read_text().split()), sorted(words[1].read_text().split())) or set(listed) in (
        set(big.read_text().split()),
        set(words[1].read_text().split()),
    )


def test_readers_refuse_a_damaged_output(tmp_path: Path, inputs: dict) -> None:
    lex = inputs["lex_a"]
    gen = lex.parent / os.readlink(lex)
    assert run_skrafl_here("check", "--lexicon", str(lex), "hello").returncode == 0
    with open(gen / "lexicon.kwg", "ab") as fh:
        fh.write(b"\0\0\0\0")
    for args in (
        ["check", "--lexicon", str(lex), "hello"],
        ["diff", str(lex), str(inputs["lex_b"]), "--out", str(tmp_path / "d")],
    ):
        r = run_skrafl_here(*args)
        assert_refused(r, words="damaged output: lexicon.kwg")
    (gen / "lexicon.kwg").unlink()
    assert_refused(run_skrafl_here("check", "--lexicon", str(lex), "hello"), words="incomplete output: lexicon.kwg is missing")


def test_a_folder_without_marker_is_not_a_lexicon(tmp_path: Path, inputs: dict) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(inputs["lex_a"], copy, symlinks=False)
    (copy / ".skrafl-output").unlink()
    assert_refused(run_skrafl_here("check", "--lexicon", str(copy), "hello"), words="not a skrafl output")


def test_stale_stages_are_cleaned_by_the_next_run(tmp_path: Path, inputs: dict) -> None:
    out = tmp_path / "lex"
    assert run_skrafl_here(*command("build", out, inputs)).returncode == 0
    stale = tmp_path / ".lex.gen-deadbeef"
    stale.mkdir()
    (stale / ".skrafl-stage").touch()
    (stale / "words.txt").write_text("half\n")
    (tmp_path / ".lex.link-cafe").symlink_to(".lex.gen-deadbeef")
    user_lookalike = tmp_path / ".lex.gen-mine"
    user_lookalike.mkdir()
    (user_lookalike / "keep.txt").write_text("mine\n")  # no stage flag, no marker: not ours
    assert run_skrafl_here(*command("build", out, inputs)).returncode == 0
    assert not stale.exists() and not (tmp_path / ".lex.link-cafe").is_symlink()
    assert (user_lookalike / "keep.txt").read_text() == "mine\n"


@pytest.mark.slow
@pytest.mark.parametrize("signum, code", [(15, 143), (2, 130)])
def test_sigterm_and_sigint_discard_the_stage(tmp_path: Path, words, signum: int, code: int) -> None:
    """A build stopped by SIGTERM or SIGINT while it writes exits 143 / 130 with one line; the
    previous output is intact and no stage is left."""
    import sys
    import time

    from clirun import PROJECT_ROOT

    from gamecore.folders import open_output

    out = tmp_path / "lex"
    assert run_skrafl_here(*command("build", out, {"words": words[0]})).returncode == 0
    old = (open_output(out) / "words.txt").read_text()
    big = tmp_path / "big.txt"
    big.write_text(
        "\n".join(
            f"{a}{b}{c}{d}{e}" for a in "bcdfghjklm" for b in "aeiou" for c in "klmnprst" for d in "aeiouy" for e in "nrstl"
        )
        + "\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", *command("build", out, {"words": big})],
        cwd=PROJECT_ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not any(p.name.startswith(".lex.gen-") and p.name != os.readlink(out) for p in tmp_path.iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline, "the build never started writing"
        time.sleep(0.005)
    proc.send_signal(signum)
    assert proc.wait(timeout=60) == code, proc.stderr.read()
    err = proc.stderr.read().strip().splitlines()
    assert len(err) == 1 and "discarded" in err[0] and "Traceback" not in err[0], err
    assert (open_output(out, checksums=True) / "words.txt").read_text() == old
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".lex.") and p.name != os.readlink(out)]
    assert leftovers == [], leftovers
