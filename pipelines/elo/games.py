"""Reading and validating the games table (CSV, Parquet, JSON lines, or replay's games.parquet)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from gamecore.errors import DataError, UsageError

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
"""Columns of the games table. ``finished_at`` is ISO 8601, UTC when no offset is given."""


# ---------------------------------------------------------------------------------------------
# Reading the games table
# ---------------------------------------------------------------------------------------------

_REPLAY_MAP = {"file": "game_id", "player1": "player0", "player2": "player1", "score1": "score0", "score2": "score1"}
"""``skrafl replay``'s games.parquet → games-table columns (its players are numbered 1 and 2)."""

SCORE_MIN = -(2**31)
SCORE_MAX = 2**31 - 1
"""A final score must fit a signed 32-bit integer (the project's Parquet tables store int32)."""

TEXT_MAX = {"game_id": 4096, "player0": 256, "player1": 256}
"""The longest ``game_id`` (replay's are file paths) and player name accepted, in characters."""

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
    extras: Any = None
    """For inputs that are not one file (a replay dataset or folder, a database): the optional
    columns ``row, locale, moves, players, finished`` (:func:`.optional.extra_columns`), by data
    row; None for a file (read from it)."""
    unnamed: tuple[int, ...] = ()
    """The data rows of replayed Netskrafl games without player ids (the seats ``player0`` and
    ``player1``, no ``players_from`` match): kept in ``frame`` for the days and the skipping, but
    never rated (:func:`.batch.compute` leaves them out, counted in one warning)."""
    players_from: str | None = None
    """The PostgreSQL URL the replayed Netskrafl games' players were looked up in, if any."""
    source_rows: int = 0
    """The games (data rows) of the input, before any was skipped: a run without ``--date`` that
    rates none of them is an error (:func:`.batch.compute`), not "0 games rated"."""

    def where(self, row: int) -> tuple[str, int | None]:
        """(path, line) of a 1-based data row, for error messages (parquet: no line, row in text)."""
        if (
            self.path.endswith(".parquet")
            or not self.line_offset
            and not self.path.lower().endswith((".jsonl", ".ndjson", ".json"))
        ):
            return self.path, None  # Parquet, a replay dataset or folder, a database: no lines
        return self.path, row + self.line_offset


def _load_frame(path: Path) -> tuple[Any, int]:
    """Read a CSV / Parquet / JSON-lines file into a polars frame (CSV: every column as text)."""
    import polars as pl

    if path.is_dir():
        return _load_folder(path), 0
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
        if suffix in (".jsonl", ".ndjson", ".json"):
            line = _bad_json_line(path)
            if line is not None:
                raise DataError(f"not a JSON object on this line ({line[1]})", path=path, line=line[0]) from None
            # Valid JSON that polars cannot put in one schema (a column of mixed types): read it
            # here as text, so the checks of read_games name the row and column.
            return _json_as_text(path), 0
        if suffix in (".csv", ".tsv"):
            line = _bad_csv_line(path, "\t" if suffix == ".tsv" else ",")
            if line is not None:
                raise DataError(line[1], path=path, line=line[0]) from None
        raise DataError(f"cannot read games table: {str(exc).splitlines()[0]}", path=path) from None
    raise UsageError(f"unknown games file type {path.suffix!r}: expected .csv, .tsv, .parquet or .jsonl", path=path)


DAY_COLUMN = "_part"
"""The partition of each game of a replay dataset (``YYYY-MM-DD`` for a day's partition), kept
while reading: a game without a ``finished_at`` of its own in a day's partition (a GCG file that
the nightly job read from ``incoming/DAY``) is rated at the end of that UTC day
(:func:`_read_games`)."""

_DATASET_UNUSED = ("error", "unknown_words", "warnings")
"""Columns of a replay dataset's games that rating never reads (left on disk)."""


def _load_folder(path: Path) -> Any:
    """A replay dataset (``replay --dataset``: its games partitions, each resolved once and
    checked, only the columns rated read) or a replay output folder (its ``games.parquet``)."""
    import polars as pl

    from pipelines.replay.dataset import is_dataset, read_table

    if is_dataset(path):
        table = read_table(path, "games", exclude=_DATASET_UNUSED)
        return cast("pl.DataFrame", pl.from_arrow(table)).rename({"part": DAY_COLUMN})  # a day's partition: the day of its games
    return pl.read_parquet(_replay_folder_file(path))


def _day_times(df: Any, notes: list[str]) -> Any:
    """A replay dataset's games (column :data:`DAY_COLUMN`): a game without a ``finished_at`` of
    its own in a day's partition ``part=YYYY-MM-DD`` (only a dated folder's game without a time is
    put there: :func:`pipelines.replay.dataset.partition_of`) takes the end of that UTC day,
    ``YYYY-MM-DDT23:59:59.999999Z``: rated on that day, after the day's games with times (then by
    ``game_id``). Said in a note naming the first; the column is dropped."""
    import polars as pl

    if "finished_at" not in df.columns or not isinstance(df.schema["finished_at"], pl.Datetime):
        return df.drop(DAY_COLUMN)  # (replay writes datetimes; anything else is checked as it is)
    utc = pl.Datetime("us", "UTC")
    day = pl.col(DAY_COLUMN).cast(pl.String).str.to_date("%Y-%m-%d", strict=False)
    end = (day.cast(pl.Datetime("us")) + pl.duration(days=1) - pl.duration(microseconds=1)).dt.replace_time_zone("UTC")
    times = pl.col("finished_at")
    filled = df.filter(times.is_null() & day.is_not_null()).sort("row")
    if filled.height:
        first = filled.row(0, named=True)
        notes.append(
            f"{filled.height} replayed game(s) without a finished_at of their own (GCG files read from a day's folder) "
            f"rated at the end of their partition's UTC day (first: {first['game_id']!r}, part={first[DAY_COLUMN]})"
        )
        df = df.with_columns(pl.coalesce(times.cast(utc), end).alias("finished_at"))
    return df.drop(DAY_COLUMN)


def _replay_folder_file(path: Path) -> Path:
    from gamecore.folders import open_output

    folder = open_output(path, "replay output")
    if not (folder / "games.parquet").is_file():
        raise UsageError(f"{path}: a folder that is neither a replay dataset (dataset.json) nor a replay output (games.parquet)")
    return folder / "games.parquet"


def read_database(url: str) -> GamesTable:
    """The games table of a Netskrafl PostgreSQL database (:func:`pipelines.postgres.games_frame`),
    validated as any games table; named by the URL without credentials."""
    from pipelines.postgres import games_frame, redact

    frame, extras = games_frame(url)
    return with_extras(_read_games(redact(url), loaded=(frame, 0)), extras)


def with_extras(table: GamesTable, extras: Any) -> GamesTable:
    """Keep the optional columns (``locale, moves, players, finished``) of an input that is not
    one file in ``table.extras`` and in the frame itself, by data row (the rating reads them from
    the frame: :func:`.batch.with_optional_columns`)."""
    import polars as pl

    table.extras = extras
    if extras is not None:
        cols = [c for c in ("locale", "moves", "players", "finished") if c in extras.columns]
        table.frame = table.frame.join(extras.select("row", *cols), on="row", how="left", maintain_order="left").with_columns(
            pl.col("locale").fill_null("") if "locale" in cols else pl.lit("").alias("locale")
        )
    return table


def folder_extras(path: Path) -> Any:
    """The optional columns (:func:`.optional.extra_columns`) of a replay dataset or folder, by
    data row: each partition's file read in the order :func:`_load_folder` concatenates them."""
    import polars as pl

    from pipelines.replay.dataset import dataset_partitions, is_dataset

    from .optional import extra_columns

    if not is_dataset(path):
        return extra_columns(_replay_folder_file(path))
    parts, offset = [], 0
    for folder in dataset_partitions(path).values():
        extra = extra_columns(folder / "games" / "data.parquet")
        parts.append(extra.with_columns(pl.col("row") + offset))
        offset += extra.height
    return pl.concat(parts) if parts else None


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


def _json_as_text(path: Path) -> Any:
    """A JSON-lines games table as a frame of text columns: strings as they are, numbers and
    booleans as JSON text; a list or object value fails here, naming its line and key."""
    import polars as pl

    columns: dict[str, list[str | None]] = {}
    n = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line_no, text in enumerate(f, 1):
            if not text.strip():
                continue
            record = json.loads(text)
            for key, value in record.items():
                if isinstance(value, (list, dict)):
                    kind = "a list" if isinstance(value, list) else "an object"
                    raise DataError(f"column {key!r}, row {n + 1}: expected a plain value, got {kind}", path=path, line=line_no)
                col = columns.setdefault(key, [None] * n)
                col.append(value if isinstance(value, str) or value is None else json.dumps(value))
            n += 1
            for col in columns.values():
                if len(col) < n:
                    col.append(None)
    return pl.DataFrame({k: pl.Series(k, v, dtype=pl.String) for k, v in columns.items()}, height=n)


def _bad_csv_line(path: Path, sep: str) -> tuple[int, str] | None:
    """(line number, reason) of the first line of a CSV file that is not UTF-8 or has another
    number of fields than the header."""
    import csv

    try:
        with open(path, encoding="utf-8", newline="") as f:
            reader = csv.reader(f, delimiter=sep)
            width = None
            for fields in reader:
                if width is None:
                    width = len(fields)
                elif fields and len(fields) != width:
                    return reader.line_num, f"{len(fields)} fields where the header has {width}"
    except UnicodeDecodeError as exc:
        with open(path, "rb") as f:
            line = f.read(exc.start).count(b"\n") + 1
        return line, "not UTF-8 text"
    except csv.Error as exc:
        return reader.line_num, f"malformed CSV ({exc})"
    return None


def _shown(value: Any) -> str:
    return "a missing value" if value is None else repr(value)


def read_games(path: str | Path, players_from: str | None = None) -> GamesTable:
    """Read and validate a games table.

    Accepted: CSV/TSV (header line), Parquet, JSON lines, with the columns of
    :data:`GAME_COLUMNS`. Booleans may be true/false, 1/0, yes/no; ``finished_at`` is ISO 8601
    (``2024-05-01T21:03:00Z``, ``+00:00`` offsets, a space for ``T``, fractions; no offset means
    UTC); scores are integers that fit a signed 32-bit integer (:data:`SCORE_MIN` …
    :data:`SCORE_MAX`); ``game_id`` and player names are non-empty text without control
    characters (no NUL bytes), at most :data:`TEXT_MAX` characters. Player names are put in
    Unicode NFC, so an NFD and an NFC spelling of one name are one player.

    ``skrafl replay``'s ``games.parquet`` (recognised by its ``file``/``player1``/``player2``/
    ``score1``/``score2`` columns) is mapped: ``file`` → ``game_id``, ``player1``/``player2`` →
    ``player0``/``player1``, ``score1``/``score2`` → ``score0``/``score1``; rows whose ``status``
    is not ``ok`` are dropped. Its ``game_id`` (null → ``file``), ``finished_at``,
    ``robot1``/``robot2`` (→ ``robot0``/``robot1``) and ``competition`` (null → false) are used when
    present. A game without a ``finished_at`` (GCG files have none) in a day's partition of a
    replay dataset (``part=YYYY-MM-DD``: read from the nightly job's ``incoming/{date}``) takes the
    end of that UTC day (a note). Games without a time are kept with a null ``finished_at``:
    :func:`.batch.compute` rates them in file order, after the games with times (with ``--date``
    it leaves them out, their day unknown), each said in a note. A replayed game whose two
    players have the same name, or whose ``game_id`` repeats an earlier row, is skipped with a
    ``warning:`` note (one bad file must not stop the night). In any table a game against oneself
    is not rated (the Ordspill.no rules: it has no effect on the ranking), nor a game whose optional ``rated``
    column is false or ``unrated`` column true (:data:`RATED_COLUMNS`; an empty value is rated):
    skipped with a note. All of this is listed in :attr:`GamesTable.notes`.

    Player identities: a Netskrafl game record has no player ids (docs/NETSKRAFL.md
    "Game record": ``game_id``, ``ts_last_move``, ``moves``, scores… and no user), so replay
    names its seats ``player0`` and ``player1`` in every such game. Those are not players: rated
    as names, every game would be between the same two people. With ``players_from`` (a
    PostgreSQL URL: Netskrafl's ``games`` table, ``player0_id``/``player1_id``; a seat without an
    id is the robot ``robot-LEVEL``, as :func:`pipelines.postgres.games_frame`) the players are
    looked up by ``game_id``; a game without real identities (no ``players_from``, or its id not
    in that table) is listed in :attr:`GamesTable.unnamed` and never rated (:func:`.batch.compute`
    counts those of the run in one ``warning:`` note).

    Raises:
        DataError: a missing column, an empty or malformed value (naming the column and row), or a
            duplicate ``game_id``.
        UsageError: the file does not exist or has an unknown extension.
    """
    import polars as pl

    if isinstance(path, str) and path.split("://", 1)[0].lower() in ("postgresql", "postgres"):
        return read_database(path)
    path = Path(path)
    try:
        table = _read_games(path, players_from=players_from)
        if path.is_dir():
            with_extras(table, folder_extras(path))
        return table
    except pl.exceptions.PolarsError as exc:  # a shape the checks did not foresee: still one line
        raise DataError(f"cannot read games table: {str(exc).splitlines()[0]}", path=path) from None


def _replay_games(df: Any, table: GamesTable, notes: list[str], players_from: str | None) -> Any:
    """A replay games table (``skrafl replay``'s ``games``) in the games table's columns: its rows
    with status ``ok``, the seats' names, the robot and competition flags (False when absent), the
    times of a dataset's day; a game whose players have one name, or seen before, skipped with a
    warning in ``notes``."""
    import polars as pl

    if "status" in df.columns:
        bad = df.filter(pl.col("status").cast(pl.String) != "ok").height
        df = df.filter(pl.col("status").cast(pl.String) == "ok")
        if bad:
            notes.append(f"{bad} replay row(s) with status other than 'ok' skipped")
    df, unnamed = _seat_names(df, players_from)
    table.unnamed, table.players_from = unnamed, players_from
    if "robot2" in df.columns:  # replay numbers its players 1 and 2
        df = df.rename({"robot1": "robot0", "robot2": "robot1"} if "robot0" not in df.columns else {})
    game_id = pl.col("file")
    if "game_id" in df.columns:
        game_id = pl.coalesce(pl.col("game_id").cast(pl.String), pl.col("file"))
        _refuse_name_clash(df, table)
    kept = [c for c in ("finished_at", "robot0", "robot1", "competition", *RATED_COLUMNS, DAY_COLUMN) if c in df.columns]
    df = df.select(
        [game_id.alias("game_id")] + [pl.col(k).alias(v) for k, v in _REPLAY_MAP.items() if k != "file"] + kept + ["row"]
    )
    if DAY_COLUMN in df.columns:
        df = _day_times(df, notes)
    for c in ("robot0", "robot1", "competition"):
        if c in kept:
            df = df.with_columns(pl.col(c).fill_null(False))
    missing = [c for c in ("finished_at", "robot0", "robot1", "competition") if c not in df.columns]
    if "finished_at" in missing:
        df = df.with_columns(pl.lit(None, dtype=pl.String).alias("finished_at"))
    # Games with times and games without (GCG files, not in a day's partition) are both kept:
    # a run without --date rates the ones without after the others, in file order; --date
    # leaves them out (a day cannot be told), each said in a note (:func:`.batch.compute`).
    for c in ("robot0", "robot1", "competition"):
        if c in missing:
            df = df.with_columns(pl.lit(False).alias(c))
    if missing:
        notes.append(
            "replay games table lacks "
            + ", ".join(missing)
            + ": games rated in file order" * ("finished_at" in missing)
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
    key = same_game_key(pl.col("game_id"))
    dup = df.filter(key.is_duplicated() & (pl.int_range(pl.len()).over(key) > 0))
    if dup.height:
        notes.append(
            f"warning: {dup.height} replayed game(s) skipped: the same game already seen in the table (its game_id, "
            f"or for a file without an id the same players and moves under another name; first: {dup['game_id'][0]!r})"
        )
        df = df.join(dup.select("row"), on="row", how="anti").sort("row")
    return df


def _read_games(path: Path | str, loaded: tuple[Any, int] | None = None, players_from: str | None = None) -> GamesTable:
    import polars as pl

    df, line_offset = loaded if loaded is not None else _load_frame(Path(path))  # (a URL comes loaded)
    notes: list[str] = []
    table = GamesTable(frame=None, path=str(path), line_offset=line_offset, source_rows=df.height)
    df = df.with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias("row"))

    is_replay = "player0" not in df.columns and all(c in df.columns for c in ("file", "player1", "player2", "score1", "score2"))
    if is_replay:
        df = _replay_games(df, table, notes, players_from)
    else:
        missing = [c for c in GAME_COLUMNS if c not in df.columns]
        if missing:
            raise DataError(
                f"missing column {missing[0]!r} (games table needs: {', '.join(GAME_COLUMNS)}; found: {', '.join(df.columns[:-1])})",
                path=path,
                line=1 if line_offset else None,
            )

    df = _drop_unrated(df, table, notes)
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
        ordered_by_row = is_replay and df.height > 0  # no game: no order to need (a day without games)
    else:
        out["finished_at"] = _time_column(df, table, allow_null=is_replay)  # a replayed GCG file has none
        ordered_by_row = False
    frame = pl.DataFrame(out).select([*GAME_COLUMNS, "row"])

    ids = frame["game_id"].sort()
    repeated = ids.slice(1) == ids.slice(0, max(ids.len() - 1, 0))
    if repeated.any():
        dup = sorted(set(ids.slice(1).filter(repeated).to_list()))[0]
        rows = frame.filter(pl.col("game_id") == dup)["row"].sort().to_list()
        raise DataError(f"column 'game_id', row {rows[1]}: duplicate game id {dup!r} (also row {rows[0]})", *table.where(rows[1]))
    same = frame.filter(pl.col("player0") == pl.col("player1")).sort("row")
    if same.height:  # a game against oneself is not ranked (the Ordspill.no rules: "har ikke konsekvenser for ranking")
        r = int(same["row"][0])
        path, line = table.where(r)
        notes.append(
            f"{same.height} game(s) against oneself not rated (first: {same['game_id'][0]!r}, row {r}"
            f"{f', line {line}' if line is not None else ''}, player {same['player0'][0]!r})"
        )
        frame = frame.join(same.select("row"), on="row", how="anti").sort("row")
    table.frame = frame
    table.notes = tuple(notes)
    table.ordered_by_row = ordered_by_row
    return table


#: The end of a ``game_id`` that replay gives a game file without an id of its own: ``#`` and 12
#: hex digits of its content (:func:`pipelines.replay.game.content_id`), after the file name.
CONTENT_DIGEST = r"#[0-9a-f]{12}$"


def same_game_key(game_id: Any) -> Any:
    """A polars expression: what makes two rows the same game. A game known by its file name and
    content digest (``x.gcg#0123456789ab``) is its digest alone, so the same game renamed or
    copied (``y.gcg#0123456789ab``, another folder, another night) is one game, rated once;
    any other id is itself."""
    import polars as pl

    text = game_id.cast(pl.String)
    return pl.when(text.str.contains(CONTENT_DIGEST)).then(text.str.extract(f"({CONTENT_DIGEST})")).otherwise(text)


def _refuse_name_clash(df: Any, table: GamesTable) -> None:
    """Refuse a replay table in which different games share a ``game_id`` that is only their file
    name: replay names a GCG file without a ``#id`` line (and a Netskrafl record without a
    ``game_id``) by its file name, so ``a/game.gcg`` and ``b/game.gcg`` both get ``game.gcg``.
    Rated by that id, the second game would be skipped as already seen (and on a later night as
    already rated): a wrong answer, so one line naming both files, nothing rated. Rows of one id
    that are the same game (the same file given twice, or copies with the same players and
    scores) are not refused: the later ones are skipped as repeats, with a warning.

    Raises:
        DataError: two rows of one name-only ``game_id`` differ in players or scores."""
    import polars as pl

    facts = [c for c in ("player1", "player2", "score1", "score2", "moves") if c in df.columns]
    name = pl.col("file").cast(pl.String).str.replace(r"^.*[/\\]", "")
    named = df.filter(pl.col("game_id").is_not_null() & pl.col("file").is_not_null()).with_columns(
        (pl.col("game_id").cast(pl.String) == name).alias("_by_name")
    )
    clash = (
        named.filter(pl.col("_by_name").any().over("game_id")).filter(pl.struct(facts).n_unique().over("game_id") > 1).sort("row")
    )
    if clash.height:
        gid = clash["game_id"][0]
        files = clash.filter(pl.col("game_id") == gid)["file"].unique(maintain_order=True).to_list()
        more = f" and {len(files) - 2} more" if len(files) > 2 else ""
        raise DataError(
            f"game_id {gid!r} is shared by different games: {files[0]} and {files[1]}{more} (an older skrafl knew a "
            "GCG file without a #id line by its file name alone); replay them again (a game is now known by its name "
            "and content) or give each a #id line. Nothing was rated",
            path=table.path,
        )


SEATS = ("player0", "player1")
"""The names replay gives the seats of a Netskrafl record, which names no players."""


def _seat_names(df: Any, players_from: str | None) -> tuple[Any, tuple[int, ...]]:
    """The rows of a replay table (``player1``/``player2`` in file order) whose players are the
    seats ``player0``/``player1`` of a Netskrafl record: named from ``players_from`` by
    ``game_id`` (with their robot flags). Returns (frame, the data rows still without names)."""
    import polars as pl

    if "format" not in df.columns:  # replay always writes it: not a replay of Netskrafl records, names as given
        return df, ()
    seats = (pl.col("player1") == SEATS[0]) & (pl.col("player2") == SEATS[1]) & (pl.col("format").cast(pl.String) == "netskrafl")
    anonymous = df.filter(seats)
    if not anonymous.height:
        return df, ()
    gid = pl.coalesce(pl.col("game_id").cast(pl.String), pl.col("file")) if "game_id" in df.columns else pl.col("file")
    if players_from is not None:
        from pipelines.postgres import player_ids

        ids = anonymous.select(gid.alias("_gid"), "row")
        found = player_ids(players_from, ids["_gid"].to_list())
        if found:
            who = pl.DataFrame(
                {
                    "_gid": list(found),
                    "_p0": [v[0] for v in found.values()],
                    "_p1": [v[1] for v in found.values()],
                    "_r0": [v[2] for v in found.values()],
                    "_r1": [v[3] for v in found.values()],
                },
                schema={"_gid": pl.String, "_p0": pl.String, "_p1": pl.String, "_r0": pl.Boolean, "_r1": pl.Boolean},
            )
            hits = ids.join(who, on="_gid", how="inner").drop("_gid")
            df = df.join(hits, on="row", how="left", maintain_order="left")
            robots = {"robot1": "_r0", "robot2": "_r1"} if "robot2" in df.columns else {"robot0": "_r0", "robot1": "_r1"}
            df = df.with_columns(
                pl.coalesce("_p0", "player1").alias("player1"),
                pl.coalesce("_p1", "player2").alias("player2"),
                *(
                    pl.coalesce(flag, pl.col(col).cast(pl.Boolean) if col in df.columns else pl.lit(False)).alias(col)
                    for col, flag in robots.items()
                ),
            ).drop("_p0", "_p1", "_r0", "_r1")
    return df, tuple(df.filter(seats)["row"].to_list())


def _fail_at(table: GamesTable, column: str, row: int, what: str) -> DataError:
    return DataError(f"column {column!r}, row {row}: {what}", *table.where(row))


def _first_bad(df: Any, mask: Any) -> int:
    return int(df.filter(mask)["row"][0])


def _text_column(df: Any, column: str, table: GamesTable) -> Any:
    import polars as pl

    s = df[column]
    if s.dtype not in (
        pl.String,
        pl.Int64,
        pl.Int32,
        pl.UInt64,
        pl.UInt32,
        pl.Int16,
        pl.Int8,
        pl.UInt16,
        pl.UInt8,
        pl.Categorical,
    ):
        r = int(df["row"][0]) if df.height else 1
        raise _fail_at(table, column, r, f"expected text or an integer id, got a column of type {s.dtype}")
    s = s.cast(pl.String)
    if table.line_offset:  # CSV text: "anna " is "anna"
        s = s.str.strip_chars()
    bad = s.is_null() | (s == "")
    if bad.any():
        raise _fail_at(table, column, _first_bad(df, bad), "empty value")
    bad = s.str.contains(r"[\x00-\x1f\x7f]")
    if bad.any():
        r = _first_bad(df, bad)
        raise _fail_at(table, column, r, f"a control character (e.g. a NUL byte) in {_shown(s.filter(bad)[0][:80])}")
    if table.path.lower().endswith((".jsonl", ".ndjson", ".json")):
        # polars reads an object or a list among strings as its JSON text: not a name or an id.
        maybe = s.str.contains(r"^[\[{]")
        if maybe.any():
            for r, text in zip(df.filter(maybe)["row"], s.filter(maybe), strict=True):
                try:
                    value = json.loads(text)
                except ValueError:
                    continue
                if isinstance(value, (list, dict)):
                    kind = "a list" if isinstance(value, list) else "an object"
                    raise _fail_at(table, column, int(r), f"expected text, got {kind}")
    longest = TEXT_MAX[column]
    bad = s.str.len_chars() > longest
    if bad.any():
        raise _fail_at(table, column, _first_bad(df, bad), f"longer than {longest} characters")
    if column != "game_id":  # a player is one player however the name's letters are encoded
        # NFC changes only non-ASCII text; normalise each such distinct name once.
        odd = s.filter(s.str.contains(r"[^\x00-\x7f]")).unique()
        fixed = odd.str.normalize("NFC")
        changed = odd != fixed
        if changed.any():
            s = s.replace(odd.filter(changed), fixed.filter(changed))
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
            raise _fail_at(
                table, column, r, f"expected a boolean (true/false, 1/0), got {_shown(df.filter(pl.col('row') == r)[column][0])}"
            )
        res = s == 1
    elif s.dtype == pl.String:
        low = s.str.strip_chars().str.to_lowercase()
        bad = ~(low.is_in(_TRUE) | low.is_in(_FALSE)) | low.is_null()
        if bad.any():
            r = _first_bad(df, bad)
            raise _fail_at(
                table, column, r, f"expected a boolean (true/false, 1/0), got {_shown(df.filter(pl.col('row') == r)[column][0])}"
            )
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
        res = s.cast(pl.Int64, strict=False)
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
        raise _fail_at(
            table, column, r, f"expected an integer final score, got {_shown(df.filter(pl.col('row') == r)[column][0])}"
        )
    bad = (res < SCORE_MIN) | (res > SCORE_MAX)
    if bad.any():
        r = _first_bad(df, bad)
        raise _fail_at(
            table, column, r, f"score {res.filter(bad)[0]} is out of range ({SCORE_MIN} to {SCORE_MAX}, a signed 32-bit integer)"
        )
    return res.alias(column)


RATED_COLUMNS: tuple[str, ...] = ("rated", "unrated")
"""Optional games-table columns (booleans): a game with ``rated`` false or ``unrated`` true is
not rated (a note counts them); an empty value is a rated game."""


def _drop_unrated(df: Any, table: GamesTable, notes: list[str]) -> Any:
    """``df`` without the games its ``rated``/``unrated`` column marks unrated (checked as
    booleans, naming the row of a bad value), counted in a note naming the first."""
    import polars as pl

    if not any(c in df.columns for c in RATED_COLUMNS):
        return df
    unrated = pl.select(pl.repeat(False, df.height, dtype=pl.Boolean)).to_series()
    for column in RATED_COLUMNS:
        if column in df.columns:
            default = column == "rated"  # an empty value: a rated game
            s = df[column]
            if s.dtype == pl.Boolean:
                s = s.fill_null(default)
            elif s.dtype.is_integer():
                s = s.fill_null(int(default))
            elif s.dtype == pl.String:
                s = s.str.strip_chars().replace("", None).fill_null(str(default).lower())
            flag = _bool_column(df.with_columns(s.alias(column)), column, table)
            unrated = unrated | (~flag if column == "rated" else flag)
    marked = df.filter(unrated)
    if marked.height:
        first = marked.sort("row").row(0, named=True)
        notes.append(
            f"{marked.height} game(s) marked unrated (column 'rated' false or 'unrated' true) not rated "
            f"(first: {first['game_id']!r}, row {first['row']})"
        )
    return df.filter(~unrated)


def _time_column(df: Any, table: GamesTable, allow_null: bool = False) -> Any:
    import polars as pl

    s = df["finished_at"]
    target = pl.Datetime("us", "UTC")
    if isinstance(s.dtype, pl.Datetime):
        res = s.dt.replace_time_zone("UTC") if s.dtype.time_zone is None else s.dt.convert_time_zone("UTC")
        res = res.cast(target)
        bad = res.is_null() & (not allow_null)
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
            table,
            "finished_at",
            r,
            f"expected an ISO 8601 UTC time like 2024-05-01T21:03:00Z, got {_shown(df.filter(pl.col('row') == r)['finished_at'][0])}",
        )
    return res.alias("finished_at")
