"""``skrafl score``: rule on one play on a board, as a tournament judge does.

Also the position options shared with ``skrafl show`` (:func:`load_position`): a board file, a CGP
string, or the position before the Nth event of a game log (replayed by :mod:`pipelines.replay`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from cli.common import FORMAT_OPTION, QUIET_OPTION, BoardFormat, Coords, OutputFormat, output_root

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


@dataclass
class Position:
    """A position to rule on or draw.

    Attributes:
        board: the :class:`gamecore.board.Board`; rules: the :class:`gamecore.rules.RuleSet`.
        rack: the mover's rack (labels, ``?`` = blank), or None when unknown.
        players: the two names (game logs), or None. scores: the scores before the play, mover's
            first is *not* implied: ``scores[i]`` is player i's. mover: the index of the player on turn.
        recorded_play: the play the game log records at this point (``8D WORD``), if any.
        recorded_score: its recorded score.
        what: where the position comes from, for messages and pictures.
        extra: more about it (game logs: ``kind``, the kind of the event that follows; absent at the end).
    """

    board: object
    rules: object
    rack: list[str] | None = None
    players: tuple[str, str] | None = None
    scores: tuple[int, int] | None = None
    mover: int = 0
    recorded_play: str | None = None
    recorded_score: int | None = None
    what: str = ""
    extra: dict = field(default_factory=dict)


def lexicon_folder(lang: Optional[str], lexicon: Optional[Path]) -> Optional[Path]:
    """``--lexicon DIR``, or ``output/LANG`` for ``--lang``, or None (no word checks).

    Raises:
        UsageError: both given.
    """
    from gamecore.errors import UsageError

    if lexicon is not None and lang is not None:
        raise UsageError("give --lang or --lexicon, not both")
    if lexicon is not None:
        return lexicon
    if lang is not None:
        from lexicon_sources import language

        return output_root() / language(lang).code
    return None


def resolve_rules(rules: Optional[str], lex, lang: Optional[str]):
    """``--rules``, else the lexicon's rule set, else the language's default preset.

    Raises:
        UsageError: none of them given (the board alone does not say which game it is).
    """
    from gamecore.errors import UsageError
    from gamecore.rules import load_rules, rules_for

    if rules:
        return load_rules(rules)
    if lex is not None and lex.manifest.get("rules"):
        return load_rules(lex.manifest["rules"])
    if lex is not None and lex.language:
        return rules_for(lex.language)
    if lang:
        return rules_for(lang)
    raise UsageError("which game? give --rules PRESET (netskrafl, wespa, ordspill, erudit, …), --lang L or --lexicon DIR")


def load_position(
    *,
    board: Optional[str],
    board_format: BoardFormat,
    cgp: Optional[str],
    game: Optional[Path],
    move: Optional[int],
    rules: Optional[str],
    lang: Optional[str],
    lex,
) -> Position:
    """The position named by exactly one of ``--board``, ``--cgp``, ``--game`` (with ``--move``).

    Raises:
        UsageError: none or several given, ``--move`` without ``--game`` or out of range; DataError:
        an unreadable board, CGP string or game log.
    """
    from gamecore.errors import UsageError

    given = [name for name, v in (("--board", board), ("--cgp", cgp), ("--game", game)) if v is not None]
    if len(given) != 1:
        raise UsageError(
            "give the position with one of --board FILE, --cgp 'CGP' or --game FILE --move N"
            + (f" (got {', '.join(given)})" if given else "")
        )
    if move is not None and game is None:
        raise UsageError("--move N needs --game FILE")
    if game is not None:
        return _game_position(game, move, rules, lang)
    from gamecore.board import parse_cgp, read_board

    ruleset = resolve_rules(rules, lex, lang)
    tile_set, layout = ruleset.tiles(), ruleset.layout()
    if cgp is not None or board_format == BoardFormat.cgp:
        if cgp is not None:
            text, path = cgp, None
        else:
            p = Path(board)
            text, path = (_read_text(p), p) if p.is_file() else (board, None)
        pos = parse_cgp(text.strip(), tile_set, layout, path=path)
        rack = pos.racks[0] or None
        return Position(pos.board, ruleset, rack, None, pos.scores, 0, what="CGP")
    p = Path(board)
    if not p.is_file():
        raise UsageError(f"no board file {board}")
    return Position(read_board(p, tile_set, layout, board_format.value), ruleset, what=str(p))


def _read_text(p: Path) -> str:
    from gamecore.errors import DataError

    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise DataError("not UTF-8 text", p) from None


def _game_position(path: Path, move: Optional[int], preset: Optional[str], lang: Optional[str]) -> Position:
    """The position before event ``move`` (1-based; default: after the last event) of a game log,
    replayed by the replay code (:mod:`pipelines.replay`): tiles, scores, the mover and its rack.

    Raises:
        UsageError: no such file, ``move`` out of range; DataError: the game cannot be read or
        replayed up to there.
    """
    from gamecore.errors import UsageError
    from pipelines.replay import read_game_file

    if not Path(path).is_file():
        raise UsageError(f"no game file {path}")
    g = read_game_file(str(path))
    n_events = len(g.events)
    if move is None:
        move = n_events + 1
    if not 1 <= move <= n_events + 1:
        raise UsageError(f"--move must be 1..{n_events + 1} for {path} ({n_events} events; {n_events + 1} = the end)")
    for n, pos in game_positions(path, preset, lang, game=g, upto=move):
        if n == move:
            return pos
    raise AssertionError("unreachable")  # pragma: no cover


def game_positions(
    path: Path, preset: Optional[str] = None, lang: Optional[str] = None, *, game=None, upto: Optional[int] = None
):
    """Every position of a game log, replayed event by event by the replay code
    (:mod:`pipelines.replay`): yields ``(n, Position)`` for the position before event ``n``
    (1-based), and last ``(len(events) + 1, Position)`` for the end, stopping after ``upto``.

    Raises:
        DataError: the game cannot be read, or an event cannot be replayed (an illegal play).
    """
    import copy

    from pipelines.replay import read_game_file, rules_for_game
    from pipelines.replay.game import _Replayer

    g = game if game is not None else read_game_file(str(path))
    ruleset = rules_for_game(g, preset, lang)
    head = copy.copy(g)
    head.last_racks, head.final_scores, head.warnings = {}, None, []  # cut anywhere: no end-of-game checks
    rep = _Replayer(head, ruleset, None, False)
    rep.export_word, rep.synthetic = {}, []
    handlers = {  # as _Replayer.run, one event at a time
        "play": rep.play,
        "pass": rep.pass_,
        "exchange": rep.exchange,
        "withdraw": rep.withdraw,
        "challenge_bonus": rep.challenge_bonus,
        "challenge": rep.challenge,
        "end_rack": rep.end_rack,
        "rack_penalty": rep.rack_penalty,
        "time": rep.time,
        "resign": rep.resign,
    }
    names = tuple((g.players[i].nick if i < len(g.players) else f"player{i + 1}") for i in range(2))
    name = Path(path).name
    n_events = len(g.events)
    for n in range(1, n_events + 2):
        if n > n_events and g.format == "netskrafl":
            rep.netskrafl_end()  # Netskrafl records hold no end-of-game events: the replay adds them
        scores = (rep.computed[0], rep.computed[1])
        if n <= n_events:
            ev = g.events[n - 1]
            mover = ev.player
            rack = ev.rack
            if rack is None:  # Netskrafl records: the rack after the mover's last move, or the initial rack
                rack = rep.last_rack_after.get(mover, g.initial_racks.get(mover))
            rack = [t if t == "?" else t.upper().strip("[]") for t in rack] if rack else None
            played = None
            if ev.kind == "play" and ev.coord and ev.word:
                played = f"{ev.coord} {''.join(t if len(t) == 1 else f'[{t}]' for t in ev.word)}"
            what = f"{name}, before event {n} ({names[mover] if mover < 2 else mover + 1} to move)"
            yield (
                n,
                Position(
                    rep.pboard.position(),
                    ruleset,
                    rack,
                    names,
                    scores,
                    mover,
                    played,
                    ev.score if ev.kind == "play" else None,
                    what,
                    {"kind": ev.kind},
                ),
            )
        else:
            mover = rep.expected if rep.expected is not None else 0
            yield n, Position(rep.pboard.position(), ruleset, None, names, scores, mover, None, None, f"{name}, at the end")
            return
        if upto is not None and n >= upto:
            return
        if ev.player >= rep.n:
            rep.fault("PLAYER_DOES_NOT_EXIST", f"player {ev.player + 1}", ev, kind="error")
        handlers[ev.kind](ev)


def score(
    play: Optional[str] = typer.Option(
        None,
        "--play",
        "-p",
        help="The play: '8D JOINT' across, 'H8 .A' down (GCG; lowercase = blank). Default with --game: the recorded play of move N.",
    ),
    board: Optional[str] = typer.Option(
        None, "--board", "-b", help="Board file: one line per row, '.' empty (GCG case: uppercase tile, lowercase blank)."
    ),
    board_format: BoardFormat = typer.Option(
        BoardFormat.gcg, "--board-format", help="gcg, netskrafl (lowercase tile, uppercase blank) or cgp."
    ),
    cgp: Optional[str] = typer.Option(None, "--cgp", help="The position as a CGP string (its first rack is the mover's)."),
    game: Optional[Path] = typer.Option(
        None, "--game", help="A GCG file or Netskrafl JSON record: the position before --move N."
    ),
    move: Optional[int] = typer.Option(
        None, "--move", min=1, help="With --game: the event number (1 = the first); the position before it."
    ),
    rack: Optional[str] = typer.Option(
        None,
        "--rack",
        "-r",
        help="The player's rack, e.g. AEINRS? ('?' = blank): tiles must come from it. Default: the CGP's or the game's rack, else no rack check.",
    ),
    lang: Optional[str] = typer.Option(None, "--lang", "-l", help="Language whose built lexicon checks the words (output/LANG)."),
    lexicon: Optional[Path] = typer.Option(None, "--lexicon", help="A lexicon folder written by 'skrafl build'."),
    rules: Optional[str] = typer.Option(
        None,
        "--rules",
        help="Rules preset (netskrafl, wespa, ordspill, erudit, russian_scrabble, slovene) or a .toml file; default: the lexicon's or the language's.",
    ),
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
        write_picture(pic, svg)
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
        lines += [f"word\t{w['word'].upper()}\t{w['score']}\t{valid_text(w)}".rstrip("\t") for w in data["words"]]
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
            rows.append((label, f"{w['word'].upper().ljust(width)}  {str(w['score']).rjust(3)}  {valid_text(w)}".rstrip() + main))
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
