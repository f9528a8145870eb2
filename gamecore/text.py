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
characters of a longer line (a 50 MB "word" is not held in memory); :func:`bounded_lines` reads
lines of at most a cap and stops at the first longer one without reading the rest of it (an endless
stream such as ``/dev/zero`` ends at once). A whole file read into memory (a game log, a board) is
read with :func:`read_at_most`: at most :data:`GAME_FILE_MAX` / :data:`BOARD_FILE_MAX` bytes.

A configuration or recipe (TOML) is read whole with :func:`read_text_file`, at most
:data:`CONFIG_FILE_MAX` bytes, and parsed with :func:`toml_loads` (a 5,000-digit integer is a TOML
error with its line, not Python's ``ValueError``). A JSON game record nested deeper than
:data:`JSON_DEPTH_MAX` is refused at the line where it goes too deep (:func:`json_too_deep`),
before the parser recurses. An error message is one line (:func:`one_line`): a line break that
came from the input (a CSV header holding one) is shown as ``\n``.

Numbers read at the same boundaries (scores, totals) must fit a signed 32-bit integer: the Parquet
tables store them as int32. :data:`INT32_MIN` and :data:`INT32_MAX` are those bounds.
"""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import AnyStr, BinaryIO, Iterator
from unicodedata import is_normalized as _is_normalized
from unicodedata import normalize as _normalize

__all__ = [
    "BOARD_FILE_MAX",
    "BOM",
    "CONFIG_FILE_MAX",
    "JSON_DEPTH_MAX",
    "DUMP_LINE_MAX",
    "GAME_FILE_MAX",
    "INT32_MAX",
    "INT32_MIN",
    "LINE_CAP",
    "LINE_COUNT_MAX",
    "PATTERN_MAX",
    "WORD_MAX",
    "bounded_lines",
    "capped_lines",
    "json_too_deep",
    "one_line",
    "line_of",
    "mib",
    "nfc",
    "read_at_most",
    "read_board_text",
    "read_text_file",
    "strip_bom",
    "toml_loads",
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


DUMP_LINE_MAX = 1 << 16
"""The most bytes of one line of a dictionary dump (a BÍN CSV row, an Ordbank form, a Hunspell
``.dic``/``.aff`` line, a Sloleks row): a real line is under 1 KB; a longer one is one error
``FILE:LINE``, read no further (:func:`bounded_lines`). Word lists (one word per line: ``wordlist``,
SCOWL) are read with :data:`LINE_CAP`."""

GAME_FILE_MAX = 16 << 20
"""The most bytes of a game file (a GCG file, a Netskrafl JSON record): a real game is a few KB
(a 4-player GCG with notes on every move, a few hundred KB at most); a larger file is one error,
``FILE_TOO_LARGE``, read no further than this (an endless ``/dev/zero`` included)."""

BOARD_FILE_MAX = 1 << 20
"""The most bytes of a board or CGP file and of one ``--board -`` stdin line: a 21×21 board is
under 2 KB even with bracketed multi-letter tiles."""


CONFIG_FILE_MAX = 1 << 20
"""The most bytes of a configuration or recipe file (``nightly.toml``, ``lexicon_sources/*/*.toml``,
a rule set): a real one is a few KB; a larger file (``/dev/zero``) is one error, read no further."""

JSON_DEPTH_MAX = 64
"""The deepest nesting of arrays and objects in a JSON game record: a Netskrafl record nests 3
levels; a deeper one is one error ``FILE:LINE`` (Python's parser recurses, and ran out of stack)."""


LINE_COUNT_MAX = 16 << 20
"""The most bytes of one over-long line :func:`capped_lines` reads on, to count its characters: a
longer line (an endless input such as /dev/zero) is "more than 16 MiB", and nothing after it is read."""


def line_of(n: int) -> str:
    """``a line of N characters``, or ``a line of more than 16 MiB`` for a line :func:`capped_lines`
    stopped counting."""
    return f"a line of more than {mib(LINE_COUNT_MAX)}" if n > LINE_COUNT_MAX else f"a line of {n} characters"


def mib(n: int) -> str:
    """``16 MiB`` for a byte count that is a whole number of MiB, else ``N bytes``."""
    return f"{n >> 20} MiB" if n and n % (1 << 20) == 0 else f"{n} bytes"


def read_at_most(fh: BinaryIO, cap: int) -> bytes | None:
    """The whole rest of the binary stream ``fh`` when it is at most ``cap`` bytes, else None;
    never reads more than ``cap + 1`` bytes (an endless stream ends)."""
    data = fh.read(cap + 1)
    return None if len(data) > cap else data


def read_board_text(path: str | Path, what: str = "board") -> str:
    """The text of a board or CGP file, UTF-8, read with :func:`read_at_most`: at most
    :data:`BOARD_FILE_MAX` bytes (1 MiB) of it, so a huge file costs no memory.

    Raises:
        DataError: cannot be read, more than :data:`BOARD_FILE_MAX` bytes, or not UTF-8 (its line)."""
    from gamecore.errors import DataError

    try:
        with open(path, "rb") as f:
            data = read_at_most(f, BOARD_FILE_MAX)
    except OSError as exc:
        raise DataError(f"cannot read {what}: {exc.strerror or exc}", path) from None
    if data is None:
        raise DataError(f"more than {mib(BOARD_FILE_MAX)}: not a {what} file (a board is a few hundred bytes)", path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{what} file is not UTF-8 text", path, data.count(b"\n", 0, exc.start) + 1) from None


def bounded_lines(fh: BinaryIO, cap: int = LINE_CAP) -> Iterator[tuple[int, bytes | None]]:
    """Yield ``(line number, raw)`` for each line of the binary stream ``fh`` (``raw`` with its line
    break) whose bytes without the line break are at most ``cap``; a longer line yields
    ``(line number, None)`` and ends the iteration, the rest of it and of ``fh`` not read (unlike
    :func:`capped_lines`, which reads on to count the line: ``/dev/zero`` would never end). At most
    ``cap + 2`` bytes are held."""
    lineno = 0
    while True:
        raw = fh.readline(cap + 2)
        if not raw:
            return
        lineno += 1
        if len(raw) > cap:  # (no copy of the common short line)
            body = len(raw) - (2 if raw.endswith(b"\r\n") else 1 if raw.endswith(b"\n") else 0)
            if body > cap:
                yield lineno, None
                return
        yield lineno, raw


def nfc(s: str) -> str:
    """``s`` in Unicode normalization form C (``s`` itself when it already is)."""
    if _is_normalized("NFC", s):
        return s
    return _normalize("NFC", s)


def strip_bom(text: AnyStr) -> AnyStr:
    """``text`` without one leading byte-order mark (U+FEFF as text, ``EF BB BF`` as bytes)."""
    if isinstance(text, bytes):
        return text[len(_BOM_BYTES) :] if text.startswith(_BOM_BYTES) else text
    return text[1:] if text.startswith(BOM) else text


def word_too_long(n: int, limit: int = WORD_MAX, what: str = "word") -> str:
    """The one message for an item over its limit: ``a word of N characters (at most M)``; for a
    line over :data:`LINE_CAP` bytes whose item is short (white space around it), that."""
    if n > LINE_COUNT_MAX:
        return line_of(n)
    if n <= limit:
        return f"a line of more than {LINE_CAP} bytes, most of it white space around a {what}"
    return f"a {what} of {n} characters (at most {limit})"


def capped_lines(fh: BinaryIO, cap: int = LINE_CAP) -> Iterator[tuple[int, bytes, int | None]]:
    """Yield ``(line number, raw, length)`` for each line of the binary stream ``fh``, reading at
    most ``cap`` bytes of a line into memory.

    ``raw`` is the line's bytes (its line break included), and ``length`` None, when the line is at
    most ``cap`` bytes; for a longer line ``raw`` is its first ``cap`` bytes and ``length`` the number
    of characters of the whole line without the white space around it and a leading BOM (bytes that
    are not UTF-8 count one each), counted as the rest is read and dropped. A line of more than
    :data:`LINE_COUNT_MAX` bytes is not counted to its end: its ``length`` is ``LINE_COUNT_MAX + 1``
    (:func:`line_of` says "more than 16 MiB") and it is the last line yielded, so an endless input
    ends. The first line's BOM is left in ``raw``: callers drop it with :func:`strip_bom`.
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
        seen = len(raw)
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
            seen += len(chunk)
            if seen > LINE_COUNT_MAX:
                yield lineno, raw, LINE_COUNT_MAX + 1
                return
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


def read_text_file(path: str | Path, cap: int = CONFIG_FILE_MAX, what: str = "configuration") -> str:
    """The text of a UTF-8 file of at most ``cap`` bytes (:func:`read_at_most`: an endless
    ``/dev/zero`` ends at once), one leading BOM dropped.

    Raises:
        DataError: the file is missing or cannot be read, is larger than ``cap`` (``more than 1 MiB:
            not a configuration file``) or is not UTF-8 (with its line)."""
    from gamecore.errors import DataError

    try:
        with open(path, "rb") as f:
            data = read_at_most(f, cap)
    except FileNotFoundError:
        raise DataError(f"{what} not found", path) from None
    except OSError as exc:
        raise DataError(f"cannot read the {what}: {exc.strerror or exc}", path) from None
    if data is None:
        raise DataError(f"more than {mib(cap)}: not a {what} file (a real one is a few KB)", path)
    try:
        return strip_bom(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataError(f"not UTF-8 (byte {data[exc.start]:#04x}); a {what} is UTF-8 text", path, line) from None


def toml_loads(text: str) -> dict:
    """``tomllib.loads(text)``, with every error a :class:`tomllib.TOMLDecodeError` whose message
    ends ``(at line N, column M)`` (:func:`toml_error` reads it): an integer of more digits than
    Python converts (4,300) raised a bare ``ValueError`` with no position."""
    import re
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except (ValueError, RecursionError) as exc:
        m = re.search(r"[0-9_]{4000,}", text)
        if m is None:
            raise tomllib.TOMLDecodeError(f"{' '.join(str(exc).split())[:200]} (at end of document)") from None
        line = text.count("\n", 0, m.start()) + 1
        column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        raise tomllib.TOMLDecodeError(
            f"a number of {len(m.group().replace('_', ''))} digits (at line {line}, column {column})"
        ) from None


def json_too_deep(data: bytes, limit: int = JSON_DEPTH_MAX) -> int | None:
    """The line where the JSON text ``data`` nests arrays and objects deeper than ``limit``, or
    None when it does not (brackets inside strings do not count). A check before ``json.loads``,
    whose C parser recurses once per level."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return None
    import re

    depth = 0
    for m in re.finditer(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', data):
        c = m.group()
        if c in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return data.count(b"\n", 0, m.start()) + 1
        elif c in (b"]", b"}"):
            depth -= 1
    return None


def one_line(message: str) -> str:
    """``message`` on one line: each line break (CR, LF, the other Unicode line separators) shown as
    ``\\n``, so an error that quotes its input (a CSV header holding a newline) stays one line."""
    if message.isprintable() or not any(ch in message for ch in "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"):
        return message
    return "\\n".join(message.replace("\r\n", "\n").splitlines())
