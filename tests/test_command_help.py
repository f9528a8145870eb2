"""Help text of ``best``, ``replay``, ``elo`` and ``diff``: exit codes, arguments, ordering, leave."""

from __future__ import annotations

import inspect
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from clirun import run_skrafl

PROJECT = Path(__file__).resolve().parents[1]


def _help(command: str) -> str:
    res = run_skrafl(command, "--help")
    assert res.returncode == 0, res.stderr
    return " ".join(line.strip(" │") for line in res.stdout.splitlines())


@pytest.mark.parametrize("command", ["best", "replay", "elo", "diff"])
def test_help_states_exit_codes(command):
    text = _help(command)
    assert "Exit status: 0" in text and " 2 " in text


def test_replay_help_has_exit_1_and_arguments():
    text = _help("replay")
    assert "1 some game is not ok" in text and "Arguments: FILES..." in text


def test_best_help_order_leave_and_top():
    text = _help("best")
    assert "Order: score, highest first" in text and "Leave: the tiles that stay on the rack" in text
    assert "--top" in text and "-n" in text


@pytest.mark.parametrize("module", ["best", "replay", "elo", "diff"])
def test_every_positional_argument_has_help(module):
    import importlib

    mod = importlib.import_module(f"cli.{module}")
    fn = getattr(mod, module)
    for p in inspect.signature(fn).parameters.values():
        if isinstance(p.default, typer.models.ArgumentInfo):
            assert p.default.help, f"{module}: argument {p.name} has no help"


def test_top_long_form_works(tmp_path):
    res = run_skrafl("best", "--lang", "nosuchlang", "--board", str(tmp_path / "b"), "--rack", "A", "--top", "0")
    assert res.returncode == 2 and "--top" in res.stderr


# ---- user trial: every example of the score and show helps runs as written ------------------------

RIDDLE = Path("/work/shared/corpora/positions/netskrafl_riddle1.board")


def _examples(command: str) -> list[str]:
    """The examples of a command's help: the epilog's ``Example: A · B`` (the help wraps lines)."""
    res = run_skrafl(command, "--help")
    assert res.returncode == 0, res.stderr
    text = " ".join(res.stdout.split())
    found = re.search(r"Examples?: (.*)$", text)
    assert found, text
    return [e.strip() for e in found.group(1).split(" · ")]


@pytest.mark.skipif(not RIDDLE.is_file(), reason="no shared riddle board")
@pytest.mark.parametrize("command", ["score", "show"])
def test_every_help_example_works_as_written(command, tmp_path):
    """riddle.board is the shared Netskrafl riddle (positions/README.md: rack UAENRRK, the top
    move A4 ÞREKRAUN for 104, a bingo); only the paths are adjusted."""
    examples = _examples(command)
    assert examples and all(e.startswith(f"skrafl {command} ") for e in examples), examples
    plays = tmp_path / "plays.tsv"
    plays.write_text("/".join(["15"] * 15) + " / 0/0 0\t8D JOINT\n", encoding="utf-8")
    for example in examples:
        argv = shlex.split(example)[1:]
        stdin = None
        if "<" in argv:
            i = argv.index("<")
            assert argv[i + 1] == "plays.tsv", example
            stdin = plays.read_text(encoding="utf-8")
            argv = argv[:i] + argv[i + 2 :]
        paths = {"riddle.board": str(RIDDLE), "riddle.png": str(tmp_path / "riddle.png")}
        argv = [paths.get(a, a) for a in argv]
        lang = argv[argv.index("--lang") + 1]
        if not (PROJECT / "output" / lang / "manifest.json").is_file():
            pytest.skip(f"no built lexicon output/{lang}")
        res = run_skrafl(*argv, stdin=stdin)
        assert res.returncode == 0, (example, res.stdout, res.stderr)
        if "A4 ÞREKRAUN" in example and command == "score":
            assert "104" in res.stdout and "ACCEPTABLE" in res.stdout, res.stdout
        if "--out" in argv:
            assert (tmp_path / "riddle.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _to_full(*args: str) -> subprocess.CompletedProcess:
    with open("/dev/full", "w") as full:
        return subprocess.run(
            [sys.executable, "-m", "cli.main", *args],
            cwd=PROJECT,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("command", ["check", "find", "score", "show", "judge", "best", "why"])
def test_help_to_a_full_standard_output_is_one_line_naming_it(command):
    r = _to_full(command, "--help")
    assert (r.returncode, r.stderr) == (2, "skrafl: error: standard output: No space left on device\n")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_score_to_a_full_standard_output_is_one_line_naming_it(tmp_path):
    """score with --game (the recorded play of move 1) and with --cgp."""
    gcg = PROJECT / "tests" / "fixtures" / "gcg" / "base.gcg"
    cgp = "/".join(["15"] * 15) + " / 0/0 0"
    runs = [("score", "--rules", "wespa", "--cgp", cgp, "--play", "8D JOINT"), ("score", "--game", str(gcg), "--move", "1")]
    for args in runs:
        r = _to_full(*args)
        assert (r.returncode, r.stderr) == (2, "skrafl: error: standard output: No space left on device\n"), args


def test_every_command_help_has_an_example():
    """README: every command's --help ends with examples (the user trial found serve's had none)."""
    import click

    from cli.main import click_app

    app = click_app()
    ctx = click.Context(app)
    missing = []
    for name in app.list_commands(ctx):
        cmd = app.get_command(ctx, name)
        subs = [cmd.get_command(ctx, s) for s in cmd.list_commands(ctx)] if isinstance(cmd, click.Group) else [cmd]
        missing += [f"{name} {s.name}".strip() for s in subs if "Example" not in (s.help or "") + (s.epilog or "")]
    assert app.list_commands(ctx) and not missing, missing
