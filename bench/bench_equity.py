"""Static equity against MAGPIE (issue 25): ``skrafl best --leaves CSW21.klv2 --all -f json`` on the
parity positions of tests/fixtures/leaves/positions.tsv (the shared positions' boards and word lists,
and an endgame made from mid2), compared with MAGPIE's complete move list for the same position, KWG
and leave file; and the time of each.

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
    return [dict(zip(head, x.split("\t"))) for x in lines[1:] if x.strip()]


def _stored(name: str) -> list[tuple]:
    text = gzip.decompress((LEAVES / "reference" / f"{name}.tsv.gz").read_bytes()).decode("utf-8")
    return [tuple(x.split("\t")) for x in text.splitlines()[1:]]


def main() -> None:
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


if __name__ == "__main__":
    main()
