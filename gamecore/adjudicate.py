"""Adjudication: rule on one play on a board, as a tournament judge does (``skrafl score``).

Given a position, a play written in GCG notation (``8D JOINT`` across, ``H8 .A`` down, ``.`` or the
letter itself for tiles already on the board, a lowercase letter for a blank) or in Netskrafl's
coordinate order (``H4`` across = row H from column 4), an optional rack and lexicon, a
:class:`Ruling` says whether the play is legal (and if not, the validator's reason code and
sentence), every word it forms (main word first) with its score and, with a lexicon, whether it is
in the lexicon, the total (bingo bonus included) and the verdict ACCEPTABLE / UNACCEPTABLE.

Everything is decided by the oracle, :mod:`gamecore.play` (``validate_placements``): this module
adds only the per-word breakdown (each word scored by the same line reader the oracle uses, and
checked to add up to the oracle's total) and the lexicon look-ups, so ``score`` agrees with
``best`` and ``replay`` by construction. Standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from gamecore.board import Board
from gamecore.coords import LETTERS, format_gcg, format_netskrafl
from gamecore.errors import UsageError
from gamecore.play import IllegalPlay, Placement, ScoredPlay, _read_line, parse_play, validate_placements
from gamecore.text import nfc

COORDS = ("gcg", "netskrafl")

_GCG_NUM_FIRST = re.compile(r"^(\d{1,2})([A-Za-z])$")
_GCG_LET_FIRST = re.compile(r"^([A-Za-z])(\d{1,2})$")


@dataclass(frozen=True)
class WordScore:
    """One word a play forms: the lowercase word, its points and (with a lexicon) whether it is in it."""

    word: str
    score: int
    valid: bool | None = None


@dataclass
class Ruling:
    """The ruling on one play.

    Attributes:
        play: the play as written by the caller (NFC), e.g. ``8D JOINT``.
        coord: the GCG coordinate of the main word (``8D``/``D8``) when the play is legal.
        legal: whether the play may be made (rules only, words not looked up).
        reason: ``None``, or ``(code, sentence)`` of the first broken rule (codes of
            :data:`gamecore.play.REASONS`).
        words: every word formed, main word first (also for a play that breaks only the rack
            rule, so the judge sees what it would score).
        score: the total, bingo bonus included (``None`` when the words cannot be formed).
        bingo: whether the bingo bonus is in the score.
        verdict: ``ACCEPTABLE`` / ``UNACCEPTABLE`` with a lexicon (every word in it or not), else None.
        played: the :class:`~gamecore.play.ScoredPlay` (for pictures), or None.
    """

    play: str
    coord: str | None
    legal: bool
    reason: tuple[str, str] | None
    words: list[WordScore] = field(default_factory=list)
    score: int | None = None
    bingo: bool = False
    verdict: str | None = None
    played: ScoredPlay | None = None

    @property
    def acceptable(self) -> bool:
        """Legal, and (with a lexicon) every word in it: exit status 0 of ``skrafl score``."""
        return self.legal and self.verdict != "UNACCEPTABLE"

    def main_word(self) -> str | None:
        """The main word in GCG notation (blank lowercase, board tiles as letters), if legal."""
        return self.played.word_text() if self.played is not None else None

    def as_dict(self) -> dict:
        """The JSON object of ``skrafl score --format json`` (without ``challenge``)."""
        return {
            "play": self.play,
            "coord": self.coord,
            "word": self.main_word(),
            "legal": self.legal,
            "reason": None if self.reason is None else {"code": self.reason[0], "message": self.reason[1]},
            "words": [
                {"word": w.word, **({"valid": w.valid} if w.valid is not None else {}), "score": w.score} for w in self.words
            ],
            "score": self.score,
            "tiles_placed": self.played.tiles_placed if self.played is not None else None,
            "bingo": self.bingo,
            "verdict": self.verdict,
        }


def split_play(text: str, size: int = 15, coords: str = "gcg") -> tuple[str, str]:
    """``"8D JOINT"`` → (``"8D"``, ``"JOINT"``): the play's coordinate in GCG and its word (NFC).

    With ``coords="netskrafl"`` the coordinate is read in Netskrafl's order (``H4`` = row H from
    column 4 across; ``4H`` = column 4 from row H down) and returned in GCG. A coordinate that is
    well formed but names a square off the board is returned as is (the ruling then says
    ``off_board``).

    Raises:
        UsageError: not ``COORD WORD``, or a coordinate that is none.
        IllegalPlay: ``off_board``, a Netskrafl coordinate off the board.
    """
    if coords not in COORDS:
        raise UsageError(f"--coords must be one of {', '.join(COORDS)}; got {coords!r}")
    parts = nfc(text).split()
    if len(parts) != 2:
        raise UsageError(f"a play is COORD WORD, e.g. '8D JOINT' across or 'H8 .A' down; got {text!r}")
    coord, word = parts
    m, n = _GCG_NUM_FIRST.match(coord), _GCG_LET_FIRST.match(coord)
    if not (m or n) or not coord.isascii():
        example = (
            "H4 across or 4H down (Netskrafl: row letter first = across)" if coords == "netskrafl" else "8D across or D8 down"
        )
        raise UsageError(f"not a coordinate: {coord!r} (expected e.g. {example})")
    if coords == "netskrafl":
        # Netskrafl: letter first = row letter, across; number first = column number, down
        if n:
            row, col, across = LETTERS.index(n.group(1).upper()), int(n.group(2)) - 1, True
        else:
            row, col, across = LETTERS.index(m.group(2).upper()), int(m.group(1)) - 1, False
        if not (0 <= row < size and 0 <= col < size):
            raise IllegalPlay("off_board", f"coordinate {coord!r} is off the {size}×{size} board")
        coord = format_gcg(row, col, across)
    return coord.upper(), word


def _line_words(board: Board, sp: ScoredPlay, rules) -> list[tuple[str, int]]:
    """Every word of a legal play with its points, main word first, read and scored by the oracle's
    own line reader (:func:`gamecore.play._read_line`) in the order the oracle lists them."""
    layout, ts, size, squares = board.layout, board.tile_set, board.size, board.squares
    scoring = (
        layout.letter_mult,
        layout.word_mult,
        ts.values,
        rules is not None and rules.blank_value == "letter",
        rules is not None and rules.word_premiums == "add",
    )
    new = {(p.row, p.col): (p.label, p.blank) for p in sp.placements()}
    dr, dc = (0, 1) if sp.across else (1, 0)
    first = next((r, c) for (r, c), n in zip(sp.squares(), sp.new) if n)
    lines = [_read_line(squares, size, new, first[0], first[1], dr, dc, scoring)]
    for (r, c), is_new in zip(sp.squares(), sp.new):
        if is_new:
            line = _read_line(squares, size, new, r, c, dc, dr, scoring)
            if len(line[2]) >= 2:
                lines.append(line)
    return [(ln[4], ln[5]) for ln in lines]


def adjudicate(
    board: Board,
    play: str,
    rack: Sequence[str] | None = None,
    lexicon=None,
    rules=None,
    coords: str = "gcg",
) -> Ruling:
    """Rule on ``play`` (``"8D JOINT"``) on ``board``.

    Args:
        rack: the player's rack as labels (``?`` = blank), or None to skip the rack rule.
        lexicon: anything answering ``word in lexicon`` (a :class:`gamecore.lexicon.Lexicon`), or None.
        rules: the :class:`gamecore.rules.RuleSet` (bingo bonus, blank value, word premiums).
        coords: ``gcg`` or ``netskrafl`` (the coordinate order of ``play``).
    Returns:
        The :class:`Ruling`; an illegal play is a ruling too (``legal`` false, ``reason`` set).
    Raises:
        UsageError: ``play`` is not COORD WORD.
    """
    shown = " ".join(nfc(play).split())
    try:
        coord, word = split_play(play, board.size, coords)
    except IllegalPlay as exc:
        return Ruling(shown, None, False, (exc.code, exc.message))
    from gamecore.coords import CoordinateError

    try:
        placements, across, row, col = parse_play(board, coord, word)
        sp = _validate(board, placements, rack, rules, across, (row, col))
        reason = None
    except CoordinateError as exc:
        return Ruling(shown, None, False, ("off_board", exc.message))
    except IllegalPlay as exc:
        reason = (exc.code, exc.message)
        if exc.code != "not_on_rack":
            return Ruling(shown, None, False, reason)
        # only the rack is wrong: show what the play would form and score
        sp = _validate(board, placements, None, rules, across, (row, col))
    words = _line_words(board, sp, rules)
    bingo = rules is not None and sp.tiles_placed >= rules.bingo_min_tiles
    total = sum(s for _, s in words) + (rules.bingo_bonus if bingo else 0)
    if [w for w, _ in words] != list(sp.words) or total != sp.score:  # pragma: no cover - a bug guard
        raise AssertionError(f"word breakdown {words} does not add up to the oracle's {sp.words} = {sp.score}")
    verdict = None
    scored = []
    for w, s in words:
        valid = None if lexicon is None else (w in lexicon)
        scored.append(WordScore(w, s, valid))
    if lexicon is not None:
        verdict = "ACCEPTABLE" if all(x.valid for x in scored) else "UNACCEPTABLE"
    return Ruling(shown, sp.coord, reason is None, reason, scored, sp.score, bingo, verdict, sp)


def _validate(board: Board, placements: list[Placement], rack, rules, across: bool, start: tuple[int, int]) -> ScoredPlay:
    """The oracle's check of ``placements`` (see :func:`gamecore.play.validate_play`): the word given
    must be the whole main word from its start square."""
    sp = validate_placements(board, placements, rack, None, rules, across=across)
    if (sp.row, sp.col, sp.across) != (start[0], start[1], across) and len(placements) > 1:
        raise IllegalPlay("not_whole_word", f"the whole word starts at {sp.coord}")
    return sp


def format_coord(sp: ScoredPlay, coords: str = "gcg") -> str:
    """The main word's coordinate in GCG or Netskrafl order."""
    return format_netskrafl(sp.row, sp.col, sp.across) if coords == "netskrafl" else sp.coord


__all__ = ["COORDS", "Ruling", "WordScore", "adjudicate", "format_coord", "split_play"]
