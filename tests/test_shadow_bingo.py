"""The pruned search's bingos (see test_shadow.py for the rule checked: ``generate_top(..., limit=K)``
is exactly the first K plays of full generation sorted). A rack that can make a bingo has each
anchor's bingos bounded and searched apart from its shorter plays, and with a bingo index a blank in
those bingos stands only for letters some word of the rack and the span's board tiles takes. Checked
here where that matters most: lexicons rich in long words, racks of one and two blanks, blanks worth
their letter's value, and bingo rules other than "the whole rack" (a bingo below the rack size, a
bingo above it).
"""

from __future__ import annotations

import random
from functools import lru_cache

from hypothesis import given
from hypothesis import strategies as st
from test_shadow import SETTINGS, Lang, check_position, lang, positions

from gamecore.kwg import Kwg


@lru_cache(maxsize=None)
def bingo_kwg(name: str) -> Kwg:
    """Every two-letter word of the common letters (dense boards) and many words of 7 and 8
    letters drawn from the bag (bingos through and beside board tiles), a few shorter ones."""
    lg = lang(name)
    rng = random.Random(f"bingo/{name}")
    pool = [t for t in lg.bag if t]
    common = sorted(set(pool), key=lambda t: -pool.count(t))[:10]
    words = {(a, b) for a in common for b in common if rng.random() < 0.5}
    while len(words) < 6000:
        n = rng.choice([3, 4, 5, 6, 7, 7, 7, 8, 8, 8])
        words.add(tuple(rng.choice(pool) for _ in range(n)))
    return Kwg.from_words(["".join(lg.letters[t - 1] for t in w) for w in words], lg.letters)


def with_blanks(counts, blanks, rng, want):
    """The rack with up to ``want`` blanks in all (tiles turned into blanks)."""
    counts = counts[:]
    tiles = [t for t, c in enumerate(counts) for _ in range(c)]
    rng.shuffle(tiles)
    while blanks < want and tiles:
        counts[tiles.pop()] -= 1
        blanks += 1
    return counts, blanks


def variant(lg: Lang, bingo_tiles: int) -> Lang:
    out = Lang.__new__(Lang)
    out.__dict__.update(lg.__dict__)
    out.bingo_tiles = bingo_tiles
    return out


@SETTINGS
@given(
    rules_name=st.sampled_from(["wespa", "netskrafl", "russian_scrabble"]),
    seed=st.integers(0, 2**32 - 1),
    turns=st.integers(1, 14),
    blanks=st.integers(1, 2),
)
def test_bingos_with_blanks(rules_name, seed, turns, blanks):
    lg = lang(rules_name)
    kwg = bingo_kwg(rules_name)
    index = kwg.bingo_index(lg.bingo_tiles)
    rng = random.Random(seed)
    for grid, counts, b, first in positions(lg, kwg, seed, turns):
        counts, b = with_blanks(counts, b, rng, blanks)
        check_position(lg, kwg, grid, counts, b, first, ks=(1, 2, 3, 10), index=index)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 12), blanks=st.integers(0, 2))
def test_bingos_with_letter_valued_blanks(seed, turns, blanks):
    lg = lang("wespa")
    kwg = bingo_kwg("wespa")
    index = kwg.bingo_index(lg.bingo_tiles)
    rng = random.Random(seed)
    for grid, counts, b, first in positions(lg, kwg, seed, turns):
        counts, b = with_blanks(counts, b, rng, blanks)
        check_position(lg, kwg, grid, counts, b, first, ks=(1, 3, 10), index=index, blank_letter_value=True)


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    turns=st.integers(1, 12),
    bingo_tiles=st.sampled_from([5, 6, 8]),
    blanks=st.integers(0, 2),
)
def test_bingo_rules_other_than_the_whole_rack(seed, turns, bingo_tiles, blanks):
    """bingo_tiles below the rack size (a bingo need not take every tile: no blank is held back)
    and above it (no bingo at all), with an index of the words of at least bingo_tiles letters."""
    lg = variant(lang("wespa"), bingo_tiles)
    kwg = bingo_kwg("wespa")
    index = kwg.bingo_index(bingo_tiles)
    rng = random.Random(seed)
    for grid, counts, b, first in positions(lg, kwg, seed, turns):
        counts, b = with_blanks(counts, b, rng, blanks)
        check_position(lg, kwg, grid, counts, b, first, ks=(1, 2, 10), index=index)
