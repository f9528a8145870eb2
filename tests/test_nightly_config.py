"""skrafl nightly: the config is checked whole before any step (user trial): a TOML syntax error
is ``FILE:LINE: …``; a leading UTF-8 byte-order mark is dropped, as every reader drops it;
``[lexicon] lang`` and ``path`` exclude each other; steps whose folders overlap (an output inside
another step's output or input) are refused up front, naming both keys. Each case: one line,
exit 2, nothing run (no step, no run log)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from lexicon_helpers import make_lexicon

ROOT = Path(__file__).resolve().parents[1]

GOOD = (
    '[lexicon]\npath = "lex/is"\n[games]\nsource = "incoming"\n[replay]\ndataset = "data/replay"\nworkers = 1\n'
    '[elo]\nout = "data/elo"\n'
)
# line numbers of GOOD: 1 [lexicon], 2 path, 3 [games], 4 source, 5 [replay], 6 dataset,
# 7 workers, 8 [elo], 9 out


def _nightly(tmp_path: Path, text: str | bytes) -> tuple[Path, subprocess.CompletedProcess]:
    work = tmp_path / "work"
    (work / "incoming").mkdir(parents=True)
    make_lexicon(work / "lex" / "is", ["létta"])
    config = work / "nightly.toml"
    config.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    from clirun import run_skrafl_here

    r = run_skrafl_here("nightly", str(config), "--date", "2025-08-11", "-q")
    return work, r


def _one_line(work: Path, r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 2, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    assert sorted(p.name for p in work.iterdir()) == ["incoming", "lex", "nightly.toml"]  # no step ran, no log
    return lines[0]


@pytest.mark.parametrize(
    "edit, line",
    [
        (("workers = 1", "workers = = 1"), 7),  # a value missing after '='
        (("[elo]", "[elo"), 8),  # a table header without its ']'
        (('out = "data/elo"\n', 'out = "data/elo'), 9),  # a string left open to the end of the file
    ],
)
def test_toml_syntax_error_names_file_and_line(tmp_path, edit, line):
    work, r = _nightly(tmp_path, GOOD.replace(*edit))
    msg = _one_line(work, r)
    assert f"nightly.toml:{line}: not valid TOML: " in msg, msg
    assert "(at line" not in msg and "end of document" not in msg, msg


def test_a_bom_is_dropped(tmp_path):
    """With a UTF-8 byte-order mark the config reads as without: here its line-7 error is found
    at line 7 (a BOM made the whole file 'Invalid statement (at line 1, column 1)')."""
    work, r = _nightly(tmp_path, b"\xef\xbb\xbf" + GOOD.replace("workers = 1", 'workers = "two"').encode())
    msg = _one_line(work, r)
    assert "nightly.toml:7: [replay] workers: 'two'" in msg, msg


def test_a_bom_config_is_the_same_config(tmp_path):
    from pipelines.nightly import load_config

    plain, bom = tmp_path / "plain.toml", tmp_path / "bom.toml"
    plain.write_text(GOOD, encoding="utf-8")
    bom.write_bytes(b"\xef\xbb\xbf" + GOOD.encode("utf-8"))
    assert load_config(bom) == load_config(plain)


def test_lang_and_path_exclude_each_other(tmp_path):
    work, r = _nightly(tmp_path, GOOD.replace('path = "lex/is"', 'lang = "is"\npath = "lex/is"'))
    msg = _one_line(work, r)
    assert "nightly.toml:3:" in msg and "lang and path exclude each other" in msg and "needs one of" not in msg, msg


@pytest.mark.parametrize(
    "edit, line, first, second",
    [
        # the user trial's case: elo's output inside the replay's dataset (the replay ran first)
        (('out = "data/elo"', 'out = "data/replay/elo"'), 9, "[elo] out (data/replay/elo)", "[replay] dataset (data/replay)"),
        (('out = "data/elo"', 'out = "data/replay"'), 9, "[replay] dataset", "[elo] out"),
        (('dataset = "data/replay"', 'dataset = "incoming/replay"'), 6, "[replay] dataset", "[games] source (incoming)"),
        (('dataset = "data/replay"', 'dataset = "lex/is/replay"'), 6, "[replay] dataset", "[lexicon] path (lex/is)"),
        (('source = "incoming"', 'source = "data/elo/{date}"'), 9, "[elo] out", "[games] source (data/elo/{date})"),
        (('out = "data/elo"', 'out = "data/elo"\n[impact]\nout = "data/elo/impact"'), 11, "[impact] out", "[elo] out"),
        (('dataset = "data/replay"', 'dataset = "."'), 9, "[elo] out (data/elo) lies inside", "[replay] dataset (.)"),
        (('dataset = "data/replay"', 'dataset = "lexicons/replay"'), 6, "[replay] dataset", "the run's lexicons folder"),
    ],
)
def test_overlapping_step_folders_are_refused_before_any_step(tmp_path, edit, line, first, second):
    work, r = _nightly(tmp_path, GOOD.replace(*edit))
    msg = _one_line(work, r)
    assert f"nightly.toml:{line}:" in msg and first in msg and second in msg, msg
