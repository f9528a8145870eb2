"""The pre-endgame with one tile in the bag (``gamecore/preendgame.py``, ``skrafl endgame``).

Expected values are worked by hand from the rules on a tiny lexicon (CAT, CATS, SCAT, SCATS) with
CAT on 8H-8J and plain squares around it: the side on turn holds S, the unseen tiles are S, S and Q
(the opponent holds two of them, the bag the third). Its plays are SCAT (8G) and CATS (8H), 6 each;
after either, one S makes SCATS (7) and nothing else can be played.

- The bag holds S (2 of 3): the side on turn draws S, the opponent holds S Q and plays SCATS (7),
  keeping Q; both are then stuck and pass until the game ends, each losing its own rack (S 1,
  Q 10): 6 - 7 - 1 + 10 = +8 (if the opponent passed instead, SCATS would go out for 7 + 2 x 11).
- The bag holds Q (1 of 3): the opponent holds S S, plays SCATS (7) and keeps S; stuck: 6 - 7 - 10
  + 1 = -10.
- The mean: (2 x 8 - 10) / 3 = +2; with scores 100 to 90 the values are +18 and 0: two wins, one draw.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from gamecore.board import Board
from gamecore.kwg import Kwg
from gamecore.preendgame import draw_weights, solve_preendgame
from gamecore.rules import load_rules

ENGLISH = "abcdefghijklmnopqrstuvwxyz"
WORDS = ["cat", "cats", "scat", "scats"]


@pytest.fixture(scope="module")
def position():
    rules = load_rules("wespa")
    b = Board(rules.layout(), rules.tiles())
    for i, label in enumerate("CAT"):
        b.place(7, 7 + i, label)
    kwg = Kwg.from_words(WORDS, ENGLISH)
    return b, kwg, [a.upper() for a in ENGLISH], rules


def test_hand_worked_values(position):
    b, kwg, alphabet, rules = position
    r = solve_preendgame(b, ["S"], ["S", "Q", "S"], kwg, alphabet, rules)
    got = {(c.play.coord, c.play.word_text(".")): c for c in r.candidates}
    assert set(got) == {("8G", "S..."), ("8H", "...S")}
    for c in r.candidates:
        assert c.mean == Fraction(2) and (c.wins, c.draws, c.losses) == (2, 0, 1)
        assert {o.tile: (o.count, o.value) for o in c.outcomes} == {"S": (2, 8), "Q": (1, -10)}
        assert c.proved
    assert r.weights == {"Q": Fraction(1, 3), "S": Fraction(2, 3)}
    # the given scores count: +18 and 0, two wins and a draw
    r = solve_preendgame(b, ["S"], ["S", "Q", "S"], kwg, alphabet, rules, scores=(100, 90), candidates=1)
    (c,) = r.candidates
    assert (c.mean, c.wins, c.draws, c.losses) == (12, 2, 1, 0)


def test_weights_sum_to_one():
    for unseen in (["Q"] * 1 + ["S"], list("AAEEIRT?"), list("ZZZZZZZZ"), list("ABCDEFGH")):
        w = draw_weights(unseen)
        assert sum(w.values()) == 1
        assert all(w[t] == Fraction(unseen.count(t), len(unseen)) for t in w)


def test_deterministic(position):
    b, kwg, alphabet, rules = position

    def run():
        r = solve_preendgame(b, ["S"], ["Q", "S", "S"], kwg, alphabet, rules)
        return [(c.play.coord, c.mean, c.wins, c.draws, c.losses, c.outcomes) for c in r.candidates], r.nodes

    assert run() == run()


@pytest.fixture(scope="module")
def scats_lexicon(tmp_path_factory):
    from clirun import run_skrafl

    tmp = tmp_path_factory.mktemp("peg")
    (tmp / "w.txt").write_text("\n".join(WORDS) + "\n", encoding="utf-8")
    res = run_skrafl("build", "en", "--source", "wordlist", "--input", str(tmp / "w.txt"), "--out", str(tmp / "lex"), "-q")
    assert res.returncode == 0, res.stderr
    return tmp / "lex"


def _cgp(off: str) -> str:
    """CAT on 8H-8J, and every other tile of the English set but ``off`` in rows 1-5 and 11-15 (no
    word of the lexicon in them; blanks as z)."""
    ts = load_rules("wespa").tiles()
    left = {t: ts.counts[t] for t in ts.letters}
    for t in "CAT" + off:
        left[t] -= 1
    tiles = [t for t in ts.letters for _ in range(left[t])] + ["z"] * ts.blanks
    rows = []
    for r in range(15):
        if r == 7:
            rows.append("7CAT5")
        elif 5 <= r <= 9:
            rows.append("15")
        else:
            row, tiles = tiles[:15], tiles[15:]
            rows.append("".join(row) + (str(15 - len(row)) if len(row) < 15 else ""))
    return "/".join(rows)


def test_cli_one_tile_in_the_bag(scats_lexicon, capsys):
    from cli.common import BoardFormat, OutputFormat
    from cli.endgame import endgame

    given = dict(board=None, board_format=BoardFormat.gcg, rack=None, opp_rack=None, game=None, move=None)
    given |= dict(lang=None, lexicon=scats_lexicon, rules=None, plies=None, seconds=None, candidates=10, leaves=None)
    # S on turn, S Q the opponent's, the fourth S in the bag
    capsys.readouterr()
    endgame(**given, cgp=f"{_cgp('SSSQ')} S/SQ 100/90 0", fmt=OutputFormat.json)
    doc = json.loads(capsys.readouterr().out)
    assert doc["best"] == "8G S..."
    assert [(c["move"], c["value"], c["wins"], c["draws"], c["losses"]) for c in doc["candidates"]] == [
        ("8G S...", 12, 2, 1, 0),
        ("8H ...S", 12, 2, 1, 0),
    ]
    assert doc["proved"] and doc["unseen"] == "QSS"
    endgame(**given, cgp=f"{_cgp('SSSQ')} S/SQ 100/90 0", fmt=OutputFormat.table)
    out = capsys.readouterr().out
    assert "pre-endgame: rack S, unseen QSS" in out and "+12.00" in out


# ---------------------------------------------------------------------------- self-play

EN_LEX = Path(__file__).resolve().parents[1] / "output" / "en"


def test_equity_endgame_strategy_goes_out(scats_lexicon):
    """Bag empty, S on turn against Q Z: the endgame move is SCAT or CATS (6), going out (+ 2 x 20)."""
    import random

    from gamecore.autoplay import Mover, Strategy
    from gamecore.best import load_bundle
    from gamecore.game_state import GameState, Play

    rules = load_rules("wespa")
    b = Board(rules.layout(), rules.tiles())
    for i, label in enumerate("CAT"):
        b.place(7, 7 + i, label)
    st = GameState(rules, rules.tiles(), b, [], [["S"], ["Q", "Z"]], random.Random(0))
    st.scores, st.passes, st.turn, st.scoreless = [100, 90], [0, 0], 0, 0
    mover = Mover(load_bundle(scats_lexicon), rules)
    ev = mover.choose(st, Strategy("equity+endgame", leaves=object()), random.Random(0))
    assert isinstance(ev, Play) and (ev.play.score, ev.play.tiles_placed) == (6, 1)
    st.apply(ev)
    assert st.over == "out" and st.scores[0] - st.scores[1] == 10 + 6 + 40


@pytest.mark.skipif(not (EN_LEX / "lexicon.kwg").is_file(), reason="output/en not built")
def test_equity_endgame_self_play_is_deterministic_and_plays_endgames(monkeypatch):
    """Two English games of ``equity+endgame`` against ``equity`` (the shipped leaves): the endgame
    solver gives a move every time the bag is empty, and the same seeds give the same games."""
    import gamecore.autoplay as ap
    from gamecore.best import load_bundle
    from gamecore.equity import LeaveTable
    from gamecore.klv import Klv, shipped_leaves

    bundle = load_bundle(EN_LEX)
    rules = load_rules(bundle.manifest.get("rules") or "wespa")
    path = shipped_leaves("en", rules.name)
    if path is None:
        pytest.skip("no English leaves shipped for these rules")
    table = LeaveTable(Klv.read(path), rules.tiles())
    calls = []
    orig = ap.Mover.endgame_move

    def counted(self, state):
        ev = orig(self, state)
        calls.append(ev is not None)
        return ev

    monkeypatch.setattr(ap.Mover, "endgame_move", counted)

    def games():
        mover = ap.Mover(bundle, rules)
        strategies = [ap.Strategy("equity+endgame", table), ap.Strategy("equity", table)]
        return [ap.gcg_text(ap.play_game(mover, strategies, f"b{i}", f"m{i}"), ["a", "b"]) for i in range(2)]

    first = games()
    assert calls and all(calls)
    assert games() == first
