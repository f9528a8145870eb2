"""PostgreSQL as a source of games and a sink of ratings, in Netskrafl's own schema (psycopg 3).

Netskrafl (mideind/Netskrafl ``src/db/postgresql/models.py``) keeps its games in a table
``games``: ``id, player0_id, player1_id, locale, irack0, irack1, score0, score1, robot_level,
over, timestamp, ts_last_move, moves`` (JSONB list of ``{coord, tiles, score, rack, timestamp}``,
the players alternating from player 0) and ``prefs`` (JSONB: ``manual`` = competition mode,
``newbag``, ``board_type``…), scanned nightly by ``over, ts_last_move`` (index
``ix_games_over_ts``). :data:`NETSKRAFL_SCHEMA` is that table (for tests and loading).

- :class:`GameSource`: the finished games (``over``) whose ``ts_last_move`` falls in a window of
  UTC days, in the nightly order (``ts_last_move, id``), read through a server-side cursor (a
  named cursor: rows stream, the client never holds the table) as Netskrafl JSON records
  ``(name, record)`` for :mod:`pipelines.replay` (``name`` = ``postgresql:games/ID``).
- :func:`games_frame`: the games table for ``skrafl elo --games postgresql://…``
  (``player0``/``player1`` = the player ids; a seat without a player id is the robot
  ``robot-LEVEL``).
- :class:`RatingsWriter` (``elo --ratings-to``): the ratings of one elo
  output stored into a table (default ``skrafl_ratings``), in one transaction that first deletes
  the rows of the same day, so a rerun of a day writes the same rows; the writer commits just
  before the output folder is swapped in and takes the rows back if the swap fails.

Credentials come from the URL, the ``PG*`` variables or ``~/.pgpass`` (libpq reads them); they are
never shown: every message names the database by :func:`redact` (no password, no user), and a
driver's error text has the password removed. Queries bind their parameters; a table name is
quoted as an identifier.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
from pathlib import Path
from typing import Any, Iterator

from gamecore.errors import DataError, UsageError
from pipelines.ratings_schema import RATINGS_COLUMNS

NETSKRAFL_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id VARCHAR PRIMARY KEY,
    player0_id VARCHAR NULL,
    player1_id VARCHAR NULL,
    locale VARCHAR NULL,
    irack0 VARCHAR NULL,
    irack1 VARCHAR NULL,
    score0 INTEGER NOT NULL DEFAULT 0,
    score1 INTEGER NOT NULL DEFAULT 0,
    robot_level INTEGER NOT NULL DEFAULT 0,
    over BOOLEAN NOT NULL DEFAULT FALSE,
    timestamp TIMESTAMP NOT NULL,
    ts_last_move TIMESTAMP NULL,
    moves JSONB NOT NULL DEFAULT '[]'::jsonb,
    prefs JSONB NULL
);
CREATE INDEX IF NOT EXISTS ix_games_over_ts ON games (over, ts_last_move);
"""
"""Netskrafl's ``games`` table (timestamps are UTC without a zone, as Netskrafl stores them)."""

RATINGS_TABLE = "skrafl_ratings"
_SCHEMES = ("postgresql", "postgres")


def is_url(text: Any) -> bool:
    """Whether ``text`` is a PostgreSQL URL (``postgresql://…`` or ``postgres://…``): the one
    check every command uses (replay's and elo's inputs, ``--ratings-to``, the nightly config)."""
    return isinstance(text, str) and "://" in text and text.split("://", 1)[0].lower() in _SCHEMES


def check_url(url: str) -> str:
    """Refuse what is not a PostgreSQL URL, or one libpq would read otherwise than it was meant
    (:func:`url_problem`): a usage error, the URL shown without credentials."""
    problem = url_problem(url)
    if problem:
        raise UsageError(f"{redact(url)}: {problem}")
    _driver()
    return url


def url_problem(url: Any) -> str | None:
    """What is wrong with a PostgreSQL URL, or None. Besides not being one: a user or password
    holding an unencoded ``/`` or ``@``. libpq ends the user and password at the *first* ``@``
    before any ``/`` (``conninfo_uri_parse_options``), so ``postgresql://u:p@ss@host/db`` is the
    password ``p`` on the host ``ss@host``, and ``postgresql://u:pa/ss@host/db`` no password at
    all but the host ``u``, port ``pa`` and database ``ss@host/db``: a piece of the password
    would be sent as a host name and shown in the driver's errors. Refused instead, with how to
    write it (``#``, ``?`` and ``:`` in a password are read as meant)."""
    if not is_url(url):
        return "expected a PostgreSQL URL postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DB"
    if _ambiguous(url.split("://", 1)[1]):
        return (
            "the user or password holds an unencoded '/' or '@', which libpq reads as the end of the "
            "password or of the host: percent-encode them ('/' as %2F, '@' as %40)"
        )
    return None


def _ambiguous(rest: str) -> bool:
    """Whether a URL (``rest``: after ``scheme://``) holds an ``@`` beyond the user and password
    libpq reads: in the host, port or database (none holds one), or in a query that is not
    ``KEY=VALUE&…`` of libpq's keys. Then the password held an ``@`` or a ``/``."""
    after = _libpq_userinfo(rest)[1]
    head, _, query = after.partition("?")
    if "@" in head:
        return True
    return "@" in query and not all(_QUERY_PAIR.fullmatch(pair) for pair in query.split("&"))


def _libpq_userinfo(rest: str) -> tuple[str | None, str]:
    """The URL after ``scheme://`` split as libpq splits it: ``(userinfo or None, the rest)``;
    the user and password end at the first ``@`` met before any ``/``."""
    for i, ch in enumerate(rest):
        if ch == "@":
            return rest[:i], rest[i + 1 :]
        if ch == "/":
            break
    return None, rest


#: The connection parameters whose values are credentials (or name where they are kept): never
#: shown, in a URL's query or a ``key=value`` connection string.
_SECRET_KEYS = ("password", "sslpassword", "user", "passfile", "scram_client_key", "scram_server_key")

#: libpq's connection parameters (a URL's query is ``?KEY=VALUE&KEY=VALUE``): a secret value runs
#: on to the next ``&KEY=`` of one of these, so a password holding a raw ``&`` is hidden whole.
_LIBPQ_KEYS = (
    "host hostaddr port dbname user password passfile require_auth channel_binding connect_timeout "
    "client_encoding options application_name fallback_application_name keepalives keepalives_idle "
    "keepalives_interval keepalives_count tcp_user_timeout replication gssencmode sslmode sslnegotiation "
    "requiressl sslcompression sslcert sslkey sslkeylogfile sslpassword sslcertmode sslrootcert sslcrl "
    "sslcrldir sslsni requirepeer ssl_min_protocol_version ssl_max_protocol_version min_protocol_version "
    "max_protocol_version krbsrvname gsslib gssdelegation service target_session_attrs load_balance_hosts "
    "scram_client_key scram_server_key"
).split()
_QUERY_SECRET = re.compile(
    r"(?i)([?&](?:" + "|".join(_SECRET_KEYS) + r")=)(.*?)(?=&(?:" + "|".join(_LIBPQ_KEYS) + r")=|$)", re.DOTALL
)
_QUERY_PAIR = re.compile(r"(?i)(?:" + "|".join(_LIBPQ_KEYS) + r")=[^&]*")
_KEYWORD_SECRET = re.compile(r"(?i)(?<![\w.])((?:" + "|".join(_SECRET_KEYS) + r")\s*=\s*)('(?:\\.|[^'\\])*'?|\S*)")


def redact(url: Any) -> str:
    """``url`` as it may be shown: without its user and password, whatever its shape.

    A URL loses its user and password as libpq reads them (:func:`_libpq_userinfo`), or, when a
    password holds an unencoded ``@`` or ``/`` (:func:`url_problem`), everything up to the *last*
    ``@``: nothing of such a password is shown either; and it loses the values of ``password``, ``user``, ``sslpassword``, ``passfile`` in its
    query; a ``key=value`` connection string (``host=h password=x``) the values of those keys,
    quoted or not. ``postgresql://u:p/w@host/db?sslmode=off`` → ``postgresql://host/db?sslmode=off``."""
    text = str(url)
    if is_url(text):
        scheme, rest = text.split("://", 1)
        rest = rest[rest.rindex("@") + 1 :] if _ambiguous(rest) else _libpq_userinfo(rest)[1]
        return f"{scheme}://" + _QUERY_SECRET.sub(lambda m: m.group(1) + "***", rest)
    return _KEYWORD_SECRET.sub(lambda m: m.group(1) + "***", text)


def _unquote_keyword(value: str) -> str:
    if value.startswith("'"):
        value = value[1:-1] if value.endswith("'") and len(value) > 1 else value[1:]
        value = re.sub(r"\\(.)", r"\1", value)
    return value


def _credentials(url: str) -> tuple[list[str], list[str], list[str]]:
    """The passwords, the pieces of passwords and the users ``url`` holds, in every form they may
    be quoted in: as written, percent-decoded and percent-encoded; read as libpq reads them
    (:func:`_libpq_userinfo`) and as meant (up to the last ``@``); the pieces are those libpq
    would read as a host, port or database of a password holding ``/`` or ``@``."""
    from urllib.parse import quote, unquote

    passwords: list[str] = []
    pieces: list[str] = []
    users: list[str] = []
    text = str(url)
    if is_url(text):
        rest = text.split("://", 1)[1]
        libpq = _libpq_userinfo(rest)[0]
        meant = rest[: rest.rindex("@")] if _ambiguous(rest) else libpq
        for userinfo, found in ((meant, passwords), (libpq, pieces)):
            if userinfo is not None:
                user, _, password = userinfo.partition(":")
                users.append(user)
                found.append(password)
        if meant and meant != libpq:
            pieces += re.split(r"[/@?#:&=]", meant.partition(":")[2])
        for m in _QUERY_SECRET.finditer(rest):
            (users if m.group(1)[1:-1].lower() == "user" else passwords).append(m.group(2))
    else:
        for m in _KEYWORD_SECRET.finditer(text):
            key = m.group(1).split("=")[0].strip().lower()
            (users if key == "user" else passwords).append(_unquote_keyword(m.group(2)))
    if os.environ.get("PGPASSWORD"):
        passwords.append(os.environ["PGPASSWORD"])
    if os.environ.get("PGUSER"):
        users.append(os.environ["PGUSER"])

    def forms(values: list[str]) -> list[str]:
        out = {f for v in values for f in (v, unquote(v), quote(v, safe=""), quote(unquote(v), safe="")) if f}
        return sorted(out, key=len, reverse=True)

    return forms(passwords), [p for p in forms(pieces) if len(p) >= 3], forms(users)


def hide_credentials(text: str, url: str) -> str:
    """``text`` (any message or log text) without the credentials of ``url``: the URL shown as
    :func:`redact` shows it, every form of its password ``***``, its user where quoted."""
    text = text.replace(str(url), redact(url))
    passwords, pieces, users = _credentials(url)
    for secret in passwords + pieces:
        text = text.replace(secret, "***")
    for user in users:  # the server names the role it refused: "role "x" does not exist", "user "x""
        text = text.replace(f'"{user}"', '"***"')
    return text


def _scrub(message: str, url: str) -> str:
    """A driver's error text without the credentials of ``url`` (and ``PGPASSWORD``): the URL
    itself shown as :func:`redact` shows it, every form of its password replaced by ``***`` (a
    piece of 3 characters or more that libpq read as a host, port or database too), the user
    where the server names it (``role "x" does not exist``)."""
    return " ".join(hide_credentials(message, url).split())[:300]


def _driver():
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise UsageError("PostgreSQL needs the driver psycopg 3: pip install 'skrafl[postgres]'") from None
    return psycopg


def connect(url: str, **kwargs):
    """A psycopg connection; a failure is one :class:`DataError` without credentials."""
    psycopg = _driver()
    try:
        return psycopg.connect(url, **kwargs)
    except psycopg.Error as exc:
        raise DataError(f"cannot connect to PostgreSQL {redact(url)}: {_scrub(str(exc), url)}") from None


class _Guard:
    """Turn a driver error inside the block into a :class:`DataError` without credentials."""

    def __init__(self, url: str, what: str):
        self.url, self.what = url, what

    def __enter__(self):
        return self

    def __exit__(self, typ, exc, tb):
        psycopg = _driver()
        if exc is not None and isinstance(exc, psycopg.Error):
            raise DataError(f"PostgreSQL {redact(self.url)}: {self.what}: {_scrub(str(exc), self.url)}") from None
        return False


# ---------------------------------------------------------------------------------------------
# games


def _utc(value) -> dt.datetime | None:
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.timezone.utc)
    return value.astimezone(dt.timezone.utc)


def _window(since: dt.date | None, until: dt.date | None) -> tuple[str, dict]:
    where = ["over"]
    params: dict[str, Any] = {}
    if since is not None:
        where.append("ts_last_move >= %(lo)s")
        params["lo"] = dt.datetime.combine(since, dt.time())
    if until is not None:
        where.append("ts_last_move < %(hi)s")
        params["hi"] = dt.datetime.combine(until + dt.timedelta(days=1), dt.time())
    return " AND ".join(where), params


_GAME_FIELDS = "id, player0_id, player1_id, locale, irack0, irack1, score0, score1, robot_level, ts_last_move, moves, prefs"


def record_of(row: tuple) -> tuple[str, dict]:
    """A ``games`` row as ``(name, Netskrafl JSON record)`` (docs/NETSKRAFL.md: the players alternate
    from player 0; a seat without a player id is a robot)."""
    gid, p0, p1, locale, irack0, irack1, score0, score1, robot_level, ts, moves, prefs = row
    if isinstance(moves, str):
        moves = json.loads(moves)
    if isinstance(prefs, str):
        prefs = json.loads(prefs)
    prefs = prefs or {}
    record: dict[str, Any] = {
        "game_id": str(gid),
        "ts_last_move": utc.isoformat() if (utc := _utc(ts)) is not None else None,
        "locale": locale,
        "prefs": prefs,
        "manual": bool(prefs.get("manual", False)),
        "irack0": irack0,
        "irack1": irack1,
        "moves": [
            {
                "player": i % 2,
                "coord": m.get("coord", ""),
                "tiles": m.get("tiles", ""),
                "score": m.get("score", 0),
                "rack": m.get("rack", ""),
            }
            for i, m in enumerate(moves or [])
        ],
        "score0": score0,
        "score1": score1,
    }
    if record["ts_last_move"] is None:
        del record["ts_last_move"]
    for seat, pid in ((0, p0), (1, p1)):
        if pid is None:
            record[f"robot{seat}"] = True
    return f"postgresql:games/{gid}", record


class GameSource:
    """The finished games of a Netskrafl database in a window of UTC days (both included)."""

    def __init__(self, url: str, since: dt.date | None = None, until: dt.date | None = None):
        check_url(url)
        self.url, self.since, self.until = url, since, until
        self.shown = redact(url)

    def count(self) -> int:
        where, params = _window(self.since, self.until)
        with connect(self.url) as conn, _Guard(self.url, "counting games"):
            return conn.execute(f"SELECT count(*) FROM games WHERE {where}", params).fetchone()[0]

    def items(self) -> Iterator[tuple[str, dict]]:
        """Every game as ``(name, record)``, in ``ts_last_move, id`` order, through a server-side
        cursor (``itersize`` rows at a time)."""
        where, params = _window(self.since, self.until)
        with connect(self.url) as conn, _Guard(self.url, "reading games"):
            with conn.transaction(), conn.cursor(name="skrafl_games") as cur:
                cur.itersize = 500
                cur.execute(f"SELECT {_GAME_FIELDS} FROM games WHERE {where} ORDER BY ts_last_move, id", params)
                for row in cur:
                    yield record_of(row)

    def __repr__(self) -> str:  # shown by Dask and in tracebacks: never the credentials
        return f"GameSource({self.shown!r}, since={self.since}, until={self.until})"

    def id_batches(self, size: int) -> Iterator[list[str]]:
        """The ids of the window's games in order, ``size`` at a time (a cluster's tasks)."""
        where, params = _window(self.since, self.until)
        batch: list[str] = []
        with connect(self.url) as conn, _Guard(self.url, "listing games"):
            with conn.transaction(), conn.cursor(name="skrafl_game_ids") as cur:
                cur.itersize = 10000
                cur.execute(f"SELECT id FROM games WHERE {where} ORDER BY ts_last_move, id", params)
                for (gid,) in cur:
                    batch.append(gid)
                    if len(batch) == size:
                        yield batch
                        batch = []
        if batch:
            yield batch

    def records(self, ids: list[str]) -> list[tuple[str, dict]]:
        """The games ``ids`` as ``(name, record)``, in the order of ``ids`` (what a cluster task
        reads: each worker queries its own batch)."""
        with connect(self.url) as conn, _Guard(self.url, "reading games"):
            rows = conn.execute(f"SELECT {_GAME_FIELDS} FROM games WHERE id = ANY(%s)", (list(ids),)).fetchall()
        by_id = {str(r[0]): record_of(r) for r in rows}
        return [by_id[str(i)] for i in ids if str(i) in by_id]

    def runs(self, size: int = 64) -> Iterator[list[tuple[str, dict]]]:
        run: list = []
        for item in self.items():
            run.append(item)
            if len(run) == size:
                yield run
                run = []
        if run:
            yield run


#: Netskrafl locale → the language whose built lexicon checks its words (``is_IS`` → ``is``); the
#: games table is Icelandic unless a locale says otherwise (an empty or NULL locale is ``is``).
LOCALE_LANGUAGES = {"is": "is", "en": "en", "nb": "nb", "no": "nb", "ru": "ru", "sl": "sl"}


def _output_root() -> Path:
    """As the CLI's output root (``cli.common.output_root``; pipelines do not import cli)."""
    env = os.environ.get("SKRAFL_OUTPUT")
    if env:
        return Path(env)
    checkout = Path(__file__).resolve().parents[1] / "output"
    return checkout if checkout.is_dir() else Path("output")


def locales(url: str, since: dt.date | None = None, until: dt.date | None = None) -> list[str]:
    """The distinct locales of the finished games in the window (``""`` for none), sorted."""
    check_url(url)
    where, params = _window(since, until)
    with connect(url) as conn, _Guard(url, "reading locales"):
        rows = conn.execute(f"SELECT DISTINCT COALESCE(locale, '') FROM games WHERE {where}", params).fetchall()
    return sorted(r[0] for r in rows)


def lexicon_named(
    url: str, since: dt.date | None = None, until: dt.date | None = None, root: Path | None = None
) -> tuple[str | None, str]:
    """The built lexicon that checks the words of a Netskrafl database's games, as
    ``replay`` guesses one for files (a Netskrafl record names ``is``): the language of the
    window's locales (:data:`LOCALE_LANGUAGES`; no locale = Icelandic) when they name one and
    ``ROOT/LANG`` is built: ``(folder, note)``; else ``(None, note)``, the note saying once that
    words are not checked and why. ``root``: the output root (default ``$SKRAFL_OUTPUT`` or the
    checkout's ``output``)."""
    root = Path(root) if root is not None else _output_root()
    found = locales(url, since, until)
    langs = {LOCALE_LANGUAGES.get((loc or "is").replace("-", "_").split("_")[0].lower()) for loc in found or [""]}
    unchecked = "words are not checked (no --lang/--lexicon"
    if len(langs) != 1 or None in langs:
        shown = ", ".join(loc or "(none)" for loc in found)
        return (
            None,
            f"{unchecked}, and the games' locales {shown} do not name one language whose lexicon is built; add --no-lexicon to silence this)",
        )
    lang = next(iter(langs))
    assert lang is not None  # (None is refused above)
    candidate = root / lang
    if not (candidate / "manifest.json").is_file():
        return (
            None,
            f"{unchecked}; the games' locale names {lang!r}, whose lexicon {candidate} is not built: skrafl ingest {lang} && skrafl build {lang})",
        )
    return str(candidate), f"words checked with {candidate} (the lexicon the games' locale names; --no-lexicon to skip)"


def games_frame(url: str, since: dt.date | None = None, until: dt.date | None = None):
    """The finished games of a Netskrafl database as ``(frame, extras)`` for ``skrafl elo``:
    ``frame`` has the games-table columns (:data:`pipelines.elo.games.GAME_COLUMNS`; scores as
    stored, player ids as names, a seat without one ``robot-LEVEL``), ``extras`` the optional
    columns ``row, locale, moves, players, finished`` (``moves``: the length of the moves list,
    Netskrafl's ``num_moves``). Validated by :func:`pipelines.elo.games.read_games`."""
    import polars as pl

    check_url(url)
    where, params = _window(since, until)
    cols: dict[str, list] = {
        k: [] for k in ("game_id", "finished_at", "player0", "player1", "robot0", "robot1", "score0", "score1", "competition")
    }
    locales: list[str] = []
    moves: list[int] = []
    with connect(url) as conn, _Guard(url, "reading games"):
        with conn.transaction(), conn.cursor(name="skrafl_elo_games") as cur:
            cur.itersize = 5000
            cur.execute(
                f"SELECT id, ts_last_move, player0_id, player1_id, robot_level, score0, score1, prefs, locale, jsonb_array_length(moves) "
                f"FROM games WHERE {where} ORDER BY ts_last_move, id",
                params,
            )
            for gid, ts, p0, p1, level, s0, s1, prefs, locale, n_moves in cur:
                locales.append(locale or "")
                moves.append(n_moves)
                if isinstance(prefs, str):
                    prefs = json.loads(prefs)
                cols["game_id"].append(str(gid))
                cols["finished_at"].append(_utc(ts))
                cols["player0"].append(str(p0) if p0 is not None else f"robot-{level}")
                cols["player1"].append(str(p1) if p1 is not None else f"robot-{level}")
                cols["robot0"].append(p0 is None)
                cols["robot1"].append(p1 is None)
                cols["score0"].append(s0)
                cols["score1"].append(s1)
                cols["competition"].append(bool((prefs or {}).get("manual", False)))
    frame = pl.DataFrame(
        cols,
        schema={
            "game_id": pl.String,
            "finished_at": pl.Datetime("us", "UTC"),
            "player0": pl.String,
            "player1": pl.String,
            "robot0": pl.Boolean,
            "robot1": pl.Boolean,
            "score0": pl.Int64,
            "score1": pl.Int64,
            "competition": pl.Boolean,
        },
    )
    n = frame.height
    extras = pl.DataFrame(
        {
            "row": pl.int_range(1, n + 1, eager=True, dtype=pl.Int64),
            "locale": pl.Series(locales, dtype=pl.String),
            "moves": pl.Series(moves, dtype=pl.Int64),
            "players": pl.Series([2] * n, dtype=pl.Int64),
            "finished": pl.Series([True] * n, dtype=pl.Boolean),
        }
    )
    return frame, extras


def _seat(pid: Any, level: Any) -> tuple[str, bool]:
    """A seat's identity as :func:`games_frame` names it: the player id, or ``robot-LEVEL``."""
    return (str(pid), False) if pid is not None else (f"robot-{level}", True)


def player_ids(url: str, game_ids: list[str]) -> dict[str, tuple[str, str, bool, bool]]:
    """The players of the games ``game_ids`` in a Netskrafl database: game id → ``(player0,
    player1, robot0, robot1)``, named as :func:`games_frame` names them (what a replayed
    Netskrafl record lacks: its record format has no player ids). Games not in the table are
    left out."""
    check_url(url)
    out: dict[str, tuple[str, str, bool, bool]] = {}
    if not game_ids:
        return out
    with connect(url) as conn, _Guard(url, "reading player ids"):
        for i in range(0, len(game_ids), 10000):
            rows = conn.execute(
                "SELECT id, player0_id, player1_id, robot_level FROM games WHERE id = ANY(%s)", (list(game_ids[i : i + 10000]),)
            ).fetchall()
            for gid, p0, p1, level in rows:
                (n0, r0), (n1, r1) = _seat(p0, level), _seat(p1, level)
                out[str(gid)] = (n0, n1, r0, r1)
    return out


def load_records(url: str, records: list[dict], players: dict[str, tuple[str | None, str | None]] | None = None) -> int:
    """Insert Netskrafl JSON records into the ``games`` table (created if missing), as Netskrafl
    stores them (``over`` true; moves without ``player``). ``players``: game id → the two player
    ids (default ``user-a``/``user-b``). For tests and benchmarks. Returns the rows inserted."""
    from psycopg.types.json import Jsonb

    players = players or {}
    with connect(url) as conn, _Guard(url, "loading games"):
        conn.execute(NETSKRAFL_SCHEMA)
        with conn.cursor() as cur:
            for r in records:
                ts = dt.datetime.fromisoformat(r["ts_last_move"]).astimezone(dt.timezone.utc).replace(tzinfo=None)
                p0, p1 = players.get(r["game_id"], ("user-a", "user-b"))
                moves = [
                    {"coord": m["coord"], "tiles": m["tiles"], "score": m["score"], "rack": m.get("rack", ""), "timestamp": None}
                    for m in r["moves"]
                ]
                cur.execute(
                    "INSERT INTO games (id, player0_id, player1_id, locale, irack0, irack1, score0, score1, robot_level, over, timestamp, ts_last_move, moves, prefs) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, TRUE, %s, %s, %s, %s)",
                    (
                        r["game_id"],
                        p0,
                        p1,
                        r.get("locale"),
                        r.get("irack0"),
                        r.get("irack1"),
                        r["score0"],
                        r["score1"],
                        0 if p0 and p1 else 1,
                        ts,
                        ts,
                        Jsonb(moves),
                        Jsonb(r.get("prefs") or {}),
                    ),
                )
    return len(records)


# ---------------------------------------------------------------------------------------------
# ratings


def _ratings_of(folder: Path) -> tuple[dt.date, list[tuple]]:
    """The day and the rows (``day`` + :data:`RATINGS_COLUMNS`) an elo output folder stores:
    its ``ratings.parquet``; the day is the report day (``--date``), else the ``as_of`` day."""
    import polars as pl

    meta = json.loads((folder / "params.json").read_text(encoding="utf-8"))
    ratings = pl.read_parquet(folder / "ratings.parquet")
    if "locale" not in ratings.columns:  # one locale, as an elo output of an older skrafl
        ratings = ratings.with_columns(pl.lit("", dtype=pl.String).alias("locale"))
    ratings = ratings.with_columns(pl.col("locale").fill_null(""))
    day_text = meta.get("report_day") or (str(meta.get("as_of"))[:10] if meta.get("as_of") else None)
    day = dt.date.fromisoformat(day_text) if day_text else dt.date(1970, 1, 1)
    return day, [(day, *[r[c] for c in RATINGS_COLUMNS]) for r in ratings.select(RATINGS_COLUMNS).iter_rows(named=True)]


def check_table_name(name: str | None) -> str:
    """The ratings table's name (default :data:`RATINGS_TABLE`); a :class:`UsageError` for one
    that is not ``[schema.]table`` of letters, digits and ``_``."""
    name = name or RATINGS_TABLE
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?", name):
        raise UsageError(f"--table {name!r}: expected a table name (letters, digits, _; optionally schema.table)")
    return name


_RATING_FIELDS = "day, list, locale, player, robot, rating, games, wins, losses, draws, score_for, score_against, as_of"


class RatingsWriter:
    """``elo --ratings-to``, kept in step with the output folder (:func:`pipelines.elo.run_elo`).

    The order, so that neither the folder nor the table is left ahead of the other:

    1. ``__init__`` (before any work): the URL and table name checked and the connection made, so
       an unreachable server fails the run before anything is rated or written.
    2. :meth:`store` (the files are written into the output's stage, not yet swapped in): one
       transaction creates the table if missing, reads the day's present rows (kept in memory
       for :meth:`undo`), deletes them, copies the new rows and **commits**. A failure here
       raises, and the stage is thrown away: the folder and the table both stay as they were.
    3. The caller swaps the output in (:func:`pipelines.atomic.output_dir`). Should that fail
       after the commit (a full disk writing the marker, a stop recorded just before the swap),
       :meth:`undo` puts the day's previous rows back in a new transaction.

    The table is committed first because a table ahead of the folder heals itself: the day is
    not rated in the folder, so the next run rates it again and rewrites the same day's rows;
    a folder ahead of the table would count the day as rated and never store it. (The one
    window left is a connection lost after COMMIT was sent and before the ``undo``: then the
    table holds that day's ratings and the folder not; the next run of the day rewrites them.)
    """

    def __init__(self, url: str, table_name: str | None = None):
        check_url(url)
        self.url = url
        self.name = check_table_name(table_name)
        self.conn = connect(url)
        self.previous: list[tuple] | None = None  # the day's rows before store() (for undo)
        self.day: dt.date | None = None

    def store(self, folder: Path) -> str:
        """Store the ratings of the elo output (or stage) ``folder``: one committed transaction
        replacing the rows of its day. Returns a note for the CLI."""
        from psycopg import sql

        day, rows = _ratings_of(Path(folder))
        ident = sql.Identifier(*self.name.split("."))
        conn = self.conn
        with _Guard(self.url, f"writing ratings into {self.name}"):
            try:
                conn.execute(
                    sql.SQL(
                        "CREATE TABLE IF NOT EXISTS {} (day DATE NOT NULL, list TEXT NOT NULL, locale TEXT NOT NULL DEFAULT '', player TEXT NOT NULL, "
                        "robot BOOLEAN NOT NULL, rating INTEGER NOT NULL, games INTEGER NOT NULL, wins INTEGER NOT NULL, losses INTEGER NOT NULL, "
                        "draws INTEGER NOT NULL, score_for BIGINT NOT NULL, score_against BIGINT NOT NULL, as_of TIMESTAMPTZ NULL, "
                        "PRIMARY KEY (day, list, locale, player))"
                    ).format(ident)
                )
                previous = conn.execute(
                    sql.SQL("SELECT " + _RATING_FIELDS + " FROM {} WHERE day = %s FOR UPDATE").format(ident), (day,)
                ).fetchall()
                conn.execute(sql.SQL("DELETE FROM {} WHERE day = %s").format(ident), (day,))
                self._copy(ident, rows)
                conn.commit()
            except BaseException:
                with contextlib.suppress(Exception):
                    conn.rollback()
                raise
        self.previous, self.day = previous, day
        return f"{len(rows)} ratings of {day.isoformat()} stored into {self.name} at {redact(self.url)}"

    def _copy(self, ident, rows: list[tuple]) -> None:
        from psycopg import sql

        with self.conn.cursor() as cur:
            with cur.copy(sql.SQL("COPY {} (" + _RATING_FIELDS + ") FROM STDIN").format(ident)) as copy:
                for row in rows:
                    copy.write_row(row)

    def undo(self) -> None:
        """Put back the rows of the day :meth:`store` replaced (the output was not swapped in).
        Raises :class:`DataError` when the database cannot be reached."""
        if self.previous is None:
            return
        from psycopg import sql

        ident = sql.Identifier(*self.name.split("."))
        with _Guard(self.url, f"taking back the ratings of {self.day} in {self.name}"):
            try:
                self.conn.execute(sql.SQL("DELETE FROM {} WHERE day = %s").format(ident), (self.day,))
                self._copy(ident, self.previous)
                self.conn.commit()
            except BaseException:
                with contextlib.suppress(Exception):
                    self.conn.rollback()
                raise
        self.previous = None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
