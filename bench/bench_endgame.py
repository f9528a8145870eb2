"""The endgame solver against MAGPIE's (``skrafl endgame``, :mod:`gamecore.endgame`).

Positions: every position of the GCG games of ``../shared/corpora/gcg`` (English tile set) where the
bag is empty — the tiles neither on the board nor on the rack on turn fit on one rack — and the
game log gives the rack on turn (the opponent holds the rest), game by game in move order. Lexicon: the full-size English list of ``bench_movegen.english_words``
(english-words web2 + gcide ∪ the shared positions' lists), built once into a temporary folder;
MAGPIE reads the same KWG (``bench_movegen.magpie_data``).

Per position: our solver in-process to the end of the game (a limit of ``ENDGAME_SECONDS`` of CPU
time, default 20 s: the machine may be shared); MAGPIE's ``endgame`` with one thread (``-threads 1``, a transposition table of 2 %
of memory) at the depth our search proved (MAGPIE searches every depth up to ``-eplies`` even once
the game is solved), or 25 plies when ours did not prove it; stopped after ``MAGPIE_SECONDS`` of wall time
(default 120), or after ``MAGPIE_CPU`` CPU seconds (``MAGPIE_OPEN_CPU`` on the positions ours did not
prove; default: no CPU limit). Both keep two scoreless turns in a row
as the end of the game (see gamecore/endgame.py). Printed: per position the values (the final
spread from the side on turn's view), depth, nodes and seconds of each; then the positions, how
many have the same value, and the median search time of each: wall and CPU (ours: the solver's,
without the lexicon load; MAGPIE: its own ``time:`` and the CPU time of its whole process, the
lexicon load and its transposition table's allocation included). On a shared machine the CPU
times are the ones to compare. ``ENDGAME_LIMIT`` caps the number of positions.

``ENDGAME_SOURCE=selfplay``: the positions come from self-play instead, ``ENDGAME_GAMES`` games
(default 200) of two static-equity players (``skrafl autoplay --p1 equity --p2 equity --leaves
CSW21.klv2 --gcg --seed ENDGAME_SEED``, default seed 1, in-process) on the same lexicon, the leave
file from ``$MAGPIE_DATA/data/lexica`` or /tmp; of each game its first bag-empty position (self-play
logs both racks, so the opponent's rack is known exactly), read back from the game's GCG text as the
corpus games are.

Needs ``MAGPIE_DIR`` (a MAGPIE checkout built with ``make magpie BUILD=release``) for the comparison;
without it only our side is run.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

SHARED = Path(__file__).resolve().parents[2] / "shared"


def endgame_positions(limit: int | None = None, files: list[Path] | None = None, first_only: bool = False) -> list[dict]:
    """Bag-empty positions of the corpus games (or of ``files``), game by game in move order:
    ``game``, ``move``, ``cgp`` (racks: on turn, opponent; scores: on turn, opponent); with
    ``first_only`` only each game's first one."""
    from cli.position import game_positions
    from gamecore.errors import SkraflError

    out = []
    for f in files if files is not None else sorted((SHARED / "corpora" / "gcg").glob("*.gcg")):
        try:
            for n, pos in game_positions(f, "wespa", None):
                if pos.rack is None or pos.mover is None or pos.extra.get("kind") not in ("play", "pass"):
                    continue
                ts = pos.board.tile_set
                left = {label: ts.counts.get(label, 0) for label in ts.letters}
                left["?"] = ts.blanks
                for t, c in pos.board.used_counts().items():
                    left[t] = left.get(t, 0) - c
                for t in pos.rack:
                    left[t] = left.get(t, 0) - 1
                if any(v < 0 for v in left.values()) or len(pos.scores) != 2:
                    break
                unseen = "".join(t * c for t, c in left.items() if c > 0)
                if pos.rack and 0 < len(unseen) <= 7:
                    s = pos.scores
                    cgp = f"{pos.board.cgp_rows()} {''.join(pos.rack)}/{unseen} {s[pos.mover]}/{s[1 - pos.mover]} 0"
                    out.append({"game": f.name, "move": n, "cgp": cgp})
                    if first_only:
                        break
        except SkraflError:
            if files is not None:
                raise  # a self-play game must replay
            continue  # another tile set (Polish, German games)
    return out[:limit] if limit else out


def selfplay_positions(lexicon: Path, leaves: Path, games: int, seed: int, folder: Path) -> list[dict]:
    """Each game's first bag-empty position of ``games`` equity-v-equity self-play games (autoplay's
    library, its GCG texts written into ``folder`` and read back)."""
    from pipelines.autoplay import Config, play_games

    cfg = Config(str(lexicon), "wespa", "equity", "equity", games, seed, leaves=(str(leaves), str(leaves)), gcg=True)
    rows, texts, _ = play_games(cfg)
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for row, text in zip(rows, texts, strict=True):
        f = folder / f"game-{row['game']:06d}.gcg"
        f.write_text(text, encoding="utf-8")
        files.append(f)
    return endgame_positions(None, files, first_only=True)


def _children_cpu() -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_magpie(
    magpie: Path, work: Path, cgp: str, plies: int, timeout: float | None = None, cpu_limit: int | None = None
) -> dict | None:
    """MAGPIE's ``endgame`` at ``plies`` with one thread: ``depth``, ``seconds`` (its own), ``wall``,
    ``gain``, ``value``, ``first``; None when it runs longer than ``timeout`` wall seconds or
    ``cpu_limit`` CPU seconds (killed; the CPU limit is the fair one on a shared machine)."""
    cmd = f"cgp {cgp} -lex CSWSKRAFL -wmp false -threads 1 -eplies {plies} -ttfraction 0.02\nendgame\n"

    def limit_cpu() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 1))

    t = time.monotonic()
    cpu = _children_cpu()
    try:
        r = subprocess.run(
            [str(magpie), "set", "-mode", "sync", "-savesettings", "false"],
            input=cmd,
            capture_output=True,
            text=True,
            cwd=work,
            check=False,
            timeout=timeout,
            preexec_fn=limit_cpu if cpu_limit else None,
        )
    except subprocess.TimeoutExpired:
        return None
    wall = time.monotonic() - t
    cpu = _children_cpu() - cpu
    if cpu_limit and r.returncode < 0:  # SIGXCPU (or SIGKILL at the hard limit): out of CPU time
        return None
    text = r.stdout
    m = re.search(r"Endgame \(depth: (\d+), time: ([\d.]+)s", text)
    if r.returncode or not m:
        raise SystemExit(f"MAGPIE failed ({r.returncode}): {(text + r.stderr)[-500:]}")
    lines = text[m.end() :].splitlines()
    row = next(line for line in lines[2:] if line.strip())
    # the first cell: "pass" or "COORD WORD SCORE", then " (RACK +N)" or " (6 zeros)" where the game ends;
    # then V (the spread gained) and S (the final spread)
    v = re.match(r"^\s*((?:pass|\S+ \S+ -?\d+)(?: \([^)]*\))?)\s+(-?\d+)\s+(-?\d+)(?:\s|$)", row)
    if not v:
        raise SystemExit(f"MAGPIE's line not understood: {row!r}")
    return {
        "depth": int(m.group(1)),
        "seconds": float(m.group(2)),
        "wall": wall,
        "cpu": cpu,
        "gain": int(v.group(2)),
        "value": int(v.group(3)),
        "first": v.group(1),
    }


def main() -> None:
    from bench_movegen import english_words, magpie_data

    from gamecore.best import load_bundle
    from gamecore.board import parse_cgp
    from gamecore.endgame import Endgame
    from gamecore.rules import load_rules

    if not (SHARED / "corpora" / "gcg").is_dir():
        print("../shared/corpora/gcg is missing: endgame bench not run")
        return
    seconds = float(os.environ.get("ENDGAME_SECONDS", "20"))
    cap = float(os.environ.get("MAGPIE_SECONDS", "120"))  # wall seconds before MAGPIE is stopped
    cpu_cap = int(os.environ.get("MAGPIE_CPU", "0")) or None  # CPU seconds before MAGPIE is stopped
    # on the positions ours did not prove (MAGPIE to 25 plies): CPU seconds
    open_cap = int(os.environ.get("MAGPIE_OPEN_CPU", "0")) or cpu_cap
    limit = int(os.environ.get("ENDGAME_LIMIT", "0")) or None
    source_kind = os.environ.get("ENDGAME_SOURCE", "corpus")
    if source_kind not in ("corpus", "selfplay"):
        raise SystemExit(f"ENDGAME_SOURCE: expected corpus or selfplay, got {source_kind!r}")
    positions = endgame_positions(limit) if source_kind == "corpus" else []
    rules = load_rules("wespa")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        words, source = english_words()
        (tmp / "w.txt").write_text("\n".join(w.lower() for w in words) + "\n")
        skrafl = Path(sys.executable).with_name("skrafl")
        subprocess.run(
            [str(skrafl), "build", "en", "--source", "wordlist", "--input", str(tmp / "w.txt"), "--out", str(tmp / "lex"), "-q"],
            check=True,
        )
        bundle = load_bundle(tmp / "lex")
        work = magpie_data(tmp / "magpie", tmp / "lex" / "lexicon.kwg")
        magpie = Path(os.environ.get("MAGPIE_DIR", "."), "bin", "magpie")
        if source_kind == "selfplay":
            from bench_sim import _leave_file

            leaves = _leave_file()
            if leaves is None:
                raise SystemExit("ENDGAME_SOURCE=selfplay needs CSW21.klv2 ($MAGPIE_DATA/data/lexica or /tmp)")
            games = int(os.environ.get("ENDGAME_GAMES", "200"))
            seed = int(os.environ.get("ENDGAME_SEED", "1"))
            positions = selfplay_positions(tmp / "lex", leaves, games, seed, tmp / "selfplay")[:limit]
            print(
                f"self-play: {games} games, equity v equity, {leaves.name}, seed {seed}: {len(positions)} with a bag-empty position"
            )
        print(
            f"lexicon: {source} ({len(words):,} words); {len(positions)} bag-empty positions; our limit {seconds:g} s; MAGPIE: {'yes' if work else 'no (MAGPIE_DIR)'}"
        )
        rows = []
        for o in positions:
            c = parse_cgp(o["cgp"], rules.tiles(), rules.layout())
            eg = Endgame(c.board, c.racks, bundle.kwg, bundle.alphabet, rules, c.scores, c.zeros)
            cpu = time.process_time()
            r = eg.solve(seconds=seconds, clock=time.process_time)
            cpu = time.process_time() - cpu
            row = {
                **o,
                "ours": {
                    "value": r.value,
                    "gain": r.gain,
                    "depth": r.depth,
                    "proved": r.proved,
                    "nodes": r.nodes,
                    "seconds": r.seconds,
                    "cpu": cpu,
                    "first": r.sequence[0].text() if r.sequence else "",
                },
            }
            if work:
                # at the depth ours proved; else to 25 plies, given three times our limit
                row["magpie"] = run_magpie(
                    magpie, work, o["cgp"], r.depth if r.proved else 25, cap, cpu_cap if r.proved else open_cap
                )
            rows.append(row)
            ours, mp = row["ours"], row.get("magpie")
            line = (
                f"{o['game'][:48]:<48} #{o['move']:<3} {c.racks[0] and ''.join(c.racks[0]):>7}/{''.join(c.racks[1]):<7} "
                f"ours {ours['value']:>5} d{ours['depth']:<2}{'P' if ours['proved'] else '-'} {ours['nodes']:>9,} n {ours['seconds']:7.2f} s "
                f"cpu {ours['cpu']:6.2f}"
            )
            if work and mp is None:
                lim = cpu_cap if ours["proved"] else open_cap
                line += f" | MAGPIE: no result within {cap:g} s" + (f" wall, {lim} s CPU" if lim else "")
            elif mp:
                line += (
                    f" | MAGPIE {mp['value']:>5} d{mp['depth']:<2} {mp['seconds']:7.3f} s cpu {mp['cpu']:6.2f} "
                    f"{'same' if mp['value'] == ours['value'] else 'DIFFERENT'}"
                )
            print(line, flush=True)
        out = os.environ.get("ENDGAME_JSON")
        if out:
            Path(out).write_text(json.dumps(rows, indent=1))
    proved = [r for r in rows if r["ours"]["proved"]]
    med = statistics.median
    nan = float("nan")
    print(f"positions: {len(rows)}; proved by ours within {seconds:g} s: {len(proved)}")
    print(
        f"median search time, ours: {med(r['ours']['seconds'] for r in rows):.3f} s wall, "
        f"{med(r['ours']['cpu'] for r in rows):.3f} s CPU (all); "
        f"{med(r['ours']['seconds'] for r in proved) if proved else nan:.3f} s wall, "
        f"{med(r['ours']['cpu'] for r in proved) if proved else nan:.3f} s CPU (proved)"
    )
    if rows and "magpie" in rows[0]:
        both = [r for r in proved if r["magpie"] is not None]
        same = sum(r["magpie"]["value"] == r["ours"]["value"] for r in both)
        print(f"same value as MAGPIE: {same} of {len(both)} positions proved by ours (MAGPIE at the same depth)")
        solved = [r for r in rows if r["magpie"] is not None]
        print(
            f"the same {len(both)} positions, median: ours {med(r['ours']['seconds'] for r in both) if both else nan:.3f} s wall, "
            f"{med(r['ours']['cpu'] for r in both) if both else nan:.3f} s CPU; MAGPIE (one thread) "
            f"{med(r['magpie']['seconds'] for r in both) if both else nan:.3f} s its own time, "
            f"{med(r['magpie']['cpu'] for r in both) if both else nan:.3f} s CPU of its process; "
            f"MAGPIE without a result within {cap:g} s: {len(rows) - len(solved)}"
        )
        less = sum(r["ours"]["cpu"] < r["magpie"]["cpu"] for r in both)
        print(f"ours used less CPU than MAGPIE's process on {less} of {len(both)}")
        open_ = [r for r in rows if not r["ours"]["proved"]]
        if open_:
            print(
                f"not proved by ours: {len(open_)}; MAGPIE to 25 plies gave a result on {sum(r['magpie'] is not None for r in open_)}; "
                f"tiles on the racks (on turn/opponent): "
                + ", ".join(f"{len(r['cgp'].split()[1].split('/')[0])}/{len(r['cgp'].split()[1].split('/')[1])}" for r in open_)
            )
