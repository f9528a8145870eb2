"""Monte Carlo simulation (``gamecore.simulation``, ``skrafl best --sim``, autoplay's ``sim``).

In-process, on lexicons made here from word lists (no built lexicon needed): the simulation prefers
the play static equity ranks second when the first opens a triple-word lane to the opponent (values
worked out by hand from the board's premium squares); a clearly worse candidate is dropped by the
early stop and a close one is not; the same seed gives the same numbers at any number of workers and
another seed other numbers; the win model's fit recovers the curve that made its samples; bad input
is one line and exit 2.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache
from pathlib import Path

import pytest

from gamecore.best import LexiconBundle
from gamecore.board import Board
from gamecore.equity import LeaveTable
from gamecore.errors import UsageError
from gamecore.klv import Klv, klv2_bytes
from gamecore.kwg import Kwg
from gamecore.rules import load_rules
from gamecore.simulation import Candidate, Simulator, WinModel, compare_simulated, fit_win_model, paired_drop

WESPA = load_rules("wespa")
TS = WESPA.tiles()


def _bundle(words) -> LexiconBundle:
    letters = list(TS.letters)
    kwg = Kwg.from_words(sorted(w.lower() for w in words), [x.lower() for x in letters])
    return LexiconBundle(Path("."), {}, None, kwg, letters)


@lru_cache(maxsize=None)
def _zero_leaves() -> LeaveTable:
    """Every leave worth 0: static equity is the score."""
    return LeaveTable(Klv.from_bytes(klv2_bytes({(1,): 0.0})), TS)


def _board(tiles: dict[tuple[int, int], str]) -> Board:
    b = Board(WESPA.layout(), TS)
    for (r, c), label in tiles.items():
        b.place(r, c, label, False)
    return b


# CAT across row 8 from the centre star: H8, I8, J8 (0-based row 7, columns 7-9).
CAT = {(7, 7): "C", (7, 8): "A", (7, 9): "T"}
TRAP_WORDS = ["CAT", "CATBOAT", "CATBOATS", "TAB", "SHOW"]


def _trap():
    return Simulator(_bundle(TRAP_WORDS), WESPA, _zero_leaves()), _board(CAT)


def test_the_play_that_opens_a_triple_word_lane_loses_to_the_second():
    """Rack ABEEIOT on CAT (zero leaves, so static equity = score). By the standard board:
    - CATBOAT, 8H across (B, O, A, T on columns K-N of row 8, O on the double letter at L8):
      C3 A1 T1 B3 O1x2 A1 T1 = 12, and the last tile sits beside the triple word at O8;
    - TAB, J8 down (A at J9, B on the triple letter at J10): T1 A1 B3x3 = 11.
    Static equity ranks CATBOAT first. The opponent holds SHOWUUU (given, as a CGP's second rack):
    after CATBOAT it plays SHOW down from O8 through the triple word: SHOW (S1 H4 O1 W4) x 3 = 30
    plus CATBOATS (C3 A1 T1 B3 O1 A1 T1 S1: the double letter under O counted only for the play that
    covered it) x 3 = 36 → 66, while after TAB it has no play (no word of the lexicon fits) and
    exchanges for 0. One ply: CATBOAT is worth 12 - 66 = -54, TAB 11 - 0 = 11, on every draw; with
    two plies our second move comes on top but cannot undo 65 points."""
    sim, board = _trap()
    rack, opponent = list("ABEEIOT"), list("SHOWUUU")
    ranked = sim.candidates(board, rack, opponent, 2)
    assert [(r.play.word_text(), r.score) for r in ranked] == [("CATBOAT", 12), ("TAB", 11)]
    one = sim.run(board, rack, opponent, candidates=2, plies=1, iterations=20, seed=5, min_iterations=10**6)
    by_word = {c.ranked.play.word_text(): c for c in one.candidates}
    assert one.candidates[0].ranked.play.word_text() == "TAB"
    assert set(by_word["CATBOAT"].values) == {-54_000} and set(by_word["TAB"].values) == {11_000}
    assert by_word["TAB"].stderr == 0 and by_word["CATBOAT"].iterations == 20
    two = sim.run(board, rack, opponent, candidates=2, plies=2, iterations=64, seed=5)
    assert two.candidates[0].ranked.play.word_text() == "TAB"


def test_a_clearly_worse_candidate_is_dropped_at_the_first_check():
    """The same two candidates with the default early stop: CATBOAT is 65 points behind on every
    draw (the paired differences have no spread), so it is dropped at the first check (64
    iterations), the run stops with one candidate left, well before the budget."""
    sim, board = _trap()
    res = sim.run(board, list("ABEEIOT"), list("SHOWUUU"), candidates=2, plies=1, iterations=1000, seed=1)
    assert res.stopped == "one left" and res.iterations == 64
    top, dropped = res.candidates
    assert top.ranked.play.word_text() == "TAB" and top.dropped_at is None
    assert dropped.dropped_at == 64 and dropped.iterations == 64


def test_paired_drop_rule():
    """Dropped: the leader's mean advantage on the same draws above z standard errors; kept: a
    difference within the noise, or fewer than two shared iterations."""
    rng = random.Random(3)
    base = [rng.randrange(-20_000, 20_000) for _ in range(200)]
    leader = Candidate(None, [v + 3000 + rng.randrange(-500, 500) for v in base])
    worse = Candidate(None, list(base))
    noisy = Candidate(None, [v + 3000 + rng.randrange(-40_000, 40_000) for v in base])
    assert paired_drop(leader, worse, 2.576)
    assert not paired_drop(leader, noisy, 2.576)
    assert not paired_drop(Candidate(None, [5]), Candidate(None, [1]), 2.576)


def _first(*cands: tuple[str, float, float]) -> str:
    """The name of the move MAGPIE's order puts first among ``(name, mean equity, mean win)``."""
    import functools

    made = [Candidate(name, [round(eq * 1000)] * 4, [win] * 4) for name, eq, win in cands]
    return sorted(made, key=functools.cmp_to_key(compare_simulated))[0].ranked


def test_simulated_moves_are_ordered_by_magpies_rule():
    """MAGPIE (``compare_simmed_plays``, cutoff 0.005 %): the higher win probability first, even at
    lower equity; equity decides between equal win probabilities, or two both within the cutoff of
    a certain loss or of a certain win; no win model: the higher equity."""
    assert _first(("a", 30.0, 0.61), ("b", 24.0, 0.64)) == "b"
    assert _first(("a", 30.0, 0.61), ("b", 24.0, 0.61)) == "a"
    assert _first(("a", 12.0, 0.99996), ("b", 20.0, 0.99999)) == "b"  # both certain wins: equity
    assert _first(("a", 20.0, 0.99996), ("b", 12.0, 0.99999)) == "a"
    assert _first(("a", 20.0, 0.99990), ("b", 12.0, 0.99999)) == "b"  # 0.9999 is not within the cutoff
    assert _first(("a", -5.0, 0.00001), ("b", 3.0, 0.00004)) == "b"  # both certain losses: equity
    assert _first(("a", 3.0, 0.00004), ("b", -5.0, 0.00001)) == "a"
    assert _first(("a", 10.0, math.nan), ("b", 11.0, math.nan)) == "b"


@lru_cache(maxsize=None)
def _random_setup():
    """A denser lexicon (two-letter words of common letters and a few thousand longer ones drawn
    from the tile frequencies) and leave values for every leave of one or two tiles."""
    rng = random.Random("sim/words")
    letters = list(TS.letters)
    pool = [x for x in letters for _ in range(TS.counts.get(x, 0))]
    common = sorted(set(pool), key=lambda x: (-pool.count(x), letters.index(x)))[:12]
    words = {a + b for a in common for b in common if rng.random() < 0.45}
    while len(words) < 3000:
        words.add("".join(rng.choice(pool) for _ in range(rng.choice([3, 3, 4, 4, 5, 6, 7, 7, 8]))))
    table = {}
    for a in range(len(letters) + 1):
        table[(a,)] = rng.uniform(-6, 8)
        for b in range(a, len(letters) + 1):
            table[(a, b)] = rng.uniform(-6, 10)
    leaves = LeaveTable(Klv.from_bytes(klv2_bytes(table)), TS)
    bundle = _bundle(words)
    sim = Simulator(bundle, WESPA, leaves, WinModel(20.0, 18.0, 0.5))
    first = sim.candidates(_board({}), list("EARTOIN"), (), 1)[0].play
    board = _board({})
    for t, (r, c) in zip(first.word, first.squares(), strict=True):
        board.place(r, c, t.label, t.blank)
    return sim, board


def _numbers(res):
    return [(c.ranked.milli, c.values, c.wins, c.dropped_at) for c in res.candidates]


def test_same_seed_same_numbers_at_any_worker_count():
    sim, board = _random_setup()
    rack = list("SLEDRA?")
    kw = dict(candidates=5, plies=2, iterations=96, min_iterations=32, batch=16)
    a = sim.run(board, rack, seed=11, **kw)
    b = sim.run(board, rack, seed=11, workers=2, **kw)
    t = sim.run(board, rack, seed=11, threads=3, **kw)  # threads on boards of their own, blocks of 5 or 6
    c = sim.run(board, rack, seed=12, **kw)
    assert _numbers(a) == _numbers(b) == _numbers(t)
    assert _numbers(a) != _numbers(c)
    assert all(0 <= w <= 1 for cand in a.candidates for w in cand.wins)
    assert len({tuple(c.values) for c in a.candidates}) > 1  # the draws matter


def test_fit_win_model_recovers_the_curve():
    """Samples drawn from a known curve: the fit is close to it where the samples are."""
    true = WinModel(15.0, 20.0, 0.6)
    rng = random.Random(9)
    samples = []
    for _ in range(6000):
        s, u = rng.randint(-150, 150), rng.randint(0, 90)
        samples.append((s, u, 1.0 if rng.random() < true.probability(s, u) else 0.0))
    got = fit_win_model(samples)
    for s, u in ((0, 80), (30, 40), (-40, 20), (10, 5)):
        assert math.isclose(got.probability(s, u), true.probability(s, u), abs_tol=0.05)


def test_bad_budgets_are_usage_errors():
    sim, board = _trap()
    rack = list("ABEEIOT")
    for kw, words in (
        ({"plies": 0}, "--plies"),
        ({"iterations": 0}, "--iterations"),
        ({"iterations": 5, "seconds": 1.0}, "not both"),
        ({"workers": 0}, "--workers"),
        ({"threads": 0}, "--threads"),
        ({"threads": 2, "workers": 2}, "--threads or --workers"),
        ({"candidates": 0}, "--candidates"),
    ):
        with pytest.raises(UsageError, match=words):
            sim.run(board, rack, **kw)


def test_cli_sim_without_leaves_is_one_line(tmp_path):
    """The command: --sim without --leaves, and a --sim option without --sim, each one line, exit 2."""
    from clirun import run_skrafl

    words = tmp_path / "w.txt"
    words.write_text("cat\ntab\n", encoding="utf-8")
    lex = tmp_path / "lex"
    r = run_skrafl("build", "en", "--source", "wordlist", "--input", str(words), "--out", str(lex), "-q")
    assert r.returncode == 0, r.stderr
    cgp = "/".join(["15"] * 7 + ["7CAT5"] + ["15"] * 7) + " ABEEIOT/ 0/0 0"
    r = run_skrafl("best", "--lexicon", str(lex), "--cgp", cgp, "--sim")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "--leaves" in r.stderr
    r = run_skrafl("best", "--lexicon", str(lex), "--cgp", cgp, "--iterations", "10")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--sim" in r.stderr


def test_autoplay_sim_player_plays_whole_games_reproducibly():
    """autoplay's ``sim`` strategy against ``equity``: a whole game the rules engine accepts, the
    same game again from the same seeds."""
    from gamecore.autoplay import Mover, Strategy, play_game

    sim, _ = _random_setup()
    mover = Mover(sim.bundle, WESPA)
    seats = [Strategy("sim", sim.leaves), Strategy("equity", sim.leaves)]
    a = play_game(mover, seats, "bag:1", "moves:1")
    b = play_game(mover, seats, "bag:1", "moves:1")
    assert a.state.over is not None
    assert [r.event for r in a.state.history] == [r.event for r in b.state.history]
    assert a.state.scores == b.state.scores
