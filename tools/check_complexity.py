"""The complexity ratchet of ``make lint``: no function above ruff's ``max-complexity`` (McCabe, C901;
the limit is in pyproject.toml) unless it is listed in tools/complexity_ratchet.txt, and no listed
function above its listed complexity.

The list holds the functions that were already above the limit when the gate came in. It may only
shrink: a listed function split below the limit, or simpler than its listed number, fails here too
until its line is removed or its number lowered, so the list stays exact. Run from the repository:
``.venv/bin/python tools/check_complexity.py`` (exit 0 clean, 1 with the findings, one per line).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RATCHET = ROOT / "tools" / "complexity_ratchet.txt"
MESSAGE = re.compile(r"`(?P<name>[^`]+)` is too complex \((?P<n>\d+) > (?P<limit>\d+)\)")


def measured() -> Counter[tuple[str, str, int]]:
    """(path, function, complexity) of every function above the limit, by ruff's C901."""
    ruff = Path(sys.executable).with_name("ruff")
    cmd = [str(ruff) if ruff.exists() else "ruff", "check", "--select", "C901", "--output-format", "json", "--exit-zero", "."]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    found: Counter[tuple[str, str, int]] = Counter()
    for d in json.loads(out):
        m = MESSAGE.search(d["message"])
        if d["code"] != "C901" or m is None:
            raise SystemExit(f"check_complexity: an unexpected ruff finding: {d['code']} {d['message']}")
        found[(Path(d["filename"]).relative_to(ROOT).as_posix(), m["name"], int(m["n"]))] += 1
    return found


def listed() -> Counter[tuple[str, str, int]]:
    """The ratchet file's entries: ``PATH FUNCTION COMPLEXITY`` a line, ``#`` comments."""
    entries: Counter[tuple[str, str, int]] = Counter()
    stated = None
    for lineno, line in enumerate(RATCHET.read_text(encoding="utf-8").splitlines(), 1):
        if m := re.fullmatch(r"# (\d+) functions\.", line.strip()):
            stated = int(m[1])
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 3 or not parts[2].isdigit():
            raise SystemExit(f"{RATCHET.relative_to(ROOT)}:{lineno}: expected PATH FUNCTION COMPLEXITY, got {line!r}")
        entries[(parts[0], parts[1], int(parts[2]))] += 1
    if stated != sum(entries.values()):
        raise SystemExit(
            f"{RATCHET.relative_to(ROOT)}: its '# N functions.' line says {stated}, it lists {sum(entries.values())}"
        )
    return entries


def problems(found: Counter[tuple[str, str, int]], allowed: Counter[tuple[str, str, int]]) -> list[str]:
    """Each function above the limit that the list does not allow, and each list entry no longer needed."""
    out = []
    # match by (path, function); several functions of one name in one file pair up by complexity
    keys = {(p, f) for p, f, _ in found} | {(p, f) for p, f, _ in allowed}
    for path, func in sorted(keys):
        got = sorted((n for (p, f, n), k in found.items() if (p, f) == (path, func) for _ in range(k)), reverse=True)
        may = sorted((n for (p, f, n), k in allowed.items() if (p, f) == (path, func) for _ in range(k)), reverse=True)
        for i, n in enumerate(got):
            if i >= len(may):
                out.append(f"{path}: {func} has complexity {n}, above the limit: split it (not listed in {RATCHET.name})")
            elif n > may[i]:
                out.append(f"{path}: {func} grew from complexity {may[i]} to {n}: split it rather than raise its number")
            elif n < may[i]:
                out.append(f"{path}: {func} is down from complexity {may[i]} to {n}: lower its number in {RATCHET.name}")
        for n in may[len(got) :]:
            out.append(f"{path}: {func} (listed at {n}) is within the limit now or gone: remove its line from {RATCHET.name}")
    return out


def main() -> int:
    found, allowed = measured(), listed()
    bad = problems(found, allowed)
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
