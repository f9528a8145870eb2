"""``skrafl nightly CONFIG.toml``: the nightly batch (lexicon, replay, impact, elo) with a JSON run log (:mod:`pipelines.nightly`)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from cli.common import QUIET_OPTION

HELP = (
    "Run the nightly job of one UTC day (default: yesterday) as CONFIG.toml describes: rebuild the lexicon "
    "if its recipe or input changed; replay the games of every day since the last night that rated (a folder, "
    "incoming/{date} or postgresql://…) into the dataset, replacing those days' partitions; an impact report if the lexicon changed; elo --date DAY with --state "
    "from the previous night (ratings, history, top-100 tables). Writes the run log WORK/logs/DAY.json "
    "(step, inputs, outputs, counts, seconds, status). Running a day twice changes no output.\n\n"
    "Missed nights: the replay covers every day since the last night that rated, so a night that failed or "
    "did not run is made up by the next. A source with {date} (incoming/{date}, a folder per UTC day) reads "
    "the folder of each of those days; a folder without game files is a day without games (rated as such, "
    "listed in the run log); a day without its folder fails the night with one line naming the days (a "
    'failed upload?), unless the config\'s games section says missing_days = "empty". A game without a time of its '
    "own (a GCG file) in a day's folder is a game of that day: rated that night, at the end of that UTC day.\n\n"
    "The whole config is checked before any step: a TOML error, an unknown key, a wrong type, lang with path "
    "in the lexicon section, a bad choice (an unknown replay rules preset or elo preset, a PostgreSQL URL whose "
    "password holds an unencoded / or @), or steps whose folders overlap (such as the elo out inside the replay "
    "dataset) is one line FILE:LINE: what is wrong, exit 2, nothing run and no run log written. Every key, with "
    "its default: docs/nightly.example.toml. No credential is printed or logged.\n\n"
    "Exit status: 0 every step done; 2 bad config or a step failed, such as a day's games folder missing "
    "or a replay that replayed none of its games ok (the log names it; nothing is rated and the day is rated by "
    "the next run; every earlier output is kept as it was); 130/143 stopped by SIGINT/SIGTERM in any step "
    "(one line on stderr; the log marks the step stopped, naming the signal)."
)
EPILOG = (
    "Example: skrafl nightly nightly.toml --date 2025-08-11 (that day again: no output changes)   |   "
    "crontab: 15 2 * * * cd /srv/skrafl && .venv/bin/skrafl nightly nightly.toml -q >> logs/cron.log 2>&1"
)


def nightly(
    config: Path = typer.Argument(..., metavar="CONFIG.toml", help="The nightly config (TOML; see pipelines/nightly.py)."),
    date: Optional[str] = typer.Option(None, "--date", help="The UTC day to run, YYYY-MM-DD (default: yesterday)."),
    quiet: bool = QUIET_OPTION,
) -> None:
    from pipelines.nightly import StepFailed, run_nightly

    day = None
    if date is not None:
        from cli.common import parse_day

        day = parse_day(date)
    try:
        log = run_nightly(config, day, quiet=quiet)
    except StepFailed as exc:
        typer.echo(f"skrafl: nightly: step {exc}; the earlier outputs are kept", err=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt as exc:
        _stopped(exc)
    if not quiet:
        for rec in log["steps"]:
            typer.echo(
                f"nightly {log['date']}: {rec['step']}: {rec['status']} ({rec['seconds']:.1f} s) {rec['counts']}", err=True
            )
            for note in rec.get("notes") or []:
                typer.echo(f"nightly {log['date']}: {rec['step']}: note: {note}", err=True)


def _stopped(exc: KeyboardInterrupt) -> None:
    """A stop that the CLI's own mechanism did not record: the replay step's workers take SIGINT
    and SIGTERM with handlers of their own (:class:`pipelines.replay.run.Stopped`, carrying the
    signal), and typer turns a KeyboardInterrupt into a silent exit 130. Said here as every stop
    is (:func:`pipelines.stops.stop_message`: one line), exit 128 + the signal's number. A recorded
    stop (the lexicon build, impact, elo) is left to the CLI (:func:`cli.main.main`), which says it."""
    import signal

    from cli.common import shown_paths
    from pipelines.stops import stop_message, stop_requested

    if stop_requested() is not None:
        raise exc
    for late in (signal.SIGINT, signal.SIGTERM):  # the run is over: a second signal now changes nothing
        if signal.getsignal(late) is not signal.SIG_IGN:
            signal.signal(late, signal.SIG_IGN)
    signum = int(getattr(exc, "signum", None) or signal.SIGINT)
    typer.echo(shown_paths(stop_message(signum)), err=True)
    raise typer.Exit(128 + signum) from None


def register(app: typer.Typer) -> None:
    app.command("nightly", help=HELP, epilog=EPILOG)(nightly)
