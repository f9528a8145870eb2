"""Board layouts: size, premium squares and start square, loaded from data files by name.

Layout files (``gamecore/data/boards/<name>.txt``; copied from the engines' layout files, each named on its ``# source:`` line) use
the macondo/MAGPIE picture format: ``#`` comment lines (one ``# start square: H8`` line, one
``# source:`` line) and one ``|...|`` line per row with a symbol per square:
``=`` TW, ``-`` DW, ``"`` TL, ``'`` DL, ``~`` 4×W, ``^`` 4×L, ``X`` punctured (no tile), space plain.
A user adds a layout by dropping a file in that folder, or names a file path.

Shipped: ``standard`` (15×15, H8), ``explo`` (Netskrafl, D4), ``super`` (21×21, K11, 4× squares),
``erudit`` (plain centre; medium-low confidence, see the file header). Any square size up to
26×26 may be given as a file (the Slovenian Scrabble article's Križemkražem: 17×17, its layout not published; its black
squares as ``X``). Rectangular boards (the Russian Scrabble article's 12×16 "Etsi sana") are refused: positions, plays
and coordinates use one size.

``tilfeldig:N:SEED`` (Ordspill.no "Tilfeldig", the Ordspill.no rules): a 15×15 board with N premium squares
placed at random, reproducible from SEED; see :func:`random_layout`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from gamecore.errors import DataError, UsageError

DATA_DIR = Path(__file__).resolve().parent / "data" / "boards"

#: symbol → (letter multiplier, word multiplier); "X" is handled apart (punctured square).
SYMBOLS = {
    " ": (1, 1),
    "'": (2, 1),
    '"': (3, 1),
    "^": (4, 1),
    "-": (1, 2),
    "=": (1, 3),
    "~": (1, 4),
}
_PREMIUM_NAMES = {(2, 1): "DL", (3, 1): "TL", (4, 1): "QL", (1, 2): "DW", (1, 3): "TW", (1, 4): "QW"}


def column_letters(size: int) -> str:
    return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:size]


@dataclass(frozen=True)
class BoardLayout:
    """A board's geometry.

    Attributes:
        name: layout name.
        size: squares per side (15, 17, 21…; square boards only).
        letter_mult: ``letter_mult[row][col]`` ∈ {1, 2, 3, 4} (0-based row and column).
        word_mult: ``word_mult[row][col]`` ∈ {1, 2, 3, 4}.
        start: (row, col) of the start square, 0-based (H8 → (7, 7)).
        blocked: punctured squares (no tile may go there).
        source: the file's ``# source:`` line.
    """

    name: str
    size: int
    letter_mult: tuple[tuple[int, ...], ...]
    word_mult: tuple[tuple[int, ...], ...]
    start: tuple[int, int]
    blocked: frozenset[tuple[int, int]] = frozenset()
    source: str = ""

    def premium(self, row: int, col: int) -> str:
        """``DL``, ``TL``, ``QL``, ``DW``, ``TW``, ``QW``, ``X`` (punctured) or ``""`` for a plain square."""
        if (row, col) in self.blocked:
            return "X"
        return _PREMIUM_NAMES.get((self.letter_mult[row][col], self.word_mult[row][col]), "")

    def start_coord(self) -> str:
        r, c = self.start
        return f"{column_letters(self.size)[c]}{r + 1}"

    def to_text(self) -> str:
        """The layout in the picture format of the data files (readable by :func:`read_layout`)."""
        inv = {v: k for k, v in SYMBOLS.items()}
        lines = [f"# {self.name}", f"# start square: {self.start_coord()}"]
        if self.source:
            lines.append(f"# source: {self.source}")
        for r in range(self.size):
            row = "".join(
                "X" if (r, c) in self.blocked else inv[(self.letter_mult[r][c], self.word_mult[r][c])] for c in range(self.size)
            )
            lines.append(f"|{row}|")
        return "\n".join(lines) + "\n"


_START_RE = re.compile(r"start square:\s*([A-Za-z])(\d+)")


def parse_layout(text: str, name: str, path: str | Path | None = None) -> BoardLayout:
    """Parse the picture format (module docstring).

    Raises:
        DataError: rows of different lengths, not square, unknown symbol, missing start square.
    """
    start = None
    source = ""
    rows: list[str] = []
    row_lines: list[int] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        if line.startswith("#"):
            m = _START_RE.search(line)
            if m and start is None:
                start = (int(m.group(2)) - 1, ord(m.group(1).upper()) - ord("A"))
            body = line[1:].strip()
            if body.lower().startswith("source:"):
                source = body[len("source:") :].strip()
            continue
        if not (line.startswith("|") and line.endswith("|") and len(line) >= 2):
            raise DataError(f"a board row must look like |...|; got {line!r}", path, lineno)
        inner = line[1:-1]
        for ch in inner:
            if ch not in SYMBOLS and ch != "X":
                raise DataError(f"unknown square symbol {ch!r} (known: = - \" ' ~ ^ X and space)", path, lineno)
        if rows and len(inner) != len(rows[0]):
            raise DataError(f"row has {len(inner)} squares, the first row has {len(rows[0])}", path, lineno)
        rows.append(inner)
        row_lines.append(lineno)
    if not rows:
        raise DataError("no board rows", path)
    size = len(rows)
    if len(rows[0]) != size:
        raise DataError(
            f"board must be square: {size} rows of {len(rows[0])} squares (rectangular boards, such as the Russian Scrabble article's "
            f'12×16 "Etsi sana", are not supported: positions, plays and coordinates use one size)',
            path,
        )
    if size > 26:
        raise DataError(f"board has {size} rows: at most 26 (columns are lettered A to Z)", path)
    if start is None:
        raise DataError("missing '# start square: H8' line", path)
    if not (0 <= start[0] < size and 0 <= start[1] < size):
        raise DataError(f"start square outside the {size}×{size} board", path)
    lm = tuple(tuple(SYMBOLS.get(ch, (1, 1))[0] for ch in row) for row in rows)
    wm = tuple(tuple(SYMBOLS.get(ch, (1, 1))[1] for ch in row) for row in rows)
    blocked = frozenset((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "X")
    return BoardLayout(name=name, size=size, letter_mult=lm, word_mult=wm, start=start, blocked=blocked, source=source)


def read_layout(path: str | Path) -> BoardLayout:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(f"cannot read board layout: {exc.strerror}", path) from exc
    return parse_layout(text, path.stem, path)


def layout_names() -> list[str]:
    """Names of the shipped layouts (plus the ``tilfeldig:N:SEED`` family)."""
    return sorted(p.stem for p in DATA_DIR.glob("*.txt"))


#: Premium kinds drawn by :func:`random_layout`, weighted as on the standard board (24 DL, 12 TL,
#: 16 DW besides the centre, 8 TW).
_RANDOM_KINDS = (((2, 1), 24), ((3, 1), 12), ((1, 2), 16), ((1, 3), 8))


def random_layout(n_premiums: int, seed: int, size: int = 15) -> BoardLayout:
    """Ordspill's "Tilfeldig" board (the Ordspill.no rules; its exact generator is not published): ``n_premiums``
    distinct squares other than the centre start square get a premium; squares are drawn uniformly
    and kinds with the standard board's weights (DL 24 : TL 12 : DW 16 : TW 8), all from
    ``random.Random(seed)``, so the same (N, seed) always gives the same board. The centre start
    square is a double word, as on every Ordspill board (the Ordspill.no rules: "Denne ruten gir det første ordet
    dobbelt ordpoeng"), and is not one of the N.

    Raises:
        UsageError: N negative or larger than the squares available.
    """
    import random

    centre = (size // 2, size // 2)
    squares = [(r, c) for r in range(size) for c in range(size) if (r, c) != centre]
    if not 0 <= n_premiums <= len(squares):
        raise UsageError(f"tilfeldig: number of premium squares must be 0..{len(squares)}; got {n_premiums}")
    rng = random.Random(seed)
    chosen = rng.sample(squares, n_premiums)
    kinds = [k for k, _ in _RANDOM_KINDS]
    weights = [w for _, w in _RANDOM_KINDS]
    lm = [[1] * size for _ in range(size)]
    wm = [[1] * size for _ in range(size)]
    for r, c in chosen:
        l_mult, w_mult = rng.choices(kinds, weights)[0]
        lm[r][c] = l_mult
        wm[r][c] = w_mult
    wm[centre[0]][centre[1]] = 2  # the first word is doubled (drawn after the others: same squares as before)
    return BoardLayout(
        name=f"tilfeldig:{n_premiums}:{seed}",
        size=size,
        letter_mult=tuple(map(tuple, lm)),
        word_mult=tuple(map(tuple, wm)),
        start=centre,
        source="random (Ordspill.no Tilfeldig, the Ordspill.no rules); generator: gamecore.boards.random_layout",
    )


@lru_cache(maxsize=None)
def load_layout(name_or_path: str) -> BoardLayout:
    """A layout by name (``standard``, ``explo``, ``super``, ``erudit``, a file dropped in
    ``gamecore/data/boards``), ``tilfeldig:N:SEED``, or the path of a layout file.

    Raises:
        UsageError: unknown name (listing the known ones). DataError: a malformed file.
    """
    if name_or_path.lower().startswith("tilfeldig"):
        parts = name_or_path.split(":")
        try:
            n = int(parts[1]) if len(parts) > 1 else 61
            seed = int(parts[2]) if len(parts) > 2 else 0
        except ValueError:
            raise UsageError(f"tilfeldig board: expected tilfeldig:N:SEED; got {name_or_path!r}") from None
        return random_layout(n, seed)
    p = Path(name_or_path)
    if p.suffix == ".txt" and p.is_file():
        return read_layout(p)
    candidate = DATA_DIR / f"{name_or_path}.txt"
    if candidate.is_file():
        return read_layout(candidate)
    raise UsageError(
        f"unknown board layout {name_or_path!r}; known: {', '.join(layout_names())}, tilfeldig:N:SEED (or a .txt path)"
    )
