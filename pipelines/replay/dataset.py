"""A replay *dataset*: ``games`` and ``moves`` as Hive-partitioned Parquet, one partition per
finished day (Netskrafl records) or per source folder (GCG files), games added and replaced by
their id, every run published whole by one ``rename`` (``skrafl replay --dataset DIR``).

Layout (``part`` is the Hive key; any Parquet reader reads ``DIR/games`` as one table)::

    DIR/current                 -> .v-XXXX                    the one link a run swaps
    DIR/games                   -> current/games              (fixed links, made once)
    DIR/moves                   -> current/moves
    DIR/dataset.json            -> current/dataset.json
    DIR/.v-XXXX/dataset.json                                  the manifest: format, --analyze ("equity" with --leaves),
                                                              per partition its counts and files
    DIR/.v-XXXX/games/part=P    -> ../parts/part=P/games
    DIR/.v-XXXX/moves/part=P    -> ../parts/part=P/moves
    DIR/.v-XXXX/parts/part=P/{games/data.parquet, moves/data.parquet, events.arrow}
    DIR/.v-XXXX/.skrafl-output                                marker (command replay-dataset)

A *version* ``.v-XXXX`` holds every partition (a partition the run leaves as it was is hard-linked
from the previous version, not copied), its manifest and its marker (every file's size and
SHA-256). ``current`` is swapped onto a complete, fsynced version by one ``rename``: a reader of
``DIR/games``, ``DIR/moves`` or ``DIR/dataset.json`` sees the old version or the new one, whole,
after a kill at any point; readers that list folders (polars' Hive scan, DuckDB's glob) never see
a hidden or temporary entry inside ``games/`` or ``moves/``. skrafl's own readers
(:func:`dataset_partitions`, :func:`read_table`) resolve ``current`` once and read every file from
that version. The previous version is removed after the swap; what a killed run left (hidden
versions, spools, temporary links) is removed by the next run, under the lock ``.DIR.lock``
beside the folder. A dataset of the older layout (``parts/part=P`` links swapped one by one) is
converted on its next run: first to a version holding exactly its partitions, then the run.

Games are **merged by id** (``game_id``: a Netskrafl record's id, a GCG ``#id``, else
``FILE#DIGEST``; a row without one, an unreadable file, by its ``file``): a game the run brings
replaces the dataset's row of that id, in whatever partition it was, and every other game stays.
A game the run reads twice is kept once (the later), counted as ``duplicates``. Dropping games a
run did not bring is asked for explicitly (``drop_missing``, ``--drop-missing``): the games of
every partition the run writes, and of every day of its window, that the run did not bring; the
summary counts them (``dropped``). A dated folder of the nightly job read whole (``folder_days``)
replaces what was read from it before (the ``part=src-…`` of that folder, the count in
``dropped``).

Partitions: a game with a ``finished_at`` goes to ``part=YYYY-MM-DD`` (its UTC day); a game
without one (GCG files, unreadable files) read from a *dated folder* of the run (the nightly job's
``incoming/{date}``: ``run_replay_dataset(folder_days=…)``) to that folder's day, ``part=DAY``
(its ``finished_at`` stays empty: elo rates it at the end of that day), else to
``part=src-FOLDER-XXXXXXXX`` (its file's folder name, letters, digits, ``-``, ``_``, ``.`` kept,
and 8 hex digits of the SHA-256 of the folder's real path: ``site1/games`` and ``site2/games``
never share a partition). With a window (``--since`` / ``--until``) only games finished in it are
written. A partition whose rows end up byte-identical is reported ``unchanged``; a run that
changes nothing publishes no new version.

Streaming, in two phases, so memory is bounded by a segment (4,096 games) whatever the input:

1. **Spool.** Replayed batches (in input order) are cut into segments; a segment is one Arrow IPC
   file per table in ``DIR/.spool-XXXX/``, its rows grouped by partition (one record batch per
   partition, in input order inside it).
2. **Write.** Each partition to write is its kept old rows (in their order) then the run's rows
   (in input order), streamed by :class:`~pipelines.replay.tables.TableWriter` (row group per
   4,096 games), so the bytes depend only on the rows: never on workers, segment sizes or where
   the work ran (local processes or a Dask cluster: :mod:`.cluster`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, cast

from gamecore.errors import DataError, UsageError

from .tables import LISTED, TableBatch, TableWriter, schemas

TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy as np

MANIFEST = "dataset.json"
KIND = "skrafl-replay-dataset"
KEY = "part"
COMMAND = "replay-partition"
SEGMENT_GAMES = 4096
_EVENTS = "_events"


# ---------------------------------------------------------------------------------------------
# partitions


def _legacy_source_name(file: str | None) -> str:
    """``src-FOLDER``: the partition an older skrafl gave a file's games (two folders of one name
    shared it)."""
    folder = os.path.basename(os.path.dirname(file or "")) or "top"
    return "src-" + (re.sub(r"[^A-Za-z0-9._-]+", "_", folder).strip("._") or "top")


@functools.lru_cache(maxsize=4096)
def _folder_digest(folder: str) -> str:
    import hashlib

    where = folder if "://" in folder else os.path.realpath(folder or ".")
    return hashlib.sha256(where.encode("utf-8", "surrogateescape")).hexdigest()[:8]


def _source_name(file: str | None) -> str:
    """``src-FOLDER-XXXXXXXX``: the folder's name and 8 hex digits of its real path's SHA-256, so
    two folders of one name never share a partition."""
    if file is None:
        return "src-top"
    return f"{_legacy_source_name(file)}-{_folder_digest(os.path.dirname(file))}"


def partition_of(file: str | None, finished_at, folder_days: dict[str, dt.date] | None = None) -> str:
    """The partition value of a game row: its UTC day; else, for a file under one of the dated
    folders of ``folder_days`` (the nightly job's ``incoming/{date}``: folder → its UTC day), that
    folder's day; else ``src-`` + its file's folder name."""
    if finished_at is not None:
        return finished_at.astimezone(dt.timezone.utc).date().isoformat()
    day = _folder_day(file, folder_days) if folder_days else None
    if day is not None:
        return day.isoformat()
    return _source_name(file)


def _folder_day(file: str | None, folder_days: dict[str, dt.date]) -> dt.date | None:
    """The day of the dated folder ``file`` lies in (or is), the innermost one; None if none."""
    if not file:
        return None
    path = os.path.normpath(file)
    while True:
        day = folder_days.get(path)
        if day is not None:
            return day
        parent = os.path.dirname(path)
        if not parent or parent == path:
            return None
        path = parent


def _window_days(window: tuple) -> dict[str, dt.date]:
    """The dated folders of a run's window (its optional third element), keys normalised."""
    days = window[2] if len(window) > 2 and window[2] else {}
    return {os.path.normpath(str(k)): v for k, v in days.items()}


def _partitions(games, folder_days: dict[str, dt.date] | None = None) -> list[str]:
    files = games.column("file").to_pylist()
    times = games.column("finished_at").to_pylist()
    return [partition_of(f, t, folder_days) for f, t in zip(files, times, strict=True)]


# ---------------------------------------------------------------------------------------------
# phase 1: segments


@dataclass
class Segment:
    """One spooled segment: its two IPC files and, per partition, the record batch index and the
    number of games."""

    games_path: str
    moves_path: str
    parts: dict[str, tuple[int, int]] = field(default_factory=dict)


def write_segment(
    batches: list[TableBatch],
    games_path: str,
    moves_path: str,
    analyze: bool | str,
    window: tuple = (None, None),
) -> tuple[Segment, dict]:
    """Group the rows of ``batches`` by partition and write them as one segment. Games finished
    outside ``window`` (``(since, until)``, days, both ends included) are left out. A third
    element of ``window``, ``{folder: day}``, gives a game without a ``finished_at`` read from a
    file under one of those folders that day's partition (:func:`partition_of`). Returns the
    segment and counts ``{"games", "moves", "outside", statuses…}``."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.ipc as ipc

    game_schema, move_schema = schemas(analyze)
    spool_schema = game_schema.append(pa.field(_EVENTS, pa.int32()))
    by_part: dict[str, tuple[list, list, list]] = {}
    counts: dict = {"games": 0, "moves": 0, "outside": 0, "unread": 0}
    not_ok: list = []
    since, until = window[:2]
    folder_days = _window_days(window)
    for b in batches:
        if len(b) == 0:
            continue
        counts["unread"] += b.unread
        parts = _partitions(b.games, folder_days)
        events = np.asarray(b.events, dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(events)])
        statuses = b.games.column("status").to_pylist()
        files = b.games.column("file").to_pylist()
        errors = b.games.column("error").to_pylist()
        warned = b.games.column("warnings").to_pylist()
        rows: dict[str, list[int]] = {}
        for i, p in enumerate(parts):
            if (since or until) and not p.startswith("src-"):
                day = dt.date.fromisoformat(p)
                if (since and day < since) or (until and day > until):
                    counts["outside"] += 1
                    continue
            rows.setdefault(p, []).append(i)
            counts["games"] += 1
            counts["moves"] += int(events[i])
            counts[statuses[i]] = counts.get(statuses[i], 0) + 1
            if statuses[i] == "ok":
                counts["warnings"] = counts.get("warnings", 0) + bool(warned[i])
            elif len(not_ok) < LISTED:
                not_ok.append((statuses[i], files[i], errors[i]))
        for p, idx in rows.items():
            g, m, e = by_part.setdefault(p, ([], [], []))
            take = np.asarray(idx, dtype=np.int64)
            g.append(b.games.take(pa.array(take)))
            if idx == list(range(idx[0], idx[-1] + 1)):
                m.append(b.moves.slice(int(offsets[idx[0]]), int(offsets[idx[-1] + 1] - offsets[idx[0]])))
            else:
                move_idx = np.concatenate([np.arange(offsets[i], offsets[i + 1]) for i in idx]) if idx else np.empty(0, np.int64)
                m.append(b.moves.take(pa.array(move_idx, pa.int64())))
            e.extend(int(events[i]) for i in idx)
    seg = Segment(games_path, moves_path)
    with ipc.new_file(games_path, spool_schema) as gw, ipc.new_file(moves_path, move_schema) as mw:
        for k, p in enumerate(sorted(by_part)):
            g, m, e = by_part[p]
            gt = pa.Table.from_batches(g, schema=game_schema).combine_chunks()
            gt = gt.append_column(_EVENTS, pa.array(e, pa.int32()))
            mt = pa.Table.from_batches(m, schema=move_schema).combine_chunks()
            gw.write_batch(_one_batch(gt))
            mw.write_batch(_one_batch(mt))
            seg.parts[p] = (k, gt.num_rows)
    counts["not_ok"] = not_ok
    return seg, counts


def _one_batch(table):
    """``table`` as exactly one record batch (an empty one for no rows)."""
    import pyarrow as pa

    batches = table.combine_chunks().to_batches()
    if len(batches) == 1:
        return batches[0]
    if not batches:
        return pa.RecordBatch.from_pylist([], schema=table.schema)
    return pa.Table.from_batches(batches).combine_chunks().to_batches()[0]


def _read_piece(seg: Segment, index: int, analyze: bool | str) -> TableBatch:
    import pyarrow as pa
    import pyarrow.ipc as ipc

    game_schema, move_schema = schemas(analyze)
    with open(seg.games_path, "rb") as gsrc, open(seg.moves_path, "rb") as msrc:
        gb = ipc.open_file(gsrc).get_batch(index)
        mb = ipc.open_file(msrc).get_batch(index)
    events = gb.column(_EVENTS).to_pylist()
    games = pa.RecordBatch.from_arrays(gb.columns[:-1], schema=game_schema)
    return TableBatch(games, mb, events, [None] * len(events), 0)


def _filtered(batch: TableBatch, keep) -> TableBatch:
    """The games of ``batch`` whose ``keep`` is true (a bool array; None: all), with their moves."""
    import numpy as np
    import pyarrow as pa

    if keep is None or bool(np.all(keep)):
        return batch
    idx = np.flatnonzero(keep)
    events = np.asarray(batch.events, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(events)])[:-1][idx]
    lengths = events[idx]
    total = int(lengths.sum())
    before = np.cumsum(lengths) - lengths
    move_idx = np.repeat(starts - before, lengths) + np.arange(total, dtype=np.int64)
    games = batch.games.take(pa.array(idx, pa.int64()))
    moves = batch.moves.take(pa.array(move_idx, pa.int64()))
    return TableBatch(games, moves, [int(e) for e in lengths], [None] * len(idx), 0)


def _as_batch(batches: list, schema):
    """Record batches (of a Parquet file) as one record batch of ``schema``."""
    import pyarrow as pa

    if not batches:
        return pa.RecordBatch.from_pylist([], schema=schema)
    return _one_batch(pa.Table.from_batches(batches).cast(schema))


def _old_batches(folder: Path, events, analyze: bool | str, size: int = SEGMENT_GAMES) -> Iterator[TableBatch]:
    """The rows of a written partition (``folder``: ``games/data.parquet``, ``moves/data.parquet``),
    ``size`` games at a time with their moves, ``events`` giving each game's move rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    game_schema, move_schema = schemas(analyze)
    pg = pq.ParquetFile(folder / "games" / "data.parquet")
    pm = pq.ParquetFile(folder / "moves" / "data.parquet")
    moves_iter = pm.iter_batches(batch_size=65536)
    buf: list = []
    buffered = 0
    pos = 0
    for gb in pg.iter_batches(batch_size=size):
        n = gb.num_rows
        ev = events[pos : pos + n]
        pos += n
        need = int(ev.sum())
        while buffered < need:
            mb = next(moves_iter)
            buf.append(mb)
            buffered += mb.num_rows
        mt = pa.Table.from_batches(buf, schema=buf[0].schema) if buf else move_schema.empty_table()
        rest = mt.slice(need)
        buf = rest.to_batches()
        buffered = rest.num_rows
        yield TableBatch(
            _as_batch([gb], game_schema),
            _as_batch(mt.slice(0, need).to_batches(), move_schema),
            [int(e) for e in ev],
            [None] * n,
            0,
        )


EVENTS_FILE = "events.arrow"


def _events_of(folder: Path):
    """Each game's number of move rows in a written partition: its ``events.arrow``; for a
    partition of an older skrafl (none), the runs of equal ``file`` in its moves, in game order
    (each file was one game of one run there)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.ipc as ipc
    import pyarrow.parquet as pq

    path = folder / EVENTS_FILE
    if path.is_file():
        with pa.memory_map(str(path)) as src:
            return ipc.open_file(src).read_all().column("events").to_numpy().astype(np.int64)
    games = pq.read_table(folder / "games" / "data.parquet", columns=["file"]).column("file").to_pylist()
    moves = pq.read_table(folder / "moves" / "data.parquet", columns=["file"]).column("file").to_pylist()
    values: list[str] = []
    lengths: list[int] = []
    for f in moves:
        if values and values[-1] == f:
            lengths[-1] += 1
        else:
            values.append(f)
            lengths.append(1)
    out = np.zeros(len(games), dtype=np.int64)
    j = 0
    for i, f in enumerate(games):
        if j < len(values) and values[j] == f:
            out[i] = lengths[j]
            j += 1
    if j != len(values):
        raise DataError("a partition's moves do not follow its games; replay it again into a new dataset", folder)
    return out


@dataclass
class PartitionJob:
    """What one partition of a run is written from: the run's pieces (segment, record batch) with
    the rows kept of each (None: all), and the previous partition's folder with the rows kept."""

    pieces: list = field(default_factory=list)
    keep: list = field(default_factory=list)
    old: str | None = None
    old_keep: np.ndarray | None = None
    old_events: np.ndarray | None = None


def write_partition(job: PartitionJob, stage: str | Path, analyze: bool | str) -> dict:
    """Write one partition's ``games/data.parquet``, ``moves/data.parquet`` and ``events.arrow``
    into ``stage``: the previous partition's kept rows (in their order), then the run's (in input
    order). Returns ``{"games", "moves"}``. What a cluster task does per partition, too."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.ipc as ipc

    stage = Path(stage)
    stage.mkdir(parents=True, exist_ok=True)
    writer = TableWriter(stage, analyze)
    events: list[int] = []

    def add(batch: TableBatch) -> None:
        if len(batch):
            writer.add(batch)
            events.extend(batch.events)

    if job.old is not None and job.old_keep is not None and bool(np.any(job.old_keep)):
        pos = 0
        for batch in _old_batches(Path(job.old), job.old_events, analyze):
            add(_filtered(batch, job.old_keep[pos : pos + len(batch)]))
            pos += len(batch)
    for (seg, index), keep in zip(job.pieces, job.keep, strict=True):
        add(_filtered(_read_piece(seg, index, analyze), keep))
    writer.close()
    for table in ("games", "moves"):
        (stage / table).mkdir(exist_ok=True)
        os.replace(stage / f"{table}.parquet", stage / table / "data.parquet")
    with ipc.new_file(str(stage / EVENTS_FILE), pa.schema([("events", pa.int32())])) as w:
        w.write_batch(pa.record_batch([pa.array(events, pa.int32())], names=["events"]))
    return {"games": writer.games, "moves": writer.moves}


# ---------------------------------------------------------------------------------------------
# the dataset folder

CURRENT = "current"
VERSION = ".v-"
VERSION_COMMAND = "replay-dataset"
_FIXED = (MANIFEST, "games", "moves")


def read_manifest(folder: Path) -> dict | None:
    """The dataset manifest of ``folder`` (a dataset, or one of its versions), or None when it has
    none."""
    try:
        data = json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) and data.get("kind") == KIND else {}


def is_dataset(path: str | Path) -> bool:
    return bool(read_manifest(Path(path)))


_OURS = re.compile(r"^\.(?:v-|spool-|(?:current|games|moves|dataset\.json)\.(?:tmp|old)-)")
"""The hidden entries a dataset run makes inside the dataset (versions, spools, temporary links)."""


def _unpublished(folder: Path) -> bool:
    """Whether ``folder`` holds only what a first ``replay --dataset`` run killed before its first
    version was published leaves: the fixed links (to ``current/…``) and our hidden entries."""
    ours = False
    for entry in folder.iterdir():
        if entry.name.startswith("."):
            if not _OURS.match(entry.name):
                return False
            ours = True
            continue
        ours = True
        if entry.name not in _FIXED and entry.name != CURRENT:
            return False
        if not entry.is_symlink():
            return False
        if entry.name in _FIXED and os.readlink(entry) != f"{CURRENT}/{entry.name}":
            return False
    return ours


def check_dataset_dir(target: str | Path, inputs: Iterable[str | Path] = ()) -> Path:
    """Refuse a dataset path that ``replay --dataset`` must not write; return it absolute.

    Accepted: a new path, an empty folder, or a dataset written by ``replay --dataset``. Refused:
    a file, a symbolic link, a folder of other files, any skrafl output or a folder inside one, the
    current folder or a parent, an input or a folder holding or inside an input."""
    from pipelines.atomic import check_placement

    visible = check_placement(target, inputs)
    if visible.is_symlink():
        from gamecore.folders import read_marker

        marker = read_marker(Path(os.path.realpath(visible)))
        if marker:
            raise UsageError(f"{target}: is the output of 'skrafl {marker.get('command')}', not a dataset; give another folder")
        raise UsageError(f"{target}: is a symbolic link; a dataset is a folder (give its real path or a new folder)")
    if not visible.exists():
        return visible
    if not visible.is_dir():
        raise UsageError(f"{target}: exists and is not a folder; a dataset needs a folder")
    if not any(visible.iterdir()):
        return visible
    manifest = read_manifest(visible)
    if manifest is None:
        if _unpublished(visible):
            return visible
        from gamecore.folders import read_marker

        marker = read_marker(visible)
        if marker is not None:
            raise UsageError(f"{target}: is the output of 'skrafl {marker.get('command')}', not a dataset; give another folder")
        raise UsageError(
            f"{target}: is a folder of files that skrafl did not write; give a new or empty folder (nothing was changed)"
        )
    if not manifest:
        raise UsageError(f"{target}: has a damaged {MANIFEST}; give another folder")
    return visible


def _write_json(path: Path, data: dict) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _link_or_copy(src: Path, dst: Path) -> None:
    """``dst`` the same file as ``src`` (a hard link; a copy where the file system has none)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)
        _fsync(dst)


def _file_info(path: Path, known: dict | None = None) -> dict:
    """``{size, sha256}`` of a file; ``known`` (its entry in a marker, for a hard-linked file) is
    taken when its size matches."""
    from gamecore.folders import sha256_of

    size = path.stat().st_size
    if known and known.get("size") == size and known.get("sha256"):
        return {"size": size, "sha256": known["sha256"]}
    return {"size": size, "sha256": sha256_of(path)}


def _partition_files(folder: Path, known: dict | None = None, prefix: str = "") -> dict:
    """The files of a partition folder (its Parquet files and ``events.arrow``), ``{rel: info}``,
    reusing ``known`` (marker entries under ``prefix``) for files of the same size."""
    known = known or {}
    out = {}
    for rel in ("games/data.parquet", "moves/data.parquet", EVENTS_FILE):
        path = folder / rel
        if path.is_file():
            out[rel] = _file_info(path, known.get(prefix + rel))
    return out


def _rows(folder: Path, table: str) -> int:
    import pyarrow.parquet as pq

    return pq.ParquetFile(folder / table / "data.parquet").metadata.num_rows


def _current_version(ds: Path) -> Path | None:
    """The version folder ``current`` names, or None (no version published yet)."""
    link = ds / CURRENT
    if not link.is_symlink():
        return None
    target = Path(os.path.realpath(link))
    return target if target.is_dir() else None


def _legacy_partitions(ds: Path) -> dict[str, Path]:
    """The partitions of a dataset of the older layout (``parts/part=P`` links in place)."""
    parts = ds / "parts"
    if not parts.is_dir() or parts.is_symlink():
        return {}
    out = {}
    for e in sorted(parts.iterdir(), key=lambda e: e.name):
        if e.is_symlink() and e.name.startswith(f"{KEY}=") and e.exists():
            out[e.name.split("=", 1)[1]] = Path(os.path.realpath(e))
    return out


def _is_legacy(ds: Path) -> bool:
    return (
        ((ds / "parts").is_dir() and not (ds / "parts").is_symlink())
        or ((ds / "games").is_dir() and not (ds / "games").is_symlink())
        or (ds / MANIFEST).is_file()
        and not (ds / MANIFEST).is_symlink()
    )


def _fixed_links(ds: Path) -> None:
    """``games``, ``moves`` and ``dataset.json`` as links to ``current/…`` (each made once; a
    folder or file of the older layout swapped for its link by one rename, its contents being
    those of ``current``)."""
    from pipelines.atomic import exchange_paths

    for name in _FIXED:
        path = ds / name
        want = f"{CURRENT}/{name}"
        if path.is_symlink() and os.readlink(path) == want:
            continue
        tmp = ds / f".{name}.tmp-{os.getpid()}"
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        os.symlink(want, tmp)
        if path.is_dir() and not path.is_symlink():
            if not exchange_paths(tmp, path):
                aside = ds / f".{name}.old-{os.getpid()}"
                os.rename(path, aside)
                os.rename(tmp, path)
                tmp = aside
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            os.replace(tmp, path)
    _fsync(ds)


def _publish(ds: Path, version: Path) -> None:
    """Make ``version`` the dataset: one ``rename`` of ``current``."""
    tmp = ds / f".{CURRENT}.tmp-{os.getpid()}"
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    os.symlink(version.name, tmp)
    os.replace(tmp, ds / CURRENT)
    with contextlib.suppress(OSError):
        _fsync(ds)


def columns_of(manifest: dict) -> bool | str:
    """The columns a dataset's manifest says it holds (:func:`~pipelines.replay.tables.schemas`):
    its ``analyze``, ``"equity"`` for ``--analyze --leaves``, else true or false."""
    got = manifest.get("analyze")
    return "equity" if got == "equity" else bool(got)


def _written_with(columns: bool | str) -> str:
    return {"equity": "with --analyze --leaves", True: "with --analyze"}.get(columns, "without --analyze")


def _seal(version: Path, partitions: dict, analyze: bool | str) -> None:
    """Write a version's table links, manifest and marker, and fsync it (its files were fsynced
    as they were written or linked)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as pkg_version

    from gamecore.folders import FORMAT, MARKER

    for table in ("games", "moves"):
        (version / table).mkdir(exist_ok=True)
        for part in partitions:
            link = version / table / f"{KEY}={part}"
            if not link.is_symlink():
                os.symlink(f"../parts/{KEY}={part}/{table}", link)
    manifest = {
        "format": 2,
        "kind": KIND,
        "command": "replay",
        "key": KEY,
        "analyze": analyze,
        "partitions": dict(sorted(partitions.items())),
    }
    _write_json(version / MANIFEST, manifest)
    files = {MANIFEST: _file_info(version / MANIFEST)}
    for part, info in sorted(partitions.items()):
        for rel, f in info["files"].items():
            files[f"parts/{KEY}={part}/{rel}"] = f
    try:
        skrafl = pkg_version("skrafl")
    except PackageNotFoundError:
        skrafl = None
    marker = {"format": FORMAT, "command": VERSION_COMMAND, "skrafl": skrafl, "files": dict(sorted(files.items()))}
    _write_json(version / MARKER, marker)
    for dirpath, _dirs, _files in os.walk(version):
        _fsync(Path(dirpath))
    _fsync(version.parent)


def _new_version(ds: Path) -> Path:
    from pipelines.atomic import current_umask

    path = Path(tempfile.mkdtemp(prefix=VERSION, dir=ds))
    os.chmod(path, 0o777 & ~current_umask())
    (path / "parts").mkdir()
    return path


def _migrate(ds: Path) -> None:
    """A dataset of the older layout made a version dataset, its partitions as they are (hard
    links): first a version of exactly them is published, then the fixed links replace the old
    folders and manifest, then ``parts/`` goes. A kill on the way: the next run goes on from where
    it stopped; a reader sees the same games throughout."""
    from gamecore.folders import read_marker

    if _current_version(ds) is None:
        version = _new_version(ds)
        partitions = {}
        for part, folder in _legacy_partitions(ds).items():
            stage = version / "parts" / f"{KEY}={part}"
            for rel in ("games/data.parquet", "moves/data.parquet"):
                _link_or_copy(folder / rel, stage / rel)
            known = (read_marker(folder) or {}).get("files", {})
            partitions[part] = {
                "games": _rows(stage, "games"),
                "moves": _rows(stage, "moves"),
                "files": _partition_files(stage, known),
            }
        manifest = read_manifest(ds) or {}
        _seal(version, partitions, columns_of(manifest))
        _publish(ds, version)
    _fixed_links(ds)
    shutil.rmtree(ds / "parts", ignore_errors=True)


def _tidy(ds: Path) -> None:
    """Under the lock: what killed runs left goes (hidden versions other than the current one,
    spools, temporary links), and a dataset of the older layout is converted (:func:`_migrate`)."""
    keep = os.readlink(ds / CURRENT) if (ds / CURRENT).is_symlink() else None
    for entry in ds.iterdir():
        if not _OURS.match(entry.name) or entry.name == keep:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    if keep is not None and _current_version(ds) is None:
        (ds / CURRENT).unlink()  # a link to nothing (a version removed by hand): as if unpublished
    if _is_legacy(ds):
        _migrate(ds)


@contextlib.contextmanager
def dataset_writer(
    target: str | Path, inputs: Iterable = (), analyze: bool | str = False, drop_missing: bool = False
) -> Iterator["DatasetRun"]:
    """Hold the dataset's lock and yield a :class:`DatasetRun`: spool, write partitions, publish.
    On an exception the new version and the spool are removed: the dataset is as it was (a full
    disk is one :class:`OutputError` naming the dataset)."""
    from gamecore.errors import OutputError, SkraflError, is_disk_full, raised_writing_stdout
    from pipelines.atomic import OutputLock, device_full

    inputs = list(inputs)
    ds = check_dataset_dir(target, inputs)
    created = not ds.exists()
    ds.parent.mkdir(parents=True, exist_ok=True)
    lock = OutputLock(ds, "replay")
    run = None
    try:
        ds = check_dataset_dir(target, inputs)
        ds.mkdir(exist_ok=True)
        manifest = read_manifest(ds) or {}
        if manifest and columns_of(manifest) != analyze:
            raise UsageError(
                f"{target}: this dataset was written {_written_with(columns_of(manifest))}; "
                "every partition has the same columns: give the same options or another folder"
            )
        _tidy(ds)
        run = DatasetRun(ds, analyze, drop_missing)
        yield run
        run.finish()
    except BaseException as exc:
        full = (
            isinstance(exc, Exception)
            and not isinstance(exc, SkraflError)
            and (is_disk_full(exc) or (isinstance(exc, (OSError, RuntimeError)) and device_full(ds.parent)))
            and not raised_writing_stdout(exc)
        )
        replaces = _current_version(ds) is not None and not created
        if run is not None:
            run.abort()
        if created and ds.is_dir() and _current_version(ds) is None:
            shutil.rmtree(ds, ignore_errors=True)
        if full:
            kept = ", the previous one is kept" if replaces else ""
            raise OutputError(f"no space left on the device for this output: nothing was changed{kept}", ds) from None
        raise
    finally:
        # every spool folder is this run's (_tidy removed older ones under the lock): removed by
        # name, so one made just before a stop, when no run held it yet, goes too
        if ds.is_dir():
            for entry in ds.iterdir():
                if entry.name.startswith(".spool-") and entry.is_dir():
                    shutil.rmtree(entry, ignore_errors=True)
        lock.release()


def _keys(game_id, file):
    """A game's key: its ``game_id``, else (an unreadable file) ``NUL`` + its file (polars)."""
    import polars as pl

    df = pl.DataFrame({"game_id": game_id, "file": file}, schema={"game_id": pl.String, "file": pl.String})
    return df.select(pl.coalesce(pl.col("game_id"), pl.lit("\0") + pl.col("file")).alias("key"))["key"]


def _is_in(values, among):
    """Whether each of ``values`` (a polars Series of text) is one of ``among``: a bool array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    v = values.to_arrow().cast(pa.large_string())
    return pc.is_in(v, value_set=among.to_arrow().cast(pa.large_string())).fill_null(False).to_numpy(zero_copy_only=False)


class DatasetRun:
    """One run writing into a dataset: segments spooled, then partitions planned (games merged by
    id), written into a new version, and the version published (see the module doc)."""

    def __init__(self, ds: Path, analyze: bool | str, drop_missing: bool = False):
        self.ds = ds
        self.analyze = analyze
        self.drop_missing = drop_missing
        self.old_version = _current_version(ds)
        self.old_manifest = (read_manifest(self.old_version) or {}) if self.old_version else {}
        self.spool = Path(tempfile.mkdtemp(prefix=".spool-", dir=ds))
        self.segments: list[Segment] = []
        self.version: Path | None = None
        self.stages: dict[str, Path] = {}
        self.jobs: dict[str, PartitionJob] = {}
        self.linked: list[str] = []
        self.counts: dict = {}
        self.changed: list[str] = []
        self.unchanged: list[str] = []
        self.removed: list[str] = []
        self.published = False
        self._pending: list[TableBatch] = []
        self._pending_games = 0
        self.window: tuple = (None, None)

    # phase 1, in this process (local runs): batches in input order
    def add(self, batch: TableBatch) -> None:
        if len(batch):
            self._pending.append(batch)
            self._pending_games += len(batch)
        if self._pending_games >= SEGMENT_GAMES:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        paths = self.segment_paths(len(self.segments))
        seg, counts = write_segment(self._pending, *paths, self.analyze, self.window)
        self.add_segment(seg, counts)
        self._pending, self._pending_games = [], 0

    def segment_paths(self, index: int) -> tuple[str, str]:
        return str(self.spool / f"seg-{index:07d}.games.arrow"), str(self.spool / f"seg-{index:07d}.moves.arrow")

    def add_segment(self, seg: Segment, counts: dict) -> None:
        """A segment spooled here or by a cluster worker (in input order)."""
        self.segments.append(seg)
        for k, v in counts.items():
            if k == "not_ok":
                listed = self.counts.setdefault("not_ok", [])
                listed.extend(v[: max(0, LISTED - len(listed))])
            else:
                self.counts[k] = self.counts.get(k, 0) + v

    # phase 2
    def _drop_parts(self, run_parts: set[str]) -> set[str]:
        """The previous partitions whose games the run did not bring are dropped from: with
        ``drop_missing`` those the run writes and the days of its window; a dated folder read
        whole (``folder_days``) replaces the ``src-`` partitions of that folder."""
        old = set(self.old_manifest.get("partitions", {}))
        drop: set[str] = set()
        if self.drop_missing:
            drop |= run_parts & old
            since, until = self.window[:2]
            for p in old:
                if p.startswith("src-"):
                    continue
                with contextlib.suppress(ValueError):
                    day = dt.date.fromisoformat(p)
                    if (since or until) and not (since and day < since) and not (until and day > until):
                        drop.add(p)
        for folder, day in _window_days(self.window).items():
            x = os.path.join(folder, "x")
            for p in (_legacy_source_name(x), _source_name(x)):
                if p in old and p.startswith(f"src-{day.isoformat()}"):
                    drop.add(p)
        return drop

    def plan(self) -> dict[str, PartitionJob]:
        """The partitions this run writes, each with what it is written from (the previous
        partition's kept rows, the run's pieces with their kept rows); their stage folders made
        in a new version. Every other partition is hard-linked into the version."""
        import numpy as np
        import polars as pl
        import pyarrow.ipc as ipc
        import pyarrow.parquet as pq

        self.flush()
        # the run's games, in input order: the later of two with one key wins
        pieces: dict[str, list[tuple[Segment, int]]] = {}
        piece_keys: list = []
        for seg in self.segments:
            with open(seg.games_path, "rb") as src:
                reader = ipc.open_file(src)
                for part, (index, _n) in seg.parts.items():
                    b = reader.get_batch(index).select(["game_id", "file"])
                    gid = pl.from_arrow(b.column(0)).cast(pl.String)
                    files = pl.from_arrow(b.column(1)).cast(pl.String)
                    pieces.setdefault(part, []).append((seg, index))
                    piece_keys.append((part, len(pieces[part]) - 1, _keys(gid, files), files))
        sizes = [len(k[2]) for k in piece_keys]
        all_keys = pl.concat([k[2] for k in piece_keys]) if piece_keys else pl.Series("key", [], pl.String)
        order = pl.DataFrame({"key": all_keys, "pos": np.arange(len(all_keys))})
        last = order.group_by("key").agg(pl.col("pos").max())["pos"].to_numpy()
        keep_all = np.zeros(len(all_keys), dtype=bool)
        keep_all[last] = True
        self.counts["duplicates"] = int(len(all_keys) - keep_all.sum())
        run_keys = all_keys.filter(pl.Series(keep_all))
        run_files = pl.concat([k[3] for k in piece_keys]) if piece_keys else pl.Series("file", [], pl.String)
        keeps: dict[str, list] = {p: [None] * len(v) for p, v in pieces.items()}
        start = 0
        for (part, i, _k, _f), n in zip(piece_keys, sizes, strict=True):
            k = keep_all[start : start + n]
            keeps[part][i] = None if k.all() else k
            start += n
        kept_new = {
            p: sum(int(k.sum()) if k is not None else pieces[p][i][0].parts[p][1] for i, k in enumerate(ks))
            for p, ks in keeps.items()
        }
        # the previous partitions: rows the run replaces (by key; an unreadable file's row by its
        # file) or drops
        old_parts = self.old_manifest.get("partitions", {})
        old_version = self.old_version
        drop = self._drop_parts(set(pieces))
        replaced = dropped = 0
        jobs: dict[str, PartitionJob] = {}
        for part in sorted(old_parts):
            assert old_version is not None  # the old partitions are the old version's
            folder = old_version / "parts" / f"{KEY}={part}"
            t = pq.read_table(folder / "games" / "data.parquet", columns=["game_id", "file"])
            gid = cast("pl.Series", pl.from_arrow(t.column("game_id"))).cast(pl.String)
            files = cast("pl.Series", pl.from_arrow(t.column("file"))).cast(pl.String)
            keys = _keys(gid, files)
            hit = _is_in(keys, run_keys) | (gid.is_null().to_numpy() & _is_in(files, run_files))
            n_hit = int(hit.sum())
            replaced += n_hit
            if part in drop:
                dropped += len(hit) - n_hit
                keep = np.zeros(len(hit), dtype=bool)
            else:
                keep = ~hit
            if part not in pieces and bool(keep.all()):
                self.linked.append(part)
                continue
            if part not in pieces and not keep.any():
                self.removed.append(part)
                continue
            jobs[part] = PartitionJob(old=str(folder), old_keep=keep, old_events=_events_of(folder) if keep.any() else None)
        for part in sorted(pieces):
            job = jobs.setdefault(part, PartitionJob())
            job.pieces, job.keep = pieces[part], keeps[part]
            if kept_new[part] == 0 and (job.old_keep is None or not bool(np.any(job.old_keep))):
                del jobs[part]  # every game of it went to a later partition of the run
                if part in old_parts:
                    self.removed.append(part)
        self.counts["replaced"] = replaced
        self.counts["dropped"] = dropped
        self.version = _new_version(self.ds)
        self.jobs = dict(sorted(jobs.items()))
        self.stages = {p: self.version / "parts" / f"{KEY}={p}" for p in self.jobs}
        self._run_parts = set(pieces)
        return self.jobs

    def write_all(self) -> None:
        """Phase 2 in this process (a cluster runs it as tasks: :mod:`.cluster`)."""
        for part, job in self.plan().items():
            write_partition(job, self.stages[part], self.analyze)

    def finish(self) -> None:
        """Publish: the partitions written, the others linked, the manifest, one swap of
        ``current`` (none when nothing changed)."""
        from pipelines.stops import check_stop

        if self.version is None:
            self.write_all()
        version = self.version
        assert version is not None  # made by write_all
        old_parts = self.old_manifest.get("partitions", {})
        old_files = {}
        if self.old_version is not None:
            from gamecore.folders import read_marker

            old_files = (read_marker(self.old_version) or {}).get("files", {})
        partitions: dict[str, dict] = {}
        for part, stage in self.stages.items():
            for rel in ("games/data.parquet", "moves/data.parquet", EVENTS_FILE):
                _fsync(stage / rel)
            info: dict[str, Any] = {
                "games": _rows(stage, "games"),
                "moves": _rows(stage, "moves"),
                "files": _partition_files(stage),
            }
            before = old_parts.get(part)
            if before is not None and _same(info["files"], before.get("files", {})):
                if part in self._run_parts:
                    self.unchanged.append(part)
            else:
                self.changed.append(part)
            partitions[part] = info
        for part in self.linked:
            assert self.old_version is not None  # a linked partition is the old version's
            folder = self.old_version / "parts" / f"{KEY}={part}"
            stage = version / "parts" / f"{KEY}={part}"
            for rel in ("games/data.parquet", "moves/data.parquet", EVENTS_FILE):
                if (folder / rel).is_file():
                    _link_or_copy(folder / rel, stage / rel)
            partitions[part] = dict(old_parts[part])
            partitions[part]["files"] = _partition_files(stage, old_files, f"parts/{KEY}={part}/")
        self.removed = sorted(set(self.removed))
        if self.old_version is not None and not self.changed and not self.removed:
            self.abort()  # nothing changed: no new version
            return
        _seal(version, partitions, self.analyze)
        _fixed_links(self.ds)
        check_stop()  # a stop recorded on the way: never published
        _publish(self.ds, version)
        self.published = True
        if self.old_version is not None:
            shutil.rmtree(self.old_version, ignore_errors=True)

    def abort(self) -> None:
        """Remove the new version (never the one ``current`` names)."""
        if self.version is not None and not self.published:
            current = os.readlink(self.ds / CURRENT) if (self.ds / CURRENT).is_symlink() else None
            if current != self.version.name:
                shutil.rmtree(self.version, ignore_errors=True)
        self.version = None if not self.published else self.version


def _same(files: dict, before: dict) -> bool:
    """Whether a written partition's data files are those of the previous one (SHA-256)."""
    return all(
        files.get(rel, {}).get("sha256") == before.get(rel, {}).get("sha256")
        for rel in ("games/data.parquet", "moves/data.parquet")
    )


# ---------------------------------------------------------------------------------------------
# reading


def dataset_partitions(ds: str | Path) -> dict[str, Path]:
    """The partitions of a dataset, from one version (``current`` resolved once, its files'
    sizes checked against its marker): ``{part: folder}`` (``folder/games/data.parquet``,
    ``folder/moves/data.parquet``), sorted.

    Raises:
        DataError: not a dataset, or a damaged one."""
    from gamecore.folders import open_output

    ds = Path(ds)
    version = _current_version(ds)
    if version is not None:
        open_output(version, "replay dataset")
        manifest = read_manifest(version)
        if not manifest:
            raise DataError(f"not a replay dataset (no {MANIFEST}): write it with 'skrafl replay --dataset'", ds)
        return {part: version / "parts" / f"{KEY}={part}" for part in sorted(manifest.get("partitions", {}))}
    manifest = read_manifest(ds)
    if not manifest:
        raise DataError(f"not a replay dataset (no {MANIFEST}): write it with 'skrafl replay --dataset'", ds)
    out: dict[str, Path] = {}
    for part in sorted(manifest.get("partitions", {})):  # a dataset of the older layout
        out[part] = open_output(ds / "parts" / f"{KEY}={part}", "dataset partition")
    return out


def read_table(ds: str | Path, table: str = "games", columns: list[str] | None = None, exclude: tuple[str, ...] = ()):
    """One table of a dataset as a pyarrow Table (``part`` column added), partition by partition
    in partition order, reading only ``columns`` (default all) less ``exclude``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    parts = []
    found = dataset_partitions(ds)
    for part, folder in found.items():
        path = folder / table / "data.parquet"
        wanted = columns
        if exclude:
            wanted = [c for c in (columns or pq.read_schema(path).names) if c not in exclude]
        t = pq.read_table(path, columns=wanted)
        parts.append(t.append_column(KEY, pa.array([part] * t.num_rows, pa.string())))
    if not parts:
        game_schema, move_schema = schemas(columns_of(read_manifest(Path(ds)) or {}))
        schema = game_schema if table == "games" else move_schema
        if columns or exclude:
            schema = pa.schema([schema.field(c) for c in (columns or schema.names) if c not in exclude])
        return schema.empty_table().append_column(KEY, pa.array([], pa.string()))
    return pa.concat_tables(parts)
