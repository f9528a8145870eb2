"""The independent play validator and scorer (gamecore.play).

Fixed scores hold for any lexicon containing the words; the shared reference
move lists (three engines agree on them) re-score exactly; each illegal play names its reason.
"""

from __future__ import annotations

import csv

import pytest

from gamecore.board import Board, read_board
from gamecore.boards import load_layout
from gamecore.play import IllegalPlay, Placement, apply_play, validate_placements, validate_play
from gamecore.rules import load_rules

WESPA = load_rules("wespa")
LEX = {
    "retsina",
    "word",
    "rootworm",
    "quirky",
    "odalique",
    "hey",
    "haze",
    "ax",
    "ex",
    "xi",
    "qi",
    "za",
    "zax",
    "at",
    "ta",
    "cat",
    "cats",
    "scat",
    "ate",
    "eat",
    "tea",
    "teas",
    "oe",
    "re",
    "er",
}


def empty(rules=WESPA) -> Board:
    return Board(rules.layout(), rules.tiles())


def put(board: Board, play: str, rules=WESPA) -> Board:
    return apply_play(board, validate_play(board, play, None, None, rules))


def test_retsina_on_the_empty_board():
    sp = validate_play(empty(), "8D RETSINA", "AEINRST", LEX, WESPA)
    # 7 tiles, D8 DL (R=1 → 2) … H8 DW: (2+1+1+1+1+1+1) × 2 + 50 = 66
    assert (sp.score, sp.tiles_placed, sp.coord) == (66, 7, "8D")


def test_rootworm_through_word():
    b = put(empty(), "8E WORD")
    sp = validate_play(b, "E4 ROOTWORM", "MOOORRT", LEX, WESPA)
    assert sp.score == 102 and sp.tiles_placed == 7
    # the letter form and the '.' form are the same play
    assert validate_play(b, "E4 ROOT.ORM", "MOOORRT", LEX, WESPA).score == 102


def test_odalique_through_q():
    b = put(empty(), "8E QUIRKY")
    assert validate_play(b, "E3 ODALI.UE", "AEIOULD", LEX, WESPA).score == 86


def test_one_tile_play_scores_both_ways():
    b = put(put(empty(), "8F HEY"), "F8 .AZE")
    sp = validate_play(b, "G8 .X", "GNX", LEX, WESPA)
    assert sp.score == 34 and sp.tiles_placed == 1 and set(sp.words) == {"ex", "ax"}
    # the same tile given as a bare placement: one play, same score, either direction
    sp2 = validate_placements(b, [Placement(8, 6, "X")], ["G", "N", "X"], LEX, WESPA)
    assert sp2.score == 34 and sp2.placements() == sp.placements()


def test_blank_scores_zero_but_takes_word_premium():
    sp = validate_play(empty(), "8D rETSINA", "AEINST?", LEX, WESPA)
    assert sp.score == 62  # R on the DL now 0: (0 + 6) × 2 + 50
    assert sp.word_text() == "rETSINA" and sp.leave(["A", "E", "I", "N", "S", "T", "?"]) == []


def test_blank_value_letter_rule_variant():
    letter = WESPA.replace(blank_value="letter")
    assert validate_play(empty(letter), "8D rETSINA", None, LEX, letter).score == 66


def test_premiums_only_under_new_tiles():
    b = put(empty(), "8G CAT")  # C on G8, A on H8 (DW), T on I8
    sp = validate_play(b, "8G CATS", "S", LEX, WESPA)
    assert sp.score == 3 + 1 + 1 + 1  # no DW again: H8 is covered


def test_two_word_premiums_multiply_and_erudit_adds_option():
    b = empty()
    b.place(0, 4, "A")  # E1; a word A1..H1 covers TW A1 and TW H1
    rules = WESPA
    sp = validate_placements(b, [Placement(0, c, "E") for c in range(8) if c != 4], None, None, rules)
    # 7 new tiles E (1 each; D1 DL → 2) + A (1, played through): (6 + 2 + 1) × 9 + 50
    assert sp.score == 9 * 9 + 50
    add = rules.replace(word_premiums="add")
    assert validate_placements(b, [Placement(0, c, "E") for c in range(8) if c != 4], None, None, add).score == 9 * 6 + 50


def test_erudit_bingo_is_15():
    er = load_rules("erudit")
    b = Board(er.layout(), er.tiles())
    tiles = ["А", "Б", "В", "Г", "Д", "Е", "Ж"]
    sp = validate_placements(b, [Placement(7, 4 + i, t) for i, t in enumerate(tiles)], None, None, er)
    values = er.tiles().values
    # Erudit board (boards/erudit15.txt): row 8 has DL on D8 and L8 only, a plain centre
    assert sp.score == sum(values[t] for t in tiles) + 15


@pytest.mark.parametrize(
    "board_plays,play,rack,code",
    [
        ([], "8A RETSINA", "AEINRST", "first_play_off_start"),
        (["8G CAT"], "1A AT", "AT", "not_touching"),
        (["8G CAT"], "8G CATS", "X", "not_on_rack"),
        (["8G CAT"], "8E ATCAT", "AT", "not_in_lexicon"),
        (["8G CAT"], "H8 A", "A", "no_tiles"),
        (["8G CAT"], "8H ATS", "S", "not_whole_word"),
        (["8G CAT"], "8G DOG", "DOG", "mismatch"),
        (["8G CAT"], "7G ..", "", "empty_through"),
        (["8G CAT"], "8M ZAXES", "ZAXES", "off_board"),
        ([], "8H A", "A", "too_short"),
    ],
)
def test_illegal_plays_give_their_reason(board_plays, play, rack, code):
    b = empty()
    for p in board_plays:
        b = put(b, p)
    with pytest.raises(IllegalPlay) as e:
        validate_play(b, play, rack, LEX, WESPA)
    assert e.value.code == code, str(e.value)


def test_placement_level_reasons():
    b = put(empty(), "8G CAT")
    with pytest.raises(IllegalPlay) as e:
        validate_placements(b, [Placement(8, 6, "A"), Placement(9, 7, "T")], None, LEX, WESPA)
    assert e.value.code == "not_in_line"
    with pytest.raises(IllegalPlay) as e:
        validate_placements(b, [Placement(8, 6, "A"), Placement(10, 6, "T")], None, LEX, WESPA)
    assert e.value.code == "gap"
    with pytest.raises(IllegalPlay) as e:
        validate_placements(b, [Placement(7, 7, "A")], None, LEX, WESPA)
    assert e.value.code == "square_taken"


def test_not_in_lexicon_names_every_bad_word():
    b = put(empty(), "8G CAT")
    with pytest.raises(IllegalPlay) as e:
        validate_play(b, "9G ZA", "ZA", LEX, WESPA)  # forms ZA across, CZ and AA down
    assert e.value.code == "not_in_lexicon" and set(e.value.words) == {"cz", "aa"}
    assert "CZ" in str(e.value) and "AA" in str(e.value)


def _load_words(path):
    return {w.strip().lower() for w in path.read_text(encoding="utf-8").split() if w.strip()}


@pytest.mark.parametrize("name", ["mid2_b0", "mid1_b1", "open3_b0"])
def test_every_reference_move_validates_with_its_score(shared, name):
    pos = shared / "corpora" / "positions"
    row = {r["name"]: r for r in csv.DictReader(open(pos / "positions.tsv", encoding="utf-8"), delimiter="\t")}[name]
    b = read_board(pos / row["board"], WESPA.tiles(), load_layout("standard"))
    lex = _load_words(pos / row["lexicon"])
    with open(pos / row["moves"], encoding="utf-8") as fh:
        moves = list(csv.DictReader(fh, delimiter="\t"))
    assert moves
    for m in moves:
        sp = validate_play(b, (m["coord"], m["word"]), row["rack"], lex, WESPA)
        assert (sp.score, sp.tiles_placed) == (int(m["score"]), int(m["tiles_placed"])), m


def test_icelandic_riddle_play_scores_104(shared):
    # positions/README.md: A4 ÞREKRAUN 104 (a bingo) on netskrafl_riddle1.board, rack UAENRRK
    from cli.common import output_root
    from gamecore.lexicon import Lexicon

    folder = output_root() / "is"
    if not (folder / "lexicon.marisa").is_file():
        pytest.skip("the Icelandic lexicon is not built (make run)")
    rules = load_rules("netskrafl")
    b = read_board(shared / "corpora" / "positions" / "netskrafl_riddle1.board", rules.tiles(), rules.layout())
    sp = validate_play(b, "A4 ÞREKRAUN", "UAENRRK", Lexicon.load(folder), rules)
    assert (sp.score, sp.tiles_placed, sp.words) == (104, 7, ("þrekraun",))
