"""``skrafl backtest``: rating systems predicting each next game (the work is in
:mod:`pipelines.elo.backtest`)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from cli.common import FORMAT_OPTION, QUIET_OPTION, OutputFormat, emit
from gamecore.errors import UsageError

HELP = (
    "Backtest rating systems: Netskrafl's Elo (presets netskrafl and netskrafl-live), plain Elo (K 32) and Glicko-2 "
    "(per game and per day) each predict every game in time order from the ratings before it, then update; per system "
    "the log-loss and Brier score with 95 % bootstrap intervals, and the difference from the best. Games from a games "
    "table (--games) or a synthetic league of players with known strengths (--league PLAYERS).\n\n"
    "The prediction is the probability that player0 wins; a draw counts half. Every system sees the same games, in the "
    "order skrafl elo rates them (finished_at, then game_id; games without a time after them, in file order); left out "
    "for all alike, each said in a note: Netskrafl records without player ids, games of 3-4 players, unfinished games, "
    "0-0 games. Players are (locale, name). The intervals come from --bootstrap resamples of the games drawn from --seed, "
    "the same resamples for every system; vs_best is a system's log-loss minus the best one's, with its paired interval "
    "(above 0: measurably worse). References, not ranked: even (always 1/2) and, on a league, truth (the true strengths' "
    "probability).\n\n"
    "The league: PLAYERS humans with strengths from N(1500, 200), drifting by --drift points (standard deviation) after "
    "each game they play, joining over time with uneven activity, and 3 robots of fixed strength (1200, 1500, 1800) in "
    "40 % of the games; the winner by Bradley-Terry, 1/(1 + 10^(-(difference)/400)); --league-games games, all drawn "
    "from --league-seed.\n\n"
    "--out DIR writes predictions.parquet (one row per game, p_SYSTEM columns), summary.csv, summary.json (with the "
    "settings, notes and calibration), calibration.csv and calibration.svg, and for a league league_games.parquet (a "
    "games table skrafl elo reads, with p_truth) and league_players.parquet; written atomically.\n\n"
    "Exit status: 0 the summary printed; 2 usage error or a bad games table (one line on stderr: file, row, column), "
    "or no game left to predict."
)
EPILOG = (
    "Example: skrafl backtest --games replayed/games.parquet   |   "
    "skrafl backtest --league 200 --league-games 30000 --out backtest/league --format tsv"
)


def backtest(
    games: Optional[str] = typer.Option(
        None,
        "--games",
        "-g",
        help="Games table: CSV, Parquet or JSON lines, replay's games.parquet, a replay --out or --dataset folder, or "
        "postgresql://… (as skrafl elo --games).",
    ),
    league: Optional[int] = typer.Option(
        None, "--league", help="Instead of --games: a synthetic league of this many human players (2-1000000)."
    ),
    league_games: int = typer.Option(30_000, "--league-games", help="With --league: games played (1-10000000)."),
    drift: float = typer.Option(
        10.0, "--drift", help="With --league: standard deviation of a human's change of strength per game played (0-400)."
    ),
    league_seed: int = typer.Option(0, "--league-seed", min=0, help="With --league: the seed the league is drawn from."),
    players_from: Optional[str] = typer.Option(
        None,
        "--players-from",
        help="postgresql://… : name the players of replayed Netskrafl records from that database's games table (as skrafl elo).",
    ),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the bootstrap resamples."),
    resamples: int = typer.Option(1000, "--bootstrap", help="Bootstrap resamples for the intervals (10-100000)."),
    out: Optional[Path] = typer.Option(
        None, "--out", "-o", help="Output folder, written atomically (replaced only if skrafl wrote it)."
    ),
    fmt: OutputFormat = FORMAT_OPTION,
    quiet: bool = QUIET_OPTION,
) -> None:
    from pipelines.elo import backtest as lib

    if (games is None) == (league is None):
        raise UsageError("give one of --games GAMES or --league PLAYERS")
    lib.check_bootstrap(resamples)
    if games is not None:
        import click

        ctx = click.get_current_context()
        for option, name in (("--league-games", "league_games"), ("--drift", "drift"), ("--league-seed", "league_seed")):
            if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE:
                raise UsageError(f"{option} goes with --league")
    elif players_from is not None:
        raise UsageError("--players-from goes with --games")
    from pipelines.elo import is_url

    inputs = [games] if games is not None and not is_url(games) else []
    if out is not None:
        from pipelines.atomic import check_output_dir

        check_output_dir(out, "backtest", inputs)  # a bad --out refused before any work
    if league is not None:
        spec = lib.League(players=league, games=league_games, drift=drift, seed=league_seed).check()
        run = lib.league_backtest(spec, seed=seed, bootstrap=resamples)
    else:
        from pipelines.elo.games import read_games

        assert games is not None  # one of --games and --league, checked above
        table = read_games(games, players_from=players_from)
        source = games
        if is_url(games):  # never a password in the summary
            from pipelines.postgres import redact

            source = redact(games)
        run = lib.backtest(table, seed=seed, bootstrap=resamples, source=source)
    if out is not None:
        lib.write_output(run, out, tuple(inputs))
    for note in run.notes:  # a skipped game's warning is shown even with --quiet
        if note.startswith("warning: "):
            typer.echo(f"skrafl backtest: {note}", err=True)
        elif not quiet:
            typer.echo(f"skrafl backtest: note: {note}", err=True)
    columns = list(lib.SUMMARY_COLUMNS)
    rows = [[_shown(row[c], fmt) for c in columns] for row in run.summary]
    emit(rows, columns, fmt)
    if not quiet:
        where = f" → {out}" if out is not None else ""
        typer.echo(f"skrafl backtest: {run.predictions.height} games predicted by {len(lib.SYSTEMS)} systems{where}", err=True)


def _shown(value: object, fmt: OutputFormat) -> object:
    if isinstance(value, float):
        return round(value, 6) if fmt == OutputFormat.json else f"{value:.4f}"
    if value is None:
        return None if fmt == OutputFormat.json else ""
    return value


def register(app: typer.Typer) -> None:
    app.command("backtest", help=HELP, epilog=EPILOG)(backtest)
