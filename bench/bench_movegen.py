"""Time the KWG builder and the move generator itself (``gamecore.kwg``, ``gamecore.movegen``).

* KWG build: a full-size English list (``english-words`` web2 + gcide, 256k words of 2–15 letters,
  about the size of SOWPODS, when that package is installed) and the Icelandic list of
  ``output/is/words.txt`` (2.8 million BÍN word forms) when ``make run`` has built it.
  Budget (skrafl build): the Icelandic build ≤ 8 s and ≤ 1 GiB.
* Move generation in-process (lexicon loaded), per position, the best of repeated runs (calls of
  under a millisecond timed in batches of about a millisecond, see ``_best_ms``): the shared
  SOWPODS positions (0 and 1 blank), a 2-blank variant of mid1 (rack AEEFH??) and the empty board,
  with the full-size English list, on a ``movegen.Position`` made once per position (its
  cross-checks computed when it is made and kept between calls, as MAGPIE computes its cross-sets
  when a position is loaded, outside ``generate_moves()``; that one-off cost is printed apart).
  Columns: every play found and recorded in C (``Position.moves``, a MoveList whose
  RawMoves are made only when read: MAGPIE's move list); the same as a list of RawMoves; every
  play as the caller of ``best --all`` receives it (ScoredPlay tuples, sorted, made in C), and the
  same through ``generate_top()`` computing the cross-checks in the call; the search for all plays
  without recording them (``top(limit=1, prune=False)``); the pruned top play, without and with
  the bingo index; and how many times faster the pruned top play (with the index) is than our own
  full generation of every play (``all``: the issue's target ≥ 3×), and than the full search.
  With MAGPIE (below) the ratios to MAGPIE's in-process generation of every play are printed too, measured in the same
  run on the same KWG file (targets: all plays ≤ 1.0×, the ``best --all`` path ≤ 1.5×), and both
  engines' play counts are checked against each other.
* 250 positions of random self-play (0–2 blanks): the same, per position on average, one Position
  brought to each position by ``sync()`` as ``replay --analyze`` does (the sync timed on its own and
  taken off the speed-up), and the searches again on 250 Positions visited in turn (cold caches)
  and with each position's best of 5 runs in a row (hot caches, as the five positions are timed).
* The Icelandic riddle (``netskrafl_riddle1``) with ``output/is/lexicon.kwg`` when built.
* A whole process: Python start-up, import, memory-mapped KWG load, generation of every play and
  printing the best — the floor under ``skrafl best`` (bench_best times the real command).

MAGPIE (jvc56/MAGPIE, a C engine; nothing of it is in this repository). ``MAGPIE_DIR`` names a
checkout built with ``make magpie BUILD=release`` (its ``bin/magpie``). MAGPIE-DATA is not needed:
the bench writes the data folder MAGPIE reads from its working directory (``data/lexica/CSWSKRAFL.kwg``,
a copy of the KWG built in this run — our KWG has the wolges/macondo layout MAGPIE reads, and a
``CSW`` name makes MAGPIE take the English letter distribution; ``data/letterdistributions/english.csv``
and ``data/layouts/standard15.txt`` from the shared reference data; an empty leave file made by
``magpie createdata klv CSWSKRAFL english``) in a temporary folder, and runs MAGPIE there.
MAGPIE's CLI has no timer, so its in-process time comes from a harness of your own, outside this
repository: ``MAGPIE_GEN_CMD`` is the shell command that starts it (run in that folder). It reads
lines ``position<TAB>lexicon<TAB>cgp<TAB>repeats`` on stdin (cgp: board, ``RACK/``, ``0/0 0``) and
prints ``position<TAB>ms<TAB>plays<TAB>top<TAB>best ms<TAB>best`` for each: the best CPU time of
``repeats`` calls of MAGPIE's own ``generate_moves()`` (record type all, by score, no word map, one
thread), the number of tile placements it found and the top score among them; then the best CPU
time of ``generate_moves()`` with record type best (MAGPIE's pruned search for the top play, set
against our top 1 +ix) and the score of the play it returns (the last three may be left out).
Such a harness is a page of C compiled against MAGPIE's objects (``make libmagpie_core.a
BUILD=release``, then ``-O3 -flto -march=native`` with ``-DBOARD_DIM=15
-DRACK_SIZE=7``): create a ``Config`` on ``./data``; per line run the command ``cgp CGP -lex LEXICON
-wmp false -s1 score -s2 score -r1 all -r2 all -threads 1 -savesettings false``; time
``generate_moves()`` on ``config_get_game()`` into a move list of capacity 400,000 with
``clock_gettime(CLOCK_PROCESS_CPUTIME_ID)``; count the moves of type ``GAME_EVENT_TILE_PLACEMENT_MOVE``;
then the same with ``MOVE_RECORD_BEST`` into a move list of capacity 1. (Such a harness reads the
clock around each call, ours are batched below a millisecond: MAGPIE's times of a few microseconds,
the first move's, then hold a clock read of well under a microsecond in C that ours do not.)
On the empty board of a layout symmetric about its diagonal MAGPIE anchors only the across plays
(the down ones are their mirror images; ``board_update_all_anchors``), so its count there is compared
with our across plays and its time is for half our work. Without ``MAGPIE_GEN_CMD``, ``MAGPIE_TIMES``
may name a TSV of the same lines measured earlier (then not the same run).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared"
POSITIONS = SHARED / "corpora" / "positions"
ENGLISH = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ICELANDIC = "aábdðeéfghiíjklmnoóprstuúvxyýþæö"
PREMIUM = {"=": (1, 3), "-": (1, 2), '"': (3, 1), "'": (2, 1), "~": (1, 4), "^": (4, 1), " ": (1, 1)}

# runs per position, the same for both engines: the best of many runs of a call of a few
# microseconds is steadier than of 21 on a shared machine
REPEATS = {"mid2_b0": 101, "mid1_b1": 31, "mid1_b2": 9, "open3_b0": 501, "empty": 7}

CASES = [  # name, board, rack
    ("mid2_b0 (0 blanks)", "mid2.board", "BDEGORW"),
    ("mid1_b1 (1 blank)", "mid1.board", "AEEFHI?"),
    ("mid1_b2 (2 blanks)", "mid1.board", "AEEFH??"),
    ("open3_b0 (empty board)", "empty.board", "EJOQUXZ"),
    ("empty board, 2 blanks", "empty.board", "AEINR??"),
]


def english_words() -> tuple[list[str], str]:
    words: set[str] = set()
    for f in ("mid1_b1.words", "mid2_b0.words", "open3_b0.words"):
        words |= set((POSITIONS / f).read_text().split())
    try:
        from english_words import get_english_words_set
    except ImportError:
        return sorted(words), "the positions' own word lists only (pip install english-words for a full-size list)"
    big = get_english_words_set(["web2", "gcide"], alpha=True, lower=True)
    words |= {w.upper() for w in big if 2 <= len(w) <= 15 and w.isascii() and w.isalpha()}
    return sorted(words), "english-words web2+gcide ∪ the positions' lists"


def layout_and_values():
    from gamecore.movegen import MoveLayout

    lm, wm, start = [], [], None
    for line in (SHARED / "reference" / "boards" / "standard15_CrosswordGame.txt").read_text().splitlines():
        if line.startswith("# start square:"):
            sq = line.split(":")[1].split()[0]
            start = (int(sq[1:]) - 1, ENGLISH.index(sq[0]))
        elif line.startswith("|"):
            lm.append([PREMIUM[ch][0] for ch in line[1:-1]])
            wm.append([PREMIUM[ch][1] for ch in line[1:-1]])
    values = [0] * 27
    for line in (SHARED / "reference" / "tile_sets.tsv").read_text().splitlines()[1:]:
        f = line.split("\t")
        if f[0] == "english" and f[1] != "?":
            values[ENGLISH.index(f[1]) + 1] = int(f[3])
    return MoveLayout(lm, wm, start), values


def board(name: str) -> list[list[int]]:
    grid = []
    for line in (POSITIONS / name).read_text().split():
        grid.append([0 if ch == "." else ENGLISH.index(ch.upper()) + 1 + (64 if ch.islower() else 0) for ch in line])
    return grid


def rack(text: str) -> tuple[list[int], int]:
    counts = [0] * 27
    for ch in text.replace("?", ""):
        counts[ENGLISH.index(ch) + 1] += 1
    return counts, text.count("?")


def time_build(words: list[str], alphabet: str, label: str, path: Path) -> None:
    from gamecore.kwg import write_kwg

    t = time.perf_counter()
    n = write_kwg(words, alphabet, path)
    dt = time.perf_counter() - t
    print(f"KWG build {label}: {len(words):,} words → {n:,} nodes ({path.stat().st_size / 2**20:.1f} MiB) in {dt:.2f} s")


def time_icelandic_build(tmp: Path) -> None:
    words_file = PROJECT / "output" / "is" / "words.txt"
    if not words_file.is_file():
        print("KWG build Icelandic: skipped (no output/is/words.txt; run `make run` first)")
        return
    code = (
        "import sys, time, resource\n"
        "from gamecore.kwg import write_kwg\n"
        f"words = open({str(words_file)!r}, encoding='utf-8').read().split()\n"
        "u0 = resource.getrusage(resource.RUSAGE_SELF)\n"
        "t = time.perf_counter()\n"
        f"n = write_kwg(words, {ICELANDIC!r}, {str(tmp / 'is.kwg')!r})\n"
        "dt = time.perf_counter() - t\n"
        "u1 = resource.getrusage(resource.RUSAGE_SELF)\n"
        "cpu = (u1.ru_utime - u0.ru_utime) + (u1.ru_stime - u0.ru_stime)\n"
        "rss = u1.ru_maxrss / 1024\n"
        "print(f'KWG build Icelandic: {len(words):,} words → {n:,} nodes in {dt:.2f} s wall, '\n"
        "      f'{cpu:.2f} s CPU on 2 threads (budget 8 s wall); peak RSS of the whole process '\n"
        "      f'{rss:.0f} MiB (budget 1024, the word list included)')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PROJECT)
    print(r.stdout.strip() or r.stderr.strip())


def _best_ms(f, repeat: int) -> float:
    """The best CPU time of ``repeat`` runs of ``f()``, in ms (the steadier figure on a busy
    machine; wall time is within a few per cent of it when the machine is idle). A call of under
    a millisecond is timed in batches of about a millisecond, a run's time being the batch's mean
    per call: reading the CPU clock costs about half a microsecond here (a system call), as much as
    some whole calls (the first move), and timing each call alone would add it to every one."""
    t = time.process_time()
    f()
    once = time.process_time() - t
    n = 1 if once >= 1e-3 else min(10_000, max(1, int(1e-3 / max(once, 1e-6))))
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        for _ in range(n):
            f()
        best = min(best, (time.process_time() - t) / n)
    return best * 1000


def _ms7(x: float) -> str:
    """A time in ms in 7 characters, with a fourth decimal below 0.01 ms (the first move)."""
    return f"{x:7.3f}" if x >= 0.01 else f"{x:7.4f}"


def _tile_table(letters: str) -> list:
    from gamecore.board import Tile

    table: list = [None] * 128
    for i, x in enumerate(letters, 1):
        table[i], table[i + 64] = Tile(x, False), Tile(x, True)
    return table


def magpie_data(folder: Path, kwg_path: Path, name: str = "CSWSKRAFL") -> Path | None:
    """A working folder for MAGPIE (``MAGPIE_DIR``) under ``folder`` whose ``data/`` holds our KWG as
    ``lexica/NAME.kwg``, an empty leave file, the English letter distribution and the standard board;
    None without a MAGPIE build or when MAGPIE cannot make the leave file."""
    root = os.environ.get("MAGPIE_DIR")
    magpie = Path(root or ".", "bin", "magpie")
    if not root or not magpie.is_file():
        return None
    import shutil

    data = folder / "data"
    for sub in ("lexica", "layouts", "letterdistributions"):
        (data / sub).mkdir(parents=True, exist_ok=True)
    shutil.copyfile(kwg_path, data / "lexica" / f"{name}.kwg")
    rows = []
    for line in (SHARED / "reference" / "tile_sets.tsv").read_text().splitlines()[1:]:
        f = line.split("\t")
        if f[0] == "english":  # letter, lower case, count, value, vowel; the blank first (letter 0)
            rows.append(f"{f[1]},{f[1].lower()},{f[2]},{f[3]},{f[4]}")
    (data / "letterdistributions" / "english.csv").write_text("\n".join(rows) + "\n")
    layout = []
    for line in (SHARED / "reference" / "boards" / "standard15_CrosswordGame.txt").read_text().splitlines():
        if line.startswith("# start square:"):
            sq = line.split(":")[1].split()[0]
            start = f"{int(sq[1:]) - 1},{ENGLISH.index(sq[0])}"
        elif line.startswith("|"):
            layout.append(line[1:-1])
    (data / "layouts" / "standard15.txt").write_text("\n".join([start, *layout]) + "\n")
    r = subprocess.run(
        [str(magpie), "createdata", "klv", name, "english", "-savesettings", "false"],
        capture_output=True,
        text=True,
        cwd=folder,
        check=False,
    )
    if not any((data / "lexica").glob(f"{name}.klv*")):
        print(f"MAGPIE could not make its leave file: {(r.stdout + r.stderr).strip()[:300]}")
        return None
    return folder


def cgp(board_name: str, rack_text: str) -> str:
    """The position in MAGPIE's CGP: rows with runs of empty squares as numbers, the rack on turn,
    the scores, the zero-scoring turns."""
    rows = []
    for line in (POSITIONS / board_name).read_text().split():
        row, empty = "", 0
        for ch in line:
            if ch == ".":
                empty += 1
                continue
            row += (str(empty) if empty else "") + ch
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return f"{'/'.join(rows)} {rack_text}/ 0/0 0"


def magpie_times(folder: Path, kwg_path: Path) -> tuple[dict[str, tuple], str] | None:
    """MAGPIE's in-process figures per position name — (ms for all plays, plays, top score, ms for
    the top play, its score), None where not given — measured now by the
    harness of ``MAGPIE_GEN_CMD`` on ``kwg_path`` (or read from ``MAGPIE_TIMES``), with a note on
    their source; None without MAGPIE (our own times only)."""
    cmd, table = os.environ.get("MAGPIE_GEN_CMD"), os.environ.get("MAGPIE_TIMES")
    if not cmd and not (table and Path(table).is_file()):
        return None
    work = magpie_data(folder / "magpie", kwg_path)
    if work is None:
        return None
    if cmd:
        lines = []
        for name, board_name, rack_text in CASES:
            repeat = REPEATS[name.split()[0]]
            lines.append(f"{name.split()[0]}\tCSWSKRAFL\t{cgp(board_name, rack_text)}\t{repeat}")
        r = subprocess.run(cmd, shell=True, input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=work, check=False)
        if r.returncode:
            print(f"MAGPIE_GEN_CMD failed ({r.returncode}): {(r.stdout + r.stderr).strip()[:300]}")
            return None
        text, source = r.stdout, "MAGPIE_GEN_CMD, this run"
    else:
        text, source = Path(table).read_text(), f"MAGPIE_TIMES {table} (an earlier run)"
    out = {}
    for line in text.splitlines():
        f = line.split("\t")
        if len(f) >= 2 and f[1].strip():
            f += [""] * (6 - len(f))
            num = [(float if i in (1, 4) else int)(x) if x.strip() else None for i, x in enumerate(f[:6]) if i]
            out[f[0].strip()] = tuple(num)
    return out, source


def time_generation(kwg_path: Path, tmp: Path) -> None:
    from gamecore.kwg import Kwg
    from gamecore.movegen import Position, generate_top
    from gamecore.play import ScoredPlay

    t = time.perf_counter()
    kwg = Kwg.load(kwg_path, ENGLISH)
    print(f"KWG load (memory map): {(time.perf_counter() - t) * 1000:.2f} ms")
    t = time.perf_counter()
    index = kwg.bingo_index()
    print(
        f"bingo index (once per lexicon, for many positions): {(time.perf_counter() - t) * 1000:.1f} ms, "
        f"{len(index) / 2**20:.1f} MiB"
    )
    layout, values = layout_and_values()
    table = _tile_table(ENGLISH)
    magpie, source = magpie_times(tmp, kwg_path) or (None, "")
    print(
        "in-process, best CPU ms of repeated runs, on a movegen.Position made once per position (its cross-checks "
        "computed when the position is loaded and kept between calls, as MAGPIE keeps them on its board; the "
        "load column is that one-off cost, in no other column): all = every play found and recorded in C "
        "(Position.moves: a MoveList, RawMoves made only when read; generator order); raw = the same made "
        "into a list of RawMoves; best --all = every play as the caller of best --all receives it (ScoredPlay "
        "tuples made in C, sorted); fn = best --all through generate_top(), the cross-checks computed in the "
        "call; search = the search for every play without recording them; top 1 = the pruned search (+ix: "
        "with the bingo index); all/top1 = all / top 1 +ix (the target: ≥ 3×), search/top1 = search / top 1 +ix"
    )
    head = (
        f"{'position':24} {'plays':>7} {'load':>6} {'all':>7} {'raw':>7} {'best--all':>9} {'fn':>7} {'search':>7} "
        f"{'top 1':>7} {'+ix':>7} {'all/top1':>8} {'search/top1':>11}"
    )
    if magpie:
        print(
            f"MAGPIE ({source}): its generate_moves() of every play (record all, by score, no word map, one "
            "thread), best CPU ms of repeated runs; what it times: the rack and leave set-up, the exchanges "
            "(recorded too), the shadow bounds of every anchor, the search, and each play recorded into its "
            "preallocated move list (a heap by equity, not sorted); not timed: the CGP load and its cross-sets. "
            "all/M and best--all/M = our time / MAGPIE's; top1/M = our top 1 +ix / MAGPIE's generate_moves() "
            "with record best (its pruned search); plays = ours / MAGPIE's (on the empty board MAGPIE makes only "
            "the across plays: ours across), and the top scores"
        )
    print(head + ("  MAGPIE ms  all/M  best--all/M  M best ms  top1/M  plays (ours/M), top" if magpie else ""))
    for name, board_name, rack_text in CASES:
        grid = board(board_name)
        counts, blanks = rack(rack_text)
        first = not any(any(r) for r in grid)
        args = (kwg, grid, counts, blanks, layout, values, 50, first)
        repeat = REPEATS[name.split()[0]]
        t_load = _best_ms(partial(Position, kwg, layout, values, 50, grid=None if first else grid), repeat)
        pos = Position(kwg, layout, values, 50, grid=None if first else grid)
        moves = pos.generate(counts, blanks)
        t_all = _best_ms(partial(pos.moves, counts, blanks), repeat)
        t_raw = _best_ms(partial(pos.generate, counts, blanks), repeat)
        t_best = _best_ms(partial(pos.top, counts, blanks, tiles=table, play_type=ScoredPlay), repeat)
        t_fn = _best_ms(partial(generate_top, *args, tiles=table, play_type=ScoredPlay), repeat)
        t_search = _best_ms(partial(pos.top, counts, blanks, limit=1, prune=False), repeat)
        t_top = _best_ms(partial(pos.top, counts, blanks, limit=1), repeat)
        t_ix = _best_ms(partial(pos.top, counts, blanks, limit=1, bingo_index=index), repeat)
        line = (
            f"{name:24} {len(moves):7d} {t_load:6.3f} {_ms7(t_all)} {t_raw:7.2f} {t_best:9.2f} {t_fn:7.2f} {_ms7(t_search)} "
            f"{_ms7(t_top)} {_ms7(t_ix)} {t_all / t_ix:7.1f}× {t_search / t_ix:10.1f}×"
        )
        m, m_plays, m_top, m_best, m_best_score = (magpie or {}).get(name.split()[0], (None,) * 5)
        if m:
            line += f"  {m:9.3f}  {t_all / m:5.2f}  {t_best / m:11.2f}"
            line += f"  {m_best:9.3f}  {t_ix / m_best:6.2f}" if m_best else f"  {'':9}  {'':6}"
            if m_plays is not None:
                ours = sum(1 for x in moves if x.across) if first else len(moves)
                line += f"  {ours}/{m_plays} " + ("same" if ours == m_plays else "DIFFERENT")
            top = max((x.score for x in moves), default=0)
            tops = {t for t in (m_top, m_best_score) if t is not None}
            if tops:
                line += f", top {top}/{'/'.join(map(str, sorted(tops)))} " + ("same" if tops == {top} else "DIFFERENT")
        print(line)


def random_positions(kwg, layout, values, games: int = 10, turns: int = 25) -> list:
    """Positions of random self-play (each turn one of the best 3 plays at random), seeded."""
    import random

    from gamecore.movegen import generate_top

    rng = random.Random(5)
    bag0 = "AAAAAAAAABBCCDDDDEEEEEEEEEEEEFFGGGHHIIIIIIIIIJKLLLLMMNNNNNNOOOOOOOOPPQRRRRRRSSSSTTTTTTUUUUVVWWXYYZ??"
    out = []
    for _ in range(games):
        grid = [[0] * 15 for _ in range(15)]
        bag = list(bag0)
        rng.shuffle(bag)
        for _ in range(turns):
            rack_text = "".join(sorted(bag[:7]))
            bag = bag[7:] + bag[:7]
            counts, blanks = rack(rack_text)
            first = not any(any(r) for r in grid)
            out.append(([r[:] for r in grid], counts, blanks, first))
            moves = generate_top(kwg, grid, counts, blanks, layout, values, 50, first, limit=3)
            if not moves:
                break
            m = moves[rng.randrange(len(moves))]
            for i, t in enumerate(m.letters):
                r, c = (m.row, m.col + i) if m.across else (m.row + i, m.col)
                grid[r][c] = t
    return out


def time_random_positions(kwg_path: Path) -> None:
    from gamecore.kwg import Kwg
    from gamecore.movegen import Position, generate_top, last_stats
    from gamecore.play import ScoredPlay

    kwg = Kwg.load(kwg_path, ENGLISH)
    index = kwg.bingo_index()
    layout, values = layout_and_values()
    table = _tile_table(ENGLISH)
    pos = random_positions(kwg, layout, values)
    flat = [bytes(x for row in g for x in row) for g, _, _, _ in pos]
    # as replay --analyze (best.GameAnalyzer) does: one Position, brought to each position in turn by
    # sync() (the new tiles' cross-checks updated; a new game recomputes the board), then searched
    board = Position(kwg, layout, values, 50)
    cases = [
        ("all (recorded in C, MoveList)", lambda p, a: p.moves(a[2], a[3])),
        ("all as RawMoves", lambda p, a: p.generate(a[2], a[3])),
        ("best --all (ScoredPlay, sorted)", lambda p, a: p.top(a[2], a[3], tiles=table, play_type=ScoredPlay)),
        ("  the same by generate_top()", lambda p, a: generate_top(*a, tiles=table, play_type=ScoredPlay)),
        ("search, no objects", lambda p, a: p.top(a[2], a[3], limit=1, prune=False)),
        ("top 1 pruned", lambda p, a: p.top(a[2], a[3], limit=1)),
        ("top 1 pruned + bingo index", lambda p, a: p.top(a[2], a[3], limit=1, bingo_index=index)),
        ("top 10 pruned + bingo index", lambda p, a: p.top(a[2], a[3], limit=10, bingo_index=index)),
    ]
    print(
        f"{len(pos)} positions of random self-play (0-2 blanks), best CPU of 3 passes, ms per position, each "
        "line with the sync() of one Position to the position (as replay --analyze; sync alone on the first "
        "line; generate_top() computes the cross-checks of its own lanes in each call):"
    )

    def sync_only():
        for grid in flat:
            board.sync(grid)

    t_sync = _best_ms(sync_only, 3) / len(pos)
    print(f"  {'sync() alone':34} {t_sync:7.3f}")
    times = {}
    for label, f in cases:

        def run(f=f):
            calls = 0
            for grid, (g, c, b, first) in zip(flat, pos, strict=True):
                board.sync(grid)
                f(board, (kwg, g, c, b, layout, values, 50, first))
                calls += last_stats()[3]
            return calls

        calls = run()
        times[label] = _best_ms(run, 3) / len(pos)
        print(f"  {label:34} {times[label]:7.3f}   (search calls {calls:,})")
    search, top1 = times["search, no objects"] - t_sync, times["top 1 pruned + bingo index"] - t_sync
    print(
        f"  top 1 (+ index) is {search / top1:.1f}× faster than the full search ("
        f"{times['search, no objects'] / times['top 1 pruned + bingo index']:.1f}× with the sync), "
        f"{(times['all (recorded in C, MoveList)'] - t_sync) / top1:.1f}× than all plays recorded"
    )
    # the same searches on 250 Positions made beforehand and visited in turn: each one's lanes are
    # out of the caches by its turn (a worst case; no analysis works that way)
    boards = [Position(kwg, layout, values, 50, grid=None if first else g) for g, _, _, first in pos]

    def cold(f):
        return _best_ms(lambda: [f(p, c, b) for p, (_, c, b, _) in zip(boards, pos, strict=True)], 3) / len(pos)

    def hot(f):
        return sum(_best_ms(partial(f, p, c, b), 5) for p, (_, c, b, _) in zip(boards, pos, strict=True)) / len(pos)

    c_search = cold(lambda p, c, b: p.top(c, b, limit=1, prune=False))
    c_top = cold(lambda p, c, b: p.top(c, b, limit=1, bingo_index=index))
    print(
        f"  cold caches (250 Positions visited in turn): search {c_search:.3f}, top 1 + index {c_top:.3f} "
        f"({c_search / c_top:.1f}×)"
    )
    h_search = hot(lambda p, c, b: p.top(c, b, limit=1, prune=False))
    h_top = hot(lambda p, c, b: p.top(c, b, limit=1, bingo_index=index))
    print(
        f"  hot caches (each position the best of 5 runs in a row, as the table above and MAGPIE's harness "
        f"time them): search {h_search:.3f}, top 1 + index {h_top:.3f} ({h_search / h_top:.1f}×)"
    )
    # the GIL is released around the walk of a Position's search (its search state is its own):
    # the same searches shared out to two threads, each with its own half of the Positions
    import threading

    def wall(f, threads: int) -> float:
        def part(k: int) -> None:
            for p, (_, c, b, _) in list(zip(boards, pos, strict=True))[k::threads]:
                f(p, c, b)

        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            workers = [threading.Thread(target=part, args=(k,)) for k in range(threads)]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            best = min(best, time.perf_counter() - t)
        return best * 1000 / len(pos)

    for label, f in (
        ("search, no objects", lambda p, c, b: p.top(c, b, limit=1, prune=False)),
        ("top 10 + index", lambda p, c, b: p.top(c, b, limit=10, bingo_index=index)),
    ):
        one, two = wall(f, 1), wall(f, 2)
        print(f"  two threads (wall, ms per position): {label} {two:.3f} against {one:.3f} on one ({one / two:.2f}× as fast)")


def time_riddle() -> None:
    """The Icelandic riddle (A4 ÞREKRAUN 104 expected on top) with output/is/lexicon.kwg."""
    from gamecore.kwg import Kwg
    from gamecore.movegen import generate

    kwg_file = PROJECT / "output" / "is" / "lexicon.kwg"
    if not kwg_file.is_file():
        print("Icelandic riddle: skipped (no output/is/lexicon.kwg; run `make run` first)")
        return
    letters = ICELANDIC.upper()
    t = time.perf_counter()
    kwg = Kwg.load(kwg_file)
    load_ms = (time.perf_counter() - t) * 1000
    values = {}
    for line in (SHARED / "reference" / "tile_sets.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        f = line.split("\t")
        if f[0] == "icelandic_new" and f[1] != "?":
            values[f[1]] = int(f[3])
    grid = [
        [0 if ch == "." else letters.index(ch.upper()) + 1 + (64 if ch.islower() else 0) for ch in line]
        for line in (POSITIONS / "netskrafl_riddle1.board").read_text(encoding="utf-8").split()
    ]
    counts = [0] * (len(letters) + 1)
    for ch in "UAENRRK":
        counts[letters.index(ch) + 1] += 1
    layout, _ = layout_and_values()
    times = []
    for _ in range(21):
        t = time.perf_counter()
        moves = generate(kwg, grid, counts, 0, layout, [0] + [values[c] for c in letters], 50, False)
        times.append(time.perf_counter() - t)
    top = max(moves, key=lambda m: m.score)
    word = "".join(letters[(b & 63) - 1] for b in top.letters)
    print(
        f"Icelandic riddle (KWG {len(kwg):,} nodes, load {load_ms:.2f} ms): {len(moves)} moves, "
        f"top {word} {top.score}, median {statistics.median(times) * 1000:.2f} ms, "
        f"first run {times[0] * 1000:.2f} ms"
    )


def time_process(kwg_path: Path) -> None:
    code = (
        "import sys\n"
        "sys.path.insert(0, 'bench')\n"
        "from gamecore.kwg import Kwg\n"
        "from gamecore.movegen import generate\n"
        "import bench_movegen as b\n"
        f"kwg = Kwg.load({str(kwg_path)!r})\n"
        "layout, values = b.layout_and_values()\n"
        "c, n = b.rack('AEEFHI?')\n"
        "moves = generate(kwg, b.board('mid1.board'), c, n, layout, values, 50, False)\n"
        "moves.sort(key=lambda m: (-m.score, m.tiles_placed))\n"
        "print(len(moves), moves[0].score)\n"
    )
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PROJECT, env=env)
        times.append(time.perf_counter() - t)
        if r.returncode:
            print(r.stderr)
            return
    bare = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], cwd=PROJECT, env=env)
        bare.append(time.perf_counter() - t)
    print(
        f"whole process, mid1 with one blank (start-up + import + KWG load + generate + sort): "
        f"median {statistics.median(times) * 1000:.0f} ms (bare Python start-up "
        f"{statistics.median(bare) * 1000:.0f} ms; target for skrafl best ≤ 300 ms)"
    )


def main() -> None:
    if not POSITIONS.is_dir():
        print("skipped: ../shared is not present")
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        words, source = english_words()
        print(f"English lexicon: {source}")
        kwg_path = tmp / "en.kwg"
        time_build(words, ENGLISH, "English", kwg_path)
        time_generation(kwg_path, tmp)
        time_random_positions(kwg_path)
        time_process(kwg_path)
        time_riddle()
        time_icelandic_build(tmp)
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; figures vary with load)")


if __name__ == "__main__":
    main()
