"""One rule set, every front end, one answer.

The same game played under the same rule set through ``replay``, ``replay --analyze``, ``score
--game``, ``show --game`` (the positions it draws), ``best`` and the self-play game state
(:class:`gamecore.game_state.GameState`, with autoplay's move picker) gives the same verdict. Every
front end has a say only where the rule is about what it does: a word too short is a play
(all of them); an exchange the bag cannot serve is a move of a game log (replay, the positions of
score and show, the game state); a challenge bonus and the end of a game are events of a game.

Expected values come from the rules text (``gamecore/data/rules/README.md``, the rule-set fields
documented in ``gamecore/rules.py``) and the tile values, never from the code under test:

- ``min_word_length = 4`` (the Križemkražem template, with this test's tile set on the standard
  board): from the centre H8 (a double word) ZOK is (Z 3 + O 1 + K 2) × 2 = 12 but has three
  letters, so no front end takes it; OKNO, (1 + 2 + 1 + 1) × 2 = 10, is the best play;
- the Slovenian and Russian presets name no minimum bag for an exchange (``exchange_min_bag = 0``),
  but an exchange draws its tiles from the bag: never more tiles than it holds, never from an
  empty bag (here with a ten-tile set, 6 A worth 1 and 4 B worth 3, racks of three);
- WESPA's challenge bonus is +5 per word challenged (``challenge_bonus_per = "word"``), at most
  the words the play forms: 9F FE forms FE, IF and NE (14), so +10 for two, never +20;
- WESPA's game ends after six scoreless turns (three each) and each player loses their own rack:
  ABEEGLS = 1+3+1+1+2+1+1 = 10, EFQRSUV = 1+4+10+1+1+1+4 = 22.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamecore.game_state import ChallengeBonus, Exchange, GameState, IllegalMove, Pass, Play
from gamecore.play import validate_play
from gamecore.rules import load_rules, read_rules
from pipelines.replay import ReplayOptions, replay_file

RULES_DIR = Path(__file__).resolve().parents[1] / "gamecore" / "data" / "rules"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _cli(*args: str):
    """``skrafl ARGS`` in this process (exit code, stdout, stderr; a SkraflError as ``exception``)."""
    from cli.main import click_app

    return CliRunner().invoke(click_app(), list(args), catch_exceptions=True)


def _replay(path: Path, **opts) -> tuple[dict, list[dict]]:
    res = replay_file(str(path), ReplayOptions(**opts))
    return res.game_row, res.move_rows


def _give(st: GameState, player: int, tiles: str) -> None:
    """Give ``player`` exactly ``tiles`` from the bag (the old rack back into it; a tile on the other
    rack swapped for one of the bag): every tile stays in the game."""
    st.bag.extend(st.racks[player])
    st.racks[player] = []
    for t in tiles:
        if t not in st.bag:
            other = next(r for q, r in enumerate(st.racks) if q != player and t in r)
            other.remove(t)
            swap = next(x for x in st.bag if x not in tiles)
            st.bag.remove(swap)
            other.append(swap)
            st.bag.append(t)
        st.bag.remove(t)
        st.racks[player].append(t)


def _play(st: GameState, text: str) -> Play:
    return Play(st.turn, validate_play(st.board, text, st.racks[st.turn], None, st.rules))


# --- min_word_length = 4 --------------------------------------------------------------------------

_KK_TILES = """# tile set: kk_test
# source: a club's own set for this test (Križemkražem's is not published)
letter	count	value	vowel
?	10	0	0
A	20	1	1
O	15	1	1
K	10	2	0
N	10	1	0
S	10	1	0
T	10	1	0
Z	4	3	0
"""
_KK_RACK = "KNOOSTZAAA"  # ten tiles: Križemkražem's rack


@pytest.fixture(scope="module")
def kk(tmp_path_factory):
    """The Križemkražem template with its ``unpublished`` line removed, this test's tile set and
    the standard board; a lexicon of okno, sok and zok."""
    d = tmp_path_factory.mktemp("one_answer_kk")
    (d / "tiles.tsv").write_text(_KK_TILES, encoding="utf-8")
    template = (RULES_DIR / "krizemkrazem.toml").read_text(encoding="utf-8")
    mine = "\n".join(ln for ln in template.splitlines() if not ln.startswith("unpublished"))
    mine = mine.replace('"YOUR_TILES.tsv"', '"tiles.tsv"').replace('"YOUR_BOARD_17x17.txt"', '"standard"')
    (d / "kk.toml").write_text(mine + "\n", encoding="utf-8")
    (d / "words.txt").write_text("okno\nsok\nzok\n", encoding="utf-8")
    r = _cli("build", "sl", "--source", "wordlist", "--input", str(d / "words.txt"), "--out", str(d / "sl"), "-q")
    assert r.exit_code == 0, (r.output, r.exception)
    for word, score in (("ZOK", 12), ("OKNO", 10)):
        (d / f"{word}.gcg").write_text(
            f"#player1 a A\n#player2 b B\n>a: {_KK_RACK} 8H {word} +{score} {score}\n", encoding="utf-8"
        )
    rules = read_rules(d / "kk.toml")
    assert rules.min_word_length == 4
    return d


def test_a_word_under_min_word_length_is_refused_by_every_front_end(kk, tmp_path):
    rules = read_rules(kk / "kk.toml")
    # replay (and --analyze): the play cannot be made
    for analyze in (False, True):
        row, _ = _replay(kk / "ZOK.gcg", preset=str(kk / "kk.toml"), lexicon_dir=str(kk / "sl"), analyze=analyze)
        assert row["status"] == "error" and row["error"].startswith("ILLEGAL_PLAY"), row["error"]
        assert "too_short" in row["error"] and "ZOK has 3" in row["error"]
    # score --game: the recorded play ruled illegal, for the same reason
    r = _cli(
        "score",
        "--game",
        str(kk / "ZOK.gcg"),
        "--move",
        "1",
        "--rules",
        str(kk / "kk.toml"),
        "--lexicon",
        str(kk / "sl"),
        "-f",
        "json",
    )
    assert r.exit_code == 1, (r.output, r.exception)
    got = json.loads(r.stdout)
    assert (got["legal"], got["reason"]["code"]) == (False, "too_short") and "ZOK has 3" in got["reason"]["message"]
    # show --game: the game cannot be replayed past it; the play cannot be drawn before it
    r = _cli("show", "--game", str(kk / "ZOK.gcg"), "--rules", str(kk / "kk.toml"), "--out", str(tmp_path / "end.svg"), "-q")
    assert r.exit_code != 0 and "too_short" in str(r.exception)
    r = _cli(
        "show", "--game", str(kk / "ZOK.gcg"), "--move", "1", "--play", "recorded", "--rules", str(kk / "kk.toml"),
        "--out", str(tmp_path / "before.svg"), "-q",
    )  # fmt: skip
    assert r.exit_code != 0 and "too_short" in str(r.exception)
    # the game state
    st = GameState.new(rules, seed="kk")
    _give(st, 0, _KK_RACK)
    with pytest.raises(IllegalMove) as e:
        st.apply(_play(st, "8H ZOK"))
    assert e.value.code == "too_short" and "ZOK has 3" in e.value.message
    assert st.board.is_empty() and st.turn == 0  # nothing changed
    assert st.apply(_play(st, "8H OKNO")).score == 10


def test_the_best_play_forms_no_word_under_min_word_length(kk):
    rules = read_rules(kk / "kk.toml")
    empty = "15/" * 14 + "15"
    r = _cli(
        "best", "--rules", str(kk / "kk.toml"), "--lexicon", str(kk / "sl"), "--cgp", f"{empty} {_KK_RACK}/ 0/0 0", "--all", "-f", "json",
    )  # fmt: skip
    assert r.exit_code == 0, (r.output, r.exception)
    rows = json.loads(r.stdout)
    assert {p["word"] for p in rows} == {"OKNO"} and rows[0]["score"] == 10
    # replay --analyze: OKNO is the best play, nothing lost
    row, moves = _replay(kk / "OKNO.gcg", preset=str(kk / "kk.toml"), lexicon_dir=str(kk / "sl"), analyze=True, strict=True)
    assert row["status"] == "ok", row["error"]
    assert (moves[0]["best_word"], moves[0]["best_score"], moves[0]["points_lost"]) == ("OKNO", 10, 0)
    # self-play's move picker on the game state
    from gamecore.autoplay import Mover
    from gamecore.best import best_play, load_bundle

    bundle = load_bundle(kk / "sl")
    st = GameState.new(rules, seed="kk")
    _give(st, 0, _KK_RACK)
    top = Mover(bundle, rules).top_play(st, st.racks[0])
    assert (top.word_text(), top.score) == ("OKNO", 10)
    assert best_play(st.board, st.racks[0], bundle, rules).word_text() == "OKNO"
    # the same lexicon with the two-letter minimum: ZOK (12) is the best play
    two = rules.replace(min_word_length=2)
    assert (best_play(st.board, st.racks[0], bundle, two).word_text(), Mover(bundle, two).top_play(st, st.racks[0]).score) == (
        "ZOK",
        12,
    )


# --- an exchange the bag cannot serve ------------------------------------------------------------

# 8G BA: B 3 + A 1 on the centre double word = 8; ben draws 2 of the 4 left: 2 in the bag.
# H7 A.B down (no premium): 1 + 1 + 3 = 5; ann draws the last 2.
_TINY = """#player1 ann Ann
#player2 ben Ben
>ann: AAB -AAB +0 0
>ben: ABB 8G BA +8 8
"""
_EXCHANGES = {
    "two_of_two": (">ann: AAB -AB +0 0\n", None),
    "three_of_two": (">ann: AAB -AAB +0 0\n", "exchange with 2 tiles in the bag (3 tiles exchanged need as many in the bag)"),
    "from_empty_bag": (
        ">ann: AAB H7 A.B +5 5\n>ben: AAB -A +0 8\n",
        "exchange with 0 tiles in the bag (1 tile exchanged need as many in the bag)",
    ),
}


@pytest.fixture(scope="module", params=["slovene", "russian_scrabble"])
def tiny(request, tmp_path_factory):
    """The preset with the ten-tile set and racks of three (its exchange rule unchanged)."""
    preset = request.param
    d = tmp_path_factory.mktemp(f"one_answer_{preset}")
    (d / "tiny.tsv").write_text((FIXTURES / "multi" / "tiny.tsv").read_text(encoding="utf-8"), encoding="utf-8")
    text = (RULES_DIR / f"{preset}.toml").read_text(encoding="utf-8")
    ts = load_rules(preset).tile_set
    mine = text.replace(f'tile_set = "{ts}"', 'tile_set = "tiny.tsv"').replace("rack_size = 7", "rack_size = 3")
    assert mine != text and "exchange_min_bag = 0" in mine
    (d / "rules.toml").write_text(mine, encoding="utf-8")
    for name, (tail, _) in _EXCHANGES.items():
        (d / f"{name}.gcg").write_text(_TINY + tail, encoding="utf-8")
    return d


@pytest.mark.parametrize("case", list(_EXCHANGES))
def test_an_exchange_the_bag_cannot_serve_is_refused_by_every_front_end(tiny, case, tmp_path):
    why = _EXCHANGES[case][1]
    game, rules = tiny / f"{case}.gcg", str(tiny / "rules.toml")
    for opts in ({}, {"analyze": True}, {"strict": True}):
        row, _ = _replay(game, preset=rules, **opts)
        if why is None:
            assert row["status"] == "ok", row["error"]
        else:
            assert row["status"] == ("error" if opts.get("strict") else "mismatch"), row
            assert row["error"].startswith(f"EXCHANGE_BAG_TOO_SMALL: {why}"), row["error"]
    # score --game and show --game at the end of the game: the positions after it come with the note
    for command in (
        ("score", "--game", str(game), "--rules", rules, "--play", "9G A", "-f", "json"),
        ("show", "--game", str(game), "--rules", rules, "--out", str(tmp_path / "end.svg")),
    ):
        r = _cli(*command)
        assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
        if why is None:
            assert "breaks the rules" not in r.stderr
        else:
            assert f"breaks the rules before this position: EXCHANGE_BAG_TOO_SMALL: {why}" in r.stderr, r.stderr
    # the game state: the same exchange in the same bag
    st = GameState.new(read_rules(tiny / "rules.toml"), seed=case)
    st.apply(Exchange(0, tuple(st.racks[0])))  # 3 tiles with 4 in the bag
    _give(st, 1, "ABB")
    st.apply(_play(st, "8G BA"))
    assert (st.scores, len(st.bag)) == ([0, 8], 2)
    if case == "from_empty_bag":
        _give(st, 0, "AAB")
        st.apply(_play(st, "H7 A.B"))
        assert (st.scores, len(st.bag)) == ([5, 8], 0)
    n = {"two_of_two": 2, "three_of_two": 3, "from_empty_bag": 1}[case]
    assert st.can_exchange(n) is (why is None)  # what self-play's move picker asks
    tiles = tuple(st.racks[st.turn][:n])
    if why is None:
        assert st.apply(Exchange(st.turn, tiles)).score == 0 and len(st.bag) == 2
    else:
        with pytest.raises(IllegalMove) as e:
            st.apply(Exchange(st.turn, tiles))
        assert e.value.code == "bag_too_small" and e.value.message == why


def test_best_by_equity_offers_no_exchange_the_bag_cannot_serve(tiny, tmp_path):
    from gamecore.board import Board
    from gamecore.equity import LeaveTable, rank
    from gamecore.klv import Klv, write_klv2

    rules = read_rules(tiny / "rules.toml")
    ts = rules.tiles()
    board = Board(rules.layout(), ts)
    board.place(7, 6, "B")
    board.place(7, 7, "A")  # 8G BA: 10 - 2 on the board - 3 on ann's rack - 3 on ben's = 2 in the bag
    write_klv2(tmp_path / "tiny.klv2", {(1,): 1.0, (2,): -1.0})
    table = LeaveTable(Klv.read(tmp_path / "tiny.klv2"), ts)
    rows = rank(board, ["A", "A", "B"], [], table, rules)
    assert rows and max(len(r.exchanged) for r in rows if r.kind == "exchange") <= 2


# --- the challenge bonus per word challenged -------------------------------------------------------

_FIVE_POINT = """#player1 alice Alice
#player2 bob Bob
>alice: ABIJNOT 8D JOINT +40 40
>bob: EFQRSUV 9F FE +14 14
>bob: QRSUV (challenge) +{bonus} {bob}
>alice: ABEEGLS 8D .....S +13 53
>alice: ABEEGL (challenge) +5 58
"""


@pytest.fixture(scope="module")
def en(tmp_path_factory):
    d = tmp_path_factory.mktemp("one_answer_en")
    (d / "words.txt").write_text("fe\nif\nne\njoint\njoints\n", encoding="utf-8")
    r = _cli("build", "en", "--source", "wordlist", "--input", str(d / "words.txt"), "--out", str(d / "en"), "-q")
    assert r.exit_code == 0, (r.output, r.exception)
    for bonus in (10, 20):
        (d / f"bonus{bonus}.gcg").write_text(_FIVE_POINT.format(bonus=bonus, bob=14 + bonus), encoding="utf-8")
    return d


def test_five_points_per_word_challenged_in_every_front_end(en):
    for analyze in (False, True):
        row, moves = _replay(en / "bonus10.gcg", preset="wespa", strict=True, analyze=analyze)
        assert row["status"] == "ok", row["error"]
        assert (row["score1"], row["score2"]) == (58, 24)
        assert [m["score_computed"] for m in moves if m["kind"] == "challenge_bonus"] == [10, 5]
        row, _ = _replay(en / "bonus20.gcg", preset="wespa", strict=True, analyze=analyze)  # FE forms three words
        assert row["status"] == "error" and row["error"].startswith("CHALLENGE_BONUS_INCORRECT"), row["error"]
    # score --game: a wrong challenge of two of FE's words under the five-point rule
    r = _cli(
        "score", "--game", str(en / "bonus10.gcg"), "--move", "2", "--lexicon", str(en / "en"),
        "--challenge", "five_point", "--challenged", "fe,if", "-f", "json",
    )  # fmt: skip
    assert r.exit_code == 0, (r.output, r.exception)
    assert json.loads(r.stdout)["challenge"]["bonus"] == 10
    # show --game's positions: the scores drawn at the end
    from cli.position import game_positions

    *_, (_, end) = game_positions(en / "bonus10.gcg", "wespa")
    assert end.scores == (58, 24)
    # the game state
    st = GameState.new(load_rules("wespa"), seed="five")
    _give(st, 0, "ABIJNOT")
    st.apply(_play(st, "8D JOINT"))
    _give(st, 1, "EFQRSUV")
    st.apply(_play(st, "9F FE"))
    with pytest.raises(IllegalMove):
        st.apply(ChallengeBonus(1, words=4))  # FE formed three words
    assert st.apply(ChallengeBonus(1, words=2)).score == 10
    _give(st, 0, "ABEEGLS")
    st.apply(_play(st, "8D .....S"))
    assert st.apply(ChallengeBonus(0, words=1)).score == 5
    assert st.scores == [58, 24]


# --- the end by scoreless turns ----------------------------------------------------------------------

_SCORELESS = """#player1 alice Alice
#player2 bob Bob
>alice: ABIJNOT 8D JOINT +40 40
>bob: EFQRSUV - +0 0
>alice: ABEEGLS - +0 40
>bob: EFQRSUV - +0 0
>alice: ABEEGLS - +0 40
>bob: EFQRSUV - +0 0
"""
_LAST_PASS = """>alice: ABEEGLS - +0 40
>alice: ABEEGLS (ABEEGLS) -10 30
>bob: EFQRSUV (EFQRSUV) -22 -22
"""


def test_six_scoreless_turns_end_the_game_in_every_front_end(tmp_path):
    five, six = tmp_path / "five.gcg", tmp_path / "six.gcg"
    five.write_text(_SCORELESS, encoding="utf-8")
    six.write_text(_SCORELESS + _LAST_PASS, encoding="utf-8")
    for analyze in (False, True):
        row, _ = _replay(five, preset="wespa", strict=True, analyze=analyze)
        assert row["status"] == "ok" and not row["finished"], row
        row, _ = _replay(six, preset="wespa", strict=True, analyze=analyze)
        assert row["status"] == "ok", row["error"]
        assert (row["finished"], row["ended_by"], row["score1"], row["score2"], row["winner"]) == (
            True,
            "zeros",
            30,
            -22,
            "alice",
        )
    # show --game / score --game: the end position has nobody on turn and the final scores
    from cli.position import game_positions

    *_, (_, end) = game_positions(six, "wespa")
    assert (end.mover, end.scores) == (None, (30, -22))
    *_, (_, end) = game_positions(five, "wespa")
    assert end.mover == 0  # five scoreless turns: alice is still to move
    r = _cli("show", "--game", str(six), "--rules", "wespa", "--out", str(tmp_path / "six.svg"))
    assert r.exit_code == 0 and "breaks the rules" not in r.stderr, (r.stderr, r.exception)
    # the game state
    st = GameState.new(load_rules("wespa"), seed="zeros")
    _give(st, 0, "ABIJNOT")
    st.apply(_play(st, "8D JOINT"))
    _give(st, 0, "ABEEGLS")
    _give(st, 1, "EFQRSUV")
    for i in range(5):
        st.apply(Pass((i + 1) % 2))
    assert st.over is None and st.turn == 0
    st.apply(Pass(0))
    assert (st.over, st.scores, st.pre_end, st.winner()) == ("zeros", [30, -22], [40, 0], 0)


# --- Endline: a challenge bonus that reaches the target ends the game ------------------------------

# The Scrabble rules page's Endline (scrabble_endline_beginner: the game ends when a player reaches 70, two
# players; no adjustment) with a club's +30 per wrong challenge: JOINT's 40 and the bonus make 70.
_ENDLINE = """#player1 alice Alice
#player2 bob Bob
>alice: ABIJNOT 8D JOINT +40 40
>alice: AB (challenge) +30 70
"""


def test_a_challenge_bonus_reaching_the_endline_target_ends_the_game(tmp_path):
    text = (RULES_DIR / "scrabble_endline_beginner.toml").read_text(encoding="utf-8")
    (tmp_path / "endline.toml").write_text(text + "challenge_bonus = 30\n", encoding="utf-8")
    rules = str(tmp_path / "endline.toml")
    game, later = tmp_path / "endline.gcg", tmp_path / "later.gcg"
    game.write_text(_ENDLINE, encoding="utf-8")
    later.write_text(_ENDLINE + ">bob: EFQRSUV 9F FE +14 14\n", encoding="utf-8")
    for analyze in (False, True):
        row, _ = _replay(game, preset=rules, strict=True, analyze=analyze)
        assert row["status"] == "ok", row["error"]
        assert (row["finished"], row["ended_by"], row["score1"], row["score2"], row["winner"]) == (True, "target", 70, 0, "alice")
        row, _ = _replay(later, preset=rules, strict=True, analyze=analyze)
        assert row["status"] == "error" and row["error"].startswith("MOVE_EVENT_AFTER_GAME_END"), row["error"]
    from cli.position import game_positions

    *_, (_, end) = game_positions(game, rules)
    assert (end.mover, end.scores) == (None, (70, 0))
    st = GameState.new(read_rules(tmp_path / "endline.toml"), seed="endline")
    _give(st, 0, "ABIJNOT")
    st.apply(_play(st, "8D JOINT"))
    assert st.over is None
    st.apply(ChallengeBonus(0))
    assert (st.over, st.scores, st.adjustments, st.winner()) == ("target", [70, 0], [], 0)


# --- self-play and replay: the Slovenian/Russian exchange and end rules on real games ---------------

IS_LEX = Path(__file__).resolve().parents[1] / "output" / "is"


@pytest.mark.skipif(not (IS_LEX / "lexicon.kwg").is_file(), reason="output/is not built")
def test_self_play_and_replay_agree_under_the_slovenian_exchange_and_end_rules(tmp_path):
    """Netskrafl's tiles and lexicon under the Slovenian preset's exchange and end fields (no minimum
    bag, two scoreless rounds, others' racks): each game exchanges exactly as many tiles as the bag
    holds once it holds fewer than seven (allowed: the tiles come from the bag), and replay of the
    exported game says ok, with the game state's final scores, end and winner."""
    import random

    from gamecore.autoplay import GameResult, Mover, Strategy, gcg_text
    from gamecore.best import load_bundle

    sl = load_rules("slovene")
    text = (RULES_DIR / "netskrafl.toml").read_text(encoding="utf-8")
    for key in ("exchange_min_bag", "scoreless_rounds_end", "end_out", "score_floor_zero", "challenge_bonus"):
        text = "\n".join(ln for ln in text.splitlines() if not ln.startswith(key))
    text += (
        f"\nexchange_min_bag = {sl.exchange_min_bag}\nscoreless_rounds_end = {sl.scoreless_rounds_end}\n"
        f'end_out = "{sl.end_out}"\n'
    )
    (tmp_path / "is_sl.toml").write_text(text.replace('name = "netskrafl"', 'name = "is_sl"'), encoding="utf-8")
    rules = read_rules(tmp_path / "is_sl.toml")
    assert (rules.exchange_min_bag, rules.scoreless_rounds_end, rules.end_out) == (0, 2, "others_racks")
    bundle = load_bundle(IS_LEX)
    mover, score = Mover(bundle, rules), Strategy("score")
    small = 0
    for i in range(6):
        st = GameState.new(rules, seed=f"sl:{i}")
        rng = random.Random(f"sl:{i}:moves")
        swapped = False
        while st.over is None:
            n = len(st.bag)
            if not swapped and 0 < n < 7 and len(st.racks[st.turn]) >= n:
                ev, swapped = Exchange(st.turn, tuple(st.racks[st.turn][:n])), True
                assert not st.can_exchange(n + 1)  # never more than the bag holds
                small += 1
            else:
                ev = mover.choose(st, score, rng)
            st.apply(ev)
        path = tmp_path / f"game{i}.gcg"
        path.write_text(gcg_text(GameResult(st, ("score", "score"), 0, [0, 0]), ["a", "b"]), encoding="utf-8")
        row, _ = _replay(path, preset=str(tmp_path / "is_sl.toml"), strict=True)
        assert row["status"] == "ok", row["error"]
        assert ([row["score1"], row["score2"]], row["ended_by"]) == (st.scores, st.over)
        assert row["winner"] == (None if st.winner() is None else "ab"[st.winner()])
    assert small >= 3  # the rule was exercised
