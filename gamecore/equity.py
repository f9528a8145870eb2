"""Static equity: a play's score plus the value of the tiles it keeps, and MAGPIE's static terms.

The static equity of a move (MAGPIE ``src/ent/static_eval.h``, ``src/impl/move_gen.c``), in
thousandths of a point (MAGPIE's unit, so that sums are exact and agree with it to the digit):

- a tile placement: its score, plus
  - while the bag holds tiles: the leave's value from the leave file (:class:`gamecore.klv.Klv`;
    a leave the file lacks, and the empty leave, are worth 0). MAGPIE's pre-endgame table
    (``peg_adjust_values``) is all zeros, so it adds nothing;
  - when the bag is empty: a play that does not go out loses twice the points of the tiles it
    keeps and 10 more; one that goes out gains twice the points on the opponent's rack (as given
    by the position; none when it is not known);
  - on the empty board (the opening play): for each vowel it places (a blank standing for a vowel
    counts), the squares beside the start square's row (across) or column (down) in its column or
    row: -0.35 per extra letter or word multiple of each (a double letter -0.35, a triple word
    -0.7; MAGPIE ``board_apply_layout``: ``OPENING_HOTSPOT_PENALTY`` -0.7, halved);
- an exchange: score 0 plus the value of the tiles kept; exchanges are listed when at least
  ``rack_size + exchange_min_bag`` tiles are unseen (in the bag or on the opponent's rack: MAGPIE
  asks for 2 × 7), every distinct set of one or more tiles of the rack.

The pass (MAGPIE lists it with the equity -1000) is not listed.

The bag: the tile set's tiles less those on the board, on the rack and on the opponent's rack
when the position gives it (a CGP's second rack), as MAGPIE counts it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product
from typing import Sequence

from gamecore.errors import DataError, UsageError
from gamecore.klv import RESOLUTION, Klv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gamecore.play import ScoredPlay

#: MAGPIE static_eval_defs.h
OPENING_HOTSPOT_PENALTY = -700
NON_OUTPLAY_CONSTANT_PENALTY = 10 * RESOLUTION


class LeaveTable:
    """A leave file read against a tile set: labels (``?`` = blank) → thousandths of a point.

    Raises:
        DataError: the file's tiles do not fit the tile set (a tile number past its letters).
    """

    def __init__(self, klv: Klv, tile_set):
        letters = len(tile_set.letters)
        if klv.max_tile > letters:
            raise DataError(
                f"the leave file's tiles do not fit the tile set {tile_set.name}: it uses tile number "
                f"{klv.max_tile}, the set has {letters} letters (numbered 1..{letters}, 0 = blank)",
                klv.path,
            )
        self.klv, self.tile_set = klv, tile_set
        self._cache: dict[tuple[int, ...], int] = {}
        self._native = None
        self._lexicon: dict[tuple[str, ...], tuple[bytes, int]] = {}

    def native(self):
        """The leave file in C (``gamecore._native.Leaves``, made once) for the move generator's
        equity search (:meth:`gamecore.movegen.Position.equity`)."""
        if self._native is None:
            from array import array

            from gamecore.kwg import native_core

            klv = self.klv
            self._native = native_core().Leaves(
                array("I", klv.nodes).tobytes(), array("I", klv._counts).tobytes(), array("f", klv.values).tobytes()
            )
        return self._native

    def for_lexicon(self, alphabet: Sequence[str]) -> tuple[bytes, int]:
        """For a lexicon's tile numbers (1.. in ``alphabet`` order): 64 bytes giving each one's number
        in the leave file (0 when the tile set lacks it), and the mask of those that are vowels."""
        key = tuple(alphabet)
        got = self._lexicon.get(key)
        if got is None:
            ts = self.tile_set
            table = bytearray(64)
            vowels = 0
            for i, label in enumerate(alphabet[:63], 1):
                table[i] = ts.index(label) or 0
                if label in ts.vowels:
                    vowels |= 1 << i
            got = self._lexicon[key] = (bytes(table), vowels)
        return got

    def tiles(self, labels: Sequence[str]) -> tuple[int, ...]:
        """Labels → the file's tile numbers, ascending (a label the set lacks raises DataError)."""
        out = []
        for t in labels:
            if t == "?":
                out.append(0)
            else:
                i = self.tile_set.index(t)
                if not i:
                    raise DataError(f"tile {t!r} is not in the tile set {self.tile_set.name}")
                out.append(i)
        return tuple(sorted(out))

    def milli(self, labels: Sequence[str]) -> int:
        key = self.tiles(labels)
        v = self._cache.get(key)
        if v is None:
            v = self._cache[key] = self.klv.milli(key)
        return v

    def labels(self, tiles: Sequence[int]) -> str:
        """Tile numbers → text (alphabet order, blanks ``?`` last, as ``best`` writes leaves)."""
        letters = self.tile_set.letters
        ordered = sorted(tiles, key=lambda t: (t == 0, t))
        return "".join("?" if t == 0 else self.tile_set.format_tile(letters[t - 1]) for t in ordered)


@dataclass(frozen=True)
class Ranked:
    """One row of an equity ranking: a tile placement (``play``) or an exchange (``exchanged``)."""

    kind: str  # "play" or "exchange"
    score: int
    milli: int  # static equity, thousandths of a point
    leave: tuple[str, ...]
    play: ScoredPlay | None = None  # for a placement
    exchanged: tuple[str, ...] = field(default=())

    @property
    def equity(self) -> float:
        return self.milli / RESOLUTION


def opening_penalties(layout) -> tuple[list[int], list[int]]:
    """Per column (across plays) and per row (down plays): the thousandths a vowel placed there
    costs on the empty board (MAGPIE ``board_apply_layout``)."""
    size = layout.size
    sr, sc = layout.start
    across, down = [0] * size, [0] * size
    half = OPENING_HOTSPOT_PENALTY // 2

    def pen(r: int, c: int) -> int:
        if (r, c) in layout.blocked:
            return 0
        return half * (layout.word_mult[r][c] - 1) + half * (layout.letter_mult[r][c] - 1)

    for r in (sr - 1, sr + 1):
        if 0 <= r < size:
            for c in range(size):
                across[c] += pen(r, c)
    for c in (sc - 1, sc + 1):
        if 0 <= c < size:
            for r in range(size):
                down[r] += pen(r, c)
    return across, down


def bag_count(board, rack: Sequence[str], tile_set, opponent_rack: Sequence[str] = ()) -> int:
    """Tiles in the bag: the set's tiles less the board's, the rack's and the opponent's rack's."""
    return tile_set.total - board.tile_count() - len(rack) - len(opponent_rack)


def check_opponent(board, rack: Sequence[str], opponent: Sequence[str], tile_set, rules) -> None:
    """Raise UsageError when the opponent's rack is too long, or board and both racks hold more of a
    tile than the tile set has."""
    if not opponent:
        return
    if len(opponent) > rules.rack_size:
        raise UsageError(f"the opponent's rack has {len(opponent)} tiles; the rule set {rules.name} allows {rules.rack_size}")
    held = dict(board.used_counts())
    for t in list(rack) + list(opponent):
        held[t] = held.get(t, 0) + 1
    for t, n in sorted(held.items()):
        have = tile_set.blanks if t == "?" else tile_set.counts.get(t, 0)
        if n > have:
            name = "blanks" if t == "?" else repr(t)
            raise UsageError(f"board and both racks hold {n} × {name}, but tile set {tile_set.name} has only {have}")


def _exchanges(rack: Sequence[str]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Every distinct (exchanged, kept) split of the rack with at least one tile exchanged."""
    kinds = sorted(set(rack))
    counts = [rack.count(k) for k in kinds]
    out = []
    for kept_n in product(*(range(n + 1) for n in counts)):
        if sum(kept_n) == len(rack):
            continue
        kept = tuple(k for k, n in zip(kinds, kept_n, strict=True) for _ in range(n))
        gone = tuple(k for k, n, m in zip(kinds, kept_n, counts, strict=True) for _ in range(m - n))
        out.append((gone, kept))
    return out


def exchanges_listed(bag: int, opponent_rack: Sequence[str], rules) -> bool:
    """Whether :func:`rank` lists exchanges: ``rack_size + exchange_min_bag`` tiles unseen (MAGPIE)."""
    return bag + len(opponent_rack) - rules.rack_size >= max(rules.exchange_min_bag, 1)


def exchange_most(bag: int, opponent_rack: Sequence[str], rules) -> int:
    """The most tiles one exchange may give back: the tiles in the bag as MAGPIE counts it (the
    unseen tiles less a full rack for the opponent), since the new tiles come from the bag; 0 when
    :func:`exchanges_listed` lists none."""
    if not exchanges_listed(bag, opponent_rack, rules):
        return 0
    return bag + len(opponent_rack) - rules.rack_size


def exchange_row(rack: Sequence[str], kept: Sequence[str], milli: int) -> Ranked:
    """The exchange that keeps ``kept`` (labels) of ``rack``, as :func:`rank` lists it."""
    kinds = sorted(set(rack))
    left = {k: rack.count(k) for k in kinds}
    for t in kept:
        left[t] -= 1
    kept_t = tuple(k for k in kinds for _ in range(rack.count(k) - left[k]))
    gone = tuple(k for k in kinds for _ in range(left[k]))
    return Ranked("exchange", 0, milli, kept_t, exchanged=gone)


def kept_tiles(rack: Sequence[str], play) -> tuple[str, ...]:
    """The rack less the tiles ``play`` uses, in the rack's order (as :func:`rank` gives a leave)."""
    kept = list(rack)
    for u in sorted(play.used()):
        kept.remove(u)
    return tuple(kept)


def rank(board, rack: Sequence[str], plays, leaves: LeaveTable, rules, opponent_rack: Sequence[str] = ()) -> list[Ranked]:
    """Every play of ``plays`` and every exchange the bag allows, by static equity, best first.

    Order: equity descending; then placements before exchanges; placements in their given order
    (``plays`` best first by score: score, fewer tiles, coordinate, word), exchanges with fewer
    tiles exchanged first, then by the tiles' alphabet order.
    """
    ts = leaves.tile_set
    check_opponent(board, rack, opponent_rack, ts, rules)
    bag = bag_count(board, rack, ts, opponent_rack)
    opening = board.is_empty()
    across, down = opening_penalties(board.layout) if opening else ([], [])
    vowels = ts.vowels
    rows: list[tuple] = []
    # the leave's kept tiles and its equity term, once per distinct set of tiles used (at most 2^7)
    terms: dict[tuple[str, ...], tuple[tuple[str, ...], int]] = {}
    outplay = 2 * RESOLUTION * sum(ts.value(t) for t in opponent_rack if t != "?")
    for i, p in enumerate(plays):
        used = tuple(sorted(p.used()))
        term = terms.get(used)
        if term is None:
            kept_list = list(rack)
            for u in used:
                kept_list.remove(u)
            kept_t = tuple(kept_list)
            if bag > 0:
                v = leaves.milli(kept_t) if kept_t else 0
            elif kept_t:
                v = -2 * RESOLUTION * sum(ts.value(t) for t in kept_t if t != "?") - NON_OUTPLAY_CONSTANT_PENALTY
            else:
                v = outplay
            term = terms[used] = (kept_t, v)
        kept, v = term
        eq = p.score * RESOLUTION + v
        if opening:
            table, start = (across, p.col) if p.across else (down, p.row)
            for j, (t, new) in enumerate(zip(p.word, p.new, strict=True)):
                if new and t.label in vowels:
                    eq += table[start + j]
        rows.append((-eq, 0, i, Ranked("play", p.score, eq, kept, play=p)))
    most = exchange_most(bag, opponent_rack, rules)
    if most:
        order = {label: i for i, label in enumerate(ts.letters, 1)}
        for gone, kept in _exchanges(list(rack)):
            if len(gone) > most:
                continue
            eq = leaves.milli(kept) if kept else 0
            key = (len(gone), sorted(order.get(t, 0) or len(order) + 1 for t in gone))
            rows.append((-eq, 1, key, Ranked("exchange", 0, eq, kept, exchanged=gone)))
    rows.sort(key=lambda r: r[:3])
    return [r[3] for r in rows]
