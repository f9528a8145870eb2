"""``replay --dataset``: the whole job (:func:`run_replay_dataset`) — a local process pool
(:mod:`.run`) or a Dask cluster (:mod:`.cluster`) feeding a partitioned dataset (:mod:`.dataset`).
Kept apart from :mod:`.run` so that the modules import one another in one direction only
(jobs → cluster → run, dataset)."""

from __future__ import annotations

import sys
from contextlib import ExitStack, closing
from pathlib import Path

from gamecore.errors import UsageError

from .read import collect_files
from .run import (
    ReplayOptions,
    WorkerPool,
    bundle_for,
    is_database_url,
    lexicon_for,
    pooled_runs,
    replay_run,
    replay_runs,
    stop_on_signals,
)

__all__ = ["ReplayOptions", "is_database_url", "run_replay_dataset"]


def run_replay_dataset(
    items: list[str],
    dataset_dir: str | Path,
    opts: ReplayOptions,
    *,
    workers: int = 1,
    quiet: bool = False,
    since=None,
    until=None,
    cluster: str | None = None,
    guess_lexicon: bool = False,
    empty_ok: bool = False,
    folder_days: dict | None = None,
    drop_missing: bool = False,
) -> dict:
    """Replay files and folders (or the finished games of a PostgreSQL database, ``items`` =
    ``[URL]``) into the partitioned dataset ``dataset_dir`` (:mod:`.dataset`): the run's games are
    added, a game already there (by id) replaced, every other game kept; the whole dataset is
    published by one swap. ``since``/``until`` (dates, both included): only games finished in that
    window are written. ``drop_missing``: the games of the partitions the run writes, and of the
    days of its window, that the run did not bring are dropped (counted in ``dropped``).
    ``cluster``: a Dask scheduler address (:mod:`.cluster`).

    Returns the summary of :func:`run_replay` plus ``outside`` (games outside the window),
    ``partitions`` (changed or new), ``unchanged`` (identical), ``removed`` (partitions left
    without games), ``replaced`` (games of the dataset replaced by the run's), ``dropped`` (games
    dropped that the run did not bring) and ``duplicates`` (games the run read twice, kept once).
    ``guess_lexicon``: with a database and no lexicon in ``opts``, check the words with the built
    lexicon the games' locale names (:func:`pipelines.postgres.lexicon_named`; Icelandic unless a
    locale says otherwise), else say once on stderr that they are not checked.
    ``empty_ok``: folders without a game file are no error but a run without games (the
    window's days are then all left without games; the nightly job's days without games).
    ``folder_days``: ``{folder: day}``, the dated folders of ``items`` (the nightly job's
    ``incoming/{date}``): a game without a ``finished_at`` read from one goes to that day's
    partition (:func:`.dataset.partition_of`), not to ``part=src-FOLDER``.

    Raises:
        UsageError: a refused dataset folder; no game found (files, unless ``empty_ok``) or not
            one readable.
        Stopped: SIGINT or SIGTERM (the dataset is left as it was).
    """
    from .dataset import check_dataset_dir, dataset_writer

    inputs = [i for i in items if not is_database_url(i)]
    database = [i for i in items if is_database_url(i)]
    if database and (len(database) > 1 or inputs):
        raise UsageError("give one PostgreSQL URL, or game files and folders, not both")
    check_dataset_dir(dataset_dir, inputs)
    if guess_lexicon and database and not opts.lexicon_dir and not opts.lang:
        import dataclasses

        from pipelines.postgres import lexicon_named

        folder, note = lexicon_named(database[0], since, until)
        opts = dataclasses.replace(opts, lexicon_dir=folder)
        if not quiet:
            print(f"skrafl replay: note: {note}", file=sys.stderr)
    tq = None
    with stop_on_signals(), ExitStack() as outputs:
        lexicon_for(opts)
        bundle_for(opts)
        pools = None
        if workers > 1 and cluster is None:
            pools = WorkerPool(workers)
            outputs.callback(pools.discard)
            pools.start()
        if database:
            from pipelines.postgres import GameSource

            src = GameSource(database[0], since=since, until=until)
            total = src.count()
            runs_iter = src.runs(64)
            shown = src.shown
        else:
            files = collect_files(items)
            if not files and not empty_ok:
                raise UsageError(f"no game files (.gcg, .json) in {', '.join(items)}; nothing written")
            total = len(files)
            runs_iter = None
            shown = None
        run = outputs.enter_context(dataset_writer(dataset_dir, inputs, opts.columns, drop_missing=drop_missing))
        run.window = (since, until, dict(folder_days)) if folder_days else (since, until)
        if not quiet and total > 50:
            from tqdm import tqdm

            tq = outputs.enter_context(tqdm(total=total, unit="game", file=sys.stderr, desc="replay"))
        if cluster is not None:
            from .cluster import replay_on_cluster

            if database:
                replay_on_cluster(cluster, None, opts, run, progress=tq, source=src)
            else:
                replay_on_cluster(cluster, files, opts, run, progress=tq)
        else:
            if database:
                assert runs_iter is not None  # the database source's runs
                batches = (
                    pooled_runs(runs_iter, opts, workers, pools)
                    if pools is not None
                    else (replay_run(r, opts) for r in runs_iter)
                )
            else:
                batches = replay_runs(files, opts, workers=workers, pools=pools)
            batches = outputs.enter_context(closing(batches)) if hasattr(batches, "close") else batches
            for batch in batches:
                run.add(batch)
                if tq is not None:
                    tq.update(len(batch))
            run.write_all()
        counts = run.counts
        replayed = counts.get("games", 0) + counts.get("outside", 0)
        if replayed and counts.get("unread", 0) == replayed:
            first = (counts.get("not_ok") or [("", "?", "?")])[0]
            raise UsageError(f"no file could be read as a game log; nothing written. {first[1]}: {first[2]}")
    summary = {
        "games": counts.get("games", 0),
        "ok": counts.get("ok", 0),
        "mismatch": counts.get("mismatch", 0),
        "error": counts.get("error", 0),
        "moves": counts.get("moves", 0),
        "warnings": counts.get("warnings", 0),
        "exported": 0,
        "not_ok": counts.get("not_ok", []),
        "outside": counts.get("outside", 0),
        "partitions": run.changed,
        "unchanged": run.unchanged,
        "removed": run.removed,
        "replaced": counts.get("replaced", 0),
        "dropped": counts.get("dropped", 0),
        "duplicates": counts.get("duplicates", 0),
        "source": shown,
    }
    return summary
