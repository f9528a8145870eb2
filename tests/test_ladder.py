"""skrafl ladder: the Bradley–Terry fit recovers known strengths from synthetic results, its
intervals match the two-player formula, the anchor is held, and a small ladder writes its tables."""

from __future__ import annotations

import math
import random

import pytest
from clirun import PROJECT_ROOT

from pipelines.ladder import SCALE, fit_bradley_terry

IS_LEX = PROJECT_ROOT / "output" / "is"
needs_is = pytest.mark.skipif(not (IS_LEX / "lexicon.kwg").is_file(), reason="output/is not built")

TRUE = {"equity": 1700.0, "fullsterkur": 1500.0, "midlungur": 1250.0, "amlodi": 1000.0}


def _expected(a, b):
    return 1 / (1 + 10 ** ((TRUE[b] - TRUE[a]) / 400))


def test_exact_results_give_back_the_ratings():
    names = list(TRUE)
    games = 10_000
    res = {(a, b): (games * _expected(a, b), games) for i, a in enumerate(names) for b in names[i + 1 :]}
    fit = fit_bradley_terry(names, res, "fullsterkur", 1500.0, prior_ties=0)
    for p, r in zip(fit.players, fit.ratings, strict=True):
        assert r == pytest.approx(TRUE[p], abs=1e-6)
    assert fit.se[names.index("fullsterkur")] == 0.0


def test_sampled_results_within_their_intervals():
    rng = random.Random(27)
    names = list(TRUE)
    games = 400
    res = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p = _expected(a, b)
            res[(a, b)] = (sum(rng.random() < p for _ in range(games)), games)
    fit = fit_bradley_terry(names, res, "fullsterkur", 1500.0)
    for k, p in enumerate(fit.players):
        assert abs(fit.ratings[k] - TRUE[p]) <= 3 * fit.se[k] + 1e-9, (p, fit.ratings[k], fit.se[k])
    # the order of the known strengths, each gap outside its interval
    for a, b in zip(names, names[1:], strict=False):
        d, se = fit.gap(names.index(a), names.index(b))
        assert d - 1.96 * se > 0


def test_two_players_interval_is_the_binomial_one():
    fit = fit_bradley_terry(["a", "b"], {("a", "b"): (300.0, 400)}, "b", 1000.0, prior_ties=0)
    p = 0.75
    assert fit.ratings[0] == pytest.approx(1000 + SCALE * math.log(p / (1 - p)))
    assert fit.se[0] == pytest.approx(SCALE / math.sqrt(400 * p * (1 - p)))


def test_a_player_who_never_won_is_finite_with_the_virtual_tie():
    fit = fit_bradley_terry(["a", "b"], {("a", "b"): (50.0, 50)}, "a", 1500.0)
    assert math.isfinite(fit.ratings[1]) and fit.ratings[1] < 1000


def test_unknown_anchor_refused():
    with pytest.raises(ValueError, match="anchor"):
        fit_bradley_terry(["a", "b"], {("a", "b"): (1.0, 2)}, "c")


@needs_is
def test_small_ladder_writes_its_tables(tmp_path):
    from gamecore.klv import shipped_leaves
    from pipelines.ladder import Config, run_ladder

    cfg = Config(
        str(IS_LEX), "netskrafl", ("equity", "score"), 4, 1, str(shipped_leaves("is", "netskrafl")), (None, None), "score"
    )
    res, fit, _ = run_ladder(cfg, tmp_path / "lad")
    assert res[("equity", "score")][1] == 4
    names = sorted(p.name for p in (tmp_path / "lad").iterdir() if not p.name.startswith("."))
    assert {"matrix.csv", "ratings.csv", "gaps.csv", "anchors.csv", "report.md"} <= set(names)
    anchors = (tmp_path / "lad" / "anchors.csv").read_text(encoding="utf-8").splitlines()
    assert anchors[0] == "player,rating" and "score,1500.0" in anchors


def test_elo_holds_anchored_robots_at_their_ladder_rating(tmp_path):
    """``skrafl elo --anchors`` (the ladder's anchors.csv): an anchored robot starts at its rating
    and never moves; the person who beat it gains as against that rating (K 32 as a beginner)."""
    import polars as pl
    from clirun import run_skrafl_here

    from pipelines import elo

    rows = [
        ("g1", "2024-03-01T12:00:00Z", "anna", "fullsterkur", False, True, 400, 350, False),
        ("g2", "2024-03-01T13:00:00Z", "anna", "amlodi", False, True, 400, 200, False),
    ]
    games = tmp_path / "g.csv"
    pl.DataFrame([list(r) for r in rows], schema=list(elo.GAME_COLUMNS), orient="row").write_csv(games)
    anchors = tmp_path / "anchors.csv"
    anchors.write_text("player,rating\nfullsterkur,1500.0\namlodi,353.4\n", encoding="utf-8")
    r = run_skrafl_here("elo", "--games", str(games), "--out", str(tmp_path / "out"), "--anchors", str(anchors), "-q")
    assert r.returncode == 0, r.stderr
    got = pl.read_parquet(tmp_path / "out" / "ratings.parquet").filter(pl.col("list") == "all")
    rating = dict(zip(got["player"], got["rating"], strict=True))
    assert rating["fullsterkur"] == 1500 and rating["amlodi"] == 353
    first = 1200 + round(32 * (1 - elo.expected_score(1200, 1500)))
    assert rating["anna"] == first + round(32 * (1 - elo.expected_score(first, 353)))
    bad = tmp_path / "bad.csv"
    bad.write_text("player,rating\nfullsterkur,strong\n", encoding="utf-8")
    r = run_skrafl_here("elo", "--games", str(games), "--out", str(tmp_path / "out2"), "--anchors", str(bad), "-q")
    assert r.returncode == 2 and "bad.csv:2" in r.stderr and len(r.stderr.splitlines()) == 1
