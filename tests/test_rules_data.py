"""Tile sets, board layouts and rule-set presets loaded from the game core's data files.

Expected values come from the shared reference data (its tile-set table and board files) and docs/RULES.md, not from the code.
"""

from __future__ import annotations

import csv

import pytest

from gamecore.boards import load_layout, random_layout, read_layout
from gamecore.errors import DataError, UsageError
from gamecore.rules import default_preset, load_rules, preset_names, read_rules
from gamecore.tilesets import load_tile_set, read_tile_set, tile_set_names


def test_every_reference_tile_set_matches_the_shared_table(shared):
    rows: dict[str, list[dict]] = {}
    with open(shared / "reference" / "tile_sets.tsv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            rows.setdefault(row["tile_set"], []).append(row)
    assert set(rows) <= set(tile_set_names())
    for name, ref in rows.items():
        ts = load_tile_set(name)
        assert ts.source, name
        for row in ref:
            if row["letter"] == "?":
                assert ts.blanks == int(row["count"]), name
            else:
                assert ts.counts[row["letter"]] == int(row["count"]), (name, row["letter"])
                assert ts.values[row["letter"]] == int(row["value"]), (name, row["letter"])
                if row["vowel"] != "":
                    assert (row["letter"] in ts.vowels) == (row["vowel"] == "1"), (name, row["letter"])


@pytest.mark.parametrize(
    "name,total,blanks",
    [
        ("english", 100, 2),
        ("icelandic_new", 100, 2),
        ("icelandic_old", 104, 2),
        ("erudit", 131, 3),
        ("russian", 104, 2),
        ("norwegian_wordfeud_104", 104, 2),
        ("english_super", 200, 4),
    ],
)
def test_tile_set_totals(name, total, blanks):
    # docs/RULES.md: Netskrafl 100 new bag / 104 old bag; Erudit 131 = 128 letters + 3 stars; Russian 104
    ts = load_tile_set(name)
    assert ts.total == total
    assert ts.blanks == blanks


def test_icelandic_alphabet_order_and_values():
    ts = load_tile_set("icelandic_new")
    assert "".join(ts.letters) == "AÁBDÐEÉFGHIÍJKLMNOÓPRSTUÚVXYÝÞÆÖ"
    assert ts.values["X"] == 10 and ts.values["Þ"] == 7
    assert ts.index("A") == 1 and ts.index("Ö") == 32 and ts.index("C") == 0
    assert {"A", "Á", "Ö", "Ý"} <= ts.vowels and "Þ" not in ts.vowels


def test_user_tile_set_file_with_multi_letter_tiles(tmp_path):
    p = tmp_path / "mini.tsv"
    p.write_text(
        "# source: test\nletter\tcount\tvalue\tvowel\n?\t1\t0\t0\nA\t3\t1\t1\nCH\t1\t5\t0\nC\t1\t3\t0\nH\t1\t4\t0\n",
        encoding="utf-8",
    )
    ts = load_tile_set(str(p))
    assert ts.letters == ("A", "CH", "C", "H")
    # CH is made of the set's C and H, so bare "CH" is C + H and the tile is "[CH]"
    # (wolges' Spanish rule); brackets hold multi-letter tiles only
    assert ts.parse_rack("A[CH]?") == ["A", "CH", "?"]
    assert ts.parse_rack("ACH") == ["A", "C", "H"]
    with pytest.raises(UsageError, match="multi-letter tiles only"):
        ts.parse_rack("A[C]H")
    with pytest.raises(UsageError, match="2 × 'CH'"):
        ts.parse_rack("[CH][CH]")
    assert "".join(ts.format_tile(t) for t in ["CH", "C", "H"]) == "[CH]CH"  # reads back as the same three
    assert ts.parse_rack("[CH]CH") == ["CH", "C", "H"]


def test_multi_letter_tiles_not_made_of_single_tiles_read_bare(tmp_path):
    """Catalan-style labels (macondo's greedy match): L·L and QU when the set has no · and no Q."""
    p = tmp_path / "cat.tsv"
    p.write_text(
        "# source: test\nletter\tcount\tvalue\tvowel\n?\t2\t0\t0\nA\t3\t1\t1\nL\t2\t1\t0\nL·L\t1\t10\t0\nQU\t1\t8\t0\nE\t3\t1\t1\n",
        encoding="utf-8",
    )
    ts = load_tile_set(str(p))
    assert ts.parse_rack("AL·LQUE") == ["A", "L·L", "QU", "E"]
    assert ts.parse_rack("A[L·L][QU]L") == ["A", "L·L", "QU", "L"]


def test_bad_tile_set_file_names_file_and_line(tmp_path):
    p = tmp_path / "bad.tsv"
    p.write_text("letter\tcount\tvalue\tvowel\nA\tmany\t1\t1\n", encoding="utf-8")
    with pytest.raises(DataError) as e:
        read_tile_set(p)
    assert e.value.line == 2 and e.value.path == str(p)


def test_unknown_tile_set():
    with pytest.raises(UsageError, match="known: .*english"):
        load_tile_set("klingon")


def test_rack_with_more_tiles_than_the_set_has():
    ts = load_tile_set("english")
    with pytest.raises(UsageError, match="only 1"):
        ts.parse_rack("ZZ")
    with pytest.raises(UsageError, match="blank"):
        ts.parse_rack("???")
    with pytest.raises(UsageError, match="not in tile set"):
        ts.parse_rack("AÐ")


@pytest.mark.parametrize(
    "name,size,start,squares",
    [
        # reference boards/: corners TW, H8 DW on the standard board, B2 DW, F2 TL, D1 DL
        ("standard", 15, (7, 7), {(0, 0): "TW", (7, 7): "DW", (1, 1): "DW", (1, 5): "TL", (0, 3): "DL", (7, 6): ""}),
        ("explo", 15, (3, 3), {(0, 0): "TW", (3, 3): "DW", (1, 1): "TL", (7, 7): "DW"}),
        ("super", 21, (10, 10), {(0, 0): "QW", (2, 5): "QL", (0, 7): "TW"}),
        ("erudit", 15, (7, 7), {(7, 7): "", (5, 5): "", (5, 1): "TL", (0, 0): "TW"}),
    ],
)
def test_layouts(name, size, start, squares):
    lay = load_layout(name)
    assert lay.size == size and lay.start == start and lay.source
    for (r, c), prem in squares.items():
        assert lay.premium(r, c) == prem, (name, r, c)


def test_standard_layout_premium_counts():
    lay = load_layout("standard")
    cells = [lay.premium(r, c) for r in range(15) for c in range(15)]
    # the standard board: 24 DL, 12 TL, 17 DW (centre included), 8 TW
    assert (cells.count("DL"), cells.count("TL"), cells.count("DW"), cells.count("TW")) == (24, 12, 17, 8)


def test_layout_round_trips_through_text(tmp_path):
    lay = load_layout("super")
    p = tmp_path / "mine.txt"
    p.write_text(lay.to_text(), encoding="utf-8")
    again = read_layout(p)
    assert again.letter_mult == lay.letter_mult and again.word_mult == lay.word_mult and again.start == lay.start


def test_bad_layout_file(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("# start square: H8\n|=  '|\n|  |\n", encoding="utf-8")
    with pytest.raises(DataError) as e:
        read_layout(p)
    assert e.value.line == 3


def test_tilfeldig_is_reproducible_and_has_n_premiums():
    a, b, c = random_layout(40, 7), random_layout(40, 7), random_layout(40, 8)
    assert a.letter_mult == b.letter_mult and a.word_mult == b.word_mult
    assert (a.letter_mult, a.word_mult) != (c.letter_mult, c.word_mult)
    # N premium squares besides the centre, which doubles the first word as on every Ordspill board
    # (the Ordspill.no rules: "Denne ruten gir det første ordet dobbelt ordpoeng")
    assert sum(1 for r in range(15) for col in range(15) if a.premium(r, col) and (r, col) != (7, 7)) == 40
    assert a.start == (7, 7) and a.word_mult[7][7] == 2 and a.letter_mult[7][7] == 1
    assert load_layout("tilfeldig:40:7").word_mult == a.word_mult
    with pytest.raises(UsageError):
        random_layout(500, 1)


def test_presets_and_their_differences():
    # docs/RULES.md §3 table
    assert set(preset_names()) >= {"netskrafl", "ordspill", "erudit", "russian_scrabble", "slovene", "wespa"}
    ns = load_rules("netskrafl")
    assert (ns.tile_set, ns.bingo_bonus, ns.challenge_bonus, ns.exchange_min_bag) == ("icelandic_new", 50, 10, 7)
    assert ns.scoreless_turns_end(2) == 6 and ns.end_out == "double_opponent_rack" and ns.time_penalty_max == 100
    er = load_rules("erudit")
    assert (er.bingo_bonus, er.board, er.tile_set, er.exchange_min_bag) == (15, "erudit", "erudit", 0)
    assert load_rules("wespa").challenge_bonus == 5
    assert load_rules("ordspill").end_out == "others_racks"
    assert load_rules("slovene").scoreless_turns_end(2) == 4
    # the Slovenian and Russian articles: no published set or layout; the Ordspill.no rules' Spesial (no published layout) and
    # Tilfeldig (premium squares at random, one board per game)
    unpublished = {"krizemkrazem", "etsi_sana", "ordspill_spesial", "ordspill_tilfeldig"}
    assert unpublished <= set(preset_names())
    for name in preset_names():
        if name in unpublished:
            with pytest.raises(UsageError, match="not published|no published layout|at random"):
                load_rules(name)
            continue
        rs = load_rules(name)
        assert rs.rack_size == (9 if name == "scrabble9" else 7) and rs.source and rs.min_word_length == 2
        rs.tiles(), rs.layout()  # every preset names a loadable tile set and board


@pytest.mark.parametrize(
    "lang,preset", [("is", "netskrafl"), ("nb", "ordspill"), ("ru", "russian_scrabble"), ("sl", "slovene"), ("en", "wespa")]
)
def test_default_preset_per_language(lang, preset):
    assert default_preset(lang) == preset


def test_unknown_preset_lists_known_ones():
    with pytest.raises(UsageError) as e:
        load_rules("scrabulous")
    msg = str(e.value)
    assert "scrabulous" in msg and "netskrafl" in msg and "wespa" in msg and "\n" not in msg


def test_rule_file_errors(tmp_path):
    p = tmp_path / "r.toml"
    p.write_text('tile_set = "english"\nbingo_bonus = "lots"\n', encoding="utf-8")
    with pytest.raises(DataError, match="bingo_bonus"):
        read_rules(p)
    p.write_text('tile_set = "english"\nblank_value = "half"\n', encoding="utf-8")
    with pytest.raises(DataError, match="blank_value"):
        read_rules(p)
    p.write_text('tile_set = "english"\nrack_size = 9\nbingo_bonus = 50\n', encoding="utf-8")
    nine = load_rules(str(p))
    assert nine.rack_size == 9 and nine.bingo_min_tiles == 9


def test_rule_file_toml_error_names_its_line_and_a_bom_is_dropped(tmp_path):
    """A rule set's TOML syntax error is FILE:LINE (as recipes and nightly configs); a leading
    UTF-8 BOM is no TOML: dropped, as every reader drops it."""
    p = tmp_path / "r.toml"
    p.write_text('tile_set = "english"\nbingo_bonus = 50\nrack_size = = 7\n', encoding="utf-8")
    with pytest.raises(DataError) as e:
        read_rules(p)
    assert str(e.value).startswith(f"{p}:3: not valid TOML: ") and "at line" not in str(e.value)
    p.write_bytes(b"\xef\xbb\xbf" + 'tile_set = "english"\nbingo_bonus = 35\n'.encode())
    assert load_rules(str(p)).bingo_bonus == 35


def test_the_first_word_on_a_tilfeldig_board_is_doubled():
    """The Ordspill.no rules: the centre square gives the first word double word points, on every board: on a
    Tilfeldig board ORD through the centre (O 2, R 1, D 1 in the NSF set) scores 8 when its other
    squares are plain (it scored 4)."""
    from gamecore.board import Board
    from gamecore.play import validate_play

    rules = load_rules("ordspill").replace(board="tilfeldig:40:1")
    layout = rules.layout()
    assert layout.premium(7, 6) == "" and layout.premium(7, 8) == ""  # G8 and I8 plain on this board
    play = validate_play(Board(layout, rules.tiles()), "8G ORD", None, None, rules)
    assert play.score == 2 * (2 + 1 + 1)


@pytest.mark.parametrize(
    "key,value",
    [("bingo_bonus", 2**31), ("rack_size", 10**23), ("bingo_bonus", -(2**31) - 1), ("bingo_tiles", -3), ("time_penalty", -10)],
)
def test_rule_set_integers_are_counts_that_fit_int32(tmp_path, key, value):
    """An integer of a rule set is a count or points, 0..2^31-1: beyond it the C scorer raised
    OverflowError (an internal error of best and score); a negative bingo_tiles made every play a bingo."""
    p = tmp_path / "r.toml"
    p.write_text(f'name = "r"\ntile_set = "english"\n{key} = {value}\n', encoding="utf-8")
    with pytest.raises(DataError, match=f"{key} must be a whole number from 0 to 2147483647; got {value}"):
        read_rules(p)
    p.write_text(f'name = "r"\ntile_set = "english"\n{key} = 2147483647\n', encoding="utf-8")
    assert getattr(read_rules(p), key) == 2**31 - 1
