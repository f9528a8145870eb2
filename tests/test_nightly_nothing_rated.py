"""A nightly that rates nothing does not say ok: every choice of the config is
checked before any step (an unknown ``[replay] rules`` preset made every game a ``RULES_ERROR`` row,
none rated, exit 0, and the day counted as rated, never rated again); a night whose replay step
replays none of the games it was given fails, so the day is not counted and the next run rates it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from lexicon_helpers import make_lexicon

ROOT = Path(__file__).resolve().parents[1]
GCG = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared")) / "corpora" / "gcg"
ENGLISH = [
    GCG / "domino14_macondo__gcgio_testdata_doug_v_emely.gcg",  # English tiles (W, C, …): not of the Icelandic set
    GCG / "andy-k_wolges__src_main_endgame.rs__embedded5_csw_YDRLWKJj.gcg",
]

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not all(p.exists() for p in ENGLISH), reason="no GCG corpus in ../shared")]


def _skrafl(*args):
    """The real entry point, in this process (clirun.run_skrafl_here)."""
    from clirun import run_skrafl_here

    return run_skrafl_here(*map(str, args))


def _setup(tmp_path: Path, rules: str) -> tuple[Path, Path]:
    work = tmp_path / "work"
    day = work / "incoming" / "2025-08-11"
    day.mkdir(parents=True)
    for f in ENGLISH:
        shutil.copy(f, day)
    make_lexicon(work / "lex", ["windy", "gale", "emely"], language="en")
    config = work / "nightly.toml"
    config.write_text(
        '[lexicon]\npath = "lex"\n[games]\nsource = "incoming/{date}"\n'
        f'[replay]\ndataset = "data/replay"\nrules = "{rules}"\n[elo]\nout = "data/elo"\n',
        encoding="utf-8",
    )
    return work, config


def test_an_unknown_rules_preset_is_refused_before_any_step(tmp_path):
    work, config = _setup(tmp_path, "nosuchpreset")
    r = _skrafl("nightly", config, "--date", "2025-08-11")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert f"{config}:7: [replay] rules: 'nosuchpreset': unknown rules preset" in r.stderr, r.stderr
    assert "wespa" in r.stderr  # the known presets listed
    assert sorted(p.name for p in work.iterdir() if not p.name.startswith(".lex.")) == [
        "incoming",
        "lex",
        "nightly.toml",
    ]  # nothing run, no log
    # a rules file is a choice too: under workdir when relative, checked as well
    config.write_text(config.read_text(encoding="utf-8").replace("nosuchpreset", "my_rules.toml"), encoding="utf-8")
    r = _skrafl("nightly", config, "--date", "2025-08-11")
    assert r.returncode == 2 and f"{config}:7: [replay] rules: 'my_rules.toml'" in r.stderr, r.stderr
    assert sorted(p.name for p in work.iterdir() if not p.name.startswith(".lex.")) == ["incoming", "lex", "nightly.toml"]


def test_a_night_that_replays_none_of_its_games_is_not_ok(tmp_path):
    # a known preset of the wrong game: every English game is an error row under Netskrafl's tiles
    work, config = _setup(tmp_path, "netskrafl")
    r = _skrafl("nightly", config, "--date", "2025-08-11")
    assert r.returncode == 2, r.stderr
    assert "step replay: none of the 2 games replayed ok (error 2)" in r.stderr, r.stderr
    assert "TILE_NOT_IN_TILE_SET" in r.stderr and r.stderr.count("\n") == 1
    log = json.loads((work / "logs" / "2025-08-11.json").read_text(encoding="utf-8"))
    assert log["status"] == "failed" and log["exit"] == 2
    assert [(s["step"], s["status"]) for s in log["steps"]] == [("lexicon", "ok"), ("replay", "failed")]
    assert log["steps"][1]["counts"]["games"] == 2 and log["steps"][1]["counts"]["error"] == 2
    assert not (work / "data" / "elo").exists()  # nothing rated, the day not counted
    # the cause fixed: the same day is replayed and rated; a German game among them (Ö, Ü: not
    # tiles of the English set) is one error row, skipped by elo and counted in the run log
    shutil.copy(GCG / "andy-k_wolges__src_main_endgame.rs__embedded6_german_elise_rd28.gcg", work / "incoming" / "2025-08-11")
    config.write_text(config.read_text(encoding="utf-8").replace('"netskrafl"', '"wespa"'), encoding="utf-8")
    r = _skrafl("nightly", config, "--date", "2025-08-11", "-q")
    assert r.returncode == 0, r.stderr
    log = json.loads((work / "logs" / "2025-08-11.json").read_text(encoding="utf-8"))
    steps = {s["step"]: s for s in log["steps"]}
    assert log["status"] == "ok" and steps["replay"]["counts"]["ok"] + steps["replay"]["counts"]["mismatch"] == 2
    assert steps["replay"]["counts"]["since"] is None  # the failed night counted nothing as rated
    assert steps["replay"]["counts"]["error"] == 1
    # rated: doug v emely; skipped: the German error row and the unfinished CSW endgame (no winner)
    assert steps["elo"]["counts"]["rated"] == 1 and steps["elo"]["counts"]["skipped"] == 2, (
        steps["elo"]["counts"],
        steps["elo"]["notes"],
    )
    assert any("1 replay row(s) with status other than 'ok' skipped" in n for n in steps["elo"]["notes"])
    assert any("1 game(s) not finished" in n for n in steps["elo"]["notes"])
    assert steps["elo"]["counts"]["already_rated"] == 0
