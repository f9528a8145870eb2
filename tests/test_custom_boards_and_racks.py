"""Variants without a published layout or tile distribution: a rule set's own board and tile set.

The Slovenian Scrabble article's Križemkražem (17×17 grid, racks of 10, 222 letters valued 1–4, 10 jokers, 40 black
squares, words of 4 or more letters) and the Russian Scrabble article's "Etsi sana" (a rectangular 12×16 board):
the presets refuse with one line saying what is unpublished; a user's own tile set and 17×17
board (black squares as ``X``) play in ``score`` and ``best`` with the rule set's values
``rack_size = 10`` and ``min_word_length = 4``.

The tile values and board below are this test's own files (the real ones are not published);
the expected scores are worked out by hand from them: M 2, I 1, Z 3, A 1, O 1, K 2, N 1, S 1,
a DW on the start square I9, a black square at M9.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import run_skrafl_here

from gamecore.errors import DataError, UsageError
from gamecore.rules import load_rules, read_rules

RULES_DIR = Path(__file__).resolve().parents[1] / "gamecore" / "data" / "rules"

TILES = """# tile set: my_krizemkrazem
# source: a club's own set for this test (Križemkražem's is not published)
letter	count	value	vowel
?	10	0	0
A	20	1	1
E	20	1	1
I	15	1	1
O	15	1	1
U	8	2	1
K	10	2	0
M	8	2	0
N	10	1	0
R	10	1	0
S	10	1	0
T	10	1	0
Z	4	3	0
Ž	3	4	0
"""


def _board17() -> str:
    rows = ["|" + " " * 17 + "|" for _ in range(17)]
    r9 = list(" " * 17)
    r9[8] = "-"  # I9: DW, the start square
    r9[12] = "X"  # M9: a black square
    rows[8] = "|" + "".join(r9) + "|"
    return "# my 17x17\n# start square: I9\n# source: this test\n" + "\n".join(rows) + "\n"


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("kk")
    (d / "tiles.tsv").write_text(TILES, encoding="utf-8")
    (d / "board17.txt").write_text(_board17(), encoding="utf-8")
    text = (RULES_DIR / "krizemkrazem.toml").read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if not ln.startswith("unpublished")]
    mine = "\n".join(lines).replace('"YOUR_TILES.tsv"', '"tiles.tsv"').replace('"YOUR_BOARD_17x17.txt"', '"board17.txt"')
    (d / "kk.toml").write_text(mine + "\n", encoding="utf-8")
    (d / "kk2.toml").write_text(mine.replace("min_word_length = 4", "min_word_length = 2") + "\n", encoding="utf-8")
    src = d / "src"
    src.mkdir()
    (src / "words.txt").write_text("miza\nokno\nsok\n", encoding="utf-8")
    r = run_skrafl_here("build", "sl", "--source", "wordlist", "--input", str(src / "words.txt"), "--out", str(d / "sl"), "-q")
    assert r.returncode == 0, r.stderr
    (d / "empty.board").write_text("\n".join(["." * 17] * 17) + "\n", encoding="utf-8")
    return {
        "dir": d,
        "rules": str(d / "kk.toml"),
        "rules2": str(d / "kk2.toml"),
        "lex": str(d / "sl"),
        "board": str(d / "empty.board"),
    }


def _one_line_error(r, *needles):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("skrafl: error: ") and "Traceback" not in r.stderr, r.stderr
    for n in needles:
        assert n in lines[0], (n, lines[0])


@pytest.mark.parametrize("cmd", ["score", "best"])
def test_krizemkrazem_preset_refuses_in_one_line(game, cmd):
    args = ["--board", game["board"], "--lexicon", game["lex"], "--rules", "krizemkrazem"]
    args += ["--play", "9I MIZA"] if cmd == "score" else ["--rack", "MIZA"]
    _one_line_error(run_skrafl_here(cmd, *args), "not published", "222", "10 jokers", "tile_set")


def test_etsi_sana_preset_and_a_rectangular_board_refused(game, tmp_path):
    with pytest.raises(UsageError, match="12×16.*not supported"):
        load_rules("etsi_sana")
    rect = tmp_path / "rect.txt"
    rect.write_text("# start square: H6\n" + "\n".join("|" + " " * 16 + "|" for _ in range(12)) + "\n", encoding="utf-8")
    toml = tmp_path / "r.toml"
    toml.write_text(f'tile_set = "russian"\nboard = "{rect}"\n', encoding="utf-8")
    r = run_skrafl_here("score", "--rules", str(toml), "--board", game["board"], "--play", "8H ДОМ")
    _one_line_error(r, str(rect), "board must be square: 12 rows of 16", "not supported")


def test_rule_set_values(game):
    rs = read_rules(game["rules"])
    assert (rs.rack_size, rs.min_word_length, rs.layout().size, rs.tiles().blanks) == (10, 4, 17, 10)
    assert rs.layout().blocked == frozenset({(8, 12)})


def test_min_word_length_must_be_two_or_more(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('tile_set = "slovene"\nmin_word_length = 1\n', encoding="utf-8")
    with pytest.raises(DataError, match="min_word_length must be at least 2"):
        read_rules(p)


def _score(game, play, *extra, rules=None):
    r = run_skrafl_here(
        "score",
        "--rules",
        rules or game["rules"],
        "--lexicon",
        game["lex"],
        "--board",
        game["board"],
        "--play",
        play,
        "-f",
        "json",
        *extra,
    )
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)


def test_score_a_four_letter_word_with_a_rack_of_ten(game):
    # 9I MIZA: M 2 (I9, DW) + I 1 + Z 3 + A 1 = 7, × 2 = 14; no bonus
    code, d = _score(game, "9I MIZA", "--rack", "MIZAOKNOST")
    assert code == 0 and d["legal"] and d["score"] == 14 and d["verdict"] == "ACCEPTABLE"


def test_score_a_rack_of_eleven_refused(game):
    r = run_skrafl_here("score", "--rules", game["rules"], "--board", game["board"], "--play", "9I MIZA", "--rack", "MIZAOKNOSTE")
    _one_line_error(r, "rack has 11 tiles", "allows 10")


def test_score_a_three_letter_word_is_too_short(game):
    code, d = _score(game, "9I SOK")
    assert code == 1 and not d["legal"] and d["reason"]["code"] == "too_short" and "4 letters" in d["reason"]["message"]
    # a play that cannot be made is not scored (verdict ILLEGAL); the same play is (1 + 1 + 2) × 2 = 8 below
    assert d["words"] == [{"word": "SOK", "gcg": "SOK", "valid": True, "score": None}] and d["score"] is None
    assert d["verdict"] == "ILLEGAL"
    code, d = _score(game, "9I SOK", rules=game["rules2"])  # the same play with words of 2 or more
    assert code == 0 and d["legal"] and d["score"] == 8


def test_score_through_a_black_square_refused(game):
    code, d = _score(game, "I6 MIZA")  # down I6..I9: covers the start square, legal
    assert code == 0 and d["score"] == 14
    code, d = _score(game, "9J MIZA")  # J9..M9: M9 is black (and I9 not covered)
    assert code == 1 and not d["legal"]


def _best(game, rules, rack="MIZAOKNOST"):
    r = run_skrafl_here(
        "best", "--rules", rules, "--lexicon", game["lex"], "--board", game["board"], "--rack", rack, "-f", "tsv", "--all"
    )
    assert r.returncode == 0, r.stderr
    return [line.split("\t") for line in r.stdout.splitlines()[1:]]


def test_best_keeps_the_shortest_word_and_the_black_square(game):
    rows = _best(game, game["rules"])
    assert rows and {w for _, w, *_ in rows} == {"MIZA", "OKNO"}
    assert max(int(s) for _, _, s, *_ in rows) == 14 and rows[0][1] == "MIZA"
    # OKNO: O 1 + K 2 + N 1 + O 1 = 5, × 2 = 10
    assert {int(s) for _, w, s, *_ in rows if w == "OKNO"} == {10}
    # no play puts a tile on the black square M9 (across plays on row 9 from J, K, L, M would)
    assert not [c for c, w, *_ in rows if c in ("9J", "9K", "9L", "9M")]
    rows2 = _best(game, game["rules2"])
    assert "SOK" in {w for _, w, *_ in rows2} and {int(s) for _, w, s, *_ in rows2 if w == "SOK"} == {8}


def test_best_drops_a_short_cross_word(game):
    """A four-letter main word whose tile makes a two- or three-letter word across is dropped
    under min_word_length 4 (the move generator lists cross words by their squares only)."""
    from gamecore.board import read_board
    from gamecore.game_state import forms_short_word
    from gamecore.play import Placement, validate_placements

    rs = read_rules(game["rules2"])

    def _long_enough(sp, shortest, board):
        return not forms_short_word(rs.replace(min_word_length=shortest), board, sp)

    board = read_board(game["board"], rs.tiles(), rs.layout())
    for r in (8, 9, 10):
        board.place(r, 7, "K")  # H9, H10, H11: a line down under H8
    sp = validate_placements(
        board, [Placement(7, c, ch) for c, ch in zip(range(5, 9), "MIZA", strict=True)], None, None, rs, across=True
    )
    assert sp.words == ("miza", "zkkk")  # F8..I8 across; H8's Z on top of the three K: four letters down
    assert _long_enough(sp, 4, board) and not _long_enough(sp, 5, board)
    board.squares[10][7] = None  # now Z + KK: three letters down
    sp = validate_placements(
        board, [Placement(7, c, ch) for c, ch in zip(range(5, 9), "MIZA", strict=True)], None, None, rs, across=True
    )
    assert not _long_enough(sp, 4, board) and _long_enough(sp, 3, board)


def test_show_draws_the_17x17_board(game, tmp_path):
    out = tmp_path / "kk.svg"
    r = run_skrafl_here("show", "--rules", game["rules"], "--board", game["board"], "--play", "9I MIZA", "--out", str(out), "-q")
    assert r.returncode == 0, r.stderr
    svg = out.read_text(encoding="utf-8")
    assert "9I MIZA 14" in svg and ">Q<" in svg  # the caption; the 17th column is Q


def test_template_copied_without_own_files_says_what_is_missing(tmp_path):
    text = (RULES_DIR / "krizemkrazem.toml").read_text(encoding="utf-8")
    copy = tmp_path / "kk.toml"
    copy.write_text("\n".join(ln for ln in text.splitlines() if not ln.startswith("unpublished")) + "\n", encoding="utf-8")
    board = tmp_path / "b.board"
    board.write_text("\n".join(["." * 17] * 17) + "\n", encoding="utf-8")
    r = run_skrafl_here("score", "--rules", str(copy), "--board", str(board), "--play", "9I MIZA")
    _one_line_error(r, str(copy), "tile_set 'YOUR_TILES.tsv': no such file")
