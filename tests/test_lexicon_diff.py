"""`skrafl diff OLD NEW`: words added and removed between two builds with the cause of each, on
Norsk Ordbank fixtures (a source update, then a recipe change)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from clirun import run_skrafl_here
from lang_helpers import LANG_FIX, build

FIX = LANG_FIX / "nb"
RECIPE = Path(__file__).resolve().parents[1] / "lexicon_sources" / "nb" / "recipe.toml"


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("diff")
    old = build(tmp / "old", "nb", "--source", str(FIX / "fullformsliste_small.txt"))
    # A source update: sterk gone, hest new, cd reclassed as an abbreviation (fork).
    lines = (FIX / "fullformsliste_small.txt").read_text(encoding="utf-8").splitlines()
    lines = [ln for ln in lines if "\tsterk\t" not in ln]
    lines = [ln.replace("\tcd\tsubst appell mask ub eint", "\tcd\tfork") for ln in lines]
    lines.append("17\t111\thest\tsubst appell mask ub eint\t509\t1\t01/01/2005\t\t1")
    updated = tmp / "fullformsliste_2.txt"
    updated.write_text("\n".join(lines) + "\n", encoding="utf-8")
    new = build(tmp / "new", "nb", "--source", str(updated))
    # A recipe change: a recipe without the genitive rule, on the old source.
    text = RECIPE.read_text(encoding="utf-8")
    start = text.index('[[drop]]\nrule = "genitive"')
    end = text.index("[[drop]]", start + 5)
    variant = tmp / "variant" / "recipe.toml"
    variant.parent.mkdir()
    variant.write_text(text[:start] + text[end:], encoding="utf-8")
    r = run_skrafl_here("build", "nb", "--recipe", str(variant), "--entries", str(old), "--out", str(tmp / "lenient"), "--quiet")
    assert r.returncode == 0, r.stderr
    return {"old": old, "new": new, "lenient": tmp / "lenient", "tmp": tmp}


def diff(old: Path, new: Path, out: Path) -> tuple[str, pl.DataFrame]:
    r = run_skrafl_here("diff", str(old), str(new), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert (out / "summary.txt").read_text(encoding="utf-8") == r.stdout
    return r.stdout, pl.read_parquet(out / "diff.parquet")


def rows(table: pl.DataFrame) -> dict[str, tuple]:
    return {r["word"]: (r["change"], r["cause"], r["old_rule"], r["new_rule"]) for r in table.iter_rows(named=True)}


def test_source_update(builds):
    summary, table = diff(builds["old"], builds["new"], builds["tmp"] / "d1")
    assert rows(table) == {
        "hest": ("added", "source", None, None),
        "sterk": ("removed", "source", None, None),
        "cd": ("removed", "source", None, "abbreviation"),
    }
    assert "recipe: unchanged" in summary and "added: 1" in summary and "removed: 2" in summary


def test_recipe_change(builds):
    summary, table = diff(builds["lenient"], builds["old"], builds["tmp"] / "d2")
    assert rows(table) == {
        "guttens": ("removed", "rule", None, "genitive"),
        "bondens": ("removed", "rule", None, "genitive"),
    }
    assert "recipe: changed: rules (recipe.toml)" in summary and "(unchanged)" in summary
    report = (builds["tmp"] / "d2" / "summary.md").read_text(encoding="utf-8")
    assert "recipe changed: rules (recipe.toml)." in report


def test_committee_lists_alone_are_not_a_recipe_change(builds):
    """Two builds whose recipes differ only in the committee's additions list: the report says the
    committee lists changed (naming the list), not that the recipe (its rules) did."""
    text = RECIPE.read_text(encoding="utf-8")
    outs = []
    for name, words in (("c1", ["hestar"]), ("c2", ["hestar", "kattar"])):
        folder = builds["tmp"] / name / "recipe"
        folder.mkdir(parents=True)
        (folder / "recipe.toml").write_text(text + '\n[committee]\nadditions = "additions.txt"\n', encoding="utf-8")
        (folder / "additions.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
        out = builds["tmp"] / name / "lex"
        r = run_skrafl_here(
            "build", "nb", "--recipe", str(folder / "recipe.toml"), "--entries", str(builds["old"]), "--out", str(out), "-q"
        )
        assert r.returncode == 0, r.stderr
        outs.append(out)
    summary, table = diff(outs[0], outs[1], builds["tmp"] / "d_committee")
    assert "recipe: changed: committee lists only (additions.txt)" in summary, summary
    assert rows(table) == {"kattar": ("added", "committee", None, None)}


def test_same_build_no_changes(builds):
    summary, table = diff(builds["old"], builds["old"], builds["tmp"] / "d3")
    assert table.height == 0 and "added: 0" in summary and "removed: 0" in summary


def test_not_a_lexicon_folder(builds, tmp_path):
    (tmp_path / "plain").mkdir()
    r = run_skrafl_here("diff", str(tmp_path / "plain"), str(builds["old"]), "--out", str(tmp_path / "d"))
    assert r.returncode == 2 and "not a lexicon folder" in r.stderr and "Traceback" not in r.stderr


def test_out_that_is_a_file_is_one_error(builds, tmp_path):
    taken = tmp_path / "taken.parquet"
    taken.write_bytes(b"keep")
    r = run_skrafl_here("diff", str(builds["old"]), str(builds["new"]), "--out", str(taken))
    assert r.returncode == 2 and r.stderr.count("skrafl: error:") == 1 and "Traceback" not in r.stderr, r.stderr
    assert taken.read_bytes() == b"keep"


def test_out_of_someone_elses_files_is_refused(builds, tmp_path):
    out = tmp_path / "review"
    out.mkdir()
    (out / "notes.md").write_text("mine")
    r = run_skrafl_here("diff", str(builds["old"]), str(builds["new"]), "--out", str(out))
    assert r.returncode == 2 and "skrafl did not write" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["notes.md"] and (out / "notes.md").read_text() == "mine"


def test_csv_and_circulable_report(builds):
    # diff.csv beside diff.parquet, and summary.md: counts per cause, every change with its
    # cause, column headings
    out = builds["tmp"] / "d4"
    _, table = diff(builds["old"], builds["new"], out)
    csv = pl.read_csv(out / "diff.csv")
    assert csv.columns == table.columns == ["word", "change", "cause", "old_rule", "new_rule", "detail"]
    assert sorted(csv["word"].to_list()) == sorted(table["word"].to_list())
    report = (out / "summary.md").read_text(encoding="utf-8")
    lines = report.splitlines()
    assert lines[0].startswith("# Lexicon changes:")
    assert "| change | cause | rule | words |" in lines
    assert "| added | source |  | 1 |" in lines and "| removed | source | abbreviation | 1 |" in lines
    assert "| **total** | | | **3** |" in lines
    assert "| word | change | cause | old rule | new rule | detail |" in lines
    assert "| cd | removed | source |  | abbreviation | now dropped by abbreviation |" in lines
    assert "| hest | added | source |  |  | new in the source |" in lines


def test_summary_txt_says_what_the_source_did(builds):
    """summary.txt labels a change no rule explains as the source's doing: the word added by the
    source update (hest, an entry only in the new dump) is new in the source, the word removed
    (sterk, its entries gone from the dump) is no longer there; neither is 'not in source'."""
    summary, _ = diff(builds["old"], builds["new"], builds["tmp"] / "d5")
    lines = [" ".join(line.split()) for line in summary.splitlines()]
    assert "1 source new in the source e.g. hest" in lines
    assert "1 source no longer in the source e.g. sterk" in lines
    assert "not in source" not in summary


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_full_standard_output_changes_nothing_a_closed_pipe_is_no_failure(builds):
    """The summary goes to standard output before the new output is swapped in: on a full one
    (/dev/full) the run fails (exit 2, one line) and the previous output stays; a reader that
    closed the pipe ends the run with 0 and the new output in place."""
    import os
    import subprocess
    import sys

    from clirun import PROJECT_ROOT

    def to(stdout, *args):
        return subprocess.run(
            [sys.executable, "-m", "cli.main", "diff", *map(str, args)],
            cwd=PROJECT_ROOT,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )

    out = builds["tmp"] / "d-stdout"
    diff(builds["old"], builds["old"], out)  # no changes
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with open("/dev/full", "w") as full:
        r = to(full, builds["old"], builds["new"], "--out", out)
    assert (r.returncode, r.stderr) == (2, "skrafl: error: standard output: No space left on device\n")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in builds["tmp"].iterdir() if p.name.startswith(".d-stdout")] == [os.readlink(out)]
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line
    try:
        r = to(write, builds["old"], builds["new"], "--out", out)
    finally:
        os.close(write)
    assert (r.returncode, r.stderr) == (0, "")
    assert pl.read_parquet(out / "diff.parquet")["word"].sort().to_list() == ["cd", "hest", "sterk"]


def test_a_word_the_committee_adds_is_the_committees(builds):
    """A word of NEW's additions list is added by the committee even where a rule still drops its
    entries (it was credited to the rule: 'was dropped by genitive, now kept', cause rule)."""
    tmp = builds["tmp"]
    text = RECIPE.read_text(encoding="utf-8") + '\n[committee]\nadditions = "add.txt"\n'

    committee = tmp / "committee"
    committee.mkdir()
    (committee / "recipe.toml").write_text(text, encoding="utf-8")
    (committee / "add.txt").write_text("Guttens\nzzapp\n", encoding="utf-8")  # a dropped word, one of no entry
    out = tmp / "committee_build"
    r = run_skrafl_here(
        "build", "nb", "--recipe", str(committee / "recipe.toml"), "--entries", str(builds["old"]), "--out", str(out), "-q"
    )
    assert r.returncode == 0, r.stderr
    _, table = diff(builds["old"], out, tmp / "d_committee")
    got = {r["word"]: (r["cause"], r["detail"]) for r in table.iter_rows(named=True)}
    assert got == {
        "guttens": ("committee", "was dropped by genitive, now added by the committee lists"),
        "zzapp": ("committee", "added by the committee lists"),
    }


def test_quiet_silences_stderr_only(builds):
    """--quiet: 'no progress bars or summaries on stderr'; the summary on stdout is the result (as
    compare prints its table with -q); diff -q printed nothing at all."""
    out = builds["tmp"] / "d_quiet"
    r = run_skrafl_here("diff", str(builds["old"]), str(builds["new"]), "--out", str(out), "-q")
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout == (out / "summary.txt").read_text(encoding="utf-8") and "added: 1" in r.stdout
