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
    help=(
        "Toolkit and lexicon compiler for crossword tile games (Icelandic skrafl, Scrabble, "
        "Ordspill, Erudit).\n\n"
        "Typical session:  skrafl ingest is  →  skrafl build is  →  skrafl check --lang is hestur"
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _register() -> None:
    """Attach each subcommand module that exists (modules are added issue by issue)."""
    import importlib

    for name in ("ingest", "build", "check", "why", "diff", "best", "replay", "elo"):
        try:
            module = importlib.import_module(f"cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"cli.{name}":
                continue
            raise
        module.register(app)


_register()


def main() -> None:
    """Console entry point: run the app, turning input errors into exit status 2."""
    try:
        app()
    except SkraflError as exc:
        typer.echo(f"skrafl: error: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        typer.echo("skrafl: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)


if __name__ == "__main__":
    main()
