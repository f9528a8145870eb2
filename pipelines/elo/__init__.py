"""Netskrafl's Elo rating system in batch: games table in, ratings and top-100 tables out.

The rules, the input, the output folder, the days rated, ``--state``, the presets and the package
layout: docs/ELO.md. Everything here raises :class:`gamecore.errors.SkraflError` (or a subclass) on
bad input; nothing prints except the optional progress bar on stderr.
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
from .tables import TOP_COLUMNS, check_out, top_tables, write_output

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
    anchors: dict[str, int] | None = None,
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

    database = is_url(games_path)
    check_out(Path(out_dir), state_dir, None if database else games_path)
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
        run = compute(table, prev, params, date=date, quiet=quiet, catch_up=catch_up, anchors=anchors)
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


def is_url(path) -> bool:
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
    if is_url(games_path):
        from pipelines.postgres import redact

        where = redact(where)
    asked = [name for name in LISTS if name in lists]
    if not trace or len(asked) == len(LISTS):
        return f"player {player!r} has no rated game in {where}"
    counts = {name: sum(1 for r in trace if r["list"] == name) for name in LISTS if name not in asked}
    others = ", ".join(f"{n} in the {name} list" for name, n in counts.items() if n)
    names = " and ".join(asked)
    return f"player {player!r} has no rated game in the {names} list{'s' if len(asked) > 1 else ''} of {where} ({others})"
