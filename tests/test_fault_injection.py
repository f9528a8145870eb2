"""Fault injection: kill -9 at every rename, symlink, fsync, open-for-writing and unlink (and a
sample of the closes) of a build, an ingest, a replay and an elo run, and a full disk.

Each run is a real ``skrafl`` process under ``strace -e inject=SYSCALL:signal=KILL:when=N``. The
process replaces an output written before by another input; after the kill the visible output must
be the complete old one or the complete new one (every file matching its marker, the key file equal
to a clean run's), never a mix; nothing else in the folder may be lost, and the next run must
succeed. The reference outputs come from clean runs of the same commands, not from this code.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from clirun import PROJECT_ROOT

FIXTURES = Path(__file__).resolve().parent / "fixtures"
STRACE = shutil.which("strace")


def _ptrace_works() -> bool:
    if STRACE is None:
        return False
    r = subprocess.run([STRACE, "-qq", "-o", "/dev/null", "true"], capture_output=True)
    return r.returncode == 0


pytestmark = pytest.mark.skipif(not _ptrace_works(), reason="strace missing or ptrace not permitted here")

SYSCALLS = ("rename", "symlink", "fsync", "unlink", "openat", "close")
LINE = re.compile(r"^(\d+) +(\w+)\((.*)\) += (-?\d+)")


def skrafl(
    args: list[str], inject: tuple[str, int] | None = None, trace: Path | None = None, syscalls: tuple[str, ...] = SYSCALLS
) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "cli.main", *args]
    if inject is not None:
        syscall, n = inject
        cmd = [
            STRACE,
            "-f",
            "-qq",
            "-o",
            "/dev/null",
            "-e",
            f"trace={syscall}",
            "-e",
            f"inject={syscall}:signal=KILL:when={n}",
            *cmd,
        ]
    elif trace is not None:
        cmd = [STRACE, "-f", "-qq", "-o", str(trace), "-e", "trace=" + ",".join(syscalls), *cmd]
    return subprocess.run(cmd, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300)


def kill_points(trace: Path, out_name: str, closes: int = 6, syscalls: tuple[str, ...] = SYSCALLS) -> list[tuple[str, int]]:
    """(syscall, N) for each call of the main thread worth a kill: every rename, symlink, fsync and
    unlink, every openat for writing, and ``closes`` closes spread over the writing phase."""
    counts: dict[str, int] = {}
    points: list[tuple[str, int]] = []
    close_ordinals: list[int] = []
    main_pid = None
    writing = False
    for line in trace.read_text(errors="replace").splitlines():
        m = LINE.match(line)
        if not m:
            continue
        pid, name, args, _ = m.groups()
        main_pid = main_pid or pid
        if pid != main_pid or name not in syscalls:
            continue
        counts[name] = counts.get(name, 0) + 1
        n = counts[name]
        if name == "openat":
            if re.search(r"O_WRONLY|O_RDWR|O_CREAT", args):
                points.append((name, n))
                writing = writing or out_name in args
        elif name == "close":
            if writing:
                close_ordinals.append(n)
        else:
            points.append((name, n))
    if close_ordinals:
        step = max(1, len(close_ordinals) // closes)
        points += [("close", n) for n in close_ordinals[::step][:closes]]
    return points


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class Scenario:
    name: str
    key_files: tuple[str, ...]

    def args(self, inputs: Path, out: Path) -> list[str]:
        raise NotImplementedError


def outputs_state(out: Path, key_files: tuple[str, ...]) -> tuple[str, ...] | None:
    """The key files' hashes of the output at ``out`` (checked whole first), or None if absent."""
    from gamecore.folders import open_output

    if not out.exists() and not out.is_symlink():
        return None
    gen = open_output(out, checksums=True)  # raises on any missing, truncated or changed file
    return tuple(sha(gen / k) for k in key_files)


def make_inputs(tmp: Path) -> dict[str, dict[str, Path]]:
    """Two inputs per command: 'a' and 'b' give different outputs."""
    words_a = tmp / "words_a.txt"
    words_a.write_text("hello\nworld\nquiz\n", encoding="utf-8")
    words_b = tmp / "words_b.txt"
    words_b.write_text(
        "\n".join(a + b + c + d for a in "bcdfg" for b in "aeiou" for c in "klmnrst" for d in "aeiou") + "\n", encoding="utf-8"
    )
    games_a, games_b = tmp / "games_a", tmp / "games_b"
    games_a.mkdir()
    games_b.mkdir()
    shutil.copy(FIXTURES / "gcg" / "base.gcg", games_a / "base.gcg")
    for i in range(6):  # a good game under six names: six rows
        shutil.copy(FIXTURES / "gcg" / "base.gcg", games_b / f"game{i}.gcg")
    table_a, table_b = tmp / "games_a.csv", tmp / "games_b.csv"
    lines = (FIXTURES / "elo" / "games.csv").read_text(encoding="utf-8").splitlines()
    table_a.write_text("\n".join(lines[:4]) + "\n", encoding="utf-8")
    table_b.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"words": {"a": words_a, "b": words_b}, "games": {"a": games_a, "b": games_b}, "table": {"a": table_a, "b": table_b}}


COMMANDS = {
    "build": (
        ("words.txt", "lexicon.kwg", "lexicon.marisa"),
        lambda i, out: ["build", "en", "--source", "wordlist", "--input", str(i["words"]), "--out", str(out), "-q"],
    ),
    "ingest": (
        ("entries.parquet",),
        lambda i, out: ["ingest", "en", "--source", "wordlist", "--input", str(i["words"]), "--out", str(out), "-q"],
    ),
    "replay": (
        ("games.parquet", "moves.parquet"),
        lambda i, out: ["replay", str(i["games"]), "--out", str(out), "--no-lexicon", "-q"],
    ),
    "elo": (("ratings.parquet",), lambda i, out: ["elo", "--games", str(i["table"]), "--out", str(out), "-q"]),
}
KIND_INPUT = {"build": "words", "ingest": "words", "replay": "games", "elo": "table"}


def _reference(kind: str, inputs: dict, tmp: Path) -> dict[str, tuple[str, ...]]:
    key_files, make = COMMANDS[kind]
    refs = {}
    for side in ("a", "b"):
        out = tmp / f"ref_{kind}_{side}"
        r = skrafl(make({KIND_INPUT[kind]: inputs[KIND_INPUT[kind]][side]}, out))
        assert r.returncode == 0, r.stderr
        refs[side] = outputs_state(out, key_files)
    assert refs["a"] != refs["b"]
    return refs


@pytest.mark.parametrize("kind", list(COMMANDS))
def test_kill_at_every_write_step_leaves_old_or_new(kind: str, tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path)
    key_files, make = COMMANDS[kind]
    refs = _reference(kind, inputs, tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("a user's file beside the output\n")
    out = work / "out"

    def run(side: str, inject=None, trace=None):
        return skrafl(make({KIND_INPUT[kind]: inputs[KIND_INPUT[kind]][side]}, out), inject=inject, trace=trace)

    assert run("a").returncode == 0
    trace = tmp_path / "trace.txt"
    r = run("b", trace=trace)
    assert r.returncode == 0, r.stderr
    assert run("a").returncode == 0
    points = kill_points(trace, "out")
    assert len(points) >= 8, points  # the writing steps were seen

    landed = {"old": 0, "new": 0, "absent": 0}
    current = "a"
    for syscall, n in points:
        target = "b" if current == "a" else "a"
        r = run(target, inject=(syscall, n))
        assert r.returncode in (0, -9), (syscall, n, r.returncode, r.stderr)
        assert "Traceback" not in r.stderr
        state = outputs_state(out, key_files)
        assert state in (refs[current], refs[target]), (syscall, n, "a mixed or damaged output")
        if r.returncode == -9:
            landed["old" if state == refs[current] else "new"] += 1
        elif state != refs[target]:
            pytest.fail(f"exit 0 at {syscall} #{n} but the output is the old one")
        current = "a" if state == refs["a"] else "b"
        assert (work / "notes.txt").read_text() == "a user's file beside the output\n"
    print(f"{kind}: {len(points)} kill points, {landed}")
    assert landed["old"] + landed["new"] >= len(points) // 2, landed
    assert landed["old"] >= 1, landed
    # the next clean run succeeds and tidies every leftover of the killed runs
    target = "b" if current == "a" else "a"
    r = run(target)
    assert r.returncode == 0, r.stderr
    assert outputs_state(out, key_files) == refs[target]
    assert sorted(p.name for p in work.iterdir()) == sorted([os.readlink(out), "notes.txt", "out"])


@pytest.mark.parametrize("kind", ["build", "replay"])
def test_kill_of_a_first_run_leaves_nothing_or_the_whole_output(kind: str, tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path)
    key_files, make = COMMANDS[kind]
    refs = _reference(kind, inputs, tmp_path)
    trace = tmp_path / "trace.txt"
    assert skrafl(make({KIND_INPUT[kind]: inputs[KIND_INPUT[kind]]["b"]}, tmp_path / "t" / "out"), trace=trace).returncode == 0
    for i, (syscall, n) in enumerate(kill_points(trace, "out")):
        out = tmp_path / f"w{i}" / "out"
        r = skrafl(make({KIND_INPUT[kind]: inputs[KIND_INPUT[kind]]["b"]}, out), inject=(syscall, n))
        assert r.returncode in (0, -9)
        assert outputs_state(out, key_files) in (None, refs["b"]), (syscall, n)


def _mount_tmpfs(path: Path, size: str) -> bool:
    path.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "skrafl-test", str(path)], capture_output=True)
    return r.returncode == 0


@pytest.mark.parametrize("kind", ["build", "ingest", "replay", "elo"])
def test_disk_full_changes_nothing(kind: str, tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path)
    key_files, make = COMMANDS[kind]
    small = tmp_path / "small"
    if not _mount_tmpfs(small, "1m"):
        pytest.skip("cannot mount a small tmpfs here (not root?)")
    try:
        out = small / "out"
        r = skrafl(make({KIND_INPUT[kind]: inputs[KIND_INPUT[kind]]["a"]}, out))
        assert r.returncode == 0, r.stderr
        before = outputs_state(out, key_files)
        filler = small / "filler"
        free = os.statvfs(small).f_bavail * os.statvfs(small).f_frsize
        # leave a few KiB: the run fails part-way through writing its output
        with open(filler, "wb") as fh:
            fh.write(b"\0" * max(0, free - 6 * 1024))
        r = skrafl(make({KIND_INPUT[kind]: inputs[KIND_INPUT[kind]]["b"]}, out))
        assert r.returncode == 2, (r.returncode, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "no space left" in lines[0].lower() and "Traceback" not in r.stderr, r.stderr
        assert outputs_state(out, key_files) == before
        assert sorted(p.name for p in small.iterdir()) == sorted([os.readlink(out), "filler", "out"])
        filler.unlink()
        assert skrafl(make({KIND_INPUT[kind]: inputs[KIND_INPUT[kind]]["b"]}, out)).returncode == 0
    finally:
        subprocess.run(["umount", "-l", str(small)], capture_output=True)


# --- replay --dataset: every kill point, every reader the README names --------------------------


def _dataset_inputs(tmp: Path) -> dict[str, list[Path]]:
    """Two contents of one input folder (so both land in one partition): 'a' one game, 'b' six."""
    base = FIXTURES / "gcg" / "base.gcg"
    return {"a": [base], "b": [base] * 6}


def _fill(folder: Path, files: list[Path]) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for i, f in enumerate(files):
        shutil.copy(f, folder / (f.name if len(set(files)) == len(files) else f"game{i}.gcg"))


DATASET_SYSCALLS = (*SYSCALLS, "unlinkat", "link", "linkat", "mkdir", "renameat", "renameat2")
"""A dataset run also links files (a partition left as it was), makes folders and removes trees."""


def _dataset_args(games: Path, ds: Path) -> list[str]:
    return ["replay", str(games), "--dataset", str(ds), "--drop-missing", "--no-lexicon", "-q"]


def dataset_state(ds: Path) -> tuple | None:
    """What every reader the README names sees of a dataset, checked to agree: polars' Hive scan
    of games/ and moves/, pyarrow's dataset, DuckDB's glob (when installed), dataset.json, and
    skrafl's own reader (elo's and impact's). None when there is no dataset (nothing published)."""
    import polars as pl
    import pyarrow.dataset as pads

    from pipelines.replay.dataset import read_table

    if not (ds / "dataset.json").exists():
        assert not any((ds / t).exists() for t in ("games", "moves")), "tables without a manifest"
        return None
    manifest = json.loads((ds / "dataset.json").read_text(encoding="utf-8"))
    counts = tuple(sorted((p, i["games"], i["moves"]) for p, i in manifest["partitions"].items()))
    for table in ("games", "moves"):
        names = [p.name for p in (ds / table).iterdir()]
        assert all(not n.startswith(".") for n in names), names  # nothing hidden where readers glob
    games = pl.scan_parquet(str(ds / "games" / "**" / "*.parquet"), hive_partitioning=True).collect()
    moves = pl.scan_parquet(str(ds / "moves" / "**" / "*.parquet"), hive_partitioning=True).collect()
    seen = (
        tuple(sorted(games.select("file", "game_id", "status").rows())),
        tuple(sorted(moves.group_by("file").len().rows())),
    )
    own_games = pl.from_arrow(read_table(ds, "games"))
    own_moves = pl.from_arrow(read_table(ds, "moves"))
    assert (
        tuple(sorted(own_games.select("file", "game_id", "status").rows())),
        tuple(sorted(own_moves.group_by("file").len().rows())),
    ) == seen
    assert sum(c[1] for c in counts) == games.height and sum(c[2] for c in counts) == moves.height, (counts, games.height)
    assert pads.dataset(ds / "games", partitioning="hive", format="parquet").count_rows() == games.height
    try:
        import duckdb
    except ImportError:
        duckdb = None
    if duckdb is not None:
        n = duckdb.sql(f"SELECT count(*) FROM read_parquet('{ds}/games/*/*.parquet', hive_partitioning=true)").fetchall()[0][0]
        m = duckdb.sql(f"SELECT count(*) FROM read_parquet('{ds}/moves/*/*.parquet', hive_partitioning=true)").fetchall()[0][0]
        assert (n, m) == (games.height, moves.height)
    return seen + (counts,)


def test_kill_at_every_step_of_a_dataset_run_leaves_old_or_new(tmp_path: Path) -> None:
    """kill -9 at every write step of ``replay --dataset`` (spool, partitions, links, manifest,
    the swap, the clean-up): every reader sees the whole old dataset or the whole new one, the
    next run of the same command succeeds and leaves no leftover."""

    contents = _dataset_inputs(tmp_path)
    games = tmp_path / "in" / "games"
    other = tmp_path / "other" / "games"  # a partition no run below touches: hard-linked each time
    _fill(other, [FIXTURES / "gcg" / "duplicate_names.gcg", FIXTURES / "gcg" / "duplicate_nicknames.gcg"])
    refs = {}
    for side in ("a", "b"):
        assert skrafl(_dataset_args(other, tmp_path / f"ref_{side}")).returncode == 0
        _fill(games, contents[side])
        r = skrafl(_dataset_args(games, tmp_path / f"ref_{side}"))
        assert r.returncode == 0, r.stderr
        refs[side] = dataset_state(tmp_path / f"ref_{side}")
        assert len(refs[side][2]) == 2
    assert refs["a"] != refs["b"]
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("a user's file beside the dataset\n")
    out = work / "out"

    def run(side: str, inject=None, trace=None):
        _fill(games, contents[side])
        return skrafl(_dataset_args(games, out), inject=inject, trace=trace, syscalls=DATASET_SYSCALLS)

    assert skrafl(_dataset_args(other, out)).returncode == 0
    assert run("a").returncode == 0
    trace = tmp_path / "trace.txt"
    assert run("b", trace=trace).returncode == 0
    assert run("a").returncode == 0
    points = kill_points(trace, "out", syscalls=DATASET_SYSCALLS)
    assert len(points) >= 8, points
    landed = {"old": 0, "new": 0}
    current = "a"
    for syscall, n in points:
        target = "b" if current == "a" else "a"
        r = run(target, inject=(syscall, n))
        assert r.returncode in (0, -9), (syscall, n, r.returncode, r.stderr)
        assert "Traceback" not in r.stderr
        state = dataset_state(out)
        assert state in (refs[current], refs[target]), (syscall, n, "a mixed or damaged dataset")
        if r.returncode == -9:
            landed["old" if state == refs[current] else "new"] += 1
        elif state != refs[target]:
            pytest.fail(f"exit 0 at {syscall} #{n} but the dataset is the old one")
        current = "a" if state == refs["a"] else "b"
        assert (work / "notes.txt").read_text() == "a user's file beside the dataset\n"
    print(f"replay --dataset: {len(points)} kill points, {landed}")
    assert landed["old"] >= 1 and landed["new"] >= 1, landed
    target = "b" if current == "a" else "a"
    r = run(target)
    assert r.returncode == 0, r.stderr
    assert dataset_state(out) == refs[target]
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [os.readlink(out / "current"), "current", "dataset.json", "games", "moves"]
    )
    assert sorted(p.name for p in work.iterdir()) == ["notes.txt", "out"]


def sampled(points: list[tuple[str, int]], keep: int = 24) -> list[tuple[str, int]]:
    """The kill points a second scenario of a dataset run is checked at in the default run: every
    rename and symlink (the steps that publish) and an even sample of the others, ``keep`` in all,
    the same every run. ``SKRAFL_FAULTS=all`` checks every point (the scenario of replacing a
    dataset, :func:`test_kill_at_every_step_of_a_dataset_run_leaves_old_or_new`, always does)."""
    if os.environ.get("SKRAFL_FAULTS") == "all" or len(points) <= keep:
        return points
    publish = [p for p in points if p[0] in ("rename", "renameat", "renameat2", "symlink", "symlinkat")]
    rest = [p for p in points if p not in publish]
    room = max(keep - len(publish), 1)
    step = max(1, -(-len(rest) // room))
    return sorted(publish + rest[::step], key=points.index)


def test_kill_of_a_first_dataset_run_leaves_nothing_or_the_whole_dataset(tmp_path: Path) -> None:
    contents = _dataset_inputs(tmp_path)
    games = tmp_path / "in" / "games"
    _fill(games, contents["b"])
    assert skrafl(_dataset_args(games, tmp_path / "ref")).returncode == 0
    ref = dataset_state(tmp_path / "ref")
    trace = tmp_path / "trace.txt"
    assert skrafl(_dataset_args(games, tmp_path / "t" / "out"), trace=trace, syscalls=DATASET_SYSCALLS).returncode == 0
    for i, (syscall, n) in enumerate(sampled(kill_points(trace, "out", syscalls=DATASET_SYSCALLS))):
        out = tmp_path / f"w{i}" / "out"
        r = skrafl(_dataset_args(games, out), inject=(syscall, n))
        assert r.returncode in (0, -9)
        assert dataset_state(out) in (None, ref), (syscall, n)
        # the next run of the same command takes what the kill left and tidies it
        r = skrafl(_dataset_args(games, out))
        assert r.returncode == 0, (syscall, n, r.stderr)
        assert dataset_state(out) == ref
        assert sorted(p.name for p in out.iterdir()) == sorted(
            [os.readlink(out / "current"), "current", "dataset.json", "games", "moves"]
        )


def test_disk_full_in_a_dataset_run_names_it_and_changes_nothing(tmp_path: Path) -> None:
    contents = _dataset_inputs(tmp_path)
    games = tmp_path / "in" / "games"
    small = tmp_path / "small"
    if not _mount_tmpfs(small, "1m"):
        pytest.skip("cannot mount a small tmpfs here (not root?)")
    try:
        out = small / "out"
        _fill(games, contents["a"])
        r = skrafl(_dataset_args(games, out))
        assert r.returncode == 0, r.stderr
        before = dataset_state(out)
        filler = small / "filler"
        free = os.statvfs(small).f_bavail * os.statvfs(small).f_frsize
        with open(filler, "wb") as fh:
            fh.write(b"\0" * max(0, free - 6 * 1024))
        _fill(games, contents["b"])
        r = skrafl(_dataset_args(games, out))
        assert r.returncode == 2, (r.returncode, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "no space left" in lines[0].lower() and str(out) in lines[0], r.stderr
        assert "Traceback" not in r.stderr
        assert dataset_state(out) == before
        assert sorted(p.name for p in out.iterdir()) == sorted(
            [os.readlink(out / "current"), "current", "dataset.json", "games", "moves"]
        )
        filler.unlink()
        r = skrafl(_dataset_args(games, out))
        assert r.returncode == 0, r.stderr
    finally:
        subprocess.run(["umount", "-l", str(small)], capture_output=True)


def test_kill_while_a_dataset_of_the_older_layout_is_converted(tmp_path: Path) -> None:
    """A dataset of the per-partition layout (what the nightly job has on disk) is converted by its
    next run: a kill at any point of that run leaves every reader the old games or the new ones,
    and the run after it converts and succeeds."""
    from test_dataset_merge import _to_old_layout

    contents = _dataset_inputs(tmp_path)
    games = tmp_path / "in" / "games"
    other = tmp_path / "other" / "games"
    _fill(other, [FIXTURES / "gcg" / "duplicate_names.gcg", FIXTURES / "gcg" / "duplicate_nicknames.gcg"])
    template = tmp_path / "template"
    assert skrafl(_dataset_args(other, template)).returncode == 0
    _fill(games, contents["a"])
    assert skrafl(_dataset_args(games, template)).returncode == 0
    old = dataset_state(template)
    _to_old_layout(template)
    assert dataset_state(template) == old  # the older layout reads the same
    ref = tmp_path / "ref"
    assert skrafl(_dataset_args(other, ref)).returncode == 0
    _fill(games, contents["b"])
    assert skrafl(_dataset_args(games, ref)).returncode == 0
    new = dataset_state(ref)
    out = tmp_path / "work" / "out"

    def fresh() -> None:
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(template, out, symlinks=True)

    fresh()
    trace = tmp_path / "trace.txt"
    r = skrafl(_dataset_args(games, out), trace=trace, syscalls=DATASET_SYSCALLS)
    assert r.returncode == 0, r.stderr
    assert dataset_state(out) == new
    points = kill_points(trace, "out", syscalls=DATASET_SYSCALLS)
    assert len(points) >= 8, points
    points = sampled(points)
    landed = {"old": 0, "new": 0}
    for syscall, n in points:
        fresh()
        r = skrafl(_dataset_args(games, out), inject=(syscall, n))
        assert r.returncode in (0, -9), (syscall, n, r.returncode, r.stderr)
        state = dataset_state(out)
        assert state in (old, new), (syscall, n, "a mixed or damaged dataset")
        landed["old" if state == old else "new"] += 1
        r = skrafl(_dataset_args(games, out))
        assert r.returncode == 0, (syscall, n, r.stderr)
        assert dataset_state(out) == new
        assert sorted(p.name for p in out.iterdir()) == sorted(
            [os.readlink(out / "current"), "current", "dataset.json", "games", "moves"]
        )
    print(f"replay --dataset, older layout converted: {len(points)} kill points, {landed}")
    assert landed["old"] >= 1, landed
