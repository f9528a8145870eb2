"""Memory is bounded whatever the input (a user trial: ``skrafl replay /dev/zero`` and ``skrafl build
en --source wordlist --input /dev/zero`` were killed by the machine's OOM killer at 24 GB; a 200 MB
one-line file peaked at 661 MB / 3 GB; ``best --board - < /dev/zero`` was an internal error).

Every run is the real CLI in a subprocess under an address-space limit (RLIMIT_AS, 1.5 GiB: the
imports need a few hundred MB of it) and a timeout, so a regression fails the test instead of
exhausting the shared machine; the files are just over the caps (``gamecore.text``:
``GAME_FILE_MAX`` 16 MiB, ``BOARD_FILE_MAX`` 1 MiB, ``DUMP_LINE_MAX`` 64 KiB, ``LINE_CAP`` 4 KiB).
Each run must end with exit 2 and one stderr line naming the file (and the line where there is
one), no traceback, no internal error.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import PROJECT_ROOT, build_word_lexicon, run_skrafl

from gamecore.text import BOARD_FILE_MAX, DUMP_LINE_MAX, GAME_FILE_MAX, LINE_CAP

LIMIT = 3 << 29  # 1.5 GiB of address space


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def bounded(*args: str, stdin=None, input: bytes | None = None, cwd: Path | None = None, timeout: int = 120):
    """Run ``python -m cli.main ARGS`` under :data:`LIMIT` and a timeout; (exit status, stderr)."""
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT))
    proc = subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=cwd or PROJECT_ROOT,
        env=env,
        stdin=stdin,
        input=input,
        capture_output=True,
        timeout=timeout,
        preexec_fn=_limit,
    )
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def one_line(err: str) -> str:
    assert "Traceback" not in err and "internal error" not in err, err[:2000]
    lines = [ln for ln in err.splitlines() if ln.startswith("skrafl: error:")]
    assert len(lines) == 1, err[:2000]
    assert len(lines[0]) < 400, lines[0][:400]
    return lines[0]


def _write_zeros(path: Path, n: int, byte: bytes = b"a") -> Path:
    with open(path, "wb") as f:
        chunk = byte * (1 << 20)
        while n > 0:
            f.write(chunk[: min(n, len(chunk))])
            n -= len(chunk)
    return path


@pytest.fixture(scope="module")
def big_game(tmp_path_factory) -> Path:
    """A GCG file one byte over GAME_FILE_MAX, no line break (the trial's z200.gcg, smaller)."""
    return _write_zeros(tmp_path_factory.mktemp("big") / "z.gcg", GAME_FILE_MAX + 1)


@pytest.fixture(scope="module")
def cats(tmp_path_factory) -> Path:
    return build_word_lexicon(tmp_path_factory.mktemp("cats"), ["cat", "cats", "act", "at", "ta"], name="lex")


# ---- game files -------------------------------------------------------------------------------


def test_replay_dev_zero_is_one_line(tmp_path):
    code, err = bounded("replay", "/dev/zero", "--out", str(tmp_path / "rp"), "--no-lexicon", "-q")
    assert code == 2
    line = one_line(err)
    assert "/dev/zero: FILE_TOO_LARGE: more than 16 MiB" in line
    assert not (tmp_path / "rp").exists()


def test_replay_big_game_file_is_its_finding(tmp_path, big_game, fixtures):
    """One file over the cap is that file's error row; the other games are replayed."""
    games = tmp_path / "games"
    games.mkdir()
    good = next(p for p in sorted((fixtures / "gcg").glob("*.gcg")) if "bonus" not in p.name)
    (games / "a.gcg").write_bytes(good.read_bytes())
    os.symlink(big_game, games / "z.gcg")
    code, err = bounded("replay", str(games / "a.gcg"), str(big_game), "--out", str(tmp_path / "rp"), "--no-lexicon")
    assert "Traceback" not in err and "internal error" not in err, err
    import polars as pl

    rows = {Path(r["file"]).name: r for r in pl.read_parquet(tmp_path / "rp" / "games.parquet").to_dicts()}
    assert rows["z.gcg"]["status"] == "error"
    assert rows["z.gcg"]["error"].startswith("FILE_TOO_LARGE: more than 16 MiB"), rows["z.gcg"]
    assert rows["a.gcg"]["error"] is None or not rows["a.gcg"]["error"].startswith("FILE_TOO_LARGE")


def test_big_netskrafl_record(tmp_path):
    record = tmp_path / "r.json"
    with open(record, "wb") as f:
        f.write(b'{"moves": ["')
        _write_zeros(tmp_path / "pad", GAME_FILE_MAX)
        f.write((tmp_path / "pad").read_bytes())
        f.write(b'"]}')
    code, err = bounded("replay", str(record), "--out", str(tmp_path / "rp"), "--no-lexicon", "-q")
    assert code == 2
    assert f"{record}: FILE_TOO_LARGE" in one_line(err)


@pytest.mark.parametrize("command", ["score", "show"])
def test_game_option_big_file(tmp_path, big_game, cats, command):
    extra = ["--lexicon", str(cats)] if command == "score" else ["--out", str(tmp_path / "p.svg")]
    code, err = bounded(command, "--game", str(big_game), "--move", "1", *extra)
    assert code == 2
    assert f"{big_game}: FILE_TOO_LARGE: more than 16 MiB" in one_line(err)
    assert not (tmp_path / "p.svg").exists()


def test_library_readers_cap(big_game):
    from gamecore.gamelog import GameLogError
    from gamecore.gcg import read_gcg
    from gamecore.netskrafl_record import read_netskrafl_record

    for read in (read_gcg, read_netskrafl_record):
        with pytest.raises(GameLogError) as exc:
            read(big_game)
        assert exc.value.code == "FILE_TOO_LARGE" and exc.value.path == str(big_game)


def test_library_board_and_language_readers_cap(tmp_path):
    """gamecore.board.read_board (the library's board reader) and impact's look at a record's
    language read at most their caps: a huge board file is one DataError, a huge .json record
    names no language (the replay then reports the file)."""
    from gamecore.board import read_board
    from gamecore.boards import load_layout
    from gamecore.errors import DataError
    from gamecore.tilesets import load_tile_set
    from pipelines.impact import file_language

    board = _write_zeros(tmp_path / "big.board", BOARD_FILE_MAX + 1, b".")
    with pytest.raises(DataError, match="more than 1 MiB"):
        read_board(board, load_tile_set("english"), load_layout("standard"))
    record = _write_zeros(tmp_path / "big.json", GAME_FILE_MAX + 1, b" ")
    assert file_language(str(record)) == (None, "")


# ---- replay - ---------------------------------------------------------------------------------


def test_replay_stdin_bom_crlf(tmp_path, fixtures):
    """A list written by Notepad: a BOM, CRLF line ends, a name with spaces."""
    folder = tmp_path / "sp ace"
    folder.mkdir()
    good = next(p for p in sorted((fixtures / "gcg").glob("*.gcg")) if "bonus" not in p.name)
    (folder / "my game.gcg").write_bytes(good.read_bytes())
    code, err = bounded(
        "replay",
        "-",
        "--out",
        str(tmp_path / "rp"),
        "--no-lexicon",
        "-q",
        input=b"\xef\xbb\xbfsp ace/my game.gcg\r\n\r\n",
        cwd=tmp_path,
    )
    assert "no such file" not in err and "\ufeff" not in err, err
    assert (tmp_path / "rp" / "games.parquet").is_file(), err


def test_replay_stdin_missing_file_names_the_line(tmp_path):
    code, err = bounded("replay", "-", "--out", str(tmp_path / "rp"), input=b"\xef\xbb\xbf\r\nnope.gcg\r\n", cwd=tmp_path)
    assert code == 2
    assert one_line(err) == "skrafl: error: -:2: no such file or folder: nope.gcg"


def test_replay_stdin_long_line(tmp_path):
    code, err = bounded("replay", "-", "--out", str(tmp_path / "rp"), input=b"x" * 30_000_000 + b"\n")
    assert code == 2
    assert one_line(err) == f"skrafl: error: -:1: a line of more than {LINE_CAP} bytes: expected one file or folder per line"


def test_replay_stdin_dev_zero(tmp_path):
    with open("/dev/zero", "rb") as zero:
        code, err = bounded("replay", "-", "--out", str(tmp_path / "rp"), stdin=zero, timeout=60)
    assert code == 2
    assert one_line(err).startswith("skrafl: error: -:1: a line of more than")


@pytest.mark.parametrize(
    "args",
    [
        ("check", "-"),
        ("check", "--play", "-"),
        ("why", "-"),
        ("find", "-"),
        ("judge", "--batch", "-", "-q"),
        ("score", "--batch", "-"),
    ],
    ids=lambda a: " ".join(a),
)
def test_word_and_ruling_stdin_dev_zero_ends(tmp_path, cats, args):
    """The readers that count an over-long line's characters (check -, why -, find -, judge and
    score --batch) stop counting past 16 MiB: /dev/zero ran them for ever (memory flat)."""
    if args[0] == "judge":
        args = (*args, "--log", str(tmp_path / "log.jsonl"))
    with open("/dev/zero", "rb") as zero:
        code, err = bounded(args[0], "--lexicon", str(cats), *args[1:], stdin=zero, timeout=90)
    assert code == 2
    assert one_line(err).startswith("skrafl: error: -:1: a line of more than 16 MiB"), err


def test_elo_games_stdin_dev_zero(tmp_path):
    """elo --games - held all of stdin in memory (/dev/zero: an internal MemoryError)."""
    with open("/dev/zero", "rb") as zero:
        code, err = bounded("elo", "--games", "-", "--out", str(tmp_path / "e"), stdin=zero, timeout=60)
    assert code == 2 and "NUL bytes" in one_line(err)
    assert not (tmp_path / "e").exists()


# ---- boards -----------------------------------------------------------------------------------


@pytest.mark.parametrize("stdin", [b"", b"\n \n"], ids=["empty", "blank lines"])
@pytest.mark.parametrize("fmt", ["table", "json"])
def test_best_board_stdin_without_a_position_is_no_answer(cats, stdin, fmt):
    """best --board - with no position at all printed nothing and exit 0, as if it had answered."""
    code, err = bounded("best", "--lexicon", str(cats), "--board", "-", "-f", fmt, input=stdin)
    assert code == 2 and one_line(err) == "skrafl: error: no positions in -: give one CGP position per line"


def test_best_board_stdin_dev_zero(cats):
    with open("/dev/zero", "rb") as zero:
        code, err = bounded("best", "--lexicon", str(cats), "--board", "-", stdin=zero, timeout=60)
    assert code == 2
    assert one_line(err) == "skrafl: error: -:1: a line of more than 1 MiB: not a CGP position"


def test_best_board_stdin_good_line_then_huge(cats):
    cgp = b"15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 CAT/ 0/0 0\n"
    code, err = bounded("best", "--lexicon", str(cats), "--board", "-", "-n", "1", input=cgp + b"x" * (BOARD_FILE_MAX + 1))
    assert code == 2
    assert one_line(err) == "skrafl: error: -:2: a line of more than 1 MiB: not a CGP position"


@pytest.mark.parametrize("fmt", ["gcg", "cgp"])
def test_big_board_file(tmp_path, cats, fmt):
    board = _write_zeros(tmp_path / "b.txt", BOARD_FILE_MAX + 1, b".")
    code, err = bounded("best", "--lexicon", str(cats), "--board", str(board), "--board-format", fmt, "--rack", "CAT")
    assert code == 2
    assert one_line(err).startswith(f"skrafl: error: {board}: more than 1 MiB: not a ")
    code, err = bounded("score", "--lexicon", str(cats), "--board", str(board), "--board-format", fmt, "--play", "8D CAT")
    assert code == 2
    assert one_line(err).startswith(f"skrafl: error: {board}: more than 1 MiB: not a ")


# ---- word lists and dumps ---------------------------------------------------------------------


@pytest.mark.parametrize("command", ["build", "ingest"])
def test_dump_dev_zero(tmp_path, command):
    code, err = bounded(
        command, "en", "--source", "wordlist", "--input", "/dev/zero", "--out", str(tmp_path / "o"), "-q", timeout=60
    )
    assert code == 2
    assert one_line(err).startswith("skrafl: error: /dev/zero: not a regular file")


def test_word_list_one_huge_line(tmp_path):
    """The trial's 200 MB one-line word list (3 GB peak), here 20 MB: refused after 4 KiB of it."""
    words = tmp_path / "w.txt"
    words.write_bytes(b"cat\ndog\n")
    with open(words, "ab") as f:
        f.write(b"a" * 20_000_000 + b"\n")
    code, err = bounded("build", "en", "--source", "wordlist", "--input", str(words), "--out", str(tmp_path / "o"), "-q")
    assert code == 2
    assert (
        one_line(err)
        == f"skrafl: error: {words}:3: a line of more than {LINE_CAP} bytes: not a line of a word list (one word per line)"
    )
    assert not (tmp_path / "o").exists()


def test_long_word_under_the_cap_is_dropped_by_max_length(tmp_path):
    """A word of 200 letters is still the recipe's to drop (max_length), the build goes on."""
    words = tmp_path / "w.txt"
    words.write_text("cat\ndog\n" + "a" * 200 + "\n", encoding="utf-8")
    res = run_skrafl("build", "en", "--source", "wordlist", "--input", str(words), "--out", str(tmp_path / "o"), "-q")
    assert res.returncode == 0, res.stderr
    built = (tmp_path / "o" / "words.txt").read_text(encoding="utf-8").split()
    assert "cat" in built and "a" * 200 not in built


def test_dump_readers_line_cap(tmp_path):
    """BÍN CSV, Sloleks, SCOWL and Hunspell lines are read no further than their cap."""
    from gamecore.errors import DataError
    from lexicon_sources.readers import bin_csv, hunspell, scowl, sloleks

    csv = tmp_path / "SHsnid.csv"
    csv.write_bytes(b"hestur;1;kk;alm;hestur;NFET\n" + b"x" * (DUMP_LINE_MAX + 1))
    with pytest.raises(DataError) as exc:
        list(bin_csv.read(csv, progress=False))
    assert exc.value.line == 2 and f"more than {DUMP_LINE_MAX} bytes" in exc.value.message
    with pytest.raises(DataError) as exc:
        bin_csv.sniff(_write_zeros(tmp_path / "one.csv", DUMP_LINE_MAX + 1, b";"))
    assert exc.value.line == 1

    slo = tmp_path / "sloleks.tsv"
    slo.write_bytes(b"pes\tpes\tSomei\n" + b"y" * (DUMP_LINE_MAX + 1))
    with pytest.raises(DataError) as exc:
        list(sloleks.read(slo, progress=False))
    assert exc.value.line == 2

    sc = tmp_path / "english-words.10"
    sc.write_bytes(b"cat\n" + b"z" * (LINE_CAP + 1) + b"\n")
    with pytest.raises(DataError) as exc:
        list(scowl.read(sc, progress=False))
    assert exc.value.line == 2

    (tmp_path / "x.aff").write_bytes(b"SET UTF-8\n" + b"#" * (DUMP_LINE_MAX + 1) + b"\n")
    (tmp_path / "x.dic").write_bytes(b"1\ncat\n")
    with pytest.raises(DataError) as exc:
        hunspell.load(tmp_path / "x.dic")
    assert exc.value.line == 2 and exc.value.path == str(tmp_path / "x.aff")


def test_bounded_lines_stops_at_a_long_line():
    import io

    from gamecore.text import bounded_lines

    got = list(bounded_lines(io.BytesIO(b"ab\r\n" + b"c" * 5 + b"\r\n" + b"d" * 6 + b"\nrest\n"), 5))
    assert got == [(1, b"ab\r\n"), (2, b"ccccc\r\n"), (3, None)]
    with open("/dev/zero", "rb") as zero:
        assert list(bounded_lines(zero, 1000)) == [(1, None)]


# ---- configurations, recipes, JSON nesting, one-line messages ----------------

RECIPE_HEAD = """[lexicon]
name = "t"
language = "en"
tile_set = "english"
rules = "wespa"
alphabet = "abcdefghijklmnopqrstuvwxyz"
"""


def _build_with(tmp_path: Path, recipe_text: str):
    words = tmp_path / "words.txt"
    words.write_text("cat\ndog\n", encoding="utf-8")
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(recipe_text, encoding="utf-8")
    out = tmp_path / "lex"
    code, err = bounded("build", "en", "--recipe", str(recipe), "--source", "wordlist", "--input", str(words), "--out", str(out))
    assert not out.exists()
    return code, err, recipe


def test_a_recipe_extending_dev_zero_is_one_line(tmp_path):
    """``extends = "/dev/zero"``: the recipe it names was read whole (the memory limit ended it as
    an internal error); now at most 1 MiB of it is read."""
    code, err, _ = _build_with(tmp_path, RECIPE_HEAD + 'extends = "/dev/zero"\nmin_length = 2\nmax_length = 15\n')
    assert code == 2
    assert one_line(err) == "skrafl: error: /dev/zero: more than 1 MiB: not a recipe file (a real one is a few KB)"


def test_a_5000_digit_number_in_a_recipe_is_its_line(tmp_path):
    code, err, recipe = _build_with(tmp_path, RECIPE_HEAD + "min_length = 2\nmax_length = " + "9" * 5000 + "\n")
    assert code == 2
    assert one_line(err) == f"skrafl: error: {recipe}:8: not valid TOML: a number of 5000 digits (column 14)"


@pytest.mark.parametrize("command", [["score"], ["show", "--out", "x.svg"]])
def test_deeply_nested_json_game_is_its_line(tmp_path, command):
    """A game record of 100,000 nested arrays was an internal error (RecursionError) in ``score
    --game`` and ``show --game``: now the line where it nests deeper than 64 levels."""
    game = tmp_path / "deep.json"
    game.write_text('{"moves":\n\n' + "[" * 100_000 + "]" * 100_000 + "}\n", encoding="utf-8")
    code, err = bounded(command[0], "--game", str(game), *command[1:], cwd=tmp_path)
    assert code == 2
    assert one_line(err) == f"skrafl: error: {game}:3: RECORD_MALFORMED: not a JSON game record: nested too deeply"
    assert not (tmp_path / "x.svg").exists()


def test_a_csv_header_holding_a_newline_is_one_line(tmp_path):
    """A quoted CSV header with a line break in it came back in the error as two lines."""
    games = tmp_path / "games.csv"
    games.write_text('"game\nid",finished_at\n1,2\n', encoding="utf-8")
    code, err = bounded("elo", "--games", str(games), "--out", str(tmp_path / "out"))
    assert code == 2
    line = one_line(err)
    assert len(err.splitlines()) == 1 and "game\\nid" in line, err


def test_text_helpers():
    from gamecore.text import json_too_deep, toml_loads
    from gamecore.text import one_line as flat

    assert flat("a\nb\r\nc\u2028d") == "a\\nb\\nc\\nd" and flat("plain") == "plain"
    assert json_too_deep(b"[" * 64 + b"]" * 64) is None
    assert json_too_deep(b'["' + b"[" * 100 + b'"]') is None  # brackets in a string do not count
    assert json_too_deep(b"[\n" * 65) == 65
    import tomllib

    with pytest.raises(tomllib.TOMLDecodeError, match=r"a number of 4400 digits \(at line 2, column 5\)"):
        toml_loads("a = 1\nb = " + "1" * 4400)


def test_a_nightly_config_is_read_with_a_cap(tmp_path):
    """`skrafl nightly /dev/zero` grew to 24 GB before the kernel killed it: the config is read with
    a 1 MiB cap; a 5,000-digit integer in it is a TOML error with its line, not an internal error."""
    from clirun import run_skrafl

    # the message can only come from a read that stopped at the cap (the old reader ran until the
    # kernel killed it)
    r = run_skrafl("nightly", "/dev/zero")
    assert (
        r.returncode == 2
        and r.stderr.strip() == "skrafl: error: /dev/zero: more than 1 MiB: not a nightly config file (a real one is a few KB)"
    )
    big = tmp_path / "big.toml"
    big.write_text("# a config\n[replay]\nworkers = 1" + "0" * 5000 + "\n", encoding="utf-8")
    r = run_skrafl("nightly", str(big))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"{big}:3: not valid TOML: a number of 5001 digits" in r.stderr


@pytest.mark.parametrize("command", ["nightly", "elo"])
def test_a_day_no_game_was_played_is_refused_before_any_step(tmp_path, command):
    """`nightly --date 0001-01-01` ran its first steps and then failed inside (the day before it
    does not exist): a day outside 1970-01-01..9999-12-01 is one line, exit 2, before anything."""
    from clirun import run_skrafl

    for day in ("0001-01-01", "1969-12-31", "9999-12-31"):
        args = (
            [str(tmp_path / "none.toml")]
            if command == "nightly"
            else ["--games", str(tmp_path / "g.csv"), "--out", str(tmp_path / "o")]
        )
        r = run_skrafl(command, *args, "--date", day)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert f"--date {day}: expected a day between 1970-01-01 and 9999-12-01" in r.stderr
    assert not (tmp_path / "o").exists()


def test_a_rule_set_file_is_read_with_a_cap(tmp_path):
    """A rules .toml is read as every configuration is: a 5,000-digit integer is FILE:LINE, and a
    file over 1 MiB is refused without being read whole."""
    from gamecore.errors import DataError
    from gamecore.rules import read_rules

    big = tmp_path / "r.toml"
    big.write_text('name = "x"\nbingo_bonus = 5' + "0" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(DataError) as e:
        read_rules(big)
    assert str(e.value).startswith(f"{big}:2: not valid TOML: a number of 5001 digits")
    huge = tmp_path / "huge.toml"
    huge.write_text("# " + "x" * (1 << 20) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as e:
        read_rules(huge)
    assert "more than 1 MiB" in str(e.value)
