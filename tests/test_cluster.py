"""replay and impact on a Dask LocalCluster of 2 worker processes started here: the
same bytes as the local run; a worker killed mid-run: the job completes, identical output."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest

pytest.importorskip("distributed")

from pipelines.replay.jobs import ReplayOptions, run_replay_dataset  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared"))
NETSKRAFL = SHARED / "corpora" / "netskrafl" / "games"
GCG = SHARED / "corpora" / "gcg"
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not NETSKRAFL.exists(), reason="no corpus in ../shared")]


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    c = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40)
    yield c
    c.close()


@pytest.fixture
def fragile_cluster():
    """A cluster of its own, for tests that make workers die (a worker plugin does it)."""
    import dask
    from distributed import LocalCluster

    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        c = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50)
        yield c
        c.close()


def _tree(ds: Path) -> dict[str, bytes]:
    out = {"dataset.json": (ds / "dataset.json").read_bytes()}
    for table in ("games", "moves"):
        for p in sorted((ds / table).iterdir()):
            out[f"{table}/{p.name}"] = (p / "data.parquet").read_bytes()
    return out


def test_replay_on_cluster_identical(cluster, tmp_path, monkeypatch):
    import pipelines.replay.cluster as cl

    monkeypatch.setattr(cl, "BATCH_FILES", 8)  # several batches from the small corpus
    items = [str(NETSKRAFL), str(GCG)]
    run_replay_dataset(items, tmp_path / "local", ReplayOptions(), quiet=True, workers=2)
    s = run_replay_dataset(items, tmp_path / "dask", ReplayOptions(), quiet=True, cluster=cluster.scheduler_address)
    assert s["games"] == 62 and s["partitions"][:3] == ["2025-08-11", "2025-08-12", "2025-08-16"]
    assert len(s["partitions"]) == 4 and s["partitions"][3].startswith("src-gcg-")  # its folder's name and path digest
    assert _tree(tmp_path / "dask") == _tree(tmp_path / "local")


def test_worker_killed_mid_run(fragile_cluster, tmp_path, monkeypatch):
    """The worker replaying one file dies (once): its batch is rescheduled, the job completes
    with the same bytes as the local run."""
    from cluster_helpers import Saboteur
    from distributed import Client

    import pipelines.replay.cluster as cl

    monkeypatch.setattr(cl, "BATCH_FILES", 8)
    items = [str(NETSKRAFL), str(GCG)]
    run_replay_dataset(items, tmp_path / "local", ReplayOptions(), quiet=True)
    flag = tmp_path / "died"
    with Client(fragile_cluster.scheduler_address) as client:
        client.register_plugin(Saboteur("game_4b88b1c4", str(flag)))
        before = set(client.scheduler_info()["workers"])
        s = run_replay_dataset(items, tmp_path / "dask", ReplayOptions(), quiet=True, cluster=fragile_cluster.scheduler_address)
        after = set(client.scheduler_info()["workers"])
    assert flag.exists() and before != after  # a worker did die; the nanny started a new one
    assert s["games"] == 62 and s["error"] == 0
    assert _tree(tmp_path / "dask") == _tree(tmp_path / "local")


def test_file_that_kills_every_worker(fragile_cluster, tmp_path, monkeypatch):
    """A file that kills whichever worker reads it: its batch is replayed file by file; that file
    gets a WORKER_CRASHED row, every other file its own rows (never a lost batch)."""
    from cluster_helpers import Saboteur
    from distributed import Client

    import pipelines.replay.cluster as cl

    monkeypatch.setattr(cl, "BATCH_FILES", 4)
    with Client(fragile_cluster.scheduler_address) as client:
        client.register_plugin(Saboteur("game_4b88b1c4"))
        s = run_replay_dataset(
            [str(NETSKRAFL)], tmp_path / "dask", ReplayOptions(), quiet=True, cluster=fragile_cluster.scheduler_address
        )
    from pipelines.replay.dataset import read_table

    games = pl.from_arrow(read_table(tmp_path / "dask", "games"))
    assert games.height == 10 and s["error"] == 1
    bad = games.filter(pl.col("status") == "error").row(0, named=True)
    assert "game_4b88b1c4" in bad["file"] and bad["error"].startswith("WORKER_CRASHED")
    run_replay_dataset([str(NETSKRAFL)], tmp_path / "local", ReplayOptions(), quiet=True)
    ok = pl.from_arrow(read_table(tmp_path / "local", "games")).filter(~pl.col("file").str.contains("game_4b88b1c4"))
    assert games.filter(pl.col("status") != "error").sort("file").equals(ok.sort("file"))


def test_impact_on_cluster(cluster, tmp_path):
    from lexicon_helpers import make_lexicon

    from pipelines.impact import run_impact
    from pipelines.replay.dataset import read_table

    run_replay_dataset([str(NETSKRAFL)], tmp_path / "ds", ReplayOptions(), quiet=True)
    words = sorted(set(pl.from_arrow(read_table(tmp_path / "ds", "moves"))["words_formed"].explode().drop_nulls().to_list()))
    old = make_lexicon(tmp_path / "old", words)
    new = make_lexicon(tmp_path / "new", [w for w in words if w not in ("létta", "árum")])
    local = run_impact(old, new, [str(NETSKRAFL)], tmp_path / "i_local")
    dask = run_impact(old, new, [str(NETSKRAFL)], tmp_path / "i_dask", cluster=cluster.scheduler_address)
    assert local["plays"].height >= 2
    for name in ("plays.parquet", "words.parquet", "winners.parquet", "words.csv", "summary.md"):
        assert (tmp_path / "i_dask" / name).read_bytes() == (tmp_path / "i_local" / name).read_bytes()
    assert dask["plays"].equals(local["plays"])
