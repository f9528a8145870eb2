"""Elo exactly as Netskrafl's two code paths (docs/NETSKRAFL.md §5), on small
hand-made game sequences whose expected ratings are worked out below line by line.

- ``--preset netskrafl`` = the nightly batch (``src/skraflstats.py`` ``_run_stats``): 0–0 skipped;
  "established" counted per list, but the competition list uses the *human*-game count; robots
  are beginners for their first 10 games like people; a stored human/competition rating of 0 is
  read back as 1200 (``human_elo or DEFAULT_ELO``).
- ``--preset netskrafl-live`` = the per-game path (``src/skraflelo.py``
  ``compute_locale_elo_for_game``): ratings per locale; established = more than 10 human games in
  total (all locales) for all three lists; robots established; no change for a 0–0 game or one
  resigned on move 1 or 2.

Both keep ratings per locale (a ``locale`` column). Arithmetic (docs/NETSKRAFL.md): E = Q/(Q+Q'),
Q = 10^(R/400), Δ = round((result − E) × K), K 20 established / 32 beginner, an established player
meeting a beginner does not move. At equal ratings E = ½, so a beginner's win is +16, an
established player's +10.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import polars as pl
import pytest

from gamecore.errors import DataError
from pipelines import elo

T0 = dt.datetime(2024, 3, 1, 8, 0, tzinfo=dt.timezone.utc)


def table(path: Path, rows: list[dict]) -> Path:
    """A games table: each row a dict with player0/player1/score0/score1 and optional robot0,
    robot1, competition, locale, moves; game ids and times are filled in order."""
    out = []
    for i, r in enumerate(rows):
        out.append(
            {
                "game_id": f"g{i:03d}",
                "finished_at": (T0 + dt.timedelta(minutes=i)).isoformat().replace("+00:00", "Z"),
                "robot0": False,
                "robot1": False,
                "competition": False,
                **r,
            }
        )
    pl.DataFrame(out).write_csv(path)
    return path


def ratings(out: Path, lst: str = "all", locale: str | None = None) -> dict[str, int]:
    df = pl.read_parquet(out / "ratings.parquet").filter(pl.col("list") == lst)
    if locale is not None:
        df = df.filter(pl.col("locale") == locale)
    return dict(zip(df["player"], df["rating"], strict=True))


def ten_casual(a: str = "alice", b: str = "bob", locale: str | None = None) -> list[dict]:
    """Ten human casual games a–b, won in turn (a, b, a, b…): after them both have 10 games and,
    as two beginners all along, ratings that come back close to 1200."""
    rows = []
    for i in range(10):
        r = {"player0": a, "player1": b, "score0": 400 if i % 2 == 0 else 300, "score1": 300 if i % 2 == 0 else 400}
        if locale is not None:
            r["locale"] = locale
        rows.append(r)
    return rows


def _run(tmp_path: Path, name: str, rows: list[dict], preset: str = "netskrafl") -> Path:
    games = table(tmp_path / f"{name}.csv", rows)
    out = tmp_path / name
    elo.run_elo(games, out, params=elo.params_for(preset))
    return out


def test_presets_are_the_two_code_paths():
    nightly, live = elo.params_for("netskrafl"), elo.params_for("netskrafl-live")
    assert (nightly.established_by, nightly.robots_established, nightly.min_moves, nightly.zero_is_start) == (
        "netskrafl",
        False,
        0,
        True,
    )
    assert (live.established_by, live.robots_established, live.min_moves, live.zero_is_start) == ("human_total", True, 3, False)
    assert (
        (nightly.k, nightly.k_beginner, nightly.established_after, nightly.start)
        == (live.k, live.k_beginner, live.established_after, live.start)
        == (20, 32, 10, 1200)
    )
    assert elo.params_for("ordspill").start == 1000


def test_nightly_competition_list_counts_human_games(tmp_path):
    """alice has 10 casual human games, then her first competition game, against carol (new), who
    wins. Nightly: in the competition list alice's count is her human games, 11 → established;
    carol (1) is a beginner: alice does not move, carol +16. Counting competition games instead
    (the 'list' model) both are beginners: ±16."""
    rows = ten_casual() + [{"player0": "alice", "player1": "carol", "score0": 300, "score1": 400, "competition": True}]
    out = _run(tmp_path, "n", rows)
    assert ratings(out, "competition") == {"alice": 1200, "carol": 1216}
    games = table(tmp_path / "l.csv", rows)
    elo.run_elo(games, tmp_path / "l", params=elo.params_for("netskrafl", established_by="list"))
    assert ratings(tmp_path / "l", "competition") == {"alice": 1184, "carol": 1216}


def test_live_established_by_human_games_in_every_locale(tmp_path):
    """alice plays her 10 casual games in en_US, then one in is_IS against carol, who wins. Live:
    alice has 11 human games in total → established in is_IS too: she stays, carol +16. Nightly
    (established per list of the locale): alice has 1 game in is_IS: both beginners, ±16. Either
    way the ratings are per locale: alice has an en_US and an is_IS row."""
    rows = ten_casual(locale="en_US") + [
        {"player0": "alice", "player1": "carol", "score0": 300, "score1": 400, "locale": "is_IS"}
    ]
    live = _run(tmp_path, "live", rows, "netskrafl-live")
    assert ratings(live, "all", "is_IS") == {"alice": 1200, "carol": 1216}
    assert ratings(live, "human", "is_IS") == {"alice": 1200, "carol": 1216}
    assert set(ratings(live, "all", "en_US")) == {"alice", "bob"}
    nightly = _run(tmp_path, "nightly", rows)
    assert ratings(nightly, "all", "is_IS") == {"alice": 1184, "carol": 1216}
    locales = pl.read_parquet(nightly / "ratings.parquet")["locale"].unique().sort().to_list()
    assert locales == ["en_US", "is_IS"]
    assert {p.name for p in nightly.glob("top100_*.csv")} == {f"top100_{n}_{loc}.csv" for n in elo.LISTS for loc in locales}


def test_live_ignores_a_resignation_on_move_two(tmp_path):
    """A 32–0 resignation on move 2 (moves = 2): the live model changes nothing (today's ±16 is
    what the nightly batch gives); a game of 3 moves counts in both."""
    rows = [
        {"player0": "ann", "player1": "ben", "score0": 32, "score1": 0, "moves": 2},
        {"player0": "cy", "player1": "di", "score0": 32, "score1": 0, "moves": 3},
    ]
    live = _run(tmp_path, "live", rows, "netskrafl-live")
    assert ratings(live) == {"cy": 1216, "di": 1184}
    nightly = _run(tmp_path, "nightly", rows)
    assert ratings(nightly) == {"ann": 1216, "ben": 1184, "cy": 1216, "di": 1184}


def test_robots_are_beginners_at_first_in_the_nightly_batch(tmp_path):
    """A robot's first 10 games: a beginner (K 32) like a person; from the 11th it is established.
    Fullsterkur beats ten different new players (each +round((0 − E) × 32)), then the eleventh new
    player beats it: Fullsterkur (established, 11 games) does not move."""
    rows = [{"player0": "Fullsterkur", "player1": f"p{i}", "score0": 400, "score1": 300, "robot0": True} for i in range(10)]
    rows.append({"player0": "Fullsterkur", "player1": "p10", "score0": 300, "score1": 400, "robot0": True})
    out = _run(tmp_path, "n", rows)
    # game by game: Fullsterkur's rating R, the new player at 1200, E_F = 1/(1+10^((1200−R)/400))
    r = 1200
    for _ in range(10):
        e = 1 / (1 + 10 ** ((1200 - r) / 400))
        r += round((1 - e) * 32)
    assert ratings(out)["Fullsterkur"] == r
    e10 = 1 / (1 + 10 ** ((r - 1200) / 400))  # p10's expected score
    assert ratings(out)["p10"] == 1200 + round((1 - e10) * 32)
    live = _run(tmp_path, "l", rows, "netskrafl-live")
    assert ratings(live)["Fullsterkur"] == 1200  # always established: never moves against beginners


def test_nightly_reads_a_stored_zero_as_1200(tmp_path):
    """A state where zoe's human rating is exactly 0 (an extreme loser): the nightly batch reads
    it back as 1200 (human_elo or DEFAULT_ELO), so her next human game starts from 1200; the 'all'
    list keeps 0. The live model keeps 0."""
    from pipelines.atomic import output_dir

    def state(folder: Path, params: elo.EloParams) -> Path:
        rows = [
            {
                "list": lst,
                "locale": "",
                "player": p,
                "robot": False,
                "rating": r,
                "games": 50,
                "wins": 0,
                "losses": 50,
                "draws": 0,
                "score_for": 0,
                "score_against": 0,
                "as_of": dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc),
            }
            for lst in ("all", "human")
            for p, r in (("zoe", 0), ("yan", 1200))
        ]
        with output_dir(folder, "elo") as stage:
            pl.DataFrame(rows, schema=elo.state.ratings_schema()).write_parquet(stage / "ratings.parquet")
            pl.DataFrame(schema={"game_id": pl.String, "finished_at": pl.Datetime("us", "UTC")}).write_parquet(
                stage / "processed.parquet"
            )
            from dataclasses import asdict

            (stage / "params.json").write_text(
                json.dumps({"version": 1, "params": asdict(params), "as_of": "2024-01-01T00:00:00+00:00"})
            )
        return folder

    games = table(tmp_path / "g.csv", [{"player0": "zoe", "player1": "yan", "score0": 300, "score1": 400}])
    for preset, human_zoe in (("netskrafl", 1200 - 10), ("netskrafl-live", 0)):
        params = elo.params_for(preset)
        out = tmp_path / preset
        elo.run_elo(games, out, state(tmp_path / f"s-{preset}", params), params)
        # nightly: zoe 1200 vs yan 1200, both established (50 games): zoe −10, yan +10
        assert ratings(out, "human")["zoe"] == human_zoe
        assert ratings(out, "all")["zoe"] == 0  # all: a 0 stays 0 (E ≈ 0.001: −round(0.001 × 20) = 0)


def test_draws_count_as_draws(tmp_path):
    out = _run(tmp_path, "d", [{"player0": "ann", "player1": "ben", "score0": 350, "score1": 350}])
    df = pl.read_parquet(out / "ratings.parquet").filter(pl.col("list") == "all")
    assert df["draws"].to_list() == [1, 1] and df["wins"].to_list() == [0, 0] and df["rating"].to_list() == [1200, 1200]


def test_replay_table_carries_locale_moves_and_players(tmp_path, shared, fixtures):
    """A replay of Netskrafl records and a three-player GCG game: the locale (is_IS) and moves
    reach elo; the three-player game is not rated (a warning note: Elo rates two players)."""
    from typer.testing import CliRunner

    from cli.main import app

    src = tmp_path / "in"
    src.mkdir()
    recs = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))[:3]
    for r in recs:
        (src / r.name).write_bytes(r.read_bytes())
    res = CliRunner().invoke(app, ["replay", str(src), "--out", str(tmp_path / "rep"), "--quiet", "--no-lexicon"])
    assert res.exit_code == 0, res.output
    games = pl.read_parquet(tmp_path / "rep" / "games.parquet")
    assert games["locale"].to_list() == ["is_IS"] * 3 and games["moves"].min() > 2
    # a record names no players (its seats player0/player1 are not rated): named here, by game
    games.with_columns(
        pl.format("a{}", pl.int_range(pl.len())).alias("player1"), pl.format("b{}", pl.int_range(pl.len())).alias("player2")
    ).write_parquet(tmp_path / "named.parquet")
    elo.run_elo(tmp_path / "named.parquet", tmp_path / "elo", params=elo.params_for("netskrafl-live"))
    assert pl.read_parquet(tmp_path / "elo" / "ratings.parquet")["locale"].unique().to_list() == ["is_IS"]

    three = fixtures / "multi" / "three_players.gcg"
    res = CliRunner().invoke(
        app,
        [
            "replay",
            str(three),
            "--rules",
            str(fixtures / "multi" / "tiny_wespa.toml"),
            "--out",
            str(tmp_path / "rep3"),
            "--quiet",
            "--no-lexicon",
        ],
    )
    assert res.exit_code == 0, res.output
    # its only game is of 3 players: nothing rated is an error naming why, nothing written
    with pytest.raises(DataError, match=r"nothing rated: .*of 3 or 4 players"):
        elo.run_elo(tmp_path / "rep3" / "games.parquet", tmp_path / "elo3")
    assert not (tmp_path / "elo3").exists()
