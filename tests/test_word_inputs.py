"""Word inputs from a new user's trial (README: guarantees): a word is at most WORD_MAX = 64
characters (gamecore/text.py) and a huge line is never read into memory whole; ``-`` reads a
reference or must-reject list from stdin; a reference list's errors say it is a reference list.
A word of N characters is ``FILE:LINE: a word of N characters (at most 64)``, exit 2."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from clirun import REFERENCE, build_small_lexicons, one_error_line, run_skrafl_here


@pytest.fixture(scope="module")
def lexicons(tmp_path_factory) -> dict[str, Path]:
    return build_small_lexicons(tmp_path_factory.mktemp("trial"))


# --- 2. a word has a length limit; a huge line is not read into memory ----------------------------


class _Recording(io.BytesIO):
    """A stream that remembers the largest piece it handed out."""

    largest = 0

    def readline(self, size: int | None = -1) -> bytes:
        out = super().readline(size)
        self.largest = max(self.largest, len(out))
        return out


def test_capped_lines_never_holds_a_long_line():
    from gamecore.text import LINE_CAP, capped_lines

    n = 5_000_000
    stream = _Recording(b"  " + b"a" * n + b"  \nhest\n")
    got = list(capped_lines(stream))
    assert [(lineno, length) for lineno, _, length in got] == [(1, n), (2, None)]
    assert got[0][1] == (b"  " + b"a" * n)[:LINE_CAP] and got[1][1] == b"hest\n"
    assert stream.largest <= 1 << 20  # never the whole 5 MB line at once


def test_capped_lines_counts_characters_not_bytes():
    from gamecore.text import capped_lines

    word = "þ" * 3000  # 6000 bytes of UTF-8, one character each
    ((lineno, _, length),) = list(capped_lines(io.BytesIO(("\ufeff" + word + "\r\n").encode("utf-8"))))
    assert (lineno, length) == (1, 3000)


@pytest.mark.slow
def test_check_stdin_huge_line(lexicons):
    n = 3_000_000
    r = run_skrafl_here("check", "--lexicon", str(lexicons["en"]), "-", stdin="a" * n + "\n")
    assert one_error_line(r) == f"skrafl: error: -:1: a word of {n} characters (at most 64)"
    assert r.stdout == ""  # nothing echoed


def test_judge_batch_huge_line(lexicons, tmp_path):
    """A ruling holds at most --max-words words of at most 64 characters: a longer line is one
    error, read without holding it whole, and nothing is ruled or logged."""
    n = 3_000_000
    text = "joint fore\n" + "joint " + "a" * n + "\n"
    log = tmp_path / "rulings.jsonl"
    r = run_skrafl_here("judge", "--lexicon", str(lexicons["en"]), "--batch", "-", "--log", str(log), stdin=text)
    assert one_error_line(r) == f"skrafl: error: -:2: a line of {n + 6} characters (at most 520: 8 words of at most 64)"
    assert r.stdout == "" and not log.exists()
    (tmp_path / "b.txt").write_text("joint " + "fore " * 120 + "\n", encoding="utf-8")  # 121 words of 4-5 letters
    r = run_skrafl_here("judge", "--lexicon", str(lexicons["en"]), "--batch", str(tmp_path / "b.txt"))
    assert one_error_line(r).startswith(f"skrafl: error: {tmp_path / 'b.txt'}:1: a line of 605 characters (at most 520")


def test_find_pattern_may_be_longer_than_a_word(lexicons):
    """A find pattern is not a word: letter sets take several characters a square, so it has its
    own limit (1024)."""
    pattern = "".join(f"[{c}xyz]" for c in "joint")  # 30 characters, one word's worth of squares
    pattern = pattern + "*" * 40  # 70: over the word limit, within the pattern limit
    r = run_skrafl_here("find", "--lexicon", str(lexicons["en"]), pattern)
    assert r.returncode in (0, 1) and "error" not in r.stderr, r.stderr
    r = run_skrafl_here("find", "--lexicon", str(lexicons["en"]), "a" * 1100)
    assert one_error_line(r) == "skrafl: error: PATTERN: a pattern of 1100 characters (at most 1024)"


def test_check_stdin_limit_is_64(lexicons):
    r = run_skrafl_here("check", "--lexicon", str(lexicons["en"]), "-", stdin="cat\n" + "a" * 65 + "\n")
    assert one_error_line(r) == "skrafl: error: -:2: a word of 65 characters (at most 64)"
    r = run_skrafl_here("check", "--lexicon", str(lexicons["en"]), "-", stdin="cat\n" + "a" * 64 + "\n")
    assert r.returncode == 1, r.stderr  # a 64-letter word is judged: not in the lexicon
    assert r.stdout.splitlines() == ["cat\tVALID", "a" * 64 + "\tINVALID"]


def test_check_argument_limit(lexicons):
    r = run_skrafl_here("check", "--lexicon", str(lexicons["en"]), "cat", "b" * 70)
    assert one_error_line(r) == "skrafl: error: argument 2: a word of 70 characters (at most 64)"


def test_check_stdin_bom_only_at_the_start(lexicons):
    r = run_skrafl_here("check", "--lexicon", str(lexicons["en"]), "-", stdin="\ufeffcat\ndog\n")
    assert r.returncode == 0 and r.stdout.splitlines() == ["cat\tVALID", "dog\tVALID"]
    r = run_skrafl_here("check", "--lexicon", str(lexicons["en"]), "-", stdin="cat\n\ufeffdog\n")
    assert one_error_line(r) == "skrafl: error: -:2: an invisible format character (U+FEFF) in a word"


def test_compare_huge_reference_line(lexicons):
    tmp = lexicons["tmp"]
    huge = tmp / "hugeline.txt"
    n = 2_000_000
    huge.write_bytes(b"cat\n" + b"x" * n + b"\n")
    r = run_skrafl_here("compare", str(lexicons["en"]), str(huge), "--out", str(tmp / "cmp_huge"), "--quiet")
    assert one_error_line(r) == f"skrafl: error: {huge}:2: a word of {n} characters (at most 64)"
    assert not (tmp / "cmp_huge").exists()


def test_word_list_limit_and_long_comment(tmp_path):
    from gamecore.errors import DataError
    from pipelines.recipe import read_word_list

    p = tmp_path / "additions.txt"
    p.write_text("# " + "a long comment " * 1000 + "\nhest  # a horse\n", encoding="utf-8")
    assert read_word_list(p) == ["hest"]  # a 15 kB comment line is no word
    p.write_text("hest\n" + "ø" * 65 + "\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        read_word_list(p)
    assert str(exc.value) == f"{p}:2: a word of 65 characters (at most 64)"


# --- 3. '-' for stdin; a reference list's errors say what it is ---------------------------------


def _numbers(r) -> dict:
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_compare_reference_from_stdin(lexicons):
    tmp = lexicons["tmp"]
    args = ("compare", str(lexicons["en"]))
    from_file = _numbers(run_skrafl_here(*args, str(lexicons["ref"]), "--out", str(tmp / "c1"), "-f", "json", "--quiet"))
    from_stdin = _numbers(
        run_skrafl_here(*args, "-", "--out", str(tmp / "c2"), "-f", "json", "--quiet", stdin="\n".join(REFERENCE) + "\n")
    )
    # the lexicon: cat cats dog dogs horse; the reference: cat dog cow → 2 of 3 found
    assert (from_stdin["reference_words"], from_stdin["both"]) == (3, 2)
    assert {k: v for k, v in from_stdin.items() if k not in ("reference", "out")} == {
        k: v for k, v in from_file.items() if k not in ("reference", "out")
    }


def test_compare_reject_from_stdin(lexicons):
    tmp = lexicons["tmp"]
    r = run_skrafl_here(
        "compare", str(lexicons["en"]), str(lexicons["ref"]), "--reject", "-", "--out", str(tmp / "c3"), "-f", "json", "--quiet",
        stdin="horse\nzebra\n",
    )  # fmt: skip
    n = _numbers(r)
    assert (n["reject_words"], n["reject_in_lexicon"]) == (2, 1)  # horse is in the lexicon, zebra not


def test_compare_both_from_stdin_refused(lexicons):
    r = run_skrafl_here("compare", str(lexicons["en"]), "-", "--reject", "-", "--out", str(lexicons["tmp"] / "c4"), stdin="cat\n")
    assert "only one of REFERENCE and --reject can be -" in one_error_line(r)


def test_latin1_reference_says_reference_list(lexicons):
    tmp = lexicons["tmp"]
    bad = tmp / "latin1.txt"
    bad.write_bytes("cat\nsmørbrød\n".encode("latin-1"))
    r = run_skrafl_here("compare", str(lexicons["en"]), str(bad), "--out", str(tmp / "c5"))
    line = one_error_line(r)
    assert line.startswith(f"skrafl: error: {bad}:2: not UTF-8") and "reference lists are UTF-8" in line
    assert "committee" not in line
    r = run_skrafl_here("compare", str(lexicons["en"]), str(lexicons["ref"]), "--reject", str(bad), "--out", str(tmp / "c6"))
    line = one_error_line(r)
    assert "must-reject lists are UTF-8" in line and "committee" not in line


def test_missing_reject_list_says_what_it_is(lexicons):
    tmp = lexicons["tmp"]
    r = run_skrafl_here(
        "compare", str(lexicons["en"]), str(lexicons["ref"]), "--reject", str(tmp / "nope.txt"), "--out", str(tmp / "c7")
    )
    assert one_error_line(r) == f"skrafl: error: {tmp / 'nope.txt'}: must-reject list not found"


def test_a_long_line_of_white_space_says_so(lexicons):
    """A short word padded past the 4 KiB a line is read up to is not 'a word of 6 characters
    (at most 64)': the message says what is wrong."""
    r = run_skrafl_here("check", "--lexicon", str(lexicons["en"]), "-", stdin="cat" + " " * 5000 + "\n")
    assert one_error_line(r) == "skrafl: error: -:1: a line of more than 4096 bytes, most of it white space around a word"


def test_check_json_says_valid_as_the_other_commands_do(lexicons):
    """check's JSON had only "verdict": "VALID" where why, find --hooks and score's words say
    "valid": true: a script reading several commands needs one key."""
    from clirun import EN_WORDS

    word = EN_WORDS[0]
    r = run_skrafl_here("check", "--lexicon", str(lexicons["en"]), word, "qqqzz", "-f", "json")
    assert r.returncode == 1, r.stderr
    assert json.loads(r.stdout) == [
        {"word": word, "verdict": "VALID", "valid": True},
        {"word": "qqqzz", "verdict": "INVALID", "valid": False},
    ]
    r = run_skrafl_here("check", "--lexicon", str(lexicons["en"]), "--play", word, "-f", "json")
    assert r.returncode == 0 and json.loads(r.stdout) == [{"verdict": "ACCEPTABLE", "valid": True}], r.stdout
    why = json.loads(run_skrafl_here("why", "--lexicon", str(lexicons["en"]), word, "-f", "json").stdout)
    assert why[0]["valid"] is True
