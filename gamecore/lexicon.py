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


def read_trie(folder: Path):
    """The whole ``lexicon.marisa`` of a lexicon generation folder.

    Raises:
        DataError: a missing or damaged file."""
    import marisa_trie

    trie = marisa_trie.Trie()
    try:
        trie.load(str(folder / "lexicon.marisa"))
    except Exception as exc:
        raise DataError(f"cannot read lexicon.marisa: {exc}", folder) from None
    return trie


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
        if trie is not None:
            self._trie = trie  # else read on first use (the _trie property below)
        from gamecore.text import nfc

        fold = folder_of(manifest.get("fold", {}))
        self.key = lambda word: fold(nfc(word))  # NFC here too: library callers get the CLI's verdicts

    @classmethod
    def load(cls, folder: Path | str, lazy: bool = False) -> "Lexicon":
        """Load ``manifest.json`` and ``lexicon.marisa`` from ``folder``. The trie is read whole
        (a few MB, about 10 ms): look-ups are faster than through a memory map. ``lazy``: the trie
        is read on the first look-up instead (for callers such as ``best`` that mostly need only
        the manifest and the KWG); a damaged trie is then the same DataError, raised there.

        ``folder`` is resolved once to the generation it names and checked whole
        (:func:`gamecore.folders.open_output`); :attr:`folder` is that generation, so the other
        files of the lexicon (``lexicon.kwg``) are read from the same run.

        Raises:
            DataError: the folder has no built lexicon (run ``skrafl build``) or a damaged file.
        """
        from gamecore.folders import open_output

        shown = Path(folder)
        if not shown.exists() or (not (shown / "manifest.json").exists() and shown.is_dir() and not shown.is_symlink()):
            raise DataError(f"no lexicon here (manifest.json missing): {_build_hint(shown)}", shown)
        folder = open_output(shown, "lexicon")
        manifest_path = folder / "manifest.json"
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise DataError(f"no lexicon here (manifest.json missing): {_build_hint(shown)}", shown) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DataError(f"damaged manifest: {exc}", manifest_path) from None
        return cls(folder, manifest, None if lazy else read_trie(folder))

    def __getattr__(self, name: str):
        if name == "_trie":  # a lazy load's first look-up
            self._trie = read_trie(self.folder)
            return self._trie
        raise AttributeError(name)

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

    # ---- pattern, anagram and hook search (skrafl find) -------------------------------------

    @property
    def alphabet(self) -> str:
        """The game letters in alphabet order (the order of ``words.txt``)."""
        return self.manifest.get("alphabet", "")

    def all_words(self) -> list[str]:
        """Every word, in the lexicon's alphabet order (``words.txt``)."""
        return (self.folder / "words.txt").read_text(encoding="utf-8").split()

    def pattern_regex(self, pattern: str) -> str:
        """A regular expression for a search pattern: ``?`` one letter, ``*`` any run of letters
        (also none), ``[abc]`` one of a set, ``[^abc]`` a letter not in it, other letters as
        themselves (keyed like a look-up: lowercase, folds). Letters are the lexicon's alphabet.

        Raises:
            UsageError: an unclosed ``[``, an empty set, or a character outside the alphabet.
        """
        import re

        from gamecore.errors import UsageError

        letters = self.alphabet
        any_letter = "[" + re.escape(letters) + "]" if letters else "."
        out, i, key = [], 0, self.key(pattern)
        while i < len(key):
            ch = key[i]
            if ch == "?":
                out.append(any_letter)
            elif ch == "*":
                out.append(any_letter + "*")
            elif ch == "[":
                end = key.find("]", i + 1)
                if end < 0:
                    raise UsageError(f"pattern {pattern!r}: '[' without a closing ']'")
                body = key[i + 1 : end]
                negate = body.startswith("^")
                body = body[1:] if negate else body
                if not body:
                    raise UsageError(f"pattern {pattern!r}: an empty letter set []")
                bad = [c for c in body if letters and c not in letters]
                if bad:
                    raise UsageError(f"pattern {pattern!r}: {bad[0]!r} is not a letter of this lexicon ({letters})")
                chosen = "".join(c for c in letters if (c in body) != negate) if letters else body
                out.append("[" + re.escape(chosen) + "]" if chosen else "(?!)")
                i = end
            else:
                if letters and ch not in letters:
                    raise UsageError(
                        f"pattern {pattern!r}: {ch!r} is not a letter of this lexicon ({letters}); "
                        "use ? for one letter, * for any run, [abc] for a set"
                    )
                out.append(re.escape(ch))
            i += 1
        return "^" + "".join(out) + "$"

    def match(self, pattern: str, words: list[str] | None = None) -> list[str]:
        """Words matching ``pattern`` (see :meth:`pattern_regex`), in alphabet order. A literal
        start narrows the search to the trie's words with that prefix."""
        import re

        regex = re.compile(self.pattern_regex(pattern))
        if words is None:
            key = self.key(pattern)
            prefix = re.split(r"[?*\[]", key, maxsplit=1)[0]
            words = self.all_words() if not prefix else self.in_order(self._trie.keys(prefix))
        return [w for w in words if regex.match(w)]

    def in_order(self, words) -> list[str]:
        """``words`` sorted in the lexicon's alphabet order (Icelandic á after a, þ æ ö last), the
        order of ``words.txt`` and of every list a command prints; a character outside the
        alphabet after its letters, by code point."""
        rank = {c: i for i, c in enumerate(self.alphabet)}
        return sorted(words, key=lambda w: [rank.get(c, len(rank) + ord(c)) for c in w])

    def anagrams(self, rack: str, words: list[str] | None = None) -> list[str]:
        """Words that use every tile of ``rack`` exactly once (``?`` a blank: any letter), in
        alphabet order.

        Raises:
            UsageError: a rack character that is neither a letter of the lexicon nor ``?``.
        """
        from collections import Counter

        from gamecore.errors import UsageError

        key = self.key(rack)
        letters = self.alphabet
        bad = [c for c in key if c != "?" and letters and c not in letters]
        if bad:
            raise UsageError(f"rack {rack!r}: {bad[0]!r} is not a letter of this lexicon ({letters})")
        need = Counter(c for c in key if c != "?")
        blanks = key.count("?")
        n = len(key)
        out = []
        for w in self.all_words() if words is None else words:
            if len(w) != n:
                continue
            have = Counter(w)
            short = sum(max(0, have[c] - need.get(c, 0)) for c in have)
            if short <= blanks:
                out.append(w)
        return out

    def hooks(self, word: str) -> tuple[str, str]:
        """``(front hooks, back hooks)``: the letters that make a word before or after ``word``,
        each in alphabet order.

        Raises:
            UsageError: a character of ``word`` that is not a letter of the lexicon (as a pattern's
                or a rack's).
        """
        from gamecore.errors import UsageError

        key = self.key(word)
        bad = [c for c in key if self.alphabet and c not in self.alphabet]
        if bad:
            raise UsageError(f"word {word!r}: {bad[0]!r} is not a letter of this lexicon ({self.alphabet})")
        front = "".join(c for c in self.alphabet if c + key in self._trie)
        back = "".join(c for c in self.alphabet if key + c in self._trie)
        return front, back


def _build_hint(folder: Path) -> str:
    """How to get a lexicon at ``folder``: ``skrafl build LANG`` only when the folder's
    name is a language with a recipe (``lexicon_sources/LANG``), else what to give instead (a
    folder named ``tmp`` is not a language); a folder another command wrote says so
    (``output/compare/nb`` is a compare report, not a lexicon to build)."""
    from gamecore.folders import command_shown, read_marker

    marker = read_marker(folder) or {}
    if marker.get("command") not in (None, "build"):
        return f"it is the output of 'skrafl {command_shown(marker['command'])}'; give a folder written by 'skrafl build LANG'"
    sources = Path(__file__).resolve().parents[1] / "lexicon_sources" / folder.name
    if (sources / "recipe.toml").is_file():
        return f"run 'skrafl build {folder.name}' first (after 'skrafl ingest {folder.name}'; or give --lexicon a built lexicon folder)"
    return "give a folder written by 'skrafl build LANG' (or 'skrafl build LANG --out DIR'), which holds manifest.json"
