"""``skrafl score``: rulings on one play (gamecore.adjudicate), the challenge rules (gamecore.challenge)
and the command.

Expected values come from the rules (docs/RULES.md: letter premiums under new tiles, word premiums
multiplied, bingo after), from the issue's worked cases, from the shared reference move lists
(three engines agree, ../shared/corpora/positions) and from recorded game scores (GCG fixtures,
real Netskrafl games).
"""

from __future__ import annotations

import csv
import json
import random
import unicodedata
from pathlib import Path

import pytest
from clirun import run_skrafl_here
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamecore.adjudicate import adjudicate, split_play
from gamecore.board import Board, read_board
from gamecore.boards import load_layout, parse_layout
from gamecore.challenge import RULES, challenge_outcome
from gamecore.errors import UsageError
from gamecore.play import apply_play, validate_play
from gamecore.rules import load_rules

WESPA = load_rules("wespa")
NETSKRAFL = load_rules("netskrafl")
EN = WESPA.tiles()
PROJECT = Path(__file__).resolve().parents[1]
FIX = Path(__file__).resolve().parent / "fixtures"


def empty(rules=WESPA, layout=None) -> Board:
    return Board(layout or rules.layout(), rules.tiles())


def put(board: Board, *plays: str, rules=WESPA) -> Board:
    for p in plays:
        board = apply_play(board, validate_play(board, p, None, None, rules))
    return board


class Words(set):
    """A lexicon for tests: ``word in lexicon`` on lowercase words."""

    @property
    def name(self):
        return "test"


# ---- the known cases ---------------------------------------------------------------------


@pytest.mark.parametrize("play, score", [("8D JOINT", 40), ("8E JOINT", 24), ("8H JOINT", 26)])
def test_joint_on_the_empty_board(play, score):
    # J=8, O I N T=1: D8 is a DL (J doubled), H8 the start DW; 8E JOINT has no letter premium
    r = adjudicate(empty(), play, list("JOINTXY"), None, WESPA)
    assert r.legal and r.score == score and [(w.word, w.score) for w in r.words] == [("joint", score)]
    assert r.bingo is False and r.verdict is None


def test_extending_for_both_ways_scores_7():
    b = put(empty(), "8G FOR")
    a, d = adjudicate(b, "8G ...E", None, None, WESPA), adjudicate(b, "J8 E", None, None, WESPA)
    assert a.score == d.score == 7 and a.coord == d.coord == "8G" and a.main_word() == d.main_word() == "FORE"
    assert adjudicate(b, "8G FORE", None, None, WESPA).score == 7  # the letters themselves for board tiles


def test_one_tile_two_words_scores_11_and_best_lists_it_once():
    b = put(empty(), "8H TO", "I8 .X")
    down, across = adjudicate(b, "H8 .A", None, None, WESPA), adjudicate(b, "9H A.", None, None, WESPA)
    # TA = 1+1 (no premium at H9) = 2; AX = 1+8 = 9: 11 both ways, main word first
    assert down.score == across.score == 11
    assert [(w.word, w.score) for w in down.words] == [("ta", 2), ("ax", 9)]
    assert [(w.word, w.score) for w in across.words] == [("ax", 9), ("ta", 2)]
    from gamecore.best import generate_plays
    from gamecore.kwg import Kwg

    kwg = Kwg.from_words(sorted(["ta", "ax", "to", "ox"]), "abcdefghijklmnopqrstuvwxyz")
    plays = [p for p in generate_plays(b, ["A"], kwg, list(EN.letters), WESPA) if p.placements() == down.played.placements()]
    assert len(plays) == 1 and plays[0].score == 11


def test_bingo_bonus_is_in_the_score_and_the_word_scores_add_up():
    r = adjudicate(empty(), "8D RETAINS", list("AEINRST"), Words({"retains"}), WESPA)
    # R E T A I N S: D8 DL doubles R (1), H8 DW: (7 + 1) × 2 = 16, + 50
    assert (r.score, r.bingo, r.words[0].score, r.verdict) == (66, True, 16, "ACCEPTABLE")


def test_blank_scores_zero_but_takes_the_word_premium():
    r = adjudicate(empty(), "8D jOINT", list("?OINT"), None, WESPA)
    assert r.legal and r.score == 8 and r.main_word() == "jOINT"  # (0+1+1+1+1) × 2


def test_netskrafl_coordinates():
    assert split_play("H4 JOINT", 15, "netskrafl") == ("8D", "JOINT")
    assert split_play("4H JOINT", 15, "netskrafl") == ("D8", "JOINT")
    assert adjudicate(empty(), "H4 JOINT", None, None, WESPA, "netskrafl").score == 40


# ---- every reason a play is illegal ----------------------------------------------------------------


@pytest.mark.parametrize(
    "board_plays, play, rack, code",
    [
        ((), "8A JOINT", None, "first_play_off_start"),
        (("8G FOR",), "1A JOINT", None, "not_touching"),
        ((), "8M JOINT", None, "off_board"),
        ((), "16A JO", None, "off_board"),
        ((), "8D JO1NT", None, "unknown_letter"),
        ((), "8D JOINT", "JOINAB", "not_on_rack"),
        ((), "8D JoINT", "JOINTAB", "not_on_rack"),  # a blank the rack does not have
        (("8G FOR",), "8F .OR", None, "empty_through"),
        (("8G FOR",), "8G FAR", None, "mismatch"),
        (("8G FOR",), "8H OR", None, "not_whole_word"),
        (("8G FOR",), "8G ...", None, "no_tiles"),
        ((), "8H A", None, "too_short"),
    ],
)
def test_illegal_reasons(board_plays, play, rack, code):
    r = adjudicate(put(empty(), *board_plays), play, list(rack) if rack else None, None, WESPA)
    assert not r.legal and r.reason[0] == code and r.reason[1]
    assert not r.acceptable


def test_not_on_rack_shows_the_words_but_no_score():
    """A play the rack cannot make cannot be made: the words it would form, no score, verdict
    ILLEGAL (never ACCEPTABLE, even with every word in the lexicon)."""
    r = adjudicate(empty(), "8D JOINT", list("JOINAB"), None, WESPA)
    assert r.reason[0] == "not_on_rack" and not r.legal and [w.word for w in r.words] == ["joint"]
    assert r.score is None and not r.bingo and r.verdict == "ILLEGAL" and not r.acceptable
    assert [w.score for w in r.words] == [None]


def test_more_tiles_than_a_rack_holds_is_illegal():
    """No rack given: a play of 8 new tiles under 7-tile rules cannot be made."""
    r = adjudicate(empty(), "8A JOINTERS", None, None, WESPA)
    assert not r.legal and r.reason[0] == "not_on_rack" and "8 tiles" in r.reason[1] and "holds 7" in r.reason[1]
    assert r.score is None and r.verdict == "ILLEGAL"
    assert adjudicate(empty(), "8D JOINTER", None, None, WESPA).legal  # 7 tiles: a bingo


def test_punctured_square_is_blocked():
    rows = ["|" + " " * 15 + "|"] * 15
    rows[7] = "|       X       |"
    layout = parse_layout("# start square: H8\n" + "\n".join(rows), "holed")
    r = adjudicate(Board(layout, EN), "8D JOINT", None, None, WESPA)
    assert r.reason[0] == "blocked"


def test_reasons_the_word_notation_cannot_express_come_from_the_oracle():
    # not_in_line, gap and square_taken need tiles placed one by one (a COORD WORD play is one
    # contiguous line of empty or matching squares by construction): the oracle rules on them.
    from gamecore.play import IllegalPlay, Placement, validate_placements

    b = put(empty(), "8G FOR")
    for pl, code in [
        ([Placement(8, 6, "A"), Placement(9, 7, "B")], "not_in_line"),
        ([Placement(6, 6, "A"), Placement(4, 6, "B")], "gap"),
        ([Placement(7, 6, "A")], "square_taken"),
    ]:
        with pytest.raises(IllegalPlay) as e:
            validate_placements(b, pl, None, None, WESPA)
        assert e.value.code == code


@pytest.mark.parametrize(
    "board_plays, play, rack, code",
    [
        (("8G FOR",), "1A JOINT", "XYZ", "not_touching"),  # no J, O, I, N, T on the rack either
        (("8G FOR",), "1A JOINT", "", "not_touching"),
        ((), "8A JOINT", "QZ", "first_play_off_start"),
        (("8G FOR",), "8H OR", "XZ", "not_whole_word"),
        ((), "8M JOINT", "Z", "off_board"),
    ],
)
def test_a_play_that_breaks_the_rack_and_a_square_rule_is_illegal_not_an_error(board_plays, play, rack, code):
    """A play written right (a coordinate, letters of the alphabet) that cannot be made is a ruling,
    ILLEGAL with the code of the rule its squares break (the same code as without a rack), whatever
    the order the rules are checked in; never an input error."""
    board = put(empty(), *board_plays)
    r = adjudicate(board, play, list(rack), None, WESPA)
    assert not r.legal and r.verdict == "ILLEGAL" and r.reason[0] == code and r.score is None
    assert adjudicate(board, play, None, None, WESPA).reason[0] == code


@given(
    st.integers(1, 16),
    st.integers(0, 15),
    st.booleans(),
    st.text(alphabet="JOINTFRAXYZQjo.", min_size=1, max_size=9),
    st.one_of(st.none(), st.text(alphabet="ABEJOINTRSXYZ?", max_size=7)),
)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_parsable_play_is_always_a_ruling(row, col, number_first, word, rack):
    """Any COORD WORD of letters on a board with tiles, any rack: a ruling, never an exception."""
    from gamecore.coords import LETTERS

    coord = f"{row}{LETTERS[col]}" if number_first else f"{LETTERS[col]}{row}"
    r = adjudicate(put(empty(), "8G FOR", "H8 .AX"), f"{coord} {word}", None if rack is None else list(rack), None, WESPA)
    assert r.legal or (r.verdict == "ILLEGAL" and r.reason[0] and r.score is None)


def _riddle(shared) -> Path:
    board = shared / "corpora" / "positions" / "netskrafl_riddle1.board"
    if not board.is_file():
        pytest.skip("no netskrafl_riddle1.board in ../shared")
    return board


@pytest.mark.parametrize("play", ["2K XX", "2K AUK", "2K xx"])
def test_cli_riddle_play_not_touching_is_illegal_exit_1(shared, play):
    """The Netskrafl riddle: a play at 2K touches no tile (K1, K3, J2, L2 are empty and so are the
    squares after it), whether or not its letters are on the rack UAENRRK (no X)."""
    if not (PROJECT / "output" / "is" / "manifest.json").is_file():
        pytest.skip("the Icelandic lexicon is not built (make run)")
    r = run_skrafl_here(
        "score", "--lang", "is", "--board", str(_riddle(shared)), "--play", play, "--rack", "UAENRRK", "-f", "json"
    )
    assert r.returncode == 1 and r.stderr == "", r.stderr
    out = json.loads(r.stdout)
    assert out["legal"] is False and out["verdict"] == "ILLEGAL" and out["reason"]["code"] == "not_touching"
    r = run_skrafl_here("score", "--lang", "is", "--board", str(_riddle(shared)), "--play", play, "--rack", "UAENRRK")
    assert r.returncode == 1 and "legal    no: not_touching" in r.stdout and "verdict  ILLEGAL" in r.stdout


def test_cli_game_play_not_touching_and_not_on_rack_is_illegal(shared):
    """doug_v_emely, before event 6 (emely's rack DEIILTZ, no Q): 1A QI is far from every tile."""
    game = shared / "corpora" / "gcg" / "domino14_macondo__gcgio_testdata_doug_v_emely.gcg"
    r = run_skrafl_here("score", "--game", str(game), "--move", "6", "--play", "1A QI", "-f", "json")
    assert r.returncode == 1 and r.stderr == "", r.stderr
    out = json.loads(r.stdout)
    assert out["rack"] == "DEIILTZ" and out["verdict"] == "ILLEGAL" and out["reason"]["code"] == "not_touching"


def test_malformed_plays_are_usage_errors():
    for text in ("8D", "JOINT 8D X", "ZZ JOINT", "8 JOINT"):
        with pytest.raises(UsageError):
            adjudicate(empty(), text, None, None, WESPA)


# ---- words, verdict, Unicode --------------------------------------------------------------------


def test_verdict_and_each_word_validity():
    b = put(empty(), "8H TO", "I8 .X")
    r = adjudicate(b, "H8 .A", None, Words({"ta"}), WESPA)  # AX is missing from this lexicon
    assert [(w.word, w.valid) for w in r.words] == [("ta", True), ("ax", False)]
    assert r.verdict == "UNACCEPTABLE" and r.legal and not r.acceptable


def test_nfd_play_and_rack_rule_as_nfc():
    b = empty(NETSKRAFL)
    nfc_play, nfd_play = "8H ÝF", unicodedata.normalize("NFD", "8H ÝF")
    assert nfc_play != nfd_play
    lex = Words({"ýf"})
    a = adjudicate(b, nfc_play, list("ÝF"), lex, NETSKRAFL)
    d = adjudicate(
        b,
        nfd_play,
        NETSKRAFL.tiles().parse_rack(unicodedata.normalize("NFC", unicodedata.normalize("NFD", "ÝF"))),
        lex,
        NETSKRAFL,
    )
    assert a.legal and d.legal and a.score == d.score and d.verdict == "ACCEPTABLE" and d.play == nfc_play


# ---- challenge rules, on one worked example -------------------------------------------------------
# The play: 9H A. on the TO/X board, 11 points, forming AX (valid) and TA; TA valid or not.

VALID = [("ax", True), ("ta", True)]
PHONY = [("ax", True), ("ta", False)]


@pytest.mark.parametrize(
    "rule, words, player, bonus, nxt, stands",
    [
        ("void", VALID, 11, 0, "opponent", True),
        ("void", PHONY, 0, 0, "player", False),  # refused: the player tries again
        ("single", VALID, 11, 0, "opponent", True),
        ("single", PHONY, 0, 0, "opponent", False),
        ("double", VALID, 11, 0, "player", True),  # the wrong challenger loses the turn
        ("double", PHONY, 0, 0, "opponent", False),
        ("five_point", VALID, 21, 10, "opponent", True),  # WESPA: +5 per word challenged: 5 × 2 words
        ("five_point", PHONY, 0, 0, "opponent", False),
        ("five_point_per_word", VALID, 21, 10, "opponent", True),  # 5 × 2 words challenged
        ("five_point_per_word", PHONY, 0, 0, "opponent", False),
        ("ten_point", VALID, 21, 10, "opponent", True),
        ("ten_point", PHONY, 0, 0, "opponent", False),
        ("netskrafl", VALID, 21, 10, "opponent", True),  # +10, the challenger keeps the turn
        ("netskrafl", PHONY, 0, 0, "opponent", False),
    ],
)
def test_challenge_rules(rule, words, player, bonus, nxt, stands):
    o = challenge_outcome(rule, 11, words)
    assert (o.player, o.opponent, o.bonus, o.next, o.stands) == (player, 0, bonus, nxt, stands)
    assert o.summary.startswith(rule)


def test_five_point_counts_the_words_challenged():
    assert challenge_outcome("five_point_per_word", 11, VALID, ["ax"]).player == 16
    assert challenge_outcome("five_point", 11, VALID, ["ax"]).player == 16
    assert challenge_outcome("five_point", 11, PHONY, ["ax"]).stands  # the phony TA was not challenged
    with pytest.raises(UsageError):
        challenge_outcome("five_point", 11, VALID, ["zz"])
    with pytest.raises(UsageError):
        challenge_outcome("triple", 11, VALID)
    assert set(RULES) == {"void", "single", "double", "five_point", "five_point_per_word", "ten_point", "netskrafl"}


# ---- agreement with best and replay ----------------------------------------------------------------


def _positions(shared):
    pos = shared / "corpora" / "positions"
    with open(pos / "positions.tsv", encoding="utf-8") as fh:
        return pos, list(csv.DictReader(fh, delimiter="\t"))


@pytest.mark.parametrize("name", ["mid2_b0", "mid1_b1", "open3_b0"])
def test_reference_move_lists_score_the_same(shared, name):
    """Every move of the shared reference lists (three engines agree) scores its listed score."""
    pos, rows = _positions(shared)
    row = next(r for r in rows if r["name"] == name)
    board = read_board(pos / row["board"], EN, load_layout("standard"))
    rack = EN.parse_rack(row["rack"])
    words = Words(w.lower() for w in (pos / row["lexicon"]).read_text(encoding="utf-8").split())
    n = 0
    with open(pos / row["moves"], encoding="utf-8") as fh:
        for m in csv.DictReader(fh, delimiter="\t"):
            r = adjudicate(board, f"{m['coord']} {m['word']}", rack, words, WESPA)
            assert r.legal and r.score == int(m["score"]) and r.verdict == "ACCEPTABLE", (m, r)
            n += 1
    assert n > 0


WORDS = sorted(
    {
        "at",
        "ta",
        "ax",
        "ex",
        "xi",
        "za",
        "re",
        "er",
        "to",
        "ox",
        "on",
        "no",
        "in",
        "it",
        "is",
        "so",
        "an",
        "na",
        "ad",
        "be",
        "de",
        "do",
        "go",
        "he",
        "hi",
        "me",
        "my",
        "of",
        "oe",
        "oi",
        "or",
        "os",
        "pe",
        "qi",
        "us",
        "we",
        "ate",
        "eat",
        "tea",
        "tae",
        "eta",
        "ret",
        "ran",
        "tan",
        "ant",
        "nat",
        "tin",
        "nit",
        "sit",
        "its",
        "tis",
        "rat",
        "art",
        "tar",
        "ore",
        "roe",
        "toe",
        "one",
        "eon",
        "neo",
        "nor",
        "ton",
        "not",
        "son",
        "nos",
        "ons",
        "rate",
        "tear",
        "tare",
        "tine",
        "note",
        "tone",
        "rose",
        "sore",
        "ores",
        "roes",
        "nose",
        "ones",
        "eons",
        "stone",
        "notes",
        "tones",
        "onset",
        "rates",
        "tears",
        "stare",
        "aster",
        "tares",
        "irate",
        "retain",
        "retains",
        "stainer",
        "nastier",
        "retinas",
        "antsier",
        "anestri",
        "ratines",
        "zax",
        "zoa",
        "oxen",
        "joint",
        "jot",
        "jo",
        "quiz",
        "quit",
        "quite",
        "quiet",
        "exit",
        "taxi",
        "axe",
        "axes",
        "sex",
        "six",
        "fore",
        "for",
        "fro",
        "if",
        "fa",
        "fe",
        "ef",
        "fir",
        "fie",
        "fit",
        "fat",
        "feat",
        "fate",
    }
)


def _random_position(seed: int) -> tuple[Board, list[str]]:
    """A position reached by a few random legal plays from random racks, and a rack to move."""
    from gamecore.best import generate_plays
    from gamecore.kwg import Kwg

    rng = random.Random(seed)
    kwg = Kwg.from_words(WORDS, "abcdefghijklmnopqrstuvwxyz")
    bag = [label for label, n in EN.counts.items() for _ in range(n)] + ["?"] * EN.blanks
    rng.shuffle(bag)
    board = empty()
    for _ in range(rng.randint(0, 6)):
        rack = [bag.pop() for _ in range(7)]
        plays = generate_plays(board, rack, kwg, list(EN.letters), WESPA)
        if plays:
            board = apply_play(board, rng.choice(plays))
    return board, [bag.pop() for _ in range(7)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=10**9))
def test_every_play_best_lists_scores_the_same(seed):
    """Property: every play the move generator lists (``best --all``) on a random position is legal
    in ``score`` with the same score, words valid, written with '.' or with the board letters."""
    from gamecore.best import generate_plays
    from gamecore.kwg import Kwg

    board, rack = _random_position(seed)
    kwg = Kwg.from_words(WORDS, "abcdefghijklmnopqrstuvwxyz")
    lex = Words(WORDS)
    for p in generate_plays(board, rack, kwg, list(EN.letters), WESPA):
        for text in (f"{p.coord} {p.word_text('.')}", f"{p.coord} {p.word_text()}"):
            r = adjudicate(board, text, rack, lex, WESPA)
            assert r.legal and r.score == p.score and r.verdict == "ACCEPTABLE", (text, r)
            assert sum(w.score for w in r.words) + (50 if r.bingo else 0) == r.score


def test_cli_agrees_with_best_all(tmp_path):
    """The commands themselves: every play ``skrafl best --all`` prints scores the same in ``skrafl score``."""
    d = tmp_path / "lex"
    d.mkdir()
    (d / "words.txt").write_text("\n".join(WORDS) + "\n", encoding="utf-8")
    r = run_skrafl_here("build", "en", "--source", "wordlist", "--input", str(d / "words.txt"), "--out", str(d / "en"), "-q")
    assert r.returncode == 0, r.stderr
    board, rack = _random_position(7)
    bf = tmp_path / "b.board"
    bf.write_text(board.to_text(), encoding="utf-8")
    rack_text = "".join(rack)
    r = run_skrafl_here("best", "--lexicon", str(d / "en"), "--board", str(bf), "--rack", rack_text, "--all", "-f", "json")
    assert r.returncode == 0, r.stderr
    listed = json.loads(r.stdout)
    assert listed
    for p in rng_sample(listed, 6):
        s = run_skrafl_here(
            "score",
            "--lexicon",
            str(d / "en"),
            "--board",
            str(bf),
            "--rack",
            rack_text,
            "--play",
            f"{p['coord']} {p['word']}",
            "-f",
            "json",
        )
        assert s.returncode == 0, s.stderr
        out = json.loads(s.stdout)
        assert out["score"] == p["score"] and out["legal"] and out["verdict"] == "ACCEPTABLE"


def rng_sample(items, k):
    return random.Random(1).sample(items, min(k, len(items)))


def test_game_move_scores_the_recorded_play():
    """--game FILE --move N: the position the replay code reaches before event N; the recorded play
    (GCG fixture: 8D RETAINS +66, then G7 B.D +11) scores its recorded score."""
    from cli.score import game_position

    pos = game_position(FIX / "gcg" / "base.gcg", 2, None, None)
    assert pos.recorded_play == "G7 B.D" and pos.scores == (66, 0) and pos.mover == 1
    assert pos.rack == list("BDEGLOU")
    r = adjudicate(pos.board, pos.recorded_play, pos.rack, None, pos.rules)
    assert r.legal and r.score == pos.recorded_score == 11


def test_real_netskrafl_games_every_play_scores_as_recorded(shared):
    """Real Netskrafl games: before each tile play, ``score`` on the replayed position gives the
    score Netskrafl recorded (the recorded coordinate is Netskrafl's, read by the game reader)."""
    from cli.score import game_position
    from pipelines.replay import read_game_file

    files = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))[:3]
    checked = 0
    for f in files:
        g = read_game_file(str(f))
        for n, ev in enumerate(g.events, start=1):
            if ev.kind != "play" or ev.score is None:
                continue
            pos = game_position(f, n, None, None)
            r = adjudicate(pos.board, pos.recorded_play, None, None, pos.rules)
            assert r.legal and r.score == ev.score, (f.name, n, pos.recorded_play, r.reason)
            checked += 1
            if checked > 60:
                return
    assert checked > 0


# ---- the command -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def en_lexicon(tmp_path_factory):
    d = tmp_path_factory.mktemp("lex")
    (d / "words.txt").write_text("joint\nfor\nfore\nto\nax\nta\nox\n", encoding="utf-8")
    r = run_skrafl_here("build", "en", "--source", "wordlist", "--input", str(d / "words.txt"), "--out", str(d / "en"), "-q")
    assert r.returncode == 0, r.stderr
    return d / "en"


def _board_file(tmp_path, board) -> Path:
    p = tmp_path / "position.board"
    p.write_text(board.to_text("gcg"), encoding="utf-8")
    return p


def test_cli_json_and_exit_0(tmp_path, en_lexicon):
    b = _board_file(tmp_path, put(empty(), "8H TO", "I8 .X"))
    r = run_skrafl_here(
        "score", "--lexicon", str(en_lexicon), "--board", str(b), "--play", "H8 .A", "--rack", "AEI", "-f", "json"
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["legal"] and out["score"] == 11 and out["verdict"] == "ACCEPTABLE" and out["bingo"] is False
    assert out["words"] == [
        {"word": "TA", "gcg": "TA", "valid": True, "score": 2},
        {"word": "AX", "gcg": "AX", "valid": True, "score": 9},
    ]
    assert out["reason"] is None and out["coord"] == "H8" and out["word"] == "TA"


def test_cli_unacceptable_exit_1_and_challenge(tmp_path, en_lexicon):
    b = _board_file(tmp_path, put(empty(), "8G FOR"))
    r = run_skrafl_here(
        "score", "--lexicon", str(en_lexicon), "--board", str(b), "--play", "9G E", "--challenge", "double", "-f", "json"
    )
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert out["verdict"] == "UNACCEPTABLE" and out["words"][0] == {"word": "FE", "gcg": "FE", "valid": False, "score": 6}
    assert out["challenge"]["play_stands"] is False and out["challenge"]["points"] == {"player": 0, "opponent": 0}
    assert out["challenge"]["next"] == "opponent"


def test_cli_challenge_netskrafl_valid(tmp_path, en_lexicon):
    b = _board_file(tmp_path, put(empty(), "8G FOR"))
    r = run_skrafl_here(
        "score", "--lexicon", str(en_lexicon), "--rules", "wespa", "--board", str(b), "--play", "J8 E", "--challenge", "netskrafl"
    )
    assert r.returncode == 0, r.stderr
    assert "challenge" in r.stdout and "+10" in r.stdout and "FORE" in r.stdout


def test_cli_illegal_exit_1_with_reason(tmp_path):
    b = _board_file(tmp_path, empty())
    r = run_skrafl_here("score", "--rules", "wespa", "--board", str(b), "--play", "8A JOINT", "-f", "json")
    assert r.returncode == 1
    assert json.loads(r.stdout)["reason"]["code"] == "first_play_off_start"
    r = run_skrafl_here("score", "--rules", "wespa", "--board", str(b), "--play", "8A JOINT")
    assert "first_play_off_start" in r.stdout


TSV_HEADER = ["field", "value", "score", "valid", "player_points", "opponent_points", "next", "summary"]


def _tsv(text: str) -> list[dict]:
    """TSV as the README says it is: one header naming every column, every row as wide."""
    lines = text.splitlines()
    assert lines and lines[0].split("\t") == TSV_HEADER, lines[:1]
    assert {len(line.split("\t")) for line in lines} == {len(TSV_HEADER)}, lines
    return [dict(zip(TSV_HEADER, line.split("\t"), strict=True)) for line in lines[1:]]


def test_cli_tsv(tmp_path):
    """8D JOINT on the empty board: (8x2 + 1+1+1+1) x 2 = 40 (J on the DL at D8, the star doubles)."""
    b = _board_file(tmp_path, empty())
    r = run_skrafl_here("score", "--rules", "wespa", "--board", str(b), "--play", "8D JOINT", "-f", "tsv")
    assert r.returncode == 0
    rows = _tsv(r.stdout)
    assert [x for x in rows if x["field"] == "word"] == [
        dict.fromkeys(TSV_HEADER, "") | {"field": "word", "value": "JOINT", "score": "40"}
    ]
    assert {x["field"]: x["value"] for x in rows}["score"] == "40"


def test_cli_tsv_is_rectangular_with_words_and_a_challenge(tmp_path, en_lexicon):
    """Every row of ``score -f tsv`` has every column, empty where the row has none: the word rows
    (word, points, validity), the challenge row (its rule, both sides' points, who moves next, the
    sentence) and an illegal play's rows. 8D JOINT, 40; double challenge wrong: the play stands,
    the challenger loses the turn (the player moves again)."""
    b = _board_file(tmp_path, empty())
    r = run_skrafl_here(
        "score",
        "--lexicon",
        str(en_lexicon),
        "--rules",
        "wespa",
        "--board",
        str(b),
        "--play",
        "8D JOINT",
        "--challenge",
        "double",
        "-f",
        "tsv",
    )
    assert r.returncode == 0, r.stderr
    rows = _tsv(r.stdout)
    (word,) = [x for x in rows if x["field"] == "word"]
    assert (word["value"], word["score"], word["valid"]) == ("JOINT", "40", "valid")
    (ch,) = [x for x in rows if x["field"] == "challenge"]
    assert (ch["value"], ch["player_points"], ch["opponent_points"], ch["next"]) == ("double", "40", "0", "player")
    assert ch["summary"] and ch["score"] == ch["valid"] == ""
    r = run_skrafl_here("score", "--rules", "wespa", "--board", str(b), "--play", "8A JOINT", "-f", "tsv")
    assert r.returncode == 1
    rows = _tsv(r.stdout)
    assert {x["field"]: x["value"] for x in rows}["verdict"] == "ILLEGAL"


def test_cli_cgp_with_its_rack(tmp_path):
    cgp = "15/15/15/15/15/15/15/7TO6/8X6/15/15/15/15/15/15 AEI/ 10/20 0"
    r = run_skrafl_here("score", "--rules", "wespa", "--cgp", cgp, "--play", "9H A.", "-f", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["score"] == 11 and json.loads(r.stdout)["rack"] == "AEI"
    r = run_skrafl_here("score", "--rules", "wespa", "--cgp", cgp, "--play", "9H O.", "-f", "json")
    assert r.returncode == 1 and json.loads(r.stdout)["reason"]["code"] == "not_on_rack"


def test_cli_netskrafl_board_text_and_coords(tmp_path):
    b = tmp_path / "n.board"
    b.write_text(put(empty(), "8G FOR").to_text("netskrafl"), encoding="utf-8")
    r = run_skrafl_here(
        "score",
        "--rules",
        "wespa",
        "--board",
        str(b),
        "--board-format",
        "netskrafl",
        "--coords",
        "netskrafl",
        "--play",
        "10H E",
        "-f",
        "json",
    )  # Netskrafl 10H = column 10 from row H, down = GCG J8
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["score"] == 7


def test_cli_game_move(tmp_path):
    r = run_skrafl_here("score", "--game", str(FIX / "gcg" / "base.gcg"), "--move", "2", "-f", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["play"] == "G7 B.D" and out["score"] == 11 and out["recorded_score"] == 11 and out["rack"] == "BDEGLOU"


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--play", "8D JOINT"], "one of --board"),
        (["--rules", "wespa", "--board", "NOFILE", "--play", "8D JOINT"], "no board file"),
        (
            ["--rules", "nosuch", "--cgp", "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15", "--play", "8D JOINT"],
            "unknown rules preset",
        ),
        (["--rules", "wespa", "--cgp", "15/15", "--play", "8D JOINT"], "CGP"),
        (["--rules", "wespa", "--cgp", "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15", "--play", "ZZ JOINT"], "not a coordinate"),
        (
            [
                "--rules",
                "wespa",
                "--cgp",
                "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15",
                "--play",
                "8D JOINT",
                "--challenge",
                "single",
            ],
            "needs a lexicon",
        ),
        (
            ["--rules", "wespa", "--cgp", "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15", "--play", "8D JOINT", "--rack", "ZZZ"],
            "tile set",
        ),
        (["--rules", "wespa", "--cgp", "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15"], "--play"),
        (["--game", str(FIX / "gcg" / "base.gcg"), "--move", "99"], "--move must be"),
        (
            ["--move", "2", "--rules", "wespa", "--cgp", "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15", "--play", "8D JO"],
            "--move N needs --game",
        ),
    ],
)
def test_cli_input_errors_one_line_exit_2(args, needle):
    r = run_skrafl_here("score", *args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and needle in r.stderr and "Traceback" not in r.stderr


def test_cli_nfd_play(tmp_path):
    b = _board_file(tmp_path, empty(NETSKRAFL))
    nfd = unicodedata.normalize("NFD", "8H ÝF")
    r = run_skrafl_here(
        "score",
        "--rules",
        "netskrafl",
        "--board",
        str(b),
        "--play",
        nfd,
        "--rack",
        unicodedata.normalize("NFD", "ÝFA"),
        "-f",
        "json",
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["play"] == "8H ÝF" and out["words"][0]["word"] == "ÝF" and out["rack"] == "ÝFA"


def test_icelandic_real_lexicon():
    folder = PROJECT / "output" / "is"
    if not (folder / "manifest.json").is_file():
        pytest.skip("the Icelandic lexicon is not built (make run)")
    b = empty(NETSKRAFL)
    from gamecore.lexicon import Lexicon

    lex = Lexicon.load(folder)
    r = adjudicate(b, "8D HESTUR", list("HESTURA"), lex, NETSKRAFL)
    assert r.legal and r.verdict == "ACCEPTABLE"
    assert adjudicate(b, "8D HXSTUR", None, lex, NETSKRAFL).verdict == "UNACCEPTABLE"


def test_game_positions_end_with_the_replays_scores(shared):
    """The last position game_positions() yields has the scores replay_game() computes (end-of-game
    adjustments included), on real Netskrafl games and GCG files."""
    from cli.score import game_positions
    from pipelines.replay import read_game_file, replay_game

    files = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))[:5]
    files += [FIX / "gcg" / "base.gcg", shared / "corpora" / "gcg" / "domino14_macondo__gcgio_testdata_doug_v_emely.gcg"]
    for f in files:
        res = replay_game(read_game_file(str(f)))
        if res.game_row["status"] != "ok":
            continue
        *_, (n, pos) = game_positions(f)
        assert n == len(read_game_file(str(f)).events) + 1
        assert pos.scores == (res.game_row["score1"], res.game_row["score2"]), f.name


@pytest.mark.parametrize("command", ["score", "show", "judge"])
def test_help_states_exit_codes(command):
    r = run_skrafl_here(command, "--help")
    assert r.returncode == 0, r.stderr
    text = " ".join(line.strip(" │") for line in r.stdout.splitlines())
    assert "Exit status: 0" in text and " 2 " in text


def test_parentheses_mark_board_tiles():
    """GCG writes played-through tiles in parentheses: J(O)INT says the O is on the board. With
    the O at E8 the play is legal, J on the DL at D8 and the star doubling: (8x2 + 1+1+1+1) x 2 =
    40 with four tiles placed; on an empty board the same notation is empty_through (it was
    scored as if the O were played); unpaired parentheses are not notation."""
    r8 = "15/15/15/15/15/15/15/4O10/15/15/15/15/15/15/15 DIJNTX/ 0/0 0"
    empty = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 DIJNOTX/ 0/0 0"
    r = run_skrafl_here("score", "--rules", "wespa", "--cgp", r8, "--play", "8D J(O)INT", "-f", "json")
    got = json.loads(r.stdout)
    assert r.returncode == 0 and (got["legal"], got["score"], got["tiles_placed"]) == (True, 40, 4)
    for cgp, play, code in (
        (empty, "8D J(O)INT", "empty_through"),
        (r8, "8D J(OINT", "unknown_letter"),
        (r8, "8D J)O(INT", "unknown_letter"),
    ):
        r = run_skrafl_here("score", "--rules", "wespa", "--cgp", cgp, "--play", play, "-f", "json")
        got = json.loads(r.stdout)
        assert r.returncode == 1 and got["legal"] is False and got["reason"]["code"] == code, (play, r.stdout, r.stderr)


# ---- user trial: without a rack, the board and the play must still fit the tile set --------------


@pytest.mark.parametrize(
    "before, play, legal",
    [
        ((), "8D QUIZZES", False),  # two real Zs: the English set has one Z (tile_sets/english.tsv)
        ((), "8D QUIzZES", True),  # one of them a blank: 118 (Q on the DL at D8, the star, the bingo)
        (("8E QUIZ",), "H7 Z.", False),  # a second Z on the board's Z
        (("8E QUIZ",), "H7 z.", True),
        (("8E qUIz",), "H7 a.", False),  # a third blank: the set has two
        (("8E qUIz",), "H7 A.", True),
    ],
)
def test_no_rack_still_checks_the_tile_set(before, play, legal):
    board = put(empty(), *before)
    ruling = adjudicate(board, play, None, None, WESPA)
    assert ruling.legal is legal, ruling.reason
    if legal:
        assert ruling.verdict is None and ruling.reason is None
    else:
        assert ruling.verdict == "ILLEGAL" and ruling.reason[0] == "not_on_rack" and ruling.score is None
        assert "tile set english has only" in ruling.reason[1]
    if play == "8D QUIzZES":
        assert ruling.score == (20 + 1 + 1 + 0 + 10 + 1 + 1) * 2 + 50


def test_cli_no_rack_play_beyond_the_tile_set_is_illegal():
    cgp = "/".join(["15"] * 15) + " / 0/0 0"
    r = run_skrafl_here("score", "--rules", "wespa", "--cgp", cgp, "--play", "8D QUIZZES", "-f", "json")
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    assert data["verdict"] == "ILLEGAL" and data["reason"]["code"] == "not_on_rack" and data["score"] is None


def test_a_game_play_is_written_in_the_coords_asked(shared):
    """score --game --coords netskrafl printed the recorded play in GCG order (15G ÁRUM) while its
    coord said O7: both follow --coords (Netskrafl: row letter first for a play across)."""
    game = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))[0]
    r = run_skrafl_here("score", "--game", str(game), "--move", "3", "--coords", "netskrafl", "-f", "json")
    assert r.returncode in (0, 1), r.stderr
    data = json.loads(r.stdout)
    coord, word = data["play"].split(" ", 1)
    assert coord == data["coord"] and coord[0].isalpha() and coord[1:].isdigit()  # row letter, column number: across
    r = run_skrafl_here("score", "--game", str(game), "--move", "3", "-f", "json")
    gcg = json.loads(r.stdout)
    g_coord, g_word = gcg["play"].split(" ", 1)
    assert g_word == word and g_coord == gcg["coord"] and g_coord[0].isdigit()  # GCG: row number first across
    from gamecore.coords import gcg_to_netskrafl

    assert gcg_to_netskrafl(g_coord, 15) == coord
