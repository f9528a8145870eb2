"""Move generation: every legal play for a board and a rack, with its score.

Gordon's GADDAG algorithm (S. A. Gordon, "A faster Scrabble move generation algorithm", 1994) over
the GADDAG half of a :class:`gamecore.kwg.Kwg`, compiled in ``gamecore/c/``:

* lanes: every row (plays across) and every column (plays down);
* anchors: empty squares next to a tile; on the first move, the start square only;
* cross-checks: for each empty square with tiles above/below (or left/right), the letters that
  make the perpendicular word a word (DAWG walk), with the cross-score = the values of the
  perpendicular word's board tiles;
* each play is generated once, from its leftmost (topmost) anchor.

Scoring (docs/RULES.md, WESPA/Netskrafl scoring): the main word plus every cross word formed by a new
tile; letter and word premiums count only under newly placed tiles, word multipliers multiply; a
blank scores 0 (on the rack and on the board; or its letter's value when ``blank_letter_value``,
a rule-set option); the bingo bonus is added once, after multipliers,
when ``bingo_tiles`` (the rack size, 7) or more tiles are placed.

Speed: cross-checks are 64-bit letter sets, narrowed by the lane's own tiles beside
the square; an anchor with tiles just right of it is walked from their right end (its left part is
checked against them at once); the walk allocates nothing and fetches a child list as it takes a
letter; when the plays are wanted sorted, the first move takes each word of the rack once from
the DAWG and places it at every start over the start square (the order of finding does not matter
then; :func:`generate` keeps the walk's order). Plays are
recorded as plain structs into a buffer in C, sorted there and made into Python objects only for
the plays returned (:func:`generate_top` can build :class:`gamecore.play.ScoredPlay` tuples
directly). :func:`generate_top` with a ``limit`` prunes: an upper bound per anchor (its spans, the
rack's best values on the best multipliers, the bingo bonus where a span takes enough tiles),
anchors searched best bound first, spans inside an anchor skipped when their bound is below the
K-th best score so far, and a stop when the best bound left is below it — exactly the first
``limit`` plays of the full sorted list. :class:`Position` keeps a board and its cross-checks
between calls, updated per play; :meth:`Position.moves` leaves the plays in C (a MoveList whose
RawMoves are made only when read, as MAGPIE's move list). ScoredPlays of one call share their
``word`` and ``new`` tuples (a word is often played at many places).

Listing conventions (as the reference lists in ``shared/corpora/positions``): a one-tile play that
forms words both ways is listed once, across; on the empty board both directions are listed.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing is not imported at start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from gamecore.kwg import Kwg

#: Value added to a letter index in a grid square (and in ``RawMove.letters``) for a blank.
BLANK_FLAG = 64


def _native():
    from gamecore.kwg import native_core as native

    return native()


class MoveLayout:
    """The premium squares the generator needs (any object with these attributes will do, e.g.
    :class:`gamecore.boards.BoardLayout`).

    Attributes:
        letter_mult: ``letter_mult[row][col]`` letter multiplier (1 plain, 2 DL, 3 TL, 4 QL).
        word_mult: ``word_mult[row][col]`` word multiplier (1 plain, 2 DW, 3 TW, 4 QW).
        start: (row, col) of the start square, 0-based.
        blocked: squares where no tile may stand (punctured squares), as (row, col) pairs.
    """

    __slots__ = ("letter_mult", "word_mult", "start", "blocked")

    def __init__(self, letter_mult, word_mult, start, blocked=frozenset()):
        self.letter_mult = letter_mult
        self.word_mult = word_mult
        self.start = tuple(start)
        self.blocked = frozenset(blocked)

    def __repr__(self) -> str:
        return f"MoveLayout(start={self.start}, {len(self.letter_mult)} rows, blocked={sorted(self.blocked)})"


def _raw_move_type():
    return _native().RawMove


def __getattr__(name: str) -> Any:
    # RawMove is the compiled struct-sequence type (a tuple subclass with named fields)
    if name == "RawMove":
        return _raw_move_type()
    raise AttributeError(name)


def generate(
    kwg: Kwg,
    grid: Sequence[Sequence[int]],
    rack_counts: Sequence[int],
    blanks: int,
    layout: Any,
    tile_values: Sequence[int],
    bingo_bonus: int,
    first_move: bool,
    bingo_tiles: int = 7,
    blank_letter_value: bool = False,
) -> list:
    """All legal plays on ``grid`` with the rack, scored.

    Args:
        kwg: the lexicon graph (its GADDAG for generation, its DAWG for cross-checks).
        grid: rows of ints: 0 empty, 1..N a letter (tile number), +64 (:data:`BLANK_FLAG`) when
            the tile on the board is a blank. Any size up to 64×64 (15×15, 21×21 boards).
        rack_counts: ``rack_counts[i]`` = how many tiles of letter i the rack holds (index 0
            unused), at most 64 entries.
        blanks: number of blanks on the rack.
        layout: premiums and start square — a :class:`MoveLayout` or any object with attributes
            ``letter_mult``, ``word_mult``, ``start`` (and optionally ``blocked``).
        tile_values: ``tile_values[i]`` = points of letter i (a blank scores 0 whatever it stands for).
        bingo_bonus: added when ``bingo_tiles`` tiles are placed (50; Erudit 15).
        first_move: the board is empty; plays must cover the start square.
        bingo_tiles: the number of tiles that earns the bingo bonus (the rack size, 7).
        blank_letter_value: a blank scores the value of the letter it stands for (a rule-set
            option, docs/RULES.md) instead of 0 — on the rack and on the board.

    Returns:
        A list of ``RawMove`` (a tuple subclass): ``(row, col, across, letters, score,
        tiles_placed)`` — 0-based row and column of the main word's first square, ``across`` a
        bool, ``letters`` a ``bytes`` of the whole main word (tile numbers, +64 for blanks, board
        tiles included), the score, and the number of tiles placed. Order: across plays by row,
        then down plays by column; within a lane by anchor (not sorted by score).

    Raises:
        ValueError: malformed grid (ragged rows, values out of range, more than 64 rows or
            columns) or start square outside the board.
    """
    return _call(kwg, grid, rack_counts, blanks, layout, tile_values, bingo_bonus, first_move, bingo_tiles, blank_letter_value)


def _call(kwg, grid, rack_counts, blanks, layout, tile_values, bingo_bonus, first_move, bingo_tiles, blank_letter_value, *extra):
    blocked = getattr(layout, "blocked", None)
    blocked_grid = None
    if blocked:
        rows, cols = len(grid), len(grid[0])
        blocked_grid = [[0] * cols for _ in range(rows)]
        for r, c in blocked:
            blocked_grid[r][c] = 1
    srow, scol = layout.start
    return _native().generate(
        kwg.buffer,
        grid,
        rack_counts,
        blanks,
        layout.letter_mult,
        layout.word_mult,
        srow,
        scol,
        tile_values,
        bingo_bonus,
        bool(first_move),
        bingo_tiles,
        blocked_grid,
        int(kwg.wide),
        bool(blank_letter_value),
        *extra,
    )


def generate_top(
    kwg: Kwg,
    grid: Sequence[Sequence[int]],
    rack_counts: Sequence[int],
    blanks: int,
    layout: Any,
    tile_values: Sequence[int],
    bingo_bonus: int,
    first_move: bool,
    bingo_tiles: int = 7,
    blank_letter_value: bool = False,
    *,
    limit: int | None = None,
    prune: bool = True,
    tiles: Sequence[Any] | None = None,
    play_type: type | None = None,
    bingo_index: bytes | None = None,
) -> list:
    """The best plays, best first: exactly the first ``limit`` plays (all with ``None``) of
    :func:`generate`'s plays sorted by score descending, then fewer tiles, row, column, across
    before down, then ``letters`` (bytes order) — the order of :func:`gamecore.best.sort_plays`.

    With ``limit`` (and ``prune``, the default), not every play is generated: each anchor gets an
    upper bound on the score of any play made from it (its spans, the rack's best values on the
    best multipliers), anchors are searched best bound first, and the search stops when the next
    bound is below the ``limit``-th best score found. Only plays that can still make the cut are
    recorded, and only the returned plays become Python objects.

    Args (beyond :func:`generate`'s):
        limit: how many plays (None = every play, sorted).
        prune: use the bounds (False: search every anchor; the same result, for checks).
        tiles, play_type: build ``play_type`` tuples ``(row, col, across, word, new, score,
            tiles_placed, ())`` — a :class:`gamecore.play.ScoredPlay` — instead of RawMoves:
            ``word`` = ``tiles[letter byte]`` for each letter (128 entries), ``new`` = whether the
            square was empty.
        bingo_index: :meth:`gamecore.kwg.Kwg.bingo_index` (for many calls with one lexicon): a span
            that would take the whole rack is searched only when some word is an anagram of the
            rack and the span's board tiles.
    """
    return _call(
        kwg,
        grid,
        rack_counts,
        blanks,
        layout,
        tile_values,
        bingo_bonus,
        first_move,
        bingo_tiles,
        blank_letter_value,
        -1 if limit is None else max(0, int(limit)),
        True,
        bool(prune),
        tiles,
        play_type,
        bingo_index,
    )


def last_stats(detail: bool = False):
    """``(anchors, anchors searched, plays recorded, search calls)`` of the last generation (for
    the bench); ``detail``: per anchor searched with pruning, ``(direction, lane, square, best
    span start, end, bound, best score found, search calls)``."""
    return _native().last_stats(detail)


class Position:
    """A board kept between move generations (for a game replayed or analysed turn by turn): the
    grid and both directions' cross-checks and cross-scores live in C and are updated per play,
    only for the squares the play can change; :meth:`generate` and :meth:`top` then read only the
    rack. Their results are exactly those of :func:`generate` and :func:`generate_top` on the
    same grid (``first_move`` = the board is empty).

    Threads: a Position's search runs without the GIL (its search state is its own), so threads
    each with its own Positions search at once; a Position used by two threads at once refuses the
    second call (RuntimeError) while the first runs.

    Args:
        kwg, layout, tile_values, bingo_bonus, bingo_tiles, blank_letter_value: as :func:`generate`.
        grid: the tiles already on the board (rows of ints, as :func:`generate`); None = empty.
    """

    __slots__ = ("_p", "kwg")

    def __init__(
        self,
        kwg: Kwg,
        layout: Any,
        tile_values: Sequence[int],
        bingo_bonus: int,
        bingo_tiles: int = 7,
        blank_letter_value: bool = False,
        grid: Sequence[Sequence[int]] | None = None,
    ):
        lm = layout.letter_mult
        blocked = getattr(layout, "blocked", None)
        blocked_grid = None
        if blocked:
            blocked_grid = [[0] * len(lm[0]) for _ in range(len(lm))]
            for r, c in blocked:
                blocked_grid[r][c] = 1
        srow, scol = layout.start
        self.kwg = kwg
        self._p = _native().Position(
            kwg.buffer,
            lm,
            layout.word_mult,
            srow,
            scol,
            tile_values,
            bingo_bonus,
            bingo_tiles,
            blocked_grid,
            int(kwg.wide),
            bool(blank_letter_value),
            grid,
        )

    def place(self, row: int, col: int, across: bool, letters: bytes) -> int:
        """Put a play on the board: ``letters`` = its whole main word from (row, col) (tile numbers,
        +64 for a blank, board tiles included — a RawMove's fields). Returns the number of new
        tiles. Raises ValueError: off the board, a letter differing from a board tile, a blocked
        square. (Whether the play is legal is not checked: that is the validator's job.)"""
        return self._p.place(row, col, bool(across), bytes(letters))

    def sync(self, grid) -> int:
        """Make the board ``grid`` (``bytes`` of rows × columns codes row by row, or rows of ints):
        the tiles added since are placed as by :meth:`place`; a tile taken off or changed (a
        withdrawn play) recomputes the whole board. Returns the number of tiles added (-1 after
        a recomputation)."""
        return self._p.sync(grid)

    def generate(self, rack_counts: Sequence[int], blanks: int) -> list:
        """Every legal play, as :func:`generate` gives them (RawMoves, generator order)."""
        return self._p.generate(rack_counts, blanks)

    def moves(self, rack_counts: Sequence[int], blanks: int, *, sorted: bool = False) -> Sequence:
        """Every legal play, kept in C as the generator recorded them (MAGPIE's move list): a
        sequence (``gamecore._native.MoveList``: ``len``, indexing, slices, iteration) whose items
        are the RawMoves of :meth:`generate`, in the same order, each made when read. With
        ``sorted``: best first, in :func:`generate_top`'s order."""
        return self._p.generate(rack_counts, blanks, -1, bool(sorted), False, None, None, None, True)

    def top(
        self,
        rack_counts: Sequence[int],
        blanks: int,
        *,
        limit: int | None = None,
        prune: bool = True,
        tiles: Sequence[Any] | None = None,
        play_type: type | None = None,
        bingo_index: bytes | None = None,
    ) -> list:
        """The best plays, best first, as :func:`generate_top` gives them."""
        # (a plain int limit is passed as it is, and ``prune`` is read as a truth value in C: the
        # call of a first move takes a few microseconds, a quarter of them was this line's)
        if limit is not None and (limit.__class__ is not int or limit < 0):
            limit = max(0, int(limit))
        return self._p.generate(rack_counts, blanks, -1 if limit is None else limit, True, prune, tiles, play_type, bingo_index)

    @property
    def native(self) -> Any:
        """The compiled board (``gamecore._native.Position``), for the searches in C that take it."""
        return self._p

    def copy_from(self, other: "Position") -> None:
        """Make this board ``other``'s (its tiles, cross-checks, layout and values; both made on the
        same KWG and board size): a search trying plays one after another copies the parent's board
        into a child's instead of taking tiles off (:mod:`gamecore.endgame`). Raises ValueError:
        another KWG or board size."""
        self._p.copy_from(other._p)

    def equity(
        self,
        rack_counts: Sequence[int],
        blanks: int,
        leaves: Any,
        klv_tiles: bytes,
        *,
        bag: int,
        outplay: int = 0,
        vowels: int = 0,
        pen_across: Sequence[int] = (),
        pen_down: Sequence[int] = (),
        exchanges: int = 0,
        limit: int = 1,
        prune: bool = True,
        tiles: Sequence[Any] | None = None,
        play_type: type | None = None,
        bingo_index: bytes | None = None,
        max_gone: int = 64,
    ) -> tuple[list, list[int], list[tuple[int, bytes]]]:
        """The best ``limit`` plays by static equity (:mod:`gamecore.equity`'s rules, in thousandths:
        score x 1000 + the kept tiles' term + on the empty board the vowels' opening penalties),
        equity descending, ties in :meth:`top`'s order; no Python object is made for the others.
        With ``prune``, anchors are searched best score bound first and the search stops when a
        bound x 1000 + the best term of any kept tiles is below the ``limit``-th best equity found
        (the same plays as without).

        Args:
            leaves: ``gamecore._native.Leaves`` (:meth:`gamecore.equity.LeaveTable.native`).
            klv_tiles: 64 bytes, each tile number of the lexicon → the leave file's (0 = none).
            bag: tiles in the bag (0: the empty-bag terms); outplay: the term of going out
                (thousandths); vowels: the mask of the lexicon's vowel tiles; pen_across/pen_down:
                per column / row, what a vowel placed there costs on the empty board.
            exchanges: how many of the best exchanges to return (0 when the bag allows none).
            max_gone: the most tiles an exchange may give back (the tiles in the bag).
        Returns:
            (plays, their equities, [(equity, kept tiles as lexicon tile numbers, 0 = blank)] of the
            best exchanges, best first: fewer tiles given back, then those tiles in the leave
            file's order, the blank last).
        """
        return self._p.equity(
            rack_counts,
            blanks,
            leaves,
            klv_tiles,
            bag,
            outplay,
            vowels,
            pen_across,
            pen_down,
            exchanges,
            limit,
            prune,
            tiles,
            play_type,
            bingo_index,
            max_gone,
        )

    def grid(self) -> list[list[int]]:
        """The board: rows of ints (0 empty, tile number, +64 for a blank)."""
        return self._p.grid()

    def is_empty(self) -> bool:
        return self._p.is_empty()
