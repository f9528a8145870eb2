"""``skrafl elo``: how a game is known (file name and content) and the games before ``--date``:

- different GCG games that share a file name (``a/game.gcg``, ``b/game.gcg``) both got the
  ``game_id`` ``game.gcg`` from replay (a GCG file without ``#id`` was known by its file name):
  rated by that id, the second was skipped as "already seen" (a wrong answer). Now the id is the
  file name and the game's content digest (two games); an older table with such a clash is
  refused, one line naming both files; the same game twice is still rated once.
- ``--date D`` from no state, or from a state that records no rated days (rated from replay's
  undated games), rated D only and dropped the earlier games without a word: now they are listed
  in ``late_games.csv`` and counted in a warning that says how to rate them.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared"))
GCG = SHARED / "corpora" / "gcg"
FIXTURE = ROOT / "tests" / "fixtures" / "elo" / "games.csv"
needs_corpus = pytest.mark.skipif(not GCG.exists(), reason="no corpus in ../shared")

TWO_GAMES = ("domino14_macondo__gcgio_testdata_doug_v_emely.gcg", "domino14_macondo__gcgio_testdata_noah_vs_mishu.gcg")


def _skrafl(*args, cwd: Path):
    """The real entry point, in this process (clirun.run_skrafl_here), run from ``cwd``."""
    from clirun import run_skrafl_here

    return run_skrafl_here(*map(str, args), cwd=cwd)


def _games2(tmp_path: Path) -> Path:
    """The fixture's games of 1 and 2 May 2024 and one more on 3 May."""
    path = tmp_path / "games2.csv"
    path.write_text(
        FIXTURE.read_text(encoding="utf-8") + "n7,2024-05-03T10:00:00Z,anna,dora,false,false,400,300,false\n", encoding="utf-8"
    )
    return path


@needs_corpus
def test_different_gcg_games_sharing_a_file_name_are_two_games(tmp_path):
    """replay knows a GCG file without #id by its file name and its content (the players and every
    event): a/game.gcg and b/game.gcg of two different games are two games, rated both, also
    nightly style (--state) and on a later night; a table of an older replay, which gave both the
    bare file name, is refused naming both files."""
    for sub, name in zip("ab", TWO_GAMES, strict=True):
        (tmp_path / "dup" / sub).mkdir(parents=True)
        shutil.copy(GCG / name, tmp_path / "dup" / sub / "game.gcg")
    r = _skrafl("replay", "dup", "--out", "rp_dup", "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    games = pl.read_parquet(tmp_path / "rp_dup" / "games.parquet")
    ids = games["game_id"].to_list()
    assert len(set(ids)) == 2 and all(i.startswith("game.gcg#") for i in ids), ids
    r = _skrafl("elo", "--games", "rp_dup/games.parquet", "--out", "elo_dup", cwd=tmp_path)
    assert r.returncode == 0 and "2 games rated" in r.stderr, r.stderr
    # a later night: the second game under the first one's name, against the state of the first
    (tmp_path / "night1").mkdir()
    (tmp_path / "night2").mkdir()
    shutil.copy(GCG / TWO_GAMES[0], tmp_path / "night1" / "game1.gcg")
    shutil.copy(GCG / TWO_GAMES[1], tmp_path / "night2" / "game1.gcg")
    for night in ("night1", "night2"):
        assert _skrafl("replay", night, "--out", f"rp_{night}", "-q", cwd=tmp_path).returncode == 0
    assert _skrafl("elo", "--games", "rp_night1/games.parquet", "--out", "state1", "-q", cwd=tmp_path).returncode == 0
    r = _skrafl("elo", "--games", "rp_night2/games.parquet", "--state", "state1", "--out", "state2", cwd=tmp_path)
    assert r.returncode == 0 and "1 games rated, 0 already rated" in r.stderr, r.stderr
    # an older replay's table: both games under the bare file name
    games.with_columns(pl.lit("game.gcg").alias("game_id")).write_parquet(tmp_path / "old.parquet")
    r = _skrafl("elo", "--games", "old.parquet", "--out", "elo_old", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "'game.gcg'" in lines[0] and "dup/a/game.gcg" in lines[0] and "dup/b/game.gcg" in lines[0], lines
    assert not (tmp_path / "elo_old").exists()


@needs_corpus
def test_the_same_gcg_game_twice_is_still_rated_once(tmp_path):
    # two copies of one game (same players, same scores): one game, the copy skipped with a warning
    for sub in "ab":
        (tmp_path / "dup" / sub).mkdir(parents=True)
        shutil.copy(GCG / TWO_GAMES[0], tmp_path / "dup" / sub / "game.gcg")
    assert _skrafl("replay", "dup", "--out", "rp", "-q", cwd=tmp_path).returncode == 0
    r = _skrafl("elo", "--games", "rp/games.parquet", "--out", "elo", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "already seen" in r.stderr and "1 games rated" in r.stderr
    # and ids of their own (#id) that differ are two games, whatever the file names
    for sub, name in zip("ab", TWO_GAMES, strict=True):
        text = (GCG / name).read_text(encoding="utf-8", errors="replace")
        (tmp_path / "dup" / sub / "game.gcg").write_text(f"#id test {sub}\n" + text, encoding="utf-8")
    assert _skrafl("replay", "dup", "--out", "rp2", "-q", cwd=tmp_path).returncode == 0
    r = _skrafl("elo", "--games", "rp2/games.parquet", "--out", "elo2", cwd=tmp_path)
    assert r.returncode == 0 and "2 games rated" in r.stderr, r.stderr


def test_date_from_no_state_lists_and_warns_about_the_earlier_games(tmp_path):
    games = _games2(tmp_path)
    r = _skrafl("elo", "--games", games, "--date", "2024-05-03", "--out", "d3x", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    warning = [line for line in r.stderr.splitlines() if "before 2024-05-03" in line]
    assert len(warning) == 1 and "6 game(s)" in warning[0] and "--catch-up" in warning[0], r.stderr
    late = pl.read_csv(tmp_path / "d3x" / "late_games.csv")
    assert late["game_id"].to_list() == ["n1", "n2", "n3", "n4", "n5", "n6"]
    assert all("--catch-up" in reason for reason in late["reason"])
    assert "1 games rated" in r.stderr and "6 late" in r.stderr
    # what the warning says to do rates them: the same as a run from scratch
    r = _skrafl("elo", "--games", games, "--date", "2024-05-03", "--catch-up", "--out", "caught", cwd=tmp_path)
    assert r.returncode == 0 and "before 2024-05-03" not in r.stderr, r.stderr
    assert _skrafl("elo", "--games", games, "--out", "whole", "-q", cwd=tmp_path).returncode == 0
    assert pl.read_parquet(tmp_path / "caught" / "ratings.parquet").equals(
        pl.read_parquet(tmp_path / "whole" / "ratings.parquet")
    )
    # the first day of the window: no game before it, no warning
    r = _skrafl("elo", "--games", games, "--date", "2024-05-01", "--out", "d1", cwd=tmp_path)
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr


@needs_corpus
def test_date_on_a_state_without_rated_days_warns_about_the_earlier_games(tmp_path):
    # a state rated from replay's undated games (GCG files): "days_rated": null
    (tmp_path / "one").mkdir()
    shutil.copy(GCG / TWO_GAMES[1], tmp_path / "one" / "x.gcg")
    assert _skrafl("replay", "one", "--out", "rp", "-q", cwd=tmp_path).returncode == 0
    assert _skrafl("elo", "--games", "rp/games.parquet", "--out", "elo_rp", "-q", cwd=tmp_path).returncode == 0
    assert json.loads((tmp_path / "elo_rp" / "params.json").read_text())["days_rated"] is None
    games = _games2(tmp_path)
    r = _skrafl("elo", "--games", games, "--date", "2024-05-03", "--state", "elo_rp", "--out", "d3x", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    warning = [line for line in r.stderr.splitlines() if "before 2024-05-03" in line]
    assert len(warning) == 1 and "6 game(s)" in warning[0] and "from scratch" in warning[0], r.stderr
    assert pl.read_csv(tmp_path / "d3x" / "late_games.csv")["game_id"].to_list() == ["n1", "n2", "n3", "n4", "n5", "n6"]
    # --catch-up on that state is refused, and says why
    r = _skrafl("elo", "--games", games, "--date", "2024-05-03", "--state", "elo_rp", "--catch-up", "--out", "o", cwd=tmp_path)
    assert r.returncode == 2 and "does not record the days" in r.stderr, r.stderr


def test_a_file_given_as_the_state_is_named_in_english(tmp_path):
    state = tmp_path / "state.txt"
    state.write_text("not a folder\n", encoding="utf-8")
    r = _skrafl("elo", "--games", FIXTURE, "--state", state, "--out", "out", "-q", cwd=tmp_path)
    assert r.returncode == 2 and "not an elo state folder" in r.stderr, r.stderr


@needs_corpus
def test_a_state_of_an_older_skrafl_knows_its_games_by_their_bare_names(tmp_path):
    """A state rated from an older replay's table (a GCG file without #id was game.gcg, now
    game.gcg#DIGEST): its games are already rated, not rated a second time (a review found every
    such game rated again after the upgrade)."""
    shutil.copytree(GCG, tmp_path / "g")
    # (exit 1: a corpus file or two are not ok; the others are the games)
    assert _skrafl("replay", "g", "--no-lexicon", "--out", "r1", "-q", cwd=tmp_path).returncode in (0, 1)
    games = pl.read_parquet(tmp_path / "r1" / "games.parquet")
    assert games["game_id"].str.contains("#").sum() > 0
    games.with_columns(pl.col("game_id").str.replace(r"#[0-9a-f]{12}$", "")).write_parquet(tmp_path / "old.parquet")
    r = _skrafl("elo", "--games", "old.parquet", "--out", "e1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rated = int(r.stderr.split(" games rated")[0].rsplit(" ", 1)[-1])
    assert rated > 0
    r = _skrafl("elo", "--games", "r1/games.parquet", "--state", "e1", "--out", "e2", cwd=tmp_path)
    assert r.returncode == 0 and "skrafl elo: 0 games rated, " in r.stderr, r.stderr
    before = pl.read_parquet(tmp_path / "e1" / "ratings.parquet").drop("as_of")
    assert pl.read_parquet(tmp_path / "e2" / "ratings.parquet").drop("as_of").equals(before)


def test_netskrafl_records_without_an_id_sharing_a_name_are_two_games(tmp_path):
    """A Netskrafl record with no game_id is known by its file name and content too: two such
    records named game.json in two folders are two games (elo refused the table before)."""
    records = sorted((SHARED / "corpora" / "netskrafl" / "games").glob("*.json"))[:2]
    if len(records) < 2:
        pytest.skip("no Netskrafl records in ../shared")
    for sub, rec in zip("ab", records, strict=True):
        data = json.loads(rec.read_text(encoding="utf-8"))
        data.pop("game_id", None)
        (tmp_path / "n" / sub).mkdir(parents=True)
        (tmp_path / "n" / sub / "game.json").write_text(json.dumps(data), encoding="utf-8")
    assert _skrafl("replay", "n", "--no-lexicon", "--out", "rn", "-q", cwd=tmp_path).returncode == 0
    ids = pl.read_parquet(tmp_path / "rn" / "games.parquet")["game_id"].to_list()
    assert len(set(ids)) == 2 and all(i.startswith("game.json#") for i in ids), ids
    r = _skrafl("elo", "--games", "rn/games.parquet", "--out", "en", cwd=tmp_path)
    # not refused as one game (the point here); their seats are unnamed, so none can be rated:
    # that is an error of its own (never "nothing rated" and exit 0)
    assert r.returncode == 2 and "shared by different games" not in r.stderr, r.stderr
    assert "nothing rated: none of the table's 2 game(s) can be rated (2 replayed Netskrafl game(s) not rated" in r.stderr


@needs_corpus
def test_a_gcg_game_renamed_or_copied_under_another_name_is_rated_once(tmp_path):
    """A GCG file without #id is known by its name and content digest: the same game renamed on a
    later night (game1.gcg, then final.gcg) was a new id and rated a second time; a copy under
    another name in the same night was rated twice. Now the digest is the game: rated once."""
    for night, name in (("night1", "game1.gcg"), ("night2", "final.gcg")):
        (tmp_path / night).mkdir()
        shutil.copy(GCG / TWO_GAMES[0], tmp_path / night / name)
    shutil.copy(GCG / TWO_GAMES[1], tmp_path / "night2" / "other.gcg")  # and one new game
    for night in ("night1", "night2"):
        assert _skrafl("replay", night, "--out", f"rp_{night}", "-q", cwd=tmp_path).returncode == 0
    ids = [pl.read_parquet(tmp_path / f"rp_{n}" / "games.parquet")["game_id"].sort().to_list() for n in ("night1", "night2")]
    assert ids[0][0].split("#")[1] in {i.split("#")[1] for i in ids[1]} and ids[0][0] not in ids[1], ids
    assert _skrafl("elo", "--games", "rp_night1/games.parquet", "--out", "state1", "-q", cwd=tmp_path).returncode == 0
    r = _skrafl("elo", "--games", "rp_night2/games.parquet", "--state", "state1", "--out", "state2", cwd=tmp_path)
    assert r.returncode == 0 and "1 games rated, 1 already rated" in r.stderr, r.stderr
    # the same two nights' games in one table: the renamed copy is skipped as the same game
    (tmp_path / "both").mkdir()
    for night in ("night1", "night2"):
        for f in (tmp_path / night).iterdir():
            shutil.copy(f, tmp_path / "both" / f.name)
    assert _skrafl("replay", "both", "--out", "rp_both", "-q", cwd=tmp_path).returncode == 0
    r = _skrafl("elo", "--games", "rp_both/games.parquet", "--out", "elo_both", cwd=tmp_path)
    assert r.returncode == 0 and "2 games rated" in r.stderr and "same game already seen" in r.stderr, r.stderr
    assert (
        pl.read_parquet(tmp_path / "elo_both" / "ratings.parquet")
        .drop("as_of")
        .equals(pl.read_parquet(tmp_path / "state2" / "ratings.parquet").drop("as_of"))
    )
