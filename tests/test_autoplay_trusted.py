"""Self-play that trusts the move generator (``GameState.new(check_plays=False)``, autoplay's default)
plays the very games that the rules oracle checking every play plays (``--check-plays``): the same
GCG text, game by game, for every kind of player. What the trusted state still checks (tiles on the
rack, the end rules) it checks as always; a challenge bonus it refuses.
"""

from __future__ import annotations

import pytest
from clirun import PROJECT_ROOT

IS_LEX = PROJECT_ROOT / "output" / "is"
RU_LEX = PROJECT_ROOT / "output" / "ru"

needs_is = pytest.mark.skipif(not (IS_LEX / "lexicon.kwg").is_file(), reason="output/is not built")


def _games(lexicon, lang: str, rules_name: str, kinds: tuple[str, str], n: int, check_plays: bool) -> list[str]:
    from gamecore.autoplay import Mover, Strategy, gcg_text, play_game
    from gamecore.best import load_bundle
    from gamecore.equity import LeaveTable
    from gamecore.klv import Klv, leaves_option
    from gamecore.rules import load_rules

    bundle = load_bundle(lexicon)
    rules = load_rules(rules_name)
    mover = Mover(bundle, rules)
    strategies = []
    for kind in kinds:
        table = None
        if kind in ("equity", "sim"):
            table = LeaveTable(Klv.read(leaves_option(lang, lang, rules_name)), rules.tiles())
        strategies.append(Strategy(kind, table, bundle.words if kind in ("fullsterkur", "midlungur", "amlodi") else None))
    words = bundle.words if check_plays and not mover.folded else None
    out = []
    for i in range(n):
        res = play_game(mover, strategies, f"trust:{i}", f"trust:{i}:moves", lexicon=words, check_plays=check_plays)
        out.append(gcg_text(res, ["p1", "p2"]))
    return out


@needs_is
@pytest.mark.parametrize("kinds", [("equity", "score"), ("fullsterkur", "amlodi")])
def test_trusted_games_equal_checked_games_icelandic(kinds):
    trusted = _games(IS_LEX, "is", "netskrafl", kinds, 12, False)
    checked = _games(IS_LEX, "is", "netskrafl", kinds, 12, True)
    assert trusted == checked
    assert all(t.count("\n>") > 10 for t in trusted)  # whole games, not empty ones


@pytest.mark.skipif(not (RU_LEX / "lexicon.kwg").is_file(), reason="output/ru not built")
def test_trusted_games_equal_checked_games_russian_folded_yo():
    trusted = _games(RU_LEX, "ru", "russian_scrabble", ("equity", "score"), 4, False)
    assert trusted == _games(RU_LEX, "ru", "russian_scrabble", ("equity", "score"), 4, True)


@needs_is
def test_a_trusted_state_still_checks_the_rack_and_refuses_a_challenge_bonus():
    import random

    from gamecore.autoplay import Mover, Strategy
    from gamecore.best import load_bundle
    from gamecore.game_state import ChallengeBonus, GameState, IllegalMove, Play
    from gamecore.rules import load_rules

    rules = load_rules("netskrafl")
    assert rules.challenge_bonus  # Netskrafl's +10 for a wrong challenge
    mover = Mover(load_bundle(IS_LEX), rules)
    st = GameState.new(rules, seed="trust:rack", check_plays=False)
    ev = mover.choose(st, Strategy("score"), random.Random(0))
    assert isinstance(ev, Play)
    with pytest.raises(IllegalMove) as exc:
        st.apply(Play(1 - ev.player, ev.play))
    assert exc.value.code == "not_on_turn"
    used = ev.play.used()
    st.racks[ev.player] = [t for t in st.tile_set.letters if t not in used][: rules.rack_size]
    with pytest.raises(IllegalMove) as exc:
        st.apply(ev)
    assert exc.value.code == "not_on_rack"

    trusted = GameState.new(rules, seed="trust:rack", check_plays=False)
    trusted.apply(ev)
    with pytest.raises(IllegalMove) as exc:
        trusted.apply(ChallengeBonus(ev.player))
    assert exc.value.code == "no_challenge_bonus" and "trusts its plays" in exc.value.message
    checked = GameState.new(rules, seed="trust:rack", lexicon=mover.bundle.words)
    checked.apply(ev)
    assert checked.apply(ChallengeBonus(ev.player)).score == rules.challenge_bonus
