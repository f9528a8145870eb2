"""Game logs: GCG files without #lexicon, the challenge rule inferred, a pass with an
empty rack, bracketed tiles, three and four players, the Scrabble rules page's variants as rule sets (tie-break,
nine tiles, Endline), the export round trip of the game facts, unfinished games, six-zero endings
with a missing deduction, and --analyze on passes and exchanges.

Fixtures: ``tests/fixtures/gcg`` (the catalogue, ``_make.py``) and ``tests/fixtures/multi`` (a
hand-made ten-tile set ``tiny.tsv``, A×6 worth 1 and B×4 worth 3, racks of 3, with test rule sets:
every score below is computed by hand from the standard board, docs/RULES.md scoring)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gamecore.gamelog import GameLogError, split_tiles, tiles_text
from gamecore.gcg import parse_gcg_text, read_gcg
from gamecore.rules import load_rules
from pipelines.replay import ReplayOptions, replay_file
from pipelines.replay.game import replay_game
from pipelines.replay.read import read_game_file

MULTI = Path(__file__).parent / "fixtures" / "multi"
GCG = Path(__file__).parent / "fixtures" / "gcg"


def _codes(res) -> list[str]:
    return [f.code for f in res.findings]


# ---------------------------------------------------------------------------------------------
# no #lexicon


def test_no_lexicon_is_english_wespa_with_a_warning_even_strict():
    for strict in (True, False):
        res = replay_file(str(GCG / "missing_lexicon.gcg"), ReplayOptions(strict=strict))
        assert res.game_row["status"] == "ok"
        assert "LEXICON_NOT_SPECIFIED" in _codes(res)
        assert any("wespa" in w and "english" in w for w in res.game_row["warnings"])


def test_no_lexicon_strict_error_only_when_the_letters_are_not_english():
    res = replay_file(str(GCG / "missing_lexicon_polish.gcg"), ReplayOptions(strict=True))
    assert res.game_row["error"].startswith("LEXICON_NOT_SPECIFIED")
    res = replay_file(str(GCG / "missing_lexicon_polish.gcg"), ReplayOptions(strict=False))
    assert res.game_row["status"] == "ok"  # lenient: the Polish tile set, ŻÓŁW 8E = (5+5+3+1)×2 = 28


def test_real_files_without_lexicon_load_strict(shared):
    """80-odd public files lack #lexicon: those of the shared corpus replay in strict mode."""
    folder = shared / "corpora" / "gcg"
    names = [
        "domino14_macondo__gcgio_testdata_doug_v_emely.gcg",
        "domino14_macondo__gcgio_testdata_josh2.gcg",
        "domino14_macondo__gcgio_testdata_vs_frentz.gcg",
        "quackle_quackle__test_positions_logan.gcg",
    ]
    for name in names:
        assert "#lexicon" not in (folder / name).read_text(encoding="latin-1")
        res = replay_file(str(folder / name), ReplayOptions(strict=True))
        assert res.game_row["status"] == "ok", (name, res.game_row["error"])
        assert "LEXICON_NOT_SPECIFIED" in _codes(res)


# ---------------------------------------------------------------------------------------------
# the challenge rule


def _base_lines() -> list[str]:
    return (GCG / "base.gcg").read_text(encoding="utf-8").replace("\r\n", "\n").splitlines()


def _with_bonus(bonus: int, pragma: str | None = None) -> str:
    """base.gcg with a wrong challenge of bob's B.D (+bonus) and, optionally, a pragma."""
    lines = _base_lines()
    out = []
    bob = 11 + bonus
    for line in lines:
        if line.startswith(">bob:") and "B.D" in line:
            out += [line, f">bob: EGLOUXY (challenge) +{bonus} {bob}"]
            continue
        if line.startswith(">bob:"):
            head, score, cum = line.rsplit(" ", 2)
            cum = int(cum) + bonus
            line = f"{head} {score} {cum}"
        out.append(line)
    if pragma:
        out.insert(4, pragma)
    return "\n".join(out) + "\n"


def _replay_text(text: str, tmp_path, **opts):
    p = tmp_path / "g.gcg"
    p.write_text(text, encoding="utf-8")
    return replay_file(str(p), ReplayOptions(**opts))


def test_ten_point_challenge_inferred_from_the_first_bonus(tmp_path):
    res = _replay_text(_with_bonus(10), tmp_path)
    assert res.game_row["status"] == "ok", res.game_row["error"]
    assert "CHALLENGE_RULE_INFERRED" in _codes(res)
    assert res.game_row["score2"] == -17 + 10
    five = _replay_text(_with_bonus(5), tmp_path)
    assert five.game_row["status"] == "ok" and "CHALLENGE_RULE_INFERRED" not in _codes(five)  # WESPA's own rule


def test_rules_option_and_pragma_override_the_inference(tmp_path):
    res = _replay_text(_with_bonus(10), tmp_path, preset="wespa")
    assert res.game_row["status"] == "mismatch" and "CHALLENGE_BONUS_INCORRECT" in _codes(res)
    res = _replay_text(_with_bonus(10, pragma="#challenge-rule FIVE_POINT"), tmp_path)
    assert res.game_row["status"] == "mismatch" and "CHALLENGE_BONUS_INCORRECT" in _codes(res)
    res = _replay_text(_with_bonus(10, pragma="#challenge-rule TEN_POINT"), tmp_path, strict=True)
    assert res.game_row["status"] == "ok"


def test_the_rest_of_the_game_is_held_to_the_inferred_rule(tmp_path):
    """A +10 first bonus, then a +5 one: the second is a mismatch."""
    lines = _base_lines()
    i = next(k for k, line in enumerate(lines) if line.startswith(">bob:") and "B.D" in line)
    text = lines[: i + 1] + [">bob: EGLOUXY (challenge) +10 21", ">bob: EGLOUXY (challenge) +5 26"]
    res = _replay_text("\n".join(text) + "\n", tmp_path)
    assert res.game_row["status"] == "mismatch"
    assert [f for f in res.findings if f.code == "CHALLENGE_BONUS_INCORRECT"][0].message.endswith("+10")


def test_real_file_with_five_point_bonuses(shared):
    res = replay_file(str(shared / "corpora" / "gcg" / "domino14_macondo__gcgio_testdata_josh2.gcg"), ReplayOptions())
    assert res.game_row["status"] == "ok" and "CHALLENGE_RULE_INFERRED" not in _codes(res)


# ---------------------------------------------------------------------------------------------
# pass with an empty rack, brackets


def test_pass_with_an_empty_rack_loads():
    g = read_gcg(GCG / "empty_rack_pass.gcg", strict=True)
    ev = [e for e in g.events if e.kind == "pass"][0]
    assert ev.rack is None and ev.score == 0 and ev.cumulative == 11
    res = replay_file(str(GCG / "empty_rack_pass.gcg"), ReplayOptions(strict=True))
    assert res.game_row["status"] == "ok" and (res.game_row["score1"], res.game_row["score2"]) == (56, -17)
    # and the same with an unknown exchange and a withdrawal
    g = parse_gcg_text("#player1 a A\n#player2 b B\n>a: 8D RETAINS +66 66\n>a:  -- -66 0\n>b:  -3 +0 0\n", strict=True)
    assert [(e.kind, e.rack, e.count) for e in g.events][1:] == [("withdraw", None, None), ("exchange", None, 3)]


def test_a_bracketed_single_letter_is_refused():
    with pytest.raises(ValueError):
        split_tiles("[A]BC")
    with pytest.raises(GameLogError) as err:
        read_gcg(GCG / "bracket_single_letter.gcg")
    assert err.value.code == "RACK_MALFORMED"
    from gamecore.errors import UsageError
    from gamecore.tilesets import load_tile_set

    with pytest.raises(UsageError, match="multi-letter"):
        load_tile_set("english").parse_rack("[A]BC")


def test_multi_letter_tiles_print_in_brackets():
    assert tiles_text(["C", "H"]) == "CH"
    assert tiles_text(["CH", "A"]) == "[CH]A"
    assert tiles_text(["L·L", "?"]) == "[L·L]?"
    assert split_tiles(tiles_text(["CH", "C", "H"])) == ["[CH]", "C", "H"]


# ---------------------------------------------------------------------------------------------
# three and four players


def test_three_players_turn_order_racks_and_end_of_game():
    """ann BAA 8G = (3+1+1)×2 (DW H8) = 10; ben B.B H7 = 3+1+3 = 7; cat ...AAB H7 = BABAAB with the
    new B on the DL H12: 3+1+3+1+1+3×2 = 15 and goes out. With three players each loses their own
    rack (A, A) and cat gains the sum (2), also under a rule set whose two-player rule is 2×."""
    g = read_game_file(MULTI / "three_players.gcg", strict=True)
    assert [p.nick for p in g.players] == ["ann", "ben", "cat"]
    for rules in ("tiny_wespa", "tiny_ordspill"):
        res = replay_game(g, load_rules(str(MULTI / f"{rules}.toml")), strict=True)
        row = res.game_row
        assert row["status"] == "ok", row["error"]
        assert (row["players"], row["player3"], row["player4"]) == (3, "cat", None)
        assert (row["score1"], row["score2"], row["score3"], row["score4"]) == (9, 6, 17, None)
        assert row["winner"] == "cat" and row["finished"] is True
        assert [m["score_computed"] for m in res.move_rows] == [10, 7, 15, 2, -1, -1]


def test_three_players_out_of_turn_is_found():
    g = parse_gcg_text("#player1 a A\n#player2 b B\n#player3 c C\n>a: AEINRST 8D RETAINS +66 66\n>c: - +0 0\n")
    res = replay_game(g)
    assert "GAME_EVENT_OFF_TURN" in [f.code for f in res.findings]


def test_four_players_real_file(shared):
    """Quackle's multiplayer-crash.gcg: four #player pragmas, once refused."""
    path = shared / "corpora" / "gcg" / "quackle_quackle__test_positions_multiplayer-crash.gcg"
    g = read_gcg(path, strict=True)
    assert len(g.players) == 4 and "#rack2" in path.read_text() and g.last_racks[1]
    res = replay_file(str(path), ReplayOptions())
    row = res.game_row
    assert row["players"] == 4 and row["player4"] == "Daniel_Southam"
    assert "GAME_EVENT_OFF_TURN" not in _codes(res)  # the four take turns in #player order
    assert row["finished"] is False and row["winner"] is None  # it ends on #rack2: unfinished


def test_a_fifth_player_and_netskrafl_limit():
    res = replay_file(str(GCG / "player5.gcg"), ReplayOptions(strict=True))
    assert res.game_row["error"].startswith("UNSUPPORTED_PLAYER_NUMBER")
    g = parse_gcg_text("#player1 a A\n#player2 b B\n#player3 c C\n>a: AEINRST 8D RETAINS +66 66\n")
    res = replay_game(g, preset="netskrafl")
    assert res.game_row["error"].startswith("UNSUPPORTED_PLAYER_NUMBER")


# ---------------------------------------------------------------------------------------------
# the Scrabble rules page's variants


def test_tie_break_on_the_score_before_adjustments():
    """tie.gcg: 10–7 after the plays, six passes, ann −AAB (5), ben −AA (2): 5–5. The Scrabble rules page: the tie
    goes to the higher score before the adjustments (ann); without the rule it is a draw."""
    g = read_game_file(MULTI / "tie.gcg", strict=True)
    tie = replay_game(g, load_rules(str(MULTI / "tiny_scrabble.toml")), strict=True).game_row
    assert (tie["score1"], tie["score2"], tie["winner"]) == (5, 5, "ann")
    draw = replay_game(g, load_rules(str(MULTI / "tiny_ordspill.toml")), strict=True).game_row
    assert (draw["score1"], draw["score2"], draw["winner"], draw["finished"]) == (5, 5, None, True)


def test_endline_ends_the_game_at_the_target():
    g = read_game_file(MULTI / "tie.gcg")
    res = replay_game(g, load_rules(str(MULTI / "tiny_endline.toml")))
    assert "MOVE_EVENT_AFTER_GAME_END" in _codes(res)  # ann's 10 reached the target
    g = parse_gcg_text("#player1 ann A\n#player2 ben B\n>ann: AAB 8G BAA +10 10\n")
    row = replay_game(g, load_rules(str(MULTI / "tiny_endline.toml")), strict=True).game_row
    assert row["status"] == "ok" and row["finished"] is True and row["winner"] == "ann"


def test_seed_003_presets():
    s = load_rules("scrabble")
    assert (s.end_out, s.tie_break, s.players_max, s.rack_size) == ("others_racks", "score_before_adjustments", 4, 7)
    nine = load_rules("scrabble9")
    assert (nine.rack_size, nine.bingo_min_tiles, nine.bingo_bonus) == (9, 7, 50)
    targets = {lvl: load_rules(f"scrabble_endline_{lvl}").end_targets for lvl in ("beginner", "intermediate", "expert")}
    assert targets == {"beginner": (70, 60, 50), "intermediate": (120, 100, 90), "expert": (200, 180, 160)}
    assert load_rules("scrabble_endline_expert").end_target(3) == 180
    assert load_rules("netskrafl").players_max == 2 and load_rules("wespa").end_target(2) is None


def test_nine_tile_rack_bingo_with_seven():
    """scrabble9: racks of nine; RETAINS (7 of 9 tiles) is a bingo: (7+1)×2 + 50 = 66."""
    g = parse_gcg_text("#player1 a A\n#player2 b B\n>a: AEINRSTXY 8D RETAINS +66 66\n>b: BDEGLOUAA G7 B.D +11 11\n", strict=True)
    res = replay_game(g, preset="scrabble9", strict=True)
    assert res.game_row["status"] == "ok", res.game_row["error"]
    assert [m["bingo"] for m in res.move_rows] == [True, False]
    g = parse_gcg_text("#player1 a A\n#player2 b B\n>a: AEINRSTXY 8D RETAINS +66 66\n")
    assert replay_game(g, preset="wespa").game_row["status"] == "mismatch"  # a 9-tile rack in a 7-tile game


def test_rule_file_end_targets_checked(tmp_path):
    from gamecore.errors import DataError
    from gamecore.rules import read_rules

    p = tmp_path / "bad.toml"
    p.write_text('tile_set = "english"\nend_targets = [70, "x"]\n', encoding="utf-8")
    with pytest.raises(DataError, match="end_targets"):
        read_rules(p)
    p.write_text('tile_set = "english"\ntie_break = "coin"\n', encoding="utf-8")
    with pytest.raises(DataError, match="tie_break"):
        read_rules(p)


# ---------------------------------------------------------------------------------------------
# game facts


def test_export_round_trip_keeps_the_game_facts(tmp_path, shared):
    src = shared / "corpora" / "netskrafl" / "games" / "game_15fa21c2-7a13-11f0-8121-0be7fa3227eb.json"
    g = read_game_file(src)
    res = replay_game(g, export=True)
    assert res.game_row["competition"] is True and res.game_row["locale"] == "is_IS"
    p = tmp_path / "back.gcg"
    p.write_text(res.gcg, encoding="utf-8")
    assert "#finished-at " in res.gcg and "#competition true" in res.gcg
    back = replay_game(read_game_file(p, strict=True), strict=True).game_row
    for key in ("game_id", "finished_at", "competition", "locale", "score1", "score2", "winner", "finished"):
        assert back[key] == res.game_row[key], key


def test_unfinished_games_have_no_winner(shared):
    for name in (
        "domino14_macondo__gcgio_testdata_incomplete.gcg",
        "domino14_macondo__gcgio_testdata_guy_vs_bot_almost_complete.gcg",
    ):
        row = replay_file(str(shared / "corpora" / "gcg" / name), ReplayOptions()).game_row
        assert row["finished"] is False and row["winner"] is None, name
    row = replay_file(
        str(shared / "corpora" / "gcg" / "domino14_macondo__gcgio_testdata_guy_vs_bot.gcg"), ReplayOptions()
    ).game_row
    assert row["finished"] is True and row["winner"] == "guy"


def test_six_zero_ending_with_one_deduction_warns():
    res = replay_file(str(GCG / "one_rack_deduction.gcg"), ReplayOptions())
    assert res.game_row["status"] == "ok" and "END_RACK_PENALTY_MISSING" in _codes(res)
    assert (
        replay_file(str(GCG / "one_rack_deduction.gcg"), ReplayOptions(strict=True))
        .game_row["error"]
        .startswith("END_RACK_PENALTY_MISSING")
    )
    assert "END_RACK_PENALTY_MISSING" not in _codes(replay_file(str(GCG / "base.gcg"), ReplayOptions()))


def test_analyze_gives_the_best_play_for_passes_and_exchanges(shared):
    from cli.common import output_root
    from gamecore.best import load_bundle

    is_lexicon_dir = output_root() / "is"
    if not (is_lexicon_dir / "manifest.json").is_file():
        pytest.skip("needs the Icelandic lexicon (make lexicons)")
    src = shared / "corpora" / "netskrafl" / "games" / "game_aff91510-753d-11f0-91f2-0b55dd6af73f.json"  # 2 exchanges, a pass
    g = read_game_file(src)
    res = replay_game(g, analyze=True, bundle=load_bundle(is_lexicon_dir))
    rows = [m for m in res.move_rows if m["kind"] in ("pass", "exchange")]
    assert rows
    assert all(m["best_coord"] and m["best_score"] > 0 and m["points_lost"] == m["best_score"] for m in rows if m["best_coord"])
    assert all(m["best_coord"] for m in rows) and len(rows) == 3
