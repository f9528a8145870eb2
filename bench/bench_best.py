"""Time ``skrafl best`` per position: the shared SOWPODS positions (0, 1, 2 blanks) and the Icelandic
riddle, in-process (move generation + sorting, lexicon already loaded) and as a whole process
(start-up, lexicon load, board parse, generation, output).

Lexicons: each shared position's own word list (with it the move set equals the full SOWPODS one,
see ../shared/corpora/positions/README.md), compiled once with ``skrafl build en --source wordlist``
into ``output/bench/``; the riddle uses ``output/is`` when ``make run`` has built it. A 2-blank
position is made from mid1 (rack AEEFH??).

Reference: scrabble-solver 3 / 30 / 150 ms (0 / 1 / 2 blanks); Quackle 0.6 / 6 / 30 ms;
target for a whole process with one blank: ≤ 0.3 s.

Start-up: the top play alone (``best_plays(..., 1)``, the pruned search), a whole ``skrafl best -n 1``
and a whole ``skrafl check WORD`` against a bare ``python -c pass`` (target ≤ 5×), with the floor a
typer CLI cannot go under: ``python -c "import typer"`` in the same environment (typer and click are
imported by every ``skrafl`` command). And ``skrafl best --board -`` (many positions, one CGP line
each, the lexicon loaded once): positions per second over the shared positions repeated
``BENCH_STDIN_COPIES`` times (default 50), the whole process and per position after start-up (the
run fed one position subtracted), against one whole ``skrafl best -n 1`` process per position.

MAGPIE (jvc56/MAGPIE, not in this repository): with ``MAGPIE_DIR`` naming a checkout built with
``make magpie BUILD=release``, a whole MAGPIE process finding the top play of the same position with
the same KWG is timed in the same way as ``skrafl best -n 1`` (median wall time after a warm-up, and
CPU time), and the ratio printed (target ≤ 3×). Its data folder is written by the bench (see
bench_movegen: our ``lexicon.kwg`` as ``data/lexica/CSWSKRAFL.kwg``, an empty leave file, the English
letter distribution and the standard board; MAGPIE-DATA is not needed). By default ``bin/magpie``
is run in that folder as ``magpie set -mode sync -savesettings false`` with two commands on stdin:
``cgp CGP -lex CSWSKRAFL -wmp false -s1 score -s2 score -r1 best -r2 best -numplays 1 -threads 1``
and ``generate`` (MAGPIE's pruned search for the best play by score, as ``-n 1`` is ours: start-up,
loading the KWG and the 3.6 MB leave file, cross sets, generation, printing), and the top play it
prints is checked to score as ours. ``MAGPIE_BEST_CMD`` replaces that with a shell command of your
own, run in the same folder, with ``{magpie}``, ``{kwg}``, ``{lex}`` (the lexicon name) and ``{cgp}``
(the whole CGP: board, ``RACK/``, ``0/0 0``) filled in.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

try:
    from bench.processes import PROJECT, Served, batch_throughput, served_vs_cold, skrafl, time_process, timed
    from bench.processes import env as process_env
except ImportError:  # run as a script: bench/ is on the path
    from processes import PROJECT, Served, batch_throughput, served_vs_cold, skrafl, time_process, timed
    from processes import env as process_env
SHARED = PROJECT.parent / "shared" / "corpora" / "positions"

CASES = [  # name, board, rack, word list, blanks
    ("open3_b0", "empty.board", "EJOQUXZ", "open3_b0.words"),
    ("mid2_b0", "mid2.board", "BDEGORW", "mid2_b0.words"),
    ("mid1_b1", "mid1.board", "AEEFHI?", "mid1_b1.words"),
    ("mid1_b2", "mid1.board", "AEEFH??", "mid1_b1.words"),
]


def _lexicon(name: str, words: Path) -> Path:
    from cli.common import output_root

    out = output_root() / "bench" / name
    if not (out / "lexicon.kwg").is_file():
        r = skrafl("build", "en", "--source", "wordlist", "--input", str(words), "--out", str(out), "-q")
        if r.returncode:
            raise SystemExit(f"cannot build {name}: {r.stderr}")
    return out


def _time_in_process(board, rack, bundle, rules, repeat: int, limit: int | None) -> tuple[float, int]:
    """Median seconds of best_plays (top ``limit``, or every play when None) and the play count."""
    from gamecore.best import best_plays

    times = []
    n = 0
    for _ in range(repeat):
        t = time.perf_counter()
        n = len(best_plays(board, rack, bundle, rules, limit))
        times.append(time.perf_counter() - t)
    return statistics.median(times), n


# bin/magpie's arguments are its first command; the others are read from stdin. Sync mode must be
# set there: in its default async mode a line read while a command runs is taken as "stop"/"status".
MAGPIE_ARGS = ("set", "-mode", "sync", "-savesettings", "false")
MAGPIE_COMMANDS = "cgp {cgp} -lex {lex} -wmp false -s1 score -s2 score -r1 best -r2 best -numplays 1 -threads 1\ngenerate\n"


def _magpie(lex: Path, board_file: str, rack: str) -> tuple[float, float, int | None, str] | None:
    """A whole MAGPIE process printing the best play of the position (``MAGPIE_DIR``, and
    ``MAGPIE_BEST_CMD`` when set; see the module docstring): median wall and CPU seconds after a
    warm-up, the top play's score and the play as MAGPIE prints it; None without MAGPIE."""
    import re
    import shlex
    import tempfile

    try:
        from bench.bench_movegen import cgp, magpie_data
    except ImportError:  # run as a script: bench/ is on the path
        from bench_movegen import cgp, magpie_data

    root, cmd = os.environ.get("MAGPIE_DIR"), os.environ.get("MAGPIE_BEST_CMD")
    magpie = Path(root or ".", "bin", "magpie")
    if not root or not magpie.is_file():
        return None
    position = cgp(board_file, rack)
    with tempfile.TemporaryDirectory() as tmp:
        work = magpie_data(Path(tmp), lex / "lexicon.kwg")
        if work is None:
            return None
        kwg = work / "data" / "lexica" / "CSWSKRAFL.kwg"
        if cmd:
            line = cmd.format(
                magpie=shlex.quote(str(magpie)), kwg=shlex.quote(str(kwg)), lex="CSWSKRAFL", cgp=shlex.quote(position)
            )
            run = lambda: subprocess.run(line, shell=True, capture_output=True, text=True, cwd=work, check=False)
        else:
            commands = MAGPIE_COMMANDS.format(cgp=position, lex="CSWSKRAFL")
            run = lambda: subprocess.run(
                [str(magpie), *MAGPIE_ARGS], input=commands, capture_output=True, text=True, cwd=work, check=False
            )
        walls, cpus = [], []
        for _ in range(6):
            wall, cpu, r = timed(run)
            walls.append(wall)
            cpus.append(cpu)
            if r.returncode or "(error" in r.stdout + r.stderr:
                print(f"MAGPIE failed ({r.returncode}): {(r.stdout + r.stderr).strip()[:300]}")
                return None
    top = re.search(r"\b1:\s+(\S+)\s+(\S+)\s+(?:\S+\s+)?(-?\d+)\s+-?\d+\.\d+", r.stdout)
    score = int(top.group(3)) if top else None
    play = f"{top.group(1)} {top.group(2)}" if top else "?"
    return statistics.median(walls[1:]), statistics.median(cpus[1:]), score, play


def _check_process() -> None:
    """A whole 'skrafl check WORD' against a bare Python start-up (target ≤ 5×), and the floor of
    any typer CLI (``import typer``), interleaved, median of 10 after a warm-up."""
    lex = _lexicon("mid1_b1", SHARED / "mid1_b1.words")
    env = process_env()
    cmds = {
        "check": [sys.executable, "-m", "cli.main", "check", "--lexicon", str(lex), "HEFT"],
        "bare": [sys.executable, "-c", "pass"],
        "typer": [sys.executable, "-c", "import typer"],
    }
    times: dict[str, list[float]] = {k: [] for k in cmds}
    for i in range(11):
        for k, cmd in cmds.items():
            t = time.perf_counter()
            subprocess.run(cmd, capture_output=True, cwd=PROJECT, env=env)
            if i:
                times[k].append(time.perf_counter() - t)
    c, b, f = (statistics.median(times[k]) for k in ("check", "bare", "typer"))
    print(
        f"whole 'skrafl check WORD': median {c * 1000:.0f} ms, bare 'python -c pass' {b * 1000:.0f} ms: "
        f"{c / b:.1f}× (target ≤ 5×); floor 'python -c \"import typer\"' {f * 1000:.0f} ms = {f / b:.1f}× bare"
    )


def _stdin_throughput(lex: Path, lines: list[str], one_process: float) -> None:
    """``skrafl best --board - -n 1``: positions per second, whole process and after start-up."""
    copies = int(os.environ.get("BENCH_STDIN_COPIES", "50"))
    text = "\n".join(lines * copies) + "\n"
    args = ["best", "--lexicon", str(lex), "--board", "-", "-n", "1", "-f", "tsv"]

    def check(stdin, r):
        if r.returncode:
            raise SystemExit(r.stderr)

    full, one = batch_throughput(args, text, check)
    n = len(lines) * copies
    per = (full[0] - one[0]) / (n - 1)
    print(
        f"'best --board - -n 1' ({len(lines)} positions x {copies}): {n} positions in {full[0] * 1000:.0f} ms wall "
        f"({full[1] * 1000:.0f} ms CPU), {n / full[0]:,.0f} positions/s whole process; after start-up "
        f"({one[0] * 1000:.0f} ms with one position) {per * 1000:.2f} ms a position = {1 / per:,.0f} positions/s; "
        f"one 'best -n 1' process per position: {one_process * 1000:.0f} ms a position"
    )


def main() -> None:
    from gamecore.best import load_bundle
    from gamecore.board import read_board
    from gamecore.rules import load_rules

    if not SHARED.is_dir():
        print("../shared/corpora/positions is missing: nothing to time")
        return
    rows = []
    wespa = load_rules("wespa")
    for name, board_file, rack_text, words in CASES:
        lex = _lexicon(words.split(".")[0], SHARED / words)
        bundle = load_bundle(lex)
        board = read_board(SHARED / board_file, wespa.tiles(), wespa.layout())
        rack = wespa.tiles().parse_rack(rack_text)
        t_top, _ = _time_in_process(board, rack, bundle, wespa, 20, 10)
        t_one, _ = _time_in_process(board, rack, bundle, wespa, 20, 1)
        t_all, n = _time_in_process(board, rack, bundle, wespa, 10, None)
        wall, cpu = time_process(
            ["best", "--lexicon", str(lex), "--board", str(SHARED / board_file), "--rack", rack_text, "-f", "tsv"], 5
        )
        one_args = [
            "best",
            "--lexicon",
            str(lex),
            "--board",
            str(SHARED / board_file),
            "--rack",
            rack_text,
            "-f",
            "tsv",
            "-n",
            "1",
        ]
        wall1, cpu1 = time_process(one_args, 5)
        mag = _magpie(lex, board_file, rack_text)
        if mag:
            ours = skrafl(*one_args).stdout.splitlines()[1].split("\t")
            mag = (*mag, f"{ours[0]} {ours[1]}", int(ours[2]), cpu1)
        rows.append((name, rack_text, n, t_top, t_one, t_all, wall, cpu, wall1, mag))
    from cli.common import output_root

    is_lex = output_root() / "is"
    if (is_lex / "lexicon.kwg").is_file():
        ns = load_rules("netskrafl")
        t = time.perf_counter()
        bundle = load_bundle(is_lex)
        load_ms = (time.perf_counter() - t) * 1000
        board = read_board(SHARED / "netskrafl_riddle1.board", ns.tiles(), ns.layout())
        rack = ns.tiles().parse_rack("UAENRRK")
        t_top, _ = _time_in_process(board, rack, bundle, ns, 20, 10)
        t_one, _ = _time_in_process(board, rack, bundle, ns, 20, 1)
        t_all, n = _time_in_process(board, rack, bundle, ns, 10, None)
        args = [
            "best",
            "--lexicon",
            str(is_lex),
            "--board",
            str(SHARED / "netskrafl_riddle1.board"),
            "--rack",
            "UAENRRK",
            "-f",
            "tsv",
        ]
        wall, cpu = time_process(args, 5)
        wall1, _ = time_process(args + ["-n", "1"], 5)
        rows.append(("is_riddle1", "UAENRRK", n, t_top, t_one, t_all, wall, cpu, wall1, None))
        print(f"Icelandic lexicon load (in-process): {load_ms:.1f} ms")
    else:
        print("output/is not built (make run): Icelandic riddle skipped")
    print("in-process: best_plays() with the lexicon loaded (top 10 as the command shows, the top play, and")
    print("every play); process: a whole 'skrafl best ... -n 10' run (start-up, lexicon load, board,")
    print("generation, output), median wall time and CPU time (user + system; the honest figure on a busy")
    print("machine), and the wall time of 'skrafl best -n 1' (with MAGPIE: its CLI and the ratio)")
    magpie = any(r[-1] for r in rows)
    if magpie:
        print("MAGPIE: a whole bin/magpie process finding the best play by score (cgp + generate, record best),")
        print("median wall ms after a warm-up; ratio = our '-n 1' wall / MAGPIE's (cpu ratio: CPU time / CPU time);")
        print("top = both engines' top play (a tie may differ in play; the scores must agree)")
    print(
        f"{'position':<12} {'rack':<8} {'moves':>6} {'top10 ms':>9} {'top1 ms':>8} {'all ms':>8} {'process ms':>11} "
        f"{'cpu ms':>7} {'-n 1 ms':>8}"
        + (f" {'MAGPIE ms':>10} {'ratio':>6} {'cpu ratio':>9}  top (ours / MAGPIE)" if magpie else "")
    )
    for name, rack, n, top, one, every, wall, cpu, wall1, mag in rows:
        line = (
            f"{name:<12} {rack:<8} {n:>6} {top * 1000:>9.2f} {one * 1000:>8.2f} {every * 1000:>8.1f} "
            f"{wall * 1000:>11.1f} {cpu * 1000:>7.1f} {wall1 * 1000:>8.1f}"
        )
        if mag:
            m_wall, m_cpu, m_score, m_play, our_play, our_score, cpu1 = mag
            same = "same score" if m_score == our_score else "DIFFERENT"
            line += (
                f" {m_wall * 1000:>10.1f} {wall1 / m_wall:>5.1f}× {cpu1 / m_cpu:>8.1f}×  "
                f"{our_play} {our_score} / {m_play} {m_score} {same}"
            )
        print(line)
    _check_process()
    _stdin_positions()
    print(f"load average: {os.getloadavg()[0]:.2f}")


def _stdin_positions() -> None:
    """The shared positions as CGP lines, with one lexicon for all: ``output/en`` when built, else
    mid1's word list (fewer plays on the other boards, the same work per line)."""
    from cli.common import output_root
    from gamecore.board import read_board
    from gamecore.rules import load_rules

    en = output_root() / "en"
    lex = en if (en / "lexicon.kwg").is_file() else _lexicon("mid1_b1", SHARED / "mid1_b1.words")
    wespa = load_rules("wespa")
    lines = []
    for _, board_file, rack, _ in CASES:
        board = read_board(SHARED / board_file, wespa.tiles(), wespa.layout())
        lines.append(f"{board.cgp_rows()} {rack}/ 0/0 0")
    one, _ = time_process(
        ["best", "--lexicon", str(lex), "--board", lines[2], "--board-format", "cgp", "-n", "1", "-f", "tsv"], 5
    )
    print(f"lexicon for --board -: {lex}")
    _stdin_throughput(lex, lines, one)


def _served() -> None:
    """The long-running mode: whole ``skrafl best -n 1`` and ``skrafl check WORD``
    client processes (the console script with ``SKRAFL_SERVER``) against a ``skrafl serve`` the
    bench starts (lexicon preloaded), the same commands without the server, a bare ``python -c
    pass`` and MAGPIE's CLI (``MAGPIE_DIR``). Medians of 21 runs after a warm-up; CPU: the client's
    own, and the server's per command (its forked child)."""
    import tempfile

    if not SHARED.is_dir():
        print("../shared/corpora/positions is missing: serve bench skipped")
        return
    lex = _lexicon("mid1_b1", SHARED / "mid1_b1.words")
    best = ["best", "--lexicon", str(lex), "--board", str(SHARED / "mid1.board"), "--rack", "AEEFHI?", "-n", "1"]
    check = ["check", "--lexicon", str(lex), "HEFT"]
    magpie = _magpie(lex, "mid1.board", "AEEFHI?")
    with tempfile.TemporaryDirectory() as tmp, Served(Path(tmp), "--preload", str(lex)) as server:
        for what, args, target in (("best -n 1", best, 3), ("check WORD", check, None)):
            t = served_vs_cold(server, args, 21)
            (sw, sc), (kc, _), (cw, cc), (bw, bc) = t["served"], t["served_server_cpu"], t["cold"], t["bare"]
            line = (
                f"served 'skrafl {what}': {sw * 1000:.0f} ms wall (cpu {sc * 1000:.0f} client + {kc * 1000:.0f} server), "
                f"cold {cw * 1000:.0f} ms (cpu {cc * 1000:.0f}), bare python {bw * 1000:.0f} ms (cpu {bc * 1000:.0f}): "
                f"served {sw / bw:.1f}× bare, cold {cw / bw:.1f}× bare"
            )
            if what.startswith("best") and magpie is not None:
                line += f"; MAGPIE {magpie[0] * 1000:.0f} ms: served {sw / magpie[0]:.1f}× (target ≤ {target}×), cold {cw / magpie[0]:.1f}×"
            print(line, flush=True)
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    if sys.argv[1:] == ["served"]:  # only the long-running mode's figures
        _served()
    else:
        main()
        _served()
