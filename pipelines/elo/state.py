"""The state: a previous output folder read back (``--state``), and the run's parameters."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gamecore.errors import DataError, UsageError

from .rating import EloParams, params_for

STATE_VERSION = 1

RATINGS_COLUMNS: tuple[str, ...] = (
    "list",
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


# ---------------------------------------------------------------------------------------------
# State (a previous output folder)
# ---------------------------------------------------------------------------------------------


@dataclass
class EloState:
    """What a previous run left: ratings, processed game ids, parameters, as_of, history folder."""

    ratings: Any  # polars DataFrame with RATINGS_COLUMNS (minus as_of)
    processed: Any  # polars DataFrame: game_id (str), finished_at
    params: EloParams
    as_of: dt.datetime | None
    history: Path | None


def empty_state(params: EloParams) -> EloState:
    import polars as pl

    return EloState(
        ratings=pl.DataFrame(schema=_ratings_schema()).drop("as_of"),
        processed=pl.DataFrame(schema={"game_id": pl.String, "finished_at": pl.Datetime("us", "UTC")}),
        params=params,
        as_of=None,
        history=None,
    )


def _ratings_schema() -> dict[str, Any]:
    import polars as pl

    return {
        "list": pl.String,
        "player": pl.String,
        "robot": pl.Boolean,
        "rating": pl.Int64,
        "games": pl.Int64,
        "wins": pl.Int64,
        "losses": pl.Int64,
        "draws": pl.Int64,
        "score_for": pl.Int64,
        "score_against": pl.Int64,
        "as_of": pl.Datetime("us", "UTC"),
    }


def state_params(folder: str | Path) -> EloParams:
    """The rating parameters a previous output folder was made with (its ``params.json``).

    Raises:
        UsageError: not an ``skrafl elo`` output folder.
    """
    path = Path(folder) / "params.json"
    try:
        return EloParams(**json.loads(path.read_text(encoding="utf-8"))["params"])
    except (OSError, ValueError, KeyError, TypeError):
        raise UsageError(f"--state {folder}: not an output folder of skrafl elo (no readable params.json)") from None


def resolve_params(preset: str | None, state_dir: str | Path | None = None, **overrides: Any) -> EloParams:
    """The parameters of a run: ``preset`` (default ``netskrafl``), or with ``--state`` and no
    preset the state's own parameters, then the non-``None`` ``overrides`` (``k``,
    ``k_beginner``, ``established_after``, ``start``, ``scale``)."""
    if preset is None and state_dir is not None:
        changes = {k: v for k, v in overrides.items() if v is not None}
        return replace(state_params(state_dir), **changes).check()
    return params_for(preset or "netskrafl", **overrides)


def load_state(folder: str | Path) -> EloState:
    """Read a previous output folder (read only).

    Raises:
        UsageError: not an ``skrafl elo`` output folder.
        DataError: a damaged file in it.
    """
    import polars as pl

    folder = Path(folder)
    meta_path = folder / "params.json"
    if not meta_path.is_file() or not (folder / "ratings.parquet").is_file():
        raise UsageError(f"--state {folder}: not an output folder of skrafl elo (no params.json / ratings.parquet)")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        params = EloParams(**meta["params"])
        as_of = dt.datetime.fromisoformat(meta["as_of"]) if meta.get("as_of") else None
        ratings = pl.read_parquet(folder / "ratings.parquet").drop("as_of")
        processed = pl.read_parquet(folder / "processed.parquet")
    except (OSError, ValueError, KeyError, TypeError, pl.exceptions.PolarsError) as exc:
        raise DataError(f"damaged state folder: {str(exc).splitlines()[0]}", path=folder) from None
    try:
        params.check()
    except UsageError as exc:
        raise DataError(f"damaged state folder: params.json: {exc.message}", path=folder) from None
    _check_ratings(ratings, folder / "ratings.parquet")
    history = folder / "history"
    return EloState(ratings, processed, params, as_of, history if history.is_dir() else None)


STATE_RATING_MAX = 1_000_000
STATE_COUNT_MAX = 10**12
"""The largest rating and count (games, wins, …; absolute score totals ×1000) a state may hold."""


def _check_ratings(ratings: Any, path: Path) -> None:
    """Refuse a state's ratings table with missing columns, wrong types or absurd numbers.

    Raises:
        DataError: naming the file, the row (1-based) and the column.
    """
    import polars as pl

    schema = _ratings_schema()
    for column in RATINGS_COLUMNS:
        if column == "as_of":
            continue
        if column not in ratings.columns:
            raise DataError(f"damaged state: no column {column!r}", path=path)
        want = schema[column]
        got = ratings.schema[column]
        if not (got == want or (want == pl.Int64 and got.is_integer())):
            raise DataError(f"damaged state: column {column!r} is {got}, expected {want}", path=path)
    limits = {"rating": (0, STATE_RATING_MAX), "score_for": (-1000 * STATE_COUNT_MAX, 1000 * STATE_COUNT_MAX),
              "score_against": (-1000 * STATE_COUNT_MAX, 1000 * STATE_COUNT_MAX)}
    indexed = ratings.with_row_index("_row", offset=1)
    for column in ("rating", "games", "wins", "losses", "draws", "score_for", "score_against"):
        lo, hi = limits.get(column, (0, STATE_COUNT_MAX))
        bad = indexed.filter(pl.col(column).is_null() | (pl.col(column) < lo) | (pl.col(column) > hi))
        if bad.height:
            raise DataError(f"damaged state: column {column!r}, row {bad['_row'][0]}: {bad[column][0]} is not from {lo} to {hi}",
                            path=path)
    for column in ("list", "player"):
        bad = indexed.filter(pl.col(column).is_null())
        if bad.height:
            raise DataError(f"damaged state: column {column!r}, row {bad['_row'][0]}: empty value", path=path)

