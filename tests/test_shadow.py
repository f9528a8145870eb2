"""The pruned best-play search: ``gamecore.movegen.generate_top(..., limit=K)`` must give exactly
the first K plays of full generation sorted best first (score descending, fewer tiles, row, column,
across before down, letters) — same plays, same scores, same order — however much it prunes.

The search bounds every anchor's spans (the rack's best values on the best multipliers, the bingo
bonus where a span takes bingo_tiles tiles), searches anchors best bound first, prunes inside an
anchor by its span bounds, skips bingo spans that no word fits (with a bingo index), and stops when
the best bound left is below the K-th best score found. Each of those is checked here against full
generation (``generate``, the generator's own complete list, itself checked against the reference
lists and the brute force in test_movegen / test_best) on random positions reached by random
self-play, in every language's rule set (its alphabet, tile values, bag and board): synthetic
lexicons drawn from the tile frequencies (dense boards, many cross-words, some bingos), the shared
SOWPODS-derived word lists, and the built Icelandic lexicon when ``make run`` has made it.
"""

from __future__ import annotations

import os
import random
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamecore.kwg import Kwg
from gamecore.movegen import MoveLayout, generate, generate_top, last_stats
from gamecore.rules import load_rules

PROJECT = Path(__file__).resolve().parents[1]
SHARED_POSITIONS = PROJECT.parent / "shared" / "corpora" / "positions"
RULE_SETS = ["wespa", "netskrafl", "ordspill", "russian_scrabble", "slovene", "erudit", "scrabble9"]


def full_key(m):
    return (-m.score, m.tiles_placed, m.row, m.col, not m.across, m.letters)


class Lang:
    """A rule set's alphabet (or a lexicon's, ``letters``), values, bag and layout as the
    generator's plain arrays."""

    def __init__(self, rules_name: str, letters=None):
        rules = load_rules(rules_name)
        ts = rules.tiles()
        self.name = rules_name
        self.letters = list(letters or ts.letters)
        self.values = [0] + [ts.value(x) for x in self.letters]
        self.bag = [i for i, x in enumerate(self.letters, 1) for _ in range(ts.counts.get(x, 0))] + [0] * ts.blanks
        lay = rules.layout()
        self.layout = MoveLayout(lay.letter_mult, lay.word_mult, lay.start, lay.blocked)
        self.rows, self.cols = len(lay.letter_mult), len(lay.letter_mult[0])
        self.bingo = rules.bingo_bonus
        self.bingo_tiles = rules.bingo_min_tiles
        self.rack_size = rules.rack_size


@lru_cache(maxsize=None)
def lang(name: str) -> Lang:
    return Lang(name)


@lru_cache(maxsize=None)
def synthetic_kwg(name: str, seed: int = 0) -> Kwg:
    """Words drawn letter by letter from the bag's frequencies: every two-letter word of common
    letters (dense boards) and a few thousand longer ones (some bingos among them)."""
    lg = lang(name)
    rng = random.Random(f"{name}/{seed}")
    pool = [t for t in lg.bag if t]
    common = sorted(set(pool), key=lambda t: -pool.count(t))[:12]
    words = {(a, b) for a in common for b in common if rng.random() < 0.45}
    while len(words) < 4000:
        n = rng.choice([3, 3, 4, 4, 5, 5, 6, 7, 7, 8, 9])
        words.add(tuple(rng.choice(pool) for _ in range(n)))
    labels = lg.letters
    return Kwg.from_words(["".join(labels[t - 1] for t in w) for w in words], labels)


@lru_cache(maxsize=None)
def sowpods_kwg() -> Kwg | None:
    if not SHARED_POSITIONS.is_dir():
        return None
    words: set[str] = set()
    for f in SHARED_POSITIONS.glob("*.words"):
        words |= set(f.read_text(encoding="utf-8").split())
    return Kwg.from_words(sorted(w.upper() for w in words), lang("wespa").letters)


@lru_cache(maxsize=None)
def icelandic_kwg() -> Kwg | None:
    path = PROJECT / "output" / "is" / "lexicon.kwg"
    return Kwg.load(path) if path.is_file() else None


def positions(lg: Lang, kwg: Kwg, seed: int, turns: int, pick: int = 6):
    """Random self-play from the empty board: (grid, rack counts, blanks, first move) before each
    turn; each turn plays one of the best ``pick`` plays at random."""
    rng = random.Random(seed)
    bag = lg.bag[:]
    rng.shuffle(bag)
    grid = [[0] * lg.cols for _ in range(lg.rows)]
    rack: list[int] = []
    for _ in range(turns):
        while len(rack) < lg.rack_size and bag:
            rack.append(bag.pop())
        if not rack:
            return
        counts = [0] * (len(lg.letters) + 1)
        for t in rack:
            if t:
                counts[t] += 1
        blanks = rack.count(0)
        first = not any(any(r) for r in grid)
        yield grid, counts, blanks, first
        moves = generate_top(kwg, grid, counts, blanks, lg.layout, lg.values, lg.bingo, first, lg.bingo_tiles, limit=pick)
        if not moves:
            if not bag:
                return
            bag.insert(0, rack.pop(0))  # exchange one tile and go on
            continue
        m = moves[rng.randrange(len(moves))]
        for i, b in enumerate(m.letters):
            r, c = (m.row, m.col + i) if m.across else (m.row + i, m.col)
            if not grid[r][c]:
                grid[r][c] = b
                rack.remove(0 if b & 64 else b & 63)
        grid = [row[:] for row in grid]


def check_position(
    lg: Lang, kwg: Kwg, grid, counts, blanks, first, ks=(1, 2, 3, 10), index=None, blank_letter_value=False
) -> None:
    args = (kwg, grid, counts, blanks, lg.layout, lg.values, lg.bingo, first, lg.bingo_tiles, blank_letter_value)
    full = sorted(generate(*args), key=full_key)
    want = [tuple(m) for m in full]
    assert [tuple(m) for m in generate_top(*args)] == want  # every play, sorted in C
    for k in ks:
        expect = want[:k]
        assert [tuple(m) for m in generate_top(*args, limit=k)] == expect, (k, "pruned")
        anchors, searched, recorded, _ = last_stats()
        assert searched <= anchors and recorded >= len(expect)
        assert [tuple(m) for m in generate_top(*args, limit=k, prune=False)] == expect, (k, "unpruned")
        if index is not None:
            assert [tuple(m) for m in generate_top(*args, limit=k, bingo_index=index)] == expect, (k, "index")


SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("rules_name", RULE_SETS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 18))
def test_pruned_top_k_equals_full_generation(rules_name, seed, turns):
    lg = lang(rules_name)
    kwg = synthetic_kwg(rules_name)
    index = kwg.bingo_index(lg.bingo_tiles)
    for grid, counts, blanks, first in positions(lg, kwg, seed, turns):
        check_position(lg, kwg, grid, counts, blanks, first, index=index)


@pytest.mark.parametrize("rules_name", ["wespa", "russian_scrabble"])
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 12))
def test_pruned_with_letter_valued_blanks(rules_name, seed, turns):
    """The generator's ``blank_letter_value`` option: a blank's bound is the best letter value."""
    lg = lang(rules_name)
    kwg = synthetic_kwg(rules_name)
    for grid, counts, blanks, first in positions(lg, kwg, seed, turns):
        check_position(lg, kwg, grid, counts, blanks, first, ks=(1, 5), blank_letter_value=True)


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    turns=st.integers(1, 10),
    racks=st.lists(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ??", min_size=1, max_size=7), min_size=1, max_size=3),
)
def test_pruned_on_sowpods_positions_with_any_rack(seed, turns, racks):
    """The SOWPODS-derived word lists, random positions, and arbitrary racks (blanks included)."""
    kwg = sowpods_kwg()
    if kwg is None:
        pytest.skip("../shared is not present")
    lg = lang("wespa")
    index = kwg.bingo_index()
    grids = [g for g, *_ in positions(lg, kwg, seed, turns)]
    grid = [r[:] for r in grids[-1]]
    for text in racks:
        counts = [0] * 27
        for ch in text.replace("?", ""):
            counts[ord(ch) - 64] += 1
        check_position(lg, kwg, grid, counts, text.count("?"), not any(any(r) for r in grid), index=index)


def test_pruned_on_the_reference_positions(shared):
    kwg = sowpods_kwg()
    lg = lang("wespa")
    index = kwg.bingo_index()
    for board, racks in (
        ("mid2.board", ["BDEGORW", "AEINRST", "QXZ?"]),
        ("mid1.board", ["AEEFHI?", "AEEFH??"]),
        ("empty.board", ["EJOQUXZ", "AEINR??", "RETSINA"]),
    ):
        grid = []
        for line in (SHARED_POSITIONS / board).read_text().split():
            grid.append([0 if ch == "." else ord(ch.upper()) - 64 + (64 if ch.islower() else 0) for ch in line])
        for text in racks:
            counts = [0] * 27
            for ch in text.replace("?", ""):
                counts[ord(ch) - 64] += 1
            check_position(lg, kwg, grid, counts, text.count("?"), not any(any(r) for r in grid), ks=(1, 2, 10, 50), index=index)


EXTRA_LEXICONS = [x for x in os.environ.get("SKRAFL_SHADOW_LEXICONS", "").split(",") if x]


@pytest.mark.skipif(not EXTRA_LEXICONS, reason="SKRAFL_SHADOW_LEXICONS=rules=FOLDER,... names no built lexicon")
@pytest.mark.parametrize("spec", EXTRA_LEXICONS or ["-"])
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 16))
def test_pruned_with_other_built_lexicons(spec, seed, turns):
    """Lexicons built here with ``skrafl build LANG --out DIR`` (not kept in the repository):
    ``SKRAFL_SHADOW_LEXICONS=russian_scrabble=/tmp/ru,ordspill=/tmp/nb,slovene=/tmp/sl``."""
    import json

    rules_name, folder = spec.split("=", 1)
    kwg = _built_kwg(folder)
    alphabet = json.loads((Path(folder) / "manifest.json").read_text(encoding="utf-8"))["alphabet"]
    lg = Lang(rules_name, [a.upper() for a in alphabet])
    index = kwg.bingo_index(lg.bingo_tiles)
    for grid, counts, blanks, first in positions(lg, kwg, seed, turns):
        check_position(lg, kwg, grid, counts, blanks, first, ks=(1, 3), index=index)


@lru_cache(maxsize=None)
def _built_kwg(folder: str) -> Kwg:
    return Kwg.load(Path(folder) / "lexicon.kwg")


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 16))
def test_pruned_with_the_built_icelandic_lexicon(seed, turns):
    kwg = icelandic_kwg()
    if kwg is None:
        pytest.skip("output/is is not built (make run)")
    lg = lang("netskrafl")
    for grid, counts, blanks, first in positions(lg, kwg, seed, turns):
        check_position(lg, kwg, grid, counts, blanks, first, ks=(1, 3))


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), walls=st.integers(1, 12))
def test_pruned_with_blocked_squares(seed, walls):
    """Blocked squares stop spans (and bounds) as they stop plays."""
    lg = lang("wespa")
    kwg = synthetic_kwg("wespa")
    rng = random.Random(seed)
    blocked = {(rng.randrange(15), rng.randrange(15)) for _ in range(walls)} - {(7, 7)}
    walled = Lang.__new__(Lang)
    walled.__dict__.update(lg.__dict__)
    walled.layout = MoveLayout(lg.layout.letter_mult, lg.layout.word_mult, lg.layout.start, blocked)
    for grid, counts, blanks, first in positions(walled, kwg, seed, 10):
        check_position(walled, kwg, grid, counts, blanks, first, ks=(1, 4))


def test_bingo_index_answers():
    """A rack with an anagram among the words gets its bingo; without one the span is skipped, the
    answers identical with and without the index."""
    lg = lang("wespa")
    kwg = Kwg.from_words(["RETAINS", "AT", "TA", "RE", "ER", "SNARE"], lg.letters)
    index = kwg.bingo_index()
    assert len(index) % 8 == 0 and kwg.bingo_index() is index  # made once per graph
    grid = [[0] * 15 for _ in range(15)]
    for rack, bingo in (("AEINRST", True), ("AEINRSU", False), ("AEINRS?", True), ("AEINR??", True)):
        counts = [0] * 27
        for ch in rack.replace("?", ""):
            counts[ord(ch) - 64] += 1
        args = (kwg, grid, counts, rack.count("?"), lg.layout, lg.values, 50, True, 7)
        top = generate_top(*args, limit=1, bingo_index=index)
        assert top == sorted(generate(*args), key=full_key)[:1]
        assert bool(top and top[0].tiles_placed == 7) == bingo


def test_generate_top_builds_play_objects():
    """With a tile table and a play type: the ScoredPlay fields best.py returned before."""
    from gamecore.board import Tile
    from gamecore.play import ScoredPlay

    lg = lang("wespa")
    kwg = Kwg.from_words(["CAT", "CATS", "AT", "TA", "SAT"], lg.letters)
    grid = [[0] * 15 for _ in range(15)]
    grid[7][6:9] = [3, 1, 20]  # CAT across at row 8, columns G-I
    table = [None] * 128
    for i, x in enumerate(lg.letters, 1):
        table[i], table[i + 64] = Tile(x, False), Tile(x, True)
    counts = [0] * 27
    counts[19] = 1  # S
    args = (kwg, grid, counts, 1, lg.layout, lg.values, 50, False, 7)
    plays = generate_top(*args, tiles=table, play_type=ScoredPlay)
    raws = sorted(generate(*args), key=full_key)
    assert len(plays) == len(raws) and all(type(p) is ScoredPlay for p in plays)
    for p, r in zip(plays, raws, strict=True):
        assert (p.row, p.col, p.across, p.score, p.tiles_placed, p.words) == (r.row, r.col, r.across, r.score, r.tiles_placed, ())
        assert p.word == tuple(table[b] for b in r.letters)
        sq = [(r.row, r.col + i) if r.across else (r.row + i, r.col) for i in range(len(r.letters))]
        assert p.new == tuple(grid[y][x] == 0 for y, x in sq)
    with pytest.raises(ValueError):
        generate_top(*args, tiles=table[:10], play_type=ScoredPlay)
    with pytest.raises(TypeError):
        generate_top(*args, tiles=table, play_type=dict)


@pytest.mark.parametrize("rules_name", ["wespa", "netskrafl", "erudit"])
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 14))
def test_best_play_is_the_first_of_best_plays(rules_name, seed, turns):
    """gamecore.best.best_play (pruned, bingo index) = best_plays(...)[0] on Board objects."""
    from gamecore.best import LexiconBundle, best_play, best_plays
    from gamecore.board import Board

    rules = load_rules(rules_name)
    lg = lang(rules_name)
    kwg = synthetic_kwg(rules_name)
    bundle = LexiconBundle(PROJECT, {}, None, kwg, [x.upper() for x in lg.letters])
    for grid, counts, blanks, _ in positions(lg, kwg, seed, turns):
        board = Board(rules.layout(), rules.tiles())
        for r, row in enumerate(grid):
            for c, b in enumerate(row):
                if b:
                    board.place(r, c, lg.letters[(b & 63) - 1], bool(b & 64))
        rack = [x for t, n in enumerate(counts) for x in [lg.letters[t - 1]] * n if t] + ["?"] * blanks
        plays = best_plays(board, rack, bundle, rules)
        assert best_play(board, rack, bundle, rules) == (plays[0] if plays else None)


@pytest.mark.parametrize("rules_name", ["wespa", "netskrafl", "russian_scrabble", "erudit"])
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 25), walls=st.integers(0, 6))
def test_position_kept_between_calls_equals_a_fresh_board(rules_name, seed, turns, walls):
    """movegen.Position (cross-checks kept in C, updated per play) gives every call exactly what
    generate / generate_top give on the same grid: same plays, same order."""
    from gamecore.movegen import Position

    lg = lang(rules_name)
    rng = random.Random(seed)
    blocked = {(rng.randrange(lg.rows), rng.randrange(lg.cols)) for _ in range(walls)} - {lg.layout.start}
    walled = Lang.__new__(Lang)
    walled.__dict__.update(lg.__dict__)
    walled.layout = MoveLayout(lg.layout.letter_mult, lg.layout.word_mult, lg.layout.start, blocked)
    kwg = synthetic_kwg(rules_name)
    pos = Position(kwg, walled.layout, lg.values, lg.bingo, lg.bingo_tiles)
    synced = Position(kwg, walled.layout, lg.values, lg.bingo, lg.bingo_tiles)  # follows by sync()
    index = kwg.bingo_index(lg.bingo_tiles)
    before = None
    for grid, counts, blanks, first in positions(walled, kwg, seed, turns):
        changed = [] if before is None else [(r, c) for r in range(lg.rows) for c in range(lg.cols) if grid[r][c] != before[r][c]]
        if changed:  # mirror the play made since the last position (none after an exchange)
            rows, cols = {r for r, _ in changed}, {c for _, c in changed}
            across = len(rows) == 1 and (len(cols) > 1 or (cols and _has_across_word(grid, *changed[0])))
            r0, c0 = min(changed)
            r1, c1 = max(changed)
            if across:
                while c0 > 0 and grid[r0][c0 - 1]:
                    c0 -= 1
                while c1 + 1 < lg.cols and grid[r0][c1 + 1]:
                    c1 += 1
                word = bytes(grid[r0][c] for c in range(c0, c1 + 1))
            else:
                while r0 > 0 and grid[r0 - 1][c0]:
                    r0 -= 1
                while r1 + 1 < lg.rows and grid[r1 + 1][c0]:
                    r1 += 1
                word = bytes(grid[r][c0] for r in range(r0, r1 + 1))
            assert pos.place(r0, c0, across, word) == len(changed)
        assert pos.grid() == grid and pos.is_empty() == first
        synced.sync(bytes(b for row in grid for b in row) if rng.random() < 0.5 else grid)
        assert synced.grid() == grid
        args = (kwg, grid, counts, blanks, walled.layout, lg.values, lg.bingo, first, lg.bingo_tiles)
        full = [tuple(m) for m in generate(*args)]
        assert [tuple(m) for m in pos.generate(counts, blanks)] == full
        kept = pos.moves(counts, blanks)  # the plays kept in C, RawMoves made when read
        assert len(kept) == len(full) and [tuple(m) for m in kept] == full
        assert [tuple(m) for m in kept[1:4]] == full[1:4] and (not full or tuple(kept[-1]) == full[-1])
        assert list(pos.moves(counts, blanks, sorted=True)) == generate_top(*args)
        if first:  # sorted, the first move comes from the DAWG (every word once), not the GADDAG walk
            assert [tuple(m) for m in generate_top(*args)] == [tuple(m) for m in sorted(generate(*args), key=full_key)]
        for k in (1, 5):
            assert pos.top(counts, blanks, limit=k, bingo_index=index) == generate_top(*args, limit=k)
        assert synced.top(counts, blanks, limit=3) == generate_top(*args, limit=3)
        if changed and rng.random() < 0.3:  # a withdrawn play and back
            assert synced.sync(before) == -1
            first_before = not any(any(r) for r in before)
            assert [tuple(m) for m in synced.generate(counts, blanks)] == [
                tuple(m)
                for m in generate(kwg, before, counts, blanks, walled.layout, lg.values, lg.bingo, first_before, lg.bingo_tiles)
            ]
            synced.sync(grid)
        before = [row[:] for row in grid]


def _has_across_word(grid, r, c) -> bool:
    return (c > 0 and grid[r][c - 1]) or (c + 1 < len(grid[0]) and grid[r][c + 1])


def test_position_refuses_what_cannot_be_on_the_board():
    from gamecore.movegen import Position

    lg = lang("wespa")
    kwg = synthetic_kwg("wespa")
    pos = Position(kwg, lg.layout, lg.values, 50)
    assert pos.place(7, 6, True, bytes([3, 1, 20])) == 3
    with pytest.raises(ValueError):
        pos.place(7, 13, True, bytes([1, 2, 3]))  # off the board
    with pytest.raises(ValueError):
        pos.place(6, 7, False, bytes([1, 2, 3]))  # B over the A at (7, 7)
    assert pos.place(6, 7, False, bytes([1, 1, 1 + 64])) == 2  # through the A
    assert pos.grid()[8][7] == 65 and not pos.is_empty()
    grid = pos.grid()
    grid[8][7] = 0  # a withdrawn tile: the whole board again
    assert pos.sync(grid) == -1 and pos.grid() == grid
    counts = [0] * 27
    counts[1] = counts[20] = 1
    args = (kwg, grid, counts, 1, lg.layout, lg.values, 50, False, 7)
    assert [tuple(m) for m in pos.generate(counts, 1)] == [tuple(m) for m in generate(*args)]
    kept = pos.moves(counts, 1)
    with pytest.raises(IndexError):
        kept[len(kept)]
    with pytest.raises(TypeError):
        kept["a"]
    del kept  # its buffers go back to the generator: the next call reuses them
    assert [tuple(m) for m in pos.moves(counts, 1)] == [tuple(m) for m in generate(*args)]
    with pytest.raises(ValueError):
        pos.sync(b"\x01" * 10)


@pytest.mark.parametrize(
    "rules_name,permute", [("wespa", False), ("wespa", True), ("netskrafl", True), ("russian_scrabble", False)]
)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 20))
def test_game_analyzer_equals_best_play(rules_name, permute, seed, turns):
    """best.GameAnalyzer fed grid codes turn after turn (tile-set order; the lexicon's alphabet in
    another order when permuted) = best_play on the same Board, errors included."""
    from gamecore.best import GameAnalyzer, LexiconBundle, best_play
    from gamecore.board import Board
    from gamecore.errors import SkraflError

    rules = load_rules(rules_name)
    lg = lang(rules_name)
    ts = rules.tiles()
    kwg = synthetic_kwg(rules_name)
    if permute:  # the same words, the lexicon's tile numbers in reverse alphabet order
        letters = lg.letters[::-1]
        kwg_words = _words_of(kwg, lg.letters)
        kwg = Kwg.from_words(kwg_words, letters)
    else:
        letters = lg.letters
    bundle = LexiconBundle(PROJECT, {}, None, kwg, [x.upper() for x in letters])
    analyzer = GameAnalyzer(bundle, rules)
    rng = random.Random(seed)
    for grid, counts, blanks, _ in positions(lg, synthetic_kwg(rules_name), seed, turns):
        board = Board(rules.layout(), ts)
        for r, row in enumerate(grid):
            for c, b in enumerate(row):
                if b:
                    board.place(r, c, lg.letters[(b & 63) - 1], bool(b & 64))
        codes = bytes(b for row in grid for b in row)  # positions() numbers tiles in tile-set order
        rack = [x for t, n in enumerate(counts) for x in [lg.letters[t - 1]] * n if t] + ["?"] * blanks
        if rng.random() < 0.1:
            rack = rack + rack  # too many tiles: the same error both ways
        try:
            want = best_play(board, rack, bundle, rules)
        except SkraflError as exc:
            with pytest.raises(type(exc)):
                analyzer.best(codes, rack)
            continue
        assert analyzer.best(codes, rack) == want


def _words_of(kwg: Kwg, letters) -> list[str]:
    """Every word of a KWG's DAWG (for small test lexicons)."""
    out = []

    def walk(arc, prefix):
        if not arc:
            return
        i = arc
        while True:
            t = kwg.tile(i)
            w = prefix + letters[t - 1]
            if kwg.accepts(i):
                out.append(w)
            walk(kwg.arc(i), w)
            if kwg.is_end(i):
                return
            i += 1

    walk(kwg.dawg_root, "")
    return out


def test_absurd_premiums_search_without_pruning():
    """Word premiums everywhere (bounds that would not fit an int): the same top plays, unpruned."""
    lg = lang("wespa")
    kwg = synthetic_kwg("wespa")
    layout = MoveLayout([[3] * 15 for _ in range(15)], [[4] * 15 for _ in range(15)], (7, 7))
    walled = Lang.__new__(Lang)
    walled.__dict__.update(lg.__dict__)
    walled.layout = layout
    for grid, counts, blanks, first in positions(walled, kwg, 7, 6):
        check_position(walled, kwg, grid, counts, blanks, first, ks=(1, 3))


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 12))
def test_nine_tile_racks_score_as_the_validator(seed, turns):
    """scrabble9 (9-tile racks, the bingo for 7 or more): the best plays as the validator scores
    them (gamecore.play, written apart from the generator)."""
    from gamecore.best import LexiconBundle, best_plays
    from gamecore.board import Board
    from gamecore.play import validate_placements

    rules = load_rules("scrabble9")
    lg = lang("scrabble9")
    kwg = synthetic_kwg("scrabble9")
    bundle = LexiconBundle(PROJECT, {}, None, kwg, list(lg.letters))
    for grid, counts, blanks, _ in positions(lg, kwg, seed, turns):
        board = Board(rules.layout(), rules.tiles())
        for r, row in enumerate(grid):
            for c, b in enumerate(row):
                if b:
                    board.place(r, c, lg.letters[(b & 63) - 1], bool(b & 64))
        rack = [x for t, n in enumerate(counts) for x in [lg.letters[t - 1]] * n if t] + ["?"] * blanks
        for p in best_plays(board, rack, bundle, rules, 20):
            v = validate_placements(board, p.placements(), None, None, rules, across=p.across)
            assert v.score == p.score, (p.coord, p.word_text(), p.tiles_placed)


def _tie_ks(want, most: int = 4) -> list[int]:
    """Values of K whose K-th play ties the next one on score (the cut falls inside a tie)."""
    ks = [k for k in range(1, len(want)) if want[k - 1].score == want[k].score]
    return ks[:most]


@pytest.mark.parametrize("rules_name", ["wespa", "netskrafl", "scrabble9"])
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 14))
def test_pruned_cut_inside_a_tie(rules_name, seed, turns):
    """K chosen where the K-th best play ties the next on score: every play tied at the bound is
    still found (a branch is cut only when its bound is below the K-th best), in the full order."""
    lg = lang(rules_name)
    kwg = synthetic_kwg(rules_name)
    index = kwg.bingo_index(lg.bingo_tiles)
    for grid, counts, blanks, first in positions(lg, kwg, seed, turns):
        args = (kwg, grid, counts, blanks, lg.layout, lg.values, lg.bingo, first, lg.bingo_tiles)
        want = sorted(generate(*args), key=full_key)
        ks = _tie_ks(want)
        if ks:
            check_position(lg, kwg, grid, counts, blanks, first, ks=ks, index=index)


def test_pruned_without_a_bingo_word_in_reach(shared):
    """Racks with no word of their seven tiles (and none with the board tiles a span would take):
    with the bingo index the bounds of the walk leave the bingo bonus out; the top K stays exact,
    ties at the cut included; and racks that do make one still find it."""
    kwg = sowpods_kwg()
    lg = lang("wespa")
    index = kwg.bingo_index()
    for board in ("mid1.board", "mid2.board", "empty.board"):
        grid = []
        for line in (SHARED_POSITIONS / board).read_text().split():
            grid.append([0 if ch == "." else ord(ch.upper()) - 64 + (64 if ch.islower() else 0) for ch in line])
        first = not any(any(r) for r in grid)
        for text in ("BCDFGHK", "EEEIIOU", "QWXYZJV", "AEINRST", "AEINRS?", "ERSTU??", "?"):
            counts = [0] * 27
            for ch in text.replace("?", ""):
                counts[ord(ch) - 64] += 1
            args = (kwg, grid, counts, text.count("?"), lg.layout, lg.values, 50, first, 7)
            want = sorted(generate(*args), key=full_key)
            check_position(lg, kwg, grid, counts, text.count("?"), first, ks=(1, 3, 20, *_tie_ks(want)), index=index)
