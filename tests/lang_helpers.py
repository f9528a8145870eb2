"""Helpers for the per-language lexicon tests (tests/test_lang_*.py): build from a fixture through
the real CLI (in this process), read the verdicts, and check bad input leaves the previous output untouched."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import polars as pl
from clirun import run_skrafl_here

LANG_FIX = Path(__file__).resolve().parent / "fixtures" / "lang"


def build(root: Path, lang: str, *args: str) -> Path:
    """``skrafl build LANG ARGS --quiet`` with outputs under ``root``; returns ``root/LANG``."""
    r = run_skrafl_here("build", lang, *args, "--quiet", output_root=root)
    assert r.returncode == 0, r.stderr
    return root / lang


def words(folder: Path) -> set[str]:
    return set((folder / "words.txt").read_text(encoding="utf-8").split())


def rules_of(folder: Path) -> dict[str, set[str]]:
    """word → the set of rules that dropped its entries (rejected.parquet)."""
    df = pl.read_parquet(folder / "rejected.parquet")
    out: dict[str, set[str]] = {}
    for word, rule in zip(df["word"], df["rule"], strict=True):
        out.setdefault(word, set()).add(rule)
    return out


def check_expected(folder: Path, expected: dict[str, str | None]) -> None:
    """Each word is kept (None) or dropped by exactly the named rule."""
    lexicon, rejected = words(folder), rules_of(folder)
    for word, rule in expected.items():
        if rule is None:
            assert word in lexicon, word
        else:
            assert word not in lexicon, word
            assert rejected.get(word) == {rule}, (word, rejected.get(word))


def tree_digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def assert_bad_input(good_root: Path, tmp_path: Path, lang: str, args: list[str], message: str) -> None:
    """Ingesting bad input exits 2 with one ``skrafl: error:`` line containing ``message`` and
    leaves a copy of a good build exactly as it was."""
    root = tmp_path / "out"
    shutil.copytree(good_root, root)
    before = tree_digest(root)
    r = run_skrafl_here("ingest", lang, *args, "--quiet", output_root=root)
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("skrafl: error: ") and message in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    after = tree_digest(root)
    assert after == before, sorted(set(after.items()) ^ set(before.items()))
