"""``skrafl show``: draw a position as a picture (SVG or PNG)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Optional

import typer

from cli.common import QUIET_OPTION, BoardFormat, Coords, picture_target
from cli.position import (
    BOARD_FORMAT_OPTION,
    BOARD_OPTION,
    CGP_OPTION,
    GAME_OPTION,
    LANG_OPTION,
    LEXICON_OPTION,
    MOVE_OPTION,
    RULES_OPTION,
)

HELP = (
    "Draw a position as SVG or PNG (by the --out suffix): the layout's premium squares in the usual "
    "colours with their labels (TW, DW, TL, DL; QW, QL on the 21×21 board), the start star, tiles with "
    "letter and value (a blank: red letter in a dashed ring), the play's new tiles highlighted, "
    "coordinates on the edges, the rack below and, for a game, the scores above (▶ = on turn).\n\n"
    "A blank shows the letter's value in red under rules where a blank scores it. Coordinates (the "
    "edges and the caption's) follow --coords. Every player's score is drawn (2–4 players) for a game "
    "or a CGP string; ▶ marks the player on turn: a CGP's first score, nobody at the end of a "
    "finished game.\n\n"
    "--play is checked as score checks it: a play that cannot be made here, tiles not on the rack "
    "included when a rack is known (--rack, the CGP's or the game's), is refused.\n\n"
    "Position: --board FILE (--board-format gcg, netskrafl or cgp), --cgp 'CGP', or --game FILE "
    "--move N (the position before event N of a GCG file or Netskrafl record; without --move the end "
    "of the game). The game system (board layout, tile values) comes from --rules, the lexicon "
    "(--lang/--lexicon) or the game log.\n\n"
    "Exit status: 0 picture written; 2 usage or input error, or an illegal --play (one line on stderr)."
)


def show(
    out: Path = typer.Option(..., "--out", "-o", help="The picture file: .svg or .png."),
    board: Optional[str] = BOARD_OPTION,
    board_format: BoardFormat = BOARD_FORMAT_OPTION,
    cgp: Optional[str] = CGP_OPTION,
    game: Optional[Path] = GAME_OPTION,
    move: Optional[int] = MOVE_OPTION,
    play: Optional[str] = typer.Option(
        None,
        "--play",
        "-p",
        help="A play to place and highlight: '8D WORD' (GCG; lowercase = blank). 'recorded' = the game's play at --move.",
    ),
    rack: Optional[str] = typer.Option(
        None, "--rack", "-r", help="The rack drawn below the board ('?' = blank). Default: the CGP's or the game's rack."
    ),
    lang: Optional[str] = LANG_OPTION,
    lexicon: Optional[Path] = LEXICON_OPTION,
    rules: Optional[str] = RULES_OPTION,
    coords: Optional[Coords] = typer.Option(
        None,
        "--coords",
        help="Edge labels, the caption's coordinate and --play order: gcg (columns A–O, rows 1–15; 8D across) "
        "or netskrafl (rows A–O, columns 1–15; H4 across). Default: netskrafl for a Netskrafl game record, else gcg.",
    ),
    quiet: bool = QUIET_OPTION,
) -> None:
    from cli.position import broken_note, lexicon_folder, load_position
    from gamecore.adjudicate import adjudicate
    from gamecore.errors import UsageError
    from gamecore.picture import PositionPicture, write_picture

    picture_target(out, "--out", (board, game))
    lex = None
    folder = lexicon_folder(lang, lexicon)
    if folder is not None and not rules and game is None:
        from gamecore.lexicon import Lexicon

        lex = Lexicon.load(folder)
    pos = load_position(board=board, board_format=board_format, cgp=cgp, game=game, move=move, rules=rules, lang=lang, lex=lex)
    note = broken_note("show", pos)
    if note is not None and not quiet:
        typer.echo(note, err=True)  # the rules refuse an earlier event, as replay rules it
    if coords is None:  # a Netskrafl record is labelled as Netskrafl labels its board
        coords = Coords.netskrafl if pos.extra.get("format") == "netskrafl" else Coords.gcg
    rack_tiles = pos.rack
    if rack is not None:
        from gamecore.text import nfc

        rack_tiles = pos.board.tile_set.parse_rack(nfc(rack.strip())) if rack.strip() else []
    if rack_tiles:  # rack and board together fit the tile set, as score and best check
        from gamecore.best import check_tiles

        check_tiles(pos.board, rack_tiles, pos.rules)
    played, caption = None, ""
    play_coords = coords.value
    check_rack = rack_tiles or None
    if play == "recorded":
        if pos.recorded_play is None:
            raise UsageError("--play recorded needs --game FILE --move N at a tile play")
        play, play_coords = pos.recorded_play, "gcg"
        check_rack = None if rack is None else check_rack  # the game's own play: its replay checked the rack
    if play is not None:
        from cli.position import shown_coord

        fold = (lex.manifest.get("fold") or None) if lex is not None else None  # a Ё tile read as Е (Russian)
        # the tiles must come from the rack when one is known (--rack, the CGP's, the game's), as score checks
        ruling = adjudicate(pos.board, play, check_rack, None, pos.rules, play_coords, fold=fold)
        if not ruling.legal:
            assert ruling.reason is not None  # an illegal play says why
            raise UsageError(f"--play {play!r} is not legal here: {ruling.reason[0]}: {ruling.reason[1]}")
        played = ruling.played
        caption = f"{shown_coord(ruling.coord, pos.board.size, coords)} {ruling.main_word()} {ruling.score}"
    pic = PositionPicture(
        pos.board,
        play=played,
        rack=rack_tiles,
        players=pos.players,
        scores=pos.scores,
        mover=pos.mover if (pos.players or pos.scores) else None,
        coords=coords.value,
        caption=caption,
        blank_values=pos.rules.blank_value == "letter",
    )
    write_picture(pic, out, (board, game))
    if not quiet:
        typer.echo(f"skrafl show: {pos.what or 'position'} → {out}", err=True)


def export_game_pictures(
    files: list[str],
    folder: Path,
    *,
    preset: Optional[str] = None,
    lang: Optional[str] = None,
    every_move: bool = False,
    inputs: list[str] | None = None,
    stack: Any = None,
) -> tuple[int, list[tuple[str, str]]]:
    """Draw each game's end position as ``FOLDER/NAME.svg`` (the scores above) and, with
    ``every_move``, each event as ``FOLDER/NAME/NNN.svg``: the position before event NNN with its
    tile play placed and highlighted. ``FOLDER`` is one output written whole
    (:func:`pipelines.atomic.output_dir`, command ``replay-svg``); two games of the same file name get
    ``NAME-2``, ``NAME-3``….

    ``stack``: an :class:`contextlib.ExitStack` of the caller's outputs to enter this output in
    (committed when the caller's stack ends, with its other outputs; discarded with them); without
    it, the output is committed when the pictures are drawn.

    Returns:
        (pictures written, [(file, reason)] for the games that could not be replayed to the end).
    Raises:
        UsageError: the folder is refused (a user folder, another command's output, an input).
    """
    from cli.position import game_positions
    from gamecore.adjudicate import adjudicate
    from gamecore.errors import SkraflError
    from gamecore.picture import PositionPicture, board_svg
    from pipelines.atomic import output_dir

    written, failed = 0, []
    used: dict[str, int] = {}
    with contextlib.ExitStack() as own:
        stage = (stack if stack is not None else own).enter_context(
            output_dir(Path(folder), command="replay-svg", inputs=inputs or files)
        )
        for f in files:
            stem = Path(f).stem
            used[stem] = used.get(stem, 0) + 1
            name = stem if used[stem] == 1 else f"{stem}-{used[stem]}"
            pictures: list[tuple[str, PositionPicture]] = []
            end = None
            try:
                for n, pos in game_positions(Path(f), preset, lang):
                    if pos.extra.get("kind") is None:  # the end
                        end = pos
                        break
                    if not every_move:
                        continue
                    who = pos.players[pos.mover] if pos.players and pos.mover < len(pos.players) else f"player {pos.mover + 1}"
                    played, caption = None, f"{n}. {who}: {pos.extra['kind'].replace('_', ' ')}"
                    if pos.recorded_play is not None:
                        ruling = adjudicate(pos.board, pos.recorded_play, None, None, pos.rules)
                        if ruling.legal:
                            played = ruling.played
                            caption = f"{n}. {who}: {ruling.coord} {ruling.main_word()} {ruling.score}"
                    pictures.append(
                        (
                            f"{name}/{n:03d}.svg",
                            PositionPicture(
                                pos.board,
                                play=played,
                                rack=pos.rack,
                                players=pos.players,
                                scores=pos.scores,
                                mover=pos.mover,
                                caption=caption,
                                blank_values=pos.rules.blank_value == "letter",
                            ),
                        )
                    )
            except SkraflError as exc:
                failed.append((f, str(exc)))
                continue
            assert end is not None  # the last position game_positions gives is the end
            pictures.append(
                (
                    f"{name}.svg",
                    PositionPicture(
                        end.board,
                        players=end.players,
                        scores=end.scores,
                        mover=end.mover,  # nobody at the end of a finished game
                        caption=f"{Path(f).name}: final position",
                        blank_values=end.rules.blank_value == "letter",
                    ),
                )
            )
            for rel, pic in pictures:
                target = stage / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(board_svg(pic), encoding="utf-8")
                written += 1
    return written, failed


def register(app: typer.Typer) -> None:
    app.command(
        "show",
        help=HELP,
        epilog="Example: skrafl show --lang is --board riddle.board --play 'A4 ÞREKRAUN' --out riddle.png",
    )(show)
