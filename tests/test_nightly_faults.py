"""Fault injection in ``skrafl nightly``: kill -9 at the kill points of a night whose every step
runs (the lexicon copied because it changed, the day replayed into the dataset, an impact report,
elo, the run log), as ``build``'s and ``replay --dataset``'s are in tests/test_fault_injection.py.

Each run is a real ``skrafl nightly`` process under ``strace -e inject=SYSCALL:signal=KILL:when=N``
started from the same work folder (the night before rated, the lexicon then changed). After every
kill each output is the old one or the new one, whole: the dataset by every reader the README names
(:func:`test_fault_injection.dataset_state`), the kept lexicon, the impact report and the day's
ratings by their markers (every file's SHA-256) and equal to a clean run's, the day's run log absent
or whole, the night before untouched. The next run of the same night succeeds, gives the clean
run's outputs and leaves nothing else behind. The kill points: every rename and symlink and an even
sample of the others (24 in all); ``SKRAFL_FAULTS=all`` checks every point.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from clirun import PROJECT_ROOT
from lexicon_helpers import make_lexicon
from test_fault_injection import DATASET_SYSCALLS, _ptrace_works, dataset_state, kill_points, sampled, sha, skrafl

pytestmark = pytest.mark.skipif(not _ptrace_works(), reason="strace missing or ptrace not permitted here")

GCG = PROJECT_ROOT / "tests" / "fixtures" / "gcg"
DAY1, DAY2 = "2025-08-11", "2025-08-12"
CONFIG = (
    '[lexicon]\npath = "lex"\n[games]\nsource = "incoming/{date}"\n[replay]\ndataset = "data/replay"\nworkers = 1\n'
    '[elo]\nout = "data/elo"\n[impact]\nout = "data/impact"\n'
)
KEY_FILES = {
    "data/elo/" + DAY2: ("ratings.parquet", "top100_all.csv", f"history/ratings_{DAY2}.parquet"),
    "data/impact/" + DAY2: ("summary.md", "plays.parquet", "words.parquet", "winners.parquet"),
}
RANDOM_NAME = re.compile(r"\.(gen|v)-[A-Za-z0-9_]{8}")


def _night(work: Path, day: str = DAY2, inject=None, trace=None):
    return skrafl(
        ["nightly", str(work / "nightly.toml"), "--date", day, "-q"], inject=inject, trace=trace, syscalls=DATASET_SYSCALLS
    )


def _output(folder: Path, key_files: tuple[str, ...]) -> tuple[str, ...] | None:
    """The key files' hashes of the output at ``folder``, checked whole first; None if absent."""
    from gamecore.folders import open_output

    if not folder.exists() and not folder.is_symlink():
        return None
    gen = open_output(folder, checksums=True)  # raises on a missing, truncated or changed file
    return tuple(sha(gen / k) for k in key_files)


def _lexicons(work: Path) -> dict[str, tuple[str, ...]]:
    """Every kept lexicon (``WORK/lexicons/FP``), checked whole."""
    folder = work / "lexicons"
    names = sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) if folder.is_dir() else []
    return {n: _output(folder / n, ("manifest.json", "lexicon.marisa", "words.txt")) for n in names}


def night_state(work: Path) -> dict:
    """What a reader of the work folder sees, each output checked whole."""
    state = {"dataset": dataset_state(work / "data" / "replay"), "lexicons": _lexicons(work)}
    state.update({name: _output(work / name, keys) for name, keys in KEY_FILES.items()})
    state["elo " + DAY1] = _output(work / "data" / "elo" / DAY1, ("ratings.parquet",))
    state["log " + DAY1] = sha(work / "logs" / f"{DAY1}.json")
    log = work / "logs" / f"{DAY2}.json"
    state["log " + DAY2] = json.loads(log.read_text(encoding="utf-8"))["status"] if log.exists() else None
    return state


def listing(work: Path) -> list[str]:
    """Every path under ``work`` (the random part of generation and version names left out)."""
    return sorted(RANDOM_NAME.sub(r".\1-*", str(p.relative_to(work))) for p in work.rglob("*"))


@pytest.fixture(scope="module")
def nights(tmp_path_factory) -> dict:
    """A work folder after the first night (``template``: the lexicon has changed since), and the
    states and listings of the second night run cleanly from it."""
    tmp = tmp_path_factory.mktemp("nightly_faults")
    template = tmp / "template"
    for day, game in ((DAY1, "base.gcg"), (DAY2, "duplicate_names.gcg")):
        (template / "incoming" / day).mkdir(parents=True)
        shutil.copy(GCG / game, template / "incoming" / day / game)
    (template / "nightly.toml").write_text(CONFIG, encoding="utf-8")
    make_lexicon(template / "lex", ["retains", "bad", "bod"], language="en")
    r = _night(template, DAY1)
    assert r.returncode == 0, r.stderr
    make_lexicon(template / "lex", ["retains", "bod"], language="en")  # the next night's: BAD (G7 B.D) now a phony
    work = tmp / "work"  # every run in one place: the reports name their paths
    shutil.copytree(template, work, symlinks=True)
    old = night_state(work)
    trace = tmp / "trace.txt"
    r = _night(work, trace=trace)
    assert r.returncode == 0, r.stderr
    new = night_state(work)
    log = json.loads((work / "logs" / f"{DAY2}.json").read_text(encoding="utf-8"))
    assert [s["status"] for s in log["steps"]] == ["ok"] * 4  # every step ran: lexicon, replay, impact, elo
    assert log["steps"][0]["counts"]["got"] == "copied" and log["steps"][0]["counts"]["changed"]
    assert log["steps"][2]["counts"]["plays_now_phony"] == 2  # BAD in the game of each day
    assert old["dataset"] != new["dataset"] and all(old[k] is None and new[k] is not None for k in KEY_FILES)
    points = kill_points(trace, "data", syscalls=DATASET_SYSCALLS)
    return {"work": work, "template": template, "old": old, "new": new, "listing": listing(work), "points": points}


def test_kill_at_the_steps_of_a_night_leaves_each_output_old_or_new(nights) -> None:
    """kill -9 at the sampled points (every point with ``SKRAFL_FAULTS=all``): each output old or
    new and whole, then the same night again: exit 0, the clean run's outputs, no leftover (a
    killed impact's scratch folder, a kept lexicon's lock file and temporary logs included)."""
    points = nights["points"]
    assert len(points) >= 60 and {"rename", "symlink", "fsync"} <= {s for s, _ in points}, points
    old, new = nights["old"], nights["new"]
    work = nights["work"]
    landed = {"old": 0, "new": 0, "between": 0}
    failures = []
    for syscall, n in sampled(points):
        if work.exists():
            shutil.rmtree(work)
        shutil.copytree(nights["template"], work, symlinks=True)
        r = _night(work, inject=(syscall, n))
        where = (syscall, n, r.returncode, r.stderr[-500:])
        try:
            assert r.returncode in (0, -9), where
            assert "Traceback" not in r.stderr and "internal error" not in r.stderr, where
            state = night_state(work)
            for key in state:
                assert state[key] in (old[key], new[key]), (key, *where)
            if r.returncode == 0:
                assert state == new, where
            landed["old" if state == old else "new" if state == new else "between"] += 1
            # the next run of the same night takes what the kill left, succeeds and leaves nothing else
            r = _night(work)
            assert r.returncode == 0, (*where, r.stderr)
            assert night_state(work) == new, where
            left = sorted(set(listing(work)) ^ set(nights["listing"]))
            assert not left, (*where, left)
        except AssertionError as exc:
            failures.append(str(exc)[:800])
    print(f"nightly: {len(points)} kill points, {len(sampled(points))} checked, {landed}")
    assert not failures, "\n".join(failures)
    assert landed["old"] >= 1 and landed["between"] >= 1, landed
