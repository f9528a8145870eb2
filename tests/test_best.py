"""Best plays: the move generator against independent oracles, the robots, and ``skrafl best``.

Oracles (tests/bruteforce.py, built only on gamecore.play.validate_placements): a brute force over
every placement of rack tiles (small boards), and a word-fit search (every word at every span). The
shared reference move lists (three engines agree) and the issue's fixed scores are the external truth.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from bruteforce import brute_force_moves, word_fit_moves
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamecore.board import Board, read_board
from gamecore.boards import BoardLayout, load_layout
from gamecore.play import Placement, ScoredPlay, apply_play, validate_placements, validate_play
from gamecore.rules import load_rules

WESPA = load_rules("wespa")
EN = WESPA.tiles()
ALPHABET = list(EN.letters)
PROJECT = Path(__file__).resolve().parents[1]


def _movegen():
    return pytest.importorskip("gamecore.movegen", reason="the move generator has not landed yet")


def _kwg(words):
    from gamecore.kwg import Kwg

    return Kwg.from_words(sorted({w.lower() for w in words}), "abcdefghijklmnopqrstuvwxyz")


def generated(board, rack, words, rules=WESPA):
    """{placements: score} from the compiled generator through the best.py adapter."""
    _movegen()
    from gamecore.best import generate_plays

    plays = generate_plays(board, rack, _kwg(words), ALPHABET, rules)
    out: dict = {}
    for p in plays:
        key = p.placements()
        assert key not in out, f"generated twice: {p.coord} {p.word_text()}"
        out[key] = p
    return out


def empty(layout=None, rules=WESPA) -> Board:
    return Board(layout or rules.layout(), rules.tiles())


def put(board, play):
    return apply_play(board, validate_play(board, play, None, None, WESPA))


# ---- the fixed scores ---------------------------------------------------------------------

TINY = [
    "retsina",
    "stainer",
    "nastier",
    "retains",
    "word",
    "rootworm",
    "quirky",
    "odalique",
    "hey",
    "haze",
    "ax",
    "ex",
    "xi",
    "za",
    "ta",
    "at",
    "re",
    "er",
]


def _top(board, rack):
    from gamecore.best import sort_plays

    return sort_plays(list(generated(board, EN.parse_rack(rack), TINY).values()))


def test_retsina_66_among_the_top_on_the_empty_board():
    plays = _top(empty(), "AEINRST")
    assert plays[0].score == 66 or any(p.score == 66 for p in plays[:10])
    assert any(p.coord == "8D" and p.word_text() == "RETSINA" and p.score == 66 for p in plays)
    assert plays[0].score >= 66


def test_rootworm_102():
    plays = _top(put(empty(), "8E WORD"), "MOOORRT")
    assert (plays[0].coord, plays[0].word_text(), plays[0].score) == ("E4", "ROOTWORM", 102)


def test_odalique_86():
    plays = _top(put(empty(), "8E QUIRKY"), "AEIOULD")
    assert (plays[0].coord, plays[0].word_text(), plays[0].score) == ("E3", "ODALIQUE", 86)


def test_one_tile_both_ways_34():
    b = put(put(empty(), "8F HEY"), "F8 .AZE")
    plays = _top(b, "GNX")
    top = plays[0]
    assert top.score == 34 and top.tiles_placed == 1 and top.placements() == {Placement(8, 6, "X")}
    assert sum(1 for p in plays if p.placements() == top.placements()) == 1


# ---- the shared reference move lists -------------------------------------------------------------------


def _positions(shared):
    pos = shared / "corpora" / "positions"
    with open(pos / "positions.tsv", encoding="utf-8") as fh:
        return pos, list(csv.DictReader(fh, delimiter="\t"))


def _reference(pos, row, board, rack):
    ref = {}
    with open(pos / row["moves"], encoding="utf-8") as fh:
        for m in csv.DictReader(fh, delimiter="\t"):
            sp = validate_play(board, (m["coord"], m["word"]), rack, None, WESPA)
            ref[sp.placements()] = int(m["score"])
    return ref


@pytest.mark.parametrize("name", ["mid2_b0", "mid1_b1", "open3_b0"])
def test_word_fit_oracle_reproduces_reference_lists(shared, name):
    pos, rows = _positions(shared)
    row = next(r for r in rows if r["name"] == name)
    board = read_board(pos / row["board"], EN, load_layout("standard"))
    rack = EN.parse_rack(row["rack"])
    words = (pos / row["lexicon"]).read_text(encoding="utf-8").split()
    got = {k: v.score for k, v in word_fit_moves(board, rack, words, WESPA).items()}
    assert got == _reference(pos, row, board, rack)


@pytest.mark.parametrize("name", ["mid2_b0", "mid1_b1", "open3_b0"])
def test_generator_reproduces_reference_lists(shared, name):
    pos, rows = _positions(shared)
    row = next(r for r in rows if r["name"] == name)
    board = read_board(pos / row["board"], EN, load_layout("standard"))
    rack = EN.parse_rack(row["rack"])
    words = (pos / row["lexicon"]).read_text(encoding="utf-8").split()
    got = generated(board, rack, words)
    ref = _reference(pos, row, board, rack)
    assert {k: v.score for k, v in got.items()} == ref
    assert all(p.tiles_placed == len(k) for k, p in got.items())


# ---- property tests on small random boards ----------------------------------------------------------

SMALL = BoardLayout(
    name="small7",
    size=7,
    letter_mult=(
        (1, 1, 3, 1, 3, 1, 1),
        (1, 2, 1, 1, 1, 2, 1),
        (3, 1, 1, 1, 1, 1, 3),
        (1, 1, 1, 1, 1, 1, 1),
        (3, 1, 1, 1, 1, 1, 3),
        (1, 2, 1, 1, 1, 2, 1),
        (1, 1, 3, 1, 3, 1, 1),
    ),
    word_mult=(
        (3, 1, 1, 1, 1, 1, 3),
        (1, 1, 1, 2, 1, 1, 1),
        (1, 1, 2, 1, 2, 1, 1),
        (1, 2, 1, 2, 1, 2, 1),
        (1, 1, 2, 1, 2, 1, 1),
        (1, 1, 1, 2, 1, 1, 1),
        (3, 1, 1, 1, 1, 1, 3),
    ),
    start=(3, 3),
)
LETTERS = "AEIRSTZ"
SMALL_RULES = WESPA.replace(rack_size=5, bingo_bonus=50)  # a 5-tile "bingo" exercises the bonus on 7×7

words_st = st.lists(st.text(alphabet=LETTERS, min_size=2, max_size=5), min_size=3, max_size=30, unique=True)


@st.composite
def positions(draw, max_rack: int, max_blanks: int):
    words = draw(words_st)
    board = empty(SMALL, SMALL_RULES)
    for _ in range(draw(st.integers(0, 3))):
        rack = draw(st.lists(st.sampled_from(LETTERS), min_size=2, max_size=5))
        moves = sorted(word_fit_moves(board, rack, words, SMALL_RULES).values(), key=ScoredPlay.sort_key)
        if not moves:
            continue
        board = apply_play(board, moves[draw(st.integers(0, len(moves) - 1))])
    n_blanks = draw(st.integers(0, max_blanks))
    rack = draw(st.lists(st.sampled_from(LETTERS), min_size=1, max_size=max_rack - n_blanks)) + ["?"] * n_blanks
    return board, rack, words


def _as_scores(found):
    return {k: v.score for k, v in found.items()}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_rack=3, max_blanks=1))
def test_word_fit_equals_brute_force_over_all_placements(pos):
    board, rack, words = pos
    wordset = {w.lower() for w in words}
    brute = brute_force_moves(board, rack, wordset, SMALL_RULES, blank_letters=LETTERS)
    assert _as_scores(word_fit_moves(board, rack, words, SMALL_RULES)) == _as_scores(brute)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_rack=5, max_blanks=2))
def test_generator_misses_nothing_and_every_play_validates(pos):
    board, rack, words = pos
    got = generated(board, rack, words, SMALL_RULES)
    wordset = {w.lower() for w in words}
    for key, play in got.items():
        again = validate_placements(board, key, rack, wordset, SMALL_RULES)
        assert again.score == play.score, (play.coord, play.word_text())
        # the written form (GCG coordinate + word, '.' for board tiles) reads back as the same play
        written = validate_play(board, (play.coord, play.word_text(through=".")), rack, wordset, SMALL_RULES)
        assert (written.placements(), written.score) == (key, play.score)
    assert _as_scores(got) == _as_scores(word_fit_moves(board, rack, words, SMALL_RULES))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_rack=3, max_blanks=1))
def test_generator_equals_brute_force_on_tiny_racks(pos):
    board, rack, words = pos
    brute = brute_force_moves(board, rack, {w.lower() for w in words}, SMALL_RULES, blank_letters=LETTERS)
    assert _as_scores(generated(board, rack, words, SMALL_RULES)) == _as_scores(brute)


# ---- robots ---------------------------------------------------------------------------------------------


def _fake(score, word, tiles=2, row=0):
    from gamecore.board import Tile

    return ScoredPlay(row, 0, True, tuple(Tile(ch) for ch in word), (True,) * len(word), score, tiles, (word.lower(),))


def test_robots_pick_as_netskrafl_says():
    from gamecore.best import robot_pick

    plays = [_fake(50, "ZZZZ"), _fake(40, "ABCD"), _fake(40, "EFGH"), _fake(30, "XY")] + [
        _fake(20 - i, "WORD", row=i) for i in range(40)
    ]
    assert robot_pick(plays, "fullsterkur", None, 1) is plays[0]
    vocab = {"abcd", "efgh", "word"}
    picks = {id(robot_pick(plays, "midlungur", vocab, s)) for s in range(200)}
    allowed = [plays[1]] + [plays[3]] + plays[4:22]  # EFGH ties ABCD (skipped); XY is two letters
    assert picks <= {id(p) for p in allowed} and len(picks) > 10
    assert robot_pick(plays, "amlodi", vocab, 7) is robot_pick(plays, "amlodi", vocab, 7)
    assert robot_pick([], "midlungur", vocab, 1) is None


def test_robots_pick_from_the_faqs_numbers_when_asked():
    """Netskrafl's FAQ says Miðlungur picks among the top 10 and Amlóði among 20 (its code: 20 and
    30, our default); --pick-from gives the FAQ's numbers."""
    from gamecore.best import robot_pick

    plays = [_fake(100 - i, "WORD", row=i) for i in range(60)]
    for robot, faq in (("midlungur", 10), ("amlodi", 20)):
        picks = {id(robot_pick(plays, robot, None, s, pick_from=faq)) for s in range(400)}
        assert picks == {id(p) for p in plays[:faq]}, robot  # every one of the top N, nothing below
    default = {id(robot_pick(plays, "midlungur", None, s)) for s in range(400)}
    assert default == {id(p) for p in plays[:20]}
    assert robot_pick(plays, "fullsterkur", None, 1, pick_from=5) is plays[0]  # the best play, always


# ---- the command ------------------------------------------------------------------------------------------


def _skrafl(*args, **kw):
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True, cwd=PROJECT, **kw)


@pytest.fixture(scope="module")
def tiny_lexicon(tmp_path_factory):
    _movegen()
    d = tmp_path_factory.mktemp("lex")
    (d / "words.txt").write_text("\n".join(TINY) + "\n", encoding="utf-8")
    r = _skrafl("build", "en", "--source", "wordlist", "--input", str(d / "words.txt"), "--out", str(d / "en"), "-q")
    assert r.returncode == 0, r.stderr
    return d / "en"


def _board_file(tmp_path, board: Board) -> Path:
    p = tmp_path / "b.board"
    p.write_text(board.to_text("gcg"), encoding="utf-8")
    return p


def test_cli_best_tsv(tiny_lexicon, tmp_path):
    b = _board_file(tmp_path, put(empty(), "8E WORD"))
    r = _skrafl("best", "--lexicon", str(tiny_lexicon), "--board", str(b), "--rack", "MOOORRT", "--format", "tsv")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "coord\tword\tscore\ttiles_placed\tleave"
    assert lines[1] == "E4\tROOTWORM\t102\t7\t"


def test_cli_best_blank_is_lowercase_and_json(tiny_lexicon, tmp_path):
    b = _board_file(tmp_path, empty())
    r = _skrafl("best", "--lexicon", str(tiny_lexicon), "--board", str(b), "--rack", "AEINRS?", "-f", "json", "--all")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    words = {row["word"] for row in rows}
    assert any(w.lower() == "retsina" and sum(ch.islower() for ch in w) == 1 for w in words)
    assert rows == sorted(rows, key=lambda x: (-x["score"], x["tiles_placed"]))


def test_cli_robot_is_reproducible(tiny_lexicon, tmp_path):
    b = _board_file(tmp_path, empty())
    args = [
        "best",
        "--lexicon",
        str(tiny_lexicon),
        "--board",
        str(b),
        "--rack",
        "AEINRST",
        "-f",
        "tsv",
        "--robot",
        "midlungur",
        "--vocabulary",
        str(tiny_lexicon),
        "--seed",
        "3",
    ]
    first, second = _skrafl(*args), _skrafl(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout and len(first.stdout.splitlines()) == 2


@pytest.mark.parametrize(
    "case,extra,needle",
    [
        ("short_board", ["--rack", "AEINRST"], "lines"),
        ("bad_letter", ["--rack", "AEINRST"], "unknown letter"),
        ("ok", ["--rack", "ZZ"], "only 1"),
        ("ok", ["--rack", "AEINRST", "--rules", "nosuch"], "known presets"),
    ],
)
def test_cli_bad_input_one_line_exit_2(tiny_lexicon, tmp_path, case, extra, needle):
    p = tmp_path / f"{case}.board"
    text = empty().to_text()
    if case == "short_board":
        text = "".join(text.splitlines(keepends=True)[:14])
    if case == "bad_letter":
        text = text.replace("...............", "......Þ........", 1)
    p.write_text(text, encoding="utf-8")
    r = _skrafl("best", "--lexicon", str(tiny_lexicon), "--board", str(p), *extra)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("skrafl: error: ")
    assert needle in r.stderr and "Traceback" not in r.stderr


# ---- the Icelandic riddle (needs the full BÍN lexicon built by `make run`) ---------------------------------


def test_icelandic_riddle_threkraun_104(shared):
    _movegen()
    from cli.common import output_root
    from gamecore.best import best_plays, load_bundle

    folder = output_root() / "is"
    if not (folder / "lexicon.kwg").is_file():
        pytest.skip("the Icelandic lexicon is not built (make run)")
    bundle = load_bundle(folder)
    rules = load_rules("netskrafl")
    board = read_board(shared / "corpora" / "positions" / "netskrafl_riddle1.board", rules.tiles(), rules.layout())
    plays = best_plays(board, rules.tiles().parse_rack("UAENRRK"), bundle, rules)
    assert (plays[0].coord, plays[0].word_text(), plays[0].score) == ("A4", "ÞREKRAUN", 104)
    assert plays[1].score == 78  # positions/README.md: Netskrafl's second best


def test_generator_order_is_sort_plays_order_and_limit_is_a_prefix(shared):
    from gamecore.best import generate_plays, sort_plays

    pos = shared / "corpora" / "positions"
    board = read_board(pos / "mid1.board", EN, load_layout("standard"))
    rack = EN.parse_rack("AEEFHI?")
    kwg = _kwg((pos / "mid1_b1.words").read_text(encoding="utf-8").split())
    _movegen()
    every = generate_plays(board, rack, kwg, ALPHABET, WESPA)
    assert every == sort_plays(list(reversed(every)), ALPHABET)
    assert every[0].score == 43 and all(a.score >= b.score for a, b in zip(every, every[1:], strict=False))
    assert generate_plays(board, rack, kwg, ALPHABET, WESPA, limit=25) == every[:25]


def test_letter_valued_blank_rule_rescores_generated_plays():
    from gamecore.best import generate_plays

    _movegen()
    letter = WESPA.replace(blank_value="letter")
    plays = generate_plays(empty(), EN.parse_rack("AEINRS?"), _kwg(TINY), ALPHABET, letter)
    # a blank standing for T is worth 1 under this rule: RETSINA with a blank scores as with a real T
    assert max(p.score for p in plays) == 66
    assert plays == sorted(plays, key=lambda p: (-p.score, p.tiles_placed))


@pytest.mark.parametrize(
    "board_name,tile_set,start",
    [("super", "english_super", (10, 10)), ("explo", "english", (3, 3)), ("erudit", "english", (7, 7))],
)
def test_generator_on_other_layouts_equals_word_fit(board_name, tile_set, start):
    # super 21×21 (4× squares, start K11), explo (start D4), erudit (plain centre): first move and a
    # follow-up, generator against the independent word-fit oracle
    rules = WESPA.replace(board=board_name, tile_set=tile_set)
    layout = rules.layout()
    assert layout.start == start
    board = Board(layout, rules.tiles())
    words = TINY + ["tears", "stare", "rates", "aster", "tae", "eta", "tar", "rat", "art", "sat", "ats", "sea"]
    for rack_text in ("AERST?E", "TARSEX?"):
        rack = rules.tiles().parse_rack(rack_text)
        got = generated(board, rack, words, rules)
        want = word_fit_moves(board, rack, words, rules)
        assert {k: v.score for k, v in got.items()} == {k: v.score for k, v in want.items()}
        assert got
        from gamecore.best import sort_plays

        board = apply_play(board, sort_plays(list(got.values()))[0])


def test_cli_cgp_board_with_rack_from_the_cgp(tiny_lexicon, tmp_path):
    rows = ["15"] * 15
    rows[7] = "4WORD7"  # WORD at 8E
    cgp = "/".join(rows) + " MOOORRT/ 0/0 0 lex tiny;"
    r = _skrafl("best", "--lexicon", str(tiny_lexicon), "--board", cgp, "--board-format", "cgp", "-n", "1", "-f", "tsv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1] == "E4\tROOTWORM\t102\t7\t"


def test_cli_cgp_board_file_errors_name_the_files_own_line(tiny_lexicon, tmp_path):
    """A CGP board file with blank lines before its one line: it is read (the blank lines are
    allowed), and an error names the line of the file it is on, not of the text without them."""
    rows = ["15"] * 15
    rows[7] = "4WORD7"
    good = tmp_path / "good.cgp"
    good.write_text("\n\n" + "/".join(rows) + " MOOORRT/ 0/0 0\n", encoding="utf-8")
    r = _skrafl("best", "--lexicon", str(tiny_lexicon), "--board", str(good), "--board-format", "cgp", "-n", "1", "-f", "tsv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1] == "E4\tROOTWORM\t102\t7\t"
    bad = tmp_path / "bad.cgp"
    bad.write_text("\n\n" + "/".join(rows[:14]) + " MOOORRT/ 0/0 0\n", encoding="utf-8")  # 14 rows
    r = _skrafl("best", "--lexicon", str(tiny_lexicon), "--board", str(bad), "--board-format", "cgp", "-n", "1")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith(f"skrafl: error: {bad}:3: ") and len(r.stderr.splitlines()) == 1, r.stderr


def test_cli_netskrafl_board_text(tiny_lexicon, tmp_path):
    b = put(put(empty(), "8F HEY"), "F8 .AZE")
    p = tmp_path / "ns.board"
    p.write_text(b.to_text("netskrafl"), encoding="utf-8")  # lowercase tiles
    assert "hey" in p.read_text(encoding="utf-8")
    r = _skrafl(
        "best",
        "--lexicon",
        str(tiny_lexicon),
        "--board",
        str(p),
        "--board-format",
        "netskrafl",
        "--rack",
        "GNX",
        "-n",
        "1",
        "-f",
        "tsv",
    )
    assert r.returncode == 0, r.stderr
    coord, word, score, placed, leave = r.stdout.splitlines()[1].split("\t")
    assert (score, placed, leave) == ("34", "1", "GN")


# ---- robot vocabulary from the built tier; empty rack ----------------------------------------------------


@pytest.fixture(scope="module")
def lexicon_with_tier(tiny_lexicon, tmp_path_factory):
    """A copy of the tiny lexicon with a built ``midlungur`` tier holding only HEY (no play of
    AEINRST forms it, so the robot may play only two-letter words, docs/NETSKRAFL.md §4)."""
    import shutil

    d = tmp_path_factory.mktemp("tier")
    lex = d / "en"
    shutil.copytree(tiny_lexicon, lex)
    (d / "tier.txt").write_text("hey\n", encoding="utf-8")
    # a build writes only its own folder: the tier is built apart and copied in, as a curator would
    r = _skrafl("build", "en", "--source", "wordlist", "--input", str(d / "tier.txt"), "--out", str(d / "tier"), "-q")
    assert r.returncode == 0, r.stderr
    shutil.copytree(d / "tier", lex / "midlungur")
    return lex


def test_cli_midlungur_uses_the_built_tier(lexicon_with_tier, tmp_path):
    b = _board_file(tmp_path, empty())
    words = set()
    for seed in range(4):
        r = _skrafl(
            "best",
            "--lexicon",
            str(lexicon_with_tier),
            "--board",
            str(b),
            "--rack",
            "AEINRST",
            "-f",
            "json",
            "--robot",
            "midlungur",
            "--seed",
            str(seed),
        )
        assert r.returncode == 0, r.stderr
        words |= {row["word"].lower() for row in json.loads(r.stdout)}
    # Without the tier, the 20 best plays are all seven-letter bingos (4 anagrams × 2 directions × 7 squares).
    assert words and all(len(w) == 2 for w in words), words


def test_cli_amlodi_without_vocabulary_is_one_error(tiny_lexicon, tmp_path):
    b = _board_file(tmp_path, empty())
    r = _skrafl("best", "--lexicon", str(tiny_lexicon), "--board", str(b), "--rack", "AEINRST", "--robot", "amlodi")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("skrafl: error: ")
    assert "--vocabulary" in r.stderr and "skrafl build" in r.stderr


def test_cli_empty_rack_is_an_error(tiny_lexicon, tmp_path):
    b = _board_file(tmp_path, empty())
    r = _skrafl("best", "--lexicon", str(tiny_lexicon), "--board", str(b), "--rack", "")
    assert r.returncode == 2 and r.stderr.startswith("skrafl: error: ") and "rack" in r.stderr


def test_cli_robot_options_that_would_be_ignored_are_refused(tiny_lexicon, tmp_path):
    """--robot with -n or --all printed the robot's one play and ignored them; --vocabulary without
    --robot was ignored; a vocabulary of another language was played from (only two-letter words
    of it fitted): each is one error line now."""
    b = _board_file(tmp_path, empty())
    base = ("best", "--lexicon", str(tiny_lexicon), "--board", str(b), "--rack", "AEINRST")
    for extra, said in (
        (("--robot", "fullsterkur", "-n", "5"), "--robot shows the one play fullsterkur makes: give no --top/-n"),
        (("--robot", "fullsterkur", "--all"), "give no --all"),
        (("--vocabulary", str(tiny_lexicon)), "--vocabulary is the words a --robot plays: give --robot too"),
    ):
        r = _skrafl(*base, *extra)
        assert r.returncode == 2 and said in r.stderr and r.stdout == "", (extra, r.stderr)
    (tmp_path / "nb.txt").write_text("hest\n", encoding="utf-8")
    r = _skrafl("build", "nb", "--source", "wordlist", "--input", str(tmp_path / "nb.txt"), "--out", str(tmp_path / "nb"), "-q")
    assert r.returncode == 0, r.stderr
    r = _skrafl(*base, "--robot", "midlungur", "--vocabulary", str(tmp_path / "nb"))
    assert r.returncode == 2 and "language 'nb'" in r.stderr and "'en'" in r.stderr, r.stderr
    r = _skrafl(*base, "--robot", "fullsterkur")
    assert r.returncode == 0 and len(r.stdout.strip().splitlines()) == 2, r.stdout  # a header and the one play


def test_cli_pick_from_only_for_a_picking_robot(tiny_lexicon, tmp_path):
    b = _board_file(tmp_path, empty())
    for extra in ([], ["--robot", "fullsterkur"]):
        r = _skrafl("best", "--lexicon", str(tiny_lexicon), "--board", str(b), "--rack", "AEINRST", "--pick-from", "10", *extra)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "--pick-from" in r.stderr and "midlungur or amlodi" in r.stderr
