"""PostgreSQL in Netskrafl's schema: replay and elo read games from it, elo --ratings-to writes
ratings back. A real server started here (initdb + pg_ctl into a temporary folder, as
the postgres user when run as root, a Unix socket only); skipped only without PostgreSQL binaries."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import polars as pl
import pytest
from pg_server import PgServer, find_bindir, unavailable

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared"))
NETSKRAFL = SHARED / "corpora" / "netskrafl" / "games"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(unavailable() is not None, reason=unavailable() or ""),
    pytest.mark.skipif(not NETSKRAFL.exists(), reason="no Netskrafl corpus in ../shared"),
]
psycopg = pytest.importorskip("psycopg")

PLAYERS = ["anna", "bjarni", "dóra", "einar"]


@pytest.fixture(scope="module")
def server():
    s = PgServer(find_bindir()).start()
    yield s
    s.stop()


def _records():
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(NETSKRAFL.glob("*.json"))]


def _players(records):
    """Player ids per game: four humans in turn (a game is never against oneself)."""
    return {r["game_id"]: (PLAYERS[i % 4], PLAYERS[(i + 1) % 4]) for i, r in enumerate(records)}


@pytest.fixture(scope="module")
def netskrafl_db(server):
    from pipelines.postgres import load_records

    url = server.createdb("netskrafl")
    records = _records()
    assert load_records(url, records, _players(records)) == 10
    with psycopg.connect(url) as conn:  # an unfinished game: never read
        conn.execute(
            "INSERT INTO games (id, player0_id, player1_id, score0, score1, over, timestamp, ts_last_move, moves) "
            "VALUES ('open-1', 'anna', 'bjarni', 5, 0, FALSE, now(), '2025-08-11 12:00', '[]')"
        )
    return url


def _skrafl(*args, env=None):
    """The real entry point, in this process (clirun.run_skrafl_here)."""
    from clirun import run_skrafl_here

    return run_skrafl_here(*map(str, args), env=env)


def _dataset_games(ds: Path) -> pl.DataFrame:
    from pipelines.replay.dataset import read_table

    return pl.from_arrow(read_table(ds, "games")).drop("file").sort("game_id")


def _dataset_moves(ds: Path) -> pl.DataFrame:
    from pipelines.replay.dataset import read_table

    games = pl.from_arrow(read_table(ds, "games")).select("file", "game_id")
    return pl.from_arrow(read_table(ds, "moves")).join(games, on="file").drop("file").sort("game_id", "turn")


def test_replay_from_database_equals_files(netskrafl_db, tmp_path):
    r = _skrafl("replay", netskrafl_db, "--dataset", tmp_path / "db", "--no-lexicon")
    assert r.returncode == 0, r.stderr
    assert "partitions replaced 2025-08-11, 2025-08-12, 2025-08-16" in r.stderr
    r = _skrafl("replay", NETSKRAFL, "--dataset", tmp_path / "files", "-q", "--no-lexicon")
    assert r.returncode == 0, r.stderr
    a, b = _dataset_games(tmp_path / "db"), _dataset_games(tmp_path / "files")
    assert a.height == 10 and a.equals(b), [
        (c, a[c].to_list()[:2], b[c].to_list()[:2]) for c in a.columns if not a[c].equals(b[c])
    ]
    assert _dataset_moves(tmp_path / "db").equals(_dataset_moves(tmp_path / "files"))
    files = pl.from_arrow(__import__("pipelines.replay.dataset", fromlist=["read_table"]).read_table(tmp_path / "db", "games"))[
        "file"
    ]
    assert all(f.startswith("postgresql:games/") for f in files)
    # a window: one day only, from the index's order
    r = _skrafl(
        "replay",
        netskrafl_db,
        "--dataset",
        tmp_path / "day",
        "--since",
        "2025-08-12",
        "--until",
        "2025-08-12",
        "-q",
        "--workers",
        "2",
        "--no-lexicon",
    )
    assert r.returncode == 0, r.stderr
    assert _dataset_games(tmp_path / "day")["game_id"].to_list() == sorted(
        r["game_id"] for r in _records() if r["ts_last_move"].startswith("2025-08-12")
    )


def test_elo_from_database_and_ratings_back(netskrafl_db, tmp_path):
    from pipelines.elo.games import read_games

    table = read_games(netskrafl_db)
    assert table.frame.height == 10 and "open-1" not in table.frame["game_id"].to_list()
    assert table.extras["locale"].to_list() == ["is_IS"] * 10
    by_id = {r["game_id"]: len(r["moves"]) for r in _records()}
    assert table.extras["moves"].to_list() == [by_id[g] for g in table.frame["game_id"]]
    # the same games as a CSV games table: the same ratings
    recs = _records()
    players = _players(recs)
    csv = tmp_path / "games.csv"
    pl.DataFrame(
        [
            {
                "game_id": r["game_id"],
                "finished_at": r["ts_last_move"],
                "player0": players[r["game_id"]][0],
                "player1": players[r["game_id"]][1],
                "robot0": False,
                "robot1": False,
                "score0": r["score0"],
                "score1": r["score1"],
                "competition": bool(r["prefs"].get("manual")),
                "locale": r["locale"],
                "moves": len(r["moves"]),
            }
            for r in recs
        ]
    ).write_csv(csv)
    r = _skrafl("elo", "--games", csv, "--out", tmp_path / "from_csv", "-q")
    assert r.returncode == 0, r.stderr
    r = _skrafl(
        "elo",
        "--games",
        netskrafl_db,
        "--out",
        tmp_path / "from_db",
        "--ratings-to",
        netskrafl_db,
        "--date",
        "2025-08-16",
        "--catch-up",
    )
    assert r.returncode == 0, r.stderr
    assert "ratings of 2025-08-16 stored into skrafl_ratings" in r.stderr
    want = pl.read_parquet(tmp_path / "from_csv" / "ratings.parquet").drop("as_of").sort("list", "player")
    parquet = pl.read_parquet(tmp_path / "from_db" / "ratings.parquet").sort("list", "player")
    assert parquet.drop("as_of").equals(want)
    assert set(parquet["locale"]) == {"is_IS"}

    def stored():
        with psycopg.connect(netskrafl_db) as conn:
            rows = conn.execute(
                "SELECT day::text, list, player, robot, rating, games, wins, losses, draws, score_for, score_against, as_of, locale "
                "FROM skrafl_ratings ORDER BY day, list, player"
            ).fetchall()
        return rows

    first = stored()
    assert [(r[1], r[2], r[4], r[5], r[12]) for r in first] == [
        (r["list"], r["player"], r["rating"], r["games"], r.get("locale") or "") for r in parquet.iter_rows(named=True)
    ]
    assert {r[0] for r in first} == {"2025-08-16"}
    # the same day again (another output folder): the same rows, not twice as many
    r = _skrafl(
        "elo",
        "--games",
        netskrafl_db,
        "--out",
        tmp_path / "again",
        "--ratings-to",
        netskrafl_db,
        "--date",
        "2025-08-16",
        "--catch-up",
        "-q",
    )
    assert r.returncode == 0, r.stderr
    assert stored() == first
    # another table name
    r = _skrafl(
        "elo", "--games", netskrafl_db, "--out", tmp_path / "t2", "--ratings-to", netskrafl_db, "--table", "nightly_elo", "-q"
    )
    assert r.returncode == 0, r.stderr
    with psycopg.connect(netskrafl_db) as conn:
        assert conn.execute("SELECT count(*) FROM nightly_elo").fetchone()[0] == len(first)
    r = _skrafl(
        "elo",
        "--games",
        netskrafl_db,
        "--out",
        tmp_path / "t3",
        "--ratings-to",
        netskrafl_db,
        "--table",
        "x; drop table games",
        "-q",
    )
    assert r.returncode == 2 and "--table" in r.stderr


def test_credentials_never_shown(server, tmp_path):
    secret = "s3cr3t-Pa55"
    bad = f"postgresql://spy:{secret}@/nosuchdb?host={server.sock}"
    for args in (("replay", bad, "--dataset", tmp_path / "d"), ("elo", "--games", bad, "--out", tmp_path / "e")):
        r = _skrafl(*args)
        assert r.returncode == 2, r.stderr
        assert secret not in r.stderr and secret not in r.stdout and "spy" not in r.stderr
        assert "postgresql:///nosuchdb" in r.stderr
    # PG* variables are read by libpq: no password in the URL at all
    env = {**os.environ, "PGHOST": str(server.sock), "PGUSER": "postgres", "PGPASSWORD": secret, "PGDATABASE": "nosuchdb"}
    r = _skrafl("elo", "--games", "postgresql://", "--out", tmp_path / "f", env=env)
    assert r.returncode == 2 and secret not in r.stderr
    assert not (tmp_path / "d").exists() and not (tmp_path / "e").exists()


def test_replay_from_database_on_cluster(netskrafl_db, tmp_path, monkeypatch):
    """The cluster's tasks read their own batches of games by id: the same bytes as locally."""
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    import pipelines.replay.cluster as cl
    from pipelines.replay.jobs import ReplayOptions, run_replay_dataset

    monkeypatch.setattr(cl, "BATCH_FILES", 3)
    local = run_replay_dataset([netskrafl_db], tmp_path / "local", ReplayOptions(), quiet=True)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40) as cluster:
        dask = run_replay_dataset(
            [netskrafl_db], tmp_path / "dask", ReplayOptions(), quiet=True, cluster=cluster.scheduler_address
        )
    assert dask["games"] == local["games"] == 10
    for table in ("games", "moves"):
        for p in sorted((tmp_path / "local" / table).iterdir()):
            assert (tmp_path / "dask" / table / p.name / "data.parquet").read_bytes() == (p / "data.parquet").read_bytes()
    assert (tmp_path / "dask" / "dataset.json").read_bytes() == (tmp_path / "local" / "dataset.json").read_bytes()


def test_nightly_from_database_keeps_credentials_out_of_the_log(server, netskrafl_db, tmp_path):
    """A nightly run reading the day's games from the database and writing the ratings back:
    the run log names the database without its password or user."""
    from lexicon_helpers import make_lexicon

    secret = "n1ghtly-Secr3t"
    url = netskrafl_db.replace("postgresql://postgres@", f"postgresql://postgres:{secret}@")  # trust auth: any password
    work = tmp_path / "work"
    make_lexicon(work / "lex", ["létta", "árum"])
    config = work / "nightly.toml"
    config.write_text(
        f'[lexicon]\npath = "lex"\n[games]\nsource = "{url}"\n[replay]\ndataset = "data/replay"\n'
        f'[elo]\nout = "data/elo"\nratings_to = "{url}"\ntable = "nightly_ratings"\n',
        encoding="utf-8",
    )
    r = _skrafl("nightly", config, "--date", "2025-08-11")
    assert r.returncode == 0, r.stderr
    text = (work / "logs" / "2025-08-11.json").read_text(encoding="utf-8")
    log = json.loads(text)
    assert log["status"] == "ok"
    steps = {s["step"]: s for s in log["steps"]}
    assert steps["replay"]["counts"]["games"] == 6
    assert secret not in text and secret not in r.stderr and "postgres@" not in text
    assert any(i.startswith("postgresql:///netskrafl") for i in steps["replay"]["inputs"])
    with psycopg.connect(netskrafl_db) as conn:
        assert conn.execute("SELECT count(DISTINCT day) FROM nightly_ratings").fetchone()[0] == 1


def test_lexicon_named_by_the_games_locale(server, netskrafl_db, tmp_path):
    """replay from a database guesses the lexicon as it does for files: the locale's language
    (is_IS → is), Icelandic when no locale is given; none (with a note) when the locales name
    several languages or the lexicon is not built."""
    from lexicon_helpers import make_lexicon

    from pipelines.postgres import lexicon_named, load_records

    folder, note = lexicon_named(netskrafl_db, root=tmp_path / "empty")
    assert folder is None and "'is'" in note and "not built" in note and "skrafl build is" in note
    make_lexicon(tmp_path / "root" / "is", ["létta", "árum"])
    folder, note = lexicon_named(netskrafl_db, root=tmp_path / "root")
    assert folder == str(tmp_path / "root" / "is") and "words checked with" in note
    # no locale at all: Netskrafl's games table is Icelandic
    rec = _records()[0]
    url = server.createdb("nolocale")
    load_records(url, [{**rec, "locale": None}])
    assert lexicon_named(url, root=tmp_path / "root")[0] == str(tmp_path / "root" / "is")
    # two languages: nothing guessed, and the note says why
    url = server.createdb("mixed")
    load_records(url, [rec, {**rec, "game_id": "pl-1", "locale": "pl_PL", "ts_last_move": "2030-01-01T12:00:00+00:00"}])
    folder, note = lexicon_named(url, root=tmp_path / "root")
    assert folder is None and "is_IS, pl_PL" in note and "--no-lexicon" in note
    # a window with only the Icelandic game: its locale decides
    day = dt.datetime.fromisoformat(rec["ts_last_move"]).astimezone(dt.timezone.utc).date()
    assert lexicon_named(url, since=day, until=day, root=tmp_path / "root")[0] == str(tmp_path / "root" / "is")


def test_replay_from_database_checks_words_with_the_guessed_lexicon(netskrafl_db, tmp_path, monkeypatch, capsys):
    """With guess_lexicon (replay without --lang/--lexicon/--no-lexicon), the database's games are
    checked with output/is, exactly as the same games from files with --lang is."""
    from cli.common import output_root
    from pipelines.replay.jobs import ReplayOptions, run_replay_dataset

    root = output_root()
    if not (root / "is" / "manifest.json").is_file():
        pytest.skip("the Icelandic lexicon is not built (skrafl ingest is && skrafl build is)")
    monkeypatch.setenv("SKRAFL_OUTPUT", str(root))
    run_replay_dataset([netskrafl_db], tmp_path / "guessed", ReplayOptions(), guess_lexicon=True)
    assert f"words checked with {root / 'is'}" in capsys.readouterr().err
    run_replay_dataset([str(NETSKRAFL)], tmp_path / "files", ReplayOptions(lexicon_dir=str(root / "is")), quiet=True)
    run_replay_dataset([netskrafl_db], tmp_path / "unchecked", ReplayOptions(), quiet=True)
    assert capsys.readouterr().err == ""  # no guess asked: nothing said (the CLI's --no-lexicon)
    guessed, files, unchecked = (_dataset_moves(tmp_path / d) for d in ("guessed", "files", "unchecked"))
    assert guessed.equals(files)
    assert not guessed.equals(unchecked)


def test_cli_replay_from_database_guesses_the_lexicon(netskrafl_db, tmp_path):
    """`skrafl replay URL --dataset D` with no lexicon option checks the words with the lexicon the
    games' locale names, and says so once; --no-lexicon checks none and says nothing."""
    from cli.common import output_root

    root = output_root()
    if not (root / "is" / "manifest.json").is_file():
        pytest.skip("the Icelandic lexicon is not built (skrafl ingest is && skrafl build is)")
    env = {**os.environ, "SKRAFL_OUTPUT": str(root)}
    guessed = _skrafl("replay", netskrafl_db, "--dataset", tmp_path / "g", env=env)
    assert guessed.returncode in (0, 1), guessed.stderr
    assert guessed.stderr.count(f"words checked with {root / 'is'}") == 1
    silent = _skrafl("replay", netskrafl_db, "--dataset", tmp_path / "n", "--no-lexicon", "-q", env=env)
    assert silent.returncode in (0, 1) and silent.stderr == ""
    files = _skrafl("replay", NETSKRAFL, "--dataset", tmp_path / "f", "--lang", "is", "-q", env=env)
    assert files.returncode in (0, 1), files.stderr
    assert _dataset_moves(tmp_path / "g").equals(_dataset_moves(tmp_path / "f"))
    assert not _dataset_moves(tmp_path / "g").equals(_dataset_moves(tmp_path / "n"))


# --- elo --ratings-to in step with the output folder (a failure of either changes neither) -----

UNREACHABLE = "postgresql://127.0.0.1:1/db"  # nothing listens on port 1


def _folder_state(out: Path) -> tuple[str, bytes]:
    return os.readlink(out), (out / "ratings.parquet").read_bytes()


def test_failed_ratings_write_replaces_no_output(netskrafl_db, tmp_path):
    """README "Guarantees": a run that fails changes nothing, also when what fails is the
    database write of --ratings-to: the output folder keeps its previous ratings."""
    out = tmp_path / "e" / "full"
    r = _skrafl("elo", "--games", netskrafl_db, "--out", out, "--date", "2025-08-11", "-q")
    assert r.returncode == 0, r.stderr
    before = _folder_state(out)
    # an unreachable server: refused before any work
    r = _skrafl("elo", "--games", netskrafl_db, "--out", out, "--ratings-to", UNREACHABLE, "-q")
    assert r.returncode == 2 and "cannot connect to PostgreSQL" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert _folder_state(out) == before
    # the server is there, the write into it fails (no such schema): nothing swapped in either
    r = _skrafl("elo", "--games", netskrafl_db, "--out", out, "--ratings-to", netskrafl_db, "--table", "nosuch.ratings", "-q")
    assert r.returncode == 2 and "nosuch" in r.stderr, r.stderr
    assert _folder_state(out) == before
    # a new output path: not created at all
    r = _skrafl("elo", "--games", netskrafl_db, "--out", tmp_path / "e" / "new", "--ratings-to", UNREACHABLE, "-q")
    assert r.returncode == 2 and not (tmp_path / "e" / "new").exists()
    assert sorted(p.name for p in (tmp_path / "e").iterdir()) == [".full.gen-" + before[0].split(".gen-")[1], "full"]


def test_ratings_taken_back_when_the_swap_fails(netskrafl_db, tmp_path, monkeypatch):
    """The table is committed just before the swap; when the swap then fails, the day's rows the
    run replaced are put back, so the table is not left ahead of the folder."""
    import errno

    import pipelines.atomic as atomic
    from gamecore.errors import OutputError
    from pipelines import elo

    def stored():
        with psycopg.connect(netskrafl_db) as conn:
            return conn.execute("SELECT day::text, list, player, rating FROM swap_t ORDER BY 1, 2, 3").fetchall()

    day = dt.date(2025, 8, 16)
    elo.run_elo(netskrafl_db, tmp_path / "a", date=day, catch_up=True, ratings_to=netskrafl_db, ratings_table="swap_t")
    first = stored()
    assert first and {r[0] for r in first} == {"2025-08-16"}
    ratings = pl.read_parquet(tmp_path / "a" / "ratings.parquet")
    assert sorted((r["list"], r["player"], r["rating"]) for r in ratings.iter_rows(named=True)) == [r[1:] for r in first]

    def full_disk(stage, visible):
        raise OSError(errno.ENOSPC, "No space left on device", str(visible))

    monkeypatch.setattr(atomic, "_swap", full_disk)
    # other ratings for the same day (start 1000): stored, then taken back
    with pytest.raises(OutputError, match="no space left on the device"):
        elo.run_elo(
            netskrafl_db,
            tmp_path / "b",
            params=elo.params_for("ordspill"),
            date=day,
            catch_up=True,
            ratings_to=netskrafl_db,
            ratings_table="swap_t",
        )
    assert not (tmp_path / "b").exists()
    assert stored() == first


def test_nightly_elo_failing_to_store_counts_no_day(server, netskrafl_db, tmp_path):
    """A night whose elo step fails at --ratings-to leaves no elo output for that day, so the
    next night rates that day too (catch-up) and stores the ratings."""
    from lexicon_helpers import make_lexicon

    work = tmp_path / "work"
    make_lexicon(work / "lex", ["létta", "árum"])
    config = work / "nightly.toml"

    def write(ratings_to):
        config.write_text(
            f'[lexicon]\npath = "lex"\n[games]\nsource = "{netskrafl_db}"\n[replay]\ndataset = "data/replay"\n'
            f'[elo]\nout = "data/elo"\nratings_to = "{ratings_to}"\ntable = "night_t"\n',
            encoding="utf-8",
        )

    write(UNREACHABLE)
    r = _skrafl("nightly", config, "--date", "2025-08-11", "-q")
    assert r.returncode == 2 and "step elo" in r.stderr and "cannot connect" in r.stderr, r.stderr
    assert not (work / "data" / "elo" / "2025-08-11").exists()
    log = json.loads((work / "logs" / "2025-08-11.json").read_text(encoding="utf-8"))
    assert log["status"] == "failed" and log["steps"][-1]["step"] == "elo" and log["steps"][-1]["status"] == "failed"

    write(netskrafl_db)
    r = _skrafl("nightly", config, "--date", "2025-08-12", "-q")
    assert r.returncode == 0, r.stderr
    log = json.loads((work / "logs" / "2025-08-12.json").read_text(encoding="utf-8"))
    steps = {s["step"]: s for s in log["steps"]}
    days = [r["ts_last_move"][:10] for r in _records()]
    assert steps["replay"]["counts"]["since"] is None  # nothing counted as rated yet
    assert steps["elo"]["counts"]["rated"] == days.count("2025-08-11") + days.count("2025-08-12") == 8
    with psycopg.connect(netskrafl_db) as conn:
        rows = conn.execute("SELECT DISTINCT day::text, player FROM night_t WHERE list = 'all'").fetchall()
    assert {d for d, _ in rows} == {"2025-08-12"}
    assert {p for _, p in rows} == set(PLAYERS)  # the database's player ids, not the seats player0/player1


def test_replayed_database_games_rated_by_their_player_ids(netskrafl_db, tmp_path):
    """A replay of the database's games has no player ids (the record format has none):
    --players-from names them from the games table, and the ratings are those of elo --games
    DB; without it they are not rated (one warning)."""
    ds = tmp_path / "ds"
    r = _skrafl("replay", netskrafl_db, "--dataset", ds, "--no-lexicon", "-q")
    assert r.returncode == 0, r.stderr
    r = _skrafl("elo", "--games", ds, "--out", tmp_path / "named", "--players-from", netskrafl_db, "-q")
    assert r.returncode == 0, r.stderr
    r = _skrafl("elo", "--games", netskrafl_db, "--out", tmp_path / "db", "-q")
    assert r.returncode == 0, r.stderr
    named = pl.read_parquet(tmp_path / "named" / "ratings.parquet").sort("list", "locale", "player")
    db = pl.read_parquet(tmp_path / "db" / "ratings.parquet").sort("list", "locale", "player")
    assert set(named["player"]) == set(PLAYERS) and named.equals(db)
    r = _skrafl("elo", "--games", ds, "--out", tmp_path / "anon", "-q")  # none can be rated: refused (5850bed)
    assert r.returncode == 2 and "nothing rated" in r.stderr and "10 replayed Netskrafl game(s) not rated" in r.stderr, r.stderr
    assert not (tmp_path / "anon").exists()


def test_impact_refuses_database_games_of_another_language(netskrafl_db, tmp_path):
    """skrafl impact of games read from the database: their locale (is_IS, docs/NETSKRAFL.md) against
    English lexicons is refused, one line and no output (as for the same games as files); with
    Icelandic lexicons the report is made."""
    from lexicon_helpers import make_lexicon

    for lang in ("en", "is"):
        make_lexicon(tmp_path / f"old-{lang}", ["létta", "árum"], language=lang)
        make_lexicon(tmp_path / f"new-{lang}", ["árum"], language=lang)
    args = ("impact", netskrafl_db, "-q", "--old", tmp_path / "old-en", "--new", tmp_path / "new-en", "--out", tmp_path / "out")
    r = _skrafl(*args)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "'is' (locale is_IS)" in r.stderr and "'en'" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists()
    r = _skrafl(*[str(a).replace("-en", "-is") for a in args])
    assert r.returncode == 0, r.stderr
    assert "LÉTTA" in (tmp_path / "out" / "words.csv").read_text(encoding="utf-8").upper()
