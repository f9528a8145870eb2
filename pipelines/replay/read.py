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

        from gamecore.text import json_too_deep

        deep = json_too_deep(data)  # before json.loads, which recurses once per level
        if deep is not None:
            raise GameLogError("RECORD_MALFORMED", "not a JSON game record: nested too deeply", path, deep)
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

    Each file is given once, known by its device and inode (``os.stat``, links followed): the same
    file named twice (``ns ns/ ./ns``, a path listed twice on stdin, a symbolic or hard link to a
    file also found) is replayed once, under the first name it was found by; the later names are
    dropped and counted. The order is that of ``items`` (folders sorted), so the same arguments
    give the same files in the same order.

    Hidden entries (names starting with ``.``) under a named folder are skipped: a skrafl output
    inside it (``replay --export-gcg x``) is a link ``x`` to its hidden generation ``.x.gen-XXXX``
    (:mod:`pipelines.atomic`), and stale generations of a killed run lie beside it; neither is
    read, so a folder holding games and their export reads each game once. A path named on the
    command line is read whatever its name (``skrafl replay x`` reads that export).

    Paths are built as text (``os.scandir``, no ``Path`` object per file): a folder of a million
    games costs the million path strings and a ``stat`` each (about 1 s), not several times that.

    Raises:
        UsageError: a path that does not exist."""
    out: list[str] = []
    seen: set[tuple[int, int] | str] = set()
    repeats = 0
    for item in items:
        p = Path(item)
        if p.is_dir():
            _not_another_output(item)
            found: list[str] = []
            _walk(str(p), found)
            found.sort()
        elif p.exists():
            found = [str(p)]
        else:
            raise UsageError(f"no such file or folder: {item}")
        for f in found:
            try:
                st = os.stat(f)
                key: tuple[int, int] | str = (st.st_dev, st.st_ino)
            except OSError:  # gone meanwhile: known by its name (reading it says what happened)
                key = f
            if key in seen:
                repeats += 1
                continue
            seen.add(key)
            out.append(f)
    return out, repeats


#: The skrafl outputs that hold game logs: a folder written by any other command (an elo output,
#: replay's tables, a compare report) holds no games, whatever its .json files are.
GAME_OUTPUTS = ("replay-export",)


def _not_another_output(item: str) -> None:
    """Refuse a named folder that another skrafl command wrote (its ``params.json`` read as a
    Netskrafl record made a RECORD_MALFORMED game)."""
    from gamecore.folders import command_shown, read_marker

    marker = read_marker(Path(item))
    if marker is not None and marker.get("command") not in GAME_OUTPUTS:
        what = f"the output of 'skrafl {command_shown(marker['command'])}'" if marker.get("command") else "a skrafl output"
        raise UsageError(f"{item}: is {what}, not game logs: give a folder of GCG files or Netskrafl records")


_SUFFIXES = (".gcg", ".json")


def _walk(folder: str, found: list[str]) -> None:
    """Append the game files under ``folder`` (as ``Path.rglob`` + ``is_file`` would find them)."""
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
                        found.append(os.path.join(folder, entry.name) if folder != "." else entry.name)
                except OSError:
                    continue
    except PermissionError:
        return
    for name in subfolders:
        _walk(os.path.join(folder, name) if folder != "." else name, found)
