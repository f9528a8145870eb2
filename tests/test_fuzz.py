"""No tracebacks, ever: bad input to every reader gives a :class:`~gamecore.errors.SkraflError`
(one line ``skrafl: error: FILE:LINE: ...`` and exit 2 from the CLI), never another exception.

Hypothesis mutates real files (``../shared/corpora`` GCG files and Netskrafl records, when present)
and the seeds in ``tests/fixtures/fuzz`` and ``tests/fixtures/{gcg,bin}``: inserted tokens (huge
numbers, ±2^31, NUL bytes, invalid UTF-8, superscript and Arabic-Indic digits, combining marks,
brackets, pragmas), deleted and duplicated stretches, changed bytes; Netskrafl records get fields
of the wrong type (NaN, Infinity, objects, huge integers). Every value a reader returns must fit
the int32 columns of the Parquet tables. The crash files found this way are kept in
``tests/fixtures/fuzz`` and each is checked for its error code, and through the real CLI.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clirun import run_skrafl
from conftest import FIXTURES, SHARED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamecore.errors import SkraflError
from gamecore.text import nfc

FUZZ = FIXTURES / "fuzz"
INT32 = (-(2**31), 2**31 - 1)
FAST = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))


def _files(*patterns: tuple[Path, str]) -> list[Path]:
    out: list[Path] = []
    for folder, pattern in patterns:
        if folder.is_dir():
            out.extend(sorted(folder.glob(pattern)))
    return out


GCG_SEEDS = [p.read_bytes() for p in _files((SHARED / "corpora" / "gcg", "*.gcg"), (FIXTURES / "gcg", "*.gcg"), (FUZZ, "*.gcg"))]
RECORD_SEEDS = [
    p.read_bytes() for p in _files((SHARED / "corpora" / "netskrafl" / "games", "*.json"), (FUZZ, "record_seed.json"))
]
BIN_SEEDS = [p.read_bytes() for p in _files((FIXTURES / "bin", "*small.csv"), (FUZZ, "*snid*.csv"))]
BOARD_SEEDS = [p.read_text(encoding="utf-8") for p in _files((SHARED / "corpora" / "positions", "*.board"), (FUZZ, "*.board"))]

TOKENS = [
    b"2147483647",
    b"2147483648",
    b"-2147483648",
    b"4294967296",
    b"99999999999999999999999",
    b"9" * 5000,
    b"0",
    b"-0",
    b"+5",
    b"+-7",
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\xef\xbb\xbf",
    b"\xc2\xb2",
    b"\xd9\xa3",
    b"y\xcc\x81",
    b"\xcc\x81",
    b"(",
    b")",
    b"[",
    b"]",
    b"[CH]",
    b"?",
    b".",
    b"#",
    b">",
    b":",
    b"-",
    b"--",
    b";",
    b"(time)",
    b"(challenge)",
    b"(ABC)",
    b"-ABC",
    b"-7",
    b"8D",
    b"D8",
    b"ZZ9999",
    b"99999D",
    b"A" * 200,
    b"\r",
    b"\n",
    b"\r\n",
    b" ",
    b"\t",
    b"#note x",
    b"#rack1 ABC",
    b"#player3 c C",
    b"#player1 a A",
    b"#character-encoding utf\x00",
    b"#character-encoding idna",
    b"#character-encoding UTF-8",
    b"#board-layout SuperCrosswordGame",
    b"#tile-distribution polish",
    b"#lexicon NWL20",
    b"#game-type x",
]
NUMBER = re.compile(rb"[+-]?[0-9]+")


@st.composite
def mutated(draw, seeds: list[bytes]):
    """One of ``seeds`` with 1-6 random edits."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["insert", "delete", "byte", "number", "duplicate"]))
        pos = draw(st.integers(0, len(data)))
        if op == "insert":
            data[pos:pos] = draw(st.sampled_from(TOKENS))
        elif op == "delete":
            del data[pos : pos + draw(st.integers(1, 12))]
        elif op == "byte" and data:
            data[min(pos, len(data) - 1)] = draw(st.integers(0, 255))
        elif op == "number":
            nums = list(NUMBER.finditer(bytes(data)))
            if nums:
                m = nums[draw(st.integers(0, len(nums) - 1))]
                data[m.start() : m.end()] = draw(st.sampled_from(TOKENS[:10]))
        elif op == "duplicate":
            lines = bytes(data).split(b"\n")
            i = draw(st.integers(0, len(lines) - 1))
            lines.insert(draw(st.integers(0, len(lines))), lines[i])
            data = bytearray(b"\n".join(lines))
    return bytes(data)


def _int32(rows) -> None:
    """Every integer of the rows fits int32 (the tables' column type)."""
    for row in rows:
        for key, value in row.items():
            if isinstance(value, int) and not isinstance(value, bool):
                assert INT32[0] <= value <= INT32[1], (key, value)


def _replayed(game, strict: bool) -> None:
    """Replay a parsed game (no lexicon): a bad game is an error row, never an exception, and every
    number fits int32."""
    from pipelines.replay import replay_game

    res = replay_game(game, None, None, strict=strict)
    assert "INTERNAL_ERROR" not in str(res.game_row.get("error")), res.game_row
    _int32([res.game_row, *res.move_rows])


def _game_numbers(game) -> None:
    for ev in game.events:
        for value in (ev.score, ev.cumulative, ev.count):
            assert value is None or INT32[0] <= value <= INT32[1], ev
    if game.final_scores:
        assert all(INT32[0] <= v <= INT32[1] for v in game.final_scores)


# -- GCG ----------------------------------------------------------------------------------------


@FAST
@given(mutated(GCG_SEEDS), st.booleans())
def test_fuzz_gcg(data, strict):
    from gamecore.gcg import parse_gcg_bytes

    try:
        game = parse_gcg_bytes(data, path="fuzz.gcg", strict=strict)
    except SkraflError:
        return
    _game_numbers(game)
    _replayed(game, strict)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40), min_size=1, max_size=6), st.booleans())
def test_fuzz_gcg_random_lines(lines, strict):
    from gamecore.gcg import parse_gcg_text

    text = "#player1 a A\n#player2 b B\n" + "\n".join(">a: " + x if i % 2 == 0 else x for i, x in enumerate(lines))
    try:
        game = parse_gcg_text(text, path="fuzz.gcg", strict=strict)
    except SkraflError:
        return
    _game_numbers(game)


# -- Netskrafl records --------------------------------------------------------------------------

ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**31, -(2**31), 2**63, 10**30]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(
        [
            "",
            "H8",
            "9H",
            "H²",
            "٣H",
            "H99999",
            "PASS",
            "EXCH ab",
            "EXCH",
            "RESP",
            "CHALL",
            "RSGN",
            "?",
            "??",
            "a?",
            "?ý",
            "y\u0301f",
            "\x00",
            "ab?",
        ]
    ),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
RECORD_KEYS = [
    "prefs",
    "score0",
    "score1",
    "game_id",
    "irack0",
    "irack1",
    "moves",
    "rack0_final",
    "rack1_final",
    "ts_last_move",
    "locale",
    "manual",
    "robot0",
    "robot1",
]


@FAST
@given(
    st.sampled_from(RECORD_SEEDS),
    st.lists(
        st.tuples(
            st.sampled_from(["top", "move", "drop", "prefs"]),
            st.sampled_from(RECORD_KEYS),
            st.sampled_from(["player", "coord", "tiles", "score", "rack"]),
            ODD,
            st.integers(0, 200),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_fuzz_netskrafl_record(seed, edits):
    from gamecore.netskrafl_record import parse_netskrafl_record

    data = json.loads(seed)
    for where, key, field, value, k in edits:
        moves = data.get("moves") if isinstance(data.get("moves"), list) else []
        if where == "top":
            data[key] = value
        elif where == "prefs" and isinstance(data.get("prefs"), dict):
            data["prefs"][field] = value
        elif moves and isinstance(moves[k % len(moves)], dict):
            if where == "drop":
                moves[k % len(moves)].pop(field, None)
            else:
                moves[k % len(moves)][field] = value
    try:
        game = parse_netskrafl_record(data, path="fuzz.json")
    except SkraflError:
        return
    _game_numbers(game)
    _replayed(game, False)


@FAST
@given(mutated(RECORD_SEEDS))
def test_fuzz_netskrafl_record_text(data):
    import tempfile

    from gamecore.netskrafl_record import read_netskrafl_record

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "r.json"
        p.write_bytes(data)
        try:
            game = read_netskrafl_record(p)
        except SkraflError:
            return
    _game_numbers(game)


# -- boards, CGP, racks -------------------------------------------------------------------------

CHARS = st.sampled_from(
    list(".?[]/0123456789²٣ ABCÞÆÐÖabcþæðöß\u0301\u0328\x00\n\r\t;-+·") + ["[CH]", "[L·L]", "99999", "9" * 50, "y\u0301"]
)
SNIPPET = st.lists(CHARS, max_size=8).map("".join)


def _rule_sets():
    from gamecore.rules import load_rules

    return [load_rules(n) for n in ("netskrafl", "wespa", "erudit", "slovene")]


RULES = _rule_sets()


@FAST
@given(
    st.sampled_from(BOARD_SEEDS or ["." * 15 + "\n"] * 15),
    st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20), SNIPPET, st.integers(0, 3)), min_size=1, max_size=4),
    st.sampled_from(RULES),
    st.sampled_from(["gcg", "netskrafl", "cgp"]),
)
def test_fuzz_board_text(seed, edits, rules, fmt):
    from gamecore.board import parse_board_text

    lines = seed.split("\n")
    for r, c, snippet, cut in edits:
        j = r % len(lines)
        lines[j] = lines[j][:c] + snippet + lines[j][c + cut :]
    try:
        parse_board_text("\n".join(lines), rules.tiles(), rules.layout(), fmt)
    except SkraflError:
        pass


ROW = st.one_of(st.sampled_from(["15", "7A7", "3ÞRÖ9", "0", "16", "99999", "²", "٣", "[CH]14", "a14", "7?7"]), SNIPPET)


@FAST
@given(
    st.lists(ROW, min_size=1, max_size=22),
    SNIPPET,
    st.sampled_from(["0/0", "1/2", "-5/9", "2147483648/0", "99999999999999/1", "²/1", "1"]),
    st.sampled_from(["0", "3", "-1", "99999", "²", "x"]),
    SNIPPET,
    st.sampled_from(RULES),
)
def test_fuzz_cgp(rows, racks, scores, zeros, ops, rules):
    from gamecore.board import parse_cgp

    try:
        pos = parse_cgp(f"{'/'.join(rows)} {racks} {scores} {zeros} {ops}", rules.tiles(), rules.layout())
    except SkraflError:
        return
    assert all(INT32[0] <= s <= INT32[1] for s in pos.scores)


@FAST
@given(st.one_of(SNIPPET, st.text(max_size=12)), st.sampled_from(RULES))
def test_fuzz_rack(text, rules):
    ts = rules.tiles()
    for parse in (ts.parse_rack, lambda t: ts.split_word(t, allow="?."), lambda t: ts.parse_rack(t, check_counts=False)):
        try:
            parse(text)
        except SkraflError:
            pass


# -- word lists and BÍN CSV ---------------------------------------------------------------------


@FAST
@given(st.one_of(st.binary(max_size=60), mutated([(FUZZ / "words_seed.txt").read_bytes()])))
def test_fuzz_word_lists(data):
    import tempfile

    from lexicon_sources.readers import ordbank_fullform, sloleks, wordlist
    from pipelines.recipe import read_word_list

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "w.txt"
        p.write_bytes(data)
        for read in (
            lambda: list(wordlist.read(p, progress=False)),
            lambda: read_word_list(p),
            lambda: list(sloleks.read(p, progress=False)),
            lambda: list(ordbank_fullform.read(p, progress=False)),
        ):
            try:
                read()
            except SkraflError:
                pass


FIELD = st.one_of(
    st.sampled_from(
        [
            "6179",
            "0",
            "-1",
            "2147483647",
            "2147483648",
            "-2147483649",
            "127",
            "128",
            "-129",
            "99999999999999999999999",
            "²",
            "٣",
            "1_0",
            " 5",
            "",
            "hestur",
            "y\u0301f",
            "K",
        ]
    ),
    st.text(max_size=5),
)


@FAST
@given(
    st.one_of(
        mutated(BIN_SEEDS),
        st.lists(st.lists(FIELD, min_size=5, max_size=16).map(";".join), min_size=1, max_size=4).map(
            lambda ls: ("\n".join(ls) + "\n").encode("utf-8", "surrogatepass")
        ),
    )
)
def test_fuzz_bin_csv(data):
    import tempfile

    from lexicon_sources.readers import bin_csv

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "SHsnid.csv"
        p.write_bytes(data)
        try:
            batches = list(bin_csv.read(p, progress=False))
        except SkraflError:
            return
    for b in batches:
        for name in ("bin_id", "cross_ref", "grade", "form_grade"):
            assert all(v is None or INT32[0] <= v <= INT32[1] for v in b.column(name).to_pylist())


# -- the crash files found, each with its error ---------------------------------------------------

GCG_CRASHES = {
    "score_2p31.gcg": "SCORE_OUT_OF_RANGE",
    "cumulative_below_int32.gcg": "SCORE_OUT_OF_RANGE",
    "score_5000_digits.gcg": "SCORE_OUT_OF_RANGE",
    "scores_add_up_beyond_int32.gcg": "SCORE_OUT_OF_RANGE",
    "exchange_superscript.gcg": "RACK_MALFORMED",
    "coordinate_11_digits.gcg": "COORDINATE_OUT_OF_BOUNDS",
}


@pytest.mark.parametrize("name,code", sorted(GCG_CRASHES.items()))
def test_gcg_crash_files(name, code):
    from gamecore.gamelog import GameLogError
    from gamecore.gcg import read_gcg

    with pytest.raises(GameLogError) as err:
        read_gcg(FUZZ / name)
    assert err.value.code == code and err.value.line is not None
    with pytest.raises(GameLogError):  # strict: this fault or an earlier one (no #player lines)
        read_gcg(FUZZ / name, strict=True)


def test_gcg_encoding_pragma_nul_and_odd_codecs():
    from gamecore.gamelog import GameLogError
    from gamecore.gcg import read_gcg

    game = read_gcg(FUZZ / "encoding_idna.gcg")  # lenient: a warning, read as ISO-8859-1
    assert game.encoding == "iso-8859-1" and "UNSUPPORTED_CHARACTER_ENCODING" in {w.code for w in game.warnings}
    for name in ("encoding_nul.gcg", "encoding_idna.gcg"):
        with pytest.raises(GameLogError) as err:
            read_gcg(FUZZ / name, strict=True)
        assert err.value.code == "UNSUPPORTED_CHARACTER_ENCODING"
    with pytest.raises(GameLogError):  # lenient: the NUL byte makes it binary data
        read_gcg(FUZZ / "encoding_nul.gcg")


RECORD_CRASHES = {
    "record_prefs_string.json": "RECORD_MALFORMED",
    "record_prefs_list.json": "RECORD_MALFORMED",
    "record_prefs_number.json": "RECORD_MALFORMED",
    "record_score_infinity.json": "RECORD_MALFORMED",
    "record_score_nan.json": "RECORD_MALFORMED",
    "record_final_infinity.json": "RECORD_MALFORMED",
    "record_player_infinity.json": "RECORD_MALFORMED",
    "record_score_2p31.json": "SCORE_OUT_OF_RANGE",
    "record_final_2p31.json": "SCORE_OUT_OF_RANGE",
    "record_coord_superscript.json": "NO_MATCHING_TOKEN",
    "record_game_id_object.json": "RECORD_MALFORMED",
}


@pytest.mark.parametrize("name,code", sorted(RECORD_CRASHES.items()))
def test_record_crash_files(name, code):
    from gamecore.gamelog import GameLogError
    from gamecore.netskrafl_record import parse_netskrafl_record, read_netskrafl_record

    with pytest.raises(GameLogError) as err:
        read_netskrafl_record(FUZZ / name)
    # NaN and Infinity are not JSON: the file reader refuses them; the record parser (used by the
    # replay after its own json.loads, which accepts them) refuses them as numbers
    assert err.value.code in (code, "RECORD_MALFORMED")
    data = json.loads((FUZZ / name).read_text(encoding="utf-8"))
    with pytest.raises(GameLogError) as err:
        parse_netskrafl_record(data, path=name)
    assert err.value.code == code


def test_record_seed_reads():
    from gamecore.netskrafl_record import read_netskrafl_record

    game = read_netskrafl_record(FUZZ / "record_seed.json")
    assert [e.kind for e in game.events] == ["play", "play", "exchange", "pass", "play", "challenge", "withdraw", "resign"]
    assert game.events[4].word == ["Á", "R", "u", "M"]


@pytest.mark.parametrize(
    "name,line,field",
    [
        ("SHsnid_id_2p31.csv", 2, "bin_id"),
        ("KRsnid_id_2p31.csv", 2, "bin_id"),
        ("KRsnid_grade_128.csv", 1, "grade"),
        ("SHsnid_id_superscript.csv", 1, "bin_id"),
    ],
)
def test_bin_csv_out_of_range(name, line, field):
    from gamecore.errors import DataError
    from lexicon_sources.readers import bin_csv

    with pytest.raises(DataError) as err:
        list(bin_csv.read(FUZZ / name, progress=False))
    assert err.value.line == line and err.value.path.endswith(name) and field in err.value.message


def test_bin_csv_bounds_accept_the_largest():
    import tempfile

    from lexicon_sources.readers import bin_csv

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "SHsnid.csv"
        p.write_text("hestur;2147483647;kk;alm;hests;EFET\n", encoding="utf-8")
        (batch,) = bin_csv.read(p, progress=False)
    assert batch.column("bin_id").to_pylist() == [2**31 - 1]


def test_board_and_cgp_crashes():
    from gamecore.board import parse_cgp
    from gamecore.errors import DataError

    rules = RULES[0]
    for cgp in (
        "²" + "/15" * 14 + " A/ 0/0 0",
        "15/" * 14 + "15 A/ 2147483648/0 0",
        "99999" + "/15" * 14,
        "15/" * 14 + "15 A/ 0/0 99999999999999999999",
    ):
        with pytest.raises(DataError):
            parse_cgp(cgp, rules.tiles(), rules.layout())


def test_recipe_cycles_and_types(tmp_path):
    from gamecore.errors import DataError
    from pipelines.recipe import load_recipe

    (tmp_path / "a.toml").write_text('[lexicon]\nextends = "b.toml"\n', encoding="utf-8")
    (tmp_path / "b.toml").write_text('[lexicon]\nextends = "a.toml"\n', encoding="utf-8")
    with pytest.raises(DataError, match="circle"):
        load_recipe(tmp_path / "a.toml")
    base = 'name="x"\nlanguage="is"\ntile_set="t"\nrules="r"\nalphabet="ab"\nmax_length=3\n'
    for bad in ('min_length="x"', "min_length=[1]", "min_length=2.5", 'min_length=2\nwhy_columns="a"'):
        (tmp_path / "c.toml").write_text(f"[lexicon]\n{base}{bad}\n", encoding="utf-8")
        with pytest.raises(DataError):
            load_recipe(tmp_path / "c.toml")
    (tmp_path / "c.toml").write_text(f"[lexicon]\n{base}min_length=2\n[fold]\nx = 1\n", encoding="utf-8")
    with pytest.raises(DataError, match="fold"):
        load_recipe(tmp_path / "c.toml")


# -- the real CLI -------------------------------------------------------------------------------


def _one_error_line(r) -> None:
    assert r.returncode in (0, 1, 2), r
    assert "Traceback" not in r.stderr, r.stderr
    if r.returncode == 2:
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("skrafl: error: "), r.stderr


def test_cli_replay_crash_files(tmp_path):
    """Every crash file through ``skrafl replay``: one error row each, no traceback; the files that
    can be read are replayed (exit 0)."""
    import polars as pl

    files = sorted(FUZZ / n for n in [*GCG_CRASHES, *RECORD_CRASHES, "seed_is.gcg", "record_seed.json", "encoding_idna.gcg"])
    out = tmp_path / "out"
    r = run_skrafl("replay", *map(str, files), "--out", str(out), "--no-lexicon", "--quiet")
    _one_error_line(r)
    assert r.returncode in (0, 1), r.stderr  # 1: some games are errors
    games = pl.read_parquet(out / "games.parquet")
    by = {Path(f).name: (s, e) for f, s, e in games.select("file", "status", "error").iter_rows()}
    for name, code in {**GCG_CRASHES, **RECORD_CRASHES}.items():
        status, error = by[name]
        assert status == "error" and error.startswith(code), (name, error)


def test_cli_replay_one_bad_file_is_one_error_line(tmp_path):
    r = run_skrafl("replay", str(FUZZ / "score_2p31.gcg"), "--out", str(tmp_path / "o"), "--no-lexicon")
    _one_error_line(r)
    assert r.returncode == 2 and "SCORE_OUT_OF_RANGE" in r.stderr


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(mutated(GCG_SEEDS), min_size=4, max_size=8), st.lists(mutated(RECORD_SEEDS), min_size=2, max_size=4))
def test_cli_replay_fuzzed_files(tmp_path_factory, gcgs, records):
    d = tmp_path_factory.mktemp("fz")
    for i, data in enumerate(gcgs):
        (d / f"g{i}.gcg").write_bytes(data)
    for i, data in enumerate(records):
        (d / f"r{i}.json").write_bytes(data)
    r = run_skrafl("replay", str(d), "--out", str(d / "out"), "--no-lexicon", "--quiet")
    _one_error_line(r)


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--lang", "is", "\u0301"],
        ["check", "--lang", "is", "x" * 100_000],
        ["check", "--lang", "is", "ab\tc", "[CH]", "?"],
        ["best", "--lang", "is", "--board", str(FUZZ / "board_seed.board"), "--rack", "²٣"],
        ["best", "--lang", "is", "--board", str(FUZZ / "board_seed.board"), "--rack", "ÁÁÁÁÁÁÁÁÁÁÁÁ"],
        ["best", "--lang", "is", "--board", str(FUZZ / "score_2p31.gcg"), "--rack", "ABC"],
        ["best", "--lang", "is", "--board-format", "cgp", "--board", "²" + "/15" * 14 + " A/ 0/0 0"],
        ["best", "--lang", "is", "--board-format", "cgp", "--board", "15/" * 14 + "15 A/ 2147483648/0 0"],
        ["ingest", "is", "--source", "bin-sh", "--input", str(FUZZ / "SHsnid_id_2p31.csv")],
    ],
)
def test_cli_bad_input_one_line(args, tmp_path):
    if args[0] == "ingest":
        args = [*args, "--out", str(tmp_path / "entries"), "-q"]
    r = run_skrafl(*args, output_root=tmp_path / "nowhere" if args[0] == "ingest" else None)
    _one_error_line(r)
    if "²" in " ".join(args) or "2147483648" in " ".join(args) or "ÁÁÁÁ" in " ".join(args) or args[0] == "ingest":
        assert r.returncode == 2, r.stderr
    if args[0] == "ingest":
        assert "SHsnid_id_2p31.csv:2: field bin_id" in r.stderr


def test_cli_stdin_not_utf8():
    import subprocess
    import sys

    from clirun import PROJECT_ROOT

    r = subprocess.run(
        [sys.executable, "-m", "cli.main", "check", "--lang", "is", "-"],
        cwd=PROJECT_ROOT,
        input="hestur\n".encode() + b"\xff\xfe\x00\n",
        capture_output=True,
        timeout=120,
    )
    r = subprocess.CompletedProcess(
        r.args, r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")
    )
    _one_error_line(r)
    assert r.returncode == 2
    if "no lexicon" not in r.stderr:
        assert "-:2: not UTF-8" in r.stderr


# -- dictionary dumps: Hunspell, OpenCorpora XML, Ordbank, Sloleks -------------------------------

LANG = FIXTURES / "lang"
DUMP_TOKENS = [
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\n",
    b"\t",
    b"SFX",
    b"PFX",
    b"A Y 1",
    b"0",
    b"2147483648",
    b"99999999999999999999",
    b"[",
    b"]",
    b"\\",
    b".",
    b"*",
    b"/",
    b"FLAG long",
    b"FLAG num",
    b"SET ISO8859-2",
    b"SET nonsense",
    b"<",
    b">",
    b"&",
    b"&a;",
    b'encoding="utfX-8"',
    b"<lemma>",
    b"</f>",
    b"y\xcc\x81",
    b"\xc2\xb2",
]


@st.composite
def dump_mutated(draw, data: bytes):
    data = bytearray(data)
    for _ in range(draw(st.integers(1, 5))):
        pos = draw(st.integers(0, len(data)))
        if draw(st.booleans()):
            data[pos:pos] = draw(st.sampled_from(DUMP_TOKENS))
        else:
            del data[pos : pos + draw(st.integers(1, 10))]
    return bytes(data)


def _seed(path: Path) -> bytes:
    return path.read_bytes() if path.is_file() else b""


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    dump_mutated(_seed(LANG / "sl" / "sl_small.dic")),
    dump_mutated(_seed(LANG / "sl" / "sl_small.aff")),
    st.booleans(),
    st.booleans(),
)
def test_fuzz_hunspell(dic, aff, keep_dic, keep_aff):
    import tempfile

    pytest.importorskip("spylls")
    from lexicon_sources.readers import hunspell

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "x.dic").write_bytes(_seed(LANG / "sl" / "sl_small.dic") if keep_dic else dic)
        (Path(tmp) / "x.aff").write_bytes(_seed(LANG / "sl" / "sl_small.aff") if keep_aff and not keep_dic else aff)
        try:
            batches = list(hunspell.read(Path(tmp) / "x.dic", progress=False))
        except SkraflError:
            return
    for b in batches:  # every form is text pyarrow could store, in NFC
        assert all(f == nfc(f) for f in b.column("form").to_pylist())


@FAST
@given(
    dump_mutated(_seed(LANG / "ru" / "dict.opcorpora_small.xml")),
    dump_mutated(_seed(LANG / "nb" / "fullformsliste_small.txt")),
    dump_mutated(_seed(LANG / "sl" / "sloleks_small.tsv")),
)
def test_fuzz_text_dumps(xml, fullform, sloleks_tsv):
    import tempfile

    from lexicon_sources.readers import opencorpora_xml, ordbank_fullform, sloleks

    with tempfile.TemporaryDirectory() as tmp:
        for name, data, reader in (
            ("d.xml", xml, opencorpora_xml),
            ("f.txt", fullform, ordbank_fullform),
            ("s.tsv", sloleks_tsv, sloleks),
        ):
            p = Path(tmp) / name
            p.write_bytes(data)
            try:
                list(reader.read(p, progress=False))
            except SkraflError:
                pass


def test_hunspell_affix_file_not_in_its_encoding(tmp_path):
    """spylls reads undecodable bytes of the .aff as surrogates; they reached pyarrow as a
    UnicodeEncodeError. Now the first bad line is named."""
    pytest.importorskip("spylls")
    from gamecore.errors import DataError
    from lexicon_sources.readers import hunspell

    aff = _seed(LANG / "sl" / "sl_small.aff")
    if not aff:
        pytest.skip("no Slovenian fixture")
    (tmp_path / "x.dic").write_bytes(_seed(LANG / "sl" / "sl_small.dic"))
    lines = aff.split(b"\n")
    k = next(i for i, line in enumerate(lines) if line.startswith(b"SFX") and b" ama " in line)  # a suffix rule
    lines[k] = lines[k].replace(b" ama ", b" am\xff ")
    (tmp_path / "x.aff").write_bytes(b"\n".join(lines))
    with pytest.raises(DataError) as err:
        list(hunspell.read(tmp_path / "x.dic", progress=False))
    assert err.value.path.endswith("x.aff") and err.value.line == k + 1


def test_opencorpora_xml_unknown_encoding(tmp_path):
    from gamecore.errors import DataError
    from lexicon_sources.readers import opencorpora_xml

    p = tmp_path / "d.xml"
    p.write_bytes(b'<?xml version="1.0" encoding="utfX-8"?>\n<dictionary><lemmata></lemmata></dictionary>\n')
    with pytest.raises(DataError):
        list(opencorpora_xml.read(p, progress=False))


# ---- recipe conditions: 300 seeded mutants of the real `when`s ----------------


def test_fuzz_recipe_conditions(tmp_path):
    """300 seeded mutants of every real ``[[drop]] when`` (lexicon_sources/*/*.toml), with table
    functions, subqueries, quotes, comments and casts put in: each recipe is read and applied to
    entries holding the columns the rules read; every outcome is a condition applied or a
    :class:`SkraflError` (one line), never another exception, and the file a mutant names in
    ``read_csv``/``read_parquet`` is never read (its first line is in no message)."""
    import random
    import tomllib

    import polars as pl

    from pipelines.build import classify
    from pipelines.recipe import load_recipe

    root = Path(__file__).resolve().parents[1] / "lexicon_sources"
    whens = [r["when"] for p in sorted(root.glob("*/*.toml")) for r in tomllib.loads(p.read_text("utf-8")).get("drop", [])]
    secret = tmp_path / "secret.csv"
    secret.write_text("s3cr3t_line\nx\n", encoding="utf-8")
    tokens = [
        f"read_csv('{secret}')",
        f"form IN (SELECT * FROM read_parquet('{secret}'))",
        f"(SELECT column_1 FROM read_csv('{secret}'))",
        " OR ", "(", ")", "'", "''", '"', "--", "/*", ";", "::", "$$", "`", "\\", "MAX(", "OVER ()",
        "9" * 30, "\n", "NULL", "form", "CASE WHEN ", " END", ",", "*", "x.y", "E'a'", "||", "%",
    ]  # fmt: skip
    text_columns = "category spelling tag domain visibility register word_class tags last_suffix stem_flags source edit_state grammemes pos case_ number lexeme msd"
    columns = {c: ["words", "ABBR", None] for c in text_columns.split()}
    columns.update(
        form=["cat", "Dog", "x-y"], lemma=["cat", "dog", "x"], word=["cat", "dog", "x-y"], row=[1, 2, 3], grade=[1, None, 2],
        frequency=[5, 20, None], level=[10, 95, 50], corpus_cell=[0, 1, 2], corpus_other=[300, 0, 5],
        s_variant=[True, False, None], lemma_in_hunspell=[False, True, True],
    )  # fmt: skip
    entries = pl.DataFrame(columns)
    head = '[lexicon]\nname = "t"\nlanguage = "en"\ntile_set = "english"\nrules = "wespa"\nalphabet = "abcdefghijklmnopqrstuvwxyz"\nmin_length = 2\nmax_length = 15\n'
    rng = random.Random(2024)
    outcomes = {"refused": 0, "error": 0, "applied": 0}
    recipe = tmp_path / "recipe.toml"
    for n in range(300):
        chars = list(rng.choice(whens))
        for _ in range(rng.randint(1, 4)):
            op, i = rng.randrange(3), rng.randrange(len(chars) + 1)
            if op == 0:
                chars[i:i] = list(rng.choice(tokens))
            elif op == 1:
                del chars[i : i + rng.randint(1, 6)]
            else:
                chars[i:i] = chars[rng.randrange(len(chars)) :][: rng.randint(1, 10)]
        when = "".join(chars)
        recipe.write_text(head + f'[[drop]]\nrule = "r{n}"\nwhen = {json.dumps(when)}\n', encoding="utf-8")
        try:
            loaded = load_recipe(recipe)
        except SkraflError as exc:
            assert "s3cr3t_line" not in str(exc)
            outcomes["refused"] += 1
            continue
        assert not re.search(r"read_\w+\s*\(|\bselect\b", when, re.IGNORECASE) or "'" in when, when
        try:
            classify(entries, loaded, None)
            outcomes["applied"] += 1
        except SkraflError as exc:
            assert "s3cr3t_line" not in str(exc), when
            outcomes["error"] += 1
    assert outcomes["refused"] >= 100 and outcomes["applied"] >= 10, outcomes
