"""Help text of ``best``, ``replay``, ``elo`` and ``diff``: exit codes, arguments, ordering, leave."""

from __future__ import annotations

import inspect

import pytest
import typer
from clirun import run_skrafl


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
