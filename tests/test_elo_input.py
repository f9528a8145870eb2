"""``skrafl elo`` on absurd input: option ranges, games tables with absurd
numbers, types and bytes, damaged states, a full disk, and NFD/NFC player names.

Every failure must be one line naming what is wrong (file, row, column for a table), exit status
2 from the command, never a traceback. Expected ratings are hand arithmetic on the rules of
docs/NETSKRAFL.md §5.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import polars as pl
import pytest
from clirun import reseal

from gamecore.errors import SkraflError
from pipelines import elo

COLUMNS = list(elo.GAME_COLUMNS)
HEADER = ",".join(COLUMNS)
T = "2024-03-01T12:00:00Z"


def csv_file(path: Path, lines: list[str]) -> Path:
    path.write_bytes(("\n".join([HEADER, *lines]) + "\n").encode("utf-8"))
    return path


def jsonl_file(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def record(gid: str = "g1", p0: str = "a", p1: str = "b", s0=300, s1=200, **extra) -> dict:
    rec = {
        "game_id": gid,
        "finished_at": T,
        "player0": p0,
        "player1": p1,
        "robot0": False,
        "robot1": False,
        "score0": s0,
        "score1": s1,
        "competition": False,
    }
    rec.update(extra)
    return rec


GOOD = "g0,2024-03-01T10:00:00Z,a,b,false,false,300,200,false"


# --------------------------------------------------------------------------------------------
# Options: a documented range each, one line and exit 2 outside it
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "option, value",
    [
        ("--start", "99999999999999999999"),
        ("--k", "99999999999999999999"),
        ("--k-beginner", "99999999999999999999"),
        ("--established-after", "99999999999999999999"),
        ("--scale", "1e-300"),
        ("--scale", "inf"),
        ("--scale", "nan"),
        ("--scale", "-400"),
        ("--start", "-1"),
        ("--k", "1001"),
    ],
)
def test_option_out_of_range_is_one_line(tmp_path, fixtures, option, value):
    from clirun import run_skrafl_here

    res = run_skrafl_here(
        "elo", "--games", str(fixtures / "elo" / "games.csv"), "--out", str(tmp_path / "out"), option, value, "-q"
    )
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("skrafl: error:") and option in lines[0], res.stderr
    assert not (tmp_path / "out").exists()


def test_cli_ranges_are_the_library_ranges():
    import typer

    from cli import elo as cli_elo

    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        pass

    cli_elo.register(app)
    command = typer.main.get_command(app).commands["elo"]
    seen = {}
    for param in command.params:
        name = param.name
        if name in elo.rating.PARAM_RANGES:
            seen[name] = (param.type.min, param.type.max)
    assert seen == {k: (lo, hi) for k, (lo, hi) in elo.rating.PARAM_RANGES.items()}


def test_params_check_ends_and_types():
    lo, hi = elo.rating.PARAM_RANGES["k"]
    assert elo.params_for("netskrafl", k=hi, k_beginner=lo).k == hi  # both ends are allowed
    for bad in [
        dict(k=hi + 1),
        dict(scale=float("nan")),
        dict(scale=float("inf")),
        dict(scale=99.9),
        dict(start=10_001),
        dict(k=True),
        dict(start="1200"),
        dict(established_after=2.5),
    ]:
        with pytest.raises(SkraflError):
            elo.params_for("netskrafl", **bad)


# --------------------------------------------------------------------------------------------
# Games tables with absurd content: file, row, column in one line
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, column, what",
    [
        ("g1,2024-03-01T11:00:00Z,a,b,false,false,2147483648,200,false", "score0", "out of range"),
        ("g1,2024-03-01T11:00:00Z,a,b,false,false,300,-2147483649,false", "score1", "out of range"),
        ("g1,2024-03-01T11:00:00Z,a,b,false,false,300,99999999999999999999999999,false", "score1", "integer"),
        ("g1,2024-03-01T11:00:00Z,a\x00x,b,false,false,300,200,false", "player0", "NUL"),
        ("g\x001,2024-03-01T11:00:00Z,a,b,false,false,300,200,false", "game_id", "NUL"),
        ("g1,2024-03-01T11:00:00Z,a," + "b" * 257 + ",false,false,300,200,false", "player1", "longer than 256"),
    ],
)
def test_absurd_csv_values_name_file_row_column(tmp_path, line, column, what):
    p = csv_file(tmp_path / "g.csv", [GOOD, line])
    with pytest.raises(SkraflError, match=what) as err:
        elo.read_games(p)
    assert f"column {column!r}, row 2" in err.value.message
    assert (err.value.path, err.value.line) == (str(p), 3)


def test_scores_at_the_int32_ends_are_accepted(tmp_path):
    p = csv_file(tmp_path / "g.csv", ["g1,2024-03-01T11:00:00Z,a,b,false,false,2147483647,-2147483648,false"])
    frame = elo.read_games(p).frame
    assert frame["score0"].to_list() == [2**31 - 1] and frame["score1"].to_list() == [-(2**31)]


@pytest.mark.parametrize(
    "records, column, row, what",
    [
        ([record("g0"), record("g1", s0=10**25)], "score0", 2, "integer"),
        ([record("g0"), record("g1", s0=[1, 2])], "score0", 2, "list"),
        ([record("g0"), record("g1", p0={"name": "x"})], "player0", 2, "object"),
        ([record("g0"), record("g1", p1=["x"])], "player1", 2, "list"),
        ([record("g0", s0=True)], "score0", 1, "Boolean"),
        ([record("g0"), record("g1", p0="a\u0000b")], "player0", 2, "NUL"),
        ([record("g0"), record("g1", s1=2**40)], "score1", 2, "out of range"),
    ],
)
def test_absurd_json_values_name_file_row_column(tmp_path, records, column, row, what):
    p = jsonl_file(tmp_path / "g.jsonl", records)
    with pytest.raises(SkraflError, match=what) as err:
        elo.read_games(p)
    assert f"column {column!r}, row {row}" in err.value.message
    assert (err.value.path, err.value.line) == (str(p), row)


def test_broken_csv_names_the_line(tmp_path):
    p = csv_file(tmp_path / "g.csv", [GOOD, GOOD.replace("g0", "g1") + ",extra,fields"])
    with pytest.raises(SkraflError, match="fields") as err:
        elo.read_games(p)
    assert err.value.line == 3
    p = tmp_path / "latin1.csv"
    p.write_bytes(
        (HEADER + "\n" + GOOD + "\n").encode() + "g1,2024-03-01T11:00:00Z,J\xf3n,b,false,false,1,2,false\n".encode("latin-1")
    )
    with pytest.raises(SkraflError, match="UTF-8") as err:
        elo.read_games(p)
    assert err.value.line == 3


def test_absurd_table_through_the_command_is_one_line(tmp_path):
    from clirun import run_skrafl_here

    p = csv_file(tmp_path / "g.csv", [GOOD, "g1,2024-03-01T11:00:00Z,a,b,false,false,300,4294967296,false"])
    res = run_skrafl_here("elo", "--games", str(p), "--out", str(tmp_path / "out"), "-q")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip().splitlines() == [
        f"skrafl: error: {p}:3: column 'score1', row 2: score 4294967296 is out of range "
        "(-2147483648 to 2147483647, a signed 32-bit integer)"
    ]


def test_absurd_table_on_stdin_names_stdin_and_line(tmp_path):
    """A games table on standard input is named as the user gave it: ``-:LINE``, never the
    temporary file it is kept in for the run."""
    from clirun import run_skrafl_here

    text = "\n".join([HEADER, GOOD, "g1,2024-03-01T11:00:00Z,a,b,false,false,300,4294967296,false"]) + "\n"
    res = run_skrafl_here("elo", "--games", "-", "--out", str(tmp_path / "out"), "-q", stdin=text)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip().splitlines() == [
        "skrafl: error: -:3: column 'score1', row 2: score 4294967296 is out of range "
        "(-2147483648 to 2147483647, a signed 32-bit integer)"
    ]
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------------------------
# Damaged states
# --------------------------------------------------------------------------------------------


def _good_state(tmp_path: Path, fixtures: Path) -> Path:
    out = tmp_path / "prev"
    elo.run_elo(fixtures / "elo" / "games.csv", out)
    return out


def test_state_with_absurd_numbers_is_refused(tmp_path, fixtures):
    prev = _good_state(tmp_path, fixtures)
    ratings = pl.read_parquet(prev / "ratings.parquet")
    import shutil

    for i, (column, value) in enumerate([("rating", -5), ("rating", 10**9), ("games", 10**15)]):
        copy = tmp_path / f"bad{i}"
        shutil.copytree(prev, copy)
        ratings.with_columns(
            pl.when(pl.int_range(pl.len()) == 2).then(value).otherwise(pl.col(column)).alias(column)
        ).write_parquet(copy / "ratings.parquet")
        reseal(copy, "elo")
        with pytest.raises(SkraflError, match=f"column '{column}', row 3") as err:
            elo.load_state(copy)
        assert err.value.path == str(copy.resolve() / "ratings.parquet")


def test_state_with_absurd_parameters_is_refused(tmp_path, fixtures):
    prev = _good_state(tmp_path, fixtures)
    meta = json.loads((prev / "params.json").read_text())
    meta["params"]["k"] = 10**20
    (prev / "params.json").write_text(json.dumps(meta))
    reseal(prev, "elo")
    with pytest.raises(SkraflError, match="--k"):
        elo.load_state(prev)


def test_rating_beyond_the_scale_is_one_error(tmp_path):
    # Scale 100: Q = 10^(R/100) overflows a float above R ≈ 30,800. A state rating of 40,000 is
    # within the state's limits, but cannot be rated at this scale: a SkraflError, no traceback.
    from test_elo import write_games, write_state

    params = elo.params_for("netskrafl", scale=100.0)
    prev = write_state(tmp_path / "prev", {("all", "x"): (40_000, 50), ("all", "y"): (1200, 50)}, params)
    games = write_games(tmp_path / "g.csv", [("g", T, "x", "y", False, False, 2, 1, False)])
    with pytest.raises(SkraflError, match="scale"):
        elo.run_elo(games, tmp_path / "out", prev, params)


# --------------------------------------------------------------------------------------------
# A full disk: the OSError becomes one line from cli/main.py
# --------------------------------------------------------------------------------------------


def test_full_disk_is_one_line(tmp_path, fixtures, monkeypatch, capsys):
    import polars.exceptions

    from cli import main as cli_main

    def full(self, *args, **kwargs):
        raise polars.exceptions.ComputeError("parquet: underlying IO error: No space left on device (os error 28)")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", full)
    out = tmp_path / "out"
    monkeypatch.setattr(sys, "argv", ["skrafl", "elo", "--games", str(fixtures / "elo" / "games.csv"), "--out", str(out), "-q"])
    with pytest.raises(SystemExit) as exit_:
        cli_main.main()
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        f"skrafl: error: {out}: no space left on the device for this output: nothing was changed"  # no previous output
    ]
    assert not out.exists()


# --------------------------------------------------------------------------------------------
# Unicode: an NFD and an NFC spelling of one name are one player
# --------------------------------------------------------------------------------------------


def test_nfd_and_nfc_names_are_one_player(tmp_path):
    nfc = "Jón"
    nfd = unicodedata.normalize("NFD", nfc)
    assert nfd != nfc and len(nfd) == 4
    p = csv_file(
        tmp_path / "g.csv",
        [
            f"g1,2024-03-01T10:00:00Z,{nfc},anna,false,false,300,200,false",
            f"g2,2024-03-02T10:00:00Z,{nfd},bjorn,false,false,300,200,false",
        ],
    )
    out = tmp_path / "out"
    elo.run_elo(p, out)
    ratings = pl.read_parquet(out / "ratings.parquet").filter(pl.col("list") == "all")
    # One player with two games: 1200 → 1216 (beat anna, beginners, K 32), then beat bjorn at
    # 1216 vs 1200: E = 1/(1 + 10^(−16/400)) = 0.523 → round(0.477 × 32) = 15 → 1231.
    assert dict(zip(ratings["player"], ratings["rating"], strict=True)) == {nfc: 1231, "anna": 1184, "bjorn": 1185}
    assert dict(zip(ratings["player"], ratings["games"], strict=True))[nfc] == 2
    assert nfc in pl.read_csv(out / "top100_all.csv")["player"].to_list()
    rows = elo.explain_player(p, nfd, lists=["all"])  # --explain with the NFD spelling finds them too
    assert [(r["game_id"], r["rating"]) for r in rows] == [("g1", 1216), ("g2", 1231)]
