"""The tables a replay writes: their columns and schemas, the writers of ``games.parquet`` and
``moves.parquet``, and of the GCG exports.

Results are converted to Arrow a run of games at a time (:func:`to_batch`, in the worker that
replayed them) and streamed into the Parquet files by :class:`TableWriter`: one row group per
:data:`GROUP_GAMES` games in input order (the moves of those games in ``moves.parquet``), so the
bytes depend on the input and the options only, never on the number of workers or the runs'
sizes, and memory stays flat however many games there are. A value that does not fit its column
(a score beyond int32, text that is not Unicode) makes its game an ``error`` row
(``TABLE_VALUE_INVALID``) instead of failing the write.

Tables (Parquet, zstd):

- ``games.parquet``, one row per file: ``file`` (path as given), ``format`` (``gcg``/``netskrafl``),
  ``status``, ``error`` (``CODE: message (line N)``; for ``mismatch`` the first finding; null when
  ok), ``player1``/``player2`` (nicknames in file order; Netskrafl ``player0``/``player1``),
  ``score1``/``score2`` (final scores as the rules compute them, in file order), ``winner``
  (nickname; null for a draw or an unreadable file), ``moves`` (turns: plays, passes, exchanges),
  ``bingos1``/``bingos2``, ``unknown_words`` (sorted words formed that the lexicon lacks; null
  without a lexicon); then the game facts (:func:`game_facts`): ``game_id``, ``finished_at``
  (UTC), ``competition``, ``robot1``/``robot2``; ``warnings`` (every finding of the game as
  ``line N: CODE: message``: lenient repairs, warnings, mismatches); ``finished`` (the game
  reached its end: someone went out, the scoreless turns ran out or a player resigned; an
  unfinished game has a null ``winner``), ``locale`` (Netskrafl's ``locale``, else GCG
  ``#locale``), ``players`` (2 to 4) and ``player3``/``player4``, ``score3``/``score4``,
  ``bingos3``/``bingos4`` (null in a two-player game; turns go round in ``#player`` order),
  ``ended_by`` (``out``, ``zeros`` — the scoreless turns —, ``passes`` — a player's passes in a row,
  rule ``player_passes_end`` —, ``resign`` or ``target`` — Endline —;
  null when not finished).
- ``moves.parquet``, one row per event: ``file``, ``turn`` (1-based event number), ``player``
  (1-based, file order), ``kind`` (see :mod:`gamecore.gamelog`), ``coord`` (GCG notation),
  ``word`` (main word with ``.`` for played-through tiles; exchanged or rack tiles for exchanges
  and end-of-game lines), ``tiles_placed``, ``score_recorded`` (null for the end-of-game lines a
  Netskrafl record leaves implicit), ``score_computed``, ``cumulative`` (the player's computed
  total after the event), ``bingo``, ``words_formed`` (lowercase, main word first),
  ``unknown`` (words formed missing from the lexicon; null without one). With ``--analyze``:
  ``best_coord``, ``best_word``, ``best_score``, ``points_lost``.
- With ``--analyze --leaves`` (:mod:`pipelines.replay.equity`, schemas ``"equity"``): moves add
  ``equity``, ``best_equity``, ``best_move``, ``equity_lost``, ``win_pct_lost``, ``mistake``;
  games add ``rules`` and per player ``accuracyN``, ``equity_lostN``, ``mistake_indexN``,
  ``ratingN`` (N = 1..4).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

    from .game import GameResult

GAME_COLUMNS = (
    "file",
    "format",
    "status",
    "error",
    "player1",
    "player2",
    "score1",
    "score2",
    "winner",
    "moves",
    "bingos1",
    "bingos2",
    "unknown_words",
    "game_id",
    "finished_at",
    "competition",
    "robot1",
    "robot2",
    "warnings",
    "finished",
    "locale",
    "players",
    "player3",
    "player4",
    "score3",
    "score4",
    "bingos3",
    "bingos4",
    "ended_by",
)
MOVE_COLUMNS = (
    "file",
    "turn",
    "player",
    "kind",
    "coord",
    "word",
    "tiles_placed",
    "score_recorded",
    "score_computed",
    "cumulative",
    "bingo",
    "words_formed",
    "unknown",
)
ANALYZE_COLUMNS = ("best_coord", "best_word", "best_score", "points_lost")


UNREAD = "_unread"
"""Key set (True) in the ``game_row`` of a file that could not be read as a game log at all (not a
column of games.parquet)."""

GROUP_GAMES = 4096
"""Games per Parquet row group (and the moves of those games per row group of moves.parquet)."""

LISTED = 20
"""Games not ok a replay summary lists on stderr (``not_ok``, the first ones); the rest are counted
(every game has its status in games.parquet)."""

_SCHEMAS: dict[object, tuple] = {}


def schemas(analyze: bool | str = False) -> tuple["pa.Schema", "pa.Schema"]:
    """The schemas of ``games.parquet`` and ``moves.parquet`` (with ``--analyze`` columns or not;
    ``"equity"``: ``--analyze --leaves``, the equity columns too)."""
    got = _SCHEMAS.get(analyze)
    if got is not None:
        return got
    import pyarrow as pa

    game_schema = pa.schema(
        [
            ("file", pa.string()),
            ("format", pa.string()),
            ("status", pa.string()),
            ("error", pa.string()),
            ("player1", pa.string()),
            ("player2", pa.string()),
            ("score1", pa.int32()),
            ("score2", pa.int32()),
            ("winner", pa.string()),
            ("moves", pa.int32()),
            ("bingos1", pa.int32()),
            ("bingos2", pa.int32()),
            ("unknown_words", pa.list_(pa.string())),
            ("game_id", pa.string()),
            ("finished_at", pa.timestamp("us", tz="UTC")),
            ("competition", pa.bool_()),
            ("robot1", pa.bool_()),
            ("robot2", pa.bool_()),
            ("warnings", pa.list_(pa.string())),
            # the multi-player columns (appended, so the two-player columns keep their places): whether the game reached
            # its end (else winner is null), the locale (Netskrafl's, or GCG #locale), the number of
            # players (2-4) and the third and fourth players' columns (null in a two-player game)
            ("finished", pa.bool_()),
            ("locale", pa.string()),
            ("players", pa.int32()),
            ("player3", pa.string()),
            ("player4", pa.string()),
            ("score3", pa.int32()),
            ("score4", pa.int32()),
            ("bingos3", pa.int32()),
            ("bingos4", pa.int32()),
            ("ended_by", pa.string()),
        ]
        + (
            [("rules", pa.string())]
            + [(f"accuracy{k}", pa.float64()) for k in range(1, 5)]
            + [(f"equity_lost{k}", pa.float64()) for k in range(1, 5)]
            + [(f"mistake_index{k}", pa.float64()) for k in range(1, 5)]
            + [(f"rating{k}", pa.int32()) for k in range(1, 5)]
            if analyze == "equity"
            else []
        )
    )
    fields = [
        ("file", pa.string()),
        ("turn", pa.int32()),
        ("player", pa.int32()),
        ("kind", pa.string()),
        ("coord", pa.string()),
        ("word", pa.string()),
        ("tiles_placed", pa.int32()),
        ("score_recorded", pa.int32()),
        ("score_computed", pa.int32()),
        ("cumulative", pa.int32()),
        ("bingo", pa.bool_()),
        ("words_formed", pa.list_(pa.string())),
        ("unknown", pa.list_(pa.string())),
    ]
    if analyze:
        fields += [
            ("best_coord", pa.string()),
            ("best_word", pa.string()),
            ("best_score", pa.int32()),
            ("points_lost", pa.int32()),
        ]
    if analyze == "equity":
        fields += [
            ("equity", pa.float64()),
            ("best_equity", pa.float64()),
            ("best_move", pa.string()),
            ("equity_lost", pa.float64()),
            ("win_pct_lost", pa.float64()),
            ("mistake", pa.string()),
        ]
    got = _SCHEMAS[analyze] = (game_schema, pa.schema(fields))
    return got


@dataclass
class TableBatch:
    """The table rows of a run of games, in input order: ``games`` (one row per file), ``moves``
    (their events), ``events`` (move rows per game, to cut row groups between games) and ``gcg``
    (each game's GCG export or ``None``). What a worker sends back: Arrow buffers pickle cheaply."""

    games: "pa.RecordBatch"
    moves: "pa.RecordBatch"
    events: list[int] = field(default_factory=list)
    gcg: list[str | None] = field(default_factory=list)
    unread: int = 0
    """Files of the run that could not be read as a game log at all."""

    def __len__(self) -> int:
        return self.games.num_rows


_CONVERT_ERRORS: tuple = ()


def _convert_errors() -> tuple:
    global _CONVERT_ERRORS
    if not _CONVERT_ERRORS:
        import pyarrow as pa

        _CONVERT_ERRORS = (pa.ArrowException, OverflowError, TypeError, ValueError, UnicodeError)
    return _CONVERT_ERRORS


def _arrays(results: list[GameResult], analyze: bool | str):
    """The games and moves record batches of ``results``. Raises on a value that does not fit."""
    import pyarrow as pa

    game_schema, move_schema = schemas(analyze)
    games = pa.RecordBatch.from_pylist([r.game_row for r in results], schema=game_schema)
    names = tuple(move_schema.names)
    rows = [t for r in results for t in r.row_values(names)]
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(names)
    moves = pa.RecordBatch.from_arrays(
        [pa.array(col, type=f.type) for col, f in zip(columns, move_schema, strict=True)], schema=move_schema
    )
    return games, moves


def _unfit(result: GameResult, analyze: bool | str) -> str:
    """Why ``result`` cannot be written (the first column whose value does not fit), or ``""``."""
    import pyarrow as pa

    game_schema, move_schema = schemas(analyze)
    for f in game_schema:
        try:
            pa.array([result.game_row.get(f.name)], type=f.type)
        except _convert_errors() as exc:
            return f"games.{f.name} = {_show(result.game_row.get(f.name))}: {_reason(exc, f.type)}"
    names = tuple(move_schema.names)
    rows = result.row_values(names)
    for i, f in enumerate(move_schema):
        for turn, r in enumerate(rows, 1):
            try:
                pa.array([r[i]], type=f.type)
            except _convert_errors() as exc:
                return f"moves.{f.name} of event {turn} = {_show(r[i])}: {_reason(exc, f.type)}"
    return ""


def _show(value) -> str:
    return _printable(repr(value)[:80])


def _printable(text: str) -> str:
    """``text`` with anything UTF-8 cannot hold (lone surrogates) escaped."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _reason(exc: BaseException, type_) -> str:
    return f"does not fit the column type {type_} ({type(exc).__name__}: {_printable(str(exc))[:120]})"


def _unfit_row(result: GameResult, reason: str) -> GameResult:
    """The ``error`` row that replaces a result whose values do not fit the tables."""
    row: dict[str, Any] = {c: None for c in GAME_COLUMNS}
    file = result.game_row.get("file")
    fmt = result.game_row.get("format")
    row["file"] = _printable(file) if isinstance(file, str) else None
    row["format"] = fmt if fmt in ("gcg", "netskrafl") else None
    row["status"] = "error"
    row["error"] = f"TABLE_VALUE_INVALID: {reason}"
    row["warnings"] = []
    return type(result)(row)


def to_batch(results: list[GameResult], analyze: bool | str = False) -> TableBatch:
    """Convert a run of results to a :class:`TableBatch`. A result with a value that does not fit
    its column (int32 score, a string that is not valid Unicode, a value of the wrong type) is
    replaced by an ``error`` row ``TABLE_VALUE_INVALID: games.score1 = … does not fit …`` and its
    move rows are dropped; the others are kept as they are."""
    try:
        games, moves = _arrays(results, analyze)
    except _convert_errors():
        fixed = []
        for r in results:
            reason = _unfit(r, analyze)
            fixed.append(_unfit_row(r, reason) if reason else r)
        results = fixed
        games, moves = _arrays(results, analyze)
    unread = sum(1 for r in results if r.game_row.get(UNREAD))
    return TableBatch(games, moves, [r.event_count for r in results], [r.gcg for r in results], unread)


class TableWriter:
    """Stream :class:`TableBatch`es into ``games.parquet`` and ``moves.parquet`` in ``folder``
    (zstd): a row group per ``group_games`` games, cut at the same games whatever the batches'
    sizes, so the files' bytes depend only on the rows. Call :meth:`close` to finish the files
    (on an error, do not: the caller's stage folder is discarded)."""

    def __init__(self, folder: str | Path, analyze: bool | str = False, group_games: int = GROUP_GAMES):
        import pyarrow.parquet as pq

        self.game_schema, self.move_schema = schemas(analyze)
        folder = Path(folder)
        self._games = pq.ParquetWriter(folder / "games.parquet", self.game_schema, compression="zstd")
        self._moves = pq.ParquetWriter(folder / "moves.parquet", self.move_schema, compression="zstd")
        self.group_games = group_games
        self._pending: list[TableBatch] = []
        self._pending_games = 0
        self.games = self.moves = 0

    def add(self, batch: TableBatch) -> None:
        if len(batch) == 0:
            return
        self._pending.append(batch)
        self._pending_games += len(batch)
        while self._pending_games >= self.group_games:
            self._flush(self.group_games)

    def _flush(self, n: int) -> None:
        """Write the first ``n`` pending games (and their moves) as one row group."""
        import pyarrow as pa

        games, moves, left = [], [], n
        while left:
            b = self._pending[0]
            if len(b) <= left:
                games.append(b.games)
                moves.append(b.moves)
                left -= len(b)
                self._pending.pop(0)
            else:
                k = sum(b.events[:left])
                games.append(b.games.slice(0, left))
                moves.append(b.moves.slice(0, k))
                self._pending[0] = TableBatch(b.games.slice(left), b.moves.slice(k), b.events[left:], b.gcg[left:], b.unread)
                left = 0
        self._pending_games -= n
        gt = pa.Table.from_batches(games, schema=self.game_schema).combine_chunks()
        mt = pa.Table.from_batches(moves, schema=self.move_schema).combine_chunks()
        self._games.write_table(gt)
        self._moves.write_table(mt)
        self.games += gt.num_rows
        self.moves += mt.num_rows

    def close(self) -> None:
        """Write the last row group and the files' footers."""
        if self._pending_games or self.games == 0:
            self._flush(self._pending_games)
        self._games.close()
        self._moves.close()


class GcgExporter:
    """Write each replayed game as GCG into ``folder`` as results stream in (``<stem>.gcg``; a
    second file of the same stem gets ``<stem>-2.gcg`` and so on, in input order)."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.used: set[str] = set()
        self.count = 0

    def add(self, files, texts) -> None:
        for file, text in zip(files, texts, strict=True):
            if text is None:
                continue
            stem = Path(file).stem
            name = stem
            k = 2
            while name in self.used:
                name, k = f"{stem}-{k}", k + 1
            self.used.add(name)
            (self.folder / f"{name}.gcg").write_text(text, encoding="utf-8")
            self.count += 1


def write_tables(results: list[GameResult], out_dir: str | Path, analyze: bool | str = False) -> None:
    """Write ``games.parquet`` and ``moves.parquet`` of ``results`` as the whole output folder
    ``out_dir`` (:func:`pipelines.atomic.output_dir`, command ``replay``).

    Raises:
        UsageError: ``out_dir`` is refused (a file, someone else's folder, …)."""
    from pipelines.atomic import output_dir

    with output_dir(Path(out_dir), command="replay") as stage:
        writer = TableWriter(stage, analyze)
        for i in range(0, len(results), 64):
            writer.add(to_batch(results[i : i + 64], analyze))
        writer.close()


def write_exports(results: list[GameResult], export_dir: str | Path) -> int:
    """Write each replayed game of ``results`` as GCG: the whole output folder ``export_dir``
    (command ``replay-export``). Returns the count."""
    from pipelines.atomic import output_dir

    with output_dir(Path(export_dir), command="replay-export") as stage:
        ex = GcgExporter(stage)
        ex.add([r.game_row["file"] for r in results], [r.gcg for r in results])
    return ex.count
