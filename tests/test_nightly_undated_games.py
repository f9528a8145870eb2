"""``skrafl nightly``: games without a time of their own, and a stop during the replay step:

- one GCG file (a game without a time of its own) in a dated folder ``incoming/2025-08-12`` broke
  every later night: replay put it in ``part=src-2025-08-12``, which no later night replaced, and
  elo, finding one game without a time, dropped the times of all (``--date needs finished_at
  times, and this games table has none``). Now a game without a time read from a day's folder is
  a game of that day (``part=2025-08-12``, rated at the end of that UTC day); the ``src-DAY``
  partition an older skrafl left is removed when that day's folder is read again; and a table of
  games with and without times rates the ones with times in time order and skips the others with
  a warning naming the first.
- stopped by SIGTERM during the replay step, ``nightly`` exited 130 and printed nothing (typer
  turned the replay's own stop into a silent exit 130): now 128 + the signal's number and the one
  line ``skrafl: stopped by SIGTERM``, as in every other step and command.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from lexicon_helpers import make_lexicon

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared"))
NETSKRAFL = SHARED / "corpora" / "netskrafl" / "games"
GCG = SHARED / "corpora" / "gcg" / "domino14_macondo__gcgio_testdata_doug_v_emely.gcg"
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not (NETSKRAFL.exists() and GCG.exists()), reason="no corpus in ../shared")]


def _cmd(*args) -> list[str]:
    return [sys.executable, "-m", "cli.main", *map(str, args)]


def _skrafl(*args):
    """The real entry point, in this process (clirun.run_skrafl_here); the stops use processes."""
    from clirun import run_skrafl_here

    return run_skrafl_here(*map(str, args))


def _words() -> list[str]:
    import tempfile

    from pipelines.replay.dataset import read_table
    from pipelines.replay.jobs import ReplayOptions, run_replay_dataset

    with tempfile.TemporaryDirectory() as d:
        run_replay_dataset([str(NETSKRAFL)], Path(d) / "ds", ReplayOptions(), quiet=True)
        moves = pl.from_arrow(read_table(Path(d) / "ds", "moves"))
    return sorted(set(moves["words_formed"].explode().drop_nulls().to_list()))


@pytest.fixture(scope="module")
def words() -> list[str]:
    return _words()


def _dated(tmp_path: Path, words: list[str]) -> tuple[Path, Path]:
    """The trial's folders: incoming/2025-08-11 (the Netskrafl records, all finished that day),
    incoming/2025-08-12 (one GCG file), incoming/2025-08-13 (empty)."""
    work = tmp_path / "night3"
    for d in ("2025-08-11", "2025-08-12", "2025-08-13"):
        (work / "incoming" / d).mkdir(parents=True)
    for f in NETSKRAFL.glob("*.json"):
        shutil.copy(f, work / "incoming" / "2025-08-11")
    shutil.copy(GCG, work / "incoming" / "2025-08-12")
    make_lexicon(work / "lex" / "is", words)
    config = work / "n.toml"
    config.write_text(
        '[lexicon]\npath = "lex/is"\n[games]\nsource = "incoming/{date}"\n[replay]\ndataset = "data/replay"\n'
        '[elo]\nout = "data/elo"\n',
        encoding="utf-8",
    )
    return work, config


def _parts(work: Path) -> list[str]:
    return sorted(p.name for p in (work / "data" / "replay" / "games").iterdir() if not p.name.startswith("."))


def _gcg_final_scores() -> dict[str, int]:
    """The final score of each player of the GCG file: the total on their last line."""
    final: dict[str, int] = {}
    for line in GCG.read_text(encoding="utf-8").splitlines():
        if line.startswith(">"):
            who = line[1:].split(":", 1)[0]
            final[who] = int(line.split()[-1])
    return final


def test_a_gcg_file_in_a_days_folder_is_rated_that_night(tmp_path, words):
    work, config = _dated(tmp_path, words)
    r = _skrafl("nightly", config, "--date", "2025-08-11", "-q")
    assert r.returncode == 0, r.stderr
    r = _skrafl("nightly", config, "--date", "2025-08-12", "-q")
    assert r.returncode == 0, r.stderr
    # the GCG game is a game of its folder's day: that day's partition, its own time left empty
    assert _parts(work) == ["part=2025-08-11", "part=2025-08-12"]
    games = pl.read_parquet(work / "data" / "replay" / "games" / "part=2025-08-12" / "data.parquet")
    assert games["file"].to_list() == [str(work / "incoming" / "2025-08-12" / GCG.name)]
    assert games["finished_at"].to_list() == [None]
    # rated that night, at the end of that UTC day
    out = work / "data" / "elo" / "2025-08-12"
    processed = pl.read_parquet(out / "processed.parquet")
    assert processed.height == 1 and processed["game_id"][0].startswith(GCG.name)
    assert processed["finished_at"][0].isoformat() == "2025-08-12T23:59:59.999999+00:00"
    # the rules: two beginners from 1200, expected 0.5 each, K 32: the winner +16, the loser -16
    final = _gcg_final_scores()
    winner, loser = sorted(final, key=final.get, reverse=True)
    ratings = pl.read_parquet(out / "ratings.parquet").filter(pl.col("list") == "all")
    assert dict(zip(ratings["player"], ratings["rating"], strict=True)) == {winner: 1216, loser: 1184}
    log = json.loads((work / "logs" / "2025-08-12.json").read_text(encoding="utf-8"))
    elo = next(s for s in log["steps"] if s["step"] == "elo")
    assert elo["counts"]["rated"] == 1
    assert any("end of their partition's UTC day" in n and GCG.name in n for n in elo["notes"]), elo["notes"]
    # the next nights carry on
    (work / "incoming" / "2025-08-12" / GCG.name).unlink()
    for day in ("2025-08-13", "2025-08-14"):
        (work / "incoming" / day).mkdir(exist_ok=True)
        r = _skrafl("nightly", config, "--date", day, "-q")
        assert r.returncode == 0, (day, r.stderr)
    # and elo over the whole dataset keeps time order (no "file order" for all)
    r = _skrafl("elo", "--games", work / "data" / "replay", "--out", tmp_path / "elo-all")
    assert r.returncode == 0, r.stderr
    assert "file order" not in r.stderr and "as of 2025-08-12T23:59:59.999999Z" in r.stderr, r.stderr


def test_a_night_that_failed_on_a_gcg_file_does_not_poison_the_next(tmp_path, words):
    """The dataset of an older skrafl: the GCG file of incoming/2025-08-12 in part=src-2025-08-12
    (as 'skrafl replay --dataset' of that folder still writes it), night 2025-08-12 failed. The
    next night reads 2025-08-12's folder again (the GCG file now removed): the stale partition goes
    with it, and the night rates."""
    work, config = _dated(tmp_path, words)
    assert _skrafl("nightly", config, "--date", "2025-08-11", "-q").returncode == 0
    dataset = work / "data" / "replay"
    r = _skrafl("replay", "--dataset", dataset, work / "incoming" / "2025-08-12", "--lexicon", work / "lex" / "is", "-q")
    assert r.returncode == 0, r.stderr
    # (the folder's name and its path's digest: two folders of one name never share a partition)
    parts = _parts(work)
    assert parts[0] == "part=2025-08-11" and parts[1].startswith("part=src-2025-08-12-") and len(parts) == 2
    (work / "incoming" / "2025-08-12" / GCG.name).unlink()
    r = _skrafl("nightly", config, "--date", "2025-08-13", "-q")
    assert r.returncode == 0, r.stderr
    assert _parts(work) == ["part=2025-08-11"]
    log = json.loads((work / "logs" / "2025-08-13.json").read_text(encoding="utf-8"))
    replay = next(s for s in log["steps"] if s["step"] == "replay")
    assert replay["counts"]["since"] == "2025-08-12" and [
        p for p in replay["counts"]["removed"] if p.startswith("src-2025-08-12")
    ]
    assert (work / "data" / "elo" / "2025-08-13" / "ratings.parquet").exists()


def test_elo_rates_the_games_with_times_and_names_the_one_without(tmp_path, words):
    """A replay dataset of games with times and one without (part=src-…, from 'skrafl replay
    --dataset'): the message counts the games without a time and names the first; --date works
    on the others (it said the table had no times at all)."""
    dataset = tmp_path / "ds"
    lex = make_lexicon(tmp_path / "lex", words)
    r = _skrafl("replay", "--dataset", dataset, NETSKRAFL, GCG, "--lexicon", lex, "-q")
    assert r.returncode == 0, r.stderr
    n = len(list(NETSKRAFL.glob("*.json")))
    r = _skrafl("elo", "--games", dataset, "--out", tmp_path / "e1")
    assert r.returncode == 0, r.stderr
    # without --date the game without a time is rated after those with times, in file order
    assert "1 game(s) without a finished_at (a GCG file without #finished-at or #date) rated in file order" in r.stderr, r.stderr
    assert f"first: '{GCG.name}#" in r.stderr, r.stderr
    r = _skrafl("elo", "--games", dataset, "--out", tmp_path / "e2", "--date", "2025-08-11", "--catch-up")
    assert r.returncode == 0, r.stderr
    assert f"1 of {n + 1} replayed game(s) skipped: no finished_at" in r.stderr, r.stderr  # --date: its day is unknown
    assert f"first: '{GCG.name}#" in r.stderr and f"the other {n} are rated in time order" in r.stderr, r.stderr
    assert "this games table has none" not in r.stderr


def test_elo_date_on_a_table_without_any_time_says_how_many(tmp_path, words):
    dataset = tmp_path / "ds"
    lex = make_lexicon(tmp_path / "lex", words)
    assert _skrafl("replay", "--dataset", dataset, GCG, "--lexicon", lex, "-q").returncode == 0
    r = _skrafl("elo", "--games", dataset, "--out", tmp_path / "e", "--date", "2025-08-11")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "none of this table's 1 game(s) has one" in lines[0] and GCG.name in lines[0], r.stderr


# --- a stop during the replay step ---------------------------------------------------------------


@pytest.fixture(scope="module")
def big_night(tmp_path_factory, words) -> Path:
    """A day's folder of 15,000 Netskrafl records (1,500 copies of the corpus under new names):
    a replay of several seconds."""
    work = tmp_path_factory.mktemp("big") / "work"
    day = work / "incoming" / "2025-08-11"
    day.mkdir(parents=True)
    files = sorted(NETSKRAFL.glob("*.json"))
    for i in range(1500):
        for f in files:
            shutil.copyfile(f, day / f"{i:04d}_{f.name}")  # copies: a hard link is the same game, read once
    make_lexicon(work / "lex" / "is", words)
    return work


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc (Linux)")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_night_stopped_during_the_replay_says_so_in_one_line(big_night, tmp_path, signum):
    work = tmp_path / "work"
    work.mkdir()
    (work / "incoming").symlink_to(big_night / "incoming")
    config = work / "nightly.toml"
    config.write_text(
        f'[lexicon]\npath = "{big_night / "lex" / "is"}"\n[games]\nsource = "incoming/{{date}}"\n'
        '[replay]\ndataset = "data/replay"\n[elo]\nout = "data/elo"\n',
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        _cmd("nightly", config, "--date", "2025-08-11", "-q"), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        dataset = work / "data" / "replay"
        while time.monotonic() < deadline and proc.poll() is None:
            if dataset.is_dir() and any(p.name.startswith(".spool-") for p in dataset.iterdir()):
                break  # the replay is writing its spool
            time.sleep(0.01)
        time.sleep(0.3)
        assert proc.poll() is None, "the night ended before the signal: make the input bigger"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    name = signal.Signals(signum).name
    assert proc.returncode == 128 + signum, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"skrafl: stopped by {name}"), err
    log = json.loads((work / "logs" / "2025-08-11.json").read_text(encoding="utf-8"))
    assert log["status"] == "failed" and log["exit"] == 128 + signum
    replay = next(s for s in log["steps"] if s["step"] == "replay")
    assert replay["status"] == "stopped" and replay["error"] == f"stopped by {name}", replay
    assert not (work / "data" / "elo").exists()
