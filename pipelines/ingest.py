"""Ingest: read a dictionary dump with its reader and write ``entries.parquet`` + its manifest.

``entries.parquet`` has one row per source entry (typed columns: the reader's schema) and
``entries.json`` says where it came from: language, source name, source version, input file, row
count, SHA-256 of the Parquet file. Both are deterministic: the same dump gives byte-identical
files. When and how long the run took is kept apart, in ``ingest_stats.json`` (``ingested_at``,
``seconds``; inside a ``build --source``, the ``ingest`` entry of its ``build_stats.json``). They
make one output folder (default ``output/entries/<lang>/``), owned by ``skrafl ingest`` and
replaced whole and atomically (:mod:`pipelines.atomic`): a failed ingest leaves the previous one in
place.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import time
from dataclasses import dataclass
from pathlib import Path

from gamecore.folders import sha256_of as sha256_file
from lexicon_sources import language, reader, source_for
from pipelines.atomic import check_stop

ENTRIES = "entries.parquet"
ENTRIES_MANIFEST = "entries.json"
INGEST_STATS = "ingest_stats.json"


@dataclass
class IngestResult:
    """What an ingest wrote: the folder, the row count, the seconds it took, the manifest
    (``entries.json``) and the run's clock fields (``ingested_at``, ``seconds``: not in the
    manifest, which is deterministic)."""

    out_dir: Path
    rows: int
    seconds: float
    manifest: dict
    stats: dict


STDIN_REFUSED = (
    "a dump must be a file, not stdin: its name, size and date are the source version in the manifest, "
    "and readers open it twice (to sniff its format, then to read it); save the input to a file first"
)


def refuse_stdin(source: str | None, path: Path | str | None) -> None:
    """Refuse ``-`` (stdin) as ``--source`` or ``--input`` of an ingest or a build, in one line;
    and a device or pipe given as either (:func:`refuse_special`).

    Raises:
        UsageError: ``-: a dump is read from a file, not stdin …``, ``PATH: not a regular file …``."""
    from gamecore.errors import UsageError

    if source == "-" or (path is not None and str(path) == "-"):
        raise UsageError(STDIN_REFUSED, "-")
    for given in (source, path):
        if given is not None:
            refuse_special(given)


def refuse_special(path: Path | str | None) -> None:
    """Refuse a dump path that exists but is neither a regular file nor a folder: a device
    (``/dev/zero``, endless), a named pipe, a socket. Such a file has no size or date to be the
    source version, and an endless one would be read for ever. A path that does not exist (or a
    source name) is left to :func:`lexicon_sources.source_for`.

    Raises:
        UsageError: ``PATH: not a regular file …``."""
    import os
    import stat

    from gamecore.errors import UsageError

    if path is None:
        return
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise UsageError(
            "not a regular file (a device, pipe or socket): a dump is read from a file, whose name, size and "
            "date are the source version; save the input to a file first",
            str(path),
        )


def ingest(
    lang_code: str, out_dir: Path, source: str | None = None, path: Path | None = None, progress: bool = True, **reader_options
) -> IngestResult:
    """Read a dump into the output folder ``out_dir``: ``entries.parquet`` + ``entries.json``.

    Args:
        lang_code: language code (``is``).
        out_dir: the ingest's output folder (replaced whole, see :mod:`pipelines.atomic`).
        source: a source name (``islenska``, ``bin-sh``, ``bin-kr``, ``wordlist``) or a dump path.
        path: the dump file, for file sources.
        progress: tqdm progress bar on stderr.
    Raises:
        UsageError: unknown language or source, missing file, ``-`` (stdin: :func:`refuse_stdin`),
            a device or pipe (:func:`refuse_special`).
        DataError: the dump is malformed (file and line in the message).
    """
    from pipelines.atomic import check_output_dir, output_dir

    refuse_stdin(source, path)
    lang = language(lang_code)
    name, path = source_for(lang, source, path)
    inputs = [path] if path is not None else []
    check_output_dir(out_dir, "ingest", inputs)
    with output_dir(Path(out_dir), "ingest", inputs) as stage:
        result = ingest_into(stage, lang_code, name, path, progress, **reader_options)
        (stage / INGEST_STATS).write_text(json.dumps(result.stats, indent=2) + "\n", encoding="utf-8")
    result.out_dir = Path(out_dir)
    return result


def ingest_into(
    stage: Path, lang_code: str, name: str, path: Path | None, progress: bool = True, **reader_options
) -> IngestResult:
    """Read the dump ``path`` of source ``name`` into ``stage`` (a folder being written by the
    caller's output: ``ingest``'s own, or a ``build --source``'s): ``entries.parquet`` and
    ``entries.json``. The clock fields are returned in :attr:`IngestResult.stats` for the caller's
    stats file."""
    import pyarrow.parquet as pq

    lang = language(lang_code)
    mod = reader(name)
    refuse_special(path)  # /dev/zero would be read for ever
    started = time.time()
    rows = 0
    target = stage / ENTRIES
    writer = None
    try:
        read_kwargs = dict(reader_options)
        if name in ("bin-sh", "bin-kr"):
            read_kwargs["fmt"] = name
        # closed at once on a stop or an error: a reader's worker pool ends with it
        with contextlib.closing(mod.read(path, progress=progress, **read_kwargs)) as batches:
            for batch in batches:
                check_stop()  # a safe point between batches (a stop a library swallowed)
                if writer is None:
                    writer = pq.ParquetWriter(target, batch.schema, compression="zstd")
                writer.write_batch(batch)
                rows += batch.num_rows
    finally:
        if writer is not None:
            writer.close()
    seconds = time.time() - started
    manifest = {
        "language": lang.code,
        "source": name,
        "source_version": mod.version(path),
        "input": None if path is None else str(Path(path).resolve()),
        "rows": rows,
        "sha256": sha256_file(target),
    }
    stats = {
        "ingested_at": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        "seconds": round(seconds, 2),
    }
    (stage / ENTRIES_MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return IngestResult(Path(stage), rows, seconds, manifest, stats)
