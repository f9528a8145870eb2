"""``skrafl why``: is a word in the lexicon, and why — which rule, which source entries."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from cli.check import lexicon_dir, read_words
from cli.common import FORMAT_OPTION, QUIET_OPTION, OutputFormat, emit, terminal_width


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
    import polars as pl

    from gamecore.errors import DataError
    from gamecore.lexicon import Lexicon
    from lexicon_sources import language
    from pipelines.build import classify
    from pipelines.ingest import ENTRIES
    from pipelines.recipe import BUILTIN_RULES, load_recipe, read_word_list, recipes_for

    folder = lexicon_dir(lang, lexicon)
    lex = Lexicon.load(folder)
    built_from = Path(lex.manifest.get("recipe", {}).get("path", ""))
    if built_from.is_file():
        recipe = load_recipe(built_from)  # the recipe the lexicon was built with, wherever it is
    else:
        recipe = next((r for r in recipes_for(language(lex.language).folder) if r.name == lex.name), None)
    if recipe is None:
        raise DataError(f"no recipe named {lex.name!r} for language {lex.language!r}", folder)
    if recipe.sha256() != lex.manifest.get("recipe", {}).get("sha256") and not quiet:
        typer.echo(
            "skrafl: warning: the recipe changed since this lexicon was built; explanations follow the current recipe", err=True
        )
    recorded = lex.manifest.get("source", {}).get("entries")
    candidates = [entries] if entries else [c for c in (recorded, folder, folder.parent) if c]
    entries_path = next((Path(c) / ENTRIES for c in candidates if (Path(c) / ENTRIES).is_file()), None)
    items = read_words(words)  # check's rule: one word per line, no control character
    if not items:  # only stdin can hold none (an empty argument is refused)
        from gamecore.errors import UsageError

        raise UsageError("no words to explain in -")
    keys = [lex.key(w) for w in items]
    found = pl.DataFrame()
    if entries_path is not None:
        lf = pl.scan_parquet(entries_path)
        try:
            source = json.loads((entries_path.parent / "entries.json").read_text(encoding="utf-8")).get("source")
        except (OSError, ValueError):
            source = None
        found = classify(lf, recipe, source).filter(pl.col("word").is_in(keys)).collect()
    lists = {
        "short_words": (recipe.short_list, set(read_word_list(recipe.short_list)) if recipe.short_list else set()),
        "additions": (recipe.additions, set(read_word_list(recipe.additions)) if recipe.additions else set()),
        "removals": (recipe.removals, set(read_word_list(recipe.removals)) if recipe.removals else set()),
    }
    rule_text = {d.rule: d.why for d in recipe.drops} | BUILTIN_RULES
    show = [c for c in recipe.why_columns if c in found.columns]
    report = []
    for word, key in zip(items, keys):
        valid = word in lex
        rows = []
        if found.height:
            for r in found.filter(pl.col("word") == key).sort("row").iter_rows(named=True):
                rule = r["rule"]
                if rule is None and key in lists["removals"][1]:
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
        notes = [f"listed in {path.name} ({name.replace('_', ' ')})" for name, (path, ws) in lists.items() if key in ws]
        if not rows and not notes:
            notes.append(
                "not in the source at all"
                if entries_path
                else "entries.parquet not found (give --entries FOLDER): no source detail"
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
        if rows and recipe.language == "sl" and "lemma" in show:
            notes.append("the lemma is the Hunspell stem the form was expanded from (sl_SI), not a dictionary headword")
        report.append({"word": word, "valid": valid, "lexicon": lex.name, "entries": rows, "notes": notes})
    if fmt == OutputFormat.json:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=1, default=str)
        sys.stdout.write("\n")
    elif fmt == OutputFormat.tsv:
        # one header, one row per source entry (a word without entries: one row), a word column
        cols = ["form", *show, "entry_verdict", "why"]
        rows = []
        for item in report:
            head = [item["word"], "VALID" if item["valid"] else "INVALID", item["lexicon"]]
            notes = "; ".join(item["notes"])
            for e in item["entries"] or [None]:
                values = [e.get("verdict") if c == "entry_verdict" else e.get(c) for c in cols] if e else [""] * len(cols)
                rows.append(head + [" ".join(str(v).split()) if v is not None else "" for v in values] + [notes])
        emit(rows, ["word", "verdict", "lexicon", *cols, "notes"], fmt)
    else:
        width = terminal_width()
        for item in report:
            typer.echo(f"{item['word']}\t{'VALID' if item['valid'] else 'INVALID'}\t(lexicon {item['lexicon']})")
            for note in item["notes"]:
                typer.echo(f"  {note}" if width is None or len(note) + 2 <= width else f"  {note[: max(1, width - 3)]}…")
            if item["entries"]:
                cols = list(item["entries"][0])
                emit([[e[c] for c in cols] for e in item["entries"]], cols, fmt, max_width=width)
    raise typer.Exit(0 if all(i["valid"] for i in report) else 1)


def register(app: typer.Typer) -> None:
    app.command("why")(why)
