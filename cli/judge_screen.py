"""The Word Judge station's screen (``skrafl judge``, :mod:`cli.judge`): the Textual app, its words
field, and the big verdict letters. Imported only when the screen is shown, so every other command
starts without Textual."""

from __future__ import annotations

import hmac
from functools import lru_cache

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Input, Static

from cli.check import check_word
from gamecore.errors import UsageError

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

    def __init__(self, judge, *, log=None, clear_after: float = 5.0, password: str | None = None) -> None:
        super().__init__()
        self.word_judge, self.audit_log, self.clear_after, self.leave_password = judge, log, clear_after, password
        self.rulings: list = []
        self.state = "entry"
        self._timer: Timer | None = None  # the verdict's clearing, when one is set

    def compose(self) -> ComposeResult:
        size = len(self.word_judge.lexicon)
        yield Static(
            f"Word Judge · lexicon {self.word_judge.name} · {size:,} words · manifest {self.word_judge.checksum[:12]}",
            id="header",
        )
        with Vertical(id="body"):
            with Vertical(id="entry"):
                yield Static(
                    f"Type the words of the play (up to {self.word_judge.max_words}, separated by spaces) and press Enter.",
                    id="prompt",
                )
                yield WordsInput(placeholder="words…", id="words")
                yield Static("", id="message")
            yield Static("", id="verdict")
            with Vertical(id="leave"):
                yield Static("", id="leave-text")
                yield Input(password=True, placeholder="password", id="password")
        yield Static("Enter: rule · Ctrl+Q: leave" + (" (password)" if self.leave_password is not None else ""), id="footer")

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
            words = [check_word(w) for w in self.word_judge.split(event.value)]
            if not words:
                return
            ruling = self.word_judge.rule(words)
        except UsageError as exc:
            if exc.message.startswith(_UNSEEN):  # invisible: say how to get rid of it
                message.update(f"{exc.message}: no ruling; Ctrl+U clears the field, then type the words again")
            elif exc.message.startswith("a word of"):
                message.update(f"{exc.message}: no ruling")
            else:
                message.update(exc.message)
            return
        if self.audit_log is not None:
            try:
                self.audit_log.write(self.word_judge.record(ruling))  # on disk before the verdict is shown
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
        if self.clear_after > 0:
            self._timer = self.set_timer(self.clear_after, self.clear_verdict)

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
        elif self.state == "leave" and self.leave_password is None:
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
        if self.leave_password is None:
            text.update("Leave the Word Judge? Press Y to leave, any other key to go back.")
            pw.display = False
            self.set_focus(None)
        else:
            text.update("The station is locked. Type the password and press Enter to leave (Escape goes back).")
            pw.display = True
            pw.value = ""
            pw.focus()

    def _check_password(self, typed: str) -> None:
        if self.leave_password is not None and hmac.compare_digest(typed.encode("utf-8"), self.leave_password.encode("utf-8")):
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
