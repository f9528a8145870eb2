"""Time the judge's desk: a whole ``skrafl score`` process (start-up, lexicon load, board, ruling,
output) and a ruling in the Word Judge station, in-process (the lexicon loaded once, as at a
tournament table): the ruling alone, the ruling with its audit-log line fsynced, and the whole
round trip on the screen (Textual's pilot: Enter pressed → verdict on screen).

The long-running mode: ``skrafl score --batch -`` (one ``CGP<TAB>PLAY`` per line of stdin, the lexicon loaded
once): rulings per second over a few lines (the same play and rack as the whole process, and the
word at other squares) repeated ``BENCH_STDIN_COPIES`` times (default 50), the whole process and per
ruling after start-up (the run fed one line subtracted), against one whole ``skrafl score``
process per ruling (as bench_best's ``best --board -`` measure).

Lexicons: the Icelandic one (``output/is``, built by ``make run``) when it is there; always a small
English word list compiled into a temporary folder.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path

try:
    from bench.processes import batch_throughput, skrafl, time_process
except ImportError:  # run as a script: bench/ is on the path
    from processes import batch_throughput, skrafl, time_process

PROJECT = Path(__file__).resolve().parents[1]

EN_WORDS = ["joint", "for", "fore", "to", "ta", "ax", "ox", "hey", "retains", "quiz"]
EMPTY_CGP = "/".join(["15"] * 15)


def _median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def _screen_round_trip_ms(judge, words: str, repeat: int) -> tuple[float, float]:
    """Median ms from Enter to the verdict on the screen, in Textual's headless pilot, and the
    pilot's own cost of one key press that does nothing (a letter typed), to subtract."""
    from cli.judge import make_app

    app = make_app(judge, clear_after=0)
    times: list[float] = []
    idle: list[float] = []

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            box = app.query_one("#words")
            for _ in range(repeat):
                box.value = ""
                t = time.perf_counter()
                await pilot.press("a")
                await pilot.pause()
                idle.append(time.perf_counter() - t)
                box.value = words
                t = time.perf_counter()
                await pilot.press("enter")
                await pilot.pause()
                times.append(time.perf_counter() - t)
                await pilot.press("escape")  # clear_after 0: a key clears the verdict
                await pilot.pause()

    asyncio.run(go())
    return statistics.median(times) * 1000, statistics.median(idle) * 1000


def _batch_lines(play: str, rack: str) -> list[str]:
    """``CGP<TAB>PLAY`` lines on the empty board: ``play`` and its word at three other squares
    (every one legal and acceptable)."""
    word = play.split()[1]
    return [f"{EMPTY_CGP} {rack}/ 0/0 0\t{coord} {word}" for coord in (play.split()[0], "8E", "8H", "H4")]


def _batch_throughput(name: str, lex: Path, lines: list[str], one_process: float) -> str:
    """``skrafl score --batch - --challenge five_point -f json``: rulings per second, whole process
    and after start-up (best of 3 after a warm-up), against ``one_process`` seconds a ruling."""
    copies = int(os.environ.get("BENCH_STDIN_COPIES", "50"))
    text = "\n".join(lines * copies) + "\n"
    args = ["score", "--lexicon", str(lex), "--batch", "-", "--challenge", "five_point", "-f", "json", "-q"]

    def check(stdin, r):
        if r.returncode or r.stdout.count("\n") != stdin.count("\n"):
            raise SystemExit(f"score --batch: exit {r.returncode}: {r.stderr}")

    full, one = batch_throughput(args, text, check)
    n = len(lines) * copies
    per = (full[0] - one[0]) / (n - 1)
    return (
        f"{name}: 'score --batch - --challenge five_point -f json' ({len(lines)} lines x {copies}): {n} rulings in "
        f"{full[0] * 1000:.0f} ms wall ({full[1] * 1000:.0f} ms CPU), {n / full[0]:,.0f} rulings/s whole process; "
        f"after start-up ({one[0] * 1000:.0f} ms with one ruling) {per * 1000:.2f} ms a ruling = {1 / per:,.0f} "
        f"rulings/s; one 'score' process per ruling: {one_process * 1000:.0f} ms a ruling = {1 / one_process:,.1f} "
        f"rulings/s ({one_process / per:,.0f}× the batch's per-ruling time)"
    )


def main() -> None:
    from cli.common import output_root
    from gamecore.wordjudge import AuditLog, WordJudge

    rows = []
    batch_lines = []
    with tempfile.TemporaryDirectory(prefix="bench_judge_") as tmp:
        tmp = Path(tmp)
        (tmp / "words.txt").write_text("\n".join(EN_WORDS) + "\n", encoding="utf-8")
        r = skrafl("build", "en", "--source", "wordlist", "--input", str(tmp / "words.txt"), "--out", str(tmp / "en"), "-q")
        if r.returncode:
            raise SystemExit(f"cannot build the English word list: {r.stderr}")
        empty = tmp / "empty.board"
        empty.write_text(("." * 15 + "\n") * 15, encoding="utf-8")
        cases = [("en (10 words)", tmp / "en", "8D JOINT", "JOINTAB", ["joint", "fore", "ta"])]
        is_lex = output_root() / "is"
        if (is_lex / "manifest.json").is_file():
            cases.append(("is (BÍN)", is_lex, "8D HESTUR", "HESTURA", ["hestur", "hestanna", "ýf", "þú", "xyzzy"]))
        else:
            print("output/is not built (make run): the Icelandic lexicon is skipped")
        for name, lex, play, rack, words in cases:
            wall, cpu = time_process(
                [
                    "score",
                    "--lexicon",
                    str(lex),
                    "--board",
                    str(empty),
                    "--play",
                    play,
                    "--rack",
                    rack,
                    "--challenge",
                    "five_point",
                    "-f",
                    "json",
                ],
                7,
                ok=(0, 1),
            )
            t = time.perf_counter()
            judge = WordJudge.load(lex)
            load_ms = (time.perf_counter() - t) * 1000
            rule_ms = _median_ms(partial(judge.rule, words), 2000)
            log = AuditLog(tmp / "log.jsonl")
            logged_ms = _median_ms(lambda judge=judge, log=log, words=words: log.write(judge.record(judge.rule(words))), 200)
            log.close()
            screen_ms, key_ms = _screen_round_trip_ms(judge, " ".join(words), 30)
            rows.append((name, len(words), wall, cpu, load_ms, rule_ms, logged_ms, screen_ms, key_ms))
            batch_lines.append(_batch_throughput(name, lex, _batch_lines(play, rack), wall))
    print("process: a whole 'skrafl score --play ... --challenge five_point -f json' run (start-up, lexicon load,")
    print("board, ruling, output), median wall and CPU time; in-process (lexicon loaded once): a ruling of N words,")
    print("a ruling with its audit-log line written and fsynced, and Enter → verdict on the judge screen (pilot;")
    print("'key ms' is the pilot's own cost of a key press that does nothing, part of 'screen ms')")
    print(
        f"{'lexicon':<14} {'words':>5} {'score ms':>9} {'cpu ms':>7} {'load ms':>8} {'rule ms':>8} {'+log ms':>8} {'screen ms':>10} {'key ms':>7}"
    )
    for name, n, wall, cpu, load, rule, logged, screen, key in rows:
        print(
            f"{name:<14} {n:>5} {wall * 1000:>9.1f} {cpu * 1000:>7.1f} {load:>8.1f} {rule:>8.3f} {logged:>8.2f} {screen:>10.1f} {key:>7.1f}"
        )
    for line in batch_lines:
        print(line)
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
