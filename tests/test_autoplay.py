"""skrafl autoplay: self-play on gamecore.game_state, checked against the rules
and against an independent engine (``skrafl replay`` re-scores every exported game with its own
compiled scorer and end-of-game rules).

Icelandic: the lexicon built in output/is (skipped when it is not built). English: the SCOWL lexicon
built here (skipped without SCOWL). The equity sanity check needs MAGPIE-DATA's CSW21.klv2
(``SKRAFL_CSW21_KLV2``: not shipped, tests/fixtures/leaves/README.md says why).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from clirun import PROJECT_ROOT, run_skrafl

IS_LEX = PROJECT_ROOT / "output" / "is"
SCOWL = Path("/usr/share/dict/scowl")
CSW21 = os.environ.get("SKRAFL_CSW21_KLV2")

needs_is = pytest.mark.skipif(not (IS_LEX / "lexicon.kwg").is_file(), reason="output/is not built")


def _conserved(st) -> None:
    ts = st.tile_set
    want = {k: v for k, v in ts.counts.items() if v}
    want["?"] = ts.blanks
    assert st.tile_counts() == want


def _check_game(mover, strategies, bag_seed: str) -> object:
    """Play one game turn by turn, checking the rules after every turn; return the final state."""
    import random

    from gamecore.game_state import Exchange, GameState, Pass, Play

    rules = mover.rules
    st = GameState.new(rules, seed=bag_seed, lexicon=mover.bundle.words)
    rng = random.Random(bag_seed + ":moves")
    moves = 0
    while st.over is None:
        ev = mover.choose(st, strategies[st.turn], rng)
        st.apply(ev)
        moves += 1
        _conserved(st)  # bag + racks + board = the tile set, every turn
        assert all(len(r) == rules.rack_size for r in st.racks) or not st.bag
        assert moves < 500
    # how it ended: out with the bag empty, or 3 scoreless rounds (6 turns of passes/exchanges)
    if st.over == "out":
        assert not st.bag and not st.racks[st.out_player]
    else:
        assert st.over == "zeros"
        n = rules.scoreless_turns_end(2)
        assert all(isinstance(h.event, (Pass, Exchange)) for h in st.history[-n:])
        assert any(isinstance(h.event, Play) for h in st.history[:-n]) or len(st.history) == n
    # final = sum of the move scores + the end-of-game rack adjustments of the preset
    ts = st.tile_set

    def value(tiles):
        return sum(ts.value(t) for t in tiles if t != "?")

    for p in range(2):
        moved = sum(h.score for h in st.history if h.event.player == p)
        assert st.pre_end[p] == moved
        if st.over == "out":
            opp = st.racks[1 - st.out_player]
            adj = 2 * value(opp) if p == st.out_player else 0  # double_opponent_rack (Netskrafl, WESPA)
        else:
            adj = -value(st.racks[p])  # minus_own_rack
        final = moved + adj
        assert st.scores[p] == (max(0, final) if rules.score_floor_zero else final)
    return st


@needs_is
def test_icelandic_games_keep_every_rule_turn_by_turn():
    from gamecore.autoplay import Mover, Strategy
    from gamecore.best import load_bundle
    from gamecore.rules import load_rules

    mover = Mover(load_bundle(IS_LEX), load_rules("netskrafl"))
    ends = set()
    for i in range(6):
        st = _check_game(mover, [Strategy("score"), Strategy("fullsterkur")], f"test:{i}")
        ends.add(st.over)
    assert "out" in ends


@needs_is
def test_icelandic_scoreless_end_each_loses_own_rack():
    """A player who never plays (a rack it cannot play: the strategy passes) and its opponent's
    exchanges end the game on six scoreless turns."""
    from gamecore.autoplay import Mover, Strategy
    from gamecore.best import load_bundle
    from gamecore.game_state import Exchange, Pass
    from gamecore.rules import load_rules

    class Stubborn(Mover):
        def choose(self, state, strategy, rng):
            p = state.turn
            if state.can_exchange(1):
                return Exchange(p, (state.racks[p][0],))
            return Pass(p)

    mover = Stubborn(load_bundle(IS_LEX), load_rules("netskrafl"))
    st = _check_game(mover, [Strategy("score"), Strategy("score")], "zeros")
    assert st.over == "zeros" and len(st.history) == 6
    assert st.scores == [0, 0]  # netskrafl: never below 0


def _skrafl(*args):
    r = run_skrafl(*map(str, args))
    return r


@needs_is
def test_same_seed_same_bytes_at_any_worker_count_and_replay_agrees(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    common = ("autoplay", "--lang", "is", "--games", "12", "--seed", "7", "--p2", "fullsterkur", "--gcg", "-q")
    r = _skrafl(*common, "--workers", "1", "--out", a, "-f", "json")
    assert r.returncode == 0, r.stderr
    assert _skrafl(*common, "--workers", "2", "--out", b).returncode == 0
    for name in ("games.parquet", "games.csv"):
        assert (a / name).read_bytes() == (b / name).read_bytes()
    gcgs = sorted(p.name for p in (a / "gcg").iterdir())
    assert len(gcgs) == 12
    assert all((a / "gcg" / n).read_bytes() == (b / "gcg" / n).read_bytes() for n in gcgs)
    assert _skrafl(*common, "--workers", "2", "--out", a).returncode == 0  # a rerun over its own output
    assert (a / "games.csv").read_bytes() == (b / "games.csv").read_bytes()
    other = _skrafl("autoplay", "--lang", "is", "--games", "12", "--seed", "8", "--p2", "fullsterkur", "-q", "--out", c)
    assert other.returncode == 0 and (c / "games.csv").read_bytes() != (a / "games.csv").read_bytes()
    # the independent engine: replay re-scores every exported game
    import polars as pl

    rep = _skrafl("replay", a / "gcg", "--lang", "is", "--rules", "netskrafl", "--out", tmp_path / "rep", "-q")
    assert rep.returncode == 0, rep.stderr
    games = pl.read_parquet(a / "games.parquet").sort("game")
    replayed = pl.read_parquet(tmp_path / "rep" / "games.parquet").sort("file")
    assert replayed["status"].to_list() == ["ok"] * 12
    for row, rrow in zip(games.iter_rows(named=True), replayed.iter_rows(named=True), strict=True):
        first, second = ("p1_score", "p2_score") if row["first"] == "p1" else ("p2_score", "p1_score")
        assert (rrow["score1"], rrow["score2"]) == (row[first], row[second])
        assert rrow["player1"] == row["first"]


@needs_is
def test_summary_counts(tmp_path):
    import json

    r = _skrafl("autoplay", "--lang", "is", "--games", "10", "--seed", "3", "--p2", "amlodi", "-q", "-f", "json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["games"] == 10 and s["p1_wins"] + s["p2_wins"] + s["ties"] == 10
    assert s["p1_win_rate"] == pytest.approx((s["p1_wins"] + s["ties"] / 2) / 10, abs=1e-4)
    assert s["p1_win_rate_low"] <= s["p1_win_rate"] <= s["p1_win_rate_high"]
    assert s["games_per_cpu_second"] > 0


@needs_is
def test_pairs_share_the_bag_seats_swapped(tmp_path):
    import polars as pl

    r = _skrafl("autoplay", "--lang", "is", "--games", "4", "--seed", "5", "--pairs", "--gcg", "-q", "--out", tmp_path / "o")
    assert r.returncode == 0, r.stderr
    g = pl.read_csv(tmp_path / "o" / "games.csv")
    assert g["pair"].to_list() == [0, 0, 1, 1] and g["first"].to_list() == ["p1", "p2", "p1", "p2"]

    def first_rack(n):
        line = next(x for x in (tmp_path / "o" / "gcg" / f"game-{n:06d}.gcg").read_text().splitlines() if x.startswith(">"))
        return sorted(line.split()[1])

    # the same bag: the first mover of both games of a pair starts with the same rack
    assert first_rack(0) == first_rack(1) and first_rack(2) == first_rack(3)
    assert first_rack(0) != first_rack(2)


@pytest.mark.parametrize(
    "args, says",
    [
        (["--games", "0"], "--games must be at least 1"),
        (["--seed", "-1"], "--seed must be 0 or more"),
        (["--p1", "equity"], "--p1 equity needs leave values: give --leaves"),
        (["--p2", "equity"], "--p2 equity needs leave values"),
        (["--leaves1", "x.klv2"], "--leaves1 is for an equity player"),
        (["--leaves", "x.klv2"], "--leaves is for equity players"),
        (["--pairs", "--games", "3"], "even --games"),
        (["--gcg"], "give --out DIR too"),
        (["--workers", "0"], "--workers must be at least 1"),
    ],
)
def test_bad_input_one_line_exit_2(args, says, tmp_path):
    r = _skrafl("autoplay", "--lexicon", tmp_path / "none", *args, "-q")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in r.stderr


@needs_is
def test_a_failed_run_changes_nothing(tmp_path):
    out = tmp_path / "o"
    assert _skrafl("autoplay", "--lang", "is", "--games", "2", "-q", "--out", out).returncode == 0
    before = (out / "games.csv").read_bytes()
    bad = tmp_path / "bad.klv2"
    bad.write_bytes(b"not a leave file")
    r = _skrafl("autoplay", "--lang", "is", "--games", "2", "--p1", "equity", "--leaves", bad, "-q", "--out", out)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert (out / "games.csv").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["bad.klv2", "o"]


@pytest.fixture(scope="module")
def english(tmp_path_factory) -> Path:
    if not SCOWL.is_dir():
        pytest.skip("SCOWL is not installed (apt-get install scowl)")
    out = tmp_path_factory.mktemp("en") / "en"
    r = run_skrafl("build", "en", "--source", "scowl", "--out", str(out), "-q")
    assert r.returncode == 0, r.stderr
    return out


def test_english_games_keep_every_rule_and_replay_agrees(english, tmp_path):
    from gamecore.autoplay import Mover, Strategy
    from gamecore.best import load_bundle
    from gamecore.rules import load_rules

    mover = Mover(load_bundle(english), load_rules("wespa"))
    for i in range(4):
        _check_game(mover, [Strategy("score"), Strategy("score")], f"en:{i}")
    out = tmp_path / "o"
    r = _skrafl("autoplay", "--lexicon", english, "--games", "6", "--seed", "1", "--gcg", "-q", "--out", out)
    assert r.returncode == 0, r.stderr
    rep = _skrafl("replay", out / "gcg", "--lexicon", english, "--rules", "wespa", "--out", tmp_path / "rep", "-q")
    assert rep.returncode == 0, rep.stderr


@pytest.mark.skipif(not CSW21 or not Path(CSW21).is_file(), reason="set SKRAFL_CSW21_KLV2 to MAGPIE-DATA's CSW21.klv2")
def test_equity_beats_score_on_english(english):
    """A sanity check: static equity with real leaves beats the top-score player over 40 games
    (20 pairs: the same bags from both seats), seed 0 chosen before the run."""
    import json

    r = _skrafl(
        "autoplay", "--lexicon", english, "--games", "40", "--seed", "0", "--pairs", "--p1", "equity", "--p2", "score",
        "--leaves", CSW21, "--workers", "2", "-q", "-f", "json",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["p1_wins"] + s["ties"] / 2 > 20, s
    assert s["p1_mean_score"] > s["p2_mean_score"], s


@needs_is
def test_a_killed_run_leaves_the_old_output(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "o"
    assert _skrafl("autoplay", "--lang", "is", "--games", "2", "-q", "--out", out).returncode == 0
    before = (out / "games.csv").read_bytes()
    gen = os.readlink(out)
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "autoplay", "--lang", "is", "--games", "20000", "--workers", "2", "-q"]
        + ["--out", str(out)],
        cwd=PROJECT_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(3)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert (out / "games.csv").read_bytes() == before and os.readlink(out) == gen
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([out.name, gen])  # no stage left


@pytest.mark.parametrize("preset", ["scrabble_passes_twice", "scrabble_endline_beginner"])
def test_english_presets_others_racks_and_endline_replay_agrees(english, tmp_path, preset):
    """others_racks (the out-player gains what the other loses: the adjustments sum to 0) and
    Endline (the game ends when a player reaches 70, no adjustment), checked by replay too."""
    import polars as pl

    out = tmp_path / "o"
    r = _skrafl("autoplay", "--lexicon", english, "--rules", preset, "--games", "6", "--seed", "2", "--gcg", "-q", "--out", out)
    assert r.returncode == 0, r.stderr
    g = pl.read_parquet(out / "games.parquet")
    for row in g.iter_rows(named=True):
        gained = row["p1_score"] - row["p1_before_end"], row["p2_score"] - row["p2_before_end"]
        if preset == "scrabble_endline_beginner":
            assert row["end"] == "target" and gained == (0, 0)
            assert max(row["p1_score"], row["p2_score"]) >= 70
        else:
            assert row["end"] in ("out", "zeros", "passes")
            if row["end"] == "out":
                assert sum(gained) == 0 and max(gained) >= 0
    rep = _skrafl("replay", out / "gcg", "--lexicon", english, "--rules", preset, "--out", tmp_path / "rep", "-q")
    assert rep.returncode == 0, rep.stderr
    assert pl.read_parquet(tmp_path / "rep" / "games.parquet")["status"].to_list() == ["ok"] * 6


def test_a_game_refused_in_a_worker_is_one_error_not_a_hung_pool(monkeypatch):
    """A rules error raised in a worker process comes back as one line naming the game (the
    exception itself need not survive pickling: it once hung the pool)."""
    import signal

    import pipelines.autoplay as pa
    from gamecore.errors import DataError
    from gamecore.game_state import IllegalMove

    def play_one(cfg, i):
        if i == 5:
            raise IllegalMove("illegal_play", "8H XYZ: not in the lexicon")
        return {"game": i}, None, 0.0

    monkeypatch.setattr(pa, "play_one", play_one)
    cfg = pa.Config(lexicon="-", rules="wespa", p1="score", p2="score", games=12, seed=0)

    def hung(*_):
        raise TimeoutError("the pool hung")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        for workers in (1, 2):
            with pytest.raises(DataError, match="game 5: 8H XYZ: not in the lexicon"):
                pa.play_games(cfg, workers)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@needs_is
def test_rules_whose_tile_set_lacks_the_lexicons_letters_are_refused(tmp_path):
    r = _skrafl("autoplay", "--lang", "is", "--rules", "wespa", "--games", "2", "-q", "--out", tmp_path / "o")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        f"skrafl: error: the lexicon {IS_LEX} has letters the tile set english of rules wespa lacks (ÁÐÉÍÓÚÝÞÆÖ): "
        "give --rules of the lexicon's language"
    ]
    assert not (tmp_path / "o").exists()
