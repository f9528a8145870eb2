"""The optional columns of a games table, read beside :func:`games.read_games` (which
checks the required ones) and joined to its rows by the data row number:

- ``locale`` (text, e.g. ``is_IS``, ``en_US``, ``nb_NO``): ratings are kept per locale; a table
  without it is one locale, ``""``.
- ``moves`` (integer): the moves of the game *counting a resignation* (Netskrafl's ``num_moves``);
  the ``netskrafl-live`` preset makes no adjustment for a game of 2 moves or fewer (one resigned on
  move 1 or 2). From a replay table: its ``moves`` (plays, passes, exchanges) + 1 when
  ``ended_by`` is ``resign``.
- ``players`` (integer, replay tables): a game of 3 or 4 players is not rated (see :func:`extra_columns`).
- ``finished`` (boolean, replay tables): an unfinished game (no winner yet) is not rated.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gamecore.errors import DataError

OPTIONAL_COLUMNS: tuple[str, ...] = ("locale", "moves", "players", "finished")


def _read_some(path: Path, wanted: tuple[str, ...]) -> Any:
    """The columns of ``wanted`` that the file has, as a polars frame with a 1-based ``row``."""
    import polars as pl

    suffix = "".join(path.suffixes[-2:]).lower() if path.suffix.lower() == ".gz" else path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        have = pl.read_parquet_schema(path)
        cols = [c for c in (*wanted, "ended_by", "file", "status") if c in have]
        frame = (
            pl.read_parquet(path, columns=cols)
            if cols
            else pl.DataFrame(height=pl.read_parquet(path, columns=[next(iter(have))]).height)
        )
    elif suffix in (".csv", ".tsv", ".csv.gz"):
        sep = "\t" if suffix == ".tsv" else ","
        head = pl.read_csv(path, infer_schema=False, separator=sep, n_rows=0).columns
        cols = [c for c in wanted if c in head]
        frame = pl.read_csv(path, infer_schema=False, separator=sep, columns=cols or [head[0]])
        if not cols:
            frame = frame.select(pl.lit(None).alias("_none"))
    else:
        frame = pl.read_ndjson(path, infer_schema_length=None)
        frame = (
            frame.select([c for c in wanted if c in frame.columns])
            if any(c in frame.columns for c in wanted)
            else frame.select(pl.lit(None).alias("_none"))
        )
    return frame.with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias("row"))


def extra_columns(path: str | Path) -> Any:
    """``row, locale, moves, players, finished`` for every data row of the games table at ``path``
    (null where the table lacks the column; ``locale`` ``""`` then).

    Raises:
        DataError: a ``moves``/``players`` value that is not a whole number, or a ``locale`` that
            is not short plain text (naming the column and row).
    """
    import polars as pl

    path = Path(path)
    frame = _read_some(path, OPTIONAL_COLUMNS)
    replay = "file" in frame.columns and "status" in frame.columns
    out = {"row": frame["row"]}
    if "locale" in frame.columns:
        loc = frame["locale"].cast(pl.String).fill_null("").str.strip_chars()
        bad = loc.str.contains(r"[\x00-\x1f\x7f]") | (loc.str.len_chars() > 35)
        if bad.any():
            r = int(frame.filter(bad)["row"][0])
            raise DataError(f"column 'locale', row {r}: expected a locale like is_IS", path=path)
        out["locale"] = loc
    else:
        out["locale"] = pl.Series("locale", [""] * frame.height, dtype=pl.String)
    for c in ("moves", "players"):
        if c in frame.columns:
            s = frame[c]
            v = (
                s.cast(pl.String).str.strip_chars().cast(pl.Int64, strict=False)
                if s.dtype == pl.String
                else s.cast(pl.Int64, strict=False)
            )
            bad = v.is_null() & s.is_not_null() & (s.cast(pl.String).str.strip_chars() != "")
            if bad.any():
                r = int(frame.filter(bad)["row"][0])
                raise DataError(f"column {c!r}, row {r}: expected a whole number, got {frame.filter(bad)[c][0]!r}", path=path)
            out[c] = v
        else:
            out[c] = pl.Series(c, [None] * frame.height, dtype=pl.Int64)
    if replay and "ended_by" in frame.columns:
        out["moves"] = out["moves"] + (frame["ended_by"] == "resign").cast(pl.Int64).fill_null(0)
    if "finished" in frame.columns:
        out["finished"] = (
            frame["finished"].cast(pl.Boolean, strict=False)
            if frame["finished"].dtype != pl.String
            else frame["finished"].str.to_lowercase().is_in(["true", "1", "yes"])
        )
    else:
        out["finished"] = pl.Series("finished", [None] * frame.height, dtype=pl.Boolean)
    return pl.DataFrame(out).with_columns(pl.col("moves").cast(pl.Int64), pl.col("players").cast(pl.Int64))
