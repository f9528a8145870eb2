"""The ratings backtest: rating systems predicting each next game in time order.

Every system sees the same games in the same order (``finished_at``, then ``game_id``; games
without a time after them in file order, as :func:`.batch.compute` rates them). For each game it
gives the probability that the first player (``player0``) wins, from the ratings *before* the
game, then updates its ratings with the result. Systems (:data:`SYSTEMS`):

- ``netskrafl``, ``netskrafl-live``: Netskrafl's Elo, both presets of :mod:`.rating` exactly as
  ``skrafl elo`` rates the ``all`` list (integer ratings from 1200, K 20/32, the beginner rule,
  floor 0, per locale); the prediction is Netskrafl's expected score Q_a/(Q_a + Q_b). A game the
  preset does not rate (``netskrafl-live``: 2 moves or fewer) is predicted and changes nothing.
- ``elo``: plain Elo, K = 32 for everyone, scale 400, real-valued ratings from 1500, no floor.
- ``glicko2``: Glicko-2 (:mod:`.glicko2`, 1500/350/0.06, τ = 0.5), each game a rating period of
  its own for its two players (updated after every game, as the players see it).
- ``glicko2-daily``: Glicko-2 with the UTC day as the rating period (the paper's use): a day's
  games are predicted from the ratings at the start of the day, all of them rate the day's
  players at its end, and a day without games widens a player's deviation (φ² + σ² per day,
  at most the new player's 350). A game without a time is a period of its own.

References, not ranked: ``even`` (always ½) and, on a synthetic league, ``truth`` (the win
probability of the players' true strengths).

Metrics per system (ties count half: the result is 1, ½ or 0): log-loss
−[y·ln p + (1 − y)·ln(1 − p)] (p kept within 10⁻¹² of 0 and 1), Brier score (p − y)², their means
over the games, and 95 % intervals by a seeded bootstrap over games (``bootstrap`` resamples of the
games with replacement, the same resamples for every system, 2.5 and 97.5 percentiles); ``vs_best``
is each system's mean log-loss minus the best system's, with its interval from the same (paired)
resamples: a system whose interval lies above 0 is measurably worse than the best.

Games left out (each said in a note), for every system alike: replayed Netskrafl records without
player ids, games of 3–4 players, unfinished games, and 0–0 games (which Netskrafl ignores).
Players are ``(locale, name)``, as the ratings of ``skrafl elo``.

The synthetic league (:func:`synthetic_league`): players with known strengths on the Elo scale,
a win probability 1/(1 + 10^(−(θ_a − θ_b)/400)) (Bradley–Terry), strengths drifting by a random
walk as players play, players joining over time with uneven activity, and robots of fixed
strength, all from one seed.

Output folder (:func:`write_output`, atomically): ``predictions.parquet`` (one row per game, in
order: ``seq, game_id, finished_at, locale, player0, player1, robot0, robot1, score0, score1,
result0`` and ``p_SYSTEM`` per system, ``p_truth`` on a league), ``summary.csv`` and
``summary.json`` (:data:`SUMMARY_COLUMNS`; the JSON also holds the settings, the notes and the
calibration), ``calibration.csv`` and ``calibration.svg`` (:mod:`.calibration`), and for a league
``league_games.parquet`` (a games table ``skrafl elo`` reads, with ``p_truth``) and
``league_players.parquet``.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gamecore.errors import DataError, UsageError

from .batch import with_optional_columns
from .games import GAME_COLUMNS, GamesTable
from .glicko2 import Glicko2Params, rate, win_probability
from .rating import PRESETS, EloParams, counts_in, k_factors, running_counts

SYSTEMS: tuple[str, ...] = ("netskrafl", "netskrafl-live", "elo", "glicko2", "glicko2-daily")
"""The rating systems of the backtest, in the order they are reported."""

REFERENCES: tuple[str, ...] = ("even", "truth")
"""Reference predictions (not ranked): ½ every game; the true strengths' (a league only)."""

PLAIN_ELO_K = 32
PLAIN_ELO_START = 1500.0
PLAIN_ELO_SCALE = 400.0

EPS = 1e-12
"""Predictions are kept within this of 0 and 1 in the log-loss (a certain prediction that fails
would be an infinite loss)."""

BOOTSTRAP_DEFAULT = 1000
BOOTSTRAP_MAX = 100_000
CALIBRATION_BINS = 10

SUMMARY_COLUMNS: tuple[str, ...] = (
    "system",
    "kind",
    "rank",
    "games",
    "log_loss",
    "log_loss_low",
    "log_loss_high",
    "brier",
    "brier_low",
    "brier_high",
    "vs_best",
    "vs_best_low",
    "vs_best_high",
)
"""The summary's columns: per system its rank by mean log-loss (references: none), the games
predicted, mean log-loss and Brier score with their 95 % bootstrap intervals, and the difference
in mean log-loss from the best system with its paired interval."""


def column_of(system: str) -> str:
    """The predictions column of a system: ``p_`` and its name with ``-`` as ``_``."""
    return "p_" + system.replace("-", "_")


# ---------------------------------------------------------------------------------------------
# The games, in order
# ---------------------------------------------------------------------------------------------


def ordered_games(table: GamesTable) -> tuple[Any, list[str]]:
    """The games of ``table`` every system predicts, in rating order, and the notes on the games
    left out. Columns: ``game_id, finished_at, locale, player0, player1, robot0, robot1, score0,
    score1, moves, result0``.

    Raises:
        DataError: no game is left to predict.
    """
    import polars as pl

    notes = [n for n in table.notes]
    games = with_optional_columns(table)
    if table.unnamed:
        rows = pl.DataFrame({"row": list(table.unnamed)}, schema={"row": pl.Int64})
        left_out = games.join(rows, on="row", how="semi")
        if left_out.height:
            notes.append(
                f"warning: {left_out.height} replayed Netskrafl game(s) left out: the record names no players (first: "
                f"{left_out.sort('row')['game_id'][0]!r}; --players-from postgresql://… names them)"
            )
        games = games.join(rows, on="row", how="anti", maintain_order="left")
    many = pl.col("players").fill_null(2) > 2
    unfinished = pl.col("finished").is_not_null() & ~pl.col("finished")
    zero = (pl.col("score0") == 0) & (pl.col("score1") == 0)
    for what, mask in (
        ("of 3 or 4 players", many),
        ("not finished", unfinished & ~many),
        ("ending 0-0 (Netskrafl ignores them)", zero & ~many & ~unfinished),
    ):
        left_out = games.filter(mask)
        if left_out.height:
            notes.append(f"{left_out.height} game(s) {what} left out (first: {left_out['game_id'][0]!r})")
    games = games.filter(~many & ~unfinished & ~zero)
    untimed = pl.col("finished_at").is_null()
    games = pl.concat([games.filter(~untimed).sort(["finished_at", "game_id"]), games.filter(untimed).sort("row")])
    n_untimed = games.filter(untimed).height
    if n_untimed:
        notes.append(f"{n_untimed} game(s) without a finished_at predicted in file order, after the games with times")
    if not games.height:
        raise DataError(
            f"nothing to predict: none of the table's {table.source_rows} game(s) is a finished two-player game "
            "between named players",
            path=table.path,
        )
    games = games.with_columns(
        pl.when(pl.col("score0") > pl.col("score1"))
        .then(1.0)
        .when(pl.col("score0") < pl.col("score1"))
        .then(0.0)
        .otherwise(0.5)
        .alias("result0"),
    )
    keep = ["game_id", "finished_at", "locale", "player0", "player1", "robot0", "robot1", "score0", "score1", "moves", "result0"]
    return games.select(keep), notes


@dataclass
class _Arrays:
    """The ordered games as numpy arrays: player indices by ``(locale, name)`` (``a``, ``b``) and
    by name alone (``name_a``, ``name_b``), ``result`` (player0's 1/½/0), robot flags, ``moves``
    (−1 when unknown) and ``period`` (the UTC day; a game without a time a period of its own)."""

    a: Any
    b: Any
    name_a: Any
    name_b: Any
    n_keys: int
    n_names: int
    result: Any
    robot_a: Any
    robot_b: Any
    moves: Any
    period: Any
    keys: list[tuple[str, str]]


def _arrays(games: Any) -> _Arrays:
    import numpy as np
    import polars as pl

    n = games.height
    key0 = games.select(pl.concat_str([pl.col("locale"), pl.col("player0")], separator="\x1f")).to_series()
    key1 = games.select(pl.concat_str([pl.col("locale"), pl.col("player1")], separator="\x1f")).to_series()
    keys = sorted(set(key0.to_list()) | set(key1.to_list()))
    key_index = {k: i for i, k in enumerate(keys)}
    names = sorted(set(games["player0"].to_list()) | set(games["player1"].to_list()))
    name_index = {k: i for i, k in enumerate(names)}
    day = games["finished_at"].dt.date().cast(pl.Int32).to_numpy()
    timed = ~games["finished_at"].is_null().to_numpy()
    period = np.where(timed, np.nan_to_num(day.astype(np.float64), nan=0.0), 0.0).astype(np.int64)
    top = int(period[timed].max()) if timed.any() else 0
    untimed = np.flatnonzero(~timed)
    period[untimed] = top + 1 + np.arange(len(untimed))
    return _Arrays(
        a=np.array([key_index[k] for k in key0.to_list()], dtype=np.int64),
        b=np.array([key_index[k] for k in key1.to_list()], dtype=np.int64),
        name_a=np.array([name_index[k] for k in games["player0"].to_list()], dtype=np.int64),
        name_b=np.array([name_index[k] for k in games["player1"].to_list()], dtype=np.int64),
        n_keys=len(keys),
        n_names=len(names),
        result=games["result0"].to_numpy().astype(np.float64),
        robot_a=games["robot0"].to_numpy().astype(bool),
        robot_b=games["robot1"].to_numpy().astype(bool),
        moves=games["moves"].fill_null(-1).to_numpy().astype(np.int64) if n else np.zeros(0, dtype=np.int64),
        period=period,
        keys=[tuple(k.split("\x1f", 1)) for k in keys],
    )


# ---------------------------------------------------------------------------------------------
# The systems
# ---------------------------------------------------------------------------------------------


def netskrafl_predictions(arr: _Arrays, params: EloParams) -> tuple[Any, list[int]]:
    """Netskrafl's Elo (a preset of :mod:`.rating`) on the ``all`` list: each game's expected
    score of player0 before it, and the final ratings by ``(locale, name)`` index. The K of each
    side comes from the same functions ``skrafl elo`` uses (games so far, the beginner rule,
    robots); a game of fewer than ``params.min_moves`` moves changes no rating and counts for no
    one's games, as there."""
    import numpy as np

    n = len(arr.a)
    rated = np.ones(n, dtype=bool)
    if params.min_moves:
        rated = ~((arr.moves >= 0) & (arr.moves < params.min_moves))
    idx = np.flatnonzero(rated)
    sa, sb = arr.a[idx], arr.b[idx]
    games_a, games_b, _ = running_counts(sa, sb, np.zeros(arr.n_keys, dtype=np.int64))
    if params.established_by == "human_total":  # the human games in every locale, by name
        human = ~arr.robot_a[idx] & ~arr.robot_b[idx]
        na, nb = arr.name_a[idx], arr.name_b[idx]
        prior = np.zeros(arr.n_names, dtype=np.int64)
        gi = np.arange(len(idx), dtype=np.int64)
        games_a, games_b = counts_in(human, na, nb, prior, gi, na), counts_in(human, na, nb, prior, gi, nb)
    k_a_rated, k_b_rated = k_factors(games_a, games_b, arr.robot_a[idx], arr.robot_b[idx], params)
    k_a = np.zeros(n, dtype=np.int64)
    k_b = np.zeros(n, dtype=np.int64)
    k_a[idx], k_b[idx] = k_a_rated, k_b_rated
    scale = params.scale
    R = [params.start] * arr.n_keys
    p = np.empty(n, dtype=np.float64)
    for i, (a, b, s, ka, kb) in enumerate(
        zip(arr.a.tolist(), arr.b.tolist(), arr.result.tolist(), k_a.tolist(), k_b.tolist(), strict=True)
    ):
        qa = 10.0 ** (R[a] / scale)
        qb = 10.0 ** (R[b] / scale)
        ea = qa / (qa + qb)
        p[i] = ea
        if ka:
            ra = R[a] + round((s - ea) * ka)
            R[a] = ra if ra > 0 else 0
        if kb:
            rb = R[b] + round((1.0 - s - qb / (qa + qb)) * kb)
            R[b] = rb if rb > 0 else 0
    return p, R


def elo_predictions(arr: _Arrays, k: float = PLAIN_ELO_K, scale: float = PLAIN_ELO_SCALE) -> tuple[Any, list[float]]:
    """Plain Elo: E = 1/(1 + 10^((R_b − R_a)/scale)), both players move by K·(result − E), real
    ratings from :data:`PLAIN_ELO_START`, no floor, no beginner rule."""
    import numpy as np

    R = [PLAIN_ELO_START] * arr.n_keys
    p = np.empty(len(arr.a), dtype=np.float64)
    for i, (a, b, s) in enumerate(zip(arr.a.tolist(), arr.b.tolist(), arr.result.tolist(), strict=True)):
        e = 1.0 / (1.0 + 10.0 ** ((R[b] - R[a]) / scale))
        p[i] = e
        d = k * (s - e)
        R[a] += d
        R[b] -= d
    return p, R


def glicko2_predictions(arr: _Arrays, params: Glicko2Params = Glicko2Params()) -> tuple[Any, list[tuple[float, float, float]]]:
    """Glicko-2, each game a rating period of its own for its two players: the win probability
    from both players' ratings and deviations before the game (:func:`.glicko2.win_probability`),
    then both rated from that one game (:func:`.glicko2.rate`). Returns the predictions and the
    final ``(rating, rd, volatility)`` by player index."""
    import numpy as np

    state = [(params.rating, params.rd, params.volatility)] * arr.n_keys
    tau = params.tau
    p = np.empty(len(arr.a), dtype=np.float64)
    for i, (a, b, s) in enumerate(zip(arr.a.tolist(), arr.b.tolist(), arr.result.tolist(), strict=True)):
        ra, rda, va = state[a]
        rb, rdb, vb = state[b]
        p[i] = win_probability(ra, rda, rb, rdb)
        state[a] = rate(ra, rda, va, [(rb, rdb)], [s], tau)
        state[b] = rate(rb, rdb, vb, [(ra, rda)], [1.0 - s], tau)
    return p, state


def glicko2_daily_predictions(
    arr: _Arrays, params: Glicko2Params = Glicko2Params()
) -> tuple[Any, list[tuple[float, float, float]]]:
    """Glicko-2 with the UTC day as the rating period: a day's games predicted from the ratings at
    the start of the day (a player's deviation first widened by the days they did not play,
    φ² + σ² a day, at most ``params.rd``), then each of the day's players rated from all their
    games of the day at once."""
    import numpy as np

    n = len(arr.a)
    state = [(params.rating, params.rd, params.volatility)] * arr.n_keys
    last = [-1] * arr.n_keys  # the last period a player was rated in (−1: never)
    tau, cap = params.tau, params.rd / 173.7178
    p = np.empty(n, dtype=np.float64)
    A, B, S, P = arr.a.tolist(), arr.b.tolist(), arr.result.tolist(), arr.period.tolist()
    start = 0
    while start < n:
        period = P[start]
        end = start
        while end < n and P[end] == period:
            end += 1
        games: dict[int, tuple[list[tuple[float, float]], list[float]]] = {}
        for i in range(start, end):  # widen the deviations of the day's players, once each
            for x in (A[i], B[i]):
                if x not in games:
                    games[x] = ([], [])
                    if last[x] >= 0 and period - last[x] > 1:
                        r, rd, vol = state[x]
                        phi = min(math.sqrt((rd / 173.7178) ** 2 + (period - last[x] - 1) * vol * vol), cap)
                        state[x] = (r, phi * 173.7178, vol)
        for i in range(start, end):
            a, b, s = A[i], B[i], S[i]
            ra, rda, _ = state[a]
            rb, rdb, _ = state[b]
            p[i] = win_probability(ra, rda, rb, rdb)
            games[a][0].append((rb, rdb))
            games[a][1].append(s)
            games[b][0].append((ra, rda))
            games[b][1].append(1.0 - s)
        new = {x: rate(*state[x], opponents, scores, tau) for x, (opponents, scores) in games.items()}
        for x, value in new.items():
            state[x] = value
            last[x] = period
        start = end
    return p, state


def predict(games: Any) -> Any:
    """``games`` (:func:`ordered_games`) with one column of predictions per system
    (:func:`column_of`): the probability that player0 wins, from the ratings before the game."""
    import polars as pl

    arr = _arrays(games)
    columns = {
        "netskrafl": netskrafl_predictions(arr, PRESETS["netskrafl"])[0],
        "netskrafl-live": netskrafl_predictions(arr, PRESETS["netskrafl-live"])[0],
        "elo": elo_predictions(arr)[0],
        "glicko2": glicko2_predictions(arr)[0],
        "glicko2-daily": glicko2_daily_predictions(arr)[0],
    }
    assert tuple(columns) == SYSTEMS
    return games.with_columns(*(pl.Series(column_of(s), columns[s], dtype=pl.Float64) for s in SYSTEMS))


# ---------------------------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------------------------


def log_loss(p: Any, y: Any) -> Any:
    """Each game's log-loss −[y·ln p + (1 − y)·ln(1 − p)], p kept within :data:`EPS` of 0 and 1
    (numpy arrays; y is 1, ½ or 0)."""
    import numpy as np

    q = np.clip(np.asarray(p, dtype=np.float64), EPS, 1.0 - EPS)
    y = np.asarray(y, dtype=np.float64)
    return -(y * np.log(q) + (1.0 - y) * np.log1p(-q))


def brier(p: Any, y: Any) -> Any:
    """Each game's Brier score (p − y)²."""
    import numpy as np

    return (np.asarray(p, dtype=np.float64) - np.asarray(y, dtype=np.float64)) ** 2


def summarize(predictions: Any, names: list[str], seed: int = 0, bootstrap: int = BOOTSTRAP_DEFAULT) -> list[dict[str, Any]]:
    """The summary rows (:data:`SUMMARY_COLUMNS`) of the prediction columns of ``names`` (systems
    first, then references), with bootstrap intervals from ``bootstrap`` resamples of the games
    drawn by ``numpy.random.default_rng(seed)``, the same resamples for every column."""
    import numpy as np

    y = predictions["result0"].to_numpy().astype(np.float64)
    n = len(y)
    loss = np.column_stack([log_loss(predictions[column_of(s)].to_numpy(), y) for s in names])
    sq = np.column_stack([brier(predictions[column_of(s)].to_numpy(), y) for s in names])
    mean_loss, mean_sq = loss.mean(axis=0), sq.mean(axis=0)
    systems = [i for i, s in enumerate(names) if s in SYSTEMS]
    best = min(systems, key=lambda i: (mean_loss[i], i))
    rng = np.random.default_rng(seed)
    boot_loss = np.empty((bootstrap, len(names)))
    boot_sq = np.empty((bootstrap, len(names)))
    for r in range(bootstrap):
        w = np.bincount(rng.integers(0, n, n), minlength=n).astype(np.float64)
        boot_loss[r] = w @ loss / n
        boot_sq[r] = w @ sq / n
    boot_diff = boot_loss - boot_loss[:, [best]]

    def interval(samples: Any) -> tuple[Any, Any]:
        lo, hi = np.quantile(samples, [0.025, 0.975], axis=0)
        return lo, hi

    ll_lo, ll_hi = interval(boot_loss)
    br_lo, br_hi = interval(boot_sq)
    d_lo, d_hi = interval(boot_diff)
    order = sorted(systems, key=lambda i: (mean_loss[i], i))
    rank = {i: k + 1 for k, i in enumerate(order)}
    rows = []
    for i, s in enumerate(names):
        rows.append(
            {
                "system": s,
                "kind": "system" if s in SYSTEMS else "reference",
                "rank": rank.get(i),
                "games": n,
                "log_loss": float(mean_loss[i]),
                "log_loss_low": float(ll_lo[i]),
                "log_loss_high": float(ll_hi[i]),
                "brier": float(mean_sq[i]),
                "brier_low": float(br_lo[i]),
                "brier_high": float(br_hi[i]),
                "vs_best": float(mean_loss[i] - mean_loss[best]),
                "vs_best_low": float(d_lo[i]),
                "vs_best_high": float(d_hi[i]),
            }
        )
    return rows


# ---------------------------------------------------------------------------------------------
# The synthetic league
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class League:
    """A synthetic league with known strengths (Elo scale; win probability
    1/(1 + 10^(−(θ_a − θ_b)/400))).

    Attributes:
        players: human players; strengths drawn from N(1500, ``spread``²).
        games: games played, one every 20 minutes from 2025-01-01T00:00Z.
        robots: robots of fixed strength 1500 + ``spread``·(−1.5 … 1.5), evenly spaced, named
            ``robot-1`` (weakest) … ``robot-N``; never drifting.
        robot_share: the share of games a human plays against a robot (chosen evenly).
        spread: the standard deviation of the humans' starting strengths.
        drift: the standard deviation of a human's change of strength after each game played.
        seed: everything is drawn from ``numpy.random.default_rng(seed)``.

    A tenth of the humans play from the first game; the others join at times drawn evenly over
    the first 70 % of the games. A game's humans are drawn among those who have joined, in
    proportion to an activity drawn from a log-normal distribution (σ = 1) per player; the seats
    are in random order. No draws: the winner scores 1–150 points more than the loser's 250–450.
    """

    players: int = 200
    games: int = 30_000
    robots: int = 3
    robot_share: float = 0.4
    spread: float = 200.0
    drift: float = 10.0
    seed: int = 0

    def check(self) -> "League":
        """Raises :class:`UsageError` naming the option of an impossible value."""
        if not 2 <= self.players <= 1_000_000:
            raise UsageError(f"--league must be from 2 to 1000000 players (got {self.players})")
        if not 1 <= self.games <= 10_000_000:
            raise UsageError(f"--league-games must be from 1 to 10000000 (got {self.games})")
        if not (0 <= self.robots <= 100):
            raise UsageError(f"league robots must be from 0 to 100 (got {self.robots})")
        if not (math.isfinite(self.robot_share) and 0.0 <= self.robot_share <= 1.0):
            raise UsageError(f"league robot share must be from 0 to 1 (got {self.robot_share})")
        if not (math.isfinite(self.drift) and 0.0 <= self.drift <= 400.0):
            raise UsageError(f"--drift must be from 0 to 400 rating points per game (got {self.drift})")
        if not (math.isfinite(self.spread) and 0.0 <= self.spread <= 1000.0):
            raise UsageError(f"league spread must be from 0 to 1000 (got {self.spread})")
        return self


LEAGUE_START = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)
LEAGUE_STEP = dt.timedelta(minutes=20)


def synthetic_league(spec: League) -> tuple[Any, Any]:
    """The games of a synthetic league (a games table, :data:`GAME_COLUMNS` and ``p_truth``, the
    true probability that player0 wins) and its players (``player, robot, strength_start,
    strength_end, games``), all drawn from ``spec.seed`` (see :class:`League`)."""
    import numpy as np
    import polars as pl

    spec = spec.check()
    rng = np.random.default_rng(spec.seed)
    H, R, G = spec.players, spec.robots, spec.games
    strength = rng.normal(1500.0, spec.spread, H)
    start_strength = strength.copy()
    activity = rng.lognormal(0.0, 1.0, H)
    join = rng.uniform(0.0, 0.7 * G, H)
    join[: max(2, H // 10)] = 0.0
    order = np.argsort(join, kind="stable")  # humans in order of joining
    join_sorted = join[order]
    cum = np.cumsum(activity[order])
    robot_strength = 1500.0 + spec.spread * (np.linspace(-1.5, 1.5, R) if R > 1 else np.zeros(R))
    vs_robot = (rng.random(G) < spec.robot_share) & (R > 0)
    u1, u2 = rng.random(G), rng.random(G)
    robot_pick = rng.integers(0, max(R, 1), G)
    seat_swap = rng.random(G) < 0.5
    outcome = rng.random(G)
    loser_score = rng.integers(250, 451, G)
    margin = rng.integers(1, 151, G)
    steps = rng.normal(0.0, 1.0, (G, 2)) * spec.drift
    available = np.searchsorted(join_sorted, np.arange(G), side="right")  # humans joined by game g

    p0 = np.empty(G)
    first = np.empty(G, dtype=object)
    second = np.empty(G, dtype=object)
    robot0 = np.zeros(G, dtype=bool)
    robot1 = np.zeros(G, dtype=bool)
    played = np.zeros(H + R, dtype=np.int64)
    for g in range(G):
        m = int(available[g])
        total = cum[m - 1]
        i1 = min(int(np.searchsorted(cum, u1[g] * total, side="right")), m - 1)
        h1 = int(order[i1])
        if vs_robot[g]:
            rb = int(robot_pick[g])
            sides = [(f"h{h1 + 1:04d}", strength[h1], False, h1), (f"robot-{rb + 1}", robot_strength[rb], True, H + rb)]
        else:
            w1 = cum[i1] - (cum[i1 - 1] if i1 else 0.0)
            x = u2[g] * (total - w1)
            if x >= cum[i1] - w1:
                x += w1
            i2 = min(int(np.searchsorted(cum, x, side="right")), m - 1)
            if i2 == i1:
                i2 = i1 + 1 if i1 + 1 < m else i1 - 1
            h2 = int(order[i2])
            sides = [(f"h{h1 + 1:04d}", strength[h1], False, h1), (f"h{h2 + 1:04d}", strength[h2], False, h2)]
        if seat_swap[g]:
            sides.reverse()
        (n0, s0, r0, x0), (n1, s1, r1, x1) = sides
        p = 1.0 / (1.0 + 10.0 ** (-(s0 - s1) / 400.0))
        p0[g], first[g], second[g], robot0[g], robot1[g] = p, n0, n1, r0, r1
        played[x0] += 1
        played[x1] += 1
        for k, (x, robot) in enumerate(((x0, r0), (x1, r1))):
            if not robot:
                strength[x] += steps[g, k]
    win0 = outcome < p0
    score0 = np.where(win0, loser_score + margin, loser_score)
    score1 = np.where(win0, loser_score, loser_score + margin)
    times = [LEAGUE_START + g * LEAGUE_STEP for g in range(G)]
    games = pl.DataFrame(
        {
            "game_id": [f"league-{g + 1:07d}" for g in range(G)],
            "finished_at": pl.Series(times, dtype=pl.Datetime("us", "UTC")),
            "player0": pl.Series(first.tolist(), dtype=pl.String),
            "player1": pl.Series(second.tolist(), dtype=pl.String),
            "robot0": robot0,
            "robot1": robot1,
            "score0": score0.astype(np.int64),
            "score1": score1.astype(np.int64),
            "competition": np.zeros(G, dtype=bool),
            "p_truth": p0,
        }
    )
    players = pl.DataFrame(
        {
            "player": [f"h{h + 1:04d}" for h in range(H)] + [f"robot-{r + 1}" for r in range(R)],
            "robot": [False] * H + [True] * R,
            "strength_start": np.concatenate([start_strength, robot_strength]),
            "strength_end": np.concatenate([strength, robot_strength]),
            "games": played,
        }
    ).filter(pl.col("games") > 0)
    return games, players


def league_table(games: Any) -> GamesTable:
    """A league's games (:func:`synthetic_league`) as a validated :class:`GamesTable`."""
    import polars as pl

    frame = games.select(*GAME_COLUMNS).with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias("row"))
    return GamesTable(frame=frame, path="league", source_rows=frame.height)


# ---------------------------------------------------------------------------------------------
# The whole backtest
# ---------------------------------------------------------------------------------------------


@dataclass
class BacktestRun:
    """A backtest in memory: the predictions (one row per game), the summary rows, the
    calibration table, the settings, the notes, and for a league its games and players."""

    predictions: Any
    summary: list[dict[str, Any]]
    calibration: Any
    seed: int
    bootstrap: int
    source: str
    notes: tuple[str, ...] = ()
    league: League | None = None
    league_games: Any = None
    league_players: Any = None
    settings: dict[str, Any] = field(default_factory=dict)


def check_bootstrap(bootstrap: int) -> int:
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or not 10 <= bootstrap <= BOOTSTRAP_MAX:
        raise UsageError(f"--bootstrap must be from 10 to {BOOTSTRAP_MAX} resamples (got {bootstrap!r})")
    return bootstrap


def backtest(
    table: GamesTable, seed: int = 0, bootstrap: int = BOOTSTRAP_DEFAULT, truth: Any = None, source: str | None = None
) -> BacktestRun:
    """Every system predicting every game of ``table`` in order (see the module docstring).

    ``truth``: a frame ``game_id, p_truth`` (a league's true probabilities), reported as a
    reference. Raises :class:`DataError` when no game is left, :class:`UsageError` for a bad
    ``bootstrap``."""
    import polars as pl

    from .calibration import calibration_table

    check_bootstrap(bootstrap)
    games, notes = ordered_games(table)
    predictions = predict(games).with_columns(pl.lit(0.5).alias(column_of("even")))
    names = [*SYSTEMS, "even"]
    if truth is not None:
        predictions = predictions.join(truth.select("game_id", "p_truth"), on="game_id", how="left", maintain_order="left")
        names.append("truth")
    predictions = predictions.with_row_index("seq", offset=1).with_columns(pl.col("seq").cast(pl.Int64))
    summary = summarize(predictions, names, seed=seed, bootstrap=bootstrap)
    calibration = calibration_table(predictions, {s: column_of(s) for s in names if s != "even"})
    keep = ["seq", "game_id", "finished_at", "locale", "player0", "player1", "robot0", "robot1", "score0", "score1", "result0"]
    predictions = predictions.select(
        *keep, *(column_of(s) for s in SYSTEMS), *([column_of("truth")] if truth is not None else [])
    )
    return BacktestRun(
        predictions=predictions,
        summary=summary,
        calibration=calibration,
        seed=seed,
        bootstrap=bootstrap,
        source=source if source is not None else table.path,
        notes=tuple(notes),
    )


def league_backtest(spec: League, seed: int = 0, bootstrap: int = BOOTSTRAP_DEFAULT) -> BacktestRun:
    """The backtest of a synthetic league (:func:`synthetic_league`), with its true probabilities
    as the ``truth`` reference. ``seed`` draws the bootstrap; ``spec.seed`` the league."""
    games, players = synthetic_league(spec)
    run = backtest(league_table(games), seed=seed, bootstrap=bootstrap, truth=games, source="league")
    run.league, run.league_games, run.league_players = spec, games, players
    return run


def settings_of(run: BacktestRun) -> dict[str, Any]:
    """The settings a summary records: source, seed, resamples, the systems' constants, the league."""
    from dataclasses import asdict

    out: dict[str, Any] = {
        "source": run.source,
        "bootstrap": run.bootstrap,
        "seed": run.seed,
        "systems": {
            "netskrafl": asdict(PRESETS["netskrafl"]),
            "netskrafl-live": asdict(PRESETS["netskrafl-live"]),
            "elo": {"k": PLAIN_ELO_K, "start": PLAIN_ELO_START, "scale": PLAIN_ELO_SCALE},
            "glicko2": {**asdict(Glicko2Params()), "period": "game"},
            "glicko2-daily": {**asdict(Glicko2Params()), "period": "UTC day"},
        },
    }
    if run.league is not None:
        out["league"] = asdict(run.league)
    return out


def write_output(run: BacktestRun, out_dir: str | Path, inputs: tuple[str | Path, ...] = ()) -> Path:
    """Write the output folder (see the module docstring) atomically
    (:func:`pipelines.atomic.output_dir`, command ``backtest``)."""
    import polars as pl

    from pipelines.atomic import output_dir

    from .calibration import calibration_svg

    out_dir = Path(out_dir)
    summary = pl.DataFrame(run.summary, schema=_summary_schema())
    with output_dir(out_dir, "backtest", inputs) as tmp:
        run.predictions.write_parquet(tmp / "predictions.parquet", statistics=False)
        summary.write_csv(tmp / "summary.csv", float_precision=6)
        doc = {
            "settings": settings_of(run),
            "summary": [{k: (round(v, 6) if isinstance(v, float) else v) for k, v in row.items()} for row in run.summary],
            "calibration": [
                {k: (round(v, 6) if isinstance(v, float) else v) for k, v in row.items()} for row in run.calibration.to_dicts()
            ],
            "notes": list(run.notes),
        }
        (tmp / "summary.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        run.calibration.write_csv(tmp / "calibration.csv", float_precision=6)
        (tmp / "calibration.svg").write_text(calibration_svg(run.calibration, title=_title(run)), encoding="utf-8")
        if run.league_games is not None:
            run.league_games.write_parquet(tmp / "league_games.parquet", statistics=False)
            run.league_players.write_parquet(tmp / "league_players.parquet", statistics=False)
    return out_dir


def _title(run: BacktestRun) -> str:
    n = run.predictions.height
    if run.league is not None:
        return f"Calibration: synthetic league, {run.league.players} players, {n:,} games (seed {run.league.seed})"
    return f"Calibration: {Path(run.source).name}, {n:,} games"


def _summary_schema() -> dict[str, Any]:
    import polars as pl

    types = {"system": pl.String, "kind": pl.String, "rank": pl.Int64, "games": pl.Int64}
    return {c: types.get(c, pl.Float64) for c in SUMMARY_COLUMNS}
