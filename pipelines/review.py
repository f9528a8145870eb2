"""``replay --analyze --leaves … --review DIR``: a Markdown review of every game of a run.

DIR is one output (:func:`pipelines.atomic.output_dir`, command ``replay-review``), written from
the run's tables once they are complete and committed with them:

- ``index.md``: one row per game file: its status, players, final scores, each player's accuracy,
  mistake index and estimated rating, and a link to its review; a game that could not be replayed
  (a broken log) is a row with its error, and has no review.
- ``NAME.md`` per game (``NAME`` the file's stem; ``NAME-2``… for a repeated stem): the players'
  grades (accuracy, equity lost, mistakes by size, mistake index, estimated rating), the biggest
  mistakes (at most :data:`PICTURES`, by equity lost) with a picture each, and every turn.
- ``NAME/turn-NNN.svg``: the position before turn NNN with the engine's move placed and
  highlighted, the rack below, the move played and the best one in the caption.

The grades and the mistake sizes are those of :mod:`pipelines.replay.equity`. The pictures are
drawn from the game file replayed again up to the turn (replay's own game loop).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

PICTURES = 3
"""Pictures per game: its biggest mistakes."""


def _fmt(x, digits: int = 1) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def _link(target: str) -> str:
    """A link target for Markdown: in angle brackets when it holds a space or a bracket."""
    return f"<{target}>" if any(c in target for c in " ()<>") else target


def _cell(text) -> str:
    """Text fit for a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ") if text is not None else "–"


def write_review(tables: Path, review_dir: Path, opts, inputs=(), stack=None) -> int:
    """Write the review of every game in ``tables`` (a replay output's ``games.parquet`` and
    ``moves.parquet``, written with ``--analyze --leaves``) into ``review_dir``; return the games
    reviewed. ``opts``: the run's :class:`pipelines.replay.ReplayOptions` (the rules to replay a
    game again for its pictures). ``stack``: an ExitStack of the caller's outputs to enter this
    one in (committed with them).

    Raises:
        UsageError: the folder is refused (a user folder, another command's output, an input)."""
    import contextlib

    import pyarrow.parquet as pq

    from pipelines.atomic import output_dir

    games_pf = pq.ParquetFile(Path(tables) / "games.parquet")
    moves_pf = pq.ParquetFile(Path(tables) / "moves.parquet")
    reviewed = 0
    used: dict[str, int] = {}
    index_rows: list[str] = []
    with contextlib.ExitStack() as own:
        stage = (stack if stack is not None else own).enter_context(
            output_dir(Path(review_dir), command="replay-review", inputs=list(inputs))
        )
        # games and moves are cut into row groups at the same games (pipelines.replay.tables)
        for gi in range(games_pf.num_row_groups):
            games = games_pf.read_row_group(gi).to_pylist()
            moves_by_file: dict[str, list[dict]] = defaultdict(list)
            for m in moves_pf.read_row_group(gi).to_pylist():
                moves_by_file[m["file"]].append(m)
            for g in games:
                stem = Path(g["file"] or "game").stem
                used[stem] = used.get(stem, 0) + 1
                name = stem if used[stem] == 1 else f"{stem}-{used[stem]}"
                moves = moves_by_file.pop(g["file"], []) if g["status"] != "error" else []
                graded = [m for m in moves if m.get("equity") is not None]
                if g["status"] == "error" or not graded:
                    why = g["error"] if g["status"] == "error" else "not analysed (" + _not_analysed(g) + ")"
                    index_rows.append(f"| {_cell(g['file'])} | {g['status']} | {_cell(why)} | | | |")
                    continue
                _write_game(stage, name, g, graded, moves, opts)
                reviewed += 1
                players = [g.get(f"player{k}") or f"player {k}" for k in range(1, (g.get("players") or 2) + 1)]
                scores = " – ".join(_fmt(g.get(f"score{k}")) for k in range(1, len(players) + 1))
                grades = "; ".join(
                    f"{_cell(p)} {_fmt(g.get(f'accuracy{k}'))} %, MI {_fmt(g.get(f'mistake_index{k}'))}, "
                    f"~{_fmt(g.get(f'rating{k}'))}"
                    for k, p in enumerate(players, 1)
                )
                index_rows.append(
                    f"| [{_cell(g['file'])}]({_link(name + '.md')}) | {g['status']} | {_cell(g['error']) if g['error'] else ''} | "
                    f"{_cell(' v '.join(players))} | {scores} | {grades} |"
                )
        head = [
            "# Game reviews",
            "",
            "Each turn valued by static equity against the engine's move (skrafl replay --analyze --leaves). "
            "Accuracy: the share of the best moves' equity a player kept; MI: Woogles' mistake index "
            "(small 0.2, medium 0.5, large 1.0 per mistake); ~rating: Woogles' estimate for that index.",
            "",
            "| game | status | error | players | scores | accuracy, mistake index, ~rating |",
            "|---|---|---|---|---|---|",
        ]
        (stage / "index.md").write_text("\n".join(head + index_rows) + "\n", encoding="utf-8")
    return reviewed


def _not_analysed(g: dict) -> str:
    for w in g.get("warnings") or ():
        if "EQUITY_NOT_ANALYZED" in w:
            return w
    return "no turn with a rack"


def _write_game(stage: Path, name: str, g: dict, graded: list[dict], moves: list[dict], opts) -> None:
    n = g.get("players") or 2
    players = [g.get(f"player{k}") or f"player {k}" for k in range(1, n + 1)]
    out = [
        f"# {_cell(g['file'])}",
        "",
        f"{' v '.join(players)}: {' – '.join(_fmt(g.get(f'score{k}')) for k in range(1, n + 1))}"
        f" ({g.get('rules')}; status {g['status']}{', ' + g['error'] if g['error'] else ''})",
        "",
        "| player | accuracy % | equity lost | small | medium | large | mistake index | ~rating |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for k, p in enumerate(players, 1):
        sizes = {s: sum(1 for m in graded if m["player"] == k and m["mistake"] == s) for s in ("small", "medium", "large")}
        out.append(
            f"| {_cell(p)} | {_fmt(g.get(f'accuracy{k}'), 2)} | {_fmt(g.get(f'equity_lost{k}'))} | {sizes['small']} | "
            f"{sizes['medium']} | {sizes['large']} | {_fmt(g.get(f'mistake_index{k}'))} | {_fmt(g.get(f'rating{k}'))} |"
        )
    worst = sorted((m for m in graded if m["mistake"]), key=lambda m: (-m["equity_lost"], m["turn"]))[:PICTURES]
    out += ["", "## Biggest mistakes", ""]
    if not worst:
        out.append("None: no turn lost a point of equity or more.")
    pictures = _pictures(stage, name, g, worst, opts)
    for m in worst:
        who = players[m["player"] - 1] if m["player"] - 1 < n else f"player {m['player']}"
        out.append(
            f"- Turn {m['turn']}, {_cell(who)}: played {_cell(_move(m))} ({_fmt(m['equity'])}), "
            f"best {_cell(m['best_move'])} ({_fmt(m['best_equity'])}): {_fmt(m['equity_lost'])} points lost"
            + (f", {_fmt(m['win_pct_lost'])} % win" if m["win_pct_lost"] is not None else "")
            + f" ({m['mistake']})"
        )
        pic = pictures.get(m["turn"])
        if pic:
            out += ["", f"  ![turn {m['turn']}]({_link(pic)})", ""]
    out += [
        "",
        "## Every turn",
        "",
        "| turn | player | played | score | equity | best | best equity | lost | win % lost | mistake |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for m in graded:
        out.append(
            f"| {m['turn']} | {m['player']} | {_cell(_move(m))} | {_fmt(m['score_computed'])} | {_fmt(m['equity'])} | "
            f"{_cell(m['best_move'])} | {_fmt(m['best_equity'])} | {_fmt(m['equity_lost'])} | {_fmt(m['win_pct_lost'])} | "
            f"{m['mistake'] or ''} |"
        )
    (stage / f"{name}.md").write_text("\n".join(out) + "\n", encoding="utf-8")


def _move(m: dict) -> str:
    if m["kind"] == "play":
        return f"{m['coord']} {m['word']}"
    if m["kind"] == "exchange":
        return f"-{m['word']}"
    return "-"


def _pictures(stage: Path, name: str, g: dict, worst: list[dict], opts) -> dict[int, str]:
    """Draw the position before each of ``worst``'s turns with the engine's move; ``{turn: path}``
    (relative to the review folder). A game that cannot be replayed again gets none."""
    if not worst:
        return {}
    import copy

    from gamecore.errors import SkraflError
    from gamecore.picture import PositionPicture, board_svg
    from gamecore.play import IllegalPlay, validate_play
    from pipelines.replay import read_game_file, rules_for_game
    from pipelines.replay.game import Replayer

    wanted = {m["turn"]: m for m in worst}
    got: dict[int, str] = {}
    try:
        game = read_game_file(g["file"])
        rules = rules_for_game(game, opts.preset, opts.lang)
        head = copy.copy(game)
        head.last_racks, head.final_scores, head.warnings = {}, None, []
        rep = Replayer(head, rules, None, False)
        rep.start()
        names = [game.players[i].nick if i < len(game.players) else f"player{i + 1}" for i in range(rep.n)]
        last = max(wanted)
        for n, ev in enumerate(game.events, 1):
            if n > last:
                break
            m = wanted.get(n)
            if m is not None:
                board = rep.pboard.position()
                rack = ev.rack if ev.rack is not None else rep.last_rack_after.get(ev.player, game.initial_racks.get(ev.player))
                rack = [t if t == "?" else t.upper().strip("[]") for t in rack] if rack else None
                best = None
                if m["best_move"] and " " in m["best_move"]:
                    try:
                        best = validate_play(board, _gcg_move(m["best_move"], opts, board.size), None, None, rules)
                    except (IllegalPlay, SkraflError):
                        best = None
                caption = f"{n}. played {_move(m)} ({_fmt(m['equity'])}); best {m['best_move']} ({_fmt(m['best_equity'])})"
                pic = PositionPicture(
                    board, best, rack, names, list(rep.computed), ev.player, coords=opts.coords, caption=caption
                )
                rel = f"{name}/turn-{n:03d}.svg"
                (stage / name).mkdir(exist_ok=True)
                (stage / rel).write_text(board_svg(pic), encoding="utf-8")
                got[n] = rel
            rep.step(ev)
    except SkraflError:
        pass  # the review's text stands without pictures
    return got


def _gcg_move(text: str, opts, size: int = 15) -> str:
    """A best move's text in GCG order (``--coords netskrafl`` wrote its square the other way)."""
    if opts.coords != "netskrafl":
        return text
    from gamecore.coords import netskrafl_to_gcg

    at, word = text.split(" ", 1)
    return f"{netskrafl_to_gcg(at, size)} {word}"
