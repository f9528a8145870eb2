"""``skrafl impact``: which past plays change verdict between two lexicons (:mod:`pipelines.impact`)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from cli.common import QUIET_OPTION

HELP = (
    "List every play of past games whose verdict changes between two built lexicons: words valid under "
    "--old that are phonies under --new, phonies that became valid, and games whose winner would change "
    "under a challenge (the play's score taken back, or kept; the rest of the game as played). Writes "
    "OUT/plays.{parquet,csv}, OUT/words.{parquet,csv} (per word: plays, games, first and last day), "
    "OUT/winners.{parquet,csv} and OUT/summary.md, replaced whole.\n\n"
    "Arguments: GAMES... are game files or folders (replayed here), or one replay --dataset / --out folder.\n\n"
    "--old and --new must be lexicons of one language (their manifests' language); their alphabets may "
    "differ (a letter added to or dropped from the recipe is a change to measure). Games that say they are in "
    "another language (a Netskrafl record's locale, a GCG #lexicon or #locale) are refused, the first one named; "
    "games that name no language are judged.\n\n"
    "Winner changes are counted over finished games only (an unfinished game has no winner; summary.md says how "
    "many were left out).\n\n"
    "Exit status: 0 written (whatever it found); 2 usage error or bad input (nothing written)."
)


def impact(
    games: List[str] = typer.Argument(
        ..., metavar="GAMES...", help="Game files or folders, or one replay dataset/output folder."
    ),
    old: Path = typer.Option(..., "--old", help="The lexicon in force (a built lexicon folder, e.g. output/is)."),
    new: Path = typer.Option(..., "--new", help="The proposed lexicon (a built lexicon folder)."),
    out: Path = typer.Option(
        ..., "--out", "-o", help="Output folder (a new folder or an earlier impact output: replaced whole)."
    ),
    rules: Optional[str] = typer.Option(None, "--rules", help="Rules preset for replaying files (default from each file)."),
    workers: int = typer.Option(1, "--workers", "-j", min=1, help="Worker processes for replaying files."),
    cluster: Optional[str] = typer.Option(
        None,
        "--cluster",
        help="Replay on this Dask scheduler (needs skrafl[cluster]; default $SKRAFL_DASK_SCHEDULER, else local --workers).",
    ),
    quiet: bool = QUIET_OPTION,
) -> None:
    import os

    from pipelines.impact import check_lexicons, run_impact

    check_lexicons(old, new)
    cluster = cluster or os.environ.get("SKRAFL_DASK_SCHEDULER") or None
    from cli.common import PrintBeforeSwap
    from pipelines.replay import Stopped

    def show(result: dict) -> None:
        if not quiet:
            p = result["plays"]
            typer.echo(
                f"impact: {result['games']} games, {result['plays_checked']} plays checked; "
                f"{p.filter(p['change'] == 'now_phony').height} plays now phonies, {p.filter(p['change'] == 'now_valid').height} now valid, "
                f"{result['words'].height} words, {result['winners'].height} winners changed → {out}",
                err=True,
            )

    printed = PrintBeforeSwap(show)  # printed before the swap: a failed write changes nothing
    try:
        run_impact(
            old,
            new,
            list(games),
            out,
            workers=workers,
            cluster=cluster,
            quiet=quiet,
            preset=rules,
            before_swap=printed,
            check_language=True,
        )
    except Stopped as stop:  # replay's own stop (its workers): one line, the previous output kept
        kept = ", the previous output is kept" if os.path.lexists(out) else ""
        typer.echo(f"skrafl: impact {stop}; nothing written{kept}", err=True)
        raise typer.Exit(128 + stop.signum) from None
    printed.done()


def register(app: typer.Typer) -> None:
    app.command(
        "impact", help=HELP, epilog="Example: skrafl impact --old output/is --new /tmp/is-new games/ --out output/impact"
    )(impact)
