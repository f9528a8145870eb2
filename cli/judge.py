"""``skrafl judge``: the Word Judge station, a full-screen terminal screen for a tournament table.

Textual draws the screen (:mod:`cli.judge_screen`); it is imported only inside :func:`make_app`, so
every other command starts without it. The rulings and the audit log are :mod:`gamecore.wordjudge`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer

from cli.check import check_word
from cli.common import QUIET_OPTION, OutputFormat

HELP = (
    "The Word Judge station: a full-screen terminal screen where players type the words of a challenged "
    "play (up to --max-words, separated by spaces) and press Enter; the screen shows a big "
    "ACCEPTABLE (green) or UNACCEPTABLE (red) with the words ruled on under it, all alike (never which "
    "word failed), and clears after --clear-after seconds; a refusal message clears once the field is "
    "edited or cleared. Every ruling is appended to --log FILE as a JSON line (time, words, verdict, lexicon name "
    "and its manifest checksum), flushed to disk before the verdict is shown.\n\n"
    "A word with a control or invisible format character (U+0001, a zero-width space U+200B…) is "
    "refused, never ruled on, as 'skrafl check' refuses it: --word and --batch stop with one error "
    "line (FILE:LINE) before any ruling; the screen shows no verdict but a message naming the "
    "character (Ctrl+U clears the field; type the words again). The audit log may not be an input "
    "of the run (the --batch file, a file of the lexicon folder) nor lie inside any skrafl output; "
    "a device such as /dev/null is accepted (not fsynced: it has no disk).\n\n"
    "Keys: Enter rules on the words typed; a key typed while a verdict shows clears it at once and "
    "starts the next entry (a burst of keys or a paste is kept whole: nothing typed is lost); Ctrl+Q asks to leave, then Y leaves (any other key goes "
    "back); with --lock, Ctrl+Q asks for the password set at start (also $SKRAFL_JUDGE_PASSWORD), "
    "Enter checks it, Escape goes back. Ctrl+C does the same as Ctrl+Q, with or without a verdict "
    "on the screen.\n\n"
    "Without the screen (scripts, a judge's laptop): --word W (repeatable) rules once on those words; "
    "--batch FILE (or - for stdin) rules once per line (its words separated by spaces, tabs, commas or "
    "semicolons; blank lines skipped; a line break or control character inside a line, a CR alone or "
    "U+2028, is refused as 'skrafl check -' refuses it; every line is checked before any ruling is made). Each ruling "
    "is printed (--format table: line, words as given, verdict; tsv and json: the same columns and "
    "keys, with the ruling's time as logged; never which word failed) and logged with --log; a summary goes to stderr unless --quiet.\n\n"
    "Exit status: 0 after leaving the screen, or every batch ruling ACCEPTABLE; 1 a batch ruling "
    "UNACCEPTABLE; 2 usage or input error (no lexicon, a log refused or that cannot be opened or "
    "written, a batch line with too many words, a word of more than 64 characters or a control "
    "character: FILE:LINE; the screen refuses such an entry the same way, with no ruling)."
)


def check_log_target(log_file: Path, inputs) -> None:
    """Refuse an audit log that is an input of the run (the --batch file, standard input's file, a
    file of the lexicon folder) or lies inside a skrafl output: the check pictures get
    (:func:`gamecore.picture.check_write_target`), one line, before any ruling.

    Raises:
        UsageError: the log refused.
    """
    from gamecore.picture import check_write_target

    check_write_target(log_file, inputs, "the audit log", "(e.g. rulings.jsonl)")


def make_app(judge, *, log=None, clear_after: float = 5.0, password: str | None = None):
    """The Textual app of the station (:class:`cli.judge_screen.WordJudgeApp`, imported here:
    ``textual`` only loads for this command).

    Args:
        judge: a :class:`gamecore.wordjudge.WordJudge`.
        log: a :class:`gamecore.wordjudge.AuditLog`, or None.
        clear_after: seconds a verdict stays on screen when no key is typed (0: until the next key).
            A key typed while a verdict shows clears it and goes into the new entry: the words field
            keeps the focus under the verdict (drawn over it on a layer of its own), so a key, a fast
            burst of keys or a paste reaches the field in order and whole; nothing typed is dropped.
        password: with ``--lock``, the password that leaves; None = the Ctrl+Q, Y sequence.
    Attributes of the app (for tests): ``rulings`` (every :class:`JudgeRuling` made), ``state``
    (``entry``, ``verdict`` or ``leave``).
    """
    from cli.judge_screen import WordJudgeApp

    return WordJudgeApp(judge, log=log, clear_after=clear_after, password=password)


def judge(
    ctx: typer.Context,
    lang: Optional[str] = typer.Option(None, "--lang", "-l", help="Language whose built lexicon to use (output/LANG)."),
    lexicon: Optional[Path] = typer.Option(None, "--lexicon", help="A lexicon folder written by 'skrafl build'."),
    max_words: int = typer.Option(8, "--max-words", min=1, max=64, help="The most words one ruling takes."),
    clear_after: float = typer.Option(
        5.0,
        "--clear-after",
        min=0,
        max=3600,
        help="Seconds a verdict stays on screen (0: until a key is pressed); a key typed clears it at once and is kept.",
    ),
    lock: bool = typer.Option(False, "--lock", help="Leaving needs a password (asked at start, or $SKRAFL_JUDGE_PASSWORD)."),
    log_file: Optional[Path] = typer.Option(
        None, "--log", help="Append every ruling to this file (JSON lines), flushed per ruling."
    ),
    words: Optional[list[str]] = typer.Option(
        None, "--word", "-w", help="Rule once on these words, without the screen (repeat: --word joint --word fore)."
    ),
    batch: Optional[str] = typer.Option(
        None, "--batch", help="Rule once per line of this file ('-' = stdin), without the screen; one ruling per line."
    ),
    fmt: OutputFormat = typer.Option(
        OutputFormat.table, "--format", "-f", help="With --word/--batch: table (for people), tsv or json (for scripts)."
    ),
    quiet: bool = QUIET_OPTION,
) -> None:
    from cli.position import lexicon_folder
    from gamecore.errors import UsageError
    from gamecore.wordjudge import AuditLog, WordJudge

    folder = lexicon_folder(lang, lexicon)
    if folder is None:
        raise UsageError("give --lang L (the built lexicon output/L) or --lexicon DIR")
    if words and batch is not None:
        raise UsageError("give --word W… or --batch FILE, not both")
    rulings_asked = bool(words) or batch is not None
    import click

    given_format = ctx.get_parameter_source("fmt") not in (click.core.ParameterSource.DEFAULT, None)
    if given_format and not rulings_asked:
        raise UsageError("--format applies to the rulings of --word/--batch (the screen shows only the verdict)")
    if lock and rulings_asked:
        raise UsageError("--lock locks the screen; --word/--batch rule without it")
    if log_file is not None:
        check_log_target(log_file, _inputs(folder, batch))
    wj = WordJudge.load(folder, max_words)
    if rulings_asked:
        _rule_batch(wj, words, batch, fmt, log_file, quiet)
        return
    password = None
    if lock:
        password = os.environ.get("SKRAFL_JUDGE_PASSWORD")
        if not password:
            import sys

            if not sys.stdin.isatty():
                raise UsageError("--lock needs a password: run it at a terminal or set SKRAFL_JUDGE_PASSWORD")
            password = typer.prompt("Password to leave the station", hide_input=True, confirmation_prompt=True)
            if not password:
                raise UsageError("the password is empty")
    try:
        log = AuditLog(log_file) if log_file is not None else None
    except OSError as exc:
        raise UsageError(f"cannot open the audit log {log_file}: {exc.strerror or exc}") from None
    try:
        make_app(wj, log=log, clear_after=clear_after, password=password).run()
    finally:
        if log is not None:
            log.close()


def _inputs(folder: Path, batch: Optional[str]) -> list:
    """What the run reads, which its log may not be: the lexicon folder, the --batch file, and for
    ``--batch -`` the file standard input is redirected from (``/dev/stdin`` resolves to it)."""
    import stat
    import sys

    inputs: list = [folder]
    if batch == "-":
        try:
            if stat.S_ISREG(os.fstat(sys.stdin.fileno()).st_mode):
                inputs.append("/dev/stdin")
        except (OSError, ValueError):  # no standard input
            pass
    elif batch is not None:
        from cli.common import input_file

        inputs.append(input_file(batch, "batch", "--batch"))  # a folder or a missing file said first
    return inputs


def _rule_batch(wj, words, batch, fmt, log_file, quiet) -> None:
    """``--word``/``--batch``: every ruling asked for, checked first, then made, logged and printed;
    exit 1 when one is UNACCEPTABLE."""
    import sys

    from cli.common import emit
    from gamecore.errors import UsageError
    from gamecore.text import nfc
    from gamecore.wordjudge import AuditLog, read_batch

    if words:
        try:
            asked = read_batch(wj, [" ".join(nfc(w) for w in words)], "--word", check_word)
        except UsageError as exc:  # no line number: the words are the options' own
            raise UsageError(exc.message, "--word") from None
    elif batch == "-":
        asked = read_batch(wj, sys.stdin.buffer, "-", check_word)
    else:
        from cli.common import input_file

        path = input_file(batch, "batch", "--batch")  # a folder is not missing; /dev/null or a FIFO is read
        with open(path, "rb") as fh:
            asked = read_batch(wj, fh, str(path), check_word)
    if not asked:
        raise UsageError("no words to rule on" + (f" in {batch}" if batch is not None else ""))
    try:
        log = AuditLog(log_file) if log_file is not None else None
    except OSError as exc:
        raise UsageError(f"cannot open the audit log {log_file}: {exc.strerror or exc}") from None
    rows = []
    try:
        for lineno, ws in asked:
            ruling = wj.rule(ws)
            if log is not None:
                log.write(wj.record(ruling))  # on disk before the ruling is printed
            rows.append((lineno, ruling))
    finally:
        if log is not None:
            log.close()
    columns = ["line", "words", "verdict", "time"]  # the same for scripts (tsv, json); time as logged
    if fmt == OutputFormat.json:
        emit([(n, list(r.words), r.verdict, r.time) for n, r in rows], columns, fmt)
    elif fmt == OutputFormat.tsv:
        emit([(n, " ".join(r.words), r.verdict, r.time) for n, r in rows], columns, fmt)
    else:  # a table for people: the verdicts, without the milliseconds
        emit([(n, " ".join(r.words), r.verdict) for n, r in rows], columns[:3], fmt)
    bad = sum(1 for _, r in rows if not r.acceptable)
    if not quiet:
        logged = f"; logged to {log_file}" if log_file is not None else ""
        typer.echo(
            f"skrafl judge: {len(rows)} ruling{'s' if len(rows) != 1 else ''} with lexicon {wj.name}: "
            f"{len(rows) - bad} ACCEPTABLE, {bad} UNACCEPTABLE{logged}",
            err=True,
        )
    sys.stdout.flush()
    raise typer.Exit(1 if bad else 0)


def register(app: typer.Typer) -> None:
    app.command(
        "judge",
        help=HELP,
        epilog="Examples: skrafl judge --lang is --log rulings.jsonl --clear-after 5 --lock · "
        "skrafl judge --lang en --word joint --word fore · skrafl judge --lang en --batch - -f tsv < challenges.txt",
    )(judge)
