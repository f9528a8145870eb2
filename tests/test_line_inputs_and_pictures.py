"""Line inputs and picture outputs across commands: check's one word per line and control
characters, one line-reference convention (``-:LINE``) for stdin, replay's messages, an illegal
play's score, picture outputs written atomically and never over an input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from clirun import build_word_lexicon, run_skrafl_here

WORDS = ["hestur", "joint", "fore"]


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory) -> Path:
    return build_word_lexicon(tmp_path_factory.mktemp("trial"), WORDS)


def one_error_line(r) -> str:
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith("skrafl: error: "), (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    return lines[0].removeprefix("skrafl: error: ")


# ---- 3. check: one word per line; a control character is an error ------------------------------


def test_check_stdin_line_with_two_words_is_an_error(lexicon):
    r = run_skrafl_here("check", "--lexicon", str(lexicon), "-", stdin="joint\nhestur hestur\n")
    assert one_error_line(r) == "-:2: one word per line expected" and r.stdout == ""


def test_check_stdin_one_word_per_line_spaces_around_kept_out(lexicon):
    r = run_skrafl_here("check", "--lexicon", str(lexicon), "-", stdin="  hestur \n\nxyz\n")
    assert r.returncode == 1 and r.stdout.splitlines() == ["hestur\tVALID", "xyz\tINVALID"]


def test_check_argument_with_a_space_is_an_error(lexicon):
    r = run_skrafl_here("check", "--lexicon", str(lexicon), "joint", "hestur hestur")
    assert one_error_line(r) == "argument 2: one word per argument expected"


@pytest.mark.parametrize("where", ["argument", "stdin"])
def test_check_control_character_is_an_error_not_dropped(lexicon, where):
    if where == "argument":
        r = run_skrafl_here("check", "--lexicon", str(lexicon), "ab\x01c")
        assert one_error_line(r) == "argument 1: a control character (U+0001) in a word"
    else:
        r = run_skrafl_here("check", "--lexicon", str(lexicon), "-", stdin="joint\nab\x01c\n")
        assert one_error_line(r) == "-:2: a control character (U+0001) in a word"
    assert "abc" not in r.stdout + r.stderr


# ---- 4. one convention for stdin line references: -:LINE ----------------------------------------


def test_judge_batch_stdin_line_reference_is_dash(lexicon):
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--batch", "-", stdin="joint\na b c d e f g h i\n")
    assert one_error_line(r) == "-:2: at most 8 words at once; got 9"


def test_check_stdin_not_utf8_line_reference_is_dash(lexicon):
    r = subprocess.run(
        [sys.executable, "-m", "cli.main", "check", "--lexicon", str(lexicon), "-"],
        cwd=Path(__file__).resolve().parents[1],
        input=b"joint\n\xff\n",
        capture_output=True,
    )
    r.stderr = r.stderr.decode("utf-8")
    assert one_error_line(r).startswith("-:2: not UTF-8")


# ---- 2. score: a play that cannot be made gets no score and no ACCEPTABLE ------------------------

RIDDLE = Path(__file__).resolve().parents[2] / "shared/corpora/positions/netskrafl_riddle1.board"
OUTPUT_IS = Path(__file__).resolve().parents[1] / "output/is"


@pytest.mark.skipif(not RIDDLE.is_file() or not OUTPUT_IS.is_dir(), reason="needs the riddle and the built is lexicon")
@pytest.mark.parametrize("play, rack", [("A4 ÞREKRAUN", "UAEN"), ("A4 ÞREKRAUNX", None)])
def test_score_illegal_play_is_illegal_with_no_score(play, rack):
    import json

    args = ["score", "--lang", "is", "--board", str(RIDDLE), "--play", play, "--challenge", "netskrafl"]
    args += ["--rack", rack] if rack else []
    r = run_skrafl_here(*args)
    assert r.returncode == 1, r.stderr
    rows = dict(line.split(None, 1) for line in r.stdout.splitlines() if line.strip() and not line.startswith(" "))
    assert rows["legal"].startswith("no: not_on_rack") and rows["verdict"] == "ILLEGAL"
    assert "score" not in rows and "bingo" not in rows and "ACCEPTABLE" not in r.stdout
    assert rows["challenge"].startswith("none: the play is not legal")
    data = json.loads(run_skrafl_here(*args, "-f", "json").stdout)
    assert (data["legal"], data["verdict"], data["score"], data["bingo"], data["challenge"]) == (
        False,
        "ILLEGAL",
        None,
        False,
        None,
    )
    assert data["reason"]["code"] == "not_on_rack" and [w["score"] for w in data["words"]] == [None]


# ---- 5. replay's messages ---------------------------------------------------------------------


def test_replay_unknown_language_says_so(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    r = run_skrafl_here("replay", str(games), "--lang", "xx", "--out", str(tmp_path / "out"), output_root=tmp_path / "output")
    msg = one_error_line(r)
    assert msg.startswith("unknown language 'xx'; known languages: ") and "is" in msg.split(": ", 1)[1]
    assert "skrafl ingest" not in msg and not (tmp_path / "out").exists()


# ---- 6. pictures: written whole, never over an input nor into a skrafl output -------------------

EMPTY_BOARD = "\n".join(["." * 15] * 15) + "\n"


def test_picture_never_over_its_input(lexicon, tmp_path):
    board = tmp_path / "pos.svg"  # a board file that happens to end in .svg
    board.write_text(EMPTY_BOARD, encoding="utf-8")
    for args in (
        ["show", "--lexicon", str(lexicon), "--board", str(board), "--out", str(board)],
        ["score", "--lexicon", str(lexicon), "--board", str(board), "--play", "8D JOINT", "--svg", str(board)],
        ["best", "--lexicon", str(lexicon), "--board", str(board), "--rack", "JOINTAB", "--svg", str(board)],
    ):
        r = run_skrafl_here(*args)
        assert "is an input of this command" in one_error_line(r), args
        assert r.stdout == "" and board.read_text(encoding="utf-8") == EMPTY_BOARD


def test_picture_never_inside_a_skrafl_output(lexicon, tmp_path):
    board = tmp_path / "b.txt"
    board.write_text(EMPTY_BOARD, encoding="utf-8")
    before = sorted(p.name for p in Path(lexicon).resolve().iterdir())
    for args in (
        ["show", "--lexicon", str(lexicon), "--board", str(board), "--out", str(lexicon / "p.png")],
        ["score", "--lexicon", str(lexicon), "--board", str(board), "--play", "8D JOINT", "--svg", str(lexicon / "p.svg")],
        ["best", "--lexicon", str(lexicon), "--board", str(board), "--rack", "JOINTAB", "--svg", str(lexicon / "p.svg")],
    ):
        r = run_skrafl_here(*args)
        msg = one_error_line(r)
        assert "an output of 'skrafl build'" in msg and "nothing was written" in msg, args
    assert sorted(p.name for p in Path(lexicon).resolve().iterdir()) == before


def test_picture_in_a_missing_folder_or_of_another_kind_is_refused_before_any_work(lexicon, tmp_path):
    """Every command that draws checks its picture the same way, first: one line naming the
    option, and nothing written."""
    board = tmp_path / "b.txt"
    board.write_text(EMPTY_BOARD, encoding="utf-8")
    missing = tmp_path / "no-such-folder" / "p.svg"
    for option, args in (
        ("--out", ["show", "--lexicon", str(lexicon), "--board", str(board)]),
        ("--svg", ["score", "--lexicon", str(lexicon), "--board", str(board), "--play", "8D JOINT"]),
        ("--svg", ["best", "--lexicon", str(lexicon), "--board", str(board), "--rack", "JOINTAB"]),
    ):
        msg = one_error_line(run_skrafl_here(*args, option, str(missing)))
        assert msg == f"{option} {missing}: the folder {missing.parent} does not exist", msg
        msg = one_error_line(run_skrafl_here(*args, option, str(tmp_path / "p.gif")))
        assert msg == f"{option} must end in .svg or .png; got 'p.gif'", msg
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.txt"]


def test_picture_replaces_an_existing_picture_whole(lexicon, tmp_path):
    board = tmp_path / "b.txt"
    board.write_text(EMPTY_BOARD, encoding="utf-8")
    out = tmp_path / "pos.svg"
    out.write_text("old picture", encoding="utf-8")
    r = run_skrafl_here("show", "--lexicon", str(lexicon), "--board", str(board), "--play", "8D JOINT", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_text(encoding="utf-8").startswith("<svg") or "<svg" in out.read_text(encoding="utf-8")[:200]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.txt", "pos.svg"]  # no temporary file left


# --------------------------------------------------------------------------------------------
# Standard output: a reader that closes the pipe early, a device that is full
# --------------------------------------------------------------------------------------------

POSITIONS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "positions"


def _closed_after_first_line(args: list[str]) -> subprocess.CompletedProcess:
    """``skrafl ARGS | head -1``: the first line read, then the pipe closed."""
    p = subprocess.Popen(
        [sys.executable, "-m", "cli.main", *args],
        cwd=Path(__file__).resolve().parents[1],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    first = p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read().decode("utf-8")
    p.wait(timeout=120)
    return subprocess.CompletedProcess(args, p.returncode, first.decode("utf-8"), err)


@pytest.mark.slow
def test_closed_pipe_ends_with_0_and_nothing_on_stderr(lexicon, tmp_path):
    """click turns a closed pipe into exit 1, which is skrafl's 'negative answer'; a reader that
    stopped reading is no such answer: 0, whatever command wrote."""
    if not (POSITIONS / "mid1.board").is_file():
        pytest.skip("../shared/corpora/positions is not here")
    mid1 = tmp_path / "mid1"  # the position's own word list: 18,605 plays, far more than a pipe holds
    r = run_skrafl_here(
        "build", "en", "--source", "wordlist", "--input", str(POSITIONS / "mid1_b1.words"), "--out", str(mid1), "-q"
    )
    assert r.returncode == 0, r.stderr
    runs = {
        "best --all": ["best", "--lexicon", str(mid1), "--board", str(POSITIONS / "mid1.board"), "--rack", "AEEFH??", "--all"],
        "check": ["check", "--lexicon", str(lexicon), *WORDS * 20000],
    }
    for name, args in runs.items():
        r = _closed_after_first_line(args)
        assert r.stdout, name
        assert (r.returncode, r.stderr) == (0, ""), (name, r.returncode, r.stderr)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_full_standard_output_is_one_line_naming_it(lexicon):
    with open("/dev/full", "w") as full:
        r = subprocess.run(
            [sys.executable, "-m", "cli.main", "check", "--lexicon", str(lexicon), "hestur"],
            cwd=Path(__file__).resolve().parents[1],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == ["skrafl: error: standard output: No space left on device"]
