"""Helpers for tests that run the real ``skrafl`` command: in a subprocess (:func:`run_skrafl`), or
in this process (:func:`run_skrafl_here`, for argument and output checks: no interpreter start)."""

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


def run_skrafl_here(
    *args: str,
    output_root: Path | None = None,
    stdin: str | None = None,
    env: dict[str, str | None] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess:
    """The run of :func:`run_skrafl`, in this process: the real entry point (``cli.main.main``) with
    its own argv, environment, stdin, stdout and stderr (click's ``CliRunner`` isolation), in the
    project folder, the lexicon, rule and tile-set caches of earlier runs cleared; the same
    ``CompletedProcess`` back (text read as a pipe reads it: UTF-8, universal newlines). ``env``:
    variables set (``None``: removed) for the run; ``cwd``: its folder instead of the project's.

    For what a command prints and its exit status. What needs a process of its own stays with
    :func:`run_skrafl`: signals and the stop handlers (left untouched here: this process keeps
    its own), pipes and descriptors, resource limits, the hash seed, worker pools, ``serve``.
    """
    import contextlib
    import io
    from unittest import mock

    from click.testing import CliRunner

    import cli.main
    import pipelines.stops

    _clear_caches()
    env = {**(env or {}), **({"SKRAFL_OUTPUT": str(output_root)} if output_root is not None else {})}
    code: int = 0
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.chdir(cwd or PROJECT_ROOT))
        out, err, _ = stack.enter_context(CliRunner().isolation(input=stdin, env=env))
        stack.enter_context(mock.patch.object(sys, "argv", ["skrafl", *args]))
        for name in ("install_stop_handlers", "hold_stops"):  # process-wide: the test process keeps its own
            stack.enter_context(mock.patch.object(pipelines.stops, name, lambda: None))
        stack.enter_context(mock.patch.object(cli.main, "_ignore_stops_at_exit", lambda: None))
        try:
            cli.main.main()
        except SystemExit as exc:
            if isinstance(exc.code, str):  # as the interpreter does: the message on stderr, status 1
                sys.stderr.write(exc.code + "\n")
                code = 1
            else:
                code = exc.code or 0
        sys.stdout.flush()
        sys.stderr.flush()

    def text(data: bytes) -> str:
        return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()

    return subprocess.CompletedProcess(["skrafl", *args], code, text(out.getvalue()), text(err.getvalue()))


#: State a process keeps from run to run, as (module, name) of a dict: lexicons loaded by path, the
#: paths an error line shows as ``-``.
_RUN_STATE = (("pipelines.replay.run", "_LEXICONS"), ("pipelines.replay.run", "_BUNDLES"), ("cli.common", "_SHOWN_AS"))


def _clear_caches() -> None:
    """The ``functools`` caches of the project's loaded modules and the per-run state of
    ``_RUN_STATE`` emptied: a rule set, tile set, layout or lexicon a test rewrites between two
    runs is read again, as a new process would."""
    import functools

    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in ("cli", "pipelines", "gamecore", "lexicon_sources"):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, functools._lru_cache_wrapper):
                value.cache_clear()
    for module, attr in _RUN_STATE:
        state = getattr(sys.modules.get(module), attr, None)
        if isinstance(state, dict):
            state.clear()


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
    wordlist``, in this process) into ``folder/NAME`` (default: the language's code); returns the lexicon folder."""
    (folder / "words.txt").write_text("".join(w + "\n" for w in words), encoding="utf-8")
    out = folder / (name or lang)
    r = run_skrafl_here("build", lang, "--source", "wordlist", "--input", str(folder / "words.txt"), "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    return out


def build_small_lexicons(tmp: Path) -> dict[str, Path]:
    """``EN_WORDS`` and ``NB_WORDS`` compiled (``skrafl build LANG --source wordlist``, in this
    process) in ``tmp``,
    with ``REFERENCE`` written as a reference list: ``{"tmp", "en", "nb", "ref"}``."""
    (tmp / "en.txt").write_text("\n".join(EN_WORDS) + "\n", encoding="utf-8")
    (tmp / "nb.txt").write_text("\n".join(NB_WORDS) + "\n", encoding="utf-8")
    (tmp / "ref.txt").write_text("\n".join(REFERENCE) + "\n", encoding="utf-8")
    for lang in ("en", "nb"):
        r = run_skrafl_here(
            "build", lang, "--source", "wordlist", "--input", str(tmp / f"{lang}.txt"), "--out", str(tmp / lang), "--quiet"
        )
        assert r.returncode == 0, r.stderr
    return {"tmp": tmp, "en": tmp / "en", "nb": tmp / "nb", "ref": tmp / "ref.txt"}
