"""A throw-away PostgreSQL server for tests: ``initdb`` into a temporary folder and ``pg_ctl``,
run as the ``postgres`` user when the tests run as root (the server refuses root), listening on
a Unix socket in that folder only (no TCP). Skips cleanly only when no PostgreSQL binaries exist."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path


def find_bindir() -> str | None:
    """The folder of ``initdb`` and ``pg_ctl`` (PATH, then Debian's /usr/lib/postgresql/N/bin)."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return str(Path(on_path).parent)
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.access(os.path.join(candidate, "initdb"), os.X_OK) and os.access(os.path.join(candidate, "pg_ctl"), os.X_OK):
            return candidate
    return None


def unavailable() -> str | None:
    """Why no server can be started here (None when one can)."""
    if find_bindir() is None:
        return "no PostgreSQL binaries (initdb, pg_ctl)"
    if os.geteuid() == 0:
        import pwd

        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and no 'postgres' user to run the server as"
        if shutil.which("runuser") is None:
            return "running as root and no runuser to start the server as 'postgres'"
    return None


class PgServer:
    def __init__(self, bindir: str):
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="skrafl-pg-"))
        self.data = self.root / "data"
        self.sock = self.root
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
        os.chmod(self.root, 0o755)

    def _run(self, *args: str) -> subprocess.CompletedProcess:
        cmd = list(args)
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True)

    def start(self) -> "PgServer":
        self._run(
            f"{self.bindir}/initdb",
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8" if self._has_c_utf8() else "--no-locale",
        )
        opts = f"-c listen_addresses='' -c unix_socket_directories='{self.sock}' -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run(
            f"{self.bindir}/pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"), "-w", "-t", "60", "start"
        )
        return self

    @staticmethod
    def _has_c_utf8() -> bool:
        return True

    def url(self, db: str = "postgres", user: str = "postgres", password: str | None = None) -> str:
        auth = f"{user}:{password}@" if password else f"{user}@"
        return f"postgresql://{auth}/{db}?host={self.sock}"

    def createdb(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run(f"{self.bindir}/pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        except (subprocess.SubprocessError, OSError):
            pass
        shutil.rmtree(self.root, ignore_errors=True)
