"""skrafl nightly: a simulated run of several nights: day 2 changes the lexicon, day 3
repeats day 2 (nothing changes), a later night catches up; the expected partitions, ratings equal
to one run from scratch, and the run logs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from lexicon_helpers import make_lexicon

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared"))
NETSKRAFL = SHARED / "corpora" / "netskrafl" / "games"
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not NETSKRAFL.exists(), reason="no corpus in ../shared")]


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


def _snapshot(work: Path) -> dict[str, bytes]:
    """Every file the nightly outputs hold (through their visible links), logs left out."""
    out = {}
    for top in ("data",):
        for dirpath, dirnames, filenames in os.walk(work / top, followlinks=True):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if name.startswith("."):
                    continue
                p = Path(dirpath) / name
                out[p.relative_to(work).as_posix()] = p.read_bytes()
    return out


@pytest.fixture
def setup(tmp_path):
    work = tmp_path / "work"
    (work / "incoming").mkdir(parents=True)
    for f in NETSKRAFL.glob("*.json"):
        shutil.copy(f, work / "incoming")
    words = _words()
    make_lexicon(work / "lex" / "is", words)
    config = work / "nightly.toml"
    config.write_text(
        '[lexicon]\npath = "lex/is"\n[games]\nsource = "incoming"\n[replay]\ndataset = "data/replay"\nworkers = 1\n'
        '[elo]\nout = "data/elo"\n[impact]\nout = "data/impact"\n',
        encoding="utf-8",
    )
    return work, config, words


def test_three_nights(setup):
    work, config, words = setup
    from pipelines.replay.dataset import read_manifest

    # night 1
    r = _skrafl("nightly", config, "--date", "2025-08-11", "-q")
    assert r.returncode == 0, r.stderr
    log1 = json.loads((work / "logs" / "2025-08-11.json").read_text(encoding="utf-8"))
    assert log1["status"] == "ok" and log1["exit"] == 0
    assert [s["step"] for s in log1["steps"]] == ["lexicon", "replay", "impact", "elo"]
    assert [s["status"] for s in log1["steps"]] == ["ok", "ok", "skipped", "ok"]
    assert all({"inputs", "outputs", "counts", "seconds"} <= set(s) for s in log1["steps"])
    assert log1["steps"][1]["counts"]["games"] == 6 and log1["steps"][1]["counts"]["partitions"] == ["2025-08-11"]
    assert list(read_manifest(work / "data" / "replay")["partitions"]) == ["2025-08-11"]
    assert (work / "data" / "elo" / "2025-08-11" / "top100_all.csv").exists()
    # path mode: the lexicon built elsewhere is copied, not built (the log said "built": true)
    assert log1["steps"][0]["counts"]["built"] is False and log1["steps"][0]["counts"]["got"] == "copied"

    # night 2: the committee removes 'létta' (played on 2025-08-11)
    make_lexicon(work / "lex" / "is", [w for w in words if w != "létta"])
    r = _skrafl("nightly", config, "--date", "2025-08-12", "-q")
    assert r.returncode == 0, r.stderr
    log2 = json.loads((work / "logs" / "2025-08-12.json").read_text(encoding="utf-8"))
    steps = {s["step"]: s for s in log2["steps"]}
    assert steps["lexicon"]["counts"]["changed"] is True and log2["lexicon"] != log1["lexicon"]
    assert steps["impact"]["status"] == "ok" and steps["impact"]["counts"]["plays_now_phony"] >= 1
    impact = pl.read_parquet(work / "data" / "impact" / "2025-08-12" / "words.parquet")
    assert impact["word"].to_list() == ["létta"]
    assert list(read_manifest(work / "data" / "replay")["partitions"]) == ["2025-08-11", "2025-08-12"]
    before = _snapshot(work)

    # night 3: day 2 again: nothing changes
    r = _skrafl("nightly", config, "--date", "2025-08-12", "-q")
    assert r.returncode == 0, r.stderr
    log3 = json.loads((work / "logs" / "2025-08-12.json").read_text(encoding="utf-8"))
    steps3 = {s["step"]: s for s in log3["steps"]}
    assert steps3["replay"]["counts"]["partitions"] == [] and steps3["replay"]["counts"]["unchanged"] == ["2025-08-12"]
    assert steps3["lexicon"]["counts"]["built"] is False and steps3["lexicon"]["counts"]["got"] == "kept"
    assert _snapshot(work) == before

    # a later night with days without a run between: caught up; ratings = one run from scratch
    r = _skrafl("nightly", config, "--date", "2025-08-16", "-q")
    assert r.returncode == 0, r.stderr
    log4 = json.loads((work / "logs" / "2025-08-16.json").read_text(encoding="utf-8"))
    assert log4["steps"][1]["counts"]["since"] == "2025-08-13" and log4["steps"][1]["counts"]["partitions"] == ["2025-08-16"]
    assert list(read_manifest(work / "data" / "replay")["partitions"]) == ["2025-08-11", "2025-08-12", "2025-08-16"]
    nightly = pl.read_parquet(work / "data" / "elo" / "2025-08-16" / "ratings.parquet").sort("list", "player")
    scratch = _elo_from_scratch(work / "data" / "replay", work / "scratch", nightly)
    # the corpus's records name no players: no game is rated as the seats player0 and player1
    assert "player0" not in nightly["player"].to_list() and nightly.equals(scratch)
    assert log4["steps"][3]["counts"]["unnamed"] == 2  # the games of 2025-08-16, taken up, not rated


def test_failed_step_keeps_outputs(setup):
    work, config, _words_ = setup
    r = _skrafl("nightly", config, "--date", "2025-08-11", "-q")
    assert r.returncode == 0, r.stderr
    before = _snapshot(work)
    bad = work / "bad.toml"
    bad.write_text(
        config.read_text(encoding="utf-8").replace('source = "incoming"', 'source = "missing/{date}"'), encoding="utf-8"
    )
    r = _skrafl("nightly", bad, "--date", "2025-08-12", "-q")
    assert r.returncode == 2
    assert "replay" in r.stderr and "missing/2025-08-12" in r.stderr
    log = json.loads((work / "logs" / "2025-08-12.json").read_text(encoding="utf-8"))
    assert log["status"] == "failed" and log["exit"] == 2
    assert [(s["step"], s["status"]) for s in log["steps"]] == [("lexicon", "ok"), ("replay", "failed")]
    assert "missing/2025-08-12" in log["steps"][1]["error"]
    assert _snapshot(work) == before
    r = _skrafl("nightly", work / "nope.toml")
    assert r.returncode == 2 and "no such config" in r.stderr


def _lang_mode(tmp_path: Path, lang: str, words: list[str]) -> tuple[Path, Path]:
    """A work folder of the Netskrafl games and a lang-mode config building ``words.txt``."""
    work = tmp_path / "work"
    (work / "incoming").mkdir(parents=True)
    for f in NETSKRAFL.glob("*.json"):
        shutil.copy(f, work / "incoming")
    (work / "words.txt").write_text("".join(w + "\n" for w in words), encoding="utf-8")
    config = work / "nightly.toml"
    config.write_text(
        f'[lexicon]\nlang = "{lang}"\nsource = "wordlist"\ninput = "words.txt"\n[games]\nsource = "incoming"\n'
        '[replay]\ndataset = "data/replay"\n[elo]\nout = "data/elo"\n[impact]\nout = "data/impact"\n',
        encoding="utf-8",
    )
    return work, config


def test_lexicon_rebuilt_only_when_its_input_changes(tmp_path):
    """lang mode: the lexicon is built by 'skrafl build' when no lexicon of its recipe and input
    exists yet; the same input the next night is not built again; a changed input is, and the
    impact step runs."""
    work, config = _lang_mode(tmp_path, "is", ["köttur", "hundur", "hestur"])

    def night(day):
        r = _skrafl("nightly", config, "--date", day, "-q")
        assert r.returncode == 0, r.stderr
        log = json.loads((work / "logs" / f"{day}.json").read_text(encoding="utf-8"))
        return {s["step"]: s for s in log["steps"]}, log

    s1, log1 = night("2025-08-11")
    assert s1["lexicon"]["counts"]["built"] is True and s1["lexicon"]["counts"]["changed"] is False
    assert s1["lexicon"]["counts"]["got"] == "built"
    assert (work / "lexicons" / log1["lexicon"] / "lexicon.marisa").exists()
    s2, log2 = night("2025-08-12")
    assert s2["lexicon"]["counts"]["built"] is False and log2["lexicon"] == log1["lexicon"]
    assert s2["impact"]["status"] == "skipped"
    (work / "words.txt").write_text("köttur\nhundur\n", encoding="utf-8")
    s3, log3 = night("2025-08-13")
    assert s3["lexicon"]["counts"]["built"] is True and s3["lexicon"]["counts"]["changed"] is True
    assert log3["lexicon"] != log2["lexicon"] and s3["impact"]["status"] == "ok"
    assert (work / "data" / "impact" / "2025-08-13" / "summary.md").exists()


def test_impact_step_refuses_games_of_another_language(tmp_path):
    """An English lexicon rebuilt over Icelandic Netskrafl games (locale is_IS): the impact step
    fails, naming both languages, rather than report that no play changed (every play is a phony
    under both lexicons); the night fails and swaps no impact output in."""
    work, config = _lang_mode(tmp_path, "en", ["cat", "dog", "horse"])
    assert _skrafl("nightly", config, "--date", "2025-08-11", "-q").returncode == 0
    (work / "words.txt").write_text("cat\ndog\n", encoding="utf-8")
    r = _skrafl("nightly", config, "--date", "2025-08-12", "-q")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    log = json.loads((work / "logs" / "2025-08-12.json").read_text(encoding="utf-8"))
    steps = {s["step"]: s for s in log["steps"]}
    assert steps["impact"]["status"] == "failed", steps
    assert "'is' (locale is_IS)" in steps["impact"]["error"] and "'en'" in steps["impact"]["error"]
    assert not (work / "data" / "impact" / "2025-08-12").exists()


def test_a_failed_night_is_made_up_by_the_next(setup):
    """Night 2 fails (its games folder is missing); night 3 replays day 2's games too, and the
    ratings equal one run from scratch."""
    work, config, _words_ = setup
    r = _skrafl("nightly", config, "--date", "2025-08-11", "-q")
    assert r.returncode == 0, r.stderr
    bad = work / "bad.toml"
    bad.write_text(config.read_text(encoding="utf-8").replace('source = "incoming"', 'source = "missing"'), encoding="utf-8")
    assert _skrafl("nightly", bad, "--date", "2025-08-12", "-q").returncode == 2
    r = _skrafl("nightly", config, "--date", "2025-08-16", "-q")
    assert r.returncode == 0, r.stderr
    log = json.loads((work / "logs" / "2025-08-16.json").read_text(encoding="utf-8"))
    assert log["steps"][1]["counts"]["since"] == "2025-08-12"
    assert log["steps"][1]["counts"]["partitions"] == ["2025-08-12", "2025-08-16"]
    a = pl.read_parquet(work / "data" / "elo" / "2025-08-16" / "ratings.parquet").sort("list", "player")
    assert a.equals(_elo_from_scratch(work / "data" / "replay", work / "scratch", a))


# ---------------------------------------------------------------------------------------------
# the documented layout incoming/{date}: one folder per UTC day


def _finished_day(path: Path) -> str:
    record = json.loads(path.read_text(encoding="utf-8"))
    return record["ts_last_move"][:10]  # the corpus's records are in UTC (+00:00)


@pytest.fixture
def dated(tmp_path):
    """The corpus's games sorted into incoming/YYYY-MM-DD by the UTC day each finished (6 on
    2025-08-11, 2 on 2025-08-12, 2 on 2025-08-16) and a config with source = "incoming/{date}"."""
    work = tmp_path / "work"
    days: dict[str, int] = {}
    for f in sorted(NETSKRAFL.glob("*.json")):
        day = _finished_day(f)
        (work / "incoming" / day).mkdir(parents=True, exist_ok=True)
        shutil.copy(f, work / "incoming" / day)
        days[day] = days.get(day, 0) + 1
    assert days == {"2025-08-11": 6, "2025-08-12": 2, "2025-08-16": 2}
    make_lexicon(work / "lex" / "is", _words())
    config = work / "nightly.toml"
    config.write_text(
        '[lexicon]\npath = "lex/is"\n[games]\nsource = "incoming/{date}"\n[replay]\ndataset = "data/replay"\nworkers = 1\n'
        '[elo]\nout = "data/elo"\n',
        encoding="utf-8",
    )
    return work, config


def _from_scratch(work: Path) -> pl.DataFrame:
    """The expected ratings, not through nightly: every game file replayed by 'skrafl replay'
    into one folder, rated by 'skrafl elo' in one run."""
    files = sorted((work / "incoming").rglob("*.json"))
    r = _skrafl("replay", *files, "--lexicon", work / "lex" / "is", "--out", work / "scratch-replay", "-q")
    assert r.returncode == 0, r.stderr
    day = next(p for p in sorted((work / "data" / "elo").iterdir()) if not p.name.startswith("."))
    like = pl.read_parquet(day / "ratings.parquet")
    return _elo_from_scratch(work / "scratch-replay", work / "scratch-elo", like)


def _elo_from_scratch(games: Path, out: Path, like: pl.DataFrame) -> pl.DataFrame:
    """The ratings of one 'skrafl elo' run over ``games``. The corpus's records name no players:
    when none of the games can be rated that run is refused (exit 2, 'nothing rated', since
    5850bed), and the ratings expected are none (``like``'s columns, no row)."""
    r = _skrafl("elo", "--games", games, "--out", out, "-q")
    if r.returncode == 2 and "nothing rated" in r.stderr and "the record names no players" in r.stderr:
        return like.clear()
    assert r.returncode == 0, r.stderr
    return pl.read_parquet(out / "ratings.parquet").sort("list", "player")


def _log(work: Path, day: str) -> dict:
    return json.loads((work / "logs" / f"{day}.json").read_text(encoding="utf-8"))


def test_missed_nights_read_every_day_folder(dated):
    """incoming/{date}, nights 2025-08-12 to 2025-08-15 not run: the night of 2025-08-16 reads the
    folder of every day since 2025-08-12 (2025-08-13 and 2025-08-14 quiet days with an empty
    folder, 2025-08-15 without a folder, allowed by missing_days = "empty"); the ratings equal
    'skrafl replay' + 'skrafl elo' over every game, and no game is late."""
    work, config = dated
    config.write_text(
        config.read_text(encoding="utf-8").replace("[replay]", 'missing_days = "empty"\n[replay]'), encoding="utf-8"
    )
    (work / "incoming" / "2025-08-13").mkdir()
    (work / "incoming" / "2025-08-14").mkdir()
    r = _skrafl("nightly", config, "--date", "2025-08-11", "-q")
    assert r.returncode == 0, r.stderr
    assert _log(work, "2025-08-11")["steps"][1]["counts"]["partitions"] == ["2025-08-11"]
    r = _skrafl("nightly", config, "--date", "2025-08-16", "-q")
    assert r.returncode == 0, r.stderr
    log = _log(work, "2025-08-16")
    assert log["status"] == "ok"
    replay = log["steps"][1]
    assert replay["counts"]["since"] == "2025-08-12" and replay["counts"]["until"] == "2025-08-16"
    assert replay["counts"]["partitions"] == ["2025-08-12", "2025-08-16"] and replay["counts"]["games"] == 4
    assert replay["counts"]["empty_days"] == ["2025-08-13", "2025-08-14"]
    assert replay["counts"]["missing_days"] == ["2025-08-15"]
    assert [Path(p).name for p in replay["inputs"][:-1]] == ["2025-08-12", "2025-08-13", "2025-08-14", "2025-08-16"]
    assert any("2025-08-15" in n and "missing_days" in n for n in replay["notes"])
    assert any("2025-08-13" in n for n in replay["notes"])
    elo = log["steps"][3]["counts"]
    # the corpus's records carry no player ids (docs/NETSKRAFL.md §1): the night's 4 games
    # are taken up, and left unrated rather than rated as the seats player0 and player1
    assert elo["rated"] + elo["unnamed"] == 4 and elo["unnamed"] == 4 and elo["late"] == 0
    params = json.loads((work / "data" / "elo" / "2025-08-16" / "params.json").read_text(encoding="utf-8"))
    assert params["days_rated"]["last"] == "2025-08-16"
    nightly = pl.read_parquet(work / "data" / "elo" / "2025-08-16" / "ratings.parquet").sort("list", "player")
    scratch = _from_scratch(work)
    assert "player0" not in nightly["player"].to_list()
    assert nightly.equals(scratch)


def test_missing_day_folder_fails_the_night_by_default(dated):
    """A day of the window without its folder (a failed upload?) fails the replay step with one
    line naming the days; nothing is rated, so the next night (once the folders are there) still
    rates those days."""
    work, config = dated
    assert _skrafl("nightly", config, "--date", "2025-08-11", "-q").returncode == 0
    before = _snapshot(work)
    r = _skrafl("nightly", config, "--date", "2025-08-16", "-q")
    assert r.returncode == 2
    line = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(line) == 1 and "replay" in line[0]
    assert "2025-08-13" in line[0] and "2025-08-14" in line[0] and "2025-08-15" in line[0] and "2025-08-12" not in line[0]
    assert "missing_days" in line[0]
    log = _log(work, "2025-08-16")
    assert log["status"] == "failed" and [(s["step"], s["status"]) for s in log["steps"]] == [
        ("lexicon", "ok"),
        ("replay", "failed"),
    ]
    assert log["steps"][1]["counts"]["missing_days"] == ["2025-08-13", "2025-08-14", "2025-08-15"]
    assert _snapshot(work) == before
    # the uploads arrive (quiet days: empty folders): the same night rates 2025-08-12 to 2025-08-16
    for day in ("2025-08-13", "2025-08-14", "2025-08-15"):
        (work / "incoming" / day).mkdir()
    r = _skrafl("nightly", config, "--date", "2025-08-16", "-q")
    assert r.returncode == 0, r.stderr
    assert _log(work, "2025-08-16")["steps"][1]["counts"]["partitions"] == ["2025-08-12", "2025-08-16"]
    nightly = pl.read_parquet(work / "data" / "elo" / "2025-08-16" / "ratings.parquet").sort("list", "player")
    assert nightly.equals(_from_scratch(work))


def test_a_day_without_games(dated):
    """An empty incoming/D is a day without games: rated as such (the ratings as the night
    before, days rated up to D), noted in the run log; exit 0."""
    work, config = dated
    assert _skrafl("nightly", config, "--date", "2025-08-12", "-q").returncode == 0
    (work / "incoming" / "2025-08-13").mkdir()
    r = _skrafl("nightly", config, "--date", "2025-08-13", "-q")
    assert r.returncode == 0, r.stderr
    log = _log(work, "2025-08-13")
    assert log["status"] == "ok"
    replay = log["steps"][1]
    assert replay["counts"]["games"] == 0 and replay["counts"]["empty_days"] == ["2025-08-13"]
    assert any("2025-08-13" in n and "no game" in n for n in replay["notes"])
    assert log["steps"][3]["status"] == "ok" and log["steps"][3]["counts"]["rated"] == 0
    params = json.loads((work / "data" / "elo" / "2025-08-13" / "params.json").read_text(encoding="utf-8"))
    assert params["days_rated"]["last"] == "2025-08-13"
    a = pl.read_parquet(work / "data" / "elo" / "2025-08-12" / "ratings.parquet").sort("list", "player")
    b = pl.read_parquet(work / "data" / "elo" / "2025-08-13" / "ratings.parquet").sort("list", "player")
    assert a.equals(b)
    # the next night: 2025-08-14 has no folder (the night fails), then the folders are there
    assert _skrafl("nightly", config, "--date", "2025-08-14", "-q").returncode == 2
    (work / "incoming" / "2025-08-14").mkdir()
    (work / "incoming" / "2025-08-15").mkdir()
    assert _skrafl("nightly", config, "--date", "2025-08-16", "-q").returncode == 0
    nightly = pl.read_parquet(work / "data" / "elo" / "2025-08-16" / "ratings.parquet").sort("list", "player")
    assert nightly.equals(_from_scratch(work))


def test_a_first_night_without_games(dated):
    """The very first night has an empty folder: an empty dataset, ratings of nobody, the day
    rated; the next night rates its games on top (as one run from scratch over them)."""
    work, config = dated
    first = work / "first"
    (first / "quiet" / "2025-08-11").mkdir(parents=True)
    conf = first / "nightly.toml"
    conf.write_text(config.read_text(encoding="utf-8").replace('"lex/is"', '"../lex/is"').replace("incoming/", "quiet/"))
    r = _skrafl("nightly", conf, "--date", "2025-08-11", "-q")
    assert r.returncode == 0, r.stderr
    log = _log(first, "2025-08-11")
    assert log["steps"][1]["counts"]["games"] == 0 and log["steps"][1]["counts"]["empty_days"] == ["2025-08-11"]
    assert pl.read_parquet(first / "data" / "elo" / "2025-08-11" / "ratings.parquet").height == 0
    params = json.loads((first / "data" / "elo" / "2025-08-11" / "params.json").read_text(encoding="utf-8"))
    assert params["days_rated"]["last"] == "2025-08-11"
    shutil.copytree(work / "incoming" / "2025-08-12", first / "quiet" / "2025-08-12")
    r = _skrafl("nightly", conf, "--date", "2025-08-12", "-q")
    assert r.returncode == 0, r.stderr
    counts = _log(first, "2025-08-12")["steps"][3]["counts"]
    assert counts["rated"] + counts["unnamed"] == 2 and counts["unnamed"] == 2  # records without player ids
    r = _skrafl(
        "replay", *sorted((first / "quiet").rglob("*.json")), "--lexicon", work / "lex" / "is", "--out", first / "s", "-q"
    )
    assert r.returncode == 0, r.stderr
    a = pl.read_parquet(first / "data" / "elo" / "2025-08-12" / "ratings.parquet").sort("list", "player")
    assert a.equals(_elo_from_scratch(first / "s", first / "e", a))


# --- the config is checked whole before any step; a failed re-run keeps the success record ----

GOOD = (
    '[lexicon]\npath = "lex/is"\n[games]\nsource = "incoming"\n[replay]\ndataset = "data/replay"\nworkers = 1\n'
    '[elo]\nout = "data/elo"\n'
)


@pytest.mark.parametrize(
    "edit, line, words",
    [
        (('path = "lex/is"', "path = 5"), 2, ["[lexicon] path", "5"]),
        (("workers = 1", 'workers = "two"'), 7, ["[replay] workers", "'two'"]),
        (('source = "incoming"', 'source = "incoming"\nmisssing_days = "empty"'), 5, ["[games] misssing_days", "unknown key"]),
        (("workers = 1", "workerz = 2"), 7, ["[replay] workerz", "unknown key", "workers"]),
        (('[elo]\nout = "data/elo"\n', '[elo]\nout = "data/elo"\n[impactt]\nout = "x"\n'), 10, ["[impactt]", "unknown section"]),
        (('[elo]\nout = "data/elo"\n', '[elo]\nout = "data/elo"\ncatch_up = "no"\n'), 10, ["[elo] catch_up", "true or false"]),
    ],
)
def test_bad_config_is_one_line_and_runs_nothing(tmp_path, edit, line, words):
    work = tmp_path / "work"
    (work / "incoming").mkdir(parents=True)
    make_lexicon(work / "lex" / "is", ["létta"])
    config = work / "nightly.toml"
    config.write_text(GOOD.replace(*edit), encoding="utf-8")
    r = _skrafl("nightly", config, "--date", "2025-08-11", "-q")
    assert r.returncode == 2
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    assert f"nightly.toml:{line}:" in lines[0] and all(w in lines[0] for w in words), lines[0]
    assert sorted(p.name for p in work.iterdir()) == ["incoming", "lex", "nightly.toml"]  # no step ran, no log


def test_failed_rerun_keeps_the_success_in_the_log(setup):
    """A config that fails its check does not touch the run log; a re-run of a day that
    succeeded which then fails in a step keeps the success record (its outputs are in place)
    and lists the failed run under failed_attempts."""
    work, config, _words_ = setup
    r = _skrafl("nightly", config, "--date", "2025-08-11", "-q")
    assert r.returncode == 0, r.stderr
    path = work / "logs" / "2025-08-11.json"
    good = path.read_bytes()
    before = _snapshot(work)
    broken = work / "broken.toml"
    broken.write_text(config.read_text(encoding="utf-8").replace("workers = 1", 'workers = "two"'), encoding="utf-8")
    r = _skrafl("nightly", broken, "--date", "2025-08-11", "-q")
    assert r.returncode == 2 and "broken.toml:" in r.stderr and "[replay] workers" in r.stderr
    assert path.read_bytes() == good
    # a step fails on the re-run: the success stays the log's record, the failure is an attempt
    bad = work / "bad.toml"
    bad.write_text(config.read_text(encoding="utf-8").replace('source = "incoming"', 'source = "missing/{date}"'), "utf-8")
    r = _skrafl("nightly", bad, "--date", "2025-08-11", "-q")
    assert r.returncode == 2 and "missing/2025-08-11" in r.stderr
    log = json.loads(path.read_text(encoding="utf-8"))
    assert {k: v for k, v in log.items() if k != "failed_attempts"} == json.loads(good)
    assert log["status"] == "ok" and _snapshot(work) == before
    (attempt,) = log["failed_attempts"]
    assert attempt["status"] == "failed" and attempt["exit"] == 2 and attempt["at"].endswith("Z")
    assert [(s["step"], s["status"]) for s in attempt["steps"]] == [("lexicon", "ok"), ("replay", "failed")]
    # the night after still finds the day's success (its lexicon: unchanged, no impact step)
    r = _skrafl("nightly", config, "--date", "2025-08-12", "-q")
    assert r.returncode == 0, r.stderr
    steps = {s["step"]: s for s in json.loads((work / "logs" / "2025-08-12.json").read_text(encoding="utf-8"))["steps"]}
    assert steps["lexicon"]["counts"]["changed"] is False and steps["replay"]["counts"]["since"] == "2025-08-12"


def test_recipe_fingerprint_is_the_repository_folders_however_skrafl_is_imported(tmp_path):
    """The recipes a nightly lexicon step fingerprints are the files of lexicon_sources/LANG in the
    project, whether the code is imported from the project or from an install that links to it
    (the strict editable install's tree holds only the package files it had when installed)."""
    from clirun import PROJECT_ROOT

    code = (
        "import pipelines.nightly as n\n"
        "for lang in ('is', 'en'):\n"
        "    print(n.lexicon_fingerprint({'lexicon': {'lang': lang, 'source': 'wordlist'}}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    runs = [
        subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
        for cwd in (PROJECT_ROOT, tmp_path)
    ]
    for r in runs:
        assert r.returncode == 0, r.stderr
    assert runs[0].stdout == runs[1].stdout and len(runs[0].stdout.split()) == 2
