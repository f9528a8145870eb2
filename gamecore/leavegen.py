"""Leave generation, the game-core side: every leave of a tile set, and what a self-play game tells
about the leaves its players kept (``skrafl leaves build``; the estimation is in
:mod:`pipelines.leaves_build`).

A *leave* is the multiset of tiles a player keeps after a move, written as tile numbers in ascending
order (``0`` the blank, ``1..`` the letters in alphabet order), as a KLV2 file holds it
(:mod:`gamecore.klv`). A tile set with rack size R has a value for every leave of 1..R-1 tiles
that its counts allow (English: 914,624, as MAGPIE-DATA's CSW21.klv2).

What a game tells (:func:`add_rack_equities`, MAGPIE's leavegen): each move made from a full rack
while the bag is not near its end has an equity, its score plus the value of the tiles it kept. A
leave is worth the mean equity of the racks that hold it, less the mean equity of all racks: the
empty leave (seven fresh tiles) is worth 0, as in every KLV2 file.
"""

from __future__ import annotations

from math import comb
from typing import Iterator, Sequence

from gamecore.game_state import Exchange, Play


def tile_counts(tile_set) -> list[int]:
    """Tiles in the bag per tile number: ``[blanks, count of letter 1, ...]``."""
    return [tile_set.blanks] + [tile_set.counts.get(label, 0) for label in tile_set.letters]


def all_leaves(tile_set, max_tiles: int) -> Iterator[tuple[int, ...]]:
    """Every leave of 1..``max_tiles`` tiles the tile set's counts allow, in ascending order (the
    order of a KLV2 file's words)."""
    counts = tile_counts(tile_set)
    kinds = len(counts)
    cur: list[int] = []

    def extend(first: int) -> Iterator[tuple[int, ...]]:
        for t in range(first, kinds):
            held = 0
            for x in reversed(cur):
                if x != t:
                    break
                held += 1
            if held >= counts[t]:
                continue
            cur.append(t)
            yield tuple(cur)
            if len(cur) < max_tiles:
                yield from extend(t)
            cur.pop()

    if max_tiles >= 1:
        yield from extend(0)


def leave_count(tile_set, max_tiles: int) -> int:
    """How many leaves :func:`all_leaves` gives (counted, not listed)."""
    counts = tile_counts(tile_set)
    ways = [1] + [0] * max_tiles  # ways[n]: multisets of n tiles over the kinds seen so far
    for c in counts:
        new = [0] * (max_tiles + 1)
        for n, w in enumerate(ways):
            if w:
                for k in range(min(c, max_tiles - n) + 1):
                    new[n + k] += w
        ways = new
    return sum(ways[1:])


def tile_numbers(tile_set, labels: Sequence[str]) -> tuple[int, ...]:
    """Rack labels (``?`` the blank) → ascending tile numbers."""
    return tuple(sorted(0 if t == "?" else tile_set.index(t) for t in labels))


def game_turns(state, tile_set) -> list[tuple[int, tuple[int, ...], tuple[int, ...] | None, int, int]]:
    """The moves of a finished game as ``(player, rack, leave, score, bag_before)``: the mover's
    rack and the tiles it kept (None for a pass), as tile numbers, the move's score and the tiles
    in the bag before the move."""
    firsts: dict[int, int] = {}  # each player's first rack: the tiles drawn before the first move
    for rec in state.history:
        firsts.setdefault(rec.event.player, len(rec.rack))
    bag = tile_set.total - sum(firsts.values())
    out: list[tuple[int, tuple[int, ...], tuple[int, ...] | None, int, int]] = []
    for rec in state.history:
        ev = rec.event
        before = bag
        if isinstance(ev, Play):
            used = list(ev.play.used())
            bag -= len(rec.drawn)
        elif isinstance(ev, Exchange):
            used = list(ev.tiles)
        else:
            out.append((ev.player, tile_numbers(tile_set, rec.rack), None, rec.score, before))
            continue
        kept = list(rec.rack)
        for u in used:
            kept.remove(u)
        out.append((ev.player, tile_numbers(tile_set, rec.rack), tile_numbers(tile_set, kept), rec.score, before))
    return out


def sub_leaves(rack: Sequence[int], max_tiles: int) -> list[tuple[tuple[int, ...], int]]:
    """Every distinct leave of 1..``max_tiles`` tiles a rack (ascending tile numbers) holds, with
    the number of ways the rack holds it (a rack with two blanks holds the leave ``?`` twice: each
    blank can be the one kept). Weighting a rack's equity by these counts makes the mean over the
    racks holding a leave the mean over "the leave plus a random draw", as MAGPIE's leavegen weighs
    every rack by the ways to draw it."""
    kinds: list[int] = []
    counts: list[int] = []
    for t in rack:
        if kinds and kinds[-1] == t:
            counts[-1] += 1
        else:
            kinds.append(t)
            counts.append(1)
    subs: list[tuple[tuple[int, ...], int]] = [((), 1)]
    for t, c in zip(kinds, counts, strict=True):
        subs = [(s + (t,) * j, w * comb(c, j)) for s, w in subs for j in range(c + 1) if len(s) + j <= max_tiles]
    return [x for x in subs if x[0]]


def add_rack_equities(agg: dict, turns: Sequence[tuple], values, rack_size: int) -> tuple[int, float]:
    """Add one game's racks to ``agg`` (leave → ``[n, sum, sum of squares]``): every move made from
    a full rack with at least ``rack_size`` tiles in the bag has the equity ``score + value(kept)``
    (``values``: kept tiles → points), counted for every leave the rack holds (MAGPIE's leavegen:
    a leave is worth the mean equity of the racks that hold it, less the mean of all racks).
    Returns the racks counted and the sum of their equities."""
    racks = 0
    total = 0.0
    for _, rack, kept, score, bag in turns:
        if kept is None or len(rack) != rack_size or bag < rack_size:
            continue
        e = score + (values(kept) if kept else 0.0)
        racks += 1
        total += e
        ee = e * e
        for leave, ways in sub_leaves(rack, rack_size - 1):
            a = agg.get(leave)
            if a is None:
                agg[leave] = [ways, ways * e, ways * ee]
            else:
                a[0] += ways
                a[1] += ways * e
                a[2] += ways * ee
    return racks, total
