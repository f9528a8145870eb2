"""Shared pytest fixtures and markers.

``shared`` is the read-only reference folder ``../shared`` beside the project (CI has it; a user's
clone may not): tests that need it take this fixture and are skipped cleanly when it is absent.

Markers (registered in pyproject.toml; docs/CONTRIBUTING.md): ``slow`` is set by hand on a test or
a module (``pytestmark``); ``needs_shared`` and ``needs_lexicon`` are also applied here, by use:
a test that takes the ``shared`` fixture needs ../shared, and one skipped when a lexicon of
``output/`` is not built (a ``skipif`` naming ``output/``) needs a built lexicon.
"""

from __future__ import annotations

from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHARED = PROJECT_ROOT.parent / "shared"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "shared" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.needs_shared)
        if any("output/" in str(m.kwargs.get("reason", "")) for m in item.iter_markers("skipif")):
            item.add_marker(pytest.mark.needs_lexicon)
