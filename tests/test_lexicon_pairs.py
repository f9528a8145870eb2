"""``diff`` and ``impact`` compare two builds of one language: lexicons whose manifests name
different languages are refused in one line, exit 2, before any work."""

from __future__ import annotations

from pathlib import Path

import pytest
from clirun import EN_WORDS, build_small_lexicons, one_error_line, run_skrafl_here


@pytest.fixture(scope="module")
def lexicons(tmp_path_factory) -> dict[str, Path]:
    return build_small_lexicons(tmp_path_factory.mktemp("trial"))


# --- 5. diff and impact refuse lexicons of two languages -----------------------------------------


def test_diff_two_languages_refused(lexicons):
    tmp = lexicons["tmp"]
    r = run_skrafl_here("diff", str(lexicons["en"]), str(lexicons["nb"]), "--out", str(tmp / "d1"))
    line = one_error_line(r)
    assert line == (
        f"skrafl: error: {lexicons['en']} is a lexicon of language 'en' and {lexicons['nb']} of 'nb': "
        "compare two builds of one language (their words are not versions of one another)"
    )
    assert not (tmp / "d1").exists()


def test_impact_two_languages_refused(shared, lexicons):
    tmp = lexicons["tmp"]
    games = shared / "corpora" / "netskrafl" / "games"
    r = run_skrafl_here(
        "impact", "--old", str(lexicons["en"]), "--new", str(lexicons["nb"]), str(games), "--out", str(tmp / "i1")
    )
    line = one_error_line(r)
    assert line.startswith(f"skrafl: error: --old {lexicons['en']} is a lexicon of language 'en' and --new")
    assert not (tmp / "i1").exists()


def test_diff_one_language_still_works(lexicons, tmp_path):
    src = tmp_path / "en2.txt"
    src.write_text("\n".join([*EN_WORDS, "cow"]) + "\n", encoding="utf-8")
    r = run_skrafl_here("build", "en", "--source", "wordlist", "--input", str(src), "--out", str(tmp_path / "en2"), "--quiet")
    assert r.returncode == 0, r.stderr
    r = run_skrafl_here("diff", str(lexicons["en"]), str(tmp_path / "en2"), "--out", str(tmp_path / "d"), "--quiet")
    assert r.returncode == 0, r.stderr
