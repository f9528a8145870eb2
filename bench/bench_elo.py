"""Benchmark ``skrafl elo``: 1,000,000 synthetic games between 10,000 players → ratings.

Target: ≤ 5 s and ≤ 1 GiB peak memory on a 2-core machine, for the whole job (read the
Parquet games table, rate the three lists, write the output folder). The job runs in a child
process so its peak resident memory (``ru_maxrss`` from ``os.wait4``) is its own.

Run: ``python -m bench elo`` (or ``make bench`` for all benchmarks).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

N_GAMES = 1_000_000
N_PLAYERS = 10_000
ROBOTS = ("Fullsterkur", "Miðlungur", "Amlóði")
TARGET_SECONDS = 5.0
TARGET_BYTES = 1 << 30

_CHILD = """
import sys, time
t0 = time.perf_counter()
from pipelines.elo import run_elo
run = run_elo(sys.argv[1], sys.argv[2], quiet=True)
print(f"{time.perf_counter() - t0:.3f} {run.games_rated}")
"""


def make_games(path: Path, n_games: int = N_GAMES, n_players: int = N_PLAYERS, seed: int = 5) -> None:
    """Write a synthetic games table (Parquet): a year of games, ~25% against the three robots,
    ~20% of human games in competition mode, skill-driven results, some draws and 0–0 games."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(seed)
    humans = np.array([f"user{i:05d}" for i in range(n_players)])
    skill = rng.normal(0, 1, n_players)
    activity = rng.pareto(1.5, n_players) + 1  # a few players play a lot
    p = activity / activity.sum()
    a = rng.choice(n_players, n_games, p=p)
    b = rng.choice(n_players, n_games, p=p)
    b = np.where(a == b, (b + 1) % n_players, b)
    vs_robot = rng.random(n_games) < 0.25
    robot = rng.integers(0, len(ROBOTS), n_games)
    robot_skill = np.array([1.0, 0.0, -1.0])[robot]
    sb = np.where(vs_robot, robot_skill, skill[b])
    s0 = np.clip(rng.normal(380 + 40 * skill[a], 60), 0, None).astype(np.int64)
    s1 = np.clip(rng.normal(380 + 40 * sb, 60), 0, None).astype(np.int64)
    draws = rng.random(n_games) < 0.01
    s1 = np.where(draws, s0, s1)
    zero = rng.random(n_games) < 0.001
    s0 = np.where(zero, 0, s0)
    s1 = np.where(zero, 0, s1)
    robot_first = vs_robot & (rng.random(n_games) < 0.5)
    name_a = humans[a]
    name_b = np.where(vs_robot, np.array(ROBOTS)[robot], humans[b])
    start = np.datetime64("2024-01-01T00:00:00", "us")
    t = start + np.sort(rng.integers(0, 365 * 86_400_000_000, n_games)).astype("timedelta64[us]")
    frame = pl.DataFrame(
        {
            "game_id": [f"g{i:07d}" for i in range(n_games)],
            "finished_at": pl.Series(t).dt.replace_time_zone("UTC"),
            "player0": np.where(robot_first, name_b, name_a),
            "player1": np.where(robot_first, name_a, name_b),
            "robot0": robot_first,
            "robot1": vs_robot & ~robot_first,
            "score0": np.where(robot_first, s1, s0),
            "score1": np.where(robot_first, s0, s1),
            "competition": ~vs_robot & (rng.random(n_games) < 0.2),
        }
    )
    # Shuffle the rows: the job must sort them itself.
    frame = frame.sample(fraction=1.0, shuffle=True, seed=seed)
    frame.write_parquet(path)


def main() -> None:
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="bench_elo_") as tmp:
        games = Path(tmp) / "games.parquet"
        t0 = time.perf_counter()
        make_games(games)
        print(
            f"synthetic games: {N_GAMES:,} games, {N_PLAYERS:,} players + {len(ROBOTS)} robots "
            f"({time.perf_counter() - t0:.1f} s to generate, {games.stat().st_size / 1e6:.1f} MB)"
        )
        out = Path(tmp) / "out"
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(games), str(out)], cwd=root, stdout=subprocess.PIPE, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        inner, rated = proc.stdout.read().split()
        proc.stdout.close()
        if status != 0:
            raise SystemExit(f"elo job failed (status {status})")
        peak = usage.ru_maxrss * 1024  # kilobytes on Linux
        cpu = usage.ru_utime + usage.ru_stime
        ok_t = "OK" if wall <= TARGET_SECONDS else "OVER"
        ok_m = "OK" if peak <= TARGET_BYTES else "OVER"
        print(
            f"elo: {int(rated):,} games rated in {wall:.2f} s wall incl. start-up ({float(inner):.2f} s in the job) "
            f"[target {TARGET_SECONDS:.0f} s: {ok_t}]"
        )
        print(f"elo: peak memory {peak / 2**20:.0f} MiB [target {TARGET_BYTES / 2**30:.0f} GiB: {ok_m}]")
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(
            f"elo: CPU time {cpu:.2f} s (job + its list worker process); load average {load:.2f} on "
            f"{os.cpu_count()} CPUs (other work on the machine slows the wall time)"
        )


if __name__ == "__main__":
    main()
