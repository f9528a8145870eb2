"""Text at the input boundaries: every word, rack, board, play, pattern and word-list line that comes
into the toolkit is put in Unicode normalization form C (NFC) once, where it is decoded.

Icelandic, Norwegian, Slovenian and Russian letters can be written two ways: ``ý`` as one code
point (U+00FD, NFC) or as ``y`` + a combining acute (U+0301, NFD, what macOS file names and some
editors produce). The lexicons, tile sets and boards hold NFC, so NFD input would look up the wrong
key (``skrafl check ýf`` said INVALID for NFD). :func:`nfc` is the one place that normalises; it
returns the string itself when it is already NFC (the common case, a fast C check).

A text file may start with a UTF-8 byte-order mark (U+FEFF, what Windows Notepad and Excel write).
Every reader drops one leading BOM with :func:`strip_bom` (a board, a Netskrafl record, a dump, a
word list, stdin), so a file with one reads as the same file without.

Numbers read at the same boundaries (scores, totals) must fit a signed 32-bit integer: the Parquet
tables store them as int32. :data:`INT32_MIN` and :data:`INT32_MAX` are those bounds.
"""

from __future__ import annotations

from unicodedata import is_normalized as _is_normalized
from unicodedata import normalize as _normalize

__all__ = [
    "BOM",
    "INT32_MAX",
    "INT32_MIN",
    "nfc",
    "strip_bom",
]

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

BOM = "\ufeff"
_BOM_BYTES = BOM.encode("utf-8")


def nfc(s: str) -> str:
    """``s`` in Unicode normalization form C (``s`` itself when it already is)."""
    if _is_normalized("NFC", s):
        return s
    return _normalize("NFC", s)


def strip_bom(text: str | bytes) -> str | bytes:
    """``text`` without one leading byte-order mark (U+FEFF as text, ``EF BB BF`` as bytes)."""
    if isinstance(text, bytes):
        return text[len(_BOM_BYTES) :] if text.startswith(_BOM_BYTES) else text
    return text[1:] if text.startswith(BOM) else text
