"""A recipe is data. A ``[[drop]]`` ``when`` is a condition over the entry's
columns (names, literals, operators, CASE, IN lists, window clauses and a known list of scalar and
aggregate functions); a table function (``read_csv('/etc/passwd')`` read the file and put its first
line in the error), a subquery or any other function is refused when the recipe is read, in one
line naming the recipe file, the line of its ``[[drop]]`` and the rule, before polars sees it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from clirun import run_skrafl_here

from gamecore.errors import DataError
from pipelines.recipe import load_recipe

ROOT = Path(__file__).resolve().parents[1]

RECIPE = """[lexicon]
name = "t"
language = "en"
tile_set = "english"
rules = "wespa"
alphabet = "abcdefghijklmnopqrstuvwxyz"
min_length = 2
max_length = 15

[[drop]]
rule = "fine"
when = "form = 'zz'"

[[drop]]
rule = "evil"
when = \"\"\"{when}\"\"\"
"""

SECRET = "s3cr3t-first-line-of-the-file"

REFUSED = [
    "read_csv('{secret}') IS NOT NULL",
    "form IN (SELECT column_1 FROM read_csv('{secret}'))",
    "form IN (SELECT * FROM read_parquet('{secret}'))",
    "EXISTS (SELECT 1)",
    "form = (SELECT 'a')",
    "form IN (VALUES ('a'))",
    "form = 'a'; SELECT 1",
    "form = 'a' -- a comment hides nothing",
    "form = $$a$$",
    "form = E'a'",
    "t.form = 'a'",
    "form::text = 'a'",
    "form = 'a' OR read_json('{secret}') IS NULL",
    "form = 'a\\\\' OR read_csv(''{secret}'') IS NULL OR form = ''",  # TOML \\ is one backslash: it escapes no quote in polars' SQL
    "pg_read_file('{secret}') = 'x'",
]


@pytest.mark.parametrize("when", REFUSED)
def test_a_condition_that_reads_or_queries_is_refused_in_one_line(tmp_path, when):
    secret = tmp_path / "secret.csv"
    secret.write_text(f"{SECRET}\nb\n", encoding="utf-8")
    words = tmp_path / "words.txt"
    words.write_text("cat\ndog\n", encoding="utf-8")
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(RECIPE.format(when=when.format(secret=secret)), encoding="utf-8")
    r = run_skrafl_here(
        "build",
        "en",
        "--recipe",
        str(recipe),
        "--source",
        "wordlist",
        "--input",
        str(words),
        "--out",
        str(tmp_path / "lex"),
        "-q",
    )
    lines = r.stderr.splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert SECRET not in r.stderr
    assert f"{recipe}:14: [[drop]] rule 'evil': its when is not a condition a recipe may hold" in lines[0], lines[0]
    assert not (tmp_path / "lex").exists()


@pytest.mark.parametrize(
    "when",
    [
        "coalesce(visibility, 'K') NOT IN ('K', 'V')",
        "regexp_like(form, '^\\p{Lu}{2,}$') OR form LIKE '% %'",
        "NOT coalesce(a = 'x' AND b = 'y', false) AND MAX(CASE WHEN a = 'x' THEN 1 ELSE 0 END) OVER (PARTITION BY lemma) = 1",
        "COUNT(*) OVER () < 3 AND length(lower(form)) BETWEEN 2 AND 1.5e1",
        "\"select\" = 'it''s a column name' AND form IS NOT NULL",
        "ROW_NUMBER() OVER () > 1",
    ],
)
def test_conditions_over_columns_are_kept(when):
    from pipelines.recipe import condition_problem

    assert condition_problem(when) is None


def test_every_real_recipe_still_reads():
    """The recipes of every language (lexicon_sources/*/*.toml) hold only allowed conditions."""
    recipes = sorted((ROOT / "lexicon_sources").glob("*/*.toml"))
    assert len(recipes) >= 6
    whens = 0
    for path in recipes:
        if "drop" in tomllib.loads(path.read_text(encoding="utf-8")):
            whens += len(load_recipe(path).drops)
    assert whens >= 40


def test_the_error_is_raised_reading_the_recipe(tmp_path):
    path = tmp_path / "recipe.toml"
    path.write_text(RECIPE.format(when="read_csv('/etc/passwd') IS NULL"), encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_recipe(path)
    assert info.value.line == 14 and "read_csv(…) reads a file" in str(info.value)
