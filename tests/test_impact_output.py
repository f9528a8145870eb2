"""skrafl impact's output folder is swapped in only after its report line is written: a run whose
report cannot be written (a full standard error) changes nothing (user trial, problem 3)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from clirun import run_skrafl
from lexicon_helpers import make_lexicon

ROOT = Path(__file__).resolve().parents[1]
GAME = (
    Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared"))
    / "corpora"
    / "gcg"
    / "domino14_macondo__gcgio_testdata_name_iso8859-1.gcg"
)
WORDS = ["windy", "gale", "aw", "li", "en"]  # the file's two plays: WINDY 8D, then GALE 7C over it


@pytest.mark.slow
@pytest.mark.skipif(not GAME.exists() or not Path("/dev/full").exists(), reason="no GCG corpus or no /dev/full")
def test_a_report_that_cannot_be_written_changes_nothing(tmp_path):
    old = make_lexicon(tmp_path / "old", WORDS, language="en")
    new = make_lexicon(tmp_path / "new", [w for w in WORDS if w != "windy"], language="en")
    out = tmp_path / "out"

    def impact(new_lexicon, stderr=subprocess.PIPE, quiet=()):
        return run_skrafl(
            "impact", "--old", str(old), "--new", str(new_lexicon), str(GAME), "--out", str(out), *quiet, stderr=stderr
        )

    same = make_lexicon(tmp_path / "same", WORDS, language="en")  # no change: an output without windy
    r = impact(same, quiet=("-q",))
    assert r.returncode == 0, r.stderr
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert b"windy" not in before["plays.csv"]
    with open("/dev/full", "w") as full:
        r = impact(new, stderr=full)
    assert r.returncode != 0
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == [os.readlink(out)]
    read, write = os.pipe()
    os.close(read)  # a reader of the report that is already gone: no failure, the output is written
    try:
        r = impact(new, stderr=write)
    finally:
        os.close(write)
    assert r.returncode == 0
    assert "windy" in (out / "plays.csv").read_text(encoding="utf-8")
