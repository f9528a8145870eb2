"""The nightly ``skrafl elo`` cannot skip a day: the days a state has rated,
``--catch-up``, and games that arrive for a day already rated (``late_games.csv``).

The reference for every comparison is an independent run: one nightly run per day from nothing,
or one run from scratch over the same games — never numbers copied from the code under test.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

import polars as pl
import pytest
from clirun import reseal
from test_elo import random_games, write_games

from gamecore.errors import SkraflError
from pipelines import elo

DAY0 = dt.date(2024, 6, 1)  # random_games' day 0


def day(n: int) -> dt.date:
    return DAY0 + dt.timedelta(days=n)


def nightly(games: Path, folder: Path, days: range, prev: Path | None = None) -> Path:
    """One run per day (the nightly job without gaps); returns the last output folder."""
    for n in days:
        out = folder / f"night{n:02d}"
        elo.run_elo(games, out, prev, date=day(n))
        prev = out
    return prev


def files(folder: Path) -> dict[str, bytes]:
    """Every file of an output folder but the marker of pipelines/atomic.py (which may name times
    and paths), by relative name."""
    folder = folder.resolve()
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.startswith(".skrafl")
    }


def days_rated(folder: Path) -> dict | None:
    return json.loads((folder / "params.json").read_text())["days_rated"]


# --------------------------------------------------------------------------------------------
# A skipped day is an error naming it
# --------------------------------------------------------------------------------------------


def test_skipped_day_is_one_line_naming_it(tmp_path):
    from clirun import run_skrafl_here

    games = write_games(tmp_path / "games.csv", random_games(21, n=200, days=5))
    s = nightly(games, tmp_path, range(0, 3))  # rated 1–3 June
    out = tmp_path / "out"
    res = run_skrafl_here("elo", "--games", str(games), "--state", str(s), "--out", str(out), "--date", "2024-06-05", "-q")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip().splitlines() == [
        f"skrafl: error: --state {s} has not rated 2024-06-04: run those days first or add --catch-up"
    ]
    assert not out.exists()
    with pytest.raises(SkraflError, match=r"has not rated 2024-06-04 to 2024-06-09 \(6 days\)"):
        elo.run_elo(games, out, s, date=day(9))
    with pytest.raises(SkraflError, match="has not rated 2024-06-04 and 2024-06-05"):
        elo.run_elo(games, out, s, date=day(5))


def test_a_day_before_the_last_rated_is_refused_and_the_same_day_again_is_not(tmp_path):
    games = write_games(tmp_path / "games.csv", random_games(22, n=150, days=4))
    s = nightly(games, tmp_path, range(0, 3))
    with pytest.raises(SkraflError, match="already rated the days up to 2024-06-03"):
        elo.run_elo(games, tmp_path / "o", s, date=day(1))
    again = elo.run_elo(games, tmp_path / "again", s, date=day(2))
    assert again.games_rated == 0 and again.games_skipped > 0
    assert pl.read_parquet(tmp_path / "again" / "ratings.parquet").equals(pl.read_parquet(s / "ratings.parquet"))


def test_days_rated_are_recorded(tmp_path):
    games = write_games(tmp_path / "games.csv", random_games(23, n=150, days=[0, 1, 3]))
    s = nightly(games, tmp_path, range(0, 2))
    assert days_rated(s) == {"first": "2024-06-01", "last": "2024-06-02"}
    # 3 June has no games: a run for it still counts it as rated, so 4 June needs nothing more.
    n3 = tmp_path / "n3"
    elo.run_elo(games, n3, s, date=dt.date(2024, 6, 3))
    assert days_rated(n3) == {"first": "2024-06-01", "last": "2024-06-03"}
    elo.run_elo(games, tmp_path / "n4", n3, date=dt.date(2024, 6, 4))
    assert days_rated(tmp_path / "n4")["last"] == "2024-06-04"
    # Without --date: every day up to the last game's day (4 June = day 3), from the beginning.
    elo.run_elo(games, tmp_path / "whole")
    assert days_rated(tmp_path / "whole") == {"first": None, "last": "2024-06-04"}
    elo.run_elo(games, tmp_path / "next", tmp_path / "whole", date=dt.date(2024, 6, 5))  # no gap: fine
    with pytest.raises(SkraflError, match="has not rated 2024-06-05"):
        elo.run_elo(games, tmp_path / "gap", tmp_path / "whole", date=dt.date(2024, 6, 6))


# --------------------------------------------------------------------------------------------
# --catch-up equals one nightly run per day, and a run from scratch
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_catch_up_equals_nightly_runs_and_a_scratch_run(tmp_path):
    # Games on days 0, 2, 9, 31 and 38; the state rated days 0–5, then 38 with --catch-up rates
    # 6 … 37 first (the 30-day window starts on day 8, inside the caught-up span).
    rows = random_games(11, n=300, days=[0, 2, 9, 31, 38])
    games = write_games(tmp_path / "games.csv", rows)
    s = nightly(games, tmp_path / "a", range(0, 6))
    with pytest.raises(SkraflError, match="has not rated 2024-06-07 to 2024-07-08"):
        elo.run_elo(games, tmp_path / "refused", s, date=day(38))
    caught = tmp_path / "caught"
    run = elo.run_elo(games, caught, s, date=day(38), catch_up=True)
    assert run.games_rated > 0

    # One nightly run per day, from nothing: every file the same, byte for byte.
    night = nightly(games, tmp_path / "b", range(0, 39))
    mine, theirs = files(caught), files(night)
    assert mine.keys() == theirs.keys()
    assert [f for f in mine if mine[f] != theirs[f]] == []
    n_ratings = pl.read_parquet(caught / "ratings.parquet").height
    assert n_ratings > 40

    # One run from scratch over the same games: ratings and top tables byte-identical, and the
    # end-of-day ratings the same on every day it keeps.
    scratch = tmp_path / "scratch"
    elo.run_elo(games, scratch)
    for f in ["ratings.parquet", "processed.parquet", *(f"top100_{n}.csv" for n in elo.LISTS)]:
        assert (caught / f).read_bytes() == (scratch / f).read_bytes(), f
    for snap in (scratch / "history").iterdir():
        assert pl.read_parquet(snap).equals(pl.read_parquet(caught / "history" / snap.name)), snap.name


def test_catch_up_from_nothing_equals_a_scratch_run(tmp_path):
    games = write_games(tmp_path / "games.csv", random_games(31, n=250, days=[0, 1, 4, 6]))
    caught, scratch = tmp_path / "caught", tmp_path / "scratch"
    elo.run_elo(games, caught, date=day(6), catch_up=True)
    elo.run_elo(games, scratch)
    for f in ["ratings.parquet", "processed.parquet", *(f"top100_{n}.csv" for n in elo.LISTS)]:
        assert (caught / f).read_bytes() == (scratch / f).read_bytes(), f
    assert days_rated(caught) == {"first": None, "last": "2024-06-07"}


def test_catch_up_through_the_command(tmp_path):
    from clirun import run_skrafl_here

    games = write_games(tmp_path / "games.csv", random_games(32, n=200, days=5))
    s = nightly(games, tmp_path, range(0, 2))
    out = tmp_path / "out"
    res = run_skrafl_here(
        "elo", "--games", str(games), "--state", str(s), "--out", str(out), "--date", "2024-06-05", "--catch-up", "-q"
    )
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    night = nightly(games, tmp_path / "b", range(0, 5))
    assert (out / "ratings.parquet").read_bytes() == (night / "ratings.parquet").read_bytes()


def test_catch_up_needs_date_and_a_state_that_records_days(tmp_path):
    games = write_games(tmp_path / "games.csv", random_games(33, n=100, days=3))
    with pytest.raises(SkraflError, match="--catch-up goes with --date"):
        elo.run_elo(games, tmp_path / "o", catch_up=True)
    # A state of an older skrafl (params.json version 1, no days): not checked, no catch-up.
    old = tmp_path / "old"
    elo.run_elo(games, old, date=day(0))
    meta = json.loads((old / "params.json").read_text())
    meta["version"] = 1
    del meta["days_rated"]
    legacy = tmp_path / "legacy"
    import shutil

    shutil.copytree(old.resolve(), legacy)
    (legacy / "params.json").write_text(json.dumps(meta))
    reseal(legacy, "elo")
    assert elo.load_state(legacy).days_rated is None
    elo.run_elo(games, tmp_path / "unchecked", legacy, date=day(2))
    with pytest.raises(SkraflError, match="does not record the days"):
        elo.run_elo(games, tmp_path / "o2", legacy, date=day(2), catch_up=True)


# --------------------------------------------------------------------------------------------
# A game that arrives for a day already rated
# --------------------------------------------------------------------------------------------


def test_late_game_is_reported_and_not_rated(tmp_path):
    from clirun import run_skrafl_here

    rows = random_games(41, n=200, days=4)
    on_time = write_games(tmp_path / "on_time.csv", rows)
    s = nightly(on_time, tmp_path / "a", range(0, 3))  # rated 1–3 June
    # The table of 4 June holds one more game, finished on 2 June (already rated by s).
    late_row = ("late-1", "2024-06-02T12:34:56Z", "p01", "p02", False, False, 400, 100, False)
    games = write_games(tmp_path / "games.csv", rows + [late_row])
    out = tmp_path / "out"
    res = run_skrafl_here("elo", "--games", str(games), "--state", str(s), "--out", str(out), "--date", "2024-06-04", "-q")
    assert res.returncode == 0, res.stderr
    warnings = [line for line in res.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "1 game(s)" in warnings[0] and "late_games.csv" in warnings[0]
    late = pl.read_csv(out / "late_games.csv")
    assert late.columns == list(elo.LATE_COLUMNS)
    assert late["game_id"].to_list() == ["late-1"]
    assert "2024-06-02" in late["reason"][0] and "already rated" in late["reason"][0] and "not rated" in late["reason"][0]
    # Not rated: the ratings are those of the same nights without the late game.
    reference = nightly(on_time, tmp_path / "b", range(0, 4))
    assert (out / "ratings.parquet").read_bytes() == (reference / "ratings.parquet").read_bytes()
    assert "late-1" not in pl.read_parquet(out / "processed.parquet")["game_id"].to_list()
    assert pl.read_csv(reference / "late_games.csv").height == 0  # header only when none
    # A run without --date on that state does not rate it out of order either.
    run = elo.run_elo(games, tmp_path / "later", out)
    assert run.late["game_id"].to_list() == ["late-1"]
    assert (tmp_path / "later" / "ratings.parquet").read_bytes() == (reference / "ratings.parquet").read_bytes()


def test_late_games_before_the_first_rated_day_are_reported(tmp_path):
    rows = random_games(42, n=120, days=[0, 2, 3])
    games = write_games(tmp_path / "games.csv", rows)
    s = nightly(games, tmp_path, range(2, 3))  # the chain began on day 2: day 0's games were never rated
    run = elo.run_elo(games, tmp_path / "out", s, date=day(3))
    n_day0 = sum(1 for r in rows if r[1].startswith("2024-06-01"))
    assert run.late.height == n_day0 > 0
    assert all("before 2024-06-03" in r for r in run.late["reason"].to_list())


# --------------------------------------------------------------------------------------------
# Property: any pattern of nightly runs with catch-ups equals one run
# --------------------------------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _state_of(run: elo.EloRun) -> elo.EloState:
    return elo.EloState(run.ratings.drop("as_of"), run.processed, run.params, run.as_of, None, run.days_rated)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), nights=st.lists(st.integers(1, 9), min_size=1, max_size=6, unique=True))
def test_property_nights_with_catch_up_equal_one_run(tmp_path, seed, nights):
    rows = random_games(seed % 1000, n=120, days=10, players=8)
    path = tmp_path / f"g{random.getrandbits(48):x}.csv"
    table = elo.read_games(write_games(path, rows))
    whole = elo.compute(table)
    state = None
    for n in sorted(nights) + [9]:
        run = elo.compute(table, state, date=day(n), catch_up=True)
        state = _state_of(run)
    assert state.ratings.equals(whole.ratings.drop("as_of"))
    assert state.days_rated == elo.DaysRated(None, day(9))
