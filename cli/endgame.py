"""``skrafl endgame``: solve a position whose bag is empty (both racks known) exactly."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from cli.common import FORMAT_OPTION, BoardFormat, OutputFormat
from cli.position import BOARD_FORMAT_OPTION, GAME_OPTION, LANG_OPTION, LEXICON_OPTION, MOVE_OPTION, RULES_OPTION

HELP = (
    "Solve an endgame exactly (the bag is empty, both racks known): the final spread the side on turn reaches "
    "with best play by both sides (the rule set's end-of-game rack adjustments included) and the best sequence "
    "of plays and passes; with one tile in the bag, the pre-endgame: each candidate play's mean over every draw.\n\n"
    "The search: negamax with alpha-beta, move ordering, a transposition table and iterative deepening; "
    "printed with the depth searched, whether it reached the end of the game on every line (proved), the "
    "nodes and the seconds. -f json: value, gain (the spread added to the current one), sequence (player, "
    "coord, word, score), depth, proved, nodes, seconds.\n\n"
    "Position: --cgp 'CGP' (its racks: the side on turn's, then the opponent's; its scores and scoreless "
    "turns), --board FILE --rack R [--opp-rack R], or --game FILE --move N (the position before event N "
    "of a GCG file or Netskrafl record). Without the opponent's rack, it is every tile not on the board "
    "or the rack on turn. --plies N stops at N plies; --seconds S at a time limit: the best sequence of "
    "the last depth completed and that depth are printed.\n\n"
    "Pre-endgame (exactly one tile in the bag: the opponent's rack and that tile together are the unseen "
    "tiles U): each of the best --candidates N plays (default 10; by static equity with --leaves, else by "
    "score) is played, and for each tile of U that could be in the bag (weighted by its count in U) the "
    "side on turn draws it, the opponent holds the rest and the endgame is solved exactly (--plies and "
    "--seconds apply to each solve); a candidate's value is the mean final spread over the draws, with the "
    "draws it wins, ties and loses. Passes and exchanges are not candidates (they leave the bag's tile "
    "unseen). -f json: candidates [{move, value, wins, draws, losses}], best, depth, proved.\n\n"
    "Exit status: 0 solved; 2 usage or input error (one line on stderr), two or more tiles in the bag included."
)


def endgame(
    cgp: Optional[str] = typer.Option(
        None, "--cgp", help="The position as a CGP string: board, racks (on turn/opponent), scores, zeros."
    ),
    board: Optional[str] = typer.Option(None, "--board", "-b", help="Board file: one line per row, '.' empty (GCG case)."),
    board_format: BoardFormat = BOARD_FORMAT_OPTION,
    rack: Optional[str] = typer.Option(None, "--rack", "-r", help="With --board: the rack of the side on turn ('?' = blank)."),
    opp_rack: Optional[str] = typer.Option(
        None, "--opp-rack", help="The opponent's rack (default: every tile not on the board or the rack on turn)."
    ),
    game: Optional[Path] = GAME_OPTION,
    move: Optional[int] = MOVE_OPTION,
    lang: Optional[str] = LANG_OPTION,
    lexicon: Optional[Path] = LEXICON_OPTION,
    rules: Optional[str] = RULES_OPTION,
    plies: Optional[int] = typer.Option(None, "--plies", min=1, help="Search at most N plies (default: to the end of the game)."),
    seconds: Optional[float] = typer.Option(
        None, "--seconds", min=0.0, help="Time limit: the result of the last depth completed within it."
    ),
    candidates: int = typer.Option(
        10, "--candidates", min=1, help="Pre-endgame (one tile in the bag): the plays evaluated (default 10)."
    ),
    leaves: Optional[str] = typer.Option(
        None, "--leaves", help="Pre-endgame: choose the candidates by static equity with this KLV2 file (or LANG)."
    ),
    fmt: OutputFormat = FORMAT_OPTION,
) -> None:
    from cli.position import lexicon_folder
    from gamecore.best import load_bundle
    from gamecore.endgame import Endgame
    from gamecore.errors import UsageError

    folder = lexicon_folder(lang, lexicon)
    if folder is None:
        raise UsageError("give --lang L (the built lexicon output/L) or --lexicon DIR: the endgame needs the words")
    if rack is not None and board is None:
        raise UsageError("--rack goes with --board (a CGP string or a game gives the rack)")
    if board is not None and rack is None:
        raise UsageError("--board needs --rack R: the rack of the side on turn")
    if opp_rack is not None and game is not None:
        raise UsageError(
            "--opp-rack goes with --board or --cgp (in a game with an empty bag the opponent holds every unseen tile)"
        )
    bundle = load_bundle(folder)
    if cgp is not None and board is None and game is None:
        side = _cgp_side(cgp, opp_rack, rules, bundle, lang)
    else:
        side = _position_side(board, board_format, cgp, game, move, rack, opp_rack, rules, lang, bundle)
    ruleset, the_board, mine, theirs, scores, zeros, passes = side
    theirs, unseen = _check_bag(the_board, mine, theirs, ruleset)
    if ruleset.players_max < 2:
        raise UsageError(f"the rules of {ruleset.name} are not a game of two")  # pragma: no cover
    if unseen is not None:
        from gamecore.preendgame import solve_preendgame

        table = None
        if leaves is not None:
            from cli.best import leave_table

            table = leave_table(leaves, the_board.tile_set, lang, ruleset.name)
        pre = solve_preendgame(
            the_board, mine, unseen, bundle.kwg, bundle.alphabet, ruleset, scores, candidates, table, plies, seconds
        )
        sys.stdout.write(_render_pre(pre, mine, fmt))
        return
    if leaves is not None or candidates != 10:
        raise UsageError("--candidates and --leaves are for a pre-endgame (one tile in the bag); this bag is empty")
    eg = Endgame(the_board, (mine, theirs), bundle.kwg, bundle.alphabet, ruleset, scores, zeros, passes)
    result = eg.solve(plies=plies, seconds=seconds)
    sys.stdout.write(_render(result, fmt))


def _cgp_side(cgp: str, opp_rack: Optional[str], rules: Optional[str], bundle, lang: Optional[str]):
    """The position of ``--cgp``: ``(rules, board, rack, opponent's rack or None, scores, scoreless
    turns, passes)``."""
    from cli.position import resolve_rules
    from gamecore.board import parse_cgp
    from gamecore.errors import UsageError
    from gamecore.text import nfc

    ruleset = resolve_rules(rules, bundle, lang)
    pos = parse_cgp(nfc(cgp), ruleset.tiles(), ruleset.layout())
    mine = list(pos.racks[0])
    theirs = _rack(opp_rack, ruleset, "--opp-rack") if opp_rack is not None else list(pos.racks[1]) or None
    if not mine:
        raise UsageError("the CGP string gives no rack for the side on turn: write it as RACK/OPPONENT after the board")
    return ruleset, pos.board, mine, theirs, pos.scores, pos.zeros, (0, 0)


def _position_side(board, board_format, cgp, game, move, rack, opp_rack, rules, lang, bundle):
    """The position of ``--board``/``--rack`` or of ``--game``/``--move`` (read by
    :func:`cli.position.load_position`), as :func:`_cgp_side` gives it."""
    from cli.position import load_position
    from gamecore.errors import UsageError

    position = load_position(
        board=board, board_format=board_format, cgp=cgp, game=game, move=move, rules=rules, lang=lang, lex=bundle
    )
    ruleset = position.rules
    theirs = _rack(opp_rack, ruleset, "--opp-rack") if opp_rack is not None else None
    if game is None:
        assert rack is not None  # --board goes with --rack, checked by endgame
        return ruleset, position.board, _rack(rack, ruleset, "--rack"), theirs, (0, 0), 0, (0, 0)
    if position.mover is None:
        raise UsageError(f"{position.what}: the game is over; give --move N of a turn before its end")
    if not position.rack:
        raise UsageError(f"{position.what}: the game log does not give the rack of the side on turn")
    p = position.mover
    s = position.scores or (0, 0)
    if len(s) != 2:
        raise UsageError(f"{position.what}: the endgame is solved for two players; this game has {len(s)}")
    zeros, passes = _scoreless(game, move, p)
    return ruleset, position.board, list(position.rack), theirs, (s[p], s[1 - p]), zeros, passes


def _rack(text: str, ruleset, option: str) -> list[str]:
    from gamecore.errors import SkraflError, UsageError
    from gamecore.text import nfc

    text = nfc(text.strip())
    if not text:
        raise UsageError(f"{option} is empty: give the rack's tiles, e.g. AEINRS? ('?' = blank)")
    try:
        return ruleset.tiles().parse_rack(text, check_counts=False)
    except SkraflError as exc:
        raise UsageError(f"{option}: {exc.message}") from None


def _check_bag(board, mine: list[str], theirs: list[str] | None, ruleset) -> tuple[list[str], list[str] | None]:
    """The opponent's rack (the given one, or every tile not on the board or the rack on turn), and
    None; or, with exactly one tile in the bag (a pre-endgame), the opponent's rack and the unseen
    tiles (that rack and the bag's tile).

    Raises:
        UsageError: a rack longer than the rule set's or more of a tile than the tile set has; two or
        more tiles left in the bag (neither on the board nor on a rack).
    """
    from gamecore.errors import UsageError

    ts = board.tile_set
    _check(board, mine, ruleset, "the rack on turn")
    left = {label: ts.counts.get(label, 0) for label in ts.letters}
    left["?"] = ts.blanks
    for t, c in board.used_counts().items():
        left[t] = left.get(t, 0) - c
    for t in mine:
        left[t] -= 1
    unseen = [t for t in [*ts.letters, "?"] for _ in range(max(0, left.get(t, 0)))]
    if theirs is None:
        if len(unseen) == ruleset.rack_size + 1:
            return unseen[: ruleset.rack_size], unseen
        if len(unseen) > ruleset.rack_size:
            raise UsageError(
                f"the bag is not empty: {len(unseen)} tiles are neither on the board nor on the rack on turn, more than "
                f"a rack of {ruleset.rack_size} and one in the bag; the endgame starts once the bag is empty, the "
                "pre-endgame with one tile in it (a later --move, or a position after the last draw)"
            )
        if not unseen:
            raise UsageError("the opponent has no tiles: the game is over (every tile is on the board or the rack on turn)")
        return unseen, None
    _check(board, theirs, ruleset, "the opponent's rack")
    _check(board, mine + theirs, ruleset.replace(rack_size=2 * ruleset.rack_size), "the two racks")
    for t in theirs:
        left[t] -= 1
    bag = sum(c for c in left.values() if c > 0)
    if bag > 1:
        raise UsageError(
            f"the bag is not empty: {bag} tiles are neither on the board nor on a rack; the endgame needs both "
            "racks to hold every unseen tile, the pre-endgame all but one (leave out --opp-rack to give the "
            "opponent all of them)"
        )
    if not theirs:
        raise UsageError("the opponent's rack is empty: the game is over")
    if bag == 1:
        return theirs, theirs + [t for t, c in left.items() if c > 0]
    return theirs, None


def _check(board, rack: list[str], ruleset, whose: str) -> None:
    from gamecore.best import check_tiles
    from gamecore.errors import UsageError

    try:
        check_tiles(board, rack, ruleset)
    except UsageError as exc:
        raise UsageError(f"{whose}: {exc.message}") from None


def _scoreless(game: Path, move: Optional[int], mover: int) -> tuple[int, tuple[int, int]]:
    """The scoreless turns in a row before event ``move`` of the game, and each side's own passes in
    a row (on turn, opponent), counted as the replay counts them: a pass or an exchange adds one, a
    play sets the count to 0, a withdrawn play is a scoreless turn in its place."""
    from pipelines.replay import read_game_file

    g = read_game_file(str(game))
    events = g.events if move is None else g.events[: move - 1]
    zeros, passes = 0, [0, 0, 0, 0]
    before = 0
    for ev in events:
        p = ev.player if 0 <= ev.player < 4 else 0
        if ev.kind == "play":
            before, zeros, passes[p] = zeros, 0, 0
        elif ev.kind == "withdraw":
            zeros = before + 1
        elif ev.kind == "pass":
            zeros += 1
            passes[p] += 1
        elif ev.kind == "exchange":
            zeros += 1
            passes[p] = 0
    return zeros, (passes[mover], passes[1 - mover])


def _render(r, fmt: OutputFormat) -> str:
    seq = [
        {"player": "on turn" if m.player == 0 else "opponent", "coord": m.coord, "word": m.word, "score": m.score}
        for m in r.sequence
    ]
    if fmt == OutputFormat.json:
        doc = {
            "value": r.value,
            "gain": r.gain,
            "spread": r.spread,
            "sequence": seq,
            "depth": r.depth,
            "proved": r.proved,
            "stopped": r.stopped,
            "nodes": r.nodes,
            "seconds": round(r.seconds, 3),
            "racks": list(r.racks),
        }
        return json.dumps(doc, ensure_ascii=False) + "\n"
    line = "; ".join(m.text() for m in r.sequence)
    if fmt == OutputFormat.tsv:
        head = "value\tgain\tdepth\tproved\tnodes\tseconds\tsequence\n"
        return head + f"{r.value}\t{r.gain}\t{r.depth}\t{str(r.proved).lower()}\t{r.nodes}\t{r.seconds:.3f}\t{line}\n"
    status = "proved to the end of the game" if r.proved else "not proved (the depth limit)"
    if r.stopped:
        status = "not proved: the time limit stopped the search" if not r.proved else status
    out = [
        f"racks: {r.racks[0]} (on turn) / {r.racks[1]}",
        f"value: {r.value:+d} (spread now {r.spread:+d}, gain {r.gain:+d}); depth {r.depth}, {status}",
        f"nodes: {r.nodes:,} in {r.seconds:.2f} s",
    ]
    width = max([len(m.coord) for m in r.sequence] + [5])
    wordw = max([len(m.word) for m in r.sequence] + [4])
    for i, m in enumerate(r.sequence, 1):
        who = "on turn " if m.player == 0 else "opponent"
        if m.is_pass:
            out.append(f"{i:>3}. {who}  {'pass':<{width + wordw + 1}}  0")
        else:
            out.append(f"{i:>3}. {who}  {m.coord:<{width}} {m.word:<{wordw}}  {m.score}" + ("  (out)" if m.out else ""))
    return "\n".join(out) + "\n"


def _render_pre(r, mine: list[str], fmt: OutputFormat) -> str:
    rows = [
        {
            "move": f"{c.play.coord} {c.play.word_text('.')}",
            "score": c.play.score,
            "value": round(c.value, 4),
            "wins": c.wins,
            "draws": c.draws,
            "losses": c.losses,
            "depth": c.depth,
            "proved": c.proved,
        }
        for c in r.candidates
    ]
    if fmt == OutputFormat.json:
        doc = {
            "preendgame": True,
            "candidates": rows,
            "best": rows[0]["move"] if rows else None,
            "unseen": "".join(r.unseen),
            "spread": r.spread,
            "depth": r.depth,
            "proved": r.proved,
            "nodes": r.nodes,
            "seconds": round(r.seconds, 3),
        }
        return json.dumps(doc, ensure_ascii=False) + "\n"
    if fmt == OutputFormat.tsv:
        head = "move\tscore\tvalue\twins\tdraws\tlosses\tdepth\tproved\n"
        return head + "".join(
            f"{x['move']}\t{x['score']}\t{x['value']}\t{x['wins']}\t{x['draws']}\t{x['losses']}\t{x['depth']}\t"
            f"{str(x['proved']).lower()}\n"
            for x in rows
        )
    status = "every solve proved to the end of the game" if r.proved else f"not all proved (depth {r.depth} at least)"
    out = [
        f"pre-endgame: rack {''.join(mine)}, unseen {''.join(r.unseen)} (one of them in the bag); spread now {r.spread:+d}",
        f"{len(rows)} candidates x {len(r.weights)} draws; {status}; nodes {r.nodes:,} in {r.seconds:.2f} s",
    ]
    width = max([len(x["move"]) for x in rows] + [4])
    out.append(f"{'move':<{width}}  score     value  wins draws losses")
    for x in rows:
        out.append(f"{x['move']:<{width}}  {x['score']:>5}  {x['value']:>+8.2f}  {x['wins']:>4} {x['draws']:>5} {x['losses']:>6}")
    return "\n".join(out) + "\n"


def register(app: typer.Typer) -> None:
    app.command(
        "endgame",
        help=HELP,
        epilog="Example: skrafl endgame --lang is --cgp 'CGP' -f json · skrafl endgame --lexicon LEX --game game.gcg --move 26",
    )(endgame)
