"""``skrafl find``: pattern, anagram and hook search over a built lexicon."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from cli.check import check_word, lexicon_dir
from cli.common import QUIET_OPTION, OutputFormat, emit, emit_columns, read_items


def find(
    pattern: Optional[str] = typer.Argument(
        None,
        metavar="[PATTERN]",
        help="? one letter, * any run of letters, \\[abc] one of a set, \\[^abc] none of it; other letters as themselves.",
    ),
    lang: Optional[str] = typer.Option(None, "--lang", "-l", help="Language whose built lexicon to search (output/LANG)."),
    lexicon: Optional[Path] = typer.Option(None, "--lexicon", help="A lexicon folder written by 'skrafl build'."),
    anagram: Optional[str] = typer.Option(None, "--anagram", "-a", help="Words using every tile of RACK once ('?' = a blank)."),
    hooks: Optional[str] = typer.Option(
        None, "--hooks", help="Front and back hooks of WORD: the letters that make a word before or after it."
    ),
    length: Optional[int] = typer.Option(None, "--length", "-n", min=1, help="Only words of this many letters."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="At most this many words."),
    fmt: OutputFormat = typer.Option(
        OutputFormat.tsv, "--format", "-f", help="tsv (one word per line, the default), table or json."
    ),
    quiet: bool = QUIET_OPTION,  # nothing but the words is printed: accepted as every command accepts it
) -> None:
    """Search a lexicon: words matching a pattern, anagrams of a rack, hooks of a word.

    Letters are the lexicon's alphabet (Icelandic ð þ æ ö; Norwegian æ ø å), in its order; input is keyed like a look-up (any case, folds: Norwegian é → e, Russian ё → е).

    Exit status: 0 words found, 1 none, 2 usage or data error.

    Examples:

      skrafl find --lang is 'h?st*'

      skrafl find --lang is --anagram 'ertsu?'

      skrafl find --lang nb '[æøå]??' --length 3

      skrafl find --lang is --hooks hest

    PATTERN, --anagram or --hooks '-' reads it from the one line of stdin (a second line is an
    error: run once per pattern). PATTERN with --anagram: the anagrams that match it.
    """
    from gamecore.errors import UsageError
    from gamecore.lexicon import Lexicon

    if sum(x is not None for x in (pattern, anagram, hooks)) == 0:
        raise UsageError("give a PATTERN, --anagram RACK or --hooks WORD")
    if hooks is not None and (pattern is not None or anagram is not None):
        raise UsageError("--hooks takes no PATTERN or --anagram")
    if [pattern, anagram, hooks].count("-") > 1:
        raise UsageError("only one of PATTERN, --anagram and --hooks can be '-' (standard input)")
    if hooks is not None and (length is not None or limit is not None):
        raise UsageError("--length and --limit choose among the words of PATTERN or --anagram; --hooks lists one word's hooks")
    if hooks is not None:
        word = _hooks_word(hooks)
    if anagram is not None:
        anagram = _one_item(anagram, "--anagram", "rack")
    if pattern is not None:
        from gamecore.text import PATTERN_MAX

        pattern = _one_item(pattern, "PATTERN", "pattern", PATTERN_MAX)
    lex = Lexicon.load(lexicon_dir(lang, lexicon))
    if hooks is not None:
        raise typer.Exit(_hooks(lex, word, fmt))
    words = lex.anagrams(anagram) if anagram is not None else None
    if pattern is not None:
        words = lex.match(pattern, words)  # with --anagram: the anagrams that match it
    assert words is not None  # a PATTERN or --anagram is given (--hooks has ended above)
    if length is not None:
        words = [w for w in words if len(w) == length]
    if limit is not None:
        words = words[:limit]
    out = sys.stdout  # a local: a write that fails (a full disk) names standard output (cli.main)
    if fmt == OutputFormat.json:
        json.dump(words, out, ensure_ascii=False)
        out.write("\n")
    elif fmt == OutputFormat.table:
        emit_columns([words, list(map(str, map(len, words)))], ["word", "length"], fmt)  # by column: as fast as tsv
    else:
        out.write("".join(w + "\n" for w in words))
    out.flush()
    raise typer.Exit(0 if words else 1)


def _hooks_word(hooks: str) -> str:
    """``--hooks``: one word, as check takes it (no space or control character), no wildcard."""
    from gamecore.errors import UsageError

    word = _one_item(hooks, "--hooks", "word", word=check_word)
    wild = next((ch for ch in word if ch in "?*[]"), None)
    if wild is not None:
        raise UsageError(f"--hooks takes a word, not a pattern: {wild!r} is a wildcard (find the words with PATTERN first)")
    return word


def _hooks(lex, word: str, fmt: OutputFormat) -> int:
    """The front and back hooks of ``word`` on stdout; the exit status (0 some hook, 1 none)."""
    front, back = lex.hooks(word)
    key = lex.key(word)
    out = sys.stdout  # a local: a write that fails names standard output
    if fmt == OutputFormat.json:
        json.dump(
            {"word": key, "front_hooks": list(front), "back_hooks": list(back), "valid": key in lex}, out, ensure_ascii=False
        )
        out.write("\n")
    else:
        emit([[key, front, back, "yes" if key in lex else "no"]], ["word", "front_hooks", "back_hooks", "valid"], fmt)
    out.flush()
    return 0 if front or back else 1


def _one_item(value: str, name: str, what: str, limit: int | None = None, word=None) -> str:
    """The one PATTERN, --anagram RACK or --hooks WORD of a run: the argument, or with ``-`` the
    one non-blank line of standard input (NFC, stripped; :func:`cli.common.read_items`).

    Raises:
        UsageError: an empty argument (``--anagram is empty: give a rack``), standard input with no
            line or more than one (``-:2: one pattern per run…``), or what ``read_items`` refuses
            (named ``NAME: …``). ``word(text, where)``: checks and returns the item (:func:`cli.check.check_word`).
    """
    from gamecore.errors import UsageError
    from gamecore.text import nfc

    if value != "-":
        if not value.strip():
            raise UsageError(f"{name} is empty: give a {what}")
        return read_items([value], word, limit=limit, what=what, name=name)[0]
    lines: list[int] = []

    def keep(text: str, where: tuple) -> str:
        lines.append(where[1])
        if len(lines) > 1:
            raise UsageError(f"one {what} per run: standard input holds a second (run 'skrafl find' once per {what})", *where)
        return word(text, where) if word is not None else nfc(text.strip())

    items = read_items(["-"], keep, limit=limit, what=what)
    if not items:
        raise UsageError(f"{name} -: standard input holds no {what} (give one line)")
    return items[0]


def register(app: typer.Typer) -> None:
    app.command("find")(find)
