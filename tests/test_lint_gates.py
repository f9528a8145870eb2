"""The gates of make lint that are scripts of ours (tools/): each one fails on what it must refuse.

In-process and on small made-up inputs: the scripts' decisions, not ruff's measurements."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_complexity_ratchet_refuses_new_and_grown_functions_and_stale_lines():
    cc = _tool("check_complexity")
    allowed = Counter({("a.py", "big", 30): 1, ("a.py", "run", 20): 1, ("a.py", "run", 17): 1})
    assert cc.problems(Counter(allowed), allowed) == []
    # a function above the limit that is not listed
    new = cc.problems(allowed + Counter({("b.py", "fresh", 16): 1}), allowed)
    assert new == ["b.py: fresh has complexity 16, above the limit: split it (not listed in complexity_ratchet.txt)"]
    # a listed one grown; two of one name in one file pair up by complexity
    grown = Counter({("a.py", "big", 31): 1, ("a.py", "run", 20): 1, ("a.py", "run", 17): 1})
    assert cc.problems(grown, allowed) == ["a.py: big grew from complexity 30 to 31: split it rather than raise its number"]
    # a listed one simpler, or split below the limit: the list must follow
    simpler = Counter({("a.py", "big", 30): 1, ("a.py", "run", 20): 1, ("a.py", "run", 16): 1})
    assert cc.problems(simpler, allowed) == [
        "a.py: run is down from complexity 17 to 16: lower its number in complexity_ratchet.txt"
    ]
    gone = Counter({("a.py", "big", 30): 1, ("a.py", "run", 20): 1})
    assert cc.problems(gone, allowed) == [
        "a.py: run (listed at 17) is within the limit now or gone: remove its line from complexity_ratchet.txt"
    ]


def test_complexity_ratchet_file_states_its_count():
    cc = _tool("check_complexity")
    listed = cc.listed()  # raises SystemExit when the stated count is not the number of lines
    assert sum(listed.values()) > 0
    assert all(n > 15 for _, _, n in listed)


def test_private_import_gate_finds_each_kind_of_use(tmp_path):
    gate = _tool("check_private_imports")
    files = {
        "gamecore/__init__.py": "",
        "gamecore/kwg.py": "from gamecore import _native\n\ndef _build():\n    return _native\n",
        "gamecore/play.py": "def _read_line():\n    pass\n",
        "gamecore/adjudicate.py": "from gamecore.play import _read_line\nfrom . import play\n\nplay._read_line()\n",
        "pipelines/__init__.py": "",
        "pipelines/atomic.py": "import gamecore.kwg as kwg\n\nkwg._build()\nfrom lexicon_sources.readers._common import x\n",
        "lexicon_sources/__init__.py": "",
        "lexicon_sources/readers/__init__.py": "",
        "lexicon_sources/readers/_common.py": "x = 1\n",
        "lexicon_sources/readers/csv.py": "from lexicon_sources.readers._common import x\nfrom ._common import x as y\n",
        "cli/__init__.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert gate.findings(tmp_path) == [
        "pipelines/atomic.py:4: uses a private name of another module: from lexicon_sources.readers._common import ...: "
        "the private module lexicon_sources.readers._common",
        "pipelines/atomic.py:3: uses a private name of another module: kwg._build (gamecore.kwg._build)",
        "gamecore/adjudicate.py:1: uses a private name of another module: from gamecore.play import _read_line",
        "gamecore/adjudicate.py:4: uses a private name of another module: play._read_line (gamecore.play._read_line)",
    ]  # the C extension module and the package's own private module are fine


def test_no_private_name_crosses_modules():
    assert _tool("check_private_imports").findings() == []
