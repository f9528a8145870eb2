"""The ``skrafl`` command: one Typer app, one module per subcommand.

Subcommands are registered lazily (:class:`LazyGroup`): ``skrafl check WORD`` imports typer, this
module and ``cli/check.py`` only, never the other commands' modules, and each module imports its
heavy libraries inside the command, so a command answers at once. Errors from bad input (:class:`gamecore.errors.SkraflError`) become one line on stderr and
exit status 2, never a traceback.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Mapping, MutableMapping

import click
import typer
from typer.core import TyperGroup

from gamecore.errors import SkraflError, raised_writing_stdout

#: Every subcommand, in the order ``skrafl --help`` lists them, with its line there (the first
#: paragraph of the command's own help; tests/test_startup.py keeps the two the same). The module
#: ``cli.NAME`` is imported only when its command runs or its own ``--help`` is asked for: a command
#: pays for its own imports, never for the other commands'.
COMMANDS: dict[str, str] = {
    "ingest": "Read a dictionary dump and write one row per entry to OUT/entries.parquet (+ entries.json).",
    "build": "Compile a language's lexicons from its ingested entries and recipes (lexicon_sources/LANG/).",
    "check": "Check words: one line per word, WORD<TAB>VALID or WORD<TAB>INVALID.",
    "why": "Explain words: VALID or INVALID, every source entry with the rule that kept or dropped it.",
    "diff": "Words added and removed between two lexicon builds, with the rule or source change behind each. Writes "
    "OUT/diff.parquet and OUT/diff.csv (word, change, cause, old_rule, new_rule, detail), OUT/summary.txt and "
    "OUT/summary.md (a report to circulate: counts per cause, every change with its cause), and prints the summary.",
    "best": "List the legal plays for a board and a rack, best first (or the play a Netskrafl robot would make).",
    "endgame": "Solve an endgame exactly (the bag is empty, both racks known): the final spread the side on turn reaches "
    "with best play by both sides (the rule set's end-of-game rack adjustments included) and the best sequence of "
    "plays and passes; with one tile in the bag, the pre-endgame: each candidate play's mean over every draw.",
    "leaves": "Leave values: 'skrafl leaves show FILE RACK' prints the value of keeping RACK's tiles (a KLV2 leave "
    "file, as MAGPIE and wolges write it, e.g. MAGPIE-DATA's data/lexica/CSW21.klv2); 'skrafl leaves path --lang L' "
    "prints the path of the leave file shipped for language L.",
    "autoplay": "Play games between two strategies (self-play) on the rules engine: score (top play by score), equity "
    "(static equity with a leave file, exchanges included), sim (Monte Carlo simulation of the best 5 moves by static "
    "equity, at most 96 iterations of 2 plies each, with the leave file; the equity player's move once the bag is empty), "
    "equity+endgame and sim+endgame (the same, and once the bag is empty the exact endgame solver's first move, searched "
    "2 plies deep) or Netskrafl's robots (fullsterkur, midlungur, amlodi). Prints "
    "a summary (games, wins, ties, p1's win rate with ties counted half and its 95 % interval, mean scores, games per "
    "CPU-second); with --out DIR writes DIR/games.parquet and DIR/games.csv (one row per game) and, with --gcg, "
    "DIR/gcg/game-NNNNNN.gcg, replaced whole.",
    "bag": "Measure a bag (the tile set of a rule set, or a candidate tile-set file) by self-play of two equity players: per "
    "letter the mean turns a tile stays on a rack, its single-tile leave value, the score of the plays that place it "
    "and the bingo rate of racks holding it; for the bag its evenness (the standard deviation over letters of the mean "
    "turns on a rack), vowel balance of racks, score, bingos and moves per game, all with 95 % intervals. --compare "
    "RULES2 plays a second bag letter by letter beside the first. Prints the bag's measures; with --out DIR writes "
    "DIR/letters.csv, DIR/bag.csv, DIR/report.md and DIR/rack_turns.svg, replaced whole.",
    "ladder": "Rank robots by self-play: every pair of --players (autoplay strategies: Netskrafl's fullsterkur, midlungur and "
    "amlodi, equity, sim) plays --games games in pairs on the same bag with seats swapped; a win matrix with 95 % "
    "Wilson intervals and Elo ratings fitted to it (maximum-likelihood Bradley–Terry, --anchor held at "
    "--anchor-rating, 95 % intervals from the Fisher information). Prints the ratings; with --out DIR writes "
    "DIR/matrix.csv, DIR/ratings.csv, DIR/gaps.csv, DIR/anchors.csv (player,rating: what 'skrafl elo --anchors' "
    "reads) and DIR/report.md, replaced whole.",
    "replay": "Replay GCG / Netskrafl game logs on the rules engine: re-score every play, check racks against the bag, "
    "totals, end-of-game adjustments and challenges; mark words missing from the lexicon. Writes OUT/games.parquet "
    "(one row per file) and OUT/moves.parquet (one row per event), streamed as the games are replayed; OUT is "
    "replaced whole when the run ends (a stopped or failed run leaves the previous OUT as it was).",
    "elo": "Rate players with Netskrafl's Elo system: three lists (all games, human games, competition games), K 20 "
    "established / 32 beginner, start 1200, beginner rule, floor 0. Writes DIR/ratings.parquet, "
    "DIR/top100_{all,human,competition}.csv, DIR/history/ and DIR/late_games.csv; --state PREV_DIR continues a "
    "previous run (games already rated there are skipped).",
    "backtest": "Backtest rating systems: Netskrafl's Elo (presets netskrafl and netskrafl-live), plain Elo (K 32) and "
    "Glicko-2 (per game and per day) each predict every game in time order from the ratings before it, then update; per "
    "system the log-loss and Brier score with 95 % bootstrap intervals, and the difference from the best. Games from a "
    "games table (--games) or a synthetic league of players with known strengths (--league PLAYERS).",
    "score": "Rule on one play on a board: is it legal (and if not, why: the validator's code and a sentence), every "
    "word it forms (main word first) with its score and, with a lexicon, whether it is valid; the total (bingo bonus "
    "included), the verdict ACCEPTABLE / UNACCEPTABLE, and with --challenge what the challenge rule gives each side "
    "and who moves next.",
    "judge": "The Word Judge station: a full-screen terminal screen where players type the words of a challenged play "
    "(up to --max-words, separated by spaces) and press Enter; the screen shows a big ACCEPTABLE (green) or "
    "UNACCEPTABLE (red) with the words ruled on under it, all alike (never which word failed), and clears after "
    "--clear-after seconds; a refusal message clears once the field is edited or cleared. Every ruling is appended "
    "to --log FILE as a JSON line (time, words, verdict, lexicon name and its manifest checksum), flushed to disk "
    "before the verdict is shown.",
    "show": "Draw a position as SVG or PNG (by the --out suffix): the layout's premium squares in the usual colours "
    "with their labels (TW, DW, TL, DL; QW, QL on the 21×21 board), the start star, tiles with letter and value (a "
    "blank: red letter in a dashed ring), the play's new tiles highlighted, coordinates on the edges, the "
    "rack below and, for a game, the scores above (▶ = on turn).",
    "compare": "Compare a build with an official list: precision, recall, and every difference classified by cause.",
    "find": "Search a lexicon: words matching a pattern, anagrams of a rack, hooks of a word.",
    "impact": "List every play of past games whose verdict changes between two built lexicons: words valid under "
    "--old that are phonies under --new, phonies that became valid, and games whose winner would change under a "
    "challenge (the play's score taken back, or kept; the rest of the game as played). Writes "
    "OUT/plays.{parquet,csv}, OUT/words.{parquet,csv} (per word: plays, games, first and last day), "
    "OUT/winners.{parquet,csv} and OUT/summary.md, replaced whole.",
    "nightly": "Run the nightly job of one UTC day (default: yesterday) as CONFIG.toml describes: rebuild the lexicon "
    "if its recipe or input changed; replay the games of every day since the last night that rated (a folder, "
    "incoming/{date} or postgresql://…) into the dataset, replacing those days' partitions; an impact report if the lexicon changed; elo --date DAY with --state from the previous "
    "night (ratings, history, top-100 tables). Writes the run log WORK/logs/DAY.json (step, inputs, outputs, "
    "counts, seconds, status). Running a day twice changes no output.",
    "serve": "Serve skrafl commands on a Unix socket: imports paid once, every command run in a fork (set SKRAFL_SERVER=PATH "
    "for the skrafl command to use it).",
}


def load_command(name: str) -> click.Command:
    """The click command of subcommand ``name``: its module imported and registered on a Typer app
    of its own, turned into a command as typer does for the app's own commands."""
    import importlib

    import typer.main

    sub = typer.Typer()
    importlib.import_module(f"cli.{name}").register(sub)
    (info,) = sub.registered_commands
    return typer.main.get_command_from_info(
        info, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=app.rich_markup_mode
    )


class _Commands(MutableMapping):
    """The group's commands: every name of :data:`COMMANDS` is known at once, a command is made
    (its module imported) when first looked up."""

    def __init__(self, made: Mapping[str, click.Command] | None = None):
        self._made: dict[str, click.Command] = dict(made or {})

    def __getitem__(self, name: str) -> click.Command:
        cmd = self._made.get(name)
        if cmd is None:
            if name not in COMMANDS:
                raise KeyError(name)
            cmd = self._made[name] = load_command(name)
        return cmd

    def __setitem__(self, name: str, cmd: click.Command) -> None:
        self._made[name] = cmd

    def __delitem__(self, name: str) -> None:
        del self._made[name]

    def __iter__(self):
        yield from COMMANDS
        yield from (n for n in self._made if n not in COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS) + sum(1 for n in self._made if n not in COMMANDS)

    def __contains__(self, name: object) -> bool:
        return name in COMMANDS or name in self._made


class LazyGroup(TyperGroup):
    """The ``skrafl`` group: commands imported on first use (:class:`_Commands`); the group's own
    help lists every command from :data:`COMMANDS` without importing any."""

    _listing = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.commands = _Commands(self.commands)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if self._listing and cmd_name in COMMANDS:
            return click.Command(cmd_name, help=COMMANDS[cmd_name])
        return self.commands.get(cmd_name)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    name="skrafl",
    cls=LazyGroup,
    suggest_commands=False,  # click (8.4) suggests a close command name itself: once, not twice
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"skrafl {version('skrafl')}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """Toolkit and lexicon compiler for crossword tile games: Icelandic skrafl (Netskrafl), Scrabble,
    Norwegian Ordspill, Russian Scrabble and Erudit, Slovenian Scrabble.

    Typical session: skrafl ingest is → skrafl build is → skrafl check --lang is hestur.
    Every command: exit 0 on success; 1 for a negative answer (a word INVALID, a play UNACCEPTABLE or
    ILLEGAL, nothing found: each command's help says which); 2 on bad input or usage (one line on
    stderr); 128 + N when stopped by signal N. A reader that closes the pipe early (`| head`) ends
    the command with 0.
    """


_CLICK_APP: click.Group | None = None


def click_app() -> click.Group:
    """The click group typer makes of :data:`app`, made once a process (typer makes it anew at
    each ``app()`` call): a ``skrafl serve`` parent makes it, and each command of it, before it
    forks, so a served command does not pay for typer reading the signatures again. Calling it
    is calling ``app()`` without typer's pretty tracebacks, which :func:`main` never shows."""
    global _CLICK_APP
    if _CLICK_APP is None:
        import typer.main

        group = typer.main.get_command(app)
        assert isinstance(group, click.Group)  # an app of commands is made a group
        _CLICK_APP = group
    return _CLICK_APP


_AT_EXIT: list[bool] = []


def _ignore_stops_at_exit() -> None:
    """SIGINT and SIGTERM ignored once the interpreter exits (registered once a process)."""
    if _AT_EXIT:
        return
    import atexit
    import signal

    def ignore() -> None:
        for late in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(late) is not signal.SIG_IGN:
                signal.signal(late, signal.SIG_IGN)

    atexit.register(ignore)
    _AT_EXIT.append(True)


def _pipe_closed() -> int:
    """Exit status 0 for a closed output pipe, with standard output pointed at /dev/null so that
    the interpreter's last flush has nowhere to fail."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 0


class _WholeWrites(io.RawIOBase):
    """Standard output's file descriptor written whole: each write loops :func:`os.write` until
    every byte is out, so a short write is followed by another and its error (``EFBIG`` under a
    ``ulimit -f`` smaller than the output, ``ENOSPC``) is raised. Python's own ``FileIO`` under
    ``sys.stdout`` dropped the rest of a short write without an error: a run under ``ulimit -f``
    exited 0 with its output cut. The descriptor is never closed here."""

    def __init__(self, fd: int, name: object):
        super().__init__()
        self._fd = fd
        self.name = name

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            try:
                done += os.write(self._fd, view[done:])
            except BlockingIOError:  # a descriptor another process made non-blocking: wait, go on
                import select

                select.select([], [self._fd], [])
        return done


def whole_stdout() -> None:
    """Make ``sys.stdout`` report a write that does not go through whole (:class:`_WholeWrites`):
    the same text stream (encoding, errors, buffering) over a raw writer that loops until every
    byte is written. Only a stream Python made on a file descriptor is replaced (a test's
    ``StringIO`` is kept); what it holds is flushed first."""
    out = sys.stdout
    if type(out) is not io.TextIOWrapper:
        return
    buf = out.buffer
    raw = buf if type(buf) is io.FileIO else getattr(buf, "raw", None)
    if type(raw) is not io.FileIO or type(buf) not in (io.FileIO, io.BufferedWriter) or raw.closed:
        return
    out.flush()
    whole = _WholeWrites(raw.fileno(), raw.name)
    text = io.TextIOWrapper(
        whole if buf is raw else io.BufferedWriter(whole),
        encoding=out.encoding,
        errors=out.errors,
        newline="\n",
        line_buffering=out.line_buffering,
        write_through=out.write_through,
    )
    text.mode = "w"  # type: ignore[misc]  # what print() and a test's capsys read; typeshed calls it read-only
    sys.stdout = text


def _usage_message(exc) -> str | None:  # noqa: ANN001  (a click.UsageError: click is imported late)
    """The line of a usage error, naming the command's help; None for an empty one (click's help
    when arguments are missing: the help only)."""
    if not exc.format_message().strip():
        return None
    where = exc.ctx.command_path if exc.ctx is not None else "skrafl"
    return f"skrafl: error: {exc.format_message()} (see '{where} --help')"


def _os_error_detail(exc: OSError) -> str:
    """What an OSError says: the file and why, or standard output and why (then what stdout still
    holds goes nowhere: the interpreter's last flush cannot fail again), or why alone."""
    if exc.filename and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    if exc.strerror and raised_writing_stdout(exc):
        _pipe_closed()
        return f"standard output: {exc.strerror}"
    return exc.strerror or str(exc) or type(exc).__name__


def _internal_error(exc: Exception) -> str:
    """The one line of a bug: its type and message, that nothing was changed, how to see where."""
    detail = " ".join(str(exc).split())[:300]
    return (
        f"skrafl: error: internal error ({type(exc).__name__}: {detail}); nothing was changed. "
        "Set SKRAFL_DEBUG=1 to see where, and please report it"
    )


def _say(message: str | None) -> None:
    """The run's one line on stderr, if it has one (a line break quoted from the input shown as \\n)."""
    if message:
        from cli.common import shown_paths
        from gamecore.text import one_line

        typer.echo(one_line(shown_paths(message)), err=True)


def main() -> None:
    """Console entry point: run the app; bad input and usage errors become one line on stderr and
    exit status 2, never a traceback. SIGINT and SIGTERM stop any command (one line, exit 128 + the
    signal's number, the output being written discarded): :mod:`pipelines.atomic` records the
    signal, and a recorded stop is what is reported, whatever the command returned or raised on its
    way out (a library may swallow the exception or turn it into another)."""
    import click

    from pipelines.stops import Signalled, hold_stops, install_stop_handlers, stop_message, stop_requested

    code: int | str | None = 0
    message = None
    exiting: SystemExit | None = None
    whole_stdout()  # a short write to stdout (ulimit -f) an error, not output cut without a word
    try:
        install_stop_handlers()  # in the try: a stop held back until now (skrafl serve) is reported
        status = click_app()(standalone_mode=False, prog_name="skrafl")
        code = status if isinstance(status, int) else 0
        sys.stdout.flush()  # here, so that a failed last write is reported as every other error
    except SkraflError as exc:
        code, message = 2, f"skrafl: error: {exc}"
    except click.exceptions.NoArgsIsHelpError:  # "skrafl" (or a group) with no arguments: the help was printed
        code = 2
    except click.UsageError as exc:
        code, message = 2, _usage_message(exc)
    except click.ClickException as exc:
        code, message = 2, f"skrafl: error: {exc.format_message()}"
    except Signalled:
        pass  # reported below
    except (KeyboardInterrupt, click.Abort) as exc:
        code = 128 + getattr(exc, "signum", 2)
        message = stop_message()
    except BrokenPipeError:  # the reader closed the pipe (`| head`): it has what it wanted
        code = _pipe_closed()
    except OSError as exc:  # a file that cannot be opened, read or written; a full disk
        code, message = 2, f"skrafl: error: {_os_error_detail(exc)}"
    except SystemExit as exc:
        if isinstance(sys.stdout, click.utils.PacifyFlushWrapper):  # click's own exit 1 on EPIPE
            code = _pipe_closed()
        else:
            exiting = exc
    except Exception as exc:  # noqa: BLE001  (a bug: still one line, never a traceback)
        import os

        if os.environ.get("SKRAFL_DEBUG") and stop_requested() is None:
            raise
        code, message = 2, _internal_error(exc)
    hold_stops()  # from here on a signal (a second Ctrl-C) is only recorded: the report is one line

    signum = stop_requested()
    if signum is not None:  # a stop wins over whatever the command returned or raised after it
        code, message = 128 + signum, stop_message(signum)
    _say(message)
    # The run is over and its status decided. Python's finalization puts SIGINT and SIGTERM back to
    # the default action, so a stop in its last instant (freeing a large build) killed the process
    # silently (-2) after a complete run: when the interpreter exits (atexit, before that), they are
    # ignored. (Not here: a caller running main() in its own process keeps its signals.)
    _ignore_stops_at_exit()
    if signum is None and exiting is not None:
        raise exiting
    sys.exit(code)


if __name__ == "__main__":
    main()
