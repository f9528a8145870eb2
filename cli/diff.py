"""``skrafl diff OLD_DIR NEW_DIR``: words added and removed between two lexicon builds, and why."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from cli.common import QUIET_OPTION, output_root

HELP = (
    "Words added and removed between two lexicon builds, with the rule or source change behind each. "
    "Writes OUT/diff.parquet and OUT/diff.csv (word, change, cause, old_rule, new_rule, detail), OUT/summary.txt "
    "and OUT/summary.md (a report to circulate: counts per cause, every change with its cause), and prints the summary.\n\n"
    "Arguments: OLD_DIR is the earlier lexicon folder (written by 'skrafl build'); NEW_DIR the later one.\n\n"
    "Cause: rule (the recipe changed), source (the dump changed, or the word has no entry), rule or "
    "source (both changed), committee (the committee lists).\n\n"
    "OLD_DIR and NEW_DIR must be builds of one language (their manifests' language; refused otherwise); "
    "their alphabets may differ (a letter added to or dropped from the recipe is a change to show).\n\n"
    "Exit status: 0 diff written; 2 usage error, lexicons of two languages, or a folder that is not a lexicon build "
    "(one line on stderr)."
)


def diff(
    old: Path = typer.Argument(..., metavar="OLD_DIR", help="The earlier lexicon folder (written by 'skrafl build')."),
    new: Path = typer.Argument(..., metavar="NEW_DIR", help="The later lexicon folder (written by 'skrafl build')."),
    out: Optional[Path] = typer.Option(
        None, "--out", "-o", help="Folder for diff.parquet, diff.csv, summary.txt and summary.md. Default: output/diff."
    ),
    quiet: bool = QUIET_OPTION,
) -> None:
    """Words added and removed between two builds, with the rule or source change behind each.

    Writes OUT/diff.parquet and OUT/diff.csv (word, change, cause, old_rule, new_rule, detail),
    OUT/summary.txt and OUT/summary.md (counts per cause, every change with its cause), and prints
    the summary. Cause: rule (the recipe changed), source (the dump changed, or the word
    has no entry), rule or source (both changed), committee (the committee lists).

    Examples:

      skrafl diff output/nb-2024 output/nb

      skrafl diff old/ru new/ru --out review/ru-2025
    """
    from pipelines.atomic import check_output_dir
    from pipelines.diff import diff as run
    from pipelines.diff import write

    target = out or output_root() / "diff"
    check_output_dir(target, "diff", (old, new))  # refused before any work: see pipelines.atomic
    result = run(old, new)

    def show() -> None:
        typer.echo(result.summary, nl=False)  # the result, on stdout: --quiet silences stderr only (as compare)
        if not quiet:
            typer.echo(f"→ {target / 'diff.parquet'}", err=True)

    from cli.common import PrintBeforeSwap

    printed = PrintBeforeSwap(show)  # printed before the swap: a failed write changes nothing
    write(result, target, (old, new), before_swap=printed)
    printed.done()


def register(app: typer.Typer) -> None:
    app.command(
        "diff",
        help=HELP,
        epilog="Example: skrafl diff output/nb-old output/nb",
    )(diff)
