"""Errors shared by the whole toolkit.

Every error caused by bad input (a malformed file, an unknown letter, an unknown preset) is a
:class:`SkraflError`. The CLI prints it as one line, ``skrafl: error: FILE:LINE: MESSAGE``, and exits
with status 2; library callers catch it like any exception.
"""

from __future__ import annotations

from pathlib import Path


class SkraflError(Exception):
    """Bad input or a bad request, with where it came from.

    Attributes:
        message: what was wrong and what was expected.
        path: the file the error is in, if any.
        line: the 1-based line number in ``path``, if known.
    """

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = None if path is None else str(path)
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path + (f":{self.line}" if self.line is not None else "") + ": "
        elif self.line is not None:
            where = f"line {self.line}: "
        return where + self.message


class UsageError(SkraflError):
    """A request that cannot be carried out as asked (unknown language, preset, option value)."""


class DataError(SkraflError):
    """A data file that cannot be read as its format requires."""


class OutputError(SkraflError):
    """An output that could not be written (a full disk): nothing was changed."""


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` says the disk (or the user's quota) is full: an ``OSError`` with errno ENOSPC
    or EDQUOT, or a library's error that carries the system's words for it (pyarrow's ``[errno
    28]``, polars' ``(os error 28)``)."""
    import errno

    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(exc)
    return any(s in text for s in ("No space left on device", "Disk quota exceeded", "errno 28]", "os error 28)"))


def raised_writing_stdout(exc: BaseException) -> bool:
    """Whether ``exc`` was raised writing standard output (a full disk, /dev/full): the innermost
    Python frame it came through holds the stream (``emit``'s ``out``, ``click.echo``'s ``file``,
    a flush of ``sys.stdout``)."""
    import sys

    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    streams = [sys.stdout, sys.__stdout__]
    streams += [getattr(s, "buffer", None) for s in streams]
    streams += [getattr(s, "raw", None) for s in streams]  # cli.common.whole_stdout's writer under the buffer
    ids = {id(s) for s in streams if s is not None}
    values = list(tb.tb_frame.f_locals.values())
    if any(id(v) in ids for v in values):
        return True
    for v in values:  # a writer holding the stream: rich's Console (typer's help) writes to self.file
        try:
            held = getattr(v, "file", None)
        except Exception:  # noqa: BLE001  (a property that fails: not the stream)
            continue
        if held is not None and id(held) in ids:
            return True
    return False
