"""``skrafl best --board -`` (a long-running mode): one CGP position per line of stdin,
the lexicon loaded once, each position's plays written as it is read. Real CLI runs: the plays of
each line are exactly those of a one-shot ``skrafl best`` on the same CGP string; a hand-scored
position; a bad line is one error line naming ``-:LINE``, the other lines go on, exit 2."""

from __future__ import annotations

import json

import pytest
from clirun import run_skrafl_here

EMPTY = "/".join(["15"] * 15)


@pytest.fixture(scope="module")
def cats(tmp_path_factory):
    """A five-word English lexicon (standard board and tiles, WESPA rules)."""
    tmp = tmp_path_factory.mktemp("cats")
    (tmp / "w.txt").write_text("cat\ncats\nact\nat\nta\n", encoding="utf-8")
    res = run_skrafl_here("build", "en", "--source", "wordlist", "--input", str(tmp / "w.txt"), "--out", str(tmp / "lex"), "-q")
    assert res.returncode == 0, res.stderr
    return tmp / "lex"


@pytest.fixture(scope="module")
def sowpods_positions(tmp_path_factory, shared):
    """The shared positions as CGP lines, and a lexicon of their word lists."""
    from gamecore.board import read_board
    from gamecore.rules import load_rules

    pos = shared / "corpora" / "positions"
    tmp = tmp_path_factory.mktemp("pos")
    words = "".join((pos / f"{n}.words").read_text(encoding="utf-8") for n in ("mid1_b1", "mid2_b0", "open3_b0"))
    (tmp / "w.txt").write_text(words, encoding="utf-8")
    res = run_skrafl_here("build", "en", "--source", "wordlist", "--input", str(tmp / "w.txt"), "--out", str(tmp / "lex"), "-q")
    assert res.returncode == 0, res.stderr
    wespa = load_rules("wespa")
    lines = []
    for board, rack in (
        ("mid1.board", "AEEFHI?"),
        ("mid2.board", "BDEGORW"),
        ("empty.board", "EJOQUXZ"),
        ("mid1.board", "AEEFH??"),
    ):
        b = read_board(pos / board, wespa.tiles(), wespa.layout())
        lines.append(f"{b.cgp_rows()} {rack}/ 0/0 0")
    return tmp / "lex", lines


def _one_shot(lex, cgp: str, *args: str) -> list[list[str]]:
    res = run_skrafl_here("best", "--lexicon", str(lex), "--board", cgp, "--board-format", "cgp", "-f", "tsv", *args)
    assert res.returncode == 0, res.stderr
    return [line.split("\t") for line in res.stdout.splitlines()[1:]]


def test_hand_scored_first_move(cats):
    """Empty board, rack CATSQXZ: CATS through the centre star (DW) scores (3+1+1+1) x 2 = 12
    wherever it lies (a 4-letter word through H8 reaches no DL on row 8 or column H); the first in
    order is the lowest row: H5 down, leave QXZ. Then two 2-tile words, AT/TA, score (1+1) x 2 = 4."""
    res = run_skrafl_here(
        "best", "--lexicon", str(cats), "--board", "-", "-n", "1", "-f", "tsv", stdin=f"{EMPTY} CATSQXZ/ 0/0 0\n"
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == ["line\tcoord\tword\tscore\ttiles_placed\tleave", "1\tH5\tCATS\t12\t4\tQXZ"]
    res = run_skrafl_here(
        "best", "--lexicon", str(cats), "--board", "-", "--all", "-f", "json", stdin=f"{EMPTY} ATQXZJK/ 0/0 0\n"
    )
    assert res.returncode == 0, res.stderr
    (record,) = [json.loads(x) for x in res.stdout.splitlines()]
    assert record["line"] == 1
    assert {p["score"] for p in record["plays"]} == {4} and {p["word"] for p in record["plays"]} == {"AT", "TA"}
    assert len(record["plays"]) == 8  # two words x two squares through the star x two directions


def test_each_line_as_the_one_shot_command(sowpods_positions):
    lex, lines = sowpods_positions
    for args in (("-n", "5"), ("--all",)):
        res = run_skrafl_here("best", "--lexicon", str(lex), "--board", "-", "-f", "tsv", *args, stdin="\n".join(lines) + "\n")
        assert res.returncode == 0, res.stderr
        rows = [r.split("\t") for r in res.stdout.splitlines()]
        assert rows[0] == ["line", "coord", "word", "score", "tiles_placed", "leave"]
        for i, cgp in enumerate(lines, start=1):
            got = [r[1:] for r in rows[1:] if r[0] == str(i)]
            assert got == _one_shot(lex, cgp, *args), f"line {i} ({args})"
            assert got, f"line {i}: no play"


def test_json_lines_and_table(sowpods_positions):
    lex, lines = sowpods_positions
    stdin = "\n".join(lines[:2]) + "\n"
    res = run_skrafl_here("best", "--lexicon", str(lex), "--board", "-", "-n", "3", "-f", "json", stdin=stdin)
    assert res.returncode == 0, res.stderr
    records = [json.loads(x) for x in res.stdout.splitlines()]
    assert [r["line"] for r in records] == [1, 2]
    for r, cgp in zip(records, lines[:2], strict=True):
        want = _one_shot(lex, cgp, "-n", "3")
        assert [[p["coord"], p["word"], str(p["score"]), str(p["tiles_placed"]), p["leave"]] for p in r["plays"]] == want
    res = run_skrafl_here("best", "--lexicon", str(lex), "--board", "-", "-n", "2", stdin=stdin)
    assert res.returncode == 0, res.stderr
    blocks = res.stdout.split("\n\n")
    assert len(blocks) == 2 and blocks[0].startswith("line 1\ncoord") and blocks[1].startswith("line 2\ncoord")


def test_bad_lines_named_the_rest_go_on(cats):
    stdin = "\n".join(
        [
            f"{EMPTY} CATSQXZ/ 0/0 0",  # 1: fine
            "",  # 2: blank, skipped
            "not a position",  # 3: not CGP
            f"{EMPTY} QQ/ 0/0 0",  # 4: two Q tiles, the tile set has one
            f"{EMPTY} / 0/0 0",  # 5: no rack
            f"{EMPTY} AT/ 0/0 0",  # 6: fine
        ]
    )
    res = run_skrafl_here("best", "--lexicon", str(cats), "--board", "-", "-n", "1", "-f", "tsv", stdin=stdin + "\n")
    assert res.returncode == 2
    assert [r.split("\t")[0] for r in res.stdout.splitlines()[1:]] == ["1", "6"]
    errors = res.stderr.splitlines()
    assert [e.split(": ")[2] for e in errors] == ["-:3", "-:4", "-:5"], errors
    assert all(e.startswith("skrafl: error: -:") for e in errors)
    again = run_skrafl_here("best", "--lexicon", str(cats), "--board", "-", "-n", "1", "-f", "tsv", stdin=stdin + "\n")
    assert (again.stdout, again.stderr, again.returncode) == (res.stdout, res.stderr, res.returncode)  # deterministic


def test_not_utf8_line(cats, tmp_path):
    import subprocess
    import sys

    from clirun import PROJECT_ROOT

    data = f"{EMPTY} AT/ 0/0 0\n".encode() + b"\xff\xfe\n"
    res = subprocess.run(
        [sys.executable, "-m", "cli.main", "best", "--lexicon", str(cats), "--board", "-", "-f", "tsv"],
        input=data,
        capture_output=True,
        cwd=PROJECT_ROOT,
    )
    assert res.returncode == 2
    assert res.stderr.decode().startswith("skrafl: error: -:2: not UTF-8")
    assert res.stdout.decode().splitlines()[1].startswith("1\t")


@pytest.mark.parametrize(
    "args, words",
    [
        (("--rack", "AT"), "no --rack"),
        (("--svg", "x.svg"), "--svg draws one position"),
        (("--board-format", "netskrafl"), "not Netskrafl boards"),
    ],
)
def test_options_that_do_not_fit(cats, args, words):
    res = run_skrafl_here("best", "--lexicon", str(cats), "--board", "-", *args, stdin=f"{EMPTY} AT/ 0/0 0\n")
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith("skrafl: error: ") and words in res.stderr and len(res.stderr.splitlines()) == 1


def test_each_line_answered_before_the_next_is_written(cats):
    """A long-running client: write one line, read its record, then the next; stdin still open."""
    from clirun import each_line_answered

    args = ["best", "--lexicon", str(cats), "--board", "-", "-n", "1", "-f", "json"]
    records = each_line_answered(args, [f"{EMPTY} {rack}/ 0/0 0" for rack in ("CATSQXZ", "ATQXZJK")])
    assert [(r["line"], r["plays"][0]["score"]) for r in records] == [(1, 12), (2, 4)]
