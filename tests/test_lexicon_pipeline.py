"""The lexicon pipeline on hand-made BÍN fixtures: readers, every filter rule, committee lists,
robot tier, determinism, bad input (exit 2, one error line, previous output untouched).

Expected verdicts are read off the recipe's rules (docs/LEXICONS.md), one fixture row per rule.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from clirun import run_skrafl_here

FIX = Path(__file__).resolve().parent / "fixtures" / "bin"

# form → the rule that must drop it (None = in the lexicon), for the KRsnid fixture.
KR_EXPECTED = {
    "hestur": None,
    "hests": None,
    "hestunum": None,
    "farið": None,
    "að": None,  # two-letter word on the committee list
    "ýr": None,
    "bý": None,
    "hestaleg": None,
    "fornyrði": None,
    "kvæði": None,
    "langorðastur": None,
    "reykjavík": "not_lowercase",
    "cirkus": "letters_outside_alphabet",
    "hraðbrautarframkvæmdanna": "too_long",
    "jóbsbók": "biblical_name",
    "fariði": "plural_question_form",
    "hestsi": "not_genuine_bin",
    "greynisorð": "not_genuine_bin",
    "xy": "short_word_not_in_committee_list",
    "stur": "committee_removal",
}
# Robot tier midlungur: grade 1, no marked register, at most 10 letters (docs/LEXICONS.md).
MIDLUNGUR_EXPECTED = {
    "hestur": None,
    "að": None,
    "hestaleg": "grade_not_1",
    "fornyrði": "marked_register",
    "kvæði": None,  # only the form's own register (bmalsnid) is SKALD: Netskrafl tests the lemma's
    "langorðastur": "too_long",
}


def tree_digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.fixture(scope="module")
def kr_build(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("out")
    r = run_skrafl_here("ingest", "is", "--source", str(FIX / "KRsnid_small.csv"), "--quiet", output_root=root)
    assert r.returncode == 0, r.stderr
    r = run_skrafl_here("build", "is", "--quiet", output_root=root)
    assert r.returncode == 0, r.stderr
    return root / "is"


def words(folder: Path) -> list[str]:
    return (folder / "words.txt").read_text(encoding="utf-8").split()


def test_each_rule_keeps_or_drops_its_row(kr_build):
    lexicon = set(words(kr_build))
    rejected = pl.read_parquet(kr_build / "rejected.parquet")
    for form, rule in KR_EXPECTED.items():
        if rule is None:
            assert form in lexicon, form
        else:
            assert form not in lexicon, form
            assert set(rejected.filter(pl.col("word") == form)["rule"]) == {rule}, form


def test_committee_lists_applied(kr_build, shared):
    lexicon = set(words(kr_build))
    two = {w.strip() for w in (shared / "reference" / "icelandic_two_letter_words.txt").read_text("utf-8").split()}
    assert len(two) == 169
    assert {w for w in lexicon if len(w) == 2} == two
    assert "fleiru" in lexicon  # a longer committee addition, absent from the fixture dump


def test_midlungur_tier(kr_build):
    tier = kr_build / "midlungur"
    lexicon = set(words(tier))
    rejected = pl.read_parquet(tier / "rejected.parquet")
    for form, rule in MIDLUNGUR_EXPECTED.items():
        if rule is None:
            assert form in lexicon, form
        else:
            assert form not in lexicon
            assert rule in set(rejected.filter(pl.col("word") == form)["rule"]), form
    assert max(len(w) for w in lexicon) <= 10


def test_manifest_counts(kr_build):
    manifest = json.loads((kr_build / "manifest.json").read_text("utf-8"))
    listed = words(kr_build)
    assert manifest["words"] == len(listed)
    assert sum(manifest["words_by_length"].values()) == len(listed)
    assert manifest["dropped_by_rule"]["not_genuine_bin"]["words"] == 2
    assert manifest["committee"]["removed"] == 1
    for name, info in manifest["files"].items():
        assert hashlib.sha256((kr_build / name).read_bytes()).hexdigest() == info["sha256"]


def test_words_sorted_in_icelandic_alphabet_order(kr_build):
    listed = words(kr_build)
    # Icelandic order (Netskrafl's help tile list): a á b d ð e é f g h i í j k l m n o ó p r s t u ú v x y ý þ æ ö
    assert listed.index("að") < listed.index("af") < listed.index("áa") < listed.index("bý")
    assert listed.index("ýr") < listed.index("þá") < listed.index("æð") < listed.index("öl")
    assert listed.index("hests") < listed.index("hestunum") < listed.index("hestur")


def test_shsnid_has_no_visibility_so_every_row_is_bin(tmp_path):
    r = run_skrafl_here("ingest", "is", "--source", str(FIX / "SHsnid_small.csv"), "--quiet", output_root=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run_skrafl_here("build", "is", "--recipe", "is", "--quiet", output_root=tmp_path)
    assert r.returncode == 0, r.stderr
    lexicon = set(words(tmp_path / "is"))
    assert {"hestsi", "greynisorð", "hestur"} <= lexicon
    assert "fariði" not in lexicon and "reykjavík" not in lexicon


def test_build_is_deterministic(kr_build, tmp_path):
    r = run_skrafl_here(
        "build", "is", "--out", str(tmp_path / "again"), "--entries", str(kr_build.parent / "entries" / "is"), "--quiet"
    )
    assert r.returncode == 0, r.stderr
    # build_stats.json (times) and the marker that lists its checksum are the only files that differ
    varying = ("build_stats", ".skrafl-output")
    first = {k: v for k, v in tree_digest(kr_build).items() if not any(x in k for x in varying)}
    second = {k: v for k, v in tree_digest(tmp_path / "again").items() if not any(x in k for x in varying)}
    assert first == second


def test_check_command(kr_build):
    root = kr_build.parent
    r = run_skrafl_here("check", "--lang", "is", "hestur", "HESTS", output_root=root)
    assert (r.returncode, r.stdout) == (0, "hestur\tVALID\nHESTS\tVALID\n")
    r = run_skrafl_here("check", "--lang", "is", "hestur", "Reykjavík", output_root=root)
    assert (r.returncode, r.stdout) == (1, "hestur\tVALID\nReykjavík\tINVALID\n")
    r = run_skrafl_here("check", "--lang", "is", "-", output_root=root, stdin="að\nxy\n")
    assert (r.returncode, r.stdout) == (1, "að\tVALID\nxy\tINVALID\n")
    r = run_skrafl_here("check", "--lang", "is", "--play", "hestur", "cirkus", output_root=root)
    assert (r.returncode, r.stdout) == (1, "UNACCEPTABLE\n")
    r = run_skrafl_here("check", "--lang", "is", "--play", "hestur", "bý", output_root=root)
    assert (r.returncode, r.stdout) == (0, "ACCEPTABLE\n")


def test_why_names_rule_and_lemma(kr_build):
    r = run_skrafl_here("why", "--lang", "is", "fariði", "--format", "json", output_root=kr_build.parent)
    assert r.returncode == 1
    report = json.loads(r.stdout)[0]
    assert report["valid"] is False
    assert report["entries"][0]["lemma"] == "fara"
    assert report["entries"][0]["tag"] == "SP-GM-FT"
    assert report["entries"][0]["verdict"] == "dropped: plural_question_form"
    r = run_skrafl_here("why", "--lang", "is", "stur", output_root=kr_build.parent)
    assert "committee_removal" in r.stdout and "removals.txt" in r.stdout


@pytest.mark.parametrize(
    "fixture, message",
    [
        ("SHsnid_truncated.csv", "SHsnid_truncated.csv:2: the file ends in the middle of a line"),
        ("SHsnid_wrong_columns.csv", "SHsnid_wrong_columns.csv:2: 5 fields; expected 6"),
        ("SHsnid_latin1.csv", "SHsnid_latin1.csv:2: not UTF-8"),
        ("SHsnid_empty.csv", "SHsnid_empty.csv:1: empty file"),
    ],
)
def test_bad_input_one_error_line_and_previous_output_kept(kr_build, tmp_path, fixture, message):
    root = tmp_path / "out"
    shutil.copytree(kr_build.parent, root)
    before = tree_digest(root)
    r = run_skrafl_here("ingest", "is", "--source", str(FIX / fixture), "--quiet", output_root=root)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("skrafl: error: ") and message in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    assert tree_digest(root) == before


def test_unknown_language(tmp_path):
    r = run_skrafl_here("ingest", "xx", output_root=tmp_path)
    assert r.returncode == 2
    line = r.stderr.strip()
    assert line.startswith("skrafl: error: unknown language 'xx'; known languages: ") and "is" in line.split(": ")[-1].split(", ")
    r = run_skrafl_here("check", "--lang", "xx", "orð", output_root=tmp_path)
    assert r.returncode == 2 and "unknown language 'xx'" in r.stderr


def test_check_without_a_built_lexicon(tmp_path):
    r = run_skrafl_here("check", "--lang", "is", "hestur", output_root=tmp_path)
    assert r.returncode == 2
    assert "skrafl build is' first" in r.stderr  # the hint (with the ingest step before it)
    r = run_skrafl_here("check", "--lexicon", "README.md", "hestur")
    assert r.returncode == 2 and "README.md: not a lexicon folder" in r.stderr


def test_usage_errors_are_one_line_exit_2():
    for args in (["check", "--lang", "is", "--format", "xml", "orð"], ["nosuch"], ["build"]):
        r = run_skrafl_here(*args)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith("skrafl: error: "), (args, r.stderr)


def test_bad_text_input_is_an_error_not_a_traceback(kr_build):
    p = subprocess.run(
        [sys.executable, "-m", "cli.main", "check", "--lang", "is", "-"],
        input=b"hestur\n\xff\xfe garbage\n",
        capture_output=True,
        cwd=Path(__file__).resolve().parents[1],
        env={**os.environ, "SKRAFL_OUTPUT": str(kr_build.parent)},
    )
    assert p.returncode == 2 and p.stderr.decode().strip() == "skrafl: error: -:2: not UTF-8: convert the input to UTF-8 first"
    r = run_skrafl_here("check", "--lang", "is", "", output_root=kr_build.parent)
    assert r.returncode == 2 and "argument 1 is empty" in r.stderr


def test_word_list_case_bom_and_crlf(tmp_path):
    src = tmp_path / "list.txt"
    # all-caps words carry no case (tournament lists); a capitalised word is a proper noun
    src.write_bytes("\ufeffhello\r\nWORLD\r\nParis\r\nAARDVARK\r\n".encode("utf-8"))
    r = run_skrafl_here("build", "en", "--source", "wordlist", "--input", str(src), "--out", str(tmp_path / "lex"), "--quiet")
    assert r.returncode == 0, r.stderr
    assert words(tmp_path / "lex") == ["aardvark", "hello", "world"]


def test_a_recipe_that_keeps_nothing_fails(tmp_path):
    src = tmp_path / "names.txt"
    src.write_text("Paris\nLondon\n", encoding="utf-8")
    r = run_skrafl_here("build", "en", "--source", "wordlist", "--input", str(src), "--out", str(tmp_path / "lex"), "--quiet")
    assert r.returncode == 2 and "kept no word of the 2 source entries" in r.stderr


def test_icelandic_recipe_on_a_plain_word_list(tmp_path):
    # `build is --source wordlist` used to fail with an internal error (no visibility
    # column). The BÍN rules say which sources they are written for, so a word list skips them,
    # says so, and is filtered by what applies to any list: the alphabet (c, q, w, z are not
    # Icelandic letters), capitals, lengths, two-letter words only from the committee list.
    src = tmp_path / "ord.txt"
    src.write_text("hestur\nköttur\nReykjavík\nzebra\nýf\nxy\n", encoding="utf-8")
    r = run_skrafl_here(
        "build", "is", "--source", "wordlist", "--input", str(src), "-r", "is", "-r", "midlungur", "--out", str(tmp_path / "lex")
    )
    assert r.returncode == 0, r.stderr
    got = set(words(tmp_path / "lex"))
    assert {"hestur", "köttur", "ýf"} <= got and not {"reykjavík", "zebra", "xy"} & got
    bin_rules = ["biblical_name", "not_genuine_bin", "plural_question_form"]
    manifest = json.loads((tmp_path / "lex" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["rules_not_applied"] == bin_rules
    tier = json.loads((tmp_path / "lex" / "midlungur" / "manifest.json").read_text(encoding="utf-8"))
    assert tier["rules_not_applied"] == sorted(bin_rules + ["grade_not_1", "marked_register"])
    assert "not applied to wordlist: biblical_name, not_genuine_bin, plural_question_form" in r.stderr


def test_a_rule_over_a_column_the_source_lacks_is_refused_in_one_line(tmp_path):
    recipe = tmp_path / "r.toml"
    recipe.write_text(
        '[lexicon]\nname = "t"\nlanguage = "en"\ntile_set = "english"\nrules = "wespa"\n'
        'alphabet = "abcdefghijklmnopqrstuvwxyz"\nmin_length = 2\nmax_length = 15\n\n'
        '[[drop]]\nrule = "archaic"\nwhen = "register = \'arch\'"\n',
        encoding="utf-8",
    )
    src = tmp_path / "list.txt"
    src.write_text("cat\ndog\n", encoding="utf-8")
    r = run_skrafl_here(
        "build", "en", "--source", "wordlist", "--input", str(src), "-r", str(recipe), "--out", str(tmp_path / "lex"), "--quiet"
    )
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "rule 'archaic' reads column(s) register that source 'wordlist' does not have" in r.stderr
    assert "sources = [...]" in r.stderr and "internal error" not in r.stderr
    assert not (tmp_path / "lex").exists()


def test_out_must_not_destroy_files(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    src = tmp_path / "list.txt"
    src.write_text("CAT\nDOG\n", encoding="utf-8")
    r = run_skrafl_here("build", "en", "--source", "wordlist", "--input", str(src), "--out", str(target), "--quiet")
    assert r.returncode == 2 and "exists and is not a folder" in r.stderr
    assert target.read_text() == "keep me\n"


def test_version():
    r = run_skrafl_here("--version")
    assert r.returncode == 0 and r.stdout.startswith("skrafl ")


def test_why_uses_the_recipe_the_lexicon_was_built_with(kr_build, tmp_path):
    from lexicon_sources import language

    recipe_dir = tmp_path / "rec"
    shutil.copytree(language("is").folder, recipe_dir)
    with open(recipe_dir / "additions.txt", "a", encoding="utf-8") as fh:
        fh.write("blablab\n")
    with open(recipe_dir / "removals.txt", "a", encoding="utf-8") as fh:
        fh.write("hestur\n")
    out = tmp_path / "custom"
    r = run_skrafl_here(
        "build",
        "is",
        "--recipe",
        str(recipe_dir / "recipe.toml"),
        "--entries",
        str(kr_build.parent / "entries" / "is"),
        "--out",
        str(out),
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    r = run_skrafl_here("why", "--lexicon", str(out), "hestur", "blablab", "--format", "json")
    report = {item["word"]: item for item in json.loads(r.stdout)}
    assert report["hestur"]["valid"] is False
    assert {e["verdict"] for e in report["hestur"]["entries"]} == {"dropped: committee_removal"}
    assert report["blablab"]["valid"] is True and any("additions.txt" in n for n in report["blablab"]["notes"])
    assert "recipe changed" not in r.stderr


def test_why_tsv_is_real_tsv(kr_build):
    # one header line, one row per source entry, a word column
    r = run_skrafl_here("why", "--lang", "is", "fariði", "hestur", "xyzzy", "--format", "tsv", output_root=kr_build.parent)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    header = lines[0].split("\t")
    assert header[:4] == ["word", "verdict", "lexicon", "form"] and header[-3:] == ["entry_verdict", "why", "notes"]
    rows = [dict(zip(header, line.split("\t"), strict=True)) for line in lines[1:]]
    assert all(len(line.split("\t")) == len(header) for line in lines[1:])
    assert {r["word"] for r in rows} == {"fariði", "hestur", "xyzzy"}
    fari = [r for r in rows if r["word"] == "fariði"]
    assert fari and all(r["verdict"] == "INVALID" and r["lemma"] == "fara" for r in fari)
    assert any(r["entry_verdict"] == "dropped: plural_question_form" for r in fari)
    assert [r["notes"] for r in rows if r["word"] == "xyzzy"] == [
        "not in the source at all; letter 'z' not in the is alphabet (aábdðeéfghiíjklmnoóprstuúvxyýþæö)"
    ]


def committee_recipe(tmp_path: Path, additions: str = "", removals: str = "") -> Path:
    from lexicon_sources import language

    recipe_dir = tmp_path / "rec"
    shutil.copytree(language("is").folder, recipe_dir)
    with open(recipe_dir / "additions.txt", "a", encoding="utf-8") as fh:
        fh.write(additions)
    with open(recipe_dir / "removals.txt", "a", encoding="utf-8") as fh:
        fh.write(removals)
    return recipe_dir / "recipe.toml"


def test_committee_entries_that_cannot_take_effect_are_reported(kr_build, tmp_path):
    # an addition outside the alphabet or the length limits, a removal that removes nothing
    recipe = committee_recipe(tmp_path, "cirkus\nlangtorðalengingarmaður\n", "xyzzyð\n")
    r = run_skrafl_here(
        "build",
        "is",
        "--recipe",
        str(recipe),
        "--entries",
        str(kr_build.parent / "entries" / "is"),
        "--out",
        str(tmp_path / "lex"),
        output_root=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    manifest = json.loads((tmp_path / "lex" / "manifest.json").read_text("utf-8"))
    not_applied = {(d["list"], d["word"]): d["reason"] for d in manifest["committee"]["not_applied"]}
    assert not_applied[("additions.txt", "cirkus")] == "letter(s) c outside the alphabet"
    assert not_applied[("additions.txt", "langtorðalengingarmaður")] == "longer than 15 letters"
    assert not_applied[("removals.txt", "xyzzyð")] == "removes nothing: the lexicon does not hold it"
    assert "committee additions.txt: 1 cannot take effect (letter(s) c outside the alphabet): cirkus" in r.stderr
    assert "committee removals.txt: " in r.stderr and "cannot take effect (removes nothing)" in r.stderr


def test_a_word_in_both_committee_lists_is_an_error(kr_build, tmp_path):
    recipe = committee_recipe(tmp_path, "hestur\n", "hestur\n")
    r = run_skrafl_here(
        "build",
        "is",
        "--recipe",
        str(recipe),
        "--entries",
        str(kr_build.parent / "entries" / "is"),
        "--out",
        str(tmp_path / "lex"),
        "--quiet",
    )
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1
    assert "both added and removed by the committee lists (hestur)" in lines[0] and "removals.txt" in lines[0]


def test_why_names_the_letters_outside_the_alphabet_and_cuts_table_lines(kr_build):
    """'why' names a letter outside the alphabet and the length limits; in table format
    (for a person: COLUMNS set) no line is wider than the terminal."""
    import os

    r = run_skrafl_here("why", "--lang", "is", "cwzq", output_root=kr_build.parent)
    assert r.returncode == 1
    assert "letters 'c', 'w', 'z', 'q' not in the is alphabet" in r.stdout, r.stdout
    r = run_skrafl_here("why", "--lang", "is", "hestar" * 3, output_root=kr_build.parent)
    assert "18 letters: the is lexicon has words of 2 to 15 letters" in r.stdout, r.stdout
    env = {**os.environ, "SKRAFL_OUTPUT": str(kr_build.parent), "COLUMNS": "40"}
    p = subprocess.run(
        [sys.executable, "-m", "cli.main", "why", "--lang", "is", "fariði"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
        env=env,
    )
    lines = p.stdout.splitlines()
    assert len(lines) > 2 and max(len(line) for line in lines[1:]) <= 40, lines
    assert any(line.endswith("…") for line in lines)


def test_a_bin_csv_starting_with_blank_lines_is_read(tmp_path):
    """Blank lines are skipped anywhere in a BÍN CSV, but at its start they made it an 'empty
    file': the format is now told from the first line that is not blank."""
    src = tmp_path / "blank_first.csv"
    src.write_bytes(b"\n\r\n" + (FIX / "SHsnid_small.csv").read_bytes())
    r = run_skrafl_here("ingest", "is", "--source", str(src), "--quiet", output_root=tmp_path / "out")
    assert r.returncode == 0, r.stderr
    ref = run_skrafl_here("ingest", "is", "--source", str(FIX / "SHsnid_small.csv"), "--quiet", output_root=tmp_path / "ref")
    assert ref.returncode == 0, ref.stderr
    import polars as pl

    got = pl.read_parquet(tmp_path / "out" / "entries" / "is" / "entries.parquet").drop("row")
    assert got.equals(pl.read_parquet(tmp_path / "ref" / "entries" / "is" / "entries.parquet").drop("row"))
    bad = tmp_path / "blank_then_short.csv"
    bad.write_bytes(b"\n\nhestur;6179\n")
    r = run_skrafl_here("ingest", "is", "--source", str(bad), "--quiet", output_root=tmp_path / "out2")
    assert r.returncode == 2 and f"{bad.name}:3: 2 semicolon-separated fields" in r.stderr, r.stderr


def test_the_build_progress_bar_moves_phase_by_phase(tmp_path):
    """The build's bar counts the phases of each recipe (it sat at 0/1 for a whole one-recipe build
    and jumped to 1/1 at its end): every phase compile_recipe times is a step, in order, and a
    one-recipe build ends at that many steps of that many."""
    from pipelines.build import PHASES

    source = tmp_path / "words.txt"
    source.write_text("hest\nhesten\nkatt\n", encoding="utf-8")
    r = run_skrafl_here("build", "nb", "--source", "wordlist", "--input", str(source), "--out", str(tmp_path / "lex"))
    assert r.returncode == 0, r.stderr
    manifest_phases = json.loads((tmp_path / "lex" / "build_stats.json").read_text())["phase_seconds"]
    timed = [k for k in next(iter(manifest_phases.values())) if not k.endswith("_peak_mib")]
    assert timed == list(PHASES)  # the bar's steps are the phases the build times
    final = r.stderr.replace("\r", "\n").splitlines()
    assert any(f"{len(PHASES)}/{len(PHASES)}" in line and "build" in line for line in final), r.stderr
    assert not any(" 0/1 " in line for line in final), r.stderr
