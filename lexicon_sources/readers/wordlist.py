"""Reader for plain word lists: one word per line, UTF-8 (NSF, SOWPODS/Collins, ENABLE, SCOWL, a
committee's own list). Usable for any language: ``skrafl build en --source wordlist --input FILE``.

Blank lines and lines starting with ``#`` are skipped; surrounding white space, Windows line ends
and a leading UTF-8 byte-order mark are stripped; words are read in Unicode NFC. A line is read up to
:data:`gamecore.text.LINE_CAP` bytes (4 KiB), no further: a longer one is an error naming the line
(a long word shorter than that is the recipe's to drop, by its ``max_length`` rule). A word written all in capitals (as tournament lists write
every word: ``AARDVARK``) carries no case information and is lowercased; any other word keeps its
case and the recipe decides (``Paris``, capitalised, is a proper noun; ``aardvark`` is a word).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from gamecore.errors import DataError
from gamecore.text import LINE_CAP, bounded_lines, nfc, strip_bom
from lexicon_sources.readers.common import file_version, too_long

NAME = "wordlist"


def SCHEMA() -> Any:
    import pyarrow as pa

    return pa.schema([("form", pa.string()), ("lemma", pa.string()), ("row", pa.int64())])


def version(path: Path) -> str:
    """The list's file name, size and modification date."""
    return file_version(Path(path))


def read(path: Path | None, progress: bool = True) -> Iterator[Any]:
    """Yield one record batch of the list's words (``form`` = ``lemma`` = the word).

    Raises:
        DataError: no file, a line of more than :data:`gamecore.text.LINE_CAP` bytes or not UTF-8,
            or no words at all.
    """
    if path is None:
        raise DataError("the wordlist source needs a file: --input WORDS.txt")
    import pyarrow as pa

    path = Path(path)
    words: list[str] = []
    rows: list[int] = []
    with open(path, "rb") as fh:
        for lineno, raw in bounded_lines(fh, LINE_CAP):
            if raw is None:
                raise DataError(too_long(LINE_CAP, "word list (one word per line)"), path, lineno)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(f"not UTF-8 (byte {raw[exc.start]:#04x}); word lists are read as UTF-8", path, lineno) from None
            line = nfc((strip_bom(text) if lineno == 1 else text).strip())
            if not line or line.startswith("#"):
                continue
            if any(ch.isspace() for ch in line):
                raise DataError(f"one word per line expected, got {line!r}", path, lineno)
            words.append(line)
            rows.append(lineno)
    if not words:
        raise DataError("no words: expected one word per line", path, 1)
    words = [w.lower() if w.isupper() else w for w in words]
    yield pa.RecordBatch.from_pydict({"form": words, "lemma": words, "row": rows}, schema=SCHEMA())
