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

Agreement (``SIM_POSITIONS=N``, default 0): N midgame positions (of each game's positions with 20 or
more tiles in the bag and the rack known, the middle one; a repeated game once) of the GCG games of ``../shared/corpora/gcg``, each run to a tight stop by both
(ours: 10 candidates, at most 2,000 iterations each, the early stop of gamecore.simulation; MAGPIE:
``-scondition 99`` with at most 40,000 iterations); printed: how many have the same top play. MAGPIE
ranks by win %, ours by mean equity, so a near-tie may differ.

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


def midgame_positions(limit: int) -> list[str]:
    """CGP strings of corpus positions with 20 or more tiles in the bag and the rack known."""
    from cli.position import game_positions
    from gamecore.errors import SkraflError

    out: list[str] = []
    for f in sorted((SHARED / "corpora" / "gcg").glob("*.gcg")):
        here = []
        try:
            for n, pos in game_positions(f, "wespa", None):
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
        if here and here[len(here) // 2] not in out:  # the middle one of each game (the corpus repeats games)
            out.append(here[len(here) // 2])
        if len(out) >= limit:
            break
    return out


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
        t = time.process_time()
        res = sim.run(board, rack, candidates=10, iterations=n, seed=1, min_iterations=10**9)
        cpu = time.process_time() - t
        ours = sum(c.iterations for c in res.candidates) / cpu
        top = res.candidates[0].ranked.play
        print(
            f"ours: {sum(c.iterations for c in res.candidates):,} iterations (10 candidates x {n}, 2 plies) in "
            f"{cpu:.2f} CPU-s: {ours:,.0f} iterations per CPU-second; top {top.coord} {top.word_text()}",
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
        for wmp in modes:
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
        same = total = 0
        for text in midgame_positions(k):
            pos = parse_cgp(text, rules.tiles(), rules.layout())
            spread = pos.scores[0] - pos.scores[1]
            r = sim.run(pos.board, pos.racks[0], (), spread, candidates=10, iterations=2000, seed=1)
            p = r.candidates[0].ranked
            mine = f"{p.play.coord} {p.play.word_text()}" if p.kind == "play" else "exchange"
            out, _ = run_magpie(magpie, work, text, f"-wmp {modes[-1]} -scondition 99 -iterations 40000 -tlim 120")
            theirs_top = magpie_top(out)
            total += 1
            same += mine.upper() == theirs_top.upper()
            print(f"  {text.split()[1]:<8} ours {mine:<16} ({r.iterations} it., {r.stopped}) MAGPIE {theirs_top}", flush=True)
        print(f"agreement: the same top play on {same} of {total} corpus positions")


if __name__ == "__main__":
    main()
