"""Replay applies the rules as the games have them: the record's bag, the
challenge bonus per word challenged, exchanges and the bag, the minimum word length, a player's
two passes in a row, bounded time penalties.

Expected values come from the rules (docs/RULES.md, the tile sets of reference/tile_sets.tsv,
the seeds) and the written scores of real game logs, never from the replayer."""

from __future__ import annotations

import json

import pytest

from pipelines.replay import ReplayOptions, replay_file


def _replay(path, **opts):
    res = replay_file(str(path), ReplayOptions(**opts))
    return res.game_row, res.move_rows


# --- a Netskrafl record's bag wins over --lang/--rules -------------------------------


def _old_bag_record(tmp_path):
    # DÓT across from H7, the Ó on the centre star (a double word). Old bag (reference/tile_sets.tsv,
    # icelandic_old, from Netskrafl's languages.py): D 4, Ó 6, T 1 → (4 + 6 + 1) × 2 = 22; the new
    # bag's values (D 5, Ó 3, T 2) would give 20.
    rec = {
        "irack0": "dótaeir",
        "irack1": "nsklmgu",
        "prefs": {"newbag": False},
        "moves": [{"player": 0, "coord": "H7", "tiles": "dót", "score": 22, "rack": "aeirnnn"}],
    }
    path = tmp_path / "old_bag.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    return path


@pytest.mark.parametrize("opts", [{}, {"lang": "is"}, {"preset": "netskrafl"}], ids=["record", "lang-is", "rules-netskrafl"])
def test_the_record_old_bag_wins_over_the_options(tmp_path, opts):
    row, moves = _replay(_old_bag_record(tmp_path), strict=True, **opts)
    assert row["status"] == "ok", row["error"]
    assert [m["score_computed"] for m in moves] == [22]


# --- the five-point challenge is five points per word challenged ---------------------

# A game made for the rule. 8D JOINT: J on the double letter at D8, the star doubles the word:
# (8×2 + 1+1+1+1) × 2 = 40. 9F FE under IN forms FE (4 + 1×2 on the DL at G9 = 6), IF (5) and NE (3):
# 14. 8D .....S: JOINTS, no premium left = 13.
_FIVE_POINT_GAME = """#player1 alice Alice
#player2 bob Bob
>alice: ABIJNOT 8D JOINT +40 40
>bob: EFQRSUV 9F FE +14 14
>bob: QRSUV (challenge) +{two} {bob}
>alice: ABEEGLS 8D .....S +13 53
>alice: ABEEGL (challenge) +5 58
"""


def _five_point_file(tmp_path, two=10, pragma=""):
    path = tmp_path / "five.gcg"
    path.write_text(pragma + _FIVE_POINT_GAME.format(two=two, bob=14 + two), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "opts", [{"strict": True}, {"strict": True, "preset": "wespa"}, {"strict": True, "lang": "en"}], ids=["file", "wespa", "en"]
)
def test_five_points_per_word_challenged(tmp_path, opts):
    """WESPA (and NASPA's CSW) rule: +5 for each word the challenger names: FE's challenge of two of
    its three words is +10, JOINTS's of its one word +5, in the same game."""
    row, moves = _replay(_five_point_file(tmp_path), **opts)
    assert row["status"] == "ok", row["error"]
    assert (row["score1"], row["score2"]) == (58, 24)
    assert [m["score_computed"] for m in moves if m["kind"] == "challenge_bonus"] == [10, 5]


def test_a_bonus_beyond_five_per_word_formed_is_refused(tmp_path):
    """FE forms three words: at most 3 × 5 = 15 under the five-point rule; +20 is not one."""
    row, _ = _replay(_five_point_file(tmp_path, two=15), strict=True, preset="wespa")
    assert row["status"] == "ok", row["error"]
    row, _ = _replay(_five_point_file(tmp_path, two=20), strict=True, preset="wespa")
    assert row["status"] == "error" and row["error"].startswith("CHALLENGE_BONUS_INCORRECT"), row["error"]
    row, _ = _replay(_five_point_file(tmp_path, two=10, pragma="#challenge-rule FIVE_POINT\n"), strict=True)
    assert row["status"] == "ok", row["error"]


def test_many_challenges_replays_with_its_written_scores(shared):
    """Woogles' many_challenges.gcg (+10 and +5 bonuses: two words of STRaINT, one of POOVIER and
    SANTI.) replays under --strict to its written scores, Winter 373, jvc 477."""
    path = next(iter(sorted(shared.glob("corpora/gcg/*many_challenges.gcg"))), None)
    if path is None:
        pytest.skip("many_challenges.gcg is not in ../shared/corpora/gcg")
    row, _ = _replay(path, strict=True)
    assert row["status"] == "ok", row["error"]
    assert (row["score1"], row["score2"]) == (373, 477)


# --- an exchange draws from the bag -------------------------------------

# tests/fixtures/multi/tiny.tsv: 6 A and 4 B; racks of 3 (tiny_scrabble.toml: exchange_min_bag = 0, as
# the Slovenian and Russian presets). After the deal of two racks the bag holds 10 − 6 = 4 tiles.
# 8G BA: (3 + 1) × 2 on the star = 8, ben draws 2: 2 left. H7 A.B: 1 + 1 + 3 = 5, ann draws 2: none left.
_TINY_GAME = """#player1 ann Ann
#player2 ben Ben
>ann: AAB -AAB +0 0
>ben: ABB 8G BA +8 8
"""


def _tiny(tmp_path, text):
    from pathlib import Path

    rules = Path(__file__).parent / "fixtures" / "multi" / "tiny_scrabble.toml"
    path = tmp_path / "tiny.gcg"
    path.write_text(text, encoding="utf-8")
    res = replay_file(str(path), ReplayOptions(strict=True, preset=str(rules)))
    return res.game_row


def test_an_exchange_within_the_bag_is_allowed(tmp_path):
    row = _tiny(tmp_path, _TINY_GAME + ">ann: AAB -AB +0 0\n")  # 2 tiles, 2 in the bag
    assert row["status"] == "ok", row["error"]


def test_an_exchange_larger_than_the_bag_is_refused(tmp_path):
    row = _tiny(tmp_path, _TINY_GAME + ">ann: AAB -AAB +0 0\n")  # 3 tiles, 2 in the bag
    assert row["status"] == "error" and row["error"].startswith("EXCHANGE_BAG_TOO_SMALL"), row["error"]


def test_an_exchange_from_an_empty_bag_is_refused(tmp_path):
    row = _tiny(tmp_path, _TINY_GAME + ">ann: AAB H7 A.B +5 5\n>ben: AAB -A +0 8\n")
    assert row["status"] == "error" and row["error"].startswith("EXCHANGE_BAG_TOO_SMALL"), row["error"]
    assert "0 tiles in the bag" in row["error"]


# --- the rule set's minimum word length in replay and in --analyze's best play -------------

# A club's own Križemkražem files, as in test_custom_boards_and_racks.py (the real ones are not published):
# Z 3, O 1, K 2, N 1, S 1, T 1; a double word on the start square I9 of a 17×17 board. Words: okno,
# sok, zok. From I9 across: ZOK = (3 + 1 + 2) × 2 = 12, OKNO = (1 + 2 + 1 + 1) × 2 = 10, SOK = 8.
_KK_TILES = """# tile set: my_kk
# source: a club's own set for this test
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


@pytest.fixture(scope="module")
def kk(tmp_path_factory):
    from clirun import run_skrafl_here

    d = tmp_path_factory.mktemp("kk_replay")
    (d / "tiles.tsv").write_text(_KK_TILES, encoding="utf-8")
    rows = ["|" + " " * 17 + "|" for _ in range(17)]
    rows[8] = "|" + " " * 8 + "-" + " " * 8 + "|"  # I9: DW, the start square
    (d / "board17.txt").write_text(
        "# my 17x17\n# start square: I9\n# source: this test\n" + "\n".join(rows) + "\n", encoding="utf-8"
    )
    # the shipped template's values (rack_size 10, min_word_length 4) with this test's own files
    from pathlib import Path

    template = (Path(__file__).resolve().parents[1] / "gamecore" / "data" / "rules" / "krizemkrazem.toml").read_text(
        encoding="utf-8"
    )
    mine = "\n".join(ln for ln in template.splitlines() if not ln.startswith("unpublished"))
    mine = mine.replace('"YOUR_TILES.tsv"', '"tiles.tsv"').replace('"YOUR_BOARD_17x17.txt"', '"board17.txt"')
    (d / "kk.toml").write_text(mine + "\n", encoding="utf-8")
    (d / "kk2.toml").write_text(mine.replace("min_word_length = 4", "min_word_length = 2") + "\n", encoding="utf-8")
    (d / "words.txt").write_text("okno\nsok\nzok\n", encoding="utf-8")
    r = run_skrafl_here("build", "sl", "--source", "wordlist", "--input", str(d / "words.txt"), "--out", str(d / "sl"), "-q")
    assert r.returncode == 0, r.stderr
    return d


def _kk_replay(kk, tmp_path, play, rules="kk.toml", **opts):
    path = tmp_path / "kk.gcg"
    path.write_text(f"#player1 a A\n#player2 b B\n>a: KNOOSTZ {play}\n", encoding="utf-8")
    res = replay_file(str(path), ReplayOptions(preset=str(kk / rules), lexicon_dir=str(kk / "sl"), **opts))
    return res.game_row, res.move_rows


def test_replay_refuses_a_word_shorter_than_the_rules_allow(kk, tmp_path):
    row, _ = _kk_replay(kk, tmp_path, "9I ZOK +12 12")
    assert row["status"] == "error" and row["error"].startswith("ILLEGAL_PLAY"), row["error"]
    assert "too_short" in row["error"] and "ZOK has 3" in row["error"]
    row, _ = _kk_replay(kk, tmp_path, "9I ZOK +12 12", rules="kk2.toml", strict=True)  # words of 2 or more
    assert row["status"] == "ok", row["error"]


def test_analyze_best_play_forms_no_short_word(kk, tmp_path):
    row, moves = _kk_replay(kk, tmp_path, "9I OKNO +10 10", strict=True, analyze=True)
    assert row["status"] == "ok", row["error"]
    assert (moves[0]["best_word"], moves[0]["best_score"], moves[0]["points_lost"]) == ("OKNO", 10, 0)
    row, moves = _kk_replay(kk, tmp_path, "9I OKNO +10 10", rules="kk2.toml", strict=True, analyze=True)
    assert (moves[0]["best_word"], moves[0]["best_score"], moves[0]["points_lost"]) == ("ZOK", 12, 2)


# --- the Scrabble rules page's "a player who passes twice in a row ends the game" -------------------

# 8D JOINT = 40 and 8D .....S = 13 as above. bob passes twice in a row (alice plays between): the Scrabble rules page
# ends the game there ("Ef leikmaður fer framhjá tveimur beygjum í röð er leiknum lokið") and each
# player loses their own rack ("Stigagjöf"): alice ABDEEGL = 1+3+2+1+1+2+1 = 11, bob EFQRSUV =
# 1+4+10+1+1+1+4 = 22.
_PASSES_TWICE = """#player1 alice Alice
#player2 bob Bob
>alice: ABIJNOT 8D JOINT +40 40
>bob: EFQRSUV - +0 0
>alice: ABEEGLS 8D .....S +13 53
>bob: EFQRSUV {second} +0 0
"""
_PENALTIES = """>alice: ABDEEGL (ABDEEGL) -11 42
>bob: EFQRSUV (EFQRSUV) -22 -22
"""


def _passes_game(tmp_path, second="-", tail=_PENALTIES, preset="scrabble_passes_twice", strict=True):
    path = tmp_path / "passes.gcg"
    path.write_text(_PASSES_TWICE.format(second=second) + tail, encoding="utf-8")
    return _replay(path, strict=strict, preset=preset)


def test_a_player_passing_twice_in_a_row_ends_the_game(tmp_path):
    row, _ = _passes_game(tmp_path)
    assert row["status"] == "ok", row["error"]
    assert (row["finished"], row["ended_by"], row["score1"], row["score2"], row["winner"]) == (True, "passes", 42, -22, "alice")


def test_after_two_passes_no_move_is_made(tmp_path):
    row, _ = _passes_game(tmp_path, tail=">alice: ABDEEGL 9E BE +7 60\n")
    assert row["status"] == "error" and row["error"].startswith("MOVE_EVENT_AFTER_GAME_END"), row["error"]


def test_an_exchange_is_no_pass_and_other_presets_play_on(tmp_path):
    row, _ = _passes_game(tmp_path, second="-EFQ", tail="")  # pass, exchange: not two passes
    assert row["status"] == "ok" and not row["finished"], row["error"]
    row, _ = _passes_game(tmp_path, tail="", preset="scrabble")  # the boxed game without the rule
    assert row["status"] == "ok" and not row["finished"], row["error"]
    row, _ = _passes_game(tmp_path, preset="scrabble")  # so the rack lines come before the end
    assert row["status"] == "error" and row["error"].startswith("END_GAME_EVENT_BEFORE_GAME_END"), row["error"]


# --- Ordspill's time penalties bounded by the Ordspill.no rules ------------------------------------

# The Ordspill.no rules ("Tidstrekk"): −10 per started minute over (Lynrask, Panikk: per started 15 s); the game
# ends by itself once a player is more than five minutes over: at most 21 started 15-second periods,
# −210. The game: 8G ORD (norwegian_nsf: O 2, R 1, D 1; the star doubles) = 8, then six passes end it
# (3 each, docs/RULES.md); each loses their own rack: kari AEGNSTT = 1+1+2+1+1+1+1 = 8, ola BHKLMPU =
# 4+3+2+1+2+4+4 = 20.
_ORDSPILL = """#player1 kari Kari
#player2 ola Ola
>kari: DEGNORS 8G ORD +8 8
>ola: BHKLMPU - +0 0
>kari: AEGNSTT - +0 8
>ola: BHKLMPU - +0 0
>kari: AEGNSTT - +0 8
>ola: BHKLMPU - +0 0
>kari: AEGNSTT - +0 8
>kari: AEGNSTT (AEGNSTT) -8 0
>ola: BHKLMPU (BHKLMPU) -20 -20
>ola: BHKLMPU (time) {penalty} {total}
"""


@pytest.mark.parametrize(("penalty", "ok"), [(-10, True), (-60, True), (-210, True), (-7, False), (-500, False), (-220, False)])
def test_ordspill_time_penalties_are_bounded(tmp_path, penalty, ok):
    path = tmp_path / "ordspill.gcg"
    path.write_text(_ORDSPILL.format(penalty=penalty, total=-20 + penalty), encoding="utf-8")
    row, _ = _replay(path, strict=True, preset="ordspill")
    if ok:
        assert row["status"] == "ok", row["error"]
        assert (row["score1"], row["score2"]) == (0, -20 + penalty)
    else:
        assert row["status"] == "error" and row["error"].startswith("TIME_PENALTY_INCORRECT"), row["error"]


# --- the Ordspill.no rules' Spesial and Tilfeldig boards: templates for the user's own board ---------------------


@pytest.mark.parametrize("name", ["ordspill_spesial", "ordspill_tilfeldig"])
def test_ordspill_boards_without_a_published_layout(name, tmp_path):
    """The Ordspill.no rules: "Det finnes tre ulike spillebrett: Standard, Spesial og Tilfeldig". The presets say
    in one line what is missing; a copy with the game's own board replays under it: a triple letter
    on G8 makes 8G ORD (O 2 × 3 + R 1 + D 1) × 2 on the star = 16 (8 on the standard board)."""
    from pathlib import Path

    from clirun import run_skrafl_here

    r = run_skrafl_here("score", "--rules", name, "--board", "-", "--play", "8G ORD", stdin="")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "board" in lines[0] and "Traceback" not in r.stderr, r.stderr
    rules_dir = Path(__file__).resolve().parents[1] / "gamecore" / "data" / "rules"
    standard = (rules_dir.parent / "boards" / "standard.txt").read_text(encoding="utf-8").splitlines()
    row8 = next(i for i, ln in enumerate(standard) if ln.startswith("|=  '   -   '  =|"))
    standard[row8] = "|=  '  \"-   '  =|"  # G8: a triple letter
    (tmp_path / "mine.txt").write_text("\n".join(standard) + "\n", encoding="utf-8")
    text = (rules_dir / f"{name}.toml").read_text(encoding="utf-8")
    mine = [ln for ln in text.splitlines() if not ln.startswith("unpublished")]
    mine = [('board = "mine.txt"' if ln.startswith("board =") else ln) for ln in mine]
    (tmp_path / "mine.toml").write_text("\n".join(mine) + "\n", encoding="utf-8")
    game = tmp_path / "g.gcg"
    game.write_text("#player1 kari Kari\n#player2 ola Ola\n>kari: DEGNORS 8G ORD +16 16\n", encoding="utf-8")
    row, moves = _replay(game, strict=True, preset=str(tmp_path / "mine.toml"))
    assert row["status"] == "ok", row["error"]
    assert [m["score_computed"] for m in moves] == [16]


def test_score_five_point_challenge_is_five_per_word_under_wespa(tmp_path):
    """skrafl score --rules wespa --challenge five_point: 9F FE under JOINT forms FE, IF and NE
    (14 points, above): +5 for each word challenged, 15 for all three, 10 for two."""
    from clirun import run_skrafl_here

    (tmp_path / "words.txt").write_text("fe\nif\nne\njoint\n", encoding="utf-8")
    r = run_skrafl_here(
        "build", "en", "--source", "wordlist", "--input", str(tmp_path / "words.txt"), "--out", str(tmp_path / "en"), "-q"
    )
    assert r.returncode == 0, r.stderr
    cgp = "15/15/15/15/15/15/15/3JOINT7/15/15/15/15/15/15/15 EFQRSUV/ 40/0 0"
    base = ["score", "--rules", "wespa", "--lexicon", str(tmp_path / "en"), "--cgp", cgp, "--play", "9F FE"]
    for named, bonus in (([], 15), (["--challenged", "FE,IF"], 10), (["--challenged", "NE"], 5)):
        r = run_skrafl_here(*base, "--challenge", "five_point", *named, "-f", "json")
        assert r.returncode == 0, r.stderr
        got = json.loads(r.stdout)["challenge"]
        assert (got["bonus"], got["points"]["player"]) == (bonus, 14 + bonus)
