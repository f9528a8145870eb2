"""``skrafl serve`` and the thin client (start-up): a real server subprocess on a socket in
tmp_path; the ``skrafl`` console script with ``SKRAFL_SERVER`` set gives exactly what the in-process
run gives (stdout, stderr, exit status, output files), streams stdin, passes Ctrl-C on, falls back
to an in-process run when the server is absent or stale, and lets no other user in.

The server writes one line per command it ran on its stderr: that is how a test knows the command
ran there, not in the client (the result is the same either way, by design)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from clirun import PROJECT_ROOT

CLIENT = Path(sys.executable).parent / "skrafl"
POSITIONS = PROJECT_ROOT.parent / "shared" / "corpora" / "positions"
GCG = PROJECT_ROOT.parent / "shared" / "corpora" / "gcg"
IS_LEX = PROJECT_ROOT / "output" / "is"
MID1 = PROJECT_ROOT / "output" / "bench" / "mid1_b1"

pytestmark = [
    pytest.mark.slow,
    # one worker runs every served test: test_a_changed_module_file_makes_the_server_stale touches a
    # module file, which makes every running server stale (its client then runs the command itself)
    pytest.mark.xdist_group("serve"),
    pytest.mark.skipif(not CLIENT.is_file(), reason="the skrafl console script is not installed in this environment"),
    pytest.mark.skipif(not hasattr(socket, "AF_UNIX") or not Path("/proc/self").is_dir(), reason="needs Linux"),
]


class Server:
    def __init__(self, path: Path, proc: subprocess.Popen, log: Path) -> None:
        self.path, self.proc, self.log = path, proc, log

    def ran(self) -> int:
        """How many commands the server has run so far."""
        return self.log.read_text(encoding="utf-8", errors="replace").count(" ran '")


def start_server(tmp_path: Path, *args: str) -> Server:
    path = tmp_path / "skrafl.sock"
    log = tmp_path / "serve.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve", "--socket", str(path), *args],
        cwd=PROJECT_ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=open(log, "wb"),
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if "listening on" in log.read_text(encoding="utf-8", errors="replace"):
            return Server(path, proc, log)
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"the server did not start: {log.read_text(errors='replace')}")


@pytest.fixture
def server(tmp_path):
    srv = start_server(tmp_path)
    yield srv
    srv.proc.terminate()
    try:
        srv.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        srv.proc.kill()
        srv.proc.wait()


def client(*args: str, server: Server | Path | None = None, stdin: str | None = None, cwd: Path = PROJECT_ROOT, **kw):
    env = dict(os.environ)
    env.pop("SKRAFL_SERVER", None)
    if server is not None:
        env["SKRAFL_SERVER"] = str(server.path if isinstance(server, Server) else server)
    return subprocess.run([str(CLIENT), *args], cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=300, **kw)


def same_both_ways(srv: Server, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run ``args`` in the server and in-process: the same stdout, stderr and exit status, and the
    server did run it."""
    before = srv.ran()
    served = client(*args, server=srv, stdin=stdin)
    assert srv.ran() == before + 1, srv.log.read_text()
    here = client(*args, stdin=stdin)
    assert (served.returncode, served.stdout, served.stderr) == (here.returncode, here.stdout, here.stderr)
    return served


def need(*paths: Path) -> None:
    for p in paths:
        if not p.exists():
            pytest.skip(f"{p} is absent")


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --- the server itself -------------------------------------------------------------------------


def test_socket_is_private_and_the_server_has_one_thread(server):
    assert stat.S_ISSOCK(server.path.lstat().st_mode)
    assert stat.S_IMODE(server.path.lstat().st_mode) == 0o600
    assert len(os.listdir(f"/proc/{server.proc.pid}/task")) == 1
    assert "polars" not in Path(f"/proc/{server.proc.pid}/maps").read_text()


def test_refuses_a_path_that_is_not_a_stale_socket(tmp_path, server):
    (tmp_path / "file").write_text("x")
    for path in (tmp_path / "file", server.path, tmp_path / "no" / "such" / "s.sock"):
        r = subprocess.run(
            [sys.executable, "-m", "cli.main", "serve", "--socket", str(path)],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 2 and r.stderr.startswith("skrafl: error: ") and len(r.stderr.splitlines()) == 1, r.stderr
    assert (tmp_path / "file").read_text() == "x"


def test_replaces_a_stale_socket_and_removes_its_own_on_exit(tmp_path):
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(tmp_path / "skrafl.sock"))
    stale.close()  # the file stays; nobody listens
    srv = start_server(tmp_path)
    srv.proc.send_signal(signal.SIGTERM)
    assert srv.proc.wait(timeout=10) == 0
    assert not srv.path.exists()


# --- the same results --------------------------------------------------------------------------


def test_check_and_errors(server, tmp_path):
    need(IS_LEX)
    r = same_both_ways(server, "check", "--lang", "is", "hestur", "xqzv")
    assert r.returncode == 1 and r.stdout == "hestur\tVALID\nxqzv\tINVALID\n"
    r = same_both_ways(server, "check", "--lang", "nosuch", "x")  # bad input: one line, exit 2
    assert r.returncode == 2 and r.stdout == "" and r.stderr.startswith("skrafl: error: ") and len(r.stderr.splitlines()) == 1
    r = same_both_ways(server, "check", "--lexicon", str(tmp_path / "none"), "word")
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1
    r = same_both_ways(server, "check", "--lang", "is", "-", stdin="hestur\nköttur\n")
    assert r.stdout.splitlines()[0] == "hestur\tVALID"
    r = same_both_ways(server, "nosuchcommand")
    assert r.returncode == 2 and r.stderr.startswith("skrafl: error: No such command")


def test_best_score_why_on_the_riddle(server):
    """The riddle's top play is A4 ÞREKRAUN for 104 (../shared/corpora/positions/README.md)."""
    need(IS_LEX, POSITIONS / "netskrafl_riddle1.board")
    board = str(POSITIONS / "netskrafl_riddle1.board")
    r = same_both_ways(server, "best", "--lang", "is", "--board", board, "--rack", "UAENRRK", "-n", "1", "-f", "tsv")
    assert r.returncode == 0 and r.stdout.splitlines()[1].split("\t")[:3] == ["A4", "ÞREKRAUN", "104"]
    r = same_both_ways(server, "score", "--lang", "is", "--board", board, "--rack", "UAENRRK", "--play", "A4 ÞREKRAUN")
    assert r.returncode == 0 and "104" in r.stdout and "ACCEPTABLE" in r.stdout
    r = same_both_ways(server, "why", "--lang", "is", "þrekraun")
    assert r.stdout.startswith("þrekraun") and "VALID" in r.stdout


def test_best_on_a_shared_position(server, tmp_path):
    """The top play of a shared position scores the best score of its reference move list (three
    independent engines), served as in-process."""
    need(POSITIONS / "mid1.board", POSITIONS / "mid1_b1.words")
    lex = MID1
    if not (lex / "manifest.json").is_file():  # not built by the bench: the position's own list
        lex = tmp_path / "mid1_b1"
        words = str(POSITIONS / "mid1_b1.words")
        r = client("build", "en", "--source", "wordlist", "--input", words, "--out", str(lex), "-q")
        assert r.returncode == 0, r.stderr
    args = ("best", "--lexicon", str(lex), "--board", str(POSITIONS / "mid1.board"), "--rack", "AEEFHI?", "-n", "1")
    r = same_both_ways(server, *args, "-f", "tsv")
    rows = (POSITIONS / "mid1_b1.moves.tsv").read_text(encoding="utf-8").splitlines()
    column = rows[0].split("\t").index("score")
    best = max(int(line.split("\t")[column]) for line in rows[1:])
    assert r.returncode == 0 and int(r.stdout.splitlines()[1].split("\t")[2]) == best


def test_replay_writes_the_same_files(server, tmp_path):
    need(GCG)
    game = sorted(GCG.glob("*.gcg"))[0]
    out_served, out_here = tmp_path / "served", tmp_path / "here"
    before = server.ran()
    a = client("replay", str(game), "--out", str(out_served), "--no-lexicon", server=server)
    b = client("replay", str(game), "--out", str(out_here), "--no-lexicon")
    assert server.ran() == before + 1, (a.stderr, server.log.read_text())
    assert (a.returncode, a.stdout, a.stderr.replace(str(out_served), "OUT")) == (
        b.returncode,
        b.stdout,
        b.stderr.replace(str(out_here), "OUT"),
    )
    assert a.returncode in (0, 1)
    ta, tb = tree(out_served), tree(out_here)
    assert set(ta) == set(tb) and {"games.parquet", "moves.parquet"} <= set(ta)
    for name in ("games.parquet", "moves.parquet"):
        assert ta[name] == tb[name], name
    assert stat.S_IMODE(os.stat(out_served / "games.parquet").st_mode) == stat.S_IMODE(
        os.stat(out_here / "games.parquet").st_mode
    )


def test_cwd_and_environment_are_the_clients(server, tmp_path):
    """A relative path is the client's; SKRAFL_OUTPUT (the client's environment) chooses --lang's folder."""
    need(IS_LEX)
    (tmp_path / "w.txt").write_text("hestur\n", encoding="utf-8")
    r = client("check", "--lexicon", str(IS_LEX), "-", server=server, stdin="hestur\n", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "hestur\tVALID\n"
    env_out = tmp_path / "empty_output"
    env_out.mkdir()
    env = dict(os.environ, SKRAFL_SERVER=str(server.path), SKRAFL_OUTPUT=str(env_out))
    r = subprocess.run([str(CLIENT), "check", "--lang", "is", "hestur"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "empty_output" in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr


# --- streams and signals -----------------------------------------------------------------------


def test_stdin_is_streamed(server, tmp_path):
    """``best --board -``: line 1 is answered before line 2 is written."""
    words = tmp_path / "w.txt"
    words.write_text("cat\ncats\nact\nat\nta\n", encoding="utf-8")
    r = client("build", "en", "--source", "wordlist", "--input", str(words), "--out", str(tmp_path / "lex"), "-q", server=server)
    assert r.returncode == 0, r.stderr
    empty = "/".join(["15"] * 15)
    env = dict(os.environ, SKRAFL_SERVER=str(server.path))
    before = server.ran()
    proc = subprocess.Popen(
        [str(CLIENT), "best", "--lexicon", str(tmp_path / "lex"), "--board", "-", "-n", "1", "-f", "json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=PROJECT_ROOT,
        env=env,
    )
    try:
        for i, (rack, score) in enumerate((("CATSQXZ", 12), ("ATQXZJK", 4)), start=1):
            proc.stdin.write(f"{empty} {rack}/ 0/0 0\n")
            proc.stdin.flush()
            record = json.loads(proc.stdout.readline())
            assert record["line"] == i and record["plays"][0]["score"] == score
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
        proc.wait()
    assert server.ran() == before + 1, server.log.read_text()


def test_sigint_stops_a_long_replay(server, tmp_path):
    """Ctrl-C to the client: the command in the server stops as it would here (exit 130, one line,
    the previous output kept), and its process is gone."""
    need(GCG)
    files = sorted(GCG.glob("*.gcg"))
    many = tmp_path / "many"
    many.mkdir()
    for i in range(250):  # about 13,000 games: some seconds of replay, so the signal lands in it
        for f in files:
            shutil.copyfile(f, many / f"{i:03d}_{f.name}")  # copies: a hard link is the same game, read once
    out = tmp_path / "out"
    r = client("replay", str(files[0]), "--out", str(out), "--no-lexicon", "-q", server=server)
    assert r.returncode in (0, 1), r.stderr
    before = tree(out)
    env = dict(os.environ, SKRAFL_SERVER=str(server.path))
    proc = subprocess.Popen(
        [str(CLIENT), "replay", str(many), "--out", str(out), "--no-lexicon", "-q", "--workers", "1"],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.5)
    assert proc.poll() is None, "the replay ended before the signal: make the input bigger"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err.startswith("skrafl: ") and "stopped by SIGINT" in err and len(err.strip().splitlines()) == 1, err
    assert tree(out) == before
    time.sleep(0.5)
    assert "skrafl serve: pid" in server.log.read_text() and "exit 130" in server.log.read_text()


@pytest.fixture
def small_lexicon(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("hestur\njoint\n", encoding="utf-8")
    r = client("build", "en", "--source", "wordlist", "--input", str(words), "--out", str(tmp_path / "lex"), "-q")
    assert r.returncode == 0, r.stderr
    return tmp_path / "lex"


def wait_reading_stdin(pid: int, timeout: float = 60) -> None:
    """Until process ``pid`` waits in read(0, ...) (Linux /proc/PID/syscall: number 0, first
    argument 0): the command is past its start-up and reading standard input."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            fields = Path(f"/proc/{pid}/syscall").read_text().split()
        except OSError:
            return  # not readable here: the sleep before is all there is
        if fields[:2] == ["0", "0x0"]:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} never read its standard input")


def served_child(srv: Server, timeout: float = 60) -> int:
    """The pid of the one command process the server runs now (its child)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kids = Path(f"/proc/{srv.proc.pid}/task/{srv.proc.pid}/children").read_text().split()
        if len(kids) == 1:
            return int(kids[0])
        time.sleep(0.05)
    raise AssertionError("the server runs no command")


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_stop_of_a_served_command_is_our_stop(server, small_lexicon, signum, status):
    """SIGTERM or Ctrl-C to the client of a command with no stop handling of its own (check,
    waiting on stdin): the served command stops through skrafl's own stops, one line, as here
    (the server's own stop state is not inherited by its children)."""
    env = dict(os.environ, SKRAFL_SERVER=str(server.path))
    for served in (True, False):
        proc = subprocess.Popen(
            [str(CLIENT), "check", "--lexicon", str(small_lexicon), "-"],
            cwd=PROJECT_ROOT,
            env=env if served else {k: v for k, v in env.items() if k != "SKRAFL_SERVER"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        proc.stdin.write("hestur\n")
        proc.stdin.flush()
        time.sleep(1.0)
        # the command is past its start-up and reading stdin (a loaded machine starts slowly): the
        # client itself in-process, else the server's child running it
        wait_reading_stdin(proc.pid if not served else served_child(server))
        assert proc.poll() is None
        proc.send_signal(signum)
        # stdin stays open until the command has stopped: closing it at once could let a served
        # command see the end of its input and finish before the stop passed on by the client
        # reaches it (a stop that comes after the work is done is no stop)
        proc.wait(timeout=30)
        _, err = proc.communicate(timeout=30)
        name = signal.Signals(signum).name
        assert proc.returncode == status, (served, proc.returncode, err)
        # (check writes no output: nothing to say was discarded)
        assert err.strip().splitlines() == [f"skrafl: stopped by {name}"], (served, err)


def test_a_client_waiting_on_a_stopped_server_can_be_interrupted(server, small_lexicon):
    """A server that does not answer (stopped here with SIGSTOP; or busy): Ctrl-C ends the
    client at once with one line, and nothing is run."""
    env = dict(os.environ, SKRAFL_SERVER=str(server.path))
    server.proc.send_signal(signal.SIGSTOP)
    try:
        proc = subprocess.Popen(
            [str(CLIENT), "check", "--lexicon", str(small_lexicon), "hestur"],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(1.0)
        assert proc.poll() is None  # waiting for the server's answer
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 130
    finally:
        server.proc.send_signal(signal.SIGCONT)
    # the request sat in the stopped server's queue; the server, going on, finds the client gone
    # and runs nothing
    before = server.ran()
    out, err = proc.communicate(timeout=30)
    assert out == "" and err.strip().splitlines() == [
        "skrafl: stopped by SIGINT; nothing was changed"
    ]  # as every command says it
    time.sleep(0.5)
    assert server.ran() == before


# --- fallbacks ---------------------------------------------------------------------------------


def test_no_server_runs_in_process(tmp_path):
    need(IS_LEX)
    r = client("check", "--lang", "is", "hestur", server=tmp_path / "absent.sock")
    assert r.returncode == 0 and r.stdout == "hestur\tVALID\n" and r.stderr == ""
    (tmp_path / "plain").write_text("")
    r = client("check", "--lang", "is", "hestur", server=tmp_path / "plain")
    assert r.returncode == 0 and r.stdout == "hestur\tVALID\n" and r.stderr == ""


def test_a_changed_module_file_makes_the_server_stale(server):
    """A module file the server loaded changes (here: its mtime, put back afterwards): the client
    still gives the right answer (in-process) and the server exits, removing its socket."""
    need(IS_LEX)
    module = PROJECT_ROOT / "cli" / "serve.py"
    st = module.stat()
    try:
        os.utime(module, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        before = server.ran()
        r = client("check", "--lang", "is", "hestur", server=server)
        assert r.returncode == 0 and r.stdout == "hestur\tVALID\n" and r.stderr == ""
        assert server.ran() == before
        assert server.proc.wait(timeout=10) == 0
    finally:
        os.utime(module, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert not server.path.exists()
    assert "stale" in server.log.read_text()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (to connect as another user)")
def test_another_user_cannot_connect():
    """Even with the socket opened to everyone (chmod 0666, in a folder all may enter), another uid
    is turned away (SO_PEERCRED): the connection closes with no answer."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="skrafl-serve-"))
    os.chmod(folder, 0o755)
    srv = start_server(folder)
    try:
        os.chmod(srv.path, 0o666)
        probe = (
            "import os, socket, sys\n"
            "os.setgid(65534); os.setuid(65534)\n"
            "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
            "s.connect(sys.argv[1])\n"
            "sys.path.insert(0, sys.argv[2])\n"
            "from cli.client import encode\n"
            "try:\n"
            "    socket.send_fds(s, [encode([('argv', b'skrafl'), ('argv', b'--version')])], [0, 1, 2])\n"
            "    print(repr(s.recv(10)))\n"
            "except (BrokenPipeError, ConnectionResetError):\n"
            "    print('closed')\n"
        )
        r = subprocess.run(
            [sys.executable, "-c", probe, str(srv.path), str(PROJECT_ROOT)], capture_output=True, text=True, timeout=30
        )
        assert r.returncode == 0 and r.stdout.strip() in ("b''", "closed"), (r.stdout, r.stderr)
        assert srv.ran() == 0
    finally:
        srv.proc.terminate()
        srv.proc.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def test_the_client_imports_only_light_modules(server, tmp_path):
    probe = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import atexit, cli.client\n"
        "atexit.register(lambda: sys.stderr.write('MODULES ' + ' '.join(sorted(set(sys.modules) - before)) + '\\n'))\n"
        "sys.argv = ['skrafl', '--version']\n"
        "cli.client.main()\n"
    )
    env = dict(os.environ, SKRAFL_SERVER=str(server.path))
    before = server.ran()
    r = subprocess.run([sys.executable, "-c", probe], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("skrafl ")
    assert server.ran() == before + 1, (r.stderr, server.log.read_text())
    mods = set(r.stderr.split("MODULES ", 1)[1].split())
    assert mods <= {"cli", "cli.client", "_socket", "_signal", "atexit"}, mods


# --- a socket path too long; a server that does not answer -------------------------------------


def test_a_socket_path_too_long_is_one_line_naming_it(tmp_path):
    """A Unix socket address (Linux ``struct sockaddr_un``) holds 108 bytes with the final NUL:
    a path of 108 bytes or more is refused with one line naming it and the limit (it was
    'AF_UNIX path too long', no path)."""
    folder = Path(tempfile.mkdtemp(prefix="skrafl-serve-", dir="/tmp"))
    try:
        long = folder / ("s" * (108 - len(str(folder)) - 1))  # 108 bytes
        assert len(os.fsencode(long)) == 108
        r = subprocess.run(
            [sys.executable, "-m", "cli.main", "serve", "--socket", str(long)],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.startswith(f"skrafl: error: {long}: ") and "108 bytes" in r.stderr and "107" in r.stderr, r.stderr
        assert not long.exists()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class SilentServer:
    """A socket that accepts every connection, takes the request and never answers (a stuck
    server). The client's descriptors that came with the request are closed (a server that held
    them would keep this test's pipes from ending)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        self.sock.listen(8)
        self.conns: list[socket.socket] = []
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            try:
                _data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 8)
            except OSError:
                fds = []
            for fd in fds:
                os.close(fd)
            self.conns.append(conn)  # held open, never answered

    def close(self) -> None:
        self.sock.close()
        for conn in self.conns:
            conn.close()


def test_a_server_that_never_answers_costs_the_wait_and_the_command_runs_here(tmp_path, small_lexicon, monkeypatch):
    """A server that accepts and never answers hung every caller until it was killed (a cron
    job for ever). The wait for its first answer is bounded (SKRAFL_SERVER_TIMEOUT, here 1 s):
    the command then runs here, its own stdout, stderr and status the same as without a server,
    after one 'skrafl: note:' line."""
    silent = SilentServer(tmp_path / "silent.sock")
    try:
        args = ("check", "--lexicon", str(small_lexicon), "hestur", "xqzv")
        here = client(*args)
        t = time.monotonic()
        monkeypatch.setenv("SKRAFL_SERVER_TIMEOUT", "1")
        served = client(*args, server=silent.path)
        took = time.monotonic() - t
    finally:
        silent.close()
    assert silent.conns  # it did connect and send
    assert (served.returncode, served.stdout) == (here.returncode, here.stdout) == (1, "hestur\tVALID\nxqzv\tINVALID\n")
    note, *rest = served.stderr.splitlines(keepends=True)
    assert note.startswith(f"skrafl: note: the server {silent.path} did not answer within 1 s") and "".join(rest) == here.stderr
    assert 1 <= took < 30


def test_a_server_that_answers_after_the_wait_runs_nothing_and_a_long_command_is_not_cut(server, small_lexicon, tmp_path):
    """A stopped server (SIGSTOP) gives no answer within the wait: the command runs here; the
    server, going on, finds the client gone and runs nothing (never the command twice). A
    command the server has begun runs past the wait: only the first answer is waited for."""
    env = dict(os.environ, SKRAFL_SERVER=str(server.path), SKRAFL_SERVER_TIMEOUT="1")
    before = server.ran()
    server.proc.send_signal(signal.SIGSTOP)
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    try:  # files, not pipes: the stopped server holds the descriptors sent with the request
        with open(out, "w") as o, open(err, "w") as e:
            r = subprocess.run(
                [str(CLIENT), "check", "--lexicon", str(small_lexicon), "hestur"],
                cwd=PROJECT_ROOT,
                env=env,
                stdout=o,
                stderr=e,
                timeout=60,
            )
    finally:
        server.proc.send_signal(signal.SIGCONT)
    assert r.returncode == 0 and out.read_text() == "hestur\tVALID\n", err.read_text()
    assert err.read_text().startswith("skrafl: note: ") and len(err.read_text().splitlines()) == 1, err.read_text()
    time.sleep(2.0)  # the server takes the queued request, answers into a closed socket
    assert server.ran() == before, server.log.read_text()
    # begun in the server, a command reading its stdin for 6 s (twice the wait) is not cut (a
    # wait of 3 s here: a loaded machine may take over a second to fork and answer)
    proc = subprocess.Popen(
        [str(CLIENT), "check", "--lexicon", str(small_lexicon), "-"],
        cwd=PROJECT_ROOT,
        env=dict(env, SKRAFL_SERVER_TIMEOUT="3"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        proc.stdin.write("hestur\n")
        proc.stdin.flush()
        time.sleep(6.0)
        proc.stdin.write("joint\n")
        proc.stdin.close()
        out, err = proc.stdout.read(), proc.stderr.read()
        proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert (proc.returncode, out, err) == (0, "hestur\tVALID\njoint\tVALID\n", "")
    assert server.ran() == before + 1, server.log.read_text()
