"""Recipe format extensions used by the nb/ru/sl/en recipes (pipelines/recipe.py docstring):
``[[drop]] early``, ``[[drop]] sources``, ``[lexicon] without``, and window functions in ``when``."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from gamecore.errors import DataError
from pipelines.build import classify
from pipelines.recipe import load_recipe

BASE = """
[lexicon]
name = "t"
language = "t"
tile_set = "english"
rules = "wespa"
alphabet = "abcdefghijklmnopqrstuvwxyz"
min_length = 2
max_length = 15

[[drop]]
rule = "abbreviation"
when = "cls = 'ABBR'"
early = true

[[drop]]
rule = "late_abbreviation"
when = "cls = 'ABBR'"

[[drop]]
rule = "only_in_a"
when = "cls = 'X'"
sources = ["a"]

[[drop]]
rule = "not_head_of_group"
when = "NOT is_head AND MAX(CASE WHEN is_head THEN 1 ELSE 0 END) OVER (PARTITION BY grp) = 1"
"""

ENTRIES = pl.DataFrame(
    {
        "form": ["NB", "cat", "dog", "cats", "scissors", "scissor", "x-ray"],
        "cls": ["ABBR", "NOUN", "X", "NOUN", "NOUN", "NOUN", "NOUN"],
        "is_head": [True, True, True, False, False, False, True],
        "grp": [1, 2, 3, 2, 4, 4, 5],
    }
)


def verdicts(recipe, source=None) -> dict[str, str | None]:
    out = classify(ENTRIES, recipe, source)
    return dict(zip(out["form"], out["rule"], strict=True))


@pytest.fixture()
def recipe(tmp_path) -> Path:
    path = tmp_path / "recipe.toml"
    path.write_text(BASE, encoding="utf-8")
    return path


def test_early_rule_names_the_drop_before_builtins(recipe):
    # NB has capitals (built-in not_lowercase) but the early rule is checked first
    assert verdicts(load_recipe(recipe))["NB"] == "abbreviation"


def test_rule_limited_to_other_sources_is_skipped(recipe):
    r = load_recipe(recipe)
    assert verdicts(r, "a")["dog"] == "only_in_a"
    assert verdicts(r, "b")["dog"] is None


def test_window_condition_sees_the_whole_group(recipe):
    v = verdicts(load_recipe(recipe))
    assert v["cats"] == "not_head_of_group"  # group 2 has a head (cat)
    assert v["scissors"] is None and v["scissor"] is None  # group 4 has none: every form stays
    assert v["x-ray"] == "letters_outside_alphabet"


def test_without_leaves_inherited_rules_out(recipe, tmp_path):
    child = tmp_path / "child.toml"
    child.write_text(
        '[lexicon]\nextends = "recipe.toml"\nname = "c"\nwithout = ["abbreviation", "not_head_of_group"]\n', encoding="utf-8"
    )
    r = load_recipe(child)
    assert [d.rule for d in r.drops] == ["late_abbreviation", "only_in_a"]
    v = verdicts(r)
    assert v["NB"] == "not_lowercase" and v["cats"] is None


def test_without_unknown_rule_and_bad_keys_are_errors(recipe, tmp_path):
    child = tmp_path / "child.toml"
    child.write_text('[lexicon]\nextends = "recipe.toml"\nname = "c"\nwithout = ["nope"]\n', encoding="utf-8")
    with pytest.raises(DataError, match="nope"):
        load_recipe(child)
    bad = tmp_path / "bad.toml"
    bad.write_text(BASE + '\n[[drop]]\nrule = "z"\nwhen = "true"\nsource = ["a"]\n', encoding="utf-8")
    with pytest.raises(DataError, match="unknown key"):
        load_recipe(bad)


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            '[lexicon]\nadditions = "add.txt"\n',
            r"\[lexicon\]: unknown key\(s\) \['additions'\] \(additions goes in \[committee\]\)",
        ),
        ('[committee]\naddition = "add.txt"\n', r"\[committee\]: unknown key\(s\) \['addition'\]"),
        ('[short_words]\nlists = "short.txt"\n', r"\[short_words\]: unknown key\(s\) \['lists'\]"),
    ],
)
def test_a_misplaced_or_misspelt_key_is_an_error(tmp_path, extra, message):
    """A curator's additions list under [lexicon] (or a misspelt key) was ignored without a word:
    the build ran with no additions (found by the tenth user trial)."""
    text = BASE.replace("[lexicon]\n", extra if extra.startswith("[lexicon]") else "[lexicon]\n", 1)
    if not extra.startswith("[lexicon]"):
        text += "\n" + extra
    bad = tmp_path / "bad.toml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(DataError, match=message):
        load_recipe(bad)


def test_fast_lowercase_equals_polars_lowercase():
    from pipelines.build import _lowercase_series

    s = pl.Series("form", ["Idé", "abc", "ǅx", "Ⅻ", "İstanbul", "ß", "ЁЖ", "ёж", "ΣΊΣΥΦΟΣ", None, ""])
    assert _lowercase_series(s).to_list() == s.str.to_lowercase().to_list()
    already = pl.Series("form", ["abc", "еж"])
    assert _lowercase_series(already).to_list() == ["abc", "еж"]


def test_multi_letter_tiles_are_refused_in_one_line(tmp_path):
    """Catalan's L·L, NY and QU tiles: the KWG holds one character per tile, so such a
    recipe is refused with one DataError naming the tiles, not a crash inside the build."""
    from clirun import run_skrafl_here

    tiles = tmp_path / "catalan.tsv"
    tiles.write_text(
        "letter\tcount\tvalue\tvowel\n?\t2\t0\t0\nA\t12\t1\t1\nL\t4\t1\t0\nL·L\t1\t10\t0\nNY\t1\t10\t0\nQU\t1\t8\t0\n",
        encoding="utf-8",
    )
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(BASE.replace('tile_set = "english"', f'tile_set = "{tiles}"'), encoding="utf-8")
    with pytest.raises(DataError, match=r"multi-letter tiles \(L·L, NY, QU\)"):
        load_recipe(recipe)
    dotted = tmp_path / "dotted.toml"
    dotted.write_text(BASE.replace('alphabet = "abcdefghijklmnopqrstuvwxyz"', 'alphabet = "abcl·"'), encoding="utf-8")
    with pytest.raises(DataError, match=r"not letters \(·\)"):
        load_recipe(dotted)
    words = tmp_path / "w.txt"
    words.write_text("col·lecció\nany\n", encoding="utf-8")
    r = run_skrafl_here(
        "build", "en", "--source", "wordlist", "--input", str(words), "--recipe", str(recipe), "--out", str(tmp_path / "out")
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "multi-letter tiles" in r.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "edit, line",
    [
        (('rules = "wespa"', 'rules = = "wespa"'), 6),  # a value missing after '='
        (('[[drop]]\nrule = "only_in_a"', '[[drop]\nrule = "only_in_a"'), 20),  # a header without its ']]'
    ],
)
def test_toml_syntax_error_names_file_and_line(recipe, edit, line):
    """A recipe that is not TOML: ``FILE:LINE: not valid TOML: …`` (user trial: no line, only
    the parser's '(at line N, column M)' inside the message)."""
    recipe.write_text(BASE.replace(*edit), encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_recipe(recipe)
    msg = str(info.value)
    assert msg.startswith(f"{recipe}:{line}: not valid TOML: ") and "(at line" not in msg, msg
    assert info.value.line == line


def test_a_bom_is_dropped(recipe):
    """A recipe saved with a UTF-8 byte-order mark reads as the same recipe without it."""
    plain = load_recipe(recipe)
    bom = recipe.with_name("bom.toml")
    bom.write_bytes(b"\xef\xbb\xbf" + BASE.encode("utf-8"))
    import dataclasses

    assert dataclasses.replace(load_recipe(bom), path=plain.path, files=plain.files) == plain
