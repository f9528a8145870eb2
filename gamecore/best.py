"""Best plays for a position: board + rack + lexicon + rules → every legal play, scored, best first.

The move generator (:mod:`gamecore.movegen`, compiled) works on plain arrays; this module is the
adapter from the game model (:class:`gamecore.board.Board`, :class:`gamecore.rules.RuleSet`) to
those arrays and back to :class:`gamecore.play.ScoredPlay`. Order: score descending, then
fewer tiles, then coordinate (row, column, across before down), then word. With a leave file
(:func:`best_by_equity`): by static equity, exchanges included (:mod:`gamecore.equity`).

Robots (docs/NETSKRAFL.md §4; docs/LEXICONS.md): ``fullsterkur`` plays the top move (ties: fewer
tiles first); ``midlungur`` and ``amlodi`` walk the moves in that order, keep those whose main word is
in the robot's vocabulary (two-letter words always allowed), skip the second if it ties the first in
score, stop at ``pick_from`` (20 and 30) and pick one uniformly at random (``random.Random(seed)``).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence, cast

from gamecore.board import Board, Tile
from gamecore.errors import DataError, UsageError
from gamecore.play import ScoredPlay, validate_placements

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gamecore.kwg import Kwg
    from gamecore.lexicon import Lexicon

#: robot → pick_from (0 = always the top move); docs/NETSKRAFL.md §4, current code values
ROBOTS = {"fullsterkur": 0, "midlungur": 20, "amlodi": 30}


@dataclass
class LexiconBundle:
    """A lexicon folder written by ``skrafl build``: words (marisa trie), KWG graph and manifest."""

    folder: Path
    manifest: dict
    words: Lexicon | None  # supports ``in``; None: a bundle for move generation alone (no look-ups)
    kwg: Kwg
    alphabet: list[str]  # labels in tile-number order (1..N), uppercase

    @property
    def language(self) -> str:
        return self.manifest.get("language", "")

    @property
    def rules_name(self) -> str | None:
        return self.manifest.get("rules")

    @property
    def tile_set_name(self) -> str | None:
        return self.manifest.get("tile_set")


def load_bundle(folder: str | Path) -> LexiconBundle:
    """Load a lexicon folder (``manifest.json``, ``lexicon.marisa``, ``lexicon.kwg``).

    Raises:
        DataError: missing or damaged files (run ``skrafl build``).
    """
    from gamecore.kwg import Kwg
    from gamecore.lexicon import Lexicon

    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"no lexicon folder {folder} (build one with 'skrafl build')")
    lex = Lexicon.load(folder, lazy=True)  # best and the robots look words up rarely: the trie on first use
    folder = lex.folder  # the generation the lexicon was read from: the KWG comes from the same run
    alphabet = lex.manifest.get("alphabet")
    if not alphabet:
        raise DataError("manifest.json has no 'alphabet'", folder / "manifest.json")
    labels = [a.upper() for a in (alphabet if isinstance(alphabet, list) else list(alphabet))]
    kwg_path = folder / "lexicon.kwg"
    if not kwg_path.is_file():
        raise DataError("no lexicon.kwg here: rebuild the lexicon with 'skrafl build'", folder)
    kwg = Kwg.load(kwg_path, alphabet)
    return LexiconBundle(folder, lex.manifest, lex, kwg, labels)


def check_tiles(board: Board, rack: Sequence[str], rules) -> None:
    """Raise UsageError when the rack is longer than the rule set's rack, or rack and board together
    hold more of a tile than the tile set has."""
    _check_rack(board.tile_set, rack, rules, board.used_counts())


def _check_rack(ts, rack: Sequence[str], rules, used: dict[str, int]) -> None:
    if len(rack) > rules.rack_size:
        raise UsageError(f"rack has {len(rack)} tiles; the rule set {rules.name} allows {rules.rack_size}")
    ts.check_counts(list(rack), what=f"rack {''.join(rack)}")
    for t in set(rack):
        have = ts.blanks if t == "?" else ts.counts.get(t, 0)
        n = rack.count(t) + used.get(t, 0)
        if n > have:
            name = "blanks" if t == "?" else repr(t)
            raise UsageError(f"rack and board together hold {n} × {name}, but tile set {ts.name} has only {have}")


def _index_map(alphabet: Sequence[str]) -> dict[str, int]:
    return {label: i for i, label in enumerate(alphabet, 1)}


def encode_grid(board: Board, alphabet: Sequence[str]) -> list[list[int]]:
    """The board as rows of ints: 0 empty, 1..N letter index in ``alphabet``, +64 for a blank.

    Raises:
        DataError: a tile whose letter is not in the lexicon's alphabet.
    """
    idx = _index_map(alphabet)
    grid = []
    for r, row in enumerate(board.squares):
        out = []
        for c, t in enumerate(row):
            if t is None:
                out.append(0)
                continue
            i = idx.get(t.label)
            if i is None:
                raise DataError(f"tile {t.label} at row {r + 1}, column {c + 1} is not in the lexicon's alphabet")
            out.append(i + (64 if t.blank else 0))
        grid.append(out)
    return grid


class _Converter:
    """Turns movegen RawMoves ``(row, col, across, letters, score, tiles_placed)`` — letters: the
    main word's tile numbers, +64 for a blank, board tiles included — into ScoredPlays, with one
    shared Tile object per (letter, blank)."""

    def __init__(self, board: Board, alphabet: Sequence[str]):
        table: list[Tile | None] = [None] * 128
        for i, label in enumerate(alphabet, 1):
            table[i] = Tile(label, False)
            table[i + 64] = Tile(label, True)
        # the C gives letter codes only: no lookup reaches a None
        self.lookup = cast("Callable[[int], Tile]", table.__getitem__)
        self.rows = board.squares
        self.cols = [list(col) for col in zip(*board.squares, strict=True)]

    def __call__(self, raw) -> ScoredPlay:
        row, col, across, letters, score, placed = raw[:6]
        n = len(letters)
        squares = self.rows[row][col : col + n] if across else self.cols[col][row : row + n]
        return ScoredPlay(
            row, col, bool(across), tuple(map(self.lookup, letters)), tuple(map(operator.not_, squares)), score, placed
        )


def generate_plays(
    board: Board,
    rack: Sequence[str],
    kwg,
    alphabet: Sequence[str],
    rules,
    limit: int | None = None,
    bingo_index: bytes | None = None,
) -> list[ScoredPlay]:
    """Every legal play from the compiled move generator, best first (the order of :func:`sort_plays`
    with ``alphabet``); with ``limit``, only the best ``limit`` plays, converted from the generator's
    arrays only for those.

    Args:
        rack: labels, ``?`` = blank.
        kwg: a loaded :class:`gamecore.kwg.Kwg`.
        alphabet: the KWG's labels in tile-number order.
        bingo_index: ``kwg.bingo_index()``, for many positions with one lexicon (see
            :func:`gamecore.movegen.generate_top`).
    Rule options the generator does not model (``blank_value = "letter"``, ``word_premiums = "add"``)
    are applied by re-scoring each play with the validator.
    """
    from gamecore import movegen

    idx = _index_map(alphabet)
    counts = [0] * (len(alphabet) + 1)
    blanks = 0
    for t in rack:
        if t == "?":
            blanks += 1
        elif t in idx:
            counts[idx[t]] += 1
        # a rack letter outside the lexicon's alphabet can form no word: it is simply never played
    values = [0] + [board.tile_set.value(label) for label in alphabet]
    grid = encode_grid(board, alphabet)
    args = (kwg, grid, counts, blanks, board.layout, values, rules.bingo_bonus, board.is_empty(), rules.bingo_min_tiles)
    if rules.blank_value == "zero" and rules.word_premiums == "multiply":
        # sorted and cut in C, pruned by score bounds when a limit is given; ScoredPlays made in C
        return movegen.generate_top(
            *args, limit=limit, tiles=_tile_table(alphabet), play_type=ScoredPlay, bingo_index=bingo_index
        )
    # rule options the generator does not model: every play re-scored by the validator
    convert = _Converter(board, alphabet)
    rescored = [
        validate_placements(board, p.placements(), None, None, rules, across=p.across)
        for p in map(convert, movegen.generate(*args))
    ]
    return sort_plays(rescored, alphabet)[:limit]


_TILE_TABLES: dict[tuple[str, ...], list] = {}


def _tile_table(alphabet: Sequence[str]) -> list:
    """Letter byte (tile number, +64 for a blank) → shared Tile, for the compiled generator."""
    key = tuple(alphabet)
    table = _TILE_TABLES.get(key)
    if table is None:
        table = [None] * 128
        for i, label in enumerate(alphabet, 1):
            table[i] = Tile(label, False)
            table[i + 64] = Tile(label, True)
        _TILE_TABLES[key] = table
    return table


def sort_plays(plays: list[ScoredPlay], alphabet: Sequence[str] | None = None) -> list[ScoredPlay]:
    """Best first: score desc, fewer tiles, then coordinate (row, column, across first), then word
    (in ``alphabet`` order, a blank after every letter; without ``alphabet``: code-point order)."""
    if alphabet is None:
        return sorted(plays, key=ScoredPlay.sort_key)
    idx = _index_map(alphabet)

    def key(p: ScoredPlay):
        return (
            -p.score,
            p.tiles_placed,
            p.row,
            p.col,
            not p.across,
            bytes(idx[t.label] + (64 if t.blank else 0) for t in p.word),
        )

    return sorted(plays, key=key)


def best_plays(
    board: Board, rack: Sequence[str], bundle: LexiconBundle, rules, limit: int | None = None, *, checked: bool = False
) -> list[ScoredPlay]:
    """All legal plays (or the best ``limit``), best first (see :func:`sort_plays`); none forming
    a word shorter than the rule set's ``min_word_length``. ``checked``: the caller has checked
    the tiles already (:func:`gamecore.folded.best_plays_folded` searches a board where a folded
    tile stands as its letter, which may then number more than the tile set has of that letter).

    Raises:
        UsageError: impossible rack (see :func:`check_tiles`); DataError: a board letter outside the
        lexicon's alphabet.
    """
    if not checked:
        check_tiles(board, rack, rules)
    if rules.min_word_length > 2:  # no play forming a shorter word (gamecore.game_state.forms_short_word)
        from gamecore.game_state import forms_short_word

        plays = generate_plays(board, rack, bundle.kwg, bundle.alphabet, rules, None)
        return [p for p in plays if not forms_short_word(rules, board, p)][:limit]
    return generate_plays(board, rack, bundle.kwg, bundle.alphabet, rules, limit)


def best_by_equity(
    board: Board,
    rack: Sequence[str],
    bundle: LexiconBundle,
    rules,
    leaves,
    opponent_rack: Sequence[str] = (),
    limit: int | None = None,
) -> list:
    """Every legal play and every exchange the bag allows, by static equity (score + leave value +
    MAGPIE's static terms), best first: :func:`gamecore.equity.rank` over :func:`best_plays`; with
    a ``limit``, the same rows from the equity search in C (:class:`EquitySearch`) when it applies.

    Args:
        leaves: a :class:`gamecore.equity.LeaveTable` (a KLV2 file read against the tile set).
        opponent_rack: the opponent's tiles when known (they are not in the bag).
    Raises:
        UsageError: impossible rack (see :func:`check_tiles`); DataError: a board letter outside the
        lexicon's alphabet.
    """
    from gamecore.equity import rank

    if limit is not None and limit >= 1:
        check_tiles(board, rack, rules)
        got = equity_search(bundle, rules, leaves).rank(board, rack, opponent_rack, limit)
        if got is not None:
            return got
    plays = best_plays(board, rack, bundle, rules, None)
    return rank(board, rack, plays, leaves, rules, opponent_rack)[:limit]


class EquitySearch:
    """The best moves by static equity, searched in C (:meth:`gamecore.movegen.Position.equity`: each
    play's equity computed as it is found, only the best kept, the best exchange from the rack's
    kept-tile sets) for one lexicon, rule set and leave table, the board kept in C between calls.
    :meth:`rank` gives exactly the first ``limit`` rows of :func:`gamecore.equity.rank` over every
    play, or None where it cannot (:attr:`plain` false: folded tiles, ``min_word_length`` above 2,
    rule options the generator does not model; a rack tile outside the lexicon's alphabet): the
    caller then ranks in Python. ``folded``: the lexicon plays folded tiles
    (:func:`gamecore.folded.folded_tiles` is not empty).
    """

    def __init__(self, bundle: LexiconBundle, rules, leaves, folded: bool = False):
        from gamecore import movegen

        self.bundle, self.rules, self.leaves = bundle, rules, leaves
        ts = rules.tiles()
        self.plain = (
            rules.blank_value == "zero"
            and rules.word_premiums == "multiply"
            and rules.min_word_length <= 2
            and not getattr(rules, "blank_swap", False)
            and not folded
            and len(bundle.alphabet) < 64
        )
        self._idx = _index_map(bundle.alphabet)
        self._klv_tiles, self._vowels = leaves.for_lexicon(bundle.alphabet)
        self._layout: tuple[list[int], list[int]] | None = None
        self._pos: movegen.Position | None = None
        if self.plain:
            values = [0] + [ts.value(label) for label in bundle.alphabet]
            self._pos = movegen.Position(bundle.kwg, rules.layout(), values, rules.bingo_bonus, rules.bingo_min_tiles)
            self._index = bundle.kwg.bingo_index(rules.bingo_min_tiles) if rules.bingo_bonus > 0 else None
            self._table = _tile_table(bundle.alphabet)

    def rank(
        self,
        board: Board,
        rack: Sequence[str],
        opponent_rack: Sequence[str] = (),
        limit: int = 1,
        grid=None,
        prune: bool = True,
        bag: int | None = None,
    ) -> list | None:
        """The best ``limit`` moves (:class:`gamecore.equity.Ranked`), or None (see the class).
        ``grid``: :func:`encode_grid` of ``board`` (or its codes as ``bytes``, row by row) when the
        caller has it; ``bag``: :func:`gamecore.equity.bag_count` when the caller knows it. Raises
        as :func:`gamecore.equity.rank` (UsageError: an opponent's rack that does not fit)."""
        from gamecore import equity

        rows = self._search(board, rack, opponent_rack, limit, grid, prune, bag)
        if rows is None:
            return None
        out = []
        alphabet = self.bundle.alphabet
        for _, kind, _, x, e in rows[:limit]:
            if kind == 0:
                out.append(equity.Ranked("play", x.score, e, equity.kept_tiles(rack, x), play=x))
            else:
                out.append(equity.exchange_row(rack, ["?" if t == 0 else alphabet[t - 1] for t in x], e))
        return out

    def best(self, board: Board, rack: Sequence[str], opponent_rack: Sequence[str], grid=None, bag: int | None = None):
        """The top move alone, for self-play: ``("play", ScoredPlay)``, ``("exchange", the tiles
        given back)`` (as :meth:`rank`'s first row), ``("none", None)`` when there is no move, or
        None (see the class)."""
        rows = self._search(board, rack, opponent_rack, 1, grid, True, bag)
        if rows is None:
            return None
        if not rows:
            return ("none", None)
        _, kind, _, x, e = rows[0]
        if kind == 0:
            return ("play", x)
        from gamecore.equity import exchange_row

        alphabet = self.bundle.alphabet
        return ("exchange", exchange_row(rack, ["?" if t == 0 else alphabet[t - 1] for t in x], e).exchanged)

    def _search(self, board, rack, opponent_rack, limit, grid, prune, bag) -> list | None:
        """The C search's plays and exchanges as rows ``(-equity, 0 play / 1 exchange, order, play
        or kept tile numbers, equity)``, best first; None when it does not apply."""
        from gamecore import equity

        if not self.plain:
            return None
        idx = self._idx
        counts = [0] * (len(self.bundle.alphabet) + 1)
        blanks = 0
        klv_tiles = self._klv_tiles
        for t in rack:
            if t == "?":
                blanks += 1
            else:
                i = idx.get(t)
                if i is None or not klv_tiles[i]:
                    return None
                counts[i] += 1
        leaves, rules = self.leaves, self.rules
        ts = leaves.tile_set
        if opponent_rack:
            equity.check_opponent(board, rack, opponent_rack, ts, rules)
        if bag is None:
            bag = equity.bag_count(board, rack, ts, opponent_rack)
        outplay = 2 * equity.RESOLUTION * sum(ts.value(t) for t in opponent_rack if t != "?") if opponent_rack else 0
        pen_across: Sequence[int] = ()
        pen_down: Sequence[int] = ()
        if not grid.strip(b"\0") if isinstance(grid, bytes) else board.is_empty():
            if self._layout is None:
                self._layout = equity.opening_penalties(board.layout)
            pen_across, pen_down = self._layout
        assert self._pos is not None  # made in __init__ whenever self.plain
        self._pos.sync(encode_grid(board, self.bundle.alphabet) if grid is None else grid)
        most = equity.exchange_most(bag, opponent_rack, rules)
        nexch = limit if most else 0
        try:
            plays, eqs, exchanges = self._equity(counts, blanks, bag, outplay, pen_across, pen_down, nexch, limit, prune, most)
        except ValueError as exc:  # a leave value that is not a number of points: the reader's error
            number = str(exc).split("leave value number ")[-1].split()[0]
            if not number.isdigit():
                raise
            leaves.klv._checked(int(number) - 1)
            raise
        rows: list[tuple] = [(-e, 0, i, p, e) for i, (p, e) in enumerate(zip(plays, eqs, strict=True))]
        if exchanges:
            rows += [(-e, 1, j, kept, e) for j, (e, kept) in enumerate(exchanges)]
            rows.sort(key=lambda r: r[:3])
        return rows

    def _equity(self, counts, blanks, bag, outplay, pen_across, pen_down, nexch, limit, prune, most):
        assert self._pos is not None  # called by _search, after its sync
        return self._pos.equity(
            counts,
            blanks,
            self.leaves.native(),
            self._klv_tiles,
            bag=bag,
            outplay=outplay,
            vowels=self._vowels,
            pen_across=pen_across,
            pen_down=pen_down,
            exchanges=nexch,
            max_gone=most,
            limit=limit,
            prune=prune,
            tiles=self._table,
            play_type=ScoredPlay,
            bingo_index=self._index,
        )


_SEARCHES: dict[tuple[int, int, int, bool], EquitySearch] = {}


def equity_search(bundle: LexiconBundle, rules, leaves, folded: bool = False) -> EquitySearch:
    """The :class:`EquitySearch` of a lexicon, rule set and leave table (made once, then kept)."""
    key = (id(bundle), id(rules), id(leaves), folded)
    got = _SEARCHES.get(key)
    if got is None or got.bundle is not bundle or got.rules is not rules or got.leaves is not leaves:
        got = _SEARCHES[key] = EquitySearch(bundle, rules, leaves, folded)
    return got


def best_play(board: Board, rack: Sequence[str], bundle: LexiconBundle, rules) -> ScoredPlay | None:
    """The best play (the first of :func:`best_plays`), or None when there is none — for analysing
    many positions with one lexicon (``replay --analyze``, robots): the pruned search for the top
    play, with the lexicon's bingo index (made once per loaded lexicon, then kept).

    Raises:
        UsageError: impossible rack (see :func:`check_tiles`); DataError: a board letter outside the
        lexicon's alphabet.
    """
    if rules.min_word_length > 2:
        plays = best_plays(board, rack, bundle, rules, 1)
        return plays[0] if plays else None
    check_tiles(board, rack, rules)
    index = bundle.kwg.bingo_index(rules.bingo_min_tiles) if rules.bingo_bonus > 0 else None
    plays = generate_plays(board, rack, bundle.kwg, bundle.alphabet, rules, 1, index)
    return plays[0] if plays else None


class GameAnalyzer:
    """The best play turn after turn of one game (``replay --analyze``), the board kept in C between
    turns (:class:`gamecore.movegen.Position`: cross-checks updated per play) and given as the
    replay board's grid codes (``gamecore._scorer.ScoreBoard.grid()``: row by row, 0 empty, else the
    letter's 1-based index in the rule set's tile set, +0x40 for a blank, 63 for a letter the tile
    set lacks). :meth:`best` returns exactly what :func:`best_play` returns for the same position
    and rack, and raises the same errors.

    Args:
        bundle: the lexicon (:func:`load_bundle`); rules: the game's :class:`gamecore.rules.RuleSet`.
    """

    def __init__(self, bundle: LexiconBundle, rules):
        from gamecore import movegen

        self.bundle, self.rules = bundle, rules
        self.tile_set, self.layout = rules.tiles(), rules.layout()
        ts = self.tile_set
        idx = _index_map(bundle.alphabet)
        # scorer code -> generator code (lexicon index, +64 for a blank); 0xFF: not in the lexicon
        tr = bytearray([0xFF] * 256)
        tr[0] = 0
        self._label = {}  # scorer code -> the label used_counts() gives
        for i, label in enumerate(ts.letters, 1):
            j = idx.get(label)
            if j is not None:
                tr[i], tr[i | 64] = j, j | 64
            self._label[i], self._label[i | 64] = label, "?"
        self._tr = bytes(tr)
        # the generator's own search: plain scoring and the two-letter minimum; else best_play
        self._pure = rules.blank_value == "zero" and rules.word_premiums == "multiply" and rules.min_word_length <= 2
        if self._pure:
            values = [0] + [ts.value(label) for label in bundle.alphabet]
            self._pos = movegen.Position(bundle.kwg, self.layout, values, rules.bingo_bonus, rules.bingo_min_tiles)
            self._index = bundle.kwg.bingo_index(rules.bingo_min_tiles) if rules.bingo_bonus > 0 else None
            self._table = _tile_table(bundle.alphabet)
            self._idx = idx

    def board(self, codes: bytes) -> Board:
        """The position as a :class:`gamecore.board.Board`."""
        b = Board(self.layout, self.tile_set)
        size, letters = b.size, self.tile_set.letters
        for sq, g in enumerate(codes):
            if g:
                if (g & 63) > len(letters):
                    raise DataError(f"a tile at row {sq // size + 1}, column {sq % size + 1} is not in the tile set")
                b.place(sq // size, sq % size, letters[(g & 63) - 1], bool(g & 64))
        return b

    def best(self, codes: bytes, rack: Sequence[str]) -> ScoredPlay | None:
        """The best play on the board ``codes`` with ``rack`` (labels, ``?`` = blank), or None.

        Raises:
            UsageError: impossible rack (see :func:`check_tiles`); DataError: a board letter outside
            the lexicon's alphabet.
        """
        if not self._pure:
            return best_play(self.board(codes), rack, self.bundle, self.rules)
        used: dict[str, int] = {}
        label = self._label
        for code in set(codes):
            if code:
                if code not in label:
                    self.board(codes)  # raises DataError naming the square
                used[label[code]] = used.get(label[code], 0) + codes.count(code)
        _check_rack(self.tile_set, rack, self.rules, used)
        grid = codes.translate(self._tr)
        if b"\xff" in grid:
            sq = grid.index(b"\xff")
            size = self.layout.size
            raise DataError(
                f"tile {label.get(codes[sq], '?')} at row {sq // size + 1}, column {sq % size + 1} "
                f"is not in the lexicon's alphabet"
            )
        idx = self._idx
        counts = [0] * (len(self.bundle.alphabet) + 1)
        blanks = 0
        for t in rack:
            if t == "?":
                blanks += 1
            elif t in idx:
                counts[idx[t]] += 1
        self._pos.sync(grid)
        plays = self._pos.top(counts, blanks, limit=1, tiles=self._table, play_type=ScoredPlay, bingo_index=self._index)
        return plays[0] if plays else None


def robot_pick(
    plays: Sequence[ScoredPlay], robot: str, vocabulary=None, seed: int | None = None, pick_from: int | None = None
) -> ScoredPlay | None:
    """The play a Netskrafl robot makes from ``plays`` (sorted best first), or None (no legal play:
    the robot exchanges all tiles when the bag allows, else passes).

    Args:
        robot: ``fullsterkur``, ``midlungur`` or ``amlodi``.
        vocabulary: the robot's word list (``word in vocabulary``, lowercase); None = every word.
        seed: for ``random.Random`` (reproducible picks).
        pick_from: how many plays midlungur and amlodi pick among (default :data:`ROBOTS`'s, as
            Netskrafl's code; its FAQ says 10 and 20).
    Raises:
        UsageError: unknown robot.
    """
    import random

    if robot not in ROBOTS:
        raise UsageError(f"unknown robot {robot!r}; known: {', '.join(ROBOTS)}")
    if not plays:
        return None
    pick_from = ROBOTS[robot] if pick_from is None or ROBOTS[robot] == 0 else pick_from
    if pick_from == 0:
        return plays[0]
    chosen: list[ScoredPlay] = []
    for p in plays:
        main = p.words[0] if p.words else "".join(t.label.lower() for t in p.word)
        if len(p.word) != 2 and vocabulary is not None and main not in vocabulary:
            continue
        if len(chosen) == 1 and p.score == chosen[0].score:
            continue  # docs/NETSKRAFL.md: skip the second if it ties the first
        chosen.append(p)
        if len(chosen) >= pick_from:
            break
    if not chosen:
        return None
    return random.Random(seed).choice(chosen)


def leave_text(rack: Sequence[str], play: ScoredPlay, tile_set) -> str:
    """The tiles left on the rack, in alphabet order, blanks (``?``) last."""
    rest = play.leave(rack)
    order = {label: i for i, label in enumerate(tile_set.letters)}
    rest.sort(key=lambda t: order.get(t, len(order)))
    return "".join(t if t == "?" else tile_set.format_tile(t) for t in rest)
