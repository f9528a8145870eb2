"""The Russian set's Ё tile in ``skrafl score`` on the real Russian lexicon (OpenCorpora,
``skrafl build ru``; skipped when it is not built). The Russian Scrabble article: "the letter е counts as е or ё";
the lexicon folds ё → е, so a play with the Ё tile is judged on the folded word and scored with
the Ё tile's value, and a play spelled with Е where the word is ёжик is valid too.

Scores by hand from the rules (docs/RULES.md: letter premiums under new tiles, word premiums
multiplied) with the Russian values of the shared tile-set table (Ё 3, Е 1, Ж 5, И 1,
К 2, Л 2, А 1) on the standard board (row 8: H8 DW; column G: G9 DL, G10 and G11 plain)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import run_skrafl_here

from cli.common import output_root

EMPTY = "\n".join(["." * 15] * 15) + "\n"


@pytest.fixture(scope="module")
def ru() -> Path:
    folder = output_root() / "ru"
    if not (folder / "manifest.json").is_file():
        pytest.skip("the Russian lexicon is not built (skrafl build ru: OpenCorpora via pymorphy3-dicts-ru)")
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest.get("fold") == {"ё": "е"}
    return folder


def _board(tmp_path: Path, row8: str | None = None) -> Path:
    rows = ["." * 15] * 15
    if row8 is not None:
        rows[7] = row8
    p = tmp_path / "b.board"
    p.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return p


def _score(ru: Path, board: Path, play: str, *extra: str) -> tuple[int, dict]:
    r = run_skrafl_here("score", "--lexicon", str(ru), "--board", str(board), "--play", play, "-f", "json", *extra)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)


def test_yo_tile_play_valid_with_its_own_value(ru, tmp_path):
    # 8G ЁЖИК: Ё 3 + Ж 5 (H8, DW) + И 1 + К 2 = 11, × 2 = 22
    code, d = _score(ru, _board(tmp_path), "8G ЁЖИК", "--rack", "ЁЖИКАБВ")
    assert code == 0 and d["legal"] and d["verdict"] == "ACCEPTABLE"
    assert d["words"] == [{"word": "ЁЖИК", "gcg": "ЁЖИК", "valid": True, "score": 22}] and d["score"] == 22 and d["notes"] == []


def test_spelled_with_ye_valid_with_the_ye_value(ru, tmp_path):
    # 8G ЕЖИК with an Е tile: (1 + 5 + 1 + 2) × 2 = 18, valid (the word is ёжик)
    code, d = _score(ru, _board(tmp_path), "8G ЕЖИК", "--rack", "ЕЖИКАБВ")
    assert code == 0 and d["verdict"] == "ACCEPTABLE" and d["score"] == 18
    assert d["words"][0]["valid"] is True


def test_ye_written_but_only_the_yo_tile_on_the_rack(ru, tmp_path):
    """The rack has no Е: the Е written can only be the Ё tile, scored 3 (22, as ЁЖИК), with a note."""
    code, d = _score(ru, _board(tmp_path), "8G ЕЖИК", "--rack", "ЁЖИКАБВ")
    assert code == 0 and d["legal"] and d["score"] == 22 and d["word"] == "ЁЖИК"
    assert len(d["notes"]) == 1 and "Ё tile" in d["notes"][0]
    # both tiles on the rack: the play is read as written (the Е tile, 18)
    code, d = _score(ru, _board(tmp_path), "8G ЕЖИК", "--rack", "ЕЁЖИКАБ")
    assert code == 0 and d["score"] == 18 and d["notes"] == []


def test_yo_written_but_only_an_ye_tile_on_the_rack(ru, tmp_path):
    code, d = _score(ru, _board(tmp_path), "8G ЁЖИК", "--rack", "ЕЖИКАБВ")
    assert code == 0 and d["legal"] and d["score"] == 18 and d["word"] == "ЕЖИК" and len(d["notes"]) == 1


def test_neither_tile_on_the_rack_is_not_on_rack(ru, tmp_path):
    code, d = _score(ru, _board(tmp_path), "8G ЕЖИК", "--rack", "ЖИКАБВГ")
    assert code == 1 and not d["legal"] and d["reason"]["code"] == "not_on_rack"


def test_through_the_yo_tile_on_the_board(ru, tmp_path):
    """ЁЖИК on the board at 8G; G8 down ЁЛКА through its Ё tile: Ё 3 (on the board: no premium)
    + Л 2 × 2 (G9 DL) + К 2 + А 1 = 10, written with Ё, '.' or Е."""
    board = _board(tmp_path, "......ЁЖИК.....")
    for play in ("G8 ЁЛКА", "G8 .ЛКА", "G8 ЕЛКА"):
        code, d = _score(ru, board, play, "--rack", "ЛКАБВГД")
        assert (
            code == 0
            and d["legal"]
            and d["score"] == 10
            and d["words"] == [{"word": "ЁЛКА", "gcg": "ЁЛКА", "valid": True, "score": 10}]
        )
        assert bool(d["notes"]) == (play == "G8 ЕЛКА")


def test_yo_tile_for_ye_where_only_the_ye_word_exists(ru, tmp_path):
    """The Russian Scrabble article read the other way: the Ё tile counts for е too, so ЛЁС (the word лес) is valid:
    8G ЛЁС = Л 2 + Ё 3 (H8 DW) + С 1 = 6, × 2 = 12."""
    r = run_skrafl_here("check", "--lexicon", str(ru), "лес")
    assert r.returncode == 0, r.stdout
    code, d = _score(ru, _board(tmp_path), "8G ЛЁС", "--rack", "ЛЁСАБВГ")
    assert code == 0 and d["verdict"] == "ACCEPTABLE" and d["score"] == 12


def test_table_shows_the_note(ru, tmp_path):
    r = run_skrafl_here("score", "--lexicon", str(ru), "--board", str(_board(tmp_path)), "--play", "8G ЕЖИК", "--rack", "ЁЖИКАБВ")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert any(line.startswith("note") and "Ё tile" in line for line in lines)
    assert any(line.startswith("score") and "22" in line for line in lines)


def test_without_a_lexicon_no_folds(tmp_path):
    """No lexicon, no folds: an Е written over the board's Ё tile is the mismatch it says it is."""
    board = _board(tmp_path, "......ЁЖИК.....")
    r = run_skrafl_here("score", "--rules", "russian_scrabble", "--board", str(board), "--play", "G8 ЕЛКА", "-f", "json")
    assert r.returncode == 1, r.stderr
    assert json.loads(r.stdout)["reason"]["code"] == "mismatch"


def test_show_reads_ye_over_the_yo_tile(ru, tmp_path):
    board = _board(tmp_path, "......ЁЖИК.....")
    out = tmp_path / "p.svg"
    r = run_skrafl_here("show", "--lexicon", str(ru), "--board", str(board), "--play", "G8 ЕЛКА", "--out", str(out), "-q")
    assert r.returncode == 0, r.stderr
    assert "G8 ЁЛКА 10" in out.read_text(encoding="utf-8")  # the caption: the board's Ё tile, 10 points
