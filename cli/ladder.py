"""``skrafl ladder``: a round robin of self-play robots and Elo ratings fitted to its win matrix."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Sequence

import typer

from cli.common import FORMAT_OPTION, QUIET_OPTION, OutputFormat, emit, lexicon_folder

HELP = (
    "Rank robots by self-play: every pair of --players (autoplay strategies: Netskrafl's fullsterkur, midlungur and "
    "amlodi, equity, sim) plays --games games in pairs on the same bag with seats swapped; a win matrix with 95 % "
    "Wilson intervals and Elo ratings fitted to it (maximum-likelihood Bradley–Terry, --anchor held at "
    "--anchor-rating, 95 % intervals from the Fisher information). Prints the ratings; with --out DIR writes "
    "DIR/matrix.csv, DIR/ratings.csv, DIR/gaps.csv, DIR/anchors.csv (player,rating: what 'skrafl elo --anchors' "
    "reads) and DIR/report.md, replaced whole.\n\n"
    "Each pairing plays the games of 'skrafl autoplay --pairs --seed SEED': the same seed gives the same bytes at any "
    "--workers.\n\n"
    "Exit status: 0 done; 2 usage or input error (one line on stderr)."
)

DEFAULT_PLAYERS = ("equity", "fullsterkur", "midlungur", "amlodi")


def ladder(
    lang: Optional[str] = typer.Option(None, "--lang", "-l", help="Language: the built lexicon output/LANG."),
    lexicon: Optional[Path] = typer.Option(None, "--lexicon", help="A lexicon folder written by 'skrafl build'."),
    rules: Optional[str] = typer.Option(None, "--rules", help="Rules preset or .toml file (default: the lexicon's)."),
    players: Optional[List[str]] = typer.Option(
        None, "--players", "-p", help="A player (repeat, or comma-separated); default equity, fullsterkur, midlungur, amlodi."
    ),
    games: int = typer.Option(200, "--games", "-n", help="Games per pairing (even: they are played in pairs)."),
    seed: int = typer.Option(0, "--seed", help="Seed (0 or more)."),
    leaves: Optional[str] = typer.Option(
        None, "--leaves", help="KLV2 leave file of the equity and sim players (default with --lang: shipped)."
    ),
    anchor: str = typer.Option("fullsterkur", "--anchor", help="The player held at --anchor-rating."),
    anchor_rating: float = typer.Option(1500.0, "--anchor-rating", help="The anchor's rating."),
    workers: int = typer.Option(1, "--workers", "-j", help="Worker processes."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write the matrix, ratings, gaps, anchors and report here."),
    fmt: OutputFormat = FORMAT_OPTION,
    quiet: bool = QUIET_OPTION,
) -> None:
    """Rank robots by a round robin of self-play and fitted Elo ratings."""
    import math
    import sys

    from gamecore.errors import UsageError

    if (lexicon is None) == (lang is None):
        raise UsageError("give --lang L (the built lexicon output/L) or --lexicon DIR, one of them")
    if games < 2 or games % 2:
        raise UsageError(f"--games plays games two by two: give an even number, 2 or more (got {games})")
    if seed < 0:
        raise UsageError(f"--seed must be 0 or more; got {seed}")
    if workers < 1:
        raise UsageError(f"--workers must be at least 1; got {workers}")
    names = _player_names(players or DEFAULT_PLAYERS, anchor)
    if not math.isfinite(anchor_rating):
        raise UsageError("--anchor-rating must be a number")
    folder = lexicon_folder(lexicon, lang)
    from gamecore.best import load_bundle

    bundle = load_bundle(folder)
    from cli.position import resolve_rules

    ruleset = resolve_rules(rules, bundle, lang)
    rules_ref = rules if rules else ruleset.name
    lv = None
    if any(n in ("equity", "sim") for n in names):
        from cli.autoplay import leave_path

        if leaves is None and lang is None:
            raise UsageError("the equity player needs leave values: give --leaves FILE.klv2")
        lv = leave_path(leaves or "shipped", lang, rules_ref)
    from cli.autoplay import vocabulary_tier

    vocab = [vocabulary_tier(n, folder) for n in names]
    from pipelines.ladder import Z95, Config, run_ladder

    cfg = Config(
        str(bundle.folder), rules_ref, tuple(names), games, seed, str(lv) if lv else None, tuple(vocab), anchor, anchor_rating
    )
    from tqdm import tqdm

    pairings = len(names) * (len(names) - 1) // 2
    bar = tqdm(total=games * pairings, unit="game", desc="ladder", file=sys.stderr, disable=quiet, leave=False)
    try:
        _, fit, cpu = run_ladder(cfg, out, workers, bar.update, [folder] + ([lv] if lv else []))
    finally:
        bar.close()
    order = sorted(range(len(fit.players)), key=lambda i: -fit.ratings[i])
    rows = [
        [
            fit.players[i],
            round(fit.ratings[i], 1),
            round(fit.ratings[i] - Z95 * fit.se[i], 1),
            round(fit.ratings[i] + Z95 * fit.se[i], 1),
        ]
        for i in order
    ]
    emit(rows, ["player", "rating", "low", "high"], fmt)


def _player_names(players: Sequence[str], anchor: str) -> list[str]:
    """``--players`` (repeated, or comma-separated) as a list of two or more known strategies, each
    once, the ``--anchor`` among them."""
    from gamecore.autoplay import STRATEGIES
    from gamecore.errors import UsageError

    names = [x.strip() for p in players for x in p.split(",") if x.strip()]
    for n in names:
        if n not in STRATEGIES:
            raise UsageError(f"--players: unknown player {n!r}; known: {', '.join(STRATEGIES)}")
    if len(set(names)) != len(names):
        raise UsageError(f"--players: a player named twice ({', '.join(names)})")
    if len(names) < 2:
        raise UsageError("--players: give two players or more")
    if anchor not in names:
        raise UsageError(f"--anchor {anchor} is not one of the players ({', '.join(names)})")
    return names


def register(app: typer.Typer) -> None:
    app.command(
        "ladder",
        help=HELP,
        epilog="Example: skrafl ladder --lang is --games 200 --workers 2 --out runs/ladder",
    )(ladder)
