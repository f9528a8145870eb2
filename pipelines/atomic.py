"""Output folders: written only where skrafl may write, replaced whole and atomically.

One discipline for every command that writes a folder (``ingest``, ``build``, ``diff``,
``replay``, ``replay --export-gcg``, ``elo``):

- **Ownership.** A command writes only to a path that does not exist, an empty folder, or its own
  previous output: a symbolic link to a generation folder whose marker names the same command.
  Anything else — a file, a folder of other files, another command's output, a symbolic link it
  did not make, a folder inside another output, the current folder or a parent, an input or a
  folder holding an input — is refused with one :class:`UsageError` before anything is touched.
- **Whole and atomic.** A run writes a new generation, a hidden sibling ``.NAME.gen-XXXX``, fsyncs
  its files, writes the marker (command, and size and SHA-256 of every file: see
  :mod:`gamecore.folders`), then swaps the visible ``NAME`` — a symbolic link — onto it with one
  ``rename``. A reader resolving ``NAME`` sees the old generation or the new one, whole. The old
  generation is removed after the swap; a kill at any moment leaves at most stale hidden folders,
  removed by the next run that succeeds.
- **A failed run changes nothing.** An exception (bad input, disk full, Ctrl-C) removes the stage;
  the visible path still names the previous generation.
- **One writer at a time.** Writers take an exclusive ``flock`` on ``.NAME.lock`` beside the
  output (removed when the run ends); a second writer fails at once with one line.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Iterable, Iterator

from gamecore.errors import OutputError, SkraflError, UsageError, is_disk_full, raised_writing_stdout
from gamecore.folders import FORMAT, GEN, MARKER, command_shown, output_root, read_marker, sha256_of
from pipelines.stops import (  # noqa: F401  (the stops were defined here before; re-exported)
    Signalled,
    StopState,
    check_stop,
    hold_stops,
    install_stop_handlers,
    output_begun,
    signals_held,
    stop_requested,
)

_STAGE_FLAG = ".skrafl-stage"  # in a generation being written; gone once its marker is in place


def _generation_re(name: str) -> re.Pattern:
    return re.compile(rf"^\.{re.escape(name)}(?:\.gen-|\.link-|\.old-)[A-Za-z0-9_]+$")


def _describe(marker: dict | None) -> str:
    return f"the output of 'skrafl {command_shown(marker.get('command'))}'" if marker else "an output of an older skrafl"


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_placement(target: Path | str, inputs: Iterable[Path | str] = ()) -> Path:
    """Refuse a folder to write (an output, a dataset) by where it lies, whatever is there; return
    it absolute. Refused: the root folder, the current folder or a parent of it, an input or a
    folder holding one, a folder inside an input folder or inside a skrafl output (inputs given as
    URLs are not paths and are passed over).

    Raises:
        UsageError: one line saying where it lies and what to do.
    """
    visible = Path(os.path.abspath(target))
    if visible.parent == visible:
        raise UsageError(f"{target}: is the root folder; give a new folder")
    cwd = Path.cwd().resolve()
    real = Path(os.path.realpath(visible))
    if _inside(cwd, visible) or _inside(cwd, real):
        raise UsageError(f"{target}: is the current folder or one of its parents; give a new folder")
    for item in inputs:
        if isinstance(item, str) and "://" in item:
            continue
        src = Path(os.path.realpath(item))
        if _inside(src, real) or _inside(src, visible):
            raise UsageError(f"{target}: is or holds the input {item}; give another folder (inputs are never written)")
        if src.is_dir() and (_inside(real, src) or _inside(visible, src)):
            raise UsageError(
                f"{target}: lies inside the input folder {item}; give a folder outside it (inputs are never written)"
            )
    parent_real = Path(os.path.realpath(visible.parent))
    enclosing = output_root(parent_real) if parent_real.exists() else None
    if enclosing is not None:
        raise UsageError(f"{target}: lies inside {_describe(enclosing[1])} ({enclosing[0]}); give a folder outside it")
    return visible


def check_output_dir(target: Path | str, command: str, inputs: Iterable[Path | str] = ()) -> Path:
    """Refuse an output path that a run of ``command`` must not write; return it absolute.

    Called by :func:`output_dir` (again, under the lock) and by commands before any work, so a
    bad ``--out`` costs nothing.

    Args:
        target: the visible output path (``--out``).
        command: the command that will own it (``build``, ``replay``…).
        inputs: the run's input files and folders: the output may be none of them, hold none of
            them, and lie inside none of the folders.
    Raises:
        UsageError: one line saying what is there and what to do.
    """
    target = Path(target)
    visible = check_placement(target, inputs)
    real = Path(os.path.realpath(visible))
    if visible.is_symlink():
        link = os.readlink(visible)
        if not _generation_re(visible.name).match(link) or "/" in link:
            raise UsageError(f"{target}: is a symbolic link that skrafl did not make; give a new folder")
        marker = read_marker(real) if real.is_dir() else None
        if marker and marker.get("command") != command:
            raise UsageError(
                f"{target}: is {_describe(marker)}; 'skrafl {command_shown(command)}' writes only its own outputs: give another folder"
            )
        return visible
    if not visible.exists():
        return visible
    if not visible.is_dir():
        raise UsageError(f"{target}: exists and is not a folder; the output needs a folder")
    if not any(visible.iterdir()):
        return visible
    marker = read_marker(visible)
    if marker is None:
        if (visible / "dataset.json").is_file():
            raise UsageError(
                f"{target}: is a replay dataset (dataset.json): give it as --dataset {target}, or a new or empty folder "
                "for --out (nothing was changed)"
            )
        raise UsageError(
            f"{target}: is a folder of files that skrafl did not write; give a new or empty folder (nothing was changed)"
        )
    if not marker:
        raise UsageError(
            f"{target}: was written by an older skrafl (no file list in its {MARKER}); remove it or give a new folder"
        )
    if marker.get("command") != command:
        raise UsageError(
            f"{target}: is {_describe(marker)}; 'skrafl {command_shown(command)}' writes only its own outputs: give another folder"
        )
    return visible


class OutputLock:
    """An exclusive, non-blocking ``flock`` on ``.NAME.lock`` beside the output, released by the
    kernel if the process dies (a kill never leaves it held). The file is removed, still locked,
    when the run ends, so a run leaves no trace but its output; a writer that locked a file that
    was meanwhile removed (stat of the path ≠ fstat of its descriptor) tries again."""

    def __init__(self, visible: Path, command: str) -> None:
        import fcntl

        self.path = visible.with_name(f".{visible.name}.lock")
        for _ in range(100):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                os.close(fd)
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise
                raise UsageError(
                    f"{visible}: another skrafl run is writing this output; try again when it has finished"
                ) from None
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self.fd = fd
                return
            os.close(fd)  # the holder removed it as we opened it: take the new one
        raise UsageError(f"{visible}: cannot take the lock {self.path}")

    def release(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        os.close(self.fd)


def tidy_lock(target: Path | str) -> None:
    """Remove the lock file ``.NAME.lock`` a killed writer left beside the output ``target``, for a
    caller that finds the output whole and does not write it again (the nightly job's kept lexicon).
    It is taken first and removed still held, as a run removes its own; one a live run holds is
    left alone."""
    visible = Path(os.path.abspath(target))
    if not os.path.lexists(visible.with_name(f".{visible.name}.lock")):
        return
    with contextlib.suppress(SkraflError, OSError):
        OutputLock(visible, "").release()


def _clean_stale(visible: Path, keep: str | None) -> None:
    """Remove hidden leftovers of killed runs beside ``visible``: stages, links, old generations
    (never the current generation ``keep``). Called under the lock."""
    pattern = _generation_re(visible.name)
    for entry in visible.parent.iterdir():
        if entry.name == keep or not pattern.match(entry.name):
            continue
        if entry.is_symlink() or entry.is_file():
            entry.unlink(missing_ok=True)
        elif entry.is_dir() and ((entry / _STAGE_FLAG).exists() or (entry / MARKER).exists() or not any(entry.iterdir())):
            shutil.rmtree(entry, ignore_errors=True)


def _fsync_tree(folder: Path) -> dict[str, dict]:
    """fsync every file and folder below ``folder``; return ``{relative path: {size, sha256}}``
    in sorted order."""
    files: dict[str, dict] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(folder).as_posix()
            if rel in (MARKER, _STAGE_FLAG):
                continue
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            files[rel] = {"size": path.stat().st_size, "sha256": sha256_of(path)}
        _fsync_dir(Path(dirpath))
    return dict(sorted(files.items()))


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def exchange_paths(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False where unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _commit(stage: Path, visible: Path, command: str) -> None:
    """Write the marker into ``stage`` and make ``visible`` name it, atomically."""
    files = _fsync_tree(stage)
    from importlib.metadata import PackageNotFoundError, version

    try:
        skrafl = version("skrafl")
    except PackageNotFoundError:
        skrafl = None
    marker = {"format": FORMAT, "command": command, "skrafl": skrafl, "files": files}
    marker_path = stage / MARKER
    with open(marker_path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(marker, ensure_ascii=False, indent=1) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    (stage / _STAGE_FLAG).unlink(missing_ok=True)
    _fsync_dir(stage)

    with signals_held():  # the swap is never cut in two; a stop recorded before it prevents it
        if StopState.signum is not None:
            raise Signalled(StopState.signum)
        _swap(stage, visible)


def _swap(stage: Path, visible: Path) -> None:
    old = os.readlink(visible) if visible.is_symlink() else None
    link = Path(tempfile.mktemp(prefix=f".{visible.name}.link-", dir=visible.parent))
    os.symlink(stage.name, link)
    if visible.is_dir() and not visible.is_symlink():
        # an empty folder, or a copy of an output of this command: swap it out whole
        if not exchange_paths(link, visible):
            aside = Path(tempfile.mktemp(prefix=f".{visible.name}.old-", dir=visible.parent))
            os.rename(visible, aside)
            os.rename(link, visible)
            link = aside
        shutil.rmtree(link, ignore_errors=True)
    else:
        os.replace(link, visible)
    # the swap is done: nothing below may fail the run (the caller would remove the new output)
    with contextlib.suppress(OSError):
        _fsync_dir(visible.parent)
    if old is not None and _generation_re(visible.name).match(old):
        shutil.rmtree(visible.parent / old, ignore_errors=True)


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def output_dir(target: Path | str, command: str, inputs: Iterable[Path | str] = ()) -> Iterator[Path]:
    """Yield a fresh, empty stage folder; on success it becomes the whole output at ``target``.

    Args:
        target: the visible output path.
        command: the command that owns the output (named in its marker).
        inputs: the run's inputs (see :func:`check_output_dir`).
    Raises:
        UsageError: the target is refused (:func:`check_output_dir`) or locked by another run.
    On an exception in the block the stage is removed and ``target`` is unchanged.
    """
    inputs = list(inputs)
    visible = check_output_dir(target, command, inputs)
    created = [p for p in (visible.parent, *visible.parent.parents) if not p.exists()]
    visible.parent.mkdir(parents=True, exist_ok=True)
    try:
        lock = OutputLock(visible, command)
    except BaseException:
        _remove_empty(created)
        raise
    committed = False
    stage: Path | None = None
    try:
        visible = check_output_dir(target, command, inputs)  # again, now that no one else writes
        replaces = os.path.lexists(visible)  # an earlier output, which a failed or stopped run keeps
        try:
            with signals_held():  # a stop now would leave a stage no handler knows of
                output_begun(replaces)
                stage = Path(tempfile.mkdtemp(prefix=f".{visible.name}{GEN}", dir=visible.parent))
                os.chmod(stage, 0o777 & ~current_umask())  # mkdtemp makes it private; an output is an ordinary folder
                (stage / _STAGE_FLAG).touch()
            yield stage
            check_stop()  # a stop recorded on the way (even one a library swallowed): never swap it in
            _commit(stage, visible, command)
            committed = True
        except BaseException as exc:
            # (before the stage is removed, which frees the space)
            # (a full standard output, /dev/full, is said as such by the CLI)
            # a library's unexplained IO error (marisa-trie's RuntimeError) on a file system with
            # almost no room left is the full disk too; an error about the input never is
            full = (
                isinstance(exc, Exception)
                and not isinstance(exc, SkraflError)
                and (is_disk_full(exc) or (isinstance(exc, (OSError, RuntimeError)) and device_full(visible.parent)))
                and not raised_writing_stdout(exc)
            )
            with signals_held():  # a second Ctrl-C must not cut the cleanup short
                # a stop may land just after the swap: never remove the generation the output names
                if stage is not None and not (visible.is_symlink() and os.readlink(visible) == stage.name):
                    shutil.rmtree(stage, ignore_errors=True)
            if full:
                # whichever library said it (pyarrow, polars, a write): one line naming the output
                kept = ", the previous one is kept" if replaces else ""
                raise OutputError(f"no space left on the device for this output: nothing was changed{kept}", visible) from None
            raise
        with contextlib.suppress(OSError):  # the new output is in place: leftovers are only tidied
            _clean_stale(visible, keep=stage.name)
    finally:
        with signals_held():
            lock.release()
            if not committed:
                _remove_empty(created)


def device_full(folder: Path) -> bool:
    """Whether the file system of ``folder`` has less than 1 MiB left for this user: an error of a
    library that does not say why its write failed (marisa-trie's ``MARISA_IO_ERROR``) is then
    the full disk."""
    try:
        st = os.statvfs(folder)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < 1 << 20


def _remove_empty(folders: list[Path]) -> None:
    """Remove the folders a failed run created for its output (deepest first), if still empty."""
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()
