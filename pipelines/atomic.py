"""Atomic outputs: write to a temporary sibling, then rename into place.

A run that fails (bad input, a crash, Ctrl-C) leaves the previous good output exactly as it was;
readers never see a half-written file or folder. Output folders are guarded: an ``--out`` that is
a file, the current folder or one of its parents, or a folder of someone else's files (one
without the ``.skrafl-output`` marker every skrafl output folder carries) is refused with a
:class:`UsageError` instead of being replaced.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

from gamecore.errors import UsageError

MARKER = ".skrafl-output"


def check_output_dir(target: Path, replace: bool) -> Path:
    """Refuse an output folder that would destroy something; return it resolved.

    Args:
        target: the folder a command writes (``--out``).
        replace: True when the whole folder is replaced (not merged into).
    Raises:
        UsageError: ``target`` is a file; is the current folder or a parent of it; or, with
            ``replace``, is a non-empty folder without the ``.skrafl-output`` marker.
    """
    path = Path(target).resolve()
    if path.exists() and not path.is_dir():
        raise UsageError(f"{target}: exists and is not a folder; the output needs a folder")
    cwd = Path.cwd().resolve()
    if path == cwd or path in cwd.parents:
        raise UsageError(f"{target}: is the current folder or one of its parents; give a new folder")
    if replace and path.is_dir() and any(path.iterdir()) and not (path / MARKER).is_file():
        raise UsageError(
            f"{target}: refusing to replace a folder that skrafl did not write (no {MARKER} in it); "
            "give a new or empty folder"
        )
    return path


@contextlib.contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; on success rename it to ``target``.

    Works for a file or a folder written at the yielded path. On an exception the temporary path
    is removed and ``target`` is untouched.
    """
    target = Path(target)
    if existed_as_dir := target.is_dir():
        target = check_output_dir(target, replace=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent)) / target.name
    try:
        yield tmp
        if tmp.is_dir():
            if not existed_as_dir:
                check_output_dir(target, replace=True)
            (tmp / MARKER).write_text("written by skrafl; this folder may be replaced by the next run\n")
        _replace(tmp, target)
    finally:
        shutil.rmtree(tmp.parent, ignore_errors=True)


@contextlib.contextmanager
def staged_dir(target: Path) -> Iterator[Path]:
    """Yield an empty staging folder; on success move each of its entries into ``target``.

    Entries of ``target`` that the run did not write are kept (e.g. ``entries.parquet`` survives a
    ``build`` into the same folder). Each entry is swapped in by a rename, so every file is either
    the old or the new version. On an exception nothing in ``target`` changes.
    """
    target = check_output_dir(Path(target), replace=False)
    target.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".stage-", dir=target))
    try:
        yield stage
        (stage / MARKER).write_text("written by skrafl; this folder may be replaced by the next run\n")
        for entry in sorted(stage.iterdir()):
            _replace(entry, target / entry.name)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def write_bytes(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` atomically."""
    with atomic_path(Path(target)) as tmp:
        tmp.write_bytes(data)


def _replace(src: Path, dst: Path) -> None:
    """Rename ``src`` onto ``dst``; a folder ``dst`` is first moved aside, then deleted."""
    if src.is_dir() and dst.exists():
        trash = dst.with_name(f".{dst.name}.old-{os.getpid()}")
        shutil.rmtree(trash, ignore_errors=True)
        os.replace(dst, trash)
        os.replace(src, dst)
        shutil.rmtree(trash, ignore_errors=True)
    else:
        os.replace(src, dst)
