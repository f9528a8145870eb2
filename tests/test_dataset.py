"""replay --dataset: Hive-partitioned games/moves, one partition replaced at a time; elo reads it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from pipelines.replay.dataset import read_manifest
from pipelines.replay.jobs import run_replay_dataset
from pipelines.replay.run import ReplayOptions, run_replay

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared"))
NETSKRAFL = SHARED / "corpora" / "netskrafl" / "games"
GCG = SHARED / "corpora" / "gcg"
pytestmark = pytest.mark.skipif(not NETSKRAFL.exists(), reason="no corpus in ../shared")


def _skrafl(*args, cwd=None):
    """The real entry point, in this process (clirun.run_skrafl_here); a stop uses a process."""
    from clirun import run_skrafl_here

    return run_skrafl_here(*map(str, args), cwd=cwd)


def _tree(ds: Path) -> dict[str, bytes]:
    out = {}
    for table in ("games", "moves"):
        for p in sorted((ds / table).iterdir()):
            out[f"{table}/{p.name}"] = (p / "data.parquet").read_bytes()
    return out


def test_partitions_and_readers(tmp_path):
    ds = tmp_path / "ds"
    s = run_replay_dataset([str(NETSKRAFL), str(GCG)], ds, ReplayOptions(), quiet=True)
    src = "src-gcg-" + __import__("hashlib").sha256(str(GCG.resolve()).encode()).hexdigest()[:8]
    assert s["partitions"] == ["2025-08-11", "2025-08-12", "2025-08-16", src]
    assert s["games"] == 62
    # one table to polars, pyarrow and DuckDB; the same rows as the monolithic replay
    mono = tmp_path / "mono"
    run_replay([str(NETSKRAFL), str(GCG)], mono, ReplayOptions(), quiet=True)
    want = pl.read_parquet(mono / "games.parquet").sort("file")
    got = pl.scan_parquet(str(ds / "games" / "**" / "*.parquet"), hive_partitioning=True).collect()
    assert got.drop("part").sort("file").equals(want)
    import pyarrow.dataset as pads

    assert (
        pads.dataset(ds / "moves", partitioning="hive", format="parquet").count_rows()
        == pl.read_parquet(mono / "moves.parquet").height
    )
    duckdb = pytest.importorskip("duckdb")
    n = duckdb.sql(
        f"SELECT count(*) FROM read_parquet('{ds}/games/*/*.parquet', hive_partitioning=true) WHERE part = '2025-08-11'"
    ).fetchall()[0][0]
    assert n == 6
    assert read_manifest(ds)["partitions"]["2025-08-11"]["games"] == 6


def test_one_partition_replaced_rest_untouched(tmp_path):
    ds = tmp_path / "ds"
    run_replay_dataset([str(NETSKRAFL), str(GCG)], ds, ReplayOptions(), quiet=True)
    version = os.readlink(ds / "current")
    trees = _tree(ds)
    # a nightly run for 2025-08-12 only: that partition alone is looked at; identical → no new version
    s = run_replay_dataset([str(NETSKRAFL)], ds, ReplayOptions(), quiet=True, since=_d("2025-08-12"), until=_d("2025-08-12"))
    assert s["partitions"] == [] and s["unchanged"] == ["2025-08-12"] and s["outside"] == 8
    assert os.readlink(ds / "current") == version
    # a game of that day again (one file only): the partition is rewritten, its other game kept,
    # the other partitions are the same files (hard links into the new version)
    one = tmp_path / "in"
    one.mkdir()
    day12 = [f for f in sorted(NETSKRAFL.iterdir()) if '"2025-08-12' in f.read_text(encoding="utf-8")]
    shutil.copy(day12[0], one)
    s = run_replay_dataset([str(one)], ds, ReplayOptions(), quiet=True, since=_d("2025-08-12"), until=_d("2025-08-12"))
    assert s["partitions"] == ["2025-08-12"] and s["replaced"] == 1
    assert os.readlink(ds / "current") != version and not (ds / version).exists()
    assert read_manifest(ds)["partitions"]["2025-08-12"]["games"] == len(day12)
    now = _tree(ds)
    assert {k: v for k, v in now.items() if "2025-08-12" not in k} == {k: v for k, v in trees.items() if "2025-08-12" not in k}
    # --drop-missing: the window's day keeps only the games the run brought; a window day without
    # games is removed
    day16 = [f for f in sorted(NETSKRAFL.iterdir()) if '"2025-08-16' in f.read_text(encoding="utf-8")]
    s = run_replay_dataset(
        [str(one)], ds, ReplayOptions(), quiet=True, since=_d("2025-08-12"), until=_d("2025-08-16"), drop_missing=True
    )
    assert s["removed"] == ["2025-08-16"] and s["dropped"] == len(day12) - 1 + len(day16)
    assert "2025-08-16" not in read_manifest(ds)["partitions"] and not (ds / "games" / "part=2025-08-16").exists()
    assert read_manifest(ds)["partitions"]["2025-08-12"]["games"] == 1
    # one hidden version, nothing else hidden
    assert [p.name.startswith(".v-") for p in ds.iterdir() if p.name.startswith(".")] == [True]


def _d(text):
    import datetime as dt

    return dt.date.fromisoformat(text)


def test_bytes_do_not_depend_on_workers(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    run_replay_dataset([str(NETSKRAFL), str(GCG)], a, ReplayOptions(), quiet=True, workers=1)
    run_replay_dataset([str(NETSKRAFL), str(GCG)], b, ReplayOptions(), quiet=True, workers=2)
    assert _tree(a) == _tree(b)
    assert (a / "dataset.json").read_bytes() == (b / "dataset.json").read_bytes()


def test_refusals_and_cli(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.txt").write_text("mine")
    r = _skrafl("replay", NETSKRAFL, "--dataset", other, "-q")
    assert r.returncode == 2 and "did not write" in r.stderr
    r = _skrafl("replay", NETSKRAFL, "--dataset", tmp_path / "ds", "--out", tmp_path / "o", "-q")
    assert r.returncode == 2 and "not both" in r.stderr
    r = _skrafl("replay", NETSKRAFL, "--dataset", tmp_path / "ds", "--since", "2025-13-01", "-q")
    assert r.returncode == 2 and "YYYY-MM-DD" in r.stderr
    r = _skrafl("replay", NETSKRAFL, "--dataset", tmp_path / "ds")
    assert r.returncode == 0, r.stderr
    assert "partitions replaced 2025-08-11, 2025-08-12, 2025-08-16" in r.stderr
    # a replay --out folder is not a dataset, and a dataset is not a replay --out folder
    run_replay([str(NETSKRAFL)], tmp_path / "mono", ReplayOptions(), quiet=True)
    r = _skrafl("replay", NETSKRAFL, "--dataset", tmp_path / "mono", "-q")
    assert r.returncode == 2 and "not a dataset" in r.stderr
    r = _skrafl("replay", NETSKRAFL, "--out", tmp_path / "ds", "-q")
    assert r.returncode == 2 and "is a replay dataset" in r.stderr and f"--dataset {tmp_path / 'ds'}" in r.stderr
    # --analyze must match the dataset's columns
    r = _skrafl("replay", NETSKRAFL, "--dataset", tmp_path / "ds", "--analyze", "--lexicon", ROOT / "output" / "is", "-q")
    if (ROOT / "output" / "is" / "manifest.json").exists():
        assert r.returncode == 2 and "--analyze" in r.stderr


def test_elo_rates_a_gcg_dataset_like_its_table(tmp_path):
    """GCG games name their players: rated from a dataset, from the replay's games.parquet and
    from its folder, the same ratings."""
    ds = tmp_path / "ds"
    run_replay_dataset([str(GCG)], ds, ReplayOptions(), quiet=True)
    run_replay([str(GCG)], tmp_path / "mono", ReplayOptions(), quiet=True)
    for src, out in ((ds, "e1"), (tmp_path / "mono" / "games.parquet", "e2"), (tmp_path / "mono", "e3")):
        r = _skrafl("elo", "--games", src, "--out", tmp_path / out, "-q")
        assert r.returncode == 0, r.stderr
    ratings = [pl.read_parquet(tmp_path / o / "ratings.parquet").sort("list", "player") for o in ("e1", "e2", "e3")]
    assert ratings[0].height > 0
    assert ratings[0].equals(ratings[1]) and ratings[0].equals(ratings[2])


@pytest.mark.slow
def test_elo_reads_dataset_like_the_table(tmp_path):
    """Netskrafl records (no player ids: every game left unrated, elo's warning) read from a
    dataset as from the table: the same games, the optional columns, the days."""
    ds = tmp_path / "ds"
    run_replay_dataset([str(NETSKRAFL)], ds, ReplayOptions(), quiet=True)
    run_replay([str(NETSKRAFL)], tmp_path / "mono", ReplayOptions(), quiet=True)
    for src, out in ((ds, "e1"), (tmp_path / "mono" / "games.parquet", "e2"), (tmp_path / "mono", "e3")):
        r = _skrafl("elo", "--games", src, "--out", tmp_path / out, "-q")
        # none of the 10 can be rated: the same one line from each source, exit 2, nothing written
        assert r.returncode == 2 and "nothing rated: none of the table's 10 game(s)" in r.stderr, r.stderr
        assert "10 replayed Netskrafl game(s) not rated" in r.stderr and not (tmp_path / out).exists(), r.stderr
    from pipelines.elo.games import read_games
    from pipelines.elo.optional import extra_columns

    table = read_games(ds)
    by_file = extra_columns(tmp_path / "mono" / "games.parquet")
    assert table.extras is not None and table.extras["locale"].to_list() == ["is_IS"] * 10
    assert sorted(table.extras.drop("row").rows()) == sorted(by_file.drop("row").rows())
    assert read_games(tmp_path / "mono").extras.equals(by_file)
    # --date of one partition's day, then the next with --state: as one run from scratch
    r = _skrafl("elo", "--games", ds, "--out", tmp_path / "d1", "--date", "2025-08-11", "--catch-up", "-q")
    assert r.returncode == 0, r.stderr
    r = _skrafl(
        "elo", "--games", ds, "--out", tmp_path / "d2", "--state", tmp_path / "d1", "--date", "2025-08-16", "--catch-up", "-q"
    )
    assert r.returncode == 0, r.stderr
    r = _skrafl("elo", "--games", ds, "--out", tmp_path / "d3", "--date", "2025-08-16", "--catch-up", "-q")
    assert r.returncode == 0, r.stderr
    a = pl.read_parquet(tmp_path / "d2" / "ratings.parquet").sort("list", "player").drop("as_of")
    assert a.equals(pl.read_parquet(tmp_path / "d3" / "ratings.parquet").sort("list", "player").drop("as_of"))


def test_leftovers_of_a_killed_run_are_tidied(tmp_path):
    """What a kill can leave — a spool, a version never published, temporary links — is removed
    by the next run; readers never see any of it (nothing hidden inside games/ or moves/)."""
    ds = tmp_path / "ds"
    run_replay_dataset([str(NETSKRAFL)], ds, ReplayOptions(), quiet=True)
    before = _tree(ds)
    (ds / ".spool-dead").mkdir()
    (ds / ".spool-dead" / "seg-0000000.games.arrow").write_bytes(b"x")
    dead = ds / ".v-dead"
    shutil.copytree(os.path.realpath(ds / "current"), dead, symlinks=True)
    os.symlink(dead.name, ds / ".current.tmp-1")
    os.symlink("current/games", ds / ".games.tmp-1")
    assert not any(p.name.startswith(".") for t in ("games", "moves") for p in (ds / t).iterdir())
    s = run_replay_dataset([str(NETSKRAFL)], ds, ReplayOptions(), quiet=True, since=_d("2025-08-11"), until=_d("2025-08-11"))
    assert s["unchanged"] == ["2025-08-11"]
    assert _tree(ds) == before
    assert sorted(p.name for p in ds.iterdir()) == sorted(
        [os.readlink(ds / "current"), "current", "dataset.json", "games", "moves"]
    )
    assert list(read_manifest(ds)["partitions"]) == ["2025-08-11", "2025-08-12", "2025-08-16"]


def test_stop_leaves_the_dataset_as_it_was(tmp_path):
    """SIGTERM during a dataset run: exit 143, no partition of the run swapped in, no spool left."""
    import signal
    import time

    many = tmp_path / "many"
    many.mkdir()
    for i in range(60):
        for f in NETSKRAFL.glob("*.json"):
            shutil.copyfile(f, many / f"{i:03d}_{f.name}")  # copies: a hard link is the same game, read once
    ds = tmp_path / "ds"
    run_replay_dataset([str(NETSKRAFL)], ds, ReplayOptions(), quiet=True)
    before = _tree(ds), (ds / "dataset.json").read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "replay", str(many), "--dataset", str(ds), "--workers", "2", "-q", "--no-lexicon"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(p.name.startswith(".spool-") for p in ds.iterdir()):
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "no partition of this run was swapped in" in err
    assert (_tree(ds), (ds / "dataset.json").read_bytes()) == before
    assert [p.name for p in ds.iterdir() if p.name.startswith(".")] == [os.readlink(ds / "current")]


def test_a_stop_just_after_the_spool_is_made_leaves_no_spool(tmp_path, monkeypatch):
    """A stop that came after the spool folder's mkdir but before the run held it left the spool
    behind (seen under load in test_stop_leaves_the_dataset_as_it_was): the spool is removed by
    name. The stop is injected at that instant (as a signal handler raises there)."""
    import tempfile

    from pipelines.replay import dataset as ds_mod
    from pipelines.replay.run import Stopped

    ds = tmp_path / "ds"
    run_replay_dataset([str(NETSKRAFL)], ds, ReplayOptions(), quiet=True)
    before = _tree(ds), (ds / "dataset.json").read_bytes()
    real = tempfile.mkdtemp

    def mkdtemp_then_stop(*args, **kwargs):
        made = real(*args, **kwargs)
        if kwargs.get("prefix") == ".spool-":
            raise Stopped(15)
        return made

    monkeypatch.setattr(ds_mod.tempfile, "mkdtemp", mkdtemp_then_stop)
    with pytest.raises(Stopped):
        run_replay_dataset([str(NETSKRAFL)], ds, ReplayOptions(), quiet=True)
    assert (_tree(ds), (ds / "dataset.json").read_bytes()) == before
    assert [p.name for p in ds.iterdir() if p.name.startswith(".")] == [os.readlink(ds / "current")]


def test_only_what_a_dataset_run_makes_is_tidied(tmp_path):
    """A folder holding only someone's hidden file is not a dataset (refused, the file kept); a
    hidden file of the user's inside a dataset is left alone by the tidying."""
    other = tmp_path / "other"
    other.mkdir()
    (other / ".notes").write_text("mine")
    r = _skrafl("replay", NETSKRAFL, "--dataset", other, "-q", "--no-lexicon")
    assert r.returncode == 2 and "did not write" in r.stderr, r.stderr
    assert (other / ".notes").read_text() == "mine"
    ds = tmp_path / "ds"
    run_replay_dataset([str(NETSKRAFL)], ds, ReplayOptions(), quiet=True)
    (ds / ".notes").write_text("mine")
    run_replay_dataset([str(GCG)], ds, ReplayOptions(), quiet=True)
    assert (ds / ".notes").read_text() == "mine"
