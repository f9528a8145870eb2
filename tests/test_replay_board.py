"""The compiled replay board (gamecore._scorer) against the oracle (gamecore.play).

Random games of random plays, legal and illegal, are played on both boards; every play must give the
same score, tiles, words and GCG text, or the same IllegalPlay (code and message), and the boards
must stay equal, withdrawals (undo) included. Expected values come from the oracle, which is
written apart from the compiled board; the hand-scored cases below come from the rules.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamecore.errors import DataError
from gamecore.play import IllegalPlay
from gamecore.replay_board import CompiledBoard, OracleBoard, replay_board
from gamecore.rules import load_rules

MULTI_TILE_SET = """# source: test fixture (multi-letter labels, as in Catalan and Hungarian sets)
letter\tcount\tvalue\tvowel
A\t12\t1\t1
E\t12\t1\t1
L\t4\t1\t0
L·L\t1\t10\t0
NY\t2\t8\t0
S\t6\t1\t0
?\t2\t0\t0
"""


def _rule_sets(tmp_dir) -> list:
    layout = load_rules("wespa").layout()
    text = layout.to_text().splitlines()
    # a punctured square next to the start square's row and one in a corner
    rows = [ln for ln in text if not ln.startswith("#")]
    head = [ln for ln in text if ln.startswith("#")]
    rows[6] = rows[6][:6] + "X" + rows[6][7:]  # F7 (rows are written |...|)
    rows[0] = "|X" + rows[0][2:]  # A1
    board = tmp_dir / "punctured.txt"
    board.write_text("\n".join(head + rows) + "\n", encoding="utf-8")
    tiles = tmp_dir / "multi.tsv"
    tiles.write_text(MULTI_TILE_SET, encoding="utf-8")
    return [
        load_rules("wespa"),
        load_rules("netskrafl"),
        load_rules("erudit").replace(blank_value="letter", word_premiums="add"),
        load_rules("wespa").replace(board="super", tile_set="english_super"),
        load_rules("wespa").replace(board=str(board)),
        load_rules("wespa").replace(tile_set=str(tiles)),
    ]


@pytest.fixture(scope="module")
def rule_sets(tmp_path_factory):
    return _rule_sets(tmp_path_factory.mktemp("rules"))


def _random_play(rng: random.Random, board, letters: list[str], first: bool):
    """A play written as GCG tokens: mostly near tiles on the board (or over the start square on
    an empty board), sometimes anywhere; tokens mostly right, sometimes wrong."""
    size = board.size
    across = rng.random() < 0.5
    length = rng.randint(1, 8)
    if first or rng.random() < 0.15:
        r, c = board.layout.start
    else:
        tiles = [(r, c) for r in range(size) for c in range(size) if board.squares[r][c] is not None]
        r, c = rng.choice(tiles) if tiles else board.layout.start
    back = rng.randint(0, length)
    row, col = (r, c - back) if across else (r - back, c)
    if rng.random() < 0.05:
        row, col = rng.randint(-1, size), rng.randint(-1, size)
    tokens, through = [], []
    for i in range(length):
        rr, cc = (row, col + i) if across else (row + i, col)
        have = board.squares[rr][cc] if 0 <= rr < size and 0 <= cc < size else None
        x = rng.random()
        if have is not None and x < 0.9:
            tok = "." if x < 0.6 else (have.label.lower() if x < 0.7 else have.label)
            if x > 0.85:
                through.append(i)
        elif x < 0.02:
            tok = "."
        elif x < 0.04:
            tok = "Q7"  # a letter no tile set here has
        else:
            tok = rng.choice(letters)
            if rng.random() < 0.1:
                tok = tok.lower()
        tokens.append(tok)
    return row, col, across, tokens, tuple(through)


def _outcome(board, args):
    try:
        return ("ok", board.play(*args))
    except IllegalPlay as exc:
        return ("illegal", exc.code, exc.message)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), which=st.integers(min_value=0, max_value=5))
def test_compiled_board_agrees_with_oracle(rule_sets, seed, which):
    rules = rule_sets[which]
    rng = random.Random(seed)
    fast, oracle = CompiledBoard(rules), OracleBoard(rules)
    letters = list(rules.tiles().letters)
    legal = 0
    for _ in range(40):
        pos = oracle.position()
        args = _random_play(rng, pos, letters, first=pos.is_empty())
        got, want = _outcome(fast, args), _outcome(oracle, args)
        assert got == want, args
        legal += got[0] == "ok"
        if got[0] == "ok" and rng.random() < 0.1:
            fast.undo()
            oracle.undo()
        assert fast.position().to_text() == oracle.position().to_text()
    assert legal > 0


def test_hand_scored_plays():
    """Scored by hand from docs/RULES.md §2 and the standard board (boards.md): 8D RETSINA
    covers D8 (DL) and H8 (DW): (2·1 + 6·1) × 2 + 50 = 66. Then H7 down "s.T" through the I on H8:
    a blank (0) on plain H7, the I (1, already there), T (1) on plain H9 = 2, written "s.T"."""
    rules = load_rules("wespa")
    board = CompiledBoard(rules)
    assert board.play(7, 3, True, list("RETSINA")) == (66, list("RETSINA"), ("retsina",), "RETSINA")
    assert board.play(6, 7, False, ["s", ".", "T"]) == (2, ["?", "T"], ("sit",), "s.T")
    with pytest.raises(IllegalPlay) as exc:
        board.play(0, 0, True, list("AB"))
    assert exc.value.code == "not_touching"
    board.undo()  # takes back "s.T"
    assert board.position().to_text().splitlines()[6:9] == ["." * 15, "...RETSINA.....", "." * 15]


def test_replay_board_falls_back_to_the_oracle_when_premiums_overflow(tmp_path):
    # a row of fifteen 4x word squares multiplies a word by 4**15, beyond the compiled board's bound
    size = 15
    rows = ["|" + " " * size + "|"] * size
    rows[7] = "|" + "~" * size + "|"
    path = tmp_path / "quad.txt"
    path.write_text("\n".join(["# quad", "# start square: H8", *rows]) + "\n", encoding="utf-8")
    rules = load_rules("wespa").replace(board=str(path))
    assert isinstance(replay_board(rules), OracleBoard)
    assert isinstance(replay_board(load_rules("wespa")), CompiledBoard)


def test_a_board_beyond_column_z_is_one_error(tmp_path):
    size = 27  # GCG columns are A..Z
    path = tmp_path / "big.txt"
    path.write_text("\n".join(["# big", "# start square: N14"] + ["|" + " " * size + "|"] * size) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="at most 26"):
        load_rules("wespa").replace(board=str(path)).layout()


@pytest.mark.parametrize(
    "args",
    [
        (2**70, 3, True, list("AB"), ()),  # a start square no C integer holds
        (-(2**40), 7, False, list("AB"), ()),
        (7, 3, True, [], ()),  # no tokens
        (7, 3, True, list("RETSINA"), (2**70, 99)),  # parenthesised indexes beyond the word
        (7, 3, True, list("A" * 40), ()),  # longer than any board line
    ],
)
def test_odd_arguments_get_the_oracles_answer(args):
    rules = load_rules("wespa")
    got, want = _outcome(CompiledBoard(rules), args), _outcome(OracleBoard(rules), args)
    assert got == want


def test_tokens_changed_during_the_look_up_do_not_matter():
    """The compiled board reads its own copy of the tokens (a token's hash may run Python code)."""
    rules = load_rules("wespa")
    tokens = list("RETSINA")

    class Sneaky(str):
        def __hash__(self):
            tokens.clear()
            return str.__hash__(self)

    tokens[0] = Sneaky("R")
    assert CompiledBoard(rules).play(7, 3, True, tokens)[0] == 66
