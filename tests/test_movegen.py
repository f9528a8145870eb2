"""Move generator: complete move lists against independent references.

* The three SOWPODS positions of ``shared/corpora/positions`` (move lists produced and
  cross-checked by three independent engines): our placements and scores must equal them exactly.
* Scores from the issue that hold for any lexicon containing the words (RETSINA, ROOTWORM,
  ODALIQUE, a one-tile play scoring both ways).
* A brute force over all placements on small random boards with a tiny lexicon (written here,
  independently of the generator).

Board text, tile values and the premium layout are parsed by small local readers, so these tests
do not depend on the rest of the game core.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamecore.kwg import Kwg
from gamecore.movegen import MoveLayout, generate

ENGLISH = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
COLS = "ABCDEFGHIJKLMNOPQRSTU"
PREMIUM = {"=": (1, 3), "-": (1, 2), '"': (3, 1), "'": (2, 1), "~": (1, 4), "^": (4, 1), " ": (1, 1)}


# --- small independent readers -------------------------------------------------------------------


def read_layout(path: Path) -> MoveLayout:
    lm, wm, start = [], [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# start square:"):
            sq = line.split(":")[1].split()[0]
            start = (int(sq[1:]) - 1, COLS.index(sq[0]))
        elif line.startswith("|"):
            body = line[1:-1]
            lm.append([PREMIUM[ch][0] for ch in body])
            wm.append([PREMIUM[ch][1] for ch in body])
    assert start is not None
    return MoveLayout(lm, wm, start)


def english_values(shared: Path) -> list[int]:
    values = [0] * 27
    for line in (shared / "reference" / "tile_sets.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        f = line.split("\t")
        if f[0] == "english" and f[1] != "?":
            values[ENGLISH.index(f[1]) + 1] = int(f[3])
    assert all(values[1:])
    return values


def read_board(path: Path) -> list[list[int]]:
    grid = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = []
        for ch in line.strip():
            if ch == ".":
                row.append(0)
            elif ch.isupper():
                row.append(ENGLISH.index(ch) + 1)
            else:
                row.append(ENGLISH.index(ch.upper()) + 1 + 64)
        grid.append(row)
    return grid


def rack_of(text: str) -> tuple[list[int], int]:
    counts = [0] * 27
    for ch in text:
        if ch != "?":
            counts[ENGLISH.index(ch) + 1] += 1
    return counts, text.count("?")


def parse_coord(coord: str) -> tuple[int, int, bool]:
    """GCG: ``8D`` across from row 8 column D; ``D8`` down."""
    if coord[0].isdigit():
        return int(coord[:-1]) - 1, COLS.index(coord[-1]), True
    return int(coord[1:]) - 1, COLS.index(coord[0]), False


def placement(grid, row, col, across, letters) -> frozenset:
    """The new tiles of a play: {(row, col, letter, is_blank)}."""
    tiles = set()
    for i, (letter, blank) in enumerate(letters):
        r, c = (row, col + i) if across else (row + i, col)
        if grid[r][c] == 0:
            tiles.add((r, c, letter, blank))
        else:
            assert grid[r][c] & 63 == letter, "played-through tile differs from the board"
    return frozenset(tiles)


def reference_moves(path: Path, grid) -> set:
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        coord, word, score, placed = line.split("\t")
        row, col, across = parse_coord(coord)
        letters = [(ENGLISH.index(ch.upper()) + 1, ch.islower()) for ch in word]
        tiles = placement(grid, row, col, across, letters)
        assert len(tiles) == int(placed)
        out.add((tiles, int(score)))
    return out


def our_moves(moves, grid) -> set:
    out = set()
    for m in moves:
        letters = [(b & 63, bool(b & 64)) for b in m.letters]
        tiles = placement(grid, m.row, m.col, m.across, letters)
        assert len(tiles) == m.tiles_placed
        out.add((tiles, m.score))
    return out


# --- reference positions -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def english(shared):
    layout = read_layout(shared / "reference" / "boards" / "standard15_CrosswordGame.txt")
    return layout, english_values(shared)


@pytest.mark.parametrize("name", ["mid2_b0", "mid1_b1", "open3_b0"])
def test_reference_positions(shared, english, name):
    layout, values = english
    pos = shared / "corpora" / "positions"
    rows = [line.split("\t") for line in (pos / "positions.tsv").read_text().splitlines()[1:]]
    _, board, rack, words, moves = next(r for r in rows if r[0] == name)
    grid = read_board(pos / board)
    kwg = Kwg.from_words((pos / words).read_text().split(), ENGLISH)
    counts, blanks = rack_of(rack)
    first = not any(any(r) for r in grid)
    got = generate(kwg, grid, counts, blanks, layout, values, 50, first)
    ours = our_moves(got, grid)
    ref = reference_moves(pos / moves, grid)
    assert len(got) == len(ours), "a play is listed twice"
    assert ours - ref == set(), "plays not in the reference"
    assert ref - ours == set(), "reference plays missing"


# --- scores from the issue (any lexicon containing the words) ------------------------------------


def _standard(shared):
    return read_layout(shared / "reference" / "boards" / "standard15_CrosswordGame.txt"), english_values(shared)


def _put(grid, word, coord):
    row, col, across = parse_coord(coord)
    for i, ch in enumerate(word):
        r, c = (row, col + i) if across else (row + i, col)
        grid[r][c] = ENGLISH.index(ch) + 1


def _find(moves, coord, word):
    row, col, across = parse_coord(coord)
    code = bytes(ENGLISH.index(ch) + 1 for ch in word)
    return [m.score for m in moves if (m.row, m.col, m.across, m.letters) == (row, col, across, code)]


def test_empty_board_retsina(shared):
    layout, values = _standard(shared)
    kwg = Kwg.from_words(["RETSINA", "STAINER", "NASTIER", "RETAINS", "AT", "TEA"], ENGLISH)
    grid = [[0] * 15 for _ in range(15)]
    counts, blanks = rack_of("AEINRST")
    moves = generate(kwg, grid, counts, blanks, layout, values, 50, True)
    assert _find(moves, "8D", "RETSINA") == [66]
    assert _find(moves, "H4", "RETSINA") == [66]  # both directions on the empty board
    assert max(m.score for m in moves) == 66


@pytest.mark.parametrize(
    ("board_word", "at", "rack", "coord", "word", "score"),
    [("WORD", "8E", "MOOORRT", "E4", "ROOTWORM", 102), ("QUIRKY", "8E", "AEIOULD", "E3", "ODALIQUE", 86)],
)
def test_a_word_through_a_board_word_scores_its_premiums(shared, board_word, at, rack, coord, word, score):
    layout, values = _standard(shared)
    kwg = Kwg.from_words([board_word, word], ENGLISH)
    grid = [[0] * 15 for _ in range(15)]
    _put(grid, board_word, at)
    counts, blanks = rack_of(rack)
    moves = generate(kwg, grid, counts, blanks, layout, values, 50, False)
    assert _find(moves, coord, word) == [score]


def test_one_tile_both_ways_listed_once(shared):
    """Issue: HEY at 8F, HAZE at F8, rack GNX → G8 EX = 34 (X on the DL at G9 makes EX and AX,
    17 each); listed once."""
    layout, values = _standard(shared)
    kwg = Kwg.from_words(["HEY", "HAZE", "EX", "AX"], ENGLISH)
    grid = [[0] * 15 for _ in range(15)]
    _put(grid, "HEY", "8F")
    _put(grid, "HAZE", "F8")
    counts, blanks = rack_of("GNX")
    moves = generate(kwg, grid, counts, blanks, layout, values, 50, False)
    x_at_g9 = [
        m
        for m in moves
        if placement(grid, m.row, m.col, m.across, [(b & 63, bool(b & 64)) for b in m.letters])
        == frozenset({(8, 6, ENGLISH.index("X") + 1, False)})
    ]
    assert [m.score for m in x_at_g9] == [34]


# --- brute force over all placements on small random boards --------------------------------------


def brute_force(words, grid, rack, layout, values, bingo_tiles, bingo=50, blank_letter_value=False):
    """Every legal play by trying all spans and all letter assignments (independent of the KWG)."""
    brute = _Brute(words, grid, layout, values, bingo_tiles, bingo, blank_letter_value)
    rack_tiles = [t for t, n in enumerate(rack[0]) for _ in range(n)] + [0] * rack[1]
    out = set()
    for span, dr, dc, holes in brute.spans(len(rack_tiles)):
        for placed in brute.fillings(holes, rack_tiles):
            total = brute.judge(span, dr, dc, placed)
            if total is not None:
                key = frozenset((r, c, t & 63, bool(t & 64)) for (r, c), t in placed.items())
                out.add((key, total))
    return out


class _Brute:
    """The pieces of :func:`brute_force`: the board's spans, every filling of a span's empty
    squares from the rack, and the judgement of one filling by the rules (words, touching, score)."""

    def __init__(self, words, grid, layout, values, bingo_tiles, bingo, blank_letter_value):
        self.words, self.grid, self.layout, self.values = words, grid, layout, values
        self.bingo_tiles, self.bingo, self.blank_letter_value = bingo_tiles, bingo, blank_letter_value
        self.size = len(grid)
        self.empty = not any(any(r) for r in grid)

    def at(self, r, c):
        return self.grid[r][c] if 0 <= r < self.size and 0 <= c < self.size else 0

    def run(self, r, c, dr, dc, placed):
        """The word through (r, c) along (dr, dc), with the new tiles `placed`: list of (r, c, tile)."""

        def get(rr, cc):
            return placed.get((rr, cc)) or self.at(rr, cc)

        while get(r - dr, c - dc):
            r, c = r - dr, c - dc
        sq = []
        while get(r, c):
            sq.append((r, c, get(r, c)))
            r, c = r + dr, c + dc
        return sq

    def score_word(self, sq, placed):
        total, mult = 0, 1
        for r, c, t in sq:
            v = self.values[t & 63] if (self.blank_letter_value or not t & 64) else 0
            if (r, c) in placed:
                v *= self.layout.letter_mult[r][c]
                mult *= self.layout.word_mult[r][c]
            total += v
        return total * mult

    def spans(self, most):
        """Every run of two squares or more, both ways, with no tile just before or after it and
        one to ``most`` empty squares: ``(squares, dr, dc, empty squares)``."""
        size = self.size
        for across in (True, False):
            dr, dc = (0, 1) if across else (1, 0)
            for r0 in range(size):
                for c0 in range(size):
                    for length in range(2, size + 1):
                        span = [(r0 + dr * i, c0 + dc * i) for i in range(length)]
                        if any(not (0 <= r < size and 0 <= c < size) for r, c in span):
                            break
                        if self.at(r0 - dr, c0 - dc) or self.at(span[-1][0] + dr, span[-1][1] + dc):
                            continue
                        holes = [(r, c) for r, c in span if not self.grid[r][c]]
                        if holes and len(holes) <= most:
                            yield span, dr, dc, holes

    def fillings(self, holes, rack_tiles):
        """Every way to put rack tiles on ``holes`` (a blank as each letter): ``{square: tile}``."""
        from itertools import permutations

        letters = range(1, len(self.values))
        for perm in set(permutations(rack_tiles, len(holes))):
            choices = [[t] if t else [x | 64 for x in letters] for t in perm]
            yield from _assign(holes, choices, 0, {})

    def judge(self, span, dr, dc, placed):
        """The score of the play ``placed`` on ``span``, or None when it is not legal (a word not in
        the list, or not touching a tile nor on the start square of an empty board)."""
        r0, c0 = span[0]
        main = self.run(r0, c0, dr, dc, placed)
        if "".join(ENGLISH[(t & 63) - 1] for _, _, t in main) not in self.words:
            return None
        total = self.score_word(main, placed)
        touches = (self.empty and self.layout.start in placed) or any(self.grid[r][c] for r, c in span)
        for (r, c), t in placed.items():
            if any(self.at(nr, nc) for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))):
                touches = True
            cross = self.run(r, c, dc, dr, {(r, c): t})
            if len(cross) > 1:
                if "".join(ENGLISH[(x & 63) - 1] for _, _, x in cross) not in self.words:
                    return None
                total += self.score_word(cross, {(r, c): t})
        if not touches:
            return None
        if len(placed) >= self.bingo_tiles:  # docs/RULES.md: bingo_tiles or more
            total += self.bingo
        return total


def _assign(holes, choices, i, placed):
    if i == len(holes):
        yield dict(placed)
        return
    for t in choices[i]:
        placed[holes[i]] = t
        yield from _assign(holes, choices, i + 1, placed)
    del placed[holes[i]]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_brute_force_small_boards(seed):
    """Property: on a random 5×5 board (scattered tiles, some blanks, random premiums) with a random
    tiny lexicon, the generated plays are exactly the brute force's, scores included."""
    rng = random.Random(seed)
    alphabet = "ABCD"
    values = [0, 1, 2, 3, 5]
    size = 5
    words = {"".join(rng.choice(alphabet) for _ in range(rng.randint(2, 5))) for _ in range(60)}
    lm = [[rng.choice([1, 1, 1, 2, 3]) for _ in range(size)] for _ in range(size)]
    wm = [[rng.choice([1, 1, 1, 2, 3]) for _ in range(size)] for _ in range(size)]
    layout = MoveLayout(lm, wm, (2, 2))
    grid = [[0] * size for _ in range(size)]
    if seed % 4:  # scatter tiles (not necessarily words: the generator must still be exact)
        for _ in range(rng.randint(1, 7)):
            grid[rng.randrange(size)][rng.randrange(size)] = rng.randint(1, 4) + (64 if rng.random() < 0.2 else 0)
    first = not any(any(r) for r in grid)
    counts = [0] * 5
    for _ in range(rng.randint(1, 3)):
        counts[rng.randint(1, 4)] += 1
    blanks = rng.choice([0, 0, 1])
    blank_value = rng.random() < 0.3  # rule-set option: a blank scores its letter's value
    kwg = Kwg.from_words(words, alphabet)
    got = generate(kwg, grid, counts, blanks, layout, values, 50, first, bingo_tiles=3, blank_letter_value=blank_value)
    ours = set()
    for m in got:
        ours.add((placement(grid, m.row, m.col, m.across, [(b & 63, bool(b & 64)) for b in m.letters]), m.score))
    assert len(ours) == len(got)
    ref = brute_force(words, grid, (counts, blanks), layout, values, 3, blank_letter_value=blank_value)
    assert ours == ref


def test_blocked_square_is_a_wall():
    """A punctured square (no tile may stand there) ends words like the board edge."""
    kwg = Kwg.from_words(["ABC", "AB", "BC"], "ABC")
    lm = [[1] * 5 for _ in range(5)]
    layout = MoveLayout(lm, lm, (2, 2), blocked={(2, 4)})
    counts = [0, 1, 1, 1]
    moves = generate(kwg, [[0] * 5 for _ in range(5)], counts, 0, layout, [0, 1, 1, 1], 50, True)
    across = {(m.col, bytes(m.letters)) for m in moves if m.across}
    assert (2, bytes([1, 2, 3])) not in across  # would need the blocked square (2, 4)
    assert (2, bytes([1, 2])) in across and (1, bytes([1, 2, 3])) in across and (0, bytes([1, 2, 3])) in across
    assert all(not (m.across and m.col + len(m.letters) > 4) for m in moves)


@pytest.mark.parametrize(("rows", "cols", "offset"), [(21, 21, (3, 4)), (15, 21, (0, 6)), (21, 15, (5, 0))])
def test_any_board_size_transposition(shared, rows, cols, offset):
    """A 15×15 mid-game embedded in a larger (or non-square) board with random premiums: the plays
    of the transposed board are the transposed plays, scores equal (across ↔ down)."""
    pos = shared / "corpora" / "positions"
    small = read_board(pos / "mid1.board")
    rng = random.Random(rows * 100 + cols)
    grid = [[0] * cols for _ in range(rows)]
    for r in range(15):
        for c in range(15):
            grid[r + offset[0]][c + offset[1]] = small[r][c]
    lm = [[rng.choice([1, 1, 1, 2, 3]) for _ in range(cols)] for _ in range(rows)]
    wm = [[rng.choice([1, 1, 1, 1, 2, 3]) for _ in range(cols)] for _ in range(rows)]
    values = english_values(shared)
    kwg = Kwg.from_words((pos / "mid1_b1.words").read_text().split(), ENGLISH)
    counts, blanks = rack_of("AEEFHI?")

    def transpose(m):
        return [list(col) for col in zip(*m, strict=True)]

    def plays(g, layout):
        out = set()
        for m in generate(kwg, g, counts, blanks, layout, values, 50, False):
            out.add((placement(g, m.row, m.col, m.across, [(b & 63, bool(b & 64)) for b in m.letters]), m.score))
        return out

    a = plays(grid, MoveLayout(lm, wm, (0, 0)))
    b = plays(transpose(grid), MoveLayout(transpose(lm), transpose(wm), (0, 0)))
    assert len(a) > 1000
    assert {(frozenset((c, r, t, k) for r, c, t, k in tiles), s) for tiles, s in a} == b


def test_bingo_bonus_for_bingo_tiles_or_more(shared):
    """docs/RULES.md: the bonus is for playing ``bingo_tiles`` or more tiles at once (a 9-tile rack with
    a 7-tile bingo: 8 and 9 tiles get it too), as the validator scores it."""
    words = ["RETAINERS", "RETAINER", "RETAINS", "RETAIN", "AT"]
    kwg = Kwg.from_words(words, ENGLISH)
    layout = read_layout(shared / "reference" / "boards" / "standard15_CrosswordGame.txt")
    values = english_values(shared)
    grid = [[0] * 15 for _ in range(15)]
    counts, blanks = rack_of("AEEINRRST")
    key = lambda m: (m.row, m.col, m.across, m.letters)
    with_bonus = {key(m): m for m in generate(kwg, grid, counts, blanks, layout, values, 50, True, 7)}
    without = {key(m): m for m in generate(kwg, grid, counts, blanks, layout, values, 0, True, 7)}
    assert with_bonus.keys() == without.keys()
    placed = set()
    for k, m in with_bonus.items():
        assert m.score == without[k].score + (50 if m.tiles_placed >= 7 else 0), (m, without[k])
        placed.add(m.tiles_placed)
    assert {6, 7, 8, 9} <= placed


def test_compiled_generate_takes_its_arguments_by_name():
    """gamecore._native.generate's 21 arguments (one parameter struct in C) by name give the plays they give by
    position, and a name it does not have is refused."""
    from gamecore import _native

    kwg = Kwg.from_words(["ABC", "AB", "BC", "CAB"], "ABC")
    lm = [[1] * 5 for _ in range(5)]
    wm = [[2 if (r, c) == (2, 2) else 1 for c in range(5)] for r in range(5)]
    grid = [[0] * 5 for _ in range(5)]
    values = [0, 1, 3, 2]
    by_position = _native.generate(kwg.buffer, grid, [0, 1, 1, 1], 1, lm, wm, 2, 2, values, 50, True, 3, None, -1,
                                   False, 5, True, True)  # fmt: skip
    named = dict(kwg=kwg.buffer, grid=grid, rack_counts=[0, 1, 1, 1], blanks=1, letter_mult=lm, word_mult=wm,
                 start_row=2, start_col=2, tile_values=values, bingo_bonus=50, first_move=True, bingo_tiles=3,
                 blocked=None, node24=-1, blank_letter_value=False, limit=5, sorted=True, prune=True)  # fmt: skip
    by_name = _native.generate(**named)
    assert [tuple(m) for m in by_name] == [tuple(m) for m in by_position]
    assert len(by_name) == 5 and by_name[0].score == max(m.score for m in _native.generate(**{**named, "limit": -1}))
    with pytest.raises(TypeError):
        _native.generate(**named, first=True)
