"""Static equity against MAGPIE: ``skrafl best --leaves CSW21.klv2 --all -f json`` on the
parity positions of tests/fixtures/leaves/positions.tsv (the shared positions' boards and word lists,
and an endgame made from mid2), compared with MAGPIE's complete move list for the same position, KWG
and leave file; and the time of each. Then self-play speed against MAGPIE's autoplay (:func:`speed`).

Needs ``MAGPIE_DIR`` (a MAGPIE checkout built with ``make magpie BUILD=release``) and ``MAGPIE_DATA``
(a MAGPIE-DATA checkout: ``data/lexica/CSW21.klv2``, the whole 914,624-leave file). Without them the
comparison is made with the stored MAGPIE lists (tests/fixtures/leaves/reference, written by
make_reference.py with the same file) when ``MAGPIE_DATA`` is set, else nothing is run.

Printed per position: our rows (placements + exchanges), the rows compared (on the empty board MAGPIE
lists each opening play once, across; our down plays are left out of the comparison), MAGPIE's rows
(the pass left out), the (score, equity to 0.01) pairs that differ either way, the top play of each,
and the wall time of our whole process and of MAGPIE's (median of 3).
"""

from __future__ import annotations

import gzip
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

try:
    from bench.processes import PROJECT, skrafl
except ImportError:  # run as a script: bench/ is on the path
    from processes import PROJECT, skrafl

LEAVES = PROJECT / "tests" / "fixtures" / "leaves"
POSITIONS = PROJECT.parent / "shared" / "corpora" / "positions"


def _positions() -> list[dict]:
    lines = (LEAVES / "positions.tsv").read_text(encoding="utf-8").splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, x.split("\t"), strict=True)) for x in lines[1:] if x.strip()]


def _stored(name: str) -> list[tuple]:
    text = gzip.decompress((LEAVES / "reference" / f"{name}.tsv.gz").read_bytes()).decode("utf-8")
    return [tuple(x.split("\t")) for x in text.splitlines()[1:]]


def parity() -> None:
    data = os.environ.get("MAGPIE_DATA")
    root = os.environ.get("MAGPIE_DIR")
    if not data or not POSITIONS.is_dir():
        print("MAGPIE_DATA (a MAGPIE-DATA checkout) or ../shared is missing: equity parity not run")
        return
    sys.path.insert(0, str(LEAVES))
    sys.path.insert(0, str(PROJECT / "bench"))
    import make_reference as ref

    csw21 = Path(data) / "data" / "lexica" / "CSW21.klv2"
    live = bool(root and (Path(root) / "bin" / "magpie").is_file())
    print(f"leaves: {csw21}; MAGPIE: {'run now (' + root + ')' if live else 'the stored lists (MAGPIE_DIR not set)'}")
    total = compared = bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for pos in _positions():
            name, words, cgp = pos["name"], pos["words"], pos["cgp"]
            lex = tmp / "lex" / words
            if not (lex / "lexicon.kwg").is_file():
                r = skrafl("build", "en", "--source", "wordlist", "--input", str(POSITIONS / words), "--out", str(lex), "-q")
                if r.returncode:
                    raise SystemExit(r.stderr)
            args = ["best", "--lexicon", str(lex), "--cgp", cgp, "--leaves", str(csw21), "--all", "-f", "json"]
            walls = []
            for _ in range(3):
                t = time.perf_counter()
                r = skrafl(*args)
                walls.append(time.perf_counter() - t)
                if r.returncode:
                    raise SystemExit(r.stderr)
            ours = json.loads(r.stdout)
            m_wall = None
            if live:
                import shutil

                from bench_movegen import magpie_data

                work = magpie_data(tmp / name, lex / "lexicon.kwg")
                shutil.copyfile(csw21, work / "data" / "lexica" / "CSW21.klv2")
                m_walls = []
                for _ in range(3):
                    t = time.perf_counter()
                    text = ref.run_magpie(Path(root) / "bin" / "magpie", work, cgp, "CSW21")
                    m_walls.append(time.perf_counter() - t)
                theirs = [tuple(map(str, m)) for m in ref.parse_magpie(text)]
                m_wall = statistics.median(m_walls)
            else:
                theirs = _stored(name)
            empty = cgp.split()[0] == "/".join(["15"] * 15)
            kept = [x for x in ours if not (empty and x["kind"] == "play" and x["coord"][:1].isalpha())]
            got = Counter((x["score"], f"{x['equity']:.2f}") for x in kept)
            want = Counter((int(m[3]), m[4]) for m in theirs)
            diff = sum(((got - want) + (want - got)).values())
            total += len(ours)
            compared += len(kept)
            bad += diff
            top = ours[0]
            ours_top = f"{top['coord'] or 'exch'} {top['word']} {top['score']} {top['equity']:.2f}"
            line = (
                f"{name:<9} ours {len(ours):>6} rows ({len(kept):>6} compared), MAGPIE {len(theirs):>6}; differing "
                f"{diff}; top: ours {ours_top} / MAGPIE {theirs[0][1]} {theirs[0][3]} {theirs[0][4]}; "
                f"our process {statistics.median(walls) * 1000:.0f} ms"
            )
            if m_wall is not None:
                line += f", MAGPIE's {m_wall * 1000:.0f} ms"
            print(line, flush=True)
    print(f"equity parity: {compared} rows compared ({total} ours), {bad} differing; load average {os.getloadavg()[0]:.2f}")


def _cpu(cmd: list[str], cwd: Path | None = None) -> tuple[float, str]:
    """Run a command; returns (its CPU seconds, user + system, from the children's rusage; its stdout)."""
    import resource
    import subprocess

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, check=False, env=_env())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode:
        raise SystemExit(f"{cmd[0]} failed: {(r.stdout + r.stderr).strip()[-400:]}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, r.stdout


def _env() -> dict:
    try:
        from bench.processes import env
    except ImportError:  # run as a script: bench/ is on the path
        from processes import env

    return env()


def speed() -> None:
    """Self-play speed against MAGPIE's autoplay (the speed target): static-equity games,
    equity against equity, one thread, the same KWG (``output/en/lexicon.kwg``, the ``skrafl build
    en`` lexicon) and the same leave file (CSW21.klv2), ``BENCH_AUTOPLAY_GAMES`` games (2,000). Our
    time: the whole ``skrafl autoplay`` process; MAGPIE's: the whole ``magpie autoplay`` process,
    without its word map (``-wmp false``: the KWG alone, as ours) and with it (MAGPIE's default,
    the map made from the same words by ``convert text2wordmap``). CPU seconds (user + system) from
    the processes' rusage; the ratio ours / MAGPIE's (target: at most 1)."""
    import shutil

    root = os.environ.get("MAGPIE_DIR")
    data = os.environ.get("MAGPIE_DATA")
    csw21 = Path(os.environ.get("SKRAFL_CSW21_KLV2") or Path(data or "-", "data", "lexica", "CSW21.klv2"))
    lex = PROJECT / "output" / "en"
    games = int(os.environ.get("BENCH_AUTOPLAY_GAMES", "2000"))
    if not (root and (Path(root) / "bin" / "magpie").is_file() and csw21.is_file() and (lex / "lexicon.kwg").is_file()):
        print("autoplay speed: needs MAGPIE_DIR (a release build), CSW21.klv2 (MAGPIE_DATA or SKRAFL_CSW21_KLV2) and output/en")
        return
    sys.path.insert(0, str(PROJECT / "bench"))
    from bench_movegen import magpie_data

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        ours, text = _cpu(
            [str(PROJECT / ".venv" / "bin" / "skrafl"), "autoplay", "--lexicon", str(lex), "--rules", "wespa",
             "--leaves", str(csw21), "--p1", "equity", "--p2", "equity", "--games", str(games), "--seed", "1",
             "--workers", "1", "--out", str(tmp / "games"), "-q", "-f", "json"]
        )  # fmt: skip
        mine = json.loads(text)
        work = magpie_data(tmp / "magpie", lex / "lexicon.kwg")
        if work is None:
            return
        lexica = work / "data" / "lexica"
        shutil.copyfile(csw21, lexica / "CSW21.klv2")
        magpie = str(Path(root) / "bin" / "magpie")
        args = [magpie, "autoplay", "games", str(games), "-lex", "CSWSKRAFL", "-leaves", "CSW21", "-threads", "1",
                "-seed", "1", "-hr", "true"]  # fmt: skip
        bare, out = _cpu([*args, "-wmp", "false"], work)
        words = (lex / "words.txt").read_text(encoding="utf-8").upper()
        (lexica / "CSWSKRAFL.txt").write_text(words, encoding="utf-8")
        _cpu([magpie, "convert", "text2wordmap", "CSWSKRAFL", "-lex", "CSWSKRAFL", "-leaves", "CSW21", "-wmp", "false"], work)
        mapped, out2 = _cpu([*args, "-wmp", "true"], work)
        for o in (out, out2):
            if f"Games Played: {games}" not in o:
                raise SystemExit(f"MAGPIE did not play {games} games: {o.strip()[-300:]}")
        scores = [x for x in out.splitlines() if x.startswith("Score:")]
    print(
        f"autoplay {games} games, equity vs equity, output/en KWG + CSW21.klv2, one worker: ours {ours:.2f} CPU-s "
        f"({games / ours:.0f} games/CPU-s; mean scores {mine['p1_mean_score']}, {mine['p2_mean_score']}); "
        f"MAGPIE -wmp false {bare:.2f} CPU-s ({games / bare:.0f}/s; mean scores {', '.join(scores[0].split(':', 1)[1].split()[::2]) if scores else '?'}), "
        f"with its word map {mapped:.2f} CPU-s ({games / mapped:.0f}/s); ratio ours/MAGPIE {ours / bare:.2f} "
        f"(without the map), {ours / mapped:.2f} (with it); load average {os.getloadavg()[0]:.2f}"
    )


def main() -> None:
    parity()
    speed()


if __name__ == "__main__":
    main()
