"""``skrafl nightly CONFIG.toml``: the whole job a maintainer schedules with cron, for one UTC day:
lexicon, replay, impact (when the lexicon changed) and elo, each step's outputs written atomically.
The steps, the config, its checks and the run log: docs/NIGHTLY.md.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from gamecore.errors import SkraflError, UsageError
from pipelines.stops import stopped_by

LOGS = "logs"
LEXICONS = "lexicons"


class StepFailed(Exception):
    def __init__(self, step: str, message: str):
        super().__init__(f"{step}: {message}")
        self.step = step


def _shown(value: Any) -> Any:
    from pipelines.postgres import is_url, redact

    if isinstance(value, str) and is_url(value):
        return redact(value)
    if isinstance(value, (list, tuple)):
        return [_shown(v) for v in value]
    return str(value) if isinstance(value, Path) else value


_TEXT = "text"
_INT = "a whole number"
_BOOL = "true or false"

#: Every key a nightly config may hold, per section (``""``: the top level), with its type. The
#: whole config is checked against it before any step runs (:func:`load_config`).
CONFIG_KEYS: dict[str, dict[str, str]] = {
    "": {"workdir": _TEXT},
    "lexicon": {"lang": _TEXT, "path": _TEXT, "source": _TEXT, "input": _TEXT, "entries": _TEXT},
    "games": {"source": _TEXT, "missing_days": _TEXT},
    "replay": {"dataset": _TEXT, "workers": _INT, "cluster": _TEXT, "rules": _TEXT},
    "elo": {"out": _TEXT, "ratings_to": _TEXT, "table": _TEXT, "preset": _TEXT, "catch_up": _BOOL},
    "impact": {"out": _TEXT},
}
REQUIRED_SECTIONS = ("lexicon", "games", "replay", "elo")

#: Whether a value is of a type of :data:`CONFIG_KEYS` (a whole number: an int, not a bool or float).
_OF_TYPE: dict[str, Callable[[Any], bool]] = {
    _TEXT: lambda value: isinstance(value, str),
    _INT: lambda value: type(value) is int,
    _BOOL: lambda value: isinstance(value, bool),
}


def _key_lines(text: str) -> dict[tuple[str, str], int]:
    """The line of each ``key =`` (and each ``[section]`` header, key ``""``) of a TOML text, for
    messages (tomllib gives no positions): a plain scan of headers and bare or quoted keys."""
    import re

    found: dict[tuple[str, str], int] = {}
    section = ""
    header = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\"' -]+?)\s*\]")
    key = re.compile(r"^\s*(\"[^\"]*\"|'[^']*'|[A-Za-z0-9_-]+)\s*=")
    for n, line in enumerate(text.splitlines(), 1):
        m = header.match(line)
        if m and not line.lstrip().startswith("[["):
            section = m.group(1).strip("\"'")
            found.setdefault((section, ""), n)
            continue
        m = key.match(line)
        if m:
            found.setdefault((section, m.group(1).strip("\"'")), n)
    return found


def load_config(path: str | Path) -> dict:
    """Read and check a nightly config; paths resolved under ``workdir``.

    The whole config is checked before anything runs: an unknown section or key (a misspelling
    such as ``workerz``), a value of the wrong type (``path = 5``, ``workers = "two"``), a
    missing required key or a value out of its choices is one :class:`UsageError` naming the
    file, the line (when the key is found in the text) and the key path, e.g.
    ``nightly.toml:7: [replay] workerz: unknown key (expected one of: cluster, dataset, rules,
    workers)``."""
    path = Path(path)
    from gamecore.errors import DataError
    from gamecore.text import CONFIG_FILE_MAX, read_text_file, toml_error, toml_loads

    if not path.exists():
        raise UsageError(f"{path}: no such config file")
    text = ""
    try:
        # at most 1 MiB (`skrafl nightly /dev/zero` grew to 24 GB), a leading BOM dropped
        text = read_text_file(path, CONFIG_FILE_MAX, "nightly config")
        cfg = toml_loads(text)  # a 5,000-digit integer is a TOML error with its line
    except DataError as exc:
        raise UsageError(exc.message, path, exc.line) from None
    except tomllib.TOMLDecodeError as exc:
        line, what = toml_error(exc, text)
        raise UsageError(f"not valid TOML: {what}", path, line) from None
    lines = _key_lines(text)
    _check_config(path, cfg, lines)
    work = Path(cfg.get("workdir") or path.resolve().parent)
    if not work.is_absolute():
        work = (path.resolve().parent / work).resolve()
    cfg["workdir"] = work
    _check_rules(path, cfg, lines)
    _check_folders(path, cfg, lines)
    return cfg


def _check_rules(path: Path, cfg: dict, lines: dict[tuple[str, str], int]) -> None:
    """``[replay] rules``: a shipped preset or a rules ``.toml`` (under ``workdir`` when
    relative), loaded now, before any step: an unknown preset made every game of the night a
    ``RULES_ERROR`` row, none rated, and the night said ok. A path is kept resolved."""
    rules = cfg["replay"].get("rules")
    if not rules:
        return
    from gamecore.rules import load_rules

    value = str(_under(cfg, rules)) if rules.endswith(".toml") else rules
    try:
        load_rules(value)
    except SkraflError as exc:
        line = lines.get(("replay", "rules")) or lines.get(("replay", ""))
        where = f"{path}:{line}" if line else str(path)
        raise UsageError(f"{where}: [replay] rules: {rules!r}: {exc}") from None
    cfg["replay"]["rules"] = value


def _check_folders(path: Path, cfg: dict, lines: dict[tuple[str, str], int]) -> None:
    """Refuse, before any step, a config whose steps' folders overlap: an output (``[replay]
    dataset``, ``[elo] out``, ``[impact] out``, the run's ``WORK/lexicons`` and ``WORK/logs``)
    that is, holds or lies inside another output or an input (``[games] source``, ``[lexicon]
    path``, ``input``, ``entries``). A later step would write into an earlier one's folder or
    read its own output (the elo step refused ``[elo] out`` inside ``[replay] dataset`` only
    after the replay had run). One :class:`UsageError` naming both keys."""
    from pipelines.postgres import is_url

    def where(section: str, key: str, value: str) -> tuple[str, int | None, Path, Path]:
        p = Path(os.path.abspath(_under(cfg, value)))
        return f"[{section}] {key} ({value})", lines.get((section, key)), p, Path(os.path.realpath(p))

    outputs = [
        where(s, k, cfg[s][k]) for s, k in (("replay", "dataset"), ("elo", "out"), ("impact", "out")) if cfg.get(s, {}).get(k)
    ]
    work = cfg["workdir"]
    for name in (LEXICONS, LOGS):
        p = Path(os.path.abspath(work / name))
        outputs.append((f"the run's {name} folder ({p})", None, p, Path(os.path.realpath(p))))
    inputs = [where("lexicon", k, cfg["lexicon"][k]) for k in ("path", "input", "entries") if cfg["lexicon"].get(k)]
    source = str(cfg["games"]["source"])
    if not is_url(source):
        folder = source.split(DATE)[0] if DATE in source else source
        if DATE in source and not folder.endswith(("/", os.sep)):
            folder = os.path.dirname(folder) or "."
        p = Path(os.path.abspath(_under(cfg, folder)))
        inputs.append((f"[games] source ({source})", lines.get(("games", "source")), p, Path(os.path.realpath(p))))

    def inside(a: tuple, b: tuple) -> bool:
        return any(x == y or y in x.parents for x in a[2:] for y in b[2:])

    pairs = [(a, b) for i, a in enumerate(outputs) for b in outputs[i + 1 :]] + [(a, b) for a in outputs for b in inputs]
    for a, b in pairs:
        for inner, outer in ((a, b), (b, a)):
            if inside(inner, outer):
                same = inside(outer, inner)
                what = "is the same folder as" if same else "lies inside"
                line = max(x[1] or 0 for x in (a, b)) or None
                raise UsageError(
                    f"{inner[0]} {what} {outer[0]}: give each step's outputs a folder of their own, "
                    "outside the other outputs and inputs",
                    path,
                    line,
                )


@dataclass(frozen=True)
class _ConfigText:
    """Where a nightly config's keys are, for its messages: the file and the line of each key and
    ``[section]`` header (:func:`_key_lines`)."""

    path: Path
    lines: dict[tuple[str, str], int]

    def line(self, section: str, key: str) -> int | None:
        """The line of ``[section] key``, else of its section's header (``None``: not in the text)."""
        return self.lines.get((section, key)) or self.lines.get((section, ""))

    def error(self, section: str, key: str, what: str) -> UsageError:
        """One line: file, line, key path, what is wrong."""
        line = self.line(section, key)
        where = f"{self.path}:{line}" if line else str(self.path)
        name = f"[{section}] {key}" if section and key else f"[{section}]" if section else key
        return UsageError(f"{where}: {name}: {what}")


def _check_config(path: Path, cfg: dict, lines: dict[tuple[str, str], int]) -> None:
    """Raise :class:`UsageError` (one line: file, line, key path, what is wrong) for the first
    problem of ``cfg``: the sections, keys and types of :data:`CONFIG_KEYS` in the file's order,
    then the required sections and each section's values."""
    text = _ConfigText(path, lines)
    _check_config_keys(cfg, text)
    for section in REQUIRED_SECTIONS:
        if not isinstance(cfg.get(section), dict):
            raise UsageError(f"{path}: missing section [{section}]")
    _check_lexicon_section(cfg["lexicon"], text)
    _check_games_section(cfg["games"], text)
    for section, key in (("replay", "dataset"), ("elo", "out")):
        if not cfg[section].get(key):
            raise text.error(section, "", f'needs {key} = "…"')
    workers = cfg["replay"].get("workers")
    if workers is not None and not 1 <= workers <= 1024:
        raise text.error("replay", "workers", f"{workers}: expected 1 to 1024")
    _check_games_url(cfg["games"], text)
    _check_elo_section(cfg["elo"], text)


def _kind_of(value: Any) -> str:
    """A TOML value's kind, as a message names it."""
    return {bool: "a boolean", int: "a number", float: "a number", str: "text", dict: "a table", list: "a list"}.get(
        type(value), type(value).__name__
    )


def _check_config_keys(cfg: dict, text: _ConfigText) -> None:
    """The sections, keys and value types against :data:`CONFIG_KEYS`: the problem found first in
    the file's order (an unknown section or key, a value of another type, an empty text)."""
    problems: list[tuple[int, UsageError]] = []

    def problem(section: str, key: str, what: str) -> None:
        problems.append((text.line(section, key) or 10**9, text.error(section, key, what)))

    for key, value in cfg.items():
        what = _top_level_problem(key, value)
        if what is not None:
            section, name = (key, "") if isinstance(value, dict) else ("", key)  # a [key] table, or a key
            problem(section, name, what)
    for section, keys in CONFIG_KEYS.items():
        table = cfg if not section else cfg.get(section)
        if not isinstance(table, dict):  # (the top level is a table)
            continue
        for key, value in table.items():
            if section or not isinstance(value, dict):
                what = _key_problem(keys, key, value)
                if what is not None:
                    problem(section, key, what)
    if problems:
        raise min(problems, key=lambda p: p[0])[1]


def _top_level_problem(key: str, value: Any) -> str | None:
    """What is wrong with a top-level ``key = value`` or ``[key]`` table, if anything (a top-level
    key's type is checked by :func:`_key_problem`)."""
    sections = [k for k in CONFIG_KEYS if k]
    if key in CONFIG_KEYS[""]:
        return None
    if key in CONFIG_KEYS and not isinstance(value, dict):
        return f"{value!r} is {_kind_of(value)}; expected a section [{key}]"
    if isinstance(value, dict):
        return None if key in CONFIG_KEYS else f"unknown section (expected one of: {', '.join(f'[{s}]' for s in sections)})"
    return f"unknown key (expected {', '.join(CONFIG_KEYS[''])} or the sections {', '.join(f'[{s}]' for s in sections)})"


def _key_problem(keys: dict[str, str], key: str, value: Any) -> str | None:
    """What is wrong with ``key = value`` in a section whose keys and types are ``keys``, if anything."""
    if key not in keys:
        return f"unknown key (expected one of: {', '.join(sorted(keys))})"
    want = keys[key]
    if not _OF_TYPE[want](value):
        return f"{value!r} is {_kind_of(value)}; expected {want}"
    if want == _TEXT and not value.strip():
        return "is empty"
    return None


def _check_lexicon_section(lex: dict, text: _ConfigText) -> None:
    """``[lexicon]``: one of ``lang`` (built here, from recipes this install has) or ``path`` (built elsewhere)."""
    if lex.get("lang") and lex.get("path"):
        line = max(text.lines.get(("lexicon", "lang"), 0), text.lines.get(("lexicon", "path"), 0)) or text.lines.get(
            ("lexicon", "")
        )
        raise UsageError(
            '[lexicon] lang and path exclude each other: give lang = "…" (built here) or path = "…" (built elsewhere), not both',
            text.path,
            line,
        )
    if not lex.get("lang") and not lex.get("path"):
        raise text.error("lexicon", "", 'needs one of lang = "is" (built here) or path = "…" (built elsewhere)')
    if lex.get("lang"):
        import lexicon_sources

        if not (Path(lexicon_sources.__file__).resolve().parent / lex["lang"]).is_dir():
            raise text.error("lexicon", "lang", f"{lex['lang']!r}: no recipes for that language in lexicon_sources/")


def _check_games_section(games: dict, text: _ConfigText) -> None:
    """``[games]``: a ``source``, and ``missing_days`` one of :data:`MISSING_DAYS`."""
    if not games.get("source"):
        raise text.error("games", "", "needs source = a folder of game files or postgresql://…")
    if games.get("missing_days", "error") not in MISSING_DAYS:
        raise text.error(
            "games", "missing_days", f"{games['missing_days']!r}: expected " + " or ".join(f'"{m}"' for m in MISSING_DAYS)
        )


def _check_games_url(games: dict, text: _ConfigText) -> None:
    """``[games] source`` given as a PostgreSQL URL: a well-formed one."""
    from pipelines.postgres import is_url, redact, url_problem

    if is_url(games["source"]) and url_problem(games["source"]):
        raise text.error("games", "source", f"{redact(games['source'])!r}: {url_problem(games['source'])}")


def _check_elo_section(elo: dict, text: _ConfigText) -> None:
    """``[elo]``: ``ratings_to`` a well-formed PostgreSQL URL, ``table`` (with it) a table name,
    ``preset`` one of the rating presets."""
    from pipelines.postgres import check_table_name, redact, url_problem

    if elo.get("ratings_to") is not None and url_problem(elo["ratings_to"]):
        raise text.error("elo", "ratings_to", f"{redact(elo['ratings_to'])!r}: {url_problem(elo['ratings_to'])}")
    if elo.get("table") is not None:
        if elo.get("ratings_to") is None:
            raise text.error("elo", "table", "goes with ratings_to = postgresql://…")
        try:
            check_table_name(elo["table"])
        except UsageError:
            raise text.error(
                "elo", "table", f"{elo['table']!r}: expected a table name (letters, digits, _; optionally schema.table)"
            ) from None
    if elo.get("preset") is not None:
        from pipelines.elo.rating import PRESETS

        if elo["preset"] not in PRESETS:
            raise text.error("elo", "preset", f"{elo['preset']!r}: expected one of {', '.join(PRESETS)}")


def _under(cfg: dict, value: str) -> Path:
    p = Path(value)
    return p if p.is_absolute() else cfg["workdir"] / p


def _sha_files(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.name.encode() + b"\0")
        with open(p, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()


def _lexicon_files(folder: Path) -> dict:
    """The files of the lexicon at the resolved ``folder`` with their sizes and checksums, as its
    output's marker lists them, named relative to ``folder`` (``build_stats.json`` left out: its
    times change from build to build). ``folder`` may be a tier inside a build's output
    (``output/is/midlungur``): then only the files under it count, not the whole output's (the
    tier and the full lexicon share one marker, in ``output/is``)."""
    from gamecore.folders import output_root

    found = output_root(folder)
    if found is None:
        return {}
    root, marker = found
    under = folder.relative_to(root).as_posix() if folder != root else ""
    prefix = f"{under}/" if under else ""
    return {
        k[len(prefix) :]: v
        for k, v in (marker or {}).get("files", {}).items()
        if k.startswith(prefix) and not k.endswith("build_stats.json")
    }


def lexicon_fingerprint(cfg: dict) -> str:
    lex = cfg["lexicon"]
    if lex.get("path"):
        from gamecore.folders import open_output

        files = _lexicon_files(open_output(_under(cfg, lex["path"]), "lexicon"))
        return hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()
    import lexicon_sources

    recipes = Path(lexicon_sources.__file__).resolve().parent / lex["lang"]
    if not recipes.is_dir():
        raise UsageError(f"[lexicon] lang = {lex['lang']!r}: no recipes in {recipes}")
    recipe_files = sorted(p for p in recipes.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    if lex.get("input"):
        recipe_files.append(_under(cfg, lex["input"]))
    entries = ""
    if not lex.get("source"):  # built from an ingest: its files (the dump's version) count too
        from gamecore.folders import read_marker

        folder = _entries(cfg)
        marker = read_marker(Path(os.path.realpath(folder))) if folder.exists() else None
        entries = json.dumps((marker or {}).get("files", {}), sort_keys=True)
    return hashlib.sha256((lex["lang"] + (lex.get("source") or "") + _sha_files(recipe_files) + entries).encode()).hexdigest()


def _entries(cfg: dict) -> Path:
    """The ingest folder a ``lang`` lexicon is built from (``[lexicon] entries``, default the
    project's ``output/entries/LANG``)."""
    lex = cfg["lexicon"]
    if lex.get("entries"):
        return _under(cfg, lex["entries"])
    # as the CLI's output root (cli.common.output_root; pipelines do not import cli)
    root = os.environ.get("SKRAFL_OUTPUT")
    if root:
        return Path(root) / "entries" / lex["lang"]
    checkout = Path(__file__).resolve().parents[1] / "output"
    return (checkout if checkout.is_dir() else Path("output")) / "entries" / lex["lang"]


def _previous_log(cfg: dict, day: dt.date) -> dict | None:
    logs = cfg["workdir"] / LOGS
    if not logs.is_dir():
        return None
    best = None
    for p in logs.glob("*.json"):
        try:
            d = dt.date.fromisoformat(p.stem)
        except ValueError:
            continue
        if d < day and (best is None or d > best[0]):
            best = (d, p)
    if best is None:
        return None
    try:
        log = json.loads(best[1].read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return log if log.get("status") == "ok" else _previous_log(cfg, best[0])  # the newest night that succeeded


def _step_lexicon(cfg: dict, day: dt.date, rec: dict) -> tuple[Path, str, Path | None]:
    lex = cfg["lexicon"]
    fp = lexicon_fingerprint(cfg)
    target = cfg["workdir"] / LEXICONS / fp[:16]
    rec["inputs"] = [lex.get("path") or f"lexicon_sources/{lex['lang']}", *([lex["input"]] if lex.get("input") else [])]
    rec["outputs"] = [str(target)]
    rec["counts"] = {"fingerprint": fp[:16]}
    if not (target / "manifest.json").exists() or (lex.get("path") and not _same_copy(cfg, target)):
        if lex.get("path"):
            from gamecore.folders import open_output
            from pipelines.atomic import output_dir

            src = open_output(_under(cfg, lex["path"]), "lexicon")
            with output_dir(target, "nightly-lexicon", [src]) as stage:
                for item in src.iterdir():
                    if item.name.startswith(".skrafl-"):
                        continue
                    (shutil.copytree if item.is_dir() else shutil.copy2)(item, stage / item.name)
            rec["counts"]["built"], rec["counts"]["got"] = False, "copied"
        else:
            cmd = [sys.executable, "-m", "cli.main", "build", lex["lang"], "--out", str(target), "-q"]
            if lex.get("source"):
                cmd += ["--source", lex["source"]]
            if lex.get("input"):
                cmd += ["--input", str(_under(cfg, lex["input"]))]
            if not lex.get("source"):
                cmd += ["--entries", str(_entries(cfg))]
            r = _build(cmd)
            if r.returncode != 0:
                raise StepFailed("lexicon", (r.stderr.strip().splitlines() or [f"skrafl build exited {r.returncode}"])[-1])
            rec["counts"]["built"], rec["counts"]["got"] = True, "built"
    else:
        from pipelines.atomic import tidy_lock

        tidy_lock(target)  # the lock a run killed just after it made this copy left beside it
        rec["counts"]["built"], rec["counts"]["got"] = False, "kept"
    prev_log = _previous_log(cfg, day)
    prev = None
    if prev_log and prev_log.get("lexicon") and prev_log["lexicon"] != fp[:16]:
        candidate = cfg["workdir"] / LEXICONS / prev_log["lexicon"]
        if (candidate / "manifest.json").exists():
            prev = candidate
    rec["counts"]["changed"] = prev is not None
    try:
        rec["counts"]["words"] = json.loads((target / "manifest.json").read_text(encoding="utf-8")).get("words")
    except (OSError, ValueError):
        pass
    return target, fp[:16], prev


def _build(cmd: list[str]) -> subprocess.CompletedProcess:
    """Run ``skrafl build`` (``cmd``). A stop of this run (SIGINT, SIGTERM) is passed on to the
    build, which then discards its stage as any stopped command does, and waited for (at most
    :data:`BUILD_STOP_WAIT` seconds, or until a second stop; then it is killed) before the stop
    goes on up."""
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(Path(__file__).resolve().parents[1])
    )
    try:
        out, err = proc.communicate()
    except BaseException as exc:
        import signal

        try:
            proc.send_signal(_stop_signal(exc) or signal.SIGTERM)
            proc.wait(timeout=BUILD_STOP_WAIT)
        except BaseException:  # noqa: BLE001 - a second stop, or a build that does not end: killed
            proc.kill()
            proc.wait()
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


BUILD_STOP_WAIT = 30.0
"""Seconds a stopped nightly waits for its ``skrafl build`` to discard its stage."""


def _same_copy(cfg: dict, target: Path) -> bool:
    """Whether ``WORK/lexicons/<fingerprint>`` holds the files of the ``path`` lexicon (sizes and
    checksums). A copy made by an older skrafl, whose fingerprint of a tier (``output/is/midlungur``)
    was that of the whole output (``output/is``), may hold another lexicon under the same name:
    it is copied again, not kept."""
    from gamecore.folders import open_output

    try:
        copy = _lexicon_files(Path(os.path.realpath(target)))
    except (OSError, ValueError):
        return False
    return copy == _lexicon_files(open_output(_under(cfg, cfg["lexicon"]["path"]), "lexicon"))


DATE = "{date}"
MISSING_DAYS = ("error", "empty")


def _day_folders(cfg: dict, since: dt.date | None, day: dt.date, rec: dict) -> dict[str, dt.date]:
    """The game folders of a ``{date}`` source for the days ``since`` … ``day`` (from nothing:
    from the first day that has a folder), each day's ``{date}`` expanded, with their days (in
    day order); counted in ``rec``
    (``first_day``, ``days``, ``days_with_games``, ``empty_days``, ``missing_days``, ``notes``). A day whose folder holds no game
    file is a day without games. A day without its folder fails the step (one line naming the
    days) unless ``[games] missing_days = "empty"``: then it too is a day without games."""
    from pipelines.replay.read import collect_files

    template = str(_under(cfg, str(cfg["games"]["source"])))
    if since is None:
        found = _dated_paths(template, day)
        since = found[0] if found else day
    folders: dict[str, dt.date] = {}
    empty, missing = [], []
    d = since
    while d <= day:
        path = template.replace(DATE, d.isoformat())
        if not os.path.exists(path):
            missing.append((d, path))
        else:
            if os.path.isdir(path):
                try:
                    os.listdir(path)  # an unreadable folder is no quiet day
                except OSError as exc:
                    raise StepFailed("replay", f"{d.isoformat()}: {_error_text(exc)}") from None
            folders[path] = d
            if not collect_files([path]):
                empty.append(d)
        d += dt.timedelta(days=1)
    total = (day - since).days + 1
    rec["counts"].update(first_day=since.isoformat(), days=total, days_with_games=total - len(empty) - len(missing))
    rec["counts"]["empty_days"] = [d.isoformat() for d in empty]
    rec["counts"]["missing_days"] = [d.isoformat() for d, _ in missing]
    notes = rec.setdefault("notes", [])
    for d in empty:
        notes.append(f"{d.isoformat()}: no game file in {template.replace(DATE, d.isoformat())}: a day without games")
    if missing:
        if cfg["games"].get("missing_days", "error") != "empty":
            raise StepFailed(
                "replay",
                f"no games folder for {_day_list([d for d, _ in missing])} (no folder {missing[0][1]}): a failed upload? "
                f"Nothing is rated until it is there (a later day rated first would leave its games late); "
                f'for a day without games give it an empty folder, or set [games] missing_days = "empty"',
            )
        for d, path in missing:
            notes.append(f'{d.isoformat()}: no folder {path}: a day without games (missing_days = "empty")')
    return folders


def _day_list(days: list[dt.date]) -> str:
    shown = ", ".join(d.isoformat() for d in days[:10])
    return shown + (f" and {len(days) - 10} more days" if len(days) > 10 else "")


def _dated_paths(template: str, day: dt.date) -> list[dt.date]:
    """The days up to ``day`` whose expansion of ``template`` exists, sorted."""
    import glob
    import re

    pieces = template.split(DATE)
    pattern = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]".join(glob.escape(p) for p in pieces)
    days = set()
    head = re.compile(re.escape(pieces[0]) + r"(\d{4}-\d{2}-\d{2})")
    for path in glob.glob(pattern):
        m = head.match(path)
        if not m:
            continue
        try:
            d = dt.date.fromisoformat(m.group(1))
        except ValueError:
            continue
        if d <= day and template.replace(DATE, m.group(1)) == path:
            days.add(d)
    return sorted(days)


def _newest_elo_before(out: Path, day: dt.date, work: Path | None = None) -> Path | None:
    """The newest ``elo.out/DAY`` before ``day`` that rated its day: an output of ``skrafl elo``
    (its marker) whose night did not fail in its elo step. (A run's elo step that fails swaps
    nothing in, so its folder is not there; an older skrafl swapped the folder in before a failed
    ``ratings_to`` write, and such a folder, whose run log says the elo step failed and records
    no success, is not counted: that day is rated again, and stored.)"""
    from gamecore.folders import read_marker

    best = None
    if out.is_dir():
        for p in out.iterdir():
            try:
                d = dt.date.fromisoformat(p.name)
            except ValueError:
                continue
            if d >= day or not (p / "ratings.parquet").exists() or (best is not None and d <= best[0]):
                continue
            marker = read_marker(Path(os.path.realpath(p)))
            if not marker or marker.get("command") != "elo":
                continue
            if work is not None and _elo_failed(work, d):
                continue
            best = (d, p)
    return best[1] if best else None


def _elo_failed(work: Path, day: dt.date) -> bool:
    """The run log of ``day`` records no success and says its elo step failed."""
    try:
        log = json.loads((work / LOGS / f"{day.isoformat()}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(log, dict) or log.get("status") == "ok":
        return False
    return any(isinstance(s, dict) and s.get("step") == "elo" and s.get("status") == "failed" for s in log.get("steps") or [])


def _step_replay(cfg: dict, day: dt.date, rec: dict, lexicon: Path, dataset: Path, quiet: bool) -> None:
    """Step 2: replay every day's games since the last night that rated into the dataset (see the
    module).

    Raises:
        StepFailed: games were read and none replayed ok.
    """
    from pipelines.postgres import is_url
    from pipelines.replay.jobs import ReplayOptions, run_replay_dataset

    # every day since the last night that rated (a night that failed or did not run is
    # replayed now; from nothing: every day up to D)
    state = _newest_elo_before(_under(cfg, cfg["elo"]["out"]), day, cfg["workdir"])
    since = dt.date.fromisoformat(state.name) + dt.timedelta(days=1) if state is not None else None
    source = str(cfg["games"]["source"])
    rec["counts"] = {"since": since.isoformat() if since else None, "until": day.isoformat()}
    rec["inputs"] = _shown([source])
    empty_ok = False
    folder_days = None
    if is_url(source):
        items = [source.replace("{date}", day.isoformat())]
    elif DATE not in source:
        items = [str(_under(cfg, source))]  # one folder of every day's games
    else:
        # a game without a time of its own (a GCG file) read from a day's folder is a game
        # of that day: its partition is part=DAY, and elo rates it at the end of that day
        folder_days = _day_folders(cfg, since, day, rec)
        items = list(folder_days)
        empty_ok = True
    rec["inputs"] = _shown(items) + [str(lexicon)]
    rec["outputs"] = [str(dataset)]
    opts = ReplayOptions(lexicon_dir=str(lexicon), preset=cfg["replay"].get("rules"))
    games = bool(items) and not (empty_ok and not rec["counts"]["days_with_games"])
    s = run_replay_dataset(
        items,
        dataset,
        opts,
        workers=int(cfg["replay"].get("workers", 1)) if games else 1,
        quiet=quiet,
        since=since,
        until=day,
        cluster=(cfg["replay"].get("cluster") or os.environ.get("SKRAFL_DASK_SCHEDULER") or None) if games else None,
        empty_ok=empty_ok,
        folder_days=folder_days,
    )
    rec["counts"].update({k: s[k] for k in ("games", "ok", "mismatch", "error", "moves", "outside")})
    rec["counts"].update(partitions=s["partitions"], unchanged=s["unchanged"], removed=s["removed"])
    if s["games"] and not s["ok"]:
        raise StepFailed("replay", _none_replayed(s))


def run_nightly(config: str | Path, day: dt.date | None = None, quiet: bool = True) -> dict:
    """Run every step for ``day`` (default: yesterday, UTC); return the run log (also written
    to ``WORK/logs/DAY.json``). A failed step: the log says which, with status ``failed``, and
    :class:`StepFailed` is raised after the log is written."""
    cfg = load_config(config)
    day = day or (dt.datetime.now(dt.timezone.utc).date() - dt.timedelta(days=1))
    log: dict[str, Any] = {
        "date": day.isoformat(),
        "config": str(Path(config)),
        "status": "running",
        "exit": None,
        "lexicon": None,
        "started": _now(),
        "steps": [],
    }
    failure: StepFailed | None = None
    work = cfg["workdir"]
    work.mkdir(parents=True, exist_ok=True)
    dataset = _under(cfg, cfg["replay"]["dataset"])
    try:
        # 1. lexicon
        rec = _begin(log, "lexicon")
        lexicon, fp, previous = _run(rec, lambda: _step_lexicon(cfg, day, rec))
        log["lexicon"] = fp
        # 2. replay
        rec = _begin(log, "replay")

        _run(rec, lambda: _step_replay(cfg, day, rec, lexicon, dataset, quiet))
        # 3. impact
        rec = _begin(log, "impact")
        if previous is None or not cfg.get("impact", {}).get("out"):
            rec["status"] = "skipped"
            rec["counts"] = {"reason": "lexicon unchanged" if previous is None else "no [impact] out"}
        else:

            def impact():
                from pipelines.impact import run_impact

                out = _under(cfg, cfg["impact"]["out"]) / day.isoformat()
                rec["inputs"] = [str(previous), str(lexicon), str(dataset)]
                rec["outputs"] = [str(out)]
                # a game of another language is left out with its reason (skipped.csv), not the
                # night's end: one such game in an old partition stopped every night after a change
                r = run_impact(previous, lexicon, [str(dataset)], out, quiet=quiet, check_language=True, skip_other_language=True)
                p = r["plays"]
                rec["counts"] = {
                    "games": r["games"],
                    "skipped": r["skipped"].height,
                    "plays_now_phony": p.filter(p["change"] == "now_phony").height,
                    "plays_now_valid": p.filter(p["change"] == "now_valid").height,
                    "words": r["words"].height,
                    "winners_changed": r["winners"].height,
                }
                if r["skipped"].height:
                    rec["notes"] = [
                        f"{f}: left out: {why}" for f, why in r["skipped"].select("file", "reason").head(10).iter_rows()
                    ] + ([f"and {r['skipped'].height - 10} more in {out / 'skipped.csv'}"] if r["skipped"].height > 10 else [])

            _run(rec, impact)
        # 4. elo
        rec = _begin(log, "elo")

        def elo():
            from pipelines import elo as lib
            from pipelines.postgres import is_url

            ecfg = cfg["elo"]
            source = str(cfg["games"]["source"])
            base = _under(cfg, ecfg["out"])
            out = base / day.isoformat()
            state = _newest_elo_before(base, day, cfg["workdir"])
            params = lib.resolve_params(ecfg.get("preset"), state)
            rec["inputs"] = [
                str(dataset),
                *([str(state)] if state else []),
                *_shown([ecfg["ratings_to"]] if ecfg.get("ratings_to") else []),
            ]
            rec["outputs"] = [str(out)]
            run = lib.run_elo(
                str(dataset),
                out,
                state,
                params,
                day,
                quiet=True,
                catch_up=bool(ecfg.get("catch_up", True)),
                ratings_to=ecfg.get("ratings_to"),
                ratings_table=ecfg.get("table"),
                players_from=source if is_url(source) else None,  # the record format has no player ids
            )
            rec["counts"] = {
                "rated": run.games_rated,
                "unnamed": run.games_unnamed,  # replayed Netskrafl games without player ids: not rated
                "skipped": skipped_in_notes(run.notes),  # games elo could not use, each kind in a note
                "already_rated": run.games_skipped,  # rated by an earlier night (the same day run again)
                "late": run.late.height if run.late is not None else 0,
                "top100": sorted(p.name for p in out.glob("top100_*.csv")),
            }
            rec["notes"] = list(run.notes)

        _run(rec, elo)
        log["status"], log["exit"] = "ok", 0
    except StepFailed as exc:
        failure = exc
        log["status"], log["exit"] = "failed", 2
    except BaseException as exc:  # stopped (SIGINT, SIGTERM): still a log, the step that ran marked stopped
        signum = _stop_signal(exc)
        log["status"], log["exit"] = "failed", 128 + (signum or 2)
        for rec in log["steps"]:
            if rec["status"] == "running":
                rec["status"], rec["error"] = "stopped", stopped_by(signum)
        raise
    finally:
        # no credential in the log or on stderr, whatever a library's message quoted
        urls = [u for u in (cfg["games"].get("source"), cfg["elo"].get("ratings_to")) if _is_url(u)]
        log.update(_hidden({k: v for k, v in log.items()}, urls))
        log_error = _write_log(work, day, log)
    if log_error is not None:  # a full disk: said with the step's failure, or alone
        if failure is not None:
            message = _hidden(str(failure).removeprefix(f"{failure.step}: "), urls)
            raise StepFailed(failure.step, f"{message}; and the run log was not written ({log_error})")
        raise log_error
    if failure is not None:
        raise StepFailed(failure.step, _hidden(str(failure).removeprefix(f"{failure.step}: "), urls))
    return log


def _is_url(value: Any) -> bool:
    from pipelines.postgres import is_url

    return is_url(value)


def _hidden(value: Any, urls: list[str]) -> Any:
    """``value`` (a run log, a message) with the credentials of ``urls`` hidden in every text
    (:func:`pipelines.postgres.hide_credentials`)."""
    if not urls:
        return value
    from pipelines.postgres import hide_credentials

    if isinstance(value, str):
        for url in urls:
            value = hide_credentials(value, url)
        return value
    if isinstance(value, dict):
        return {k: _hidden(v, urls) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_hidden(v, urls) for v in value]
    return value


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


_SKIPPED_NOTE = re.compile(r"(?:warning: )?(\d+)(?: of \d+)? (?:replay(?:ed)? )?(?:game|row)\(s\)")


def skipped_in_notes(notes) -> int:
    """The games an elo run was given and could not use, summed over its notes (``N replay row(s)
    with status other than 'ok' skipped``, ``warning: N replayed game(s) skipped: both players
    have the same name``, ``… not rated``): the run log's ``skipped`` (it said 0 while its notes
    listed 110). Counted apart: ``unnamed`` (Netskrafl records naming no players), ``late``
    (games of days already rated) and ``already_rated``."""
    total = 0
    for note in notes:
        m = _SKIPPED_NOTE.match(note)
        if m and (" skipped" in note or " not rated" in note) and "already rated" not in note:
            total += int(m.group(1))
    return total


def _none_replayed(summary: dict) -> str:
    """Why a replay step that replayed none of its games ok fails: the statuses counted, the first
    game named. None of them can be rated, and a night that said ok would count the day as rated
    (never rated again)."""
    listed = summary.get("not_ok") or []
    first = f"; first: {listed[0][1]}: {listed[0][0]}: {listed[0][2]}" if listed else ""
    shown = ", ".join(f"{k} {summary[k]}" for k in ("mismatch", "error") if summary.get(k))
    return (
        f"none of the {summary['games']} games replayed ok ({shown}){first}; nothing is rated and the day is not "
        "counted as rated: fix the cause and run the day again"
    )


def _begin(log: dict, step: str) -> dict:
    rec = {"step": step, "status": "running", "inputs": [], "outputs": [], "counts": {}, "seconds": 0.0, "error": None}
    log["steps"].append(rec)
    return rec


def _run(rec: dict, fn):
    t = time.monotonic()
    try:
        result = fn()
        rec["status"] = "ok"
        return result
    except StepFailed as exc:
        rec["status"], rec["error"] = "failed", str(exc)
        raise
    except (SkraflError, OSError) as exc:
        rec["status"], rec["error"] = "failed", _error_text(exc)
        raise StepFailed(rec["step"], rec["error"]) from None
    except Exception as exc:  # noqa: BLE001 - a step's bug fails the step, the log still says which
        signum = _stop_signal(None)
        if signum is not None:  # a stop that a library turned into another error: still a stop
            rec["status"], rec["error"] = "stopped", stopped_by(signum)
            raise
        rec["status"], rec["error"] = "failed", f"internal error ({type(exc).__name__}: {' '.join(str(exc).split())[:300]})"
        raise StepFailed(rec["step"], rec["error"]) from None
    except BaseException as exc:  # SIGINT, SIGTERM (pipelines.stops.Signalled, KeyboardInterrupt): the step was stopped
        rec["status"], rec["error"] = "stopped", stopped_by(_stop_signal(exc))
        raise
    finally:
        rec["seconds"] = round(time.monotonic() - t, 3)


def _stop_signal(exc: BaseException | None) -> int | None:
    """The signal that stopped the run: the one ``exc`` carries (:class:`pipelines.stops.Signalled`,
    replay's ``Stopped``), else the one recorded (:func:`pipelines.stops.stop_requested`), else
    SIGINT for a plain :class:`KeyboardInterrupt`; None when no stop is known."""
    import signal

    from pipelines.stops import stop_requested

    signum = getattr(exc, "signum", None) or stop_requested()
    if signum is None and isinstance(exc, KeyboardInterrupt):
        signum = signal.SIGINT
    return int(signum) if signum is not None else None


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc)


def _write_log(work: Path, day: dt.date, log: dict) -> SkraflError | None:
    """Write the run log ``WORK/logs/DAY.json``, replaced whole (a temporary file, then a rename),
    under an exclusive ``flock`` on ``WORK/logs/.lock`` (two runs of a day end one after the
    other, neither losing the other's record).

    A run that succeeds replaces the log, keeping as ``failed_attempts`` the runs that failed
    *while it ran* (started after it: a run that found an output locked by this one, and failed).
    A run that fails or is stopped on a day whose log records a success does not erase it: the
    log keeps the successful run's record (``status`` ``ok``: its outputs are still in place,
    since a failed step swaps nothing in) and lists the failed run under ``failed_attempts`` (the
    newest last, with ``at``, the UTC time it ended; its steps marked ``ok`` did replace their
    outputs, e.g. a day's partitions replayed again). Without an earlier success the failed run is
    the log. Temporary files of killed runs (``.DAY.json.tmp-PID``, the process gone) are removed.

    Returns None, or the :class:`OutputError` of a full disk (nothing changed, the temporary file
    removed); other errors are raised."""
    import fcntl

    from gamecore.errors import OutputError, is_disk_full

    folder = work / LOGS
    path = folder / f"{day.isoformat()}.json"
    tmp = folder / f".{path.name}.tmp-{os.getpid()}"
    lock_fd = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock_fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        _tidy_log_temporaries(folder)
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = None
        old = old if isinstance(old, dict) else None
        ended = _now()
        log = {**log, "ended": ended}
        if log.get("status") != "ok":
            if old is not None and old.get("status") == "ok":
                attempt = {"at": ended.split(".")[0] + "Z", **log}
                attempt.pop("failed_attempts", None)
                log = {**old, "failed_attempts": [*(old.get("failed_attempts") or []), attempt][-MAX_ATTEMPTS:]}
        elif old is not None:
            started = str(log.get("started") or "")
            during = [
                a for a in old.get("failed_attempts") or [] if isinstance(a, dict) and str(a.get("started") or "") >= started
            ]
            if old.get("status") != "ok" and str(old.get("started") or "") >= started:
                at = str(old.get("ended") or "").split(".")[0]
                during.append({"at": at + "Z" if at else "", **{k: v for k, v in old.items() if k != "failed_attempts"}})
            if during:
                log = {**log, "failed_attempts": during[-MAX_ATTEMPTS:]}
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(log, ensure_ascii=False, indent=1, default=str) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        return None
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if is_disk_full(exc):
            return OutputError("no space left on the device for the run log: it was not written", path)
        raise
    finally:
        if lock_fd is not None:
            os.close(lock_fd)


def _tidy_log_temporaries(folder: Path) -> None:
    """Remove ``.DAY.json.tmp-PID`` files whose process is gone (a run killed while writing its
    log)."""
    for p in folder.glob(".*.json.tmp-*"):
        pid = p.name.rsplit("-", 1)[-1]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
            continue  # that run is alive (or another process has its id): left alone
        except ProcessLookupError:
            pass
        except OSError:
            continue
        with contextlib.suppress(OSError):
            p.unlink()


MAX_ATTEMPTS = 20
"""Failed attempts kept in a successful day's run log (the newest)."""
