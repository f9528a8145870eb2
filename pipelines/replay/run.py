"""Replaying many files: options, one file (``replay_file``), the worker pool (``replay_files``)
and the whole command (``run_replay``)."""

from __future__ import annotations

import gc
import sys
from dataclasses import dataclass
from pathlib import Path

from gamecore.errors import UsageError
from gamecore.gamelog import GameLogError

from .game import GameResult, _error_row, replay_game
from .read import collect_files, read_game_file
from .tables import write_exports, write_tables


@dataclass
class ReplayOptions:
    """Options of a replay run (see ``skrafl replay --help``)."""

    preset: str | None = None
    lang: str | None = None
    lexicon_dir: str | None = None
    strict: bool = False
    analyze: bool = False
    export: bool = False


_LEXICONS: dict[str, object] = {}


def _lexicon(opts: ReplayOptions):
    if not opts.lexicon_dir:
        return None
    lex = _LEXICONS.get(opts.lexicon_dir)
    if lex is None:
        from gamecore.lexicon import Lexicon

        lex = Lexicon.load(opts.lexicon_dir)
        _LEXICONS[opts.lexicon_dir] = lex
    return lex


_BUNDLES: dict[str, object] = {}


def _bundle(opts: ReplayOptions):
    if not (opts.analyze and opts.lexicon_dir):
        return None
    b = _BUNDLES.get(opts.lexicon_dir)
    if b is None:
        from gamecore.best import load_bundle

        b = load_bundle(opts.lexicon_dir)
        _BUNDLES[opts.lexicon_dir] = b
    return b


UNREAD = "_unread"
"""Key set (True) in the ``game_row`` of a file that could not be read as a game log at all (not a
column of games.parquet)."""


def replay_file(path: str, opts: ReplayOptions) -> GameResult:
    """Read and replay one file; every failure becomes an ``error`` row (never raises for bad data)."""
    try:
        game = read_game_file(path, strict=opts.strict)
    except GameLogError as exc:
        fmt = "netskrafl" if path.lower().endswith(".json") else "gcg"
        return GameResult(_error_row({"file": path, "format": fmt, UNREAD: True}, exc))
    except (MemoryError, RecursionError) as exc:
        return GameResult(_error_row({"file": path, "format": "gcg", UNREAD: True}, GameLogError("FILE_UNREADABLE", type(exc).__name__, path, None)))
    try:
        return replay_game(game, None, _lexicon(opts), strict=opts.strict, analyze=opts.analyze, preset=opts.preset, lang=opts.lang, export=opts.export, bundle=_bundle(opts))
    except UsageError:
        raise  # a bad option (unknown preset, missing lexicon) is the caller's error, not the file's
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop a nightly batch
        return GameResult(_error_row({"file": path, "format": game.format}, GameLogError("INTERNAL_ERROR", f"{type(exc).__name__}: {exc}", path, None)))



def _replay_batch(args: tuple[list[str], ReplayOptions]) -> list[GameResult]:
    """Worker process: replay a run of files (one task and one result message per run)."""
    files, opts = args
    return [replay_file(f, opts) for f in files]


def _pool_context():
    """``fork`` where there is one (Linux): workers start at once and share the parent's loaded
    modules, rule sets and lexicon pages; elsewhere the platform default (spawn)."""
    import multiprocessing

    return multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else multiprocessing.get_context()


def replay_files(files: list[str], opts: ReplayOptions, workers: int = 1, progress: bool = False):
    """Yield a :class:`GameResult` per file, in input order.

    With ``workers`` > 1: a process pool (``fork`` where available), the lexicon loaded once in the
    parent before the workers start, files sent in runs of up to 64 and results sent back as
    value tuples (see :class:`GameResult`).

    The results a caller keeps pile up (a nightly batch keeps thousands), and the cycle collector
    would rescan that pile again and again (a third of the replay time). So, as each result is
    handed over, everything alive in the process is frozen (``gc.freeze``: out of the collector's
    sight, still freed by reference counting) and all is unfrozen at the end: cyclic garbage made
    meanwhile waits until then to be collected. (A program that freezes objects of its own should
    not consume this generator.)"""
    tq = None
    if progress:
        from tqdm import tqdm

        tq = tqdm(total=len(files), unit="game", file=sys.stderr, desc="replay")
    try:
        if workers <= 1 or len(files) < 2:
            _lexicon(opts)
            gc.freeze()
            try:
                for f in files:
                    res = replay_file(f, opts)
                    gc.freeze()
                    yield res
                    if tq:
                        tq.update(1)
            finally:
                gc.unfreeze()
        else:
            from concurrent.futures import ProcessPoolExecutor

            # load the lexicon (and the --analyze bundle) before the workers fork: loaded once, shared
            _lexicon(opts)
            _bundle(opts)
            # runs of files: enough runs (8 per worker) to balance the load, at most 64 files each
            chunk = max(1, min(64, len(files) // (workers * 8)))
            runs = [(files[i : i + chunk], opts) for i in range(0, len(files), chunk)]
            # objects alive now are never freed by the workers' cycle collector: frozen, a forked
            # worker's collector does not walk (and copy) the parent's heap
            gc.freeze()
            try:
                with ProcessPoolExecutor(max_workers=min(workers, len(runs)), mp_context=_pool_context()) as pool:
                    for batch in pool.map(_replay_batch, runs):
                        gc.freeze()
                        for res in batch:
                            yield res
                        if tq:
                            tq.update(len(batch))
            finally:
                gc.unfreeze()
    finally:
        if tq:
            tq.close()



def run_replay(items: list[str], out_dir: str | Path, opts: ReplayOptions, *, workers: int = 1, quiet: bool = False, export_dir: str | Path | None = None) -> dict:
    """Replay files and folders, write the tables (and GCG exports); return a summary
    ``{"games", "ok", "mismatch", "error", "moves", "warnings", "results"}``.

    Raises:
        UsageError: ``out_dir``/``export_dir`` is a file, the current folder or a parent (checked
            before any work); no game file was found; or not one file could be read as a game log
            (then nothing is written: the previous tables stay).
    """
    from pipelines.atomic import check_output_dir

    check_output_dir(Path(out_dir), replace=False)
    if export_dir is not None:
        check_output_dir(Path(export_dir), replace=False)
    files = collect_files(items)
    if not files:
        raise UsageError(f"no game files (.gcg, .json) in {', '.join(items)}; nothing written")
    opts.export = export_dir is not None
    results = list(replay_files(files, opts, workers=workers, progress=not quiet and len(files) > 50))
    if all(r.game_row.get(UNREAD) for r in results):
        first = results[0].game_row
        more = f" (and {len(results) - 1} more file(s))" if len(results) > 1 else ""
        raise UsageError(f"no file could be read as a game log; nothing written. {first['file']}: {first['error']}{more}")
    write_tables(results, out_dir, opts.analyze)
    if export_dir is not None:
        write_exports(results, export_dir)
    summary = {"games": len(results), "ok": 0, "mismatch": 0, "error": 0, "moves": sum(r.event_count for r in results),
               "warnings": sum(1 for r in results if r.game_row["status"] == "ok" and r.findings)}
    for r in results:
        summary[r.game_row["status"]] += 1
    summary["results"] = results
    return summary

