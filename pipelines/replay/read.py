"""Finding game files (``collect_files``) and reading one as a :class:`~gamecore.gamelog.Game`
(``read_game_file``: GCG or Netskrafl JSON record, by content)."""

from __future__ import annotations

import os
from pathlib import Path

from gamecore.errors import UsageError
from gamecore.gamelog import Game, GameLogError, read_game_bytes


def read_game_file(path: str | Path, *, strict: bool = False) -> Game:
    """Read a GCG file or a Netskrafl JSON record, by content (a record starts with ``{``); a file
    of more than :data:`gamecore.text.GAME_FILE_MAX` bytes is ``FILE_TOO_LARGE``.

    Raises:
        GameLogError."""
    from gamecore.gcg import parse_gcg_bytes
    from gamecore.netskrafl_record import parse_netskrafl_record

    path = str(path)
    data = read_game_bytes(path)  # at most GAME_FILE_MAX bytes: FILE_TOO_LARGE beyond
    from gamecore.text import strip_bom

    head = strip_bom(data[:64]).lstrip()
    if path.lower().endswith(".json") or head.startswith(b"{"):
        import json

        try:
            obj = json.loads(strip_bom(data).decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise GameLogError(
                "RECORD_MALFORMED", f"not a JSON game record: {str(exc)[:200]}", path, getattr(exc, "lineno", None)
            ) from None
        return parse_netskrafl_record(obj, path=path, strict=strict)
    return parse_gcg_bytes(data, path=path, strict=strict)


def collect_files(items: list[str]) -> list[str]:
    """Files named, and the ``.gcg``/``.json`` files under named folders (sorted, recursive; links
    to folders are not followed, unreadable folders skipped), each file once: see
    :func:`collect_game_files` (which also counts the repeats dropped).

    Raises:
        UsageError: a path that does not exist."""
    return collect_game_files(items)[0]


def collect_game_files(items: list[str]) -> tuple[list[str], int]:
    """The game files of ``items`` and how many repeats were dropped: ``(files, repeats)``.

    Files named, and the ``.gcg``/``.json`` files under named folders (sorted, recursive; links
    to folders are not followed, unreadable folders skipped), in the order of ``items``.

    Each file is given once, by its resolved path (``os.path.realpath``): the same file named
    twice (``ns ns/ ./ns``, a path listed twice on stdin, a link to a file also found in a folder)
    is replayed once, under the first name it was found by; the later names are dropped and
    counted. The order is that of ``items`` (folders sorted), so the same arguments give the same
    files in the same order.

    Hidden entries (names starting with ``.``) under a named folder are skipped: a skrafl output
    inside it (``replay --export-gcg x``) is a link ``x`` to its hidden generation ``.x.gen-XXXX``
    (:mod:`pipelines.atomic`), and stale generations of a killed run lie beside it; neither is
    read, so a folder holding games and their export reads each game once. A path named on the
    command line is read whatever its name (``skrafl replay x`` reads that export).

    Paths are built as text (``os.scandir``, no ``Path`` object per file): a folder of a million
    games costs the million path strings, not several times that (the resolved paths are only
    made when a repeat is possible: more than one item, or a link to a file in the folder).

    Raises:
        UsageError: a path that does not exist."""
    groups: list[tuple[str | None, list[str]]] = []  # (folder walked or None for a file named, its files)
    links: set[str] = set()  # files found under a folder that are symbolic links
    for item in items:
        p = Path(item)
        if p.is_dir():
            found: list[str] = []
            _walk(str(p), found, links)
            found.sort()
            groups.append((str(p), found))
        elif p.exists():
            groups.append((None, [str(p)]))
        else:
            raise UsageError(f"no such file or folder: {item}")
    if len(groups) == 1 and not links:
        return groups[0][1], 0  # one folder without links to files (or one file): no file twice
    out: list[str] = []
    seen: set[str] = set()
    repeats = 0
    for folder, files in groups:
        real_root = os.path.realpath(folder) if folder is not None else None
        for f in files:
            if real_root is None or f in links:
                key = os.path.realpath(f)
            else:  # under a folder walked without following links: its real path, without a syscall
                rel = f if folder == "." else f[len(folder) :].lstrip(os.sep)
                key = os.path.join(real_root, rel)
            if key in seen:
                repeats += 1
                continue
            seen.add(key)
            out.append(f)
    return out, repeats


_SUFFIXES = (".gcg", ".json")


def _walk(folder: str, found: list[str], links: set[str] | None = None) -> None:
    """Append the game files under ``folder`` (as ``Path.rglob`` + ``is_file`` would find them);
    those that are symbolic links (to a file) also to ``links``."""
    subfolders = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue  # hidden: skrafl's generation folders, editors' and systems' own files
                try:
                    if entry.is_dir(follow_symlinks=False):
                        subfolders.append(entry.name)
                    elif os.path.splitext(entry.name)[1].lower() in _SUFFIXES and entry.is_file():
                        path = os.path.join(folder, entry.name) if folder != "." else entry.name
                        found.append(path)
                        if links is not None and entry.is_symlink():
                            links.add(path)
                except OSError:
                    continue
    except PermissionError:
        return
    for name in subfolders:
        _walk(os.path.join(folder, name) if folder != "." else name, found, links)
