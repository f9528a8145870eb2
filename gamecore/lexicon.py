"""A compiled lexicon, loaded for look-ups (``skrafl check``, move generation, replay).

A lexicon folder (written by ``skrafl build``, see :mod:`pipelines.build`) holds ``manifest.json``,
``lexicon.marisa`` (a marisa-trie of the lowercase words), ``words.txt`` and ``lexicon.kwg``.
Look-ups are case-insensitive and apply the lexicon's letter folds (Russian ё → е), as the
lexicon was built.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from gamecore.errors import DataError


def folder_of(fold: dict[str, str]) -> Callable[[str], str]:
    """The key function of a lexicon: lowercase, then the letter folds of its recipe (Russian
    ``ё`` → ``е``, Norwegian ``é`` → ``e``). The same function serves the build (committee lists)
    and every look-up, so both sides fold alike."""
    if not fold:
        return str.lower
    if all(len(src) == 1 for src in fold):
        table = str.maketrans(fold)
        return lambda word: word.lower().translate(table)
    items = tuple(fold.items())

    def key(word: str) -> str:
        word = word.lower()
        for src, dst in items:
            word = word.replace(src, dst)
        return word

    return key


class Lexicon:
    """Words of one built lexicon.

    Attributes:
        folder: the lexicon folder.
        key: ``word -> str``, the form a word is looked up by (NFC, lowercase, letter folds applied).
        manifest: the parsed ``manifest.json`` (``language``, ``tile_set``, ``rules``, ``alphabet``,
            ``fold``, ``words``, …).
    """

    def __init__(self, folder: Path, manifest: dict, trie) -> None:
        self.folder = Path(folder)
        self.manifest = manifest
        self._trie = trie
        from gamecore.text import nfc

        fold = folder_of(manifest.get("fold", {}))
        self.key = lambda word: fold(nfc(word))  # NFC here too: library callers get the CLI's verdicts

    @classmethod
    def load(cls, folder: Path | str) -> "Lexicon":
        """Load ``manifest.json`` and ``lexicon.marisa`` from ``folder``. The trie is read whole
        (a few MB, about 10 ms): look-ups are faster than through a memory map.

        ``folder`` is resolved once to the generation it names and checked whole
        (:func:`gamecore.folders.open_output`); :attr:`folder` is that generation, so the other
        files of the lexicon (``lexicon.kwg``) are read from the same run.

        Raises:
            DataError: the folder has no built lexicon (run ``skrafl build``) or a damaged file.
        """
        import marisa_trie

        from gamecore.folders import open_output

        shown = Path(folder)
        if not shown.exists() or (not (shown / "manifest.json").exists() and shown.is_dir() and not shown.is_symlink()):
            raise DataError(f"no lexicon here (manifest.json missing): run 'skrafl build {shown.name}' first", shown)
        folder = open_output(shown, "lexicon")
        manifest_path = folder / "manifest.json"
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise DataError(f"no lexicon here (manifest.json missing): run 'skrafl build {shown.name}' first", shown) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DataError(f"damaged manifest: {exc}", manifest_path) from None
        trie = marisa_trie.Trie()
        try:
            trie.load(str(folder / "lexicon.marisa"))
        except Exception as exc:
            raise DataError(f"cannot read lexicon.marisa: {exc}", folder) from None
        return cls(folder, manifest, trie)

    @property
    def language(self) -> str:
        return self.manifest.get("language", "")

    @property
    def name(self) -> str:
        return self.manifest.get("name", self.language)

    def __contains__(self, word: str) -> bool:
        return self.key(word) in self._trie

    def contains_many(self, words: list[str]) -> list[bool]:
        """Membership of many words at once (the batch path of ``skrafl check -``)."""
        trie = self._trie
        return [k in trie for k in map(self.key, words)]

    def __len__(self) -> int:
        return len(self._trie)

    def words(self, prefix: str = "") -> list[str]:
        """Words starting with ``prefix`` (trie order)."""
        return self._trie.keys(self.key(prefix))
