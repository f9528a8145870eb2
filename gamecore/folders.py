"""Reading skrafl output folders: find the generation a visible path names, and check it is whole.

Every output folder (a lexicon, an ingest, a replay, an elo run…) is written by one command as a
*generation*: a hidden sibling folder ``.NAME.gen-XXXX`` holding every file of that run and a
marker file ``.skrafl-output`` (JSON: the command that wrote it, the format version and, for each
file, its size and SHA-256). The visible path ``NAME`` is a symbolic link to the current
generation, replaced atomically by the writer (:mod:`pipelines.atomic`). A reader resolves the
link once (:func:`open_output`) and reads every file from the generation it found, so it never
mixes two runs; it checks the files' sizes against the marker and, for batch inputs, their
SHA-256 (:func:`checksums_by_default`), and refuses a folder that does not match.

Standard library only: the game core loads lexicons through this module.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from gamecore.errors import DataError

MARKER = ".skrafl-output"
FORMAT = 1
GEN = ".gen-"
#: The commands a marker names that are options of another command, as a user types them.
COMMANDS_SHOWN = {"replay-svg": "replay --export-svg", "replay-export": "replay --export-gcg"}


def command_shown(command: object) -> str:
    """A marker's ``command`` as the user runs it: ``replay --export-svg`` for ``replay-svg``."""
    return COMMANDS_SHOWN.get(str(command), str(command))


def read_marker(folder: Path) -> dict | None:
    """The parsed marker of ``folder``, ``{}`` for a marker of an older skrafl (plain text), or
    None when there is none."""
    try:
        text = (Path(folder) / MARKER).read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except (OSError, UnicodeDecodeError):
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) and data.get("format") == FORMAT else {}


def output_root(folder: Path) -> tuple[Path, dict] | None:
    """The output a resolved ``folder`` belongs to: itself or the nearest ancestor with a marker
    (a tier folder such as ``output/is/midlungur`` belongs to the build's generation), with its
    marker; None when none of them has one."""
    for candidate in (folder, *folder.parents):
        marker = read_marker(candidate)
        if marker is not None:
            return candidate, marker
    return None


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks."""
    import hashlib  # here: readers that only resolve a folder never need it

    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def verify(root: Path, marker: dict, under: str = "", checksums: bool = False) -> None:
    """Check that the files ``marker`` lists (those below ``under``, a relative folder) are
    present with their recorded sizes (and SHA-256 with ``checksums``).

    Raises:
        DataError: a file missing, of another size or another checksum (the folder is damaged or
            was changed by hand: write it again).
    """
    prefix = f"{under}/" if under else ""
    for rel, info in marker.get("files", {}).items():
        if prefix and not rel.startswith(prefix):
            continue
        path = root / rel
        try:
            size = os.stat(path).st_size
        except OSError:
            raise DataError(
                f"incomplete output: {rel} is missing (written by 'skrafl {command_shown(marker.get('command'))}'): run it again",
                root,
            ) from None
        if size != info.get("size"):
            raise DataError(
                f"damaged output: {rel} has {size} bytes, its marker says {info.get('size')}: run 'skrafl {command_shown(marker.get('command'))}' again",
                root,
            )
        if checksums and sha256_of(path) != info.get("sha256"):
            raise DataError(
                f"damaged output: {rel} does not match its checksum: run 'skrafl {command_shown(marker.get('command'))}' again",
                root,
            )


#: what a reader opens that is checked by size only by default: the lexicon (loaded by every
#: check, judge, best and score start-up, where reading it whole to hash it would cost more than
#: the command) and an ingest's entries; ``SKRAFL_VERIFY=1`` checks their SHA-256 too
SIZE_CHECKED = frozenset({"lexicon", "entries"})


def checksums_by_default(what: str) -> bool:
    """Whether :func:`open_output` checks SHA-256 when its caller does not say: yes for every batch
    input (replay outputs, datasets and their partitions, elo state: a flipped bit in them changed
    reports silently), not for what :data:`SIZE_CHECKED` names unless ``SKRAFL_VERIFY`` is set."""
    return what not in SIZE_CHECKED or os.environ.get("SKRAFL_VERIFY", "") not in ("", "0")


def open_output(path: Path | str, what: str = "output", checksums: bool | None = None) -> Path:
    """Resolve a visible output path to the generation folder it names now, checked whole.

    Every file the caller then reads must be read from the returned folder (not from ``path``
    again), so that a run replacing the output meanwhile cannot mix two generations.

    Args:
        path: the visible folder (``output/is``, ``output/is/midlungur``, an ``--out`` folder).
        what: what the caller expects there, for messages (``lexicon``, ``elo state``).
        checksums: also check every file's SHA-256 (sizes are always checked); None: as
            :func:`checksums_by_default` says for ``what``.
    Raises:
        DataError: not a folder; no marker (not written by skrafl, or by an older version); a
            file missing or of the wrong size.
    """
    path = Path(path)
    folder = Path(os.path.realpath(path))
    if not folder.is_dir():
        if folder.exists():
            article = "an" if what[:1] in "aeiou" else "a"
            raise DataError(f"not {article} {what} folder (a folder written by skrafl is expected)", path)
        raise DataError(f"no {what} here (no such folder)", path)
    found = output_root(folder)
    if found is None:
        raise DataError(f"not a skrafl output (no {MARKER} marker): write it with skrafl first", path)
    root, marker = found
    if not marker:
        raise DataError(f"written by an older skrafl (its {MARKER} has no file list): write it again", path)
    under = folder.relative_to(root).as_posix() if folder != root else ""
    verify(root, marker, under, checksums_by_default(what) if checksums is None else checksums)
    return folder
