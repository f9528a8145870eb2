"""``skrafl replay``: tables, exit status, bad input in a mixed folder, workers, determinism, export."""

from __future__ import annotations

import shutil

from typer.testing import CliRunner

from cli.main import app
from pipelines.replay import GAME_COLUMNS, MOVE_COLUMNS

runner = CliRunner()


def _mixed(tmp_path, fixtures, shared=None):
    d = tmp_path / "in"
    d.mkdir()
    shutil.copy(fixtures / "gcg" / "base.gcg", d / "good.gcg")
    (d / "garbage.gcg").write_bytes(b"\x00\xff\xfe" * 1000)
    (d / "truncated.gcg").write_text("#player1 a A\n#player2 b B\n>a: ABCDEFG 8D", encoding="utf-8")
    (d / "strict_pragma.gcg").write_text((fixtures / "gcg" / "unknown_pragma.gcg").read_text(encoding="utf-8"), encoding="utf-8")
    (d / "offboard.gcg").write_text((fixtures / "gcg" / "coordinate_m70.gcg").read_text(encoding="utf-8"), encoding="utf-8")
    (d / "long.gcg").write_text("#player1 a A\n#player2 b B\n" + "y" * 10_000_000 + "\n", encoding="utf-8")
    (d / "bad.json").write_text('{"moves": 3}', encoding="utf-8")
    if shared is not None:
        for f in sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))[:3]:
            shutil.copy(f, d / f.name)
    return d


def test_mixed_folder(tmp_path, fixtures):
    import polars as pl

    d = _mixed(tmp_path, fixtures)
    out = tmp_path / "out"
    res = runner.invoke(app, ["replay", str(d), "--out", str(out), "--strict"])
    assert res.exit_code == 1, res.output
    games = pl.read_parquet(out / "games.parquet")
    moves = pl.read_parquet(out / "moves.parquet")
    assert tuple(games.columns) == GAME_COLUMNS
    assert tuple(moves.columns) == MOVE_COLUMNS
    by = {r["file"].rsplit("/", 1)[-1]: r for r in games.to_dicts()}
    assert len(by) == 7  # nothing skipped silently
    assert by["good.gcg"]["status"] == "ok" and by["good.gcg"]["error"] is None
    for name in ("garbage.gcg", "truncated.gcg", "strict_pragma.gcg", "offboard.gcg", "long.gcg", "bad.json"):
        assert by[name]["status"] == "error", name
        assert by[name]["error"], name
    assert by["strict_pragma.gcg"]["error"].startswith("UNKNOWN_PRAGMA") and "(line 5)" in by["strict_pragma.gcg"]["error"]
    assert by["offboard.gcg"]["error"].startswith("COORDINATE_OUT_OF_BOUNDS")
    assert by["long.gcg"]["error"].startswith("LINE_TOO_LONG") and "(line 3)" in by["long.gcg"]["error"]
    assert by["garbage.gcg"]["error"].startswith("NO_MATCHING_TOKEN: binary data")
    good_moves = moves.filter(pl.col("file").str.ends_with("good.gcg"))
    assert good_moves["kind"].to_list() == [
        "play",
        "play",
        "exchange",
        "pass",
        "pass",
        "pass",
        "pass",
        "pass",
        "rack_penalty",
        "rack_penalty",
        "time",
    ]
    assert good_moves["cumulative"].to_list()[-1] == -17


def test_exit_codes_and_usage(tmp_path, fixtures):
    out = tmp_path / "o"
    ok = runner.invoke(app, ["replay", str(fixtures / "gcg" / "base.gcg"), "--out", str(out), "--quiet"])
    assert ok.exit_code == 0, ok.output
    missing = runner.invoke(app, ["replay", str(tmp_path / "nope.gcg"), "--out", str(out)])
    assert missing.exit_code != 0
    bad_preset = runner.invoke(app, ["replay", str(fixtures / "gcg" / "base.gcg"), "--out", str(out), "--rules", "nosuch"])
    assert bad_preset.exit_code != 0


def test_workers_and_determinism(tmp_path, fixtures, shared):
    d = _mixed(tmp_path, fixtures, shared)
    outs = []
    for i, workers in enumerate(("1", "1", "2")):
        out = tmp_path / f"o{i}"
        res = runner.invoke(app, ["replay", str(d), "--out", str(out), "--workers", workers, "--quiet"])
        assert res.exit_code == 1
        outs.append(out)
    for name in ("games.parquet", "moves.parquet"):
        data = [(o / name).read_bytes() for o in outs]
        assert data[0] == data[1] == data[2]
    assert not [
        p for o in outs for p in o.iterdir() if p.name.startswith(".") and p.name != ".skrafl-output"
    ]  # no temporary files left


def test_export_netskrafl_to_gcg_and_back(tmp_path, shared):
    import json

    import polars as pl

    src = shared / "corpora" / "netskrafl" / "games"
    exp = tmp_path / "gcg"
    res = runner.invoke(app, ["replay", str(src), "--out", str(tmp_path / "a"), "--export-gcg", str(exp), "--quiet"])
    assert res.exit_code == 0, res.output
    assert len(list(exp.glob("*.gcg"))) == 10
    res = runner.invoke(app, ["replay", str(exp), "--out", str(tmp_path / "b"), "--strict", "--quiet"])
    assert res.exit_code == 0, res.output
    games = pl.read_parquet(tmp_path / "b" / "games.parquet")
    for r in games.to_dicts():
        stem = r["file"].rsplit("/", 1)[-1][:-4]
        data = json.loads((src / f"{stem}.json").read_text(encoding="utf-8"))
        assert (r["score1"], r["score2"]) == (data["score0"], data["score1"]), stem  # resigned games too


def test_export_keeps_a_resignation(tmp_path, shared):
    """game_4b88… ends with RSGN by player 1 (score −417): docs/NETSKRAFL.md "Resignation: resigner's
    score becomes 0"; the record says 297–0. The GCG export must give the same result back."""
    import polars as pl

    src = shared / "corpora" / "netskrafl" / "games" / "game_4b88b1c4-54fc-11ef-817d-432d0b83df36.json"
    exp = tmp_path / "gcg"
    res = runner.invoke(app, ["replay", str(src), "--out", str(tmp_path / "a"), "--export-gcg", str(exp), "--quiet"])
    assert res.exit_code == 0, res.output
    text = (exp / (src.stem + ".gcg")).read_text(encoding="utf-8")
    last = [line for line in text.splitlines() if line.startswith(">")][-1]
    assert last.endswith("(time) -417 0") and text.rstrip().endswith("#note #resign")
    res = runner.invoke(app, ["replay", str(exp), "--out", str(tmp_path / "b"), "--strict", "--quiet"])
    assert res.exit_code == 0, res.output
    g = pl.read_parquet(tmp_path / "b" / "games.parquet").to_dicts()[0]
    a = pl.read_parquet(tmp_path / "a" / "games.parquet").to_dicts()[0]
    assert (g["score1"], g["score2"]) == (297, 0) and g["winner"] == a["winner"] == "player0"
    kinds = pl.read_parquet(tmp_path / "b" / "moves.parquet")["kind"].to_list()
    assert kinds[-1] == "resign" and "time" not in kinds


def test_analyze_needs_a_lexicon(tmp_path, fixtures, monkeypatch):
    # an output root where no lexicon is built (output/en would be found for a file without #lexicon)
    monkeypatch.setenv("SKRAFL_OUTPUT", str(tmp_path / "no-output"))
    res = runner.invoke(app, ["replay", str(fixtures / "gcg" / "base.gcg"), "--out", str(tmp_path / "o"), "--analyze"])
    assert res.exit_code != 0
    assert not (tmp_path / "o" / "games.parquet").exists()


def test_lenient_warnings_reported(tmp_path, fixtures):
    import polars as pl

    from pipelines.replay import ReplayOptions, run_replay

    summary = run_replay([str(fixtures / "gcg" / "unknown_pragma.gcg")], tmp_path / "o", ReplayOptions(), quiet=True)
    assert summary["ok"] == 1 and summary["warnings"] == 1 and summary["not_ok"] == []
    [warnings] = pl.read_parquet(tmp_path / "o" / "games.parquet")["warnings"].to_list()
    assert [w.split(": ")[1] for w in warnings] == ["UNKNOWN_PRAGMA"]


def test_analyze_with_a_small_lexicon(tmp_path, fixtures):
    """Best plays from gamecore.best with a 4-word lexicon, values scored by hand on the standard
    board: RETAINS through H8 scores 66 wherever it goes (one 1-point letter on a DL); with
    BDEGLOU after it, LOBED E5 down = (1+1+3+1+2) x2 (DW at E5) = 16 beats B.D G7 = 11."""
    import polars as pl

    words = tmp_path / "words.txt"
    words.write_text("retains\nbad\nbade\nlobed\n", encoding="utf-8")
    lex = tmp_path / "lex"
    res = runner.invoke(app, ["build", "en", "--source", "wordlist", "--input", str(words), "--out", str(lex), "--quiet"])
    assert res.exit_code == 0, res.output
    out = tmp_path / "o"
    res = runner.invoke(
        app, ["replay", str(fixtures / "gcg" / "base.gcg"), "--out", str(out), "--lexicon", str(lex), "--analyze", "--quiet"]
    )
    assert res.exit_code == 0, res.output
    moves = pl.read_parquet(out / "moves.parquet")
    assert tuple(moves.columns[-4:]) == ("best_coord", "best_word", "best_score", "points_lost")
    plays = moves.filter(pl.col("kind") == "play").to_dicts()
    assert (plays[0]["best_score"], plays[0]["points_lost"]) == (66, 0)
    assert (plays[1]["best_coord"], plays[1]["best_word"], plays[1]["best_score"], plays[1]["points_lost"]) == (
        "E5",
        "LOB.D",
        16,
        5,
    )
    assert [p["unknown"] for p in plays] == [[], []]
    games = pl.read_parquet(out / "games.parquet")
    assert games["unknown_words"].to_list() == [[]]


def test_mutated_files_never_crash(tmp_path, shared):
    """Seeded random damage (bytes flipped, lines deleted or swapped, files cut short) to the shared
    games: every file gets a row, and no row is an internal error (a bug), in both modes."""
    import random

    from pipelines.replay import ReplayOptions, replay_file

    files = sorted((shared / "corpora" / "gcg").glob("*.gcg")) + sorted(
        (shared / "corpora" / "netskrafl" / "games").glob("*.json")
    )
    rng = random.Random(4)
    for i in range(150):
        src = rng.choice(files)
        data = bytearray(src.read_bytes())
        op = rng.randrange(4)
        if op == 0:
            for _ in range(rng.randrange(1, 5)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif op in (1, 2):
            lines = data.split(b"\n")
            k, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            if op == 1:
                del lines[k]
            else:
                lines[k], lines[j] = lines[j], lines[k]
            data = bytearray(b"\n".join(lines))
        else:
            data = data[: rng.randrange(len(data))]
        path = tmp_path / f"m{i}{src.suffix}"
        path.write_bytes(bytes(data))
        for strict in (False, True):
            row = replay_file(str(path), ReplayOptions(strict=strict)).game_row
            assert row["status"] in ("ok", "mismatch", "error")
            assert not (row["error"] or "").startswith("INTERNAL_ERROR"), row["error"]


# ---------------------------------------------------------------------------------------------
# --out / --export-gcg safety; nothing to replay; the game facts columns


def test_out_or_export_that_is_a_file_is_one_error(tmp_path, fixtures):
    from clirun import run_skrafl_here

    taken = tmp_path / "taken.txt"
    taken.write_text("keep me\n")
    base = str(fixtures / "gcg" / "base.gcg")
    for args in (["--out", str(taken)], ["--out", str(tmp_path / "o"), "--export-gcg", str(taken)]):
        res = run_skrafl_here("replay", base, *args, "--quiet")
        assert res.returncode == 2, (args, res.stderr)
        assert "Traceback" not in res.stderr and res.stderr.count("skrafl: error:") == 1, res.stderr
        assert taken.read_text() == "keep me\n"
    assert not (tmp_path / "o").exists()  # refused before any output was written


def test_export_is_a_whole_output_of_its_own(tmp_path, fixtures):
    """--export-gcg is an output of its own (command replay-export): a folder of someone else's
    files is refused before any work (nothing written anywhere), a re-export replaces the last."""
    exp = tmp_path / "exp"
    exp.mkdir()
    (exp / "mine.txt").write_text("x")
    res = runner.invoke(
        app, ["replay", str(fixtures / "gcg" / "base.gcg"), "--out", str(tmp_path / "o"), "--export-gcg", str(exp), "--quiet"]
    )
    assert res.exit_code != 0 and "did not write" in str(res.exception), res.output
    assert [p.name for p in exp.iterdir()] == ["mine.txt"] and not (tmp_path / "o").exists()
    exp2 = tmp_path / "exp2"
    for src in ("base.gcg", "parenthesized_through.gcg"):
        res = runner.invoke(
            app, ["replay", str(fixtures / "gcg" / src), "--out", str(tmp_path / "o"), "--export-gcg", str(exp2), "--quiet"]
        )
        assert res.exit_code == 0, res.output
        assert sorted(p.name for p in exp2.glob("*.gcg")) == [src]


def _old_tables(tmp_path, fixtures):
    out = tmp_path / "out"
    assert runner.invoke(app, ["replay", str(fixtures / "gcg" / "base.gcg"), "--out", str(out), "--quiet"]).exit_code == 0
    return out, {n: (out / n).read_bytes() for n in ("games.parquet", "moves.parquet")}


def test_empty_folder_is_a_usage_error_and_keeps_old_tables(tmp_path, fixtures):
    from clirun import run_skrafl_here

    out, before = _old_tables(tmp_path, fixtures)
    empty = tmp_path / "empty"
    empty.mkdir()
    res = run_skrafl_here("replay", str(empty), "--out", str(out), "--quiet")
    assert res.returncode == 2 and res.stderr.count("skrafl: error:") == 1 and "Traceback" not in res.stderr, res.stderr
    assert {n: (out / n).read_bytes() for n in before} == before


def test_only_garbage_is_a_usage_error_and_keeps_old_tables(tmp_path, fixtures):
    from clirun import run_skrafl_here

    out, before = _old_tables(tmp_path, fixtures)
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "a.gcg").write_bytes(b"\x00\xff\xfe" * 1000)
    (junk / "b.json").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    res = run_skrafl_here("replay", str(junk), "--out", str(out), "--quiet")
    assert res.returncode == 2 and res.stderr.count("skrafl: error:") == 1 and "Traceback" not in res.stderr, res.stderr
    assert {n: (out / n).read_bytes() for n in before} == before


def test_game_facts_columns(tmp_path, fixtures, shared):
    import datetime as dt
    import json

    import polars as pl

    d = tmp_path / "in"
    d.mkdir()
    shutil.copy(fixtures / "gcg" / "base.gcg", d / "base.gcg")
    shutil.copy(fixtures / "gcg" / "parenthesized_through.gcg", d / "paren.gcg")
    (d / "withid.gcg").write_text(
        "#id io.woogles p6QRjJHG\n" + (fixtures / "gcg" / "base.gcg").read_text(encoding="utf-8"), encoding="utf-8"
    )
    rec_path = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))[0]
    rec = json.loads(rec_path.read_text(encoding="utf-8"))
    shutil.copy(rec_path, d / rec_path.name)
    out = tmp_path / "out"
    res = runner.invoke(app, ["replay", str(d), "--out", str(out), "--quiet"])
    games = pl.read_parquet(out / "games.parquet")
    # the first columns, in their order; then the game facts
    assert games.columns[:13] == [
        "file",
        "format",
        "status",
        "error",
        "player1",
        "player2",
        "score1",
        "score2",
        "winner",
        "moves",
        "bingos1",
        "bingos2",
        "unknown_words",
    ]
    assert games.columns[13:19] == ["game_id", "finished_at", "competition", "robot1", "robot2", "warnings"]
    # the multi-player and rule-set columns, appended
    assert games.columns[19:] == [
        "finished",
        "locale",
        "players",
        "player3",
        "player4",
        "score3",
        "score4",
        "bingos3",
        "bingos4",
        "ended_by",
    ]
    by = {r["file"].rsplit("/", 1)[-1]: r for r in games.to_dicts()}
    ns = by[rec_path.name]
    assert ns["game_id"] == rec["game_id"]
    assert ns["finished_at"] == dt.datetime.fromisoformat(rec["ts_last_move"])
    assert ns["competition"] is rec["manual"] and ns["robot1"] is False and ns["robot2"] is False
    assert by["base.gcg"]["game_id"].startswith("base.gcg#") and by["base.gcg"]["finished_at"] is None
    assert by["base.gcg"]["competition"] is None and by["base.gcg"]["warnings"] == []
    assert by["withid.gcg"]["game_id"] == "io.woogles p6QRjJHG"
    # a lenient repair is listed on its game (expected.tsv: parenthesized_through → ok, PLAY_MALFORMED)
    assert by["paren.gcg"]["status"] == "ok"
    assert any("PLAY_MALFORMED" in w for w in by["paren.gcg"]["warnings"])
    assert res.exit_code == 0, res.output


def test_collect_files_finds_game_files_as_before(tmp_path):
    """Folders are searched recursively for *.gcg and *.json (any case), sorted as path text;
    links to files count, links to folders are not followed, folders named *.gcg, broken links
    and other files are not games; a file named directly is taken whatever its name."""
    import os

    from pipelines.replay import collect_files

    d = tmp_path / "games"
    (d / "b" / "deep").mkdir(parents=True)
    (d / "a.gcg").write_text("x")
    (d / "B.GCG").write_text("x")
    (d / "c.json").write_text("{}")
    (d / "notes.txt").write_text("x")
    (d / ".gcg").write_text("x")  # a hidden file with no suffix
    (d / "b" / "z.Json").write_text("{}")
    (d / "b" / "deep" / "y.gcg").write_text("x")
    (d / "dir.gcg").mkdir()
    (d / "dir.gcg" / "inner.gcg").write_text("x")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.gcg").write_text("x")
    os.symlink(outside, d / "linked")
    os.symlink(outside / "o.gcg", d / "link.gcg")  # a link to a game found nowhere else (one to a.gcg is a repeat)
    os.symlink(tmp_path / "missing.gcg", d / "broken.gcg")
    other = tmp_path / "named.txt"
    other.write_text("x")
    got = collect_files([str(d), str(other)])
    base = str(d)
    assert got == [
        f"{base}/B.GCG",
        f"{base}/a.gcg",
        f"{base}/b/deep/y.gcg",
        f"{base}/b/z.Json",
        f"{base}/c.json",
        f"{base}/dir.gcg/inner.gcg",
        f"{base}/link.gcg",
        str(other),
    ]


def test_a_gcg_game_without_id_is_known_by_its_name_and_content(tmp_path):
    """game_id of a GCG file without #id: FILE#DIGEST, the digest over its players and events. The
    same game under another folder keeps it, a note does not change it, a changed score does (a
    different game sharing the name: Elo would otherwise take it for the first, already rated)."""
    from pathlib import Path

    from gamecore.gcg import read_gcg
    from pipelines.replay.game import game_facts

    base = Path(__file__).resolve().parent / "fixtures" / "gcg" / "base.gcg"
    text = base.read_text(encoding="utf-8")
    variants = {
        "same": text,
        "noted": text.replace("#note exchange\n", "#note exchange, then a long think\n"),
        "scored": text.replace("8D RETAINS +66 66", "8D RETAINS +68 68"),
    }
    ids = {}
    for name, body in variants.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "game.gcg").write_text(body, encoding="utf-8")
        ids[name] = game_facts(read_gcg(tmp_path / name / "game.gcg"))["game_id"]
    assert ids["same"] == game_facts(read_gcg(base))["game_id"].replace("base.gcg", "game.gcg")
    assert ids["same"] == ids["noted"] != ids["scored"]
    assert all(i.startswith("game.gcg#") and len(i) == len("game.gcg#") + 12 for i in ids.values())


def test_the_summary_lists_the_first_games_not_ok_and_counts_the_rest(tmp_path):
    """A user trial's folder of 7,810 games printed 450 lines of mismatches on stderr: the summary
    lists the first 20 games not ok and counts the others (all are in games.parquet)."""
    from pathlib import Path

    from clirun import run_skrafl_here

    games = tmp_path / "games"
    games.mkdir()
    shutil.copy(Path(__file__).resolve().parent / "fixtures" / "gcg" / "base.gcg", games / "base.gcg")
    for i in range(25):
        (games / f"empty{i:02}.gcg").write_text("", encoding="utf-8")
    for args in (("--out", str(tmp_path / "out")), ("--dataset", str(tmp_path / "ds"))):
        r = run_skrafl_here("replay", str(games), "--no-lexicon", *args)
        assert r.returncode == 1, r.stderr
        lines = r.stderr.splitlines()
        assert sum(line.startswith("  error: ") for line in lines) == 20, r.stderr
        assert lines[-1].startswith("  … and 5 more not ok"), r.stderr


def test_a_mismatch_names_its_cause_not_the_note_before_it(tmp_path):
    """A file naming no challenge rule whose first bonus (+10 after a one-word play: only the
    ten-point rule gives it) sets the rule, and whose later bonus (+7) no rule gives: the game is a
    mismatch because of that bonus, and its error (and the summary line) says so, not the note
    that the rule was inferred."""
    import polars as pl
    from clirun import run_skrafl_here

    games = tmp_path / "games"
    games.mkdir()
    (games / "g.gcg").write_text(
        "#character-encoding UTF-8\n#player1 alice Alice Able\n#player2 bob Bob Baker\n#lexicon CSW21\n"
        ">alice: AEINRST 8D RETAINS +66 66\n"
        ">alice: EFHLOTW (challenge) +10 76\n"
        ">bob: BDEGLOU G7 B.D +11 11\n"
        ">bob: EGLOUXY (challenge) +7 18\n",
        encoding="utf-8",
    )
    r = run_skrafl_here("replay", str(games), "--no-lexicon", "--out", str(tmp_path / "out"))
    assert r.returncode == 1, r.stderr
    row = pl.read_parquet(tmp_path / "out" / "games.parquet").row(0, named=True)
    assert row["status"] == "mismatch" and row["error"].startswith("CHALLENGE_BONUS_INCORRECT") and "(line 8)" in row["error"]
    assert any("CHALLENGE_RULE_INFERRED" in w for w in row["warnings"])  # the note is still kept
    assert "mismatch: " in r.stderr and "CHALLENGE_BONUS_INCORRECT" in r.stderr and "CHALLENGE_RULE_INFERRED" not in r.stderr


def test_a_gcg_date_pragma_is_the_games_day(tmp_path):
    """A GCG file that gives the day it was played (`#date 2024-03-05`) has that day as its time
    (midnight UTC) when it gives no #finished-at, so elo orders and dates it; a malformed one is the
    warning TIMESTAMP_MALFORMED."""
    import datetime as dt
    from pathlib import Path

    import polars as pl
    from clirun import run_skrafl_here

    games = tmp_path / "games"
    games.mkdir()
    body = ">alice: AEINRST 8D RETAINS +66 66\n>bob: BDEGLOU G7 B.D +11 11\n"
    head = "#character-encoding UTF-8\n#player1 alice Alice Able\n#player2 bob Bob Baker\n#lexicon CSW21\n"
    (games / "dated.gcg").write_text(head + "#date 2024-03-05\n" + body, encoding="utf-8")
    (games / "both.gcg").write_text(head + "#date 2024-03-05\n#finished-at 2024-03-06T10:00:00Z\n" + body, encoding="utf-8")
    (games / "bad.gcg").write_text(head + "#date 5 March\n" + body, encoding="utf-8")
    r = run_skrafl_here("replay", str(games), "--no-lexicon", "--out", str(tmp_path / "out"), "-q")
    assert r.returncode in (0, 1), r.stderr
    rows = {
        Path(f).name: t for f, t in pl.read_parquet(tmp_path / "out" / "games.parquet").select("file", "finished_at").iter_rows()
    }
    utc = dt.timezone.utc
    assert rows["dated.gcg"] == dt.datetime(2024, 3, 5, tzinfo=utc)
    assert rows["both.gcg"] == dt.datetime(2024, 3, 6, 10, tzinfo=utc)  # #finished-at wins
    assert rows["bad.gcg"] is None
    warnings = pl.read_parquet(tmp_path / "out" / "games.parquet").filter(pl.col("file").str.ends_with("bad.gcg"))["warnings"][0]
    assert any("TIMESTAMP_MALFORMED" in w and "#date" in w for w in warnings)
