"""``skrafl score --batch FILE|-`` (a long-running mode for the judge): one ``CGP<TAB>PLAY``
per line, the lexicon loaded once, each ruling written as its line is read.

Real CLI runs with the built lexicons (``output/en``, ``output/is``, and for the shared positions of
``../shared/corpora/positions`` their word lists compiled in ``output/bench/``; each test is skipped
when what it needs is not built). Expected scores come from the reference move
lists there (three independent engines agree) or are worked by hand from the rules (standard board
premium squares, English tile values, 50-point bingo); each batch ruling is also compared with a
one-play ``skrafl score --cgp ... --play ...`` run on the same line.
"""

from __future__ import annotations

import csv
import json
import unicodedata
from pathlib import Path

import pytest
from clirun import PROJECT_ROOT, run_skrafl_here

EMPTY = "/".join(["15"] * 15)
OUTPUT = PROJECT_ROOT / "output"


def _lexicon(code: str) -> Path:
    folder = OUTPUT / code
    if not (folder / "manifest.json").is_file():
        pytest.skip(f"the {code} lexicon is not built (output/{code}; make run)")
    return folder


#: The words of the English tests, for a lexicon of their own where output/en is not built (CI):
#: every play they rule on forms one of these or a phony (TINOJ, ZZZ) that is in no list.
EN_WORDS = ["joint", "retains", "jo", "on", "no", "to", "ta", "ax", "ox", "for", "fore", "gal", "hey", "quiz"]


def _build(words: list[str] | Path, out: Path) -> Path:
    if isinstance(words, list):
        src = out.parent / f"{out.name}.txt"
        src.write_text("\n".join(words) + "\n", encoding="utf-8")
        words = src
    r = run_skrafl_here("build", "en", "--source", "wordlist", "--input", str(words), "--out", str(out), "-q")
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def en(tmp_path_factory) -> Path:
    """output/en when built, else the tests' own words compiled (the tests need only these)."""
    if (OUTPUT / "en" / "manifest.json").is_file():
        return OUTPUT / "en"
    return _build(EN_WORDS, tmp_path_factory.mktemp("score_batch") / "en")


@pytest.fixture(scope="module")
def reference_lines(shared, tmp_path_factory):
    """For each shared position: its lexicon (``output/bench/NAME``, its word list compiled by
    bench_best; with it every reference play is a valid one) and ``(CGP<TAB>PLAY, reference
    score)`` for the best, a middle and the last play of its reference move list."""
    from gamecore.board import read_board
    from gamecore.rules import load_rules

    folder = shared / "corpora" / "positions"
    wespa = load_rules("wespa")
    out = []
    with open(folder / "positions.tsv", encoding="utf-8") as fh:
        positions = list(csv.DictReader(fh, delimiter="\t"))
    for p in positions:
        lex = OUTPUT / "bench" / p["lexicon"].removesuffix(".words")
        if not (lex / "manifest.json").is_file():  # not built by the bench: compile the list here
            lex = tmp_path_factory.mktemp("positions") / p["lexicon"].removesuffix(".words")
            if not lex.exists():
                _build(folder / p["lexicon"], lex)
        board = read_board(folder / p["board"], wespa.tiles(), wespa.layout())
        cgp = f"{board.cgp_rows()} {p['rack']}/ 0/0 0"
        with open(folder / p["moves"], encoding="utf-8") as fh:
            moves = list(csv.DictReader(fh, delimiter="\t"))
        out.append(
            (lex, [(f"{cgp}\t{m['coord']} {m['word']}", int(m["score"])) for m in (moves[0], moves[len(moves) // 2], moves[-1])])
        )
    if not out:
        pytest.skip("the positions' lexicons are not built (output/bench/*: python -m bench best)")
    return out


def _batch(lex: Path, lines: list[str], *args: str) -> tuple[int, list[str], list[str]]:
    res = run_skrafl_here("score", "--lexicon", str(lex), "--batch", "-", *args, stdin="".join(line + "\n" for line in lines))
    assert "Traceback" not in res.stderr, res.stderr
    return res.returncode, res.stdout.splitlines(), res.stderr.splitlines()


def _one_play(lex: Path, line: str, *args: str):
    cgp, play = line.split("\t")
    return run_skrafl_here("score", "--lexicon", str(lex), "--cgp", cgp, "--play", play, *args)


@pytest.mark.slow
def test_each_line_rules_as_the_one_play_command(reference_lines):
    """Every batch object is the one-play JSON with ``line`` first, and scores as the reference."""
    for lex, cases in reference_lines:
        lines = [line for line, _ in cases]
        rc, out, err = _batch(lex, lines, "-f", "json", "-q")
        assert rc == 0, (lex, err)
        assert err == []
        records = [json.loads(x) for x in out]
        assert [r["line"] for r in records] == list(range(1, len(lines) + 1))
        assert all(next(iter(r)) == "line" for r in records)
        for record, (line, want) in zip(records, cases, strict=True):
            assert record["score"] == want and record["verdict"] == "ACCEPTABLE", (line, record)
            one = _one_play(lex, line, "-f", "json")
            assert one.returncode == 0, one.stderr
            assert {k: v for k, v in record.items() if k != "line"} == json.loads(one.stdout), line


def test_hand_scored_lines_and_challenge_as_one_play(en):
    """Empty board, rack JOINTAB: 8D JOINT = (8x2 + 1+1+1+1) x 2 = 40 (J on the DL at D8, the star
    doubles); 8E JOINT = (8+1+1+1+1) x 2 = 24; 8H JOINT = (8+1+1+1+1x2) x 2 = 26 (T on the DL at L8).
    RETAINS from the star: (1x2 at D8 + 6) x 2 + 50 = 66. With five_point and scores 10/20 the player
    gets 40 + 5 and ends on 55; the opponent stays on 20. --coords netskrafl: H4 = GCG 8D, scored as
    8D and written back in the order asked for (coord H4)."""
    lines = [
        f"{EMPTY} JOINTAB/ 10/20 0\t8D JOINT",
        f"{EMPTY} JOINTAB/ 10/20 0\t8E JOINT",
        f"{EMPTY} JOINTAB/ 10/20 0\t8H JOINT",
        f"{EMPTY} RETAINS/ 0/0 0\t8D RETAINS",
    ]
    rc, out, err = _batch(en, lines, "-f", "json", "--challenge", "five_point", "-q")
    assert rc == 0, err
    records = [json.loads(x) for x in out]
    assert [r["score"] for r in records] == [40, 24, 26, 66]
    assert [r["bingo"] for r in records] == [False, False, False, True]
    assert records[0]["challenge"]["points"] == {"player": 45, "opponent": 0}
    assert records[0]["challenge"]["scores_after"] == {"player": 55, "opponent": 20}
    for record, line in zip(records, lines, strict=True):
        one = _one_play(en, line, "-f", "json", "--challenge", "five_point")
        assert one.returncode == 0, one.stderr
        assert {k: v for k, v in record.items() if k != "line"} == json.loads(one.stdout)
    rc, out, err = _batch(en, [f"{EMPTY} JOINTAB/ 0/0 0\tH4 JOINT"], "-f", "json", "--coords", "netskrafl", "-q")
    assert rc == 0, err
    (record,) = [json.loads(x) for x in out]
    assert record["coord"] == "H4" and record["score"] == 40


def test_a_bad_line_in_the_middle(en, tmp_path):
    """Lines 2 (not CGP), 4 (no TAB), 5 (not COORD WORD) and 6 (a rack of three Z; English has one)
    are one stderr line each, naming the line; 1, 3 and 7 are ruled (blank line 8 skipped); exit 2."""
    lines = [
        f"{EMPTY} JOINTAB/ 0/0 0\t8D JOINT",
        "not a position\t8D JOINT",
        f"{EMPTY} JOINTAB/ 0/0 0\t8E JOINT",
        f"{EMPTY} JOINTAB/ 0/0 0 8D JOINT",
        f"{EMPTY} JOINTAB/ 0/0 0\tJOINT",
        f"{EMPTY} ZZZ/ 0/0 0\t8D ZZZ",
        f"{EMPTY} JOINTAB/ 0/0 0\t8H JOINT",
        "",
    ]
    rc, out, err = _batch(en, lines, "-f", "json")
    assert rc == 2
    assert [(r["line"], r["score"]) for r in map(json.loads, out)] == [(1, 40), (3, 24), (7, 26)]
    errors, summary = err[:-1], err[-1]
    assert [e.split(": ")[:2] for e in errors] == [["skrafl", "error"]] * 4
    assert [e.split(": ")[2] for e in errors] == ["-:2", "-:4", "-:5", "-:6"], errors
    assert "TAB" in errors[1]
    assert "3 rulings" in summary and "3 acceptable" in summary and "4 bad lines" in summary
    rc_q, out_q, err_q = _batch(en, lines, "-f", "json", "--quiet")
    assert (rc_q, out_q, err_q) == (rc, out, errors)  # --quiet: no summary, the same errors
    path = tmp_path / "plays.tsv"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    res = run_skrafl_here("score", "--lexicon", str(en), "--batch", str(path), "-f", "json", "-q")
    assert res.returncode == 2 and res.stdout.splitlines() == out
    assert [e.split(": ")[2] for e in res.stderr.splitlines()] == [f"{path}:{n}" for n in (2, 4, 5, 6)]


def test_stdin_and_a_file_agree_in_every_format(en, tmp_path):
    lines = [f"{EMPTY} JOINTAB/ 0/0 0\t8D JOINT", f"{EMPTY} JOINTAB/ 0/0 0\t8E JOINT"]
    path = tmp_path / "plays.txt"
    path.write_text("\ufeff" + "\r\n".join(lines) + "\r\n", encoding="utf-8")  # a BOM and CRLF line ends
    for fmt in ("json", "tsv", "table"):
        rc, out, err = _batch(en, lines, "-f", fmt, "-q")
        res = run_skrafl_here("score", "--lexicon", str(en), "--batch", str(path), "-f", fmt, "-q")
        assert rc == res.returncode == 0, (err, res.stderr)
        assert res.stdout.splitlines() == out, fmt
    rc, out, err = _batch(en, lines, "-q")
    blocks = "\n".join(out).split("\n\n")
    assert len(blocks) == 2 and blocks[0].startswith("line 1\nplay") and blocks[1].startswith("line 2\nplay")
    for block, line in zip(blocks, lines, strict=True):
        assert block.split("\n", 1)[1] + "\n" == _one_play(en, line).stdout


def test_tsv_one_header_rows_of_the_one_play_tsv(en):
    lines = [f"{EMPTY} JOINTAB/ 0/0 0\t8D JOINT", f"{EMPTY} JOINTAB/ 0/0 0\t8D TINOJ", f"{EMPTY} JOINTAB/ 0/0 0\t8H JOINT"]
    rc, out, err = _batch(en, lines, "-f", "tsv", "-q")
    assert rc == 1, err
    columns = ["line", "field", "value", "score", "valid", "player_points", "opponent_points", "next", "summary"]
    assert out[0].split("\t") == columns and out.count(out[0]) == 1
    assert {len(r.split("\t")) for r in out} == {len(columns)}  # rectangular: every row every column
    rows = [r.split("\t", 1) for r in out[1:]]
    assert {n for n, _ in rows} == {"1", "2", "3"}
    for i, line in enumerate(lines, start=1):
        one = _one_play(en, line, "-f", "tsv").stdout.splitlines()
        assert one[0] == out[0].split("\t", 1)[1]  # the one-play header, without line
        assert [rest for n, rest in rows if n == str(i)] == one[1:]
    table = [dict(zip(columns, r.split("\t"), strict=True)) for r in out[1:]]
    assert {(x["line"], x["value"]) for x in table if x["field"] == "score"} >= {("1", "40"), ("3", "26")}
    assert [(x["value"], x["score"], x["valid"]) for x in table if x["line"] == "1" and x["field"] == "word"] == [
        ("JOINT", "40", "valid")
    ]


def test_tsv_challenge_rows_as_wide_as_the_header(en):
    """--challenge single adds a challenge row with five values; it is still as wide as the header."""
    lines = [f"{EMPTY} JOINTAB/ 0/0 0\t8D JOINT", f"{EMPTY} JOINTAB/ 0/0 0\t8D TINOJ", f"{EMPTY} JOINTAB/ 0/0 0\t8A JOINT"]
    rc, out, err = _batch(en, lines, "-f", "tsv", "--challenge", "single", "-q")
    assert rc == 1, err
    width = len(out[0].split("\t"))
    assert width == 9 and {len(r.split("\t")) for r in out} == {width}
    challenges = [r.split("\t") for r in out if r.split("\t")[1] == "challenge"]
    assert [(c[0], c[2], c[5], c[6]) for c in challenges] == [("1", "single", "40", "0"), ("2", "single", "0", "0")]


def test_a_play_that_cannot_be_made_is_a_ruling_not_a_bad_line(en):
    """Lines whose play is written right but breaks a square rule and the rack at once: rulings,
    ILLEGAL with the square rule's code (exit 1, no error line). Empty board: 8A JOINT misses the
    star (first_play_off_start) and the rack QZ has none of its letters; with FOR at 8G, 1A JOINT
    touches nothing."""
    board = "/".join(["15"] * 7 + ["6FOR6"] + ["15"] * 7)
    lines = [f"{EMPTY} QZ/ 0/0 0\t8A JOINT", f"{board} XYZ/ 0/0 0\t1A JOINT", f"{EMPTY} JOINTAB/ 0/0 0\t8D JOINT"]
    rc, out, err = _batch(en, lines, "-f", "json")
    assert rc == 1, err
    records = [json.loads(x) for x in out]
    assert [(r["line"], r["verdict"], (r["reason"] or {}).get("code")) for r in records] == [
        (1, "ILLEGAL", "first_play_off_start"),
        (2, "ILLEGAL", "not_touching"),
        (3, "ACCEPTABLE", None),
    ]
    assert err == ["skrafl score: 3 rulings: 1 acceptable, 2 illegal or unacceptable; 0 bad lines"]


def test_a_phony_exits_1(en):
    """TINOJ from the rack JOINTAB is legal but no word: UNACCEPTABLE, scored (1x2 + 1+1+1+8) x 2 =
    26 (T on the DL at D8, the star doubles); with every other ruling acceptable the exit is 1."""
    lines = [f"{EMPTY} JOINTAB/ 0/0 0\t8D JOINT", f"{EMPTY} JOINTAB/ 0/0 0\t8D TINOJ"]
    rc, out, err = _batch(en, lines, "-f", "json")
    assert rc == 1, err
    first, phony = map(json.loads, out)
    assert first["verdict"] == "ACCEPTABLE"
    assert phony["verdict"] == "UNACCEPTABLE" and phony["legal"] and phony["score"] == 26
    assert phony["words"] == [{"word": "TINOJ", "gcg": "TINOJ", "valid": False, "score": 26}]
    assert err == ["skrafl score: 2 rulings: 1 acceptable, 1 illegal or unacceptable; 0 bad lines"]
    rc, out, err = _batch(en, [*lines, "nonsense\t8D JOINT"], "-f", "json", "-q")
    assert rc == 2 and len(out) == 2  # a bad line outranks an unacceptable ruling


def test_nfd_line_rules_as_nfc():
    """An NFD line (rack and play decomposed) rules as the NFC one and as a one-play run."""
    lex = _lexicon("is")
    nfc_line = f"{EMPTY} ÝFAÁ/ 0/0 0\t8H ÝF"
    nfd_line = unicodedata.normalize("NFD", nfc_line)
    assert nfd_line != nfc_line
    rc, out, err = _batch(lex, [nfd_line, nfc_line], "-f", "json", "-q")
    assert rc == 0, err
    a, b = map(json.loads, out)
    assert a["play"] == "8H ÝF" and a["rack"] == "ÝFAÁ" and a["words"][0]["word"] == "ÝF" and a["verdict"] == "ACCEPTABLE"
    assert {**a, "line": 2} == b
    one = _one_play(lex, nfc_line, "-f", "json")
    assert one.returncode == 0 and json.loads(one.stdout) == {k: v for k, v in a.items() if k != "line"}


def test_each_line_answered_before_the_next_is_written(en):
    """A long-running client: write one line, read its ruling, then the next; stdin still open."""
    from clirun import each_line_answered

    args = ["score", "--lexicon", str(en), "--batch", "-", "-f", "json"]
    records = each_line_answered(args, [f"{EMPTY} JOINTAB/ 0/0 0\t{play}" for play in ("8D JOINT", "8E JOINT")])
    assert [(r["line"], r["score"]) for r in records] == [(1, 40), (2, 24)]


@pytest.mark.parametrize(
    "args",
    [
        ("--play", "8D JOINT"),
        ("--cgp", EMPTY),
        ("--board", "some.board"),
        ("--game", "some.gcg"),
        ("--svg", "x.svg"),
        ("--rack", "JOINTAB"),
        ("--challenge", "single", "--challenged", "joint"),
    ],
)
def test_options_that_do_not_fit_exit_2_at_once(en, args):
    res = run_skrafl_here("score", "--lexicon", str(en), "--batch", "-", *args, stdin=f"{EMPTY} JOINTAB/ 0/0 0\t8D JOINT\n")
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith("skrafl: error: ") and len(res.stderr.splitlines()) == 1 and "--" in res.stderr


def test_no_batch_file_exit_2(en, tmp_path):
    res = run_skrafl_here("score", "--lexicon", str(en), "--batch", str(tmp_path / "none.txt"))
    assert res.returncode == 2 and res.stdout == "" and "no batch file" in res.stderr


def test_control_characters_and_a_bom_past_line_1_are_bad_lines(en):
    """A control character in a line (a play typed with U+0001, a BOM past the first line) is a
    bad line, never echoed into the output; a BOM on line 1 is dropped."""
    good = f"{EMPTY} DIJNOTX/ 0/0 0\t8D JOINT"
    lines = ["\ufeff" + good, good.replace("JOINT", "\x01OINT"), "\ufeff" + good]
    rc, out, err = _batch(en, lines, "-f", "json", "-q")
    assert rc == 2
    assert [json.loads(x)["line"] for x in out] == [1]
    assert err == [
        "skrafl: error: -:2: a control character (U+0001) in the line",
        "skrafl: error: -:3: an invisible format character (U+FEFF) in the line",
    ]


def test_no_rack_line_beyond_the_tile_set_is_illegal(en):
    """A CGP with an empty rack: QUIZZES with two real Zs (English has one Z) cannot be made, as
    with the rack ZZ it is refused; with one Z a blank it is legal, (20+1+1+0+10+1+1) x 2 + 50."""
    lines = [f"{EMPTY} / 0/0 0\t8D QUIZZES", f"{EMPTY} / 0/0 0\t8D QUIzZES"]
    rc, out, err = _batch(en, lines, "-f", "json")
    records = [json.loads(x) for x in out]
    assert records[0]["verdict"] == "ILLEGAL" and records[0]["reason"]["code"] == "not_on_rack", records[0]
    assert records[1]["legal"] and records[1]["score"] == 118
    assert rc == 1


def test_a_tab_at_an_end_of_the_line_names_what_is_missing(en):
    """``CGP<TAB>`` (the play left out) is no play, not 'no TAB'; ``<TAB>PLAY`` has no CGP."""
    lines = [f"{EMPTY} / 0/0 0\t", f"{EMPTY} / 0/0 0\t  ", "\t8D JOINT", f"{EMPTY} / 0/0 0\t8D JOINT"]
    rc, out, err = _batch(en, lines, "-f", "json")
    assert rc == 2 and len(out) == 1 and json.loads(out[0])["score"] == 40
    assert err[:3] == [
        "skrafl: error: -:1: no play after the TAB: give COORD WORD, e.g. '8D JOINT'",
        "skrafl: error: -:2: no play after the TAB: give COORD WORD, e.g. '8D JOINT'",
        "skrafl: error: -:3: no CGP string before the TAB: a line is a CGP string, a TAB and the play",
    ]
