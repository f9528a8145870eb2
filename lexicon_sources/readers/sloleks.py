"""Reader for Sloleks-style tables (the Slovenian morphological lexicon): tab-separated lines
``form  lemma  MSD`` in UTF-8 (docs/LEXICONS.md §6), e.g. ``hiše	hiša	Ncfsg``.

MSDs are the English JOS/MULTEXT-East tags: the first letter is the category (N noun, V verb,
A adjective, R adverb, P pronoun, M numeral, S adposition, C conjunction, Q particle,
I interjection, Y abbreviation, X residual), the second the type (``Np…`` = proper noun).
Lines that are blank or start with ``#`` are skipped; extra tab-separated fields after the third
(frequencies in some releases) are ignored.

Columns: ``form``, ``lemma``, ``msd``, ``category`` (its first letter), ``row`` (line number).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from gamecore.errors import DataError
from lexicon_sources.readers.common import Batcher, file_version, text_lines

NAME = "sloleks"


def SCHEMA() -> Any:
    import pyarrow as pa

    return pa.schema(
        [("form", pa.string()), ("lemma", pa.string()), ("msd", pa.string()), ("category", pa.string()), ("row", pa.int64())]
    )


def version(path: Path) -> str:
    return file_version(path)


def read(path: Path | None, progress: bool = True) -> Iterator[Any]:
    """Yield record batches of the table's rows.

    Raises:
        DataError: no file, not UTF-8, a line with fewer than 3 tab-separated fields or an empty
            form, lemma or MSD (file and line named), or no rows.
    """
    if path is None:
        raise DataError("the sloleks source needs a file: --input sloleks.tsv (form<TAB>lemma<TAB>MSD)")
    batcher = Batcher(SCHEMA())
    rows = 0
    for lineno, line in text_lines(Path(path), what="Sloleks table"):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 3 or not all(f.strip() for f in fields[:3]):
            raise DataError(f"expected form<TAB>lemma<TAB>MSD, got {line[:60]!r}", path, lineno)
        form, lemma, msd = (f.strip() for f in fields[:3])
        rows += 1
        batcher.add(form=form, lemma=lemma, msd=msd, category=msd[0], row=lineno)
        if batcher.full():
            yield batcher.take()
    if rows == 0:
        raise DataError("no rows: expected form<TAB>lemma<TAB>MSD lines", path, 1)
    if len(batcher):
        yield batcher.take()
