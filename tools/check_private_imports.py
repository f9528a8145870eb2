"""The private-import gate of ``make lint``: no module of our packages (cli, pipelines,
lexicon_sources, gamecore) uses a private name (one starting with ``_``, not a dunder) of ANOTHER
module of ours. A name a second module needs is public: named without the underscore.

Refused, read from the source (``ast``, nothing imported):
- ``from M import _name`` and ``from . import _name`` (relative imports resolved);
- ``M._name`` where ``M`` is one of our modules bound by an import (``import M``, ``from P import M``);
- a private module (``_common``) imported from outside the package that holds it.

Allowed: the two C extension modules ``gamecore._native`` and ``gamecore._scorer`` as modules (their
contents are their Python wrappers' business), and ALLOWED below (empty: every use has been made
public). Run from the repository: ``.venv/bin/python tools/check_private_imports.py`` (exit 0 clean,
1 with one line per use: file, line, what).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("cli", "pipelines", "lexicon_sources", "gamecore")
C_EXTENSIONS = {"gamecore._native", "gamecore._scorer"}
#: "path:module.name" of uses that stay for now, each with its reason (none)
ALLOWED: dict[str, str] = {}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def module_name(path: Path, root: Path = ROOT) -> tuple[str, str]:
    """(module, its package) of a source file: ``pipelines/atomic.py`` is ("pipelines.atomic", "pipelines")."""
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        name = ".".join(parts[:-1])
        return name, name
    return ".".join(parts), ".".join(parts[:-1])


def _is_module(dotted: str, root: Path) -> bool:
    path = root.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file() or dotted in C_EXTENSIONS


def _ours(dotted: str) -> bool:
    return dotted.split(".", 1)[0] in PACKAGES


def _outside_private_module(dotted: str, package: str) -> str | None:
    """The private module in ``dotted`` that ``package`` may not reach into (None: it may)."""
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if _private(part) and ".".join(parts[: i + 1]) not in C_EXTENSIONS:
            owner = ".".join(parts[:i])
            if package != owner and not package.startswith(owner + "."):
                return ".".join(parts[: i + 1])
    return None


def _from_import(node: ast.ImportFrom, module: str, package: str, root: Path, bound: dict[str, str]) -> Iterator[tuple[int, str]]:
    """The uses in one ``from ... import ...`` of ``module`` (in ``package``); the names it binds to
    our modules go into ``bound``."""
    if node.level:
        base = package.split(".")
        base = base[: len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    if not _ours(source):
        return
    if (inner := _outside_private_module(source, package)) is not None:
        yield node.lineno, f"from {source} import ...: the private module {inner}"
    for alias in node.names:
        full = f"{source}.{alias.name}"
        if _is_module(full, root):
            bound[alias.asname or alias.name] = full
            if _private(alias.name) and (inner := _outside_private_module(full, package)) is not None:
                yield node.lineno, f"from {source} import {alias.name}: the private module {inner}"
        elif _private(alias.name) and source != module:
            yield node.lineno, f"from {source} import {alias.name}"


def _import(node: ast.Import, package: str, bound: dict[str, str]) -> Iterator[tuple[int, str]]:
    """The uses in one ``import ...`` (a private module of another package); its names go into ``bound``."""
    for alias in node.names:
        if not _ours(alias.name):
            continue
        if (inner := _outside_private_module(alias.name, package)) is not None:
            yield node.lineno, f"import {alias.name}: the private module {inner}"
        head = alias.name.split(".", 1)[0]
        bound[alias.asname or head] = alias.name if alias.asname else head


def uses(path: Path, root: Path = ROOT) -> Iterator[tuple[int, str]]:
    """(line, what) for each use of another module's private name in the file at ``path``."""
    module, package = module_name(path, root)
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    bound: dict[str, str] = {}  # a local name bound to one of our modules -> that module
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from _import(node, package, bound)
        elif isinstance(node, ast.ImportFrom):
            yield from _from_import(node, module, package, root, bound)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in bound
            and bound[node.value.id] != module
            and f"{bound[node.value.id]}.{node.attr}" not in C_EXTENSIONS
        ):
            yield node.lineno, f"{node.value.id}.{node.attr} ({bound[node.value.id]}.{node.attr})"


def findings(root: Path = ROOT) -> list[str]:
    out = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            for line, what in uses(path, root):
                if f"{rel}:{what}" not in ALLOWED:
                    out.append(f"{rel}:{line}: uses a private name of another module: {what}")
    return out


def main() -> int:
    bad = findings()
    for line in bad:
        print(line)
    if bad:
        print(f"{len(bad)} private names used across modules: make each public (no leading underscore) where it is defined")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
