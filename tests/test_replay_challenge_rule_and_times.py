"""``skrafl replay``: ``--lang`` keeps the file's challenge rule; a
folder walk reading skrafl's hidden generation folders, unreadable Netskrafl times, and bad
``#challenge-rule`` values under ``--strict``.

Expected values come from the rules (docs/GCG.md: the pragma's values, the error catalogue;
docs/NETSKRAFL.md: ``ts_last_move`` is ISO 8601 UTC) and from the shared corpora's recorded numbers:
``doug_v_emely.gcg`` has emely at 55 after VOX; a +10 wrong-challenge bonus gives 65 under the
ten-point rule, 60 under the five-point rule."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from cli.main import app
from pipelines.replay import ReplayOptions, replay_file

runner = CliRunner()

DOUG = "domino14_macondo__gcgio_testdata_doug_v_emely.gcg"
NETSKRAFL = "game_00e0c260-72d8-11f0-97e1-055a4832c9c7.json"


def _codes(res) -> list[str]:
    return [f.code for f in res.findings]


def _ten_point_game(shared, tmp_path, pragma: str | None = "#challenge-rule ten_point"):
    """The first four moves of doug_v_emely, then a wrong challenge of VOX worth +10 to emely
    (55 → 65) and doug's DONATES (+82, 66 → 148), as in the trial."""
    lines = (shared / "corpora" / "gcg" / DOUG).read_text(encoding="latin-1").splitlines()[:6]
    assert lines[-1].startswith(">emely: DEILOVX F2 VOX +39 55")
    text = ([pragma] if pragma else []) + lines + [">emely: DEIL (challenge) +10 65", ">doug: ADENOST 10B DONATES +82 148"]
    p = tmp_path / "c.gcg"
    p.write_text("\n".join(text) + "\n", encoding="latin-1")
    return str(p)


# ---------------------------------------------------------------------------------------------
# 1. --lang picks the words (and tiles), not the challenge rule


@pytest.mark.parametrize("pragma", ["#challenge-rule ten_point", None])
def test_lang_keeps_the_files_challenge_rule(shared, tmp_path, pragma):
    path = _ten_point_game(shared, tmp_path, pragma)
    for opts in (ReplayOptions(lang="en"), ReplayOptions(), ReplayOptions(lang="en", strict=True)):
        res = replay_file(path, opts)
        row = res.game_row
        assert row["status"] == "ok", (opts, row["error"])
        assert (row["score1"], row["score2"]) == (148, 65)
        assert "CHALLENGE_BONUS_INCORRECT" not in _codes(res)


def test_rules_option_still_names_the_challenge_rule(shared, tmp_path):
    """README: the rule is taken from the first bonus unless #challenge-rule or --rules says
    otherwise. VOX forms VOX, JO and AX: --rules wespa (+5 per word challenged)
    accepts the +10 (two of the three words); --rules scrabble (the Scrabble rules page: no bonus) holds it to 0."""
    res = replay_file(_ten_point_game(shared, tmp_path, None), ReplayOptions(preset="wespa", strict=True))
    assert res.game_row["status"] == "ok", res.game_row["error"]
    res = replay_file(_ten_point_game(shared, tmp_path, None), ReplayOptions(preset="scrabble"))
    assert res.game_row["status"] == "mismatch"
    assert "CHALLENGE_BONUS_INCORRECT" in _codes(res)
    assert res.game_row["score2"] == 55


# ---------------------------------------------------------------------------------------------
# 2. a folder walk skips hidden entries: skrafl's generation folders are read once, through the name


def test_folder_with_an_export_reads_each_game_once(shared, tmp_path):
    import polars as pl

    g = tmp_path / "g"
    g.mkdir()
    shutil.copy(shared / "corpora" / "netskrafl" / "games" / NETSKRAFL, g / NETSKRAFL)
    res = runner.invoke(app, ["replay", str(g / NETSKRAFL), "--out", str(g / "o"), "--export-gcg", str(g / "x"), "-q"])
    assert res.exit_code == 0, res.output
    assert any(p.name.startswith(".x.gen-") for p in g.iterdir())  # the export's hidden generation
    # a stale generation (a killed run) and other hidden entries are not game files of the folder
    stale = g / ".x.gen-stale"
    stale.mkdir()
    shutil.copy(g / "x" / NETSKRAFL.replace(".json", ".gcg"), stale / "old.gcg")
    (g / ".hidden.json").write_text((g / NETSKRAFL).read_text(encoding="utf-8"), encoding="utf-8")
    res = runner.invoke(app, ["replay", str(g), "--out", str(tmp_path / "rg"), "-q"])
    assert res.exit_code == 0, res.output
    games = pl.read_parquet(tmp_path / "rg" / "games.parquet")
    assert games["file"].to_list() == [str(g / NETSKRAFL)]
    assert games["game_id"].to_list() == ["00e0c260-72d8-11f0-97e1-055a4832c9c7"]
    # the export named on the command line is read, through its visible name
    res = runner.invoke(app, ["replay", str(g / "x"), "--out", str(tmp_path / "rx"), "-q"])
    assert res.exit_code == 0, res.output
    games = pl.read_parquet(tmp_path / "rx" / "games.parquet")
    assert games["file"].to_list() == [str(g / "x" / NETSKRAFL.replace(".json", ".gcg"))]


# ---------------------------------------------------------------------------------------------
# 3. an unreadable finish time is said, not silently dropped


def _record(shared, tmp_path, ts) -> str:
    data = json.loads((shared / "corpora" / "netskrafl" / "games" / NETSKRAFL).read_text(encoding="utf-8"))
    assert data["ts_last_move"] == "2025-08-11T15:58:35.597951+00:00"
    data["ts_last_move"] = ts
    p = tmp_path / "bad_time.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    return str(p)


@pytest.mark.parametrize(
    "ts", ["garbage", "2025-13-45T99:00:00Z", 1754927915, "9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00"]
)
def test_unreadable_ts_last_move_is_a_warning_naming_it(shared, tmp_path, ts):
    res = replay_file(_record(shared, tmp_path, ts), ReplayOptions())
    row = res.game_row
    assert row["status"] == "ok"  # the game itself replays as recorded
    assert row["finished_at"] is None
    found = [w for w in row["warnings"] if w.startswith("TIMESTAMP_MALFORMED")]
    assert len(found) == 1 and "ts_last_move" in found[0] and str(ts) in found[0], row["warnings"]


def test_unreadable_ts_last_move_is_an_error_under_strict(shared, tmp_path):
    res = replay_file(_record(shared, tmp_path, "garbage"), ReplayOptions(strict=True))
    assert res.game_row["status"] == "error"
    assert res.game_row["error"].startswith("TIMESTAMP_MALFORMED: ts_last_move 'garbage'")


def test_real_records_have_their_day_and_no_time_warning(shared):
    import datetime as dt

    for path in sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json")):
        ts = json.loads(path.read_text(encoding="utf-8"))["ts_last_move"]
        for strict in (False, True):
            row = replay_file(str(path), ReplayOptions(strict=strict)).game_row
            assert not any("TIMESTAMP_MALFORMED" in w for w in row["warnings"] or []), path.name
            assert row["finished_at"] == dt.datetime.fromisoformat(ts), path.name


def test_unreadable_finished_at_pragma(fixtures, tmp_path):
    base = (fixtures / "gcg" / "base.gcg").read_text(encoding="utf-8").replace("\r\n", "\n").splitlines()
    p = tmp_path / "t.gcg"
    p.write_text("\n".join([base[0], "#finished-at yesterday"] + base[1:]) + "\n", encoding="utf-8")
    row = replay_file(str(p), ReplayOptions()).game_row
    assert row["finished_at"] is None
    assert any(w.startswith("line 2: TIMESTAMP_MALFORMED: #finished-at 'yesterday'") for w in row["warnings"]), row["warnings"]
    row = replay_file(str(p), ReplayOptions(strict=True)).game_row
    assert row["status"] == "error" and row["error"].startswith("TIMESTAMP_MALFORMED") and row["error"].endswith("(line 2)")
    p.write_text("\n".join([base[0], "#finished-at 2025-08-11T15:58:35Z"] + base[1:]) + "\n", encoding="utf-8")
    row = replay_file(str(p), ReplayOptions(strict=True)).game_row
    assert row["status"] == "ok" and row["finished_at"].isoformat() == "2025-08-11T15:58:35+00:00"


# ---------------------------------------------------------------------------------------------
# 4. #challenge-rule takes the values docs/GCG.md lists; anything else is said (strict: an error)


@pytest.mark.parametrize("value", ["bogus", "10", ""])
def test_unknown_challenge_rule(shared, tmp_path, value):
    path = _ten_point_game(shared, tmp_path, f"#challenge-rule {value}".rstrip())
    lenient = replay_file(path, ReplayOptions())
    row = lenient.game_row
    assert row["status"] == "ok" and row["score2"] == 65  # the pragma ignored: the rule from the first bonus
    found = [f for f in lenient.findings if f.code == "UNRECOGNIZED_CHALLENGE_RULE"]
    assert len(found) == 1 and found[0].line == 1
    for allowed in ("VOID", "SINGLE", "DOUBLE", "TRIPLE", "FIVE_POINT", "TEN_POINT"):  # docs/GCG.md §2
        assert allowed in found[0].message
    strict = replay_file(path, ReplayOptions(strict=True)).game_row
    assert strict["status"] == "error"
    assert strict["error"].startswith("UNRECOGNIZED_CHALLENGE_RULE") and strict["error"].endswith("(line 1)")


@pytest.mark.parametrize("value", ["TEN_POINT", "ten-point", "Ten_Point"])
def test_known_challenge_rule_spellings(shared, tmp_path, value):
    res = replay_file(_ten_point_game(shared, tmp_path, f"#challenge-rule {value}"), ReplayOptions(strict=True, lang="en"))
    assert res.game_row["status"] == "ok", res.game_row["error"]
    assert res.game_row["score2"] == 65


def test_the_reader_and_the_replay_know_the_same_rules():
    from gamecore.gcg import CHALLENGE_RULE_VALUES
    from pipelines.replay.game import CHALLENGE_PRAGMA

    assert set(CHALLENGE_RULE_VALUES) == set(CHALLENGE_PRAGMA)


def test_unknown_challenge_rule_on_the_command_line(shared, tmp_path):
    """The trial's command: --strict --no-lexicon on a file with #challenge-rule bogus fails the game."""
    path = _ten_point_game(shared, tmp_path, "#challenge-rule bogus")
    from clirun import run_skrafl_here

    res = run_skrafl_here("replay", path, "--out", str(tmp_path / "o"), "--strict", "--no-lexicon", "-q")
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr
    assert f"{path}: UNRECOGNIZED_CHALLENGE_RULE" in lines[0] and lines[0].endswith("(line 1)")
    assert not (tmp_path / "o").exists()


def test_missing_lexicon_given_by_the_options_is_no_strict_error(fixtures):
    """docs/GCG.md (MAGPIE): a lexicon comes from the file or from the configuration. A file naming none,
    replayed with a lexicon given (--lexicon, --lang), is not LEXICON_NOT_SPECIFIED under --strict;
    without one it is (the letters are Polish). ŻÓŁW 8E = (5+5+3+1)×2 = 28 (Polish tile values)."""
    from pipelines.replay.game import replay_game
    from pipelines.replay.read import read_game_file

    path = fixtures / "gcg" / "missing_lexicon_polish.gcg"
    res = replay_game(read_game_file(path, strict=True), lexicon={"żółw"}, strict=True)
    assert res.game_row["status"] == "ok", res.game_row["error"]
    assert res.game_row["score1"] == 28 and res.game_row["unknown_words"] == []
    assert "LEXICON_NOT_SPECIFIED" in _codes(res)  # still said: the rules were guessed
    res = replay_game(read_game_file(path, strict=True), strict=True)
    assert res.game_row["error"].startswith("LEXICON_NOT_SPECIFIED")
