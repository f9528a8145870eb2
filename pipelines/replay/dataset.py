"""A replay *dataset*: ``games`` and ``moves`` as Hive-partitioned Parquet, one partition per
finished day (Netskrafl records) or per source folder (GCG files), each partition replaced
atomically by the run that writes it, the rest left as they are (``skrafl replay --dataset DIR``).

Layout (``part`` is the Hive key; any Parquet reader reads ``DIR/games`` as one table)::

    DIR/dataset.json                        the manifest: format, schema flavour (--analyze),
                                            and per partition its counts and files (size, SHA-256)
    DIR/games/part=2025-08-11               -> ../parts/part=2025-08-11/games   (fixed link)
    DIR/moves/part=2025-08-11               -> ../parts/part=2025-08-11/moves   (fixed link)
    DIR/parts/part=2025-08-11               -> .part=2025-08-11.gen-XXXX        (swapped link)
    DIR/parts/.part=2025-08-11.gen-XXXX/{games/data.parquet, moves/data.parquet, .skrafl-output}

Each partition is an ordinary skrafl output (command ``replay-partition``): a generation folder
with its marker (:mod:`gamecore.folders`), made visible by one ``rename`` of its link
(:mod:`pipelines.atomic`'s commit), so the games and the moves of a partition change together
and a reader resolving ``parts/P`` sees one whole run. The dataset folder itself has no marker
(partitions are outputs inside it); it is owned by ``replay`` through ``dataset.json``, and one
writer at a time holds the lock ``.DIR.lock`` beside it for the whole run.

Partitions: a game with a ``finished_at`` goes to ``part=YYYY-MM-DD`` (its UTC day); a game
without one (GCG files, unreadable files) read from a *dated folder* of the run (the nightly job's
``incoming/{date}``: ``run_replay_dataset(folder_days=…)``) to that folder's day, ``part=DAY``
(its ``finished_at`` stays empty: elo rates it at the end of that day), else to
``part=src-FOLDER`` (its file's folder name, letters, digits, ``-``, ``_``, ``.`` kept). A run replaces every partition it has rows for, whole (a
nightly run for day D given every game of day D replaces ``part=D``); with a window (``--since``
/ ``--until``) only games finished in it are written, and every day of the window that has no
game left is removed. A staged partition whose files are byte-identical to the current one is
not swapped (a rerun changes nothing). The manifest is rewritten (temp file + rename) after the
partitions.

Streaming, in two phases, so memory is bounded by a segment (4,096 games) whatever the input:

1. **Spool.** Replayed batches (in input order) are cut into segments; a segment is one Arrow IPC
   file per table in ``DIR/.spool-XXXX/``, its rows grouped by partition (one record batch per
   partition, in input order inside it).
2. **Write.** Each partition's Parquet files are written from its record batches, segment by
   segment, by :class:`~pipelines.replay.tables.TableWriter` (row group per 4,096 games), so the
   bytes depend only on the partition's rows in input order: never on workers, segment sizes or
   where the work ran (local processes or a Dask cluster: :mod:`.cluster`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from gamecore.errors import DataError, UsageError

from .tables import LISTED, TableBatch, TableWriter, schemas

MANIFEST = "dataset.json"
KIND = "skrafl-replay-dataset"
KEY = "part"
COMMAND = "replay-partition"
SEGMENT_GAMES = 4096
_EVENTS = "_events"


# ---------------------------------------------------------------------------------------------
# partitions


def _source_name(file: str | None) -> str:
    folder = os.path.basename(os.path.dirname(file or "")) or "top"
    return "src-" + (re.sub(r"[^A-Za-z0-9._-]+", "_", folder).strip("._") or "top")


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
    return [partition_of(f, t, folder_days) for f, t in zip(files, times)]


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
    analyze: bool,
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


def _read_piece(seg: Segment, index: int, analyze: bool) -> TableBatch:
    import pyarrow as pa
    import pyarrow.ipc as ipc

    game_schema, move_schema = schemas(analyze)
    with open(seg.games_path, "rb") as gsrc, open(seg.moves_path, "rb") as msrc:
        gb = ipc.open_file(gsrc).get_batch(index)
        mb = ipc.open_file(msrc).get_batch(index)
    events = gb.column(_EVENTS).to_pylist()
    games = pa.RecordBatch.from_arrays(gb.columns[:-1], schema=game_schema)
    return TableBatch(games, mb, events, [None] * len(events), 0)


def write_partition(pieces: list[tuple[Segment, int]], stage: str | Path, analyze: bool) -> dict:
    """Write one partition's ``games/data.parquet`` and ``moves/data.parquet`` into ``stage``
    from its spooled pieces (in segment order). Returns ``{"games", "moves"}``. What a cluster
    task does per partition, too."""
    stage = Path(stage)
    writer = TableWriter(stage, analyze)
    for seg, index in pieces:
        writer.add(_read_piece(seg, index, analyze))
    writer.close()
    for table in ("games", "moves"):
        (stage / table).mkdir(exist_ok=True)
        os.replace(stage / f"{table}.parquet", stage / table / "data.parquet")
    return {"games": writer.games, "moves": writer.moves}


# ---------------------------------------------------------------------------------------------
# the dataset folder


def read_manifest(folder: Path) -> dict | None:
    """The dataset manifest of ``folder``, or None when it has none."""
    try:
        data = json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) and data.get("kind") == KIND else {}


def is_dataset(path: str | Path) -> bool:
    return bool(read_manifest(Path(path)))


def check_dataset_dir(target: str | Path, inputs: Iterable[str | Path] = ()) -> Path:
    """Refuse a dataset path that ``replay --dataset`` must not write; return it absolute.

    Accepted: a new path, an empty folder, or a dataset written by ``replay --dataset``. Refused:
    a file, a symbolic link, a folder of other files, any skrafl output or a folder inside one, the
    current folder or a parent, an input or a folder holding or inside an input."""
    from gamecore.folders import output_root

    visible = Path(os.path.abspath(target))
    if visible.parent == visible:
        raise UsageError(f"{target}: is the root folder; give a new folder")
    cwd = Path.cwd().resolve()
    if cwd == visible or visible in cwd.parents:
        raise UsageError(f"{target}: is the current folder or one of its parents; give a new folder")
    for item in inputs:
        if isinstance(item, str) and "://" in item:
            continue
        src = Path(os.path.realpath(item))
        if src == visible or visible in src.parents:
            raise UsageError(f"{target}: is or holds the input {item}; give another folder (inputs are never written)")
        if src.is_dir() and src in visible.parents:
            raise UsageError(
                f"{target}: lies inside the input folder {item}; give a folder outside it (inputs are never written)"
            )
    parent = Path(os.path.realpath(visible.parent))
    enclosing = output_root(parent) if parent.exists() else None
    if enclosing is not None:
        raise UsageError(
            f"{target}: lies inside the output of 'skrafl {enclosing[1].get('command')}' ({enclosing[0]}); give a folder outside it"
        )
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


def _write_json_atomic(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _part_dir(ds: Path, part: str) -> Path:
    return ds / "parts" / f"{KEY}={part}"


def _same_files(stage: Path, current: Path) -> bool:
    """Whether the staged partition's files are byte-identical to the current generation's."""
    from gamecore.folders import read_marker, sha256_of

    marker = read_marker(current)
    if not marker:
        return False
    listed = marker.get("files", {})
    staged = {p.relative_to(stage).as_posix(): p for p in stage.rglob("*.parquet")}
    if set(staged) != set(listed):
        return False
    return all(p.stat().st_size == listed[r]["size"] and sha256_of(p) == listed[r]["sha256"] for r, p in staged.items())


class PartitionStage:
    """A stage folder for one partition inside the dataset (``parts/.part=P.gen-XXXX``), made by
    the client before any worker writes into it; :meth:`commit` makes it the partition (marker +
    one ``rename`` of the link, by :mod:`pipelines.atomic`'s commit), :meth:`discard` removes it."""

    def __init__(self, ds: Path, part: str):
        from gamecore.folders import GEN
        from pipelines.atomic import _STAGE_FLAG, _umask

        self.part = part
        self.visible = _part_dir(ds, part)
        self.visible.parent.mkdir(parents=True, exist_ok=True)
        self.path = Path(tempfile.mkdtemp(prefix=f".{self.visible.name}{GEN}", dir=self.visible.parent))
        os.chmod(self.path, 0o777 & ~_umask())
        (self.path / _STAGE_FLAG).touch()

    def commit(self) -> bool:
        """Swap the partition onto the stage; False (stage removed) when it equals the current one."""
        from pipelines.atomic import _clean_stale, _commit

        if self.visible.is_symlink() and _same_files(self.path, Path(os.path.realpath(self.visible))):
            self.discard()
            return False
        _commit(self.path, self.visible, COMMAND)
        with contextlib.suppress(OSError):
            _clean_stale(self.visible, keep=self.path.name)
        return True

    def discard(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _link_tables(ds: Path, part: str) -> None:
    """The fixed links ``games/part=P`` and ``moves/part=P`` into the partition (made once)."""
    for table in ("games", "moves"):
        (ds / table).mkdir(exist_ok=True)
        link = ds / table / f"{KEY}={part}"
        if not link.is_symlink():
            tmp = link.with_name(f".{link.name}.tmp")
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            os.symlink(f"../parts/{KEY}={part}/{table}", tmp)
            os.replace(tmp, link)


def _remove_partition(ds: Path, part: str) -> None:
    for table in ("games", "moves"):
        with contextlib.suppress(FileNotFoundError):
            (ds / table / f"{KEY}={part}").unlink()
    visible = _part_dir(ds, part)
    if visible.is_symlink():
        real = Path(os.path.realpath(visible))
        visible.unlink()
        shutil.rmtree(real, ignore_errors=True)


def partition_info(ds: Path, part: str) -> dict:
    from gamecore.folders import read_marker

    real = Path(os.path.realpath(_part_dir(ds, part)))
    marker = read_marker(real) or {}
    import pyarrow.parquet as pq

    return {
        "games": pq.ParquetFile(real / "games" / "data.parquet").metadata.num_rows,
        "moves": pq.ParquetFile(real / "moves" / "data.parquet").metadata.num_rows,
        "files": marker.get("files", {}),
    }


def _tidy(ds: Path) -> None:
    """Remove what killed runs left (under the lock): spool folders, partition stages never
    committed, old generations, temporary links, table links to no partition."""
    from pipelines.atomic import _STAGE_FLAG, _clean_stale

    for entry in ds.iterdir():
        if entry.name.startswith(".spool-") and entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
    parts = ds / "parts"
    if parts.is_dir():
        linked = set()
        for entry in parts.iterdir():
            if entry.is_symlink() and entry.name.startswith(f"{KEY}="):
                linked.add(os.readlink(entry))
                with contextlib.suppress(OSError):
                    _clean_stale(entry, keep=os.readlink(entry))
        for entry in parts.iterdir():
            if entry.name.startswith(f".{KEY}=") and entry.name not in linked:
                if entry.is_symlink() or entry.is_file():
                    entry.unlink(missing_ok=True)
                elif entry.is_dir() and ((entry / _STAGE_FLAG).exists() or not any(entry.iterdir()) or ".gen-" in entry.name):
                    shutil.rmtree(entry, ignore_errors=True)
    for table in ("games", "moves"):
        folder = ds / table
        if folder.is_dir():
            for entry in folder.iterdir():
                if entry.is_symlink() and not entry.exists():
                    entry.unlink(missing_ok=True)
                elif entry.name.startswith(".") and entry.is_symlink():
                    entry.unlink(missing_ok=True)
    for part in _on_disk(ds):  # a run killed between a partition's swap and its table links
        _link_tables(ds, part)


def _on_disk(ds: Path) -> list[str]:
    """The partitions whose link is in place (the truth the manifest is rebuilt from)."""
    parts = ds / "parts"
    if not parts.is_dir():
        return []
    return sorted(
        e.name.split("=", 1)[1] for e in parts.iterdir() if e.is_symlink() and e.name.startswith(f"{KEY}=") and e.exists()
    )


@contextlib.contextmanager
def dataset_writer(target: str | Path, inputs: Iterable = (), analyze: bool = False) -> Iterator["DatasetRun"]:
    """Hold the dataset's lock and yield a :class:`DatasetRun`: spool, write partitions, commit.
    On an exception every stage and the spool are removed; committed partitions stay (each whole)."""
    from pipelines.atomic import _Lock

    inputs = list(inputs)
    ds = check_dataset_dir(target, inputs)
    created = not ds.exists()
    ds.parent.mkdir(parents=True, exist_ok=True)
    lock = _Lock(ds, "replay")
    run = None
    try:
        ds = check_dataset_dir(target, inputs)
        ds.mkdir(exist_ok=True)
        manifest = read_manifest(ds) or {}
        if manifest and bool(manifest.get("analyze")) != analyze:
            raise UsageError(
                f"{target}: this dataset was written {'with' if manifest.get('analyze') else 'without'} --analyze; "
                "every partition has the same columns: give the same option or another folder"
            )
        _tidy(ds)
        run = DatasetRun(ds, analyze, manifest)
        yield run
        run.finish()
    except BaseException:
        if run is not None:
            run.abort()
        if created and ds.is_dir() and not any(p for p in ds.iterdir() if not p.name.startswith(".spool-")):
            shutil.rmtree(ds, ignore_errors=True)
        raise
    finally:
        # every spool folder is this run's (_tidy removed older ones under the lock): removed by
        # name, so one made just before a stop, when no run held it yet, goes too
        if ds.is_dir():
            for entry in ds.iterdir():
                if entry.name.startswith(".spool-") and entry.is_dir():
                    shutil.rmtree(entry, ignore_errors=True)
        lock.release()


class DatasetRun:
    """One run writing into a dataset: segments spooled, then partitions staged, written and
    committed (see the module doc)."""

    def __init__(self, ds: Path, analyze: bool, manifest: dict):
        self.ds = ds
        self.analyze = analyze
        self.manifest = manifest
        self.spool = Path(tempfile.mkdtemp(prefix=".spool-", dir=ds))
        self.segments: list[Segment] = []
        self.stages: dict[str, PartitionStage] = {}
        self.counts: dict[str, int] = {}
        self.changed: list[str] = []
        self.unchanged: list[str] = []
        self.removed: list[str] = []
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
    def plan(self) -> dict[str, list[tuple[Segment, int]]]:
        """The partitions this run writes, each with its pieces in segment order; their stages
        made."""
        self.flush()
        pieces: dict[str, list[tuple[Segment, int]]] = {}
        for seg in self.segments:
            for part, (index, _n) in seg.parts.items():
                pieces.setdefault(part, []).append((seg, index))
        for part in sorted(pieces):
            self.stages[part] = PartitionStage(self.ds, part)
        return dict(sorted(pieces.items()))

    def write_all(self) -> None:
        """Phase 2 in this process (a cluster runs it as tasks: :mod:`.cluster`)."""
        plan = self.plan()
        for part, pieces in plan.items():
            write_partition(pieces, self.stages[part].path, self.analyze)

    def finish(self) -> None:
        """Commit: every staged partition swapped in (sorted order), window days without games
        removed, the manifest rewritten."""
        if not self.stages and self.segments:
            self.write_all()
        # the manifest lists what is on disk: a run killed after some partitions and before its
        # manifest left partitions the old manifest does not name
        old = self.manifest.get("partitions", {})
        parts = {p: old[p] if p in old else partition_info(self.ds, p) for p in _on_disk(self.ds)}
        for part, stage in sorted(self.stages.items()):
            if stage.commit():
                self.changed.append(part)
            else:
                self.unchanged.append(part)
            _link_tables(self.ds, part)
            parts[part] = partition_info(self.ds, part)
        self.stages = {}
        since, until = self.window[:2]
        if since and until:
            day = since
            while day <= until:
                p = day.isoformat()
                if p not in self.changed and p not in self.unchanged and (_part_dir(self.ds, p).is_symlink() or p in parts):
                    _remove_partition(self.ds, p)
                    parts.pop(p, None)
                    self.removed.append(p)
                day += dt.timedelta(days=1)
        # A dated folder read whole (the nightly job's incoming/DAY) replaces everything read from
        # it: its games without times now go to part=DAY, so the part=src-DAY an older skrafl put
        # them in (a folder named by its day) is gone with it.
        for folder, day in sorted(_window_days(self.window).items()):
            p = _source_name(os.path.join(folder, "x"))
            if p == f"src-{day.isoformat()}" and p not in self.changed and p not in self.unchanged:
                if _part_dir(self.ds, p).is_symlink() or p in parts:
                    _remove_partition(self.ds, p)
                    parts.pop(p, None)
                    self.removed.append(p)
        manifest = {
            "format": 1,
            "kind": KIND,
            "command": "replay",
            "key": KEY,
            "analyze": self.analyze,
            "partitions": dict(sorted(parts.items())),
        }
        _write_json_atomic(self.ds / MANIFEST, manifest)
        self.manifest = manifest

    def abort(self) -> None:
        for stage in self.stages.values():
            stage.discard()
        self.stages = {}


# ---------------------------------------------------------------------------------------------
# reading


def dataset_partitions(ds: str | Path) -> dict[str, Path]:
    """The partitions of a dataset, each resolved once to its generation folder and checked whole
    (sizes against its marker): ``{part: folder}``, sorted.

    Raises:
        DataError: not a dataset, or a damaged partition."""
    from gamecore.folders import open_output

    ds = Path(ds)
    manifest = read_manifest(ds)
    if not manifest:
        raise DataError(f"not a replay dataset (no {MANIFEST}): write it with 'skrafl replay --dataset'", ds)
    out: dict[str, Path] = {}
    for part in sorted(manifest.get("partitions", {})):
        out[part] = open_output(_part_dir(ds, part), "dataset partition")
    return out


def read_table(ds: str | Path, table: str = "games", columns: list[str] | None = None, exclude: tuple[str, ...] = ()):
    """One table of a dataset as a pyarrow Table (``part`` column added), partition by partition
    in partition order, reading only ``columns`` (default all) less ``exclude``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    parts = []
    for part, folder in dataset_partitions(ds).items():
        path = folder / table / "data.parquet"
        wanted = columns
        if exclude:
            wanted = [c for c in (columns or pq.read_schema(path).names) if c not in exclude]
        t = pq.read_table(path, columns=wanted)
        parts.append(t.append_column(KEY, pa.array([part] * t.num_rows, pa.string())))
    if not parts:
        game_schema, move_schema = schemas(bool((read_manifest(Path(ds)) or {}).get("analyze")))
        schema = game_schema if table == "games" else move_schema
        if columns or exclude:
            schema = pa.schema([schema.field(c) for c in (columns or schema.names) if c not in exclude])
        return schema.empty_table().append_column(KEY, pa.array([], pa.string()))
    return pa.concat_tables(parts)
