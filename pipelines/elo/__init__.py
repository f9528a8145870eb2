"""Netskrafl's Elo rating system in batch: games table in, ratings and top-100 tables out.

The rules (docs/NETSKRAFL.md §5, Netskrafl's help FAQ "Elo-stig"):

- Q = 10^(R/scale) per player (scale 400); expected score E_a = Q_a / (Q_a + Q_b); result 1 for a
  win, 0.5 for a draw, 0 for a loss, decided by the final scores (the margin does not matter).
- Δ = round((result − E) × K) with Python's ``round`` (half to even). K = 20 for an established
  player, 32 for a beginner. Established = more than 10 games *in that list*, counting the current
  game. Robots are always established.
- Beginner rule: when an established player meets a beginner only the beginner's rating moves; two
  beginners both move; two established players both move.
- Start 1200; a rating never goes below 0; a game that ends 0–0 is ignored entirely (not counted).
- Three independent lists: ``all`` (every game, robots rated, one rating per robot name),
  ``human`` (both players human) and ``competition`` (human games played in competition mode).
- Games are processed in order of ``finished_at``, then ``game_id``; games without a time (GCG
  files, which have none unless ``#finished-at``) after them, in file order (a note says so).
- Not rated, each counted in a note: a game against oneself (the Ordspill.no rules), a game marked unrated
  (optional ``rated``/``unrated`` column), a game of 3–4 players, an unfinished game, a replayed
  Netskrafl record without player ids. A run without ``--date`` whose table has games and rates
  none of them (nor had rated them before, nor ignored them as 0–0) is a :class:`DataError`
  saying why, nothing written: never "0 games rated" and exit 0.

Input: one games table (CSV, Parquet or JSON lines) with the columns of :data:`GAME_COLUMNS`, or
the ``games.parquet`` written by ``skrafl replay`` (see :func:`read_games`).

Output folder (written atomically: a temporary sibling folder, then a rename):

- ``ratings.parquet``: one row per (list, player): ``list, player, robot, rating, games, wins,
  losses, draws, score_for, score_against, as_of``.
- ``top100_all.csv``, ``top100_human.csv``, ``top100_competition.csv``: ``rank, player, rating,
  games, wins, losses, win_pct, avg_score, change_1d, change_7d, change_30d``.
- ``history/ratings_YYYY-MM-DD.parquet``: the ratings (``list, player, rating``) at the end of that
  UTC day; the folder keeps the days after D−30 (D = the report day) and the newest one on or
  before D−30, which is all the 1/7/30-day changes need.
- ``processed.parquet``: the ``game_id`` and ``finished_at`` of every game rated so far (so a
  rerun with ``--state`` skips them), ``params.json``: the rating parameters, ``as_of``, the
  report day and ``days_rated`` (``{"first": day or null, "last": day}``: the UTC days rated).
- ``late_games.csv``: ``game_id, finished_at, player0, player1, score0, score1, reason``: the
  games that arrived for a day the ``--state`` folder had already rated (header only when none).

Days rated (the nightly job cannot skip a day). An output records the UTC days it has rated, as
one span ``first`` … ``last`` (:class:`state.DaysRated`); a day without games counts as rated once
a run for that day, or a later day, covered it.

- ``--date D`` without a state rates day D only (rated: D … D); with ``--catch-up`` every day up
  to D (rated: everything up to D).
- ``--date D --state S`` needs S to have rated D−1 (or D itself: the same night again). A missing
  day is a :class:`UsageError` naming the days ("--state S has not rated 2024-05-04: run those
  days first or add --catch-up"); with ``--catch-up`` the missing days are rated first, in order,
  from the same games table, then D — the result (ratings, history, top tables) equals one
  nightly run per day. A D before S's last rated day is refused.
- A run without ``--date`` rates every game not yet rated and, with times, counts every day up
  to its last game's day as rated (``first`` stays the state's; from nothing: everything).
- A new game (not in S) that finished on a day S has rated — or before S's first rated day — is
  never rated out of order: it is listed in ``late_games.csv`` with the reason, counted in a
  ``warning:`` note (stderr, even with ``-q``), and not rated (it stays out of ``processed``, so
  it is reported again by the next run).
- A state of an older skrafl (``params.json`` version 1) records no days: it is not checked,
  and ``--catch-up`` on it is refused. A replay table without times has no days at all.

Continuing (``--state``): the previous folder's ratings and counts are the starting point, games
whose ``game_id`` it already rated are skipped (so the same night run twice gives the same
result), and the new games are rated after the old ones, in their own order. The parameters must
be the state's own (a different K or start needs a fresh run).

Parameter ranges (:data:`rating.PARAM_RANGES`, checked by :meth:`EloParams.check` and the CLI):
K and K beginner 0–1000, established after 0–1,000,000, start 0–10,000, scale 100–10,000 (finite).

Speed: the three lists are independent, so the work is vectorised with polars/numpy (ordering,
player indices, games-so-far counts, K per game, totals) and only the rating update itself runs as
a sequential loop (:func:`rating._rate_games`, plain Python over flat arrays). With two or more
CPUs the largest list's loop runs in a worker process (``concurrent.futures``, see
:func:`rating._run_jobs`) while the others run here; results are identical to the serial run.

The package, by concept: :mod:`.rating` (parameters, the Elo arithmetic, the loop over one list's
games), :mod:`.games` (reading and validating the games table), :mod:`.state` (a previous output
folder read back), :mod:`.batch` (:func:`compute`: the three lists rated), :mod:`.tables` (top
tables, history, :func:`write_output`). This module keeps the public API.

Everything here raises :class:`gamecore.errors.SkraflError` (or a subclass) on bad input; nothing
prints except the optional progress bar on stderr.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from pathlib import Path
from typing import Any, Sequence

from gamecore.errors import UsageError

from . import batch, games, rating, state, tables
from .batch import CHANGE_DAYS, LATE_COLUMNS, LISTS, EloRun, compute
from .games import GAME_COLUMNS, GamesTable, read_games
from .rating import PRESETS, EloParams, expected_score, game_result, params_for, rating_change
from .state import (
    RATINGS_COLUMNS,
    STATE_VERSION,
    DaysRated,
    EloState,
    empty_state,
    load_state,
    plan_days,
    resolve_params,
    state_params,
)
from .tables import TOP_COLUMNS, _check_out, top_tables, write_output

__all__ = [
    "batch",
    "games",
    "rating",
    "state",
    "tables",
    "CHANGE_DAYS",
    "GAME_COLUMNS",
    "LATE_COLUMNS",
    "LISTS",
    "PRESETS",
    "RATINGS_COLUMNS",
    "STATE_VERSION",
    "TOP_COLUMNS",
    "DaysRated",
    "EloParams",
    "EloRun",
    "EloState",
    "GamesTable",
    "compute",
    "empty_state",
    "expected_score",
    "explain_player",
    "game_result",
    "load_state",
    "params_for",
    "plan_days",
    "rating_change",
    "read_games",
    "resolve_params",
    "run_elo",
    "state_params",
    "top_tables",
    "write_output",
]


def run_elo(
    games_path: str | Path,
    out_dir: str | Path,
    state_dir: str | Path | None = None,
    params: EloParams | None = None,
    date: dt.date | None = None,
    quiet: bool = True,
    catch_up: bool = False,
    ratings_to: str | None = None,
    ratings_table: str | None = None,
    players_from: str | None = None,
) -> EloRun:
    """Read, rate, write: the whole ``skrafl elo`` job. Returns the in-memory result.

    ``games_path`` may also be a replay dataset or output folder, or a PostgreSQL URL
    (:mod:`pipelines.postgres`: Netskrafl's ``games`` table). ``players_from``: a PostgreSQL URL
    whose ``games`` table names the players of replayed Netskrafl records (their record format
    has no player ids; :func:`read_games`).

    ``ratings_to``: a PostgreSQL URL the ratings written are also stored into (table
    ``ratings_table``), replacing that day's rows (idempotent per day), in step with the output
    folder: the connection is made before any work (an unreachable server costs nothing), the
    table is committed once every file is staged, just before the swap, and taken back if the
    swap fails (:class:`pipelines.postgres.RatingsWriter`): when any part of the run fails,
    neither the folder nor the table changes."""
    from pipelines.atomic import check_output_dir

    database = _is_url(games_path)
    _check_out(Path(out_dir), state_dir, None if database else games_path)
    games_inputs = [] if database else [games_path]
    inputs = [*games_inputs, *([state_dir] if state_dir is not None else [])]
    check_output_dir(Path(out_dir), "elo", inputs)  # refuse a bad --out before any work
    if players_from is not None:
        from pipelines.postgres import check_url

        check_url(players_from)
    writer = None
    if ratings_to is not None:
        from pipelines.postgres import RatingsWriter

        writer = RatingsWriter(ratings_to, ratings_table)  # connects now: a failure costs nothing
    try:
        table = read_games(games_path, players_from=players_from)
        prev = load_state(state_dir) if state_dir is not None else None
        if params is None:
            params = prev.params if prev is not None else PRESETS["netskrafl"]
        run = compute(table, prev, params, date=date, quiet=quiet, catch_up=catch_up)
        write_output(
            run,
            out_dir,
            state_dir,
            inputs=tuple(games_inputs),
            history=prev.history if prev is not None else None,
            ratings_to=writer,
        )
    finally:
        if writer is not None:
            writer.close()
    return run


def _is_url(path) -> bool:
    return isinstance(path, str) and path.split("://", 1)[0].lower() in ("postgresql", "postgres")


def explain_player(
    games_path: str | Path,
    player: str,
    state_dir: str | Path | None = None,
    params: EloParams | None = None,
    date: dt.date | None = None,
    lists: Sequence[str] = LISTS,
    catch_up: bool = False,
    players_from: str | None = None,
) -> list[dict[str, Any]]:
    """A player's rating history game by game: one dict per (list, game) with ``list, game_id,
    finished_at, opponent, opp_rating (before the game), score, result, expected (the player's
    win probability before the game, %), k (0 when the beginner rule holds the rating), before,
    change, rating``. Computed by the same loop as the ratings (it stops at the player's games).

    Raises:
        UsageError: the player has no rated game in the input.
    """
    table = read_games(games_path, players_from=players_from)
    prev = load_state(state_dir) if state_dir is not None else None
    if params is None:
        params = prev.params if prev is not None else PRESETS["netskrafl"]
    player = unicodedata.normalize("NFC", player)  # as the games table's names (read_games)
    run = compute(table, prev, params, date=date, explain=player, catch_up=catch_up)
    rows = [r for r in run.trace or [] if r["list"] in lists]
    if not rows:
        raise UsageError(_no_rated_game(player, games_path, lists, run.trace or []))
    return rows


def _no_rated_game(player: str, games_path: str | Path, lists: Sequence[str], trace: list[dict[str, Any]]) -> str:
    """Why ``--explain PLAYER`` has nothing to show: no rated game at all, or none in the lists
    asked for (``--list``), naming them and counting the player's games in the others."""
    where = str(games_path)
    if _is_url(games_path):
        from pipelines.postgres import redact

        where = redact(where)
    asked = [name for name in LISTS if name in lists]
    if not trace or len(asked) == len(LISTS):
        return f"player {player!r} has no rated game in {where}"
    counts = {name: sum(1 for r in trace if r["list"] == name) for name in LISTS if name not in asked}
    others = ", ".join(f"{n} in the {name} list" for name, n in counts.items() if n)
    names = " and ".join(asked)
    return f"player {player!r} has no rated game in the {names} list{'s' if len(asked) > 1 else ''} of {where} ({others})"
