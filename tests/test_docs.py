"""The documentation lives in the repository: no comment, docstring or message cites a document
outside it (an issue or trial number, a requirement document by number, a reference file of the
shared data folder), every "docs/X.md §N" cited names a section that exists, and docs/ERRORS.md
lists exactly the error and warning codes the game-log readers and the replayer raise.

Pure file reads: no lexicon, no subprocess, no shared data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

#: Where code, tests, benchmarks and their data notes live (docs/ and README.md are the docs).
CODE_DIRS = ("cli", "pipelines", "gamecore", "lexicon_sources", "tests", "bench")
CODE_FILES = ("Makefile", "pyproject.toml", "setup.py")
TEXT_SUFFIXES = {".py", ".c", ".h", ".toml", ".md", ".txt", ".tsv", ".sql", ".cfg", ".ini", ".yml", ".yaml"}
#: The library (not tests or benchmarks) may not name the shared data folder at all: a user's clone
#: has none. Tests and benchmarks read real data there (they skip without it), and may say so.
LIBRARY_DIRS = ("cli", "pipelines", "gamecore", "lexicon_sources")

OUTSIDE = re.compile(
    r"(?i:\bseeds?(?:\s*(?://|#|\*))?\s*0[0-9]{2}\b"  # requirement documents by number, also across a line break
    r"|\bissues?(?:\s*(?://|#|\*))?\s+[0-9]+|\btrials?(?:\s*(?://|#|\*))?\s+[0-9]+)"  # history by number
    r"|\.\./shared/(?:reference|seeds)\b"  # the shared reference documents and the requirement documents
    r"|(?<![\w/])(?:gcg|rules|netskrafl|lexicon_rules|kwg)\.md\b"  # reference files by name (docs/ is upper case)
    r"|design_notes|data_sources"
)
SHARED = re.compile(r"\.\./shared\b")
CITATION = re.compile(r"docs/([A-Z][A-Z_]+\.md) §(\d+)(?:[–-](\d+))?")
DOC_LINK = re.compile(r"docs/([A-Z][A-Z_]+\.md)")  # "docs/X.md" is the placeholder
SECTION = re.compile(r"^#+ §(\d+)\b", re.M)


def _code_files() -> list[Path]:
    out = [ROOT / name for name in CODE_FILES if (ROOT / name).is_file()]
    for d in CODE_DIRS:
        for p in sorted((ROOT / d).rglob("*")):
            if p.is_file() and p.suffix in TEXT_SUFFIXES and "__pycache__" not in p.parts:
                out.append(p)
    return [p for p in out if p != Path(__file__).resolve()]


def _text(p: Path) -> str:
    return p.read_text(encoding="utf-8", errors="replace")


@pytest.fixture(scope="module")
def code_files() -> list[tuple[Path, str]]:
    return [(p, _text(p)) for p in _code_files()]


def _hits(files: list[tuple[Path, str]], pattern: re.Pattern[str], dirs: tuple[str, ...] | None = None) -> list[str]:
    hits = []
    for p, text in files:
        rel = p.relative_to(ROOT)
        if dirs is not None and (len(rel.parts) < 2 or rel.parts[0] not in dirs):
            continue
        for m in pattern.finditer(text):  # the whole text: a citation may run over a line break
            n = text.count("\n", 0, m.start()) + 1
            line = text.splitlines()[n - 1] if text else ""
            hits.append(f"{rel}:{n}: {m.group(0)!r} in {line.strip()[:120]}")
    return hits


def test_the_check_finds_outside_citations():
    """The patterns catch what they are for (so the scans below cannot pass by matching nothing)."""
    for cited in ("seed 002", "Seed 004's", "seeds 001, 003", "seed\n    004's", "# seed\n# 004", "issue 12", "Issue 23 item 6", "trial 9", "gcg.md §3",
                  "../shared/reference/tile_sets.tsv", "../shared/seeds/", "lexicon_rules.md", "rules.md Erudit",
                  "data_sources.md", "kwg.md"):  # fmt: skip
        assert OUTSIDE.search(cited), cited
    for fine in ("docs/GCG.md §3", "docs/RULES.md §2", "gamecore/data/rules/README.md", "polish_issue154_c.gcg",
                 "the Russian Scrabble article", "../shared/corpora/gcg"):  # fmt: skip
        assert not OUTSIDE.search(fine), fine
    assert SHARED.search("../shared/corpora/gcg") and not SHARED.search("a shared machine")


def test_no_comment_or_message_cites_a_document_outside_the_repository(code_files):
    assert len(code_files) > 100  # the scan saw the code
    docs = [(p, _text(p)) for p in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))] if p.is_file()]
    hits = _hits(code_files + docs, OUTSIDE)
    assert hits == [], "cite docs/ or say what the thing is:\n" + "\n".join(hits)


def test_the_library_does_not_name_the_shared_data_folder(code_files):
    hits = _hits(code_files, SHARED, LIBRARY_DIRS)
    assert hits == [], "a user's clone has no ../shared:\n" + "\n".join(hits)


def _sections(name: str) -> set[int] | None:
    path = DOCS / name
    if not path.is_file():
        return None
    return {int(n) for n in SECTION.findall(_text(path))}


def test_every_cited_docs_section_exists(code_files):
    readme = ROOT / "README.md"
    files = list(code_files) + [(p, _text(p)) for p in sorted(DOCS.glob("*.md"))]
    if readme.is_file():
        files.append((readme, _text(readme)))
    missing, cited = [], 0
    for p, text in files:
        rel = p.relative_to(ROOT)
        for n, line in enumerate(text.splitlines(), 1):
            for m in DOC_LINK.finditer(line):
                if not (DOCS / m.group(1)).is_file():
                    missing.append(f"{rel}:{n}: docs/{m.group(1)} does not exist")
            for m in CITATION.finditer(line):
                cited += 1
                sections = _sections(m.group(1)) or set()
                first = int(m.group(2))
                last = int(m.group(3)) if m.group(3) else first
                for s in range(first, last + 1):
                    if s not in sections:
                        missing.append(f"{rel}:{n}: docs/{m.group(1)} has no §{s}")
    assert cited > 50  # the code does cite sections
    assert missing == [], "\n".join(missing)


def test_the_cited_documents_number_their_sections():
    for name in ("GCG.md", "RULES.md", "NETSKRAFL.md", "LEXICONS.md", "MOVEGEN.md"):
        sections = _sections(name)
        assert sections, f"docs/{name} has no '## §N' sections"
        assert sorted(sections) == list(range(1, max(sections) + 1)), f"docs/{name}: sections {sorted(sections)}"


# -- the registry of error codes ---------------------------------------------------------------------

#: The modules that raise game-log error and warning codes (docs/ERRORS.md says which).
CODE_MODULES = ("gamecore/gcg.py", "gamecore/netskrafl_record.py", "gamecore/gamelog.py", "pipelines/replay")
QUOTED = re.compile(r"\"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\"")
DEFINED = re.compile(r"^([A-Z][A-Z0-9_]*)\s*[:=]", re.M)
REGISTRY_ROW = re.compile(r"^\| `([A-Z][A-Z0-9_]+)` \|", re.M)


def _codes_in_code() -> set[str]:
    files: list[Path] = []
    for name in CODE_MODULES:
        p = ROOT / name
        files.extend(sorted(p.rglob("*.py")) if p.is_dir() else [p])
    quoted, names = set(), set()
    for p in files:
        text = _text(p)
        quoted |= set(QUOTED.findall(text))
        names |= set(DEFINED.findall(text))
    # a quoted name that is a module constant (in __all__) or an environment variable is no code
    return {c for c in quoted if c not in names and not c.startswith("SKRAFL_")}


def test_errors_md_lists_every_code_and_no_other():
    registry = REGISTRY_ROW.findall(_text(DOCS / "ERRORS.md"))
    assert len(registry) == len(set(registry)), "a code listed twice"
    code = _codes_in_code()
    assert {"EXCHANGE_BAG_TOO_SMALL", "GCG_EMPTY", "RECORD_MALFORMED", "FILE_TOO_LARGE"} <= code  # the scan works
    assert sorted(code - set(registry)) == [], "codes raised but not in docs/ERRORS.md"
    assert sorted(set(registry) - code) == [], "codes in docs/ERRORS.md that nothing raises"
    assert registry == sorted(registry), "docs/ERRORS.md: keep the table in alphabetical order"


def test_rules_md_lists_every_rule_set_field():
    """docs/RULES.md §4 names every field of a rule-set file (a field of gamecore.rules.RuleSet)."""
    import dataclasses

    from gamecore.rules import RuleSet

    text = _text(DOCS / "RULES.md")
    fields_section = text.split("## §4", 1)[1].split("\n## §5", 1)[0]
    fields = [f.name for f in dataclasses.fields(RuleSet)]
    assert len(fields) > 20
    missing = [f for f in fields if f"`{f}`" not in fields_section]
    assert missing == [], f"docs/RULES.md §4 does not list {missing}"
