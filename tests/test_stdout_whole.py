"""Standard output written whole or the run fails: under a file-size limit (``ulimit -f``) smaller
than the output, with SIGXFSZ ignored, the kernel writes part of a ``write`` and refuses the
rest (EFBIG). Python's ``FileIO`` under ``sys.stdout`` dropped the rest of a short write without
an error, so the command exited 0 with its output cut; now it is one line naming standard output,
exit 2 (as for a full disk), buffered or not (``python -u``). A limit above the output changes
nothing: the same bytes, exit 0."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import PROJECT_ROOT, build_word_lexicon


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory) -> Path:
    """3,000 English words: ``find '*'`` prints about 20 KB, more than one buffer's worth."""
    words = sorted({a + b + c + d + e for a in "bcdfgkl" for b in "aeiou" for c in "lmnrst" for d in "aeiou" for e in "dgnst"})
    return build_word_lexicon(tmp_path_factory.mktemp("whole"), words[:3000])


def _run(args: list[str], out: Path, limit: int | None, unbuffered: bool, stdin: Path) -> subprocess.CompletedProcess:
    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    with open(out, "wb") as fh, open(stdin, "rb") as given:
        return subprocess.run(
            [sys.executable, "-m", "cli.main", *args],
            cwd=PROJECT_ROOT,
            env=env,
            stdin=given,
            stdout=fh,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=limited,
            timeout=120,
        )


FORMS = [
    (["find", "*", "-f", "tsv"], False),  # one large write
    (["find", "*", "-f", "tsv"], True),
    (["find", "*", "-f", "table"], False),
    (["check", "-"], False),  # a line per word, each written by click.echo
    (["check", "-"], True),
    (["why", "badad", "bagad", "-f", "json"], False),  # json.dump: many small writes, flushed at the end
]


@pytest.mark.parametrize("form,unbuffered", FORMS, ids=lambda f: " ".join(f[:2]) if isinstance(f, list) else "-u" if f else "")
def test_output_cut_by_a_file_size_limit_is_an_error(lexicon, tmp_path, form, unbuffered):
    args = [form[0], "--lexicon", str(lexicon), *form[1:]]
    stdin = tmp_path / "in.txt"
    stdin.write_text("\n".join(["badad", "bagad", "xyzzy"] * 40) + "\n", encoding="utf-8")
    full, out = tmp_path / "full.txt", tmp_path / "out.txt"
    r = _run(args, full, None, unbuffered, stdin)
    assert r.returncode in (0, 1) and r.stderr == "", r.stderr
    size = full.stat().st_size
    assert size > 200, size
    for limit in (size // 3, size - 1):
        r = _run(args, out, limit, unbuffered, stdin)
        assert r.returncode == 2, (limit, r.returncode, r.stderr)
        assert r.stderr == "skrafl: error: standard output: File too large\n", r.stderr
        assert out.read_bytes() == full.read_bytes()[:limit]
    r = _run(args, out, size, unbuffered, stdin)  # room for the whole output: nothing changes
    assert r.returncode in (0, 1) and r.stderr == "", r.stderr
    assert out.read_bytes() == full.read_bytes()
