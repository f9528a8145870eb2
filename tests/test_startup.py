"""Start-up: a command imports only what it uses. The subcommands are registered lazily
(``cli.main.LazyGroup``): ``skrafl --help`` lists every command from ``cli.main.COMMANDS`` without
importing its module, a command imports its own module only, and no heavy library (polars,
pyarrow, numpy, textual, rich) is imported by ``check`` or ``best``. Speed itself is measured in
``bench/`` (bench_best: whole processes against ``python -c pass`` and MAGPIE), never here."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest
from clirun import PROJECT_ROOT, run_skrafl

HEAVY = ("polars", "pyarrow", "numpy", "textual", "rich", "pandas", "duckdb", "tqdm")

# Run the real entry point (cli.main.main), then print the imported top-level modules and cli.*
# modules on stderr as one JSON line, whatever the exit status.
_PROBE = """
import atexit, json, sys
def report():
    mods = sorted({m.split('.')[0] for m in sys.modules} | {m for m in sys.modules if m.startswith('cli.')})
    sys.stderr.write('\\nMODULES ' + json.dumps(mods) + '\\n')
atexit.register(report)
sys.argv = ['skrafl'] + sys.argv[1:]
from cli.main import main
main()
"""


def _modules(*args: str, stdin: str | None = None) -> tuple[subprocess.CompletedProcess, set[str]]:
    res = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], cwd=PROJECT_ROOT, input=stdin, capture_output=True, text=True, timeout=120
    )
    line = [x for x in res.stderr.splitlines() if x.startswith("MODULES ")]
    assert line, res.stderr
    return res, set(json.loads(line[-1][len("MODULES ") :]))


def test_table_matches_each_commands_own_help():
    """The line ``skrafl --help`` shows for a command is the first paragraph of its own help."""
    from cli.main import COMMANDS, load_command

    for name, short in COMMANDS.items():
        cmd = load_command(name)
        assert cmd.name == name
        first = inspect.cleandoc(cmd.short_help or cmd.help or "").split("\n\n")[0].replace("\n", " ").strip()
        assert first == short, f"cli.main.COMMANDS[{name!r}] differs from the first paragraph of 'skrafl {name} --help'"


def test_every_command_module_is_in_the_table():
    from cli.main import COMMANDS

    modules = {p.stem for p in (PROJECT_ROOT / "cli").glob("*.py")}
    with_register = {m for m in modules if "def register(" in (PROJECT_ROOT / "cli" / f"{m}.py").read_text(encoding="utf-8")}
    assert with_register == set(COMMANDS)


def test_root_help_lists_every_command_without_importing_them():
    from cli.main import COMMANDS

    res, mods = _modules("--help")
    assert res.returncode == 0
    listed = {line.strip(" │").split(" ", 1)[0] for line in res.stdout.splitlines() if line.startswith("│ ") and "  " in line}
    assert set(COMMANDS) <= listed
    assert not {m for m in mods if m.startswith("cli.")} - {"cli.main"}


def test_check_imports_only_its_own_module(tmp_path):
    res, mods = _modules("check", "--lexicon", str(tmp_path / "none"), "word")
    assert res.returncode == 2 and "skrafl: error:" in res.stderr  # no lexicon there: one line
    assert {m for m in mods if m.startswith("cli.")} <= {"cli.main", "cli.check", "cli.common"}
    assert not mods & set(HEAVY), mods & set(HEAVY)


@pytest.mark.skipif(not (PROJECT_ROOT / "output" / "is" / "lexicon.kwg").is_file(), reason="output/is not built")
def test_check_and_best_on_a_real_lexicon_import_nothing_heavy(tmp_path):
    res, mods = _modules("check", "--lang", "is", "hestur")
    assert res.returncode == 0 and res.stdout.startswith("hestur\tVALID")
    assert not mods & set(HEAVY), mods & set(HEAVY)
    board = tmp_path / "b.txt"
    board.write_text("\n".join(["." * 15] * 15) + "\n", encoding="utf-8")
    res, mods = _modules("best", "--lang", "is", "--board", str(board), "--rack", "HESTURA", "-n", "1", "-f", "tsv")
    assert res.returncode == 0, res.stderr
    # (cli.position: the position options best shares with score and show; typer and pathlib only)
    assert {m for m in mods if m.startswith("cli.")} <= {"cli.main", "cli.best", "cli.common", "cli.position"}
    assert not mods & set(HEAVY), mods & set(HEAVY)


def test_usage_errors_unchanged():
    res = run_skrafl("nosuchcommand")
    assert res.returncode == 2 and res.stderr.startswith("skrafl: error: No such command 'nosuchcommand'")
    res = run_skrafl("chek", "x")
    assert res.returncode == 2 and res.stderr.count("Did you mean 'check'?") == 1 and len(res.stderr.splitlines()) == 1
    res = run_skrafl()
    assert res.returncode == 2 and "Commands" in res.stdout
    res = run_skrafl("--version")
    assert res.returncode == 0 and res.stdout.startswith("skrafl ")


def test_commands_reached_through_the_app_object():
    """Library and test callers that build the click group (typer.main.get_command(app)) still see
    every command; a command is made once and kept."""
    import typer

    from cli.main import COMMANDS, app

    group = typer.main.get_command(app)
    assert list(group.list_commands(None)) == list(COMMANDS)
    assert "best" in group.commands and len(group.commands) == len(COMMANDS)
    assert group.commands["best"] is group.commands["best"]
    assert {o for p in group.commands["best"].params for o in getattr(p, "opts", [])} >= {"--board", "--rack"}


def test_subcommand_help_is_the_commands_own():
    res = run_skrafl("check", "--help")
    assert res.returncode == 0 and "WORD<TAB>VALID" in res.stdout and "--lexicon" in res.stdout
