"""The command line: ``skrafl`` alone prints only the help; ``-`` for stdin in ``replay``
(a list of files) and ``elo`` (a table); ``-l`` for ``replay``; ``best --coords netskrafl`` and
``--quiet``; the Norwegian preset's documented tile set and the note for a placeholder set; the
hints for a folder that is not a language and for a robot's unbuilt vocabulary; replay without
--lang/--lexicon (the lexicon the files name, else a note); set-up metadata."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import polars as pl
import pytest
from clirun import run_skrafl_here

PROJECT = Path(__file__).resolve().parents[1]
FIXTURES = PROJECT / "tests" / "fixtures"


def test_no_arguments_prints_only_the_help():
    res = run_skrafl_here()
    assert "Usage: skrafl" in res.stdout and "Commands" in res.stdout
    assert "error" not in res.stderr and res.stderr.strip() == ""
    assert res.returncode in (0, 2)  # click's status for a bare group; no stray error line


def test_replay_reads_a_list_of_files_from_stdin(tmp_path, shared):
    recs = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))[:2]
    listing = "\n".join(str(p) for p in recs) + "\n\n" + str(FIXTURES / "gcg" / "base.gcg") + "\n"
    res = run_skrafl_here("replay", "-", "--out", str(tmp_path / "out"), "--no-lexicon", "-q", stdin=listing)
    assert res.returncode == 0, res.stderr
    games = pl.read_parquet(tmp_path / "out" / "games.parquet")
    assert games.height == 3 and games["status"].to_list() == ["ok"] * 3
    res = run_skrafl_here("replay", "-", "--out", str(tmp_path / "none"), stdin="")
    assert res.returncode == 2 and "stdin holds no path" in res.stderr


def test_elo_reads_a_table_from_stdin(tmp_path):
    csv = (FIXTURES / "elo" / "games.csv").read_text(encoding="utf-8")
    res = run_skrafl_here("elo", "--games", "-", "--out", str(tmp_path / "a"), "-q", stdin=csv)
    assert res.returncode == 0, res.stderr
    ref = run_skrafl_here("elo", "--games", str(FIXTURES / "elo" / "games.csv"), "--out", str(tmp_path / "b"), "-q")
    assert ref.returncode == 0
    a, b = (pl.read_parquet(tmp_path / d / "ratings.parquet").drop("as_of") for d in ("a", "b"))
    assert a.equals(b)
    jl = (FIXTURES / "elo" / "games.jsonl").read_text(encoding="utf-8")
    res = run_skrafl_here("elo", "-g", "-", "--explain", "anna", "-f", "json", stdin=jl)
    assert res.returncode == 0, res.stderr
    assert [r["opponent"] for r in json.loads(res.stdout) if r["list"] == "all"] == ["bjorn", "Fullsterkur"]
    res = run_skrafl_here("elo", "-g", "-", "--out", str(tmp_path / "c"), stdin="")
    assert res.returncode == 2 and "stdin is empty" in res.stderr


def test_replay_has_short_lang_option():
    res = run_skrafl_here("replay", "--help")
    assert "-l" in res.stdout and "--lang" in res.stdout


def test_replay_without_lang_uses_the_lexicon_the_files_name(tmp_path, shared):
    from cli.common import output_root

    rec = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))[0]
    res = run_skrafl_here("replay", str(rec), "--out", str(tmp_path / "a"))
    built = (output_root() / "is" / "manifest.json").is_file()
    if built:
        assert "words checked with" in res.stderr
        assert pl.read_parquet(tmp_path / "a" / "games.parquet")["unknown_words"][0] is not None
    res = run_skrafl_here(
        "replay", str(FIXTURES / "gcg" / "base.gcg"), "--out", str(tmp_path / "b"), output_root=tmp_path / "nothing"
    )
    assert res.returncode == 0
    assert res.stderr.count("words are not checked") == 1 and "'en'" in res.stderr  # #lexicon CSW21 → en, not built
    res = run_skrafl_here("replay", str(FIXTURES / "gcg" / "base.gcg"), "--out", str(tmp_path / "c"), "--no-lexicon")
    assert "words are not checked" not in res.stderr


def test_replay_game_coords_netskrafl():
    from pipelines.replay.game import replay_game
    from pipelines.replay.read import read_game_file

    g = read_game_file(FIXTURES / "gcg" / "base.gcg")
    assert [m["coord"] for m in replay_game(g, coords="netskrafl").move_rows][:2] == ["H4", "7G"]  # 8D across, G7 down
    assert [m["coord"] for m in replay_game(g).move_rows][:2] == ["8D", "G7"]


@pytest.fixture(scope="module")
def tiny_en(tmp_path_factory):
    pytest.importorskip("gamecore.movegen")
    d = tmp_path_factory.mktemp("lex")
    (d / "words.txt").write_text("word\nwords\nsword\nrow\nrows\nworm\nworms\ntow\ntwo\n", encoding="utf-8")
    res = run_skrafl_here("build", "en", "--source", "wordlist", "--input", str(d / "words.txt"), "--out", str(d / "en"), "-q")
    assert res.returncode == 0, res.stderr
    return d / "en"


def _board(tmp_path: Path) -> Path:
    rows = ["." * 15 for _ in range(15)]
    rows[7] = "....WORD......."
    p = tmp_path / "b.board"
    p.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return p


def test_best_coords_netskrafl_and_quiet(tiny_en, tmp_path):
    from gamecore.coords import gcg_to_netskrafl

    b = _board(tmp_path)
    gcg = run_skrafl_here("best", "--lexicon", str(tiny_en), "--board", str(b), "--rack", "SWORTMO", "-f", "tsv", "-n", "5")
    nsk = run_skrafl_here(
        "best",
        "--lexicon",
        str(tiny_en),
        "--board",
        str(b),
        "--rack",
        "SWORTMO",
        "-f",
        "tsv",
        "-n",
        "5",
        "--coords",
        "netskrafl",
        "-q",
    )
    assert gcg.returncode == nsk.returncode == 0, gcg.stderr + nsk.stderr
    g_rows = [line.split("\t") for line in gcg.stdout.splitlines()[1:]]
    n_rows = [line.split("\t") for line in nsk.stdout.splitlines()[1:]]
    assert g_rows and [r[1:] for r in g_rows] == [r[1:] for r in n_rows]
    assert [gcg_to_netskrafl(r[0]) for r in g_rows] == [r[0] for r in n_rows]
    assert any(a[0] != b_[0] for a, b_ in zip(g_rows, n_rows, strict=True))


def test_norwegian_preset_uses_nsf_and_the_placeholder_is_noted(tiny_en, tmp_path):
    from gamecore.rules import load_rules

    assert load_rules("ordspill").tile_set == "norwegian_nsf" and load_rules("ordspill").placeholder_note() is None
    ph = load_rules("ordspill_104")
    assert ph.tile_set == "norwegian_wordfeud_104" and "placeholder" in ph.placeholder_note()
    assert "UNCONFIRMED" in ph.description
    res = run_skrafl_here(
        "best",
        "--lexicon",
        str(tiny_en),
        "--board",
        str(_board(tmp_path)),
        "--rack",
        "SORTMO",
        "--rules",
        "ordspill_104",
        "-n",
        "1",
    )
    assert res.returncode == 0, res.stderr
    assert res.stderr.count("note:") == 1 and "placeholder" in res.stderr
    quiet = run_skrafl_here(
        "best",
        "--lexicon",
        str(tiny_en),
        "--board",
        str(_board(tmp_path)),
        "--rack",
        "SORTMO",
        "--rules",
        "ordspill_104",
        "-n",
        "1",
        "-q",
    )
    assert "note:" not in quiet.stderr


def test_hints_name_a_language_only_when_it_is_one(tmp_path):
    (tmp_path / "tmp").mkdir()
    res = run_skrafl_here("check", "--lexicon", str(tmp_path / "tmp"), "hestur")
    assert res.returncode == 2 and "skrafl build tmp" not in res.stderr and "skrafl build LANG" in res.stderr
    (tmp_path / "is").mkdir()
    res = run_skrafl_here("check", "--lexicon", str(tmp_path / "is"), "hestur")
    assert res.returncode == 2 and "skrafl build is" in res.stderr


def test_robot_hint_says_how_to_build_the_vocabulary(tmp_path):
    """A lexicon folder of a language whose recipes include the robot's (lexicon_sources/is/
    amlodi.toml) but without the tier built: the hint names 'skrafl build is'; for a language
    without such a recipe, how to add one."""
    from cli.best import Robot, _vocabulary_dir
    from gamecore.errors import UsageError

    lex = tmp_path / "is"
    lex.mkdir()
    (lex / "manifest.json").write_text(json.dumps({"language": "is"}), encoding="utf-8")
    with pytest.raises(UsageError) as err:
        _vocabulary_dir(Robot.amlodi, None, lex)
    assert "skrafl build is" in err.value.message and "amlodi.toml" in err.value.message
    other = tmp_path / "xx"
    other.mkdir()
    with pytest.raises(UsageError) as err:
        _vocabulary_dir(Robot.midlungur, None, other)
    assert "--vocabulary DIR" in err.value.message and "midlungur.toml recipe" in err.value.message


def test_setup_metadata():
    meta = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["license"] == "MIT"  # an SPDX string, not a table (setuptools' warning)
    make = (PROJECT / "Makefile").read_text(encoding="utf-8")
    assert "editable_mode=compat" not in make
    run = make.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert run.splitlines()[0].strip() == "setup lexicons"  # incremental: the file targets decide
    assert "skrafl ingest is\n" not in run and "skrafl build is\n" not in run


def test_options_alike_across_commands():
    """-l/--lang wherever --lang exists; --format/-f with the default table where there is a
    table to print; --quiet/-q on this issue's commands (best, replay, elo)."""
    import typer

    from cli.main import app

    cmd = typer.main.get_command(app)
    for name, c in cmd.commands.items():
        opts = {o for p in c.params for o in getattr(p, "opts", [])}
        if "--lang" in opts:
            assert "-l" in opts, name
        for p in c.params:
            if "--format" in getattr(p, "opts", []):
                # one default per kind of output: tables for people; word lists (check's WORD<TAB>VALID
                # lines, find's words) one per line, tsv
                want = "tsv" if name in ("check", "find") else "table"
                assert "-f" in p.opts and str(getattr(p.default, "value", p.default)) == want, name
    for name in ("best", "replay", "elo"):
        opts = {o for p in cmd.commands[name].params for o in getattr(p, "opts", [])}
        assert {"--quiet", "-q"} <= opts, name


def test_replay_stdin_paths_are_taken_as_spelled(tmp_path):
    """A file whose name is in NFD (y + combining acute) is found from its path on stdin: paths are
    not put in NFC (the words of a game are; a file name is the file system's)."""
    import unicodedata

    name = unicodedata.normalize("NFD", "ýfir.gcg")
    p = tmp_path / name
    p.write_bytes((FIXTURES / "gcg" / "base.gcg").read_bytes())
    res = run_skrafl_here("replay", "-", "--out", str(tmp_path / "out"), "--no-lexicon", "-q", stdin=str(p) + "\n")
    assert res.returncode == 0, res.stderr


def test_replay_coords_netskrafl_gives_the_records_own_coordinates(tmp_path, shared):
    """`replay --coords netskrafl` writes coord in Netskrafl's order; on a Netskrafl
    record that is the record's own `coord` of every tile play (an independent source)."""
    import json

    import polars as pl

    src = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))[0]
    record = json.loads(src.read_text(encoding="utf-8"))
    expected = [
        m["coord"]
        for m in record["moves"]
        if m.get("coord") and m["coord"][0].isalnum() and m.get("tiles", "").strip("*") not in ("", "-")
    ]
    for order in ("gcg", "netskrafl"):
        r = run_skrafl_here("replay", str(src), "--out", str(tmp_path / order), "--no-lexicon", "--coords", order, "-q")
        assert r.returncode in (0, 1), r.stderr
    plays = lambda o: pl.read_parquet(tmp_path / o / "moves.parquet").filter(pl.col("kind") == "play")["coord"].to_list()  # noqa: E731
    ours = plays("netskrafl")
    assert ours[: len(expected)] == expected[: len(ours)] and len(ours) >= 5
    assert plays("gcg") != ours
    r = run_skrafl_here("replay", str(src), "--out", str(tmp_path / "x"), "--coords", "latin", "--no-lexicon")
    assert r.returncode == 2 and "expected gcg or netskrafl" in r.stderr
