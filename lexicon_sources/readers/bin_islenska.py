"""Reader for BÍN as embedded in the PyPI packages ``islenska`` + ``islenska-data`` (the default
Icelandic source).

Every lemma id from 1 to the package's largest BÍN id is enumerated with ``Bin.lookup_id`` (all
forms of one lemma, with KRsnid fields); ids that are unused yield nothing. Greynir's own additions
(ids from ``begin_greynir_utg``, 571,000 on) come with an empty visibility (birting) and are
filtered by the recipe, not here: the reader keeps every row so every drop is explained.
Source: docs/LEXICONS.md §6 (BÍN via PyPI islenska), islenska's ``Ksnid``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from gamecore.errors import UsageError
from gamecore.text import nfc
from lexicon_sources.readers.bin_schema import BatchBuilder, schema
from lexicon_sources.readers.common import dist_versions, worker_pool

NAME = "islenska"
SCHEMA = schema


def _bin() -> Any:
    try:
        from islenska.bincompress import BinCompressed
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise UsageError("the Icelandic source needs the 'islenska' package: pip install 'skrafl[is]' (or make setup)") from exc
    return BinCompressed()


def version(path: Path | None = None) -> str:
    """``islenska X / islenska-data Y``, from the installed distributions."""
    return dist_versions("islenska", "islenska-data")


CHUNK = 10_000  # lemma ids per work unit


def _chunk(bounds: tuple[int, int]) -> Any:
    """All entries of lemma ids ``bounds[0] <= id < bounds[1]`` as one record batch (``row`` is
    numbered from 1 within the chunk; the caller renumbers)."""
    first, stop = bounds
    bin_db = _bin()
    builder = BatchBuilder(size=1 << 30)
    row = 0
    for bin_id in range(first, stop):
        for k in bin_db.lookup_id(bin_id):
            row += 1
            builder.add(
                {
                    "form": nfc(k.bmynd),
                    "lemma": nfc(k.ord),
                    "bin_id": k.bin_id,
                    "word_class": k.ofl,
                    "domain": k.hluti,
                    "tag": k.mark,
                    "grade": k.einkunn,
                    "register": k.malsnid,
                    "grammar": k.malfraedi,
                    "cross_ref": k.millivisun,
                    "visibility": k.birting,
                    "form_grade": k.beinkunn,
                    "form_register": k.bmalsnid,
                    "form_value": k.bgildi,
                    "extra_lemma": nfc(k.aukafletta) if k.aukafletta else k.aukafletta,
                    "row": row,
                }
            )
    return builder.take()


def read(path: Path | None = None, progress: bool = True, limit: int | None = None, workers: int | None = None) -> Iterator[Any]:
    """Yield pyarrow record batches of every BÍN entry in the installed package, in lemma-id order.

    Lemma ids are enumerated in chunks by a pool of worker processes (one per core); the batches
    come back in id order and ``row`` numbers the entries 1, 2, … in that order, so the output is
    the same whatever the number of workers.

    Args:
        path: must be None (the package is the source).
        progress: show a tqdm bar over lemma ids on stderr.
        limit: enumerate only lemma ids 1..limit (for tests).
        workers: worker processes (default: the number of cores).
    Raises:
        UsageError: ``islenska`` is not installed, or a path was given.
    """
    if path is not None:
        raise UsageError("the 'islenska' source reads the installed package and takes no file")
    import os

    import pyarrow.compute as pc
    from tqdm import tqdm

    last = _bin()._max_bin_id if limit is None else min(limit, _bin()._max_bin_id)
    chunks = [(i, min(i + CHUNK, last + 1)) for i in range(1, last + 1, CHUNK)]
    workers = workers or os.cpu_count() or 1
    offset = 0
    with tqdm(total=last, desc="BÍN lemmas", unit=" ids", disable=not progress, mininterval=0.5) as bar:
        with worker_pool(workers) as pool:  # workers ignore SIGINT: this process stops them
            for (first, stop), batch in zip(chunks, pool.imap(_chunk, chunks), strict=True):
                rows = pc.add(batch.column("row"), offset)
                offset += batch.num_rows
                bar.update(stop - first)
                if batch.num_rows:
                    yield batch.set_column(batch.schema.get_field_index("row"), "row", rows)
