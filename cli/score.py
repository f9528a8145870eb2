"""``skrafl score``: rule on one play on a board, as a tournament judge does (or on many, one
``CGP<TAB>PLAY`` per line with ``--batch``, the lexicon loaded once).

The position options it shares with ``skrafl show`` are defined once in :mod:`cli.position`
(re-exported here: ``load_position``, ``game_positions``, ``lexicon_folder``, ``Position``).
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from cli.common import FORMAT_OPTION, QUIET_OPTION, BoardFormat, Coords, OutputFormat, picture_target
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
    broken_note,
    cgp_position,
    game_position,
    game_positions,
    lexicon_folder,
    load_position,
    resolve_rules,
    shown_coord,
)

HELP = (
    "Rule on one play on a board: is it legal (and if not, why: the validator's code and a sentence), "
    "every word it forms (main word first) with its score and, with a lexicon, whether it is valid; "
    "the total (bingo bonus included), the verdict ACCEPTABLE / UNACCEPTABLE, and with --challenge "
    "what the challenge rule gives each side and who moves next.\n\n"
    "Position: --board FILE (board text, GCG case: uppercase tile, lowercase blank; --board-format "
    "netskrafl swaps case; cgp reads a CGP string from the file), --cgp 'CGP', or --game FILE --move N "
    "(a GCG file or Netskrafl record: the position before its Nth event; the play defaults to the "
    "recorded one and the rack to the recorded rack; without --lang, --lexicon or --rules the words are "
    "checked with the built lexicon the game names, a GCG #lexicon or a Netskrafl record's Icelandic, "
    "as replay finds it).\n\n"
    "Play: GCG notation, '8D JOINT' across (row 8 from column D), 'H8 .A' down; '.' or the letter "
    "itself for tiles already on the board; a lowercase letter is a blank. --coords netskrafl reads "
    "Netskrafl's order ('H4 JOINT' = row H from column 4 across; '4H' down), and every coordinate "
    "score writes (the coord field of table, tsv, json and --batch, the --svg edge labels and caption) "
    "is then in that order too.\n\n"
    "Challenge rules (--challenge): void (a phony cannot be played: 0 points, the player plays again), "
    "single (a phony is taken back; a wrong challenge costs nothing), double (a wrong challenger loses "
    "the turn), five_point (+5 to the player per word challenged: WESPA's and NASPA's CSW rule), "
    "five_point_per_word (the same), ten_point (+10), netskrafl (+10 to "
    "the player, the challenger keeps the turn). Under every rule a successful challenge takes the "
    "play back for 0 points. --challenged names each word at most as often as the play forms it. "
    "In a game of 3 or 4 players the challenger is the next player in turn order (the one whose turn "
    "it would be); under double a wrong challenger loses that turn and the player after them moves.\n\n"
    "Many plays (--batch FILE, or - for stdin): one ruling per line, each line a CGP string (board, rack "
    "field, scores, zero count, opcodes; the rack field is the rack, empty = no rack check), a TAB and the "
    "play ('8D JOINT'; --coords as for --play); blank lines skipped. The lexicon is loaded once, the "
    "lexicon, rules and challenge options apply to every line, and each ruling is written as its line is "
    "read (flushed): tsv rows of score's own tsv with the line number first (one header: line, then score's "
    'columns), json one object per line ({"line": N, ...} with the fields of a single ruling), table one '
    'block per line (headed "line N"). A bad line (not CGP, no TAB, not COORD WORD, a rack the tile set '
    "cannot hold) is one error line on stderr (FILE:LINE: why, -:LINE: for stdin) and no ruling; the "
    "other lines go on (a play whose tiles are not on the line's rack is a ruling, ILLEGAL, as with --play)."
    " A summary goes to stderr at the end (not with --quiet).\n\n"
    "TSV (-f tsv): one header and every row the same width, a field name and its value, the other "
    "columns empty where the row has none: field, value, score (a word's points), valid (a word: "
    "valid / INVALID, empty without a lexicon), player_points, opponent_points, next, summary (the "
    "challenge row: its rule in value).\n\n"
    "Exit status: 0 legal and acceptable (legal when no lexicon is given; --batch: every ruling); 1 illegal "
    "or unacceptable (--batch: some ruling); 2 usage or input error (one line on stderr; --batch: some line "
    "was bad, one line each)."
)


class Challenge(str, Enum):
    void = "void"
    single = "single"
    double = "double"
    five_point = "five_point"
    five_point_per_word = "five_point_per_word"
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
        Coords.gcg,
        "--coords",
        help="Coordinate order of --play and of every coordinate written (coord, the --svg picture): "
        "gcg (8D across, D8 down) or netskrafl (H4 across, 4H down).",
    ),
    svg: Optional[Path] = typer.Option(None, "--svg", help="Also draw the position with the play highlighted (.svg, or .png)."),
    batch: Optional[str] = typer.Option(
        None,
        "--batch",
        help="Rule on many plays: one 'CGP<TAB>PLAY' per line of this file ('-' = stdin), the lexicon loaded once.",
    ),
    fmt: OutputFormat = FORMAT_OPTION,
    quiet: bool = QUIET_OPTION,
) -> None:
    from gamecore.errors import UsageError

    if batch is not None:
        _batch_usage(batch, play, board, board_format, cgp, game, move, rack, challenged, svg)
    if svg is not None:
        picture_target(svg, "--svg", (board, game))
    lex = _lexicon(lang, lexicon, game, rules)
    if challenge is not None and lex is None:
        raise UsageError("--challenge needs a lexicon to decide the challenge: give --lang L or --lexicon DIR")
    if challenged is not None and challenge is None:
        raise UsageError("--challenged needs --challenge RULE")
    if batch is not None:
        raise typer.Exit(_batch(batch, resolve_rules(rules, lex, lang), lex, challenge, coords, fmt, quiet))
    pos = load_position(board=board, board_format=board_format, cgp=cgp, game=game, move=move, rules=rules, lang=lang, lex=lex)
    note = broken_note("score", pos)
    if note is not None and not quiet:
        typer.echo(note, err=True)  # the rules refuse an earlier event, as replay rules it
    board_obj = pos.board
    read_coords = coords  # the order --play is written in; every coordinate written follows --coords
    if play is None:
        if pos.recorded_play is None:
            raise UsageError(
                "give --play 'COORD WORD', e.g. --play '8D JOINT'"
                + (" (this event of the game is not a tile play)" if game is not None else "")
            )
        play, read_coords = pos.recorded_play, Coords.gcg
    rack_tiles = _rack_tiles(rack, pos)
    ruling, data = _rule(pos, play, read_coords, rack_tiles, lex, challenge, challenged, coords)
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
            caption=_caption(ruling, coords, board_obj.size),
            blank_values=pos.rules.blank_value == "letter",
        )
        write_picture(pic, svg, (board, game))
        if not quiet:
            typer.echo(f"skrafl score: picture → {svg}", err=True)
    sys.stdout.flush()
    raise typer.Exit(0 if ruling.acceptable else 1)


def _lexicon(lang: Optional[str], lexicon: Optional[Path], game: Optional[Path], rules: Optional[str]):
    """The lexicon that judges the words: ``--lang`` or ``--lexicon``, else the one a game log names
    (when it is built and no ``--rules`` is given), else None (words not checked)."""
    folder = lexicon_folder(lang, lexicon)
    if folder is None and game is not None and not rules:
        folder = _named_lexicon(game)
    if folder is None:
        return None
    from gamecore.lexicon import Lexicon

    return Lexicon.load(folder)


def _rack_tiles(rack: Optional[str], pos: Position) -> list[str] | None:
    """``--rack`` read as the position's tile set reads it, else the position's own rack, else None."""
    from gamecore.errors import UsageError

    if rack is None:
        return list(pos.rack) if pos.rack else None
    if not rack.strip():
        raise UsageError("--rack is empty: give the rack's tiles, e.g. AEINRS? ('?' = blank)")
    from gamecore.text import nfc

    return pos.board.tile_set.parse_rack(nfc(rack.strip()))


def _rule(
    pos: Position,
    play: str,
    coords: Coords,
    rack_tiles,
    lex,
    challenge,
    challenged: Optional[str],
    out_coords: Optional[Coords] = None,
):
    """Rule on ``play`` in ``pos`` (the rack checked against the tile set first, then
    :func:`gamecore.adjudicate.adjudicate`, then the challenge rule): ``(ruling, data)``, ``data``
    being the JSON object of the ruling (without ``recorded_score``). ``coords``: the order
    ``play`` is written in; ``out_coords`` (default ``coords``): the order of the ``coord`` field.

    Raises:
        UsageError: the rack cannot be held (too long, more of a tile than the set has), or the play
            is not COORD WORD.
    """
    from gamecore.adjudicate import adjudicate

    if rack_tiles is not None:
        from gamecore.best import check_tiles

        check_tiles(pos.board, rack_tiles, pos.rules)
    ruling = adjudicate(pos.board, play, rack_tiles, lex, pos.rules, coords.value)
    n_players = len(pos.scores) if pos.scores is not None else len(pos.players) if pos.players is not None else 2
    outcome = None
    if challenge is not None and ruling.legal:
        from gamecore.challenge import challenge_outcome
        from gamecore.text import nfc

        names = [w.strip() for w in challenged.split(",") if w.strip()] if challenged is not None else None
        assert ruling.score is not None  # a legal play has its score
        outcome = challenge_outcome(
            challenge.value,
            ruling.score,
            [(w.word, bool(w.valid)) for w in ruling.words],
            [nfc(w) for w in names] if names is not None else None,
            players=n_players,
        )
    data = ruling.as_dict()
    data["coord"] = shown_coord(ruling.coord, pos.board.size, out_coords or coords)
    parts = str(data.get("play") or "").split(None, 1)
    if data["coord"] is not None and len(parts) == 2:
        data["play"] = f"{data['coord']} {parts[1]}"  # the play as --coords writes it (a game's is read in GCG order)
    data["rack"] = "".join(rack_tiles) if rack_tiles is not None else None
    data["lexicon"] = lex.name if lex is not None else None
    data["rules"] = pos.rules.name
    if challenge is not None:
        totals = None
        seats: tuple[str, str, str] | None = None
        if pos.scores is not None and pos.mover is not None:
            # the challenger: the next player in turn order (the Scrabble rules page: a play is challenged before
            # the next turn); under double a wrong challenger loses that turn to the player after
            mover = pos.mover % n_players
            other = (mover + 1) % n_players
            totals = (pos.scores[mover], pos.scores[other])
            if pos.players is not None:
                seats = (pos.players[mover], pos.players[other], pos.players[(other + 1) % n_players])
        data["challenge"] = outcome.as_dict(seats, totals) if outcome is not None else None
    return ruling, data


def _named_lexicon(game: Path) -> Optional[Path]:
    """The built lexicon a game log names (a GCG ``#lexicon``, a Netskrafl record: ``is``), found as
    ``skrafl replay`` finds it (:func:`cli.replay.lexicon_named_by`), or None (no verdict then).
    The ruling names it (``lexicon`` in JSON)."""
    from cli.replay import lexicon_named_by

    folder, _note = lexicon_named_by([str(game)])
    return Path(folder) if folder is not None else None


def _batch_usage(batch, play, board, board_format, cgp, game, move, rack, challenged, svg) -> None:
    """The options ``--batch`` cannot go with (each line gives the position, its rack and the play):
    a UsageError at once, before the lexicon is loaded."""
    from gamecore.errors import UsageError

    for name, value in (
        ("--play", play),
        ("--board", board),
        ("--cgp", cgp),
        ("--game", game),
        ("--move", move),
        ("--svg", svg),
        ("--board-format", None if board_format == BoardFormat.gcg else board_format),
    ):
        if value is not None:
            raise UsageError(f"--batch reads the position and the play from each line (CGP<TAB>PLAY); give no {name}")
    if rack is not None:
        raise UsageError("--batch reads each rack from its line's CGP rack field; give no --rack")
    if challenged is not None:
        raise UsageError("--challenged names the words of one play; with --batch every word formed is challenged")
    if batch != "-":
        from cli.common import input_file

        input_file(batch, "batch", "--batch")  # a folder is not missing; /dev/null or a FIFO is read


def _batch_line(lineno: int, raw: bytes, length: int | None) -> tuple[str, str] | None:
    """A ``--batch`` line as ``(CGP string, play)``, None when it is blank.

    Raises:
        SkraflError: a line too long, not UTF-8, without its TAB or with more than one, with no
            CGP string or no play, or holding a control or format character.
    """
    import unicodedata

    from gamecore.errors import SkraflError
    from gamecore.text import line_of, nfc, strip_bom

    if length is not None:
        raise SkraflError(f"{line_of(length)}: a CGP string, a TAB and a play are far shorter")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SkraflError("not UTF-8: convert the input to UTF-8 first") from None
    whole = nfc(strip_bom(text) if lineno == 1 else text)
    text = whole.strip()
    if not text:
        return None
    if "\t" not in text and "\t" in whole:  # the TAB was at an end of the line
        if whole.rstrip(" \r\n").endswith("\t"):
            raise SkraflError("no play after the TAB: give COORD WORD, e.g. '8D JOINT'")
        raise SkraflError("no CGP string before the TAB: a line is a CGP string, a TAB and the play")
    if "\t" not in text:
        raise SkraflError("no TAB: a line is a CGP string, a TAB and the play (e.g. '15/…/15 JOINTAB/ 0/0 0<TAB>8D JOINT')")
    cgp_text, play = text.split("\t", 1)
    play = play.strip()
    if "\t" in play:
        raise SkraflError("more than one TAB: a line is a CGP string, a TAB and the play")
    if not play:
        raise SkraflError("no play after the TAB: give COORD WORD, e.g. '8D JOINT'")
    bad = next((ch for ch in text if unicodedata.category(ch) in ("Cc", "Cf") and ch != "\t"), None)
    if bad is not None:
        from gamecore.wordjudge import describe_char

        raise SkraflError(f"{describe_char(bad)} in the line")
    return cgp_text, play


def _batch(batch: str, ruleset, lex, challenge, coords: Coords, fmt: OutputFormat, quiet: bool) -> int:
    """``--batch``: one ``CGP<TAB>PLAY`` per line, each ruled (by :func:`_rule`) and written, flushed,
    before the next line is read. A bad line: one error line ``FILE:LINE: why`` on stderr, no
    ruling, the next lines go on. Returns the exit status: 2 some line was bad, else 1 some ruling
    illegal or unacceptable, else 0."""
    import json

    from gamecore.errors import SkraflError
    from gamecore.text import capped_lines

    out = sys.stdout
    name = "-" if batch == "-" else batch
    counts = {"acceptable": 0, "unacceptable": 0, "bad": 0}
    if fmt == OutputFormat.tsv:
        out.write("\t".join(("line", *TSV_COLUMNS)) + "\n")
        out.flush()
    blocks = 0
    source = sys.stdin.buffer if batch == "-" else open(batch, "rb")  # noqa: SIM115 (closed below)
    try:
        for lineno, raw, length in capped_lines(source):
            try:
                line = _batch_line(lineno, raw, length)
                if line is None:
                    continue
                cgp_text, play = line
                pos = cgp_position(cgp_text, ruleset)
                ruling, data = _rule(pos, play, coords, pos.rack, lex, challenge, None)
            except SkraflError as exc:
                counts["bad"] += 1
                out.flush()
                typer.echo(f"skrafl: error: {name}:{lineno}: {exc.message}", err=True)
                continue
            counts["acceptable" if ruling.acceptable else "unacceptable"] += 1
            if fmt == OutputFormat.json:
                out.write(json.dumps({"line": lineno, **data}, ensure_ascii=False) + "\n")
            elif fmt == OutputFormat.tsv:
                out.write("".join(f"{lineno}\t{row}\n" for row in _text(data, fmt, header=False).splitlines()))
            else:
                out.write(("\n" if blocks else "") + f"line {lineno}\n" + _text(data, fmt))
                blocks += 1
            out.flush()
    finally:
        if source is not sys.stdin.buffer:
            source.close()
    n = counts["acceptable"] + counts["unacceptable"]
    if not n and not counts["bad"]:  # an empty input: no ruling, and no verdict on nothing
        out.flush()
        typer.echo(f"skrafl: error: no plays to rule on in {name}", err=True)
        return 2
    if not quiet:
        typer.echo(
            f"skrafl score: {n} ruling{'' if n == 1 else 's'}: {counts['acceptable']} acceptable, "
            f"{counts['unacceptable']} illegal or unacceptable; {counts['bad']} bad line{'' if counts['bad'] == 1 else 's'}",
            err=True,
        )
    return 2 if counts["bad"] else 1 if counts["unacceptable"] else 0


def _caption(ruling, coords: Coords = Coords.gcg, size: int = 15) -> str:
    """The --svg picture's caption: the play, its coordinate in the ``coords`` order."""
    if not ruling.legal:
        return f"{ruling.play}: not legal ({ruling.reason[0]})"
    text = f"{shown_coord(ruling.coord, size, coords)} {ruling.main_word()} {ruling.score}"
    return f"{text} {ruling.verdict}" if ruling.verdict else text


#: the columns of ``score -f tsv`` (``--batch``: ``line`` first): every row has all of them, a
#: row's field name and value first and the columns it has no value for empty
TSV_COLUMNS = ("field", "value", "score", "valid", "player_points", "opponent_points", "next", "summary")


def _print(data: dict, fmt: OutputFormat) -> None:
    """One JSON object, TSV (a header of :data:`TSV_COLUMNS`, then one row per field, every row as
    wide: words as ``word<TAB>WORD<TAB>SCORE<TAB>VALID<TAB>…``), or an aligned table for people."""
    out = sys.stdout  # a local: a write that fails (a full disk) names standard output (cli.main)
    out.write(_text(data, fmt))
    out.flush()


def _tsv_row(field: str, value: object = None, **cells: object) -> str:
    """One TSV row of :data:`TSV_COLUMNS`: ``field``, ``value`` and the named columns, the others
    empty (None is empty too)."""
    unknown = set(cells) - set(TSV_COLUMNS[2:])
    if unknown:  # pragma: no cover - a bug guard
        raise AssertionError(f"no TSV column {sorted(unknown)}")
    values = [field, value, *(cells.get(c) for c in TSV_COLUMNS[2:])]
    return "\t".join("" if v is None else str(v) for v in values)


def _text(data: dict, fmt: OutputFormat, header: bool = True) -> str:
    """The text :func:`_print` writes (every line ending in a newline); ``header``: TSV's header
    line first (``--batch`` writes its own, once)."""
    import json

    if fmt == OutputFormat.json:
        return json.dumps(data, ensure_ascii=False, indent=1) + "\n"

    def valid_text(w):
        return {True: "valid", False: "INVALID"}.get(w.get("valid"), "")

    reason = data["reason"]
    rows: list[tuple[str, str]] = [("play", data["play"])]
    rows.append(("legal", "yes" if data["legal"] else f"no: {reason['code']}: {reason['message']}"))
    rows += [("note", n) for n in data.get("notes") or ()]
    if fmt == OutputFormat.tsv:
        rows += [("coord", data["coord"]), ("main_word", data["word"])]
        lines = ["\t".join(TSV_COLUMNS)] if header else []
        lines += [_tsv_row(k, v) for k, v in rows]
        lines += [_tsv_row("word", w["word"].upper(), score=w["score"], valid=valid_text(w)) for w in data["words"]]
        rest = [("score", data["score"]), ("bingo", "yes" if data["bingo"] else "no"), ("verdict", data["verdict"])]
        lines += [_tsv_row(k, v) for k, v in rest]
        ch = data.get("challenge")
        if ch:
            lines.append(
                _tsv_row(
                    "challenge",
                    ch["rule"],
                    player_points=ch["points"]["player"],
                    opponent_points=ch["points"]["opponent"],
                    next=ch["next"],
                    summary=ch["summary"],
                )
            )
        return "\n".join(lines) + "\n"
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
    return "".join(f"{k.ljust(width)}  {v}\n" for k, v in rows)


def register(app: typer.Typer) -> None:
    app.command(
        "score",
        help=HELP,
        epilog="Example: skrafl score --lang is --board riddle.board --play 'A4 ÞREKRAUN' --rack UAENRRK --challenge netskrafl"
        " · skrafl score --lang en --batch - -f json < plays.tsv",
    )(score)
