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

A word read from a list or stdin is at most :data:`WORD_MAX` characters, more than any board's row
holds (the largest boards are 21 squares): a longer line is one error, not a word.
:func:`capped_lines` reads lines of at most :data:`LINE_CAP` bytes at once and only counts the
characters of a longer line (a 50 MB "word" is not held in memory).

Numbers read at the same boundaries (scores, totals) must fit a signed 32-bit integer: the Parquet
tables store them as int32. :data:`INT32_MIN` and :data:`INT32_MAX` are those bounds.
"""

from __future__ import annotations

import codecs
from typing import BinaryIO, Iterator
from unicodedata import is_normalized as _is_normalized
from unicodedata import normalize as _normalize

__all__ = [
    "BOM",
    "INT32_MAX",
    "INT32_MIN",
    "LINE_CAP",
    "PATTERN_MAX",
    "WORD_MAX",
    "capped_lines",
    "nfc",
    "strip_bom",
    "word_too_long",
]

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

BOM = "\ufeff"
_BOM_BYTES = BOM.encode("utf-8")

WORD_MAX = 64
"""The most characters a word may have in a committee, reference or must-reject list, an argument or
a stdin line (``check``, ``why``, ``find``): more than any board's row (21 squares on the largest,
``super``). A build's own word list has none: its recipe's ``max_length`` drops long words, with
the rule named."""

PATTERN_MAX = 1024
"""The most characters of a ``find`` pattern: a letter set (``[aeiouy]``) takes several characters
for one square, so a pattern may be longer than any word."""

LINE_CAP = 4096
"""The most bytes of one line :func:`capped_lines` reads into memory at once (a word of
:data:`WORD_MAX` letters is at most 256 bytes of UTF-8; the rest is room for white space and a
``#`` comment)."""


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


def word_too_long(n: int, limit: int = WORD_MAX, what: str = "word") -> str:
    """The one message for an item over its limit: ``a word of N characters (at most M)``; for a
    line over :data:`LINE_CAP` bytes whose item is short (white space around it), that."""
    if n <= limit:
        return f"a line of more than {LINE_CAP} bytes, most of it white space around a {what}"
    return f"a {what} of {n} characters (at most {limit})"


def capped_lines(fh: BinaryIO, cap: int = LINE_CAP) -> Iterator[tuple[int, bytes, int | None]]:
    """Yield ``(line number, raw, length)`` for each line of the binary stream ``fh``, reading at
    most ``cap`` bytes of a line into memory.

    ``raw`` is the line's bytes (its line break included), and ``length`` None, when the line is at
    most ``cap`` bytes; for a longer line ``raw`` is its first ``cap`` bytes and ``length`` the number
    of characters of the whole line without the white space around it and a leading BOM (bytes that
    are not UTF-8 count one each), counted as the rest is read and dropped. The first line's BOM is
    left in ``raw``: callers drop it with :func:`strip_bom`.
    """
    lineno = 0
    while True:
        raw = fh.readline(cap)
        if not raw:
            return
        lineno += 1
        if len(raw) < cap or raw.endswith(b"\n"):
            yield lineno, raw, None
            continue
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        length = trailing = 0
        started = False
        piece, chunk = decoder.decode(strip_bom(raw) if lineno == 1 else raw), raw
        while True:
            if not started:
                piece = piece.lstrip()
                started = bool(piece)
            kept = piece.rstrip()
            if kept:
                length += trailing + len(kept)
                trailing = len(piece) - len(kept)
            else:
                trailing += len(piece)
            if not chunk or chunk.endswith(b"\n"):
                break
            chunk = fh.readline(1 << 20)
            piece = decoder.decode(chunk, final=not chunk or chunk.endswith(b"\n"))
        yield lineno, raw, length


def toml_error(exc: Exception, text: str) -> tuple[int | None, str]:
    """The line of a TOML syntax error (:class:`tomllib.TOMLDecodeError`) in ``text`` and its
    message without the position, for a ``FILE:LINE: …`` line. Python 3.11's error carries no
    ``lineno`` (3.14 adds it), only a message ending ``(at line N, column M)`` or ``(at end of
    document)`` (then the last line); the column stays in the message (``… (column 9)``)."""
    import re

    msg = str(exc)
    lineno, colno = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)$", msg)
    if m:
        msg, lineno, colno = msg[: m.start()], lineno or int(m.group(1)), colno or int(m.group(2))
    else:
        m = re.search(r"\s*\(at end of document\)$", msg)
        if m:
            msg, colno = msg[: m.start()] + " at the end of the file", None
            lineno = lineno or max(1, len(text.splitlines()))
    return lineno, msg + (f" (column {colno})" if colno else "")
