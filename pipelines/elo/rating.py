"""The Elo arithmetic: parameters, the rule one game at a time, and the rating of one list's
games in order (the sequential loop, with the largest list in a worker process when it pays).

Pure numpy and plain Python (no polars), so a job can run in a worker process
(:func:`run_jobs`, :class:`concurrent.futures.ProcessPoolExecutor`).
"""

from __future__ import annotations

import math
import multiprocessing
import os
from array import array
from dataclasses import dataclass, replace
from typing import Any, Iterable

from gamecore.errors import UsageError


@dataclass(frozen=True)
class EloParams:
    """Rating parameters. Defaults are Netskrafl's (docs/NETSKRAFL.md §5).

    Attributes:
        k: K for an established player (Netskrafl 20, FAQ).
        k_beginner: K for a beginner (Netskrafl 32).
        established_after: a player is established with *more than* this many games in the list,
            counting the current game (Netskrafl 10).
        start: rating of a new player (Netskrafl 1200, Ordspill 1000).
        scale: rating difference that multiplies the odds by 10 (400).
        established_by: which games make a player established (docs/NETSKRAFL.md §5):
            ``netskrafl`` — the nightly batch (``src/skraflstats.py`` ``_run_stats``): the games of
            the list itself for ``all`` and ``human``, but the *human*-game count for
            ``competition``; ``human_total`` — the per-game path (``src/skraflelo.py``
            ``compute_locale_elo_for_game``): the player's human games in every locale, for all
            three lists; ``list`` — each list's own games (older skrafl).
        robots_established: robots are always established (the per-game path); otherwise a
            robot, like a person, is a beginner for its first games (the nightly batch).
        min_moves: a game with a known ``moves`` below this (a resignation on move 1 or 2 when 3)
            changes no rating and is not counted (the per-game path; 0 = every game counts).
        zero_is_start: a ``human``/``competition`` rating of exactly 0 in the ``--state`` is read
            back as ``start`` (the nightly batch's ``human_elo or DEFAULT_ELO``: a quirk copied so
            that the results are Netskrafl's; it acts where ratings are read back, at the start
            of a run).

    Ratings are kept per locale (``locale`` column of the games table) in every model.
    """

    k: int = 20
    k_beginner: int = 32
    established_after: int = 10
    start: int = 1200
    scale: float = 400.0
    established_by: str = "netskrafl"
    robots_established: bool = False
    min_moves: int = 0
    zero_is_start: bool = True

    def check(self) -> "EloParams":
        """Validate the values against :data:`PARAM_RANGES`; raises :class:`UsageError` (naming
        the option) for a value of the wrong type, out of range, or not finite."""
        for name, (lo, hi) in PARAM_RANGES.items():
            value = getattr(self, name)
            option = "--" + name.replace("_", "-")
            if name == "scale":
                ok_type = isinstance(value, (int, float)) and not isinstance(value, bool)
                if ok_type and not math.isfinite(value):
                    raise UsageError(f"{option} must be a finite number from {lo:g} to {hi:g} (got {value})")
            else:
                ok_type = isinstance(value, int) and not isinstance(value, bool)
            if not ok_type:
                raise UsageError(f"{option} must be a number (got {value!r})")
            if not lo <= value <= hi:
                raise UsageError(f"{option} must be from {lo:g} to {hi:g} (got {value})")
        if not (isinstance(self.min_moves, int) and not isinstance(self.min_moves, bool) and 0 <= self.min_moves <= 1000):
            raise UsageError(f"min_moves must be a number from 0 to 1000 (got {self.min_moves!r})")
        if self.established_by not in ESTABLISHED_BY:
            raise UsageError(f"established_by must be one of {', '.join(ESTABLISHED_BY)} (got {self.established_by!r})")
        if not isinstance(self.robots_established, bool) or not isinstance(self.zero_is_start, bool):
            raise UsageError("robots_established and zero_is_start must be true or false")
        return self


PARAM_RANGES: dict[str, tuple[float, float]] = {
    "k": (0, 1000),
    "k_beginner": (0, 1000),
    "established_after": (0, 1_000_000),
    "start": (0, 10_000),
    "scale": (100, 10_000),
}

ESTABLISHED_BY: tuple[str, ...] = ("netskrafl", "human_total", "list")
"""The models of "established" (see :class:`EloParams`)."""
"""The accepted range of each parameter (both ends included; :meth:`EloParams.check`, and the
``skrafl elo`` options). A start above 10,000 or a scale below 100 would make Q = 10^(R/scale)
overflow a float for ordinary ratings; K above 1000 moves a rating by more than a whole scale in
one game."""


PRESETS: dict[str, EloParams] = {
    "netskrafl": EloParams(),
    "netskrafl-live": EloParams(established_by="human_total", robots_established=True, min_moves=3, zero_is_start=False),
    "ordspill": EloParams(start=1000),
}
"""Named parameter sets: ``netskrafl`` (the default) is Netskrafl's nightly batch
(``src/skraflstats.py`` ``_run_stats``): 0–0 games skipped, established per list but the
competition list by the human-game count, robots beginners for their first 10 games like people,
a stored human/competition rating of 0 read back as 1200. ``netskrafl-live`` is the per-game model
Netskrafl is moving to (``src/skraflelo.py`` ``compute_locale_elo_for_game``): established by the
human games in all locales for all three lists, robots always established, no change for a 0–0
game or one resigned on move 1 or 2 (``moves`` ≤ 2). Both keep ratings per locale. ``ordspill``:
the nightly model with start 1000."""


def params_for(preset: str = "netskrafl", **overrides: Any) -> EloParams:
    """The parameters of ``preset`` with the non-``None`` ``overrides`` applied.

    Raises:
        UsageError: unknown preset or an impossible value.
    """
    try:
        base = PRESETS[preset]
    except KeyError:
        raise UsageError(f"unknown Elo preset {preset!r}; expected one of: {', '.join(PRESETS)}") from None
    changes = {k: v for k, v in overrides.items() if v is not None}
    return replace(base, **changes).check()


# ---------------------------------------------------------------------------------------------
# The rule, one game at a time (documentation and tests; the batch loop below is the same rule)
# ---------------------------------------------------------------------------------------------


def expected_score(rating: float, opponent: float, scale: float = 400.0) -> float:
    """Expected score (win probability) of a player rated ``rating`` against ``opponent``.

    E = Q / (Q + Q_opp) with Q = 10^(R/scale) (Netskrafl's help FAQ: "S(a) = 10^(E(a)/400)").
    """
    q = 10.0 ** (rating / scale)
    q_opp = 10.0 ** (opponent / scale)
    return q / (q + q_opp)


def game_result(score: int, opponent_score: int) -> float:
    """1.0 for a win, 0.5 for a draw, 0.0 for a loss: the final scores decide (FAQ)."""
    if score > opponent_score:
        return 1.0
    if score < opponent_score:
        return 0.0
    return 0.5


def rating_change(rating: int, opponent: int, result: float, k: int, scale: float = 400.0) -> int:
    """Δ = round((result − E) × K), Python's round (half to even) (docs/NETSKRAFL.md §5)."""
    return round((result - expected_score(rating, opponent, scale)) * k)


# ---------------------------------------------------------------------------------------------
# The rating loop
# ---------------------------------------------------------------------------------------------


def _rate_games(
    a_idx: Iterable[int],
    b_idx: Iterable[int],
    result_a: Iterable[float],
    k_a: Iterable[int],
    k_b: Iterable[int],
    ratings: list[int],
    q_table: list[float],
    scale: float,
) -> None:
    """Rate one list's games in order, updating ``ratings`` (indexed by player) in place.

    Per game: player indices ``a``/``b``, ``a``'s result (1.0 / 0.5 / 0.0) and each side's K,
    0 for a side whose rating does not move (the beginner rule; see :func:`k_factors`).
    ``q_table[r]`` is 10^(r/scale) for integer ratings (grown on demand).

    Same arithmetic as Netskrafl: E_a = Q_a/(Q_a+Q_b), Δ = round((result − E) × K) (half to even),
    a rating floored at 0 (docs/NETSKRAFL.md §5). The sequential part of the job, kept tight: plain
    Python over flat sequences, no attribute look-ups.
    """
    R = ratings
    Q = q_table
    for a, b, sa, ka, kb in zip(a_idx, b_idx, result_a, k_a, k_b, strict=True):
        ra = R[a]
        rb = R[b]
        try:
            qa = Q[ra]
            qb = Q[rb]
        except IndexError:
            _grow_q_table(Q, max(ra, rb), scale)
            qa = Q[ra]
            qb = Q[rb]
        t = qa + qb
        if ka:
            ra += round((sa - qa / t) * ka)
            R[a] = ra if ra > 0 else 0
        if kb:
            rb += round((1.0 - sa - qb / t) * kb)
            R[b] = rb if rb > 0 else 0


def _q_table(size: int, scale: float) -> list[float]:
    """Q = 10^(r/scale) for the integer ratings 0 … size−1 (docs/NETSKRAFL.md §5)."""
    q_table: list[float] = []
    _grow_q_table(q_table, size - 1000, scale)
    return q_table


def _grow_q_table(q_table: list[float], rating: int, scale: float) -> None:
    """Extend ``q_table`` in place to cover ``rating`` (and some headroom).

    Raises:
        UsageError: a rating so high that Q overflows a float at this scale.
    """
    top = rating + 1000
    while top > len(q_table):  # the largest rating whose Q is a finite float
        try:
            q_table.extend(10.0 ** (r / scale) for r in range(len(q_table), top))
        except OverflowError:
            top = (len(q_table) + top) // 2 if top > len(q_table) + 1 else len(q_table)
    if rating >= len(q_table):
        raise UsageError(f"a rating of {rating} is beyond what --scale {scale:g} can rate (10^(rating/scale) overflows)")


def running_counts(a: Any, b: Any, prior: Any) -> tuple[Any, Any, Any]:
    """Games played by each side *counting the current game*, and each player's first game.

    ``a``/``b``: numpy int arrays of player indices in game order; ``prior``: games each player
    already had (from the state). Returns (games_a, games_b, first_game_index per player, with
    ``len(a)`` for players without a game here).
    """
    import numpy as np

    n = len(a)
    players = np.empty(2 * n, dtype=np.int64)
    players[0::2] = a
    players[1::2] = b
    # Stable sort by player: numpy radix-sorts 16-bit keys, so sort by the low 16 bits, then
    # (stably) by the high bits when there are more than 65,536 players.
    order = np.argsort(players.astype(np.uint16), kind="stable")
    if len(prior) > 1 << 16:
        order = order[np.argsort((players[order] >> 16).astype(np.int64), kind="stable")]
    sp = players[order]
    first = np.full(len(prior), n, dtype=np.int64)
    counts = np.empty(2 * n, dtype=np.int64)
    if n:
        starts = np.flatnonzero(np.r_[True, sp[1:] != sp[:-1]])
        lengths = np.diff(np.r_[starts, 2 * n])
        rank = np.arange(2 * n, dtype=np.int64) - np.repeat(starts, lengths) + 1
        counts[order] = rank + prior[sp]
        first[sp[starts]] = order[starts] // 2
    return counts[0::2], counts[1::2], first


def k_factors(games_a: Any, games_b: Any, robot_a: Any, robot_b: Any, params: EloParams) -> tuple[Any, Any]:
    """(see below; robots count as established only with ``params.robots_established``)"""
    if not params.robots_established:
        robot_a = robot_a & False
        robot_b = robot_b & False
    return _k_factors_of(games_a, games_b, robot_a, robot_b, params)


def _k_factors_of(games_a: Any, games_b: Any, robot_a: Any, robot_b: Any, params: EloParams) -> tuple[Any, Any]:
    """Each side's K per game: K for an established player, K_beginner for a beginner, and 0 for
    an established player meeting a beginner (the beginner rule, FAQ: "fyrstu 10 viðureignir
    byrjenda breyta aðeins Elo-stigum þeirra sjálfra"). Established = robot, or more than
    ``established_after`` games in the list counting this one (docs/NETSKRAFL.md §5)."""
    import numpy as np

    est_a = robot_a | (games_a > params.established_after)
    est_b = robot_b | (games_b > params.established_after)
    k_a = np.where(est_a, np.where(est_b, params.k, 0), params.k_beginner).astype(np.int64)
    k_b = np.where(est_b, np.where(est_a, params.k, 0), params.k_beginner).astype(np.int64)
    return k_a, k_b


def _as_array(values: Any, code: str) -> array:
    """A flat Python ``array`` over a numpy array (compact, iterates as plain ints/floats)."""
    import numpy as np

    out = array(code)
    out.frombytes(np.ascontiguousarray(values, dtype=np.int64 if code == "q" else np.float64).tobytes())
    return out


@dataclass
class ListJob:
    """One list's games, ready to rate: numpy arrays in game order (player indices ``a``/``b``,
    ``a``'s result 1/½/0, robot flags), each player's games and rating before this run, the
    parameters, and where the loop stops (``(index, events)`` in order; an event is
    ``("snap", day)`` — keep the ratings after the games before ``index`` — or
    ``("before"/"after", i)`` — keep the two players' ratings around game ``i``)."""

    a: Any
    b: Any
    result: Any
    robot_a: Any
    robot_b: Any
    prior_games: Any
    ratings: list[int]
    stops: list[tuple[int, list[tuple[str, int]]]]
    params: EloParams
    established: tuple[Any, Any] | None = None  # each side's games for "established", when not the list's own
    held: Any = None  # per player index: True for a player held at its rating (elo --anchors)


@dataclass
class _JobResult:
    """What :func:`_run_job` gives back: the final ratings by player index, the ratings at each
    snapshot stop ``{day: (index, ratings)}``, the explained games ``{i: ((before_a, before_b),
    (after_a, after_b), (k_a, k_b))}`` and each player's first game index here (``len(a)`` if
    none)."""

    ratings: list[int]
    snaps: dict[int, tuple[int, list[int]]]
    moments: dict[int, tuple[tuple[int, int], tuple[int, int], tuple[int, int]]]
    first: Any


def _run_job(job: ListJob, progress: Any = None) -> _JobResult:
    """Rate one list: games-so-far and K per game (vectorised), then the sequential loop
    (:func:`_rate_games`), stopping where ``job.stops`` asks. Uses numpy and plain Python only
    (no polars), so it can run in a worker process."""
    games_a, games_b, first = running_counts(job.a, job.b, job.prior_games)
    if job.established is not None:
        games_a, games_b = job.established
    k_a, k_b = k_factors(games_a, games_b, job.robot_a, job.robot_b, job.params)
    if job.held is not None:  # an anchored player's rating never moves (K 0); its opponents' do
        import numpy as np

        k_a = np.where(job.held[job.a], 0, k_a)
        k_b = np.where(job.held[job.b], 0, k_b)
    A, B, S = _as_array(job.a, "q"), _as_array(job.b, "q"), _as_array(job.result, "d")
    KA, KB = _as_array(k_a, "q"), _as_array(k_b, "q")
    R = job.ratings
    scale = job.params.scale
    q_table = _q_table(max(R, default=0) + 1000, scale)
    snaps: dict[int, tuple[int, list[int]]] = {}
    before: dict[int, tuple[int, int]] = {}
    moments: dict[int, tuple[tuple[int, int], tuple[int, int], tuple[int, int]]] = {}
    lo = 0
    for hi, events in job.stops:
        if hi > lo:
            _rate_games(A[lo:hi], B[lo:hi], S[lo:hi], KA[lo:hi], KB[lo:hi], R, q_table, scale)
            if progress is not None:
                progress.update(hi - lo)
            lo = hi
        for kind, what in events:
            if kind == "snap":
                snaps[what] = (hi, list(R))
            elif kind == "before":
                before[what] = (R[A[what]], R[B[what]])
            else:
                moments[what] = (before.pop(what), (R[A[what]], R[B[what]]), (KA[what], KB[what]))
    return _JobResult(R, snaps, moments, first)


_PARALLEL_MIN_GAMES = 100_000


def _use_worker(n_games: int) -> bool:
    """Worth running a list's loop in a worker process: two or more CPUs and enough games."""
    return (os.cpu_count() or 1) >= 2 and n_games >= _PARALLEL_MIN_GAMES


def _pool_context() -> Any:
    """``fork`` where there is one (Linux: the worker starts at once and needs no imports; the job
    uses numpy and plain Python only, no polars), elsewhere the platform default."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def run_jobs(jobs: list[ListJob], progress: Any = None, parallel: bool = True) -> list[_JobResult]:
    """Run the lists' loops. The lists are independent, so with two or more CPUs and enough
    games the first (largest: ``all`` holds every game) runs in a worker process
    (:class:`concurrent.futures.ProcessPoolExecutor`) while this process runs the others; the
    results are identical either way (same code, same order). If the worker dies, its job is run
    here instead."""
    if not (parallel and len(jobs) > 1 and _use_worker(len(jobs[0].a))):
        return [_run_job(j, progress) for j in jobs]
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    with ProcessPoolExecutor(max_workers=1, mp_context=_pool_context()) as pool:
        future = pool.submit(_run_job, jobs[0])
        rest = [_run_job(j, progress) for j in jobs[1:]]
        try:
            first = future.result()
        except BrokenProcessPool:
            first = _run_job(jobs[0])
    if progress is not None:
        progress.update(len(jobs[0].a))
    return [first, *rest]


def params_text(p: EloParams) -> str:
    text = f"K {p.k}/{p.k_beginner}, established after {p.established_after}, start {p.start}, scale {p.scale:g}"
    return (
        text
        + f", established by {p.established_by}"
        + (", robots established" if p.robots_established else "")
        + (f", games of fewer than {p.min_moves} moves ignored" if p.min_moves else "")
    )


def counts_in(source: Any, a: Any, b: Any, prior: Any, query: Any, players: Any) -> Any:
    """Games of ``source`` played by ``players[i]`` up to and including game ``query[i]`` (global
    game indices), plus ``prior[player]``. ``source``: bool per game; ``a``/``b``: each game's
    player indices. Vectorised (one sort, two binary searches): the "established" counts of a list
    taken from other games (the human games of the nightly competition list, the human games in
    every locale of the per-game model)."""
    import numpy as np

    n = len(a)
    idx = np.flatnonzero(source)
    keys = np.sort(np.concatenate([a[idx] * (n + 1) + idx, b[idx] * (n + 1) + idx]))
    q = players.astype(np.int64)
    hi = np.searchsorted(keys, q * (n + 1) + query, side="right")
    lo = np.searchsorted(keys, q * (n + 1), side="left")
    return (hi - lo) + prior[q]
