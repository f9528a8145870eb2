"""Game reviews (``replay --analyze --leaves``, ``--review``; pipelines/replay/equity.py,
pipelines/review.py).

Games are made here, in this process: English self-play on a lexicon drawn from the tile set's
frequencies, with MAGPIE's CSW21 values of the sub-leaves in tests/fixtures/leaves. The equity
robots' games (autoplay's equity player against itself) must show 0 equity lost on every turn and
100 % accuracy: the review's best move is the robot's own. A game of random legal plays (the move
generator's plays, picked by a seeded RNG) must grade lower. Each play's equity is checked against
its parts (the score, plus the kept tiles' value read from the leave file) while the bag holds
tiles. A broken game log is a row of the index with its error; the other games are reviewed.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from clirun import build_word_lexicon, run_skrafl_here

from gamecore.klv import RESOLUTION, Klv

SUBSET = Path(__file__).resolve().parent / "fixtures" / "leaves" / "csw21_subset.klv2"


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """A lexicon, two equity-robot games and two random-play games as GCG files (and the states)."""
    from gamecore.autoplay import GameResult, Mover, Strategy, gcg_text, play_game
    from gamecore.best import load_bundle
    from gamecore.equity import LeaveTable
    from gamecore.game_state import GameState, Pass, Play
    from gamecore.rules import load_rules

    tmp = tmp_path_factory.mktemp("review")
    rules = load_rules("wespa")
    ts = rules.tiles()
    rng = random.Random("review/words")
    pool = [x for x in ts.letters for _ in range(ts.counts.get(x, 0))]
    common = sorted(set(pool), key=lambda x: (-pool.count(x), ts.letters.index(x)))[:14]
    words = {a + b for a in common for b in common if rng.random() < 0.5}
    while len(words) < 6000:
        words.add("".join(rng.choice(pool) for _ in range(rng.choice([3, 3, 4, 4, 5, 5, 6, 7, 7, 8]))))
    lex = build_word_lexicon(tmp, sorted(w.lower() for w in words), "en")
    bundle = load_bundle(lex)
    leaves = LeaveTable(Klv.read(SUBSET), ts)
    mover = Mover(bundle, rules)
    folder = tmp / "games"
    folder.mkdir()
    states = {}
    for g in range(2):
        res = play_game(mover, [Strategy("equity", leaves=leaves)] * 2, f"review/bag/{g}", f"review/move/{g}")
        (folder / f"robots{g}.gcg").write_text(gcg_text(res, ["eq1", "eq2"], lexicon_name="en"), encoding="utf-8")
        states[f"robots{g}"] = res.state
    for g in range(2):
        state = GameState.new(rules, seed=f"review/bag/r{g}")
        pick = random.Random(f"review/random/{g}")
        turns = 0
        while state.over is None and turns < 200:
            plays = mover.all_plays(state, state.racks[state.turn])
            state.apply(Play(state.turn, pick.choice(plays)) if plays else Pass(state.turn))
            turns += 1
        res = GameResult(state, ("random", "random"), turns, [0, 0])
        (folder / f"random{g}.gcg").write_text(gcg_text(res, ["r1", "r2"], lexicon_name="en"), encoding="utf-8")
        states[f"random{g}"] = state
    return {"lex": lex, "folder": folder, "states": states, "leaves": leaves, "tmp": tmp}


def _review(games, name: str):
    from pipelines.replay import ReplayOptions, replay_file

    opts = ReplayOptions(lang="en", lexicon_dir=str(games["lex"]), analyze=True, leaves=str(SUBSET))
    return replay_file(str(games["folder"] / f"{name}.gcg"), opts)


@pytest.mark.parametrize("name", ["robots0", "robots1"])
def test_the_engines_own_game_loses_nothing(games, name):
    res = _review(games, name)
    g = res.game_row
    assert g["status"] == "ok", g["error"]
    turns = [m for m in res.move_rows if m["kind"] in ("play", "exchange", "pass")]
    assert len(turns) > 10
    assert all(m["equity"] is not None for m in turns)
    assert [m["turn"] for m in turns if m["equity_lost"] != 0] == []
    assert all(m["mistake"] is None for m in turns)
    assert (g["accuracy1"], g["accuracy2"]) == (100.0, 100.0)
    assert (g["equity_lost1"], g["equity_lost2"], g["mistake_index1"], g["mistake_index2"]) == (0, 0, 0, 0)
    assert (g["rating1"], g["rating2"]) == (2300, 2300)  # Woogles' table at mistake index 0


def test_random_plays_grade_lower_than_the_robots(games):
    robots = [_review(games, f"robots{g}").game_row for g in range(2)]
    randoms = [_review(games, f"random{g}").game_row for g in range(2)]
    worst_robot = min(r[f"accuracy{k}"] for r in robots for k in (1, 2))
    accs = [r[f"accuracy{k}"] for r in randoms for k in (1, 2)]
    assert max(accs) < worst_robot
    assert sum(accs) / len(accs) < 80, accs
    assert all(r[f"mistake_index{k}"] > 1 for r in randoms for k in (1, 2))


def test_a_plays_equity_is_its_score_and_leave(games):
    """While the bag holds tiles and the board is not empty, a play's equity is its score plus
    the leave file's value of the tiles it keeps (0 for a leave the file lacks)."""
    from gamecore.game_state import Play

    for name in ("random0", "robots0"):
        state = games["states"][name]
        rows = [m for m in _review(games, name).move_rows if m["kind"] == "play"]
        records = [rec for rec in state.history if isinstance(rec.event, Play)]
        assert len(rows) == len(records)
        klv, ts = games["leaves"].klv, games["leaves"].tile_set
        checked = 0
        placed = 0  # tiles on the board before the play: the bag holds tiles while 14 more are unseen
        for i, (m, rec) in enumerate(zip(rows, records, strict=True)):
            sp = rec.event.play
            kept = list(rec.rack)
            for u in sp.used():
                kept.remove(u)
            if i > 0 and ts.total - placed - 2 * 7 > sp.tiles_placed:
                numbers = tuple(sorted(0 if t == "?" else ts.letters.index(t) + 1 for t in kept))
                want = rec.score + (klv.milli(numbers) if numbers else 0) / RESOLUTION
                assert m["equity"] == pytest.approx(want, abs=1e-9), (name, m["turn"])
                checked += 1
            placed += sp.tiles_placed
        assert checked >= 5


def test_review_folder_broken_log_is_a_row(games, tmp_path):
    """--review over a folder: every game reviewed, a broken log a row with its error; the
    biggest mistakes drawn; the same bytes with two workers."""
    import shutil

    src = tmp_path / "in"
    shutil.copytree(games["folder"], src)
    (src / "broken.gcg").write_text("#player1 a a\n#player2 b b\n>a: ABC 8D\x00 +9\n", encoding="utf-8")
    outs = []
    for workers in (1, 2):
        out, rev = tmp_path / f"out{workers}", tmp_path / f"rev{workers}"
        r = run_skrafl_here(
            "replay", str(src), "--lexicon", str(games["lex"]), "--lang", "en", "--analyze", "--leaves", str(SUBSET),
            "--out", str(out), "--review", str(rev), "--workers", str(workers), "-q",
        )  # fmt: skip
        assert r.returncode == 1, r.stderr  # the broken game is not ok
        outs.append(rev)
    index = (outs[0] / "index.md").read_text(encoding="utf-8")
    broken = next(line for line in index.splitlines() if "broken.gcg" in line)
    assert "| error |" in broken and "(line 3)" in broken
    for name in ("robots0", "robots1", "random0", "random1"):
        assert f"]({name}.md)" in index
    random_md = (outs[0] / "random0.md").read_text(encoding="utf-8")
    pictures = sorted((outs[0] / "random0").glob("turn-*.svg"))
    assert len(pictures) == 3 and all(f"(random0/{p.name})" in random_md for p in pictures)
    assert "<svg" in pictures[0].read_text(encoding="utf-8")
    assert "None: no turn lost" in (outs[0] / "robots0.md").read_text(encoding="utf-8")
    for f in sorted(p.relative_to(outs[0]) for p in outs[0].rglob("*") if p.is_file() and not p.name.startswith(".")):
        assert (outs[1] / f).read_bytes() == (outs[0] / f).read_bytes(), f
    for table in ("games.parquet", "moves.parquet"):
        assert (tmp_path / "out1" / table).read_bytes() == (tmp_path / "out2" / table).read_bytes(), table


@pytest.mark.parametrize(
    "args, says",
    [
        (["--leaves", str(SUBSET)], "--leaves values each turn by equity: give --analyze too"),
        (["--analyze", "--review", "R"], "--review grades the games by equity"),
        (["--analyze", "--leaves", "/nonexistent.klv2"], "/nonexistent.klv2"),
        (["--analyze", "--sim-iterations", "8"], "--sim-iterations N (N at least 1) goes with --analyze --leaves"),
    ],
)
def test_bad_options_one_line(games, tmp_path, args, says):
    r = run_skrafl_here(
        "replay", str(games["folder"]), "--lexicon", str(games["lex"]), "--out", str(tmp_path / "o"), *args
    )  # fmt: skip
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], r.stderr
    assert not (tmp_path / "o").exists()


def test_grades_by_the_stated_rules():
    """The thresholds and the rating table as stated (Woogles' BestBot analysis)."""
    from pipelines.replay.equity import estimated_rating, mistake_size, player_grades

    assert mistake_size(0.9, None) is None
    assert [mistake_size(x, None) for x in (1, 7.9, 8, 15.9, 16)] == ["small", "small", "medium", "medium", "large"]
    assert [mistake_size(5, w) for w in (0.5, 3, 3.5, 7, 7.1)] == ["small", "small", "medium", "medium", "large"]
    assert [estimated_rating(x) for x in (0, 0.2, 0.35, 4.2, 4.3)] == [2300, 2250, 2225, 1650, None]
    turns = [
        (0, {"equity_lost": 0.0, "best_equity": 30.0, "mistake": None}),
        (0, {"equity_lost": 10.0, "best_equity": 20.0, "mistake": "medium"}),
        (1, {"equity_lost": 20.0, "best_equity": -5.0, "mistake": "large"}),
    ]
    got = player_grades(turns, 2)
    assert got["accuracy1"] == 80.0 and got["mistake_index1"] == 0.5 and got["rating1"] == 2200
    assert got["accuracy2"] == 0.0 and got["mistake_index2"] == 1.0 and got["accuracy3"] is None


def test_a_dataset_holds_the_equity_columns(games, tmp_path):
    """--dataset with --leaves: the partitions hold the equity columns (the same values as --out);
    the same dataset refuses a run without --leaves, naming what it was written with."""
    import pyarrow.dataset as pads

    from gamecore.errors import UsageError
    from pipelines.replay import ReplayOptions
    from pipelines.replay.jobs import run_replay_dataset

    files = [str(games["folder"] / f"{n}.gcg") for n in ("robots0", "random0")]
    opts = ReplayOptions(lang="en", lexicon_dir=str(games["lex"]), analyze=True, leaves=str(SUBSET))
    ds = tmp_path / "ds"
    run_replay_dataset(files, ds, opts, quiet=True)
    rows = pads.dataset(ds / "games", format="parquet", partitioning="hive").to_table().to_pylist()
    by_file = {Path(r["file"]).stem: r for r in rows}
    assert by_file["robots0"]["accuracy1"] == 100.0
    assert by_file["random0"]["accuracy1"] == _review(games, "random0").game_row["accuracy1"]
    with pytest.raises(UsageError, match="written with --analyze --leaves"):
        run_replay_dataset(files, ds, ReplayOptions(lang="en", lexicon_dir=str(games["lex"]), analyze=True), quiet=True)


@pytest.mark.parametrize("kind", ["pass", "exchange"])
def test_a_pass_and_an_exchange_are_valued_by_the_tiles_kept(games, tmp_path, kind):
    """The robots' game cut at its fifth move, made a pass (every tile kept: the whole rack's leave
    value) or an exchange of the rack's first two tiles (the other five's value), both while the
    bag holds tiles; the best move there is the robot's own move of the full game."""
    from pipelines.replay import ReplayOptions, replay_file

    lines = (games["folder"] / "robots0.gcg").read_text(encoding="utf-8").splitlines()
    moves = [i for i, line in enumerate(lines) if line.startswith(">")]
    at = moves[4]
    nick, rest = lines[at].split(":", 1)
    rack = rest.split()[0]
    before = int(lines[moves[2]].split()[-1])  # the same player's total two moves before
    tail = "-" if kind == "pass" else "-" + rack[:2]
    lines = lines[:at] + [f"{nick}: {rack} {tail} +0 {before}"]
    path = tmp_path / f"{kind}.gcg"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    opts = ReplayOptions(lang="en", lexicon_dir=str(games["lex"]), analyze=True, leaves=str(SUBSET))
    rows = replay_file(str(path), opts).move_rows
    full = _review(games, "robots0").move_rows
    assert [r["equity_lost"] for r in rows[:4]] == [0, 0, 0, 0]
    row = rows[4]
    assert row["kind"] == kind
    ts = games["leaves"].tile_set
    kept = list(rack) if kind == "pass" else list(rack[2:])
    numbers = tuple(sorted(0 if t == "?" else ts.letters.index(t) + 1 for t in kept))
    assert row["equity"] == games["leaves"].klv.milli(numbers) / RESOLUTION
    assert (row["best_move"], row["best_equity"]) == (full[4]["best_move"], full[4]["best_equity"])
    assert row["equity_lost"] == pytest.approx(max(0.0, row["best_equity"] - row["equity"]), abs=1e-9)


def test_win_lost_by_simulation(games):
    """--sim-iterations: win % lost from a simulation of the best moves and the one played, the
    same values run after run (the seed comes from the position); none once the bag is empty; the
    robot's own moves, losing no equity, are no mistakes whatever the simulation prefers."""
    from pipelines.replay import ReplayOptions, replay_file

    opts = ReplayOptions(lang="en", lexicon_dir=str(games["lex"]), analyze=True, leaves=str(SUBSET), sim_iterations=16)
    path = str(games["folder"] / "robots0.gcg")
    first = [m for m in replay_file(path, opts).move_rows if m["kind"] in ("play", "exchange", "pass")]
    again = [m for m in replay_file(path, opts).move_rows if m["kind"] in ("play", "exchange", "pass")]
    assert first == again
    static = {m["turn"]: m for m in _review(games, "robots0").move_rows}
    simulated = [m for m in first if m["win_pct_lost"] is not None]
    assert len(simulated) >= 5
    assert all(0 <= m["win_pct_lost"] <= 100 and m["mistake"] is None for m in simulated)
    assert any(m["win_pct_lost"] != static[m["turn"]]["win_pct_lost"] for m in simulated)  # not the win model's
    assert first[-1]["win_pct_lost"] is None  # the last move: the bag is empty
