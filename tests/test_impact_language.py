"""skrafl impact refuses games that say they are in another language than the lexicons (user
trial, problem 4): English lexicons on Icelandic Netskrafl games found "0 words" and exited 0, a
report of no impact that meant nothing. What a game says: a Netskrafl record's ``locale``
(docs/NETSKRAFL.md; ``is_IS``), a GCG ``#lexicon`` (docs/GCG.md §2: CSW/NWL → English, GERMAN → German) or
``#locale``; a game that names no language is judged as before."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from clirun import run_skrafl_here
from lexicon_helpers import make_lexicon

ROOT = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared")) / "corpora"
NETSKRAFL = CORPORA / "netskrafl" / "games"
FIRST = NETSKRAFL / "game_00e0c260-72d8-11f0-97e1-055a4832c9c7.json"  # the first of the folder, sorted
CSW = CORPORA / "gcg" / "andy-k_wolges__src_main_endgame.rs__embedded5_csw_YDRLWKJj.gcg"  # #lexicon CSW21
GERMAN = CORPORA / "gcg" / "andy-k_wolges__src_main_endgame.rs__embedded6_german_elise_rd28.gcg"  # #lexicon GERMAN
NO_LEXICON = CORPORA / "gcg" / "domino14_macondo__gcgio_testdata_name_iso8859-1.gcg"  # names no language

pytestmark = pytest.mark.skipif(not (FIRST.exists() and CSW.exists() and GERMAN.exists()), reason="no corpora in ../shared")


def impact(tmp: Path, lang: str, *games: Path, out: str = "out") -> subprocess.CompletedProcess:
    old = tmp / f"old-{lang}"
    new = tmp / f"new-{lang}"
    if not old.exists():
        make_lexicon(old, ["windy", "gale", "hestur"], language=lang)
        make_lexicon(new, ["gale", "hestur"], language=lang)
    return run_skrafl_here("impact", "--old", str(old), "--new", str(new), *map(str, games), "--out", str(tmp / out), "-q")


def test_icelandic_games_with_english_lexicons_are_refused(tmp_path):
    r = impact(tmp_path, "en", NETSKRAFL)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"skrafl: error: {FIRST}: "), r.stderr
    assert "'is' (locale is_IS)" in r.stderr and "'en'" in r.stderr
    assert not (tmp_path / "out").exists() and "Traceback" not in r.stderr
    # the same games as a replayed dataset: the locale the replay read
    from pipelines.replay.jobs import ReplayOptions, run_replay_dataset

    run_replay_dataset([str(NETSKRAFL)], tmp_path / "ds", ReplayOptions(), quiet=True)
    r = impact(tmp_path, "en", tmp_path / "ds")
    assert r.returncode == 2 and r.stderr.startswith(f"skrafl: error: {FIRST}: ") and "'en'" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
    assert impact(tmp_path, "is", tmp_path / "ds").returncode == 0


def test_a_record_of_another_locale_is_refused(tmp_path):
    record = json.loads(FIRST.read_text(encoding="utf-8"))
    record["locale"] = "en_US"
    (tmp_path / "games").mkdir()
    english = tmp_path / "games" / "english.json"
    english.write_text(json.dumps(record), encoding="utf-8")
    r = impact(tmp_path, "is", english)
    assert r.returncode == 2 and f"{english}: " in r.stderr and "'en' (locale en_US)" in r.stderr and "'is'" in r.stderr


def test_gcg_lexicon_pragma_decides(tmp_path):
    r = impact(tmp_path, "is", CSW)
    assert r.returncode == 2 and f"{CSW}: " in r.stderr and "'en' (#lexicon CSW21)" in r.stderr, r.stderr
    r = impact(tmp_path, "en", NO_LEXICON, GERMAN)  # the file naming no language is passed over
    assert r.returncode == 2 and f"{GERMAN}: " in r.stderr and "'de' (#lexicon GERMAN)" in r.stderr, r.stderr
    # English games with English lexicons, and a file naming no language, are judged
    r = impact(tmp_path, "en", CSW, NO_LEXICON)
    assert r.returncode == 0, r.stderr
    assert "WINDY" in (tmp_path / "out" / "plays.csv").read_text(encoding="utf-8")
