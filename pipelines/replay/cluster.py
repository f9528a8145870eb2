"""Replay on a Dask cluster (``--cluster ADDRESS`` or ``SKRAFL_DASK_SCHEDULER``): the same two
phases as a local dataset run (:mod:`.dataset`), each a set of Dask tasks.

- **Tasks are batches of files** (:data:`BATCH_FILES`, in input order). A task replays its batch
  (:func:`~pipelines.replay.run.replay_run`, runs of 64) and writes the batch's segment straight
  into the dataset's spool folder (the dataset must be on a file system the workers share); it
  returns only the segment's index and counts. Then **one task per partition** writes that
  partition's Parquet files (the previous partition's kept rows, then the batch's) into a stage
  folder of the new version the client made. The **commit** (the version
  sealed and published by one swap) is done once, by the client (:meth:`.dataset.DatasetRun.finish`).
- **Byte-identical to local runs**: a partition's bytes depend only on its rows in input order
  (segments are read in batch order), never on which worker did what.
- **A lost worker's batch is retried**: Dask reschedules the tasks of a worker that died, and each
  task has :data:`RETRIES` retries; a segment is written to a temporary name and renamed, so a
  task killed mid-write leaves nothing half-written. A batch that still fails (a file that kills
  every worker that reads it, Dask's ``KilledWorker``) is replayed file by file, one task each:
  the file at fault gets the row ``WORKER_CRASHED``, every other file its own rows — never a lost
  batch.
- **Progress** from the client: the bar advances as batches finish.

Dask (``dask``, ``distributed``) is the optional extra ``skrafl[cluster]``, imported only here.
"""

from __future__ import annotations

import os
from typing import Any

from gamecore.errors import UsageError

BATCH_FILES = 256
RETRIES = 2


def connect_client(address):
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--cluster needs Dask: pip install 'skrafl[cluster]' (dask, distributed)") from None
    if not isinstance(address, str):
        return Client(address), True
    try:
        return Client(address, timeout="20s"), True
    except (OSError, TimeoutError) as exc:
        raise UsageError(
            f"--cluster {address}: cannot reach the Dask scheduler ({type(exc).__name__}: {str(exc)[:200]})"
        ) from None


_FROZEN = False


def _freeze_once() -> None:
    """The first task in a worker process: what the process holds now (Dask's own objects, the
    loaded modules and rule sets) is moved out of the cycle collector's sight, as local workers do
    after the fork (``gc.freeze``): collections then walk only the replay's new objects."""
    global _FROZEN
    if not _FROZEN:
        import gc

        gc.collect()
        gc.freeze()
        _FROZEN = True


def replay_batch_task(items: list, opts, games_path: str, moves_path: str, window: tuple) -> tuple:
    """A cluster task: replay ``items`` and write their segment (temporary names, then renamed).
    Returns ``(segment, counts)``."""
    from .dataset import write_segment
    from .run import bundle_for, lexicon_for, replay_run

    lexicon_for(opts)  # loaded once per worker process, then frozen with the rest
    bundle_for(opts)
    _freeze_once()

    batches = []
    for i in range(0, len(items), 64):
        batches.append(replay_run(items[i : i + 64], opts))
    gtmp, mtmp = games_path + ".tmp", moves_path + ".tmp"
    seg, counts = write_segment(batches, gtmp, mtmp, opts.columns, window)
    os.replace(gtmp, games_path)
    os.replace(mtmp, moves_path)
    seg.games_path, seg.moves_path = games_path, moves_path
    return seg, counts


def replay_db_task(source, ids: list, opts, games_path: str, moves_path: str, window: tuple) -> tuple:
    """A cluster task over a database: the worker reads its batch of games by id, then as
    :func:`replay_batch_task`."""
    return replay_batch_task(source.records(ids), opts, games_path, moves_path, window)


def replay_one_task(item, opts):
    from .run import replay_run

    return replay_run([item], opts)


def write_partition_task(job, stage: str, analyze: bool | str) -> dict:
    from .dataset import write_partition

    return write_partition(job, stage, analyze)


def _file_by_file(client, items: list, opts, run, index: int) -> tuple:
    """A batch that failed as a whole: one task per file; a file whose task fails gets a
    ``WORKER_CRASHED`` row. The client writes the segment."""
    from .dataset import write_segment
    from .run import crashed_batch

    futures = [client.submit(replay_one_task, item, opts, pure=False, retries=0) for item in items]
    batches = []
    for fut in futures:
        try:
            batches.append(fut.result())
        except UsageError:
            raise
        except Exception:  # noqa: BLE001 - KilledWorker and the like: again, alone (below)
            batches.append(None)
    # a task queued on a worker that another file killed is blamed too: each file that failed
    # is tried again with no other task in flight, so only the file at fault gets the row
    for i, item in enumerate(items):
        if batches[i] is not None:
            continue
        try:
            batches[i] = client.submit(replay_one_task, item, opts, pure=False, retries=0).result()
        except UsageError:
            raise
        except Exception as exc:  # noqa: BLE001 - this file kills the worker that reads it: its row
            batches[i] = crashed_batch(item, f"the cluster worker died or failed on this file ({type(exc).__name__})", opts)
    games_path, moves_path = run.segment_paths(index)
    return write_segment(batches, games_path, moves_path, opts.columns, run.window)


def replay_on_cluster(
    address: Any, items: list | None, opts, run, progress=None, batch_files: int | None = None, source=None
) -> None:
    """Replay ``items`` (paths), or the games of ``source`` (a :class:`pipelines.postgres.GameSource`:
    the client lists the ids, each task reads its own batch), on the Dask scheduler ``address``
    (or a ``distributed`` cluster object) into ``run`` (a :class:`.dataset.DatasetRun`), both
    phases; the caller commits."""
    batch_files = batch_files or BATCH_FILES
    client, owned = connect_client(address)
    futures: dict = {}
    try:
        from distributed import as_completed

        from .run import bundle_for, lexicon_for

        lexicon_for(opts)  # a bad lexicon fails here, before any task
        bundle_for(opts)
        if source is not None:
            batches = list(source.id_batches(batch_files))
        else:
            assert items is not None  # files, when there is no database source
            batches = [items[i : i + batch_files] for i in range(0, len(items), batch_files)]
        for index, batch in enumerate(batches):
            if source is not None:
                fut = client.submit(
                    replay_db_task, source, batch, opts, *run.segment_paths(index), run.window, pure=False, retries=RETRIES
                )
            else:
                fut = client.submit(
                    replay_batch_task, batch, opts, *run.segment_paths(index), run.window, pure=False, retries=RETRIES
                )
            futures[fut] = index
        results: dict[int, tuple] = {}
        failed: list[int] = []
        for fut in as_completed(list(futures)):
            index = futures[fut]
            try:
                results[index] = fut.result()
            except UsageError:
                raise
            except Exception:  # noqa: BLE001 - the batch failed after its retries: file by file, below
                failed.append(index)
                continue
            if progress is not None:
                progress.update(len(batches[index]))
        for index in sorted(failed):  # once every other batch is done: nothing else is in flight
            batch = source.records(batches[index]) if source is not None else batches[index]
            results[index] = _file_by_file(client, batch, opts, run, index)
            if progress is not None:
                progress.update(len(batches[index]))
        for index in range(len(batches)):
            run.add_segment(*results[index])
        plan = run.plan()
        parts = [
            client.submit(write_partition_task, job, str(run.stages[part]), opts.columns, pure=False, retries=RETRIES)
            for part, job in plan.items()
        ]
        client.gather(parts)
    finally:
        if futures:
            try:  # a stop (SIGINT) or a failure: nothing of this run keeps running
                client.cancel(list(futures))
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
        if owned:
            client.close()
