"""gamecore.game_state: one game state, every rule-set field applied in one place.

Expected values come from the rules (WESPA/English tile values: C 3, A 1, T 1, Q 10, Z 10, X 8,
J 8, K 5, vowels 1, blank 0; the start square is a double word), never from the code under test.
"""

from __future__ import annotations

import pytest

from gamecore.game_state import ChallengeBonus, Exchange, GameState, IllegalMove, Pass, Play, TimePenalty
from gamecore.play import validate_play
from gamecore.rules import load_rules

WESPA = load_rules("wespa")


def _conserved(st: GameState) -> None:
    ts = st.tile_set
    want = {k: v for k, v in ts.counts.items() if v}
    want["?"] = ts.blanks
    got = st.tile_counts()
    assert got == want
    assert sum(got.values()) == 100


def _rack(st: GameState, player: int, tiles: str) -> None:
    """Give ``player`` exactly ``tiles`` (from the bag; the old rack goes back): tiles conserved."""
    st.bag.extend(st.racks[player])
    st.racks[player] = []
    for t in tiles:
        if t not in st.bag:  # on another rack: swapped for a bag tile
            other = next(r for q, r in enumerate(st.racks) if q != player and t in r)
            other.remove(t)
            other.append(next(x for x in st.bag if x not in tiles))
            st.bag.remove(other[-1])
            st.bag.append(t)
        st.bag.remove(t)
        st.racks[player].append(t)


def _empty_bag(st: GameState, keep: int = 0) -> list[str]:
    """Take all but ``keep`` tiles out of the bag (returned, to be put back by the caller)."""
    gone = st.bag[keep:]
    del st.bag[keep:]
    return gone


def _play(st: GameState, text: str):
    return validate_play(st.board, text, st.racks[st.turn], None, st.rules)


def test_new_game_deals_racks_and_every_tile_is_somewhere():
    st = GameState.new(WESPA, seed="t")
    assert [len(r) for r in st.racks] == [7, 7]
    assert len(st.bag) == 86
    _conserved(st)
    again = GameState.new(WESPA, seed="t")
    assert again.racks == st.racks and again.bag == st.bag  # the seed fixes the bag


def test_play_scores_draws_and_passes_the_turn():
    st = GameState.new(WESPA, seed=1)
    _rack(st, 0, "CATQZXJ")
    rec = st.apply(Play(0, _play(st, "8H CAT")))
    assert rec.score == 10  # (3 + 1 + 1) x 2 on the start square
    assert st.scores == [10, 0] and st.turn == 1
    assert len(st.racks[0]) == 7 and len(st.bag) == 83 and len(rec.drawn) == 3
    _conserved(st)
    with pytest.raises(IllegalMove) as e:
        st.apply(Pass(0))
    assert e.value.code == "not_on_turn"


def test_a_play_of_tiles_not_on_the_rack_or_with_a_wrong_score_is_refused_and_changes_nothing():
    st = GameState.new(WESPA, seed=1)
    _rack(st, 0, "CATQZXJ")
    _rack(st, 1, "DOGEEEE")
    sp = _play(st, "8H CAT")
    before = (list(st.racks[0]), list(st.bag), st.board.to_text())
    with pytest.raises(IllegalMove) as e:
        st.apply(Play(0, sp._replace(score=11)))
    assert e.value.code == "score_mismatch"
    st.racks[0] = list("QZXJKEE")
    with pytest.raises(IllegalMove) as e:
        st.apply(Play(0, sp))
    assert e.value.code == "not_on_rack"
    st.racks[0] = before[0]
    assert (list(st.racks[0]), list(st.bag), st.board.to_text()) == before


def test_min_word_length_is_checked():
    rules = WESPA.replace(min_word_length=3)
    st = GameState.new(rules, seed=1)
    _rack(st, 0, "ATQZXJK")
    sp = validate_play(st.board, "8H AT", st.racks[0], None, WESPA)
    with pytest.raises(IllegalMove) as e:
        st.apply(Play(0, sp))
    assert e.value.code == "too_short"
    assert st.board.is_empty() and sorted(st.racks[0]) == sorted("ATQZXJK")


def test_exchange_needs_the_rule_sets_minimum_in_the_bag():
    st = GameState.new(WESPA, seed=2)
    _empty_bag(st, keep=7)
    rack = list(st.racks[0])
    st.apply(Exchange(0, tuple(rack[:3])))  # 7 in the bag: allowed
    assert len(st.bag) == 7 and len(st.racks[0]) == 7
    st.bag.pop()  # 6 left (the tile is simply out of the game for this check)
    with pytest.raises(IllegalMove) as e:
        st.apply(Exchange(1, (st.racks[1][0],)))
    assert e.value.code == "bag_too_small"


def test_exchange_never_takes_more_tiles_than_the_bag_holds():
    rules = WESPA.replace(exchange_min_bag=0)  # Russian, Slovenian: no minimum of its own
    st = GameState.new(rules, seed=3)
    _empty_bag(st, keep=2)
    with pytest.raises(IllegalMove) as e:
        st.apply(Exchange(0, tuple(st.racks[0][:3])))
    assert e.value.code == "bag_too_small"
    st.apply(Exchange(0, tuple(st.racks[0][:2])))
    assert len(st.bag) == 2 and len(st.racks[0]) == 7
    st.bag.clear()
    with pytest.raises(IllegalMove):
        st.apply(Exchange(1, tuple(st.racks[1][:1])))  # never from an empty bag


def test_six_scoreless_turns_end_the_game_and_each_player_loses_their_rack():
    st = GameState.new(WESPA, seed=4)
    _rack(st, 0, "QZXJKAE")  # 10 + 10 + 8 + 8 + 5 + 1 + 1 = 43
    _rack(st, 1, "AEIOU??")  # 5
    for i in range(5):
        st.apply(Pass(i % 2))
    assert st.over is None
    st.apply(Pass(1))
    assert st.over == "zeros"
    assert st.scores == [-43, -5] and st.pre_end == [0, 0]
    assert st.winner() == 1
    with pytest.raises(IllegalMove) as e:
        st.apply(Pass(0))
    assert e.value.code == "game_over"


def test_exchanges_count_as_scoreless_turns():
    st = GameState.new(WESPA, seed=5)
    for i in range(6):
        assert st.over is None
        st.apply(Exchange(i % 2, tuple(st.racks[i % 2][:1])))
        _conserved(st)
    assert st.over == "zeros"


def test_a_player_passing_twice_in_a_row_ends_the_game_exchanges_are_no_passes():
    rules = load_rules("scrabble_passes_twice")
    st = GameState.new(rules, seed=6)
    st.apply(Exchange(0, tuple(st.racks[0][:1])))
    st.apply(Pass(1))
    st.apply(Exchange(0, tuple(st.racks[0][:1])))
    assert st.over is None  # player 0 exchanged twice: no pass
    st.apply(Pass(1))
    assert st.over == "passes"
    # a pass, an exchange, a pass: not two passes in a row
    st = GameState.new(rules, seed=6)
    st.apply(Pass(0))
    st.apply(Exchange(1, tuple(st.racks[1][:1])))
    st.apply(Exchange(0, tuple(st.racks[0][:1])))
    st.apply(Exchange(1, tuple(st.racks[1][:1])))
    st.apply(Pass(0))
    assert st.over is None


def test_going_out_double_opponent_rack():
    st = GameState.new(WESPA, seed=7)
    _rack(st, 0, "CAT")
    _rack(st, 1, "QI")
    _empty_bag(st)
    st.apply(Play(0, _play(st, "8H CAT")))
    assert st.over == "out" and st.out_player == 0
    assert st.pre_end == [10, 0]
    assert st.scores == [10 + 2 * 11, 0]


def test_going_out_others_racks():
    st = GameState.new(load_rules("scrabble_passes_twice"), seed=7)
    _rack(st, 0, "CAT")
    _rack(st, 1, "QI")
    _empty_bag(st)
    st.apply(Play(0, _play(st, "8H CAT")))
    assert st.scores == [10 + 11, -11]


def test_score_floor_zero():
    st = GameState.new(WESPA.replace(score_floor_zero=True), seed=8)
    _rack(st, 0, "QZXJKAE")
    for i in range(6):
        st.apply(Pass(i % 2))
    assert st.scores[0] == 0 and st.pre_end[0] == 0


def test_tie_break_on_the_scores_before_the_adjustments():
    for rules, winner in ((load_rules("scrabble_passes_twice").replace(player_passes_end=0), 1), (WESPA, None)):
        st = GameState.new(rules, seed=9)
        _rack(st, 0, "??")  # worth 0
        _rack(st, 1, "AEIOU")  # worth 5
        st.scores = [20, 25]
        for i in range(6):
            st.apply(Pass(i % 2))
        assert st.scores == [20, 20] and st.pre_end == [20, 25]
        assert st.winner() == winner


def test_endline_target_ends_the_game_without_adjustments():
    st = GameState.new(load_rules("scrabble_endline_beginner"), seed=10)  # 70 for two players
    _rack(st, 0, "CATQZXJ")
    st.scores = [65, 0]
    st.apply(Play(0, _play(st, "8H CAT")))
    assert st.over == "target" and st.scores == [75, 0] and not st.adjustments


def test_challenge_bonus_per_word_and_per_challenge():
    st = GameState.new(WESPA, seed=11)  # +5 per word challenged
    _rack(st, 0, "CATQZXJ")
    st.apply(Play(0, _play(st, "8H CAT")))
    with pytest.raises(IllegalMove):
        st.apply(ChallengeBonus(1))  # player 1 made no play
    with pytest.raises(IllegalMove):
        st.apply(ChallengeBonus(0, words=2))  # CAT is one word
    assert st.apply(ChallengeBonus(0)).score == 5
    assert st.scores == [15, 0]
    ten = GameState.new(WESPA.replace(challenge_bonus=10, challenge_bonus_per="challenge"), seed=11)
    _rack(ten, 0, "CATQZXJ")
    ten.apply(Play(0, _play(ten, "8H CAT")))
    assert ten.apply(ChallengeBonus(0)).score == 10


def test_challenge_bonus_per_word_counts_every_word_the_play_formed():
    st = GameState.new(WESPA, seed=12)
    _rack(st, 0, "CATQZXJ")
    st.apply(Play(0, _play(st, "8H CAT")))
    _rack(st, 1, "ASQZXJK")
    st.apply(Play(1, _play(st, "9I AS")))  # AS, and AA? no: A under A (I8-I9: AA), S under T (J8-J9: TS)
    words = st.history[-1]
    assert words.score > 0
    formed = st.last_play[1]
    assert formed == 3  # AS, AA, TS
    assert st.apply(ChallengeBonus(1)).score == 15


def test_time_penalty_after_the_end_multiple_of_the_period_and_capped():
    rules = load_rules("ordspill")  # -10 per started period, at most -210
    st = GameState.new(rules, seed=13)
    with pytest.raises(IllegalMove):
        st.apply(TimePenalty(0, -10))  # the game is not over
    for i in range(6):
        st.apply(Pass(i % 2))
    before = list(st.scores)
    for bad in (-15, -220, 10):
        with pytest.raises(IllegalMove) as e:
            st.apply(TimePenalty(0, bad))
        assert e.value.code == "time_penalty"
    st.apply(TimePenalty(0, -210))
    assert st.scores == [before[0] - 210, before[1]]
    with pytest.raises(IllegalMove):
        st.apply(TimePenalty(0, -10))  # one per player


def test_unseen_is_the_bag_and_the_opponents_rack():
    st = GameState.new(WESPA, seed=14)
    assert st.unseen(0) == sorted(st.bag + st.racks[1])
    assert len(st.unseen(0)) == 93


def test_illegal_move_survives_pickling():
    import pickle

    e = pickle.loads(pickle.dumps(IllegalMove("bag_too_small", "exchange with 6 tiles in the bag")))
    assert (e.code, e.message) == ("bag_too_small", "exchange with 6 tiles in the bag")


# --- the rule checks every front end calls (replay, score, show, best: tests/test_one_answer.py) -----


def test_exchange_refusal_the_presets_minimum_and_the_bag():
    from gamecore.game_state import exchange_refusal

    sl = load_rules("slovene")  # exchange_min_bag = 0: any number, from the bag
    assert exchange_refusal(sl, 3, 3) is None and exchange_refusal(sl, 1, 1) is None
    assert exchange_refusal(sl, 3, 5) == "exchange with 3 tiles in the bag (5 tiles exchanged need as many in the bag)"
    assert exchange_refusal(sl, 0, 1) == "exchange with 0 tiles in the bag (1 tile exchanged need as many in the bag)"
    assert exchange_refusal(WESPA, 7, 7) is None  # WESPA: seven in the bag
    assert exchange_refusal(WESPA, 6, 1) == "exchange with 6 tiles in the bag (the rules of wespa need 7)"


def test_too_short_counts_tiles_in_every_word():
    from gamecore.game_state import check_word_lengths, too_short

    four = WESPA.replace(min_word_length=4)
    assert too_short(WESPA, [("at", 2)]) is None
    assert too_short(four, [("okno", 4), ("zok", 3), ("ta", 2)]) == (
        "words must have at least 4 letters under rules wespa: ZOK has 3, TA has 2"
    )
    check_word_lengths(four, WESPA.tiles(), ["okno", "joint"])
    with pytest.raises(IllegalMove) as e:
        check_word_lengths(four, WESPA.tiles(), ["joint", "ad"])
    assert e.value.code == "too_short" and "AD has 2" in e.value.message


def test_forms_short_word_counts_the_cross_words():
    from gamecore.game_state import forms_short_word, play_word_lengths

    st = GameState.new(WESPA, seed=15)
    _rack(st, 0, "CATQZXJ")
    st.apply(Play(0, _play(st, "8H CAT")))
    sp = validate_play(st.board, "9I AS", None, None, WESPA)  # AS, and AA and TS down
    assert sorted(play_word_lengths(st.board, sp)) == [2, 2, 2]
    assert forms_short_word(WESPA.replace(min_word_length=3), st.board, sp)
    assert not forms_short_word(WESPA, st.board, sp)


def test_challenge_bonus_per_challenge_and_per_word():
    from gamecore.game_state import challenge_bonus, challenge_bonus_fits

    assert challenge_bonus("challenge", 10, 3) == 10  # Netskrafl: +10 a wrong challenge
    assert challenge_bonus("word", 5, 3) == 15 and challenge_bonus("word", 5, 3, 2) == 10  # WESPA: +5 a word
    with pytest.raises(IllegalMove):
        challenge_bonus("word", 5, 3, 4)
    assert [b for b in range(0, 25) if challenge_bonus_fits("word", 5, 3, b)] == [5, 10, 15]
    assert [b for b in range(0, 25) if challenge_bonus_fits("challenge", 10, 3, b)] == [10]


def test_end_adjustments_of_each_end():
    from gamecore.game_state import Adjustment, end_adjustments, winner_of

    ts = WESPA.tiles()
    racks = [[], ["Q", "I"]]  # Q 10 + I 1
    assert end_adjustments(WESPA, "out", racks, 0, ts) == [Adjustment(0, 22, ("Q", "I"))]
    boxed = load_rules("scrabble")  # others_racks
    assert end_adjustments(boxed, "out", racks, 0, ts) == [Adjustment(1, -11, ("Q", "I")), Adjustment(0, 11, ("Q", "I"))]
    assert end_adjustments(WESPA, "zeros", [["A", "?"], ["Z"]], None, ts) == [
        Adjustment(0, -1, ("A", "?")),
        Adjustment(1, -10, ("Z",)),
    ]
    assert end_adjustments(WESPA, "target", racks, None, ts) == []
    assert winner_of(WESPA, [20, 20], [20, 25]) is None  # a tie is a draw
    assert winner_of(boxed, [20, 20], [20, 25]) == 1  # the Scrabble rules page: the higher score before the adjustments
