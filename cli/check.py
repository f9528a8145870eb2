"""``skrafl check``: is a word (or a play's words) in the lexicon? The judge's command."""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path
from typing import List, Optional

import typer

from cli.common import QUIET_OPTION, OutputFormat, emit, output_root, read_items


def lexicon_dir(lang: Optional[str], lexicon: Optional[Path]) -> Path:
    """The lexicon folder from ``--lexicon DIR`` or ``--lang L`` (``output/L``).

    Raises:
        UsageError: neither or both given, or an unknown language.
    """
    from gamecore.errors import UsageError

    if lexicon is not None and lang is not None:
        raise UsageError("give --lang or --lexicon, not both")
    if lexicon is not None:
        return lexicon
    if lang is None:
        raise UsageError("give --lang L (the built lexicon output/L) or --lexicon DIR")
    from lexicon_sources import language

    return output_root() / language(lang).code


def check_word(text: str, where: tuple = ()) -> str:
    """One word as ``skrafl check`` takes it: stripped, in NFC, with no space inside and no control
    or format character (U+0001, a zero-width space); ``where`` (``(FILE, LINE)``) names it in the
    error. ``skrafl judge`` checks the words of a ruling with it.

    A word is at most :data:`gamecore.text.WORD_MAX` (64) characters in NFC (``skrafl check``
    refuses a longer one before reading it here; ``skrafl judge`` relies on this check).

    Raises:
        UsageError: ``one word per line expected`` (a stdin line) or ``… per argument``, ``a word
            of N characters (at most 64)``, ``a control character (U+0001) in a word`` (``an
            invisible format character (U+200B)`` for a zero-width space, a soft hyphen).
    """
    from gamecore.errors import UsageError
    from gamecore.text import WORD_MAX, nfc, word_too_long

    word = text.strip()
    if len(nfc(word)) > WORD_MAX:
        raise UsageError(word_too_long(len(nfc(word))), *where)
    if any(ch.isspace() for ch in word):
        raise UsageError("one word per line expected" if where and where[0] == "-" else "one word per argument expected", *where)
    bad = next((ch for ch in word if unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs")), None)
    if bad is not None:
        from gamecore.wordjudge import describe_char

        raise UsageError(f"{describe_char(bad)} in a word", *where)
    return nfc(word)


def read_words(items: List[str]) -> list[str]:
    """The words to check: each argument one word, ``-`` one word per stdin line (blank lines
    skipped, a leading BOM dropped), in NFC, each at most ``WORD_MAX`` (64) characters, each
    checked by :func:`check_word`. A word is never altered beyond NFC and the spaces around it.

    Raises:
        UsageError: an argument or line with a space inside (``-:LINE: one word per line
            expected``), a control character (a BOM past the start of the input too), a word of more
            than 64 characters, an empty argument, or input that is not UTF-8.
    """
    return read_items(items, check_word)


def check(
    words: List[str] = typer.Argument(
        ...,
        help="Words to check (any case); '-' reads one word per line from stdin (a line with a space inside is an error: -:LINE).",
    ),
    lang: Optional[str] = typer.Option(None, "--lang", "-l", help="Language whose built lexicon to use (output/LANG)."),
    lexicon: Optional[Path] = typer.Option(None, "--lexicon", help="A lexicon folder written by 'skrafl build'."),
    play: bool = typer.Option(False, "--play", help="Judge all words as one play: print only ACCEPTABLE or UNACCEPTABLE."),
    fmt: OutputFormat = typer.Option(
        OutputFormat.tsv, "--format", "-f", help="tsv (WORD<TAB>VALID, the default), table or json."
    ),
    quiet: bool = QUIET_OPTION,  # nothing but the verdicts is printed: accepted as every command accepts it
) -> None:
    """Check words: one line per word, WORD<TAB>VALID or WORD<TAB>INVALID.

    Exit status: 0 all valid, 1 any invalid, 2 usage or data error.

    Examples:

      skrafl check --lang is hestur xyz

      skrafl check --lang is --play þreKRAUN kaun      # a challenge: ACCEPTABLE / UNACCEPTABLE

      cat words.txt | skrafl check --lang is -
    """
    from gamecore.lexicon import Lexicon

    lex = Lexicon.load(lexicon_dir(lang, lexicon))
    items = read_words(words)
    if not items:  # only stdin can hold none (an empty argument is refused): no verdict on nothing
        from gamecore.errors import UsageError

        raise UsageError(f"no words to {'rule on' if play else 'check'} in -")
    verdicts = list(zip(items, lex.contains_many(items), strict=True))
    all_valid = all(ok for _, ok in verdicts)
    if play:
        verdict = "ACCEPTABLE" if all_valid else "UNACCEPTABLE"
        if fmt == OutputFormat.json:  # "valid" as why, find --hooks and score's words have it
            emit([[verdict, all_valid]], ["verdict", "valid"], fmt)
        else:
            typer.echo(verdict)
    else:
        rows = [[w, "VALID" if ok else "INVALID"] + [ok] * (fmt == OutputFormat.json) for w, ok in verdicts]
        emit(rows, ["word", "verdict", "valid"], fmt, header=fmt != OutputFormat.tsv)
    sys.stdout.flush()
    raise typer.Exit(0 if all_valid else 1)


def register(app: typer.Typer) -> None:
    app.command("check")(check)
