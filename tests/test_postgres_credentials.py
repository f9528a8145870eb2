"""No PostgreSQL credential in any message or log, whatever the URL's shape.

The URLs are read as libpq reads them: psycopg's ``conninfo_to_dict`` is libpq's own parser
(``PQconninfoParse``), the independent reference here. A password holding an unencoded ``/`` or
``@`` is not what libpq reads (it ends the password at the first ``@`` before any ``/``): such a
URL is refused, with nothing of the password shown; ``#``, ``?``, ``:`` and %-encodings are read
as meant, and shown nowhere."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

import pytest

ROOT = Path(__file__).resolve().parents[1]

# passwords as meant, each written into a URL raw (as a maintainer pastes it) or %-encoded
PASSWORDS = ["Pa/ss-w0rd", "Pa#ss-w0rd", "P@ss-w0rd", "Pa:ss-w0rd", "Pa?ss-w0rd", "Pa%40ss/#?w0rd", "Pa@b?c#d/e"]


def _forms(password: str) -> set[str]:
    """What of a password must never be shown: the password, its encoded form, and every piece of
    3 characters or more between the characters that end a URL's parts."""
    import re

    return {password, quote(password, safe="")} | {p for p in re.split(r"[/@#?:%]", password) if len(p) >= 3}


def _urls(password: str, tail: str = "host.example:5433/netskrafl?sslmode=disable") -> list[tuple[str, bool]]:
    """``(url, meant)``: the password written raw (libpq reads it as meant only without '/' and
    '@'), %-encoded (always as meant), and as a ``password=`` query parameter."""
    raw_ok = "/" not in password and "@" not in password and "%" not in password
    return [
        (f"postgresql://spy:{password}@{tail}", raw_ok),
        (f"postgresql://spy:{quote(password, safe='')}@{tail}", True),
        (f"postgres://{tail}&password={quote(password, safe='')}&user=spy", True),
    ]


@pytest.mark.parametrize("password", PASSWORDS)
def test_redacted_as_libpq_reads_the_url(password):
    psycopg = pytest.importorskip("psycopg")
    from psycopg.conninfo import conninfo_to_dict

    from pipelines.postgres import _scrub, redact, url_problem

    for url, meant in _urls(password):
        shown = redact(url)
        assert not any(f in shown for f in _forms(password)), (url, shown)
        assert "spy" not in shown
        try:
            libpq = conninfo_to_dict(url)
        except psycopg.ProgrammingError as exc:  # libpq cannot read it at all; its message quotes a piece
            libpq = {"error": str(exc)}
        assert (libpq.get("password") == password) == meant, (url, libpq)
        if meant:  # read as meant: accepted, and shown as the same server and database
            assert url_problem(url) is None
            seen = conninfo_to_dict(shown.replace("***", "x"))
            assert (seen["host"], seen["port"], seen["dbname"], seen["sslmode"]) == (
                "host.example",
                "5433",
                "netskrafl",
                "disable",
            )
        else:  # libpq would send a piece of the password as the host or port: refused, one line
            problem = url_problem(url)
            assert problem and "percent-encode" in problem
        # a driver's message quoting the URL, the password and libpq's pieces of it
        pieces = " ".join(str(v) for v in libpq.values())
        message = _scrub(f"cannot connect to {url}: {password} {quote(password, safe='')} {pieces}", url)
        assert not any(f in message for f in _forms(password)), (url, message)
    # a key=value connection string, quoted or not
    for conninfo in (f"host=h password={password} dbname=d", "host=h password='" + password.replace("'", "\\'") + " x' dbname=d"):
        assert password not in redact(conninfo) and "password=***" in redact(conninfo)
        with pytest.raises(Exception) as refused:
            from pipelines.postgres import check_url

            check_url(conninfo)
        assert password not in str(refused.value)


def test_one_url_check():
    """replay's check is postgres.is_url; a folder named 'postgres' is no URL."""
    from pipelines.postgres import is_url
    from pipelines.replay.run import is_database_url

    for text in ("postgresql://h/db", "POSTGRES://h/db", "postgres", "postgresql", "incoming/{date}", "postgres:/x", 5):
        assert is_database_url(text) == is_url(text) == (isinstance(text, str) and "://" in text)


# ---------------------------------------------------------------------------------------------
# every message path: replay URL, elo --games, elo --ratings-to, the nightly's stderr and run log


def _skrafl(*args, env=None):
    """The real entry point, in this process (clirun.run_skrafl_here): the messages are the point."""
    from clirun import run_skrafl_here

    return run_skrafl_here(*map(str, args), env=env)


@pytest.fixture(scope="module")
def server():
    from pg_server import PgServer, find_bindir, unavailable

    if unavailable() is not None:
        pytest.skip(unavailable())
    pytest.importorskip("psycopg")
    s = PgServer(find_bindir()).start()
    yield s
    s.stop()


def _assert_hidden(password: str, *texts: str) -> None:
    for text in texts:
        leaked = [f for f in _forms(password) if f in text]
        assert not leaked and "spy" not in text, (leaked, text)


@pytest.mark.slow
@pytest.mark.parametrize("password", PASSWORDS)
def test_no_password_in_any_message_or_log(server, tmp_path, password):
    """The server is there (trust authentication: the password is never checked); the database
    ``nosuchdb`` is not, so every command fails with the driver's message, or is refused first
    when its password holds a raw '/' or '@'."""
    from lexicon_helpers import make_lexicon

    tail = f"/nosuchdb?host={server.sock}"
    good = server.createdb("creds")
    for i, (url, meant) in enumerate(_urls(password, tail)):
        runs = [
            _skrafl("replay", url, "--dataset", tmp_path / f"d{i}"),
            _skrafl("elo", "--games", url, "--out", tmp_path / f"e{i}"),
            _skrafl("elo", "--games", good, "--ratings-to", url, "--out", tmp_path / f"r{i}"),
        ]
        for r in runs:
            assert r.returncode == 2, r.stderr
            assert len(r.stderr.strip().splitlines()) == 1, r.stderr
            assert ("percent-encode" in r.stderr) == (not meant), r.stderr
            _assert_hidden(password, r.stderr, r.stdout)
        # the nightly: refused by the config check (FILE:LINE), or its replay step fails
        work = tmp_path / f"w{i}"
        make_lexicon(work / "lex", ["létta", "árum"])
        config = work / "nightly.toml"
        config.write_text(
            f'[lexicon]\npath = "lex"\n[games]\nsource = "{url}"\n[replay]\ndataset = "data/replay"\n'
            f'[elo]\nout = "data/elo"\nratings_to = "{url}"\n',
            encoding="utf-8",
        )
        r = _skrafl("nightly", config, "--date", "2025-08-11")
        assert r.returncode == 2, r.stderr
        _assert_hidden(password, r.stderr, r.stdout)
        logs = sorted((work / "logs").glob("*.json")) if (work / "logs").exists() else []
        if meant:
            assert "step replay" in r.stderr and "nosuchdb" in r.stderr, r.stderr
            assert [p.name for p in logs] == ["2025-08-11.json"]
            text = logs[0].read_text(encoding="utf-8")
            _assert_hidden(password, text, json.dumps(json.loads(text), ensure_ascii=True))
        else:
            assert r.stderr.startswith(f"{config}:4:") or f"{config}:4:" in r.stderr, r.stderr
            assert not logs
    assert not any((tmp_path / n).exists() for n in ("d0", "e0", "r0"))


@pytest.mark.slow
def test_pgpassword_never_shown(server, tmp_path):
    secret = "Env/Pa@ss#w0rd"
    env = {**os.environ, "PGHOST": str(server.sock), "PGUSER": "spy", "PGPASSWORD": secret, "PGDATABASE": "nosuchdb"}
    r = _skrafl("elo", "--games", "postgresql://", "--out", tmp_path / "f", env=env)
    assert r.returncode == 2
    _assert_hidden(secret, r.stderr)


@pytest.mark.parametrize("password", ["Pa#ss-w0rd", "Pa%40ss%2Fw0rd"])
def test_nightly_hides_a_url_a_library_quoted(tmp_path, monkeypatch, password):
    """Whatever a library's error quotes (a Dask or driver message naming the URL as given), the
    nightly's stderr line and run log hold no credential."""
    from lexicon_helpers import make_lexicon

    import pipelines.replay.jobs as jobs
    from pipelines.nightly import StepFailed, run_nightly

    url = f"postgresql://spy:{password}@db.example/netskrafl"

    def boom(*args, **kwargs):
        raise RuntimeError(f'could not reach {url} (role "spy", password {password})')

    monkeypatch.setattr(jobs, "run_replay_dataset", boom)
    work = tmp_path / "work"
    make_lexicon(work / "lex", ["létta", "árum"])
    config = work / "nightly.toml"
    config.write_text(
        f'[lexicon]\npath = "lex"\n[games]\nsource = "{url}"\n[replay]\ndataset = "data/replay"\n'
        f'[elo]\nout = "data/elo"\nratings_to = "{url}"\n',
        encoding="utf-8",
    )
    with pytest.raises(StepFailed) as failed:
        run_nightly(config, __import__("datetime").date(2025, 8, 11))
    text = (work / "logs" / "2025-08-11.json").read_text(encoding="utf-8")
    assert "internal error (RuntimeError: could not reach postgresql://db.example/netskrafl" in str(failed.value)
    _assert_hidden(password, str(failed.value), text)
