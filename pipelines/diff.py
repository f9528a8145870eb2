"""Compare two lexicon builds: which words were added and removed, and the rule or source change
behind each (what a word committee reviews after a dictionary update).

Inputs are two folders written by ``skrafl build`` (``words.txt``, ``rejected.parquet``,
``manifest.json``). For every word in one lexicon and not the other:

- ``change``: ``added`` (in NEW only) or ``removed`` (in OLD only);
- ``old_rule`` / ``new_rule``: the rule(s) that dropped the word's entries in that build
  (``rejected.parquet``; several are joined with ``,``), null where it was kept or had no entry;
- ``cause``:
  - ``rule`` — the word was dropped in one build and kept in the other and only the recipe
    changed (recipe SHA-256 differs, source the same);
  - ``source`` — only the source changed (its version or entries differ, recipe the same), or the
    word has no entry at all in the build that lacks it (``summary.txt``: ``new in the source`` for
    an added word, ``no longer in the source`` for a removed one);
  - ``rule or source`` — both changed and the word is dropped on one side;
  - ``committee`` — kept or dropped by the committee lists (``committee_removal``,
    ``short_word_not_in_committee_list``) or added by them: listed in NEW's short-word list or
    additions (read from the recipe NEW names while it is the one built with), or, when those
    cannot be read, in NEW only with no entry in NEW's rejected list and no entry in OLD's;
- ``detail``: one line for people.

Outputs (atomically, in ``OUT``): ``diff.parquet`` and ``diff.csv`` (one row per changed word, sorted
by change then word; the same columns), ``summary.txt`` (counts per change and cause/rule, source
and recipe changes, examples) and ``summary.md``, the report to circulate: the two builds, counts
per change and cause, and every change with its cause in a table with column headings (the first
:data:`MD_ROWS`; the rest are in ``diff.csv``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from gamecore.errors import DataError, UsageError

MD_ROWS = 5000
"""Changes listed one by one in ``summary.md`` (all of them are in ``diff.csv``)."""


@dataclass
class DiffResult:
    """What :func:`diff` found: counts and the summary text."""

    added: int
    removed: int
    summary: str
    table: Any
    report: str = ""


def _load(folder: Path) -> tuple[Any, Any, dict]:
    """A build's words, its rejected entries (a lazy frame) and its manifest."""
    import polars as pl

    from gamecore.folders import open_output

    if not (Path(folder) / "words.txt").is_file():
        raise DataError("not a lexicon folder (no words.txt): run 'skrafl build' first", folder)
    folder = open_output(folder, "lexicon")
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError("no manifest.json in the lexicon folder", folder) from None
    except json.JSONDecodeError as exc:
        raise DataError(f"damaged manifest: {exc}", folder / "manifest.json") from None
    try:
        words = pl.read_csv(
            folder / "words.txt",
            has_header=False,
            new_columns=["word"],
            separator="\t",
            quote_char=None,
            schema={"word": pl.String},
        ).drop_nulls()
    except pl.exceptions.PolarsError as exc:
        raise DataError(f"cannot read the word list: {str(exc).splitlines()[0]}", folder / "words.txt") from None
    rej_path = folder / "rejected.parquet"
    if rej_path.is_file():
        rejected = pl.scan_parquet(rej_path).select("word", "rule")  # read later for the changed words only
    else:
        rejected = pl.LazyFrame({"word": [], "rule": []}, schema={"word": pl.String, "rule": pl.String})
    return words, rejected, manifest


def _rules_of(rejected: Any, words: Any) -> Any:
    """``word, rule`` for the ``words`` (a frame) among a build's rejected entries, the rules of a
    word's entries joined by ``,`` in order: a full dictionary's millions of rejected rows are
    filtered to the changed words before they are grouped (memory: the changes, not the dump)."""
    import polars as pl

    return (
        rejected.join(words.lazy(), on="word", how="semi")
        .group_by("word")
        .agg(pl.col("rule").unique().sort().str.join(","))
        .collect()
    )


def check_one_language(old: dict, new: dict, old_label: str, new_label: str) -> None:
    """Refuse two lexicons whose manifests name different languages: their words are not versions
    of one another, so every word would be "added" or "removed" for no rule or source change (and
    a play judged by another language's words means nothing). Two builds of one language with
    different alphabets are allowed: a letter added to or dropped from a recipe is a change a diff
    or an impact report is there to show.

    Raises:
        UsageError: ``OLD is a lexicon of 'is' and NEW of 'en' …`` (one line)."""
    a, b = old.get("language"), new.get("language")
    if a and b and a != b:
        raise UsageError(
            f"{old_label} is a lexicon of language {a!r} and {new_label} of {b!r}: "
            "compare two builds of one language (their words are not versions of one another)"
        )


def committee_listed(manifest: dict) -> set[str] | None:
    """The words a build's committee lists add (its short-word list and additions, as lexicon
    keys), read from the recipe the manifest names when that recipe is still the one built with
    (same SHA-256 over its files); None when it cannot be told (moved, changed or unreadable)."""
    from gamecore.errors import SkraflError
    from pipelines.build import committee_words
    from pipelines.recipe import load_recipe

    rec = manifest.get("recipe") or {}
    if not rec.get("path"):
        return None
    try:
        recipe = load_recipe(Path(rec["path"]))
        if recipe.sha256() != rec.get("sha256"):
            return None
        return set(committee_words(recipe, recipe.short_list)) | set(committee_words(recipe, recipe.additions))
    except (SkraflError, OSError):
        return None


def _source_key(manifest: dict) -> tuple:
    src = manifest.get("source") or {}
    return (src.get("reader"), src.get("version"), src.get("entries_sha256"))


def diff(old_dir: Path, new_dir: Path) -> DiffResult:
    """Compare two built lexicons (see the module docstring).

    Raises:
        DataError: a folder without ``words.txt`` or ``manifest.json``.
        UsageError: the two lexicons are of different languages (:func:`check_one_language`).
    """
    import polars as pl

    old_words, old_rej, old_m = _load(old_dir)
    new_words, new_rej, new_m = _load(new_dir)
    check_one_language(old_m, new_m, str(old_dir), str(new_dir))
    recipe_changed = (old_m.get("recipe") or {}).get("sha256") != (new_m.get("recipe") or {}).get("sha256")
    source_changed = _source_key(old_m) != _source_key(new_m)
    changed = pl.concat(
        [
            new_words.join(old_words, on="word", how="anti").sort("word").with_columns(change=pl.lit("added")),
            old_words.join(new_words, on="word", how="anti").sort("word").with_columns(change=pl.lit("removed")),
        ]
    )
    del old_words, new_words
    table = changed.join(_rules_of(old_rej, changed).rename({"rule": "old_rule"}), on="word", how="left").join(
        _rules_of(new_rej, changed).rename({"rule": "new_rule"}), on="word", how="left"
    )
    dropped_rule = pl.when(pl.col("change") == "added").then(pl.col("old_rule")).otherwise(pl.col("new_rule"))
    by_both = "rule or source" if recipe_changed and source_changed else ("rule" if recipe_changed else "source")
    # a word NEW's committee lists add is the committee's, whatever dropped its entries before (its
    # entries are still dropped: a word of the lexicon has no rows in rejected.parquet)
    listed = sorted(committee_listed(new_m) or ())
    by_list = (pl.col("change") == "added") & pl.col("word").is_in(listed)
    table = (
        table.with_columns(
            cause=pl.when(dropped_rule.str.contains("committee_removal|short_word_not_in_committee_list") | by_list)
            .then(pl.lit("committee"))
            .when(dropped_rule.is_not_null())
            .then(pl.lit(by_both))
            .when(
                (pl.col("change") == "added")
                & pl.col("new_rule").is_null()
                & pl.col("old_rule").is_null()
                & pl.lit(not source_changed)
            )
            .then(pl.lit("committee"))
            .otherwise(pl.lit("source")),
        )
        .with_columns(
            detail=pl.when(pl.col("change") == "added")
            .then(
                pl.when(by_list & pl.col("old_rule").is_not_null())
                .then(pl.lit("was dropped by ") + pl.col("old_rule") + pl.lit(", now added by the committee lists"))
                .when(pl.col("old_rule").is_not_null())
                .then(pl.lit("was dropped by ") + pl.col("old_rule") + pl.lit(", now kept"))
                .when(pl.col("cause") == "committee")
                .then(pl.lit("added by the committee lists"))
                .otherwise(pl.lit("new in the source"))
            )
            .otherwise(
                pl.when(pl.col("new_rule").is_not_null())
                .then(pl.lit("now dropped by ") + pl.col("new_rule"))
                .otherwise(pl.lit("no longer in the source"))
            )
        )
        .select("word", "change", "cause", "old_rule", "new_rule", "detail")
        .sort("change", "word")
    )
    summary = _summary(old_dir, new_dir, old_m, new_m, table, recipe_changed, source_changed)
    added = int((table["change"] == "added").sum())
    report = _report(old_dir, new_dir, old_m, new_m, table, recipe_changed, source_changed)
    return DiffResult(added, table.height - added, summary, table, report)


def recipe_change(old_m: dict, new_m: dict) -> str:
    """What changed in the recipe between two builds, as said in the reports: ``unchanged``, ``changed:
    committee lists only (FILES)``, ``changed: rules (FILES)`` (the TOML files, with any lists that
    changed too), or ``changed`` (a build whose manifest has no per-file hashes)."""
    old_r, new_r = old_m.get("recipe") or {}, new_m.get("recipe") or {}
    if old_r.get("sha256") == new_r.get("sha256"):
        return "unchanged"
    old_f, new_f = old_r.get("files_sha256"), new_r.get("files_sha256")
    if not isinstance(old_f, dict) or not isinstance(new_f, dict):
        return "changed"
    files = sorted(f for f in set(old_f) | set(new_f) if old_f.get(f) != new_f.get(f))
    lists = set(old_r.get("committee_files") or ()) | set(new_r.get("committee_files") or ())
    named = ", ".join(files)
    if files and all(f in lists for f in files):
        return f"changed: committee lists only ({named})"
    return f"changed: rules ({named})" if files else "changed"


def _md(value: Any) -> str:
    return "" if value is None else str(value).replace("|", "\\|").replace("\n", " ")


def _report(
    old_dir: Path, new_dir: Path, old_m: dict, new_m: dict, table: Any, recipe_changed: bool, source_changed: bool
) -> str:
    """``summary.md``: the builds, counts per change and cause, every change with its cause."""
    import polars as pl

    def build_line(label: str, folder: Path, m: dict) -> str:
        s = m.get("source") or {}
        words = m.get("words")
        return (
            (
                f"| {label} | `{folder}` | {m.get('name', '')} | {words:,} | {_md(s.get('reader'))} {_md(s.get('version'))} | "
                f"`{((m.get('recipe') or {}).get('sha256') or '')[:12]}` |"
            )
            if isinstance(words, int)
            else f"| {label} | `{folder}` | {m.get('name', '')} | | {_md(s.get('reader'))} {_md(s.get('version'))} | |"
        )

    lines = [
        f"# Lexicon changes: {old_m.get('name', '')} {old_dir} → {new_dir}",
        "",
        "| build | folder | lexicon | words | source | recipe |",
        "|---|---|---|---:|---|---|",
        build_line("old", old_dir, old_m),
        build_line("new", new_dir, new_m),
        "",
        f"Source {'changed' if source_changed else 'unchanged'}; recipe {recipe_change(old_m, new_m)}.",
        "",
        "## Counts per cause",
        "",
        "| change | cause | rule | words |",
        "|---|---|---|---:|",
    ]
    rule = pl.when(pl.col("change") == "added").then(pl.col("old_rule")).otherwise(pl.col("new_rule"))
    counts = (
        table.with_columns(rule=rule)
        .group_by("change", "cause", "rule")
        .len()
        .sort(["change", "len", "cause", "rule"], descending=[False, True, False, False], nulls_last=True)
    )
    for r in counts.iter_rows(named=True):
        lines.append(f"| {r['change']} | {r['cause']} | {_md(r['rule'])} | {r['len']:,} |")
    lines.append(f"| **total** | | | **{table.height:,}** |")
    lines += ["", "## Every change", ""]
    if table.height > MD_ROWS:
        lines += [f"The first {MD_ROWS:,} of {table.height:,} changes; all of them are in `diff.csv`.", ""]
    lines += ["| word | change | cause | old rule | new rule | detail |", "|---|---|---|---|---|---|"]
    for r in table.head(MD_ROWS).iter_rows(named=True):
        lines.append(
            f"| {_md(r['word'])} | {r['change']} | {r['cause']} | {_md(r['old_rule'])} | {_md(r['new_rule'])} | {_md(r['detail'])} |"
        )
    return "\n".join(lines) + "\n"


def _summary(
    old_dir: Path, new_dir: Path, old_m: dict, new_m: dict, table: Any, recipe_changed: bool, source_changed: bool
) -> str:
    import polars as pl

    def src(m: dict) -> str:
        s = m.get("source") or {}
        return f"{s.get('reader')} {s.get('version')}"

    lines = [
        f"lexicon diff: {old_dir} ({old_m.get('words', '?'):,} words) → {new_dir} ({new_m.get('words', '?'):,} words)"
        if isinstance(old_m.get("words"), int) and isinstance(new_m.get("words"), int)
        else f"lexicon diff: {old_dir} → {new_dir}",
        f"source: {src(old_m)}" + (f" → {src(new_m)}" if source_changed else " (unchanged)"),
        "recipe: " + recipe_change(old_m, new_m),
    ]
    for change in ("added", "removed"):
        part = table.filter(pl.col("change") == change)
        lines.append(f"{change}: {part.height:,}")
        if part.height:
            rule_col = "old_rule" if change == "added" else "new_rule"
            groups = (
                part.group_by("cause", rule_col)
                .agg(n=pl.len(), examples=pl.col("word").head(5))
                .sort(["n", "cause"], descending=[True, False])
            )
            for row in groups.iter_rows(named=True):
                # no rule: the source alone made the change (an entry new in it, or gone from it)
                unruled = "new in the source" if change == "added" else "no longer in the source"
                rule = row[rule_col] or ("-" if row["cause"] != "source" else unruled)
                lines.append(f"  {row['n']:>9,}  {row['cause']:<15} {rule:<32} e.g. {', '.join(row['examples'])}")
    return "\n".join(lines) + "\n"


def write(result: DiffResult, out_dir: Path, inputs: tuple = (), before_swap: Callable[[], None] | None = None) -> None:
    """Write ``diff.parquet``, ``diff.csv``, ``summary.txt`` and ``summary.md``: the output folder
    ``out_dir``, owned by ``skrafl diff`` and replaced whole and atomically (:mod:`pipelines.atomic`).

    ``before_swap``: called once the files are written and before the new output is swapped in
    (the command's printing: an error in it discards the new output, the previous one is kept)."""
    from pipelines.atomic import output_dir

    with output_dir(Path(out_dir), "diff", inputs) as stage:
        result.table.write_parquet(stage / "diff.parquet", compression="zstd", statistics=False)
        result.table.write_csv(stage / "diff.csv")
        (stage / "summary.txt").write_text(result.summary, encoding="utf-8")
        (stage / "summary.md").write_text(result.report, encoding="utf-8")
        if before_swap is not None:
            before_swap()
