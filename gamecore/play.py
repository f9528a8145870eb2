"""Plays: parse, validate and score one play on a board — the independent oracle.

A play is written as in GCG (docs/GCG.md §4–5): a coordinate (``8D`` across, ``D8`` down) and the whole
word from that square, with ``.`` (or the letter itself) for tiles already on the board and a
lowercase letter for a blank; ``(..)`` around played-through tiles is accepted too.

Rules (docs/RULES.md §2): new tiles go in one row or column and, with the tiles already on the
board, form one contiguous line; the first tile play covers the start square; every later play
touches a tile on the board; every maximal line of ≥ 2 tiles through a new tile, along and across,
must be a word. Score: each word formed (the main word and every cross word) scores the sum of its
tile values, with letter premiums only under new tiles and the word premiums of newly covered squares
multiplied (two DW = ×4; rule option ``word_premiums = "add"`` for one Erudit implementation); a blank
scores 0 (or the letter's value with ``blank_value = "letter"``) but still takes word premiums; the
bingo bonus is added after the multipliers when ``bingo_min_tiles`` tiles are placed. A one-tile
play that forms words both ways is one play, scored for both words.

This module is written apart from the move generator (:mod:`gamecore.movegen`) on purpose: tests
check every generated move against :func:`validate_placements`.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Iterable, NamedTuple, Protocol, Sequence

from gamecore.board import Board, Tile
from gamecore.coords import format_gcg, parse_gcg
from gamecore.errors import SkraflError

#: reason codes of :class:`IllegalPlay`
REASONS = (
    "no_tiles",
    "off_board",
    "blocked",
    "square_taken",
    "unknown_letter",
    "not_on_rack",
    "not_in_line",
    "gap",
    "not_touching",
    "first_play_off_start",
    "too_short",
    "not_whole_word",
    "mismatch",
    "empty_through",
    "not_in_lexicon",
)


class IllegalPlay(SkraflError):
    """A play that breaks a rule. ``code`` is one of :data:`REASONS`; ``words`` the offending words
    for ``not_in_lexicon``."""

    def __init__(self, code: str, message: str, words: Sequence[str] = ()):
        super().__init__(message)
        self.code = code
        self.words = tuple(words)


class Lexicon(Protocol):
    def __contains__(self, word: str) -> bool: ...


class Placement(NamedTuple):
    """One new tile: square (0-based), letter label (uppercase), blank or not."""

    row: int
    col: int
    label: str
    blank: bool = False


class ScoredPlay(NamedTuple):
    """A legal, scored tile play (an immutable named tuple: cheap to make by the thousand).

    Attributes:
        row, col, across: where the main word starts (0-based) and its direction.
        word: the main word's tiles, played-through tiles included.
        new: for each tile of ``word``, whether this play placed it.
        score: points, bingo bonus included.
        tiles_placed: number of new tiles.
        words: every word formed, main word first, as lowercase strings.
    """

    row: int
    col: int
    across: bool
    word: tuple[Tile, ...]
    new: tuple[bool, ...]
    score: int
    tiles_placed: int
    words: tuple[str, ...] = ()

    @property
    def coord(self) -> str:
        return format_gcg(self.row, self.col, self.across)

    def squares(self) -> list[tuple[int, int]]:
        dr, dc = (0, 1) if self.across else (1, 0)
        return [(self.row + i * dr, self.col + i * dc) for i in range(len(self.word))]

    def placements(self) -> frozenset[Placement]:
        """The new tiles, for comparing plays regardless of direction (a one-tile play has one set)."""
        return frozenset(
            Placement(r, c, t.label, t.blank) for (r, c), t, n in zip(self.squares(), self.word, self.new, strict=True) if n
        )

    def word_text(self, through: str | None = None) -> str:
        """The main word, blank as lowercase; ``through="."`` writes played-through tiles as ``.``
        (the GCG convention), otherwise as their letters."""
        out = []
        for (label, blank), n in zip(self.word, self.new, strict=True):
            if not n and through is not None:
                out.append(through)
                continue
            s = label.lower() if blank else label
            out.append(f"[{s}]" if len(label) > 1 else s)
        return "".join(out)

    def used(self) -> list[str]:
        """The rack tiles this play uses (``?`` for a blank)."""
        return ["?" if t.blank else t.label for t, n in zip(self.word, self.new, strict=True) if n]

    def leave(self, rack: Sequence[str]) -> list[str]:
        """What stays on ``rack`` (labels, ``?`` = blank) after this play."""
        rest = list(rack)
        for u in self.used():
            rest.remove(u)
        return rest

    def sort_key(self) -> tuple:
        """Best first: score descending, then fewer tiles, then coordinate (row, column, across
        before down), then word."""
        return (-self.score, self.tiles_placed, self.row, self.col, not self.across, self.word_text())


# ---- parsing a play --------------------------------------------------------------------------------


def parse_play(board: Board, coord: str, word: str) -> tuple[list[Placement], bool, int, int]:
    """Turn ``coord`` + ``word`` into new-tile placements.

    Returns:
        (placements, across, row, col).
    Raises:
        CoordinateError, IllegalPlay (``off_board``, ``mismatch``, ``empty_through``, ``unknown_letter``,
        ``not_whole_word``).
    """
    size = board.size
    row, col, across = parse_gcg(coord, size)
    ts = board.tile_set
    tokens, through = [], []  # through: the token was written in parentheses (a board tile)
    try:
        for k, part in enumerate(word.replace(")", "(").split("(")):
            if part:
                got = ts.split_word(part, allow=".")
                tokens += got
                through += [k % 2 == 1] * len(got)
    except SkraflError as exc:
        raise IllegalPlay("unknown_letter", exc.message) from None
    marks = [ch for ch in word if ch in "()"]
    if len(marks) % 2 or any(pair != ("(", ")") for pair in zip(marks[::2], marks[1::2], strict=False)):
        raise IllegalPlay("unknown_letter", f"{coord} {word}: parentheses must pair, '(' then ')', around board tiles")
    if not tokens:
        raise IllegalPlay("no_tiles", "empty word")
    dr, dc = (0, 1) if across else (1, 0)
    placements: list[Placement] = []
    for i, tok in enumerate(tokens):
        r, c = row + i * dr, col + i * dc
        if not board.in_bounds(r, c):
            raise IllegalPlay("off_board", f"{coord} {word}: the word runs off the {size}×{size} board")
        existing = board[r, c]
        if through[i] and existing is None:
            raise IllegalPlay(
                "empty_through",
                f"{coord} {word}: '({tok})' at {_sq(r, c)} marks a board tile, but the square is empty",
            )
        if tok == ".":
            if existing is None:
                raise IllegalPlay(
                    "empty_through",
                    f"{coord} {word}: '.' at {_sq(r, c)} marks a board tile, but the square is empty",
                )
            continue
        label, blank = tok.upper(), tok != tok.upper()
        if existing is not None:
            if existing.label != label:
                raise IllegalPlay(
                    "mismatch",
                    f"{coord} {word}: square {_sq(r, c)} holds {existing.label}, not {label}",
                )
            continue
        placements.append(Placement(r, c, label, blank))
    end_r, end_c = row + len(tokens) * dr, col + len(tokens) * dc
    if board.occupied(row - dr, col - dc) or board.occupied(end_r, end_c):
        raise IllegalPlay(
            "not_whole_word",
            f"{coord} {word}: the word continues into tiles on the board; give the whole word",
        )
    return placements, across, row, col


#: how messages name a square: ``gcg`` (row number, then column letter: ``8D``, as a GCG
#: coordinate across reads) or ``netskrafl`` (row letter, then column number: ``D8`` is row D,
#: column 8); ``skrafl score --coords netskrafl`` sets it for its ruling
SQUARE_NAMES: ContextVar[str] = ContextVar("SQUARE_NAMES", default="gcg")


def square_name(r: int, c: int) -> str:
    """The square at 0-based ``(r, c)`` as messages name it (:data:`SQUARE_NAMES`): ``8D`` in GCG's
    order (row, then column), ``H4`` in Netskrafl's (row letter, then column number)."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    if SQUARE_NAMES.get() == "netskrafl":
        return f"{letters[r]}{c + 1}"
    return f"{r + 1}{letters[c]}"


_sq = square_name


# ---- validation and scoring --------------------------------------------------------------------------

#: ``_make_tuple(Tile, (label, blank))`` builds a named tuple without the Python-level call of its
#: ``__new__`` (hot paths: a replay builds thousands)
_make_tuple = tuple.__new__


def read_line(squares, size: int, new: dict[tuple[int, int], Tile], r: int, c: int, dr: int, dc: int, scoring: tuple):
    """Read the maximal line of tiles through (r, c) in direction (dr, dc), new tiles included, and
    score it as a word.

    Args:
        squares: :attr:`Board.squares` before the play; ``new``: the new tiles by square.
        scoring: ``(letter_mult, word_mult, values, blank_scores, add_word_premiums)``.
    Returns:
        ``(row, col, tiles, is_new, text, points)``: the first square, the tiles and whether each
        is new (lists), the lowercase word and its points — letter premiums under new tiles, word
        premiums of newly covered squares multiplied (or added with ``word_premiums = "add"``).
    """
    while r >= dr and c >= dc:  # back to the first tile of the line
        r, c = r - dr, c - dc
        if squares[r][c] is None and (r, c) not in new:
            r, c = r + dr, c + dc
            break
    r0, c0 = r, c
    letter_mult, word_mult, values, blank_scores, add = scoring
    tiles: list[Tile] = []
    is_new: list[bool] = []
    text: list[str] = []
    total = 0
    mult = 1
    wms: list[int] = []
    while r < size and c < size:
        t = squares[r][c]
        fresh = t is None
        if fresh:
            t = new.get((r, c))
            if t is None:
                break
        tiles.append(t)
        is_new.append(fresh)
        label, blank = t
        text.append(label.lower())
        v = values.get(label, 0) if (blank_scores or not blank) else 0
        if fresh:
            total += v * letter_mult[r][c]
            wm = word_mult[r][c]
            if wm > 1:
                mult *= wm
                wms.append(wm)
        else:
            total += v
        r, c = r + dr, c + dc
    if add:
        mult = sum(wms) if wms else 1
    return r0, c0, tiles, is_new, "".join(text), total * mult


def _has_neighbour(squares, size: int, r: int, c: int) -> bool:
    """Whether a board tile is next to (r, c), along or across."""
    return (
        (r > 0 and squares[r - 1][c] is not None)
        or (r + 1 < size and squares[r + 1][c] is not None)
        or (c > 0 and squares[r][c - 1] is not None)
        or (c + 1 < size and squares[r][c + 1] is not None)
    )


def _first_gap(squares, new, pl: list[Placement], dr: int, dc: int) -> tuple[int, int]:
    """The first empty square between the first and the last new tile of a line."""
    key = (lambda p: p.col) if dc else (lambda p: p.row)
    first, last = min(pl, key=key), max(pl, key=key)
    r, c = first.row, first.col
    while (r, c) != (last.row, last.col):
        r, c = r + dr, c + dc
        if (r, c) not in new and squares[r][c] is None:
            return r, c
    raise AssertionError("no gap")  # pragma: no cover - called only when there is one


def validate_placements(
    board: Board,
    placements: Iterable[Placement],
    rack: Sequence[str] | None,
    lexicon: Lexicon | None,
    rules,
    across: bool | None = None,
) -> ScoredPlay:
    """Check new tiles against the rules and score them.

    Args:
        board: the position before the play.
        placements: the new tiles.
        rack: the mover's rack as labels (``?`` = blank); ``None`` skips the rack check.
        lexicon: anything answering ``word in lexicon`` for lowercase words; ``None`` skips word checks.
        rules: a :class:`gamecore.rules.RuleSet` (bingo bonus and size, blank value, word premiums).
        across: direction of the main word for a one-tile play (default: the direction of the longer
            word formed, across on a tie).
    Returns:
        The :class:`ScoredPlay`.
    Raises:
        IllegalPlay: with the first broken rule's code (see :data:`REASONS`).
    """
    pl = list(placements)
    layout = board.layout
    squares = board.squares
    new = _new_tiles(board, pl)
    if rack is not None:
        _check_rack(pl, rack)
    scoring = (
        layout.letter_mult,
        layout.word_mult,
        board.tile_set.values,
        rules is not None and rules.blank_value == "letter",
        rules is not None and rules.word_premiums == "add",
    )
    if len(pl) > 1:
        in_row, main = _main_line(squares, board.size, new, pl, scoring)  # the direction given is not used
        _check_touching(board, new)
        across, cross_lines = in_row, _cross_lines(squares, board.size, new, pl, in_row, scoring)
    else:
        _check_touching(board, new)
        across, main, cross_lines = _one_tile_lines(squares, board.size, new, pl[0], across, scoring)
    if len(main[2]) < 2:
        raise IllegalPlay("too_short", "a play must form a word of at least two letters")
    lines = [main] + cross_lines
    words = tuple([ln[4] for ln in lines])
    if lexicon is not None:
        bad = [w for w in words if w not in lexicon]
        if bad:
            shown = ", ".join(w.upper() for w in bad)
            raise IllegalPlay("not_in_lexicon", f"not in the lexicon: {shown}", bad)
    score = sum([ln[5] for ln in lines])
    if rules is not None and len(pl) >= rules.bingo_min_tiles:
        score += rules.bingo_bonus
    return ScoredPlay(main[0], main[1], bool(across), tuple(main[2]), tuple(main[3]), score, len(pl), words)


def _new_tiles(board: Board, pl: list[Placement]) -> dict[tuple[int, int], Tile]:
    """The new tiles by square, each checked: on the board, not punctured, free, a letter of the
    tile set (:class:`IllegalPlay` for the first that is not; ``no_tiles`` for none)."""
    layout, ts, size, squares = board.layout, board.tile_set, board.size, board.squares
    if not pl:
        raise IllegalPlay("no_tiles", "a play must place at least one tile")
    new: dict[tuple[int, int], Tile] = {}
    for p in pl:
        r, c = key = p.row, p.col
        if not (0 <= r < size and 0 <= c < size):
            raise IllegalPlay("off_board", f"square ({r + 1}, {c + 1}) is off the board")
        if key in layout.blocked:
            raise IllegalPlay("blocked", f"square {_sq(r, c)} is punctured: no tile may go there")
        if squares[r][c] is not None or key in new:
            raise IllegalPlay("square_taken", f"square {_sq(r, c)} is already taken")
        if not ts.has(p.label):
            raise IllegalPlay("unknown_letter", f"{p.label!r} is not a letter of tile set {ts.name}")
        new[key] = _make_tuple(Tile, (p.label, p.blank))
    return new


def _check_rack(pl: list[Placement], rack: Sequence[str]) -> None:
    """Every new tile from the rack (a blank for a blank): ``not_on_rack`` for the first that is not."""
    left = list(rack)
    for p in pl:
        need = "?" if p.blank else p.label
        if need in left:
            left.remove(need)
        else:
            what = "a blank" if p.blank else f"{p.label}"
            raise IllegalPlay("not_on_rack", f"{what} is not on the rack {''.join(rack)} (for square {_sq(p.row, p.col)})")


def _main_line(squares, size: int, new, pl: list[Placement], scoring):
    """A play of two tiles or more: its direction and main line (the line through the first new
    tile, which must hold every new tile): ``not_in_line`` or ``gap`` otherwise."""
    in_row = len({p.row for p in pl}) == 1
    if not in_row and len({p.col for p in pl}) > 1:
        raise IllegalPlay("not_in_line", "the new tiles are not in one row or one column")
    dr, dc = (0, 1) if in_row else (1, 0)
    main = read_line(squares, size, new, pl[0].row, pl[0].col, dr, dc, scoring)
    if main[3].count(True) != len(pl):
        raise IllegalPlay(
            "gap", f"gap at {_sq(*_first_gap(squares, new, pl, dr, dc))}: the new tiles do not form one contiguous line"
        )
    return in_row, main


def _check_touching(board: Board, new) -> None:
    """The play touches a board tile, or is the first play and covers the start square."""
    # a board tile next to a new one means the board is not empty: only a play touching nothing
    # needs the emptiness test (then it is the first play and must cover the start square)
    squares, size = board.squares, board.size
    if any(_has_neighbour(squares, size, r, c) for r, c in new):
        return
    if not board.is_empty():
        raise IllegalPlay("not_touching", "the play does not touch any tile on the board")
    if board.layout.start not in new:
        raise IllegalPlay("first_play_off_start", f"the first play must cover the start square {_sq(*board.layout.start)}")


def _one_tile_lines(squares, size: int, new, p0: Placement, across: bool | None, scoring):
    """A one-tile play: (its direction, the main line, the cross line if it forms a word). The main
    word runs ``across`` when given, else along the longer line (across on a tie); when that line is
    the tile alone, the other one."""
    line_a = read_line(squares, size, new, p0.row, p0.col, 0, 1, scoring)
    line_d = read_line(squares, size, new, p0.row, p0.col, 1, 0, scoring)
    if across is None:
        across = len(line_a[2]) >= len(line_d[2])
    main, other = (line_a, line_d) if across else (line_d, line_a)
    if len(main[2]) < 2:
        main, other = other, main
        across = not across
    return across, main, [other] if len(other[2]) >= 2 else []


def _cross_lines(squares, size: int, new, pl: list[Placement], across: bool, scoring) -> list:
    """The cross words of a play of two tiles or more: through each new tile with a board tile beside
    it, across the main line (the other new tiles are all on the main line)."""
    dr, dc = (0, 1) if across else (1, 0)
    lines = []
    for p in pl:
        r, c = p.row, p.col
        if (r >= dc and c >= dr and squares[r - dc][c - dr] is not None) or (
            r + dc < size and c + dr < size and squares[r + dc][c + dr] is not None
        ):
            lines.append(read_line(squares, size, new, r, c, dc, dr, scoring))
    return lines


def validate_play(board: Board, play: str | tuple[str, str], rack, lexicon: Lexicon | None, rules) -> ScoredPlay:
    """Validate and score a play written ``"8D RETSINA"`` (or ``("8D", "RETSINA")``).

    Args:
        rack: a rack string (``?`` = blank), a list of labels, or ``None`` to skip the rack check.
    Raises:
        IllegalPlay (see :data:`REASONS`), CoordinateError.
    """
    if isinstance(play, str):
        parts = play.split()
        if len(parts) != 2:
            raise IllegalPlay("no_tiles", f"a play is COORD WORD, e.g. '8D RETSINA'; got {play!r}")
        coord, word = parts
    else:
        coord, word = play
    if isinstance(rack, str):
        rack = board.tile_set.parse_rack(rack, check_counts=False)
    placements, across, row, col = parse_play(board, coord, word)
    sp = validate_placements(board, placements, rack, lexicon, rules, across=across)
    if (sp.row, sp.col, sp.across) != (row, col, across) and len(placements) > 1:
        raise IllegalPlay("not_whole_word", f"{coord} {word}: the whole word starts at {sp.coord}")
    return sp


def apply_play(board: Board, play: ScoredPlay) -> Board:
    """A copy of ``board`` with the play's new tiles on it."""
    b = board.copy()
    for p in play.placements():
        b.place(p.row, p.col, p.label, p.blank)
    return b
