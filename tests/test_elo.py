"""Tests of ``skrafl elo`` (pipelines/elo/, cli/elo.py).

Expected values come from the Netskrafl's help FAQ's worked examples and from hand arithmetic on the rules
of docs/NETSKRAFL.md §5, never from the code under test.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
from pathlib import Path

import polars as pl
import pytest
import typer
from typer.testing import CliRunner

from gamecore.errors import SkraflError
from pipelines import elo

COLUMNS = list(elo.GAME_COLUMNS)


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def write_games(path: Path, rows: list[tuple]) -> Path:
    """rows: (game_id, finished_at, p0, p1, robot0, robot1, s0, s1, competition)."""
    pl.DataFrame([list(r) for r in rows], schema=COLUMNS, orient="row").write_csv(path)
    return path


def write_state(
    folder: Path,
    players: dict[tuple[str, str], tuple[int, int]],
    params: elo.EloParams | None = None,
    robots: set[str] = frozenset(),
) -> Path:
    """A hand-made previous output folder: {(list, player): (rating, games)}, written as every
    output is (pipelines.atomic: a generation with its marker), so readers accept it."""
    from pipelines.atomic import output_dir

    params = params or elo.EloParams()
    with output_dir(folder, "elo") as stage:
        _write_state_files(stage, players, params, robots)
    return folder


def _write_state_files(folder: Path, players, params, robots) -> None:
    rows = [
        {
            "list": lst,
            "player": p,
            "robot": p in robots,
            "rating": r,
            "games": g,
            "wins": 0,
            "losses": 0,
            "draws": g,
            "score_for": 0,
            "score_against": 0,
            "as_of": dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc),
        }
        for (lst, p), (r, g) in players.items()
    ]
    pl.DataFrame(rows, schema=elo.state.ratings_schema()).write_parquet(folder / "ratings.parquet")
    pl.DataFrame(schema={"game_id": pl.String, "finished_at": pl.Datetime("us", "UTC")}).write_parquet(
        folder / "processed.parquet"
    )
    meta = {
        "version": 1,
        "params": {
            "k": params.k,
            "k_beginner": params.k_beginner,
            "established_after": params.established_after,
            "start": params.start,
            "scale": params.scale,
        },
        "as_of": "2024-01-01T00:00:00+00:00",
    }
    (folder / "params.json").write_text(json.dumps(meta))


def established(*pairs: tuple[str, int], lists=("all", "human")) -> dict:
    """State entries for established human players (50 games) at given ratings."""
    return {(lst, p): (r, 50) for p, r in pairs for lst in lists}


def ratings_of(out: Path, lst: str = "all") -> dict[str, int]:
    df = pl.read_parquet(out / "ratings.parquet").filter(pl.col("list") == lst)
    return dict(zip(df["player"], df["rating"], strict=True))


def row_of(out: Path, lst: str, player: str) -> dict:
    df = pl.read_parquet(out / "ratings.parquet").filter((pl.col("list") == lst) & (pl.col("player") == player))
    assert df.height == 1
    return df.row(0, named=True)


T = "2024-03-01T12:00:00Z"


def one_game(tmp_path: Path, game: tuple, state: dict | None = None, **params) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    games = write_games(tmp_path / "g.csv", [game])
    st = write_state(tmp_path / "prev", state, elo.params_for("netskrafl", **params)) if state else None
    out = tmp_path / "out"
    elo.run_elo(games, out, st, elo.params_for("netskrafl", **params))
    return out


# --------------------------------------------------------------------------------------------
# The FAQ's worked examples (Netskrafl's help, "Elo-stig")
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("gap, high, low", [(50, 57, 43), (100, 64, 36), (200, 76, 24), (400, 91, 9)])
def test_faq_win_probabilities(gap, high, low):
    assert round(100 * elo.expected_score(1200 + gap, 1200)) == high
    assert round(100 * elo.expected_score(1200, 1200 + gap)) == low


def test_faq_favourite_gains_2_or_loses_18():
    # A 1200, B 1600, K 20: B wins → +2; B loses → −18 (which A gets).
    assert elo.rating_change(1600, 1200, 1.0, 20) == 2
    assert elo.rating_change(1600, 1200, 0.0, 20) == -18
    assert elo.rating_change(1200, 1600, 1.0, 20) == 18
    assert elo.rating_change(1200, 1600, 0.0, 20) == -2


def test_faq_examples_through_the_batch(tmp_path):
    # Two established players (more than 10 games), so K = 20 for both.
    state = established(("a1200", 1200), ("b1600", 1600), ("u1100", 1100), ("f1500", 1500))
    games = write_games(
        tmp_path / "g.csv",
        [
            ("fav", "2024-03-01T10:00:00Z", "a1200", "b1600", False, False, 300, 420, False),
            ("upset", "2024-03-01T11:00:00Z", "u1100", "f1500", False, False, 401, 400, False),
        ],
    )
    out = tmp_path / "out"
    elo.run_elo(games, out, write_state(tmp_path / "prev", state))
    r = ratings_of(out)
    assert (r["b1600"], r["a1200"]) == (1602, 1198)
    assert (r["u1100"], r["f1500"]) == (1118, 1482)
    assert r["f1500"] - r["u1100"] == 364  # "Bilið milli þeirra minnkar því úr 400 stigum í 364."


def test_faq_underdog_beats_favourite(tmp_path):
    out = one_game(tmp_path, ("g", T, "a", "b", False, False, 500, 300, False), established(("a", 1200), ("b", 1600)))
    assert ratings_of(out) == {"a": 1218, "b": 1582}


# --------------------------------------------------------------------------------------------
# Rules of docs/NETSKRAFL.md
# --------------------------------------------------------------------------------------------


def test_two_beginners_both_move_with_k32(tmp_path):
    out = one_game(tmp_path, ("g", T, "x", "y", False, False, 300, 200, False))
    assert ratings_of(out) == {"x": 1216, "y": 1184}  # (1 − ½) × 32 = 16


def test_beginner_rule_established_player_does_not_move(tmp_path):
    # Established 1500 loses to a newcomer at 1200. E_new = 1/(1+10^(300/400)) = 0.15098;
    # (1 − 0.15098) × 32 = 27.17 → +27. The established player keeps 1500.
    out = one_game(tmp_path, ("g", T, "vet", "new", False, False, 300, 350, False), established(("vet", 1500)))
    assert ratings_of(out) == {"vet": 1500, "new": 1227}


def _beginner_then_veteran(tmp_path: Path, draws: int) -> dict[str, int]:
    """`new` draws `draws` games against another newcomer at 1200 (Δ = 0 at equal ratings), then
    beats the established `vet` (1200)."""
    rows = [(f"d{i:02d}", f"2024-03-01T{i:02d}:00:00Z", "new", "other", False, False, 300, 300, False) for i in range(draws)]
    rows.append(("win", "2024-03-02T00:00:00Z", "new", "vet", False, False, 400, 300, False))
    games = write_games(tmp_path / "g.csv", rows)
    out = tmp_path / "out"
    elo.run_elo(games, out, write_state(tmp_path / "prev", established(("vet", 1200))))
    return ratings_of(out)


def test_established_after_more_than_10_games_counting_the_current(tmp_path):
    # 11th game: more than 10 counting this one → established: both move with K = 20.
    assert _beginner_then_veteran(tmp_path, 10) == {"new": 1210, "other": 1200, "vet": 1190}


def test_tenth_game_is_still_a_beginner_game(tmp_path):
    # 10th game: still a beginner → K = 32 for them, the veteran does not move.
    assert _beginner_then_veteran(tmp_path, 9) == {"new": 1216, "other": 1200, "vet": 1200}


def test_rating_never_below_zero(tmp_path):
    # Both at 5, established: the loser's Δ = round(−½ × 20) = −10 → −5 → 0; the winner +10.
    out = one_game(tmp_path, ("g", T, "lo", "hi", False, False, 100, 200, False), established(("lo", 5), ("hi", 5)))
    assert ratings_of(out) == {"lo": 0, "hi": 15}


def test_zero_zero_game_is_ignored(tmp_path):
    games = write_games(
        tmp_path / "g.csv",
        [
            ("g1", "2024-03-01T10:00:00Z", "p", "q", False, False, 0, 0, True),
            ("g2", "2024-03-01T11:00:00Z", "p", "q", False, False, 10, 0, True),
        ],
    )
    run = elo.run_elo(games, tmp_path / "out")
    assert run.games_ignored == 1
    row = row_of(tmp_path / "out", "all", "p")
    assert (row["rating"], row["games"], row["wins"], row["draws"]) == (1216, 1, 1, 0)


def test_draw_between_unequal_players(tmp_path):
    # 1200 vs 1600 draw, K 20: (½ − 1/11) × 20 = 8.18 → +8 and −8.
    out = one_game(tmp_path, ("g", T, "lo", "hi", False, False, 350, 350, False), established(("lo", 1200), ("hi", 1600)))
    assert ratings_of(out) == {"lo": 1208, "hi": 1592}
    lo = row_of(tmp_path / "out", "all", "lo")
    assert (lo["games"], lo["draws"], lo["score_for"]) == (51, 51, 350)  # the state's 50 (all draws) + this one


def test_round_half_to_even(tmp_path):
    # Equal ratings, K 5: (1 − ½) × 5 = 2.5 → 2 (half to even), −2.5 → −2.
    out = one_game(tmp_path, ("g", T, "x", "y", False, False, 2, 1, False), k=5, k_beginner=5)
    assert ratings_of(out) == {"x": 1202, "y": 1198}
    # K 7: 3.5 → 4, −3.5 → −4.
    out = one_game(tmp_path / "b", ("g", T, "x", "y", False, False, 2, 1, False), k=7, k_beginner=7)
    assert ratings_of(out) == {"x": 1204, "y": 1196}


def test_robots_are_established_and_rated_per_name(tmp_path):
    games = write_games(
        tmp_path / "g.csv",
        [
            # A new human beats the robot: in the per-game model the robot is established, so it does not
            # move (beginner rule); in the nightly batch it is a beginner too: both move by 16.
            ("r1", "2024-03-01T10:00:00Z", "Fullsterkur", "newbie", True, False, 300, 400, False),
            # Two robots: established (per-game model), K = 20: ±10 at equal ratings; nightly: K 32, ±16.
            ("r2", "2024-03-01T11:00:00Z", "Miðlungur", "Amlóði", True, True, 420, 300, False),
        ],
    )
    out = tmp_path / "out"
    elo.run_elo(games, out, params=elo.params_for("netskrafl-live"))
    assert ratings_of(out) == {"Fullsterkur": 1200, "newbie": 1216, "Miðlungur": 1210, "Amlóði": 1190}
    elo.run_elo(games, tmp_path / "nightly")
    assert ratings_of(tmp_path / "nightly") == {"Fullsterkur": 1184, "newbie": 1216, "Miðlungur": 1216, "Amlóði": 1184}
    robots = pl.read_parquet(out / "ratings.parquet").filter(pl.col("robot"))["player"].sort().to_list()
    assert robots == ["Amlóði", "Fullsterkur", "Miðlungur"]
    assert ratings_of(out, "human") == {}


def test_each_lists_filter(tmp_path):
    games = write_games(
        tmp_path / "g.csv",
        [
            ("c", "2024-03-01T10:00:00Z", "h1", "h2", False, False, 300, 200, True),  # all, human, competition
            ("h", "2024-03-01T11:00:00Z", "h3", "h4", False, False, 300, 200, False),  # all, human
            ("r", "2024-03-01T12:00:00Z", "h5", "Amlóði", False, True, 300, 200, True),  # all only
        ],
    )
    out = tmp_path / "out"
    elo.run_elo(games, out)
    assert set(ratings_of(out, "all")) == {"h1", "h2", "h3", "h4", "h5", "Amlóði"}
    assert set(ratings_of(out, "human")) == {"h1", "h2", "h3", "h4"}
    assert set(ratings_of(out, "competition")) == {"h1", "h2"}
    tops = {n: pl.read_csv(out / f"top100_{n}.csv") for n in elo.LISTS}
    assert "Amlóði" in tops["all"]["player"].to_list()
    assert "Amlóði" not in tops["human"]["player"].to_list() + tops["competition"]["player"].to_list()


def test_established_counts_the_games_of_that_list(tmp_path):
    # `p` has 20 games in "all" but 0 in "human": in "human" they are a beginner, so the
    # established `vet` does not move there; in "all" both move with K = 20.
    state = {("all", "p"): (1200, 20), ("all", "vet"): (1200, 50), ("human", "vet"): (1200, 50)}
    out = one_game(tmp_path, ("g", T, "p", "vet", False, False, 300, 200, False), state)
    assert ratings_of(out, "all") == {"p": 1210, "vet": 1190}
    assert ratings_of(out, "human") == {"p": 1216, "vet": 1200}


def test_order_is_finished_at_then_game_id(tmp_path):
    # Same players, a win and a loss at the same time: game_id "a" first. From 1200/1200 (K 32):
    # a: x wins → x 1216, y 1184; b: y wins → y gets round((1 − E(1184 vs 1216)) × 32) =
    # round(17.47) = 17 → 1201, x → 1199. The other order would give x 1201, y 1199.
    games = write_games(
        tmp_path / "g.csv",
        [
            ("b", "2024-03-01T10:00:00Z", "x", "y", False, False, 100, 200, False),
            ("a", "2024-03-01T10:00:00Z", "x", "y", False, False, 200, 100, False),
        ],
    )
    elo.run_elo(games, tmp_path / "out")
    assert ratings_of(tmp_path / "out") == {"x": 1199, "y": 1201}


# --------------------------------------------------------------------------------------------
# A small real-looking table, in every input format
# --------------------------------------------------------------------------------------------

# The nightly batch (preset netskrafl): a robot is a beginner for its first 10 games like a
# person, so in n2 anna (1216) and Fullsterkur (1200) are both beginners: Fullsterkur wins,
# E = 1/(1 + 10^(16/400)) = 0.477, +round(0.523 × 32) = +17 → 1217, anna −17 → 1199; in n4 Amlóði
# and dora are both new: dora wins, Amlóði −16 → 1184.
FIXTURE_ALL = {"anna": 1199, "bjorn": 1170, "carl": 1199, "dora": 1231, "Fullsterkur": 1217, "Amlóði": 1184}
FIXTURE_HUMAN = {"anna": 1216, "bjorn": 1170, "carl": 1199, "dora": 1215}
FIXTURE_COMPETITION = {"anna": 1216, "bjorn": 1169, "dora": 1215}


@pytest.mark.parametrize("name", ["games.csv", "games.jsonl", "parquet"])
def test_fixture_by_hand(tmp_path, fixtures, name):
    src = fixtures / "elo" / ("games.csv" if name == "parquet" else name)
    if name == "parquet":
        df = pl.read_csv(src)
        src = tmp_path / "games.parquet"
        df.write_parquet(src)
    out = tmp_path / "out"
    run = elo.run_elo(src, out)
    assert ratings_of(out, "all") == FIXTURE_ALL
    assert ratings_of(out, "human") == FIXTURE_HUMAN
    assert ratings_of(out, "competition") == FIXTURE_COMPETITION
    assert run.games_ignored == 1 and run.games_rated == 5
    anna = row_of(out, "all", "anna")
    assert (anna["games"], anna["wins"], anna["losses"], anna["draws"], anna["score_for"], anna["score_against"]) == (
        2,
        1,
        1,
        0,
        713,
        843,
    )
    assert anna["as_of"] == dt.datetime(2024, 5, 2, 21, 45, 10, 250000, tzinfo=dt.timezone.utc)
    top = pl.read_csv(out / "top100_all.csv")
    assert top.columns == list(elo.TOP_COLUMNS)
    assert top["player"].to_list()[:2] == ["dora", "Fullsterkur"]  # 1231, 1217
    elo.run_elo(src, tmp_path / "live", params=elo.params_for("netskrafl-live"))  # robots established: they stay at 1200
    live = pl.read_csv(tmp_path / "live" / "top100_all.csv")
    assert live["player"].to_list()[:2] == ["dora", "Amlóði"]  # 1231, then 1200s: more games first, then name
    dora = top.filter(pl.col("player") == "dora").row(0, named=True)
    # Report day 2024-05-02; the day before ended with dora at 1200 (no game yet) → not rated then.
    assert dora["change_1d"] is None and dora["win_pct"] == 100.0 and dora["avg_score"] == 396.0
    bjorn = top.filter(pl.col("player") == "bjorn").row(0, named=True)
    assert bjorn["change_1d"] == 1170 - 1185


def test_explain_matches_ratings(tmp_path, fixtures):
    rows = elo.explain_player(fixtures / "elo" / "games.csv", "bjorn")
    all_rows = [r for r in rows if r["list"] == "all"]
    assert [r["game_id"] for r in all_rows] == ["n1", "n3", "n6"]
    assert [r["change"] for r in all_rows] == [-16, 1, -15]
    assert all_rows[-1]["rating"] == FIXTURE_ALL["bjorn"]
    assert [r["k"] for r in all_rows] == [32, 32, 32]
    anna = elo.explain_player(fixtures / "elo" / "games.csv", "anna", lists=["all"])
    assert [(r["opponent"], r["change"]) for r in anna] == [("bjorn", 16), ("Fullsterkur", -17)]
    with pytest.raises(SkraflError):
        elo.explain_player(fixtures / "elo" / "games.csv", "nobody")


# --------------------------------------------------------------------------------------------
# Presets and options
# --------------------------------------------------------------------------------------------


def test_ordspill_preset_starts_at_1000(tmp_path):
    games = write_games(tmp_path / "g.csv", [("g", T, "x", "y", False, False, 3, 1, False)])
    elo.run_elo(games, tmp_path / "out", params=elo.params_for("ordspill"))
    assert ratings_of(tmp_path / "out") == {"x": 1016, "y": 984}


def test_unknown_preset_and_bad_values():
    with pytest.raises(SkraflError, match="preset"):
        elo.params_for("chess")
    with pytest.raises(SkraflError, match="start"):
        elo.params_for("netskrafl", start=-5)


# --------------------------------------------------------------------------------------------
# State, --date, properties
# --------------------------------------------------------------------------------------------


def random_games(seed: int, n: int = 400, days: int | list[int] = 5, players: int = 14) -> list[tuple]:
    rnd = random.Random(seed)
    humans = [f"p{i:02d}" for i in range(players)]
    robots = ["Fullsterkur", "Miðlungur", "Amlóði"]
    day_set = list(range(days)) if isinstance(days, int) else days
    rows = []
    for i in range(n):
        day = rnd.choice(day_set)
        t = dt.datetime(2024, 6, 1, tzinfo=dt.timezone.utc) + dt.timedelta(days=day, seconds=rnd.randrange(86400))
        a, b = rnd.sample(humans, 2)
        r0 = r1 = False
        if rnd.random() < 0.25:
            b, r1 = rnd.choice(robots), True
            if rnd.random() < 0.5:
                a, b, r0, r1 = b, a, True, False
        s0, s1 = rnd.randrange(0, 500), rnd.randrange(0, 500)
        if rnd.random() < 0.05:
            s1 = s0
        if rnd.random() < 0.02:
            s0 = s1 = 0
        # Some games share a second: the game_id decides.
        stamp = (
            t.replace(second=0).isoformat().replace("+00:00", "Z") if rnd.random() < 0.2 else t.isoformat().replace("+00:00", "Z")
        )
        rows.append((f"g{rnd.randrange(10**6):06d}-{i}", stamp, a, b, r0, r1, s0, s1, not (r0 or r1) and rnd.random() < 0.3))
    return rows


def read_ratings(out: Path) -> pl.DataFrame:
    return pl.read_parquet(out / "ratings.parquet")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_day_by_day_with_state_equals_one_run(tmp_path, seed):
    rows = random_games(seed)
    games = write_games(tmp_path / "games.csv", rows)
    whole = tmp_path / "whole"
    elo.run_elo(games, whole)
    prev = None
    for day in range(1, 6):
        out = tmp_path / f"day{day}"
        elo.run_elo(games, out, prev, date=dt.date(2024, 6, day))
        prev = out
    assert read_ratings(prev).equals(read_ratings(whole))
    for name in elo.LISTS:
        assert pl.read_csv(prev / f"top100_{name}.csv").equals(pl.read_csv(whole / f"top100_{name}.csv"))


@pytest.mark.slow
def test_nightly_runs_over_gaps_and_months_equal_one_run(tmp_path):
    # Games on days 0, 2, 9, 31 and 38 only; a nightly run every day (most nights have no games).
    # The 1/7/30-day changes of the last night must come out the same as from one run.
    rows = random_games(11, n=300, days=[0, 2, 9, 31, 38])
    games = write_games(tmp_path / "games.csv", rows)
    whole = tmp_path / "whole"
    elo.run_elo(games, whole)
    prev = None
    start = dt.date(2024, 6, 1)
    for day in range(39):
        out = tmp_path / f"night{day:02d}"
        elo.run_elo(games, out, prev, date=start + dt.timedelta(days=day))
        prev = out
    assert read_ratings(prev).equals(read_ratings(whole))
    for name in elo.LISTS:
        top = pl.read_csv(whole / f"top100_{name}.csv")
        assert pl.read_csv(prev / f"top100_{name}.csv").equals(top)
        assert top["change_30d"].null_count() < top.height  # day 38 − 30 = day 8 (June 9): after days 0 and 2
    for snap in (whole / "history").iterdir():  # the same end-of-day ratings either way
        assert pl.read_parquet(snap).equals(pl.read_parquet(prev / "history" / snap.name)), snap.name
    kept = sorted(p.name for p in (prev / "history").iterdir())
    assert kept[0] == "ratings_2024-06-09.parquet" and kept[-1] == "ratings_2024-07-09.parquet" and len(kept) == 31


def test_shuffled_rows_change_nothing(tmp_path):
    rows = random_games(7)
    a = write_games(tmp_path / "a.csv", rows)
    shuffled = rows[:]
    random.Random(99).shuffle(shuffled)
    b = write_games(tmp_path / "b.csv", shuffled)
    elo.run_elo(a, tmp_path / "oa")
    elo.run_elo(b, tmp_path / "ob")
    for f in ["ratings.parquet", "processed.parquet", *(f"top100_{n}.csv" for n in elo.LISTS)]:
        if f == "processed.parquet":
            assert (
                pl.read_parquet(tmp_path / "oa" / f).sort("game_id").equals(pl.read_parquet(tmp_path / "ob" / f).sort("game_id"))
            )
        else:
            assert (tmp_path / "oa" / f).read_bytes() == (tmp_path / "ob" / f).read_bytes(), f


def leftovers(folder: Path) -> list[str]:
    """Hidden entries of ``folder`` that are neither a writer's lock file (``.NAME.lock``) nor the
    generation a visible output link points to (pipelines/atomic.py): temporary leftovers."""
    live = {p.resolve() for p in folder.iterdir() if not p.name.startswith(".") and p.is_symlink()}
    return sorted(
        p.name for p in folder.iterdir() if p.name.startswith(".") and not p.name.endswith(".lock") and p.resolve() not in live
    )


def folder_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        h.update(str(p.relative_to(folder)).encode())
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


def test_same_night_twice_and_state_untouched(tmp_path):
    games = write_games(tmp_path / "games.csv", random_games(4))
    d1, d2a, d2b = tmp_path / "d1", tmp_path / "d2a", tmp_path / "d2b"
    elo.run_elo(games, d1, date=dt.date(2024, 6, 1))
    before = folder_digest(d1)
    run_a = elo.run_elo(games, d2a, d1, date=dt.date(2024, 6, 2))
    run_b = elo.run_elo(games, d2b, d2a, date=dt.date(2024, 6, 2))  # the same night again
    assert folder_digest(d1) == before
    assert run_a.games_rated > 0 and run_b.games_rated == 0 and run_b.games_skipped > 0
    assert read_ratings(d2a).equals(read_ratings(d2b))
    # Deterministic: the same input gives byte-identical files.
    elo.run_elo(games, tmp_path / "again", d1, date=dt.date(2024, 6, 2))
    for f in ["ratings.parquet", "processed.parquet", "params.json", *(f"top100_{n}.csv" for n in elo.LISTS)]:
        assert (d2a / f).read_bytes() == (tmp_path / "again" / f).read_bytes(), f


def test_out_must_differ_from_state_and_crash_leaves_prev(tmp_path, monkeypatch):
    games = write_games(tmp_path / "games.csv", random_games(5))
    prev = tmp_path / "prev"
    elo.run_elo(games, prev, date=dt.date(2024, 6, 1))
    digest = folder_digest(prev)
    with pytest.raises(SkraflError):
        elo.run_elo(games, prev, prev, date=dt.date(2024, 6, 2))

    # A crash while writing: no output folder, no temporary folder left, prev intact.
    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(elo.tables, "top_tables", boom)
    with pytest.raises(OSError):
        elo.run_elo(games, tmp_path / "new", prev, date=dt.date(2024, 6, 2))
    assert not (tmp_path / "new").exists()
    assert leftovers(tmp_path) == []
    assert folder_digest(prev) == digest


def test_state_with_other_parameters_is_refused(tmp_path):
    games = write_games(tmp_path / "games.csv", random_games(6))
    prev = tmp_path / "prev"
    elo.run_elo(games, prev, date=dt.date(2024, 6, 1))
    with pytest.raises(SkraflError, match="parameters"):
        elo.run_elo(games, tmp_path / "o", prev, params=elo.params_for("ordspill"))


def test_history_and_changes(tmp_path):
    # Day 1: x beats y (x 1216). Day 2: x beats z (beginners, 1216 vs 1200: E = 0.523 →
    # (1 − 0.523) × 32 = 15.26 → +15 → 1231). Change over 1 day: 1231 − 1216 = 15.
    games = write_games(
        tmp_path / "g.csv",
        [
            ("a", "2024-03-01T10:00:00Z", "x", "y", False, False, 300, 200, False),
            ("b", "2024-03-02T10:00:00Z", "x", "z", False, False, 300, 200, False),
        ],
    )
    out = tmp_path / "out"
    elo.run_elo(games, out)
    assert sorted(p.name for p in (out / "history").iterdir()) == ["ratings_2024-03-01.parquet", "ratings_2024-03-02.parquet"]
    top = pl.read_csv(out / "top100_all.csv")
    x = top.filter(pl.col("player") == "x").row(0, named=True)
    assert (x["rating"], x["change_1d"], x["change_7d"], x["change_30d"]) == (1231, 15, None, None)


def test_parallel_and_serial_loops_agree(monkeypatch):
    import numpy as np

    rnd = np.random.default_rng(3)
    n, players = 30_000, 300
    jobs = []
    for _ in range(3):
        a = rnd.integers(0, players, n)
        b = (a + rnd.integers(1, players, n)) % players
        jobs.append(
            elo.rating.ListJob(
                a=a,
                b=b,
                result=rnd.choice([0.0, 0.5, 1.0], n),
                robot_a=rnd.random(n) < 0.1,
                robot_b=rnd.random(n) < 0.1,
                prior_games=rnd.integers(0, 12, players),
                ratings=rnd.integers(0, 2000, players).tolist(),
                stops=[(n // 2, [("snap", 1)]), (n, [])],
                params=elo.EloParams(),
            )
        )
    monkeypatch.setattr(elo.rating, "_PARALLEL_MIN_GAMES", 0)
    serial = elo.rating.run_jobs([elo.rating.ListJob(**{**j.__dict__, "ratings": list(j.ratings)}) for j in jobs], parallel=False)
    parallel = elo.rating.run_jobs(jobs, parallel=True)
    for x, y in zip(serial, parallel, strict=True):
        assert (x.ratings, x.snaps, x.moments) == (y.ratings, y.snaps, y.moments)
        assert (x.first == y.first).all()


# --------------------------------------------------------------------------------------------
# Input errors and the replay table
# --------------------------------------------------------------------------------------------


def test_missing_column_names_it(tmp_path):
    p = tmp_path / "g.csv"
    pl.DataFrame({c: ["1"] for c in COLUMNS if c != "score1"}).write_csv(p)
    with pytest.raises(SkraflError, match="score1") as err:
        elo.read_games(p)
    assert err.value.path == str(p)


@pytest.mark.parametrize(
    "column, value, what",
    [
        ("score0", "12x", "integer"),
        ("robot1", "maybe", "boolean"),
        ("finished_at", "yesterday", "ISO 8601"),
        ("player1", "", "empty"),
    ],
)
def test_malformed_value_names_column_and_row(tmp_path, column, value, what):
    rows = [list(r) for r in random_games(8, n=5)]
    rows[3][COLUMNS.index(column)] = value
    p = tmp_path / "g.csv"
    pl.DataFrame(rows, schema={c: pl.String for c in COLUMNS}, orient="row").write_csv(p)
    with pytest.raises(SkraflError, match=what) as err:
        elo.read_games(p)
    assert column in err.value.message and "row 4" in err.value.message
    assert err.value.line == 5  # the header is line 1


def test_duplicate_game_id_and_mixed_robot_flags(tmp_path):
    rows = [("g1", T, "a", "b", False, False, 1, 2, False), ("g1", T, "c", "d", False, False, 1, 2, False)]
    with pytest.raises(SkraflError, match="duplicate"):
        elo.read_games(write_games(tmp_path / "d.csv", rows))
    rows = [("g1", T, "a", "Amlóði", False, True, 1, 2, False), ("g2", T, "Amlóði", "c", False, False, 1, 2, False)]
    with pytest.raises(SkraflError, match="robot"):
        elo.run_elo(write_games(tmp_path / "r.csv", rows), tmp_path / "out")


def test_replay_games_parquet(tmp_path):
    p = tmp_path / "games.parquet"
    pl.DataFrame(
        {
            "file": ["z.gcg", "a.gcg", "m.gcg"],
            "format": ["gcg"] * 3,
            "status": ["ok", "error", "ok"],
            "error": [None, "bad move", None],
            "player1": ["x", "x", "y"],
            "player2": ["y", "y", "x"],
            "score1": [400, 1, 350],
            "score2": [300, 2, 350],
            "winner": ["x", "y", None],
            "moves": [20, 3, 22],
        }
    ).write_parquet(p)
    table = elo.read_games(p)
    assert table.ordered_by_row and any("finished_at" in n for n in table.notes)
    out = tmp_path / "out"
    run = elo.run_elo(p, out)
    # File order: z.gcg (x wins: 1216/1184), then m.gcg (draw, y 1184 vs x 1216: y +1, x −1).
    assert ratings_of(out) == {"x": 1215, "y": 1185}
    assert run.as_of is None
    with pytest.raises(SkraflError, match="--date"):
        elo.run_elo(p, tmp_path / "o2", date=dt.date(2024, 1, 1))


# --------------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------------


def cli_app() -> typer.Typer:
    from cli import elo as cli_elo

    app = typer.Typer()

    @app.callback()
    def _root() -> None:  # keep "elo" a subcommand
        pass

    cli_elo.register(app)
    return app


def test_cli_writes_outputs_and_explains(tmp_path, fixtures):
    runner = CliRunner()
    out = tmp_path / "out"
    res = runner.invoke(cli_app(), ["elo", "--games", str(fixtures / "elo" / "games.csv"), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    assert ratings_of(out) == FIXTURE_ALL
    res = runner.invoke(
        cli_app(), ["elo", "--games", str(fixtures / "elo" / "games.csv"), "--explain", "dora", "--list", "all", "-f", "json"]
    )
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert [(r["game_id"], r["change"], r["rating"]) for r in rows] == [("n4", 16, 1216), ("n6", 15, 1231)]


def test_cli_bad_input_is_one_skrafl_error(tmp_path):
    p = tmp_path / "g.csv"
    pl.DataFrame({c: ["1"] for c in COLUMNS if c != "competition"}).write_csv(p)
    res = CliRunner().invoke(cli_app(), ["elo", "--games", str(p), "--out", str(tmp_path / "o")])
    assert isinstance(res.exception, SkraflError) and "competition" in str(res.exception)


def test_cli_state_keeps_its_preset(tmp_path, fixtures):
    # Day 1 with the ordspill preset (start 1000); day 2 continues from it without --preset.
    runner = CliRunner()
    games = str(fixtures / "elo" / "games.csv")
    d1, d2 = tmp_path / "d1", tmp_path / "d2"
    assert (
        runner.invoke(
            cli_app(), ["elo", "--games", games, "--out", str(d1), "--date", "2024-05-01", "--preset", "ordspill", "-q"]
        ).exit_code
        == 0
    )
    res = runner.invoke(cli_app(), ["elo", "--games", games, "--out", str(d2), "--state", str(d1), "--date", "2024-05-02", "-q"])
    assert res.exit_code == 0, res.output
    # The fixture's games shifted by −200: every rating change is the same at equal gaps.
    assert ratings_of(d2) == {p: r - 200 for p, r in FIXTURE_ALL.items()}
    res = runner.invoke(cli_app(), ["elo", "--games", games, "--out", str(tmp_path / "d3"), "--state", str(d1), "--k", "30"])
    assert isinstance(res.exception, SkraflError) and "parameters" in str(res.exception)


def test_bad_json_line_and_missing_value(tmp_path, fixtures):
    lines = (fixtures / "elo" / "games.jsonl").read_text(encoding="utf-8").splitlines()
    p = tmp_path / "g.jsonl"
    p.write_text("\n".join(lines[:2] + ["not json"] + lines[2:]) + "\n", encoding="utf-8")
    with pytest.raises(SkraflError) as err:
        elo.read_games(p)
    assert err.value.line == 3
    rec = json.loads(lines[0])
    del rec["score1"]
    p.write_text("\n".join(lines[:3] + [json.dumps(rec)]) + "\n", encoding="utf-8")
    with pytest.raises(SkraflError, match="score1.*row 4.*missing"):
        elo.read_games(p)


def test_time_offsets_are_converted_to_utc_days(tmp_path):
    # 01:00 at +02:00 on May 2 is 23:00 UTC on May 1: it belongs to the night of May 1.
    games = write_games(tmp_path / "g.csv", [("g", "2024-05-02T01:00:00+02:00", "x", "y", False, False, 2, 1, False)])
    run = elo.run_elo(games, tmp_path / "out", date=dt.date(2024, 5, 1))
    assert run.games_rated == 1
    assert run.as_of == dt.datetime(2024, 5, 1, 23, 0, tzinfo=dt.timezone.utc)


def test_forked_all_list_gives_the_serial_result(tmp_path, monkeypatch):
    games = write_games(tmp_path / "g.csv", random_games(12, n=600, days=[0, 1, 2, 40]))
    monkeypatch.setattr(elo.rating, "_PARALLEL_MIN_GAMES", 10**9)
    serial = elo.compute(elo.read_games(games))
    monkeypatch.setattr(elo.rating, "_PARALLEL_MIN_GAMES", 0)
    forked = elo.compute(elo.read_games(games))
    assert forked.ratings.equals(serial.ratings)
    assert forked.snapshots.keys() == serial.snapshots.keys()
    assert all(forked.snapshots[d].equals(serial.snapshots[d]) for d in serial.snapshots)


# --------------------------------------------------------------------------------------------
# Properties over generated game lists (hypothesis)
# --------------------------------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PLAYERS = ["ann", "bo", "cy", "di", "ed", "Fullsterkur", "Amlóði"]
_game = st.tuples(
    st.integers(0, 3),  # day
    st.integers(0, 86399),  # second of the day
    st.sampled_from(_PLAYERS),
    st.sampled_from(_PLAYERS),
    st.integers(0, 3),  # score0 (small: many draws and some 0–0)
    st.integers(0, 3),
    st.booleans(),  # competition
)


def _table(tmp: Path, games: list[tuple], order: list[int]) -> elo.GamesTable:
    rows = []
    for i in order:
        day, sec, p0, p1, s0, s1, comp = games[i]
        if p0 == p1:
            continue
        t = dt.datetime(2024, 6, 1, tzinfo=dt.timezone.utc) + dt.timedelta(days=day, seconds=sec)
        r0, r1 = p0[0].isupper(), p1[0].isupper()
        rows.append((f"g{i:03d}", t.isoformat(), p0, p1, r0, r1, s0, s1, comp and not (r0 or r1)))
    path = tmp / f"g{random.getrandbits(64):x}.csv"
    write_games(path, rows or [("x", "2024-06-01T00:00:00Z", "ann", "bo", False, False, 0, 0, False)])
    return elo.read_games(path)


def _state_of(run: elo.EloRun) -> elo.EloState:
    return elo.EloState(run.ratings.drop("as_of"), run.processed, run.params, run.as_of, None)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(games=st.lists(_game, max_size=60), seed=st.integers(0, 2**32 - 1))
def test_property_shuffle_and_day_by_day(tmp_path, games, seed):
    order = list(range(len(games)))
    whole = elo.compute(_table(tmp_path, games, order))
    random.Random(seed).shuffle(order)
    table = _table(tmp_path, games, order)
    assert elo.compute(table).ratings.equals(whole.ratings)
    state = None
    for day in range(4):
        run = elo.compute(table, state, date=dt.date(2024, 6, 1 + day))
        state = _state_of(run)
    assert state.ratings.equals(whole.ratings.drop("as_of"))


# --------------------------------------------------------------------------------------------
# --out never destroys inputs or foreign files (pipelines/atomic.py guards)
# --------------------------------------------------------------------------------------------


def _sandbox(tmp_path: Path, fixtures: Path) -> Path:
    box = tmp_path / "sandbox"
    box.mkdir()
    (box / "g.csv").write_bytes((fixtures / "elo" / "games.csv").read_bytes())
    (box / "notes.txt").write_text("someone else's file\n")
    return box


def test_out_equal_to_the_games_file_is_refused(tmp_path, fixtures):
    from clirun import run_skrafl_here

    box = _sandbox(tmp_path, fixtures)
    before = (box / "g.csv").read_bytes()
    res = run_skrafl_here("elo", "--games", str(box / "g.csv"), "--out", str(box / "g.csv"), "-q")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.count("skrafl: error:") == 1
    assert (box / "g.csv").is_file() and (box / "g.csv").read_bytes() == before


def test_out_the_folder_holding_the_input_is_refused(tmp_path, fixtures):
    from clirun import run_skrafl_here

    box = _sandbox(tmp_path, fixtures)
    res = run_skrafl_here("elo", "--games", str(box / "g.csv"), "--out", str(box), "-q")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert sorted(p.name for p in box.iterdir()) == ["g.csv", "notes.txt"]


def test_out_dot_from_a_subfolder_is_one_error(tmp_path, fixtures):
    import os
    import subprocess
    import sys

    from clirun import PROJECT_ROOT

    box = _sandbox(tmp_path, fixtures)
    sub = box / "sub"
    sub.mkdir()
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT))
    res = subprocess.run(
        [sys.executable, "-m", "cli.main", "elo", "--games", "../g.csv", "--out", ".", "-q"],
        cwd=sub,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.count("skrafl: error:") == 1
    assert sorted(p.name for p in box.iterdir()) == ["g.csv", "notes.txt", "sub"] and not any(sub.iterdir())


def test_out_is_replaced_when_skrafl_wrote_it(tmp_path, fixtures):
    games = fixtures / "elo" / "games.csv"
    out = tmp_path / "out"
    elo.run_elo(games, out)
    assert (out / ".skrafl-output").is_file()
    (out / "stale.txt").write_text("from an older run")
    elo.run_elo(games, out)
    assert not (out / "stale.txt").exists() and ratings_of(out) == FIXTURE_ALL
    assert leftovers(tmp_path) == []  # no temporary leftovers


# --------------------------------------------------------------------------------------------
# replay's games.parquet: game facts columns, same-name players skipped
# --------------------------------------------------------------------------------------------


def _replay_table(path: Path, rows: list[dict]) -> Path:
    """A games.parquet as ``skrafl replay`` writes it (its columns, players numbered 1 and 2)."""
    from pipelines.replay import GAME_COLUMNS as REPLAY_COLUMNS

    full = [{c: r.get(c) for c in REPLAY_COLUMNS} for r in rows]
    schema = {c: pl.String for c in REPLAY_COLUMNS}
    schema.update({c: pl.Int32 for c in ("score1", "score2", "moves", "bingos1", "bingos2")})
    schema.update(
        {
            "finished_at": pl.Datetime("us", "UTC"),
            "competition": pl.Boolean,
            "robot1": pl.Boolean,
            "robot2": pl.Boolean,
            "unknown_words": pl.List(pl.String),
            "warnings": pl.List(pl.String),
        }
    )
    pl.DataFrame(full, schema=schema).write_parquet(path)
    return path


def _rrow(file, gid, when, p1, p2, s1, s2, comp=False, robot1=False, robot2=False):
    return {
        "file": file,
        "format": "netskrafl",
        "status": "ok",
        "player1": p1,
        "player2": p2,
        "score1": s1,
        "score2": s2,
        "game_id": gid,
        "finished_at": when,
        "competition": comp,
        "robot1": robot1,
        "robot2": robot2,
        "warnings": [],
    }


def test_replay_table_game_facts_are_used(tmp_path):
    t1 = dt.datetime(2024, 5, 1, 20, tzinfo=dt.timezone.utc)
    t0 = dt.datetime(2024, 5, 1, 10, tzinfo=dt.timezone.utc)
    # File order is the reverse of time order: the later game (file a) must be rated second.
    rows = [
        _rrow("a.json", "g-late", t1, "x", "y", 300, 200, comp=True),
        _rrow("b.json", "g-early", t0, "x", "robo", 100, 200, robot2=True),
    ]
    table = elo.read_games(_replay_table(tmp_path / "games.parquet", rows))
    assert not table.ordered_by_row
    f = table.frame.sort("row")
    assert f["game_id"].to_list() == ["g-late", "g-early"]
    assert f["competition"].to_list() == [True, False] and f["robot1"].to_list() == [False, True]
    out = tmp_path / "out"
    run = elo.run_elo(tmp_path / "games.parquet", out, date=dt.date(2024, 5, 1))
    # Hand arithmetic (docs/NETSKRAFL.md Elo, beginners K=32): early game x(1200) loses to robo(1200): x 1184;
    # late game x(1184) beats y(1200): E = 1/(1+10^(16/400)) = 0.4770; 32 × 0.5230 = 16.7 → +17: x 1201.
    assert ratings_of(out)["x"] == 1201
    assert ratings_of(out, "competition") == {"x": 1216, "y": 1184}
    assert "robo" not in ratings_of(out, "human")
    assert run.as_of == t1


def test_replay_table_same_name_players_skipped_with_warning(tmp_path):
    from clirun import run_skrafl_here

    t = dt.datetime(2024, 5, 1, 10, tzinfo=dt.timezone.utc)
    rows = [_rrow("a.gcg", "a.gcg", t, "ann", "ann", 300, 200), _rrow("b.gcg", "b.gcg", t, "ann", "bob", 300, 200)]
    path = _replay_table(tmp_path / "games.parquet", rows)
    table = elo.read_games(path)
    assert table.frame["game_id"].to_list() == ["b.gcg"]
    assert any(n.startswith("warning:") and "same name" in n for n in table.notes)
    res = run_skrafl_here("elo", "--games", str(path), "--out", str(tmp_path / "out"), "-q")
    assert res.returncode == 0, res.stderr
    assert "same name" in res.stderr and "a.gcg" in res.stderr
    assert ratings_of(tmp_path / "out") == {"ann": 1216, "bob": 1184}


def test_replayed_netskrafl_records_without_names_are_not_rated(tmp_path):
    """docs/NETSKRAFL.md §1: a record holds no player ids, so replay calls the seats player0
    and player1 in every game. They are not two people: such games are left unrated, counted in
    one warning line; the games with names are rated as if alone."""
    from clirun import run_skrafl_here

    t = dt.datetime(2024, 5, 1, 10, tzinfo=dt.timezone.utc)
    rows = [_rrow(f"{g}.json", g, t, "player0", "player1", 300, 200) for g in ("g1", "g2", "g3")]
    rows.append(_rrow("g4.json", "g4", t, "ann", "bob", 300, 200))
    path = _replay_table(tmp_path / "games.parquet", rows)
    run = elo.compute(elo.read_games(path))
    assert run.games_rated == 1 and run.games_unnamed == 3
    warned = [n for n in run.notes if n.startswith("warning:") and "not rated" in n]
    assert len(warned) == 1 and "3 replayed Netskrafl game(s)" in warned[0] and "'g1'" in warned[0]
    res = run_skrafl_here("elo", "--games", str(path), "--out", str(tmp_path / "out"), "-q")
    assert res.returncode == 0, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "3 replayed Netskrafl game(s)" in res.stderr
    # one game between two beginners at 1200: E = 0.5, K = 32: ±16
    assert ratings_of(tmp_path / "out") == {"ann": 1216, "bob": 1184}
    top = (tmp_path / "out" / "top100_all.csv").read_text(encoding="utf-8")
    assert "player0" not in top and "player1" not in top


def test_players_named_player0_and_player1_are_rated_outside_netskrafl_records(tmp_path):
    """Only a replayed Netskrafl record (format netskrafl) has the nameless seats: GCG games of two
    people called player0 and player1, or a table without the format column (not one replay
    writes), are rated like any other."""
    t = dt.datetime(2024, 5, 1, 10, tzinfo=dt.timezone.utc)
    gcg = [dict(_rrow(f"{g}.gcg", g, t, "player0", "player1", 300, 200), format="gcg") for g in ("g1", "g2")]
    run = elo.compute(elo.read_games(_replay_table(tmp_path / "gcg.parquet", gcg)))
    assert run.games_rated == 2 and run.games_unnamed == 0
    bare = pl.read_parquet(_replay_table(tmp_path / "full.parquet", gcg)).drop("format")
    bare.write_parquet(tmp_path / "bare.parquet")
    run = elo.compute(elo.read_games(tmp_path / "bare.parquet"))
    assert run.games_rated == 2 and run.games_unnamed == 0


def test_explain_svg_inside_an_output_is_refused_before_any_work(tmp_path, fixtures):
    """README Guarantees, Pictures: a picture inside a skrafl output is refused (one line, exit 2)
    before any work: no history table is printed."""
    from clirun import run_skrafl_here

    games = fixtures / "elo" / "games.csv"
    out = tmp_path / "d1"
    assert run_skrafl_here("elo", "--games", str(games), "--out", str(out), "-q").returncode == 0
    res = run_skrafl_here("elo", "--games", str(games), "--explain", "anna", "--svg", str(out / "x.svg"))
    assert res.returncode == 2
    assert res.stdout == "" and len(res.stderr.strip().splitlines()) == 1 and "inside" in res.stderr
    assert not (out / "x.svg").exists()
    # the games table itself, and a missing folder: refused before any work too
    for target in (games, tmp_path / "nope" / "x.svg"):
        res = run_skrafl_here("elo", "--games", str(games), "--explain", "anna", "--svg", str(target))
        assert res.returncode == 2 and res.stdout == "", res.stdout
    res = run_skrafl_here("elo", "--games", str(games), "--explain", "anna", "--svg", str(tmp_path / "ok.svg"), "-q")
    assert res.returncode == 0 and "bjorn" in res.stdout and (tmp_path / "ok.svg").read_text().startswith("<")
