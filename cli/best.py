"""``skrafl best``: every legal play for a board and a rack, best first (or a robot's pick)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from cli.common import FORMAT_OPTION, OutputFormat, emit, output_root

COLUMNS = ["coord", "word", "score", "tiles_placed", "leave"]


class BoardFormat(str, Enum):
    gcg = "gcg"
    netskrafl = "netskrafl"
    cgp = "cgp"


class Robot(str, Enum):
    fullsterkur = "fullsterkur"
    midlungur = "midlungur"
    amlodi = "amlodi"


def best(
    board: str = typer.Option(
        ..., "--board", "-b",
        help="Board file: 15 lines of 15 ('.' empty; GCG: uppercase tile, lowercase blank). "
        "With --board-format cgp: a file holding a CGP string, or the CGP string itself.",
    ),
    rack: Optional[str] = typer.Option(
        None, "--rack", "-r", help="The rack, e.g. AEINRS? ('?' = blank). From the CGP string if omitted."
    ),
    lang: Optional[str] = typer.Option(None, "--lang", "-l", help="Language whose built lexicon to use (output/LANG)."),
    lexicon: Optional[Path] = typer.Option(None, "--lexicon", help="A lexicon folder written by 'skrafl build'."),
    rules: Optional[str] = typer.Option(
        None, "--rules", help="Rules preset (netskrafl, ordspill, erudit, russian_scrabble, slovene, wespa) "
        "or a .toml file; default: the lexicon's, else the language's default."
    ),
    n: int = typer.Option(10, "-n", help="How many plays to show."),
    show_all: bool = typer.Option(False, "--all", help="Show every legal play."),
    board_format: BoardFormat = typer.Option(BoardFormat.gcg, "--board-format", help="gcg, netskrafl or cgp."),
    robot: Optional[Robot] = typer.Option(
        None, "--robot", help="Show only the play this Netskrafl robot would make."
    ),
    vocabulary: Optional[Path] = typer.Option(
        None, "--vocabulary", help="The robot's vocabulary: a second lexicon folder (midlungur, amlodi)."
    ),
    seed: Optional[int] = typer.Option(None, "--seed", help="Random seed for the robot's pick (reproducible)."),
    fmt: OutputFormat = FORMAT_OPTION,
) -> None:
    """List the legal plays for a board and a rack, best first.

    Order: score (highest first), then fewer tiles, then coordinate. A blank shows as a lowercase
    letter; 'leave' is what stays on the rack.
    """
    from gamecore.best import best_plays, leave_text, load_bundle, robot_pick
    from gamecore.board import parse_board_text, parse_cgp, read_board
    from gamecore.errors import UsageError
    from gamecore.rules import load_rules, rules_for

    if lexicon is not None and lang is not None:
        raise UsageError("give --lang or --lexicon, not both")
    if lexicon is None and lang is None:
        raise UsageError("give --lang L (the built lexicon output/L) or --lexicon DIR")
    if n < 1 and not show_all:
        raise UsageError("-n must be at least 1")
    folder = lexicon if lexicon is not None else output_root() / lang
    bundle = load_bundle(folder)
    if rules:
        ruleset = load_rules(rules)
    elif bundle.rules_name:
        ruleset = load_rules(bundle.rules_name)
    else:
        ruleset = rules_for(bundle.language or lang)
    tile_set, layout = ruleset.tiles(), ruleset.layout()

    cgp_rack = None
    if board_format == BoardFormat.cgp:
        p = Path(board)
        text, path = (p.read_text(encoding="utf-8"), p) if p.is_file() else (board, None)
        pos = parse_cgp(text.strip(), tile_set, layout, path=path)
        position, cgp_rack = pos.board, pos.racks[0]
    else:
        p = Path(board)
        if not p.is_file():
            raise UsageError(f"no board file {board}")
        position = read_board(p, tile_set, layout, board_format.value)
    if rack is not None:
        rack_tiles = tile_set.parse_rack(rack)
    elif cgp_rack:
        rack_tiles = cgp_rack
    else:
        raise UsageError("give --rack RACK (e.g. AEINRS?)")

    limit = None if (show_all or robot is not None) else n
    plays = best_plays(position, rack_tiles, bundle, ruleset, limit)
    if robot is not None:
        vocab = None
        if vocabulary is not None:
            from gamecore.lexicon import Lexicon

            vocab = Lexicon.load(vocabulary)
        pick = robot_pick(plays, robot.value, vocab, seed)
        if pick is None:
            typer.echo("no legal play: the robot exchanges all its tiles if the bag allows, else passes", err=True)
        plays = [pick] if pick is not None else []
    elif not show_all:
        plays = plays[:n]
    rows = [[p.coord, p.word_text(), p.score, p.tiles_placed, leave_text(rack_tiles, p, tile_set)] for p in plays]
    emit(rows, COLUMNS, fmt)


def register(app: typer.Typer) -> None:
    app.command(
        "best",
        help="List the legal plays for a board and a rack, best first (or a Netskrafl robot's pick).",
        epilog="Example: skrafl best --lang is --board riddle.board --rack UAENRRK -n 5",
    )(best)
