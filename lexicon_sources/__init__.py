"""Where lexicons come from: the languages we build, their dump readers and their recipes.

- ``readers/``: one module per dump format (see ``readers/__init__.py`` for the interface).
- ``<lang>/``: one folder per language with its recipes (``recipe.toml`` = the game lexicon, other
  ``*.toml`` = further vocabularies such as robot tiers) and its committee lists (plain text).
"""

from __future__ import annotations

import importlib
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
        Language("en", "English", "wordlist"),
    )
}

# Source name → reader module. File sources are sniffed by `source_for` when given as a path.
READERS: dict[str, str] = {
    "islenska": "lexicon_sources.readers.bin_islenska",
    "bin-sh": "lexicon_sources.readers.bin_csv",
    "bin-kr": "lexicon_sources.readers.bin_csv",
    "wordlist": "lexicon_sources.readers.wordlist",
}
# Sources that read a file, per language, in the order tried when a path is given.
FILE_SOURCES: dict[str, tuple[str, ...]] = {"is": ("bin-sh", "bin-kr"), "en": ("wordlist",)}


def language(code: str) -> Language:
    """The language with this code.

    Raises:
        UsageError: unknown code (the message lists the known ones).
    """
    try:
        return LANGUAGES[code]
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
    file, whose format is then sniffed (BÍN CSV: 6 or 15 fields). Without either, the language's
    embedded default is used.

    Raises:
        UsageError: the file does not exist, or the source name is unknown.
    """
    if source is not None and source not in READERS:
        path, source = Path(source), None
    if path is not None and not Path(path).is_file():
        raise UsageError(f"{path}: no such file")
    if source is None and path is not None:
        candidates = FILE_SOURCES.get(lang.code, ("wordlist",))
        if candidates[0].startswith("bin-"):
            from lexicon_sources.readers.bin_csv import sniff

            source = sniff(Path(path))
        else:
            source = candidates[0]
    if source is None:
        source = lang.default_source
    reader(source)
    return source, path
