"""``skrafl judge``: the Word Judge station, a full-screen terminal screen for a tournament table.

Textual draws the screen; it is imported only here, inside :func:`make_app`, so every other command
starts without it. The rulings and the audit log are :mod:`gamecore.wordjudge`.
"""

from __future__ import annotations

import os
from functools import lru_cache
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


#: how the word check names a character that may not be typed (:func:`gamecore.wordjudge.describe_char`)
_UNSEEN = ("a control character", "an invisible format character", "a private-use character", "a surrogate", "a line")

#: pyfiglet fonts for the verdict, widest first (the first that fits the screen is used)
_FONTS = ("standard", "small")


@lru_cache(maxsize=16)
def big_text(text: str, width: int) -> str:
    """``text`` in large letters (pyfiglet) that fit ``width`` columns, or ``text`` itself (cached:
    the two verdicts are drawn once per screen width)."""
    try:
        import pyfiglet
    except ImportError:  # pragma: no cover - a dependency of the project
        return text
    for font in _FONTS:
        art = pyfiglet.figlet_format(text, font=font, width=10_000).rstrip("\n")
        if max(map(len, art.splitlines())) <= width - 2:
            return art
    return text


def _typed_invisible(key: str, ch: str) -> bool:
    """Whether a key that Textual's Input would drop (not printable) is a character typed into the
    words (a format character such as U+200B, a private-use or C1 control character), not a key of
    its own (Enter, Tab, Escape, Backspace, a Ctrl+ key: Textual names those)."""
    import unicodedata

    category = unicodedata.category(ch)
    if category in ("Cf", "Co", "Cs"):
        return True
    # C1 controls only: DEL (0x7F) is what a terminal's Backspace sends (Textual's key "backspace")
    return category == "Cc" and 0x80 <= ord(ch) <= 0x9F and not key.startswith("ctrl+")


def _format_key(key: str) -> str | None:
    """The format character a key is named after (``zero_width_space`` → U+200B), or None: Textual
    names a key by its character's Unicode name, and its pilot sends such a key without the
    character the terminal sends with it."""
    import unicodedata

    try:
        ch = unicodedata.lookup(key.replace("_", " "))
    except KeyError:
        return None
    return ch if unicodedata.category(ch) == "Cf" else None


def make_app(judge, *, log=None, clear_after: float = 5.0, password: str | None = None):
    """The Textual app of the station (imported here: ``textual`` only loads for this command).

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
    import hmac

    from textual import events
    from textual.app import App, ComposeResult
    from textual.binding import Binding
    from textual.containers import Vertical
    from textual.timer import Timer
    from textual.widgets import Input, Static

    from gamecore.errors import UsageError

    class WordsInput(Input):
        """The words field: a paste is kept whole, its lines joined by spaces (Textual's own Input
        keeps only a paste's first line); a typed invisible character (a zero-width space U+200B, a
        word joiner U+2060: Textual's Input drops a key that is not printable) goes into the field,
        so that Enter refuses the entry naming it instead of ruling on the word without it."""

        async def _on_key(self, event: events.Key) -> None:
            ch = event.character if event.character is not None else _format_key(event.key)
            if ch is not None and len(ch) == 1 and not ch.isprintable() and _typed_invisible(event.key, ch):
                event.stop()
                event.prevent_default()
                selection = self.selection
                if selection.is_empty:
                    self.insert_text_at_cursor(ch)
                else:
                    self.replace(ch, *selection)
                return
            await super()._on_key(event)

        def _on_paste(self, event: events.Paste) -> None:
            text = " ".join(line for line in event.text.splitlines() if line.strip())
            if text:
                selection = self.selection
                if selection.is_empty:
                    self.insert_text_at_cursor(text)
                else:
                    self.replace(text, *selection)
            event.stop()
            event.prevent_default()  # not Input._on_paste as well

    class WordJudgeApp(App):
        CSS = """
        #body { width: 100%; height: 1fr; align: center middle; layers: base verdict; }
        #header { dock: top; height: 1; background: $primary-darken-2; color: $text; padding: 0 1; }
        #footer { dock: bottom; height: 1; background: $primary-darken-3; color: $text-muted; padding: 0 1; }
        #entry { width: 100%; height: auto; align: center middle; padding: 1 4; }
        #prompt { width: 100%; content-align: center middle; text-align: center; margin-bottom: 1; }
        #message { width: 100%; text-align: center; color: $warning; height: 1; }
        #words { width: 100%; }
        #verdict { layer: verdict; position: absolute; offset: 0 0; width: 100%; height: 100%; content-align: center middle; text-align: center; text-style: bold; display: none; }
        #verdict.acceptable { background: #1e7d32; color: #ffffff; display: block; }
        #verdict.unacceptable { background: #b71c1c; color: #ffffff; display: block; }
        #leave { width: 100%; height: auto; padding: 1 4; display: none; }
        #leave-text { width: 100%; text-align: center; margin-bottom: 1; }
        #password { width: 100%; }
        """
        ENABLE_COMMAND_PALETTE = False
        BINDINGS = [
            Binding("ctrl+q", "leave", "Leave", priority=True, show=False),
            Binding("ctrl+c", "leave", "Leave", priority=True, show=False),
        ]

        def __init__(self) -> None:
            super().__init__()
            self.rulings: list = []
            self.state = "entry"
            self._timer: Timer | None = None  # the verdict's clearing, when one is set

        def compose(self) -> ComposeResult:
            size = len(judge.lexicon)
            yield Static(f"Word Judge · lexicon {judge.name} · {size:,} words · manifest {judge.checksum[:12]}", id="header")
            with Vertical(id="body"):
                with Vertical(id="entry"):
                    yield Static(
                        f"Type the words of the play (up to {judge.max_words}, separated by spaces) and press Enter.", id="prompt"
                    )
                    yield WordsInput(placeholder="words…", id="words")
                    yield Static("", id="message")
                yield Static("", id="verdict")
                with Vertical(id="leave"):
                    yield Static("", id="leave-text")
                    yield Input(password=True, placeholder="password", id="password")
            yield Static("Enter: rule · Ctrl+Q: leave" + (" (password)" if password is not None else ""), id="footer")

        def on_mount(self) -> None:
            self.query_one("#words", Input).focus()
            for verdict in ("ACCEPTABLE", "UNACCEPTABLE"):
                big_text(verdict, self.size.width)  # drawn before the first ruling, not during it

        # -- rulings ----------------------------------------------------------------------------
        def on_input_submitted(self, event: Input.Submitted) -> None:
            if event.input.id == "password":
                self._check_password(event.value)
                return
            if self.state == "verdict":  # Enter while a verdict shows (the field is empty): clear it
                self.clear_verdict()
                return
            if self.state != "entry":
                return
            message = self.query_one("#message", Static)
            try:
                words = [check_word(w) for w in judge.split(event.value)]
                if not words:
                    return
                ruling = judge.rule(words)
            except UsageError as exc:
                if exc.message.startswith(_UNSEEN):  # invisible: say how to get rid of it
                    message.update(f"{exc.message}: no ruling; Ctrl+U clears the field, then type the words again")
                elif exc.message.startswith("a word of"):
                    message.update(f"{exc.message}: no ruling")
                else:
                    message.update(exc.message)
                return
            if log is not None:
                try:
                    log.write(judge.record(ruling))  # on disk before the verdict is shown
                except OSError as exc:  # a full disk, a removed drive: no ruling that is not logged
                    message.update(
                        f"the audit log cannot be written ({exc.strerror or exc}): no ruling given; call the tournament director"
                    )
                    return
            self.rulings.append(ruling)
            event.input.value = ""
            message.update("")
            self._show_verdict(ruling.verdict, ruling.words)

        def on_input_changed(self, event: Input.Changed) -> None:
            # a key or a paste that went into the words field while a verdict shows clears it (the
            # field emptied by the ruling itself changes it to "", which clears nothing)
            if event.input.id == "words" and self.state == "verdict" and event.value:
                self.clear_verdict()
            # a refusal is about the entry it refused: once the field is edited or cleared it is stale
            if event.input.id == "words" and self.state == "entry":
                self.query_one("#message", Static).update("")

        def _show_verdict(self, verdict: str, words=()) -> None:
            self.state = "verdict"
            panel = self.query_one("#verdict", Static)
            # under the verdict, the words ruled on, all alike (as Zyzzyva's Word Judge shows them):
            # the players see what was judged, never which word failed
            ruled = " ".join(w.upper() for w in words)
            panel.update(big_text(verdict, self.size.width) + f"\n\n{verdict}" + (f"\n\n{ruled}" if ruled else ""))
            panel.set_classes("acceptable" if verdict == "ACCEPTABLE" else "unacceptable")
            if clear_after > 0:
                self._timer = self.set_timer(clear_after, self.clear_verdict)

        def clear_verdict(self) -> None:
            """Back to the empty entry screen (nothing of the last ruling stays visible)."""
            if self._timer is not None:
                self._timer.stop()
                self._timer = None
            panel = self.query_one("#verdict", Static)
            panel.update("")
            panel.set_classes("")
            if self.state == "verdict":
                self.state = "entry"
                self._focus_words()

        def _focus_words(self) -> None:
            words = self.query_one("#words", Input)
            if self.focused is not words:
                self.set_focus(words)  # at once (Widget.focus() waits a turn: keys would pass it by)

        def on_key(self, event) -> None:
            # keys the words field did not take (Enter, Escape, arrows…) or that reached the screen
            if self.state == "verdict":
                self.clear_verdict()  # any key clears the verdict
            if self.state == "entry":
                words = self.query_one("#words", Input)
                if self.focused is not words and event.is_printable and event.character:
                    event.stop()  # a key that passed the field by (focus elsewhere): into the field
                    self._focus_words()
                    words.insert_text_at_cursor(event.character)
            elif self.state == "leave" and password is None:
                event.stop()
                if event.key in ("y", "Y"):
                    self.exit(0)
                else:
                    self._back_from_leave()
            elif self.state == "leave" and event.key == "escape":
                event.stop()
                self._back_from_leave()

        # -- leaving ------------------------------------------------------------------------------
        def action_leave(self) -> None:
            if self.state == "leave":
                return
            self.clear_verdict()
            self.state = "leave"
            self.query_one("#entry").display = False
            box = self.query_one("#leave")
            box.display = True
            text = self.query_one("#leave-text", Static)
            pw = self.query_one("#password", Input)
            if password is None:
                text.update("Leave the Word Judge? Press Y to leave, any other key to go back.")
                pw.display = False
                self.set_focus(None)
            else:
                text.update("The station is locked. Type the password and press Enter to leave (Escape goes back).")
                pw.display = True
                pw.value = ""
                pw.focus()

        def _check_password(self, typed: str) -> None:
            if password is not None and hmac.compare_digest(typed.encode("utf-8"), password.encode("utf-8")):
                self.exit(0)
                return
            self.query_one("#password", Input).value = ""
            self._back_from_leave("wrong password")

        def _back_from_leave(self, note: str = "") -> None:
            self.state = "entry"
            self.query_one("#leave").display = False
            self.query_one("#entry").display = True
            self.query_one("#message", Static).update(note)
            self._focus_words()

    return WordJudgeApp()


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
