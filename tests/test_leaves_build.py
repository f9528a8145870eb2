"""skrafl leaves build: leave values from self-play, and the shipped leave files.

The builds here are tiny and fast: the Icelandic lexicon built in output/is (skipped when it is not
built) under the Netskrafl rules with racks of 5 tiles (a rule file made here), so that the tile set
has 57,084 leaves of 1-4 tiles instead of 2.3 million. The estimator is checked on synthetic data
whose true leave values are known.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from clirun import PROJECT_ROOT, run_skrafl

IS_LEX = PROJECT_ROOT / "output" / "is"
needs_is = pytest.mark.skipif(not (IS_LEX / "lexicon.kwg").is_file(), reason="output/is not built")
LEAVES_DIR = PROJECT_ROOT / "gamecore" / "data" / "leaves"


def _rules5(folder: Path) -> Path:
    """The netskrafl preset with racks of 5 tiles (bingo: 5 tiles), as a rule file."""
    src = (PROJECT_ROOT / "gamecore" / "data" / "rules" / "netskrafl.toml").read_text(encoding="utf-8")
    text = src.replace('name = "netskrafl"', 'name = "netskrafl5"').replace("rack_size = 7", "rack_size = 5")
    p = folder / "netskrafl5.toml"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """One tiny build (12 games a generation, 2 generations, seed 5) with 1 worker, and the same
    with 2 workers and with seed 6."""
    if not (IS_LEX / "lexicon.kwg").is_file():
        pytest.skip("output/is not built")
    from pipelines.leaves_build import Config, build_leaves

    d = tmp_path_factory.mktemp("leaves")
    rules = str(_rules5(d))
    one = build_leaves(Config(str(IS_LEX), rules, 12, 5, 2), workers=1)
    two = build_leaves(Config(str(IS_LEX), rules, 12, 5, 2), workers=2)
    other = build_leaves(Config(str(IS_LEX), rules, 12, 6, 2), workers=1)
    return d, rules, one, two, other


def test_tiny_build_is_deterministic_and_covers_every_leave(tiny):
    from gamecore.equity import LeaveTable
    from gamecore.klv import Klv
    from gamecore.leavegen import all_leaves, leave_count
    from gamecore.rules import load_rules

    _, rules, one, two, other = tiny
    assert one.klv == two.klv  # the same seed, any worker count: the same bytes
    assert one.stats["racks"] == two.stats["racks"]
    assert other.klv != one.klv  # another seed, other games
    ts = load_rules(rules).tiles()
    klv = Klv.from_bytes(one.klv)
    LeaveTable(klv, ts)  # fits the tile set
    want = list(all_leaves(ts, 4))
    assert len(want) == leave_count(ts, 4) == len(klv) == 57_084
    assert list(klv.words()) == want  # every leave, in KLV2 order, and nothing else
    vals = [float(v) for v in klv.values]
    assert all(v * 64 == int(v * 64) for v in vals)  # stored in 1/64 points
    assert len(set(vals)) > 1000
    # the blank is the most valuable single tile, as in every tile set's leaves
    singles = {w[0]: float(v) for w, v in klv.items() if len(w) == 1}
    assert max(singles, key=singles.get) == 0


def test_estimator_recovers_known_values():
    """Synthetic racks whose equity is a known additive function of its tiles plus noise: the
    leave values come back as E[equity | rack holds the leave] - E[equity], to a tenth of a point."""
    import numpy as np

    from gamecore.leavegen import sub_leaves
    from gamecore.rules import load_rules
    from pipelines.leaves_build import Features, LeaveIndex, Tally, fit, predict_all

    rules = load_rules("wespa").replace(rack_size=4)
    ts = rules.tiles()
    index = LeaveIndex(ts, 4)
    feats = Features(ts, 4)
    rng = random.Random(1)
    # tile worths: the blank 25, S 8, Q -7, the rest small; a duplicate of a tile costs 4
    worth = {t: rng.uniform(-3, 3) for t in range(27)}
    worth.update({0: 25.0, 19: 8.0, 17: -7.0})
    bag = [0] * ts.blanks + [i for i, label in enumerate(ts.letters, 1) for _ in range(ts.counts.get(label, 0))]

    def equity(rack):
        return 30 + sum(worth[t] for t in rack) - 4 * (len(rack) - len(set(rack)))

    tally = Tally(len(index.leaves))
    codes, eqs, ways = [], [], []
    for _ in range(60_000):
        rack = tuple(sorted(rng.sample(bag, 4)))
        e = equity(rack) + rng.gauss(0, 10)
        tally.racks += 1
        tally.equity += e
        for leave, w in sub_leaves(rack, 3):
            codes.append(index.code(leave))
            eqs.append(e)
            ways.append(w)
    rows = index.rows(np.array(codes, dtype=np.int64))
    u, inv = np.unique(rows, return_inverse=True)
    e, w = np.array(eqs), np.array(ways, dtype=np.float64)
    n = np.bincount(inv, weights=w).astype(np.int64)
    tally.add(u, n, np.bincount(inv, weights=w * e), np.bincount(inv, weights=w * e * e), 0, 0.0, 0, 0, 0.0)
    model, seen, corr = fit(tally, feats, index)
    got = predict_all(index, feats, model, seen, corr, tally.equity / tally.racks)
    # the truth: the mean equity of racks holding the leave (exact, over the tile set's draws) less the mean
    pos = {leave: i for i, leave in enumerate(index.leaves)}
    truth_all = [equity(tuple(sorted(rng.sample(bag, 4)))) for _ in range(200_000)]
    base = sum(truth_all) / len(truth_all)
    for leave in [(0,), (19,), (17,), (0, 19), (5, 5), (1, 5, 19)]:
        rest = list(bag)
        for t in leave:
            rest.remove(t)
        draws = [equity(tuple(sorted(leave + tuple(rng.sample(rest, 4 - len(leave)))))) for _ in range(20_000)]
        want = sum(draws) / len(draws) - base
        assert abs(got[pos[leave]] - want) < 0.6, (leave, got[pos[leave]], want)
    assert got[pos[(0,)]] > got[pos[(19,)]] > 0 > got[pos[(17,)]]


def test_bad_input_one_line_exit_2(tmp_path):
    from cli.leaves import _build
    from gamecore.errors import UsageError

    a = tmp_path / "a.klv2"
    # (lang, lexicon, rules, games, seed, generations, workers, out, quiet)
    cases = [
        (("is", None, None, 0, 1, 1, 1, a), "--games must be at least 1"),
        (("is", None, None, 2, -1, 1, 1, a), "--seed must be 0 or more"),
        (("is", None, None, 2, 1, 0, 1, a), "--generations must be at least 1"),
        (("is", None, None, 2, 1, 1, 0, a), "--workers must be at least 1"),
        (("is", None, None, 2, 1, 1, 1, tmp_path / "a.bin"), "must end in .klv2"),
        (("is", None, None, 2, 1, 1, 1, None), "give --out FILE.klv2"),
        (("is", None, None, None, 1, 1, 1, a), "give --games N"),
        ((None, None, None, 2, 1, 1, 1, a), "give --lang L"),
        ((None, tmp_path / "none", None, 2, 1, 1, 1, a), "no lexicon folder"),
    ]
    for args, msg in cases:
        with pytest.raises(UsageError, match=msg.replace(".", r"\.")):
            _build(*args, True)
    assert not list(tmp_path.iterdir())
    # the command's own form: one line, exit 2
    r = run_skrafl("leaves", "build", "--lang", "is", "--games", "0", "--out", str(a))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--games must be at least 1" in r.stderr
    r = run_skrafl("leaves", "show", "x.klv2", "A", "--games", "3")
    assert r.returncode == 2 and "options of 'leaves build'" in r.stderr


@needs_is
def test_bad_input_the_out_inside_the_lexicon_and_a_misfit_leave_file(tmp_path):
    r = run_skrafl("leaves", "build", "--lang", "is", "--games", "2", "--out", str(IS_LEX / "x.klv2"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and not (IS_LEX / "x.klv2").exists()
    # a leave file of a 33-letter tile set read with the 26 letters of English: one line, exit 2
    from gamecore.klv import write_klv2

    write_klv2(tmp_path / "wide.klv2", {(33,): 1.0})
    r = run_skrafl("leaves", "show", str(tmp_path / "wide.klv2"), "A", "--lang", "en")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "do not fit the tile set" in r.stderr


@needs_is
def test_cli_build_writes_klv2_and_manifest(tmp_path):
    rules = _rules5(tmp_path)
    out = tmp_path / "o" / "is5.klv2"
    out.parent.mkdir()
    r = run_skrafl("leaves", "build", "--lang", "is", "--rules", str(rules), "--games", "4", "--generations", "1",
                   "--seed", "2", "--out", str(out), "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    man = json.loads((tmp_path / "o" / "is5.json").read_text())
    import hashlib

    assert man["klv2_sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert man["seed"] == 2 and man["games"] == 4 and man["generations"] == 1 and man["rules"] == "netskrafl5"
    assert man["lexicon_sha256"] == json.loads((IS_LEX / "manifest.json").read_text())["files"]["lexicon.kwg"]["sha256"]
    assert "skrafl leaves build --lang is" in man["command"] and "time" in man
    assert sorted(p.name for p in out.parent.iterdir()) == ["is5.json", "is5.klv2"]  # no temporary file left


SHIPPED = sorted(p for p in LEAVES_DIR.glob("*.klv2*")) if LEAVES_DIR.is_dir() else []


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_shipped_leaves_load_and_fit_their_tile_sets(path):
    from gamecore.equity import LeaveTable
    from gamecore.klv import Klv
    from gamecore.leavegen import leave_count
    from gamecore.rules import load_rules

    stem = path.name.split(".klv2")[0]
    man = json.loads((LEAVES_DIR / f"{stem}.json").read_text(encoding="utf-8"))
    rules = load_rules(man["rules"])
    assert rules.name == stem and rules.tiles().name == man["tile_set"]
    klv = Klv.read(path)
    table = LeaveTable(klv, rules.tiles())
    assert len(klv) == leave_count(rules.tiles(), rules.rack_size - 1) == man["leaves"]
    assert table.milli(["?"]) > 0  # a blank is worth keeping
    import hashlib
    import lzma

    raw = path.read_bytes()
    assert man["klv2_sha256"] == hashlib.sha256(lzma.decompress(raw) if path.name.endswith(".xz") else raw).hexdigest()


def test_shipped_leaves_cover_every_default_game(tmp_path, monkeypatch):
    from gamecore.klv import shipped_leaves

    monkeypatch.setenv("SKRAFL_CACHE", str(tmp_path))  # where a packed file is unpacked

    for lang, rules in [
        ("is", None),
        ("is", "netskrafl_old"),
        ("nb", None),
        ("ru", None),
        ("ru", "erudit"),
        ("sl", None),
        ("en", None),
    ]:
        p = shipped_leaves(lang, rules)
        assert p is not None, (lang, rules)
        r = run_skrafl("leaves", "path", "--lang", lang, *(["--rules", rules] if rules else []))
        assert r.returncode == 0 and Path(r.stdout.strip()).name.endswith(".klv2"), r.stderr


@needs_is
def test_shipped_leaves_beat_zero_leaves(tmp_path):
    """Equity with the shipped Icelandic leaves against equity with every leave worth 0: 100 games
    in pairs (the same bags from both seats), seed 3 chosen before the run."""
    from gamecore.klv import shipped_leaves, write_klv2
    from pipelines.autoplay import Config, run_autoplay

    shipped = shipped_leaves("is")
    if shipped is None:
        pytest.skip("no Icelandic leaves shipped")
    zero = tmp_path / "zero.klv2"
    write_klv2(zero, {(1,): 0.0})
    cfg = Config(str(IS_LEX), "netskrafl", "equity", "equity", 100, 3, leaves=(str(shipped), str(zero)), pairs=True)
    s = run_autoplay(cfg, None, workers=2)
    assert s.p1_wins > s.p2_wins and s.p1_mean_score > s.p2_mean_score
