"""``skrafl nightly CONFIG.toml``: the whole job a maintainer schedules with cron, for one UTC day.

Steps, in order (each writes only its own outputs, each atomically; a step that fails stops the
run with exit status 2 and leaves every earlier output as it was):

1. ``lexicon``: the lexicon of the night, kept as ``WORK/lexicons/<fingerprint>`` (an output of
   ``build``, or a copy of a lexicon built elsewhere). The fingerprint covers what the lexicon is
   made of: the recipe folder ``lexicon_sources/LANG/`` and the ``--input`` file (``lang`` mode,
   built with ``skrafl build`` only when no lexicon of that fingerprint exists yet), or the files
   of the lexicon at ``path`` (``path`` mode: its marker's sizes and checksums, without
   ``build_stats.json``). The lexicon *changed* when the previous night's run log names another
   fingerprint.
2. ``replay``: the games finished since the last night that rated (the day after the newest
   ``elo.out/DAY`` before D; from nothing: every day) up to D, into the dataset
   ``replay.dataset``, ``--since … --until D`` (:func:`pipelines.replay.jobs.run_replay_dataset`):
   those days' partitions replaced (a night that failed or did not run is replayed with the
   next), the others kept; an identical partition is not swapped. The games come from
   ``[games] source``:

   - a PostgreSQL database: its games finished in that window;
   - a path without ``{date}``: one folder (or file) holding every day's games; the games
     finished in the window are taken;
   - a path with ``{date}`` (``incoming/{date}``, one folder per UTC day): the folder of *every*
     day of the window, ``{date}`` expanded to each day (from nothing: every day from the first
     that has a folder). A day whose folder holds no game file is a day without games: rated
     as such (the ratings carry over, the day counts as rated) and listed in the run log
     (``empty_days`` and a note). A day of the window *without its folder* fails the step,
     one line naming the days, and nothing is rated: a missing folder is more likely an upload
     that failed than a quiet night, and rating a later day first would leave that day's games
     late for ever (never rated). The next night reads the day again, so once the folder is
     there (an empty one for a day without games) nothing is lost. ``[games] missing_days =
     "empty"`` rates a day without its folder as a day without games instead (listed in
     ``missing_days`` and a note in the run log).
3. ``impact`` (only when the lexicon changed): the previous lexicon against the new one over the
   whole dataset, into ``impact.out/D`` (:mod:`pipelines.impact`).
4. ``elo``: ``elo --games DATASET --date D --state <the newest elo.out/DAY before D>`` into
   ``elo.out/D`` (``--catch-up`` unless ``elo.catch_up = false``; optionally ``--ratings-to``):
   ratings, history and the top-100 tables of the day.

The run log ``WORK/logs/D.json`` (JSON; replaced whole at the end of each run, also a failed one):
``date``, ``status`` (``ok``/``failed``), ``exit``, ``lexicon`` (fingerprint), and per step
``step, status (ok/skipped/failed), inputs, outputs, counts, seconds, error`` (and ``notes``:
replay's days without games, elo's warnings). The replay step's counts: ``since``, ``until``,
the games and partitions; with a ``{date}`` source also ``first_day`` (the window's first day
read), ``days``, ``days_with_games``, ``empty_days`` and ``missing_days``. Database URLs are
shown without credentials. Running the same day twice changes no output (identical partitions
are kept, the other outputs are rewritten with the same bytes).

Config (TOML; relative paths are under ``workdir``, default the config's folder)::

    workdir = "/srv/skrafl"
    [lexicon]
    lang = "is"                 # built here when its recipe, input or ingest changed (source, input,
                                # entries optional; default entries: output/entries/LANG)
    # path = "output/is"        # or: a lexicon built elsewhere, only compared and copied
    [games]
    source = "postgresql:///netskrafl"    # or a folder of game files: "incoming/{date}" (a folder
                                # per UTC day, each day of the window read) or "incoming" (all days)
    # missing_days = "error"    # {date}: a day without its folder fails the night (default), or
                                # "empty": it is a day without games (noted in the run log)
    [replay]
    dataset = "data/replay"
    workers = 2                 # or cluster = "tcp://scheduler:8786"
    [elo]
    out = "data/elo"
    # ratings_to = "postgresql:///netskrafl"   table = "skrafl_ratings"
    [impact]
    out = "data/impact"
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from gamecore.errors import SkraflError, UsageError

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


def load_config(path: str | Path) -> dict:
    """Read and check a nightly config; paths resolved under ``workdir``."""
    path = Path(path)
    try:
        cfg = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: no such config file") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: not a readable TOML config ({exc})") from None
    work = Path(cfg.get("workdir") or path.resolve().parent)
    if not work.is_absolute():
        work = (path.resolve().parent / work).resolve()
    cfg["workdir"] = work
    for section in ("lexicon", "games", "replay", "elo"):
        if not isinstance(cfg.get(section), dict):
            raise UsageError(f"{path}: missing section [{section}]")
    lex = cfg["lexicon"]
    if bool(lex.get("lang")) == bool(lex.get("path")):
        raise UsageError(f'{path}: [lexicon] needs one of lang = "is" (built here) or path = "…" (built elsewhere)')
    if not cfg["games"].get("source"):
        raise UsageError(f"{path}: [games] needs source = a folder of game files or postgresql://…")
    if cfg["games"].get("missing_days", "error") not in MISSING_DAYS:
        raise UsageError(
            f"{path}: [games] missing_days = {cfg['games']['missing_days']!r}: expected "
            + " or ".join(f'"{m}"' for m in MISSING_DAYS)
        )
    for section, key in (("replay", "dataset"), ("elo", "out")):
        if not cfg[section].get(key):
            raise UsageError(f'{path}: [{section}] needs {key} = "…"')
    return cfg


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


def lexicon_fingerprint(cfg: dict) -> str:
    lex = cfg["lexicon"]
    if lex.get("path"):
        from gamecore.folders import open_output, output_root

        folder = open_output(_under(cfg, lex["path"]), "lexicon")
        _root, marker = output_root(folder)
        files = {k: v for k, v in marker.get("files", {}).items() if not k.endswith("build_stats.json")}
        return hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()
    import lexicon_sources

    recipes = Path(lexicon_sources.__file__).parent / lex["lang"]
    if not recipes.is_dir():
        raise UsageError(f"[lexicon] lang = {lex['lang']!r}: no recipes in {recipes}")
    files = sorted(p for p in recipes.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    if lex.get("input"):
        files.append(_under(cfg, lex["input"]))
    entries = ""
    if not lex.get("source"):  # built from an ingest: its files (the dump's version) count too
        from gamecore.folders import read_marker

        folder = _entries(cfg)
        marker = read_marker(Path(os.path.realpath(folder))) if folder.exists() else None
        entries = json.dumps((marker or {}).get("files", {}), sort_keys=True)
    return hashlib.sha256((lex["lang"] + (lex.get("source") or "") + _sha_files(files) + entries).encode()).hexdigest()


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
    if not (target / "manifest.json").exists():
        if lex.get("path"):
            from gamecore.folders import open_output
            from pipelines.atomic import output_dir

            src = open_output(_under(cfg, lex["path"]), "lexicon")
            with output_dir(target, "nightly-lexicon", [src]) as stage:
                for item in src.iterdir():
                    if item.name.startswith(".skrafl-"):
                        continue
                    (shutil.copytree if item.is_dir() else shutil.copy2)(item, stage / item.name)
        else:
            cmd = [sys.executable, "-m", "cli.main", "build", lex["lang"], "--out", str(target), "-q"]
            if lex.get("source"):
                cmd += ["--source", lex["source"]]
            if lex.get("input"):
                cmd += ["--input", str(_under(cfg, lex["input"]))]
            if not lex.get("source"):
                cmd += ["--entries", str(_entries(cfg))]
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=str(Path(__file__).resolve().parents[1]))
            if r.returncode != 0:
                raise StepFailed("lexicon", (r.stderr.strip().splitlines() or [f"skrafl build exited {r.returncode}"])[-1])
        rec["counts"]["built"] = True
    else:
        rec["counts"]["built"] = False
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


DATE = "{date}"
MISSING_DAYS = ("error", "empty")


def _day_folders(cfg: dict, since: dt.date | None, day: dt.date, rec: dict) -> list[str]:
    """The game folders of a ``{date}`` source for the days ``since`` … ``day`` (from nothing:
    from the first day that has a folder), each day's ``{date}`` expanded; counted in ``rec``
    (``first_day``, ``days``, ``days_with_games``, ``empty_days``, ``missing_days``, ``notes``). A day whose folder holds no game
    file is a day without games. A day without its folder fails the step (one line naming the
    days) unless ``[games] missing_days = "empty"``: then it too is a day without games."""
    from pipelines.replay.read import collect_files

    template = str(_under(cfg, str(cfg["games"]["source"])))
    if since is None:
        found = _dated_paths(template, day)
        since = found[0] if found else day
    folders, empty, missing = [], [], []
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
            folders.append(path)
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


def _newest_elo_before(out: Path, day: dt.date) -> Path | None:
    best = None
    if out.is_dir():
        for p in out.iterdir():
            try:
                d = dt.date.fromisoformat(p.name)
            except ValueError:
                continue
            if d < day and (p / "ratings.parquet").exists() and (best is None or d > best[0]):
                best = (d, p)
    return best[1] if best else None


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

        def replay():
            from pipelines.postgres import is_url
            from pipelines.replay.jobs import ReplayOptions, run_replay_dataset

            # every day since the last night that rated (a night that failed or did not run is
            # replayed now; from nothing: every day up to D)
            state = _newest_elo_before(_under(cfg, cfg["elo"]["out"]), day)
            since = dt.date.fromisoformat(state.name) + dt.timedelta(days=1) if state is not None else None
            source = str(cfg["games"]["source"])
            rec["counts"] = {"since": since.isoformat() if since else None, "until": day.isoformat()}
            rec["inputs"] = _shown([source])
            empty_ok = False
            if is_url(source):
                items = [source.replace("{date}", day.isoformat())]
            elif DATE not in source:
                items = [str(_under(cfg, source))]  # one folder of every day's games
            else:
                items = _day_folders(cfg, since, day, rec)
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
            )
            rec["counts"].update({k: s[k] for k in ("games", "ok", "mismatch", "error", "moves", "outside")})
            rec["counts"].update(partitions=s["partitions"], unchanged=s["unchanged"], removed=s["removed"])

        _run(rec, replay)
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
                r = run_impact(previous, lexicon, [str(dataset)], out, quiet=quiet)
                p = r["plays"]
                rec["counts"] = {
                    "plays_now_phony": p.filter(p["change"] == "now_phony").height,
                    "plays_now_valid": p.filter(p["change"] == "now_valid").height,
                    "words": r["words"].height,
                    "winners_changed": r["winners"].height,
                }

            _run(rec, impact)
        # 4. elo
        rec = _begin(log, "elo")

        def elo():
            from pipelines import elo as lib

            ecfg = cfg["elo"]
            base = _under(cfg, ecfg["out"])
            out = base / day.isoformat()
            state = _newest_elo_before(base, day)
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
            )
            rec["counts"] = {
                "rated": run.games_rated,
                "skipped": run.games_skipped,
                "late": run.late.height if run.late is not None else 0,
                "top100": sorted(p.name for p in out.glob("top100_*.csv")),
            }
            rec["notes"] = list(run.notes)

        _run(rec, elo)
        log["status"], log["exit"] = "ok", 0
    except StepFailed as exc:
        failure = exc
        log["status"], log["exit"] = "failed", 2
    finally:
        if log["status"] == "running":  # interrupted: still a log
            log["status"], log["exit"] = "failed", 130
        _write_log(work, day, log)
    if failure is not None:
        raise failure
    return log


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
        rec["status"], rec["error"] = "failed", f"internal error ({type(exc).__name__}: {' '.join(str(exc).split())[:300]})"
        raise StepFailed(rec["step"], rec["error"]) from None
    finally:
        rec["seconds"] = round(time.monotonic() - t, 3)


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc)


def _write_log(work: Path, day: dt.date, log: dict) -> None:
    folder = work / LOGS
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{day.isoformat()}.json"
    tmp = folder / f".{path.name}.tmp-{os.getpid()}"
    tmp.write_text(json.dumps(log, ensure_ascii=False, indent=1, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)
