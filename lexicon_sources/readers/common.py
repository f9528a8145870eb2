"""Small helpers shared by the dump readers: batching rows into pyarrow record batches, reading
text lines with a clear error for a wrong encoding (and in Unicode NFC), whole numbers within the
bounds of their column, and the version string of a file or package."""

from __future__ import annotations

import contextlib
import datetime
import gc
from pathlib import Path
from typing import Any, Iterator

from gamecore.errors import DataError
from gamecore.text import DUMP_LINE_MAX, bounded_lines, nfc, strip_bom

BATCH_ROWS = 200_000


class Batcher:
    """Collect rows column by column and hand them out as record batches of ``schema``."""

    def __init__(self, schema: Any, size: int = BATCH_ROWS) -> None:
        self.schema = schema
        self.size = size
        self.cols: dict[str, list] = {name: [] for name in schema.names}

    def add(self, **row: Any) -> None:
        for name, col in self.cols.items():
            col.append(row.get(name))

    def __len__(self) -> int:
        return len(self.cols["form"])

    def full(self) -> bool:
        return len(self) >= self.size

    def take(self) -> Any:
        import pyarrow as pa

        batch = pa.RecordBatch.from_pydict(self.cols, schema=self.schema)
        self.cols = {name: [] for name in self.schema.names}
        return batch


def too_long(cap: int, what: str) -> str:
    """The message for a line over ``cap`` bytes (read no further: :func:`gamecore.text.bounded_lines`)."""
    return f"a line of more than {cap} bytes: not a line of a {what}"


def check_line_lengths(path: Path, cap: int = DUMP_LINE_MAX, what: str = "file") -> None:
    """Read ``path`` once, a line of at most ``cap`` bytes at a time, and refuse a longer line:
    for readers that hand a whole file to a parser (so that no line of it is huge).

    Raises:
        DataError: a line of more than ``cap`` bytes (file and line)."""
    with open(path, "rb") as fh:
        for lineno, raw in bounded_lines(fh, cap):
            if raw is None:
                raise DataError(too_long(cap, what), path, lineno)


def text_lines(path: Path, encoding: str = "utf-8", what: str = "file", cap: int = DUMP_LINE_MAX) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, line without its newline)`` of a text file, each line in Unicode NFC
    (the first without a leading byte-order mark: :func:`gamecore.text.strip_bom`); a line is read
    up to ``cap`` bytes, no further (:func:`gamecore.text.bounded_lines`).

    Raises:
        DataError: the file is missing, empty, a line is longer than ``cap`` bytes or not in
        ``encoding`` (the line is named).
    """
    path = Path(path)
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        raise DataError(f"{what} not found", path) from None
    with fh:
        lineno = 0
        for lineno, raw in bounded_lines(fh, cap):
            if raw is None:
                raise DataError(too_long(cap, what), path, lineno)
            try:
                line = raw.decode(encoding)
            except UnicodeDecodeError as exc:
                raise DataError(
                    f"not {encoding.upper()} (byte {raw[exc.start]:#04x}); the {what} is read as {encoding.upper()}",
                    path,
                    lineno,
                ) from None
            if lineno == 1:
                line = strip_bom(line)
            yield lineno, nfc(line.rstrip("\r\n"))
        if lineno == 0:
            raise DataError(f"empty {what}", path, 1)


INT_BOUNDS = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
"""Bounds of the pyarrow integer types the reader schemas use."""


def whole_number(value: str, kind: str, what: str, path: Path, line: int) -> int:
    """``value`` (optional ``-``, then ASCII digits) as an int within the bounds of ``kind``
    (``int8`` … ``int64``, :data:`INT_BOUNDS`).

    Raises:
        DataError: not a whole number, or out of range (``what`` names the field; file and line).
    """
    low, high = INT_BOUNDS[kind]
    digits = value[1:] if value.startswith("-") else value
    if not (digits and digits.isascii() and digits.isdigit()):
        raise DataError(f"{what}: expected a whole number, got {value[:40]!r}", path, line)
    n = int(value) if len(digits) <= 20 else high + 1
    if not low <= n <= high:
        raise DataError(f"{what}: {value[:40]} is out of range (expected {low}..{high})", path, line)
    return n


def file_version(path: Path) -> str:
    """``NAME (BYTES bytes, YYYY-MM-DD)`` of a dump file (its modification day, UTC)."""
    st = Path(path).stat()
    day = datetime.datetime.fromtimestamp(st.st_mtime, datetime.timezone.utc).date().isoformat()
    return f"{Path(path).name} ({st.st_size} bytes, {day})"


def dist_versions(*dists: str) -> str:
    """``dist X / dist Y`` from the installed distributions (``(not installed)`` when missing)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    parts = []
    for dist in dists:
        try:
            parts.append(f"{dist} {dist_version(dist)}")
        except PackageNotFoundError:
            parts.append(f"{dist} (not installed)")
    return " / ".join(parts)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a reader makes millions of small objects
    (parsed dictionary entries, row lists): it would rescan them all again and again, which can
    double a reader's time. Restored on exit, also on error or an abandoned generator."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _worker_ignores_sigint() -> None:
    """Pool initializer: SIGINT ignored (a Ctrl-C reaches the whole process group; the parent
    stops the pool), then unblocked (it was blocked from the start: :func:`worker_pool`)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def worker_pool(workers: int) -> Iterator[Any]:
    """A ``spawn`` process pool whose workers ignore SIGINT, terminated when the block ends.

    A Ctrl-C goes to the whole process group: a worker that took it would die with a traceback on
    stderr and its task would be lost. The workers start with SIGINT blocked (so none can take it
    before its initializer ignores it) and the parent, which gets the same Ctrl-C, stops the pool.
    """
    import multiprocessing
    import signal

    ctx = multiprocessing.get_context("spawn")
    old = None
    if hasattr(signal, "pthread_sigmask"):  # children (and the pool's threads) inherit this mask
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pool = ctx.Pool(workers, initializer=_worker_ignores_sigint)
    finally:
        if old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)  # a Ctrl-C meanwhile is delivered now
    try:
        yield pool
    finally:
        pool.terminate()
