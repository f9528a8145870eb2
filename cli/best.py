"""``skrafl best``: every legal play for a board and a rack, best first (or a robot's pick)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from cli.common import (
    FORMAT_OPTION,
    QUIET_OPTION,
    BoardFormat,
    Coords,
    OutputFormat,
    emit,
    input_file,
    lexicon_folder,
    picture_target,
)
from cli.position import CGP_OPTION

COLUMNS = ["coord", "word", "score", "tiles_placed", "leave"]

HELP = (
    "List the legal plays for a board and a rack, best first (or the play a Netskrafl robot would make).\n\n"
    "Columns: coord (GCG: 8D = row 8 from column D across, D8 = column D from row 8 down; with --coords "
    "netskrafl the Netskrafl order: H4 = row H from column 4 across, 4H = column 4 from row H down; the "
    "--svg picture's edge labels and caption follow it too), word (a blank "
    "as a lowercase letter), score, tiles_placed, leave.\n\n"
    "Order: score, highest first; then fewer tiles placed; then coordinate (row, column, across before "
    "down); then word.\n\n"
    "Leave: the tiles that stay on the rack after the play, before drawing (alphabet order, blanks '?' "
    "last); empty when the play uses every tile.\n\n"
    "Position: --board FILE (board text; --board-format cgp: a CGP string in the file or the text "
    "itself), or --cgp 'CGP' (as score and show take it; its first rack is the rack unless --rack).\n\n"
    "How many: the best 10, --top/-n N the best N, --all every legal play (not with --top).\n\n"
    "Many positions (--board -): one CGP string per line of stdin, each line's rack field giving the rack "
    "(blank lines skipped); the lexicon is loaded once and each position's plays are written as it is read "
    "(flushed): tsv rows with the input line number first (one header), json one object per line "
    '({"line": N, "plays": [...]}), table one block per position (headed "line N"). A bad line is one error '
    "line on stderr (-:LINE: why) and gives no output; the other lines go on, and the exit status is then 2.\n\n"
    "Equity (--leaves FILE, a KLV2 leave file as MAGPIE and wolges write it, e.g. MAGPIE-DATA's "
    "data/lexica/CSW21.klv2): plays and exchanges ranked by MAGPIE's static equity, highest first: score + the "
    "value of the tiles kept (while the bag has tiles) + its opening and endgame terms; columns kind (play or "
    "exchange), coord, word (an exchange: the tiles exchanged), score, tiles_placed, leave, equity (points, to "
    "the thousandth). Exchanges are listed when the bag allows one. The opponent's rack, when the CGP gives it, is "
    "not in the bag. --leaves LANG: the leave file shipped for a language (skrafl leaves path --lang LANG). "
    "Without --leaves: by score.\n\n"
    "Simulation (--sim, with --leaves): the best --candidates N moves by static equity (default 10) are each "
    "played on the same sampled opponent racks and bag orders, followed by --plies moves (default 2) of the "
    "static-equity player for each side; a candidate clearly behind the leader on the same draws is dropped "
    "after 64 iterations, and the run ends when one is left or after --iterations N (default 1000) or "
    "--seconds S. Columns: kind, coord, word, score, leave, equity (static), sim (the mean of spread change + "
    "leave values), stderr, win (percent, from the language's win model), iterations; best first. --seed "
    "makes it reproducible: the same output at any --threads or --workers.\n\n"
    "Robots (--robot): fullsterkur plays the best play; midlungur and amlodi pick at random among the "
    "best 20 / 30 plays whose main word is in their vocabulary (--vocabulary, default LEXICON_DIR/ROBOT, "
    "e.g. output/is/midlungur); equity makes the top move by static equity (a play or an exchange, the "
    "--leaves columns) with --leaves, else the language's shipped leaves.\n\n"
    "Exit status: 0 plays listed (also when there is none); 2 usage or input error (one line on stderr; "
    "with --board -: some line was bad, one line each)."
)


class Robot(str, Enum):
    fullsterkur = "fullsterkur"
    midlungur = "midlungur"
    amlodi = "amlodi"
    equity = "equity"


def best(
    board: Optional[str] = typer.Option(
        None,
        "--board",
        "-b",
        help="Board file: 15 lines of 15 ('.' empty; GCG: uppercase tile, lowercase blank). "
        "With --board-format cgp: a file holding a CGP string, or the CGP string itself. "
        "'-': many positions, one CGP string per line of stdin.",
    ),
    cgp: Optional[str] = CGP_OPTION,
    rack: Optional[str] = typer.Option(
        None, "--rack", "-r", help="The rack, e.g. AEINRS? ('?' = blank). From the CGP string if omitted."
    ),
    lang: Optional[str] = typer.Option(None, "--lang", "-l", help="Language whose built lexicon to use (output/LANG)."),
    lexicon: Optional[Path] = typer.Option(None, "--lexicon", help="A lexicon folder written by 'skrafl build'."),
    rules: Optional[str] = typer.Option(
        None,
        "--rules",
        help="Rules preset (netskrafl, ordspill, erudit, russian_scrabble, slovene, wespa) "
        "or a .toml file; default: the lexicon's, else the language's default.",
    ),
    top: Optional[int] = typer.Option(None, "--top", "-n", help="How many plays to show (the best N; default 10)."),
    show_all: bool = typer.Option(False, "--all", help="Show every legal play (not with --top/-n)."),
    board_format: BoardFormat = typer.Option(BoardFormat.gcg, "--board-format", help="gcg, netskrafl or cgp."),
    robot: Optional[Robot] = typer.Option(
        None, "--robot", help="Show only the move this robot makes: a Netskrafl robot, or equity (the top move by static equity)."
    ),
    vocabulary: Optional[Path] = typer.Option(
        None,
        "--vocabulary",
        help="The robot's vocabulary: a lexicon folder written by 'skrafl build'. "
        "Default for midlungur/amlodi: the tier LEXICON_DIR/ROBOT (e.g. output/is/midlungur).",
    ),
    seed: Optional[int] = typer.Option(None, "--seed", help="Random seed for the robot's pick (reproducible)."),
    pick_from: Optional[int] = typer.Option(
        None,
        "--pick-from",
        min=1,
        help="How many plays midlungur/amlodi pick among (default as Netskrafl's code: 20 and 30; its FAQ says 10 and 20).",
    ),
    leaves: Optional[str] = typer.Option(
        None,
        "--leaves",
        help="Rank plays and exchanges by static equity with this KLV2 leave file (or LANG: its shipped leaves).",
    ),
    sim: bool = typer.Option(False, "--sim", help="Choose by Monte Carlo simulation of the best candidates (needs --leaves)."),
    plies: int = typer.Option(2, "--plies", help="--sim: moves simulated after each candidate."),
    iterations: Optional[int] = typer.Option(None, "--iterations", help="--sim: at most N iterations (default 1000)."),
    seconds: Optional[float] = typer.Option(None, "--seconds", help="--sim: stop after S seconds (not with --iterations)."),
    candidates: int = typer.Option(10, "--candidates", help="--sim: how many of the best moves by static equity to simulate."),
    workers: int = typer.Option(1, "--workers", help="--sim: worker processes (the output does not depend on it)."),
    threads: int = typer.Option(
        1, "--threads", help="--sim: threads of this process (lighter than --workers; the output does not depend on it)."
    ),
    svg: Optional[Path] = typer.Option(
        None,
        "--svg",
        help="Also draw the board with the top play (or the robot's pick) highlighted and the rack below (.svg or .png).",
    ),
    coords: Coords = typer.Option(
        Coords.gcg,
        "--coords",
        help="Coordinates printed and drawn (the --svg edge labels and caption): gcg (8D across, D8 down) "
        "or netskrafl (H4 across, 4H down).",
    ),
    fmt: OutputFormat = FORMAT_OPTION,
    quiet: bool = QUIET_OPTION,
) -> None:
    """List the legal plays for a board and a rack, best first.

    Order: score (highest first), then fewer tiles, then coordinate. A blank shows as a lowercase
    letter; 'leave' is what stays on the rack.
    """
    from gamecore.best import load_bundle

    sim_opts = (plies, iterations, seconds, candidates, workers, threads)
    n = _check_options(
        board, cgp, rack, lang, lexicon, top, show_all, board_format, robot, vocabulary, pick_from, leaves, sim, sim_opts, svg
    )
    many = board == "-"
    folder = lexicon_folder(lexicon, lang)
    vocab_dir = _vocabulary_dir(robot, vocabulary, Path(folder))
    bundle = load_bundle(folder)
    from cli.position import resolve_rules

    ruleset = resolve_rules(rules, bundle, lang)  # --rules, else the lexicon's, else the language's
    tile_set, layout = ruleset.tiles(), ruleset.layout()
    if robot == Robot.equity:
        n = 1  # the equity robot's one move: the top move by static equity
        leaves = leaves or _shipped_leaves_language(lang, bundle, ruleset)
    table = None if leaves is None else _equity_leaves(leaves, ruleset, tile_set, lang)
    note = ruleset.placeholder_note()
    if note and not quiet:
        typer.echo(f"skrafl best: note: {note}", err=True)

    vocabs: list = []  # the robot's vocabulary, loaded when first needed (after the first position's plays)

    def vocab():
        if not vocabs:
            from gamecore.lexicon import Lexicon

            vocabs.append(Lexicon.load(vocab_dir) if vocab_dir is not None else None)
        return vocabs[0]

    columns = COLUMNS + (["swap"] if ruleset.blank_swap else [])
    if table is not None:
        columns = ["kind", *COLUMNS, "equity"]
    shown = _coord_writer(coords, layout.size)

    from gamecore.folded import manifest_fold

    fold = manifest_fold(bundle)  # the lexicon's letter folds, read once (not once per position)

    def plays_of(position, rack_tiles, opponent=()):
        if table is not None:
            return _ranked(position, rack_tiles, opponent, bundle, ruleset, fold, None if show_all else n, table, shown)
        return _plays(
            position, rack_tiles, bundle, ruleset, fold, n, show_all, robot, vocab, (seed, pick_from), quiet, shown, tile_set
        )

    if many:
        raise typer.Exit(_many(plays_of, tile_set, layout, columns, fmt))

    position, rack_tiles, opponent, spread = _read_position(board, cgp, board_format, rack, tile_set, layout)
    if sim:
        columns = SIM_COLUMNS
        plays, rows = _simulated(position, rack_tiles, opponent, spread, bundle, ruleset, table, shown, seed, sim_opts)
    else:
        plays, rows = plays_of(position, rack_tiles, opponent)
    emit(rows, columns, fmt)
    if svg is not None:
        _write_picture(svg, board, position, rack_tiles, plays, rows, shown, coords, sim, table is not None, ruleset)


def _equity_leaves(leaves: str, ruleset, tile_set, lang):
    """The leave table of ``--leaves`` (a KLV2 file or a language's shipped leaves) for the rule set."""
    from gamecore.errors import UsageError

    if ruleset.blank_swap:
        raise UsageError(f"--leaves: the rule set {ruleset.name} swaps blanks from the board, which equity does not model")
    return leave_table(leaves, tile_set, lang, ruleset.name)


def _shipped_leaves_language(lang, bundle, ruleset) -> str:
    """``--robot equity`` without ``--leaves``: the language whose shipped leaves rank the moves."""
    from gamecore.errors import UsageError
    from gamecore.klv import shipped_leaves

    language = lang or bundle.language
    if not language or shipped_leaves(language, ruleset.name) is None:
        raise UsageError(
            f"--robot equity ranks by static equity: no leave file is shipped for language {language!r} and "
            f"rules {ruleset.name!r} yet; give --leaves FILE.klv2"
        )
    return language


def _read_position(board, cgp, board_format, rack, tile_set, layout):
    """The one position of ``--board FILE`` or ``--cgp``: (board, rack tiles, the opponent's known
    tiles, the spread of the side on turn from a CGP's scores, else 0)."""
    from gamecore.board import parse_board_text, parse_cgp
    from gamecore.errors import UsageError
    from gamecore.text import read_board_text

    cgp_rack, opponent, pos = None, [], None
    if cgp is not None:
        from gamecore.text import nfc

        pos = parse_cgp(nfc(cgp), tile_set, layout)
        position, cgp_rack, opponent = pos.board, pos.racks[0], pos.racks[1]
    elif board_format == BoardFormat.cgp:
        assert board is not None  # --board or --cgp (checked above)
        p = Path(board)
        if p.exists():  # a file (a folder is refused); else the CGP text itself
            input_file(p, "board", "--board")
        text, path = (read_board_text(p, "CGP"), p) if p.exists() else (board, None)
        pos = parse_cgp(text, tile_set, layout, path=path)  # a file: its own line numbers
        position, cgp_rack, opponent = pos.board, pos.racks[0], pos.racks[1]
    else:
        assert board is not None  # --board or --cgp (checked above)
        p = input_file(board, "board", "--board")  # a folder is not missing; /dev/null or a FIFO is read
        position = parse_board_text(read_board_text(p), tile_set, layout, board_format.value, p)  # at most 1 MiB read
    if rack is not None:
        rack_tiles = tile_set.parse_rack(rack)
    elif cgp_rack:
        rack_tiles = cgp_rack
    else:
        raise UsageError("give --rack RACK (e.g. AEINRS?)")
    spread = pos.scores[0] - pos.scores[1] if pos is not None else 0  # the CGP's scores: the side on turn's first
    return position, rack_tiles, opponent, spread


def _write_picture(svg, board, position, rack_tiles, plays, rows, shown, coords, sim, equity, ruleset) -> None:
    """``--svg``: the board with the top play (or the robot's pick) and the rack, captioned."""
    from gamecore.picture import PositionPicture, write_picture

    first = plays[0] if plays else None
    caption = f"{shown(first.coord)} {first.word_text()} {first.score}" if first is not None else "no legal play"
    if equity and rows:
        eq = f"sim {rows[0][6]}" if sim else f"equity {rows[0][-1]}"  # --sim: the simulated mean
        caption = f"{caption} {eq}" if first is not None else f"exchange {rows[0][2]} {eq}"
    write_picture(
        PositionPicture(
            position,
            play=first,
            rack=rack_tiles,
            coords=coords.value,
            caption=caption,
            blank_values=ruleset.blank_value == "letter",
        ),
        svg,
        (board,),
    )


def _check_options(
    board, cgp, rack, lang, lexicon, top, show_all, board_format, robot, vocabulary, pick_from, leaves, sim, sim_opts, svg
) -> int:
    """The options that go together checked before anything is read (one :class:`UsageError` line);
    the number of plays to show."""
    from gamecore.errors import UsageError

    if lexicon is not None and lang is not None:
        raise UsageError("give --lang or --lexicon, not both")
    if lexicon is None and lang is None:
        raise UsageError("give --lang L (the built lexicon output/L) or --lexicon DIR")
    if show_all and top is not None:
        raise UsageError("give --all (every legal play) or --top/-n N (the best N), not both")
    if robot is not None and (show_all or top is not None):
        raise UsageError(f"--robot shows the one play {robot.value} makes: give no {'--all' if show_all else '--top/-n'}")
    if leaves is not None and robot is not None and robot != Robot.equity:
        raise UsageError(f"--robot {robot.value} picks by score as Netskrafl's robots do: give no --leaves")
    if pick_from is not None and (robot is None or robot.value in ("fullsterkur", "equity")):
        raise UsageError("--pick-from is how many plays midlungur or amlodi pick among: give --robot midlungur or amlodi")
    if vocabulary is not None and robot is None:
        raise UsageError("--vocabulary is the words a --robot plays: give --robot too")
    if sim and (leaves is None or show_all or top is not None or board == "-"):
        raise UsageError(
            "--sim needs --leaves FILE.klv2 and shows its --candidates N: give no "
            + ("--all" if show_all else "--top/-n" if top is not None else "--board -" if board == "-" else "")
            if leaves is not None
            else "--sim simulates with the static-equity player: give --leaves FILE.klv2 (or LANG)"
        )
    if not sim and sim_opts != (2, None, None, 10, 1, 1):
        raise UsageError(
            "--plies, --iterations, --seconds, --candidates, --threads and --workers are options of --sim: give --sim"
        )
    n = 10 if top is None else top
    if n < 1 and not show_all:
        raise UsageError("--top/-n must be at least 1")
    _check_position_options(board, cgp, rack, board_format, svg)
    return n


def _check_position_options(board, cgp, rack, board_format, svg) -> None:
    """The options that give the position, the rack and the picture checked (one :class:`UsageError` line)."""
    from gamecore.errors import UsageError

    if (board is None) == (cgp is None):
        raise UsageError(
            "give the position with one of --board FILE or --cgp 'CGP'" + (" (got --board, --cgp)" if board is not None else "")
        )
    if cgp is not None and board_format == BoardFormat.netskrafl:
        raise UsageError("--cgp is a CGP string; give no --board-format netskrafl")
    if rack is not None and not rack.strip():
        raise UsageError("--rack is empty: give the rack's tiles, e.g. AEINRS? ('?' = blank)")
    if svg is not None:
        picture_target(svg, "--svg", (board,))
    if board == "-":
        if rack is not None:
            raise UsageError("--board - reads one CGP string per line; each line's rack field gives the rack (no --rack)")
        if svg is not None:
            raise UsageError("--svg draws one position; --board - reads many")
        if board_format == BoardFormat.netskrafl:
            raise UsageError("--board - reads one CGP string per line (--board-format cgp), not Netskrafl boards")


def _plays(position, rack_tiles, bundle, ruleset, fold, n, show_all, robot, vocab, robot_opts, quiet, shown, tile_set):
    """The plays ``best`` shows for one position and rack (best first, the top N, every play, or
    the robot's pick) and their output rows. ``vocab()``: the robot's vocabulary (None: every word);
    ``robot_opts``: its (seed, pick_from)."""
    from gamecore.best import leave_text, robot_pick
    from gamecore.folded import best_plays_folded

    limit = None if (show_all or robot is not None) else n
    plays = best_plays_folded(
        position, rack_tiles, bundle, ruleset, None if ruleset.blank_swap else limit, fold
    )  # a Ё tile plays as Е (the Russian Scrabble article)
    swaps: dict[int, str] = {}
    if ruleset.blank_swap:  # the Russian Scrabble article: take a blank from the board with its letter, play it at once
        plays, swaps = _with_blank_swaps(position, rack_tiles, bundle, ruleset, plays, fold)
        plays = plays if limit is None else plays[:limit]
    if robot is not None:
        pick = robot_pick(plays, robot.value, vocab(), *robot_opts)
        if pick is None:
            if not quiet:
                typer.echo("no legal play: the robot exchanges all its tiles if the bag allows, else passes", err=True)
        plays = [pick] if pick is not None else []
    elif not show_all:
        plays = plays[:n]
    rows = [
        [
            shown(p.coord),
            p.word_text(),
            p.score,
            p.tiles_placed,
            leave_text(_rack_after_swap(rack_tiles, swaps.get(id(p))), p, tile_set),
        ]
        + ([_swap_text(swaps.get(id(p)))] if ruleset.blank_swap else [])
        for p in plays
    ]
    return plays, rows


def leave_table(value: str, tile_set, lang: str | None = None, rules: str | None = None):
    """``--leaves``: a KLV2 file, ``shipped`` or a language code (its shipped leaves for the rules),
    read against the rule set's tile set."""
    from gamecore.equity import LeaveTable
    from gamecore.klv import Klv, leaves_option

    p = leaves_option(value, lang, rules)
    if p is None:
        p = Path(value)
        input_file(p, "leave", "--leaves")
    return LeaveTable(Klv.read(p), tile_set)


def _ranked(position, rack_tiles, opponent, bundle, ruleset, fold, limit, table, shown):
    """``--leaves``: every play and exchange by static equity (the best ``limit``, or all), as rows.
    Returns (the plays, None for an exchange; rows)."""
    from gamecore.best import check_tiles, equity_search
    from gamecore.equity import rank
    from gamecore.folded import best_plays_folded, folded_tiles

    ranked = None
    if limit is not None:  # the best N: searched in C when the rules and rack allow
        check_tiles(position, rack_tiles, ruleset)
        folded = bool(folded_tiles(ruleset.tiles(), bundle.alphabet, fold))
        ranked = equity_search(bundle, ruleset, table, folded).rank(position, rack_tiles, opponent, limit)
    if ranked is None:
        plays = best_plays_folded(position, rack_tiles, bundle, ruleset, None, fold)
        ranked = rank(position, rack_tiles, plays, table, ruleset, opponent)[:limit]
    texts: dict[tuple, str] = {}  # leave text once per distinct leave

    def text(kept: tuple) -> str:
        t = texts.get(kept)
        if t is None:
            t = texts[kept] = table.labels(table.tiles(kept))
        return t

    rows = []
    for r in ranked:
        eq = round(r.milli / 1000, 3)
        if r.kind == "play":
            p = r.play
            assert p is not None  # a placement's row has its play
            rows.append(["play", shown(p.coord), p.word_text(), p.score, p.tiles_placed, text(r.leave), eq])
        else:
            rows.append(["exchange", "", table.labels(table.tiles(r.exchanged)), 0, 0, text(r.leave), eq])
    return [r.play for r in ranked], rows


SIM_COLUMNS = ["kind", "coord", "word", "score", "leave", "equity", "sim", "stderr", "win", "iterations"]


def _simulated(position, rack_tiles, opponent, spread, bundle, ruleset, table, shown, seed, opts):
    """``--sim``: the candidates simulated (:class:`gamecore.simulation.Simulator`), best first, as
    rows. Returns (the plays, None for an exchange; rows)."""
    from gamecore.folded import folded_tiles, manifest_fold
    from gamecore.simulation import Simulator, win_model

    plies, iterations, seconds, candidates, workers, threads = opts
    folded = bool(folded_tiles(ruleset.tiles(), bundle.alphabet, manifest_fold(bundle)))
    sim = Simulator(bundle, ruleset, table, win_model(bundle.language), folded)
    res = sim.run(
        position,
        rack_tiles,
        opponent,
        spread,
        candidates=candidates,
        plies=plies,
        iterations=iterations,
        seconds=seconds,
        seed=0 if seed is None else seed,
        workers=workers,
        threads=threads,
    )
    rows = []
    for c in res.candidates:
        r = c.ranked
        leave = table.labels(table.tiles(r.leave))
        win = None if c.win != c.win or not c.wins else round(100 * c.win, 2)  # NaN: no win model
        stats = [round(r.milli / 1000, 3), round(c.mean, 3), round(c.stderr, 3), win, c.iterations]
        if r.kind == "play":
            p = r.play
            assert p is not None  # a placement's row has its play
            rows.append(["play", shown(p.coord), p.word_text(), p.score, leave, *stats])
        else:
            rows.append(["exchange", "", table.labels(table.tiles(r.exchanged)), 0, leave, *stats])
    return [c.ranked.play for c in res.candidates], rows


def _many(plays_of, tile_set, layout, columns, fmt: OutputFormat) -> int:
    """``--board -``: one CGP position per line of stdin, its plays written (and flushed) before
    the next line is read. A bad line: one error line ``-:LINE: why`` on stderr, no output, the
    next lines go on; a line of more than :data:`gamecore.text.BOARD_FILE_MAX` bytes (1 MiB) is
    read no further and ends the run. Returns the exit status: 0, or 2 when some line was bad."""
    import json
    import sys

    from gamecore.board import parse_cgp
    from gamecore.errors import SkraflError
    from gamecore.text import BOARD_FILE_MAX, bounded_lines, mib, nfc

    out = sys.stdout
    bad = seen = 0
    if fmt == OutputFormat.tsv:
        out.write("\t".join(["line", *columns]) + "\n")
    blocks = 0
    for lineno, raw in bounded_lines(sys.stdin.buffer, BOARD_FILE_MAX):
        seen += 1
        if raw is None:  # the rest of the line (an endless stdin) is not read: the run ends here
            bad += 1
            out.flush()
            typer.echo(f"skrafl: error: -:{lineno}: a line of more than {mib(BOARD_FILE_MAX)}: not a CGP position", err=True)
            break
        try:
            try:
                text = raw.decode("utf-8").lstrip("\ufeff").strip()
            except UnicodeDecodeError:
                raise SkraflError("not UTF-8: convert the input to UTF-8 first") from None
            if not text:
                seen -= 1
                continue
            pos = parse_cgp(nfc(text), tile_set, layout)
            rack_tiles = pos.racks[0]
            if not rack_tiles:
                raise SkraflError("the CGP rack field is empty: write the rack after the board (e.g. '15/…/15 AEINRS?/ 0/0 0')")
            _, rows = plays_of(pos.board, rack_tiles, pos.racks[1])  # the rack's tiles are checked there
        except SkraflError as exc:
            bad += 1
            out.flush()
            typer.echo(f"skrafl: error: -:{lineno}: {exc.message}", err=True)
            continue
        if fmt == OutputFormat.json:
            out.write(
                json.dumps({"line": lineno, "plays": [dict(zip(columns, r, strict=True)) for r in rows]}, ensure_ascii=False)
                + "\n"
            )
        elif fmt == OutputFormat.tsv:
            for r in rows:
                out.write("\t".join([str(lineno), *("" if v is None else str(v) for v in r)]) + "\n")
        else:
            if blocks:
                out.write("\n")
            blocks += 1
            out.write(f"line {lineno}\n")
            emit(rows, columns, fmt)
        out.flush()
    if not seen:  # no position at all: no answer is not "no plays"
        out.flush()
        typer.echo("skrafl: error: no positions in -: give one CGP position per line", err=True)
        return 2
    return 2 if bad else 0


def _with_blank_swaps(position, rack, bundle, rules, plays, fold=None):
    """The Russian Scrabble article's blank swap: for every blank on the board whose letter the rack holds, the plays
    after the swap (the real tile put in the blank's place, the blank taken) that use the blank.
    Returns (every play best first, {id(play): (row, col, letter)} for the swap plays)."""
    from gamecore.folded import best_plays_folded

    swaps: dict[int, tuple[int, int, str]] = {}
    out = list(plays)
    for r in range(position.size):
        for c in range(position.size):
            t = position[r, c]
            if t is None or not t.blank or t.label not in rack:
                continue
            board = position.copy()
            board.place(r, c, t.label, False)
            rest = list(rack)
            rest.remove(t.label)
            rest.append("?")
            for p in best_plays_folded(board, rest, bundle, rules, None, fold):
                if "?" in p.used():
                    swaps[id(p)] = (r, c, t.label)
                    out.append(p)
    out.sort(key=lambda p: p.sort_key())
    return out, swaps


def _rack_after_swap(rack, swap):
    if swap is None:
        return rack
    rest = list(rack)
    rest.remove(swap[2])
    return rest + ["?"]


def _swap_text(swap) -> str:
    """``H8=Л``: the square whose blank was taken and the tile put there (empty: no swap)."""
    if swap is None:
        return ""
    from gamecore.coords import format_gcg

    r, c, letter = swap
    square = format_gcg(r, c, True)  # the square (row number, column letter), e.g. 8H
    return f"{square}={letter}"


def _language_of(folder: Path) -> Optional[str]:
    """The language a lexicon folder was built for (its manifest's ``language``, else the folder's name)."""
    import json

    try:
        lang = json.loads((folder / "manifest.json").read_text(encoding="utf-8")).get("language")
    except (OSError, ValueError):
        lang = None
    return lang if isinstance(lang, str) and lang else folder.name or None


def _coord_writer(coords: "Coords", size: int):
    """GCG coordinates as printed: unchanged, or in Netskrafl's order (row letter first across)."""
    if coords == Coords.gcg:
        return lambda c: c
    from gamecore.coords import gcg_to_netskrafl

    return lambda c: gcg_to_netskrafl(c, size)


def _vocabulary_dir(robot: Optional[Robot], vocabulary: Optional[Path], folder: Path) -> Optional[Path]:
    """The vocabulary folder of a robot: ``--vocabulary``, else the tier built beside the lexicon
    (``LEXICON_DIR/ROBOT``, e.g. ``output/is/midlungur`` from ``lexicon_sources/is/midlungur.toml``);
    ``fullsterkur`` uses every word (None). Raises UsageError when a tier robot has neither."""
    from gamecore.errors import UsageError

    if robot is None:
        return None
    if vocabulary is not None:
        theirs, ours = _language_of(Path(vocabulary)), _language_of(folder)
        if (Path(vocabulary) / "manifest.json").is_file() and (folder / "manifest.json").is_file() and theirs != ours:
            raise UsageError(
                f"--vocabulary {vocabulary} is a lexicon of language {theirs!r} and the game's lexicon {folder} of "
                f"{ours!r}: a robot's vocabulary is words of the game's language"
            )
        return vocabulary
    if robot in (Robot.fullsterkur, Robot.equity):
        return None
    tier = folder / robot.value
    if (tier / "manifest.json").is_file():
        return tier
    from cli.common import project_root

    lang = _language_of(folder)
    recipe = project_root() / "lexicon_sources" / (lang or "?") / f"{robot.value}.toml"
    if lang and recipe.is_file():
        raise UsageError(
            f"--robot {robot.value} plays only words of its vocabulary, and {tier} is not built: run "
            f"'skrafl build {lang}' (lexicon_sources/{lang}/{robot.value}.toml builds it beside the lexicon), "
            f"or give --vocabulary DIR"
        )
    raise UsageError(
        f"--robot {robot.value} plays only words of its vocabulary, and {tier} is not built: give "
        f"--vocabulary DIR (a lexicon folder written by 'skrafl build'), or add a {robot.value}.toml "
        f"recipe beside the language's recipe.toml (lexicon_sources/LANG/) and run 'skrafl build LANG'"
    )


def register(app: typer.Typer) -> None:
    app.command(
        "best",
        help=HELP,
        epilog="Example: skrafl best --lang is --board riddle.board --rack UAENRRK -n 5",
    )(best)
