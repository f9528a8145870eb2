"""The tables a replay writes: their columns and schemas, the writers of ``games.parquet`` and
``moves.parquet``, and of the GCG exports.

Tables (Parquet, zstd):

- ``games.parquet``, one row per file: ``file`` (path as given), ``format`` (``gcg``/``netskrafl``),
  ``status``, ``error`` (``CODE: message (line N)``; for ``mismatch`` the first finding; null when
  ok), ``player1``/``player2`` (nicknames in file order; Netskrafl ``player0``/``player1``),
  ``score1``/``score2`` (final scores as the rules compute them, in file order), ``winner``
  (nickname; null for a draw or an unreadable file), ``moves`` (turns: plays, passes, exchanges),
  ``bingos1``/``bingos2``, ``unknown_words`` (sorted words formed that the lexicon lacks; null
  without a lexicon); then the game facts (:func:`game_facts`): ``game_id``, ``finished_at``
  (UTC), ``competition``, ``robot1``/``robot2``; and ``warnings`` (every finding of the game as
  ``line N: CODE: message``: lenient repairs, warnings, mismatches).
- ``moves.parquet``, one row per event: ``file``, ``turn`` (1-based event number), ``player``
  (1-based, file order), ``kind`` (see :mod:`gamecore.gamelog`), ``coord`` (GCG notation),
  ``word`` (main word with ``.`` for played-through tiles; exchanged or rack tiles for exchanges
  and end-of-game lines), ``tiles_placed``, ``score_recorded`` (null for the end-of-game lines a
  Netskrafl record leaves implicit), ``score_computed``, ``cumulative`` (the player's computed
  total after the event), ``bingo``, ``words_formed`` (lowercase, main word first),
  ``unknown`` (words formed missing from the lexicon; null without one). With ``--analyze``:
  ``best_coord``, ``best_word``, ``best_score``, ``points_lost``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .game import GameResult

GAME_COLUMNS = ("file", "format", "status", "error", "player1", "player2", "score1", "score2", "winner", "moves", "bingos1", "bingos2", "unknown_words",
                "game_id", "finished_at", "competition", "robot1", "robot2", "warnings")
MOVE_COLUMNS = ("file", "turn", "player", "kind", "coord", "word", "tiles_placed", "score_recorded", "score_computed", "cumulative", "bingo", "words_formed", "unknown")
ANALYZE_COLUMNS = ("best_coord", "best_word", "best_score", "points_lost")


def _tables(results: list[GameResult], analyze: bool):
    import pyarrow as pa

    game_schema = pa.schema([
        ("file", pa.string()), ("format", pa.string()), ("status", pa.string()), ("error", pa.string()),
        ("player1", pa.string()), ("player2", pa.string()), ("score1", pa.int32()), ("score2", pa.int32()),
        ("winner", pa.string()), ("moves", pa.int32()), ("bingos1", pa.int32()), ("bingos2", pa.int32()),
        ("unknown_words", pa.list_(pa.string())),
        ("game_id", pa.string()), ("finished_at", pa.timestamp("us", tz="UTC")), ("competition", pa.bool_()),
        ("robot1", pa.bool_()), ("robot2", pa.bool_()), ("warnings", pa.list_(pa.string())),
    ])
    fields = [
        ("file", pa.string()), ("turn", pa.int32()), ("player", pa.int32()), ("kind", pa.string()),
        ("coord", pa.string()), ("word", pa.string()), ("tiles_placed", pa.int32()),
        ("score_recorded", pa.int32()), ("score_computed", pa.int32()), ("cumulative", pa.int32()),
        ("bingo", pa.bool_()), ("words_formed", pa.list_(pa.string())), ("unknown", pa.list_(pa.string())),
    ]
    if analyze:
        fields += [("best_coord", pa.string()), ("best_word", pa.string()), ("best_score", pa.int32()), ("points_lost", pa.int32())]
    move_schema = pa.schema(fields)
    games = pa.Table.from_pylist([r.game_row for r in results], schema=game_schema)
    names = tuple(move_schema.names)
    rows = [t for r in results for t in r.row_values(names)]
    columns = list(zip(*rows)) if rows else [()] * len(names)
    moves = pa.Table.from_arrays([pa.array(col, type=f.type) for col, f in zip(columns, move_schema)], schema=move_schema)
    return games, moves


def write_tables(results: list[GameResult], out_dir: str | Path, analyze: bool = False) -> None:
    """Write ``games.parquet`` and ``moves.parquet`` into ``out_dir`` atomically
    (:func:`pipelines.atomic.staged_dir`: other files of the folder are kept).

    Raises:
        UsageError: ``out_dir`` is a file, the current folder or one of its parents."""
    import pyarrow.parquet as pq

    from pipelines.atomic import staged_dir

    games, moves = _tables(results, analyze)
    with staged_dir(Path(out_dir)) as stage:
        for name, table in (("games.parquet", games), ("moves.parquet", moves)):
            pq.write_table(table, stage / name, compression="zstd")


def write_exports(results: list[GameResult], export_dir: str | Path) -> int:
    """Write each replayed game as GCG into ``export_dir`` (``<stem>.gcg``; atomic, other files of
    the folder are kept). Returns the count.

    Raises:
        UsageError: ``export_dir`` is a file, the current folder or one of its parents."""
    from pipelines.atomic import staged_dir

    n = 0
    used: set[str] = set()
    with staged_dir(Path(export_dir)) as stage:
        for r in results:
            if r.gcg is None:
                continue
            stem = Path(r.game_row["file"]).stem
            name = stem
            k = 2
            while name in used:
                name, k = f"{stem}-{k}", k + 1
            used.add(name)
            (stage / f"{name}.gcg").write_text(r.gcg, encoding="utf-8")
            n += 1
    return n
