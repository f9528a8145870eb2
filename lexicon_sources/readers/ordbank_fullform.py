"""Reader for the Norsk Ordbank full-form list (``fullformsliste.txt``, Språkbanken), the official
download the NSF list is built from (docs/LEXICONS.md §2).

Tab-separated, one inflected form per line, 9 fields (docs/LEXICONS.md §6)::

    LOEPENR  LEMMA_ID  OPPSLAG  TAG  PARADIGME_ID  BOY_NUMMER  FRADATO  TILDATO  NORMERING

``TAG`` holds space-separated features (``subst appell mask be eint``, ``subst prop``, ``fork``,
``symb``, ``gen``, …). A header line starting with ``LOEPENR`` and blank lines are skipped. The
encoding is Latin-1 or UTF-8 depending on the release: a file that is valid UTF-8 is read as UTF-8;
one without any UTF-8 sequence as Latin-1; a file mixing both is an error. A leading UTF-8
byte-order mark is dropped.

Columns: ``form`` (OPPSLAG), ``lemma`` (the lemma's first form: lowest BOY_NUMMER of its
LEMMA_ID), ``word_class`` (the first TAG feature: subst verb adj adv fork symb …), ``tags`` (TAG
with a space at each end: ``tags LIKE '% gen %'``), ``lemma_id``, ``paradigm_id``,
``inflection`` (BOY_NUMMER), ``normering``, ``row`` (line number).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

from gamecore.errors import DataError
from gamecore.text import DUMP_LINE_MAX, nfc, strip_bom
from lexicon_sources.readers.common import Batcher, check_line_lengths, file_version, whole_number

NAME = "ordbank"
FIELDS = 9
_UTF8_SEQ = re.compile(rb"[\xc2-\xf4][\x80-\xbf]")


def SCHEMA() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("form", pa.string()),
            ("lemma", pa.string()),
            ("word_class", pa.string()),
            ("tags", pa.string()),
            ("lemma_id", pa.int64()),
            ("paradigm_id", pa.string()),
            ("inflection", pa.int32()),
            ("normering", pa.string()),
            ("row", pa.int64()),
        ]
    )


def version(path: Path) -> str:
    return file_version(path)


def _decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if _UTF8_SEQ.search(data):
            line = data.count(b"\n", 0, exc.start) + 1
            raise DataError(
                f"mixed encodings: UTF-8 elsewhere but byte {data[exc.start]:#04x} here is not UTF-8", path, line
            ) from None
        return data.decode("latin-1")


def read(path: Path | None, progress: bool = True) -> Iterator[Any]:
    """Yield one record batch per 200,000 forms.

    Raises:
        DataError: no file, an empty file, a line of more than :data:`gamecore.text.DUMP_LINE_MAX`
            bytes, mixed encodings, a line without 9 tab-separated fields,
            or a LEMMA_ID / BOY_NUMMER that is not a number (file and line named).
    """
    if path is None:
        raise DataError("the ordbank source needs a file: --input fullformsliste.txt")
    from tqdm import tqdm

    path = Path(path)
    try:
        check_line_lengths(path, DUMP_LINE_MAX, "Ordbank form list")  # the whole file is read below
        data = path.read_bytes()
    except FileNotFoundError:
        raise DataError("file not found", path) from None
    if not data.strip():
        raise DataError("empty file", path, 1)
    text = nfc(_decode(path, strip_bom(data)))
    del data
    rows: list[tuple] = []
    first_form: dict[int, tuple[int, str]] = {}
    for lineno, line in enumerate(
        tqdm(text.splitlines(), desc="Ordbank forms", unit=" lines", disable=not progress, mininterval=0.5), start=1
    ):
        if not line.strip() or line.startswith("LOEPENR") or line.startswith("*"):
            continue
        fields = line.split("\t")
        if len(fields) != FIELDS:
            raise DataError(
                f"{len(fields)} tab-separated fields; expected {FIELDS} "
                "(LOEPENR LEMMA_ID OPPSLAG TAG PARADIGME_ID BOY_NUMMER FRADATO TILDATO NORMERING)",
                path,
                lineno,
            )
        _, lemma_id, form, tag, paradigm, boy, _, _, norm = (f.strip() for f in fields)
        lid = whole_number(lemma_id, "int64", "LEMMA_ID", path, lineno)
        inflection = whole_number(boy, "int32", "BOY_NUMMER", path, lineno)
        if not form:
            raise DataError("empty OPPSLAG (word form)", path, lineno)
        rows.append((form, tag, lid, paradigm, inflection, norm, lineno))
        best = first_form.get(lid)
        if best is None or inflection < best[0]:
            first_form[lid] = (inflection, form)
    if not rows:
        raise DataError("no word forms in the file", path, 1)
    batcher = Batcher(SCHEMA())
    for form, tag, lid, paradigm, inflection, norm, lineno in rows:
        features = tag.split()
        batcher.add(
            form=form,
            lemma=first_form[lid][1],
            word_class=features[0] if features else "",
            tags=" " + " ".join(features) + " ",
            lemma_id=lid,
            paradigm_id=paradigm,
            inflection=inflection,
            normering=norm,
            row=lineno,
        )
        if batcher.full():
            yield batcher.take()
    if len(batcher):
        yield batcher.take()
