"""Static equity (gamecore/equity.py, ``skrafl best --leaves``) against MAGPIE's own move lists.

External truth: tests/fixtures/leaves/reference/*.tsv.gz, MAGPIE's complete move lists (every
placement and exchange with score and static equity to 0.01) for seven positions with MAGPIE-DATA's
CSW21 leaves, written by tests/fixtures/leaves/make_reference.py; the leave file the tests use
(csw21_subset.klv2) holds CSW21.klv2's value of every sub-leave of those racks. The positions'
boards and word lists are ../shared/corpora/positions (the tests skip without it). The hand-made
checks below take their numbers from the rules MAGPIE states (static_eval.h, board.h).
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from clirun import run_skrafl

from gamecore.board import Board, parse_cgp
from gamecore.equity import LeaveTable, opening_penalties, rank
from gamecore.klv import Klv
from gamecore.rules import load_rules

WESPA = load_rules("wespa")
EN = WESPA.tiles()
LEAVES = Path(__file__).resolve().parent / "fixtures" / "leaves"
SUBSET = LEAVES / "csw21_subset.klv2"


def _positions() -> list[dict]:
    lines = (LEAVES / "positions.tsv").read_text(encoding="utf-8").splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, x.split("\t"), strict=True)) for x in lines[1:] if x.strip()]


POSITIONS = {p["name"]: p for p in _positions()}


def _reference(name: str) -> list[dict]:
    text = gzip.decompress((LEAVES / "reference" / f"{name}.tsv.gz").read_bytes()).decode("utf-8")
    lines = text.splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, x.split("\t"), strict=True)) for x in lines[1:]]


def _magpie_move(move: str) -> tuple:
    """MAGPIE's move text as (kind, coord, letters): '5G G(A)WD' → ('play', '5G', 'GAWD');
    '(exch BG)' → ('exchange', '', 'BG')."""
    m = re.fullmatch(r"\(exch (\S+)\)", move)
    if m:
        return ("exchange", "", "".join(sorted(m.group(1), key=lambda c: (c == "?", c))))
    coord, word = move.split()
    return ("play", coord, word.replace("(", "").replace(")", ""))


def _ours(ranked) -> tuple:
    r = ranked
    if r.kind == "exchange":
        return ("exchange", "", "".join(sorted(r.exchanged, key=lambda c: (c == "?", c))))
    return ("play", r.play.coord, r.play.word_text())


def _ranked(shared: Path, name: str):
    from gamecore.best import generate_plays
    from gamecore.kwg import Kwg

    pos = POSITIONS[name]
    words = (shared / "corpora" / "positions" / pos["words"]).read_text(encoding="utf-8").split()
    kwg = Kwg.from_words(sorted({w.lower() for w in words}), "abcdefghijklmnopqrstuvwxyz")
    cgp = parse_cgp(pos["cgp"], EN, WESPA.layout())
    plays = generate_plays(cgp.board, cgp.racks[0], kwg, list(EN.letters), WESPA)
    return rank(cgp.board, cgp.racks[0], plays, LeaveTable(Klv.read(SUBSET), EN), WESPA, cgp.racks[1])


def _one_direction(ranked, board) -> list:
    """On the empty board MAGPIE lists each opening play once (across); we list it both ways. The
    down plays are dropped here after checking that each is the transpose of an across play with
    the same score and equity (the standard board is symmetric)."""
    if not board.is_empty():
        return list(ranked)
    from gamecore.coords import format_gcg

    across = {(_ours(r), r.score, r.milli) for r in ranked if r.kind == "exchange" or r.play.across}
    down = [r for r in ranked if r.kind == "play" and not r.play.across]
    for r in down:
        twin = ("play", format_gcg(r.play.col, r.play.row, True), r.play.word_text())
        assert (twin, r.score, r.milli) in across, r
    assert len(down) == len(ranked) - len(across)
    return [r for r in ranked if r.kind == "exchange" or r.play.across]


@pytest.mark.parametrize("name", list(POSITIONS))
def test_equity_equals_magpie_on_every_play_and_exchange(shared, name):
    ref = _reference(name)
    board = parse_cgp(POSITIONS[name]["cgp"], EN, WESPA.layout()).board
    ours = _one_direction(_ranked(shared, name), board)
    want = Counter((int(r["score"]), r["equity"]) for r in ref)
    got = Counter((r.score, f"{r.milli / 1000:.2f}") for r in ours)
    assert sum(got.values()) == sum(want.values()) == len(ref)
    assert got == want, f"{name}: ours-MAGPIE {list((got - want).items())[:5]}; MAGPIE-ours {list((want - got).items())[:5]}"
    # the same moves, not only the same numbers: each move with its score and equity
    assert Counter((_magpie_move(r["move"]), int(r["score"]), r["equity"]) for r in ref) == Counter(
        (_ours(r), r.score, f"{r.milli / 1000:.2f}") for r in ours
    )
    # the same top play: MAGPIE's first, or one of equal equity when it ties
    top = [_magpie_move(r["move"]) for r in ref if r["equity"] == ref[0]["equity"]]
    assert _ours(ours[0]) in top and f"{ours[0].milli / 1000:.2f}" == ref[0]["equity"]


def test_exchanges_listed_only_when_the_bag_allows(shared):
    kinds = Counter(r.kind for r in _ranked(shared, "mid2_b0"))
    assert kinds["exchange"] == 2**7 - 1  # BDEGORW: seven distinct tiles, one or more exchanged
    assert Counter(r.kind for r in _ranked(shared, "mid2_end"))["exchange"] == 0  # the bag is empty
    # MAGPIE: an exchange when the bag and the opponent's rack hold 2 x 7 tiles (WESPA: 7 in the bag)
    assert Counter(r.kind for r in _ranked(shared, "mid2_bag6"))["exchange"] == 0
    assert Counter(r.kind for r in _ranked(shared, "mid2_bag7"))["exchange"] == 127


def test_opening_penalties_from_the_rule():
    # MAGPIE board.h: -0.7/2 per extra multiple of each premium square beside the start row/column.
    # The standard board: double letters at C7, G7, I7, M7 and C9, G9, I9, M9 (and the same down).
    across, down = opening_penalties(WESPA.layout())
    want = [0] * 15
    for c in (2, 6, 8, 12):
        want[c] = -700
    assert across == want and down == want


def test_opening_vowel_beside_a_double_letter_costs_0_7():
    from gamecore.play import validate_play

    board = Board(WESPA.layout(), EN)
    table = LeaveTable(Klv.read(SUBSET), EN)
    rack = list("EJOQUXZ")
    zex = validate_play(board, ("8G", "ZEX"), rack, None, WESPA)  # E on H8: plain neighbours
    jeux = validate_play(board, ("8E", "JEUX"), rack, None, WESPA)  # E on F8, U on G8: U beside G7/G9
    ranked = rank(board, rack, [zex, jeux], table, WESPA)
    got = {r.play.coord + r.play.word_text(): r.milli for r in ranked if r.kind == "play"}
    assert got["8GZEX"] == 38_000 + table.milli(list("JOQU"))
    assert got["8EJEUX"] == 36_000 + table.milli(list("OQZ")) - 700


def test_endgame_terms():
    # bag empty: going out gains twice the opponent's tiles; keeping tiles loses twice their points + 10
    pos = POSITIONS["mid2_end"]
    cgp = parse_cgp(pos["cgp"], EN, WESPA.layout())
    from gamecore.play import validate_play

    table = LeaveTable(Klv.read(SUBSET), EN)
    out = validate_play(cgp.board, ("12C", "DEG"), cgp.racks[0], None, WESPA)
    ranked = rank(cgp.board, cgp.racks[0], [out], table, WESPA, cgp.racks[1])
    opponent = sum(EN.value(t) for t in "AIQUVXZ")  # 1+1+10+1+4+8+10 = 35
    assert ranked[0].milli == (15 + 2 * opponent) * 1000 == 85_000


def _lexicon(tmp_path_factory, shared: Path, words: str) -> Path:
    out = tmp_path_factory.mktemp("eq") / "lex"
    src = shared / "corpora" / "positions" / words
    r = run_skrafl("build", "en", "--source", "wordlist", "--input", str(src), "--out", str(out), "-q")
    assert r.returncode == 0, r.stderr
    return out


def test_cli_best_leaves_all_json_matches_magpie(shared, tmp_path_factory):
    lex = _lexicon(tmp_path_factory, shared, "mid2_b0.words")
    cgp = POSITIONS["mid2_b0"]["cgp"]
    r = run_skrafl("best", "--lexicon", str(lex), "--cgp", cgp, "--leaves", str(SUBSET), "--all", "-f", "json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    ref = _reference("mid2_b0")
    assert all("score" in x and "equity" in x for x in rows)
    assert Counter(x["kind"] for x in rows) == {"play": len(ref) - 127, "exchange": 127}
    assert Counter((x["score"], f"{x['equity']:.2f}") for x in rows) == Counter((int(x["score"]), x["equity"]) for x in ref)
    assert [x["equity"] for x in rows] == sorted((x["equity"] for x in rows), reverse=True)
    assert (rows[0]["coord"], rows[0]["word"], rows[0]["score"], rows[0]["leave"]) == ("12A", "GOWDER", 35, "B")
    exch = next(x for x in rows if x["kind"] == "exchange")
    assert (exch["coord"], exch["score"], exch["tiles_placed"]) == ("", 0, 0)
    assert sorted(exch["word"] + exch["leave"]) == sorted("BDEGORW")
    # -n: the best N of the same ranking; without --leaves, by score as before (no equity column)
    top = run_skrafl("best", "--lexicon", str(lex), "--cgp", cgp, "--leaves", str(SUBSET), "-n", "5", "-f", "json")
    assert json.loads(top.stdout) == rows[:5]
    plain = json.loads(run_skrafl("best", "--lexicon", str(lex), "--cgp", cgp, "-n", "3", "-f", "json").stdout)
    assert "equity" not in plain[0] and [x["score"] for x in plain] == sorted((x["score"] for x in plain), reverse=True)


def test_cli_best_leaves_bad_input(shared, tmp_path_factory, tmp_path):
    lex = _lexicon(tmp_path_factory, shared, "open3_b0.words")
    cgp = POSITIONS["open3_b0"]["cgp"]
    text = tmp_path / "leaves.csv"
    text.write_text("A,1.0\n")
    wide = tmp_path / "wide.klv2"
    from gamecore.klv import write_klv2

    write_klv2(wide, {(27,): 1.0})
    for extra, needle in [
        (["--leaves", str(text)], "not a KLV2 file"),
        (["--leaves", str(wide)], "do not fit the tile set english"),
        (["--leaves", str(tmp_path / "none.klv2")], "no leave file"),
        (["--leaves", str(tmp_path)], "is a folder"),
        (["--leaves", "xx"], "no leave file is shipped for language 'xx'"),
        (["--leaves", str(SUBSET), "--robot", "fullsterkur"], "give no --leaves"),
    ]:
        r = run_skrafl("best", "--lexicon", str(lex), "--cgp", cgp, *extra)
        assert r.returncode == 2, (extra, r.stdout, r.stderr)
        assert r.stderr.count("\n") == 1 and needle in r.stderr, (extra, r.stderr)
    # the opponent's rack is counted against the tile set
    bad = cgp.replace("EJOQUXZ/", "EJOQUXZ/QQ")
    r = run_skrafl("best", "--lexicon", str(lex), "--cgp", bad, "--leaves", str(SUBSET))
    assert r.returncode == 2 and "tile set english has only 1" in r.stderr and r.stderr.count("\n") == 1


def test_cli_best_leaves_many_positions_and_an_exchange_on_top(shared, tmp_path_factory, tmp_path):
    from gamecore.klv import write_klv2

    lex = _lexicon(tmp_path_factory, shared, "open3_b0.words")
    cgp = POSITIONS["open3_b0"]["cgp"]
    keep_e = tmp_path / "keep_e.klv2"
    write_klv2(keep_e, {(5,): 100.0})  # keeping E alone is worth 100: only the exchange of JOQUXZ keeps it
    svg = tmp_path / "top.svg"
    r = run_skrafl(
        "best", "--lexicon", str(lex), "--cgp", cgp, "--leaves", str(keep_e), "-n", "2", "-f", "json", "--svg", str(svg)
    )
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert rows[0] == {
        "kind": "exchange",
        "coord": "",
        "word": "JOQUXZ",
        "score": 0,
        "tiles_placed": 0,
        "leave": "E",
        "equity": 100.0,
    }
    assert rows[1]["kind"] == "play" and rows[1]["equity"] == 38.0  # ZEX, 38 points, its leave JOQU worth 0 here
    assert "exchange JOQUXZ equity 100.0" in svg.read_text(encoding="utf-8")
    # --board -: one CGP per line, each ranked by equity (JSON lines), a bad line one error line
    lines = f"{cgp}\nnot a position\n{POSITIONS['mid2_b0']['cgp']}\n"
    r = run_skrafl("best", "--lexicon", str(lex), "--board", "-", "--leaves", str(SUBSET), "-n", "3", "-f", "json", stdin=lines)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "-:2:" in r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["line"] for x in out] == [1, 3]
    first = out[0]["plays"]
    ref = _reference("open3_b0")
    # the empty board: each opening play both ways (ZEX down and across first), then JEUX
    assert [(x["word"], f"{x['equity']:.2f}") for x in first] == [("ZEX", ref[0]["equity"])] * 2 + [("JEUX", ref[1]["equity"])]
