"""Reader for SCOWL-style split word lists (Spell Checker Oriented Word Lists; Debian package
``scowl`` installs them in ``/usr/share/dict/scowl``, the default English source).

SCOWL splits its words into files named ``SPELLING-CATEGORY.LEVEL``: spelling ``english`` (common
to all), ``american``, ``british``, ``british_z``, ``canadian``, ``australian`` and their
``variant_1``/``_2``/``_3`` lists; category ``words``, ``upper`` (capitalised words),
``proper-names``, ``abbreviations``, ``contractions``; size level 10 (most common) … 95 (rarest).
Files ``special-*`` (hacker words, roman numerals) have spelling ``special``. Each file holds one
word per line in UTF-8 (SCOWL 2020 and Debian).

``--input`` names the folder (or one list file, read alone). Columns: ``form`` = ``lemma`` (the
word as written), ``spelling``, ``category``, ``level``, ``file``, ``row`` (line number in its file).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

from gamecore.errors import DataError, UsageError
from gamecore.text import LINE_CAP
from lexicon_sources.readers.common import Batcher, text_lines

NAME = "scowl"
DEFAULT_FOLDER = Path("/usr/share/dict/scowl")
_FILE = re.compile(r"^(?P<spelling>[a-z_0-9]+)-(?P<category>[a-z-]+)\.(?P<level>[0-9]{1,3})$")  # level 10..95


def SCHEMA() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("form", pa.string()),
            ("lemma", pa.string()),
            ("spelling", pa.string()),
            ("category", pa.string()),
            ("level", pa.int16()),
            ("file", pa.string()),
            ("row", pa.int64()),
        ]
    )


def _files(path: Path) -> list[Path]:
    if path.is_file():
        if not _FILE.match(path.name):
            raise DataError("not a SCOWL list name SPELLING-CATEGORY.LEVEL (e.g. english-words.35)", path)
        return [path]
    files = sorted(p for p in path.iterdir() if p.is_file() and _FILE.match(p.name))
    if not files:
        raise DataError("no SCOWL lists (files named SPELLING-CATEGORY.LEVEL, e.g. english-words.35) here", path)
    return files


def _folder(path: Path | None) -> Path:
    if path is not None:
        return Path(path)
    if not DEFAULT_FOLDER.is_dir():
        raise UsageError(
            f"the English source needs SCOWL in {DEFAULT_FOLDER}: apt-get install scowl "
            "(or give --input FOLDER with SCOWL's final/ lists)"
        )
    return DEFAULT_FOLDER


def version(path: Path | None = None) -> str:
    folder = _folder(path)
    files = _files(folder)
    total = sum(f.stat().st_size for f in files)
    return f"SCOWL {folder} ({len(files)} lists, {total} bytes)"


def read(path: Path | None = None, progress: bool = True) -> Iterator[Any]:
    """Yield one record batch per list file.

    Raises:
        UsageError: no path and SCOWL is not installed.
        DataError: no SCOWL list files, a line that is not UTF-8 or holds white space.
    """
    from tqdm import tqdm

    folder = _folder(path)
    rows = 0
    for f in tqdm(_files(folder), desc="SCOWL lists", unit=" files", disable=not progress, mininterval=0.5):
        m = _FILE.match(f.name)
        assert m is not None  # _files lists only the names it matches
        batcher = Batcher(SCHEMA())
        for lineno, line in text_lines(f, what="SCOWL list", cap=LINE_CAP):
            word = line.strip()
            if not word:
                continue
            if any(ch.isspace() for ch in word):
                raise DataError(f"one word per line expected, got {word!r}", f, lineno)
            rows += 1
            batcher.add(
                form=word,
                lemma=word,
                spelling=m["spelling"],
                category=m["category"],
                level=int(m["level"]),
                file=f.name,
                row=lineno,
            )
        if len(batcher):
            yield batcher.take()
    if rows == 0:
        raise DataError("no words in the SCOWL lists", folder)
