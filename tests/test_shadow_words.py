"""The pruned search with the bingo index's word map (see test_shadow.py for the rule checked:
``generate_top(..., limit=K)`` is exactly the first K plays of full generation sorted).

``Kwg.bingo_index()`` also holds every word of up to ``min_len + 1`` letters grouped by multiset
hash. With it and a rack without a blank, a span that can still make the cut is scored word by
word before its anchor is searched (the rack's sub-racks that make a word with the span's board
tiles, each word tried against the board tiles and cross-checks), and the first move reads its
words from the map instead of walking the DAWG. Checked here where that can go wrong: racks of
repeated letters (sub-racks counted once each), lexicons dense in anagrams and short words, spans
through board tiles (blanks among them, letter-valued blanks), bingos, the first move of every
rack shape, the same Position asked again, and an index that is not the graph's.
"""

from __future__ import annotations

import random
from functools import lru_cache

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_shadow import SETTINGS, Lang, full_key, lang, positions, sowpods_kwg, synthetic_kwg

from gamecore.kwg import Kwg
from gamecore.movegen import Position, generate, generate_top


@lru_cache(maxsize=None)
def anagram_kwg(name: str) -> Kwg:
    return Kwg.from_words(["".join(lang(name).letters[t - 1] for t in w) for w in anagram_words(name)], lang(name).letters)


@lru_cache(maxsize=None)
def anagram_words(name: str) -> list[tuple[int, ...]]:
    """Words of 2 to 9 letters over the bag's eight commonest letters, each also with some of its
    anagrams: many sub-racks make words, often several words of one multiset."""
    lg = lang(name)
    rng = random.Random(f"anagram/{name}")
    pool = [t for t in lg.bag if t]
    common = sorted(set(pool), key=lambda t: -pool.count(t))[:8]
    words: set[tuple[int, ...]] = set()
    while len(words) < 5000:
        w = [rng.choice(common) for _ in range(rng.choice([2, 2, 3, 3, 4, 5, 6, 7, 8, 9]))]
        words.add(tuple(w))
        for _ in range(rng.choice([0, 1, 3])):
            rng.shuffle(w)
            words.add(tuple(w))
    return sorted(words)


def without_blanks(lg: Lang, counts, blanks, rng):
    """The rack with its blanks turned into letters of the bag."""
    counts = counts[:]
    for _ in range(blanks):
        counts[rng.choice([t for t in lg.bag if t])] += 1
    return counts, 0


def check(lg: Lang, kwg: Kwg, grid, counts, blanks, first, index, ks=(1, 2, 3, 5, 10), blank_letter_value=False):
    args = (kwg, grid, counts, blanks, lg.layout, lg.values, lg.bingo, first, lg.bingo_tiles, blank_letter_value)
    want = [tuple(m) for m in sorted(generate(*args), key=full_key)]
    pos = Position(kwg, lg.layout, lg.values, lg.bingo, lg.bingo_tiles, blank_letter_value, grid=None if first else grid)
    for k in ks:
        assert [tuple(m) for m in generate_top(*args, limit=k, bingo_index=index)] == want[:k], (k, "index")
        assert [tuple(m) for m in pos.top(counts, blanks, limit=k, bingo_index=index)] == want[:k], (k, "position")


@pytest.mark.parametrize("rules_name", ["wespa", "netskrafl", "russian_scrabble", "erudit", "scrabble9"])
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 16))
def test_word_map_top_k_equals_full_generation(rules_name, seed, turns):
    lg = lang(rules_name)
    rng = random.Random(seed)
    for kwg in (anagram_kwg(rules_name), synthetic_kwg(rules_name)):
        index = kwg.bingo_index(lg.bingo_tiles)
        for grid, counts, blanks, first in positions(lg, kwg, seed, turns):
            counts, blanks = without_blanks(lg, counts, blanks, rng)
            check(lg, kwg, grid, counts, blanks, first, index)


@pytest.mark.parametrize("rules_name", ["wespa", "netskrafl", "scrabble9"])
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 14))
def test_word_map_bingos(rules_name, seed, turns):
    """Racks that are a word of the lexicon, or a word but one letter (a bingo through or beside a
    board tile): the bingo bonus in a span's scored plays."""
    lg = lang(rules_name)
    kwg = anagram_kwg(rules_name)
    index = kwg.bingo_index(lg.bingo_tiles)
    rng = random.Random(seed)
    long = [w for w in anagram_words(rules_name) if lg.bingo_tiles <= len(w) <= lg.bingo_tiles + 1]
    for grid, _, _, first in positions(lg, kwg, seed, turns):
        w = list(rng.choice(long))
        rng.shuffle(w)
        counts = [0] * (len(lg.letters) + 1)
        for t in w[: min(len(w), lg.rack_size, lg.bingo_tiles + rng.choice([0, 0, 1]))]:
            counts[t] += 1
        check(lg, kwg, grid, counts, 0, first, index, ks=(1, 2, 5))


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 20), blv=st.booleans())
def test_word_map_real_words(seed, turns, blv):
    """The shared SOWPODS-derived word lists (many short words, real anagrams), blanks on the board
    (scored at their letter's value or not), racks without a blank."""
    kwg = sowpods_kwg()
    if kwg is None:
        pytest.skip("../shared is not present")
    lg = lang("wespa")
    rng = random.Random(seed)
    index = kwg.bingo_index(lg.bingo_tiles)
    for grid, counts, blanks, first in positions(lg, kwg, seed, turns):
        counts, blanks = without_blanks(lg, counts, blanks, rng)
        check(lg, kwg, grid, counts, blanks, first, index, ks=(1, 4, 10), blank_letter_value=blv)


@pytest.mark.parametrize("rules_name", ["wespa", "netskrafl", "scrabble9"])
@SETTINGS
@given(data=st.data())
def test_word_map_first_move(rules_name, data):
    """The first move from the map: racks of one to the rack size tiles, repeated letters, every K."""
    lg = lang(rules_name)
    kwg = anagram_kwg(rules_name)
    index = kwg.bingo_index(lg.bingo_tiles)
    pool = sorted({t for t in lg.bag if t})
    letters = data.draw(st.lists(st.sampled_from(pool[:10]), min_size=1, max_size=lg.rack_size))
    counts = [0] * (len(lg.letters) + 1)
    for t in letters:
        counts[t] += 1
    grid = [[0] * lg.cols for _ in range(lg.rows)]
    check(lg, kwg, grid, counts, 0, True, index, ks=(1, 2, 7, 30))


def test_index_of_another_graph_is_not_used():
    """An index made for another lexicon is left out (its words would be wrong here): the result is
    the graph's own."""
    lg = lang("wespa")
    kwg, other = anagram_kwg("wespa"), synthetic_kwg("wespa")
    foreign = other.bingo_index(lg.bingo_tiles)
    rng = random.Random(7)
    for grid, counts, blanks, first in positions(lg, kwg, 11, 12):
        counts, blanks = without_blanks(lg, counts, blanks, rng)
        check(lg, kwg, grid, counts, blanks, first, foreign, ks=(1, 3))


def test_damaged_index_is_refused():
    lg = lang("wespa")
    kwg = anagram_kwg("wespa")
    index = kwg.bingo_index(lg.bingo_tiles)
    grid = [[0] * lg.cols for _ in range(lg.rows)]
    counts = [0] * (len(lg.letters) + 1)
    counts[1] = counts[5] = 1
    args = (kwg, grid, counts, 0, lg.layout, lg.values, lg.bingo, True, lg.bingo_tiles)
    for bad in (index[:-8], index + bytes(8), index[:8] + (2**40).to_bytes(8, "little") + index[16:]):
        with pytest.raises(ValueError, match="not a bingo index"):
            generate_top(*args, limit=1, bingo_index=bad)
