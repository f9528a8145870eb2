"""KLV2 leave files (gamecore/klv.py): MAGPIE-DATA's files read, ours written and read back, bad files refused.

External truth: MAGPIE-DATA's ``testdata/lexica/CSW21_small.klv2`` with the same leaves as text
(``CSW21_small.csv``), both written by MAGPIE (tests/fixtures/leaves/README.md); with
``MAGPIE_DATA`` set (a MAGPIE-DATA checkout), its full ``data/lexica/CSW21.klv2``. That MAGPIE reads
the files we write is checked by tests/fixtures/leaves/make_reference.py (MAGPIE run on our rewrite
of CSW21.klv2 prints the same move lists).
"""

from __future__ import annotations

import os
import random
import struct
from itertools import combinations_with_replacement
from pathlib import Path

import pytest
from clirun import run_skrafl

from gamecore.errors import DataError
from gamecore.klv import Klv, klv2_bytes, write_klv2

LEAVES = Path(__file__).resolve().parent / "fixtures" / "leaves"
ENGLISH = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _tiles(text: str) -> tuple[int, ...]:
    return tuple(sorted(0 if ch == "?" else ENGLISH.index(ch) + 1 for ch in text))


def _csv() -> dict[tuple[int, ...], float]:
    rows = (LEAVES / "CSW21_small.csv").read_text().split()
    return {_tiles(leave): float(v) for leave, v in (r.split(",") for r in rows)}


def test_magpie_data_small_file_reads_as_its_text():
    klv = Klv.read(LEAVES / "CSW21_small.klv2")
    want = _csv()
    assert len(klv) == len(want) == 11
    for leave, v in want.items():
        assert klv.value(leave) == v, leave
        assert klv.milli(leave) == round(v * 1000)
    assert dict(klv.items()) == want
    # a leave the file lacks is worth 0 (MAGPIE: KLV_UNFOUND_INDEX → 0)
    for absent in [_tiles("??"), _tiles("C"), _tiles("AAAB"), ()]:
        assert klv.value(absent) == 0.0 and klv.index(absent) is None


def test_written_small_file_reads_back_the_same_leaves(tmp_path):
    out = tmp_path / "small.klv2"
    write_klv2(out, _csv())
    again = Klv.read(out)
    assert dict(again.items()) == _csv()
    assert again.nodes[0] >> 24 == 0 and again.nodes[1] & 0x3FFFFF == 0  # DAWG pointer, empty GADDAG
    assert klv2_bytes(_csv()) == klv2_bytes(dict(reversed(list(_csv().items()))))  # deterministic


def test_writer_adds_missing_prefixes_with_value_zero():
    # MAGPIE counts a leave's index as if every prefix were a leave: a file without them would be misread
    klv = Klv.from_bytes(klv2_bytes({_tiles("EQU"): -3.5, _tiles("S"): 8.25}))
    assert klv.value(_tiles("EQU")) == -3.5 and klv.value(_tiles("QUE")) == -3.5
    assert klv.value(_tiles("S")) == 8.25
    assert klv.value(_tiles("E")) == 0.0 and klv.value(_tiles("EQ")) == 0.0
    assert len(klv) == 4


def test_random_leave_sets_round_trip():
    rng = random.Random(7)
    for _ in range(20):
        leaves = {}
        for _ in range(rng.randrange(1, 300)):
            leave = tuple(sorted(rng.randrange(0, 27) for _ in range(rng.randrange(1, 7))))
            leaves[leave] = rng.choice([0.0, 1.5, -2.25, 17.125, -40.0])
        klv = Klv.from_bytes(klv2_bytes(leaves))
        for leave, v in leaves.items():
            assert klv.value(leave) == v
        words = list(klv.words())
        assert words == sorted(words) and all(klv.index(w) == i for i, w in enumerate(words))


@pytest.mark.skipif(not os.environ.get("MAGPIE_DATA"), reason="MAGPIE_DATA (a MAGPIE-DATA checkout) is not set")
def test_full_csw21_reads_and_round_trips():
    klv = Klv.read(Path(os.environ["MAGPIE_DATA"]) / "data" / "lexica" / "CSW21.klv2")
    assert len(klv) == sum(1 for _ in klv.words())
    again = Klv.from_bytes(klv2_bytes(dict(klv.items())))
    assert list(again.values) == list(klv.values) and list(again.words()) == list(klv.words())
    for leave in combinations_with_replacement(range(27), 2):
        assert again.milli(leave) == klv.milli(leave)


def _bad_files(tmp: Path) -> dict[str, tuple[Path, str]]:
    good = (LEAVES / "CSW21_small.klv2").read_bytes()
    (k,) = struct.unpack_from("<I", good)
    n = 11
    old = good[: 8 + 4 * k] + b"\0" * (2 * n)  # the older KLV: 16-bit values
    cases = {
        "text": (b"AA,1.0\nAB,2.0\n", "node count"),
        "tiny": (b"\x01\x00", "only 2 bytes"),
        "truncated": (good[:-3], "need"),
        "old": (old, "older kind"),
        "arc": (good[:4] + struct.pack("<I", 0x00400000 | 999) + good[8:], "points past"),
        "count": (good[: 4 + 4 * k] + struct.pack("<I", n - 1) + good[8 + 4 * k : -4], "holds 11 leaves"),
    }
    out = {}
    for name, (data, needle) in cases.items():
        p = tmp / f"{name}.klv2"
        p.write_bytes(data)
        out[name] = (p, needle)
    return out


def test_not_klv2_is_one_data_error(tmp_path):
    for name, (p, needle) in _bad_files(tmp_path).items():
        with pytest.raises(DataError) as e:
            Klv.read(p)
        assert needle in e.value.message, (name, e.value.message)
        assert e.value.path is not None


def test_a_value_that_is_not_a_number_is_refused_when_used(tmp_path):
    good = (LEAVES / "CSW21_small.klv2").read_bytes()
    p = tmp_path / "nan.klv2"
    p.write_bytes(good[:-4] + struct.pack("<f", float("nan")))  # the last leave in the file's order: B
    klv = Klv.read(p)
    assert klv.value(_tiles("AAB")) == 4.0
    with pytest.raises(DataError, match="leave value number 11 is nan: not a number of points"):
        klv.milli(_tiles("B"))
    r = run_skrafl("leaves", "show", str(p), "B")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "not a number of points" in r.stderr


def test_cli_not_klv2_one_line_exit_2(tmp_path):
    bad = _bad_files(tmp_path)
    for name in ("text", "old", "count"):
        p, needle = bad[name]
        r = run_skrafl("leaves", "show", str(p), "AB")
        assert r.returncode == 2, (name, r.stdout, r.stderr)
        assert r.stderr.count("\n") == 1 and needle in r.stderr and str(p) in r.stderr
        assert "Traceback" not in r.stderr


def test_cli_letters_that_do_not_fit_the_tile_set(tmp_path):
    p = tmp_path / "wide.klv2"
    write_klv2(p, {(1, 40): 2.0})  # tile 40: English has 26 letters
    r = run_skrafl("leaves", "show", str(p), "A")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "do not fit the tile set english" in r.stderr and "40" in r.stderr
    # the Icelandic set has 32 letters: 40 does not fit it either; 30 fits it and not English
    write_klv2(p, {(1, 30): 2.0})
    assert run_skrafl("leaves", "show", str(p), "A", "--lang", "is").returncode == 0
    assert run_skrafl("leaves", "show", str(p), "A").returncode == 2


def test_cli_leaves_show_values_from_the_text():
    r = run_skrafl("leaves", "show", str(LEAVES / "CSW21_small.klv2"), "AAB?", "--all", "-f", "tsv")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split("\t") == ["leave", "value"]
    got = {leave: float(v) for leave, v in (x.split("\t") for x in lines[1:])}
    want = {"AAB?": 3.0, "AAB": 4.0, "A?": 2.0, "?": 1.0, "AA?": 0.0, "AB?": 0.0, "B?": 0.0}
    want.update({"A": 0.0, "B": 0.0, "AA": 0.0, "AB": 0.0})
    assert got == want
    values = list(got.values())
    assert values == sorted(values, reverse=True)  # best first
    one = run_skrafl("leaves", "show", str(LEAVES / "CSW21_small.klv2"), "?BAA", "-f", "tsv")
    assert one.returncode == 0 and one.stdout.splitlines()[1] == "AAB?\t3.0"


def test_cli_leaves_path_none_shipped():
    # nine-tile racks: no leave file of their size is shipped
    r = run_skrafl("leaves", "path", "--lang", "en", "--rules", "scrabble9")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "no leave file is shipped for language 'en' and rules 'scrabble9'" in r.stderr
