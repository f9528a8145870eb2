"""Helpers for tests that run the real ``skrafl`` command in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def run_skrafl(
    *args: str, output_root: Path | None = None, stdin: str | None = None, stderr=subprocess.PIPE
) -> subprocess.CompletedProcess:
    """Run ``python -m cli.main ARGS`` (the same entry point as ``skrafl``) and capture its output.

    ``output_root`` sets ``SKRAFL_OUTPUT`` so the run reads and writes only there; ``stderr``: where
    its standard error goes instead of being captured (a file, a descriptor: ``/dev/full``).
    """
    env = dict(os.environ)
    if output_root is not None:
        env["SKRAFL_OUTPUT"] = str(output_root)
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=PROJECT_ROOT,
        env=env,
        input=stdin,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        timeout=600,
    )


def reseal(folder: Path, command: str) -> Path:
    """Write the files of ``folder`` — an output a test has edited by hand, or a real folder of
    files — again as a whole skrafl output of ``command`` (pipelines.atomic), so that readers get
    past the marker check and the test reaches the content checks it is about."""
    import shutil
    import tempfile

    from pipelines.atomic import output_dir

    folder = Path(folder)
    with tempfile.TemporaryDirectory() as keep:
        shutil.copytree(folder, Path(keep) / "files", ignore=shutil.ignore_patterns(".skrafl-output"))
        if folder.is_symlink() or folder.exists():
            target = folder.resolve()
            shutil.rmtree(target)
            folder.unlink() if folder.is_symlink() else None
        with output_dir(folder, command) as stage:
            shutil.copytree(Path(keep) / "files", stage, dirs_exist_ok=True)
    return folder


def each_line_answered(args: list[str], lines: list[str]) -> list[dict]:
    """Run ``python -m cli.main ARGS`` reading stdin: write each line, read its JSON record before
    the next line is written (stdin still open), then close stdin; the records, in order. The
    command must exit 0; a line left unanswered fails the test within 120 s, never hangs it."""
    import json
    import threading

    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=PROJECT_ROOT,
    )
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    records = []
    try:
        for line in lines:
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            records.append(json.loads(proc.stdout.readline()))
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()
    return records


def one_error_line(r: subprocess.CompletedProcess) -> str:
    """The one stderr line of a run that failed on bad input (exit 2, no traceback)."""
    assert r.returncode == 2, (r.stdout[:200], r.stderr[:500])
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr[:1000]
    assert "Traceback" not in r.stderr
    return lines[0]


#: Small word lists of the trial tests (tests/conftest.py ``small_lexicons``).
EN_WORDS = ["cat", "cats", "dog", "dogs", "horse"]
NB_WORDS = ["hest", "hesten", "øl", "ølet"]
REFERENCE = ["cat", "dog", "cow"]


def build_word_lexicon(folder: Path, words, lang: str = "en", name: str | None = None) -> Path:
    """``words`` written to ``folder/words.txt`` and compiled (``skrafl build LANG --source
    wordlist``) into ``folder/NAME`` (default: the language's code); returns the lexicon folder."""
    (folder / "words.txt").write_text("".join(w + "\n" for w in words), encoding="utf-8")
    out = folder / (name or lang)
    r = run_skrafl("build", lang, "--source", "wordlist", "--input", str(folder / "words.txt"), "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    return out


def build_small_lexicons(tmp: Path) -> dict[str, Path]:
    """``EN_WORDS`` and ``NB_WORDS`` compiled (``skrafl build LANG --source wordlist``) in ``tmp``,
    with ``REFERENCE`` written as a reference list: ``{"tmp", "en", "nb", "ref"}``."""
    (tmp / "en.txt").write_text("\n".join(EN_WORDS) + "\n", encoding="utf-8")
    (tmp / "nb.txt").write_text("\n".join(NB_WORDS) + "\n", encoding="utf-8")
    (tmp / "ref.txt").write_text("\n".join(REFERENCE) + "\n", encoding="utf-8")
    for lang in ("en", "nb"):
        r = run_skrafl(
            "build", lang, "--source", "wordlist", "--input", str(tmp / f"{lang}.txt"), "--out", str(tmp / lang), "--quiet"
        )
        assert r.returncode == 0, r.stderr
    return {"tmp": tmp, "en": tmp / "en", "nb": tmp / "nb", "ref": tmp / "ref.txt"}
