"""Time ``replay --dataset`` locally (``--workers 2``) and on a Dask ``LocalCluster`` of 2 worker
processes: games/s, peak RSS per process, and the cluster's overhead against the local
processes. Targets: peak RSS ≤ 1 GiB per process at 1M games; cluster overhead ≤ 15 % at 100k.

Input: generated Netskrafl records — the 10 corpus games copied under new ``game_id``s, their
``ts_last_move`` spread over days (``BENCH_CLUSTER_PER_DAY`` games a day, default 1,000), so the
dataset has realistic day partitions. Sizes: ``BENCH_CLUSTER_GAMES`` (default ``10000,100000``);
``BENCH_CLUSTER_BIG=1`` adds 1,000,000 (about 5 GB of files and half an hour on 2 cores).

Each case runs in a fresh process. Peak RSS: the client (``getrusage(RUSAGE_SELF)``), the largest
local worker (``RUSAGE_CHILDREN``), the largest Dask worker (``VmHWM`` of each worker process,
read by the worker itself at the end), all in MiB. The cluster's start-up (about 2 s) is not
counted; the run is the whole of ``run_replay_dataset`` (replay, spool, partitions, commit).
Both runs give byte-identical datasets (checked).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared" / "corpora" / "netskrafl" / "games"


def generate(folder: Path, games: int, per_day: int) -> Path:
    """``games`` Netskrafl records in ``folder`` (1,000 per subfolder), new ids and dates."""
    sources = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(SHARED.glob("*.json"))]
    start = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(games):
        rec = dict(sources[i % len(sources)])
        rec["game_id"] = f"bench-{i:08d}"
        when = start + dt.timedelta(days=i // per_day, seconds=(i % per_day) * 60)
        rec["ts_last_move"] = when.isoformat()
        sub = folder / f"{i // 1000:05d}"
        if i % 1000 == 0:
            sub.mkdir(exist_ok=True)
        (sub / f"game_{rec['game_id']}.json").write_text(json.dumps(rec, ensure_ascii=False), encoding="utf-8")
    return folder


_MEASURE = r"""
import json, resource, sys, time
from pipelines.replay.jobs import ReplayOptions, run_replay_dataset
mode, folder, out = sys.argv[1], sys.argv[2], sys.argv[3]
worker_peak = None
client_cpu0 = 0.0
if mode == "cluster":
    from distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40)
    address = cluster.scheduler_address
    def cpu0():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime
    with Client(address) as c:
        start_cpu = c.run(cpu0)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    client_cpu0 = r0.ru_utime + r0.ru_stime
    t0 = time.perf_counter()
    s = run_replay_dataset([folder], out, ReplayOptions(), quiet=True, cluster=address)
    wall = time.perf_counter() - t0
    def hwm():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime
    with Client(address) as c:
        worker_peak = max(c.run(hwm).values())
        worker_cpu = sum(c.run(cpu).values()) - sum(start_cpu.values())
    cluster.close()
else:
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    client_cpu0 = r0.ru_utime + r0.ru_stime
    t0 = time.perf_counter()
    s = run_replay_dataset([folder], out, ReplayOptions(), quiet=True, workers=2)
    wall = time.perf_counter() - t0
    worker_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    worker_cpu = c.ru_utime + c.ru_stime
me = resource.getrusage(resource.RUSAGE_SELF)
client_cpu = me.ru_utime + me.ru_stime - client_cpu0
print(json.dumps({"games": s["games"], "partitions": len(s["partitions"]), "wall": wall, "cpu": worker_cpu + client_cpu, "worker_cpu": worker_cpu,
                  "client": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "worker": worker_peak}))
"""


def _measure(mode: str, folder: Path, out: Path) -> dict:
    res = subprocess.run(
        [sys.executable, "-c", _MEASURE, mode, str(folder), str(out)], cwd=PROJECT, capture_output=True, text=True
    )
    if res.returncode != 0:
        raise RuntimeError(res.stderr.strip().splitlines()[-1] if res.stderr.strip() else f"exit {res.returncode}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def _same(a: Path, b: Path) -> bool:
    if (a / "dataset.json").read_bytes() != (b / "dataset.json").read_bytes():
        return False
    for table in ("games", "moves"):
        for p in (a / table).iterdir():
            if (p / "data.parquet").read_bytes() != (b / table / p.name / "data.parquet").read_bytes():
                return False
    return True


def main() -> None:
    if not SHARED.is_dir():
        print("skipped: no Netskrafl corpus in ../shared")
        return
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("skipped: Dask not installed (pip install 'skrafl[cluster]')")
        return
    sizes = [int(x) for x in os.environ.get("BENCH_CLUSTER_GAMES", "10000,100000").split(",") if x.strip()]
    if os.environ.get("BENCH_CLUSTER_BIG") == "1" and 1_000_000 not in sizes:
        sizes.append(1_000_000)
    per_day = int(os.environ.get("BENCH_CLUSTER_PER_DAY", "1000"))
    print(f"load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} CPUs; {per_day} games a day")
    for games in sizes:
        tmp = Path(tempfile.mkdtemp(prefix="skrafl-bench-cluster-"))
        try:
            folder = generate(tmp / "games", games, per_day)
            local = _measure("local", folder, tmp / "local")
            cluster = _measure("cluster", folder, tmp / "cluster")
            same = _same(tmp / "local", tmp / "cluster")
            over = cluster["wall"] / local["wall"] - 1
            over_cpu = cluster["cpu"] / local["cpu"] - 1
            for name, r in (("local --workers 2", local), ("LocalCluster 2", cluster)):
                print(
                    f"{games:>9,} games {name:<18} {r['games'] / r['wall']:>8,.0f} games/s  {r['wall']:>7.1f} s  "
                    f"{r['games'] / r['cpu']:>6,.0f} games/CPU-s  {r['partitions']} partitions  "
                    f"peak RSS client {r['client'] / 1024:>6.0f} MiB, worker {r['worker'] / 1024:>6.0f} MiB"
                )
            print(
                f"{games:>9,} games CPU s: local workers {local['worker_cpu']:.1f} + parent {local['cpu'] - local['worker_cpu']:.1f}; cluster workers {cluster['worker_cpu']:.1f} + client and scheduler {cluster['cpu'] - cluster['worker_cpu']:.1f}"
            )
            print(
                f"{games:>9,} games cluster overhead {over * 100:+.1f} % wall, {over_cpu * 100:+.1f} % CPU (target ≤ 15 % at 100k); "
                f"identical datasets: {same}; load average now {os.getloadavg()[0]:.2f}",
                flush=True,
            )
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
