"""docs/nightly.example.toml: the example config the README points to names
every key a nightly config may hold, and it loads, as shipped and with each of its commented
alternatives taken instead, through the same check a night runs first (:func:`load_config`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "nightly.example.toml"
ALTERNATIVE = re.compile(r"^# ([a-z_]+) = (.*)$")


def _sections(lines: list[str]) -> list[str]:
    section, out = "", []
    for line in lines:
        m = re.match(r"^\[([a-z]+)\]", line)
        section = m.group(1) if m else section
        out.append(section)
    return out


def test_the_example_names_every_key():
    from pipelines.nightly import CONFIG_KEYS

    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    found = {
        (s, m.group(1)) for s, line in zip(_sections(lines), lines, strict=True) if (m := re.match(r"^(?:# )?([a-z_]+) =", line))
    }
    expected = {(s, k) for s, keys in CONFIG_KEYS.items() for k in keys}
    assert expected <= found, sorted(expected - found)
    assert found <= expected, sorted(found - expected)  # no key the check would refuse


def test_the_example_loads(tmp_path):
    from pipelines.nightly import load_config

    cfg = load_config(EXAMPLE)
    assert cfg["workdir"] == Path("/srv/skrafl") and cfg["lexicon"]["lang"] == "is"
    assert cfg["games"]["source"] == "incoming/{date}" and cfg["replay"]["workers"] == 2


@pytest.mark.parametrize(
    "number",
    [n for n, line in enumerate(EXAMPLE.read_text(encoding="utf-8").splitlines()) if ALTERNATIVE.match(line)],
)
def test_each_alternative_loads(tmp_path, number):
    """Each commented ``# key = value`` line taken (the live key of that name replaced; ``path``
    instead of ``lang``, which it excludes; ``table`` with the ``ratings_to`` it goes with)."""
    from pipelines.nightly import load_config

    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    sections = _sections(lines)
    key = ALTERNATIVE.match(lines[number]).group(1)
    taken = {number}
    if key == "table":
        taken |= {n for n, line in enumerate(lines) if line.startswith("# ratings_to = ")}
    out = []
    for n, line in enumerate(lines):
        live = re.match(r"^([a-z_]+) =", line)
        if n in taken:
            out.append(line[2:].split("   #")[0])
        elif live and sections[n] == sections[number] and (live.group(1) == key or (key == "path" and live.group(1) == "lang")):
            continue
        else:
            out.append(line)
    config = tmp_path / "nightly.toml"
    config.write_text("\n".join(out).replace('workdir = "/srv/skrafl"', f'workdir = "{tmp_path}/work"') + "\n", encoding="utf-8")
    cfg = load_config(config)
    assert cfg[sections[number]][key] is not None
