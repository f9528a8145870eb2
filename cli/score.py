"""``skrafl score``: rule on one play on a board, as a tournament judge does.

The position options it shares with ``skrafl show`` are defined once in :mod:`cli.position`
(re-exported here: ``load_position``, ``game_positions``, ``lexicon_folder``, ``Position``).
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from cli.common import FORMAT_OPTION, QUIET_OPTION, BoardFormat, Coords, OutputFormat
from cli.position import (  # noqa: F401  (re-exported: the position loading lived here before)
    BOARD_FORMAT_OPTION,
    BOARD_OPTION,
    CGP_OPTION,
    GAME_OPTION,
    LANG_OPTION,
    LEXICON_OPTION,
    MOVE_OPTION,
    RULES_OPTION,
    Position,
    _game_position,
    game_positions,
    lexicon_folder,
    load_position,
    resolve_rules,
)

HELP = (
    "Rule on one play on a board: is it legal (and if not, why: the validator's code and a sentence), "
    "every word it forms (main word first) with its score and, with a lexicon, whether it is valid; "
    "the total (bingo bonus included), the verdict ACCEPTABLE / UNACCEPTABLE, and with --challenge "
    "what the challenge rule gives each side and who moves next.\n\n"
    "Position: --board FILE (board text, GCG case: uppercase tile, lowercase blank; --board-format "
    "netskrafl swaps case; cgp reads a CGP string from the file), --cgp 'CGP', or --game FILE --move N "
    "(a GCG file or Netskrafl record: the position before its Nth event; the play defaults to the "
    "recorded one and the rack to the recorded rack).\n\n"
    "Play: GCG notation, '8D JOINT' across (row 8 from column D), 'H8 .A' down; '.' or the letter "
    "itself for tiles already on the board; a lowercase letter is a blank. --coords netskrafl reads "
    "Netskrafl's order ('H4 JOINT' = row H from column 4 across; '4H' down).\n\n"
    "Challenge rules (--challenge): void (a phony cannot be played: 0 points, the player plays again), "
    "single (a phony is taken back; a wrong challenge costs nothing), double (a wrong challenger loses "
    "the turn), five_point (+5 to the player per word challenged), ten_point (+10), netskrafl (+10 to "
    "the player, the challenger keeps the turn). Under every rule a successful challenge takes the "
    "play back for 0 points.\n\n"
    "Exit status: 0 legal and acceptable (legal when no lexicon is given); 1 illegal or unacceptable; "
    "2 usage or input error (one line on stderr)."
)


class Challenge(str, Enum):
    void = "void"
    single = "single"
    double = "double"
    five_point = "five_point"
    ten_point = "ten_point"
    netskrafl = "netskrafl"


def score(
    play: Optional[str] = typer.Option(
        None,
        "--play",
        "-p",
        help="The play: '8D JOINT' across, 'H8 .A' down (GCG; lowercase = blank). Default with --game: the recorded play of move N.",
    ),
    board: Optional[str] = BOARD_OPTION,
    board_format: BoardFormat = BOARD_FORMAT_OPTION,
    cgp: Optional[str] = CGP_OPTION,
    game: Optional[Path] = GAME_OPTION,
    move: Optional[int] = MOVE_OPTION,
    rack: Optional[str] = typer.Option(
        None,
        "--rack",
        "-r",
        help="The player's rack, e.g. AEINRS? ('?' = blank): tiles must come from it. Default: the CGP's or the game's rack, else no rack check.",
    ),
    lang: Optional[str] = LANG_OPTION,
    lexicon: Optional[Path] = LEXICON_OPTION,
    rules: Optional[str] = RULES_OPTION,
    challenge: Optional[Challenge] = typer.Option(
        None, "--challenge", help="Rule on a challenge of the play under this rule (needs a lexicon)."
    ),
    challenged: Optional[str] = typer.Option(
        None, "--challenged", help="With --challenge: the words challenged, comma-separated (default: every word formed)."
    ),
    coords: Coords = typer.Option(
        Coords.gcg, "--coords", help="Coordinate order of --play: gcg (8D across, D8 down) or netskrafl (H4 across, 4H down)."
    ),
    svg: Optional[Path] = typer.Option(None, "--svg", help="Also draw the position with the play highlighted (.svg, or .png)."),
    fmt: OutputFormat = FORMAT_OPTION,
    quiet: bool = QUIET_OPTION,
) -> None:
    from gamecore.adjudicate import adjudicate
    from gamecore.errors import UsageError

    if svg is not None and svg.suffix.lower() not in (".svg", ".png"):
        raise UsageError(f"--svg must end in .svg or .png; got {svg.name!r}")
    if svg is not None and not svg.absolute().parent.is_dir():
        raise UsageError(f"--svg {svg}: the folder {svg.parent} does not exist")
    if svg is not None:
        from gamecore.picture import check_picture_target

        check_picture_target(svg, (board, game))  # never over an input, nor into a skrafl output
    folder = lexicon_folder(lang, lexicon)
    lex = None
    if folder is not None:
        from gamecore.lexicon import Lexicon

        lex = Lexicon.load(folder)
    if challenge is not None and lex is None:
        raise UsageError("--challenge needs a lexicon to decide the challenge: give --lang L or --lexicon DIR")
    if challenged is not None and challenge is None:
        raise UsageError("--challenged needs --challenge RULE")
    pos = load_position(board=board, board_format=board_format, cgp=cgp, game=game, move=move, rules=rules, lang=lang, lex=lex)
    board_obj = pos.board
    if play is None:
        if pos.recorded_play is None:
            raise UsageError(
                "give --play 'COORD WORD', e.g. --play '8D JOINT'"
                + (" (this event of the game is not a tile play)" if game is not None else "")
            )
        play, coords = pos.recorded_play, Coords.gcg
    rack_tiles = None
    if rack is not None:
        if not rack.strip():
            raise UsageError("--rack is empty: give the rack's tiles, e.g. AEINRS? ('?' = blank)")
        from gamecore.text import nfc

        rack_tiles = board_obj.tile_set.parse_rack(nfc(rack.strip()))
    elif pos.rack:
        rack_tiles = pos.rack
    if rack_tiles is not None:
        from gamecore.best import check_tiles

        check_tiles(board_obj, rack_tiles, pos.rules)
    ruling = adjudicate(board_obj, play, rack_tiles, lex, pos.rules, coords.value)
    outcome = None
    if challenge is not None and ruling.legal:
        from gamecore.challenge import challenge_outcome

        names = [w.strip() for w in challenged.split(",") if w.strip()] if challenged is not None else None
        from gamecore.text import nfc

        outcome = challenge_outcome(
            challenge.value,
            ruling.score,
            [(w.word, bool(w.valid)) for w in ruling.words],
            [nfc(w) for w in names] if names is not None else None,
        )
    data = ruling.as_dict()
    data["rack"] = "".join(rack_tiles) if rack_tiles is not None else None
    data["lexicon"] = lex.name if lex is not None else None
    data["rules"] = pos.rules.name
    if challenge is not None:
        totals = None
        names = None
        if pos.scores is not None:
            other = 1 - pos.mover if pos.mover in (0, 1) else 1
            totals = (pos.scores[pos.mover], pos.scores[other])
            if pos.players is not None:
                names = (pos.players[pos.mover], pos.players[other])
        data["challenge"] = outcome.as_dict(names, totals) if outcome is not None else None
    if pos.recorded_score is not None and ruling.play == " ".join((pos.recorded_play or "").split()):
        data["recorded_score"] = pos.recorded_score
    _print(data, fmt)
    if svg is not None:
        from gamecore.picture import PositionPicture, write_picture

        pic = PositionPicture(
            board_obj,
            play=ruling.played,
            rack=rack_tiles,
            players=pos.players,
            scores=pos.scores,
            mover=pos.mover,
            coords=coords.value,
            caption=_caption(ruling),
        )
        write_picture(pic, svg, (board, game))
        if not quiet:
            typer.echo(f"score: picture → {svg}", err=True)
    sys.stdout.flush()
    raise typer.Exit(0 if ruling.acceptable else 1)


def _caption(ruling) -> str:
    if not ruling.legal:
        return f"{ruling.play}: not legal ({ruling.reason[0]})"
    text = f"{ruling.coord} {ruling.main_word()} {ruling.score}"
    return f"{text} {ruling.verdict}" if ruling.verdict else text


def _print(data: dict, fmt: OutputFormat) -> None:
    """One JSON object, ``field<TAB>value`` lines (words as ``word<TAB>WORD<TAB>SCORE<TAB>VALID``),
    or an aligned table for people."""
    import json

    out = sys.stdout
    if fmt == OutputFormat.json:
        json.dump(data, out, ensure_ascii=False, indent=1)
        out.write("\n")
        return

    def valid_text(w):
        return {True: "valid", False: "INVALID"}.get(w.get("valid"), "")

    reason = data["reason"]
    rows: list[tuple[str, str]] = [("play", data["play"])]
    rows.append(("legal", "yes" if data["legal"] else f"no: {reason['code']}: {reason['message']}"))
    rows += [("note", n) for n in data.get("notes") or ()]
    if fmt == OutputFormat.tsv:
        for k, v in (("coord", data["coord"]), ("main_word", data["word"])):
            rows.append((k, "" if v is None else str(v)))
        lines = [f"{k}\t{v}" for k, v in rows]
        lines += [
            f"word\t{w['word'].upper()}\t{'' if w['score'] is None else w['score']}\t{valid_text(w)}".rstrip("\t")
            for w in data["words"]
        ]
        rest = [("score", data["score"]), ("bingo", "yes" if data["bingo"] else "no"), ("verdict", data["verdict"])]
        lines += [f"{k}\t{'' if v is None else v}" for k, v in rest]
        ch = data.get("challenge")
        if ch:
            lines.append(
                f"challenge\t{ch['rule']}\t{ch['points']['player']}\t{ch['points']['opponent']}\t{ch['next']}\t{ch['summary']}"
            )
        out.write("\n".join(lines) + "\n")
        return
    if data["words"]:
        width = max(len(w["word"]) for w in data["words"])
        for i, w in enumerate(data["words"]):
            label = "words" if i == 0 else ""
            main = "  (main)" if i == 0 else ""
            rows.append(
                (
                    label,
                    f"{w['word'].upper().ljust(width)}  {('' if w['score'] is None else str(w['score'])).rjust(3)}  {valid_text(w)}".rstrip()
                    + main,
                )
            )
    if data["score"] is not None:
        rows.append(("score", f"{data['score']}" + (" (bingo included)" if data["bingo"] else "")))
        rows.append(("bingo", "yes" if data["bingo"] else "no"))
    if data["verdict"]:
        rows.append(("verdict", data["verdict"]))
    if "recorded_score" in data:
        rows.append(("recorded", str(data["recorded_score"])))
    ch = data.get("challenge")
    if ch:
        rows.append(("challenge", ch["summary"]))
        who = ch.get("players") or {"player": "player", "opponent": "opponent"}
        rows.append(("points", f"{who['player']} +{ch['points']['player']}, {who['opponent']} +{ch['points']['opponent']}"))
        if "scores_after" in ch:
            rows.append(
                ("scores", f"{who['player']} {ch['scores_after']['player']}, {who['opponent']} {ch['scores_after']['opponent']}")
            )
        rows.append(("next", ch.get("next_name") or ch["next"]))
    elif "challenge" in data:
        rows.append(("challenge", "none: the play is not legal, so it cannot be made"))
    width = max(len(k) for k, _ in rows)
    out.write("".join(f"{k.ljust(width)}  {v}\n" for k, v in rows))


def register(app: typer.Typer) -> None:
    app.command(
        "score",
        help=HELP,
        epilog="Example: skrafl score --lang is --board riddle.board --play '8D JOINT' --rack JOINTAB --challenge netskrafl",
    )(score)
