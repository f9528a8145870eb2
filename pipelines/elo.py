"""Netskrafl's Elo rating system in batch: games table in, ratings and top-100 tables out.

The rules (``reference/netskrafl.md`` "Elo", seed 000 FAQ "Elo-stig"):

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
- Games are processed in order of ``finished_at``, then ``game_id``.

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
  rerun with ``--state`` skips them), ``params.json``: the rating parameters and ``as_of``.

Continuing (``--state``): the previous folder's ratings and counts are the starting point, games
whose ``game_id`` it already rated are skipped (so the same night run twice gives the same
result), and the new games are rated after the old ones, in their own order; a game that arrives
late (finished before the state's ``as_of``) is therefore rated after the state's games. The
parameters must be the state's own (a different K or start needs a fresh run).

Speed: the three lists are independent, so the work is vectorised with polars/numpy (ordering,
player indices, games-so-far counts, K per game, totals) and only the rating update itself runs as
a sequential loop (:func:`_rate_games`, plain Python over flat arrays). With two or more CPUs the
largest list's loop runs in a forked worker process while the others run here
(:func:`_run_jobs`); results are identical to the serial run.

Everything here raises :class:`gamecore.errors.SkraflError` (or a subclass) on bad input; nothing
prints except the optional progress bar on stderr.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from array import array
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

from gamecore.errors import DataError, UsageError

LISTS: tuple[str, ...] = ("all", "human", "competition")
"""The three rating lists, in output order (netskrafl.md "Three parallel ratings")."""

GAME_COLUMNS: tuple[str, ...] = (
    "game_id",
    "finished_at",
    "player0",
    "player1",
    "robot0",
    "robot1",
    "score0",
    "score1",
    "competition",
)
"""Columns of the games table (issue 5). ``finished_at`` is ISO 8601, UTC when no offset is given."""

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

TOP_COLUMNS: tuple[str, ...] = (
    "rank",
    "player",
    "rating",
    "games",
    "wins",
    "losses",
    "win_pct",
    "avg_score",
    "change_1d",
    "change_7d",
    "change_30d",
)

CHANGE_DAYS: tuple[int, ...] = (1, 7, 30)
STATE_VERSION = 1


@dataclass(frozen=True)
class EloParams:
    """Rating parameters. Defaults are Netskrafl's (netskrafl.md "Elo").

    Attributes:
        k: K for an established player (Netskrafl 20, FAQ).
        k_beginner: K for a beginner (Netskrafl 32).
        established_after: a player is established with *more than* this many games in the list,
            counting the current game (Netskrafl 10).
        start: rating of a new player (Netskrafl 1200, Ordspill 1000).
        scale: rating difference that multiplies the odds by 10 (400).
    """

    k: int = 20
    k_beginner: int = 32
    established_after: int = 10
    start: int = 1200
    scale: float = 400.0

    def check(self) -> "EloParams":
        """Validate the values; raises :class:`UsageError` for an impossible one."""
        if self.k < 0 or self.k_beginner < 0:
            raise UsageError(f"K must be 0 or more (got --k {self.k}, --k-beginner {self.k_beginner})")
        if self.established_after < 0:
            raise UsageError(f"--established-after must be 0 or more (got {self.established_after})")
        if self.start < 0:
            raise UsageError(f"--start must be 0 or more: a rating never goes below 0 (got {self.start})")
        if not self.scale > 0:
            raise UsageError(f"--scale must be positive (got {self.scale})")
        return self


PRESETS: dict[str, EloParams] = {
    "netskrafl": EloParams(),
    "ordspill": EloParams(start=1000),
}
"""Named parameter sets: ``netskrafl`` (the default) and ``ordspill`` (start 1000, issue 5)."""


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

    E = Q / (Q + Q_opp) with Q = 10^(R/scale) (seed 000 FAQ: "S(a) = 10^(E(a)/400)").
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
    """Δ = round((result − E) × K), Python's round (half to even) (netskrafl.md "Elo")."""
    return round((result - expected_score(rating, opponent, scale)) * k)


# ---------------------------------------------------------------------------------------------
# Reading the games table
# ---------------------------------------------------------------------------------------------

_REPLAY_MAP = {"file": "game_id", "player1": "player0", "player2": "player1", "score1": "score0", "score2": "score1"}
"""``skrafl replay``'s games.parquet → games-table columns (its players are numbered 1 and 2)."""

_TRUE = ("true", "t", "1", "yes", "y")
_FALSE = ("false", "f", "0", "no", "n")


@dataclass
class GamesTable:
    """A validated games table.

    Attributes:
        frame: polars DataFrame with ``game_id`` (str), ``finished_at`` (datetime μs UTC, or null
            when the source has no times), ``player0``/``player1`` (str), ``robot0``/``robot1``/
            ``competition`` (bool), ``score0``/``score1`` (int64) and ``row`` (1-based data row).
        path: where it was read from.
        line_offset: add to ``row`` to get the file line (1 for CSV's header, else 0).
        notes: what was assumed (e.g. the columns a replay table lacks).
        ordered_by_row: True when there is no ``finished_at`` and file order is the game order.
    """

    frame: Any
    path: str
    line_offset: int = 0
    notes: tuple[str, ...] = ()
    ordered_by_row: bool = False

    def where(self, row: int) -> tuple[str, int | None]:
        """(path, line) of a 1-based data row, for error messages (parquet: no line, row in text)."""
        if self.path.endswith(".parquet"):
            return self.path, None
        return self.path, row + self.line_offset


def _load_frame(path: Path) -> tuple[Any, int]:
    """Read a CSV / Parquet / JSON-lines file into a polars frame (CSV: every column as text)."""
    import polars as pl

    if not path.is_file():
        raise UsageError(f"games file not found: {path}")
    suffix = "".join(path.suffixes[-2:]).lower() if path.suffix.lower() == ".gz" else path.suffix.lower()
    try:
        if suffix in (".parquet", ".pq"):
            return pl.read_parquet(path), 0
        if suffix in (".jsonl", ".ndjson", ".json"):
            return pl.read_ndjson(path, infer_schema_length=None), 0
        if suffix in (".csv", ".tsv", ".csv.gz"):
            sep = "\t" if suffix == ".tsv" else ","
            return pl.read_csv(path, infer_schema=False, separator=sep), 1
    except (pl.exceptions.PolarsError, OSError, ValueError) as exc:
        line = _bad_json_line(path) if suffix in (".jsonl", ".ndjson", ".json") else None
        if line is not None:
            raise DataError(f"not a JSON object on this line ({line[1]})", path=path, line=line[0]) from None
        raise DataError(f"cannot read games table: {str(exc).splitlines()[0]}", path=path) from None
    raise UsageError(f"unknown games file type {path.suffix!r}: expected .csv, .tsv, .parquet or .jsonl", path=path)


def _bad_json_line(path: Path) -> tuple[int, str] | None:
    """(line number, reason) of the first line of a JSON-lines file that is not a JSON object."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, text in enumerate(f, 1):
            if not text.strip():
                continue
            try:
                value = json.loads(text)
            except ValueError as exc:
                return n, str(exc)
            if not isinstance(value, dict):
                return n, f"got {type(value).__name__}"
    return None


def _shown(value: Any) -> str:
    return "a missing value" if value is None else repr(value)


def read_games(path: str | Path) -> GamesTable:
    """Read and validate a games table.

    Accepted: CSV/TSV (header line), Parquet, JSON lines, with the columns of
    :data:`GAME_COLUMNS`. Booleans may be true/false, 1/0, yes/no; ``finished_at`` is ISO 8601
    (``2024-05-01T21:03:00Z``, ``+00:00`` offsets, a space for ``T``, fractions; no offset means
    UTC); scores are integers.

    ``skrafl replay``'s ``games.parquet`` (recognised by its ``file``/``player1``/``player2``/
    ``score1``/``score2`` columns) is mapped: ``file`` → ``game_id``, ``player1``/``player2`` →
    ``player0``/``player1``, ``score1``/``score2`` → ``score0``/``score1``; rows whose ``status``
    is not ``ok`` are dropped. Its ``game_id`` (null → ``file``), ``finished_at``,
    ``robot1``/``robot2`` (→ ``robot0``/``robot1``) and ``competition`` (null → false) are used when
    present; without ``finished_at`` on every game (GCG files have none) games are rated in file
    order. A replayed game whose two players have the same name, or whose ``game_id`` repeats an
    earlier row, is skipped with a ``warning:`` note (one bad file must not stop the night). All
    of this is listed in :attr:`GamesTable.notes`.

    Raises:
        DataError: a missing column, an empty or malformed value (naming the column and row), a
            duplicate ``game_id`` or a player meeting themself.
        UsageError: the file does not exist or has an unknown extension.
    """
    import polars as pl

    path = Path(path)
    df, line_offset = _load_frame(path)
    notes: list[str] = []
    table = GamesTable(frame=None, path=str(path), line_offset=line_offset)
    df = df.with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias("row"))

    is_replay = "player0" not in df.columns and all(c in df.columns for c in ("file", "player1", "player2", "score1", "score2"))
    if is_replay:
        if "status" in df.columns:
            bad = df.filter(pl.col("status").cast(pl.String) != "ok").height
            df = df.filter(pl.col("status").cast(pl.String) == "ok")
            if bad:
                notes.append(f"{bad} replay row(s) with status other than 'ok' skipped")
        if "format" in df.columns:
            anonymous = df.filter((pl.col("format").cast(pl.String) == "netskrafl") & (pl.col("player1") == "player0")
                                  & (pl.col("player2") == "player1")).height
            if anonymous:
                notes.append(
                    f"warning: {anonymous} replayed Netskrafl record(s) name no players (the record format has "
                    "none): they are rated as the seats 'player0' and 'player1'"
                )
        if "robot2" in df.columns:  # replay numbers its players 1 and 2
            df = df.rename({"robot1": "robot0", "robot2": "robot1"} if "robot0" not in df.columns else {})
        game_id = pl.col("file")
        if "game_id" in df.columns:
            game_id = pl.coalesce(pl.col("game_id").cast(pl.String), pl.col("file"))
        kept = [c for c in ("finished_at", "robot0", "robot1", "competition") if c in df.columns]
        df = df.select([game_id.alias("game_id")] + [pl.col(k).alias(v) for k, v in _REPLAY_MAP.items() if k != "file"]
                       + kept + ["row"])
        for c in ("robot0", "robot1", "competition"):
            if c in kept:
                df = df.with_columns(pl.col(c).fill_null(False))
        missing = [c for c in ("finished_at", "robot0", "robot1", "competition") if c not in df.columns]
        if "finished_at" in missing:
            df = df.with_columns(pl.lit(None, dtype=pl.String).alias("finished_at"))
        elif 0 < df["finished_at"].null_count() < df.height:
            n = df["finished_at"].null_count()
            notes.append(f"{n} of {df.height} replayed games have no finished_at (GCG files): all games rated in file order")
            df = df.with_columns(pl.lit(None, dtype=pl.String).alias("finished_at"))
        for c in ("robot0", "robot1", "competition"):
            if c in missing:
                df = df.with_columns(pl.lit(False).alias(c))
        if missing:
            notes.append(
                "replay games table lacks "
                + ", ".join(missing)
                + ": games rated in file order"
                * ("finished_at" in missing)
                + ("; players counted as humans" if "robot0" in missing else "")
                + ("; no game counted as competition" if "competition" in missing else "")
            )
        # A replayed game is one file of many: a bad one is skipped with a warning, not fatal.
        same = df.filter(pl.col("player0").is_not_null() & (pl.col("player0") == pl.col("player1")))
        if same.height:
            first = same.row(0, named=True)
            notes.append(
                f"warning: {same.height} replayed game(s) skipped: both players have the same name "
                f"(first: {first['game_id']!r}, player {first['player0']!r})"
            )
            df = df.join(same.select("row"), on="row", how="anti").sort("row")
        dup = df.filter(pl.col("game_id").is_duplicated() & (pl.int_range(pl.len()).over("game_id") > 0))
        if dup.height:
            notes.append(
                f"warning: {dup.height} replayed game(s) skipped: game_id already seen in the table "
                f"(first: {dup['game_id'][0]!r})"
            )
            df = df.join(dup.select("row"), on="row", how="anti").sort("row")
    else:
        missing = [c for c in GAME_COLUMNS if c not in df.columns]
        if missing:
            raise DataError(
                f"missing column {missing[0]!r} (games table needs: {', '.join(GAME_COLUMNS)}; found: {', '.join(df.columns[:-1])})",
                path=path,
                line=1 if line_offset else None,
            )

    df = df.select([*GAME_COLUMNS, "row"])
    out = {"row": df["row"]}
    out["game_id"] = _text_column(df, "game_id", table)
    out["player0"] = _text_column(df, "player0", table)
    out["player1"] = _text_column(df, "player1", table)
    for c in ("robot0", "robot1", "competition"):
        out[c] = _bool_column(df, c, table)
    for c in ("score0", "score1"):
        out[c] = _int_column(df, c, table)
    all_null = df["finished_at"].null_count() == df.height and df.height > 0
    if (is_replay and all_null) or df.height == 0:
        out["finished_at"] = pl.Series("finished_at", [None] * df.height, dtype=pl.Datetime("us", "UTC"))
        ordered_by_row = is_replay
    else:
        out["finished_at"] = _time_column(df, table)
        ordered_by_row = False
    frame = pl.DataFrame(out).select([*GAME_COLUMNS, "row"])

    ids = frame["game_id"].sort()
    repeated = ids.slice(1) == ids.slice(0, max(ids.len() - 1, 0))
    if repeated.any():
        dup = sorted(set(ids.slice(1).filter(repeated).to_list()))[0]
        rows = frame.filter(pl.col("game_id") == dup)["row"].sort().to_list()
        raise DataError(f"column 'game_id', row {rows[1]}: duplicate game id {dup!r} (also row {rows[0]})", *table.where(rows[1]))
    same = frame.filter(pl.col("player0") == pl.col("player1"))
    if same.height:
        r = int(same["row"].min())
        raise DataError(f"column 'player1', row {r}: player {same['player0'][0]!r} plays against themself", *table.where(r))
    table.frame = frame
    table.notes = tuple(notes)
    table.ordered_by_row = ordered_by_row
    return table


def _fail_at(table: GamesTable, column: str, row: int, what: str) -> DataError:
    return DataError(f"column {column!r}, row {row}: {what}", *table.where(row))


def _first_bad(df: Any, mask: Any) -> int:
    return int(df.filter(mask)["row"][0])


def _text_column(df: Any, column: str, table: GamesTable) -> Any:
    import polars as pl

    s = df[column]
    if s.dtype not in (pl.String, pl.Int64, pl.Int32, pl.UInt64, pl.UInt32, pl.Int16, pl.Int8, pl.UInt16, pl.UInt8, pl.Categorical):
        r = int(df["row"][0]) if df.height else 1
        raise _fail_at(table, column, r, f"expected text or an integer id, got a column of type {s.dtype}")
    s = s.cast(pl.String)
    if table.line_offset:  # CSV text: "anna " is "anna"
        s = s.str.strip_chars()
    bad = s.is_null() | (s == "")
    if bad.any():
        raise _fail_at(table, column, _first_bad(df, bad), "empty value")
    return s.alias(column)


def _bool_column(df: Any, column: str, table: GamesTable) -> Any:
    import polars as pl

    s = df[column]
    if s.dtype == pl.Boolean:
        res = s
    elif s.dtype.is_integer():
        bad = ~s.is_in([0, 1]) | s.is_null()
        if bad.any():
            r = _first_bad(df, bad)
            raise _fail_at(table, column, r, f"expected a boolean (true/false, 1/0), got {_shown(df.filter(pl.col('row') == r)[column][0])}")
        res = s == 1
    elif s.dtype == pl.String:
        low = s.str.strip_chars().str.to_lowercase()
        bad = ~(low.is_in(_TRUE) | low.is_in(_FALSE)) | low.is_null()
        if bad.any():
            r = _first_bad(df, bad)
            raise _fail_at(table, column, r, f"expected a boolean (true/false, 1/0), got {_shown(df.filter(pl.col('row') == r)[column][0])}")
        res = low.is_in(_TRUE)
    else:
        raise _fail_at(table, column, int(df["row"][0]), f"expected booleans, got a column of type {s.dtype}")
    if res.null_count():
        raise _fail_at(table, column, _first_bad(df, res.is_null()), "empty value")
    return res.alias(column)


def _int_column(df: Any, column: str, table: GamesTable) -> Any:
    import polars as pl

    s = df[column]
    if s.dtype.is_integer():
        res = s.cast(pl.Int64)
        bad = res.is_null()
    elif s.dtype == pl.String:
        res = s.str.strip_chars().cast(pl.Int64, strict=False)
        bad = res.is_null()
    elif s.dtype.is_float():
        res = s.cast(pl.Int64, strict=False)
        bad = res.is_null() | (res.cast(pl.Float64) != s)
    else:
        raise _fail_at(table, column, int(df["row"][0]), f"expected integer scores, got a column of type {s.dtype}")
    if bad.any():
        r = _first_bad(df, bad)
        raise _fail_at(table, column, r, f"expected an integer final score, got {_shown(df.filter(pl.col('row') == r)[column][0])}")
    return res.alias(column)


def _time_column(df: Any, table: GamesTable) -> Any:
    import polars as pl

    s = df["finished_at"]
    target = pl.Datetime("us", "UTC")
    if isinstance(s.dtype, pl.Datetime):
        res = s.dt.replace_time_zone("UTC") if s.dtype.time_zone is None else s.dt.convert_time_zone("UTC")
        res = res.cast(target)
        bad = res.is_null()
    elif s.dtype == pl.String:
        t = s.str.strip_chars().str.replace(r"[zZ]$", "+00:00").str.replace(" ", "T", literal=True)
        t = pl.select(pl.when(t.str.contains(r"[+-]\d\d:?\d\d$")).then(t).otherwise(t + "+00:00")).to_series()
        res = t.str.to_datetime("%Y-%m-%dT%H:%M:%S%.f%:z", time_zone="UTC", strict=False, time_unit="us")
        bad = res.is_null()
    else:
        raise _fail_at(table, "finished_at", int(df["row"][0]), f"expected ISO 8601 times, got a column of type {s.dtype}")
    if bad.any():
        r = _first_bad(df, bad)
        raise _fail_at(
            table, "finished_at", r, f"expected an ISO 8601 UTC time like 2024-05-01T21:03:00Z, got {_shown(df.filter(pl.col('row') == r)['finished_at'][0])}"
        )
    return res.alias("finished_at")


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
    history = folder / "history"
    return EloState(ratings, processed, params, as_of, history if history.is_dir() else None)


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
    0 for a side whose rating does not move (the beginner rule; see :func:`_k_factors`).
    ``q_table[r]`` is 10^(r/scale) for integer ratings (grown on demand).

    Same arithmetic as Netskrafl: E_a = Q_a/(Q_a+Q_b), Δ = round((result − E) × K) (half to even),
    a rating floored at 0 (netskrafl.md "Elo"). The sequential part of the job, kept tight: plain
    Python over flat sequences, no attribute look-ups.
    """
    R = ratings
    Q = q_table
    for a, b, sa, ka, kb in zip(a_idx, b_idx, result_a, k_a, k_b):
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
    """Q = 10^(r/scale) for the integer ratings 0 … size−1 (netskrafl.md "Elo")."""
    return [10.0 ** (r / scale) for r in range(size)]


def _grow_q_table(q_table: list[float], rating: int, scale: float) -> None:
    """Extend ``q_table`` in place to cover ``rating`` (and some headroom)."""
    q_table.extend(10.0 ** (r / scale) for r in range(len(q_table), rating + 1000))


def _running_counts(a: Any, b: Any, prior: Any) -> tuple[Any, Any, Any]:
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


def _k_factors(games_a: Any, games_b: Any, robot_a: Any, robot_b: Any, params: EloParams) -> tuple[Any, Any]:
    """Each side's K per game: K for an established player, K_beginner for a beginner, and 0 for
    an established player meeting a beginner (the beginner rule, FAQ: "fyrstu 10 viðureignir
    byrjenda breyta aðeins Elo-stigum þeirra sjálfra"). Established = robot, or more than
    ``established_after`` games in the list counting this one (netskrafl.md "Elo")."""
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
class _ListJob:
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


def _run_job(job: _ListJob, progress: Any = None) -> _JobResult:
    """Rate one list: games-so-far and K per game (vectorised), then the sequential loop
    (:func:`_rate_games`), stopping where ``job.stops`` asks. Uses numpy and plain Python only
    (no polars), so it can run in a forked worker."""
    games_a, games_b, first = _running_counts(job.a, job.b, job.prior_games)
    k_a, k_b = _k_factors(games_a, games_b, job.robot_a, job.robot_b, job.params)
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


def _can_fork(n_games: int) -> bool:
    """Worth and able to run a list's loop in a forked worker (two or more CPUs, enough games)."""
    return hasattr(os, "fork") and (os.cpu_count() or 1) >= 2 and n_games >= _PARALLEL_MIN_GAMES


@dataclass
class _Worker:
    """A forked process running one list's loop (:func:`_start_worker`, :func:`_finish_worker`)."""

    pid: int
    read_fd: int
    job: _ListJob


def _start_worker(job: _ListJob) -> _Worker:
    """Fork a child that runs ``job`` (numpy and plain Python: no polars, no threads) and pickles
    the result into a pipe. The child leaves with ``os._exit`` (no cleanup handlers of the parent run)."""
    import pickle

    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.close(read_fd)
            data = pickle.dumps(_run_job(job), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_fd)
    return _Worker(pid, read_fd, job)


def _finish_worker(worker: _Worker, progress: Any = None) -> Any:
    """The worker's result; if it failed, the job is run here instead (same result)."""
    import pickle

    with os.fdopen(worker.read_fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(worker.pid, 0)
    result = pickle.loads(data) if status == 0 and data else _run_job(worker.job)
    if progress is not None:
        progress.update(len(worker.job.a))
    return result


def _abandon_worker(worker: _Worker) -> None:
    """Stop a worker whose result is no longer wanted (an error happened in this process)."""
    import signal

    try:
        os.kill(worker.pid, signal.SIGKILL)
        os.waitpid(worker.pid, 0)
    except OSError:
        pass
    try:
        os.close(worker.read_fd)
    except OSError:
        pass


def _run_jobs(jobs: list[_ListJob], progress: Any = None, parallel: bool = True) -> list[Any]:
    """Run the lists' loops. The lists are independent, so with two or more CPUs and enough
    games the first (largest: ``all`` holds every game) runs in a forked worker while this
    process runs the others; the results are identical either way (same code, same order)."""
    if not (parallel and len(jobs) > 1 and _can_fork(len(jobs[0].a))):
        return [_run_job(j, progress) for j in jobs]
    worker = _start_worker(jobs[0])
    try:
        rest = [_run_job(j, progress) for j in jobs[1:]]
    finally:
        first = _finish_worker(worker, progress)
    return [first, *rest]


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


_EPOCH = dt.date(1970, 1, 1)
_CHUNK = 250_000


def _list_filter(name: str) -> Any:
    """The games of a list (netskrafl.md "Three parallel ratings")."""
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
) -> EloRun:
    """Rate the games of ``table`` on top of ``state`` (see the module docstring for the rules).

    Args:
        table: from :func:`read_games`.
        state: a previous run (:func:`load_state`) or ``None`` to start from nothing.
        params: rating parameters (default Netskrafl's); must equal the state's.
        date: rate only games finished on this UTC day (the nightly job).
        explain: a player id: also record that player's games one by one (:attr:`EloRun.trace`).
        quiet: no progress bar on stderr.

    Raises:
        UsageError: parameters differ from the state's, or ``date`` with a table without times.
    """
    import numpy as np
    import polars as pl

    params = (params or PRESETS["netskrafl"]).check()
    state = state or empty_state(params)
    if state.params != params:
        raise UsageError(
            "the rating parameters differ from those of the --state folder "
            f"({_params_text(state.params)} there, {_params_text(params)} asked)"
        )
    games = table.frame
    if date is not None:
        if table.ordered_by_row:
            raise UsageError("--date needs finished_at times, and this games table has none", path=table.path)
        games = games.filter(pl.col("finished_at").dt.date() == date)

    # Skip games already rated in the state.
    n_before = games.height
    if state.processed.height:
        games = games.join(state.processed.select("game_id"), on="game_id", how="anti")
    skipped = n_before - games.height

    # Game order: finished_at then game_id, or file order for a replay table without times.
    games = games.sort("row") if table.ordered_by_row else games.sort(["finished_at", "game_id"])
    processed_new = games.select("game_id", "finished_at")
    zero = (pl.col("score0") == 0) & (pl.col("score1") == 0)
    ignored = games.filter(zero).height
    games = games.filter(~zero)

    as_of = state.as_of
    if games.height and not table.ordered_by_row:
        last = games["finished_at"].max()
        as_of = last if as_of is None or last > as_of else as_of
    report_day = date if date is not None else (as_of.date() if as_of is not None else None)
    window_start = report_day - dt.timedelta(days=CHANGE_DAYS[-1]) if report_day is not None and explain is None else None

    # Player indices 0 … n−1 over the state's players and this run's, in name order.
    names, pids = _player_indices([games["player0"], games["player1"], state.ratings["player"]])
    n_players = names.len()
    n_games = games.height
    games = games.with_columns(
        pl.Series("a", pids[:n_games]),
        pl.Series("b", pids[n_games : 2 * n_games]),
        pl.when(pl.col("score0") > pl.col("score1")).then(1.0).when(pl.col("score0") < pl.col("score1")).then(0.0).otherwise(0.5).alias("result0"),
        (pl.col("finished_at").dt.date().cast(pl.Int32) if not table.ordered_by_row else pl.lit(0, dtype=pl.Int32)).alias("day"),
    )
    old = state.ratings.with_columns(pl.Series("pid", pids[2 * n_games :]))
    robot = _robot_flags(games, old, n_players, names, table)
    compact = games.select("a", "b", "result0", "robot0", "robot1", "competition", "day", "score0", "score1")

    # Snapshot days: every day of this run's window with games, and the window's start.
    days = games["day"].to_numpy()
    cut_days: list[int] = []
    if window_start is not None and games.height:
        ws = (window_start - _EPOCH).days
        cut_days = sorted(set(days[days > ws].tolist()))
        if days[0] <= ws:
            cut_days.insert(0, ws)
    explain_pid = None
    trace: list[dict[str, Any]] | None = None
    if explain is not None:
        trace = []
        hits = (names == explain).arg_true()
        explain_pid = int(hits[0]) if hits.len() else None

    progress = None
    if not quiet and games.height >= 200_000:
        from tqdm import tqdm

        progress = tqdm(total=sum(compact.filter(_list_filter(n)).height for n in LISTS), unit="game", desc="elo", leave=False)

    jobs = []
    worker: _Worker | None = None
    try:
        for name in LISTS:
            sub = compact.with_row_index("gi").filter(_list_filter(name)) if explain_pid is not None else compact.filter(_list_filter(name))
            prev = old.filter(pl.col("list") == name)
            prev_pids = prev["pid"].to_numpy()
            counts = {c: np.zeros(n_players, dtype=np.int64) for c in ("rating", "games", "wins", "losses", "draws", "score_for", "score_against")}
            counts["rating"][:] = params.start
            for c in counts:
                counts[c][prev_pids] = prev[c].to_numpy()
            a = sub["a"].to_numpy()
            b = sub["b"].to_numpy()

            # Where the loop stops: progress chunks, snapshot days, the explained player's games.
            n = sub.height
            sub_days = sub["day"].to_numpy()
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
            job = _ListJob(
                a=a,
                b=b,
                result=sub["result0"].to_numpy(),
                robot_a=sub["robot0"].to_numpy(),
                robot_b=sub["robot1"].to_numpy(),
                prior_games=counts["games"].copy(),
                ratings=counts["rating"].tolist(),
                stops=sorted(stops.items()),
                params=params,
            )
            jobs.append((name, sub, counts, job))
            if name == "all" and explain is None and _can_fork(n):
                # "all" holds every game: start its loop now, while the other lists are prepared.
                worker = _start_worker(job)
    except BaseException:
        if worker is not None:
            _abandon_worker(worker)
        raise

    results: list[Any] = []
    try:
        for (name, *_, job) in jobs:
            if not (name == "all" and worker is not None):
                results.append(_run_job(job, progress))
    except BaseException:
        if worker is not None:
            _abandon_worker(worker)
        raise
    if worker is not None:
        results.insert(0, _finish_worker(worker, progress))
    if progress is not None:
        progress.close()

    frames = []
    snap_parts: dict[int, list[Any]] = {d: [] for d in cut_days}
    for (name, sub, counts, job), result in zip(jobs, results):
        a, b, r0 = job.a, job.b, job.result
        R = result.ratings
        for d, (hi, Rd) in result.snaps.items():
            played = np.flatnonzero((counts["games"] > 0) | (result.first < hi))
            snap_parts[d].append((LISTS.index(name), played, np.asarray(Rd, dtype=np.int64)[played]))
        for i, (before, after, ks) in sorted(result.moments.items()):
            gi = int(sub["gi"][i])
            trace.append(_explain_row(name, games.row(gi, named=True), explain_pid, before, after, ks[0], ks[1], params))

        # Counts: the state's plus this run's (numpy bincount over player indices).
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
        counts["rating"] = np.asarray(R, dtype=np.int64)
        played = np.flatnonzero(counts["games"] > 0)
        frames.append(
            _player_frame(name, names, played, counts["rating"][played]).with_columns(
                pl.Series("robot", robot[played]),
                *(pl.Series(c, counts[c][played]) for c in ("games", "wins", "losses", "draws", "score_for", "score_against")),
            )
        )

    order = pl.DataFrame({"list": list(LISTS), "_order": [0, 1, 2]})
    ratings = (
        pl.concat(frames)
        .with_columns(pl.lit(as_of, dtype=pl.Datetime("us", "UTC")).alias("as_of"))
        .join(order, on="list")
        .sort(["_order", "rating", "player"], descending=[False, True, False])
        .select(RATINGS_COLUMNS)
        .cast(_ratings_schema())
    )
    snapshots = {_EPOCH + dt.timedelta(days=d): _snapshot_frame(names, parts) for d, parts in snap_parts.items() if parts}
    if report_day is not None and explain is None:
        snapshots[report_day] = ratings.join(order, on="list").sort(["_order", "player"]).select("list", "player", "rating")
    processed = pl.concat([state.processed, processed_new])
    return EloRun(
        ratings=ratings,
        processed=processed,
        params=params,
        as_of=as_of,
        report_day=report_day,
        snapshots=snapshots,
        games_rated=games.height,
        games_skipped=skipped,
        games_ignored=ignored,
        notes=tuple(table.notes),
        trace=trace,
    )


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


def _snapshot_frame(names: Any, parts: list[tuple[int, Any, Any]]) -> Any:
    """(list, player, rating) rows from (list number, player indices, ratings) parts."""
    import polars as pl

    frame = pl.concat(
        [pl.DataFrame({"pid": pids, "rating": ratings}).with_columns(pl.lit(LISTS[i]).alias("list")) for i, pids, ratings in parts]
    )
    return pl.DataFrame({"list": frame["list"], "player": names.gather(frame["pid"]), "rating": frame["rating"].cast(pl.Int64)})


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
        flags = [(r0_ if a_ == pid else r1_) for a_, r0_, r1_ in zip(rows["a"], rows["robot0"], rows["robot1"])]
        r = int(rows["row"][next(i for i, f in enumerate(flags) if f != flags[0])])
        raise DataError(
            f"column 'robot0'/'robot1', row {r}: player {names[pid]!r} is marked a robot in some rows and a human in others",
            *table.where(r),
        )
    robot = as_robot > 0
    robot[old.filter(pl.col("robot"))["pid"].to_numpy()] = True
    return robot


def _explain_row(
    name: str, row: dict[str, Any], pid: int, before: tuple[int, int], after: tuple[int, int], k_a: int, k_b: int, params: EloParams
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


def _params_text(p: EloParams) -> str:
    return f"K {p.k}/{p.k_beginner}, established after {p.established_after}, start {p.start}, scale {p.scale:g}"

# ---------------------------------------------------------------------------------------------
# Writing the output folder
# ---------------------------------------------------------------------------------------------


def _history_files(folder: Path | None) -> dict[dt.date, Path]:
    out: dict[dt.date, Path] = {}
    if folder is None or not folder.is_dir():
        return out
    for p in folder.glob("ratings_*.parquet"):
        try:
            out[dt.date.fromisoformat(p.stem[len("ratings_"):])] = p
        except ValueError:
            continue
    return out


def _kept_days(days: Iterable[dt.date], report_day: dt.date) -> set[dt.date]:
    """Days after D−30 and the newest on or before D−30."""
    cut = report_day - dt.timedelta(days=CHANGE_DAYS[-1])
    days = set(days)
    keep = {d for d in days if d > cut}
    older = [d for d in days if d <= cut]
    if older:
        keep.add(max(older))
    return keep


def top_tables(ratings: Any, history: dict[dt.date, Any], report_day: dt.date | None) -> dict[str, Any]:
    """The top-100 table of each list: rank, player, rating, games, wins, losses, win %, average
    score and the change against the ratings at the end of the days D−1, D−7, D−30 (the newest
    snapshot on or before that day; empty when the player had no rating then)."""
    import polars as pl

    out = {}
    old = {}
    for n in CHANGE_DAYS:
        if report_day is None:
            old[n] = None
            continue
        day = report_day - dt.timedelta(days=n)
        cands = [d for d in history if d <= day]
        old[n] = history[max(cands)] if cands else None
    for name in LISTS:
        top = (
            ratings.filter(pl.col("list") == name)
            .sort(["rating", "games", "player"], descending=[True, True, False])
            .head(100)
            .with_columns(
                pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias("rank"),
                (pl.col("wins") * 100.0 / pl.col("games")).round(1).alias("win_pct"),
                (pl.col("score_for") / pl.col("games")).round(1).alias("avg_score"),
            )
        )
        for n in CHANGE_DAYS:
            col = f"change_{n}d"
            snap = old[n]
            if snap is None:
                top = top.with_columns(pl.lit(None, dtype=pl.Int64).alias(col))
            else:
                prev = snap.filter(pl.col("list") == name).select("player", pl.col("rating").alias("_old"))
                top = top.join(prev, on="player", how="left", maintain_order="left").with_columns(
                    (pl.col("rating") - pl.col("_old")).alias(col)
                ).drop("_old")
        out[name] = top.select(TOP_COLUMNS)
    return out


def write_output(run: EloRun, out_dir: str | Path, state_dir: str | Path | None = None) -> Path:
    """Write the output folder atomically (:func:`pipelines.atomic.atomic_path`: a temporary
    sibling folder, then a rename; the folder gets the ``.skrafl-output`` marker).

    An existing ``out_dir`` is replaced only after the new folder is complete; ``state_dir`` is
    only read.

    Raises:
        UsageError: ``out_dir`` is ``state_dir``, or is refused by
            :func:`pipelines.atomic.check_output_dir` (a file, the current folder or a parent, a
            folder skrafl did not write).
    """
    import polars as pl

    from pipelines.atomic import atomic_path, check_output_dir

    out_dir = Path(out_dir)
    _check_out(out_dir, state_dir)
    check_output_dir(out_dir, replace=True)
    with atomic_path(out_dir) as tmp:
        tmp.mkdir()
        (tmp / "history").mkdir()
        run.ratings.write_parquet(tmp / "ratings.parquet", statistics=False)
        run.processed.write_parquet(tmp / "processed.parquet", statistics=False, compression="lz4")
        meta = {
            "version": STATE_VERSION,
            "params": asdict(run.params),
            "as_of": run.as_of.isoformat() if run.as_of is not None else None,
            "report_day": run.report_day.isoformat() if run.report_day is not None else None,
        }
        (tmp / "params.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")

        history: dict[dt.date, Any] = {}
        old_files = _history_files(Path(state_dir) / "history" if state_dir is not None else None)
        if run.report_day is not None:
            keep = _kept_days([*old_files, *run.snapshots], run.report_day)
            for day in sorted(keep):
                dest = tmp / "history" / f"ratings_{day.isoformat()}.parquet"
                if day in run.snapshots:
                    run.snapshots[day].write_parquet(dest, statistics=False)
                    history[day] = run.snapshots[day]
                else:
                    shutil.copyfile(old_files[day], dest)
                    history[day] = pl.read_parquet(dest)
        for name, top in top_tables(run.ratings, history, run.report_day).items():
            top.write_csv(tmp / f"top100_{name}.csv")
    return out_dir


def _check_out(out_dir: Path, state_dir: str | Path | None, games_path: str | Path | None = None) -> None:
    """Refuse an ``--out`` that is the ``--state`` folder or would hold (and so replace) the games
    table. Raises :class:`UsageError`."""
    resolved = Path(out_dir).resolve()
    if state_dir is not None and resolved == Path(state_dir).resolve():
        raise UsageError("--out must differ from --state (the previous folder is never modified)")
    if games_path is not None:
        games = Path(games_path).resolve()
        if games == resolved:
            raise UsageError(f"--out {out_dir}: is the games table itself; give a new folder (inputs are never modified)")
        if resolved in games.parents:
            raise UsageError(f"--out {out_dir}: holds the games table {games_path}; give another folder (inputs are never modified)")


def run_elo(
    games_path: str | Path,
    out_dir: str | Path,
    state_dir: str | Path | None = None,
    params: EloParams | None = None,
    date: dt.date | None = None,
    quiet: bool = True,
) -> EloRun:
    """Read, rate, write: the whole ``skrafl elo`` job. Returns the in-memory result."""
    from pipelines.atomic import check_output_dir

    _check_out(Path(out_dir), state_dir, games_path)
    check_output_dir(Path(out_dir), replace=True)  # refuse a bad --out before any work
    table = read_games(games_path)
    state = load_state(state_dir) if state_dir is not None else None
    if params is None:
        params = state.params if state is not None else PRESETS["netskrafl"]
    run = compute(table, state, params, date=date, quiet=quiet)
    write_output(run, out_dir, state_dir)
    return run


def explain_player(
    games_path: str | Path,
    player: str,
    state_dir: str | Path | None = None,
    params: EloParams | None = None,
    date: dt.date | None = None,
    lists: Sequence[str] = LISTS,
) -> list[dict[str, Any]]:
    """A player's rating history game by game: one dict per (list, game) with ``list, game_id,
    finished_at, opponent, opp_rating (before the game), score, result, expected (the player's
    win probability before the game, %), k (0 when the beginner rule holds the rating), before,
    change, rating``. Computed by the same loop as the ratings (it stops at the player's games).

    Raises:
        UsageError: the player has no rated game in the input.
    """
    table = read_games(games_path)
    state = load_state(state_dir) if state_dir is not None else None
    if params is None:
        params = state.params if state is not None else PRESETS["netskrafl"]
    run = compute(table, state, params, date=date, explain=player)
    rows = [r for r in run.trace or [] if r["list"] in lists]
    if not rows:
        raise UsageError(f"player {player!r} has no rated game in {games_path}")
    return rows
