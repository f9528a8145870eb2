"""Helpers for tests that run the real ``skrafl`` command in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def run_skrafl(*args: str, output_root: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m cli.main ARGS`` (the same entry point as ``skrafl``) and capture its output.

    ``output_root`` sets ``SKRAFL_OUTPUT`` so the run reads and writes only there.
    """
    env = dict(os.environ)
    if output_root is not None:
        env["SKRAFL_OUTPUT"] = str(output_root)
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=PROJECT_ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
    )
