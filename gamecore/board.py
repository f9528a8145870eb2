"""A board position: a layout plus the tiles on it (labels with a blank flag).

Text formats (one line per row, one character per square, ``.`` empty; a multi-letter tile may be
written ``[CH]``):

- ``gcg`` (GCG convention, as in macondo's and MAGPIE's positions): uppercase = tile, lowercase = blank.
- ``netskrafl`` (docs/NETSKRAFL.md §3): lowercase = tile, uppercase = blank.
- ``cgp`` (docs/GCG.md §7, macondo/MAGPIE): ``rows/… racks scores zeros [ops]``; rows separated by ``/``,
  digits = runs of empty squares, lowercase = blank, ``[..]`` multi-letter tiles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from gamecore.boards import BoardLayout
from gamecore.errors import DataError, SkraflError
from gamecore.text import INT32_MAX, INT32_MIN, nfc, strip_bom
from gamecore.tilesets import TileSet

BOARD_FORMATS = ("gcg", "netskrafl", "cgp")


class Tile(NamedTuple):
    """A tile on the board: its letter label (uppercase) and whether it is a blank standing for it."""

    label: str
    blank: bool = False


class Board:
    """Tiles on a layout. ``board[r, c]`` is a :class:`Tile` or ``None`` (0-based row, column).

    Attributes:
        layout: the :class:`gamecore.boards.BoardLayout`.
        tile_set: the :class:`gamecore.tilesets.TileSet` whose letters may appear.
    """

    def __init__(self, layout: BoardLayout, tile_set: TileSet):
        self.layout = layout
        self.tile_set = tile_set
        self.size = layout.size
        self.squares: list[list[Tile | None]] = [[None] * self.size for _ in range(self.size)]

    def __getitem__(self, rc: tuple[int, int]) -> Tile | None:
        return self.squares[rc[0]][rc[1]]

    def place(self, row: int, col: int, label: str, blank: bool = False) -> None:
        self.squares[row][col] = tuple.__new__(Tile, (label, blank))  # Tile(label, blank), without its Python-level __new__

    def copy(self) -> "Board":
        b = Board(self.layout, self.tile_set)
        b.squares = [list(r) for r in self.squares]
        return b

    def is_empty(self) -> bool:
        return not any(map(any, self.squares))  # a Tile is a non-empty tuple, hence true

    def tile_count(self) -> int:
        return sum(t is not None for row in self.squares for t in row)

    def in_bounds(self, row: int, col: int) -> bool:
        return 0 <= row < self.size and 0 <= col < self.size

    def occupied(self, row: int, col: int) -> bool:
        return 0 <= row < self.size and 0 <= col < self.size and self.squares[row][col] is not None

    def used_counts(self) -> dict[str, int]:
        """Tiles on the board per label, ``?`` counting blanks."""
        out: dict[str, int] = {}
        for row in self.squares:
            for t in row:
                if t is not None:
                    k = "?" if t.blank else t.label
                    out[k] = out.get(k, 0) + 1
        return out

    def tile_set_excess(self) -> tuple[str, int, int, int] | None:
        """The first tile the board holds more of than its tile set has, as ``(label, count, have,
        row)`` (``?`` for blanks, counted apart from real tiles: a blank Z is no Z; ``row`` the
        0-based row of the first tile past the set's count, in reading order), or None when every
        tile fits: a position no game can reach (three real Zs in English, which has one)."""
        ts = self.tile_set
        counts = self.used_counts()
        over = {k for k, n in counts.items() if n > (ts.blanks if k == "?" else ts.counts.get(k, 0))}
        if not over:
            return None
        seen: dict[str, int] = {}
        for r, row in enumerate(self.squares):
            for t in row:
                if t is None:
                    continue
                k = "?" if t.blank else t.label
                seen[k] = seen.get(k, 0) + 1
                have = ts.blanks if k == "?" else ts.counts.get(k, 0)
                if k in over and seen[k] == have + 1:
                    return k, counts[k], have, r
        raise AssertionError("unreachable")  # pragma: no cover

    def check_tile_set(self, path: str | Path | None = None, line: int | None = None) -> None:
        """Refuse a board that holds more of a tile than its tile set has (blanks against the
        set's blanks): README's rule that the board's tiles must fit the tile set.

        Raises:
            DataError: ``the board holds 3 × 'Z', but tile set english has only 1`` (with ``path``
                and ``line``; a board given as rows, ``line`` None: the row of the first tile too many).
        """
        excess = self.tile_set_excess()
        if excess is None:
            return
        label, n, have, row = excess
        name = f"{n} blanks" if label == "?" else f"{n} × {label!r}"
        raise DataError(
            f"the board holds {name}, but tile set {self.tile_set.name} has only {have}",
            path,
            line,
        )

    # ---- writers -------------------------------------------------------------------------------
    def _square_text(self, t: Tile | None, fmt: str) -> str:
        if t is None:
            return "."
        lower = t.blank if fmt == "gcg" else not t.blank
        s = t.label.lower() if lower else t.label
        return f"[{s}]" if len(t.label) > 1 else s

    def to_text(self, fmt: str = "gcg") -> str:
        """The board as text lines (``gcg`` or ``netskrafl`` convention), newline-terminated."""
        if fmt not in ("gcg", "netskrafl"):
            raise SkraflError(f"board text format must be gcg or netskrafl; got {fmt!r}")
        return "".join("".join(self._square_text(t, fmt) for t in row) + "\n" for row in self.squares)

    def cgp_rows(self) -> str:
        parts = []
        for row in self.squares:
            s, run = "", 0
            for t in row:
                if t is None:
                    run += 1
                    continue
                if run:
                    s += str(run)
                    run = 0
                s += self._square_text(t, "gcg")
            if run:
                s += str(run)
            parts.append(s)
        return "/".join(parts)

    def __str__(self) -> str:
        return self.to_text("gcg")


def _tokens(line: str) -> list[str]:
    out, i = [], 0
    while i < len(line):
        if line[i] == "[":
            j = line.find("]", i)
            if j < 0:
                out.append(line[i:])
                break
            out.append(line[i + 1 : j])
            i = j + 1
        else:
            out.append(line[i])
            i += 1
    return out


def _tile_from_token(tok: str, fmt: str, tile_set: TileSet) -> Tile | None:
    """None if ``tok`` is no letter of the set; raises nothing."""
    up = tok.upper()
    if not tile_set.has(up):
        return None
    is_lower = tok != up
    if tok.lower() == up:  # caseless script: treat as a plain tile
        is_lower = fmt == "netskrafl"
    blank = is_lower if fmt in ("gcg", "cgp") else not is_lower
    return Tile(up, blank)


def parse_board_text(
    text: str, tile_set: TileSet, layout: BoardLayout, fmt: str = "gcg", path: str | Path | None = None
) -> Board:
    """Read a board from text lines (``gcg`` or ``netskrafl`` convention; ``cgp`` also accepted).

    Raises:
        DataError: wrong number of rows or squares, an unknown letter for the tile set (with path and line).
    """
    text = strip_bom(nfc(text))  # a file's leading byte-order mark is no square
    if fmt == "cgp":
        return parse_cgp(text.strip(), tile_set, layout, path=path).board
    if fmt not in ("gcg", "netskrafl"):
        raise DataError(f"unknown board format {fmt!r}; known: {', '.join(BOARD_FORMATS)}", path)
    board = Board(layout, tile_set)
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    size = layout.size
    if len(lines) != size:
        raise DataError(
            f"board has {len(lines)} lines, expected {size} lines of {size} squares ({layout.name} board)",
            path,
            min(len(lines), size + 1) or None,
        )
    for r, line in enumerate(lines):
        toks = _tokens(line.rstrip("\r\n"))
        if len(toks) != size:
            raise DataError(f"row {r + 1} has {len(toks)} squares, expected {size}", path, r + 1)
        for c, tok in enumerate(toks):
            if tok == ".":
                continue
            tile = _tile_from_token(tok, fmt, tile_set)
            if tile is None:
                raise DataError(
                    f"unknown letter {tok!r} at column {c + 1} for tile set {tile_set.name} "
                    f"(expected '.' or one of {''.join(tile_set.letters)})",
                    path,
                    r + 1,
                )
            board.squares[r][c] = tile
    excess = board.tile_set_excess()
    if excess is not None:  # the row of the first tile too many
        board.check_tile_set(path, excess[3] + 1)
    return board


def read_board(path: str | Path, tile_set: TileSet, layout: BoardLayout, fmt: str = "gcg") -> Board:
    """Read a board file (see :func:`parse_board_text`; at most 1 MiB, :func:`gamecore.text.read_board_text`).
    Raises DataError (file, line)."""
    from gamecore.text import read_board_text

    path = Path(path)
    return parse_board_text(read_board_text(path), tile_set, layout, fmt, path)


@dataclass
class CGPPosition:
    """A CGP position (docs/GCG.md §7): board, racks of the player on turn and the opponent (``?`` =
    blank), the two scores, consecutive scoreless turns, and the ops (``lex``, ``ld``, ``bdn``, ...)."""

    board: Board
    racks: tuple[list[str], list[str]] = ([], [])
    scores: tuple[int, int] = (0, 0)
    zeros: int = 0
    ops: dict[str, str] = field(default_factory=dict)

    def to_cgp(self) -> str:
        ts = self.board.tile_set
        racks = "/".join("".join("?" if t == "?" else ts.format_tile(t) for t in r) for r in self.racks)
        s = f"{self.board.cgp_rows()} {racks} {self.scores[0]}/{self.scores[1]} {self.zeros}"
        if self.ops:
            s += " " + " ".join(f"{k} {v};" for k, v in self.ops.items())
        return s


_CGP_ROW = re.compile(r"[0-9]+|\[[^\]]*\]|.")


def parse_cgp(text: str, tile_set: TileSet, layout: BoardLayout, path: str | Path | None = None) -> CGPPosition:
    """Read a CGP string (docs/GCG.md §7), e.g. ``15/…/6ZA7/… AENNRST/ 0/22 0 lex CSW21;``.

    ``text`` is one line (blank lines around it allowed: a CGP board file); with ``path`` an error
    names that line (``FILE:LINE: …``).

    Raises:
        DataError: a second line (a board of one row per line is a gcg or netskrafl board), wrong
            number of rows or squares, unknown letters, malformed fields.
    """
    text = strip_bom(nfc(text))  # a file's leading byte-order mark is no square
    lines = [n for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if len(lines) > 1:
        raise DataError(
            f"a CGP string is one line (rows separated by '/', then racks, scores, zeros); this has {len(lines)} "
            "lines: a board of one row per line is --board-format gcg or netskrafl",
            path,
            lines[1] if path is not None else None,
        )
    try:
        return _parse_cgp_line(text, tile_set, layout, path)
    except DataError as exc:
        if path is not None and exc.line is None and lines:
            exc.line = lines[0]
        raise


def _parse_cgp_line(text: str, tile_set: TileSet, layout: BoardLayout, path: str | Path | None) -> CGPPosition:
    parts = text.split(None, 4)
    if not parts:
        raise DataError("empty CGP string: expected rows separated by '/', then racks, scores, zeros", path)
    board = _cgp_board(parts[0], tile_set, layout, path)
    racks = _cgp_racks(parts[1], tile_set, path) if len(parts) > 1 else ([], [])
    scores = _cgp_scores(parts[2], path) if len(parts) > 2 else (0, 0)
    zeros = _cgp_zeros(parts[3], path) if len(parts) > 3 else 0
    ops: dict[str, str] = {}
    if len(parts) > 4:
        for op in parts[4].split(";"):
            op = op.strip()
            if op:
                k, _, v = op.partition(" ")
                ops[k] = v.strip()
    board.check_tile_set(path)  # parse_cgp names the CGP's line of a file
    return CGPPosition(board, racks, scores, zeros, ops)


def _cgp_board(field: str, tile_set: TileSet, layout: BoardLayout, path: str | Path | None) -> Board:
    """A CGP's board field: ``size`` rows separated by ``/``, each of tiles and runs of empty squares."""
    rows = field.split("/")
    size = layout.size
    if len(rows) != size:
        raise DataError(f"CGP board has {len(rows)} rows, expected {size} rows separated by '/'", path)
    board = Board(layout, tile_set)
    for r, row in enumerate(rows):
        c = 0
        for tok in _CGP_ROW.findall(row):
            if "0" <= tok[0] <= "9":  # a run of empty squares (ASCII digits only)
                c += int(tok) if len(tok) <= 4 else size + 1
                if c > size:
                    raise DataError(f"CGP row {r + 1} has more than {size} squares", path)
                continue
            label = tok[1:-1] if tok.startswith("[") else tok
            tile = _tile_from_token(label, "cgp", tile_set)
            if tile is None:
                raise DataError(f"CGP row {r + 1}: unknown letter {label!r} for tile set {tile_set.name}", path)
            if c >= size:
                raise DataError(f"CGP row {r + 1} has more than {size} squares", path)
            board.squares[r][c] = tile
            c += 1
        if c != size:
            raise DataError(f"CGP row {r + 1} has {c} squares, expected {size}", path)
    return board


def _cgp_racks(field: str, tile_set: TileSet, path: str | Path | None) -> tuple[list[str], list[str]]:
    """A CGP's racks field: ``RACK`` or ``RACK/RACK`` (the side on turn's first)."""
    rk = field.split("/")
    if len(rk) > 2:
        raise DataError(f"CGP racks must be RACK/RACK; got {field!r}", path)
    try:
        first, second = (tile_set.parse_rack(x, check_counts=False) for x in rk + [""] * (2 - len(rk)))
    except SkraflError as exc:
        raise DataError(f"CGP rack: {exc.message}", path) from None
    return first, second


def _cgp_scores(field: str, path: str | Path | None) -> tuple[int, int]:
    """A CGP's scores field: ``N/N``, each a 32-bit integer."""
    try:
        a, b = field.split("/")
        scores = (_cgp_int(a), _cgp_int(b))
    except ValueError:
        raise DataError(f"CGP scores must be N/N; got {field!r}", path) from None
    if not all(INT32_MIN <= x <= INT32_MAX for x in scores):
        raise DataError(f"CGP scores must lie in {INT32_MIN}..{INT32_MAX}; got {field!r}", path)
    return scores


def _cgp_zeros(field: str, path: str | Path | None) -> int:
    """A CGP's scoreless-turn count: 0 to 1000."""
    try:
        zeros = _cgp_int(field)
    except ValueError:
        raise DataError(f"CGP scoreless-turn count must be a number; got {field!r}", path) from None
    if not 0 <= zeros <= 1000:
        raise DataError(f"CGP scoreless-turn count must be 0..1000; got {field!r}", path)
    return zeros


def _cgp_int(text: str) -> int:
    """A CGP number: optional ``-``, then ASCII digits (at most 12). Raises ValueError otherwise."""
    digits = text[1:] if text.startswith("-") else text
    if not (0 < len(digits) <= 12 and digits.isascii() and digits.isdigit()):
        raise ValueError(text)
    return int(text)
