"""``skrafl replay``'s exports and repeated inputs: ``--export-svg`` inside or around a new
``--out`` failed after the tables were written; the same file named twice was replayed twice;
``--export-gcg`` gave a game without ``#id`` another id when read again; an error named a command
``skrafl replay-svg`` that does not exist.

Expected values come from the README's guarantees (a run that exits 2 writes nothing; each output
is a whole folder of its own), docs/GCG.md (§2: the pragmas and their meaning, ``#id authority id``)
and the shared corpora (10 Netskrafl records; 52 GCG files; ``boys1.gcg`` known as
``…boys1.gcg#5a4a…`` as the trial recorded)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from cli.main import app


class _Runner:
    """``CliRunner`` with the entry point's error rule (:func:`cli.main.main`): a
    :class:`~gamecore.errors.SkraflError` is one line ``skrafl: error: …`` and exit status 2."""

    def __init__(self) -> None:
        self.runner = CliRunner()

    def invoke(self, app, args, **kwargs):
        from types import SimpleNamespace

        from gamecore.errors import SkraflError

        res = self.runner.invoke(app, args, **kwargs)
        if isinstance(res.exception, SkraflError):
            return SimpleNamespace(exit_code=2, output=f"{res.output}skrafl: error: {res.exception}\n")
        return res


runner = _Runner()


def _records(shared: Path, tmp_path: Path) -> Path:
    ns = tmp_path / "ns"
    ns.mkdir()
    for f in sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json")):
        shutil.copy(f, ns / f.name)
    assert len(list(ns.iterdir())) == 10  # the corpus: 10 records
    return ns


def _tree(folder: Path) -> list[str]:
    """Every entry under ``folder``, hidden ones too (a generation, a lock)."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


@pytest.fixture
def ns(shared, tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return _records(shared, tmp_path)


# ---------------------------------------------------------------------------------------------
# 1. every output checked before any work, all committed together: exit 2 writes nothing


@pytest.mark.parametrize(
    "out, svg",
    [
        ("xs9/inner", "xs9"),  # the pictures around a new --out
        ("rpz", "rpz/svg"),  # the pictures inside a new --out
        ("same", "same"),
    ],
)
def test_export_svg_in_or_around_a_new_out_is_refused_before_any_work(ns, tmp_path, out, svg):
    before = _tree(tmp_path)
    res = runner.invoke(app, ["replay", "ns", "--out", out, "--no-lexicon", "-q", "--export-svg", svg])
    assert res.exit_code == 2, res.output
    assert f"--export-svg {svg}: must be apart from --out {out}" in res.output
    assert _tree(tmp_path) == before  # nothing written: no table, no generation, no folder


def test_export_svg_and_export_gcg_must_be_apart(ns, tmp_path):
    before = _tree(tmp_path)
    for gcg, svg in (("x", "x/svg"), ("y/gcg", "y"), ("z", "z")):
        res = runner.invoke(app, ["replay", "ns", "--out", "o", "--no-lexicon", "-q", "--export-gcg", gcg, "--export-svg", svg])
        assert res.exit_code == 2, res.output
        assert f"--export-svg {svg}: must be apart from --export-gcg {gcg}" in res.output
    assert _tree(tmp_path) == before


def test_export_svg_inside_an_earlier_out_is_refused_and_changes_nothing(ns, tmp_path):
    res = runner.invoke(app, ["replay", "ns", "--out", "r", "--no-lexicon", "-q"])
    assert res.exit_code == 0, res.output
    before = _tree(tmp_path)
    res = runner.invoke(app, ["replay", "ns", "--out", "r", "--no-lexicon", "-q", "--export-svg", "r/svg"])
    assert res.exit_code == 2, res.output
    assert "must be apart from --out r" in res.output
    assert _tree(tmp_path) == before


def test_a_failure_of_the_pictures_discards_the_tables_and_the_gcg_export(ns, tmp_path, monkeypatch):
    """The pictures are drawn after the tables: an error there (here the pictures' output refused
    as the run ends, as a folder appearing meanwhile would be) must not leave the tables or the
    GCG export of the failed run behind."""
    import cli.show
    from gamecore.errors import UsageError

    def refused(*args, **kwargs):
        raise UsageError("svg: is a folder of files that skrafl did not write; give a new or empty folder (nothing was changed)")

    monkeypatch.setattr(cli.show, "export_game_pictures", refused)
    before = _tree(tmp_path)
    res = runner.invoke(app, ["replay", "ns", "--out", "o", "--no-lexicon", "-q", "--export-gcg", "g", "--export-svg", "svg"])
    assert res.exit_code == 2, res.output
    assert _tree(tmp_path) == before


def test_export_svg_still_drawn_and_the_tables_written(ns, tmp_path):
    res = runner.invoke(app, ["replay", "ns", "--out", "o", "--no-lexicon", "--export-svg", "svg"])
    assert res.exit_code == 0, res.output
    assert "10 pictures → svg" in res.output
    assert sorted(p.name for p in (tmp_path / "svg").iterdir() if p.suffix == ".svg") == sorted(
        p.stem + ".svg" for p in ns.iterdir()
    )
    assert pl.read_parquet(tmp_path / "o" / "games.parquet").height == 10


# ---------------------------------------------------------------------------------------------
# 2. each file replayed once, by its resolved path


def _files(folder: Path) -> list[str]:
    return pl.read_parquet(folder / "games.parquet")["file"].to_list()


def test_a_folder_named_three_ways_is_replayed_once(ns, tmp_path):
    res = runner.invoke(app, ["replay", "ns", "ns/", "./ns", "--out", "o", "--no-lexicon"])
    assert res.exit_code == 0, res.output
    names = sorted(f"ns/{p.name}" for p in ns.iterdir())
    assert _files(tmp_path / "o") == names  # the first name each file was found by, in order
    assert "20 repeated name(s)" in res.output
    assert "replay: 10 games" in res.output


def test_stdin_and_a_link_to_a_file_do_not_repeat_a_game(ns, tmp_path):
    first = sorted(ns.iterdir())[0]
    os.symlink(first, tmp_path / "link.json")
    res = runner.invoke(app, ["replay", "-", "ns", "link.json", "--out", "o", "--no-lexicon"], input="ns\n")
    assert res.exit_code == 0, res.output
    assert _files(tmp_path / "o") == sorted(f"ns/{p.name}" for p in ns.iterdir())
    assert "11 repeated name(s)" in res.output
    # a link inside the folder names a file of the folder: read once too
    os.symlink(first.name, ns / "again.json")
    res = runner.invoke(app, ["replay", "ns", "--out", "o2", "--no-lexicon", "-q"])
    assert res.exit_code == 0, res.output
    assert len(_files(tmp_path / "o2")) == 10


def test_a_hard_link_is_the_same_game(ns, tmp_path):
    """A hard link is the same file (device and inode), as a symbolic link is: one game."""
    first = sorted(ns.iterdir())[0]
    (tmp_path / "hl").mkdir()
    os.link(first, tmp_path / "hl" / "a.json")
    os.link(first, tmp_path / "hl" / "b.json")
    res = runner.invoke(app, ["replay", "hl", "--out", "o", "--no-lexicon"])
    assert res.exit_code == 0, res.output
    assert _files(tmp_path / "o") == ["hl/a.json"]
    assert "1 repeated name(s)" in res.output
    res = runner.invoke(app, ["replay", "ns", "hl", "--out", "o2", "--no-lexicon"])
    assert res.exit_code == 0, res.output
    assert len(_files(tmp_path / "o2")) == 10 and "2 repeated name(s)" in res.output


def test_the_order_is_that_of_the_arguments(ns, tmp_path):
    from pipelines.replay.read import collect_game_files

    one, two = sorted(ns.iterdir())[:2]
    files, repeats = collect_game_files([str(two), "ns", str(one)])
    assert files[0] == str(two) and len(files) == 10 and repeats == 2
    assert files[1:] == [f"ns/{p.name}" for p in sorted(ns.iterdir()) if p != two]
    assert collect_game_files([str(two), "ns", str(one)]) == (files, repeats)  # the same again


def test_no_repeat_no_note(ns, tmp_path):
    res = runner.invoke(app, ["replay", "ns", "--out", "o", "--no-lexicon"])
    assert res.exit_code == 0, res.output
    assert "repeated" not in res.output


# ---------------------------------------------------------------------------------------------
# 3. --export-gcg keeps the game: its pragmas and its id


# the pragmas of docs/GCG.md §2 that say something of the game (not #character-encoding, which the
# writer always gives; not #tile-set/#game-board/#-, ignored; not #note, an event's)
GAME_PRAGMAS = (
    "title",
    "description",
    "id",
    "lexicon",
    "game-type",
    "board-layout",
    "tile-distribution",
    "tile",
    "incomplete",
    "challenge-rule",
)


def _by_name(folder: Path) -> dict[str, dict]:
    rows = pl.read_parquet(folder / "games.parquet").to_dicts()
    return {Path(r["file"]).stem: r for r in rows}


def test_gcg_export_keeps_each_games_id_and_pragmas(shared, tmp_path, monkeypatch):
    from gamecore.gcg import read_gcg

    monkeypatch.chdir(tmp_path)
    corpus = shared / "corpora" / "gcg"
    assert len(list(corpus.glob("*.gcg"))) == 52
    res = runner.invoke(app, ["replay", str(corpus), "--out", "a", "--no-lexicon", "-q", "--export-gcg", "x"])
    assert res.exit_code in (0, 1), res.output
    res = runner.invoke(app, ["replay", "x", "--out", "b", "--no-lexicon", "-q"])
    assert res.exit_code in (0, 1), res.output
    first, again = _by_name(tmp_path / "a"), _by_name(tmp_path / "b")
    assert len(first) == len(again) == 52
    assert first["quackle_quackle__test_positions_boys1"]["game_id"].startswith("quackle_quackle__test_positions_boys1.gcg#5a4a")
    changed = {k: (first[k]["game_id"], again[k]["game_id"]) for k in first if first[k]["game_id"] != again[k]["game_id"]}
    assert changed == {}
    for name in ("quackle_quackle__test_positions_boys1", "domino14_macondo__gcgio_testdata_incomplete_elise"):
        src = read_gcg(corpus / f"{name}.gcg")
        exp = read_gcg(tmp_path / "x" / f"{name}.gcg")
        assert exp.incomplete == src.incomplete
        for p in GAME_PRAGMAS:
            if p != "id":
                assert exp.pragmas.get(p) == src.pragmas.get(p), (name, p)
    boys1 = read_gcg(corpus / "quackle_quackle__test_positions_boys1.gcg")
    assert boys1.incomplete and "Human vs. Computer Showdown" in boys1.pragmas["description"]
    for src_path in sorted(corpus.glob("*.gcg")):
        src, exp = read_gcg(src_path), read_gcg(tmp_path / "x" / src_path.name)
        assert exp.incomplete == src.incomplete, src_path.name
        for p in GAME_PRAGMAS:
            if p == "id" and "id" not in src.pragmas:
                continue  # the id replay gave it, written as #id skrafl.replay …: checked above
            assert exp.pragmas.get(p) == src.pragmas.get(p), (src_path.name, p)


def test_a_renamed_export_is_still_the_same_game(shared, tmp_path, monkeypatch):
    """The id of a game without #id no longer hangs on the export's file name or its rewritten
    lines (a second game of the same stem is exported as NAME-2.gcg)."""
    monkeypatch.chdir(tmp_path)
    src = shared / "corpora" / "gcg" / "quackle_quackle__test_positions_boys1.gcg"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(src, tmp_path / "a" / "game.gcg")
    shutil.copy(src, tmp_path / "b" / "game.gcg")
    res = runner.invoke(app, ["replay", "a", "b", "--out", "o", "--no-lexicon", "-q", "--export-gcg", "x"])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (tmp_path / "x").iterdir() if p.suffix == ".gcg") == ["game-2.gcg", "game.gcg"]
    res = runner.invoke(app, ["replay", "x", "--out", "o2", "--no-lexicon", "-q"])
    assert res.exit_code == 0, res.output
    ids = set(pl.read_parquet(tmp_path / "o" / "games.parquet")["game_id"].to_list())
    assert len(ids) == 1
    assert set(pl.read_parquet(tmp_path / "o2" / "games.parquet")["game_id"].to_list()) == ids


def test_netskrafl_record_ids_survive_the_export(ns, tmp_path):
    """A record with a game_id keeps it (#id is.netskrafl GAME_ID); one without is known by its
    name and content, and keeps that too (it came back as 'is.netskrafl')."""
    first = sorted(ns.iterdir())[0]
    data = json.loads(first.read_text(encoding="utf-8"))
    gid = data.pop("game_id")
    assert first.name == f"game_{gid}.json"
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "no_id.json").write_text(json.dumps(data), encoding="utf-8")
    res = runner.invoke(app, ["replay", "ns", "bare", "--out", "a", "--no-lexicon", "-q", "--export-gcg", "x"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["replay", "x", "--out", "b", "--no-lexicon", "-q"])
    assert res.exit_code == 0, res.output
    a, b = _by_name(tmp_path / "a"), _by_name(tmp_path / "b")
    assert a[first.stem]["game_id"] == gid and b[first.stem]["game_id"] == gid
    assert a["no_id"]["game_id"].startswith("no_id.json#")
    assert b["no_id"]["game_id"] == a["no_id"]["game_id"]
    assert {k: r["game_id"] for k, r in a.items()} == {k: r["game_id"] for k, r in b.items()}


# ---------------------------------------------------------------------------------------------
# 4. errors name commands that exist


def test_errors_name_replay_export_svg_not_replay_svg(ns, tmp_path):
    res = runner.invoke(app, ["replay", "ns", "--out", "r", "--no-lexicon", "-q", "--export-svg", "s"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["replay", "ns", "--out", "r2", "--no-lexicon", "-q", "--export-svg", "r"])
    assert res.exit_code == 2
    assert "'skrafl replay --export-svg' writes only its own outputs" in res.output
    res = runner.invoke(app, ["replay", "ns", "--out", "s", "--no-lexicon", "-q"])
    assert res.exit_code == 2
    assert "is the output of 'skrafl replay --export-svg'" in res.output
    res = runner.invoke(app, ["replay", "ns", "--out", "r3", "--no-lexicon", "-q", "--export-gcg", "s"])
    assert res.exit_code == 2
    assert "'skrafl replay --export-gcg' writes only its own outputs" in res.output
    for bad in ("'skrafl replay-svg'", "'skrafl replay-export'"):
        assert bad not in res.output


# ---------------------------------------------------------------------------------------------
# 5. a stop: before the commits nothing is written; during them, held until all are in place


def _signal_at_commit(monkeypatch, when: str, signum: int) -> None:
    """Send ``signum`` to this process as the output of command ``when`` is committed."""
    import signal  # noqa: F401  (the numbers)

    import pipelines.atomic as atomic

    real = atomic._commit

    def commit(stage, visible, command):
        if command == when:
            os.kill(os.getpid(), signum)
        return real(stage, visible, command)

    monkeypatch.setattr(atomic, "_commit", commit)


@pytest.mark.parametrize("when", ["replay", "replay-export", "replay-svg"])
def test_a_stop_during_the_commits_is_held_until_every_output_is_in_place(ns, tmp_path, monkeypatch, when):
    import signal

    _signal_at_commit(monkeypatch, when, signal.SIGTERM)
    res = runner.invoke(app, ["replay", "ns", "--out", "o", "--no-lexicon", "-q", "--export-gcg", "g", "--export-svg", "svg"])
    assert res.exit_code == 128 + signal.SIGTERM, res.output
    assert "stopped by SIGTERM as its outputs were committed; they are complete and in place" in res.output
    assert pl.read_parquet(tmp_path / "o" / "games.parquet").height == 10
    assert len(list((tmp_path / "g").glob("*.gcg"))) == 10
    assert len(list((tmp_path / "svg").glob("*.svg"))) == 10
    assert not [p for p in tmp_path.iterdir() if ".gen-" in p.name and not p.is_dir()]


def test_a_stop_while_the_pictures_are_drawn_writes_nothing(ns, tmp_path, monkeypatch):
    import signal

    import gamecore.picture

    real = gamecore.picture.board_svg
    calls = []

    def board_svg(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            os.kill(os.getpid(), signal.SIGINT)
        return real(*args, **kwargs)

    monkeypatch.setattr(gamecore.picture, "board_svg", board_svg)
    before = _tree(tmp_path)
    res = runner.invoke(app, ["replay", "ns", "--out", "o", "--no-lexicon", "-q", "--export-gcg", "g", "--export-svg", "svg"])
    assert res.exit_code == 128 + signal.SIGINT, res.output
    assert "stopped by SIGINT; nothing written" in res.output
    assert _tree(tmp_path) == before


def test_other_commands_name_replay_export_svg_too(ns, tmp_path):
    """The marker's command is named as a user runs it in every message, not only replay's."""
    from clirun import run_skrafl_here

    res = runner.invoke(app, ["replay", "ns", "--out", "r", "--no-lexicon", "-q", "--export-svg", "s"])
    assert res.exit_code == 0, res.output
    words = tmp_path / "w.txt"
    words.write_text("hestur\n", encoding="utf-8")
    r = run_skrafl_here("ingest", "is", "--source", "wordlist", "--input", str(words), "--out", str(tmp_path / "s"), "-q")
    assert r.returncode == 2
    assert "is the output of 'skrafl replay --export-svg'" in r.stderr and "replay-svg" not in r.stderr
    r = run_skrafl_here("check", "--lexicon", str(tmp_path / "s"), "hestur")
    assert r.returncode == 2 and "replay-svg" not in r.stderr, r.stderr


def test_an_empty_netskrafl_id_is_no_id(ns, tmp_path):
    """``"game_id": ""`` names no game: known by file and content, before and after the export
    (it came back as the id 'is.netskrafl', one for every such record)."""
    data = json.loads(sorted(ns.iterdir())[0].read_text(encoding="utf-8"))
    (tmp_path / "blank").mkdir()
    for name, gid in (("empty", ""), ("spaces", "   ")):
        (tmp_path / "blank" / f"{name}.json").write_text(json.dumps(dict(data, game_id=gid)), encoding="utf-8")
    res = runner.invoke(app, ["replay", "blank", "--out", "a", "--no-lexicon", "-q", "--export-gcg", "x"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["replay", "x", "--out", "b", "--no-lexicon", "-q"])
    assert res.exit_code == 0, res.output
    a, b = _by_name(tmp_path / "a"), _by_name(tmp_path / "b")
    assert a["empty"]["game_id"].startswith("empty.json#") and a["spaces"]["game_id"].startswith("spaces.json#")
    assert {k: r["game_id"] for k, r in a.items()} == {k: r["game_id"] for k, r in b.items()}


def test_gcg_export_keeps_the_notes_before_the_first_move_and_unknown_pragmas(shared, tmp_path, monkeypatch):
    """Found by the eleventh trial: the #note lines before the first move (a Woogles export's
    Variant/BoardLayout/LetterDistribution) and an unknown pragma (Quackle's #style) were not in
    the export. Every note's text of every corpus game reads back the same."""
    from gamecore.gcg import read_gcg

    monkeypatch.chdir(tmp_path)
    corpus = shared / "corpora" / "gcg"
    res = runner.invoke(app, ["replay", str(corpus), "--out", "a", "--no-lexicon", "-q", "--export-gcg", "x"])
    assert res.exit_code in (0, 1), res.output
    woogles = (tmp_path / "x" / "andy-k_wolges__src_main_endgame.rs__embedded4_ecwl_8hg8XMSK.gcg").read_text(encoding="utf-8")
    assert "#note Variant: classic\n#note BoardLayout: CrosswordGame\n#note LetterDistribution: english\n" in woogles
    assert "#style wsc2001" in (tmp_path / "x" / "quackle_quackle__quackleio_iotest_capp.gcg").read_text(encoding="utf-8")
    for src_path in sorted(corpus.glob("*.gcg")):
        src, exp = read_gcg(src_path), read_gcg(tmp_path / "x" / src_path.name)
        assert exp.pragmas.get("note") == src.pragmas.get("note"), src_path.name
        assert exp.unknown_pragmas == src.unknown_pragmas, src_path.name
        notes = [e.note for e in src.events if e.note]
        assert [e.note for e in exp.events if e.note][: len(notes)] == notes, src_path.name


def test_a_folder_another_command_wrote_is_not_game_logs(ns, tmp_path):
    """An elo output or replay's own tables named as games: their .json files were read as
    Netskrafl records (RECORD_MALFORMED rows); an --export-gcg output is game logs and is read."""
    res = runner.invoke(app, ["replay", "ns", "--out", "r", "--no-lexicon", "-q", "--export-gcg", "g"])
    assert res.exit_code == 0, res.output
    before = _tree(tmp_path)
    res = runner.invoke(app, ["replay", "r", "--out", "again", "--no-lexicon", "-q"])
    assert res.exit_code == 2
    assert "r: is the output of 'skrafl replay', not game logs" in res.output
    assert _tree(tmp_path) == before
    res = runner.invoke(app, ["replay", "g", "--out", "again", "--no-lexicon", "-q"])
    assert res.exit_code == 0, res.output
    assert len(_files(tmp_path / "again")) == 10
