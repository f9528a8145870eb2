"""`skrafl compare LEXICON REFERENCE`: a build against an official list. A small
Norwegian build from a word list, a hand-made reference and must-reject list; the numbers follow
from the lists by hand (recall = reference words in the lexicon / reference words, …)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from clirun import run_skrafl_here

SOURCE = ["hest", "hesten", "hester", "øl", "ølet", "arbeidsmiljøloven"]  # the last: 17 letters, too long
REFERENCE = ["# a reference list", "hest", "HESTEN", "søl", "kake", "arbeidsmiljøloven", "hest"]
REJECT = ["ølet", "brød"]


@pytest.fixture(scope="module")
def setup(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("compare")
    (tmp / "source.txt").write_text("\n".join(SOURCE) + "\n", encoding="utf-8")
    (tmp / "reference.txt").write_text("\n".join(REFERENCE) + "\n", encoding="utf-8")
    (tmp / "reject.txt").write_text("\n".join(REJECT) + "\n", encoding="utf-8")
    r = run_skrafl_here(
        "build", "nb", "--source", "wordlist", "--input", str(tmp / "source.txt"), "--out", str(tmp / "lex"), "--quiet"
    )
    assert r.returncode == 0, r.stderr
    return {"tmp": tmp, "lex": tmp / "lex", "ref": tmp / "reference.txt", "reject": tmp / "reject.txt"}


def run(setup, *args: str) -> dict:
    out = setup["tmp"] / "cmp"
    r = run_skrafl_here("compare", str(setup["lex"]), *args, "--out", str(out), "--format", "json", "--quiet")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_numbers(setup):
    n = run(setup, str(setup["ref"]), "--reject", str(setup["reject"]))
    assert (n["lexicon_words"], n["reference_words"], n["both"]) == (5, 5, 2)
    assert n["recall"] == pytest.approx(2 / 5) and n["precision"] == pytest.approx(2 / 5)
    assert (n["only_ours"], n["only_reference"]) == (3, 3)
    assert (n["reject_words"], n["reject_in_lexicon"]) == (2, 1) and n["reject_accepted"] == pytest.approx(0.5)


def test_every_difference_classified(setup):
    run(setup, str(setup["ref"]), "--reject", str(setup["reject"]))
    out = setup["tmp"] / "cmp"
    table = pl.read_parquet(out / "compare.parquet")
    got = {(r["word"], r["difference"]): (r["cause"], r["rule"]) for r in table.iter_rows(named=True)}
    assert got == {
        ("hester", "only_ours"): ("kept by the source", None),
        ("øl", "only_ours"): ("kept by the source", None),
        ("ølet", "only_ours"): ("kept by the source", None),
        ("søl", "only_reference"): ("not in the source", None),
        ("kake", "only_reference"): ("not in the source", None),
        ("arbeidsmiljøloven", "only_reference"): ("dropped by rule", "too_long"),
        ("ølet", "reject_accepted"): ("kept by the source", None),
    }
    # the CSV holds the same rows and columns; the summary is short and names the numbers
    csv = pl.read_csv(out / "compare.csv")
    assert csv.columns == ["word", "difference", "cause", "rule", "detail"] and csv.height == table.height
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "recall: 40.00%" in summary and "must-reject list: 50.00% accepted (1 of 2)" in summary
    assert "| only_reference | dropped by rule | too_long | 1 | arbeidsmiljøloven |" in summary
    assert json.loads((out / "numbers.json").read_text())["both"] == 2


def test_another_build_as_the_reference(setup):
    n = run(setup, str(setup["lex"]))
    assert n["recall"] == 1.0 and n["precision"] == 1.0 and n["only_ours"] == 0
    # the table says there is no difference (it printed a header over no rows)
    r = run_skrafl_here("compare", str(setup["lex"]), str(setup["lex"]), "--out", str(setup["tmp"] / "same"), "-q")
    assert r.returncode == 0 and r.stdout.splitlines()[-1].startswith("no differences"), r.stdout
    assert "difference  cause" not in r.stdout


def test_a_build_of_another_language_as_the_reference_is_refused(setup):
    """An English build against a Norwegian one was compared without a word (thousands of words
    folded together, the numbers meaningless): refused as diff refuses it, nothing written."""
    tmp = setup["tmp"]
    r = run_skrafl_here("build", "en", "--source", "wordlist", "--input", str(tmp / "source.txt"), "--out", str(tmp / "en"), "-q")
    assert r.returncode == 0, r.stderr
    for lexicon, reference in ((setup["lex"], tmp / "en"), (tmp / "en", setup["lex"])):
        r = run_skrafl_here("compare", str(lexicon), str(reference), "--out", str(tmp / "cmp_lang"), "--quiet")
        assert r.returncode == 2 and r.stdout == "", r.stderr
        assert r.stderr.count("\n") == 1 and "'nb'" in r.stderr and "'en'" in r.stderr and str(lexicon) in r.stderr, r.stderr
        assert not (tmp / "cmp_lang").exists()


def test_table_output_and_errors(setup):
    r = run_skrafl_here("compare", str(setup["lex"]), str(setup["ref"]), "--out", str(setup["tmp"] / "cmp2"), "--quiet")
    assert r.returncode == 0 and r.stdout.splitlines()[1].split()[:2] == ["recall", "0.4000"]
    r = run_skrafl_here("compare", str(setup["lex"]), str(setup["tmp"] / "nonesuch.txt"), "--out", str(setup["tmp"] / "cmp3"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "no such reference" in r.stderr
    # the output folder is owned by compare: a build's folder is refused
    r = run_skrafl_here("compare", str(setup["lex"]), str(setup["ref"]), "--out", str(setup["lex"]))
    assert r.returncode == 2 and "skrafl: error:" in r.stderr


def test_committee_causes(tmp_path):
    # an Icelandic build from a small KRsnid: ýf comes only from the committee's two-letter list,
    # stur (in the source) is removed by the committee
    fix = Path(__file__).resolve().parent / "fixtures" / "bin" / "KRsnid_small.csv"
    r = run_skrafl_here("build", "is", "--source", str(fix), "--recipe", "is", "--out", str(tmp_path / "lex"), "--quiet")
    assert r.returncode == 0, r.stderr
    ref = tmp_path / "ref.txt"
    ref.write_text("hestur\nstur\n", encoding="utf-8")
    r = run_skrafl_here("compare", str(tmp_path / "lex"), str(ref), "--out", str(tmp_path / "cmp"), "--quiet")
    assert r.returncode == 0, r.stderr
    table = pl.read_parquet(tmp_path / "cmp" / "compare.parquet")
    got = {(r["word"], r["difference"]): r["cause"] for r in table.iter_rows(named=True)}
    assert got[("stur", "only_reference")] == "committee removal"
    assert got[("ýf", "only_ours")] == "committee addition"
    assert got[("hests", "only_ours")] == "kept by the source"
    detail = table.filter(pl.col("word") == "hests")["detail"][0]
    assert "word_class=kk" in detail and "visibility=K" in detail and "tag=EFET" in detail


def test_tsv_is_one_table(setup):
    r = run_skrafl_here(
        "compare",
        str(setup["lex"]),
        str(setup["ref"]),
        "--reject",
        str(setup["reject"]),
        "--out",
        str(setup["tmp"] / "cmp4"),
        "--format",
        "tsv",
        "--quiet",
    )
    assert r.returncode == 0
    assert r.stdout.splitlines() == [
        "measure\tvalue\tof",
        "recall\t0.4000\t2 of 5 reference words",
        "precision\t0.4000\t2 of 5 lexicon words",
        "reject_accepted\t0.5000\t1 of 2 must-reject words",
    ]


def _run_to(stdout, *args: str):
    """``skrafl ARGS`` with its standard output on ``stdout`` (a file object or descriptor)."""
    import subprocess
    import sys

    from clirun import PROJECT_ROOT

    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args], cwd=PROJECT_ROOT, stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=300
    )


def _closed_pipe() -> int:
    """The write end of a pipe whose reader has already gone: every write to it fails with EPIPE."""
    import os

    read, write = os.pipe()
    os.close(read)
    return write


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_full_standard_output_changes_nothing_a_closed_pipe_is_no_failure(setup):
    """A failed run changes nothing: the numbers go to standard output before the new output is
    swapped in, so a full one (/dev/full) keeps the previous output (exit 2, one line); a reader
    that closed the pipe has what it wanted: exit 0 and the new output in place."""
    import os

    out = setup["tmp"] / "cmp-stdout"
    one = setup["tmp"] / "one.txt"
    one.write_text("hest\n", encoding="utf-8")
    r = run_skrafl_here("compare", str(setup["lex"]), str(one), "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert json.loads(before["numbers.json"])["reference_words"] == 1
    for fmt in ("table", "json", "tsv"):
        with open("/dev/full", "w") as full:
            r = _run_to(full, "compare", str(setup["lex"]), str(setup["ref"]), "--out", str(out), "--format", fmt, "-q")
        assert (r.returncode, r.stderr) == (2, "skrafl: error: standard output: No space left on device\n"), fmt
        assert {p.name: p.read_bytes() for p in out.iterdir()} == before, fmt
    # no stage left beside the output: only the generation it names
    assert [p.name for p in setup["tmp"].iterdir() if p.name.startswith(".cmp-stdout")] == [os.readlink(out)]
    pipe = _closed_pipe()
    try:
        r = _run_to(pipe, "compare", str(setup["lex"]), str(setup["ref"]), "--out", str(out))
    finally:
        os.close(pipe)
    assert (r.returncode, r.stderr) == (0, "")
    assert json.loads((out / "numbers.json").read_text())["reference_words"] == 5  # the reference's five distinct words


def test_a_compare_report_given_as_a_lexicon_is_named_so(setup):
    # output/compare/nb was answered "run 'skrafl build nb' first" (its folder name is a language)
    out = setup["tmp"] / "reports" / "nb"
    assert run_skrafl_here("compare", str(setup["lex"]), str(setup["ref"]), "--out", str(out), "-q").returncode == 0
    r = run_skrafl_here("find", "--lexicon", str(out), "hest")
    assert r.returncode == 2 and "it is the output of 'skrafl compare'" in r.stderr and "build nb" not in r.stderr, r.stderr


def test_precision_against_a_sample_is_not_given_but_estimated(setup):
    """Against a sample of the official list, the share of the lexicon in the sample is no precision
    (a 3,000-word sample of NSF 'held' 0.47 % of the Norwegian build): none is given unless the full
    list's size is, and then the estimate is recall x full size / lexicon words."""
    # the same reference declared a sample of a 10-word list: recall 2/5 -> 4 of the 10 in the lexicon, of its 5
    n = run(setup, str(setup["ref"]), "--reference-size", "10")
    assert n["reference_is_sample"] is True and n["precision"] is None
    assert n["precision_estimate"] == pytest.approx((2 / 5) * 10 / 5)
    # the 95 % Wilson interval of 2 of 5, scaled the same way (textbook values 0.1176-0.7693)
    assert n["precision_low"] == pytest.approx(0.1176 * 2, abs=2e-4) and n["precision_high"] == pytest.approx(1.0)
    summary = (setup["tmp"] / "cmp" / "summary.md").read_text(encoding="utf-8")
    assert "precision: about 80.00%" in summary
    # a reference of under a tenth of the lexicon's words is a sample: no precision, and the table says why
    big = setup["tmp"] / "big_source.txt"
    big.write_text("\n".join(f"hest{'e' * (i % 3)}{chr(97 + i % 26)}{chr(97 + i // 26)}" for i in range(200)) + "\n")
    lex = setup["tmp"] / "big_lex"
    r = run_skrafl_here("build", "nb", "--source", "wordlist", "--input", str(big), "--out", str(lex), "--quiet")
    assert r.returncode == 0, r.stderr
    r = run_skrafl_here("compare", str(lex), str(setup["ref"]), "--out", str(setup["tmp"] / "cmp_big"), "-f", "tsv", "-q")
    assert r.returncode == 0, r.stderr
    row = next(line for line in r.stdout.splitlines() if line.startswith("precision"))
    assert row.split("\t")[1] == "n/a" and "give --reference-size" in row
    # a full-list size below the sample's own is refused
    r = run_skrafl_here(
        "compare", str(setup["lex"]), str(setup["ref"]), "--reference-size", "3", "--out", str(setup["tmp"] / "c4")
    )
    assert r.returncode == 2 and "smaller than the reference itself" in r.stderr and len(r.stderr.strip().splitlines()) == 1
