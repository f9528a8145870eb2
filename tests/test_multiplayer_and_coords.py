"""``score --challenge`` and ``show`` in 3–4 player games, ``show --play`` and the
rack, ``--coords netskrafl`` in every coordinate written or drawn, ``--challenged`` naming a word
twice, and the smaller points (▶ at the end and on a CGP, a blank's value under
``blank_value = "letter"``, ``best --all -n``, ``best --cgp``, ``score --game`` and ``#lexicon``).

Expected values come from the rules (docs/RULES.md, the Scrabble rules page for 3–4 players,
docs/GCG.md §7, tile_sets.tsv, boards/) and the shared GCG files, never from the code.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from clirun import PROJECT_ROOT, run_skrafl_here

SVG = "{http://www.w3.org/2000/svg}"
EMPTY = "/".join(["15"] * 15)
EN = PROJECT_ROOT / "output" / "en"

# A legal three-player game, scored by hand on the standard board (boards/standard15): 8D JOINT:
# J on the DL at D8, (16 + 4) x 2 (the star) = 40; H8 .RUSTEED down through the T: T on the DL at
# H12, D on the TW at H15: (1+1+1+1+2+1+1+2) x 3 + 50 = 80; C3 ELINVAR down: C3 DW, V and R on the
# DLs at C7 and C9: (1+1+1+1+8+1+2) x 2 = 30, AJOINT 1+8+1+1+1+1 = 13, + 50 = 93.
THREE = """#character-encoding UTF-8
#lexicon NWL20
#player1 ann Ann
#player2 ben Ben
#player3 cat Cat
>ann: IJNOTAE 8D JOINT +40 40
>ben: DEERSTU H8 .RUSTEED +80 80
>cat: AEILNRV C3 ELINVAR +93 93
"""


@pytest.fixture(scope="module")
def en() -> Path:
    if not (EN / "manifest.json").is_file():
        pytest.skip("output/en is not built")
    return EN


@pytest.fixture
def three(tmp_path) -> Path:
    p = tmp_path / "three.gcg"
    p.write_text(THREE, encoding="utf-8")
    return p


def _gcg(shared: Path, name: str) -> Path:
    return shared / "corpora" / "gcg" / name


def _one_line_exit_2(r) -> str:
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    return r.stderr


def _scores(svg: Path) -> list[tuple[str, bool]]:
    """The score line above the board: (text, on turn) per player, left to right."""
    root = ET.parse(svg).getroot()
    return [
        ((t.text or "").replace("▶ ", ""), (t.text or "").startswith("▶"))
        for t in root.iter(f"{SVG}text")
        if t.get("class") == "score"
    ]


def _caption(svg: Path) -> str:
    root = ET.parse(svg).getroot()
    return next(t.text for t in root.iter(f"{SVG}text") if t.get("class") == "caption")


def _edge_labels(svg: Path, kind: str) -> list[str]:
    root = ET.parse(svg).getroot()
    return [t.text for t in root.iter(f"{SVG}text") if t.get("class") == f"coord {kind}"][::2]


# ---- 1. three and four players: the challenge ruling and the picture ---------------------------


def test_double_challenge_in_a_three_player_game(en, three):
    """The Scrabble rules page (2–4 players): a play is challenged before the next turn, and a wrong challenger
    loses the next turn. The challenger is the next player in turn order (ann, after cat); the
    play stands for 93 and ann's turn is lost: ben moves. Scores before: cat 0, ann 40."""
    r = run_skrafl_here("score", "--lang", "en", "--game", str(three), "--move", "3", "--challenge", "double", "-f", "json")
    assert r.returncode == 0, r.stderr
    ch = json.loads(r.stdout)["challenge"]
    assert ch["players"] == {"player": "cat", "opponent": "ann"}
    assert ch["points"] == {"player": 93, "opponent": 0}
    assert ch["scores_after"] == {"player": 93, "opponent": 40}
    assert ch["next_name"] == "ben" and ch["next"] == "following"
    r = run_skrafl_here("score", "--lang", "en", "--game", str(three), "--move", "3", "--challenge", "single", "-f", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["challenge"]["next_name"] == "ann"  # no penalty: the next player moves
    r = run_skrafl_here("score", "--lang", "en", "--game", str(three), "--move", "3", "--challenge", "double")
    assert r.returncode == 0, r.stderr
    assert "next       ben" in r.stdout


def test_challenge_in_a_four_player_game(en, shared):
    """The four-player Quackle file: move 1 (Mark_Ogden 8F BICEP) challenged under double: the
    next player, Chappy, challenges and loses the turn, so Nicole_Gorham moves; a later event that
    cannot be made (move 3, F not on the rack) is a ruling with no challenge, not an internal error."""
    g = _gcg(shared, "quackle_quackle__test_positions_multiplayer-crash.gcg")
    r = run_skrafl_here("score", "--lang", "en", "--game", str(g), "--move", "1", "--challenge", "double", "-f", "json")
    assert r.returncode == 0, r.stderr
    ch = json.loads(r.stdout)["challenge"]
    assert (ch["players"], ch["next_name"]) == ({"player": "Mark_Ogden", "opponent": "Chappy"}, "Nicole_Gorham")
    r = run_skrafl_here("score", "--lang", "en", "--game", str(g), "--move", "3", "--challenge", "double")
    assert r.returncode == 1 and "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_show_draws_every_player(three, tmp_path):
    """Before event 3 cat is to move (ann 40, ben 80, cat 0); in the PNG too (opened with pillow)."""
    out = tmp_path / "m3.svg"
    r = run_skrafl_here("show", "--game", str(three), "--move", "3", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "cat to move" in r.stderr
    assert _scores(out) == [("ann 40", False), ("ben 80", False), ("cat 0", True)]
    png = tmp_path / "m3.png"
    assert run_skrafl_here("show", "--game", str(three), "--move", "3", "--out", str(png)).returncode == 0
    from PIL import Image

    with Image.open(png) as im:
        assert im.format == "PNG" and im.size[0] > 600


def test_show_and_export_at_the_end_keep_the_third_player(three, tmp_path):
    out = tmp_path / "end.svg"
    assert run_skrafl_here("show", "--game", str(three), "--out", str(out)).returncode == 0
    assert [t for t, _ in _scores(out)] == ["ann 40", "ben 80", "cat 93"]
    r = run_skrafl_here(
        "replay", str(three), "--out", str(tmp_path / "rep"), "--export-svg", str(tmp_path / "pics"), "--no-lexicon"
    )
    assert r.returncode == 0, r.stderr
    assert [t for t, _ in _scores(tmp_path / "pics" / "three.svg")] == ["ann 40", "ben 80", "cat 93"]


# ---- 2. show --play: tiles must come from a known rack --------------------------------------------


def test_show_refuses_tiles_not_on_the_rack(shared, tmp_path):
    out = tmp_path / "j.svg"
    err = _one_line_exit_2(
        run_skrafl_here("show", "--rules", "wespa", "--cgp", f"{EMPTY} AB/ 0/0 0", "--play", "8D JOINT", "--out", str(out))
    )
    assert "not_on_rack" in err and not out.exists()
    g = _gcg(shared, "domino14_macondo__gcgio_testdata_doug_v_emely.gcg")  # doug's rack at event 12: ?BDERUW
    err = _one_line_exit_2(run_skrafl_here("show", "--game", str(g), "--move", "12", "--play", "A1 WEQ", "--out", str(out)))
    assert "not_on_rack" in err and not out.exists()
    err = _one_line_exit_2(
        run_skrafl_here("show", "--rules", "wespa", "--cgp", EMPTY, "--rack", "AB", "--play", "8D JOINT", "--out", str(out))
    )
    assert "not_on_rack" in err
    # the recorded play comes from the recorded rack; no rack known: no rack check
    assert run_skrafl_here("show", "--game", str(g), "--move", "12", "--play", "A1 WEB", "--out", str(out)).returncode == 0
    assert run_skrafl_here("show", "--rules", "wespa", "--cgp", EMPTY, "--play", "8D JOINT", "--out", str(out)).returncode == 0


# ---- 3. --coords netskrafl everywhere ----------------------------------------------------------------


def test_score_coord_follows_coords(en, tmp_path):
    """'H4 JOINT' in Netskrafl's order is row H from column 4 across: GCG 8D, 40 points; written back
    as H4 in json, tsv and --batch, and in the --svg caption."""
    cgp = f"{EMPTY} JOINT/ 0/0 0"
    svg = tmp_path / "s.svg"
    r = run_skrafl_here(
        "score", "--lang", "en", "--cgp", cgp, "--play", "H4 JOINT", "--coords", "netskrafl", "-f", "json", "--svg", str(svg)
    )
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert (data["play"], data["coord"], data["score"]) == ("H4 JOINT", "H4", 40)
    assert _caption(svg).startswith("H4 JOINT 40")
    assert _edge_labels(svg, "row")[:2] == ["A", "B"] and _edge_labels(svg, "col")[:2] == ["1", "2"]
    r = run_skrafl_here("score", "--lang", "en", "--cgp", cgp, "--play", "H4 JOINT", "--coords", "netskrafl", "-f", "tsv")
    assert "coord\tH4\t" in r.stdout
    r = run_skrafl_here(
        "score", "--lang", "en", "--batch", "-", "--coords", "netskrafl", "-f", "tsv", "-q", stdin=f"{cgp}\tH4 JOINT\n"
    )
    assert "1\tcoord\tH4\t" in r.stdout
    r = run_skrafl_here("score", "--lang", "en", "--cgp", cgp, "--play", "8D JOINT", "-f", "json")
    assert json.loads(r.stdout)["coord"] == "8D"  # gcg: unchanged


def test_show_caption_follows_coords(tmp_path):
    out = tmp_path / "c.svg"
    r = run_skrafl_here(
        "show", "--rules", "wespa", "--cgp", EMPTY, "--play", "H4 JOINT", "--coords", "netskrafl", "--out", str(out)
    )
    assert r.returncode == 0, r.stderr
    # H4 in Netskrafl's order: row H from column 4 across = GCG 8D; J on the DL at D8, x2 = 40
    assert _caption(out) == "H4 JOINT 40"
    r = run_skrafl_here(
        "show", "--rules", "wespa", "--cgp", EMPTY, "--play", "8D JOINT", "--coords", "netskrafl", "--out", str(out)
    )
    assert r.returncode == 0, r.stderr
    # 8D in Netskrafl's order: column 8 from row D down = GCG H4 down; J on the DL at H4, x2 = 40
    assert _caption(out) == "8D JOINT 40"
    root = ET.parse(out).getroot()
    assert {g.get("data-square") for g in root.iter(f"{SVG}g") if "tile" in g.get("class", "").split()} == {
        "H4",
        "H5",
        "H6",
        "H7",
        "H8",
    }  # data-square keeps GCG's square names (column letter, row number)


def test_best_svg_follows_coords(en, tmp_path):
    """The best play for JOINT on an empty board is 40 (GCG 8D across or H4 down: J on the DL at D8
    or H4, doubled by the star; Netskrafl's H4 or 8D); the picture's caption names it as the table
    does, its edge labels in Netskrafl's order."""
    svg = tmp_path / "b.svg"
    r = run_skrafl_here(
        "best",
        "--lang",
        "en",
        "--cgp",
        f"{EMPTY} JOINT/ 0/0 0",
        "-n",
        "1",
        "--coords",
        "netskrafl",
        "--svg",
        str(svg),
        "-f",
        "tsv",
    )
    assert r.returncode == 0, r.stderr
    coord, word, score = r.stdout.splitlines()[1].split("\t")[:3]
    assert score == "40" and coord in ("H4", "8D")
    assert _caption(svg) == f"{coord} {word} 40"
    assert _edge_labels(svg, "col")[:3] == ["1", "2", "3"] and _edge_labels(svg, "row")[:3] == ["A", "B", "C"]


# ---- 4. --challenged names a word at most as often as the play forms it --------------------------


def test_a_word_named_twice_is_refused(en, shared):
    """doug's A1 WEB (event 12) forms WEB, ET and BE once each. Five-point is +5 per word
    challenged (WESPA): 5 for WEB alone, 15 for all three."""
    g = _gcg(shared, "domino14_macondo__gcgio_testdata_doug_v_emely.gcg")
    base = ["score", "--lang", "en", "--game", str(g), "--move", "12", "--challenge", "five_point", "-f", "json"]
    err = _one_line_exit_2(run_skrafl_here(*base, "--challenged", "WEB,WEB,WEB,WEB"))
    assert "WEB" in err
    for named, bonus in ((["--challenged", "WEB"], 5), ([], 15), (["--rules", "wespa"], 15)):
        r = run_skrafl_here(*base, *named)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["challenge"]["bonus"] == bonus
    r = run_skrafl_here(*base[:-3], "five_point_per_word", "-f", "json")
    assert json.loads(r.stdout)["challenge"]["bonus"] == 15  # +5 x 3 words


# ---- 5. the smaller points -------------------------------------------------------------------------


def test_no_one_to_move_at_the_end_of_a_finished_game(shared, tmp_path):
    """doug_v_emely ends with emely going out ((OPEG) +14): nobody is to move."""
    out = tmp_path / "e.svg"
    g = _gcg(shared, "domino14_macondo__gcgio_testdata_doug_v_emely.gcg")
    assert run_skrafl_here("show", "--game", str(g), "--out", str(out)).returncode == 0
    assert _scores(out) == [("doug 451", False), ("emely 345", False)]


def test_cgp_first_score_is_on_turn(tmp_path):
    """docs/GCG.md §7: the racks and scores of a CGP are the player on turn's first."""
    out = tmp_path / "c.svg"
    assert run_skrafl_here("show", "--rules", "wespa", "--cgp", f"{EMPTY} AB/ 5/7 0", "--out", str(out)).returncode == 0
    scores = _scores(out)
    assert [on for _, on in scores] == [True, False] and scores[0][0].endswith(" 5")


def test_a_blank_worth_its_letter_shows_its_value(tmp_path):
    """russian_scrabble_swap: blank_value = "letter" (the Russian Scrabble article); a blank Б at H8 scores Б's 3
    (tile_sets.tsv, russian); under russian_scrabble a blank scores 0 and shows no value."""
    board = "/".join(["15"] * 7 + ["7б7"] + ["15"] * 7)
    for rules, want in (("russian_scrabble_swap", ["3"]), ("russian_scrabble", [])):
        out = tmp_path / f"{rules}.svg"
        r = run_skrafl_here("show", "--rules", rules, "--cgp", f"{board} / 0/0 0", "--out", str(out))
        assert r.returncode == 0, r.stderr
        root = ET.parse(out).getroot()
        (tile,) = [g for g in root.iter(f"{SVG}g") if "tile" in g.get("class", "").split()]
        assert tile.get("data-blank") == "1" and tile.get("data-square") == "H8"
        assert [t.text for t in tile.iter(f"{SVG}text") if t.get("class") == "value"] == want


def test_best_all_with_top_is_refused(en):
    err = _one_line_exit_2(run_skrafl_here("best", "--lang", "en", "--cgp", f"{EMPTY} JOINTAB/ 0/0 0", "--all", "-n", "2"))
    assert "--all" in err


def test_best_takes_cgp_as_score_does(en):
    cgp = f"{EMPTY} JOINTAB/ 0/0 0"
    a = run_skrafl_here("best", "--lang", "en", "--cgp", cgp, "-n", "3", "-f", "tsv")
    b = run_skrafl_here("best", "--lang", "en", "--board", cgp, "--board-format", "cgp", "-n", "3", "-f", "tsv")
    assert a.returncode == 0 and a.stdout == b.stdout and len(a.stdout.splitlines()) == 4, a.stderr
    _one_line_exit_2(run_skrafl_here("best", "--lang", "en", "--cgp", cgp, "--board", "x.board"))


def test_score_game_uses_its_lexicon_pragma(en, shared):
    """issue_476.gcg says #lexicon NWL23 (English): event 3, 8H OKA, gets a verdict without --lang."""
    g = _gcg(shared, "domino14_macondo__preendgame_testdata_issue_476.gcg")
    r = run_skrafl_here("score", "--game", str(g), "--move", "3", "-f", "json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert (data["play"], data["verdict"], data["lexicon"] is not None) == ("8H OKA", "ACCEPTABLE", True)


def test_best_shares_the_cgp_option():
    """best's --cgp is cli.position's option object, as score's and show's are."""
    import inspect

    import cli.position as position
    from cli.best import best
    from cli.score import score
    from cli.show import show

    for command in (best, score, show):
        assert inspect.signature(command).parameters["cgp"].default is position.CGP_OPTION
