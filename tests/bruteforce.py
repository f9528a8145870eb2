"""Slow, obviously-complete move generators for tests only, built on the independent validator.

- :func:`brute_force_moves`: every placement of rack tiles (every start square, direction, number of
  tiles, ordering of the rack, and letter for each blank), each checked by
  :func:`gamecore.play.validate_placements`. Exponential: for small boards and racks.
- :func:`word_fit_moves`: every lexicon word at every span of every line, the rack checked tile by
  tile (each way of using blanks), each checked by the validator. Complete because every legal play's
  main word is a lexicon word lying on some span; fast enough for a word list of a few thousand words
  on a 15×15 board.

Both return ``{placements: ScoredPlay}`` (a one-tile play once, whichever direction it is read in).
"""

from __future__ import annotations

from itertools import combinations, permutations, product
from typing import Iterable

from gamecore.board import Board
from gamecore.play import IllegalPlay, Placement, ScoredPlay, validate_placements


def _geometry_ok(board: Board, squares: list[tuple[int, int]]) -> bool:
    """Whether new tiles on ``squares`` could be legal by position alone (cover the start square on
    an empty board, else touch a tile)."""
    if board.is_empty():
        return board.layout.start in squares and len(squares) >= 2
    return any(board.occupied(r + a, c + b) for r, c in squares for a, b in ((0, 1), (0, -1), (1, 0), (-1, 0)))


def _empties_from(board: Board, r: int, c: int, dr: int, dc: int, k: int) -> list[tuple[int, int]] | None:
    out = []
    while len(out) < k:
        if not board.in_bounds(r, c):
            return None
        if board.squares[r][c] is None:
            if (r, c) in board.layout.blocked:
                return None
            out.append((r, c))
        r, c = r + dr, c + dc
    return out


def brute_force_moves(
    board: Board, rack: list[str], lexicon, rules, blank_letters: Iterable[str] | None = None
) -> dict[frozenset, ScoredPlay]:
    """Every legal play by trying every placement of rack tiles (see module docstring).

    Args:
        blank_letters: letters a blank may stand for (default: the whole tile set; limiting it to the
            letters of the lexicon's words loses nothing, since every new tile is in a word).
    """
    letters = list(blank_letters) if blank_letters is not None else list(board.tile_set.letters)
    found: dict[frozenset, ScoredPlay] = {}
    n = board.size
    for dr, dc in ((0, 1), (1, 0)):
        for r in range(n):
            for c in range(n):
                if board.squares[r][c] is not None:
                    continue
                for k in range(1, len(rack) + 1):
                    squares = _empties_from(board, r, c, dr, dc, k)
                    if squares is None:
                        break
                    if not _geometry_ok(board, squares):
                        continue
                    for order in set(permutations(rack, k)):
                        blank_pos = [i for i, t in enumerate(order) if t == "?"]
                        for fill in product(letters, repeat=len(blank_pos)):
                            tiles = list(order)
                            for i, letter in zip(blank_pos, fill, strict=True):
                                tiles[i] = letter
                            pl = [
                                Placement(rr, cc, t, i in blank_pos)
                                for i, ((rr, cc), t) in enumerate(zip(squares, tiles, strict=True))
                            ]
                            key = frozenset(pl)
                            if key in found:
                                continue
                            try:
                                sp = validate_placements(board, pl, rack, lexicon, rules, across=dr == 0)
                            except IllegalPlay:
                                continue
                            found[key] = sp
    return found


def word_fit_moves(board: Board, rack: list[str], words: Iterable[str], rules) -> dict[frozenset, ScoredPlay]:
    """Every legal play by fitting every word at every span (see module docstring)."""
    ts = board.tile_set
    by_len: dict[int, list[list[str]]] = {}
    for w in set(words):
        try:
            labels = [t.upper() for t in ts.split_word(w.upper())]
        except Exception:
            continue
        by_len.setdefault(len(labels), []).append(labels)
    counts: dict[str, int] = {}
    for t in rack:
        counts[t] = counts.get(t, 0) + 1
    blanks = counts.get("?", 0)
    found: dict[frozenset, ScoredPlay] = {}
    for span, empties, across in _spans(board, len(rack)):
        fixed = [(i, board.squares[r][c].label) for i, (r, c) in enumerate(span) if board.squares[r][c]]
        for w in by_len.get(len(span), ()):
            if any(w[i] != lab for i, lab in fixed):
                continue
            need: dict[str, list[int]] = {}
            for i in empties:
                need.setdefault(w[i], []).append(i)
            short = sum(max(0, len(pos) - counts.get(L, 0)) for L, pos in need.items())
            if short > blanks:
                continue
            for blank_set in _blank_choices(need, counts, blanks):
                pl = [Placement(*span[i], w[i], i in blank_set) for i in empties]
                key = frozenset(pl)
                if key not in found:
                    try:
                        found[key] = validate_placements(board, pl, rack, None, rules, across=across)
                    except IllegalPlay:
                        continue
    # word checks last (cross words): keep plays whose every word is in the list
    wordset = {w.lower() for w in words}
    return {k: v for k, v in found.items() if all(x in wordset for x in v.words)}


def _spans(board: Board, most: int):
    """Every span a word can fill: two squares or more in a line, both ways, not continued by a
    tile before or after, with one to ``most`` empty squares whose geometry a play allows:
    ``(squares, indexes of the empty ones, across)``."""
    n = board.size
    for dr, dc in ((0, 1), (1, 0)):
        for r0 in range(n):
            for c0 in range(n):
                if board.occupied(r0 - dr, c0 - dc):
                    continue  # a span starts where the previous square is empty or off the board
                for length in range(2, n + 1):
                    r1, c1 = r0 + (length - 1) * dr, c0 + (length - 1) * dc
                    if not board.in_bounds(r1, c1):
                        break
                    if board.occupied(r1 + dr, c1 + dc):
                        continue  # the word would continue
                    span = [(r0 + i * dr, c0 + i * dc) for i in range(length)]
                    empties = [i for i, (r, c) in enumerate(span) if board.squares[r][c] is None]
                    if empties and len(empties) <= most and _geometry_ok(board, [span[i] for i in empties]):
                        yield span, empties, dr == 0


def _blank_choices(need: dict[str, list[int]], counts: dict[str, int], blanks: int):
    """Each set of word positions to fill with blanks so that the rack covers the rest."""
    options = []
    for letter, pos in need.items():
        lo = max(0, len(pos) - counts.get(letter, 0))
        hi = min(len(pos), blanks)
        options.append([set(cmb) for b in range(lo, hi + 1) for cmb in combinations(pos, b)])
    for choice in product(*options):
        s = set().union(*choice) if choice else set()
        if len(s) <= blanks:
            yield s
