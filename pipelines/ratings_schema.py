"""The columns of a ratings table (``ratings.parquet`` of ``skrafl elo`` and the PostgreSQL table
``elo --ratings-to`` writes), in one place: :mod:`pipelines.elo.state` and :mod:`pipelines.postgres`
both read them here (elo imports postgres lazily, so postgres may not import elo)."""

from __future__ import annotations

RATINGS_COLUMNS: tuple[str, ...] = (
    "list",
    "locale",
    "player",
    "robot",
    "rating",
    "games",
    "wins",
    "losses",
    "draws",
    "score_for",
    "score_against",
    "as_of",
)
"""list, locale, player, robot, rating, games, wins, losses, draws, score_for, score_against, as_of."""

__all__ = ["RATINGS_COLUMNS"]
