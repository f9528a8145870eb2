"""Pictures of positions (gamecore.picture, ``skrafl show``, ``skrafl score --svg``): the SVG read
back (squares with the layout's premiums, tiles, blanks and the highlight where the position says)
and the PNG rendered (its size and the colours of known squares)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from clirun import run_skrafl_here

from gamecore.board import Board
from gamecore.boards import load_layout
from gamecore.errors import UsageError
from gamecore.picture import COLOURS, PositionPicture, board_svg, square_name, write_picture
from gamecore.play import apply_play, validate_play
from gamecore.rules import load_rules

NS = {"s": "http://www.w3.org/2000/svg"}
WESPA = load_rules("wespa")
FIX = Path(__file__).resolve().parent / "fixtures"


def _parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def _squares(root) -> dict[str, set[str]]:
    return {
        r.get("data-square"): set(r.get("class").split())
        for r in root.iter("{http://www.w3.org/2000/svg}rect")
        if r.get("class", "").startswith("square")
    }


def _tiles(root, cls="tile") -> dict[str, dict]:
    return {
        g.get("data-square"): g.attrib for g in root.iter("{http://www.w3.org/2000/svg}g") if cls in g.get("class", "").split()
    }


def _premium_names(layout) -> dict[str, str]:
    return {square_name(r, c): layout.premium(r, c) for r in range(layout.size) for c in range(layout.size)}


@pytest.mark.parametrize(
    "layout_name, size, start", [("standard", 15, "H8"), ("explo", 15, "D4"), ("super", 21, "K11"), ("erudit", 15, "H8")]
)
def test_every_square_has_its_layouts_premium(layout_name, size, start):
    layout = load_layout(layout_name)
    rules = WESPA.replace(board=layout_name, tile_set="english_super" if size == 21 else "english")
    root = _parse(board_svg(PositionPicture(Board(layout, rules.tiles()))))
    squares = _squares(root)
    assert len(squares) == size * size and root.get("data-size") == str(size)
    for name, kind in _premium_names(layout).items():
        assert (kind in squares[name]) if kind else squares[name] <= {"square", "start"}, name
    assert "start" in squares[start] and sum("start" in c for c in squares.values()) == 1
    labels = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "label"]
    kinds = [k for k in _premium_names(layout).values() if k]
    assert len(labels) == len(kinds) - (1 if layout.premium(*layout.start) else 0)  # the start shows a star
    cols = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "coord col"]
    assert cols[:2] == ["A", "A"] and len(cols) == 2 * size


def test_standard_colours():
    # TW red, DW pink, TL dark blue, DL light blue, as on the board people know
    root = _parse(board_svg(PositionPicture(Board(load_layout("standard"), WESPA.tiles()))))
    fills = {r.get("data-square"): r.get("fill") for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("data-square")}
    assert fills["A1"] == COLOURS["TW"][0] and fills["B2"] == COLOURS["DW"][0]
    assert fills["F2"] == COLOURS["TL"][0] and fills["D1"] == COLOURS["DL"][0]


def test_erudit_board_in_its_own_colours(tmp_path):
    """An Erudit board is drawn in Erudit's colours, not Scrabble's: those of the layout's source
    (Ksinia/erudite-client Board.css: rgba fills at half strength, seen on a white board)."""
    from PIL import Image

    def on_white(r, g, b, a=0.5):
        return "#%02x%02x%02x" % tuple(round(v * a + 255 * (1 - a)) for v in (r, g, b))

    expected = {
        "TW": on_white(250, 128, 114),  # salmon
        "DW": on_white(255, 165, 0),  # orange
        "TL": on_white(70, 130, 180),  # steelblue
        "DL": on_white(154, 205, 50),  # yellowgreen
    }
    layout = load_layout("erudit")
    pic = PositionPicture(Board(layout, load_rules("erudit").tiles()))
    root = _parse(board_svg(pic))
    rects = {r.get("data-square"): r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("data-square")}
    seen = set()
    for name, kind in _premium_names(layout).items():
        if kind:
            assert rects[name].get("fill") == expected[kind], (name, kind)
            assert rects[name].get("fill") != COLOURS[kind][0]
            seen.add(kind)
    assert seen == set(expected)
    # and so in the PNG a person looks at
    img = Image.open(write_picture(pic, tmp_path / "e.png")).convert("RGB")
    a1 = rects["A1"]
    x, y = int(float(a1.get("x")) + 4), int(float(a1.get("y")) + 4)
    assert "#%02x%02x%02x" % img.getpixel((x, y)) == expected["TW"]
    # the standard board keeps Scrabble's
    std = _parse(board_svg(PositionPicture(Board(load_layout("standard"), WESPA.tiles()))))
    assert (
        next(r for r in std.iter("{http://www.w3.org/2000/svg}rect") if r.get("data-square") == "A1").get("fill")
        == COLOURS["TW"][0]
    )


def _position():
    b = Board(WESPA.layout(), WESPA.tiles())
    b = apply_play(b, validate_play(b, "8D JOiNT", None, None, WESPA))  # a blank i at F8
    play = validate_play(b, "E7 R.D", None, None, WESPA)
    return b, play


def test_tiles_blanks_and_highlight_where_the_position_says():
    b, play = _position()
    pic = PositionPicture(b, play=play, rack=list("AB?"), players=("alice", "bob"), scores=(40, 12), mover=1)
    root = _parse(board_svg(pic))
    tiles = _tiles(root)
    assert set(tiles) == {"D8", "E8", "F8", "G8", "H8", "E7", "E9"}
    assert tiles["F8"]["data-letter"] == "I" and tiles["F8"]["data-blank"] == "1"
    assert {s for s, t in tiles.items() if t["data-new"] == "1"} == {"E7", "E9"}
    assert all(t["data-new"] == "0" for s, t in tiles.items() if s not in ("E7", "E9"))
    # the value of J (8) on its tile; none on the blank
    g = next(g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("data-square") == "D8")
    assert [t.text for t in g if t.get("class") == "value"] == ["8"]
    gb = next(g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("data-square") == "F8")
    assert not [t for t in gb if t.get("class") == "value"] and [c for c in gb if c.get("class") == "blank-mark"]
    rack = [g.get("data-letter") for g in root.iter("{http://www.w3.org/2000/svg}g") if "rack-tile" in g.get("class", "")]
    assert rack == ["A", "B", "?"]
    scores = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "score"]
    assert scores == ["alice 40", "▶ bob 12"]


def test_netskrafl_coordinates_on_the_edges():
    root = _parse(board_svg(PositionPicture(Board(load_layout("explo"), load_rules("netskrafl").tiles()), coords="netskrafl")))
    rows = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "coord row"]
    cols = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "coord col"]
    assert rows[:2] == ["A", "A"] and cols[:2] == ["1", "1"]


def test_png_size_and_pixels(tmp_path):
    from PIL import Image

    b, play = _position()
    out = write_picture(PositionPicture(b, play=play), tmp_path / "p.png")
    img = Image.open(out).convert("RGB")
    root = _parse(board_svg(PositionPicture(b, play=play)))
    assert img.size == (int(root.get("width")), int(root.get("height")))

    def centre(square):
        r = next(r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("data-square") == square)
        return int(float(r.get("x")) + 4), int(float(r.get("y")) + 4)  # inside the square, off its label

    def hex_of(rgb):
        return "#%02x%02x%02x" % rgb

    assert hex_of(img.getpixel(centre("A1"))) == COLOURS["TW"][0]
    assert hex_of(img.getpixel(centre("F2"))) == COLOURS["TL"][0]
    # a new tile of the play is drawn in the highlight colour
    x, y = centre("E7")
    assert hex_of(img.getpixel((x + 6, y + 6))) == "#ffd54a"


def test_cli_show_game_svg_and_png(tmp_path):
    svg = tmp_path / "g.svg"
    r = run_skrafl_here("show", "--game", str(FIX / "gcg" / "base.gcg"), "--move", "2", "--play", "recorded", "--out", str(svg))
    assert r.returncode == 0, r.stderr
    root = _parse(svg.read_text(encoding="utf-8"))
    tiles = _tiles(root)
    assert {s for s, t in tiles.items() if t["data-new"] == "1"} == {"G7", "G9"}  # B.D down, through the A
    assert len(tiles) == 9
    scores = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "score"]
    assert scores == ["alice 66", "▶ bob 0"]
    png = tmp_path / "g.png"
    r = run_skrafl_here("show", "--game", str(FIX / "gcg" / "base.gcg"), "--out", str(png), "-q")
    assert r.returncode == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and r.stderr == ""


def test_cli_show_21x21_and_errors(tmp_path):
    b = tmp_path / "b.board"
    b.write_text(("." * 21 + "\n") * 21, encoding="utf-8")
    out = tmp_path / "s.svg"
    r = run_skrafl_here("show", "--rules", "wespa", "--board", str(b), "--out", str(out))
    assert r.returncode == 2 and "21" in r.stderr  # a 21-line board on the 15×15 layout
    from gamecore.rules import read_rules

    toml = tmp_path / "super.toml"
    toml.write_text('tile_set = "english_super"\nboard = "super"\n', encoding="utf-8")
    read_rules(toml)
    r = run_skrafl_here("show", "--rules", str(toml), "--board", str(b), "--play", "11H QUIZ", "--out", str(out))
    assert r.returncode == 0, r.stderr
    root = _parse(out.read_text(encoding="utf-8"))
    assert len(_squares(root)) == 441 and set(_tiles(root)) == {"H11", "I11", "J11", "K11"}
    r = run_skrafl_here("show", "--rules", "wespa", "--board", str(b), "--out", str(tmp_path / "x.gif"))
    assert r.returncode == 2 and ".svg or .png" in r.stderr
    e = tmp_path / "e.board"
    e.write_text(("." * 15 + "\n") * 15, encoding="utf-8")
    r = run_skrafl_here("show", "--rules", "wespa", "--board", str(e), "--play", "8A QUIZ", "--out", str(out))
    assert r.returncode == 2 and "first_play_off_start" in r.stderr


def test_cli_score_svg(tmp_path):
    e = tmp_path / "e.board"
    e.write_text(("." * 15 + "\n") * 15, encoding="utf-8")
    out = tmp_path / "s.svg"
    r = run_skrafl_here("score", "--rules", "wespa", "--board", str(e), "--play", "8D JOINT", "--svg", str(out), "-q")
    assert r.returncode == 0, r.stderr
    root = _parse(out.read_text(encoding="utf-8"))
    assert {s for s, t in _tiles(root).items() if t["data-new"] == "1"} == {"D8", "E8", "F8", "G8", "H8"}
    caption = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "caption"]
    assert caption == ["8D JOINT 40"]


# ---- rating charts (gamecore.chart, for elo --explain --svg) -----------------------------------------

CHART_ROWS = [  # the rows of 'skrafl elo --explain', as its JSON gives them
    {"list": "all", "finished_at": "2024-05-01T09:00:00Z", "k": 32, "before": 1200, "rating": 1216},
    {"list": "all", "finished_at": "2024-05-03T09:00:00Z", "k": 20, "before": 1216, "rating": 1199},
    {"list": "human", "finished_at": "2024-05-01T09:00:00Z", "k": 32, "before": 1200, "rating": 1216},
    {"list": "competition", "finished_at": "2024-05-02T10:00:00Z", "k": 20, "before": 1200, "rating": 1210},
]


def test_rating_chart_lines_dates_and_beginner_games(tmp_path):
    from PIL import Image

    from gamecore.chart import rating_chart_svg
    from gamecore.picture import save_svg

    svg = rating_chart_svg(CHART_ROWS, "anna", beginner_k=32)
    root = _parse(svg)
    lines = [p.get("data-list") for p in root.iter("{http://www.w3.org/2000/svg}polyline")]
    assert lines == ["all", "human", "competition"]
    games = [
        (c.get("data-list"), c.get("data-rating"), "beginner" in c.get("class"))
        for c in root.iter("{http://www.w3.org/2000/svg}circle")
        if "game" in c.get("class", "").split()
    ]
    assert games == [("all", "1216", True), ("all", "1199", False), ("human", "1216", True), ("competition", "1210", False)]
    dates = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "tick date"]
    assert dates == ["2024-05-01", "2024-05-02", "2024-05-03"]
    # a higher rating is drawn higher: the all-list line ends below its peak
    pts = [tuple(map(float, p.split(","))) for p in next(root.iter("{http://www.w3.org/2000/svg}polyline")).get("points").split()]
    assert pts[1][1] < pts[0][1] < pts[2][1] and pts[0][0] <= pts[1][0] < pts[2][0]
    png = save_svg(svg, tmp_path / "c.png")
    assert Image.open(png).size == (int(root.get("width")), int(root.get("height")))
    with pytest.raises(UsageError, match="no dated game"):
        rating_chart_svg([{"list": "all", "finished_at": "", "k": 20, "before": 1, "rating": 2}], "x")


def test_cli_elo_explain_svg(tmp_path):
    out = tmp_path / "anna.svg"
    r = run_skrafl_here("elo", "--games", str(FIX / "elo" / "games.csv"), "--explain", "anna", "--svg", str(out), "-f", "json")
    assert r.returncode == 0, r.stderr
    import json

    rows = json.loads(r.stdout)
    root = _parse(out.read_text(encoding="utf-8"))
    assert root.get("data-player") == "anna"
    drawn = sorted(
        (c.get("data-list"), c.get("data-rating"))
        for c in root.iter("{http://www.w3.org/2000/svg}circle")
        if "game" in c.get("class", "").split()
    )
    assert drawn == sorted((row["list"], str(row["rating"])) for row in rows)
    png = tmp_path / "anna.png"
    assert (
        run_skrafl_here("elo", "--games", str(FIX / "elo" / "games.csv"), "--explain", "anna", "--svg", str(png), "-q").returncode
        == 0
    )
    assert png.read_bytes()[:4] == b"\x89PNG"
    r = run_skrafl_here("elo", "--games", str(FIX / "elo" / "games.csv"), "--out", str(tmp_path / "o"), "--svg", str(out))
    assert r.returncode == 2 and "--explain" in r.stderr


def test_cli_replay_export_svg_every_move(tmp_path):
    """replay --export-svg: the end picture holds the replayed end position's tiles; with
    --every-move each play's picture highlights its new tiles (base.gcg: 8D RETAINS, then G7 B.D)."""
    from cli.score import game_positions

    game = FIX / "gcg" / "base.gcg"
    pics = tmp_path / "pics"
    r = run_skrafl_here(
        "replay", str(game), "--out", str(tmp_path / "rep"), "--no-lexicon", "--export-svg", str(pics), "--every-move", "-q"
    )
    assert r.returncode == 0, r.stderr
    *_, (_, end) = game_positions(game)
    want = {square_name(rr, c) for rr in range(15) for c in range(15) if end.board.squares[rr][c] is not None}
    assert set(_tiles(_parse((pics / "base.svg").read_text(encoding="utf-8")))) == want
    first = _tiles(_parse((pics / "base" / "001.svg").read_text(encoding="utf-8")))
    assert {s for s, t in first.items() if t["data-new"] == "1"} == {"D8", "E8", "F8", "G8", "H8", "I8", "J8"}
    second = _tiles(_parse((pics / "base" / "002.svg").read_text(encoding="utf-8")))
    assert {s for s, t in second.items() if t["data-new"] == "1"} == {"G7", "G9"}
    assert len(list((pics / "base").glob("*.svg"))) == 11
    marker = __import__("json").loads((pics / ".skrafl-output").read_text(encoding="utf-8"))
    assert marker["command"] == "replay-svg"
    r = run_skrafl_here("replay", str(game), "--out", str(tmp_path / "rep"), "--no-lexicon", "--every-move")
    assert r.returncode == 2 and "--export-svg" in r.stderr


def test_cli_best_svg_draws_the_top_play(tmp_path):
    d = tmp_path / "lex"
    d.mkdir()
    (d / "words.txt").write_text("joint\njoin\njot\n", encoding="utf-8")
    r = run_skrafl_here("build", "en", "--source", "wordlist", "--input", str(d / "words.txt"), "--out", str(d / "en"), "-q")
    assert r.returncode == 0, r.stderr
    e = tmp_path / "e.board"
    e.write_text(("." * 15 + "\n") * 15, encoding="utf-8")
    out = tmp_path / "best.svg"
    r = run_skrafl_here(
        "best", "--lexicon", str(d / "en"), "--board", str(e), "--rack", "JOINTVW", "-n", "1", "-f", "tsv", "--svg", str(out)
    )
    assert r.returncode == 0, r.stderr
    coord, word, score = r.stdout.splitlines()[1].split("\t")[:3]
    # a double letter under the J (8 × 2), then the start DW: 8D or H4, listed first by coordinate
    assert (coord, word, score) == ("H4", "JOINT", "40")
    root = _parse(out.read_text(encoding="utf-8"))
    assert {s for s, t in _tiles(root).items() if t["data-new"] == "1"} == {"H4", "H5", "H6", "H7", "H8"}
    assert [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "caption"] == ["H4 JOINT 40"]
    rack = [g.get("data-letter") for g in root.iter("{http://www.w3.org/2000/svg}g") if "rack-tile" in g.get("class", "")]
    assert rack == list("JOINTVW")


def test_position_options_defined_once():
    """score and show take their position options from cli.position: the same option objects."""
    import inspect

    import cli.position as position
    from cli.score import score
    from cli.show import show

    shared = {
        "board": position.BOARD_OPTION,
        "board_format": position.BOARD_FORMAT_OPTION,
        "cgp": position.CGP_OPTION,
        "game": position.GAME_OPTION,
        "move": position.MOVE_OPTION,
        "lang": position.LANG_OPTION,
        "lexicon": position.LEXICON_OPTION,
        "rules": position.RULES_OPTION,
    }
    for fn in (score, show):
        params = inspect.signature(fn).parameters
        for name, option in shared.items():
            assert params[name].default is option, (fn.__name__, name)


def test_rating_chart_date_axis_is_whole_days():
    """The first date label stood at the first game's time, the others at midnights, and a day
    without games had none: the axis is whole UTC days, every day (or every STEP-th, at most
    seven labels) marked at its start and labelled under its middle."""
    from gamecore.chart import LEFT, WIDTH, rating_chart_svg

    def axis(rows):
        root = _parse(rating_chart_svg(rows, "anna"))
        texts = [t for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "tick date"]
        marks = [float(m.get("x1")) for m in root.iter("{http://www.w3.org/2000/svg}line") if m.get("class") == "tick-mark"]
        return [t.text for t in texts], [float(t.get("x")) for t in texts], marks

    two = [
        {"list": "all", "finished_at": "2024-05-01T21:00:00Z", "k": 20, "before": 1200, "rating": 1210},
        {"list": "all", "finished_at": "2024-05-05T06:00:00Z", "k": 20, "before": 1210, "rating": 1201},
    ]
    labels, xs, marks = axis(two)
    assert labels == ["2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04", "2024-05-05"]
    assert marks[0] == LEFT  # the first day's midnight, not the first game's time
    day = marks[1] - marks[0]
    assert all(abs((b - a) - day) < 0.2 for a, b in zip(marks, marks[1:], strict=False))
    assert all(abs(x - (m + day / 2)) < 0.2 for x, m in zip(xs, marks, strict=True))
    month = [
        {"list": "all", "finished_at": f"2024-05-{d:02d}T12:00:00Z", "k": 20, "before": 1200, "rating": 1200 + d} for d in (1, 30)
    ]
    labels, xs, marks = axis(month)
    assert labels == ["2024-05-01", "2024-05-06", "2024-05-11", "2024-05-16", "2024-05-21", "2024-05-26"]  # every 5th day of 30
    assert max(xs) < WIDTH


def test_a_netskrafl_record_is_labelled_the_netskrafl_way(tmp_path, shared):
    """A Netskrafl game record is drawn with Netskrafl's edge labels (rows A–O, columns 1–15) and
    its play in Netskrafl's order unless --coords says otherwise; a GCG file keeps GCG's."""
    game = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))[0]

    def labels(out):
        root = _parse(out.read_text(encoding="utf-8"))
        rows = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "coord row"]
        caption = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "caption"]
        return rows[0], caption

    r = run_skrafl_here("show", "--game", str(game), "--move", "3", "--play", "recorded", "--out", str(tmp_path / "n.svg"), "-q")
    assert r.returncode == 0, r.stderr
    row, caption = labels(tmp_path / "n.svg")
    assert row == "A" and caption and caption[0].split()[0][0].isalpha()  # O7 ÁRUM 40, not 15G
    r = run_skrafl_here("show", "--game", str(game), "--move", "3", "--coords", "gcg", "--out", str(tmp_path / "g.svg"), "-q")
    assert r.returncode == 0 and labels(tmp_path / "g.svg")[0] == "1", r.stderr
    gcg = sorted((shared / "corpora" / "gcg").glob("*doug_v_emely.gcg"))[0]
    r = run_skrafl_here("show", "--game", str(gcg), "--move", "3", "--out", str(tmp_path / "d.svg"), "-q")
    assert r.returncode == 0 and labels(tmp_path / "d.svg")[0] == "1", r.stderr


def test_a_killed_writers_temporary_picture_is_tidied_by_the_next_run(tmp_path):
    """A show killed while writing left .pic.png.tmp-PID beside the picture for good: the next run
    writing that picture removes a dead writer's temporary file (a live one's is left alone)."""
    import os
    import subprocess
    import sys

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".pic.svg.tmp-{dead.pid}"
    stale.write_bytes(b"half a picture")
    live = tmp_path / f".pic.svg.tmp-{os.getppid()}"  # a process that is running
    live.write_bytes(b"being written")
    b, play = _position()
    write_picture(PositionPicture(b, play=play), tmp_path / "pic.svg")
    assert not stale.exists() and live.exists() and (tmp_path / "pic.svg").is_file()
