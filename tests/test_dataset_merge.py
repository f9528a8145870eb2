"""replay --dataset never loses a game a run did not ask to drop: games are
added and replaced by their id, two source folders of one name never share a partition, and
dropping what a run did not bring is the explicit --drop-missing, which says how many it drops.
A dataset of the older layout is converted on its next run without losing a game.

The expected counts are the numbers of game files copied (one game each) and the games of each
day in the corpus (their ``ts_last_move``), never what the dataset code computes."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest

from pipelines.replay.dataset import read_manifest, read_table
from pipelines.replay.jobs import run_replay_dataset
from pipelines.replay.run import ReplayOptions

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared"))
NETSKRAFL = SHARED / "corpora" / "netskrafl" / "games"
GCG = SHARED / "corpora" / "gcg"
pytestmark = pytest.mark.skipif(not (NETSKRAFL.exists() and GCG.exists()), reason="no corpus in ../shared")


def _skrafl(*args):
    """The real entry point, in this process (clirun.run_skrafl_here)."""
    from clirun import run_skrafl_here

    return run_skrafl_here(*map(str, args))


def _games(ds: Path) -> pl.DataFrame:
    """The games as polars' Hive reader sees them (the README's reader)."""
    return pl.scan_parquet(str(ds / "games" / "**" / "*.parquet"), hive_partitioning=True).collect()


def _day_files(day: str) -> list[Path]:
    """The corpus's Netskrafl records of a UTC day (by their own ``ts_last_move``)."""
    out = []
    for f in sorted(NETSKRAFL.glob("*.json")):
        ts = json.loads(f.read_text(encoding="utf-8"))["ts_last_move"]
        if ts.startswith(day):
            out.append(f)
    return out


def _gcg_games(n: int) -> list[Path]:
    """``n`` GCG files of distinct games (no two with the same content)."""
    seen, out = set(), []
    for f in sorted(GCG.glob("*.gcg")):
        digest = hashlib.sha256(f.read_bytes()).hexdigest()
        if digest not in seen and "#id" not in f.read_text(encoding="utf-8", errors="replace"):
            seen.add(digest)
            out.append(f)
    assert len(out) >= n
    return out[:n]


def test_two_source_folders_of_one_name_keep_all_their_games(tmp_path):
    """The issue's case: site1/games and site2/games, 11 games each; replaying site2 alone left 11
    of 22. Now each folder has its own partition and the dataset keeps 22."""
    files = _gcg_games(22)
    for site, chunk in (("site1", files[:11]), ("site2", files[11:])):
        (tmp_path / site / "games").mkdir(parents=True)
        for f in chunk:
            shutil.copy(f, tmp_path / site / "games" / f.name)
    ds = tmp_path / "ds"
    s = run_replay_dataset([str(tmp_path / "site1"), str(tmp_path / "site2")], ds, ReplayOptions(), quiet=True)
    assert s["games"] == 22
    names = {
        f"src-games-{hashlib.sha256(str((tmp_path / site / 'games').resolve()).encode()).hexdigest()[:8]}"
        for site in ("site1", "site2")
    }
    assert set(read_manifest(ds)["partitions"]) == names
    before = _games(ds).select("game_id", "part").sort("game_id")
    assert before.height == 22
    s = run_replay_dataset([str(tmp_path / "site2")], ds, ReplayOptions(), quiet=True)
    assert s["games"] == 11 and s["replaced"] == 11 and s["dropped"] == 0 and s["removed"] == []
    assert _games(ds).select("game_id", "part").sort("game_id").equals(before)
    assert sum(p["games"] for p in read_manifest(ds)["partitions"].values()) == 22


def test_a_day_brought_in_part_keeps_its_other_games(tmp_path):
    """A run that brings some of a day's games keeps the others; --drop-missing drops them and
    says how many."""
    day = _day_files("2025-08-11")
    assert len(day) == 6
    ds = tmp_path / "ds"
    run_replay_dataset([str(NETSKRAFL)], ds, ReplayOptions(), quiet=True)
    ids = sorted(json.loads(f.read_text(encoding="utf-8"))["game_id"] for f in day)
    some = tmp_path / "some"
    some.mkdir()
    for f in day[:2]:
        shutil.copy(f, some / f.name)
    s = run_replay_dataset([str(some)], ds, ReplayOptions(), quiet=True)
    assert s["replaced"] == 2 and s["dropped"] == 0
    games = _games(ds)
    assert sorted(games.filter(pl.col("part").cast(pl.String) == "2025-08-11")["game_id"].to_list()) == ids
    assert games.height == len(list(NETSKRAFL.glob("*.json")))
    # the day's moves are whole too: every game's events, once
    moves = pl.from_arrow(read_table(ds, "moves"))
    assert moves.group_by("file").len().height == games.height
    # explicit: drop what the run did not bring, and say how many
    r = _skrafl("replay", some, "--dataset", ds, "--drop-missing", "--no-lexicon")
    assert r.returncode == 0, r.stderr
    assert "dropped 4 games this run did not bring" in r.stderr, r.stderr
    after = _games(ds).filter(pl.col("part").cast(pl.String) == "2025-08-11")
    assert sorted(after["game_id"].to_list()) == sorted(json.loads(f.read_text(encoding="utf-8"))["game_id"] for f in day[:2])
    assert read_manifest(ds)["partitions"]["2025-08-11"]["games"] == 2


def test_a_window_day_without_games_is_kept_unless_dropped(tmp_path):
    ds = tmp_path / "ds"
    run_replay_dataset([str(NETSKRAFL)], ds, ReplayOptions(), quiet=True)
    n16 = len(_day_files("2025-08-16"))
    empty = tmp_path / "empty"
    empty.mkdir()
    d = __import__("datetime").date(2025, 8, 16)
    s = run_replay_dataset([str(empty)], ds, ReplayOptions(), quiet=True, since=d, until=d, empty_ok=True)
    assert s["removed"] == [] and read_manifest(ds)["partitions"]["2025-08-16"]["games"] == n16
    s = run_replay_dataset([str(empty)], ds, ReplayOptions(), quiet=True, since=d, until=d, empty_ok=True, drop_missing=True)
    assert s["removed"] == ["2025-08-16"] and s["dropped"] == n16
    assert "2025-08-16" not in read_manifest(ds)["partitions"] and not (ds / "games" / "part=2025-08-16").exists()


def test_a_game_seen_again_is_replaced_by_id(tmp_path):
    """The same game (its game_id) with a wrong final score: the row of that id is replaced (now a
    mismatch), in its partition, and the number of games stays."""
    ds = tmp_path / "ds"
    run_replay_dataset([str(NETSKRAFL)], ds, ReplayOptions(), quiet=True)
    before = _games(ds)
    f = _day_files("2025-08-12")[0]
    record = json.loads(f.read_text(encoding="utf-8"))
    record["score0"] += 1
    changed = tmp_path / "changed"
    changed.mkdir()
    (changed / f.name).write_text(json.dumps(record), encoding="utf-8")
    s = run_replay_dataset([str(changed)], ds, ReplayOptions(), quiet=True)
    assert s["replaced"] == 1 and s["partitions"] == ["2025-08-12"]
    after = _games(ds)
    assert after.height == before.height
    row = after.filter(pl.col("game_id") == record["game_id"])
    assert row.height == 1 and row["status"][0] == "mismatch" and str(row["part"][0]) == "2025-08-12"
    assert row["file"][0] == str(changed / f.name)
    # every other game as it was
    key = ["game_id", "status", "score1", "score2"]
    assert (
        after.filter(pl.col("game_id") != record["game_id"])
        .select(key)
        .sort("game_id")
        .equals(before.filter(pl.col("game_id") != record["game_id"]).select(key).sort("game_id"))
    )


def test_the_same_game_read_twice_in_a_run_is_kept_once(tmp_path):
    f = _day_files("2025-08-11")[0]
    twice = tmp_path / "twice"
    twice.mkdir()
    shutil.copy(f, twice / "a.json")
    shutil.copy(f, twice / "b.json")
    ds = tmp_path / "ds"
    s = run_replay_dataset([str(twice)], ds, ReplayOptions(), quiet=True)
    assert s["duplicates"] == 1
    games = _games(ds)
    assert games.height == 1 and games["file"][0] == str(twice / "b.json")


def _to_old_layout(ds: Path) -> None:
    """A dataset of the layout before versions (parts/part=P -> .part=P.gen-X with its own
    marker, games/part=P and moves/part=P links into it, dataset.json a file), made by hand."""
    from gamecore.folders import sha256_of

    version = Path(os.path.realpath(ds / "current"))
    manifest = json.loads((version / "dataset.json").read_text(encoding="utf-8"))
    for name in ("games", "moves", "dataset.json", "current"):
        (ds / name).unlink()
    (ds / "parts").mkdir()
    (ds / "games").mkdir()
    (ds / "moves").mkdir()
    for part in manifest["partitions"]:
        gen = ds / "parts" / f".part={part}.gen-old1"
        files = {}
        for table in ("games", "moves"):
            (gen / table).mkdir(parents=True)
            shutil.copy(version / "parts" / f"part={part}" / table / "data.parquet", gen / table / "data.parquet")
            p = gen / table / "data.parquet"
            files[f"{table}/data.parquet"] = {"size": p.stat().st_size, "sha256": sha256_of(p)}
            os.symlink(f"../parts/part={part}/{table}", ds / table / f"part={part}")
        (gen / ".skrafl-output").write_text(json.dumps({"format": 1, "command": "replay-partition", "files": files}))
        os.symlink(gen.name, ds / "parts" / f"part={part}")
        manifest["partitions"][part]["files"] = files
    manifest["format"] = 1
    (ds / "dataset.json").write_text(json.dumps(manifest), encoding="utf-8")
    shutil.rmtree(version)


def test_a_dataset_of_the_older_layout_is_converted_whole(tmp_path):
    ds = tmp_path / "ds"
    run_replay_dataset([str(NETSKRAFL), str(GCG)], ds, ReplayOptions(), quiet=True)
    want = _games(ds).sort("game_id")
    _to_old_layout(ds)
    assert _games(ds).sort("game_id").equals(want)  # the old layout reads the same
    assert pl.from_arrow(read_table(ds, "games")).height == want.height
    one = tmp_path / "one"
    one.mkdir()
    shutil.copy(_day_files("2025-08-12")[0], one)
    s = run_replay_dataset([str(one)], ds, ReplayOptions(), quiet=True)
    assert s["replaced"] == 1 and s["dropped"] == 0
    got = _games(ds).sort("game_id")
    assert got.height == want.height and got["game_id"].to_list() == want["game_id"].to_list()
    assert sorted(p.name for p in ds.iterdir() if not p.name.startswith(".")) == ["current", "dataset.json", "games", "moves"]
    assert len([p for p in ds.iterdir() if p.name.startswith(".")]) == 1  # the one version
