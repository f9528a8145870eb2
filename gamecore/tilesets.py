"""Tile sets: the letters of a game, in alphabet order, with their counts, values and vowel flags.

A tile set is a data file ``gamecore/data/tile_sets/<name>.tsv`` (one file per set,
with a ``# source:`` line naming where its counts and values come from). Format: ``#``
comment lines, a header ``letter count value vowel``, then one tile per line; ``?`` is the blank.
The order of the lines is the alphabet order (letter index 1..N, used by lexicon graphs).
A user adds a set by dropping a file into that folder, or by naming the file's path.

Tiles are kept as *labels* (strings), so multi-letter tiles (``CH``, ``L·L``) can come: in racks and
words they are written in brackets (``[CH]``), as CGP and MAGPIE do (docs/GCG.md §5), or matched by
greedy longest match — but only a label that cannot also be read as single tiles of the set (Catalan
``L·L`` and ``QU``: the set has no ``·`` and no ``Q``). A label made of the set's own letters (a
``CH`` tile beside ``C`` and ``H``) must be bracketed: bare ``CH`` is ``C`` + ``H``, as wolges reads
Spanish. Brackets hold multi-letter tiles only (``[A]`` is refused), and :meth:`TileSet.format_tile`
prints every multi-letter tile in brackets, so what is printed reads back as the same tiles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from gamecore.errors import DataError, UsageError
from gamecore.text import nfc

DATA_DIR = Path(__file__).resolve().parent / "data" / "tile_sets"
BLANK = "?"
MAX_COUNT = 1000  # tiles of one letter in a tile-set file (real sets: at most 24)
MAX_VALUE = 1000  # points of one tile (real sets: at most 10)


@dataclass(frozen=True, eq=False)
class TileSet:
    """One tile set.

    Attributes:
        name: the set's name (file stem).
        letters: tile labels in alphabet order, uppercase, blank excluded (index 0 = letter 1).
        counts: tiles in the bag per label (0 for letters a set lists but does not use).
        values: points per label.
        vowels: labels that are vowels.
        blanks: number of blank tiles.
        source: the file's ``# source:`` line.
    """

    name: str
    letters: tuple[str, ...]
    counts: dict[str, int]
    values: dict[str, int]
    vowels: frozenset[str]
    blanks: int
    source: str = ""
    _index: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    _bare: frozenset[str] = field(init=False, default=frozenset(), repr=False, compare=False)  # set in __post_init__

    def __post_init__(self) -> None:
        self._index.update({label: i + 1 for i, label in enumerate(self.letters)})
        # multi-letter labels read without brackets: those that are not a run of single tiles
        bare = tuple(x for x in self.letters if len(x) > 1 and not all(c in self._index for c in x))
        object.__setattr__(self, "_bare", frozenset(bare))

    @property
    def total(self) -> int:
        """All tiles in the bag, blanks included."""
        return sum(self.counts.values()) + self.blanks

    @property
    def max_label_len(self) -> int:
        return max((len(x) for x in self.letters), default=1)

    def index(self, label: str) -> int:
        """1-based alphabet index of an uppercase label; 0 if the set has no such letter."""
        return self._index.get(label, 0)

    def has(self, label: str) -> bool:
        return label in self._index

    def value(self, label: str) -> int:
        return self.values.get(label, 0)

    def upper(self, text: str) -> str:
        return text.upper()

    def split_word(self, text: str, *, allow: str = "") -> list[str]:
        """Split text into tile tokens: ``[..]`` groups, greedy longest label match, or single
        characters from ``allow`` (e.g. ``?`` or ``.``). Case is kept (lowercase = blank).

        The text is read in Unicode NFC (an NFD ``Ý``, ``Y`` + combining acute, is the tile ``Ý``).

        Raises:
            UsageError: a character that is no tile of this set.
        """
        text = nfc(text)
        out: list[str] = []
        i = 0
        longest = self.max_label_len
        while i < len(text):
            ch = text[i]
            if ch == "[":
                j = text.find("]", i)
                if j < 0:
                    raise UsageError(f"unclosed '[' in {text!r}")
                tok = text[i + 1 : j]
                if len(tok) < 2:  # brackets mark multi-letter tiles only: "[A]" is not the A tile
                    raise UsageError(
                        f"[{tok}] in {text!r}: brackets are for multi-letter tiles only (write a single letter without them)"
                    )
                if not self.has(tok.upper()):
                    raise UsageError(f"unknown tile [{tok}] for tile set {self.name} in {text!r}")
                out.append(tok)
                i = j + 1
                continue
            if ch in allow:
                out.append(ch)
                i += 1
                continue
            for n in range(min(longest, len(text) - i), 0, -1):
                tok = text[i : i + n]
                if n > 1 and tok.upper() not in self._bare:
                    continue  # e.g. a CH tile beside C and H: bare "CH" is C + H ("[CH]" is the tile)
                if self.has(tok.upper()):
                    out.append(tok)
                    i += n
                    break
            else:
                raise UsageError(
                    f"letter {ch!r} in {text!r} is not in tile set {self.name} (letters: {''.join(self.letters)}, ? = blank)"
                )
        return out

    def parse_rack(self, text: str, *, check_counts: bool = True) -> list[str]:
        """A rack as uppercase labels, ``?`` for a blank (``AEI?NRS`` → [...]); read in Unicode NFC.

        Raises:
            UsageError: an unknown letter, or more of a tile than the whole set holds.
        """
        text = nfc(text)
        tokens = [t if t == BLANK else t.upper() for t in self.split_word(text.strip(), allow=BLANK)]
        if check_counts:
            self.check_counts(tokens, what=f"rack {text!r}")
        return tokens

    def check_counts(self, labels: list[str], what: str = "rack") -> None:
        """Raise UsageError if ``labels`` (``?`` = blank) holds more of a tile than the set has."""
        seen: dict[str, int] = {}
        for t in labels:
            seen[t] = seen.get(t, 0) + 1
        for t, n in seen.items():
            have = self.blanks if t == BLANK else self.counts.get(t, 0)
            if n > have:
                name = "blank" if t == BLANK else repr(t)
                raise UsageError(f"{what} has {n} × {name}, but tile set {self.name} has only {have}")

    def format_tile(self, label: str, blank: bool = False) -> str:
        """A label as written in words: lowercase when blank, ``[..]`` around multi-letter labels."""
        s = label.lower() if blank else label
        return f"[{s}]" if len(label) > 1 else s


def tile_set_names() -> list[str]:
    """Names of the tile sets shipped in ``gamecore/data/tile_sets``."""
    return sorted(p.stem for p in DATA_DIR.glob("*.tsv"))


def _tile_row(cols: list[str], line: str, path: Path, lineno: int) -> tuple[str, int, int, bool]:
    """A tile-set row as ``(label, count, value, vowel)``, its numbers in range.

    Raises:
        DataError: fewer than three columns, numbers that are not whole or out of range.
    """
    if len(cols) < 3:
        raise DataError(f"expected letter, count, value[, vowel]; got {line!r}", path, lineno)
    try:
        count, value = int(cols[1]), int(cols[2])
    except ValueError:
        raise DataError(f"count and value must be integers; got {line!r}", path, lineno) from None
    if not (0 <= count <= MAX_COUNT and 0 <= value <= MAX_VALUE):
        raise DataError(f"count must be 0..{MAX_COUNT} and value 0..{MAX_VALUE}; got {line!r}", path, lineno)
    return cols[0].strip(), count, value, len(cols) > 3 and cols[3].strip() not in ("", "0")


def read_tile_set(path: str | Path, name: str | None = None) -> TileSet:
    """Read a tile-set file (format in the module docstring).

    Raises:
        DataError: missing header, bad numbers, duplicate letters (with file and line).
    """
    path = Path(path)
    try:
        text = nfc(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataError(f"cannot read tile set: {exc.strerror}", path) from exc
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 (byte {exc.object[exc.start]:#04x}); tile sets are UTF-8 text", path) from None
    source = ""
    letters: list[str] = []
    counts: dict[str, int] = {}
    values: dict[str, int] = {}
    vowels: set[str] = set()
    blanks = 0
    header_seen = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        if line.startswith("#"):
            if line[1:].strip().lower().startswith("source:"):
                source = line[1:].strip()[len("source:") :].strip()
            continue
        cols = line.split("\t")
        if not header_seen:
            if [c.strip().lower() for c in cols[:3]] != ["letter", "count", "value"]:
                raise DataError("expected the header 'letter<TAB>count<TAB>value<TAB>vowel'", path, lineno)
            header_seen = True
            continue
        label, count, value, vowel = _tile_row(cols, line, path, lineno)
        if label == BLANK:
            blanks += count
            continue
        if not label or label != label.upper() or any(c in label for c in "[].?"):
            raise DataError(f"a tile label must be uppercase text without [ ] . ?; got {label!r}", path, lineno)
        if label in values:
            raise DataError(f"letter {label!r} listed twice", path, lineno)
        letters.append(label)
        counts[label] = count
        values[label] = value
        if vowel:
            vowels.add(label)
    if not header_seen or not letters:
        raise DataError("no tiles in tile set file", path)
    return TileSet(
        name=name or path.stem,
        letters=tuple(letters),
        counts=counts,
        values=values,
        vowels=frozenset(vowels),
        blanks=blanks,
        source=source,
    )


@lru_cache(maxsize=None)
def load_tile_set(name_or_path: str) -> TileSet:
    """A tile set by name (a file in ``gamecore/data/tile_sets``) or by the path of a file.

    Raises:
        UsageError: unknown name (listing the known ones). DataError: a malformed file.
    """
    p = Path(name_or_path)
    if p.suffix == ".tsv" and p.is_file():
        return read_tile_set(p)
    candidate = DATA_DIR / f"{name_or_path}.tsv"
    if candidate.is_file():
        return read_tile_set(candidate)
    raise UsageError(f"unknown tile set {name_or_path!r}; known: {', '.join(tile_set_names())} (or a .tsv path)")
