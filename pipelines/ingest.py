"""Ingest: read a dictionary dump with its reader and write ``entries.parquet`` + its manifest.

``entries.parquet`` has one row per source entry (typed columns: the reader's schema) and
``entries.json`` says where it came from: language, source name, source version, input file, row
count, SHA-256 of the Parquet file, when and how long. Both are written atomically into the output
folder (default ``output/<lang>/``): a failed ingest leaves the previous ones in place.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from lexicon_sources import language, reader, source_for
from pipelines.atomic import staged_dir

ENTRIES = "entries.parquet"
ENTRIES_MANIFEST = "entries.json"


@dataclass
class IngestResult:
    """What an ingest wrote: the folder, the row count, the seconds it took."""

    out_dir: Path
    rows: int
    seconds: float
    manifest: dict


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def ingest(lang_code: str, out_dir: Path, source: str | None = None, path: Path | None = None,
           progress: bool = True, **reader_options) -> IngestResult:
    """Read a dump into ``out_dir/entries.parquet`` (+ ``entries.json``).

    Args:
        lang_code: language code (``is``).
        out_dir: the language's output folder.
        source: a source name (``islenska``, ``bin-sh``, ``bin-kr``, ``wordlist``) or a dump path.
        path: the dump file, for file sources.
        progress: tqdm progress bar on stderr.
    Raises:
        UsageError: unknown language or source, missing file.
        DataError: the dump is malformed (file and line in the message).
    """
    import pyarrow.parquet as pq

    lang = language(lang_code)
    name, path = source_for(lang, source, path)
    mod = reader(name)
    started = time.time()
    rows = 0
    with staged_dir(Path(out_dir)) as stage:
        target = stage / ENTRIES
        writer = None
        try:
            read_kwargs = dict(reader_options)
            if name in ("bin-sh", "bin-kr"):
                read_kwargs["fmt"] = name
            for batch in mod.read(path, progress=progress, **read_kwargs):
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
            "ingested_at": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
            "seconds": round(seconds, 2),
        }
        (stage / ENTRIES_MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return IngestResult(Path(out_dir), rows, seconds, manifest)
