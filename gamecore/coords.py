"""Board coordinates: GCG (``8D`` across, ``D8`` down) and Netskrafl's reversed form.

All functions use 0-based (row, col) and ``across: bool``.

- GCG (docs/GCG.md §4): number first = across (``8D`` = row 8 from column D), letter first = down
  (``D8`` = column D from row 8). Rows 1.., columns A.. (A–O on 15×15, A–U on 21×21). Case-insensitive.
- Netskrafl (docs/NETSKRAFL.md §1): rows are letters A–O, columns numbers 1–15; letter first =
  across (``H4`` = row H, column 4, going right), number first = down (``9H`` = column 9 from row H).
"""

from __future__ import annotations

import re

from gamecore.errors import SkraflError

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_NUM_FIRST = re.compile(r"^\s*([0-9]{1,2})([A-Za-z])\s*$")  # ASCII digits only
_LET_FIRST = re.compile(r"^\s*([A-Za-z])([0-9]{1,2})\s*$")


class CoordinateError(SkraflError):
    """A coordinate that cannot be read, or lies off the board."""


def _check(row: int, col: int, size: int, text: str) -> None:
    if not (0 <= row < size and 0 <= col < size):
        raise CoordinateError(f"coordinate {text!r} is off the {size}×{size} board")


def parse_gcg(text: str, size: int = 15) -> tuple[int, int, bool]:
    """``8D`` → (7, 3, True); ``D8`` → (7, 3, False).

    Raises:
        CoordinateError: not a coordinate, or off the board.
    """
    m = _NUM_FIRST.match(text)
    if m:
        row, col, across = int(m.group(1)) - 1, LETTERS.index(m.group(2).upper()), True
    else:
        m = _LET_FIRST.match(text)
        if not m:
            raise CoordinateError(f"not a GCG coordinate: {text!r} (expected e.g. 8D across or D8 down)")
        row, col, across = int(m.group(2)) - 1, LETTERS.index(m.group(1).upper()), False
    _check(row, col, size, text)
    return row, col, across


def format_gcg(row: int, col: int, across: bool) -> str:
    """(7, 3, True) → ``8D``; (7, 3, False) → ``D8``."""
    return f"{row + 1}{LETTERS[col]}" if across else f"{LETTERS[col]}{row + 1}"


def parse_netskrafl(text: str, size: int = 15) -> tuple[int, int, bool]:
    """Netskrafl: ``H4`` → (7, 3, True) (row H, column 4, across); ``9H`` → (7, 8, False).

    Raises:
        CoordinateError: not a coordinate, or off the board.
    """
    m = _LET_FIRST.match(text)
    if m:
        row, col, across = LETTERS.index(m.group(1).upper()), int(m.group(2)) - 1, True
    else:
        m = _NUM_FIRST.match(text)
        if not m:
            raise CoordinateError(f"not a Netskrafl coordinate: {text!r} (expected e.g. H4 across or 4H down)")
        row, col, across = LETTERS.index(m.group(2).upper()), int(m.group(1)) - 1, False
    _check(row, col, size, text)
    return row, col, across


def format_netskrafl(row: int, col: int, across: bool) -> str:
    """(7, 3, True) → ``H4``; (7, 8, False) → ``9H``."""
    return f"{LETTERS[row]}{col + 1}" if across else f"{col + 1}{LETTERS[row]}"


def gcg_to_netskrafl(text: str, size: int = 15) -> str:
    return format_netskrafl(*parse_gcg(text, size))


def netskrafl_to_gcg(text: str, size: int = 15) -> str:
    return format_gcg(*parse_netskrafl(text, size))
