"""``skrafl build LANG``: filter the ingested entries by the language's recipes and compile them."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from cli.common import QUIET_OPTION, output_root


def build(
    lang: str = typer.Argument(..., help="Language code: is, en, …"),
    recipe: Optional[List[str]] = typer.Option(
        None,
        "--recipe",
        "-r",
        help="Build only these recipes (by name, e.g. 'is', 'midlungur') or recipe files. Default: all "
        "recipes of lexicon_sources/LANG/.",
    ),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Lexicon folder. Default: output/LANG."),
    entries: Optional[Path] = typer.Option(
        None, "--entries", help="Folder holding entries.parquet (from 'skrafl ingest'). Default: output/entries/LANG."
    ),
    source: Optional[str] = typer.Option(
        None,
        "--source",
        "-s",
        help="Read this source (as 'skrafl ingest --source') into the lexicon's own folder instead of "
        "using ingested entries: e.g. --source wordlist --input WORDS.txt compiles any plain word list.",
    ),
    input: Optional[Path] = typer.Option(
        None, "--input", "-i", help="The dump file for --source (a file: not '-', the source version is its name, size and date)."
    ),
    quiet: bool = QUIET_OPTION,
) -> None:
    """Compile a language's lexicons from its ingested entries and recipes (lexicon_sources/LANG/).

    Writes words.txt, lexicon.marisa, lexicon.kwg, rejected.parquet, manifest.json. Every dropped entry keeps the rule that dropped it (rejected.parquet; 'skrafl why' explains a
    word). The same entries and recipe give byte-identical files.

    Examples:

      skrafl build is                                   # output/is and output/is/midlungur

      skrafl build ru                                   # on a fresh machine: ingests OpenCorpora first

      skrafl build en --source wordlist --input sowpods.txt --out lex/sowpods
    """
    import time

    from lexicon_sources import language
    from pipelines.build import build as run
    from pipelines.recipe import load_recipe, recipes_for

    lang_info = language(lang)
    lang = lang_info.code
    out_dir = out or output_root() / lang
    ingest_source = None
    if source or input:
        # build --source: the entries are read into the build's own folder, part of its output
        from lexicon_sources import source_for
        from pipelines.ingest import refuse_stdin

        refuse_stdin(source, input)  # one line saying why a dump must be a file
        ingest_source = (lang, *source_for(lang_info, source, input))
        entries_dir = None
    else:
        entries_dir = entries or output_root() / "entries" / lang
        from pipelines.ingest import ENTRIES

        if not entries and not (Path(entries_dir) / ENTRIES).is_file():
            # Nothing ingested yet (a fresh machine): ingest the language's embedded source first.
            from pipelines.ingest import ingest

            if not quiet:
                typer.echo(f"build {lang}: no entries yet in {entries_dir}; ingesting the embedded source first", err=True)
            ingest(lang, entries_dir, progress=not quiet)
    recipes = recipes_for(lang_info.folder)
    if recipe:
        by_name = {r.name: r for r in recipes}
        chosen = []
        for item in recipe:
            if item in by_name:
                chosen.append(by_name[item])
            elif Path(item).is_file():
                chosen.append(load_recipe(Path(item)))
            else:
                from gamecore.errors import UsageError

                raise UsageError(f"unknown recipe {item!r}; recipes for {lang}: {', '.join(by_name)}")
        recipes = chosen
    started = time.time()
    results = run(recipes, entries_dir, out_dir, progress=not quiet, ingest_source=ingest_source)
    if not quiet:
        for r in results:
            typer.echo(f"build {r.recipe.name}: {r.words:,} words → {r.out_dir}", err=True)
        typer.echo(f"built in {time.time() - started:.1f} s", err=True)


def register(app: typer.Typer) -> None:
    app.command("build")(build)
