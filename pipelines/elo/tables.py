"""The output folder: top-100 tables, history snapshots, and writing it (:func:`write_output`)."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any, Iterable

from gamecore.errors import UsageError

from .batch import CHANGE_DAYS, LATE_COLUMNS, LISTS, EloRun
from .state import STATE_VERSION

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


# ---------------------------------------------------------------------------------------------
# Writing the output folder
# ---------------------------------------------------------------------------------------------


def _history_files(folder: Path | None) -> dict[dt.date, Path]:
    out: dict[dt.date, Path] = {}
    if folder is None or not folder.is_dir():
        return out
    for p in folder.glob("ratings_*.parquet"):
        try:
            out[dt.date.fromisoformat(p.stem[len("ratings_") :])] = p
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

    out: dict[str, Any] = {}
    old: dict[int, Any] = {}
    for n in CHANGE_DAYS:
        if report_day is None:
            old[n] = None
            continue
        day = report_day - dt.timedelta(days=n)
        cands = [d for d in history if d <= day]
        old[n] = history[max(cands)] if cands else None
    # Ratings are kept per locale: one table per list, and per locale when the ratings
    # hold more than one (top100_{list}_{locale}.csv).
    locales = sorted(set(ratings["locale"].to_list())) if "locale" in ratings.columns else [""]
    for name, loc in ((name, loc) for name in LISTS for loc in (locales or [""])):
        key = name if len(locales) <= 1 else f"{name}_{loc or 'none'}"
        mine = (pl.col("list") == name) & (pl.col("locale") == loc) if "locale" in ratings.columns else pl.col("list") == name
        top = (
            ratings.filter(mine)
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
                if "locale" not in snap.columns:  # a snapshot from before ratings per locale: one locale, ""
                    snap = snap.with_columns(pl.lit("", dtype=pl.String).alias("locale"))
                prev = snap.filter((pl.col("list") == name) & (pl.col("locale") == loc)).select(
                    "player", pl.col("rating").alias("_old")
                )
                top = (
                    top.join(prev, on="player", how="left", maintain_order="left")
                    .with_columns((pl.col("rating") - pl.col("_old")).alias(col))
                    .drop("_old")
                )
        out[key] = top.select(TOP_COLUMNS)
    return out


def write_output(
    run: EloRun,
    out_dir: str | Path,
    state_dir: str | Path | None = None,
    inputs: tuple = (),
    history: Path | None = None,
    ratings_to: Any = None,
) -> Path:
    """Write the output folder: owned by ``skrafl elo``, replaced whole and atomically
    (:func:`pipelines.atomic.output_dir`).

    ``state_dir``, ``history`` (the state's history folder, in the generation
    :func:`~pipelines.elo.state.load_state` read; default ``state_dir/history``) and ``inputs``
    (the games table) are only read.

    ``ratings_to``: a :class:`pipelines.postgres.RatingsWriter`. Its :meth:`store` runs once
    every file is written into the stage, as the last step before the swap: a failure there
    (no connection, a constraint) raises and nothing is swapped in. If the swap then fails (the
    output does not name the new stage), :meth:`undo` takes the stored rows back, so the folder
    and the table change together or not at all. Returns the note of the store in
    ``run.notes``.

    Raises:
        UsageError: ``out_dir`` is ``state_dir``, or is refused by
            :func:`pipelines.atomic.check_output_dir` (a file, a folder skrafl did not write,
            another command's output, an input…).
    """
    import os

    import polars as pl

    from gamecore.errors import DataError
    from pipelines.atomic import output_dir

    out_dir = Path(out_dir)
    check_out(out_dir, state_dir)
    inputs = (*inputs, *([state_dir] if state_dir is not None else []))
    stage: Path | None = None
    stored = False
    try:
        with output_dir(out_dir, "elo", inputs) as tmp:
            stage = tmp
            _write_folder(run, tmp, history or (Path(state_dir) / "history" if state_dir is not None else None))
            if ratings_to is not None:  # the files are staged: the table is committed now, then the swap
                run.notes = (*run.notes, ratings_to.store(tmp))
                stored = True
    except BaseException as exc:
        swapped = stage is not None and out_dir.is_symlink() and os.readlink(out_dir) == stage.name
        if stored and not swapped:  # the table went ahead of the folder: take it back
            try:
                ratings_to.undo()
            except DataError as undo_exc:
                if isinstance(exc, Exception):
                    raise DataError(
                        f"{_first_line(exc)}; and the ratings already stored could not be taken back ({undo_exc}): "
                        "run the day again (it rewrites that day's rows)"
                    ) from None
        if isinstance(exc, pl.exceptions.PolarsError):  # polars raises its own error for a failed write (a full disk)
            raise _as_os_error(exc, out_dir) from None
        raise
    return out_dir


def _first_line(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text


def _as_os_error(exc: Exception, path: Path) -> OSError:
    """The :class:`OSError` behind a polars write error (``… (os error 28)``), for one line on
    stderr (cli/main.py) instead of a traceback."""
    import errno
    import os
    import re

    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    found = re.search(r"os error (\d+)", text)
    code = int(found.group(1)) if found else errno.EIO
    return OSError(code, os.strerror(code) if found else f"cannot write: {text}", str(path))


def _write_folder(run: EloRun, tmp: Path, old_history: Path | None) -> None:
    """The files of the output folder, written into the temporary folder ``tmp``."""
    import polars as pl

    (tmp / "history").mkdir()
    run.ratings.write_parquet(tmp / "ratings.parquet", statistics=False)
    run.processed.write_parquet(tmp / "processed.parquet", statistics=False, compression="lz4")
    meta = {
        "version": STATE_VERSION,
        "params": asdict(run.params),
        "as_of": run.as_of.isoformat() if run.as_of is not None else None,
        "report_day": run.report_day.isoformat() if run.report_day is not None else None,
        "days_rated": run.days_rated.to_json() if run.days_rated is not None else None,
    }
    (tmp / "params.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")

    history: dict[dt.date, Any] = {}
    old_files = _history_files(old_history)
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
    late = run.late if run.late is not None else pl.DataFrame(schema={c: pl.String for c in LATE_COLUMNS})
    late.write_csv(tmp / "late_games.csv")


def check_out(out_dir: Path, state_dir: str | Path | None, games_path: str | Path | None = None) -> None:
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
            raise UsageError(
                f"--out {out_dir}: holds the games table {games_path}; give another folder (inputs are never modified)"
            )
