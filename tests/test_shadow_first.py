"""The pruned search on the first move (see test_shadow.py for the rule checked: ``generate_top(...,
limit=K)`` is exactly the first K plays of full generation sorted). The first move takes every word
of the rack once from the DAWG and places it at each start covering the start square; for the best
K the rack's tiles are tried best value first and a word is not placed when no start can bring it
to the K-th best score so far (a bound per word length from the lane's premiums, kept between calls
for the same lane). Checked with racks of every shape (short, long, repeated letters, 0 to 2 blanks,
all blanks), several K, letter-valued blanks, every rule set's board, asymmetric and walled boards
(no mirror copy, starts that do not fit), and the same Position asked again with other racks.
"""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from test_shadow import RULE_SETS, SETTINGS, Lang, check_position, lang, sowpods_kwg, synthetic_kwg

from gamecore.movegen import MoveLayout, Position


def empty(lg: Lang):
    return [[0] * lg.cols for _ in range(lg.rows)]


def rack_of(lg: Lang, tiles):
    counts = [0] * (len(lg.letters) + 1)
    for t in tiles:
        if t:
            counts[t] += 1
    return counts, tiles.count(0)


def racks(lg: Lang, rng: random.Random, n: int):
    """Racks drawn from the bag, and some of every length, with repeated letters and blanks."""
    out = []
    for _ in range(n):
        size = rng.choice([1, 2, 3, 5, lg.rack_size, lg.rack_size])
        tiles = rng.sample(lg.bag, min(size, len(lg.bag)))
        out.append(tiles)
    letters = [t for t in lg.bag if t]
    out.append([rng.choice(letters)] * 3 + [rng.choice(letters)] * 2)  # repeated letters
    out.append([0, 0])  # two blanks only
    out.append([0] + rng.sample(letters, lg.rack_size - 1))
    out.append([0, 0] + rng.sample(letters, lg.rack_size - 2))
    return out


@SETTINGS
@given(rules_name=st.sampled_from(RULE_SETS), seed=st.integers(0, 2**32 - 1))
def test_first_move_every_rack_shape(rules_name, seed):
    lg = lang(rules_name)
    kwg = synthetic_kwg(rules_name)
    index = kwg.bingo_index(lg.bingo_tiles)
    rng = random.Random(seed)
    for tiles in racks(lg, rng, 4):
        counts, blanks = rack_of(lg, tiles)
        check_position(lg, kwg, empty(lg), counts, blanks, True, ks=(1, 2, 3, 10), index=index)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_first_move_letter_valued_blanks(seed):
    lg = lang("wespa")
    kwg = synthetic_kwg("wespa")
    rng = random.Random(seed)
    for tiles in racks(lg, rng, 3):
        counts, blanks = rack_of(lg, tiles)
        check_position(lg, kwg, empty(lg), counts, blanks, True, ks=(1, 2, 3, 10), blank_letter_value=True)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), text=st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ??", min_size=1, max_size=7))
def test_first_move_sowpods_any_rack(seed, text):
    kwg = sowpods_kwg()
    if kwg is None:
        return
    lg = lang("wespa")
    counts = [0] * 27
    for ch in text.replace("?", ""):
        counts[ord(ch) - 64] += 1
    check_position(lg, kwg, empty(lg), counts, text.count("?"), True, ks=(1, 2, 3, 10), index=kwg.bingo_index())


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), walls=st.integers(1, 10), shift=st.integers(0, 1))
def test_first_move_walled_and_asymmetric_boards(seed, walls, shift):
    """Blocked squares near the start square (some word lengths fit no start) and premiums moved
    off the diagonal (the down plays are searched, not copied)."""
    lg = lang("wespa")
    kwg = synthetic_kwg("wespa")
    rng = random.Random(seed)
    sr, sc = lg.layout.start
    blocked = {(sr + rng.randint(-4, 4), sc + rng.randint(-4, 4)) for _ in range(walls)} - {(sr, sc)}
    lm = [list(row) for row in lg.layout.letter_mult]
    wm = [list(row) for row in lg.layout.word_mult]
    if shift:
        lm[sr][min(sc + 2, lg.cols - 1)] = 3
        wm[max(sr - 3, 0)][sc] = 3
    walled = Lang.__new__(Lang)
    walled.__dict__.update(lg.__dict__)
    walled.layout = MoveLayout(lm, wm, lg.layout.start, blocked)
    for tiles in racks(lg, rng, 3):
        counts, blanks = rack_of(lg, tiles)
        check_position(walled, kwg, empty(lg), counts, blanks, True, ks=(1, 2, 3, 10))


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_first_move_same_position_again(seed):
    """One Position asked for the best plays of many racks in turn, and Positions of two layouts
    in turn (the per-lane bound tables kept between calls must follow the lane)."""
    lg = lang("wespa")
    kwg = synthetic_kwg("wespa")
    rng = random.Random(seed)
    sr, sc = lg.layout.start
    lm = [list(row) for row in lg.layout.letter_mult]
    lm[sr][sc - 1], lm[sr][sc + 3] = 3, 2  # the start square's lanes, premiums changed
    lm[sr - 2][sc] = 3
    other = MoveLayout(lm, lg.layout.word_mult, lg.layout.start)
    walled = MoveLayout(lg.layout.letter_mult, lg.layout.word_mult, lg.layout.start, {(sr, sc + 2)})
    a = Position(kwg, lg.layout, lg.values, lg.bingo, lg.bingo_tiles)
    b = Position(kwg, other, lg.values, lg.bingo, lg.bingo_tiles)
    c = Position(kwg, walled, lg.values, lg.bingo, lg.bingo_tiles)
    for tiles in racks(lg, rng, 4):
        counts, blanks = rack_of(lg, tiles)
        for pos in (a, b, a, c, a):
            full = [tuple(m) for m in pos.top(counts, blanks)]
            for k in (1, 3):
                assert [tuple(m) for m in pos.top(counts, blanks, limit=k)] == full[:k]
