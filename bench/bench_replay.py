"""Time ``skrafl replay``: games per second, without a lexicon and with one, single process and
``--workers 2``. Target: ≥ 1,000 games/s per core without ``--analyze``.

Cases (each file copied ``BENCH_REPLAY_COPIES`` times, default 40):

- ``no lexicon``: the shared corpora, 52 GCG files and 10 Netskrafl records;
- ``lexicon is``: the 10 Netskrafl records, every word checked in the Icelandic lexicon
  (``output/is``, when built): the nightly job of a Netskrafl maintainer;
- ``lexicon en``: the 52 GCG files with the English lexicon (``output/en``, when built).

Each line gives the wall-clock rate and the rate per CPU-second (the CPU time of the parent and its
workers together: the per-core rate, whatever else the machine runs), the best of
``BENCH_REPLAY_REPEATS`` runs (default 3). The load average is printed too. On this project's
shared 2-core machines the speed of a core changes by up to 1.6x from minute to minute; the best of
a few runs is the machine's own speed. A run is the whole of ``run_replay``: replaying, converting
to Arrow and writing ``games.parquet``/``moves.parquet`` into a temporary output.

``replay --analyze`` (the best play of every turn, one analyzer per game in the worker
processes; target ≥ 10× the 20 games/s of before, per core): the 52 GCG files with ``output/en``
and the 10 Netskrafl records with ``output/is``, each copied ``BENCH_ANALYZE_COPIES`` times
(default 10), 1 and 2 workers, games/s and games per CPU-second.

A whole ``skrafl replay FILE`` process (target: ≤ 4× MAGPIE loading the same file): one GCG file
of the corpus with the lexicon it names (``output/en``), median wall time after a warm-up, beside
the floor of any such process (``python -c "import typer, pyarrow.parquet"``: the CLI framework and
the Parquet writer) and, with ``MAGPIE_DIR`` (see bench_best), a whole MAGPIE process loading the
same file (``load FILE -lex CSWSKRAFL -wmp false``, our KWG as CSWSKRAFL).

Then memory and stops:

- ``memory``: peak RSS of the parent and of the largest worker (``getrusage``: ``RUSAGE_SELF`` and
  ``RUSAGE_CHILDREN`` in a fresh process per case) replaying 10,000 and 100,000 games (the corpora
  copied under new names into a temporary folder), with 1 and 2 workers: flat, whatever the
  number of games (target: 1M games within 1 GiB). ``BENCH_REPLAY_BIG=0`` skips the 100,000 case
  (about a minute and 500 MB of files).
- ``stop``: ``skrafl replay --workers 2`` on the 10,000 games, SIGTERM once its workers run: time
  until the parent has exited (143) and every worker is gone; then the same after ``kill -9`` of
  the parent (workers gone).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared" / "corpora"


def _copies(files: list[Path], tmp: Path, copies: int) -> list[str]:
    out = []
    for i in range(copies):
        for f in files:
            dst = tmp / f"{i:03d}_{f.name}"
            if not dst.exists():
                shutil.copy(f, dst)
            out.append(str(dst))
    return out


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the pool's workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _run(files: list[str], opts, workers: int, repeats: int, out: Path) -> tuple[float, float, int]:
    """Best wall-clock and best CPU time over ``repeats`` runs, and the events replayed."""
    from pipelines.replay import run_replay

    best_wall = best_cpu = float("inf")
    events = 0
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), _cpu()
        summary = run_replay(files, out, opts, workers=workers, quiet=True)
        best_wall, best_cpu = min(best_wall, time.perf_counter() - t0), min(best_cpu, _cpu() - c0)
        events = summary["moves"]
    return best_wall, best_cpu, events


def _folder(sources: list[Path], tmp: Path, games: int) -> Path:
    """``games`` files in a new folder: the sources in turn under new names (hard links where the
    file system allows, else copies)."""
    d = tmp / f"games{games}"
    d.mkdir()
    for i in range(games):
        f = sources[i % len(sources)]
        dst = d / f"{i // len(sources):05d}_{f.name}"
        try:
            os.link(f, dst)
        except OSError:
            shutil.copy(f, dst)
    return d


_MEASURE = """
import json, resource, sys, time
from pipelines.replay import ReplayOptions, run_replay
t0 = time.perf_counter()
s = run_replay([sys.argv[1]], sys.argv[2], ReplayOptions(), workers=int(sys.argv[3]), quiet=True)
wall = time.perf_counter() - t0
print(json.dumps({"games": s["games"], "wall": wall, "parent": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "workers": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def _memory(folder: Path, out: Path, workers: int) -> dict:
    """Replay ``folder`` in a fresh process; its peak RSS (KiB) and that of its largest worker."""
    res = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(folder), str(out), str(workers)],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


def _children(pid: int) -> set[int]:
    kids: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids.update(int(k) for k in (task / "children").read_text().split())
        except OSError:
            pass
    return kids


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _stop(folder: Path, out: Path, how: str) -> tuple[float, float, int | None]:
    """Seconds from the signal until the parent exited and until its workers were gone, and the
    parent's exit status (``how``: ``term`` or ``kill``)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "replay", str(folder), "--out", str(out), "--workers", "2", "--quiet"],
        cwd=PROJECT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: set[int] = set()
    deadline = time.monotonic() + 60
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        workers = _children(proc.pid)
        time.sleep(0.01)
    time.sleep(0.5)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM if how == "term" else signal.SIGKILL)
    proc.wait(timeout=30)
    parent = time.monotonic() - t0
    while any(_alive(p) for p in workers) and time.monotonic() - t0 < 30:
        time.sleep(0.005)
    return parent, time.monotonic() - t0, proc.returncode


def _trust(sources: list[Path], tmp: Path) -> None:
    sizes = [10_000] + ([100_000] if os.environ.get("BENCH_REPLAY_BIG", "1") != "0" else [])
    for games in sizes:
        folder = _folder(sources, tmp, games)
        for workers in (1, 2):
            m = _memory(folder, tmp / "out-memory", workers)
            extra = f", largest worker {m['workers'] / 1024:,.0f} MB" if workers > 1 else ""
            print(
                f"replay memory {games:>7,} games workers={workers}: parent peak RSS {m['parent'] / 1024:,.0f} MB{extra}; "
                f"{m['games'] / m['wall']:,.0f} games/s",
                flush=True,
            )
        if games == sizes[0] and Path("/proc/self/task").is_dir():
            for how in ("term", "kill"):
                parent, gone, code = _stop(folder, tmp / "out-stop", how)
                what = (
                    f"SIGTERM: parent exited ({code}) after {parent * 1000:,.0f} ms"
                    if how == "term"
                    else f"kill -9 of the parent ({code})"
                )
                print(f"replay stop {what}, every worker gone after {gone * 1000:,.0f} ms", flush=True)
        shutil.rmtree(folder)
    if len(sizes) == 1:
        print("replay memory: 100,000 games skipped (BENCH_REPLAY_BIG=0)")


def main() -> None:
    from pipelines.replay import ReplayOptions, run_replay

    if not SHARED.is_dir():
        print("bench_replay: ../shared absent, skipped")
        return
    copies = int(os.environ.get("BENCH_REPLAY_COPIES", "40"))
    repeats = int(os.environ.get("BENCH_REPLAY_REPEATS", "3"))
    gcg = sorted((SHARED / "gcg").glob("*.gcg"))
    records = sorted((SHARED / "netskrafl" / "games").glob("*.json"))
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cases = [("no lexicon", gcg + records, None)]
        for lang, files in (("is", records), ("en", gcg)):
            lexdir = PROJECT / "output" / lang
            if (lexdir / "lexicon.marisa").is_file():
                cases.append((f"lexicon {lang}", files, str(lexdir)))
            else:
                print(f"replay: lexicon {lang} skipped (output/{lang} not built)")
        print(
            f"replay: {copies} copies of each file, best of {repeats} runs; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        )
        for label, sources, lex in cases:
            files = _copies(sources, tmp, copies)
            opts = ReplayOptions(lexicon_dir=lex)
            run_replay(files[: len(sources)], tmp / "out", opts, workers=1, quiet=True)  # warm up (imports, lexicon load)
            single = None
            for workers in (1, 2):
                wall, cpu, events = _run(files, opts, workers, repeats, tmp / "out")
                extra = ""
                if workers == 1:
                    single = wall
                else:
                    extra = f", {single / wall:.2f}x one process"
                print(
                    f"replay {label:10s} workers={workers}: {len(files):,} games, {len(files) / wall:,.0f} games/s "
                    f"({events / wall:,.0f} events/s), {len(files) / cpu:,.0f} games per CPU-second{extra}; "
                    f"load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
        _analyze(gcg, records, tmp)
        _one_file(gcg, tmp)
        _one_file_served(gcg, tmp)
        _trust(gcg + records, tmp)


def _analyze(gcg: list[Path], records: list[Path], tmp: Path) -> None:
    from pipelines.replay import ReplayOptions, run_replay

    copies = int(os.environ.get("BENCH_ANALYZE_COPIES", "10"))
    repeats = int(os.environ.get("BENCH_REPLAY_REPEATS", "3"))
    for lang, sources in (("en", gcg), ("is", records)):
        lexdir = PROJECT / "output" / lang
        if not (lexdir / "lexicon.kwg").is_file():
            print(f"replay --analyze: lexicon {lang} skipped (output/{lang} not built)")
            continue
        files = _copies(sources, tmp, copies)
        opts = ReplayOptions(lexicon_dir=str(lexdir), analyze=True)
        run_replay(files[: len(sources)], tmp / "out", opts, workers=1, quiet=True)  # warm up
        for workers in (1, 2):
            wall, cpu, events = _run(files, opts, workers, repeats, tmp / "out")
            print(
                f"replay --analyze {lang} workers={workers}: {len(files):,} games, {len(files) / wall:,.0f} games/s "
                f"({events / wall:,.0f} events/s), {len(files) / cpu:,.0f} games per CPU-second; "
                f"load {os.getloadavg()[0]:.1f}",
                flush=True,
            )


def _median_process(run, n: int = 9) -> tuple[float, float]:
    """Median and minimum wall seconds of ``run()`` over ``n`` runs after a warm-up."""
    import statistics

    run()
    walls = []
    for _ in range(n):
        t = time.perf_counter()
        run()
        walls.append(time.perf_counter() - t)
    return statistics.median(walls), min(walls)


def _one_file(gcg: list[Path], tmp: Path) -> None:
    """A whole 'skrafl replay FILE' process, its floor, and MAGPIE loading the same file."""
    name = "domino14_macondo__gcgio_testdata_doug_v_emely.gcg"
    game = next((f for f in gcg if f.name == name), gcg[0] if gcg else None)
    if game is None:
        return
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    ours = _median_process(
        lambda: subprocess.run(
            [sys.executable, "-m", "cli.main", "replay", str(game), "--out", str(tmp / "one"), "-q"],
            capture_output=True,
            cwd=PROJECT,
            env=env,
        )
    )
    floor = _median_process(
        lambda: subprocess.run([sys.executable, "-c", "import typer, pyarrow.parquet"], capture_output=True, env=env)
    )
    line = (
        f"whole 'skrafl replay FILE' ({game.name}, lexicon it names): median {ours[0] * 1000:.0f} ms "
        f"(min {ours[1] * 1000:.0f}); floor 'import typer, pyarrow.parquet' {floor[0] * 1000:.0f} ms"
    )
    mag = _magpie_load(game, tmp)
    if mag is not None:
        line += f"; MAGPIE loading it {mag[0] * 1000:.0f} ms: {ours[0] / mag[0]:.1f}× (target ≤ 4×)"
    print(line, flush=True)


def _one_file_served(gcg: list[Path], tmp: Path) -> None:
    """A whole 'skrafl replay FILE --out D' client process against a 'skrafl serve' the bench
    starts (imports paid there), the same without the server, bare Python, and MAGPIE loading it."""
    try:
        from bench.processes import Served, served_vs_cold
    except ImportError:  # run as a script: bench/ is on the path
        from processes import Served, served_vs_cold
    name = "domino14_macondo__gcgio_testdata_doug_v_emely.gcg"
    game = next((f for f in gcg if f.name == name), gcg[0] if gcg else None)
    if game is None:
        return
    lexicon = PROJECT / "output" / "en"
    preload = ["--preload", str(lexicon)] if (lexicon / "lexicon.kwg").is_file() else []
    with Served(tmp, *preload) as server:
        t = served_vs_cold(server, ["replay", str(game), "--out", str(tmp / "served"), "-q"], 15, ok=(0, 1))
    (sw, sc), (kc, _), (cw, cc), (bw, _) = t["served"], t["served_server_cpu"], t["cold"], t["bare"]
    line = (
        f"served 'skrafl replay FILE' ({game.name}): {sw * 1000:.0f} ms wall (cpu {sc * 1000:.0f} client + "
        f"{kc * 1000:.0f} server), cold {cw * 1000:.0f} ms (cpu {cc * 1000:.0f}), bare python {bw * 1000:.0f} ms: "
        f"served {sw / bw:.1f}× bare"
    )
    mag = _magpie_load(game, tmp)
    if mag is not None:
        line += f"; MAGPIE loading it {mag[0] * 1000:.0f} ms: served {sw / mag[0]:.1f}×, cold {cw / mag[0]:.1f}× (target ≤ 4×)"
    print(line, flush=True)


def _magpie_load(game: Path, tmp: Path) -> tuple[float, float] | None:
    """A whole MAGPIE process loading ``game`` with our English KWG (``MAGPIE_DIR``), or None."""
    root = os.environ.get("MAGPIE_DIR")
    kwg = PROJECT / "output" / "en" / "lexicon.kwg"
    if not root or not Path(root, "bin", "magpie").is_file() or not kwg.is_file():
        return None
    try:
        from bench.bench_movegen import magpie_data
    except ImportError:  # run as a script: bench/ is on the path
        from bench_movegen import magpie_data
    work = magpie_data(tmp / "magpie", kwg)
    if work is None:
        return None
    cmd = [str(Path(root, "bin", "magpie")), "set", "-mode", "sync", "-savesettings", "false"]
    commands = f"load {game} -lex CSWSKRAFL -wmp false\n"
    r = subprocess.run(cmd, input=commands, capture_output=True, text=True, cwd=work)
    if r.returncode or "(error" in r.stdout + r.stderr:
        print(f"MAGPIE could not load {game.name}: {(r.stdout + r.stderr).strip()[:200]}")
        return None
    return _median_process(lambda: subprocess.run(cmd, input=commands, capture_output=True, text=True, cwd=work))


def _served_only() -> None:
    import tempfile

    shared = PROJECT.parent / "shared" / "corpora" / "gcg"
    if not shared.is_dir():
        print("bench_replay: ../shared absent, skipped")
        return
    with tempfile.TemporaryDirectory() as tmp:
        _one_file_served(sorted(shared.glob("*.gcg")), Path(tmp))


if __name__ == "__main__":
    if sys.argv[1:] == ["served"]:  # only the long-running mode's figure
        _served_only()
    else:
        main()
