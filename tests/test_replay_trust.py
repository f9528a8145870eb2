"""One bad file never costs the batch: broken, fuzzed and out-of-range files mixed with good ones
are each their own ``error`` row and every good game is written as if alone, with one worker or
two; an exception of any kind while reading a file, or a worker process dying on one, costs that
file only. And the tables stream: row groups of GROUP_GAMES games, the same bytes whatever the
number of workers."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()


def _corpus(shared: Path) -> list[Path]:
    return sorted((shared / "corpora" / "gcg").glob("*.gcg")) + sorted(
        (shared / "corpora" / "netskrafl" / "games").glob("*.json")
    )


def _good(tmp_path: Path, shared: Path) -> Path:
    d = tmp_path / "good"
    d.mkdir()
    for f in _corpus(shared):
        shutil.copy(f, d / f.name)
    return d


BASE_GCG = """#character-encoding UTF-8
#player1 alice Alice Able
#player2 bob Bob Baker
#lexicon CSW21
>alice: AEINRST 8D RETAINS +{score} {score}
>bob: BDEGLOU G7 B.D +11 11
"""


def _bad(d: Path, shared: Path) -> dict[str, str]:
    """Hand-made bad files in ``d``; returns name → what makes it bad."""
    record = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))[0]
    text = record.read_text(encoding="utf-8")
    import json

    rec = json.loads(text)
    bad = {}
    # a recorded score beyond int32 (the score columns are int32): 3,000,000,000 > 2**31 - 1
    (d / "zz_score_int32.gcg").write_text(BASE_GCG.format(score=3_000_000_000), encoding="utf-8")
    bad["zz_score_int32.gcg"] = "score beyond int32"
    big = dict(rec)
    big["moves"] = [dict(rec["moves"][0], score=3_000_000_000)] + rec["moves"][1:]
    (d / "zz_move_int32.json").write_text(json.dumps(big), encoding="utf-8")
    bad["zz_move_int32.json"] = "move score beyond int32"
    # a lone surrogate (valid JSON escape, not text UTF-8 can hold) in the game id
    (d / "zz_surrogate.json").write_text(text.replace(f'"{rec["game_id"]}"', '"\\ud800x"', 1), encoding="utf-8")
    bad["zz_surrogate.json"] = "lone surrogate"
    (d / "zz_cut.json").write_text(text[: len(text) // 2], encoding="utf-8")
    bad["zz_cut.json"] = "cut short"
    (d / "zz_types.json").write_text(json.dumps(dict(rec, moves=[[1, 2, 3], None, "x"])), encoding="utf-8")
    bad["zz_types.json"] = "moves of the wrong types"
    (d / "zz_binary.gcg").write_bytes(bytes(range(256)) * 4)
    bad["zz_binary.gcg"] = "binary"
    return bad


def _fuzzed(d: Path, shared: Path, n: int = 60) -> list[str]:
    rng = random.Random(10)
    files = _corpus(shared)
    names = []
    for i in range(n):
        src = rng.choice(files)
        data = bytearray(src.read_bytes())
        for _ in range(rng.randrange(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        name = f"zf{i:02d}{src.suffix}"
        (d / name).write_bytes(bytes(data))
        names.append(name)
    return names


def _rows(out: Path):
    import polars as pl

    games = pl.read_parquet(out / "games.parquet")
    moves = pl.read_parquet(out / "moves.parquet")
    by = {r["file"].rsplit("/", 1)[-1]: r for r in games.to_dicts()}
    return games, moves, by


def _strip(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "file"}


def test_bad_files_are_error_rows_and_cost_nothing_else(tmp_path, shared):
    alone = tmp_path / "alone"
    res = runner.invoke(app, ["replay", str(_good(tmp_path, shared)), "--out", str(alone), "--quiet"])
    assert res.exit_code in (0, 1), res.output
    _, alone_moves, alone_by = _rows(alone)

    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for f in _corpus(shared):
        shutil.copy(f, mixed / f.name)
    bad = _bad(mixed, shared)
    fuzzed = _fuzzed(mixed, shared)
    outs = []
    for workers in ("1", "2"):
        out = tmp_path / f"out{workers}"
        res = runner.invoke(app, ["replay", str(mixed), "--out", str(out), "--workers", workers, "--quiet"])
        assert res.exit_code == 1, res.output  # some games are not ok: listed, not fatal
        games, moves, by = _rows(out)
        assert games.height == len(alone_by) + len(bad) + len(fuzzed)  # every file has its row
        assert games["file"].to_list() == sorted(games["file"].to_list())  # input order
        for name, row in alone_by.items():  # every good game exactly as when replayed alone
            assert _strip(by[name]) == _strip(row), name
            mine = moves.filter(moves["file"].str.ends_with("/" + name)).drop("file")
            assert mine.equals(alone_moves.filter(alone_moves["file"].str.ends_with("/" + name)).drop("file")), name
        for name, why in bad.items():
            assert by[name]["status"] == "error" and by[name]["error"], (name, why, by[name])
            assert moves.filter(moves["file"].str.ends_with("/" + name)).height == 0, name
        for name in fuzzed:
            assert by[name]["status"] in ("ok", "mismatch", "error"), name
        outs.append(out)
    for name in ("games.parquet", "moves.parquet"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes()


def test_value_beyond_int32_names_its_column(tmp_path, fixtures):
    """Whatever the reader accepts, a value the int32 columns cannot hold is an error row (never a
    failed write); if the reader lets it through, the row names the column."""
    d = tmp_path / "in"
    d.mkdir()
    shutil.copy(fixtures / "gcg" / "base.gcg", d / "a_good.gcg")
    (d / "b_big.gcg").write_text(BASE_GCG.format(score=2**31), encoding="utf-8")
    (d / "c_edge.gcg").write_text(BASE_GCG.format(score=2**31 - 1), encoding="utf-8")
    out = tmp_path / "out"
    res = runner.invoke(app, ["replay", str(d), "--out", str(out), "--quiet"])
    assert res.exit_code == 1, res.output
    _, moves, by = _rows(out)
    assert by["a_good.gcg"]["status"] == "ok"
    assert by["b_big.gcg"]["status"] == "error"
    if by["b_big.gcg"]["error"].startswith("TABLE_VALUE_INVALID"):
        assert "moves.score_recorded" in by["b_big.gcg"]["error"] and "2147483648" in by["b_big.gcg"]["error"]
    # 2**31 - 1 fits the column: the game is read and replayed (RETAINS 8D scores 66, not that)
    assert by["c_edge.gcg"]["status"] in ("mismatch", "error")
    if by["c_edge.gcg"]["status"] == "mismatch":
        edge = moves.filter(moves["file"].str.ends_with("c_edge.gcg"))
        assert edge["score_recorded"].to_list()[0] == 2**31 - 1 and edge["score_computed"].to_list()[0] == 66


@pytest.mark.parametrize("workers", [1, 2])
def test_any_exception_reading_a_file_is_its_row(tmp_path, fixtures, monkeypatch, workers):
    """A reader that fails with an exception that is no GameLogError (a bug) costs its file only
    (forked workers inherit the patched reader)."""
    import pipelines.replay.run as run
    from pipelines.replay import ReplayOptions, run_replay

    real = run.read_game_file

    def reader(path, *, strict=False):
        if "boom" in os.path.basename(path):
            raise ZeroDivisionError("a reader bug")
        return real(path, strict=strict)

    monkeypatch.setattr(run, "read_game_file", reader)
    d = tmp_path / "in"
    d.mkdir()
    for i in range(6):
        shutil.copy(fixtures / "gcg" / "base.gcg", d / f"{i}_{'boom' if i == 2 else 'good'}.gcg")
    summary = run_replay([str(d)], tmp_path / "out", ReplayOptions(), workers=workers, quiet=True)
    assert (summary["games"], summary["ok"], summary["error"]) == (6, 5, 1)
    _, _, by = _rows(tmp_path / "out")
    assert by["2_boom.gcg"]["status"] == "error"
    assert by["2_boom.gcg"]["error"].startswith("INTERNAL_ERROR: reading: ZeroDivisionError: a reader bug")
    assert all(by[f"{i}_good.gcg"]["status"] == "ok" for i in (0, 1, 3, 4, 5))


def test_worker_crash_costs_only_its_file(tmp_path, shared, monkeypatch):
    """A worker that dies (os._exit, as a crash in C would) on one file: the batch goes on in a new
    pool; that file is WORKER_CRASHED, every other file has the rows it has without the crash."""
    import pipelines.replay.run as run
    from pipelines.replay import ReplayOptions, run_replay

    src = _corpus(shared)
    d = tmp_path / "in"
    d.mkdir()
    for i in range(5):
        for f in src:
            shutil.copy(f, d / f"{i}_{f.name}")
    crash = sorted(p.name for p in d.iterdir())[150]
    alone = tmp_path / "alone"
    expected = run_replay([str(d)], alone, ReplayOptions(), workers=1, quiet=True)
    real = run.replay_file

    def replay_file(path, opts):
        if path.endswith(crash):
            os._exit(7)
        return real(path, opts)

    monkeypatch.setattr(run, "replay_file", replay_file)
    out = tmp_path / "out"
    summary = run_replay([str(d)], out, ReplayOptions(), workers=2, quiet=True)
    assert summary["games"] == expected["games"] == len(src) * 5
    _, moves, by = _rows(out)
    assert by[crash]["status"] == "error" and by[crash]["error"].startswith("WORKER_CRASHED"), by[crash]
    _, alone_moves, alone_by = _rows(alone)
    for name, row in alone_by.items():
        if name != crash:
            assert by[name] == row, name
    assert moves.equals(alone_moves.filter(~alone_moves["file"].str.ends_with("/" + crash)))


def test_row_groups_do_not_depend_on_workers(tmp_path, fixtures, monkeypatch):
    """Row groups of GROUP_GAMES games (here 7, to cut many groups from a few files, and runs of
    files that straddle them): one row group per 7 games, moves cut at the same games, the same
    bytes with 1 and 2 workers, and the same rows as one big row group."""
    import polars as pl
    import pyarrow.parquet as pq

    import pipelines.replay.tables as tables
    from pipelines.replay import ReplayOptions, run_replay

    d = tmp_path / "in"
    d.mkdir()
    names = sorted(p.name for p in (fixtures / "gcg").glob("*.gcg"))[:20]
    for i in range(3):
        for n in names:
            shutil.copy(fixtures / "gcg" / n, d / f"{i}_{n}")
    total = 3 * len(names)
    run_replay([str(d)], tmp_path / "one", ReplayOptions(), workers=1, quiet=True)  # default: one group
    monkeypatch.setattr(tables, "GROUP_GAMES", 7)
    monkeypatch.setattr(tables.TableWriter.__init__, "__defaults__", (False, 7))
    for w in (1, 2):
        run_replay([str(d)], tmp_path / f"w{w}", ReplayOptions(), workers=w, quiet=True)
    for name in ("games.parquet", "moves.parquet"):
        assert (tmp_path / "w1" / name).read_bytes() == (tmp_path / "w2" / name).read_bytes(), name
        assert pl.read_parquet(tmp_path / "w1" / name).equals(pl.read_parquet(tmp_path / "one" / name)), name
    g = pq.ParquetFile(tmp_path / "w1" / "games.parquet")
    m = pq.ParquetFile(tmp_path / "w1" / "moves.parquet")
    sizes = [g.metadata.row_group(i).num_rows for i in range(g.num_row_groups)]
    assert sizes == [7] * (total // 7) + ([total % 7] if total % 7 else [])
    # the moves of group k are the moves of the games of group k
    for k in range(g.num_row_groups):
        files = set(g.read_row_group(k, columns=["file"]).column("file").to_pylist())
        mfiles = set(m.read_row_group(k, columns=["file"]).column("file").to_pylist())
        assert mfiles <= files


def test_a_value_the_schema_cannot_hold_is_an_error_row(fixtures):
    """to_batch on its own (whatever the readers let through): a final score of 2**31 in a game
    row, or 2**31 as a move's recorded score, does not fit int32 (the schema's score columns): that
    game becomes an error row naming the column, its moves are dropped, the others are kept."""
    import pyarrow as pa

    from pipelines.replay import GameResult, ReplayOptions, replay_file, to_batch

    good = replay_file(str(fixtures / "gcg" / "base.gcg"), ReplayOptions())
    big = GameResult(dict(good.game_row, file="big_total.gcg", score1=2**31))
    keys = tuple(good.move_rows[0])
    rows = [tuple(r.values()) for r in good.move_rows]
    i = keys.index("score_recorded")
    bad_move = GameResult.packed(
        dict(good.game_row, file="big_move.gcg"),
        keys,
        [r[:i] + (2**31,) + r[i + 1 :] if t == 0 else r for t, r in enumerate(rows)],
        [],
        None,
    )
    batch = to_batch([good, big, bad_move, good])
    games = pa.Table.from_batches([batch.games]).to_pylist()
    assert [g["status"] for g in games] == ["ok", "error", "error", "ok"]
    assert games[1]["error"].startswith("TABLE_VALUE_INVALID: games.score1 = 2147483648: does not fit the column type int32")
    assert games[2]["error"].startswith("TABLE_VALUE_INVALID: moves.score_recorded of event 1 = 2147483648")
    assert games[1]["file"] == "big_total.gcg" and games[0] == games[3] == {**good.game_row}
    assert batch.events == [11, 0, 0, 11] and batch.moves.num_rows == 22  # base.gcg: 11 events
