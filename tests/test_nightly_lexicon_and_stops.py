"""``skrafl nightly``: the lexicon copy follows the folder named, and a stopped night says so:

- ``[lexicon] path`` switched between a build's output (``output/is``) and a tier inside it
  (``output/is/midlungur``): both got one fingerprint (that of the output's marker, which the
  tier shares), so the second night kept the first night's copy and said the lexicon had not
  changed. Now the fingerprint covers the files of the folder named, and a copy that does not
  hold them (one an older skrafl made under the shared fingerprint) is made again.
- a night stopped by SIGINT or SIGTERM left a run log whose step was still ``running``: now it is
  ``stopped`` with the signal named, and the exit status is 128 + the signal's number.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared"))
NETSKRAFL = SHARED / "corpora" / "netskrafl" / "games"
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not NETSKRAFL.exists(), reason="no corpus in ../shared")]


def _cmd(*args) -> list[str]:
    return [sys.executable, "-m", "cli.main", *map(str, args)]


def _skrafl(*args):
    """The real entry point, in this process (clirun.run_skrafl_here); the stops use processes."""
    from clirun import run_skrafl_here

    return run_skrafl_here(*map(str, args))


def _corpus_words() -> list[str]:
    """The words formed in the Netskrafl corpus's games."""
    import tempfile

    import polars as pl

    from pipelines.replay.dataset import read_table
    from pipelines.replay.jobs import ReplayOptions, run_replay_dataset

    with tempfile.TemporaryDirectory() as d:
        run_replay_dataset([str(NETSKRAFL)], Path(d) / "ds", ReplayOptions(), quiet=True)
        moves = pl.from_arrow(read_table(Path(d) / "ds", "moves"))
    return sorted(set(moves["words_formed"].explode().drop_nulls().to_list()))


def _write_lexicon(folder: Path, words: list[str]) -> None:
    import marisa_trie

    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"language": "is", "name": f"test-is-{len(words)}", "fold": {}, "words": len(words)}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    marisa_trie.Trie(words).save(str(folder / "lexicon.marisa"))
    (folder / "words.txt").write_text("".join(w + "\n" for w in words), encoding="utf-8")


def _tiered(folder: Path, full: list[str], tier: list[str]) -> None:
    """A build's output with a tier inside it, as output/is and output/is/midlungur: one marker."""
    from pipelines.atomic import output_dir

    with output_dir(folder, "build") as stage:
        _write_lexicon(stage, full)
        _write_lexicon(stage / "midlungur", tier)


def _work(tmp_path: Path) -> tuple[Path, list[str], list[str]]:
    work = tmp_path / "work"
    (work / "incoming").mkdir(parents=True)
    for f in NETSKRAFL.glob("*.json"):
        shutil.copy(f, work / "incoming")
    full = _corpus_words()
    tier = full[::2]
    _tiered(work / "lex" / "is", full, tier)
    return work, full, tier


def _config(work: Path, path: str) -> Path:
    config = work / "nightly.toml"
    config.write_text(
        f'[lexicon]\npath = "{path}"\n[games]\nsource = "incoming"\n[replay]\ndataset = "data/replay"\nworkers = 1\n'
        '[elo]\nout = "data/elo"\n[impact]\nout = "data/impact"\n',
        encoding="utf-8",
    )
    return config


def _night(work: Path, path: str, day: str) -> tuple[dict, dict]:
    r = _skrafl("nightly", _config(work, path), "--date", day, "-q")
    assert r.returncode == 0, r.stderr
    log = json.loads((work / "logs" / f"{day}.json").read_text(encoding="utf-8"))
    return {s["step"]: s for s in log["steps"]}, log


def _copied_words(work: Path, log: dict) -> list[str]:
    return (work / "lexicons" / log["lexicon"] / "words.txt").read_text(encoding="utf-8").split()


def test_switching_between_an_output_and_a_tier_inside_it_changes_the_lexicon(tmp_path):
    work, full, tier = _work(tmp_path)
    s1, log1 = _night(work, "lex/is/midlungur", "2025-08-11")
    assert s1["lexicon"]["counts"]["got"] == "copied" and s1["lexicon"]["counts"]["words"] == len(tier)
    assert _copied_words(work, log1) == tier
    # to the whole output: another fingerprint, a copy of it, changed, the impact step runs
    s2, log2 = _night(work, "lex/is", "2025-08-12")
    assert log2["lexicon"] != log1["lexicon"]
    assert s2["lexicon"]["counts"]["got"] == "copied" and s2["lexicon"]["counts"]["changed"] is True
    assert s2["lexicon"]["counts"]["words"] == len(full) and _copied_words(work, log2) == full
    assert s2["impact"]["status"] == "ok"
    assert (work / "data" / "impact" / "2025-08-12" / "summary.md").exists()
    # and back: the tier's copy is kept, and it is a change again
    s3, log3 = _night(work, "lex/is/midlungur", "2025-08-13")
    assert log3["lexicon"] == log1["lexicon"] and s3["lexicon"]["counts"]["got"] == "kept"
    assert s3["lexicon"]["counts"]["changed"] is True and s3["lexicon"]["counts"]["words"] == len(tier)
    assert s3["impact"]["status"] == "ok"
    # the same lexicon the next night: kept, unchanged
    s4, log4 = _night(work, "lex/is/midlungur", "2025-08-14")
    assert log4["lexicon"] == log1["lexicon"] and s4["lexicon"]["counts"]["got"] == "kept"
    assert s4["lexicon"]["counts"]["changed"] is False and s4["impact"]["status"] == "skipped"


def test_a_copy_that_holds_another_lexicon_is_copied_again(tmp_path):
    # An older skrafl gave the tier the whole output's fingerprint and copied the tier under it:
    # that copy must not be kept for the whole output.
    from pipelines.atomic import output_dir
    from pipelines.nightly import lexicon_fingerprint, load_config

    work, full, tier = _work(tmp_path)
    fp = lexicon_fingerprint(load_config(_config(work, "lex/is")))[:16]
    with output_dir(work / "lexicons" / fp, "nightly-lexicon") as stage:
        _write_lexicon(stage, tier)
    s1, log1 = _night(work, "lex/is", "2025-08-11")
    assert log1["lexicon"] == fp and s1["lexicon"]["counts"]["got"] == "copied"
    assert s1["lexicon"]["counts"]["words"] == len(full) and _copied_words(work, log1) == full
    s2, _ = _night(work, "lex/is", "2025-08-12")
    assert s2["lexicon"]["counts"]["got"] == "kept"


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(c) for c in text.split()]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc (Linux)")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_night_stopped_during_the_lexicon_build_says_so_in_its_log(tmp_path, signum):
    """Stopped while 'skrafl build' runs (the signal to the nightly process only, as cron's or a
    service manager's stop may be): the run log marks the lexicon step stopped, naming the
    signal; the exit status is 128 + its number; the build was stopped too and left no stage."""
    work = tmp_path / "work"
    (work / "incoming").mkdir(parents=True)
    for f in NETSKRAFL.glob("*.json"):
        shutil.copy(f, work / "incoming")
    rnd = random.Random(7)
    letters = "aábdðeéfghiíjklmnoóprstuúvxyýþæö"
    words = sorted({"".join(rnd.choice(letters) for _ in range(rnd.randint(4, 10))) for _ in range(150_000)})
    (work / "words.txt").write_text("".join(w + "\n" for w in words), encoding="utf-8")
    config = work / "nightly.toml"
    config.write_text(
        '[lexicon]\nlang = "is"\nsource = "wordlist"\ninput = "words.txt"\n[games]\nsource = "incoming"\n'
        '[replay]\ndataset = "data/replay"\n[elo]\nout = "data/elo"\n',
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        _cmd("nightly", config, "--date", "2026-11-30", "-q"), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        build = None
        while build is None and time.monotonic() < deadline and proc.poll() is None:
            build = next((c for c in _children(proc.pid) if " build " in _cmdline(c)), None)
            time.sleep(0.01)
        assert build is not None, "the build did not start"
        time.sleep(0.5)  # the build is under way
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err, err
    log = json.loads((work / "logs" / "2026-11-30.json").read_text(encoding="utf-8"))
    assert log["status"] == "failed" and log["exit"] == 128 + signum
    assert [s["step"] for s in log["steps"]] == ["lexicon"]
    step = log["steps"][0]
    assert step["status"] == "stopped" and step["error"] == f"stopped by {signal.Signals(signum).name}", step
    assert not Path(f"/proc/{build}").exists() or "zombie" in Path(f"/proc/{build}/status").read_text().lower()
    lexicons = work / "lexicons"
    assert not lexicons.exists() or [p.name for p in lexicons.iterdir()] == [], list(lexicons.iterdir())
