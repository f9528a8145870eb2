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

from gamecore.board import Board, Tile
from gamecore.coords import LETTERS, format_gcg, format_netskrafl
from gamecore.errors import SkraflError, UsageError
from gamecore.play import IllegalPlay, Placement, ScoredPlay, parse_play, read_line, validate_placements
from gamecore.text import nfc

COORDS = ("gcg", "netskrafl")

_GCG_NUM_FIRST = re.compile(r"^(\d{1,2})([A-Za-z])$")
_GCG_LET_FIRST = re.compile(r"^([A-Za-z])(\d{1,2})$")


@dataclass(frozen=True)
class WordScore:
    """One word a play forms: the lowercase word (the lexicon's key), its points, (with a lexicon)
    whether it is in it, and ``text``, the word in GCG case (uppercase tiles, a blank lowercase,
    multi-letter tiles in brackets: ``QUIZzeS``)."""

    word: str
    score: int | None
    valid: bool | None = None
    text: str | None = None


#: the verdict on a play that cannot be made (no score, no challenge)
ILLEGAL = "ILLEGAL"


@dataclass
class Ruling:
    """The ruling on one play.

    Attributes:
        play: the play as written by the caller (NFC), e.g. ``8D JOINT``.
        coord: the GCG coordinate of the main word (``8D``/``D8``) when the play is legal.
        legal: whether the play may be made (rules only, words not looked up).
        reason: ``None``, or ``(code, sentence)`` of the first broken rule (codes of
            :data:`gamecore.play.REASONS`).
        words: every word formed, main word first (also for a play that breaks only the rack or
            word-length rule, so the judge sees what it would form: its words' scores then None).
        score: the total, bingo bonus included; ``None`` for an illegal play (it cannot be made).
        bingo: whether the bingo bonus is in the score.
        verdict: ``ILLEGAL`` when the play cannot be made (whatever its words); for a legal play
            ``ACCEPTABLE`` / ``UNACCEPTABLE`` with a lexicon (every word in it or not), else None.
        played: the :class:`~gamecore.play.ScoredPlay` (for pictures), or None.
        notes: how the play was read where it differs from what was written (a folded tile: the
            Russian Ё tile taken for an Е the rack lacks, an Е written for a Ё tile on the board).
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
    notes: list[str] = field(default_factory=list)
    written: str | None = None  # the word as written in the play, when the oracle made no play of it

    @property
    def acceptable(self) -> bool:
        """Legal, and (with a lexicon) every word in it: exit status 0 of ``skrafl score``."""
        return self.legal and self.verdict != "UNACCEPTABLE"

    def main_word(self) -> str | None:
        """The main word in GCG notation (blank lowercase, board tiles as letters); for a play the
        oracle could not read on the board, the word as written; None when there is none."""
        return self.played.word_text() if self.played is not None else self.written

    def as_dict(self) -> dict:
        """The JSON object of ``skrafl score --format json`` (without ``challenge``)."""
        return {
            "play": self.play,
            "coord": self.coord,
            "word": self.main_word(),
            "legal": self.legal,
            "reason": None if self.reason is None else {"code": self.reason[0], "message": self.reason[1]},
            "words": [
                {
                    "word": (w.text or w.word).upper(),  # as the table and TSV write it
                    "gcg": w.text if w.text is not None else w.word.upper(),  # GCG case: a blank lowercase
                    **({"valid": w.valid} if w.valid is not None else {}),
                    "score": w.score,
                }
                for w in self.words
            ],
            "score": self.score,
            "tiles_placed": self.played.tiles_placed if self.played is not None else None,
            "bingo": self.bingo,
            "verdict": self.verdict,
            "notes": list(self.notes),
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
        elif m:
            row, col, across = LETTERS.index(m.group(2).upper()), int(m.group(1)) - 1, False
        if not (0 <= row < size and 0 <= col < size):
            raise IllegalPlay("off_board", f"coordinate {coord!r} is off the {size}×{size} board")
        coord = format_gcg(row, col, across)
    return coord.upper(), word


def _line_words(board: Board, sp: ScoredPlay, rules) -> list[tuple[str, int, int, str]]:
    """Every word of a legal play with its points, its number of tiles and its GCG text, main word first, read and
    scored by the oracle's own line reader (:func:`gamecore.play.read_line`) in the order the
    oracle lists them."""
    layout, ts, size, squares = board.layout, board.tile_set, board.size, board.squares
    scoring = (
        layout.letter_mult,
        layout.word_mult,
        ts.values,
        rules is not None and rules.blank_value == "letter",
        rules is not None and rules.word_premiums == "add",
    )
    new = {(p.row, p.col): Tile(p.label, p.blank) for p in sp.placements()}
    dr, dc = (0, 1) if sp.across else (1, 0)
    first = next((r, c) for (r, c), n in zip(sp.squares(), sp.new, strict=True) if n)
    lines = [read_line(squares, size, new, first[0], first[1], dr, dc, scoring)]
    for (r, c), is_new in zip(sp.squares(), sp.new, strict=True):
        if is_new:
            line = read_line(squares, size, new, r, c, dc, dr, scoring)
            if len(line[2]) >= 2:
                lines.append(line)
    return [(ln[4], ln[5], len(ln[2]), _gcg_text(ln[2])) for ln in lines]


def _gcg_text(tiles) -> str:
    """Tiles in GCG case: uppercase, a blank lowercase, a multi-letter tile in brackets."""
    out = []
    for label, blank in tiles:
        s = label.lower() if blank else label
        out.append(f"[{s}]" if len(label) > 1 else s)
    return "".join(out)


def _unplaced_words(board: Board, placements: list[Placement], across: bool, rules, lexicon) -> list[WordScore]:
    """The words a play would form where the oracle refused it for where it lies (it touches no
    tile, a first play off the start square): read from its squares as :func:`_line_words` reads
    a legal play's, with no score (it cannot be made). Empty when its squares give no line."""
    if not placements:
        return []
    layout, ts, size, squares = board.layout, board.tile_set, board.size, board.squares
    scoring = (layout.letter_mult, layout.word_mult, ts.values, False, False)
    new = {(p.row, p.col): Tile(p.label, p.blank) for p in placements}
    if any(squares[r][c] is not None for r, c in new):  # pragma: no cover - refused before
        return []
    dr, dc = (0, 1) if across else (1, 0)
    first = min(new)
    lines = [read_line(squares, size, new, first[0], first[1], dr, dc, scoring)]
    if len(lines[0][2]) < len(placements):  # the new tiles are no one line
        return []
    for r, c in sorted(new):
        line = read_line(squares, size, new, r, c, dc, dr, scoring)
        if len(line[2]) >= 2:
            lines.append(line)
    out = []
    for ln in lines:
        if len(ln[2]) < 2 and len(lines) > 1:
            continue
        out.append(WordScore(ln[4], None, None if lexicon is None else (ln[4] in lexicon), _gcg_text(ln[2])))
    return out


def adjudicate(
    board: Board,
    play: str,
    rack: Sequence[str] | None = None,
    lexicon=None,
    rules=None,
    coords: str = "gcg",
    fold: dict | None = None,
) -> Ruling:
    """Rule on ``play`` (``"8D JOINT"``) on ``board``.

    Args:
        rack: the player's rack as labels (``?`` = blank), or None to skip the rack rule.
        lexicon: anything answering ``word in lexicon`` (a :class:`gamecore.lexicon.Lexicon`), or None.
        rules: the :class:`gamecore.rules.RuleSet` (bingo bonus, blank value, word premiums, the
            shortest word allowed).
        coords: ``gcg`` or ``netskrafl`` (the coordinate order of ``play``).
        fold: the lexicon's letter folds (lowercase, ``{"ё": "е"}``); default: the lexicon's
            manifest. A tile whose letter folds to another (the Russian Ё tile, the Russian Scrabble article: "the
            letter е counts as е or ё") plays as either: an Е written over a Ё tile on the board
            (or a Ё over an Е) is that tile, and a letter the rack lacks is taken from the tile that
            folds with it (a Ё tile for Е, an Е tile for Ё), scored with the tile's own value; each
            such reading is a line of :attr:`Ruling.notes`.
    Returns:
        The :class:`Ruling`; an illegal play is a ruling too (``legal`` false, ``reason`` set): a
        play that is written right (a coordinate and letters) but cannot be made is never an
        error, whichever rules it breaks and in whatever order they are checked.
    Raises:
        UsageError: ``play`` is not COORD WORD.
    """
    from gamecore.play import SQUARE_NAMES

    token = SQUARE_NAMES.set(coords if coords in COORDS else "gcg")  # squares named in the play's order
    try:
        return _adjudicate(board, play, rack, lexicon, rules, coords, fold)
    finally:
        SQUARE_NAMES.reset(token)


def _adjudicate(board: Board, play: str, rack, lexicon, rules, coords: str, fold: dict | None) -> Ruling:
    shown = " ".join(nfc(play).split())
    try:
        coord, word = split_play(play, board.size, coords)
    except IllegalPlay as exc:
        return Ruling(shown, None, False, (exc.code, exc.message), verdict=ILLEGAL)
    from gamecore.coords import CoordinateError

    same = _fold_pairs(board, lexicon, fold)
    notes: list[str] = []
    placements, across = None, None
    try:
        if same:
            word = _through_folded(board, coord, word, same, notes)
        placements, across, row, col = parse_play(board, coord, word)
        if same and rack is not None:
            placements = _from_rack(placements, rack, same, notes)
        sp = _validate(board, placements, rack, rules, across, (row, col))
        reason = None
    except CoordinateError as exc:
        return Ruling(shown, coord, False, ("off_board", exc.message), verdict=ILLEGAL, written=word)
    except IllegalPlay as exc:
        message, prefix = exc.message, f"{coord} {word}: "
        if coords == "netskrafl" and message.startswith(prefix):  # the play as written, in its own order
            message = f"{shown}: {message[len(prefix) :]}"
        reason = (exc.code, message)
        if exc.code != "not_on_rack":
            formed = _unplaced(board, placements, exc.code, rules, lexicon, across)
            return Ruling(shown, coord, False, reason, formed, verdict=ILLEGAL, notes=notes, written=word)
        # the rack is wrong: without it, is the play one that could be made at all? The oracle
        # checks the rack before the squares (touching, in line, whole word), so a play that breaks
        # both is ruled on the rule the squares break, whatever the order (never an input error)
        assert placements is not None and across is not None  # the rack is checked after the play is read
        try:
            sp = _validate(board, placements, None, rules, across, (row, col))
        except IllegalPlay as other:
            formed = _unplaced(board, placements, other.code, rules, lexicon, across)
            return Ruling(shown, coord, False, (other.code, other.message), formed, verdict=ILLEGAL, notes=notes, written=word)
    words = _line_words(board, sp, rules)
    bingo = rules is not None and sp.tiles_placed >= rules.bingo_min_tiles
    total = sum(w[1] for w in words) + (rules.bingo_bonus if bingo else 0)
    if [w[0] for w in words] != list(sp.words) or total != sp.score:  # pragma: no cover - a bug guard
        raise AssertionError(f"word breakdown {words} does not add up to the oracle's {sp.words} = {sp.score}")
    if reason is None:
        reason = _beyond_rules(board, sp, rules, words)
    verdict = None
    scored = []
    for w, s, _, text in words:
        valid = None if lexicon is None else (w in lexicon)
        scored.append(WordScore(w, s, valid, text))
    if reason is not None:  # a play that cannot be made scores nothing and is not ruled on
        scored = [WordScore(x.word, None, x.valid, x.text) for x in scored]
        return Ruling(shown, sp.coord, False, reason, scored, None, False, ILLEGAL, sp, notes)
    if lexicon is not None:
        verdict = "ACCEPTABLE" if all(x.valid for x in scored) else "UNACCEPTABLE"
    return Ruling(shown, sp.coord, True, None, scored, sp.score, bingo, verdict, sp, notes)


def _beyond_rules(board: Board, sp, rules, words) -> tuple[str, str] | None:
    """Why a play the board allows still cannot be made, or None: more tiles than a rack holds,
    more of a tile than the tile set has, or a word shorter than the rule set's shortest (as every
    front end rules it, :mod:`gamecore.game_state`)."""
    if rules is not None and sp.tiles_placed > rules.rack_size:
        return ("not_on_rack", f"the play places {sp.tiles_placed} tiles; a rack holds {rules.rack_size} (rules {rules.name})")
    reason = _beyond_tile_set(board, sp)
    if reason is not None:
        return reason
    from gamecore.game_state import too_short

    why = too_short(rules, [(w, n) for w, _, n, _ in words])
    return ("too_short", why) if why is not None else None


def _unplaced(board: Board, placements, code: str, rules, lexicon, across: bool | None) -> list[WordScore]:
    """:func:`_unplaced_words` for a play refused for where it lies (``not_touching``,
    ``first_play_off_start``); no words for the other refusals (its squares give none)."""
    if placements is None or across is None or code not in ("not_touching", "first_play_off_start"):
        return []
    return _unplaced_words(board, placements, across, rules, lexicon)


def _beyond_tile_set(board: Board, sp) -> tuple[str, str] | None:
    """``("not_on_rack", why)`` when the board's tiles and the play's new ones hold more of a tile
    (a blank counted as ``?``) than the tile set has: two real Zs in English, which has one, can be
    on no rack. None when they fit. (With a rack the rack is checked against the set first.)"""
    ts = board.tile_set
    on_board = board.used_counts()
    new: dict[str, int] = {}
    for p in sp.placements():
        key = "?" if p.blank else p.label
        new[key] = new.get(key, 0) + 1
    for key in sorted(new, key=lambda k: (k == "?", k)):
        have = ts.blanks if key == "?" else ts.counts.get(key, 0)
        n, b = new[key], on_board.get(key, 0)
        if n + b > have:
            name = "blank" if key == "?" else repr(key)
            where = f" and the board {b}" if b else ""
            return (
                "not_on_rack",
                f"the play places {n} × {name}{where}, but tile set {ts.name} has only {have}",
            )
    return None


def _fold_pairs(board: Board, lexicon, fold: dict | None) -> dict[str, str]:
    """Tile label → the label it is the same letter as (both ways: ``Ё`` ↔ ``Е``), from the
    lexicon's folds (:func:`gamecore.folded.folded_tiles`); empty without folds."""
    from gamecore.folded import folded_tiles

    manifest = getattr(lexicon, "manifest", None) or {}
    if fold is None:
        fold = {
            k.lower(): v.lower() for k, v in (manifest.get("fold") or {}).items() if isinstance(k, str) and isinstance(v, str)
        }
    if not fold:
        return {}
    alphabet = manifest.get("alphabet") or [a for a in board.tile_set.letters if a != "?" and a.lower() not in fold]
    pairs = folded_tiles(board.tile_set, [a.lower() for a in alphabet], fold)
    out = dict(pairs)
    out.update({v: k for k, v in pairs.items()})
    return out


def _through_folded(board: Board, coord: str, word: str, same: dict[str, str], notes: list[str]) -> str:
    """``word`` with each letter written over a board tile of the folded letter (an Е over the Ё
    tile) replaced by that tile's own letter, so the oracle reads the tile that is there."""
    from gamecore.coords import CoordinateError, parse_gcg

    try:
        row, col, across = parse_gcg(coord, board.size)
        tokens = board.tile_set.split_word(word.replace("(", "").replace(")", ""), allow=".")
    except (CoordinateError, SkraflError):
        return word  # parse_play reports it
    dr, dc = (0, 1) if across else (1, 0)
    out = []
    changed = False
    for i, tok in enumerate(tokens):
        r, c = row + i * dr, col + i * dc
        t = board[r, c] if board.in_bounds(r, c) else None
        if t is not None and tok != "." and tok.upper() != t.label and same.get(tok.upper()) == t.label:
            notes.append(f"{tok.upper()} at {_square(r, c)} is the {t.label} tile on the board (the same letter in the lexicon)")
            tok, changed = t.label if not t.blank else t.label.lower(), True
        out.append(tok if len(tok) == 1 else f"[{tok}]")
    return "".join(out) if changed else word


def _from_rack(placements: list[Placement], rack: Sequence[str], same: dict[str, str], notes: list[str]) -> list[Placement]:
    """The placements with a letter the rack has run out of taken from the rack's tile of the same
    folded letter (a Ё tile for an Е, an Е tile for a Ё), in the order of the squares; a letter
    the rack holds is played as written. What neither covers is left for the oracle to refuse."""
    left = list(rack)
    out = []
    for p in placements:
        if not p.blank:
            other = same.get(p.label)
            if p.label in left:
                left.remove(p.label)
            elif other is not None and other in left:
                left.remove(other)
                notes.append(
                    f"{p.label} at {_square(p.row, p.col)} is played with the {other} tile of the rack "
                    f"(the same letter in the lexicon; scored as {other})"
                )
                p = Placement(p.row, p.col, other, False)
        out.append(p)
    return out


def _square(r: int, c: int) -> str:
    from gamecore.play import square_name

    return square_name(r, c)


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
