"""Simulation against MAGPIE's ``sim`` (``skrafl best --sim``, :mod:`gamecore.simulation`).

Speed: iterations (one candidate played and followed by two plies, MAGPIE's unit) per CPU-second
at 2 plies, 10 candidates, one thread, no early stop, on the midgame position mid2 of
``../shared/corpora/positions`` (rack BDEGORW), both on the same KWG (output/en when built, else the
full-size list of ``bench_movegen.english_words``) and the same leave file (CSW21.klv2 from
``$MAGPIE_DATA/data/lexica``, else /tmp/CSW21.klv2). Ours: in-process CPU time of the iterations
(the lexicon load left out); MAGPIE: the CPU time of two runs (5,000 and 25,000 iterations, ``-wmp
false``: the KWG alone, as ours; with ``BENCH_SIM_WMP=1`` also with its word map, built here from
the same word list, a minute), the difference divided by the difference of iterations, so that its
start-up is left out. Printed: both rates and the ratio ours / MAGPIE's.

Agreement (``SIM_POSITIONS=N``, default 0): N midgame positions of the GCG games of
``../shared/corpora/gcg`` (of each game's positions with 20 or more tiles in the bag and the rack
known: first the middle one of every game, then those a quarter and three quarters in, then the
eighths, …; a position once, however its log orders the rack's tiles), each run to a tight stop by
both (ours: 10 candidates, at most ``SIM_OURS_ITERATIONS`` iterations each, default 2,000, the early
stop of gamecore.simulation; MAGPIE: ``-scondition 99`` with at most ``SIM_MAGPIE_ITERATIONS``, default
40,000); printed: how many have the same top play, and for each that differs whether the two tops
are within the noise: in our run, the mean advantage of our top over MAGPIE's on the draws both
ran, in standard errors of that paired difference (below 2.576: not told apart at 99 %), and in
MAGPIE's table both plays' win % and equity (``X``: MAGPIE marks the play as not told apart from
its top). Both rank by win % (MAGPIE by its win table, ours by our win model), so a near-tie may differ.

``SIM_SPEED=0`` leaves MAGPIE's speed runs out (for an agreement run).

Needs ``MAGPIE_DIR`` (a MAGPIE build) for the comparison; without it only our rate is printed.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

PROJECT = Path(__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared"


def _leave_file() -> Path | None:
    data = os.environ.get("MAGPIE_DATA", "/work/magpie-data")
    for p in (Path(data, "data", "lexica", "CSW21.klv2"), Path("/tmp/CSW21.klv2")):
        if p.is_file():
            return p
    return None


def _lexicon(tmp: Path) -> tuple[Path, Path]:
    """(lexicon folder, its word list as MAGPIE reads one: upper case, a word a line)."""
    built = PROJECT / "output" / "en"
    words_txt = tmp / "words.txt"
    if (built / "lexicon.kwg").is_file() and (built / "words.txt").is_file():
        words_txt.write_text((built / "words.txt").read_text(encoding="utf-8").upper(), encoding="utf-8")
        return built, words_txt
    from bench_movegen import english_words

    words, _ = english_words()
    words_txt.write_text("\n".join(w.upper() for w in words) + "\n", encoding="utf-8")
    skrafl = Path(sys.executable).with_name("skrafl")
    subprocess.run(
        [str(skrafl), "build", "en", "--source", "wordlist", "--input", str(words_txt), "--out", str(tmp / "lex"), "-q"],
        check=True,
    )
    return tmp / "lex", words_txt


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_magpie(magpie: Path, work: Path, cgp: str, args: str) -> tuple[str, float]:
    """MAGPIE's ``sim`` on a CGP position: (its output, the CPU seconds of the process)."""
    cmd = f"cgp {cgp} -lex CSWSKRAFL -threads 1 -plies 2 -numplays 10 -seed 1 {args}\ngen\nsim\n"
    before = _children_cpu()
    r = subprocess.run(
        [str(magpie), "set", "-mode", "sync", "-savesettings", "false"],
        input=cmd,
        capture_output=True,
        text=True,
        cwd=work,
        check=False,
    )
    cpu = _children_cpu() - before
    if r.returncode or "Iters:" not in r.stdout:
        raise SystemExit(f"MAGPIE failed ({r.returncode}): {(r.stdout + r.stderr)[-500:]}")
    return r.stdout, cpu


def magpie_iterations(text: str) -> int:
    return int(re.findall(r"Iters:\s+(\d+)", text)[-1])


def magpie_top(text: str) -> str:
    """The first play of MAGPIE's last table: ``COORD WORD`` (played-through letters unbracketed)."""
    tops = re.findall(r"\s1:\s+(\S+)\s+(\S+)", text)
    coord, word = tops[-1]
    return f"{coord} {word.replace('(', '').replace(')', '')}"


def _setup(lex: Path, leaves_path: Path):
    from gamecore.best import load_bundle
    from gamecore.equity import LeaveTable
    from gamecore.klv import Klv
    from gamecore.rules import load_rules
    from gamecore.simulation import Simulator, win_model

    rules = load_rules("wespa")
    bundle = load_bundle(lex)
    table = LeaveTable(Klv.read(leaves_path), rules.tiles())
    return rules, Simulator(bundle, rules, table, win_model("en"))


def magpie_rows(text: str) -> list[dict]:
    """The rows of MAGPIE's last sim table: ``move`` (``COORD WORD`` unbracketed, ``exch TILES`` or
    ``pass``), ``win`` (%), ``equity``, ``iterations``, ``similar`` (its ``X``: not told apart from
    the top)."""
    table = text[text.rfind("Move") :]
    rows = []
    for line in table.splitlines():  # (the table stands beside the board's picture)
        m = re.search(r"\s(\d+):\s+(\S.*)$", line)
        if not m:
            continue
        tokens = m.group(2).split()
        if tokens[0] == "pass":
            move, rest = "pass", tokens[1:]
        else:
            move, rest = f"{tokens[0]} {tokens[1].replace('(', '').replace(')', '')}", tokens[2:]
        # from the end: per ply score and bingo % (2 plies), then It, StEq, Eq, Wp
        rows.append(
            {
                "move": move,
                "win": float(rest[-8]),
                "equity": float(rest[-7]),
                "iterations": int(rest[-5]),
                "similar": "X" in rest[:-8],
            }
        )
    return rows


def _move_text(ranked) -> str:
    """A candidate as MAGPIE writes a move: ``COORD WORD`` or ``exch TILES``."""
    if ranked.kind == "play":
        return f"{ranked.play.coord} {ranked.play.word_text()}".upper()
    return f"exch {''.join(ranked.exchanged)}".upper()


def paired_z(a, b) -> tuple[int, float, float]:
    """The iterations both candidates ran (the same draws), the mean advantage of ``a`` over ``b``
    on them (points) and that advantage in standard errors of the paired difference."""
    import math

    n = min(len(a.values), len(b.values))
    if n < 2:
        return n, float("nan"), float("nan")
    d = [x - y for x, y in zip(a.values[:n], b.values[:n], strict=True)]
    mean = sum(d) / n
    var = max(sum(x * x for x in d) - n * mean * mean, 0) / (n - 1)
    return n, mean / 1000, mean / math.sqrt(var / n) if var else float("inf")


def midgame_positions(limit: int) -> list[str]:
    """CGP strings of corpus positions with 20 or more tiles in the bag and the rack known: the middle
    one of each game, then the quarters, the eighths, … (each position once) up to ``limit``."""
    from fractions import Fraction

    games = _midgame_games()
    out: list[str] = []
    seen: set[str] = set()
    denominator = 2
    longest = max((len(here) for here in games), default=0)
    while denominator <= 2 * longest:
        for num in range(1, denominator, 2):
            f = Fraction(num, denominator)
            for here in games:
                text = here[int(len(here) * f)]
                if _canonical(text) not in seen:
                    seen.add(_canonical(text))
                    out.append(text)
                if len(out) >= limit:
                    return out
        denominator *= 2
    return out


def _midgame_games() -> list[list[str]]:
    """Per corpus game (a repeated game once), its positions with 20 or more tiles in the bag."""
    from cli.position import game_positions
    from gamecore.errors import SkraflError

    out: list[list[str]] = []
    keys: list[list[str]] = []
    for f in sorted((SHARED / "corpora" / "gcg").glob("*.gcg")):
        here = []
        try:
            for _, pos in game_positions(f, "wespa", None):
                if pos.rack is None or pos.mover is None or pos.extra.get("kind") != "play" or len(pos.scores) != 2:
                    continue
                ts = pos.board.tile_set
                bag = ts.total - pos.board.tile_count() - 2 * 7
                if bag < 20 or len(pos.rack) != 7 or pos.board.is_empty():
                    continue
                s = pos.scores
                here.append(f"{pos.board.cgp_rows()} {''.join(pos.rack)}/ {s[pos.mover]}/{s[1 - pos.mover]} 0")
        except SkraflError:
            continue
        key = [_canonical(t) for t in here]
        if here and key not in keys:  # (the corpus repeats games, some with the rack's tiles in another order)
            keys.append(key)
            out.append(here)
    return out


def _canonical(cgp: str) -> str:
    """A CGP position with its rack's tiles sorted (the same position however the log spells the rack)."""
    f = cgp.split(" ")
    rack, _, opp = f[1].partition("/")
    return " ".join([f[0], "".join(sorted(rack)) + "/" + opp, *f[2:]])


def main() -> None:
    leaves_path = _leave_file()
    if leaves_path is None or not (SHARED / "corpora" / "positions").is_dir():
        print("CSW21.klv2 ($MAGPIE_DATA or /tmp) or ../shared is missing: simulation bench not run")
        return
    from bench_movegen import magpie_data

    from gamecore.board import parse_cgp, read_board

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        lex, words_txt = _lexicon(tmp)
        rules, sim = _setup(lex, leaves_path)
        board = read_board(SHARED / "corpora" / "positions" / "mid2.board", rules.tiles(), rules.layout())
        rack = list("BDEGORW")
        cgp = f"{board.cgp_rows()} BDEGORW/ 0/0 0"
        n = int(os.environ.get("SIM_ITERATIONS", "400"))
        sim.run(board, rack, candidates=10, iterations=20, seed=0, min_iterations=10**9)  # warm: caches, bingo index
        t, wall = time.process_time(), time.perf_counter()
        res = sim.run(board, rack, candidates=10, iterations=n, seed=1, min_iterations=10**9)
        cpu, wall = time.process_time() - t, time.perf_counter() - wall
        ours = sum(c.iterations for c in res.candidates) / cpu
        top = res.candidates[0].ranked.play
        print(
            f"ours: {sum(c.iterations for c in res.candidates):,} iterations (10 candidates x {n}, 2 plies) in "
            f"{cpu:.2f} CPU-s: {ours:,.0f} iterations per CPU-second; top {top.coord} {top.word_text()}",
            flush=True,
        )
        wall2 = time.perf_counter()
        res2 = sim.run(board, rack, candidates=10, iterations=n, seed=1, min_iterations=10**9, threads=2)
        wall2 = time.perf_counter() - wall2
        same = [c.values for c in res2.candidates] == [c.values for c in res.candidates]
        print(
            f"ours, --threads 2: {wall2:.2f} s wall against {wall:.2f} s for one thread: {wall / wall2:.2f}x as fast "
            f"(the same numbers: {'yes' if same else 'NO'}; {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
        work = magpie_data(tmp / "magpie", lex / "lexicon.kwg")
        if work is None:
            print("MAGPIE_DIR is not set (or MAGPIE cannot make its data): no comparison")
            return
        magpie = Path(os.environ["MAGPIE_DIR"], "bin", "magpie")
        shutil.copyfile(leaves_path, work / "data" / "lexica" / "CSWSKRAFL.klv2")
        win = Path(os.environ.get("MAGPIE_DATA", "/work/magpie-data"), "data", "strategy", "winpct.csv")
        (work / "data" / "strategy").mkdir(parents=True, exist_ok=True)
        if win.is_file():
            shutil.copyfile(win, work / "data" / "strategy" / "winpct.csv")
        modes = ["false"]
        if os.environ.get("BENCH_SIM_WMP") == "1":
            shutil.copyfile(words_txt, work / "data" / "lexica" / "CSWSKRAFL.txt")
            subprocess.run(
                [str(magpie), "convert", "text2wordmap", "CSWSKRAFL", "-lex", "CSWSKRAFL", "-wmp", "false", "-ld", "english"]
                + ["-savesettings", "false"],
                cwd=work,
                capture_output=True,
                check=True,
            )
            modes.append("true")
        for wmp in modes if os.environ.get("SIM_SPEED", "1") != "0" else ():  # SIM_SPEED=0: agreement only
            base = "-scondition none -tlim 600 -minplayiterations 500"
            a_text, a_cpu = run_magpie(magpie, work, cgp, f"-wmp {wmp} {base} -iterations 5000")
            b_text, b_cpu = run_magpie(magpie, work, cgp, f"-wmp {wmp} {base} -iterations 25000")
            it = magpie_iterations(b_text) - magpie_iterations(a_text)
            theirs = it / max(b_cpu - a_cpu, 1e-9)
            print(
                f"MAGPIE (-wmp {wmp}): {it:,} iterations in {b_cpu - a_cpu:.2f} CPU-s: {theirs:,.0f} per CPU-second; "
                f"top {magpie_top(b_text)}; ratio ours / MAGPIE {ours / theirs:.2f}",
                flush=True,
            )
        k = int(os.environ.get("SIM_POSITIONS", "0"))
        if not k:
            print("agreement: not run (SIM_POSITIONS=N runs N corpus positions to a tight stop)")
            return
        ours_cap = int(os.environ.get("SIM_OURS_ITERATIONS", "2000"))
        magpie_cap = int(os.environ.get("SIM_MAGPIE_ITERATIONS", "40000"))
        print(
            f"agreement: ours at most {ours_cap:,} iterations (early stop), MAGPIE -scondition 99 at most {magpie_cap:,} "
            f"(-wmp {modes[-1]})",
            flush=True,
        )
        same = total = noise = 0
        cpu_ours = cpu_magpie = 0.0
        for text in midgame_positions(k):
            pos = parse_cgp(text, rules.tiles(), rules.layout())
            spread = pos.scores[0] - pos.scores[1]
            t = time.process_time()
            r = sim.run(pos.board, pos.racks[0], (), spread, candidates=10, iterations=ours_cap, seed=1)
            cpu_ours += time.process_time() - t
            mine = _move_text(r.candidates[0].ranked)
            out, cpu = run_magpie(magpie, work, text, f"-wmp {modes[-1]} -scondition 99 -iterations {magpie_cap} -tlim 600")
            cpu_magpie += cpu
            rows = magpie_rows(out)
            theirs_top = rows[0]["move"].upper()
            total += 1
            line = f"  {text.split()[1]:<8} ours {mine:<16} ({r.iterations} it., {r.stopped}) MAGPIE {theirs_top:<16} ({rows[0]['iterations']} it.)"
            if mine == theirs_top:
                same += 1
            else:
                z = float("nan")
                b = next((c for c in r.candidates if _move_text(c.ranked) == theirs_top), None)
                a = r.candidates[0]
                if b is not None:
                    n, diff, z = paired_z(a, b)
                    line += f" | ours: {a.mean:.2f} v {b.mean:.2f}; on the {n} it. both ran {diff:+.2f}, {z:.2f} s.e."
                else:
                    line += " | ours: MAGPIE's top not among our candidates"
                mrow = next((x for x in rows if x["move"].upper() == mine), None)
                if mrow is not None:
                    line += (
                        f" | MAGPIE: win {rows[0]['win']:.2f} v {mrow['win']:.2f} %, equity {rows[0]['equity']:.2f} v "
                        f"{mrow['equity']:.2f} ({mrow['iterations']} it.){' X' if mrow['similar'] else ''}"
                    )
                else:
                    line += " | MAGPIE: our top not among its plays"
                noise += (z == z and z < 2.576) or (mrow is not None and mrow["similar"])
            print(line, flush=True)
        print(
            f"agreement: the same top play on {same} of {total} corpus positions; of the {total - same} others, "
            f"{noise} within the noise (ours not 2.576 paired s.e. above MAGPIE's top, or MAGPIE's X); "
            f"CPU: ours {cpu_ours:.0f} s, MAGPIE {cpu_magpie:.0f} s"
        )


if __name__ == "__main__":
    main()
