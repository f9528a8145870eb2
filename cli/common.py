"""Helpers shared by every subcommand: error reporting, output formats, stdin, default paths.

Kept light on purpose: this module is imported on every ``skrafl`` start, so it imports only the
standard library and typer. Heavy libraries (polars, pyarrow, numpy) are imported inside the
functions that need them.
"""

from __future__ import annotations

import json
import os
import sys
from enum import Enum
from itertools import islice
from pathlib import Path
from typing import Callable, Iterable, Sequence, cast

import typer

from gamecore.errors import SkraflError, UsageError


class OutputFormat(str, Enum):
    """How a command prints its results: aligned columns for people, TSV or JSON for scripts."""

    table = "table"
    tsv = "tsv"
    json = "json"


class BoardFormat(str, Enum):
    """How a board file is written: GCG case (uppercase tile, lowercase blank), Netskrafl's, or CGP."""

    gcg = "gcg"
    netskrafl = "netskrafl"
    cgp = "cgp"


class Coords(str, Enum):
    """Coordinate order: GCG (8D across, D8 down) or Netskrafl's (H4 across, 4H down)."""

    gcg = "gcg"
    netskrafl = "netskrafl"


FORMAT_OPTION = typer.Option(
    OutputFormat.table, "--format", "-f", help="Output format: table (for people), tsv or json (for scripts)."
)
QUIET_OPTION = typer.Option(False, "--quiet", "-q", help="No progress bars or summaries on stderr (for pipelines).")


def project_root() -> Path:
    """The folder holding ``cli/`` (the source checkout, with an editable install)."""
    return Path(__file__).resolve().parents[1]


def output_root() -> Path:
    """Where built artifacts live: ``$SKRAFL_OUTPUT``, else the checkout's ``output/`` folder
    when it exists, else ``./output``."""
    env = os.environ.get("SKRAFL_OUTPUT")
    if env:
        return Path(env)
    candidate = project_root() / "output"
    return candidate if candidate.is_dir() else Path("output")


def lexicon_folder(lexicon: str | Path | None, lang: str | None) -> Path:
    """``--lexicon DIR``, else the built lexicon of ``--lang L`` (``output/L``); the caller has
    refused a command line with neither."""
    if lexicon is not None:
        return Path(lexicon)
    assert lang is not None  # --lang or --lexicon, checked by the caller
    return output_root() / lang


_SHOWN_AS: dict[str, str] = {}


def show_path_as(real: str | Path, shown: str) -> None:
    """Name ``real`` as ``shown`` in the error line of this run (a temporary copy of standard
    input is ``-``, as the user gave it)."""
    _SHOWN_AS[str(real)] = shown


def shown_paths(message: str) -> str:
    """``message`` with the paths given to :func:`show_path_as` named as shown (``-:LINE``)."""
    for real, shown in sorted(_SHOWN_AS.items(), key=lambda kv: -len(kv[0])):
        message = message.replace(real, shown)
    return message


def fail(error: SkraflError | str) -> "typer.Exit":
    """Print one error line on stderr and return the exit-2 exception to raise."""
    typer.echo(f"skrafl: error: {error}", err=True)
    return typer.Exit(2)


def read_items(
    items: Sequence[str],
    word: Callable[[str, tuple], str] | None = None,
    limit: int | None = None,
    what: str = "word",
    name: str | None = None,
) -> list[str]:
    """Command-line items, where ``-`` stands for the lines of standard input (blank lines skipped,
    a leading BOM dropped), each stripped and in Unicode NFC (:func:`gamecore.text.nfc`: an NFD
    ``ýf`` is the same word as an NFC one). ``word(text, where)``, if given, checks and returns each
    item (``where`` is ``("-", LINE)`` for a stdin line, ``()`` for an argument, whose error then
    names it: ``argument N: …``). An item is at most ``limit`` characters (default
    :data:`gamecore.text.WORD_MAX`; ``what`` names it in the error); a longer stdin line is refused
    after reading at most :data:`gamecore.text.LINE_CAP` bytes of it. ``name``: what an argument's
    error calls it (``PATTERN``, ``--anagram``) instead of ``argument N``.

    Raises:
        UsageError: an argument or a stdin line that is not valid UTF-8 (stdin: with its line
            number), an empty argument, an item over the length limit
            (``-:LINE: a word of N characters (at most 64)``), or what ``word`` refuses.
    """
    from gamecore.text import WORD_MAX, capped_lines, nfc, strip_bom, word_too_long

    limit = WORD_MAX if limit is None else limit
    word = word or (lambda text, where: nfc(text.strip()))
    out: list[str] = []
    for n, item in enumerate(items, start=1):
        if item == "-":
            for lineno, raw, length in capped_lines(sys.stdin.buffer):
                if length is not None:
                    raise UsageError(word_too_long(length, limit, what), "-", lineno)
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise UsageError("not UTF-8: convert the input to UTF-8 first", "-", lineno) from None
                line = (strip_bom(line) if lineno == 1 else line).strip()
                if len(line) > limit:
                    raise UsageError(word_too_long(len(line), limit, what), "-", lineno)
                if line:
                    out.append(word(line, ("-", lineno)))
        else:
            arg = name or f"argument {n}"
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise UsageError(f"{arg} is not valid UTF-8: {item.encode('utf-8', 'replace').decode()!r}") from None
            if not item.strip():
                raise UsageError(f"{arg} is empty: give a word")
            if len(item.strip()) > limit:
                raise UsageError(f"{arg}: {word_too_long(len(item.strip()), limit, what)}")
            try:
                out.append(word(item, ()))
            except UsageError as exc:
                raise UsageError(f"{arg}: {exc.message}") from None
    return out


def parse_day(text: str, option: str = "--date"):
    """A UTC day given on the command line (``YYYY-MM-DD``), between 1970-01-01 and 9999-12-01: a
    game day (``--date 0001-01-01`` ran steps whose day arithmetic then overflowed: an internal
    error after outputs were written).

    Raises:
        UsageError: not such a day (one line)."""
    import datetime as dt

    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"{option} {text!r}: expected YYYY-MM-DD") from None
    if not dt.date(1970, 1, 1) <= day <= dt.date(9999, 12, 1):
        raise UsageError(f"{option} {text}: expected a day between 1970-01-01 and 9999-12-01 (a day games were played)")
    return day


def input_file(path: str | Path, what: str, option: str) -> Path:
    """``path`` as a file to read (``what``: ``board``, ``batch``, ``game``; ``option`` the option
    that named it): a regular file, or anything else that reads like one (``/dev/null``, a FIFO,
    a character device), which is read as it is.

    Raises:
        UsageError: nothing there (``no board file X``), a folder (``--board X is a folder, not a
            file``), a socket, or a path that cannot be looked at (a folder on the way that may not
            be entered): what it is, not that it is missing.
    """
    import errno
    import stat

    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise UsageError(f"no {what} file {path}") from None
    except OSError as exc:
        if exc.errno in (errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG):
            raise UsageError(f"no {what} file {path}") from None
        raise UsageError(f"cannot read the {what} file {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{option} {path} is a folder, not a file")
    if stat.S_ISSOCK(st.st_mode):
        raise UsageError(f"{option} {path} is a socket, not a file")
    return p


def picture_target(path: Path, option: str, inputs: Sequence[object] = ()) -> Path:
    """A picture the command will write (``--svg``, ``show --out``), checked before any work: it
    ends in .svg or .png, its folder exists, and it is neither an input nor inside an input folder
    or a skrafl output (:func:`gamecore.picture.check_picture_target`)."""
    if path.suffix.lower() not in (".svg", ".png"):
        raise UsageError(f"{option} must end in .svg or .png; got {path.name!r}")
    if not path.absolute().parent.is_dir():
        raise UsageError(f"{option} {path}: the folder {path.parent} does not exist")
    from gamecore.picture import check_picture_target

    return check_picture_target(path, inputs)  # never over an input, nor into a skrafl output


def terminal_width() -> int | None:
    """The terminal's width in columns when standard output is one (or ``$COLUMNS`` is set), else
    None: a table for a person is cut to fit, output for a script never."""
    import shutil

    if os.environ.get("COLUMNS") or sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def emit(
    rows: Iterable[Sequence[object]], columns: Sequence[str], fmt: OutputFormat, header: bool = True, max_width: int | None = None
) -> None:
    """Print rows as an aligned table, TSV (with a header line) or a JSON array of objects.

    ``max_width``: in ``table`` format, cut each line to this many characters (ending in ``…``)."""
    table: list[list[object]] = [list(r) for r in rows]
    if fmt == OutputFormat.json:
        out = sys.stdout
        json.dump([dict(zip(columns, r, strict=False)) for r in table], out, ensure_ascii=False, indent=1)
        out.write("\n")
        return
    if any(len(r) != len(columns) for r in table):  # a row of another width: cell by cell, as it always was
        _emit_ragged(table, columns, fmt, header, max_width)
        return
    cols = [list(c) for c in zip(*table, strict=True)] if table else [[] for _ in columns]
    emit_columns(cols, columns, fmt, header, max_width)


def _emit_ragged(
    rows: list[list[object]], columns: Sequence[str], fmt: OutputFormat, header: bool, max_width: int | None
) -> None:
    out = sys.stdout
    text_rows = [[_text(v) for v in r] for r in rows]
    if fmt == OutputFormat.tsv:
        if header:
            out.write("\t".join(columns) + "\n")
        out.write("".join("\t".join(r) + "\n" for r in text_rows))
        return
    widths = [len(c) for c in columns]
    for r in text_rows:
        widths = [max(w, len(v)) for w, v in zip(widths, r, strict=False)]

    def line(cells: Sequence[str]) -> str:
        text = "  ".join(v.ljust(w) for v, w in zip(cells, widths, strict=False)).rstrip()
        return text if max_width is None or len(text) <= max_width else text[: max(1, max_width - 1)] + "…"

    out.write("".join(line(r) + "\n" for r in ([list(columns)] if header else []) + text_rows))


_CHUNK = 1 << 16  # lines joined per write: one write per chunk, not per line


def _text(v: object) -> str:
    return v if type(v) is str else "" if v is None else str(v)


def emit_columns(
    cols: Sequence[Sequence[object]], columns: Sequence[str], fmt: OutputFormat, header: bool = True, max_width: int | None = None
) -> None:
    """:func:`emit` for data held by column (``cols[i]`` the values of ``columns[i]``, all of one
    length): the same output, made column by column (widths by ``max(map(len, …))``, each line by
    one format string, written in chunks), so a table of millions of rows costs about what TSV does."""
    out = sys.stdout
    if fmt == OutputFormat.json:
        json.dump([dict(zip(columns, r, strict=True)) for r in zip(*cols, strict=True)], out, ensure_ascii=False, indent=1)
        out.write("\n")
        return
    text = [cast("Sequence[str]", c) if all(type(v) is str for v in c) else list(map(_text, c)) for c in cols]
    if fmt == OutputFormat.tsv:
        lines = map("\t".join, zip(*text, strict=True)) if text else iter(())
        if header:
            out.write("\t".join(columns) + "\n")
    else:
        widths = [max(len(name), max(map(len, c), default=0)) for name, c in zip(columns, text, strict=True)]
        template = "  ".join(f"{{:<{w}}}" for w in widths)  # format(s, "<w") is s.ljust(w)
        template = template[: template.rindex("{")] + "{}"  # the last column is not padded: rstrip drops it anyway

        def fit(line: str) -> str:
            return line if max_width is None or len(line) <= max_width else line[: max(1, max_width - 1)] + "…"

        lines = map(str.rstrip, map(template.format, *text)) if text else iter(())
        if max_width is not None:
            lines = map(fit, lines)
        if header:
            out.write(fit(template.format(*columns).rstrip()) + "\n")
    while True:
        chunk = list(islice(lines, _CHUNK))
        if not chunk:
            break
        out.write("\n".join(chunk) + "\n")


__all__ = [
    "BoardFormat",
    "Coords",
    "FORMAT_OPTION",
    "QUIET_OPTION",
    "OutputFormat",
    "SkraflError",
    "UsageError",
    "emit",
    "emit_columns",
    "fail",
    "input_file",
    "output_root",
    "read_items",
    "terminal_width",
]


class PrintBeforeSwap:
    """A command's printing, done while its new output is still a stage (``before_swap`` of the
    pipelines' writers, :func:`pipelines.atomic.output_dir`), both streams flushed there: a write
    that fails (a full disk, ``> /dev/full``) fails the run before the swap, so the previous output
    is kept and the exit status is 2 (``cli.main``). A reader that closed the pipe (``| head``)
    has what it wanted: the output is swapped in all the same, then :meth:`done` raises the
    closed pipe for ``cli.main`` to end with 0, as every command does."""

    def __init__(self, printer):
        self.printer = printer
        self.pipe_closed: BrokenPipeError | None = None

    def __call__(self, *args) -> None:
        try:
            self.printer(*args)
            _flush(sys.stdout)
            _flush(sys.stderr)
        except BrokenPipeError as exc:
            self.pipe_closed = exc

    def done(self) -> None:
        """Once the output is swapped in: raise the closed pipe, if the reader closed it."""
        if self.pipe_closed is not None:
            raise self.pipe_closed


def _flush(stream) -> None:
    stream.flush()  # the stream is this frame's local: gamecore.errors.raised_writing_stdout tells a failed stdout by it
