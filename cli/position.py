"""The position options shared by ``skrafl score`` and ``skrafl show``, defined once: a board file,
a CGP string, or the position before the Nth event of a game log (replayed by
:mod:`pipelines.replay`), with the game system from ``--rules``, the lexicon or the language.

Typer options (``BOARD_OPTION``, ``BOARD_FORMAT_OPTION``, ``CGP_OPTION``, ``GAME_OPTION``,
``MOVE_OPTION``, ``LANG_OPTION``, ``LEXICON_OPTION``, ``RULES_OPTION``) and the loading behind
them (:func:`load_position`, :func:`cgp_position`, :func:`game_positions`, :func:`lexicon_folder`,
:func:`resolve_rules`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import typer

from cli.common import BoardFormat, input_file, output_root

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gamecore.board import Board
    from gamecore.rules import RuleSet

BOARD_OPTION = typer.Option(
    None, "--board", "-b", help="Board file: one line per row, '.' empty (GCG case: uppercase tile, lowercase blank)."
)
BOARD_FORMAT_OPTION = typer.Option(
    BoardFormat.gcg, "--board-format", help="gcg, netskrafl (lowercase tile, uppercase blank) or cgp."
)
CGP_OPTION = typer.Option(None, "--cgp", help="The position as a CGP string (its first rack is the mover's).")
GAME_OPTION = typer.Option(None, "--game", help="A GCG file or Netskrafl JSON record: the position before --move N.")
MOVE_OPTION = typer.Option(
    None, "--move", min=1, help="With --game: the event number (1 = the first); the position before it (default: the end)."
)
LANG_OPTION = typer.Option(None, "--lang", "-l", help="Language whose built lexicon to use (output/LANG).")
LEXICON_OPTION = typer.Option(None, "--lexicon", help="A lexicon folder written by 'skrafl build'.")
RULES_OPTION = typer.Option(
    None,
    "--rules",
    help="Rules preset (netskrafl, wespa, ordspill, erudit, russian_scrabble, slovene, …) or a .toml file; "
    "default: the lexicon's or the language's.",
)


@dataclass
class Position:
    """A position to rule on or draw.

    Attributes:
        board: the :class:`gamecore.board.Board`; rules: the :class:`gamecore.rules.RuleSet`.
        rack: the mover's rack (labels, ``?`` = blank), or None when unknown.
        players: every player's name (game logs: 2–4, in turn order), or None. scores: the scores
            before the play, one per player, mover's first is *not* implied: ``scores[i]`` is player
            i's (a CGP string: the player on turn first). mover: the index of the player on turn,
            or None when nobody is (the end of a finished game).
        recorded_play: the play the game log records at this point (``8D WORD``), if any.
        recorded_score: its recorded score.
        what: where the position comes from, for messages and pictures.
        extra: more about it (game logs: ``kind``, the kind of the event that follows, absent at the end;
            ``format``, the log's format: ``gcg`` or ``netskrafl``; ``broken``, what the rules refuse in
            the events before it, as ``replay`` says it: the findings that make the game a mismatch).
    """

    board: Board
    rules: RuleSet
    rack: list[str] | None = None
    players: tuple[str, ...] | None = None
    scores: tuple[int, ...] | None = None
    mover: int | None = 0
    recorded_play: str | None = None
    recorded_score: int | None = None
    what: str = ""
    extra: dict = field(default_factory=dict)


def shown_coord(coord: Optional[str], size: int, coords) -> Optional[str]:
    """A ruling's GCG ``coord`` as written under ``--coords``: unchanged for gcg, in Netskrafl's
    order (row letter first across) for netskrafl (a coordinate off the board as it is)."""
    if coord is None or getattr(coords, "value", coords) == "gcg":
        return coord
    from gamecore.coords import gcg_to_netskrafl
    from gamecore.errors import SkraflError

    try:
        return gcg_to_netskrafl(coord, size)
    except SkraflError:
        return coord


def broken_note(command: str, pos: Position) -> Optional[str]:
    """A one-line note when the events before a game position break the rules (``replay`` marks
    the game a mismatch for the same findings), else None."""
    broken = pos.extra.get("broken")
    if not broken:
        return None
    more = f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""
    return f"skrafl {command}: note: {pos.what}: the game log breaks the rules before this position: {broken[0]}{more}"


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
        return game_position(game, move, rules, lang)
    ruleset = resolve_rules(rules, lex, lang)
    tile_set, layout = ruleset.tiles(), ruleset.layout()
    if cgp is not None or board_format == BoardFormat.cgp:
        if cgp is not None:
            text, path = cgp, None
        else:
            assert board is not None  # exactly one of the three is given
            p = Path(board)
            if p.exists():  # a file (a folder is refused); else the CGP text itself
                input_file(p, "board", "--board")
            text, path = (_read_text(p), p) if p.exists() else (board, None)
        return cgp_position(text, ruleset, path)
    from gamecore.board import parse_board_text
    from gamecore.text import read_board_text

    assert board is not None  # exactly one of the three is given
    p = input_file(board, "board", "--board")  # a folder is not missing; /dev/null or a FIFO is read
    text = read_board_text(p)  # at most BOARD_FILE_MAX bytes read
    return Position(parse_board_text(text, tile_set, layout, board_format.value, p), ruleset, what=str(p))


def cgp_position(text: str, ruleset, path: Optional[Path] = None) -> Position:
    """The position of a CGP string (``--cgp``, a CGP board file, a line of ``score --batch``):
    its board, its first rack (the mover's; None when the field is empty) and its scores.

    Raises:
        DataError: not a CGP string for the rule set's board and tiles.
    """
    from gamecore.board import parse_cgp

    pos = parse_cgp(text, ruleset.tiles(), ruleset.layout(), path=path)  # a file: its own line numbers
    return Position(pos.board, ruleset, pos.racks[0] or None, None, pos.scores, 0, what="CGP")


def _read_text(p: Path) -> str:
    """A CGP file's text: at most :data:`gamecore.text.BOARD_FILE_MAX` bytes read (DataError beyond,
    or when it is not UTF-8)."""
    from gamecore.text import read_board_text

    return read_board_text(p, "CGP")


def game_position(path: Path, move: Optional[int], preset: Optional[str], lang: Optional[str]) -> Position:
    """The position before event ``move`` (1-based; default: after the last event) of a game log,
    replayed by the replay code (:mod:`pipelines.replay`): tiles, scores, the mover and its rack.

    Raises:
        UsageError: no such file, ``move`` out of range; DataError: the game cannot be read or
        replayed up to there.
    """
    from gamecore.errors import UsageError
    from pipelines.replay import read_game_file

    input_file(path, "game", "--game")  # a folder is not missing; /dev/null or a FIFO is read
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
    from pipelines.replay.game import Replayer

    g = game if game is not None else read_game_file(str(path))
    ruleset = rules_for_game(g, preset, lang)
    head = copy.copy(g)
    head.last_racks, head.final_scores, head.warnings = {}, None, []  # cut anywhere: no end-of-game checks
    rep = Replayer(head, ruleset, None, False)
    rep.start()  # replay's own game loop, one event at a time (Replayer.step)
    names = tuple((g.players[i].nick if i < len(g.players) else f"player{i + 1}") for i in range(rep.n))
    name = Path(path).name
    n_events = len(g.events)
    for n in range(1, n_events + 2):
        if n > n_events and g.format == "netskrafl":
            rep.netskrafl_end()  # Netskrafl records hold no end-of-game events: the replay adds them
        scores = tuple(rep.computed)
        broken = [f"{f.code}: {f.message}" + (f" (line {f.line})" if f.line else "") for f in rep.mismatches]
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
            who = names[mover] if mover < len(names) else f"player {mover + 1}"
            what = f"{name}, before event {n} ({who} to move)"
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
                    {"kind": ev.kind, "format": g.format, "broken": broken},
                ),
            )
        else:
            # a finished game has nobody on turn; an unfinished one the player whose turn it is
            mover = None if rep.over is not None else rep.expected if rep.expected is not None else 0
            end = Position(rep.pboard.position(), ruleset, None, names, scores, mover, None, None, f"{name}, at the end")
            end.extra["format"] = g.format
            end.extra["broken"] = broken
            yield n, end
            return
        if upto is not None and n >= upto:
            return
        rep.step(ev)


__all__ = [
    "BOARD_FORMAT_OPTION",
    "BOARD_OPTION",
    "CGP_OPTION",
    "GAME_OPTION",
    "LANG_OPTION",
    "LEXICON_OPTION",
    "MOVE_OPTION",
    "RULES_OPTION",
    "Position",
    "broken_note",
    "cgp_position",
    "game_positions",
    "lexicon_folder",
    "load_position",
    "resolve_rules",
    "shown_coord",
]
