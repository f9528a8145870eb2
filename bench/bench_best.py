"""Time ``skrafl best`` per position: the shared SOWPODS positions (0, 1, 2 blanks) and the Icelandic
riddle, in-process (move generation + sorting, lexicon already loaded) and as a whole process
(start-up, lexicon load, board parse, generation, output).

Lexicons: each shared position's own word list (with it the move set equals the full SOWPODS one,
see ../shared/corpora/positions/README.md), compiled once with ``skrafl build en --source wordlist``
into ``output/bench/``; the riddle uses ``output/is`` when ``make run`` has built it. A 2-blank
position is made from mid1 (rack AEEFH??).

Reference (issue 3): scrabble-solver 3 / 30 / 150 ms (0 / 1 / 2 blanks); Quackle 0.6 / 6 / 30 ms;
target for a whole process with one blank: ≤ 0.3 s.

Issue 11: the top play alone (``best_plays(..., 1)``, the pruned search), a whole ``skrafl best -n 1``
and a whole ``skrafl check WORD`` against a bare ``python -c pass`` (target ≤ 5×). With ``MAGPIE_DIR``
(a MAGPIE build, ``bin/magpie``) and ``MAGPIE_BEST_CMD`` (the shell command that makes MAGPIE print
the best play of a position, with ``{magpie}``, ``{kwg}`` and ``{cgp}`` to fill in; MAGPIE reads our
``lexicon.kwg`` when it is named ``CSW….kwg``), the whole-process ratio to MAGPIE's CLI is printed
too (target ≤ 3×).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared" / "corpora" / "positions"

CASES = [  # name, board, rack, word list, blanks
    ("open3_b0", "empty.board", "EJOQUXZ", "open3_b0.words"),
    ("mid2_b0", "mid2.board", "BDEGORW", "mid2_b0.words"),
    ("mid1_b1", "mid1.board", "AEEFHI?", "mid1_b1.words"),
    ("mid1_b2", "mid1.board", "AEEFH??", "mid1_b1.words"),
]


def _env() -> dict:
    """The environment for timed processes: bytecode caching on (as on a user's machine)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _skrafl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args], capture_output=True, text=True, cwd=PROJECT, env=_env()
    )


def _lexicon(name: str, words: Path) -> Path:
    from cli.common import output_root

    out = output_root() / "bench" / name
    if not (out / "lexicon.kwg").is_file():
        r = _skrafl("build", "en", "--source", "wordlist", "--input", str(words), "--out", str(out), "-q")
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


def _time_process(args: list[str], repeat: int) -> tuple[float, float]:
    """Median wall seconds and median CPU seconds (user + system) of a whole process, after one
    warm-up run (which also writes the bytecode caches)."""
    _skrafl(*args)
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        r = _skrafl(*args)
        walls.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if r.returncode:
            raise SystemExit(r.stderr)
    return statistics.median(walls), statistics.median(cpus)


def _magpie_ms(lex: Path, board) -> float | None:
    """Median wall seconds of MAGPIE's CLI printing the best play of ``board`` (MAGPIE_DIR and
    MAGPIE_BEST_CMD, see the module docstring), or None without them."""
    import shlex
    import shutil
    import tempfile

    root, cmd = os.environ.get("MAGPIE_DIR"), os.environ.get("MAGPIE_BEST_CMD")
    magpie = Path(root or ".", "bin", "magpie")
    if not root or not cmd or not magpie.is_file():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        kwg = Path(tmp, "CSWSKRAFL.kwg")
        shutil.copyfile(lex / "lexicon.kwg", kwg)
        line = cmd.format(magpie=shlex.quote(str(magpie)), kwg=shlex.quote(str(kwg)),
                          cgp=shlex.quote(board.cgp_rows()))
        walls = []
        for _ in range(6):
            t = time.perf_counter()
            r = subprocess.run(line, shell=True, capture_output=True, text=True, cwd=root)
            walls.append(time.perf_counter() - t)
            if r.returncode:
                print(f"MAGPIE_BEST_CMD failed ({r.returncode}): {r.stderr.strip()[:200]}")
                return None
    return statistics.median(walls[1:])


def _check_process() -> None:
    """A whole 'skrafl check WORD' against a bare Python start-up (target ≤ 5×)."""
    lex = _lexicon("mid1_b1", SHARED / "mid1_b1.words")
    env = _env()
    check, bare = [], []
    for _ in range(7):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "cli.main", "check", "--lexicon", str(lex), "HEFT"],
                       capture_output=True, cwd=PROJECT, env=env)
        check.append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], capture_output=True, cwd=PROJECT, env=env)
        bare.append(time.perf_counter() - t)
    c, b = statistics.median(check[1:]), statistics.median(bare[1:])
    print(f"whole 'skrafl check WORD': median {c * 1000:.0f} ms, bare 'python -c pass' {b * 1000:.0f} ms: "
          f"{c / b:.1f}× (target ≤ 5×)")


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
        wall, cpu = _time_process(
            ["best", "--lexicon", str(lex), "--board", str(SHARED / board_file), "--rack", rack_text, "-f", "tsv"], 5
        )
        wall1, _ = _time_process(
            ["best", "--lexicon", str(lex), "--board", str(SHARED / board_file), "--rack", rack_text, "-f", "tsv",
             "-n", "1"], 5
        )
        rows.append((name, rack_text, n, t_top, t_one, t_all, wall, cpu, wall1, _magpie_ms(lex, board)))
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
        args = ["best", "--lexicon", str(is_lex), "--board", str(SHARED / "netskrafl_riddle1.board"), "--rack",
                "UAENRRK", "-f", "tsv"]
        wall, cpu = _time_process(args, 5)
        wall1, _ = _time_process(args + ["-n", "1"], 5)
        rows.append(("is_riddle1", "UAENRRK", n, t_top, t_one, t_all, wall, cpu, wall1, None))
        print(f"Icelandic lexicon load (in-process): {load_ms:.1f} ms")
    else:
        print("output/is not built (make run): Icelandic riddle skipped")
    print("in-process: best_plays() with the lexicon loaded (top 10 as the command shows, the top play, and")
    print("every play); process: a whole 'skrafl best ... -n 10' run (start-up, lexicon load, board,")
    print("generation, output), median wall time and CPU time (user + system; the honest figure on a busy")
    print("machine), and the wall time of 'skrafl best -n 1' (with MAGPIE: its CLI and the ratio)")
    magpie = any(r[-1] for r in rows)
    print(f"{'position':<12} {'rack':<8} {'moves':>6} {'top10 ms':>9} {'top1 ms':>8} {'all ms':>8} {'process ms':>11} "
          f"{'cpu ms':>7} {'-n 1 ms':>8}" + (f" {'MAGPIE ms':>10} {'ratio':>6}" if magpie else ""))
    for name, rack, n, top, one, every, wall, cpu, wall1, mag in rows:
        line = (f"{name:<12} {rack:<8} {n:>6} {top * 1000:>9.2f} {one * 1000:>8.2f} {every * 1000:>8.1f} "
                f"{wall * 1000:>11.1f} {cpu * 1000:>7.1f} {wall1 * 1000:>8.1f}")
        if mag:
            line += f" {mag * 1000:>10.1f} {wall1 / mag:>5.1f}×"
        print(line)
    _check_process()
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
