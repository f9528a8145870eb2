"""Shared pytest fixtures and markers.

``shared`` is the read-only reference folder ``../shared`` beside the project (CI has it; a user's
clone may not): tests that need it take this fixture and are skipped cleanly when it is absent.

Markers (registered in pyproject.toml; docs/CONTRIBUTING.md): ``slow`` is set by hand on a test or
a module (``pytestmark``), and here on ``SLOW_MODULES`` and ``SLOW_TESTS``; ``needs_shared`` and
``needs_lexicon`` are applied here, by use: a test that takes the ``shared`` fixture or is skipped
without ../shared needs it, and one skipped when a lexicon of ``output/`` is not built (a
``skipif`` naming ``output/``) needs a built lexicon.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHARED = PROJECT_ROOT.parent / "shared"
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# The commands the tests start are started as from a terminal: SIGINT at its default. A suite run as
# a background job of a script (``make test &``: the shell starts it with SIGINT ignored) would
# otherwise pass that on to every command, which keeps an inherited SIG_IGN by design (a background
# run is not stopped by the terminal's Ctrl-C), and the Ctrl-C tests would see no stop. The tests of
# that design set SIG_IGN in the child themselves.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# pytest-xdist's workers start with COLUMNS=80 and LINES=24 in their environment, which a serial run
# does not have: tables are then cut to 80 columns (cli.common.terminal_width) in the workers only.
# The first process records the terminal variables it was given; each worker takes them back.
_TERMINAL = ("COLUMNS", "LINES")
if "PYTEST_XDIST_WORKER" not in os.environ:
    for _name in _TERMINAL:
        os.environ[f"SKRAFL_TESTS_{_name}"] = os.environ.get(_name, "")
else:
    for _name in _TERMINAL:
        _given = os.environ.get(f"SKRAFL_TESTS_{_name}")
        if _given == "":
            os.environ.pop(_name, None)
        elif _given is not None:
            os.environ[_name] = _given


@pytest.fixture(scope="session")
def shared() -> Path:
    """Path of ``../shared``; skips the test when the folder is not there."""
    if not (SHARED / "reference").is_dir():
        pytest.skip("../shared is not present (a user's clone has none)")
    return SHARED


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """Path of ``tests/fixtures``: small hand-made files in each supported format."""
    return FIXTURES


#: Modules, and tests (``module::function``), slow whose files other work owns (a file of your own
#: says so itself: ``pytestmark = pytest.mark.slow`` or ``@pytest.mark.slow``): kill scenarios at
#: every write step, of a dataset run and of a night; self-play games; every command fuzzed; the
#: endgame solver against MAGPIE.
SLOW_MODULES = {"test_fault_injection", "test_autoplay", "test_nightly_faults", "test_fuzz_commands"}
SLOW_TESTS = {"test_endgame::test_same_value_as_magpie"}


def pytest_collection_finish(session: pytest.Session) -> None:
    """(after every collection hook, pytest-xdist's too, which puts the group into the node id)"""
    config = session.config
    for item in session.items:
        if getattr(config.option, "loadgroup", False) and item.get_closest_marker("xdist_group") and "@" not in item.nodeid:
            # the served tests share one worker (a test there makes every running server stale);
            # pytest 9.2 ended this grouping without a word (pytest-xdist#1386): say so, loudly
            raise pytest.UsageError(f"--dist loadgroup does not group {item.nodeid}: this pytest and pytest-xdist disagree")


@pytest.hookimpl(tryfirst=True)  # before -m selects by the markers (the marks plugin's own hook)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        reasons = " ".join(str(m.kwargs.get("reason", "")) for m in item.iter_markers("skipif"))
        if "shared" in getattr(item, "fixturenames", ()) or "../shared" in reasons:
            item.add_marker(pytest.mark.needs_shared)
        if "output/" in reasons:
            item.add_marker(pytest.mark.needs_lexicon)
        module = item.module.__name__.rpartition(".")[2] if item.module is not None else ""
        if module in SLOW_MODULES or f"{module}::{getattr(item, 'originalname', item.name)}" in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
