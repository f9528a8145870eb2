"""replay and impact on a Dask LocalCluster of 2 worker processes started here (issue 15): the
same bytes as the local run; a worker killed mid-run: the job completes, identical output."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest

pytest.importorskip("distributed")

from pipelines.replay.run import ReplayOptions, run_replay_dataset  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared"))
NETSKRAFL = SHARED / "corpora" / "netskrafl" / "games"
GCG = SHARED / "corpora" / "gcg"
pytestmark = pytest.mark.skipif(not NETSKRAFL.exists(), reason="no corpus in ../shared")


@pytest.fixture(scope="module")
def die_flag(tmp_path_factory):
    flag = tmp_path_factory.mktemp("flag") / "died"
    os.environ["SKRAFL_CLUSTER_DIE_ONCE"] = str(flag)  # read by the workers (they inherit it)
    yield flag
    os.environ.pop("SKRAFL_CLUSTER_DIE_ONCE", None)


@pytest.fixture(scope="module")
def cluster(die_flag):
    from distributed import LocalCluster

    die_flag.touch()  # armed per test
    c = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40)
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
    assert s["games"] == 62 and s["partitions"] == ["2025-08-11", "2025-08-12", "2025-08-16", "src-gcg"]
    assert _tree(tmp_path / "dask") == _tree(tmp_path / "local")


def test_worker_killed_mid_run(cluster, die_flag, tmp_path, monkeypatch):
    import pipelines.replay.cluster as cl

    monkeypatch.setattr(cl, "BATCH_FILES", 8)
    items = [str(NETSKRAFL), str(GCG)]
    run_replay_dataset(items, tmp_path / "local", ReplayOptions(), quiet=True)
    die_flag.unlink()  # the first batch task to start now kills its worker
    from distributed import Client

    with Client(cluster.scheduler_address) as client:
        before = set(client.scheduler_info()["workers"])
        s = run_replay_dataset(items, tmp_path / "dask", ReplayOptions(), quiet=True, cluster=cluster.scheduler_address)
        assert die_flag.exists()  # a worker did die
        after = set(client.scheduler_info()["workers"])
    assert before != after  # the nanny restarted it under a new address
    assert s["games"] == 62 and s["error"] == 0
    assert _tree(tmp_path / "dask") == _tree(tmp_path / "local")


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
