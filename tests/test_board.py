"""Board files (GCG and Netskrafl conventions), CGP strings, and coordinates."""

from __future__ import annotations

import pytest

from gamecore.board import parse_board_text, parse_cgp, read_board
from gamecore.boards import load_layout
from gamecore.coords import CoordinateError, format_gcg, format_netskrafl, parse_gcg, parse_netskrafl
from gamecore.errors import DataError
from gamecore.tilesets import load_tile_set

EN = load_tile_set("english")
IS = load_tile_set("icelandic_new")
STD = load_layout("standard")


def test_read_shared_position_board(shared):
    b = read_board(shared / "corpora" / "positions" / "mid2.board", EN, STD)
    # mid2.board line 3 is "........JOE....": J at I3
    assert b[2, 8].label == "J" and not b[2, 8].blank
    assert b[3, 7].label == "F" and b[0, 0] is None
    assert b.tile_count() == 30  # letters in the file


def test_lowercase_is_blank_in_gcg_convention(shared):
    b = read_board(shared / "corpora" / "positions" / "netskrafl_riddle1.board", IS, STD)
    # line 4 "ÞAgI.SKYNTUM...": g is a blank standing for G
    assert b[3, 0].label == "Þ" and not b[3, 0].blank
    assert b[3, 2].label == "G" and b[3, 2].blank
    assert b[0, 3].label == "Í"


def test_netskrafl_convention_is_the_opposite(shared):
    text = (shared / "corpora" / "positions" / "netskrafl_riddle1.board").read_text(encoding="utf-8")
    gcg = parse_board_text(text, IS, STD, "gcg")
    swapped = "".join(ch.swapcase() for ch in text)
    ns = parse_board_text(swapped, IS, STD, "netskrafl")
    assert ns.squares == gcg.squares
    assert ns.to_text("netskrafl") == swapped
    assert gcg.to_text("gcg") == text


def test_cgp_round_trip(shared):
    b = read_board(shared / "corpora" / "positions" / "mid1.board", EN, STD)
    cgp = f"{b.cgp_rows()} AEEFHI?/ 120/98 1 lex CSW21; ld english;"
    pos = parse_cgp(cgp, EN, STD)
    assert pos.board.squares == b.squares
    assert pos.racks[0] == ["A", "E", "E", "F", "H", "I", "?"] and pos.racks[1] == []
    assert pos.scores == (120, 98) and pos.zeros == 1
    assert pos.ops == {"lex": "CSW21", "ld": "english"}
    assert parse_cgp(pos.to_cgp(), EN, STD).board.squares == b.squares


def test_cgp_example_from_the_spec():
    # docs/GCG.md §7: a row "6ZA7" puts Z at G and A at H
    rows = ["15"] * 15
    rows[7] = "6ZA7"
    pos = parse_cgp("/".join(rows) + " AENNRST/ 0/22 0 lex CSW21;", EN, STD)
    assert pos.board[7, 6].label == "Z" and pos.board[7, 7].label == "A" and pos.board.tile_count() == 2
    assert pos.scores == (0, 22)


def test_cgp_errors():
    with pytest.raises(DataError, match="rows"):
        parse_cgp("15/15 A/ 0/0 0", EN, STD)
    with pytest.raises(DataError, match="squares"):
        parse_cgp("/".join(["14"] + ["15"] * 14) + " A/ 0/0 0", EN, STD)


def test_wrong_board_size(tmp_path):
    p = tmp_path / "short.board"
    p.write_text("." * 15 + "\n" * 1 + ("." * 15 + "\n") * 13, encoding="utf-8")
    with pytest.raises(DataError) as e:
        read_board(p, EN, STD)
    assert e.value.path == str(p) and "14 lines" in e.value.message
    p.write_text(("." * 15 + "\n") * 4 + "." * 14 + "\n" + ("." * 15 + "\n") * 10, encoding="utf-8")
    with pytest.raises(DataError) as e:
        read_board(p, EN, STD)
    assert e.value.line == 5 and "14 squares" in e.value.message


def test_unknown_letter_for_the_tile_set(tmp_path, shared):
    # an Icelandic board read with the English tile set: Í on line 1 is no English letter
    src = (shared / "corpora" / "positions" / "netskrafl_riddle1.board").read_text(encoding="utf-8")
    p = tmp_path / "is.board"
    p.write_text(src, encoding="utf-8")
    with pytest.raises(DataError) as e:
        read_board(p, EN, STD)
    assert e.value.line == 1 and "'Í'" in e.value.message
    assert str(e.value).startswith(f"{p}:1: ")


@pytest.mark.parametrize(
    "text,expected",
    [("8D", (7, 3, True)), ("D8", (7, 3, False)), ("h8", (7, 7, False)), ("15O", (14, 14, True)), ("A1", (0, 0, False))],
)
def test_gcg_coordinates(text, expected):
    assert parse_gcg(text) == expected
    assert format_gcg(*expected) == text.upper()


def test_netskrafl_coordinates_are_reversed():
    # docs/NETSKRAFL.md: H4 = row H, column 4, across; 9H = column 9 from row H, down
    assert parse_netskrafl("H4") == (7, 3, True)
    assert parse_netskrafl("9H") == (7, 8, False)
    assert format_netskrafl(7, 3, True) == "H4" and format_netskrafl(7, 8, False) == "9H"
    assert format_gcg(*parse_netskrafl("A1")) == "1A"


def test_coordinates_off_the_board():
    with pytest.raises(CoordinateError):
        parse_gcg("16A")
    with pytest.raises(CoordinateError):
        parse_gcg("P1")
    assert parse_gcg("U21", size=21) == (20, 20, False)
    with pytest.raises(CoordinateError):
        parse_gcg("8-D")


def test_multi_letter_tiles_in_board_text(tmp_path):
    from gamecore.tilesets import read_tile_set

    p = tmp_path / "es.tsv"
    p.write_text("letter\tcount\tvalue\tvowel\n?\t2\t0\t0\nA\t9\t1\t1\nC\t4\t3\t0\nCH\t1\t5\t0\nO\t8\t1\t1\n", encoding="utf-8")
    ts = read_tile_set(p)
    rows = ["." * 15] * 15
    rows[7] = "......[CH]A[ch]O....."
    b = parse_board_text("\n".join(rows) + "\n", ts, STD, "gcg")
    assert b[7, 6].label == "CH" and not b[7, 6].blank
    assert b[7, 8].label == "CH" and b[7, 8].blank
    assert b.to_text().splitlines()[7] == rows[7]


# ---- user trial: a CGP board file's error names its line -----------------------------------------


def test_a_grid_board_read_as_cgp_names_the_second_line(shared):
    """mid2.board is one row per line (a gcg board): as CGP it is refused at its line 2, saying a
    CGP string is one line and what such a board is, not 'CGP board has 1 rows'."""
    path = shared / "corpora" / "positions" / "mid2.board"
    with pytest.raises(DataError) as err:
        parse_cgp(path.read_text(encoding="utf-8"), EN, STD, path=path)
    assert err.value.path == str(path) and err.value.line == 2
    assert "a CGP string is one line" in err.value.message and "--board-format gcg or netskrafl" in err.value.message


def test_cgp_file_errors_name_the_line_of_the_string(tmp_path):
    empty = "/".join(["15"] * 15)
    path = tmp_path / "p.cgp"
    with pytest.raises(DataError) as err:
        parse_cgp("\n\n" + "/".join(["15"] * 14) + " / 0/0 0\n", EN, STD, path=path)
    assert (err.value.line, err.value.message) == (3, "CGP board has 14 rows, expected 15 rows separated by '/'")
    assert str(err.value) == f"{path}:3: CGP board has 14 rows, expected 15 rows separated by '/'"
    with pytest.raises(DataError) as err:
        parse_cgp(f"\n{empty} / x/0 0\n", EN, STD, path=path)
    assert err.value.line == 2 and "CGP scores must be N/N" in err.value.message
    # a string of its own (--cgp, a score --batch line): no line number
    with pytest.raises(DataError) as err:
        parse_cgp("15/15 / 0/0 0", EN, STD)
    assert err.value.line is None and str(err.value) == "CGP board has 2 rows, expected 15 rows separated by '/'"
    assert parse_cgp(f"\n{empty} AB/ 1/2 0\n\n", EN, STD, path=path).scores == (1, 2)


def test_cli_cgp_board_file_names_file_and_line(shared, tmp_path):
    from clirun import run_skrafl_here

    mid2 = shared / "corpora" / "positions" / "mid2.board"
    r = run_skrafl_here("score", "--rules", "wespa", "--board", str(mid2), "--board-format", "cgp", "--play", "8D JOINT")
    assert r.returncode == 2 and r.stderr.startswith(f"skrafl: error: {mid2}:2: a CGP string is one line"), r.stderr
    assert r.stderr.count("\n") == 1
