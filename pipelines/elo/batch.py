"""The batch: a games table (and a state) in, the three lists' ratings, counts and end-of-day
snapshots out (:func:`compute`)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gamecore.errors import DataError, UsageError

from .games import CONTENT_DIGEST, GamesTable, same_game_key
from .rating import PRESETS, EloParams, ListJob, counts_in, expected_score, params_text, run_jobs
from .state import RATINGS_COLUMNS, DaysRated, EloState, empty_state, plan_days, ratings_schema

LISTS: tuple[str, ...] = ("all", "human", "competition")
"""The three rating lists, in output order (docs/NETSKRAFL.md §5 "Three parallel ratings")."""

CHANGE_DAYS: tuple[int, ...] = (1, 7, 30)
"""The rating changes the top tables show, in days."""


# ---------------------------------------------------------------------------------------------
# The batch
# ---------------------------------------------------------------------------------------------


@dataclass
class EloRun:
    """The result of :func:`compute`: everything the output folder holds, in memory."""

    ratings: Any  # polars DataFrame, RATINGS_COLUMNS
    processed: Any  # polars DataFrame game_id, finished_at (all so far)
    params: EloParams
    as_of: dt.datetime | None
    report_day: dt.date | None
    snapshots: dict[dt.date, Any]  # new history snapshots: day → DataFrame(list, player, rating)
    games_rated: int
    games_skipped: int
    games_ignored: int  # 0–0
    notes: tuple[str, ...]
    trace: list[dict[str, Any]] | None = None  # with explain=PLAYER
    days_rated: DaysRated | None = None  # the days the output has rated (None: no times, not recorded)
    late: Any = None  # polars DataFrame LATE_COLUMNS: new games of days the state had rated, not rated
    games_unnamed: int = 0  # replayed Netskrafl games without player ids: not rated (GamesTable.unnamed)


LATE_COLUMNS: tuple[str, ...] = ("game_id", "finished_at", "player0", "player1", "score0", "score1", "reason")
"""Columns of ``late_games.csv``: the games that arrived for a day the state had already rated."""


_EPOCH = dt.date(1970, 1, 1)
_CHUNK = 250_000


def _list_filter(name: str) -> Any:
    """The games of a list (docs/NETSKRAFL.md §5 "Three parallel ratings")."""
    import polars as pl

    human = ~pl.col("robot0") & ~pl.col("robot1")
    return {"all": pl.lit(True), "human": human, "competition": human & pl.col("competition")}[name]


def compute(
    table: GamesTable,
    state: EloState | None = None,
    params: EloParams | None = None,
    date: dt.date | None = None,
    explain: str | None = None,
    quiet: bool = True,
    catch_up: bool = False,
    anchors: dict[str, int] | None = None,
) -> EloRun:
    """Rate the games of ``table`` on top of ``state`` (see the module docstring for the rules).

    Args:
        table: from :func:`read_games`.
        state: a previous run (:func:`load_state`) or ``None`` to start from nothing.
        params: rating parameters (default Netskrafl's); must equal the state's.
        date: rate only games finished on this UTC day (the nightly job). With a state that
            records its days, the state must have rated the day before (or ``date`` itself).
        explain: a player id: also record that player's games one by one (:attr:`EloRun.trace`).
        quiet: no progress bar on stderr.
        anchors: players held at a rating in every list (``elo --anchors``: robots rated by
            ``skrafl ladder``): they start there and never move; their opponents' ratings do.
        catch_up: with ``date``, first rate the days the state has not rated (in order, from the
            same table), then ``date``; from no state, every day up to ``date``. The result equals
            nightly runs over those days.

    New games (not in the state) finished on a day the state has rated are not rated: they are
    listed in :attr:`EloRun.late` with the reason, and counted in a ``warning:`` note.

    Raises:
        UsageError: parameters differ from the state's, ``date`` with a table without times, or
            skipped days (:func:`state.plan_days`).
    """
    import polars as pl

    params, state = _params_and_state(params, state)
    games = with_optional_columns(table)
    _check_date_has_times(table, date)
    since, days_rated = plan_days(state, date, catch_up)
    chosen = _games_to_rate(table, state, games, params, date, since)
    _check_something_to_rate(table, chosen, date, explain)
    days = _run_days(table, state, chosen.games, date, days_rated, explain)
    players = _player_table(chosen.games, state, anchors)
    games = _with_rating_columns(chosen.games, players, days.report_day, table)
    old = _state_ratings(state, players, games.height)
    robot = _robot_flags(games, old, players.count, players.names, table)
    compact = games.select(
        "a", "b", "result0", "robot0", "robot1", "competition", "day", "score0", "score1", "locale"
    ).with_row_index("gi")
    cut_days = _snapshot_days(games, date, since, days.window_start)
    explain_pid = _explained_player(players.names, explain)
    trace: list[dict[str, Any]] | None = [] if explain is not None else None
    progress = _progress_bar(compact, games.height, quiet)
    runs = _list_runs(_RatingContext(compact, old, players, params, cut_days, explain_pid))

    # "all" holds every game: with two or more CPUs its loop runs in a worker process.
    results = run_jobs([run.job for run in runs], progress, parallel=explain is None)
    if progress is not None:
        progress.close()

    frames = []
    snap_parts: dict[int, list[Any]] = {d: [] for d in cut_days}
    for run, result in zip(runs, results, strict=True):
        _add_snapshot_parts(snap_parts, run, result)
        _add_trace_rows(trace, run, result, games, explain_pid, params)
        _add_run_tallies(run, result, players.count)
        frames.append(_list_frame(run, players.names, robot))

    ratings = _ratings_frame(frames, days.as_of)
    snapshots = _snapshots(players.names, snap_parts, ratings, days.report_day, explain)
    # one layout, so the same bytes however the days were split
    processed = pl.concat([state.processed, chosen.processed], rechunk=True)
    return EloRun(
        ratings=ratings,
        processed=processed,
        params=params,
        as_of=days.as_of,
        report_day=days.report_day,
        snapshots=snapshots,
        games_rated=games.height,
        games_skipped=chosen.skipped,
        games_ignored=chosen.ignored,
        notes=tuple(chosen.notes),
        trace=trace,
        days_rated=days.days_rated,
        late=chosen.late,
        games_unnamed=chosen.unnamed,
    )


# ---------------------------------------------------------------------------------------------
# The games to rate: the table's games less those rated before, late, unnamed or not rateable
# ---------------------------------------------------------------------------------------------


@dataclass
class _GamesToRate:
    """The games a run rates (in game order) and what became of the others."""

    games: Any  # polars DataFrame: the games rated, in game order
    processed: Any  # polars DataFrame game_id, finished_at: this run's games, the 0–0 ones too
    notes: list[str]
    skipped: int  # rated before (in the state)
    ignored: int  # 0–0 (or resigned before params.min_moves)
    late: Any  # polars DataFrame LATE_COLUMNS
    unnamed: int  # replayed Netskrafl games without player ids


def _params_and_state(params: EloParams | None, state: EloState | None) -> tuple[EloParams, EloState]:
    """The checked parameters (default Netskrafl's) and the state (empty when none); raises
    :class:`UsageError` when the parameters differ from the state's."""
    params = (params or PRESETS["netskrafl"]).check()
    state = state or empty_state(params)
    if state.params != params:
        raise UsageError(
            "the rating parameters differ from those of the --state folder "
            f"({params_text(state.params)} there, {params_text(params)} asked)"
        )
    return params, state


def _check_date_has_times(table: GamesTable, date: dt.date | None) -> None:
    """``--date`` picks games by their finished_at: a table in row order (no times) cannot have one."""
    if date is not None and table.ordered_by_row:
        n = table.frame.height
        first = table.frame.sort("row")["game_id"][0]
        raise UsageError(
            f"--date needs finished_at times, and none of this table's {n} game(s) has one (first: {first!r}; GCG files "
            "have none: replayed by the nightly job from incoming/{date}, a game takes its folder's day)",
            path=table.path,
        )


def _games_to_rate(
    table: GamesTable, state: EloState, games: Any, params: EloParams, date: dt.date | None, since: dt.date | None
) -> _GamesToRate:
    """The games of this run in game order, less those of other days, rated before, late,
    without player names, 0–0, of more than two players or not finished (each said in a note)."""
    notes = list(table.notes)
    timeless = _timeless_games_warning(table, games, date)
    if timeless:
        notes.append(timeless)
    games = _games_of_days(games, date, since)
    n_before = games.height
    games = _not_rated_before(games, state)
    skipped = n_before - games.height
    games, late = _without_late_games(table, state, games, date, since, notes)
    games, unnamed = _without_unnamed_games(table, games, notes)
    games = _in_game_order(games)
    processed = games.select("game_id", "finished_at")
    games, ignored = _without_zero_games(games, params)
    games = _two_player_finished_games(games, notes)
    untimed = _untimed_games_note(games)
    if untimed:
        notes.append(untimed)
    return _GamesToRate(games, processed, notes, skipped, ignored, late, unnamed)


def _timeless_games_warning(table: GamesTable, games: Any, date: dt.date | None) -> str | None:
    """Games without a time among games with times (GCG files outside a day's partition):
    ``--date`` cannot tell their day, so they are left out (said, naming the first)."""
    import polars as pl

    timeless = games.filter(pl.col("finished_at").is_null()) if not table.ordered_by_row else games.clear()
    if date is None or not timeless.height:
        return None
    first, n = timeless.sort("row")["game_id"][0], timeless.height
    return (
        f"warning: {n} of {games.height} replayed game(s) skipped: no finished_at (a GCG file without #finished-at or #date) and not in a "
        f"day's partition (first: {first!r}); the other {games.height - n} are rated in time order "
        "(a game the nightly job reads from incoming/{date} takes that day)"
    )


def _games_of_days(games: Any, date: dt.date | None, since: dt.date | None) -> Any:
    """With ``--date``: the games finished on the days rated (``since`` to ``date``, or up to ``date``)."""
    import polars as pl

    if date is None:
        return games
    day = pl.col("finished_at").dt.date()
    return games.filter((day <= date) if since is None else ((day >= since) & (day <= date)))


def _not_rated_before(games: Any, state: EloState) -> Any:
    """The games the state has not rated: by game_id, and a game known by its file name and
    content digest by the digest (the same game renamed or copied since: rated once). A state of
    an older skrafl knows a game file without an id by its bare file name (game.gcg), which replay
    now writes game.gcg#DIGEST: such a name in the state stands for every game of that file name,
    as it did when it was rated."""
    import polars as pl

    if not state.processed.height:
        return games
    rated = state.processed.select(same_game_key(pl.col("game_id")).alias("_key"))
    games = games.with_columns(same_game_key(pl.col("game_id")).alias("_key")).join(rated, on="_key", how="anti").drop("_key")
    bare = games["game_id"].cast(pl.String).str.replace(CONTENT_DIGEST, "")
    if (bare != games["game_id"].cast(pl.String)).any():
        games = (
            games.with_columns(bare.alias("_bare"))
            .join(state.processed.select(pl.col("game_id").cast(pl.String).alias("_bare")), on="_bare", how="anti")
            .drop("_bare")
        )
    return games


def _without_late_games(
    table: GamesTable, state: EloState, games: Any, date: dt.date | None, since: dt.date | None, notes: list[str]
) -> tuple[Any, Any]:
    """New games of days the state has rated arrived late: listed (the late games returned with
    ``games`` less them), never rated out of order; a warning for each kind added to ``notes``."""
    import polars as pl

    late = _late_games(table, state)
    earlier = _earlier_games(table, state, since if date is not None else None, late)
    if earlier.height:
        late = pl.concat([late, earlier]).sort(["finished_at", "game_id"])
    if late.height:
        games = games.join(late.select("game_id"), on="game_id", how="anti")
    if earlier.height:
        notes.append(_earlier_warning(earlier, state, since))
    late_now = late.height - earlier.height
    if late_now:
        late_only = late.join(earlier.select("game_id"), on="game_id", how="anti")
        notes.append(
            f"warning: {late_now} game(s) finished on a day the --state folder had already rated and were not rated "
            f"(see late_games.csv; first: {late_only['game_id'][0]!r}, {late_only['finished_at'][0]})"
        )
    return games, late


def _without_unnamed_games(table: GamesTable, games: Any, notes: list[str]) -> tuple[Any, int]:
    """Replayed Netskrafl games without player ids (:attr:`GamesTable.unnamed`): not rated as the
    seats player0 and player1 (every game would be between the same two people). Returns the
    games less them and their number (said in a warning added to ``notes``)."""
    import polars as pl

    if not table.unnamed:
        return games, 0
    rows = pl.DataFrame({"row": list(table.unnamed)}, schema={"row": pl.Int64})
    left_out = games.join(rows, on="row", how="semi")
    unnamed = left_out.height
    if unnamed:
        notes.append(
            f"warning: {unnamed} replayed Netskrafl game(s) not rated: the record names no players (its seats are "
            f"'player0' and 'player1', not player ids){_unnamed_hint(table)} (first: {left_out.sort('row')['game_id'][0]!r})"
        )
    return games.join(rows, on="row", how="anti", maintain_order="left"), unnamed


def _in_game_order(games: Any) -> Any:
    """Game order: finished_at then game_id; the games without a time (GCG files) after them, in
    file order (the table's rows: replay writes its files in path order)."""
    import polars as pl

    untimed = pl.col("finished_at").is_null()
    timed_games, untimed_games = games.filter(~untimed).sort(["finished_at", "game_id"]), games.filter(untimed).sort("row")
    return pl.concat([timed_games, untimed_games])


def _without_zero_games(games: Any, params: EloParams) -> tuple[Any, int]:
    """The games less the 0–0 ones the rules ignore (with ``params.min_moves``, the per-game
    model's, also a game resigned before that move), and how many those were."""
    import polars as pl

    zero = (pl.col("score0") == 0) & (pl.col("score1") == 0)
    if params.min_moves:  # the per-game model: no change for a game resigned on move 1 or 2
        zero = zero | (pl.col("moves").is_not_null() & (pl.col("moves") < params.min_moves))
    return games.filter(~zero), games.filter(zero).height


def _two_player_finished_games(games: Any, notes: list[str]) -> Any:
    """Elo rates two players: a game of 3 or 4 (replay tables) is not rated, nor is one not
    finished (each kind said in a warning added to ``notes``)."""
    import polars as pl

    many = pl.col("players").fill_null(2) > 2
    unfinished = pl.col("finished").is_not_null() & ~pl.col("finished")
    for what, mask in (
        ("of 3 or 4 players (Elo rates a game between two: splitting it into pairs would invent results)", many),
        ("not finished (no winner yet)", unfinished & ~many),
    ):
        left_out = games.filter(mask)
        if left_out.height:
            notes.append(f"warning: {left_out.height} game(s) {what} not rated (first: {left_out['game_id'][0]!r})")
    return games.filter(~many & ~unfinished)


def _untimed_games_note(games: Any) -> str | None:
    """The note on the games rated without a finished_at (after those with times, in file order)."""
    import polars as pl

    untimed = pl.col("finished_at").is_null()
    n_untimed = games.filter(untimed).height
    if not n_untimed:
        return None
    with_times = games.height - n_untimed
    where = f", after the {with_times} with times (at the end of the last day rated)" if with_times else ""
    return (
        f"{n_untimed} game(s) without a finished_at (a GCG file without #finished-at or #date) rated in file order (the table's "
        f"rows){where}; first: {games.filter(untimed)['game_id'][0]!r}"
    )


def _check_something_to_rate(table: GamesTable, chosen: _GamesToRate, date: dt.date | None, explain: str | None) -> None:
    """The table has games and not one was rated, nor rated before, nor a 0-0 game the rules
    ignore (counted in the summary): a :class:`DataError` naming why, not "0 games rated" and exit 0."""
    if date is not None or explain is not None or not table.source_rows:
        return
    if chosen.games.height or chosen.skipped or chosen.ignored or chosen.late.height:
        return
    why = "; ".join(n.removeprefix("warning: ") for n in chosen.notes if " not rated" in n or " skipped" in n)
    raise DataError(
        f"nothing rated: none of the table's {table.source_rows} game(s) can be rated ({why or 'no game left'}); nothing written",
        path=table.path,
    )


# ---------------------------------------------------------------------------------------------
# The run's days and players
# ---------------------------------------------------------------------------------------------


@dataclass
class _RunDays:
    """The output's time of the last game rated, the day it reports, the days it has rated and
    the start of the rating changes' window (``None`` with ``--explain``)."""

    as_of: dt.datetime | None
    report_day: dt.date | None
    days_rated: DaysRated | None
    window_start: dt.date | None


def _run_days(
    table: GamesTable,
    state: EloState,
    games: Any,
    date: dt.date | None,
    days_rated: DaysRated | None,
    explain: str | None,
) -> _RunDays:
    """The run's days (:class:`_RunDays`); ``days_rated``: those :func:`state.plan_days` planned
    for a run with ``date``."""
    as_of = state.as_of
    last = games["finished_at"].max() if games.height and not table.ordered_by_row else None
    if last is not None:
        as_of = last if as_of is None or last > as_of else as_of
    report_day = date if date is not None else (as_of.date() if as_of is not None else None)
    if date is None and not table.ordered_by_row and as_of is not None:
        # A run without --date rates every day up to its last game's day.
        last_day = max(as_of.date(), state.days_rated.last) if state.days_rated is not None else as_of.date()
        days_rated = DaysRated(state.days_rated.first if state.days_rated is not None else None, last_day)
        report_day = last_day  # (a later day than the last game's when the state rated nights without games)
    elif date is None:
        days_rated = state.days_rated
    window_start = report_day - dt.timedelta(days=CHANGE_DAYS[-1]) if report_day is not None and explain is None else None
    return _RunDays(as_of, report_day, days_rated, window_start)


@dataclass
class _Players:
    """The player indices 0 … n−1 over the state's players and this run's, in name order."""

    names: Any  # polars Series: the player ids in index order
    pids: Any  # numpy int64: the indices of player0 of every game, player1 of every game, the state's rows
    count: int
    held: Any = None  # numpy bool per player, with --anchors: held at its anchor rating
    anchor_ratings: Any = None  # numpy int64 per player, with --anchors


def _player_table(games: Any, state: EloState, anchors: dict[str, int] | None) -> _Players:
    """Number the players of ``games`` and of the state's ratings (:class:`_Players`)."""
    import numpy as np

    names, pids = _player_indices([games["player0"], games["player1"], state.ratings["player"]])
    players = _Players(names, pids, names.len())
    if anchors:
        players.held = np.zeros(players.count, dtype=bool)
        players.anchor_ratings = np.zeros(players.count, dtype=np.int64)
        for who, rating in anchors.items():
            hits = (names == who).arg_true()
            if hits.len():
                players.held[int(hits[0])] = True
                players.anchor_ratings[int(hits[0])] = int(rating)
    return players


def _with_rating_columns(games: Any, players: _Players, report_day: dt.date | None, table: GamesTable) -> Any:
    """The games with the columns the rating loop reads: the player indices ``a`` and ``b``,
    player0's result ``result0`` (1, ½, 0) and the UTC ``day`` (days since 1970; the report day
    for a game without a time, 0 for a table in row order)."""
    import polars as pl

    n_games = games.height
    return games.with_columns(
        pl.Series("a", players.pids[:n_games]),
        pl.Series("b", players.pids[n_games : 2 * n_games]),
        pl.when(pl.col("score0") > pl.col("score1"))
        .then(1.0)
        .when(pl.col("score0") < pl.col("score1"))
        .then(0.0)
        .otherwise(0.5)
        .alias("result0"),
        (
            pl.col("finished_at").dt.date().cast(pl.Int32).fill_null((report_day - _EPOCH).days if report_day else 0)
            if not table.ordered_by_row
            else pl.lit(0, dtype=pl.Int32)
        ).alias("day"),
    )


def _state_ratings(state: EloState, players: _Players, n_games: int) -> Any:
    """The state's ratings with each row's player index ``pid`` and a ``locale`` ("" when none);
    ``n_games``: the run's games (their players come first in ``players.pids``)."""
    import polars as pl

    old = state.ratings.with_columns(pl.Series("pid", players.pids[2 * n_games :]))
    return (
        old.with_columns(pl.col("locale").fill_null(""))
        if "locale" in old.columns
        else old.with_columns(pl.lit("", dtype=pl.String).alias("locale"))
    )


# ---------------------------------------------------------------------------------------------
# The rating jobs: one per (locale, list)
# ---------------------------------------------------------------------------------------------

_TALLIES: tuple[str, ...] = ("games", "wins", "losses", "draws", "score_for", "score_against")
"""The counts of a ratings row besides the rating, summed over the state's games and the run's."""


def _snapshot_days(games: Any, date: dt.date | None, since: dt.date | None, window_start: dt.date | None) -> list[int]:
    """The days (since 1970) after which the loops keep the ratings for the history: without
    ``--date`` every day of the window with games, and the window's start; with ``--date`` every
    day it rates in the window (each a night, with or without games), and the window's start when
    it rates that day."""
    from pipelines.stops import polars_numpy_ready

    polars_numpy_ready()  # a stop in polars' first to_numpy() would be a Rust panic
    days = games["day"].to_numpy()
    cut_days: list[int] = []
    if window_start is not None and date is not None:
        ws = (window_start - _EPOCH).days
        end = (date - _EPOCH).days
        lo = (since - _EPOCH).days if since is not None else (int(days[0]) if games.height else end)
        cut_days = list(range(max(lo, ws + 1), end + 1))
        if lo <= ws:
            cut_days.insert(0, ws)
    elif window_start is not None and games.height:
        ws = (window_start - _EPOCH).days
        cut_days = sorted(set(days[days > ws].tolist()))
        if days[0] <= ws:
            cut_days.insert(0, ws)
    return cut_days


def _explained_player(names: Any, explain: str | None) -> int | None:
    """The player index of ``--explain``'s player (``None`` without one, or a player not seen)."""
    if explain is None:
        return None
    hits = (names == explain).arg_true()
    return int(hits[0]) if hits.len() else None


def _progress_bar(compact: Any, n_games: int, quiet: bool) -> Any:
    """A progress bar on stderr over every list's games, for a big run that is not quiet."""
    if quiet or n_games < 200_000:
        return None
    from tqdm import tqdm

    return tqdm(total=sum(compact.filter(_list_filter(n)).height for n in LISTS), unit="game", desc="elo", leave=False)


@dataclass
class _EveryGame:
    """Numpy arrays over every game of the run (all lists and locales), for the "established"
    counts taken from other games: the player indices, human games, locales."""

    a: Any
    b: Any
    human: Any
    locale: Any


@dataclass
class _RatingContext:
    """What each (locale, list) job is made from: the run's games (``compact``, with the game
    index ``gi``), the state's ratings by player index, the players, the parameters, the snapshot
    days and the explained player's index."""

    compact: Any
    old: Any
    players: _Players
    params: EloParams
    cut_days: list[int]
    explain_pid: int | None


@dataclass
class _ListRun:
    """One (locale, list)'s games, its counts (the state's, then the run's added) and its job."""

    name: str
    locale: str
    games: Any  # polars DataFrame: the list's games of the locale, in game order
    counts: dict[str, Any]  # "rating" and the _TALLIES: numpy int64 per player index
    job: ListJob


def _list_runs(ctx: _RatingContext) -> list[_ListRun]:
    """Ratings per locale: every (locale, list) is rated on its own."""
    compact = ctx.compact
    locales = sorted(set(compact["locale"].to_list()) | set(ctx.old["locale"].to_list())) or [""]
    every = _EveryGame(
        compact["a"].to_numpy(),
        compact["b"].to_numpy(),
        (~compact["robot0"] & ~compact["robot1"]).to_numpy(),
        compact["locale"].to_numpy(),
    )
    return [_list_run(ctx, every, loc, name) for loc in locales for name in LISTS]


def _list_run(ctx: _RatingContext, every: _EveryGame, loc: str, name: str) -> _ListRun:
    """The job of list ``name`` in locale ``loc``."""
    import polars as pl

    sub = ctx.compact.filter(_list_filter(name) & (pl.col("locale") == loc))
    prev = ctx.old.filter((pl.col("list") == name) & (pl.col("locale") == loc))
    counts = _starting_counts(prev, name, ctx.players, ctx.params)
    a = sub["a"].to_numpy()
    b = sub["b"].to_numpy()
    established = _established_games(ctx, every, name, loc, sub["gi"].to_numpy(), a, b)
    job = ListJob(
        held=ctx.players.held,
        a=a,
        b=b,
        result=sub["result0"].to_numpy(),
        robot_a=sub["robot0"].to_numpy(),
        robot_b=sub["robot1"].to_numpy(),
        prior_games=counts["games"].copy(),
        ratings=counts["rating"].tolist(),
        stops=_loop_stops(sub["day"].to_numpy(), a, b, ctx.cut_days, ctx.explain_pid),
        params=ctx.params,
        established=established,
    )
    return _ListRun(name, loc, sub, counts, job)


def _starting_counts(prev: Any, name: str, players: _Players, params: EloParams) -> dict[str, Any]:
    """Each player's rating and counts before the run in list ``name`` (rows ``prev`` of the
    state): new players at ``params.start``, anchored players at their anchor."""
    import numpy as np

    prev_pids = prev["pid"].to_numpy()
    counts = {c: np.zeros(players.count, dtype=np.int64) for c in ("rating", *_TALLIES)}
    counts["rating"][:] = params.start
    for c in counts:
        counts[c][prev_pids] = prev[c].to_numpy()
    if params.zero_is_start and name != "all":  # Netskrafl's "human_elo or DEFAULT_ELO"
        counts["rating"][prev_pids[prev["rating"].to_numpy() == 0]] = params.start
    if players.held is not None:
        counts["rating"][players.held] = players.anchor_ratings[players.held]
    return counts


def _prior_human_games(old: Any, n_players: int, loc: str | None) -> Any:
    """Each player's human games in the state (one locale, or all when ``loc`` is None)."""
    import numpy as np
    import polars as pl

    got = np.zeros(n_players, dtype=np.int64)
    rows = old.filter((pl.col("list") == "human") & (pl.lit(True) if loc is None else (pl.col("locale") == loc)))
    np.add.at(got, rows["pid"].to_numpy(), rows["games"].to_numpy())
    return got


def _established_games(ctx: _RatingContext, every: _EveryGame, name: str, loc: str, gi: Any, a: Any, b: Any) -> Any:
    """Each side's games that count for "established" when they are not the list's own (global
    game indices ``gi``), or ``None``."""
    if ctx.params.established_by == "netskrafl" and name == "competition":
        # the nightly batch: the competition list counts the player's human games
        src, prior = every.human & (every.locale == loc), _prior_human_games(ctx.old, ctx.players.count, loc)
    elif ctx.params.established_by == "human_total":
        # the per-game model: the player's human games in every locale, for every list
        src, prior = every.human, _prior_human_games(ctx.old, ctx.players.count, None)
    else:
        return None
    return (counts_in(src, every.a, every.b, prior, gi, a), counts_in(src, every.a, every.b, prior, gi, b))


def _loop_stops(
    sub_days: Any, a: Any, b: Any, cut_days: list[int], explain_pid: int | None
) -> list[tuple[int, list[tuple[str, int]]]]:
    """Where a list's loop stops (:attr:`ListJob.stops`): the snapshot days, the explained
    player's games, progress chunks and the end."""
    import numpy as np

    n = len(sub_days)
    stops: dict[int, list[tuple[str, int]]] = {}
    for d in cut_days:
        stops.setdefault(int(np.searchsorted(sub_days, d, side="right")), []).append(("snap", d))
    if explain_pid is not None:
        for i in np.flatnonzero((a == explain_pid) | (b == explain_pid)).tolist():
            stops.setdefault(i, []).append(("before", i))
            stops.setdefault(i + 1, []).append(("after", i))
    for i in range(_CHUNK, n, _CHUNK):
        stops.setdefault(i, [])
    stops.setdefault(n, [])
    return sorted(stops.items())


# ---------------------------------------------------------------------------------------------
# The outputs: the ratings rows, the snapshots, the trace
# ---------------------------------------------------------------------------------------------


def _add_snapshot_parts(snap_parts: dict[int, list[Any]], run: _ListRun, result: Any) -> None:
    """A list's ratings at each snapshot day (of the players who had played by then)."""
    import numpy as np

    for d, (hi, Rd) in result.snaps.items():
        played = np.flatnonzero((run.counts["games"] > 0) | (result.first < hi))
        snap_parts[d].append((LISTS.index(run.name), run.locale, played, np.asarray(Rd, dtype=np.int64)[played]))


def _add_trace_rows(
    trace: list[dict[str, Any]] | None,
    run: _ListRun,
    result: Any,
    games: Any,
    explain_pid: int | None,
    params: EloParams,
) -> None:
    """The explained player's games of a list, one row each (:func:`_explain_row`)."""
    for i, (before, after, ks) in sorted(result.moments.items()):
        assert trace is not None and explain_pid is not None  # moments are recorded for --explain's player
        gi = int(run.games["gi"][i])
        trace.append(_explain_row(run.name, games.row(gi, named=True), explain_pid, before, after, ks[0], ks[1], params))


def _add_run_tallies(run: _ListRun, result: Any, n_players: int) -> None:
    """Counts: the state's plus this run's (numpy bincount over player indices); the ratings the
    loop ended with."""
    import numpy as np

    a, b, r0 = run.job.a, run.job.b, run.job.result
    counts, sub = run.counts, run.games

    def tally(idx: Any, weights: Any = None) -> Any:
        return np.bincount(idx, weights=weights, minlength=n_players)

    s0 = sub["score0"].to_numpy().astype(np.float64)
    s1 = sub["score1"].to_numpy().astype(np.float64)
    win0 = (r0 == 1.0).astype(np.float64)
    loss0 = (r0 == 0.0).astype(np.float64)
    draw = (r0 == 0.5).astype(np.float64)
    counts["games"] += tally(a) + tally(b)
    counts["wins"] += (tally(a, win0) + tally(b, loss0)).astype(np.int64)
    counts["losses"] += (tally(a, loss0) + tally(b, win0)).astype(np.int64)
    counts["draws"] += (tally(a, draw) + tally(b, draw)).astype(np.int64)
    counts["score_for"] += (tally(a, s0) + tally(b, s1)).astype(np.int64)
    counts["score_against"] += (tally(a, s1) + tally(b, s0)).astype(np.int64)
    counts["rating"] = np.asarray(result.ratings, dtype=np.int64)


def _list_frame(run: _ListRun, names: Any, robot: Any) -> Any:
    """A list's ratings rows of one locale: the players who have played in it."""
    import numpy as np
    import polars as pl

    counts = run.counts
    played = np.flatnonzero(counts["games"] > 0)
    return _player_frame(run.name, names, played, counts["rating"][played]).with_columns(
        pl.lit(run.locale, dtype=pl.String).alias("locale"),
        pl.Series("robot", robot[played]),
        *(pl.Series(c, counts[c][played]) for c in _TALLIES),
    )


def _list_order() -> Any:
    """The lists' output order as a joinable column ``_order``."""
    import polars as pl

    return pl.DataFrame({"list": list(LISTS), "_order": [0, 1, 2]})


def _ratings_frame(frames: list[Any], as_of: dt.datetime | None) -> Any:
    """The ratings table (:data:`RATINGS_COLUMNS`): the lists in order, each by locale, rating
    (highest first) and player."""
    import polars as pl

    return (
        pl.concat(frames)
        .with_columns(pl.lit(as_of, dtype=pl.Datetime("us", "UTC")).alias("as_of"))
        .join(_list_order(), on="list")
        .sort(["_order", "locale", "rating", "player"], descending=[False, False, True, False])
        .select(RATINGS_COLUMNS)
        .cast(ratings_schema())
    )


def _snapshots(
    names: Any, snap_parts: dict[int, list[Any]], ratings: Any, report_day: dt.date | None, explain: str | None
) -> dict[dt.date, Any]:
    """The new history snapshots: day → DataFrame(list, locale, player, rating); the report
    day's from the final ratings."""
    snapshots = {_EPOCH + dt.timedelta(days=d): _snapshot_frame(names, parts) for d, parts in snap_parts.items() if parts}
    if report_day is not None and explain is None:
        snapshots[report_day] = (
            ratings.join(_list_order(), on="list")
            .sort(["_order", "locale", "player"])
            .select("list", "locale", "player", "rating")
        )
    return snapshots


def _late_games(table: GamesTable, state: EloState) -> Any:
    """The games of ``table`` not in ``state`` that finished on a day the state has rated (or
    before its first rated day), in game order, with the reason (:data:`LATE_COLUMNS`)."""
    import polars as pl

    rated = state.days_rated
    schema = {
        "game_id": pl.String,
        "finished_at": pl.String,
        "player0": pl.String,
        "player1": pl.String,
        "score0": pl.Int64,
        "score1": pl.Int64,
        "reason": pl.String,
    }
    if rated is None or table.ordered_by_row:
        return pl.DataFrame(schema=schema)
    day = pl.col("finished_at").dt.date()
    late = table.frame.filter(day <= rated.last)
    if table.unnamed:  # never rated anyway: not listed as late either
        late = late.join(pl.DataFrame({"row": list(table.unnamed)}, schema={"row": pl.Int64}), on="row", how="anti")
    if state.processed.height:
        late = late.join(state.processed.select("game_id"), on="game_id", how="anti")
    before = (day < rated.first) if rated.first is not None else pl.lit(False)
    return (
        late.sort(["finished_at", "game_id"])
        .with_columns(
            pl.when(before)
            .then(pl.lit(f"finished before {rated.first}, the first day the state rated: not rated"))
            .otherwise(
                pl.format(
                    "finished on {}, a day the state had already rated (up to {}): not rated",
                    day.cast(pl.String),
                    pl.lit(rated.last.isoformat()),
                )
            )
            .alias("reason"),
            pl.col("finished_at").dt.strftime("%Y-%m-%dT%H:%M:%S%.fZ").alias("finished_at"),
        )
        .select(LATE_COLUMNS)
        .cast(schema)
    )


def _earlier_games(table: GamesTable, state: EloState, since: dt.date | None, late: Any) -> Any:
    """``--date D`` from no state, or from a state that records no rated days, without
    ``--catch-up``: the run rates D only (``since`` = D) and its output records D as its first
    rated day, so the games of the table that finished before D and are not in the state would be
    left out for good without a word. They are returned (:data:`LATE_COLUMNS`, the reason saying
    how to rate them) to be listed in ``late_games.csv`` and counted in a warning; a state that
    records its days lists its own (:func:`_late_games`)."""
    import polars as pl

    if since is None or state.days_rated is not None or table.ordered_by_row:
        return late.clear()
    day = pl.col("finished_at").dt.date()
    earlier = table.frame.filter(day < since)
    if table.unnamed:  # never rated anyway: not listed
        earlier = earlier.join(pl.DataFrame({"row": list(table.unnamed)}, schema={"row": pl.Int64}), on="row", how="anti")
    if state.processed.height:
        earlier = earlier.join(state.processed.select("game_id"), on="game_id", how="anti")
    how = "add --catch-up" if state.folder is None else "rate the table from scratch (no --state, with --catch-up)"
    return (
        earlier.sort(["finished_at", "game_id"])
        .with_columns(
            pl.lit(f"finished before {since}, the first day this run rated (--date without --catch-up): not rated; {how}").alias(
                "reason"
            ),
            pl.col("finished_at").dt.strftime("%Y-%m-%dT%H:%M:%S%.fZ").alias("finished_at"),
        )
        .select(LATE_COLUMNS)
        .cast(late.schema)
    )


def _earlier_warning(earlier: Any, state: EloState, since: dt.date | None) -> str:
    if state.folder is None:
        why, how = "from no --state", f"add --catch-up to rate every day up to {since}"
    else:
        why = "on a --state that records no rated days"
        how = (
            "that state cannot be caught up (--catch-up needs the days it rated): "
            f"rate the table from scratch instead (no --state, --date {since} --catch-up)"
        )
    return (
        f"warning: {earlier.height} game(s) finished before {since} and were not rated: --date {since} {why} rates "
        f"that day only (see late_games.csv; first: {earlier['game_id'][0]!r}, {earlier['finished_at'][0]}); {how}"
    )


def _unnamed_hint(table: GamesTable) -> str:
    if table.players_from is not None:
        from pipelines.postgres import redact

        return f", and their game_id is not in the games table of {redact(table.players_from)}"
    return "; --players-from postgresql://… names them from Netskrafl's games table"


def _player_indices(columns: list[Any]) -> tuple[Any, Any]:
    """Number the distinct player ids of ``columns`` 0 … n−1 in name order.

    Returns (the names in order as a polars Series, a numpy int64 array with the index of every
    value of the columns, concatenated). One hashing pass: a categorical cast, then the codes are
    renumbered by name.
    """
    import numpy as np
    import polars as pl

    both = pl.concat([c.cast(pl.String) for c in columns]).cast(pl.Categorical)
    codes = both.to_physical().to_numpy().astype(np.int64)
    distinct = both.unique()
    names = distinct.cast(pl.String)
    order = names.arg_sort().to_numpy()
    distinct_codes = distinct.to_physical().to_numpy().astype(np.int64)
    renumber = np.zeros(int(distinct_codes.max()) + 1 if len(distinct_codes) else 1, dtype=np.int64)
    renumber[distinct_codes[order]] = np.arange(len(order), dtype=np.int64)
    return names.gather(order).alias("player"), renumber[codes] if len(codes) else codes


def _snapshot_frame(names: Any, parts: list[tuple[int, str, Any, Any]]) -> Any:
    """(list, locale, player, rating) rows from (list number, locale, player indices, ratings) parts."""
    import polars as pl

    frame = pl.concat(
        [
            pl.DataFrame({"pid": pids, "rating": ratings}).with_columns(
                pl.lit(LISTS[i]).alias("list"), pl.lit(loc, dtype=pl.String).alias("locale")
            )
            for i, loc, pids, ratings in parts
        ]
    )
    return pl.DataFrame(
        {
            "list": frame["list"],
            "locale": frame["locale"],
            "player": names.gather(frame["pid"]),
            "rating": frame["rating"].cast(pl.Int64),
        }
    )


def with_optional_columns(table: GamesTable) -> Any:
    """The games of ``table`` with the optional columns ``locale`` ("" when absent), ``moves``,
    ``players`` and ``finished`` (null when absent) joined by row (:mod:`.optional`)."""
    import polars as pl

    from .optional import extra_columns

    games = table.frame
    if all(c in games.columns for c in ("locale", "moves", "players", "finished")):  # a reader that kept them
        return games.with_columns(pl.col("locale").fill_null(""))
    source = Path(table.path) if table.path and "://" not in table.path else None
    if source is not None and source.is_dir() and (source / "games.parquet").is_file():
        source = source / "games.parquet"  # a replay --out folder (a --dataset folder: not yet, see the report)
    try:
        extra = extra_columns(source) if source is not None and source.is_file() else None
    except (OSError, pl.exceptions.PolarsError):
        extra = None
    defaults = {
        "locale": pl.lit("", dtype=pl.String),
        "moves": pl.lit(None, dtype=pl.Int64),
        "players": pl.lit(None, dtype=pl.Int64),
        "finished": pl.lit(None, dtype=pl.Boolean),
    }
    if extra is not None:  # the columns the reader did not keep, from the file, by data row
        wanted = [c for c in defaults if c not in games.columns]
        games = games.join(extra.select("row", *wanted), on="row", how="left", maintain_order="left")
    return games.with_columns([v.alias(c) for c, v in defaults.items() if c not in games.columns]).with_columns(
        pl.col("locale").fill_null("")
    )


def _player_frame(name: str, names: Any, pids: Any, ratings: Any) -> Any:
    """(list, player, rating) rows for player indices ``pids`` (in name order)."""
    import polars as pl

    return pl.DataFrame(
        {
            "list": pl.Series([name] * len(pids), dtype=pl.String),
            "player": names.gather(pids),
            "rating": pl.Series(ratings, dtype=pl.Int64),
        }
    )


def _robot_flags(games: Any, old: Any, n_players: int, names: Any, table: GamesTable) -> Any:
    """Which player indices are robots; raises :class:`DataError` when a player id is a robot in
    some rows and a human in others (a robot's player id is its name)."""
    import numpy as np
    import polars as pl

    a = games["a"].to_numpy()
    b = games["b"].to_numpy()
    r0 = games["robot0"].to_numpy()
    r1 = games["robot1"].to_numpy()
    seen = np.bincount(a, minlength=n_players) + np.bincount(b, minlength=n_players)
    as_robot = np.bincount(a, weights=r0, minlength=n_players) + np.bincount(b, weights=r1, minlength=n_players)
    mixed = np.flatnonzero((as_robot > 0) & (as_robot < seen))
    if len(mixed):
        pid = int(mixed[0])
        rows = games.filter((pl.col("a") == pid) | (pl.col("b") == pid)).sort("row")
        flags = [(r0_ if a_ == pid else r1_) for a_, r0_, r1_ in zip(rows["a"], rows["robot0"], rows["robot1"], strict=True)]
        r = int(rows["row"][next(i for i, f in enumerate(flags) if f != flags[0])])
        raise DataError(
            f"column 'robot0'/'robot1', row {r}: player {names[pid]!r} is marked a robot in some rows and a human in others",
            *table.where(r),
        )
    robot = as_robot > 0
    robot[old.filter(pl.col("robot"))["pid"].to_numpy()] = True
    return robot


def _explain_row(
    name: str,
    row: dict[str, Any],
    pid: int,
    before: tuple[int, int],
    after: tuple[int, int],
    k_a: int,
    k_b: int,
    params: EloParams,
) -> dict[str, Any]:
    me = 0 if row["a"] == pid else 1
    op = 1 - me
    result = row["result0"] if me == 0 else 1.0 - row["result0"]
    when = row["finished_at"]
    return {
        "list": name,
        "game_id": row["game_id"],
        "finished_at": when.isoformat().replace("+00:00", "Z") if when is not None else "",
        "opponent": row[f"player{op}"],
        "opp_rating": before[op],
        "score": f"{row[f'score{me}']}-{row[f'score{op}']}",
        "result": {1.0: "win", 0.5: "draw", 0.0: "loss"}[result],
        "expected": round(100 * expected_score(before[me], before[op], params.scale), 1),
        "k": int((k_a, k_b)[me]),
        "before": before[me],
        "change": after[me] - before[me],
        "rating": after[me],
    }
