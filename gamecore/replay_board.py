"""Boards for replaying game logs: play a recorded play, get its score and words, take it back.

A replay checks thousands of recorded plays, each already written as a start square, a direction
and one token per square (GCG words, docs/GCG.md §4–5: ``.`` for a tile on the board, lowercase for a
blank, ``[..]`` for a multi-letter tile). Two boards do this with one interface:

- :class:`CompiledBoard` checks and scores in C (:mod:`gamecore._scorer`, written apart from both
  the oracle and the move generator). For an illegal play it asks the oracle for the reason, so the
  error is the oracle's, word for word.
- :class:`OracleBoard` does the same in Python with :mod:`gamecore.play` (the independent
  validator); :func:`replay_board` falls back to it where the compiled board has no room (a board
  wider than 32 squares, more than 62 letters, a label longer than 6 characters, a letter worth
  more than 1,000 points, word premiums multiplying to more than 4,096 along a line), and
  ``tests/test_replay_board.py`` compares the two on random positions.

Both follow docs/RULES.md §2 (see :mod:`gamecore.play` for the rules and their sources).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from gamecore.board import Board
from gamecore.play import IllegalPlay, Placement, validate_placements

PlayResult = tuple  # (score, used, words, main_text): see CompiledBoard.play

_BLANK, _UNKNOWN = 0x40, 63  # byte codes of gamecore._scorer
_MAX_SIZE, _MAX_LETTERS, _MAX_TEXT = 32, 62, 8


def _square(r: int, c: int) -> str:
    from gamecore.gcg import column_letters

    return f"{r + 1}{column_letters(c)}"  # GCG's square names: row, then column (gamecore.play.square_name)


def token_tile(tok: str) -> tuple[str, bool]:
    """The tile-set label and blank flag of a tile token of a GCG word (docs/GCG.md §5): lowercase is a
    blank, ``[..]`` a multi-letter tile (``e`` → ``("E", True)``, ``[CH]`` → ``("CH", False)``)."""
    up = tok.upper()
    return (up[1:-1] if up.startswith("[") else up), tok != up


def tile_placements(
    board: Board, row: int, col: int, across: bool, tokens: Sequence[str], through: Sequence[int] = ()
) -> list[Placement]:
    """The new tiles of a play written as tokens from ``(row, col)`` (0-based) in one direction.

    A square already occupied must hold the token's letter (``.`` stands for any; docs/GCG.md §5), a token
    whose index is in ``through`` (written in parentheses) must be on an occupied square, and the
    word must not continue into tiles beyond its ends (the checks of
    :func:`gamecore.play.parse_play`, on tokens instead of text).

    Raises:
        IllegalPlay: ``off_board``, ``empty_through``, ``mismatch``, ``unknown_letter``,
        ``not_whole_word``.
    """
    squares, size, ts = board.squares, board.size, board.tile_set
    dr, dc = (0, 1) if across else (1, 0)
    r, c = row, col
    on_board = min(len(tokens), size - (c if across else r)) if (0 <= r < size and 0 <= c < size) else 0
    out = []
    for i, tok in enumerate(tokens):
        if i == on_board:
            raise IllegalPlay("off_board", f"the word runs off the {size}x{size} board")
        existing = squares[r][c]
        if tok == ".":
            if existing is None:
                raise IllegalPlay("empty_through", f"'.' at {_square(r, c)} marks a board tile, but the square is empty")
        else:
            label, blank = token_tile(tok)
            if existing is not None:
                if existing.label != label:
                    raise IllegalPlay("mismatch", f"square {_square(r, c)} holds {existing.label}, not {label}")
            elif i in through:
                raise IllegalPlay("empty_through", f"({tok}) at {_square(r, c)} marks a board tile, but the square is empty")
            elif not ts.has(label):
                raise IllegalPlay("unknown_letter", f"{tok!r} is not a letter of tile set {ts.name}")
            else:
                out.append(Placement(r, c, label, blank))
        r, c = r + dr, c + dc
    if board.occupied(row - dr, col - dc) or board.occupied(r, c):
        raise IllegalPlay("not_whole_word", "the word continues into tiles on the board; give the whole word")
    return out


class OracleBoard:
    """A replay board in Python over :mod:`gamecore.play` (the oracle). See :class:`CompiledBoard`."""

    def __init__(self, rules):
        self.rules = rules
        self.tile_set, self.layout = rules.tiles(), rules.layout()
        self._board = Board(self.layout, self.tile_set)
        self._last: list[Placement] = []

    def play(self, row: int, col: int, across: bool, tokens: Sequence[str], through: Sequence[int] = ()) -> PlayResult:
        board = self._board
        placements = tile_placements(board, row, col, across, tokens, through)
        sp = validate_placements(board, placements, None, None, self.rules, across=across)
        for p in placements:
            board.place(p.row, p.col, p.label, p.blank)
        self._last = placements
        return sp.score, ["?" if p.blank else p.label for p in placements], sp.words, sp.word_text(".")

    def undo(self) -> None:
        for p in self._last:
            self._board.squares[p.row][p.col] = None
        self._last = []

    def position(self) -> Board:
        return self._board.copy()


class CompiledBoard:
    """A replay board checked and scored in C (:mod:`gamecore._scorer`).

    Args:
        rules: a :class:`gamecore.rules.RuleSet` (tile set, board layout, bingo, blank value, word
            premiums).
    Attributes:
        rules, tile_set, layout: the rule set, its tile set and its board layout.
    Raises:
        ValueError, OverflowError: the layout, tile set or rules do not fit the compiled board (see
        :func:`replay_board`).
    """

    def __init__(self, rules):
        self.rules = rules
        empty, self.tile_set, self.layout = _compiled_spec(rules)
        self._sb = empty.copy()

    def play(self, row: int, col: int, across: bool, tokens: Sequence[str], through: Sequence[int] = ()) -> PlayResult:
        """Check, score and place a play.

        Args:
            row, col: the start square (0-based); ``across``: the direction.
            tokens: one tile token per square from the start (``.``, a letter, lowercase = blank,
                a multi-letter label with or without ``[..]``).
            through: indexes of tokens written in parentheses (must be on occupied squares).
        Returns:
            ``(score, used, words, main_text)``: points (bingo bonus included), the rack tiles used
            (labels, ``?`` for a blank), every word formed in lowercase (main word first), and the
            main word in GCG notation with ``.`` for played-through tiles. The tiles are then on
            the board.
        Raises:
            IllegalPlay: as :func:`tile_placements` and :func:`gamecore.play.validate_placements`
            (the board is unchanged).
        """
        res = self._sb.play(row, col, across, tokens, through)
        if res.__class__ is int:
            self._raise_reason(row, col, across, tokens, through, res)
        return res

    def _raise_reason(self, row, col, across, tokens, through, err: int) -> None:
        board = self.position()
        placements = tile_placements(board, row, col, across, tokens, through)
        validate_placements(board, placements, None, None, self.rules, across=across)
        raise AssertionError(f"compiled scorer rejects a play the oracle accepts (code {err}): {row} {col} {across} {tokens}")

    def undo(self) -> None:
        """Take the last play's tiles off the board (a withdrawn phony)."""
        self._sb.undo()

    def codes(self) -> bytes:
        """The position as the compiled board's byte codes, row by row: 0 empty, else the letter's
        1-based index in the tile set, +0x40 for a blank (what :class:`gamecore.best.GameAnalyzer`
        reads; a copy, cheap: no Board is made)."""
        return self._sb.grid()

    def position(self) -> Board:
        """The position as a :class:`gamecore.board.Board` (for the oracle and the move generator)."""
        b = Board(self.layout, self.tile_set)
        size, letters = b.size, self.tile_set.letters
        for sq, g in enumerate(self._sb.grid()):
            if g:
                b.place(sq // size, sq % size, letters[(g & 0x3F) - 1], bool(g & _BLANK))
        return b


@lru_cache(maxsize=64)
def _compiled_spec(rules) -> tuple:
    """An empty :class:`gamecore._scorer.ScoreBoard` for a rule set, its tile set and its layout,
    made once per rule set.

    Raises:
        ValueError: the layout or tile set does not fit the compiled board."""
    from gamecore._scorer import ScoreBoard

    ts, layout = rules.tiles(), rules.layout()
    size = layout.size
    if size > _MAX_SIZE or len(ts.letters) > _MAX_LETTERS or any(len(x) + 2 > _MAX_TEXT for x in ts.letters):
        raise ValueError(f"board {layout.name} / tile set {ts.name} does not fit the compiled board")
    pad = [""] * (64 - len(ts.letters) - 1)
    rack_label = [""] * 128  # byte code (code | blank flag) -> rack tile: the label, "?" for a blank
    for i, x in enumerate(ts.letters, 1):
        rack_label[i] = x
        rack_label[i | _BLANK] = "?"
    empty = ScoreBoard(
        size,
        layout.start[0] * size + layout.start[1],
        bytes(m for row in layout.letter_mult for m in row),
        bytes(m for row in layout.word_mult for m in row),
        bytes((r, c) in layout.blocked for r in range(size) for c in range(size)),
        (0, *(ts.value(x) for x in ts.letters), *[0] * len(pad)),
        ("", *(x.lower() for x in ts.letters), *pad),
        ("", *(ts.format_tile(x) for x in ts.letters), *pad),
        ("", *(ts.format_tile(x, True) for x in ts.letters), *pad),
        rules.blank_value == "letter",
        rules.word_premiums == "add",
        rules.bingo_min_tiles,
        rules.bingo_bonus,
        _TokenCodes(ts),
        tuple(rack_label),
    )
    return empty, ts, layout


class _TokenCodes(dict):
    """Token → byte code of :mod:`gamecore._scorer` (filled on first sight of each token)."""

    def __init__(self, ts):
        super().__init__()
        self._ts = ts

    def __missing__(self, tok: str) -> int:
        if tok == ".":
            code = 0
        else:
            label, blank = token_tile(tok)
            code = (self._ts.index(label) or _UNKNOWN) | (_BLANK if blank else 0)
        self[tok] = code
        return code


def replay_board(rules) -> CompiledBoard | OracleBoard:
    """A replay board for ``rules``: the compiled one, or the oracle where it does not fit."""
    try:
        return CompiledBoard(rules)
    except (ValueError, OverflowError):
        return OracleBoard(rules)


__all__ = ["CompiledBoard", "OracleBoard", "replay_board", "tile_placements"]
