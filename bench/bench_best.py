"""Time ``skrafl best`` per position: the shared SOWPODS positions (0, 1, 2 blanks) and the Icelandic
riddle, in-process (move generation + sorting, lexicon already loaded) and as a whole process
(start-up, lexicon load, board parse, generation, output).

Lexicons: each shared position's own word list (with it the move set equals the full SOWPODS one,
see ../shared/corpora/positions/README.md), compiled once with ``skrafl build en --source wordlist``
into ``output/bench/``; the riddle uses ``output/is`` when ``make run`` has built it. A 2-blank
position is made from mid1 (rack AEEFH??).

Reference (issue 3): scrabble-solver 3 / 30 / 150 ms (0 / 1 / 2 blanks); Quackle 0.6 / 6 / 30 ms;
target for a whole process with one blank: ≤ 0.3 s.
"""

from __future__ import annotations

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


def _skrafl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True, cwd=PROJECT)


def _lexicon(name: str, words: Path) -> Path:
    from cli.common import output_root

    out = output_root() / "bench" / name
    if not (out / "lexicon.kwg").is_file():
        r = _skrafl("build", "en", "--source", "wordlist", "--input", str(words), "--out", str(out), "-q")
        if r.returncode:
            raise SystemExit(f"cannot build {name}: {r.stderr}")
    return out


def _time_in_process(board, rack, bundle, rules, repeat: int) -> tuple[float, int]:
    from gamecore.best import best_plays

    times = []
    n = 0
    for _ in range(repeat):
        t = time.perf_counter()
        n = len(best_plays(board, rack, bundle, rules))
        times.append(time.perf_counter() - t)
    return statistics.median(times), n


def _time_process(args: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        r = _skrafl(*args)
        times.append(time.perf_counter() - t)
        if r.returncode:
            raise SystemExit(r.stderr)
    return statistics.median(times)


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
        t_in, n = _time_in_process(board, rack, bundle, wespa, 20)
        t_proc = _time_process(
            ["best", "--lexicon", str(lex), "--board", str(SHARED / board_file), "--rack", rack_text, "-f", "tsv"], 5
        )
        rows.append((name, rack_text, n, t_in * 1000, t_proc * 1000))
    from cli.common import output_root

    is_lex = output_root() / "is"
    if (is_lex / "lexicon.kwg").is_file():
        ns = load_rules("netskrafl")
        t = time.perf_counter()
        bundle = load_bundle(is_lex)
        load_ms = (time.perf_counter() - t) * 1000
        board = read_board(SHARED / "netskrafl_riddle1.board", ns.tiles(), ns.layout())
        t_in, n = _time_in_process(board, ns.tiles().parse_rack("UAENRRK"), bundle, ns, 20)
        t_proc = _time_process(
            ["best", "--lang", "is", "--board", str(SHARED / "netskrafl_riddle1.board"), "--rack", "UAENRRK",
             "-f", "tsv"], 5
        )
        rows.append(("is_riddle1", "UAENRRK", n, t_in * 1000, t_proc * 1000))
        print(f"Icelandic lexicon load (in-process): {load_ms:.1f} ms")
    else:
        print("output/is not built (make run): Icelandic riddle skipped")
    print(f"{'position':<12} {'rack':<8} {'moves':>6} {'in-process ms':>14} {'process ms':>11}")
    for name, rack, n, a, b in rows:
        print(f"{name:<12} {rack:<8} {n:>6} {a:>14.2f} {b:>11.1f}")


if __name__ == "__main__":
    main()
