"""English lexicon (seed 003; lexicon_rules.md "English") on hand-made SCOWL split lists and a
plain word list."""

from __future__ import annotations

from pathlib import Path

import pytest
from lang_helpers import LANG_FIX, assert_bad_input, build, check_expected, words

FIX = LANG_FIX / "en"


@pytest.fixture(scope="module")
def scowl_build(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("en"), "en", "--source", str(FIX / "scowl"))


def test_words_of_every_spelling_kept(scowl_build):
    assert words(scowl_build) == {"cat", "cats", "dog", "qi", "zyxomma", "aardvark", "color", "colour"}


def test_proper_names_dropped(scowl_build):
    check_expected(scowl_build, {"paris": "proper_name"})


def test_abbreviations_dropped(scowl_build):
    check_expected(scowl_build, {"etc": "abbreviation"})


def test_contractions_dropped(scowl_build):
    check_expected(scowl_build, {"don't": "contraction", "dont": "contraction"})


def test_capitalised_and_special_lists_dropped(scowl_build):
    check_expected(scowl_build, {"english": "capitalised_list", "xiv": "special_list"})


def test_hyphenated_words_dropped(scowl_build):
    check_expected(scowl_build, {"well-being": "hyphen_or_apostrophe"})


def test_length_limits(scowl_build):
    check_expected(scowl_build, {"a": "too_short", "supercalifragilisticexpialidocious": "too_long"})


def test_plain_word_list(tmp_path):
    folder = build(tmp_path, "en", "--source", "wordlist", "--input", str(FIX / "wordlist_small.txt"))
    check_expected(folder, {"cat": None, "dog": None, "qi": None, "foo-bar": "hyphen_or_apostrophe"})


def test_bad_input_clear_error_previous_output_kept(scowl_build, tmp_path):
    assert_bad_input(
        scowl_build.parent,
        tmp_path,
        "en",
        ["--source", "scowl", "--input", str(FIX / "scowl_bad")],
        "english-words.10:1: not UTF-8",
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_bad_input(scowl_build.parent, tmp_path / "again", "en", ["--source", "scowl", "--input", str(empty)], "no SCOWL lists")
