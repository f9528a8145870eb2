"""A flipped bit in a file a reader trusts without having written it is found: batch inputs (a
replay's tables, an elo state, a dataset) are checked against the SHA-256 their marker records,
not only against its sizes (3 of 150 single-bit flips in a partition changed an impact report
unseen). The lexicon, read at every start-up, is checked by size unless SKRAFL_VERIFY is set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from clirun import run_skrafl_here


def _flip_a_bit(path: Path, at: float = 0.5) -> None:
    data = bytearray(path.read_bytes())
    i = int(len(data) * at)
    data[i] ^= 0x10
    size = path.stat().st_size
    os.chmod(path, 0o644)
    path.write_bytes(bytes(data))
    assert path.stat().st_size == size  # the same size: a size check cannot see it


@pytest.fixture()
def replayed(tmp_path, shared) -> Path:
    games = [
        shared / "corpora" / "gcg" / f"domino14_macondo__gcgio_testdata_{n}.gcg" for n in ("doug_v_emely", "josh2", "vs_andy")
    ]
    src = tmp_path / "games"
    src.mkdir()
    for g in games:
        (src / g.name).write_bytes(g.read_bytes())
    out = tmp_path / "replayed"
    r = run_skrafl_here("replay", str(src), "--out", str(out), "-q")
    assert r.returncode in (0, 1), r.stderr
    return out


def test_a_flipped_bit_in_a_replay_output_is_one_error_line(replayed, tmp_path):
    first = run_skrafl_here("elo", "--games", str(replayed), "--out", str(tmp_path / "elo1"), "-q")
    assert first.returncode == 0, first.stderr
    _flip_a_bit(Path(os.path.realpath(replayed)) / "games.parquet")
    r = run_skrafl_here("elo", "--games", str(replayed), "--out", str(tmp_path / "elo2"), "-q")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert "games.parquet does not match its checksum" in lines[0] and "Traceback" not in r.stderr
    assert not (tmp_path / "elo2").exists()  # a failed run changes nothing


def test_a_lexicon_is_checked_whole_when_asked(tmp_path):
    (tmp_path / "w.txt").write_text("hest\nhester\n", encoding="utf-8")
    lex = tmp_path / "lex"
    r = run_skrafl_here("build", "nb", "--source", "wordlist", "--input", str(tmp_path / "w.txt"), "--out", str(lex), "-q")
    assert r.returncode == 0, r.stderr
    _flip_a_bit(Path(os.path.realpath(lex)) / "words.txt", at=0.1)
    os.environ["SKRAFL_VERIFY"] = "1"
    try:
        r = run_skrafl_here("check", "--lexicon", str(lex), "hest")
    finally:
        del os.environ["SKRAFL_VERIFY"]
    assert r.returncode == 2 and "words.txt does not match its checksum" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
