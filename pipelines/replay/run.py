"""Replaying many files: options, one file (``replay_file``), runs of files in worker processes
(``replay_runs``) and the whole command (``run_replay``).

Files go in runs (up to 64 files); a run is replayed and converted to Arrow
(:func:`~pipelines.replay.tables.to_batch`) in one go, in a worker with ``--workers N``; the parent
only streams the batches, in input order, into the output (:class:`~pipelines.replay.tables.TableWriter`).
At most a few runs per worker are in flight, so memory is bounded whatever the number of files.

Trust:

- **Any failure of one file is that file's row.** Reading and replaying errors are ``error`` rows
  (``INTERNAL_ERROR`` for a bug); a value that does not fit the tables is ``TABLE_VALUE_INVALID``.
  A worker that dies (a crash in C, ``os._exit``, killed) or a run that fails as a whole breaks
  only its runs: they are replayed again file by file, one task at a time in a new pool, and a
  file that kills its worker again gets the row ``WORKER_CRASHED``; every other file keeps its
  rows.
- **Clean stops.** SIGINT and SIGTERM stop the run: the workers are killed, nothing is written
  (the output stage is discarded, the previous output stays) and :class:`Stopped` (a
  :class:`KeyboardInterrupt`) carries the signal to the CLI (exit 130 or 143). Workers ignore
  SIGINT (the parent stops them) and, on Linux, die with the parent (``PR_SET_PDEATHSIG``), or
  elsewhere within a second by a watchdog thread: a ``kill -9`` of the parent leaves no worker.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
from collections import deque
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Generator, Iterator, Sequence

from gamecore.errors import UsageError
from gamecore.gamelog import GameLogError

from .game import GameResult, error_row, replay_game
from .read import collect_game_files, read_game_file
from .tables import LISTED, UNREAD, GcgExporter, TableBatch, TableWriter, to_batch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor


@dataclass
class ReplayOptions:
    """Options of a replay run (see ``skrafl replay --help``)."""

    preset: str | None = None
    lang: str | None = None
    lexicon_dir: str | None = None
    strict: bool = False
    analyze: bool = False
    export: bool = False
    coords: str = "gcg"  # the order of coord and best_coord in moves.parquet: gcg or netskrafl
    leaves: str | None = None  # with analyze: a KLV2 path or "shipped" (pipelines.replay.equity)
    sim_iterations: int | None = None  # with leaves: win % lost by simulation, at most this many iterations

    @property
    def columns(self) -> bool | str:
        """The tables' columns (:func:`~pipelines.replay.tables.schemas`): ``"equity"`` with
        ``analyze`` and ``leaves``, else ``analyze``."""
        return "equity" if self.analyze and self.leaves else self.analyze


_LEXICONS: dict[str, object] = {}


def lexicon_for(opts: ReplayOptions):
    if not opts.lexicon_dir:
        return None
    lex = _LEXICONS.get(opts.lexicon_dir)
    if lex is None:
        from gamecore.lexicon import Lexicon

        lex = Lexicon.load(opts.lexicon_dir)
        _LEXICONS[opts.lexicon_dir] = lex
    return lex


_BUNDLES: dict[str, object] = {}


def bundle_for(opts: ReplayOptions):
    if not (opts.analyze and opts.lexicon_dir):
        return None
    b = _BUNDLES.get(opts.lexicon_dir)
    if b is None:
        from gamecore.best import load_bundle

        b = load_bundle(opts.lexicon_dir)
        # the bingo index of the usual 7-tile bingo (gamecore.movegen.generate_top), made once here,
        # before any worker forks: every worker's analyzers share it
        b.kwg.bingo_index()
        _BUNDLES[opts.lexicon_dir] = b
    return b


def _format_of(item) -> str:
    if isinstance(item, tuple):
        return "netskrafl"
    return "netskrafl" if item.lower().endswith(".json") else "gcg"


def _name_of(item) -> str:
    return item[0] if isinstance(item, tuple) else item


def _read_item(item, strict: bool):
    """A game file (a path) or a database record (``(name, record dict)``, Netskrafl's JSON record
    shape: :mod:`pipelines.postgres`) as a :class:`~gamecore.gamelog.Game`."""
    if isinstance(item, tuple):
        from gamecore.netskrafl_record import parse_netskrafl_record

        return parse_netskrafl_record(item[1], path=item[0], strict=strict)
    return read_game_file(item, strict=strict)


def replay_file(path, opts: ReplayOptions) -> GameResult:
    """Read and replay one file (or one database record ``(name, record)``); every failure becomes
    an ``error`` row (never raises for bad data; only a :class:`UsageError`, a bad option, is
    raised)."""
    fmt = _format_of(path)
    name = _name_of(path)
    try:
        game = _read_item(path, opts.strict)
    except GameLogError as exc:
        return GameResult(error_row({"file": name, "format": fmt, UNREAD: True}, exc))
    except (MemoryError, RecursionError) as exc:
        return GameResult(
            error_row(
                {"file": name, "format": fmt, UNREAD: True}, GameLogError("FILE_UNREADABLE", type(exc).__name__, name, None)
            )
        )
    except UsageError:
        raise
    except Exception as exc:  # noqa: BLE001 - a reader's bug must not stop a nightly batch
        return GameResult(
            error_row(
                {"file": name, "format": fmt, UNREAD: True},
                GameLogError("INTERNAL_ERROR", f"reading: {type(exc).__name__}: {exc}", name, None),
            )
        )
    try:
        return replay_game(
            game,
            None,
            lexicon_for(opts),
            strict=opts.strict,
            analyze=opts.analyze,
            preset=opts.preset,
            lang=opts.lang,
            export=opts.export,
            bundle=bundle_for(opts),
            coords=opts.coords,
            leaves=opts.leaves,
            sim_iterations=opts.sim_iterations,
        )
    except UsageError:
        raise  # a bad option (unknown preset, missing lexicon) is the caller's error, not the file's
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop a nightly batch
        return GameResult(
            error_row(
                {"file": name, "format": game.format}, GameLogError("INTERNAL_ERROR", f"{type(exc).__name__}: {exc}", name, None)
            )
        )


def replay_run(files: Sequence[str | tuple[str, dict]], opts: ReplayOptions) -> TableBatch:
    """Replay a run of files and convert their rows to Arrow (what a worker does per task)."""
    return to_batch([replay_file(f, opts) for f in files], opts.columns)


def crashed_batch(path, detail: str, opts: ReplayOptions) -> TableBatch:
    fmt = _format_of(path)
    name = _name_of(path)
    return to_batch(
        [GameResult(error_row({"file": name, "format": fmt}, GameLogError("WORKER_CRASHED", detail, name, None)))], opts.columns
    )


# ---------------------------------------------------------------------------------------------
# workers


def pool_context():
    """``fork`` where there is one (Linux): workers start at once and share the parent's loaded
    modules, rule sets and lexicon pages; elsewhere the platform default (spawn)."""
    import multiprocessing

    return (
        multiprocessing.get_context("fork")
        if "fork" in multiprocessing.get_all_start_methods()
        else multiprocessing.get_context()
    )


_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """Make this worker end when ``parent`` does: ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` on Linux,
    else a watchdog thread polling the parent pid twice a second."""
    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    if not armed:

        def watch() -> None:
            import time

            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, name="skrafl-parent-watchdog", daemon=True).start()


def worker_init(parent: int) -> None:
    """Pool initializer: SIGINT ignored (the parent stops the pool), SIGTERM kills, die with the
    parent; objects inherited from the parent frozen (the worker's cycle collector never walks,
    and so never copies, the parent's heap)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(parent)
    gc.freeze()


def _kill_pool(pool) -> None:
    """Stop a pool now: queued runs cancelled, workers killed (a worker mid-run has nothing worth
    waiting for: the run is discarded) and reaped, the pool's manager thread ended.

    (CPython 3.11 internals, read before ``shutdown`` forgets them: a worker killed while sending
    its result leaves half a message in the result pipe, and the manager thread would wait for the
    rest forever, and the interpreter for it at exit; closing the parent's own write end of that
    pipe, the last one once the workers are dead, gives it end-of-file: it sees a broken pool and
    ends.)"""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    results = getattr(pool, "_result_queue", None)
    for p in procs:
        try:
            p.kill()
        except (OSError, ValueError, AttributeError):
            pass
    try:
        pool.shutdown(wait=False, cancel_futures=True)
    except Exception:  # noqa: BLE001 - best effort on the way out
        pass
    for p in procs:
        try:
            p.join(1.0)
        except (OSError, ValueError, AssertionError, AttributeError):
            pass
    writer = getattr(results, "_writer", None)
    if writer is not None and manager is not None and manager.is_alive():
        try:
            writer.close()
        except OSError:
            pass
    # wait for the manager thread: at exit, concurrent.futures wakes the manager threads still
    # running, and one closing its wake-up pipe meanwhile is an error
    if manager is not None and manager is not threading.current_thread():
        manager.join(2.0)


class WorkerPool:
    """A process pool that is replaced when it breaks, killed on the way out."""

    def __init__(self, workers: int):
        self.workers = workers
        self.pool: ProcessPoolExecutor | None = None

    def start(self) -> None:
        """Start the workers now (``fork``: they get the parent's heap as it is now)."""
        self.get().submit(_noop)

    def get(self):
        if self.pool is None:
            from concurrent.futures import ProcessPoolExecutor

            self.pool = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=pool_context(), initializer=worker_init, initargs=(os.getpid(),)
            )
        return self.pool

    def discard(self) -> None:
        if self.pool is not None:
            _kill_pool(self.pool)
            self.pool = None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True)
            self.pool = None


def _noop() -> None:
    return None


def _isolated(files: list[str], opts: ReplayOptions, pools: WorkerPool) -> TableBatch:
    """Replay the files of a run whose worker died or failed, one task at a time, so that the file
    at fault is known: it gets a ``WORKER_CRASHED`` row, every other file its own rows."""
    from concurrent.futures.process import BrokenProcessPool

    parts = []
    for f in files:
        try:
            parts.append(pools.get().submit(replay_run, [f], opts).result())
        except (UsageError, KeyboardInterrupt):
            raise
        except BrokenProcessPool:
            pools.discard()
            parts.append(crashed_batch(f, "the worker process died while replaying this file", opts))
        except BaseException as exc:  # noqa: BLE001 - the file's run failed as a whole (e.g. SystemExit in the worker, a result that does not pickle)
            parts.append(crashed_batch(f, f"the worker failed on this file: {type(exc).__name__}: {exc}", opts))
    return _concat(parts)


def _concat(parts: list[TableBatch]) -> TableBatch:
    import pyarrow as pa

    if len(parts) == 1:
        return parts[0]
    games = pa.Table.from_batches([p.games for p in parts]).combine_chunks().to_batches()
    moves = pa.Table.from_batches([p.moves for p in parts]).combine_chunks().to_batches()
    g = games[0] if games else parts[0].games.slice(0, 0)
    m = moves[0] if moves else parts[0].moves.slice(0, 0)
    return TableBatch(g, m, [e for p in parts for e in p.events], [t for p in parts for t in p.gcg], sum(p.unread for p in parts))


def replay_runs(
    files: list[str], opts: ReplayOptions, workers: int = 1, pools: WorkerPool | None = None
) -> Generator[TableBatch, None, None]:
    """Yield the :class:`TableBatch` of each run of files, in input order.

    With ``workers`` > 1: a process pool (``fork`` where available), the lexicon loaded once in the
    parent before the workers start, runs of up to 64 files, at most ``4 × workers`` runs in
    flight. A run whose worker died is replayed again file by file (see :func:`_isolated`).
    ``pools``: workers already started (killed when the runs end or fail)."""
    lexicon_for(opts)  # load the lexicon (and the --analyze bundle) once, before any worker forks
    bundle_for(opts)
    if workers <= 1 or len(files) < 2:
        for i in range(0, len(files), 64):
            yield replay_run(files[i : i + 64], opts)
        return
    # runs of files: enough runs (8 per worker) to balance the load, at most 64 files each
    chunk = max(1, min(64, len(files) // (workers * 8)))
    runs = [files[i : i + chunk] for i in range(0, len(files), chunk)]
    yield from pooled_runs(iter(runs), opts, workers, pools or WorkerPool(min(workers, len(runs))))


def pooled_runs(runs: Iterator[list], opts: ReplayOptions, workers: int, pools: WorkerPool) -> Generator[TableBatch, None, None]:
    """Yield the :class:`TableBatch` of each run of ``runs`` (an iterator, consumed as the window
    frees: a database cursor is read as the work goes), in order, replayed by ``pools``; at most
    ``4 × workers`` runs in flight. A run whose worker died is replayed again item by item."""
    from concurrent.futures.process import BrokenProcessPool

    window = 4 * workers
    pending: deque = deque()
    source = iter(runs)
    exhausted = False
    try:
        while not exhausted or pending:
            while not exhausted and len(pending) < window:
                nxt_run = next(source, None)
                if nxt_run is None:
                    exhausted = True
                    break
                try:
                    fut = pools.get().submit(replay_run, nxt_run, opts)
                except BrokenProcessPool:
                    pools.discard()
                    fut = None
                pending.append((nxt_run, fut))
            if not pending:
                break
            run, fut = pending.popleft()
            try:
                if fut is None:
                    raise BrokenProcessPool("not submitted")
                batch = fut.result()
            except (UsageError, KeyboardInterrupt):
                raise  # a bad option; or SIGINT/SIGTERM here (Stopped)
            except BrokenProcessPool:
                pools.discard()
                # the runs in flight that had not finished failed with it: resubmitted below to a
                # fresh pool; this one is replayed file by file to find the file at fault
                pending = deque((r, f if _finished(f) else None) for r, f in pending)
                batch = _isolated(run, opts, pools)
            except BaseException:  # noqa: BLE001 - the run failed as a whole (a worker's SystemExit too): find the file at fault
                batch = _isolated(run, opts, pools)
            pending = deque((r, f) if f is not None else (r, _resubmit(pools, r, opts)) for r, f in pending)
            yield batch
        pools.close()
    finally:
        pools.discard()


def _finished(fut) -> bool:
    """Whether ``fut`` holds a result (a run that finished before its pool broke)."""
    return fut is not None and fut.done() and not fut.cancelled() and fut.exception() is None


def _resubmit(pools: WorkerPool, run: list[str], opts: ReplayOptions):
    from concurrent.futures.process import BrokenProcessPool

    try:
        return pools.get().submit(replay_run, run, opts)
    except BrokenProcessPool:
        pools.discard()
        return None


# ---------------------------------------------------------------------------------------------
# the command


class Stopped(KeyboardInterrupt):
    """The run was stopped by a signal (``signum``); nothing was written, unless ``committed``:
    the signal came while the outputs, all complete, were being committed (held back until every
    one of them was in place)."""

    def __init__(self, signum: int, committed: bool = False):
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum
        self.committed = committed


class _Hold:
    """Whether a stop is held back (``held``: the outputs are being committed, one after the
    other: a stop then would leave some of them new and the others old) and the signal held."""

    def __init__(self) -> None:
        self.held = False
        self.signum: int | None = None


@contextmanager
def stop_on_signals(hold: _Hold | None = None):
    """SIGTERM and SIGINT raise :class:`Stopped` in the main thread while the block runs (only
    there: elsewhere signals stay as they are); while ``hold.held``, they are only recorded."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        if hold is not None and hold.held:
            hold.signum = hold.signum or signum
            return
        raise Stopped(signum)

    saved = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for s, h in saved.items():
            signal.signal(s, h)


def run_replay(
    items: list[str],
    out_dir: str | Path,
    opts: ReplayOptions,
    *,
    workers: int = 1,
    quiet: bool = False,
    export_dir: str | Path | None = None,
    finish: Callable[[list[str], ExitStack], object] | None = None,
    report: Callable[[Path, ExitStack], object] | None = None,
) -> dict:
    """Replay files and folders, streaming the tables (and GCG exports) into their outputs; return
    a summary ``{"games", "ok", "mismatch", "error", "moves", "warnings", "exported", "not_ok",
    "repeats", "finish"}`` (``not_ok``: ``(status, file, error)`` of the first :data:`LISTED` games
    not ok; ``repeats``: the names dropped as naming a file already found, see
    :func:`~pipelines.replay.read.collect_game_files`; ``finish``: what ``finish`` returned).

    The tables are one output (:func:`pipelines.atomic.output_dir`, command ``replay``), the
    exports another (``replay-export``); each is committed whole at the end or not at all, and
    the outputs are committed together: only once every output is complete (a failure before
    discards them all), one after the other with stops held back.

    ``finish``: called with the game files and the run's stack of outputs once the tables and
    exports are complete, before any of them is committed (``replay --export-svg`` draws its
    pictures there, into an output it enters in that stack: committed with the others): an
    exception from it discards every output of the run.

    ``report``: called as ``finish`` is, with the folder of the complete tables (not yet
    committed) and the run's stack of outputs (``replay --review`` writes its reviews there,
    :func:`pipelines.review.write_review`); ``summary["reviewed"]`` is what it returned.

    A stop (SIGINT, SIGTERM) during the commits is held back until every output is in place, then
    raised as :class:`Stopped` with ``committed`` true.

    Raises:
        UsageError: ``out_dir``/``export_dir`` is refused (checked before any work); no game file
            was found; or not one file could be read as a game log (then nothing is written: the
            previous outputs stay).
        Stopped: SIGINT or SIGTERM (nothing written).
    """
    from pipelines.atomic import check_output_dir, output_dir

    inputs = list(items)
    out = check_output_dir(Path(out_dir), command="replay", inputs=inputs)
    if export_dir is not None:
        exp = check_output_dir(Path(export_dir), command="replay-export", inputs=inputs)
        if not paths_apart(exp, out):
            raise UsageError(f"--export-gcg {export_dir}: must be apart from --out {out_dir} (each is a whole output)")
    opts.export = export_dir is not None
    summary: dict[str, Any] = {
        "games": 0,
        "ok": 0,
        "mismatch": 0,
        "error": 0,
        "moves": 0,
        "warnings": 0,
        "exported": 0,
        "not_ok": [],
        "repeats": 0,
        "finish": None,
        "reviewed": 0,
    }
    unread = 0
    first_unread = None
    tq = None
    hold = _Hold()
    with stop_on_signals(hold), ExitStack() as outputs:
        lexicon_for(opts)  # loaded before the workers fork: shared, loaded once
        bundle_for(opts)
        pools = None
        if workers > 1:
            # workers forked before the list of files is made: they inherit a small heap (a
            # million paths are a few hundred MB that a worker never reads)
            pools = WorkerPool(workers)
            outputs.callback(pools.discard)
            pools.start()
        files, summary["repeats"] = collect_game_files(items)
        if not files:
            raise UsageError(f"no game files (.gcg, .json) in {', '.join(items)}; nothing written")
        stage = outputs.enter_context(output_dir(Path(out_dir), command="replay", inputs=inputs))
        exporter = None
        if export_dir is not None:
            exporter = GcgExporter(outputs.enter_context(output_dir(Path(export_dir), command="replay-export", inputs=inputs)))
        writer = TableWriter(stage, opts.columns)
        if not quiet and len(files) > 50:
            from tqdm import tqdm

            tq = outputs.enter_context(tqdm(total=len(files), unit="game", file=sys.stderr, desc="replay"))
        runs = outputs.enter_context(
            closing(replay_runs(files, opts, workers=workers, pools=pools))
        )  # on the way out, workers stopped first
        for batch in runs:
            writer.add(batch)
            g = batch.games
            _tally(summary, batch)
            unread += batch.unread
            if first_unread is None and len(batch):
                first_unread = (g.column("file")[0].as_py(), g.column("error")[0].as_py())  # the one named if no file is readable
            if exporter is not None:
                exporter.add(g.column("file").to_pylist(), batch.gcg)
            if tq is not None:
                tq.update(len(batch))
        if unread == summary["games"]:
            more = f" (and {unread - 1} more file(s))" if unread > 1 else ""
            name, err = first_unread or ("?", "?")
            raise UsageError(f"no file could be read as a game log; nothing written. {name}: {err}{more}")
        writer.close()
        summary["exported"] = exporter.count if exporter is not None else 0
        if report is not None:
            summary["reviewed"] = report(stage, outputs)
        if finish is not None:
            summary["finish"] = finish(files, outputs)
        # every output is complete: from here on only the commits (the stack unwinding), which a
        # stop must not cut in two (some outputs new, the others old)
        hold.held = True
    if hold.signum is not None:
        raise Stopped(hold.signum, committed=True)
    return summary


def _tally(summary: dict[str, Any], batch: Any) -> None:
    """Count a batch of replayed games into ``summary``: games and moves, each status, the ok games
    with warnings, and the first :data:`LISTED` games not ok."""
    g = batch.games
    status = g.column("status").to_pylist()
    warnings = g.column("warnings").to_pylist()
    summary["games"] += len(status)
    summary["moves"] += batch.moves.num_rows
    for i, st in enumerate(status):
        summary[st] += 1
        if st == "ok":
            summary["warnings"] += 1 if warnings[i] else 0
        elif len(summary["not_ok"]) < LISTED:
            summary["not_ok"].append((st, g.column("file")[i].as_py(), g.column("error")[i].as_py()))


def paths_apart(a: str | Path, b: str | Path) -> bool:
    """Whether two output paths are apart: neither is the other nor lies inside it, as written
    (absolute) or resolved (links followed)."""
    forms_a = {Path(os.path.abspath(a)), Path(os.path.realpath(a))}
    forms_b = {Path(os.path.abspath(b)), Path(os.path.realpath(b))}
    return not any(x == y or x in y.parents or y in x.parents for x in forms_a for y in forms_b)


def is_database_url(item: str) -> bool:
    """Whether a replay/elo input is a PostgreSQL URL (``postgresql://…``, ``postgres://…``):
    :func:`pipelines.postgres.is_url`, the one check."""
    from pipelines.postgres import is_url

    return is_url(item)
