"""What killed or failed ``impact`` and ``nightly`` runs leave, and a full disk: a killed impact left its scratch folder ``.skrafl-impact-*`` (a full copy of the replayed
games) beside its output; the next run of the command removes it (never a running one's). A full
disk is named as the output, not the scratch folder. The nightly's temporary run logs of killed
runs are removed by the next run; a run that failed on a lock held by a run of the same day is
kept in the day's log when that run ends ok; a log that cannot be written is one line."""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lexicon_helpers import make_lexicon

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared"))
NETSKRAFL = SHARED / "corpora" / "netskrafl" / "games"
ENGLISH = SHARED / "corpora" / "gcg" / "domino14_macondo__gcgio_testdata_doug_v_emely.gcg"
WORDS = ["windy", "gale", "aw", "li", "en"]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (NETSKRAFL.exists() and ENGLISH.exists()), reason="no corpora in ../shared"),
]


def _cmd(*args) -> list[str]:
    return [sys.executable, "-m", "cli.main", *map(str, args)]


def _skrafl(*args):
    return subprocess.run(_cmd(*args), capture_output=True, text=True, cwd=ROOT)


def _scratch(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".skrafl-impact-"))


def test_a_killed_impact_leaves_no_scratch_after_the_next_run(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    for i in range(30):  # 300 games: the replay into the scratch folder takes a while
        for f in NETSKRAFL.glob("*.json"):
            shutil.copy(f, games / f"{i}-{f.name}")
    old = make_lexicon(tmp_path / "old", ["létta", "árum"])
    new = make_lexicon(tmp_path / "new", ["árum"])
    work = tmp_path / "work"
    work.mkdir()
    args = ("impact", "--old", old, "--new", new, games, "--out", work / "out", "-q")
    proc = subprocess.Popen(_cmd(*args), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not _scratch(work) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(0.3)  # well into the replay
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -9
    left = _scratch(work)
    assert len(left) == 1 and not (work / "out").exists()  # what the issue saw
    # a running impact's scratch (its lock held) is never taken
    busy = work / ".skrafl-impact-busy"
    busy.mkdir()
    fd = os.open(busy / ".skrafl-scratch.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        r = _skrafl(*args)
        assert r.returncode == 0, r.stderr
        assert _scratch(work) == [".skrafl-impact-busy"] and (work / "out" / "summary.md").exists()
    finally:
        os.close(fd)
    r = _skrafl(*args)
    assert r.returncode == 0, r.stderr
    assert _scratch(work) == []


def _mount_tmpfs(path: Path, size: str) -> bool:
    path.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "skrafl-test", str(path)], capture_output=True)
    return r.returncode == 0


def _fill(small: Path, leave: int) -> Path:
    filler = small / "filler"
    st = os.statvfs(small)
    with open(filler, "wb") as fh:
        fh.write(b"\0" * max(0, st.f_bavail * st.f_frsize - leave))
    return filler


def test_disk_full_in_impact_names_the_output(tmp_path):
    small = tmp_path / "small"
    if not _mount_tmpfs(small, "1m"):
        pytest.skip("cannot mount a small tmpfs here (not root?)")
    try:
        old = make_lexicon(tmp_path / "old", WORDS, language="en")
        new = make_lexicon(tmp_path / "new", WORDS[1:], language="en")
        _fill(small, 6 * 1024)
        out = small / "out"
        r = _skrafl("impact", "--old", old, "--new", new, ENGLISH, "--out", out, "-q")
        assert r.returncode == 2 and "Traceback" not in r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"skrafl: error: {out}: no space left"), r.stderr
        assert sorted(p.name for p in small.iterdir()) == ["filler"]  # no scratch, no output
    finally:
        subprocess.run(["umount", "-l", str(small)], capture_output=True)


def _nightly_setup(work: Path) -> Path:
    (work / "incoming" / "2025-08-11").mkdir(parents=True)
    shutil.copy(ENGLISH, work / "incoming" / "2025-08-11")
    make_lexicon(work / "lex", WORDS, language="en")
    config = work / "nightly.toml"
    config.write_text(
        '[lexicon]\npath = "lex"\n[games]\nsource = "incoming/{date}"\n[replay]\ndataset = "data/replay"\n'
        '[elo]\nout = "data/elo"\n',
        encoding="utf-8",
    )
    return config


def test_nightly_tidies_the_temporary_logs_of_killed_runs(tmp_path):
    work = tmp_path / "work"
    config = _nightly_setup(work)
    (work / "logs").mkdir()
    dead = work / "logs" / ".2025-08-10.json.tmp-99999999"  # no such process (above any pid_max)
    alive = work / "logs" / f".2025-08-10.json.tmp-{os.getpid()}"  # a run still writing
    dead.write_text("{", encoding="utf-8")
    alive.write_text("{", encoding="utf-8")
    r = _skrafl("nightly", config, "--date", "2025-08-11", "-q")
    assert r.returncode == 0, r.stderr
    assert not dead.exists() and alive.exists()
    assert sorted(p.name for p in (work / "logs").iterdir() if ".tmp-" not in p.name) == [".lock", "2025-08-11.json"]


def test_a_run_that_lost_the_lock_is_kept_in_the_log(tmp_path):
    from pipelines.nightly import _write_log

    work = tmp_path / "work"
    config = _nightly_setup(work)
    # a run of the day holds the dataset's lock (simulated): this one fails on it, and says so
    (work / "data").mkdir()
    fd = os.open(work / "data" / ".replay.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        r = _skrafl("nightly", config, "--date", "2025-08-11", "-q")
    finally:
        os.close(fd)
    assert r.returncode == 2 and "another skrafl run is writing" in r.stderr, r.stderr
    failed = json.loads((work / "logs" / "2025-08-11.json").read_text(encoding="utf-8"))
    assert failed["status"] == "failed" and "another skrafl run is writing" in failed["steps"][1]["error"]
    # the run that held the lock started before it and ends ok: the failed attempt is kept
    day = dt.date(2025, 8, 11)
    holder = {"date": "2025-08-11", "status": "ok", "exit": 0, "started": "2000-01-01T00:00:00.000000Z", "steps": []}
    assert _write_log(work, day, holder) is None
    log = json.loads((work / "logs" / "2025-08-11.json").read_text(encoding="utf-8"))
    assert log["status"] == "ok" and len(log["failed_attempts"]) == 1
    assert log["failed_attempts"][0]["started"] == failed["started"] and log["failed_attempts"][0]["status"] == "failed"
    # a later run ok: a failure before it started is not its concern (the log is replaced whole)
    r = _skrafl("nightly", config, "--date", "2025-08-11", "-q")
    assert r.returncode == 0, r.stderr
    log = json.loads((work / "logs" / "2025-08-11.json").read_text(encoding="utf-8"))
    assert log["status"] == "ok" and "failed_attempts" not in log


def test_disk_full_in_nightly_is_one_line_naming_the_output(tmp_path):
    small = tmp_path / "small"
    if not _mount_tmpfs(small, "4m"):
        pytest.skip("cannot mount a small tmpfs here (not root?)")
    try:
        work = small / "work"
        config = _nightly_setup(work)
        r = _skrafl("nightly", config, "--date", "2025-08-11", "-q")
        assert r.returncode == 0, r.stderr
        (work / "incoming" / "2025-08-12").mkdir()
        for f in NETSKRAFL.glob("*.json"):
            shutil.copy(f, work / "incoming" / "2025-08-12")
        before = (work / "logs" / "2025-08-11.json").read_bytes()
        filler = _fill(small, 2 * 1024)
        r = _skrafl("nightly", config, "--date", "2025-08-12", "-q")
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "no space left" in lines[0], r.stderr
        assert str(work / "data" / "replay") in lines[0] or str(work / "logs" / "2025-08-12.json") in lines[0], r.stderr
        assert "internal error" not in lines[0]
        assert not [p for p in (work / "logs").iterdir() if ".tmp-" in p.name]
        assert (work / "logs" / "2025-08-11.json").read_bytes() == before
        filler.unlink()
        r = _skrafl("nightly", config, "--date", "2025-08-12", "-q")
        assert r.returncode == 0, r.stderr
    finally:
        subprocess.run(["umount", "-l", str(small)], capture_output=True)
