"""``skrafl elo`` on real game logs: players known by their names where
the log has no ids, games ordered by the time the log has (a Netskrafl record's ``ts_last_move``,
a GCG ``#finished-at``), else by file order (said in a note); a game against oneself and a game
marked unrated are skipped with a note; a run that rates none of its table's games is an error
(exit 2, why, nothing written), never "0 games rated" and exit 0.

Expected ratings are computed here from the rules (docs/NETSKRAFL.md §5: start 1200,
Q = 10^(R/400), K 32 for a beginner, 20 once established, the beginner rule, Python's round), not
read off the code under test; which games are rateable is read from the replay table's own facts
(status, finished, players, names)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared"))
GCG = SHARED / "corpora" / "gcg"
NETSKRAFL = SHARED / "corpora" / "netskrafl" / "games"

needs_corpus = pytest.mark.skipif(
    not (GCG.is_dir() and NETSKRAFL.is_dir()), reason="no game corpora in ../shared (corpora/gcg, corpora/netskrafl)"
)


def _skrafl(*args, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The real entry point, in this process (clirun.run_skrafl_here), an empty stdin."""
    from clirun import run_skrafl_here

    return run_skrafl_here(*map(str, args), cwd=cwd)


def elo_by_the_rules(games: list[tuple[str, str, int, int]]) -> dict[str, int]:
    """Netskrafl's Elo over ``(player0, player1, score0, score1)`` in the order given, written
    from docs/NETSKRAFL.md alone: expected Q_a/(Q_a+Q_b), Δ = round((result − E) × K) (half to even),
    K 20 established (more than 10 games counting this one), else 32; an established player
    does not move against a beginner; start 1200, floor 0; a 0-0 game is ignored."""
    rating: dict[str, int] = {}
    played: dict[str, int] = {}
    for a, b, sa, sb in games:
        if sa == 0 and sb == 0:
            continue
        ra, rb = rating.get(a, 1200), rating.get(b, 1200)
        played[a], played[b] = played.get(a, 0) + 1, played.get(b, 0) + 1
        qa, qb = 10 ** (ra / 400), 10 ** (rb / 400)
        ea = qa / (qa + qb)
        result = 1.0 if sa > sb else 0.0 if sa < sb else 0.5
        est_a, est_b = played[a] > 10, played[b] > 10
        da = round((result - ea) * (20 if est_a else 32))
        db = round(((1 - result) - (1 - ea)) * (20 if est_b else 32))
        if est_a and not est_b:
            da = 0
        if est_b and not est_a:
            db = 0
        rating[a], rating[b] = max(0, ra + da), max(0, rb + db)
    return rating


def _ratings(folder: Path, lst: str = "all") -> dict[str, int]:
    r = pl.read_parquet(folder / "ratings.parquet").filter(pl.col("list") == lst)
    return dict(zip(r["player"].to_list(), r["rating"].to_list(), strict=True))


def _rateable(games: pl.DataFrame) -> pl.DataFrame:
    """The games of a replay table that the rules rate, in the table's order: replayed without a
    mismatch, finished (a final result), two players with two distinct names, not 0-0, and named
    at all (a Netskrafl record names nobody: its seats are player0/player1), the first copy of a
    game only."""
    return (
        games.with_row_index("_row")
        .filter(
            (pl.col("status") == "ok")
            & pl.col("finished")
            & (pl.col("players").fill_null(2) == 2)
            & (pl.col("player1") != pl.col("player2"))
            & (pl.col("format") == "gcg")
            & ~((pl.col("score1") == 0) & (pl.col("score2") == 0))
        )
        .unique("game_id", keep="first", maintain_order=True)
        .sort("_row")
    )


# --------------------------------------------------------------------------------------------
# the real logs are rated
# --------------------------------------------------------------------------------------------


@needs_corpus
def test_real_gcg_and_netskrafl_logs_are_rated_by_name_in_file_order(tmp_path):
    """The shared corpus (GCG files without times, Netskrafl records without names or ids)
    replayed into one table: elo rated 0 of them and exited 0. Now every game with two distinct
    named players and a final result is rated, in file order (a note says so), and the records
    that name nobody are skipped with a warning."""
    records = sorted(NETSKRAFL.glob("*.json"))
    for path in records:  # the rules' reason they cannot be rated: no player is named in the record
        record = json.loads(path.read_text(encoding="utf-8"))
        assert not any(k.startswith(("player", "user", "nick")) for k in record), path
    r = _skrafl("replay", GCG, NETSKRAFL, "--no-lexicon", "--out", tmp_path / "rep", "-q")
    assert r.returncode in (0, 1), r.stderr  # 1: a corpus file or two do not add up (mismatch rows)
    games = pl.read_parquet(tmp_path / "rep" / "games.parquet")
    expected = _rateable(games)
    assert expected.height >= 15  # (19 in the corpus of 4 December 2026)

    r = _skrafl("elo", "--games", tmp_path / "rep", "--out", tmp_path / "elo")
    assert r.returncode == 0, r.stderr
    assert f"skrafl elo: {expected.height} games rated," in r.stderr, r.stderr
    assert (
        f"{expected.height} game(s) without a finished_at (a GCG file without #finished-at or #date) rated in file order"
        in r.stderr
    )
    assert f"{len(records)} replayed Netskrafl game(s) not rated: the record names no players" in r.stderr
    processed = pl.read_parquet(tmp_path / "elo" / "processed.parquet")
    assert set(processed["game_id"]) >= set(expected["game_id"])

    want = elo_by_the_rules(list(expected.select("player1", "player2", "score1", "score2").iter_rows()))
    assert _ratings(tmp_path / "elo", "all") == want
    assert _ratings(tmp_path / "elo", "human") == want  # a GCG file names no robot: everyone human


@needs_corpus
def test_a_gcg_game_with_a_finish_time_goes_before_the_files_without_one(tmp_path):
    """A table of games with times and games without (GCG files, not in a day's partition): the
    ones without were skipped with a warning. Now they are rated after the timed ones, in file
    order; --date still leaves them out (their day cannot be told), with the warning."""
    folder = tmp_path / "g"
    folder.mkdir()
    # cesar plays both: his rating depends on the order. By file name vs_andy comes first; the
    # vs_frentz game has a time, so it is rated first.
    shutil.copy(GCG / "domino14_macondo__gcgio_testdata_vs_andy.gcg", folder / "a_vs_andy.gcg")
    text = (GCG / "domino14_macondo__gcgio_testdata_vs_frentz.gcg").read_text(encoding="utf-8")
    (folder / "b_vs_frentz.gcg").write_text("#finished-at 2025-01-02T10:00:00Z\n" + text, encoding="utf-8")
    r = _skrafl("replay", folder, "--no-lexicon", "--out", tmp_path / "rep", "-q")
    assert r.returncode == 0, r.stderr
    games = pl.read_parquet(tmp_path / "rep" / "games.parquet")
    assert games["file"].str.ends_with("a_vs_andy.gcg").to_list() == [True, False]
    assert games["finished_at"].is_null().to_list() == [True, False]

    r = _skrafl("elo", "--games", tmp_path / "rep", "--out", tmp_path / "elo")
    assert r.returncode == 0, r.stderr
    assert "skrafl elo: 2 games rated," in r.stderr, r.stderr
    assert (
        "1 game(s) without a finished_at (a GCG file without #finished-at or #date) rated in file order (the table's rows), after the 1 with times"
        in (r.stderr)
    )
    timed_first = [games.row(1, named=True), games.row(0, named=True)]
    want = elo_by_the_rules([(g["player1"], g["player2"], g["score1"], g["score2"]) for g in timed_first])
    wrong_order = elo_by_the_rules([(g["player1"], g["player2"], g["score1"], g["score2"]) for g in timed_first[::-1]])
    assert want != wrong_order  # (the order shows in the ratings)
    assert _ratings(tmp_path / "elo") == want
    assert pl.read_parquet(tmp_path / "elo" / "processed.parquet")["finished_at"].is_null().to_list() == [False, True]

    r = _skrafl("elo", "--games", tmp_path / "rep", "--out", tmp_path / "elo2", "--date", "2025-01-02")
    assert r.returncode == 0, r.stderr
    assert "warning: 1 of 2 replayed game(s) skipped: no finished_at" in r.stderr, r.stderr
    assert "skrafl elo: 1 games rated," in r.stderr


@needs_corpus
def test_a_table_whose_games_none_can_rate_is_an_error(tmp_path):
    """Netskrafl records alone (no names, no ids): nothing can be rated. That was '0 games rated'
    and exit 0; now one line saying why, exit 2, no output."""
    r = _skrafl("replay", NETSKRAFL, "--no-lexicon", "--out", tmp_path / "rep", "-q")
    assert r.returncode == 0, r.stderr
    n = len(list(NETSKRAFL.glob("*.json")))
    r = _skrafl("elo", "--games", tmp_path / "rep", "--out", tmp_path / "elo")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith("skrafl: error: ") and f"nothing rated: none of the table's {n} game(s) can be rated" in lines[0]
    assert "the record names no players" in lines[0] and "--players-from" in lines[0]
    assert not (tmp_path / "elo").exists()


# --------------------------------------------------------------------------------------------
# a game against oneself, an unrated game
# --------------------------------------------------------------------------------------------

HEADER = "game_id,finished_at,player0,player1,robot0,robot1,score0,score1,competition"


def _csv(path: Path, rows: list[str], extra: str = "") -> Path:
    path.write_text("\n".join([HEADER + extra, *rows]) + "\n", encoding="utf-8")
    return path


def test_a_game_against_oneself_is_skipped_with_a_note(tmp_path):
    """The Ordspill.no rules (Ordspill's rules): a game against oneself has no effect on the ranking. It
    stopped the whole run ("player 'self' plays against themself", exit 2, nothing rated)."""
    games = _csv(
        tmp_path / "g.csv",
        [
            "g1,2024-05-01T10:00:00Z,self,self,false,false,310,200,false",
            "g2,2024-05-01T11:00:00Z,anna,bob,false,false,400,350,false",
            "g3,2024-05-01T12:00:00Z,bob,carl,false,false,380,390,false",
        ],
    )
    r = _skrafl("elo", "--games", games, "--out", tmp_path / "elo")
    assert r.returncode == 0, r.stderr
    assert "1 game(s) against oneself not rated (first: 'g1', row 1, line 2, player 'self')" in r.stderr, r.stderr
    assert "skrafl elo: 2 games rated," in r.stderr
    assert _ratings(tmp_path / "elo") == elo_by_the_rules([("anna", "bob", 400, 350), ("bob", "carl", 380, 390)])
    # by hand: anna 1216, bob 1184; then bob (E = 1/(1 + 10^(16/400)) = 0.477) loses: round(-0.477 × 32) = -15,
    # bob 1169, carl +15 = 1215
    assert _ratings(tmp_path / "elo") == {"anna": 1216, "bob": 1169, "carl": 1215}


def test_only_games_against_oneself_is_an_error_not_nothing_rated(tmp_path):
    games = _csv(tmp_path / "g.csv", ["g1,2024-05-01T10:00:00Z,self,self,false,false,310,200,false"])
    r = _skrafl("elo", "--games", games, "--out", tmp_path / "elo")
    assert r.returncode == 2 and "nothing rated" in r.stderr and "against oneself" in r.stderr, r.stderr
    assert not (tmp_path / "elo").exists()


@pytest.mark.parametrize(
    ("column", "first", "second"),
    [("rated", "false", "true"), ("rated", "0", ""), ("unrated", "yes", "no"), ("unrated", "true", "")],
)
def test_a_game_marked_unrated_is_not_rated(tmp_path, column, first, second):
    """A ``rated``/``unrated`` column was ignored: an unrated game moved the ratings. Now it is
    skipped with a note; an empty value is a rated game."""
    games = _csv(
        tmp_path / "g.csv",
        [
            f"g1,2024-05-01T10:00:00Z,anna,bob,false,false,300,420,false,{first}",
            f"g2,2024-05-01T11:00:00Z,anna,bob,false,false,400,350,false,{second}",
        ],
        extra=f",{column}",
    )
    r = _skrafl("elo", "--games", games, "--out", tmp_path / "elo")
    assert r.returncode == 0, r.stderr
    assert "1 game(s) marked unrated (column 'rated' false or 'unrated' true) not rated (first: 'g1', row 1)" in r.stderr
    assert _ratings(tmp_path / "elo") == elo_by_the_rules([("anna", "bob", 400, 350)]) == {"anna": 1216, "bob": 1184}


def test_a_bad_rated_value_names_its_line(tmp_path):
    games = _csv(
        tmp_path / "g.csv",
        [
            "g1,2024-05-01T10:00:00Z,anna,bob,false,false,300,420,false,true",
            "g2,2024-05-01T11:00:00Z,anna,bob,false,false,1,2,false,maybe",
        ],
        extra=",rated",
    )
    r = _skrafl("elo", "--games", games, "--out", tmp_path / "elo")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "g.csv:3:" in r.stderr and "column 'rated', row 2" in r.stderr and "'maybe'" in r.stderr, r.stderr
    assert not (tmp_path / "elo").exists()


def test_a_table_of_unrated_games_only_is_an_error(tmp_path):
    games = _csv(tmp_path / "g.csv", ["g1,2024-05-01T10:00:00Z,anna,bob,false,false,300,420,false,false"], extra=",rated")
    r = _skrafl("elo", "--games", games, "--out", tmp_path / "elo")
    assert r.returncode == 2 and "nothing rated" in r.stderr and "marked unrated" in r.stderr, r.stderr


@pytest.mark.parametrize("kind", ["jsonl", "parquet"])
def test_a_game_marked_unrated_in_json_lines_or_parquet(tmp_path, kind):
    """The same in JSON lines (a record without the key is rated) and Parquet (a boolean column,
    null = rated)."""
    base = {"robot0": False, "robot1": False, "competition": False, "player0": "anna", "player1": "bob"}
    rows = [
        {**base, "game_id": "g1", "finished_at": "2024-05-01T10:00:00Z", "score0": 300, "score1": 420, "rated": False},
        {**base, "game_id": "g2", "finished_at": "2024-05-01T11:00:00Z", "score0": 400, "score1": 350},
    ]
    path = tmp_path / f"g.{kind}"
    if kind == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        pl.DataFrame([{**r, "rated": r.get("rated")} for r in rows]).write_parquet(path)
    r = _skrafl("elo", "--games", path, "--out", tmp_path / "elo")
    assert r.returncode == 0, r.stderr
    assert "1 game(s) marked unrated" in r.stderr and "skrafl elo: 1 games rated," in r.stderr, r.stderr
    assert _ratings(tmp_path / "elo") == elo_by_the_rules([("anna", "bob", 400, 350)])
