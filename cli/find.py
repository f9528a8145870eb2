"""``skrafl find``: pattern, anagram and hook search over a built lexicon."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from cli.check import lexicon_dir
from cli.common import QUIET_OPTION, OutputFormat, emit, read_items


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
    """
    from gamecore.errors import UsageError
    from gamecore.lexicon import Lexicon

    if sum(x is not None for x in (pattern, anagram, hooks)) == 0:
        raise UsageError("give a PATTERN, --anagram RACK or --hooks WORD")
    if hooks is not None and (pattern is not None or anagram is not None):
        raise UsageError("--hooks takes no PATTERN or --anagram")
    lex = Lexicon.load(lexicon_dir(lang, lexicon))
    if hooks is not None:
        word = read_items([hooks])[0]
        front, back = lex.hooks(word)
        key = lex.key(word)
        row = [key, front, back, "yes" if key in lex else "no"]
        if fmt == OutputFormat.json:
            json.dump(
                {"word": key, "front_hooks": list(front), "back_hooks": list(back), "valid": key in lex},
                sys.stdout,
                ensure_ascii=False,
            )
            sys.stdout.write("\n")
        else:
            emit([row], ["word", "front_hooks", "back_hooks", "valid"], fmt)
        raise typer.Exit(0 if front or back else 1)
    words = None
    if anagram is not None:
        words = lex.anagrams(read_items([anagram])[0])
    if pattern is not None:
        from gamecore.text import PATTERN_MAX

        words = lex.match(read_items([pattern], limit=PATTERN_MAX, what="pattern")[0], words)
    if length is not None:
        words = [w for w in words if len(w) == length]
    if limit is not None:
        words = words[:limit]
    if fmt == OutputFormat.json:
        json.dump(words, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    elif fmt == OutputFormat.table:
        emit([[w, len(w)] for w in words], ["word", "length"], fmt)
    else:
        sys.stdout.write("".join(w + "\n" for w in words))
    raise typer.Exit(0 if words else 1)


def register(app: typer.Typer) -> None:
    app.command("find")(find)
