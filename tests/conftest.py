"""Shared pytest fixtures.

``shared`` is the read-only reference folder ``../shared`` beside the project (CI has it; a user's
clone may not): tests that need it take this fixture and are skipped cleanly when it is absent.
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
