"""Readers for the official BÍN downloads: ``SHsnid.csv`` (6 fields) and ``KRsnid.csv`` (15
fields), semicolon-separated UTF-8, no header (docs/LEXICONS.md §6; bin.arnastofnun.is).

SHsnid: ``lemma;bin_id;word_class;domain;form;tag`` (``hestur;6179;kk;alm;hests;EFET``).
KRsnid: ``lemma;bin_id;word_class;domain;grade;register;grammar;cross_ref;visibility;form;tag;
form_grade;form_register;form_value;extra_lemma``.
Every line must have exactly the format's number of fields and decode as UTF-8 (it is then read in
Unicode NFC; a leading byte-order mark is dropped); ids and grades are whole numbers within their column's type (``bin_id``,
``cross_ref``: int32; grades: int8). The first bad line raises :class:`DataError` naming the file
and line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, Sequence

from gamecore.errors import DataError
from gamecore.text import DUMP_LINE_MAX, bounded_lines, nfc, strip_bom
from lexicon_sources.readers.bin_schema import COLUMNS, INT_FIELDS, KR_FIELDS, SH_FIELDS, BatchBuilder, schema
from lexicon_sources.readers.common import file_version, too_long, whole_number

SCHEMA = schema
FORMATS = {"bin-sh": SH_FIELDS, "bin-kr": KR_FIELDS}
_KINDS = dict(COLUMNS)


def sniff(path: Path) -> str:
    """``bin-sh`` or ``bin-kr``, from the number of fields on the first line.

    Raises:
        DataError: empty file, or a first line with neither 6 nor 15 fields.
    """
    lineno, first = 0, b""
    with open(path, "rb") as fh:  # the first line that is not blank (the reader skips blank lines too)
        while not first.strip():
            first = fh.readline(DUMP_LINE_MAX + 2)
            lineno += 1
            if len(first.rstrip(b"\r\n")) > DUMP_LINE_MAX:
                raise DataError(too_long(DUMP_LINE_MAX, "BÍN CSV file"), path, lineno)
            if not first:
                raise DataError("empty file: expected BÍN CSV rows (SHsnid: 6 fields, KRsnid: 15 fields)", path, 1)
    n = first.count(b";") + 1
    for name, fields in FORMATS.items():
        if n == len(fields):
            return name
    raise DataError(f"{n} semicolon-separated fields; expected 6 (SHsnid.csv) or 15 (KRsnid.csv)", path, lineno)


def version(path: Path) -> str:
    """The file name, size and modification date (the dumps carry no version inside)."""
    return file_version(Path(path))


def _line_text(raw: bytes, path: Path, lineno: int, last: bool) -> str:
    """A line's text, NFC, without its line break (and on the first line a byte-order mark).

    Raises:
        DataError: not UTF-8; the file's last line without its line break (cut short).
    """
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(
            f"not UTF-8 (byte {raw[exc.start]:#04x} at column {exc.start + 1}); BÍN CSV files are "
            "UTF-8 — convert with: iconv -f latin1 -t utf-8",
            path,
            lineno,
        ) from None
    if not line.endswith("\n") and last:
        raise DataError(
            "the file ends in the middle of a line (truncated download?); every BÍN CSV line ends with a line break",
            path,
            lineno,
        )
    if lineno == 1:
        line = strip_bom(line)  # Excel's "CSV UTF-8" starts with one
    return nfc(line.rstrip("\r\n"))


def _row(line: str, fields: Sequence[str], path: Path, lineno: int) -> dict[str, Any]:
    """A line's fields by name (numbers as integers, an empty number None), with its line number.

    Raises:
        DataError: the wrong number of fields, a field that is not a whole number, no word form.
    """
    parts = line.split(";")
    if len(parts) != len(fields):
        raise DataError(f"{len(parts)} fields; expected {len(fields)} ({', '.join(fields)})", path, lineno)
    row: dict[str, Any] = {"row": lineno}
    for name, value in zip(fields, parts, strict=True):
        if name not in INT_FIELDS:
            row[name] = value
        elif value == "":
            row[name] = None
        else:
            row[name] = whole_number(value, _KINDS[name], f"field {name}", path, lineno)
    if not row["form"]:
        raise DataError("empty word form (field 'form')", path, lineno)
    return row


def read(path: Path | None, progress: bool = True, fmt: str | None = None) -> Iterator[Any]:
    """Yield pyarrow record batches of the entries of a SHsnid or KRsnid file.

    Raises:
        DataError: no file given, empty file, a line that is not UTF-8, a line with the wrong number
            of fields, a non-numeric id or grade, or a last line cut short (no line break).
    """
    if path is None:
        raise DataError("a BÍN CSV source needs a file: --source SHsnid.csv or KRsnid.csv")
    path = Path(path)
    fields = FORMATS[fmt or sniff(path)]
    from tqdm import tqdm

    builder = BatchBuilder()
    size = path.stat().st_size
    rows = 0
    done = 0
    with (
        open(path, "rb") as fh,
        tqdm(total=size, unit="B", unit_scale=True, desc=path.name, disable=not progress, mininterval=0.5) as bar,
    ):
        for lineno, raw in bounded_lines(fh, DUMP_LINE_MAX):
            if raw is None:
                raise DataError(too_long(DUMP_LINE_MAX, "BÍN CSV file"), path, lineno)
            bar.update(len(raw))
            done += len(raw)
            line = _line_text(raw, path, lineno, last=done >= size)
            if not line:
                continue
            builder.add(_row(line, fields, path, lineno))
            rows += 1
            if builder.full():
                yield builder.take()
    if rows == 0:
        raise DataError("no rows: expected BÍN CSV rows (SHsnid: 6 fields, KRsnid: 15 fields)", path, 1)
    if len(builder):
        yield builder.take()
