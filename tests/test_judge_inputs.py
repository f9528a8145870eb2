"""The inputs a judge's ruling rests on, from a user trial: nothing to rule on is no verdict, a
board no tile set can hold is refused, the audit log is never an input under another name, a line
is a line for ``check -`` and ``judge --batch`` alike, and a file that is not a file is named for
what it is. Expected values come from README's rules (and the English tile set: one Z, two
blanks), never from the code under test."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from clirun import build_word_lexicon, run_skrafl_here

WORDS = ["at", "fore", "joint", "ta", "za"]
EMPTY = "/".join(["15"] * 15)


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory) -> Path:
    return build_word_lexicon(tmp_path_factory.mktemp("judge_inputs"), WORDS)


def refused(r, message: str) -> None:
    """Exit 2, that one error line on stderr, and no verdict on stdout."""
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stderr == f"skrafl: error: {message}\n"
    assert "ACCEPTABLE" not in r.stdout


def board_file(tmp_path: Path, row8: str, name: str = "b.board") -> Path:
    rows = ["." * 15] * 15
    rows[7] = row8
    p = tmp_path / name
    p.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return p


# ---- 1. nothing to rule on is no verdict --------------------------------------------------------


@pytest.mark.parametrize("stdin", ["", "\n\n", " \n\t\n"])
def test_check_play_on_empty_stdin_is_no_verdict(lexicon, stdin):
    refused(run_skrafl_here("check", "--lexicon", str(lexicon), "--play", "-", stdin=stdin), "no words to rule on in -")
    refused(
        run_skrafl_here("check", "--lexicon", str(lexicon), "--play", "-", "-f", "json", stdin=stdin), "no words to rule on in -"
    )
    refused(run_skrafl_here("check", "--lexicon", str(lexicon), "-", stdin=stdin), "no words to check in -")
    refused(run_skrafl_here("why", "--lexicon", str(lexicon), "-q", "-", stdin=stdin), "no words to explain in -")


def test_other_empty_rulings_are_no_verdict(lexicon, tmp_path):
    refused(run_skrafl_here("check", "--lexicon", str(lexicon), "--play", "  "), "argument 1 is empty: give a word")
    refused(run_skrafl_here("judge", "--lexicon", str(lexicon), "--word", ""), "no words to rule on")
    refused(run_skrafl_here("judge", "--lexicon", str(lexicon), "--word", " , ;"), "no words to rule on")
    empty = tmp_path / "plays.tsv"
    empty.write_text("\n\n", encoding="utf-8")
    refused(run_skrafl_here("score", "--lexicon", str(lexicon), "--batch", str(empty), "-q"), f"no plays to rule on in {empty}")
    r = run_skrafl_here("score", "--lexicon", str(lexicon), "--batch", "-", "-f", "json", stdin="")
    refused(r, "no plays to rule on in -")
    assert r.stdout == ""


# ---- 2. a board holding more tiles than the tile set ---------------------------------------------


def test_a_board_beyond_the_tile_set_is_refused_by_every_command(lexicon, tmp_path):
    zzz = board_file(tmp_path, "...ZZZ.........", "zzz.board")  # three real Zs; English has one
    message = f"{zzz}:8: the board holds 3 × 'Z', but tile set english has only 1"
    refused(run_skrafl_here("score", "--lexicon", str(lexicon), "--board", str(zzz), "--play", "9D AT"), message)
    refused(run_skrafl_here("score", "--lexicon", str(lexicon), "--board", str(zzz), "--play", "9D AT", "--rack", "AT"), message)
    refused(run_skrafl_here("best", "--lexicon", str(lexicon), "--board", str(zzz), "--rack", "AT"), message)
    refused(run_skrafl_here("show", "--rules", "wespa", "--board", str(zzz), "--out", str(tmp_path / "p.svg")), message)
    assert not (tmp_path / "p.svg").exists()
    cgp = EMPTY.split("/")
    cgp[7] = "3ZZZ9"
    line = "/".join(cgp) + " AT/ 0/0 0"
    r = run_skrafl_here("score", "--lexicon", str(lexicon), "--batch", "-", "-q", stdin=f"{line}\t9D AT\n")
    refused(r, "-:1: the board holds 3 × 'Z', but tile set english has only 1")
    r = run_skrafl_here("best", "--lexicon", str(lexicon), "--board", "-", stdin=line + "\n")
    refused(r, "-:1: the board holds 3 × 'Z', but tile set english has only 1")
    refused(
        run_skrafl_here("score", "--lexicon", str(lexicon), "--cgp", line, "--play", "9D AT"),
        "the board holds 3 × 'Z', but tile set english has only 1",
    )


def test_blanks_count_against_the_blanks(lexicon, tmp_path):
    three = board_file(tmp_path, "...zzz.........", "blanks.board")  # three blanks; English has two
    message = f"{three}:8: the board holds 3 blanks, but tile set english has only 2"
    refused(run_skrafl_here("score", "--lexicon", str(lexicon), "--board", str(three), "--play", "9D AT"), message)
    # one real Z and two blank Zs fit the set: ruled on (9D AT forms AT, ZA, ZT; ZT is no word)
    fits = board_file(tmp_path, "...Zzz.........", "fits.board")
    r = run_skrafl_here("score", "--lexicon", str(lexicon), "--board", str(fits), "--play", "9D AT", "-f", "json")
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    assert data["legal"] is True and data["verdict"] == "UNACCEPTABLE"


# ---- 3. the audit log is never an input, whatever its name ---------------------------------------


def test_a_hard_link_of_the_batch_is_no_log(lexicon, tmp_path):
    batch = tmp_path / "jl2.txt"
    batch.write_text("joint\nfore\n", encoding="utf-8")
    before = batch.read_bytes()
    link = tmp_path / "jl2_hard.txt"
    os.link(batch, link)
    message = f"{link}: is an input of this command; give another file for the audit log (nothing was written)"
    with open(batch, "rb") as fh:  # --batch - with stdin redirected from the file
        import subprocess
        import sys

        from clirun import PROJECT_ROOT

        r = subprocess.run(
            [sys.executable, "-m", "cli.main", "judge", "--lexicon", str(lexicon), "--batch", "-", "--log", str(link), "-q"],
            stdin=fh,
            capture_output=True,
            text=True,
            cwd=PROJECT_ROOT,
        )
    refused(r, message)
    refused(run_skrafl_here("judge", "--lexicon", str(lexicon), "--batch", str(batch), "--log", str(link), "-q"), message)
    assert batch.read_bytes() == before


def test_a_hard_link_of_a_lexicon_file_is_no_log(lexicon, tmp_path):
    link = tmp_path / "log.jsonl"
    manifest = Path(os.path.realpath(lexicon)) / "manifest.json"
    before = manifest.read_bytes()
    try:
        os.link(manifest, link)
    except OSError as exc:  # pragma: no cover - another file system
        pytest.skip(f"no hard link possible here: {exc}")
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--word", "joint", "--log", str(link), "-q")
    assert r.returncode == 2 and "a hard link" in r.stderr and str(link) in r.stderr, r.stderr
    assert manifest.read_bytes() == before


def test_a_hard_link_of_the_board_is_no_picture(lexicon, tmp_path):
    board = board_file(tmp_path, "...JOINT.......")
    link = tmp_path / "pic.svg"
    os.link(board, link)
    r = run_skrafl_here("show", "--rules", "wespa", "--board", str(board), "--out", str(link))
    refused(r, f"{link}: is an input of this command; give another file for the picture (nothing was written)")


# ---- 4, 5. a line is a line: judge --batch and why - as check - -----------------------------------


@pytest.mark.parametrize(
    "stdin, what",
    [
        ("joint\rxyzzy\r", "a control character (U+000D)"),  # old-Mac line endings: CR only
        ("joint\x0bxyzzy\n", "a control character (U+000B)"),
        ("joint\u2028xyzzy\n", "a line separator (U+2028)"),
        ("joint\x1cxyzzy\n", "a control character (U+001C)"),
    ],
)
def test_judge_batch_refuses_a_line_break_inside_a_line_as_check_does(lexicon, tmp_path, stdin, what):
    log = tmp_path / "jcr.jsonl"
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--batch", "-", "--log", str(log), "-q", stdin=stdin)
    refused(r, f"-:1: {what} in the line: one ruling per line, its words separated by spaces, tabs, commas or semicolons")
    assert not log.exists() or log.read_text(encoding="utf-8") == ""
    c = run_skrafl_here("check", "--lexicon", str(lexicon), "-", stdin=stdin)
    assert c.returncode == 2 and c.stderr.startswith("skrafl: error: -:1: "), c.stderr


def test_judge_batch_separators_and_crlf(lexicon):
    """CRLF ends a line; a tab and a no-break space separate words as a space does."""
    r = run_skrafl_here(
        "judge", "--lexicon", str(lexicon), "--batch", "-", "-f", "tsv", "-q", stdin="joint\r\nfore\tta\u00a0at\r\nfore\rxyzzy\n"
    )
    refused(
        r,
        "-:3: a control character (U+000D) in the line: one ruling per line, its words separated by spaces, tabs, commas or semicolons",
    )
    r = run_skrafl_here(
        "judge", "--lexicon", str(lexicon), "--batch", "-", "-f", "tsv", "-q", stdin="joint\r\nfore\tta\u00a0at\r\n"
    )
    assert r.returncode == 0, r.stderr
    assert [line.split("\t")[:3] for line in r.stdout.splitlines()[1:]] == [
        ["1", "joint", "ACCEPTABLE"],
        ["2", "fore ta at", "ACCEPTABLE"],
    ]


def test_why_stdin_takes_check_rule(lexicon):
    stdin = "joint\njo int\n"
    c = run_skrafl_here("check", "--lexicon", str(lexicon), "-", stdin=stdin)
    refused(c, "-:2: one word per line expected")
    refused(run_skrafl_here("why", "--lexicon", str(lexicon), "-q", "-", stdin=stdin), "-:2: one word per line expected")
    refused(
        run_skrafl_here("why", "--lexicon", str(lexicon), "-q", "-", stdin="joint\x01\n"),
        "-:1: a control character (U+0001) in a word",
    )


# ---- 6. a file that is not a file; invisible characters named ------------------------------------


def test_a_folder_is_named_a_folder(lexicon, tmp_path):
    folder = tmp_path / "gcg"
    folder.mkdir()
    lex = ("--lexicon", str(lexicon))
    refused(
        run_skrafl_here("score", *lex, "--board", str(folder), "--play", "8D AT"), f"--board {folder} is a folder, not a file"
    )
    refused(run_skrafl_here("best", *lex, "--board", str(folder), "--rack", "AT"), f"--board {folder} is a folder, not a file")
    refused(
        run_skrafl_here("best", *lex, "--board", str(folder), "--board-format", "cgp", "--rack", "AT"),
        f"--board {folder} is a folder, not a file",
    )
    refused(
        run_skrafl_here("show", "--rules", "wespa", "--board", str(folder), "--out", str(tmp_path / "x.svg")),
        f"--board {folder} is a folder, not a file",
    )
    refused(run_skrafl_here("score", *lex, "--game", str(folder)), f"--game {folder} is a folder, not a file")
    refused(run_skrafl_here("score", *lex, "--batch", str(folder)), f"--batch {folder} is a folder, not a file")
    refused(run_skrafl_here("judge", *lex, "--batch", str(folder)), f"--batch {folder} is a folder, not a file")
    # the batch is said to be a folder before the log is looked at (a log refused for another reason)
    link = tmp_path / "log.jsonl"
    os.link(Path(os.path.realpath(lexicon)) / "manifest.json", link)
    refused(
        run_skrafl_here("judge", *lex, "--batch", str(folder), "--log", str(link)), f"--batch {folder} is a folder, not a file"
    )
    refused(
        run_skrafl_here("score", *lex, "--board", str(tmp_path / "none"), "--play", "8D AT"), f"no board file {tmp_path / 'none'}"
    )


@pytest.mark.skipif(not Path("/dev/null").exists() or not hasattr(os, "mkfifo"), reason="no /dev/null or FIFOs")
def test_dev_null_and_a_fifo_are_read(lexicon, tmp_path):
    refused(run_skrafl_here("judge", "--lexicon", str(lexicon), "--batch", "/dev/null"), "no words to rule on in /dev/null")
    refused(run_skrafl_here("score", "--lexicon", str(lexicon), "--batch", "/dev/null", "-q"), "no plays to rule on in /dev/null")
    fifo = tmp_path / "ff.txt"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "w", encoding="utf-8") as fh:
            fh.write("joint fore\n")

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--batch", str(fifo), "-f", "tsv", "-q")
    writer.join(timeout=30)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1].split("\t")[:3] == ["1", "joint fore", "ACCEPTABLE"]


@pytest.mark.parametrize("ch", ["\u200b", "\u00ad", "\u2060"])  # zero-width space, soft hyphen, word joiner: Cf
def test_an_invisible_format_character_is_named_so(lexicon, ch):
    code = f"U+{ord(ch):04X}"
    r = run_skrafl_here("check", "--lexicon", str(lexicon), "-", stdin=f"joint{ch}\n")
    refused(r, f"-:1: an invisible format character ({code}) in a word")
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--word", f"jo{ch}int")
    refused(r, f"--word: an invisible format character ({code}) in a word")


# ---- 6. score -f json: the words as the table writes them, blanks marked; squares named one way ---


def test_json_words_carry_the_table_text_and_the_blanks(lexicon):
    # QUIZ?? and E: QUIZZES needs a Z and an S it does not hold; two blanks stand for the second Z
    # and E (lowercase), the S is missing: not_on_rack, the word read from its squares all the same
    cgp = f"{EMPTY} QUIZE??/ 0/0 0"
    r = run_skrafl_here("score", "--lexicon", str(lexicon), "--cgp", cgp, "--play", "8D QUIZzeS", "-f", "json")
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    assert (data["coord"], data["word"], data["verdict"]) == ("8D", "QUIZzeS", "ILLEGAL")
    assert data["words"] == [{"word": "QUIZZES", "gcg": "QUIZzeS", "valid": False, "score": None}]
    table = run_skrafl_here("score", "--lexicon", str(lexicon), "--cgp", cgp, "--play", "8D QUIZzeS")
    assert "words    QUIZZES" in table.stdout


def test_json_of_a_play_touching_nothing_has_its_coord_and_words(lexicon, tmp_path):
    joint = board_file(tmp_path, "....JOINT......")  # JOINT at 8E
    r = run_skrafl_here("score", "--lexicon", str(lexicon), "--board", str(joint), "--play", "2K XX", "-f", "json")
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    assert data["reason"]["code"] == "not_touching"
    assert (data["coord"], data["word"], data["score"]) == ("2K", "XX", None)
    assert data["words"] == [{"word": "XX", "gcg": "XX", "valid": False, "score": None}]


def test_squares_are_named_row_then_column_or_in_the_chosen_order(lexicon):
    cgp = f"{EMPTY} QUIZE??/ 0/0 0"
    lex = ("--lexicon", str(lexicon), "--cgp", cgp, "-f", "json")

    def message(*args):
        return json.loads(run_skrafl_here("score", *lex, *args).stdout)["reason"]["message"]

    # the S of 8D QUIZzeS lies on row 8, column J (D + 6)
    assert message("--play", "8D QUIZzeS") == "S is not on the rack QUIZE?? (for square 8J)"
    # Netskrafl's order: H4 across is row H from column 4, the same squares; the S on row H, column 10
    assert message("--play", "H4 QUIZzeS", "--coords", "netskrafl") == "S is not on the rack QUIZE?? (for square H10)"
    # the start square: row 8, column H; in Netskrafl's order row H, column 8
    assert message("--play", "2K QUIZ") == "the first play must cover the start square 8H"
    assert message("--play", "2K QUIZ", "--coords", "netskrafl") == "the first play must cover the start square H8"


def test_a_netskrafl_play_is_named_as_written_in_its_error(lexicon, tmp_path):
    joint = board_file(tmp_path, "....JOINT......")  # JOINT on row 8 from column E: Netskrafl's H5
    lex = ("--lexicon", str(lexicon), "--board", str(joint), "-f", "json")

    def message(*args):
        return json.loads(run_skrafl_here("score", *lex, *args).stdout)["reason"]["message"]

    assert message("--play", "8E XOINT") == "8E XOINT: square 8E holds J, not X"
    assert message("--play", "H5 XOINT", "--coords", "netskrafl") == "H5 XOINT: square H5 holds J, not X"
    assert message("--play", "H4 .A", "--coords", "netskrafl") == ("H4 .A: '.' at H4 marks a board tile, but the square is empty")


def test_show_refuses_a_rack_the_board_leaves_no_tiles_for(tmp_path):
    fits = board_file(tmp_path, "...Zzz.........")  # English's one Z and both blanks on the board
    out = tmp_path / "p.svg"
    args = ("show", "--rules", "wespa", "--board", str(fits), "--out", str(out))
    refused(run_skrafl_here(*args, "--rack", "Z"), "rack and board together hold 2 × 'Z', but tile set english has only 1")
    refused(run_skrafl_here(*args, "--rack", "A?"), "rack and board together hold 3 × blanks, but tile set english has only 2")
    assert not out.exists()
    assert run_skrafl_here(*args, "--rack", "AT").returncode == 0 and out.exists()


def test_replay_names_squares_as_score_does():
    """The replay's own reading of a GCG word (gamecore.replay_board) names a square as the
    oracle does: row, then column."""
    from gamecore.board import Board
    from gamecore.play import IllegalPlay
    from gamecore.replay_board import tile_placements
    from gamecore.rules import load_rules

    wespa = load_rules("wespa")
    board = Board(wespa.layout(), wespa.tiles())
    for c, letter in enumerate("JOINT", start=4):  # JOINT on row 8 from column E
        board.place(7, c, letter)
    with pytest.raises(IllegalPlay) as exc:
        tile_placements(board, 7, 4, True, ["X", ".", ".", ".", "."])
    assert exc.value.message == "square 8E holds J, not X"
    with pytest.raises(IllegalPlay) as exc:
        tile_placements(board, 8, 3, True, [".", "A"])  # row 9 from column D: empty
    assert exc.value.message == "'.' at 9D marks a board tile, but the square is empty"


def test_the_log_is_a_rulings_log_and_a_cut_last_line_is_ended(lexicon, tmp_path):
    """judge --log appended to any file (a word list given by mistake) and glued the next ruling
    onto a last line left without its line break (a write cut short): the file became one line
    that is not JSON. Now another file is refused and a cut line is ended first."""
    log = tmp_path / "rulings.jsonl"
    lex = ("--lexicon", str(lexicon))
    assert run_skrafl_here("judge", *lex, "--word", "joint", "--log", str(log), "-q").returncode == 0
    log.write_bytes(log.read_bytes()[:-1])  # the line break of the last ruling lost
    assert run_skrafl_here("judge", *lex, "--word", "joint", "--log", str(log), "-q").returncode == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and all(json.loads(line)["words"] == ["joint"] for line in lines), lines
    words = tmp_path / "words.txt"
    words.write_text("joint\nxyzzy\n", encoding="utf-8")
    r = run_skrafl_here("judge", *lex, "--word", "joint", "--log", str(words), "-q")
    assert r.returncode == 2 and f"{words}:1: not a rulings log" in r.stderr and "ACCEPTABLE" not in r.stdout, r.stderr
    assert words.read_text(encoding="utf-8") == "joint\nxyzzy\n"
    # an empty file and a device are logs to write (as before)
    (tmp_path / "empty.jsonl").touch()
    assert run_skrafl_here("judge", *lex, "--word", "joint", "--log", str(tmp_path / "empty.jsonl"), "-q").returncode == 0
    assert run_skrafl_here("judge", *lex, "--word", "joint", "--log", "/dev/null", "-q").returncode == 0
