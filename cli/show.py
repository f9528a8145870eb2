"""``skrafl show``: draw a position as a picture (SVG or PNG)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from cli.common import QUIET_OPTION
from cli.score import BoardFormat, Coords

HELP = (
    "Draw a position as SVG or PNG (by the --out suffix): the layout's premium squares in the usual "
    "colours with their labels (TW, DW, TL, DL; QW, QL on the 21×21 board), the start star, tiles with "
    "letter and value (a blank: red letter in a dashed ring, no value), the play's new tiles "
    "highlighted, coordinates on the edges, the rack below and, for a game, the scores above (▶ = on "
    "turn).\n\n"
    "Position: --board FILE (--board-format gcg, netskrafl or cgp), --cgp 'CGP', or --game FILE "
    "--move N (the position before event N of a GCG file or Netskrafl record; without --move the end "
    "of the game). The game system (board layout, tile values) comes from --rules, the lexicon "
    "(--lang/--lexicon) or the game log.\n\n"
    "Exit status: 0 picture written; 2 usage or input error, or an illegal --play (one line on stderr)."
)


def show(
    out: Path = typer.Option(..., "--out", "-o", help="The picture file: .svg or .png."),
    board: Optional[str] = typer.Option(None, "--board", "-b", help="Board file: one line per row, '.' empty (GCG case: uppercase tile, lowercase blank)."),
    board_format: BoardFormat = typer.Option(BoardFormat.gcg, "--board-format", help="gcg, netskrafl (lowercase tile, uppercase blank) or cgp."),
    cgp: Optional[str] = typer.Option(None, "--cgp", help="The position as a CGP string (its first rack is drawn)."),
    game: Optional[Path] = typer.Option(None, "--game", help="A GCG file or Netskrafl JSON record."),
    move: Optional[int] = typer.Option(None, "--move", min=1, help="With --game: the position before this event (1 = the first)."),
    play: Optional[str] = typer.Option(None, "--play", "-p", help="A play to place and highlight: '8D WORD' (GCG; lowercase = blank). 'recorded' = the game's play at --move."),
    rack: Optional[str] = typer.Option(None, "--rack", "-r", help="The rack drawn below the board ('?' = blank). Default: the CGP's or the game's rack."),
    lang: Optional[str] = typer.Option(None, "--lang", "-l", help="Language (its built lexicon's rules and tile set)."),
    lexicon: Optional[Path] = typer.Option(None, "--lexicon", help="A lexicon folder written by 'skrafl build' (its rules)."),
    rules: Optional[str] = typer.Option(None, "--rules", help="Rules preset (netskrafl, wespa, ordspill, erudit, …) or a .toml file."),
    coords: Coords = typer.Option(Coords.gcg, "--coords", help="Edge labels and --play order: gcg (columns A–O, rows 1–15) or netskrafl (rows A–O, columns 1–15)."),
    quiet: bool = QUIET_OPTION,
) -> None:
    from cli.score import load_position, lexicon_folder
    from gamecore.adjudicate import adjudicate
    from gamecore.errors import UsageError
    from gamecore.picture import PositionPicture, write_picture

    if out.suffix.lower() not in (".svg", ".png"):
        raise UsageError(f"--out must end in .svg or .png; got {out.name!r}")
    lex = None
    folder = lexicon_folder(lang, lexicon)
    if folder is not None and not rules and game is None:
        from gamecore.lexicon import Lexicon

        lex = Lexicon.load(folder)
    pos = load_position(board=board, board_format=board_format, cgp=cgp, game=game, move=move, rules=rules, lang=lang, lex=lex)
    rack_tiles = pos.rack
    if rack is not None:
        from gamecore.text import nfc

        rack_tiles = pos.board.tile_set.parse_rack(nfc(rack.strip())) if rack.strip() else []
    played, caption = None, ""
    play_coords = coords.value
    if play == "recorded":
        if pos.recorded_play is None:
            raise UsageError("--play recorded needs --game FILE --move N at a tile play")
        play, play_coords = pos.recorded_play, "gcg"
    if play is not None:
        ruling = adjudicate(pos.board, play, None, None, pos.rules, play_coords)
        if not ruling.legal:
            raise UsageError(f"--play {play!r} is not legal here: {ruling.reason[0]}: {ruling.reason[1]}")
        played = ruling.played
        caption = f"{ruling.coord} {ruling.main_word()} {ruling.score}"
    pic = PositionPicture(pos.board, play=played, rack=rack_tiles, players=pos.players, scores=pos.scores,
                          mover=pos.mover if pos.players else None, coords=coords.value, caption=caption)
    write_picture(pic, out)
    if not quiet:
        typer.echo(f"show: {pos.what or 'position'} → {out}", err=True)


def register(app: typer.Typer) -> None:
    app.command(
        "show",
        help=HELP,
        epilog="Example: skrafl show --lang is --board riddle.board --play '8D JOINT' --out riddle.png",
    )(show)
