"""One bad game does not stop every night: a game of another language in the
dataset (a GCG ``#lexicon GERMAN`` file in an old partition) made the impact step exit 2 on every
night after a lexicon change, so ratings stopped. The step now leaves it out as a row with its
reason (``skipped.csv``), the night goes on, and the run log counts it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest
from lexicon_helpers import make_lexicon

ROOT = Path(__file__).resolve().parents[1]
GCG = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared")) / "corpora" / "gcg"
ENGLISH = GCG / "domino14_macondo__gcgio_testdata_doug_v_emely.gcg"  # WINDY 8D, then GALE 7C over it
GERMAN = GCG / "andy-k_wolges__src_main_endgame.rs__embedded6_german_elise_rd28.gcg"  # #lexicon GERMAN
WORDS = ["windy", "gale", "aw", "li", "en"]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (ENGLISH.exists() and GERMAN.exists()), reason="no GCG corpus in ../shared"),
]


def _skrafl(*args):
    """The real entry point, in this process (clirun.run_skrafl_here)."""
    from clirun import run_skrafl_here

    return run_skrafl_here(*map(str, args))


def test_a_game_of_another_language_is_a_row_not_the_end_of_the_night(tmp_path):
    work = tmp_path / "work"
    day1 = work / "incoming" / "2025-08-11"
    day1.mkdir(parents=True)
    shutil.copy(ENGLISH, day1)
    shutil.copy(GERMAN, day1)
    (work / "incoming" / "2025-08-12").mkdir()  # a day without games
    make_lexicon(work / "lex", WORDS, language="en")
    config = work / "nightly.toml"
    config.write_text(
        '[lexicon]\npath = "lex"\n[games]\nsource = "incoming/{date}"\n[replay]\ndataset = "data/replay"\n'
        '[elo]\nout = "data/elo"\n[impact]\nout = "data/impact"\n',
        encoding="utf-8",
    )
    r = _skrafl("nightly", config, "--date", "2025-08-11", "-q")
    assert r.returncode == 0, r.stderr
    # the committee drops 'windy' (doug's first play): the impact step runs over the whole dataset
    make_lexicon(work / "lex", [w for w in WORDS if w != "windy"], language="en")
    r = _skrafl("nightly", config, "--date", "2025-08-12", "-q")
    assert r.returncode == 0, r.stderr
    log = json.loads((work / "logs" / "2025-08-12.json").read_text(encoding="utf-8"))
    steps = {s["step"]: s for s in log["steps"]}
    assert log["status"] == "ok" and steps["impact"]["status"] == "ok" and steps["elo"]["status"] == "ok"
    impact = steps["impact"]["counts"]
    assert impact["skipped"] == 1 and impact["games"] == 1  # the English game judged, the German one left out
    assert impact["plays_now_phony"] == 1 and impact["words"] == 1
    german = str(day1 / GERMAN.name)
    assert any(n.startswith(f"{german}: left out: ") and "'de' (#lexicon GERMAN)" in n for n in steps["impact"]["notes"])
    out = work / "data" / "impact" / "2025-08-12"
    skipped = pl.read_csv(out / "skipped.csv")
    assert skipped.columns == ["file", "game_id", "reason"] and skipped["file"].to_list() == [german]
    assert "'de' (#lexicon GERMAN)" in skipped["reason"][0] and "'en'" in skipped["reason"][0]
    assert pl.read_parquet(out / "words.parquet")["word"].to_list() == ["windy"]
    assert "games left out: 1" in (out / "summary.md").read_text(encoding="utf-8")


def test_skrafl_impact_still_refuses_another_language(tmp_path):
    """The command itself still refuses, one line (tests/test_impact_language.py): only the
    nightly job leaves such a game out; without one, no skipped table is written."""
    old = make_lexicon(tmp_path / "old", WORDS, language="en")
    new = make_lexicon(tmp_path / "new", WORDS[1:], language="en")
    r = _skrafl("impact", "--old", old, "--new", new, ENGLISH, GERMAN, "--out", tmp_path / "out", "-q")
    assert r.returncode == 2 and "'de' (#lexicon GERMAN)" in r.stderr and not (tmp_path / "out").exists()
    r = _skrafl("impact", "--old", old, "--new", new, ENGLISH, "--out", tmp_path / "out", "-q")
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "out" / "skipped.csv").exists()
