"""The ``skrafl`` command: one Typer app, one module per subcommand.

Every subcommand module imports only light modules at start-up, so ``skrafl check WORD`` answers at
once. Errors from bad input (:class:`gamecore.errors.SkraflError`) become one line on stderr and
exit status 2, never a traceback.
"""

from __future__ import annotations

import sys

import typer

from gamecore.errors import SkraflError

app = typer.Typer(
    name="skrafl",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _register() -> None:
    """Attach each subcommand module that exists (modules are added issue by issue)."""
    import importlib

    for name in (
        "ingest",
        "build",
        "check",
        "why",
        "diff",
        "best",
        "replay",
        "elo",
        "score",
        "judge",
        "show",
        "compare",
        "find",
        "impact",
        "nightly",
    ):
        try:
            module = importlib.import_module(f"cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"cli.{name}":
                continue
            raise
        module.register(app)


_register()


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
    Every command: exit 0 on success, 2 on bad input or usage (one line on stderr).
    """


def main() -> None:
    """Console entry point: run the app; bad input and usage errors become one line on stderr and
    exit status 2, never a traceback."""
    import click

    def fail(message: str) -> None:
        typer.echo(f"skrafl: error: {message}", err=True)
        sys.exit(2)

    import signal

    class Signalled(BaseException):
        """SIGTERM or SIGINT, raised in the main thread. A BaseException, so that no handler of
        ordinary errors (nor typer's own KeyboardInterrupt handling) takes it: the output being
        written is discarded on the way (its stage removed, the previous output kept), then exit
        128 + the signal's number."""

        def __init__(self, signum: int) -> None:
            super().__init__(signum)
            self.signum = signum

    def stop(signum, frame):
        raise Signalled(signum)

    for signum in (signal.SIGTERM, signal.SIGINT):
        if signal.getsignal(signum) is not signal.SIG_IGN:  # a background job keeps ignoring SIGINT
            signal.signal(signum, stop)
    try:
        status = app(standalone_mode=False, prog_name="skrafl")
    except SkraflError as exc:
        fail(str(exc))
    except click.exceptions.NoArgsIsHelpError:  # "skrafl" (or a group) with no arguments: the help was printed
        sys.exit(2)
    except click.UsageError as exc:
        if not exc.format_message().strip():  # an empty usage error (click's no-arguments help): the help only
            sys.exit(2)
        where = exc.ctx.command_path if exc.ctx is not None else "skrafl"
        fail(f"{exc.format_message()} (see '{where} --help')")
    except click.ClickException as exc:
        fail(exc.format_message())
    except Signalled as exc:
        name = signal.Signals(exc.signum).name
        typer.echo(f"skrafl: stopped by {name}; the output being written was discarded, the previous one is kept", err=True)
        sys.exit(128 + exc.signum)
    except (KeyboardInterrupt, click.Abort):
        typer.echo("skrafl: interrupted; the output being written was discarded, the previous one is kept", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except OSError as exc:  # a file that cannot be opened, read or written; a full disk
        fail(f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else str(exc) or type(exc).__name__)
    except Exception as exc:  # noqa: BLE001  (a bug: still one line, never a traceback)
        import os

        if os.environ.get("SKRAFL_DEBUG"):
            raise
        detail = " ".join(str(exc).split())[:300]
        fail(
            f"internal error ({type(exc).__name__}: {detail}); nothing was changed. Set SKRAFL_DEBUG=1 to see where, and please report it"
        )
    sys.exit(status if isinstance(status, int) else 0)


if __name__ == "__main__":
    main()
