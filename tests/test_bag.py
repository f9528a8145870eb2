"""skrafl bag: the bag statistics of a game history counted by hand, the clustered interval by
hand, a candidate tile set whose totals differ refused in one line naming the letter, and the same
statistics at one and two workers (Icelandic: the lexicon built in output/is, skipped when absent)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from clirun import PROJECT_ROOT, one_error_line, run_skrafl_here

from gamecore.bagstats import GAME_FIELDS, LETTER_FIELDS, game_tally
from gamecore.game_state import Exchange, Pass, Play, Record

IS_LEX = PROJECT_ROOT / "output" / "is"
needs_is = pytest.mark.skipif(not (IS_LEX / "lexicon.kwg").is_file(), reason="output/is not built")

# a three-letter set (A vowel, B, C consonants) and the blank; racks of 3, a bingo is 3 tiles
TS = SimpleNamespace(letters=("A", "B", "C"), vowels=frozenset("A"))
RULES = SimpleNamespace(rack_size=3, bingo_min_tiles=3)


def _play(player, used):
    return Play(player, SimpleNamespace(used=lambda: list(used)))


def _field(tally, name, label):
    k = 4
    return tally[LETTER_FIELDS.index(name) * k + "ABC?".index(label)]


def test_tally_of_a_constructed_history():
    # p0 ABC plays AB (10 pts), draws AC; p1 BB? exchanges B, draws C; p0 CAC plays ACC (30, a bingo)
    # and draws nothing; p1 B?C passes. End racks: p0 empty, p1 B?C.
    history = [
        Record(_play(0, "AB"), 10, ("A", "B", "C"), ("A", "C")),
        Record(Exchange(1, ("B",)), 0, ("B", "B", "?"), ("C",)),
        Record(_play(0, "ACC"), 30, ("C", "A", "C"), ()),
        Record(Pass(1), 0, ("B", "?", "C"), ()),
    ]
    t = game_tally(history, [[], ["B", "?", "C"]], [40, 5], TS, RULES)
    # rack turns: A on racks 1 and 3 (1 + 1); C: 1 + 2 + 1; B: 1 + 2 + 1; ?: 1 + 1
    assert [_field(t, "rack_turns", x) for x in "ABC?"] == [2, 4, 4, 2]
    # arrivals: p0 dealt ABC, then AC drawn (p0 moves again); p1 dealt BB?, then C (p1 moves again)
    assert [_field(t, "arrivals", x) for x in "ABC?"] == [2, 3, 3, 1]
    assert [_field(t, "played", x) for x in "ABC?"] == [2, 1, 2, 0]
    assert [_field(t, "play_points", x) for x in "ABC?"] == [10 + 30, 10, 60, 0]
    assert [_field(t, "racks_with", x) for x in "ABC?"] == [2, 3, 3, 2]
    assert [_field(t, "bingos_with", x) for x in "ABC?"] == [1, 0, 1, 0]
    assert [_field(t, "left_at_end", x) for x in "ABC?"] == [0, 1, 1, 1]
    game = dict(zip(GAME_FIELDS, t[len(LETTER_FIELDS) * 4 :], strict=True))
    # full racks: all four; vowels 1, 0, 1, 0; consonants 2, 2, 2, 2 (the blank neither);
    # unbalanced (fewer than 2 vowels or consonants): all four
    assert game == {"moves": 4, "score": 45, "bingos": 1, "full_racks": 4, "vowels": 2, "consonants": 8, "unbalanced": 4}


def test_clustered_ratio_by_hand():
    from pipelines.bag import Z95, ratio

    a, b = [2, 4, 6], [1, 1, 2]
    r = 12 / 4
    resid = [2 - 3, 4 - 3, 6 - 6]
    se = math.sqrt(3 / 2 * sum(x * x for x in resid)) / 4
    got = ratio(a, b)
    assert got[0] == pytest.approx(r)
    assert got[1] == pytest.approx(r - Z95 * se) and got[2] == pytest.approx(r + Z95 * se)


def test_evenness_is_the_spread_of_mean_rack_turns():
    import numpy as np

    from pipelines.bag import evenness_of

    turns, arrivals = np.array([4.0, 6.0, 9.0, 1.0]), np.array([2.0, 2.0, 3.0, 1.0])
    assert float(evenness_of(turns, arrivals, [0, 1, 2])) == pytest.approx(np.std([2.0, 3.0, 3.0]))
    assert float(evenness_of(turns, arrivals, [1, 2])) == 0.0


def _candidate(tmp_path, change):
    from gamecore.tilesets import DATA_DIR

    lines = (DATA_DIR / "icelandic_new.tsv").read_text(encoding="utf-8").splitlines()
    out = [change(line) for line in lines]
    p = tmp_path / "candidate.tsv"
    p.write_text("\n".join(out) + "\n", encoding="utf-8")
    return p, out


def test_a_candidate_with_one_tile_too_many_is_refused_naming_the_letter(tmp_path):
    from gamecore.errors import DataError
    from gamecore.rules import load_rules
    from pipelines.bag import check_tile_set

    p, lines = _candidate(tmp_path, lambda line: "A\t12\t1\t1" if line.startswith("A\t") else line)
    alphabet = load_rules("netskrafl").tiles().letters
    with pytest.raises(DataError) as exc:
        check_tile_set(str(p), "netskrafl", alphabet)
    text = str(exc.value)
    assert f":{lines.index('A' + chr(9) + '12' + chr(9) + '1' + chr(9) + '1') + 1}:" in text
    assert "letter A: 12 tiles, not 11" in text and "sum to 101, not 100" in text
    # the points: Á worth 4 instead of 3 (the same tiles, 2 points more)
    p, _ = _candidate(tmp_path, lambda line: "Á\t2\t4\t1" if line.startswith("Á\t") else line)
    with pytest.raises(DataError, match="letter Á: 2 × 4 points, not 2 × 3.*points sum to 229, not 227"):
        check_tile_set(str(p), "netskrafl", alphabet)
    # a candidate that moves a tile from A to E keeps both totals only if the values agree: E is 3
    p, _ = _candidate(
        tmp_path, lambda line: "A\t10\t1\t1" if line.startswith("A\t") else ("I\t8\t1\t1" if line.startswith("I\t") else line)
    )
    check_tile_set(str(p), "netskrafl", alphabet)  # 10 A + 8 I: the same tiles and points


@needs_is
def test_cli_bad_tile_set_one_line(tmp_path):
    p, _ = _candidate(tmp_path, lambda line: "Ö\t2\t7\t1" if line.startswith("Ö\t") else line)
    r = run_skrafl_here("bag", "--lang", "is", "--rules", "netskrafl", "--tiles", str(p), "--games", "2", "-q")
    line = one_error_line(r)
    assert "letter Ö" in line and str(p) in line


@needs_is
def test_same_statistics_at_one_and_two_workers(tmp_path):
    from gamecore.klv import shipped_leaves
    from pipelines.bag import Config, analyse, letters_csv, play_all

    cfg = Config(str(IS_LEX), "netskrafl", str(shipped_leaves("is", "netskrafl")), 16, 5)
    one, _ = play_all(cfg, workers=1)
    two, _ = play_all(cfg, workers=2)
    assert one.tolist() == two.tolist()
    assert one.shape[0] == 16
    a, b = analyse(cfg, one, 1.0), analyse(cfg, two, 2.0)
    assert letters_csv([a]) == letters_csv([b])
    assert a.summary["evenness"] == b.summary["evenness"]
    # a tile that came to a rack stood there for at least one move of its player
    assert all(r["rack_turns"] >= 1 for r in a.letters)
