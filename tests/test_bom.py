"""A UTF-8 byte-order mark at the start of a text file is dropped by every reader (README:
guarantees, "Unicode is NFC at every boundary"): a file saved with one (Windows Notepad, Excel's
"CSV UTF-8") reads exactly as the same file without it. Each test writes a file twice, with and
without a BOM, and expects the same result; the expected values come from the fixture files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from clirun import run_skrafl_here

FIX = Path(__file__).resolve().parent / "fixtures"
BOM = "\ufeff".encode("utf-8")


def _with_bom(src: Path, dst: Path) -> Path:
    dst.write_bytes(BOM + src.read_bytes())
    return dst


def _rows(batches) -> list[dict]:
    out: list[dict] = []
    for batch in batches:
        out.extend(batch.to_pylist())
    return out


def test_strip_bom_helper():
    from gamecore.text import strip_bom

    assert strip_bom("\ufeffhestur") == "hestur"
    assert strip_bom("\ufeff\ufeffhestur") == "\ufeffhestur"  # one BOM, the leading one
    assert strip_bom("hes\ufefftur") == "hes\ufefftur"
    assert strip_bom(b"\xef\xbb\xbf123\n") == b"123\n"
    assert strip_bom(b"123") == b"123"


# --- boards -----------------------------------------------------------------------------------


def _board_text() -> str:
    rows = ["." * 15] * 15
    rows[7] = "....HESTUR....."
    return "\n".join(rows) + "\n"


def test_board_file_with_bom(tmp_path):
    from gamecore.board import read_board
    from gamecore.rules import load_rules

    rules = load_rules("netskrafl")
    plain = tmp_path / "r.board"
    plain.write_text(_board_text(), encoding="utf-8")
    bom = _with_bom(plain, tmp_path / "rbom.board")
    a = read_board(plain, rules.tiles(), rules.layout())
    b = read_board(bom, rules.tiles(), rules.layout())
    assert b.cgp_rows() == a.cgp_rows()
    assert "HESTUR" in b.cgp_rows()


def test_cgp_board_file_with_bom():
    from gamecore.board import parse_cgp
    from gamecore.rules import load_rules

    rules = load_rules("netskrafl")
    cgp = "15/15/15/15/15/15/15/4HESTUR5/15/15/15/15/15/15/15 AEIN/ 0/0 0"
    a = parse_cgp(cgp, rules.tiles(), rules.layout())
    b = parse_cgp("\ufeff" + cgp, rules.tiles(), rules.layout())
    assert b.board.cgp_rows() == a.board.cgp_rows() and b.racks == a.racks


def test_show_board_with_bom(tmp_path):
    """The trial's reproducer: `show --board rbom.board` said `row 1 has 16 squares, expected 15`."""
    plain = tmp_path / "r.board"
    plain.write_text(_board_text(), encoding="utf-8")
    bom = _with_bom(plain, tmp_path / "rbom.board")
    r = run_skrafl_here("show", "--rules", "netskrafl", "--board", str(bom), "--out", str(tmp_path / "p.svg"))
    assert r.returncode == 0, r.stderr
    assert "squares" not in r.stderr


# --- Netskrafl records ------------------------------------------------------------------------


def test_netskrafl_record_with_bom(shared, tmp_path):
    from gamecore.netskrafl_record import read_netskrafl_record

    src = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))[0]
    bom = _with_bom(src, tmp_path / "g.json")
    a = read_netskrafl_record(src)
    b = read_netskrafl_record(bom)
    assert [(e.kind, e.score) for e in b.events] == [(e.kind, e.score) for e in a.events]
    assert len(b.events) > 0


def test_game_files_with_bom_replay_as_without(shared, tmp_path):
    """``replay`` (and ``score --game``/``show --game``, which read through it) of a Netskrafl
    record and of a UTF-8 GCG file without an encoding pragma, each saved with a BOM: the same
    games, moves and scores as the files without it, and no encoding warning for the GCG file (a
    BOM is UTF-8's own mark)."""
    import polars as pl

    rec = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))[0]
    gcg = FIX / "gcg" / "base.gcg"
    text = gcg.read_text(encoding="utf-8")  # ASCII: add a non-ASCII name so the encoding matters
    lines = [ln for ln in text.splitlines() if not ln.lower().startswith("#character-encoding")]
    lines = [ln + " Þórðardóttir" if ln.startswith("#player1 ") else ln for ln in lines]  # the real name
    utf8 = ("\n".join(lines) + "\n").encode("utf-8")
    plain, marked = tmp_path / "plain", tmp_path / "marked"
    plain.mkdir()
    marked.mkdir()
    shutil.copy(rec, plain / "g.json")
    _with_bom(rec, marked / "g.json")
    (plain / "g.gcg").write_bytes(b"#character-encoding UTF-8\n" + utf8)
    (marked / "g.gcg").write_bytes(BOM + utf8)
    for d in (plain, marked):
        r = run_skrafl_here("replay", str(d), "--out", str(tmp_path / f"out_{d.name}"), "--no-lexicon", "-q")
        assert r.returncode == 0, r.stderr
    games = {d: pl.read_parquet(tmp_path / f"out_{d}" / "games.parquet").sort("file") for d in ("plain", "marked")}
    moves = {d: pl.read_parquet(tmp_path / f"out_{d}" / "moves.parquet").sort("file") for d in ("plain", "marked")}
    assert games["marked"]["status"].to_list() == ["ok", "ok"]
    cols = [c for c in games["plain"].columns if c not in ("file", "warnings")]
    assert games["marked"].select(cols).equals(games["plain"].select(cols))
    assert moves["marked"].drop("file").equals(moves["plain"].drop("file"))
    warned = " ".join(w for ws in games["marked"]["warnings"].to_list() for w in ws or [])
    assert "ENCODING" not in warned


# --- dump and list readers --------------------------------------------------------------------


@pytest.mark.parametrize("name,fmt", [("SHsnid_small.csv", "bin-sh"), ("KRsnid_small.csv", "bin-kr")])
def test_bin_csv_with_bom(tmp_path, name, fmt):
    from lexicon_sources.readers import bin_csv

    src = FIX / "bin" / name
    first_lemma = src.read_text(encoding="utf-8").split(";", 1)[0]  # the fixture's first field
    a = _rows(bin_csv.read(src, progress=False, fmt=fmt))
    b = _rows(bin_csv.read(_with_bom(src, tmp_path / name), progress=False, fmt=fmt))
    assert b[0]["lemma"] == first_lemma == "hestur"
    assert b == a


def test_bin_csv_sniffed_with_bom(tmp_path):
    from lexicon_sources.readers import bin_csv

    assert bin_csv.sniff(_with_bom(FIX / "bin" / "KRsnid_small.csv", tmp_path / "KR.csv")) == "bin-kr"


def test_ingest_bin_sh_with_bom(tmp_path):
    """The trial's reproducer: `ingest is --source bin-sh --input SHb.csv` stored '\\ufeffhestur'."""
    import polars as pl

    src = _with_bom(FIX / "bin" / "SHsnid_small.csv", tmp_path / "SHb.csv")
    r = run_skrafl_here("ingest", "is", "--source", "bin-sh", "--input", str(src), "--quiet", output_root=tmp_path / "out")
    assert r.returncode == 0, r.stderr
    lemmas = pl.read_parquet(tmp_path / "out" / "entries" / "is" / "entries.parquet")["lemma"].to_list()
    assert lemmas[0] == "hestur"
    assert not any(lemma.startswith("\ufeff") for lemma in lemmas)


def test_wordlist_with_bom_only_once(tmp_path):
    from lexicon_sources.readers import wordlist

    p = tmp_path / "w.txt"
    p.write_bytes(BOM + b"hello\nworld\n")
    assert _rows(wordlist.read(p, progress=False))[0]["form"] == "hello"


def test_sloleks_with_bom(tmp_path):
    from lexicon_sources.readers import sloleks

    src = FIX / "lang" / "sl" / "sloleks_small.tsv"
    a = _rows(sloleks.read(src, progress=False))
    b = _rows(sloleks.read(_with_bom(src, tmp_path / "s.tsv"), progress=False))
    assert b[0]["form"] == "hiša" and b == a


def test_ordbank_fullform_with_bom(tmp_path):
    from lexicon_sources.readers import ordbank_fullform

    src = FIX / "lang" / "nb" / "fullformsliste_small.txt"
    a = _rows(ordbank_fullform.read(src, progress=False))
    b = _rows(ordbank_fullform.read(_with_bom(src, tmp_path / "f.txt"), progress=False))
    assert b == a and b[0]["form"] == "gutt"


@pytest.mark.parametrize("which", ["dic", "aff", "both"])
def test_hunspell_with_bom(tmp_path, which):
    pytest.importorskip("spylls")
    from lexicon_sources.readers import hunspell

    for ext in ("dic", "aff"):
        src = FIX / "lang" / "sl" / f"sl_small.{ext}"
        if which in (ext, "both"):
            _with_bom(src, tmp_path / f"sl_small.{ext}")
        else:
            shutil.copy(src, tmp_path / f"sl_small.{ext}")
    a = _rows(hunspell.read(FIX / "lang" / "sl" / "sl_small.dic", progress=False))
    b = _rows(hunspell.read(tmp_path / "sl_small.dic", progress=False))
    assert b == a
    assert {r["form"] for r in b} >= {"hiša", "ZDA"}  # stems of sl_small.dic
    assert not any(r["form"].startswith("\ufeff") or r["form"].isdigit() for r in b)


def test_hunspell_stems_with_bom(tmp_path, monkeypatch):
    pytest.importorskip("spylls")
    from lexicon_sources.readers import hunspell

    for ext in ("dic", "aff"):
        _with_bom(FIX / "lang" / "sl" / f"sl_small.{ext}", tmp_path / f"sl_small.{ext}")
    monkeypatch.setattr(hunspell, "packaged_dictionary", lambda name: tmp_path / "sl_small.dic")
    assert "hiša" in hunspell.stems("sl_small")
    assert not any(s.startswith("\ufeff") for s in hunspell.stems("sl_small"))


def test_committee_list_with_bom(tmp_path):
    from pipelines.recipe import read_word_list

    p = tmp_path / "c.txt"
    p.write_bytes(BOM + "ýf\nhestur\n".encode("utf-8"))
    assert read_word_list(p) == ["ýf", "hestur"]
