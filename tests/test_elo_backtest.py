"""The ratings backtest (``skrafl backtest``, :mod:`pipelines.elo.backtest`) and Glicko-2
(:mod:`pipelines.elo.glicko2`).

Expected values come from the formulas, worked out here: log-loss −[y ln p + (1−y) ln(1−p)] and
Brier (p−y)² on a hand-made sequence; Elo's E = 1/(1 + 10^(−d/400)); Glicko-2 against the worked
example of Glickman's paper ("Example of the Glicko-2 system": r = 1500, RD = 200, σ = 0.06,
τ = 0.5 against (1400, 30) won, (1550, 100) lost, (1700, 300) lost → r' = 1464.06, RD' = 151.52,
σ' = 0.05999). Netskrafl's two presets are checked against ``skrafl elo`` itself: the backtest's
final ratings equal the ``all`` list's, on a table with two locales and short games.
"""

from __future__ import annotations

import io
import json
import math
import sys

import polars as pl
import pytest

from pipelines import elo
from pipelines.elo import backtest as bt
from pipelines.elo import glicko2

Q = math.log(10) / 400


def elo_p(d: float) -> float:
    """Elo's expected score at a rating difference d (scale 400)."""
    return 1 / (1 + 10 ** (-d / 400))


def run_main(argv: list[str]) -> tuple[object, str, str]:
    """``skrafl ARGV`` through :func:`cli.main.main` in this process: (exit code, stdout, stderr)."""
    from cli.main import main

    out, err = io.StringIO(), io.StringIO()
    saved = sys.argv, sys.stdout, sys.stderr
    sys.argv, sys.stdout, sys.stderr = ["skrafl", *argv], out, err
    code: object = None
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.argv, sys.stdout, sys.stderr = saved
    return code, out.getvalue(), err.getvalue()


def games_csv(path, rows: list[tuple], extra: dict[str, list] | None = None):
    """A games table of (player0, player1, score0, score1) rows, a minute apart."""
    data = {
        "game_id": [f"g{i:03d}" for i in range(len(rows))],
        "finished_at": [f"2024-05-01T10:{i:02d}:00Z" for i in range(len(rows))],
        "player0": [r[0] for r in rows],
        "player1": [r[1] for r in rows],
        "robot0": [False] * len(rows),
        "robot1": [False] * len(rows),
        "score0": [r[2] for r in rows],
        "score1": [r[3] for r in rows],
        "competition": [False] * len(rows),
        **(extra or {}),
    }
    pl.DataFrame(data).write_csv(path)
    return path


# --------------------------------------------------------------------------------------------
# Glicko-2
# --------------------------------------------------------------------------------------------


def test_glicko2_matches_the_papers_worked_example():
    r, rd, sigma = glicko2.rate(1500, 200, 0.06, [(1400, 30), (1550, 100), (1700, 300)], [1, 0, 0], tau=0.5)
    assert abs(r - 1464.06) < 0.01  # (the paper rounds its intermediate steps)
    assert abs(rd - 151.52) < 0.01
    assert abs(sigma - 0.05999) < 0.00001


def test_glicko2_period_without_games_widens_only_the_deviation():
    r, rd, sigma = glicko2.rate(1500, 200, 0.06, [], [])
    assert (r, sigma) == (1500, 0.06)
    assert rd == pytest.approx(math.sqrt(200**2 + (0.06 * 173.7178) ** 2), abs=1e-9)


def test_glicko2_win_probability_is_glickmans_formula():
    assert glicko2.win_probability(1500, 350, 1500, 350) == 0.5
    assert glicko2.win_probability(1700, 0, 1500, 0) == pytest.approx(elo_p(200), abs=1e-4)  # g(0) = 1: Elo
    g = 1 / math.sqrt(1 + 3 * Q**2 * (100**2 + 200**2) / math.pi**2)
    assert glicko2.win_probability(1600, 100, 1500, 200) == pytest.approx(1 / (1 + 10 ** (-g * 100 / 400)), abs=1e-4)
    assert glicko2.win_probability(1600, 100, 1500, 200) + glicko2.win_probability(1500, 200, 1600, 100) == pytest.approx(1)


# --------------------------------------------------------------------------------------------
# Metrics and predictions by hand
# --------------------------------------------------------------------------------------------


def test_metrics_by_hand():
    p, y = [0.8, 0.3, 0.5, 0.9], [1.0, 0.0, 0.5, 0.5]  # a draw counts half
    frame = pl.DataFrame({"result0": y, "p_elo": p, "p_glicko2": [0.5] * 4})
    rows = {r["system"]: r for r in bt.summarize(frame, ["elo", "glicko2"], seed=1, bootstrap=200)}
    ll = [-math.log(0.8), -math.log(0.7), math.log(2), -(0.5 * math.log(0.9) + 0.5 * math.log(0.1))]
    assert rows["elo"]["log_loss"] == pytest.approx(sum(ll) / 4, abs=1e-12)
    assert rows["elo"]["brier"] == pytest.approx((0.04 + 0.09 + 0 + 0.16) / 4, abs=1e-12)
    assert rows["glicko2"]["log_loss"] == pytest.approx(math.log(2), abs=1e-12)
    assert rows["glicko2"]["brier"] == pytest.approx((0.25 + 0.25 + 0 + 0) / 4, abs=1e-12)  # (½−1)², (½−0)², 0, 0
    best = min(rows.values(), key=lambda r: r["log_loss"])
    assert best["rank"] == 1 and best["vs_best"] == 0.0
    for r in rows.values():
        assert r["games"] == 4
        assert r["log_loss_low"] <= r["log_loss"] <= r["log_loss_high"]
        assert r["brier_low"] <= r["brier"] <= r["brier_high"]
    assert rows["glicko2"]["log_loss_low"] == rows["glicko2"]["log_loss_high"]  # the same loss every game


def test_each_system_predicts_from_the_ratings_before_the_game(tmp_path):
    # ann beats bob, bob beats ann, then ann meets cid: every system starts all players equal.
    path = games_csv(tmp_path / "g.csv", [("ann", "bob", 400, 300), ("ann", "bob", 350, 380), ("ann", "cid", 300, 300)])
    run = bt.backtest(elo.read_games(path), seed=0, bootstrap=50)
    pred = run.predictions
    assert pred["result0"].to_list() == [1.0, 0.0, 0.5]
    for s in bt.SYSTEMS:
        assert pred[bt.column_of(s)][0] == 0.5
    # plain Elo: K 32, both at 1500; after game 1 ann 1516, bob 1484
    assert pred["p_elo"][1] == pytest.approx(elo_p(32), abs=1e-12)
    d = 16 + 32 * (0 - elo_p(32))  # ann after game 2
    assert pred["p_elo"][2] == pytest.approx(elo_p(d), abs=1e-12)
    # Netskrafl: beginners, K 32, integer ratings: 1216/1184, then ann 1216 + round(32·(0 − E)) = 1198
    assert pred["p_netskrafl"][1] == pytest.approx(elo_p(32), abs=1e-12)
    assert pred["p_netskrafl"][2] == pytest.approx(elo_p(1216 + round(32 * (0 - elo_p(32))) - 1200), abs=1e-12)
    # Glicko-2 per game: game 2 from the ratings game 1 gave (the paper's update of one game)
    a = glicko2.rate(1500, 350, 0.06, [(1500, 350)], [1.0])
    b = glicko2.rate(1500, 350, 0.06, [(1500, 350)], [0.0])
    assert pred["p_glicko2"][1] == pytest.approx(glicko2.win_probability(a[0], a[1], b[0], b[1]), abs=1e-12)
    # Glicko-2 by day: all three on one day, so every game from the day's start: ½
    assert pred["p_glicko2_daily"].to_list() == [0.5, 0.5, 0.5]


def test_glicko2_daily_widens_the_deviation_of_days_without_games(tmp_path):
    # ann beats bob on 1 May; ann meets cid on 4 May, after two days without games (2 and 3 May).
    path = tmp_path / "g.csv"
    games_csv(path, [("ann", "bob", 400, 300), ("ann", "cid", 300, 350)])
    text = path.read_text().replace("2024-05-01T10:01:00Z", "2024-05-04T09:00:00Z")
    path.write_text(text)
    pred = bt.backtest(elo.read_games(path), bootstrap=20).predictions
    r, rd, sigma = glicko2.rate(1500, 350, 0.06, [(1500, 350)], [1.0])
    widened = min(math.sqrt(rd**2 + 2 * (sigma * 173.7178) ** 2), 350)
    assert pred["p_glicko2_daily"].to_list() == [0.5, pytest.approx(glicko2.win_probability(r, widened, 1500, 350), abs=1e-12)]
    assert pred["p_glicko2"][1] == pytest.approx(glicko2.win_probability(r, rd, 1500, 350), abs=1e-12)


def test_zero_zero_games_and_unnamed_players_are_left_out(tmp_path):
    path = games_csv(tmp_path / "g.csv", [("ann", "bob", 0, 0), ("ann", "bob", 350, 380)])
    run = bt.backtest(elo.read_games(path), bootstrap=20)
    assert run.predictions["game_id"].to_list() == ["g001"]
    assert any("0-0" in n for n in run.notes)


# --------------------------------------------------------------------------------------------
# Netskrafl's presets: the same ratings as skrafl elo
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_league():
    return bt.synthetic_league(bt.League(players=40, games=2500, seed=5, drift=15.0))


@pytest.mark.parametrize("preset", ["netskrafl", "netskrafl-live"])
def test_netskrafl_presets_end_where_skrafl_elo_ends(tmp_path, small_league, preset):
    games, _ = small_league
    n = games.height
    table = games.drop("p_truth").with_columns(
        pl.Series("finished_at", games["finished_at"].dt.strftime("%Y-%m-%dT%H:%M:%SZ")),
        pl.Series("locale", ["is_IS" if i % 3 else "en_US" for i in range(n)]),  # two locales
        pl.Series("moves", [2 if i % 17 == 0 else 20 for i in range(n)]),  # short games: live rates none of them
    )
    path = tmp_path / "g.csv"
    table.write_csv(path)
    gt = elo.read_games(path)
    ordered, _ = bt.ordered_games(gt)
    arr = bt._arrays(ordered)
    _, final = bt.netskrafl_predictions(arr, elo.PRESETS[preset])
    mine = {arr.keys[i]: final[i] for i in range(arr.n_keys)}
    run = elo.compute(elo.read_games(path), params=elo.PRESETS[preset])
    theirs = {(r["locale"], r["player"]): r["rating"] for r in run.ratings.filter(pl.col("list") == "all").iter_rows(named=True)}
    assert mine == theirs
    assert len({loc for loc, _ in mine}) == 2


# --------------------------------------------------------------------------------------------
# The league, determinism, outputs
# --------------------------------------------------------------------------------------------


def test_league_truth_beats_every_system_and_systems_beat_a_coin(small_league):
    games, players = small_league
    # the generator's own check: the games' mean result matches the true probabilities
    wins = (games["score0"] > games["score1"]).cast(pl.Float64)
    assert abs(wins.mean() - games["p_truth"].mean()) < 3 * math.sqrt(0.25 / games.height)
    assert players.filter(pl.col("robot")).height == 3
    run = bt.backtest(bt.league_table(games), seed=2, bootstrap=200, truth=games, source="league")
    rows = {r["system"]: r for r in run.summary}
    assert sorted(r["rank"] for r in rows.values() if r["kind"] == "system") == [1, 2, 3, 4, 5]
    for s in bt.SYSTEMS:
        assert rows["truth"]["log_loss"] < rows[s]["log_loss"] < rows["even"]["log_loss"]
        assert rows[s]["vs_best_low"] <= rows[s]["vs_best"] <= rows[s]["vs_best_high"]
    assert rows["truth"]["vs_best_high"] < 0  # the true strengths measurably better than any system
    assert rows["even"]["vs_best_low"] > 0


def test_same_seed_same_bytes_and_the_files(tmp_path):
    spec = bt.League(players=30, games=1500, seed=9)
    outs = []
    for name in ("a", "b"):
        run = bt.league_backtest(spec, seed=4, bootstrap=100)
        outs.append(bt.write_output(run, tmp_path / name))
    files = sorted(p.name for p in outs[0].iterdir())
    assert files == [
        ".skrafl-output",
        "calibration.csv",
        "calibration.svg",
        "league_games.parquet",
        "league_players.parquet",
        "predictions.parquet",
        "summary.csv",
        "summary.json",
    ]
    for f in files:
        assert (outs[0] / f).read_bytes() == (outs[1] / f).read_bytes(), f
    other = bt.league_backtest(spec, seed=5, bootstrap=100)
    assert other.summary[0]["log_loss"] == run.summary[0]["log_loss"]  # the same games
    assert other.summary[0]["log_loss_low"] != run.summary[0]["log_loss_low"]  # other resamples
    pred = pl.read_parquet(outs[0] / "predictions.parquet")
    assert pred.height == 1500 and pred["seq"].to_list() == list(range(1, 1501))
    doc = json.loads((outs[0] / "summary.json").read_text())
    assert [r["system"] for r in doc["summary"]] == [*bt.SYSTEMS, "even", "truth"]
    svg = (outs[0] / "calibration.svg").read_text()
    assert svg.count('class="bin"') == len(doc["calibration"])
    # the league's games table is one skrafl elo reads
    assert elo.read_games(outs[0] / "league_games.parquet").frame.height == 1500


# --------------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------------


def test_cli_games_table_json(tmp_path):
    path = games_csv(tmp_path / "g.csv", [("ann", "bob", 400, 300), ("bob", "cid", 350, 380), ("cid", "ann", 300, 310)])
    code, out, err = run_main(["backtest", "--games", str(path), "--bootstrap", "50", "-f", "json", "-q"])
    assert code == 0, err
    rows = json.loads(out)
    assert [r["system"] for r in rows] == [*bt.SYSTEMS, "even"]
    assert all(r["games"] == 3 for r in rows)


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["backtest", "--bootstrap", "50"], "give one of --games GAMES or --league PLAYERS"),
        (["backtest", "--league", "10", "--games", "x.csv"], "give one of --games GAMES or --league PLAYERS"),
        (["backtest", "--league", "1"], "--league must be from 2 to 1000000 players (got 1)"),
        (["backtest", "--league", "10", "--bootstrap", "5"], "--bootstrap must be from 10 to 100000 resamples (got 5)"),
        (["backtest", "--games", "GAMES", "--drift", "3"], "--drift goes with --league"),
    ],
)
def test_cli_usage_errors_are_one_line(tmp_path, argv, expected):
    argv = [str(tmp_path / "g.csv") if a == "GAMES" else a for a in argv]
    code, out, err = run_main(argv)
    assert code == 2
    assert err.strip().splitlines() == [f"skrafl: error: {expected}"]


def test_cli_bad_games_table_is_one_line_naming_the_line(tmp_path):
    path = games_csv(tmp_path / "g.csv", [("ann", "bob", 400, 300), ("bob", "cid", 350, 380)])
    text = path.read_text().splitlines()
    text[2] = text[2].replace(",350,", ",lots,")
    path.write_text("\n".join(text) + "\n")
    code, out, err = run_main(["backtest", "--games", str(path), "--out", str(tmp_path / "o")])
    assert code == 2
    (line,) = err.strip().splitlines()
    assert line.startswith(f"skrafl: error: {path}:3: ") and "score0" in line and "'lots'" in line
    assert not (tmp_path / "o").exists()


def test_cli_nothing_to_predict_is_one_line(tmp_path):
    path = games_csv(tmp_path / "g.csv", [("ann", "bob", 0, 0)])
    code, out, err = run_main(["backtest", "--games", str(path)])
    assert code == 2
    (line,) = err.strip().splitlines()
    assert "nothing to predict" in line
