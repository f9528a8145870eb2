"""Atomic outputs: write to a temporary sibling, then rename into place.

A run that fails (bad input, a crash, Ctrl-C) leaves the previous good output exactly as it was;
readers never see a half-written file or folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; on success rename it to ``target``.

    Works for a file or a folder written at the yielded path. On an exception the temporary path
    is removed and ``target`` is untouched.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent)) / target.name
    try:
        yield tmp
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
    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".stage-", dir=target))
    try:
        yield stage
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
