"""The state: a previous output folder read back (``--state``), the run's parameters, and the
days a state has rated (:class:`DaysRated`, :func:`plan_days`)."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gamecore.errors import DataError, UsageError
from pipelines.ratings_schema import RATINGS_COLUMNS

from .rating import EloParams, params_for

STATE_VERSION = 2
"""2: ``params.json`` records ``days_rated``; 1 (older): it does not, so such a state is not
checked for skipped days."""


# ---------------------------------------------------------------------------------------------
# State (a previous output folder)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DaysRated:
    """The UTC days a state has rated: every day from ``first`` to ``last`` (both included);
    ``first`` is ``None`` when the state rated every day up to ``last`` (a run without
    ``--date``, or ``--catch-up`` from nothing). Games of a day a state has rated were all rated
    by it; a day without games counts as rated once a run for that day or a later day covered it.
    """

    first: dt.date | None
    last: dt.date

    def covers(self, day: dt.date) -> bool:
        return (self.first is None or self.first <= day) and day <= self.last

    def to_json(self) -> dict[str, str | None]:
        return {"first": self.first.isoformat() if self.first is not None else None, "last": self.last.isoformat()}

    @classmethod
    def from_json(cls, value: Any) -> "DaysRated | None":
        if value is None:
            return None
        first = value["first"]
        return cls(dt.date.fromisoformat(first) if first is not None else None, dt.date.fromisoformat(value["last"]))


@dataclass
class EloState:
    """What a previous run left: ratings, processed game ids, parameters, as_of, history folder,
    the days it rated (``None``: not recorded, a state of skrafl before version 2 or one without
    times) and the folder it was read from."""

    ratings: Any  # polars DataFrame with RATINGS_COLUMNS (minus as_of)
    processed: Any  # polars DataFrame: game_id (str), finished_at
    params: EloParams
    as_of: dt.datetime | None
    history: Path | None
    days_rated: DaysRated | None = None
    folder: Path | None = None


def empty_state(params: EloParams) -> EloState:
    import polars as pl

    return EloState(
        ratings=pl.DataFrame(schema=ratings_schema()).drop("as_of"),
        processed=pl.DataFrame(schema={"game_id": pl.String, "finished_at": pl.Datetime("us", "UTC")}),
        params=params,
        as_of=None,
        history=None,
    )


def _days_text(days: list[dt.date]) -> str:
    if len(days) <= 2:
        return " and ".join(d.isoformat() for d in days)
    return f"{days[0].isoformat()} to {days[-1].isoformat()} ({len(days)} days)"


def plan_days(state: EloState, date: dt.date | None, catch_up: bool) -> tuple[dt.date | None, DaysRated | None]:
    """Which days a run rates, and the days its output will have rated.

    Returns ``(since, days)``: with ``--date D`` the run rates the games of the days ``since`` …
    D (``since`` ``None``: every day up to D); ``days`` is what the new state records, or
    ``None`` when it is decided by the games (a run without ``--date``: see :func:`compute`).

    Raises:
        UsageError: ``--date D`` on a state that has not rated D−1 (the days are named) without
            ``catch_up``; a D before the state's last rated day; ``catch_up`` without ``date``, or
            on a state that records no days.
    """
    rated = state.days_rated
    where = f"--state {state.folder}" if state.folder is not None else "the state"
    if date is None:
        if catch_up:
            raise UsageError("--catch-up goes with --date (a run without --date rates every day of the games table)")
        return None, None
    if rated is None:
        if catch_up and state.folder is not None:
            raise UsageError(
                f"--catch-up: {where} does not record the days it rated (written by an older skrafl, or rated from games "
                "without times); rate from scratch instead"
            )
        # From nothing: only D, or with --catch-up every day up to D.
        return (None, DaysRated(None, date)) if catch_up else (date, DaysRated(date, date))
    if date < rated.last:
        raise UsageError(
            f"{where} has already rated the days up to {rated.last.isoformat()}: --date {date.isoformat()} "
            "is one of them (give a later day)"
        )
    missing = [rated.last + dt.timedelta(days=n) for n in range(1, (date - rated.last).days)]
    if missing and not catch_up:
        raise UsageError(f"{where} has not rated {_days_text(missing)}: run those days first or add --catch-up")
    since = missing[0] if missing else date
    return since, DaysRated(rated.first, date)


def ratings_schema() -> dict[str, Any]:
    import polars as pl

    return {
        "list": pl.String,
        "locale": pl.String,
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


def _state_folder(folder: str | Path) -> Path:
    """The generation a ``--state`` path names, checked whole (:func:`gamecore.folders.open_output`):
    every file of the state is read from it.

    Raises:
        UsageError: no such folder, not a skrafl output, or a damaged one (one line)."""
    from gamecore.folders import open_output

    try:
        return open_output(folder, "elo state")
    except DataError as exc:
        raise UsageError(f"--state {folder}: {exc.message}") from None


def state_params(folder: str | Path) -> EloParams:
    """The rating parameters a previous output folder was made with (its ``params.json``).

    Raises:
        UsageError: not an ``skrafl elo`` output folder.
    """
    path = _state_folder(folder) / "params.json"
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

    shown = Path(folder)
    folder = _state_folder(shown)
    meta_path = folder / "params.json"
    if not meta_path.is_file() or not (folder / "ratings.parquet").is_file():
        raise UsageError(f"--state {shown}: not an output folder of skrafl elo (no params.json / ratings.parquet)")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        params = EloParams(**meta["params"])
        as_of = dt.datetime.fromisoformat(meta["as_of"]) if meta.get("as_of") else None
        days_rated = DaysRated.from_json(meta.get("days_rated")) if meta.get("version", 1) >= 2 else None
        ratings = pl.read_parquet(folder / "ratings.parquet").drop("as_of")
        if "locale" not in ratings.columns:  # a state from before ratings per locale: one locale, ""
            ratings = ratings.with_columns(pl.lit("", dtype=pl.String).alias("locale"))
        processed = pl.read_parquet(folder / "processed.parquet")
    except (OSError, ValueError, KeyError, TypeError, pl.exceptions.PolarsError) as exc:
        raise DataError(f"damaged state folder: {str(exc).splitlines()[0]}", path=folder) from None
    try:
        params.check()
    except UsageError as exc:
        raise DataError(f"damaged state folder: params.json: {exc.message}", path=folder) from None
    _check_ratings(ratings, folder / "ratings.parquet")
    history = folder / "history"
    return EloState(ratings, processed, params, as_of, history if history.is_dir() else None, days_rated, shown)


STATE_RATING_MAX = 1_000_000
STATE_COUNT_MAX = 10**12
"""The largest rating and count (games, wins, …; absolute score totals ×1000) a state may hold."""


def _check_ratings(ratings: Any, path: Path) -> None:
    """Refuse a state's ratings table with missing columns, wrong types or absurd numbers.

    Raises:
        DataError: naming the file, the row (1-based) and the column.
    """
    import polars as pl

    schema = ratings_schema()
    for column in RATINGS_COLUMNS:
        if column == "as_of":
            continue
        if column not in ratings.columns:
            raise DataError(f"damaged state: no column {column!r}", path=path)
        want = schema[column]
        got = ratings.schema[column]
        if not (got == want or (want == pl.Int64 and got.is_integer())):
            raise DataError(f"damaged state: column {column!r} is {got}, expected {want}", path=path)
    limits = {
        "rating": (0, STATE_RATING_MAX),
        "score_for": (-1000 * STATE_COUNT_MAX, 1000 * STATE_COUNT_MAX),
        "score_against": (-1000 * STATE_COUNT_MAX, 1000 * STATE_COUNT_MAX),
    }
    indexed = ratings.with_row_index("_row", offset=1)
    for column in ("rating", "games", "wins", "losses", "draws", "score_for", "score_against"):
        lo, hi = limits.get(column, (0, STATE_COUNT_MAX))
        bad = indexed.filter(pl.col(column).is_null() | (pl.col(column) < lo) | (pl.col(column) > hi))
        if bad.height:
            raise DataError(
                f"damaged state: column {column!r}, row {bad['_row'][0]}: {bad[column][0]} is not from {lo} to {hi}", path=path
            )
    for column in ("list", "player"):
        bad = indexed.filter(pl.col(column).is_null())
        if bad.height:
            raise DataError(f"damaged state: column {column!r}, row {bad['_row'][0]}: empty value", path=path)
