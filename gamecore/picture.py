"""Pictures of positions: a board drawn as SVG (and PNG through resvg), as a person expects it.

The layout's premium squares in the usual colours with their labels (TW red, DW pink, TL dark
blue, DL light blue; QW/QL of the 21×21 board darker still; punctured squares dark grey), the start
star, tiles with their letter and value (a blank's letter in red in a ring, with no value unless
the rules give blanks their letter's value),
the play's new tiles highlighted, coordinates on all four edges (GCG: columns A–O, rows 1–15;
``coords="netskrafl"``: rows A–O, columns 1–15), the rack below and every player's score above
for a game (2–4 players, ▶ on the player to move).

The SVG is written by a small template (no drawing library): every square is a ``<rect>`` with
``class="square TW"`` (its premium) and ``data-square="H8"`` (column letter, row number, GCG's
square names), every tile a ``<g class="tile">`` with ``data-square``, ``data-letter``,
``data-blank`` and ``data-new``, every rack tile a ``<g class="rack-tile">``, so tests and other
programs can read a picture back. PNG: :func:`png_bytes` renders the SVG with resvg (the
``resvg-py`` wheel bundles it; fonts: the system's, DejaVu Sans on Debian).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence
from xml.sax.saxutils import escape, quoteattr

from gamecore.board import Board
from gamecore.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gamecore.play import ScoredPlay

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: premium → (fill, label colour)
COLOURS = {
    "TW": ("#e0453a", "#ffffff"),
    "DW": ("#f5aaa3", "#7a2520"),
    "TL": ("#2e6db4", "#ffffff"),
    "DL": ("#a7d2ef", "#1d4a70"),
    "QW": ("#8e1b3a", "#ffffff"),
    "QL": ("#173d73", "#ffffff"),
    "X": ("#3c3c3c", "#bbbbbb"),
    "": ("#e8e2cf", "#000000"),
}
#: Erudit's own colours (its layout's source, Ksinia/erudite-client ``Board.css``: word ×3 salmon,
#: word ×2 orange, letter ×3 steel blue, letter ×2 yellow-green, each at half strength on white), so an
#: Erudit board does not look like a Scrabble one
ERUDIT_COLOURS = {
    "TW": ("#fcc0b8", "#7a2520"),
    "DW": ("#ffd280", "#6b4300"),
    "TL": ("#a2c0da", "#173d73"),
    "DL": ("#cce698", "#3d5a10"),
    "": ("#ffffff", "#000000"),
}
#: layout name → its palette (a layout not named here is drawn in Scrabble's colours)
PALETTES = {"erudit": ERUDIT_COLOURS}


def palette(layout_name: str) -> dict[str, tuple[str, str]]:
    """The colours of a layout's premium squares: its own where it has them, else Scrabble's."""
    own = PALETTES.get(layout_name.lower())
    return {**COLOURS, **own} if own else COLOURS


TILE_FILL, TILE_EDGE = "#f7e4b5", "#a88450"
NEW_FILL, NEW_EDGE = "#ffd54a", "#d35400"
BLANK_INK = "#c0392b"
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"

CELL = 40
EDGE = 22  # the band holding the coordinates


@dataclass
class PositionPicture:
    """What to draw.

    Attributes:
        board: the position (before the play).
        play: a :class:`gamecore.play.ScoredPlay` to place and highlight, or None.
        rack: the rack below the board (labels, ``?`` = blank), or None.
        players, scores: every player's name and score above the board (2–4), or None.
        mover: the index of the player on turn (marked ▶), or None (nobody: the end of a game).
        coords: ``gcg`` or ``netskrafl`` (the edge labels).
        blank_values: a blank shows the value it scores (rules with ``blank_value = "letter"``:
            the value of its letter); default: a blank shows no value (it scores 0).
        caption: a line under the rack (the ruling, say), or "".
    """

    board: Board
    play: ScoredPlay | None = None
    rack: Sequence[str] | None = None
    players: Sequence[str] | None = None
    scores: Sequence[int] | None = None
    mover: int | None = None
    coords: str = "gcg"
    caption: str = ""
    blank_values: bool = False


def square_name(row: int, col: int) -> str:
    """GCG's name of a square: column letter, row number (``H8``)."""
    return f"{LETTERS[col]}{row + 1}"


def _text(
    x: float,
    y: float,
    s: str,
    size: float,
    fill: str,
    *,
    weight: str = "normal",
    anchor: str = "middle",
    cls: str = "",
    extra: str = "",
) -> str:
    c = f' class="{cls}"' if cls else ""
    return (
        f'<text{c} x="{x:g}" y="{y:g}" font-size="{size:g}" font-weight="{weight}" fill="{fill}" '
        f'text-anchor="{anchor}" dominant-baseline="central"{extra}>{escape(s)}</text>'
    )


def _tile(
    x: float, y: float, size: float, label: str, value: int | None, blank: bool, new: bool, cls: str, attrs: str
) -> list[str]:
    """A tile at (x, y), top left, ``size`` wide: letter in the middle, value bottom right (a blank:
    its letter in a ring, and the value only when it scores one)."""
    fill, edge, width = (NEW_FILL, NEW_EDGE, 3) if new else (TILE_FILL, TILE_EDGE, 1.2)
    flags = f' data-blank="{int(blank)}" data-new="{int(new)}"'
    out = [f'<g class="{cls}{" new" if new else ""}{" blank" if blank else ""}"{attrs}{flags}>']
    pad = size * 0.06
    out.append(
        f'<rect x="{x + pad:g}" y="{y + pad:g}" width="{size - 2 * pad:g}" height="{size - 2 * pad:g}" rx="{size * 0.12:g}" '
        f'fill="{fill}" stroke="{edge}" stroke-width="{width}"/>'
    )
    shown = label if len(label) == 1 else label.title()
    font = size * (0.55 if len(shown) == 1 else 0.36)
    ink = BLANK_INK if blank else "#222222"
    out.append(_text(x + size * 0.46, y + size * 0.5, shown, font, ink, weight="bold", cls="letter"))
    if blank:
        out.append(
            f'<circle class="blank-mark" cx="{x + size * 0.46:g}" cy="{y + size * 0.5:g}" r="{size * 0.33:g}" '
            f'fill="none" stroke="{BLANK_INK}" stroke-width="1" stroke-dasharray="2,2"/>'
        )
    if value is not None:
        out.append(
            _text(x + size * 0.8, y + size * 0.78, str(value), size * 0.24, BLANK_INK if blank else "#222222", cls="value")
        )
    out.append("</g>")
    return out


def board_svg(pic: PositionPicture) -> str:
    """The SVG text of ``pic`` (UTF-8, no external resources)."""
    n = pic.board.size
    cell = CELL if n <= 15 else 32
    top = 40 if pic.players or pic.scores else 8
    rack_h = cell + 36 if pic.rack is not None else 0
    cap_h = 26 if pic.caption else 0
    grid = n * cell
    width = grid + 2 * EDGE + 16
    height = top + grid + 2 * EDGE + rack_h + cap_h + 8
    x0, y0 = 8 + EDGE, top + EDGE
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'font-family="{FONT}" data-size="{n}" data-layout={quoteattr(pic.board.layout.name)}>',
        f'<rect class="background" x="0" y="0" width="{width}" height="{height}" fill="#fbfaf5"/>',
    ]
    if pic.players or pic.scores:
        out += _scores_svg(pic, width, top)
    out += _squares_svg(pic, x0, y0, cell)
    out += _coords_svg(pic, x0, y0, cell)
    out += _tiles_svg(pic, x0, y0, cell)
    y = y0 + grid + EDGE + 8
    if pic.rack is not None:
        out += _rack_svg(pic, x0, y, cell)
        y += rack_h
    if pic.caption:
        out.append(_text(width / 2, y + cap_h / 2 - 6, pic.caption, 15, "#222222", cls="caption"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _scores_svg(pic: PositionPicture, width: int, top: int) -> list[str]:
    """The players' names and scores above the board, the one to move marked."""
    count = max(len(pic.players or ()), len(pic.scores or ()))
    names = list(pic.players or ()) + [f"player {i + 1}" for i in range(len(pic.players or ()), count)]
    scores = list(pic.scores or ()) + [""] * (count - len(pic.scores or ()))
    size = 17 if count <= 2 else 15 if count == 3 else 13
    out = ['<g class="scores">']
    for i in range(count):
        mark = "▶ " if pic.mover == i else ""
        out.append(
            _text(
                (2 * i + 1) * width / (2 * count),
                top / 2,
                f"{mark}{names[i]} {scores[i]}",
                size,
                "#222222",
                weight="bold" if pic.mover == i else "normal",
                cls="score",
                extra=f' data-player="{i}"' + (' data-to-move="1"' if pic.mover == i else ""),
            )
        )
    out.append("</g>")
    return out


def _squares_svg(pic: PositionPicture, x0: int, y0: int, cell: int) -> list[str]:
    """The board's frame and squares with their premiums and labels."""
    layout, n = pic.board.layout, pic.board.size
    grid = n * cell
    out = [
        f'<rect class="frame" x="{x0 - 2}" y="{y0 - 2}" width="{grid + 4}" height="{grid + 4}" fill="#5f5a4a"/>',
        '<g class="squares">',
    ]
    colours = palette(layout.name)
    for r in range(n):
        for c in range(n):
            kind = layout.premium(r, c)
            fill, ink = colours.get(kind, colours[""])
            x, y = x0 + c * cell, y0 + r * cell
            start = (r, c) == layout.start
            cls = "square" + (f" {kind}" if kind else "") + (" start" if start else "")
            out.append(
                f'<rect class="{cls}" data-square="{square_name(r, c)}" data-row="{r}" data-col="{c}" '
                f'x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" stroke="#ffffff" stroke-width="1.5"/>'
            )
            if start:
                out.append(_text(x + cell / 2, y + cell / 2, "★", cell * 0.6, ink if kind else "#7a2520", cls="star"))
            elif kind and kind != "X":
                out.append(_text(x + cell / 2, y + cell / 2, kind, cell * 0.3, ink, weight="bold", cls="label"))
            elif kind == "X":
                out.append(_text(x + cell / 2, y + cell / 2, "×", cell * 0.5, ink, cls="label"))
    out.append("</g>")
    return out


def _coords_svg(pic: PositionPicture, x0: int, y0: int, cell: int) -> list[str]:
    """The coordinates on the board's four edges."""
    n = pic.board.size
    grid = n * cell
    out = ['<g class="coords" fill="#555555">']
    for i in range(n):
        col_label = str(i + 1) if pic.coords == "netskrafl" else LETTERS[i]
        row_label = LETTERS[i] if pic.coords == "netskrafl" else str(i + 1)
        cx, cy = x0 + i * cell + cell / 2, y0 + i * cell + cell / 2
        for edge_y in (y0 - EDGE / 2 - 1, y0 + grid + EDGE / 2 + 1):
            out.append(_text(cx, edge_y, col_label, 12, "#555555", cls="coord col"))
        for edge_x in (x0 - EDGE / 2 - 1, x0 + grid + EDGE / 2 + 1):
            out.append(_text(edge_x, cy, row_label, 12, "#555555", cls="coord row"))
    out.append("</g>")
    return out


def _tiles_svg(pic: PositionPicture, x0: int, y0: int, cell: int) -> list[str]:
    """The tiles: those on the board, then the play's new ones."""
    board, n = pic.board, pic.board.size
    tiles: dict[tuple[int, int], tuple[str, bool, bool]] = {}
    for r in range(n):
        for c in range(n):
            sq = board.squares[r][c]
            if sq is not None:
                tiles[(r, c)] = (sq.label, sq.blank, False)
    if pic.play is not None:
        for p in pic.play.placements():
            tiles[(p.row, p.col)] = (p.label, p.blank, True)
    out = ['<g class="tiles">']
    for (r, c), (label, blank, new) in sorted(tiles.items()):
        attrs = f' data-square="{square_name(r, c)}" data-row="{r}" data-col="{c}" data-letter={quoteattr(label)}'
        value = board.tile_set.value(label) if not blank or pic.blank_values else None
        out += _tile(x0 + c * cell, y0 + r * cell, cell, label, value, blank, new, "tile", attrs)
    out.append("</g>")
    return out


def _rack_svg(pic: PositionPicture, x0: int, y: int, cell: int) -> list[str]:
    """The rack below the board, on its bar (a blank an empty tile)."""
    assert pic.rack is not None
    grid, size = pic.board.size * cell, cell
    out = [
        '<g class="rack">',
        f'<rect class="rack-bar" x="{x0}" y="{y + size - 4}" width="{grid}" height="10" rx="3" fill="#8d6e4a"/>',
    ]
    rx = x0 + (grid - len(pic.rack) * size) / 2
    for i, t in enumerate(pic.rack):
        blank = t == "?"
        attrs = f" data-letter={quoteattr('?' if blank else t)}"
        if blank:
            out.append(f'<g class="rack-tile blank"{attrs} data-blank="1">')
            out.append(
                f'<rect x="{rx + i * size + 2:g}" y="{y:g}" width="{size - 4}" height="{size - 4}" rx="{size * 0.12:g}" '
                f'fill="{TILE_FILL}" stroke="{TILE_EDGE}" stroke-width="1.2"/>'
            )
            out.append("</g>")
        else:
            out += _tile(rx + i * size, y, size, t, pic.board.tile_set.value(t), False, False, "rack-tile", attrs)
    out.append("</g>")
    return out


def png_bytes(svg: str, zoom: float = 1.0) -> bytes:
    """The SVG rendered as PNG by resvg (``resvg-py``).

    Raises:
        UsageError: resvg-py is not installed. DataError: resvg cannot render the SVG.
    """
    try:
        import resvg_py
    except ImportError:
        raise UsageError("PNG pictures need resvg-py: pip install resvg-py (or write .svg)") from None
    from gamecore.errors import DataError

    try:
        return bytes(resvg_py.svg_to_bytes(svg_string=svg, zoom=zoom, background="#ffffff"))
    except ValueError as exc:
        raise DataError(f"cannot render the picture as PNG: {exc}") from None


def write_picture(pic: PositionPicture, path: str | Path, inputs=()) -> Path:
    """Write ``pic`` to ``path`` as SVG or PNG (by the suffix); see :func:`save_svg`."""
    return save_svg(board_svg(pic), path, inputs)


def check_write_target(path: str | Path, inputs=(), what: str = "the picture", name_hint: str = "(.svg or .png)") -> Path:
    """Refuse a path a command writes a file of its own to (a picture, an audit log) that would
    write over an input or into a folder skrafl owns.

    An existing file at ``path`` may be written (a picture is replaced, as ``-o`` does in most
    tools; a log is appended to); but ``path`` may not be one of ``inputs`` (the files and folders
    the run reads; ``-`` and None are skipped) nor lie inside an input folder, nor inside the
    output of a skrafl command (a folder with a ``.skrafl-output`` marker: a lexicon, a replay, a
    dataset), nor be a folder. ``what`` names the file in the message (``the picture``, ``the
    audit log``), ``name_hint`` what its name should be.

    Raises:
        UsageError: one line, nothing written.
    """
    from gamecore.folders import command_shown, output_root

    path = Path(path)
    real = Path(os.path.realpath(path))
    if real.is_dir():
        raise UsageError(f"{path}: is a folder; give the file name of {what}" + (f" {name_hint}" if name_hint else ""))
    try:  # the file itself, whatever its name: a hard link of an input is that input
        st = os.stat(real)
        target, linked = (st.st_dev, st.st_ino), st.st_nlink > 1  # linked: other names may lie in an input folder
    except OSError:
        target, linked = None, False
    for given in inputs:
        if given is None or str(given) == "-":
            continue
        src = Path(os.path.realpath(given))
        if real == src or (target is not None and _file_id(given) == target):
            raise UsageError(f"{path}: is an input of this command; give another file for {what} (nothing was written)")
        if src.is_dir() and src in real.parents:
            raise UsageError(f"{path}: is inside the input folder {given}; give a path outside it (nothing was written)")
        if src.is_dir() and linked and target is not None and _holds(src, target):
            raise UsageError(
                f"{path}: is a file of the input folder {given} under another name (a hard link); "
                f"give another file for {what} (nothing was written)"
            )
    found = output_root(real.parent)
    if found is not None:
        root, marker = found
        command = marker.get("command") if isinstance(marker, dict) else None
        owner = f"'skrafl {command_shown(command)}'" if command else "a skrafl command"
        raise UsageError(f"{path}: is inside {root}, an output of {owner}; give a path outside it (nothing was written)")
    return path


def _file_id(path) -> tuple[int, int] | None:
    """``(st_dev, st_ino)`` of the file at ``path`` (links followed; ``/dev/stdin``: the file
    standard input comes from), or None when there is none."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _holds(folder: Path, target: tuple[int, int], limit: int = 100_000) -> bool:
    """Whether a file under ``folder`` is the file ``target`` (a hard link of it elsewhere: the
    same file under another name); at most ``limit`` entries looked at."""
    seen = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            seen += 1
            if seen > limit:
                return False
            try:
                st = os.stat(os.path.join(root, name), follow_symlinks=False)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) == target:
                return True
    return False


def check_picture_target(path: str | Path, inputs=()) -> Path:
    """:func:`check_write_target` for a picture (``show --out``, ``score --svg``, ``best --svg``)."""
    return check_write_target(path, inputs)


def _tidy_leftovers(path: Path) -> None:
    """Remove the temporary files a killed writer of this same picture left beside it
    (``.NAME.tmp-PID`` of a process that is gone): the next run of the command tidies them."""
    prefix = f".{path.name}.tmp-"
    try:
        names = [n for n in os.listdir(path.parent) if n.startswith(prefix) and n[len(prefix) :].isdigit()]
    except OSError:
        return
    for name in names:
        pid = int(name[len(prefix) :])
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
            continue  # a live writer's
        except ProcessLookupError:
            pass
        except OSError:
            continue  # another user's process: not ours to judge
        try:
            os.unlink(path.parent / name)
        except OSError:
            pass


def save_svg(svg: str, path: str | Path, inputs=()) -> Path:
    """Write SVG text to ``path`` as SVG or PNG (by the suffix), atomically: a temporary file in the
    same folder, written and fsynced, then renamed onto ``path`` (a reader sees the old picture or
    the new one, never half of one). :func:`check_picture_target` first.

    Raises:
        UsageError: a suffix other than .svg or .png, or a path refused by
            :func:`check_picture_target`; OSError: the file cannot be written.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".svg", ".png"):
        raise UsageError(f"picture file must end in .svg or .png; got {path.name!r}")
    check_picture_target(path, inputs)
    data = svg.encode("utf-8") if suffix == ".svg" else png_bytes(svg)
    _tidy_leftovers(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:  # name the file asked for, not the temporary one
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


__all__ = [
    "COLOURS",
    "ERUDIT_COLOURS",
    "palette",
    "PositionPicture",
    "board_svg",
    "check_picture_target",
    "check_write_target",
    "png_bytes",
    "save_svg",
    "square_name",
    "write_picture",
]
