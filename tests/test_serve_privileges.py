"""A served command acts with its caller's privileges, not the server's. The
server checked only the caller's user ID: a caller with its capabilities dropped read a 0600 file
and wrote into a 0700 folder through the server, and the caller's ``ulimit -f`` was ignored. Now
the server's child takes the caller's resource limits, groups and capabilities (read from
``/proc/PID`` of the connected process) before it opens anything by path, or refuses the caller
(which then runs the command itself). The expected results are the caller's own: the same
command run in the caller's process (no server) with the same limits and capabilities.

A malformed request is refused in one line sent back (``r`` + reason), with no traceback in the
server's log: 300 seeded mutants of a real request."""

from __future__ import annotations

import os
import random
import resource
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import PROJECT_ROOT
from test_serve import CLIENT, start_server, wait_reading_stdin

pytestmark = [
    pytest.mark.slow,
    # one worker runs every served test: test_a_changed_module_file_makes_the_server_stale touches a
    # module file, which makes every running server stale (its client then runs the command itself)
    pytest.mark.xdist_group("serve"),
    pytest.mark.skipif(not CLIENT.is_file(), reason="the skrafl console script is not installed in this environment"),
    pytest.mark.skipif(not hasattr(socket, "AF_UNIX") or not Path("/proc/self").is_dir(), reason="needs Linux"),
]

SETPRIV = shutil.which("setpriv")
ROOT_WITH_SETPRIV = pytest.mark.skipif(
    os.geteuid() != 0 or SETPRIV is None, reason="needs root and setpriv (util-linux) to drop capabilities"
)
DROP_CAPS = [SETPRIV or "setpriv", "--inh-caps=-all", "--bounding-set=-all"] if SETPRIV else []


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


def run(args, srv=None, prefix=(), preexec=None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("SKRAFL_SERVER", None)
    if srv is not None:
        env["SKRAFL_SERVER"] = str(srv.path)
    return subprocess.run(
        [*prefix, str(CLIENT), *args], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300, preexec_fn=preexec
    )


def both_ways(srv, args, prefix=(), preexec=None, clean=None):
    """The command served and in the caller's own process (``clean()`` between): (served, here)."""
    served = run(args, srv, prefix, preexec)
    if clean:
        clean()
    here = run(args, None, prefix, preexec)
    return served, here


def _lexicon(folder: Path, words: list[str]) -> Path:
    src = folder / "words.txt"
    src.write_text("\n".join(words) + "\n", encoding="utf-8")
    r = run(["build", "en", "--source", "wordlist", "--input", str(src), "--out", str(folder / "lex"), "-q"])
    assert r.returncode == 0, r.stderr
    return folder / "lex"


@ROOT_WITH_SETPRIV
def test_a_caller_without_capabilities_cannot_read_a_private_folder_through_the_server(server, tmp_path):
    """A lexicon in a 0700 folder of another user: root reads it by CAP_DAC_OVERRIDE; a caller
    with every capability dropped cannot, served or not."""
    private = tmp_path / "private"
    private.mkdir()
    lex = _lexicon(private, ["hestur", "joint"])
    os.chown(private, 12345, 12345)
    os.chmod(private, 0o700)
    args = ["check", "--lexicon", str(lex), "hestur"]
    assert run(args, server).returncode == 0  # with the capabilities: read (the server ran it)
    before = server.ran()
    served, here = both_ways(server, args, DROP_CAPS)
    assert here.returncode == 2 and "Permission denied" in here.stderr, here.stderr
    assert (served.returncode, served.stdout, served.stderr) == (here.returncode, here.stdout, here.stderr)
    assert server.ran() == before + 1, server.log.read_text()  # run there, as the caller


@ROOT_WITH_SETPRIV
def test_a_caller_without_capabilities_cannot_write_into_a_private_folder_through_the_server(server, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("hestur\njoint\n", encoding="utf-8")
    private = tmp_path / "private"
    private.mkdir()
    os.chown(private, 12345, 12345)
    os.chmod(private, 0o700)
    args = ["build", "en", "--source", "wordlist", "--input", str(words), "--out", str(private / "lex"), "-q"]
    served, here = both_ways(server, args, DROP_CAPS)
    assert here.returncode == 2 and served.returncode == 2, (served.stderr, here.stderr)
    assert served.stderr == here.stderr
    assert os.listdir(private) == []


def _one_kib_files():
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))


def test_the_callers_file_size_limit_holds_in_the_server(server, tmp_path):
    """``ulimit -f 1`` (1 KiB): a build whose words.txt is larger fails, served as in the caller,
    and leaves no output; the server's own (unlimited) limit was used before."""
    words = tmp_path / "words.txt"
    words.write_text("".join(f"word{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}{chr(97 + i // 676)}\n" for i in range(3000)))
    out = tmp_path / "lex"
    args = ["build", "en", "--source", "wordlist", "--input", str(words), "--out", str(out), "-q"]
    before = server.ran()
    served, here = both_ways(server, args, preexec=_one_kib_files, clean=lambda: shutil.rmtree(out, ignore_errors=True))
    assert server.ran() == before + 1, server.log.read_text()
    assert here.returncode == 2, here.stderr
    assert (served.returncode, served.stderr) == (here.returncode, here.stderr)
    assert not out.exists()


def test_the_callers_limits_are_the_commands(server, tmp_path):
    """The served command's own process has the caller's RLIMIT_NOFILE and RLIMIT_CORE (read from
    its /proc/PID/limits while it waits on its standard input); the server keeps its own."""
    import time

    lex = _lexicon(tmp_path, ["hestur", "joint"])

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (200, 300))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 4096))

    env = dict(os.environ, SKRAFL_SERVER=str(server.path))
    proc = subprocess.Popen(
        [str(CLIENT), "check", "--lexicon", str(lex), "-"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=limit,
        text=True,
    )
    try:
        children = Path(f"/proc/{server.proc.pid}/task/{server.proc.pid}/children")
        deadline = time.monotonic() + 60
        while not children.read_text().split() and time.monotonic() < deadline:
            time.sleep(0.02)
        child = children.read_text().split()[0]
        wait_reading_stdin(int(child))  # past the request: running the command
        limits = {line[:26].strip(): line[26:].split()[:2] for line in Path(f"/proc/{child}/limits").read_text().splitlines()}
    finally:
        out, err = proc.communicate("hestur\n", timeout=60)
    assert (proc.returncode, out) == (0, "hestur\tVALID\n"), err
    assert limits["Max open files"] == ["200", "300"]
    assert limits["Max core file size"] == ["0", "4096"]
    mine = Path(f"/proc/{server.proc.pid}/limits").read_text()
    assert "Max open files            200 " not in mine


def _request(lex: Path, cwd: Path) -> bytes:
    code = (
        "import os, sys\n"
        f"os.chdir({str(cwd)!r})\n"
        "from cli.client import build_request\n"
        f"sys.stdout.buffer.write(build_request(['skrafl', 'check', '--lexicon', {str(lex)!r}, 'hestur'])[0])\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(6)
        i = rng.randrange(len(b)) if b else 0
        if op == 0 and b:
            b[i] = rng.randrange(256)
        elif op == 1 and b:
            del b[i : i + rng.randint(1, 16)]
        elif op == 2:
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 3 and len(b) > 8:  # a length field (4 bytes) set to an edge value
            j = rng.randrange(len(b) - 4)
            b[j : j + 4] = rng.choice([0, 1, 0xFFFFFFFF, 0x7FFFFFFF, len(b)]).to_bytes(4, "big")
        elif op == 4:
            b = b[: rng.randrange(len(b) + 1)]
        else:
            b += b[rng.randrange(len(b) + 1) :]
    return bytes(b)


def test_malformed_requests_are_refused_in_one_line(server, tmp_path):
    """300 seeded mutants of a real request (bytes changed, cut, inserted, lengths set to edge
    values): each is answered with one line (``r`` + reason), or ``a`` when the mutant is still a
    request (then the command runs), or not at all when it is not a skrafl request; the server's
    log holds no traceback and the server still serves."""
    lex = _lexicon(tmp_path, ["hestur", "joint"])
    request = _request(lex, tmp_path)
    rng = random.Random(24)
    answers = {"r": 0, "a": 0, "none": 0}
    srv, servers = server, [server]
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for n in range(300):
            data = request if n == 0 else _mutate(rng, request)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(30)
            s.connect(str(srv.path))
            try:
                socket.send_fds(s, [data[:4096]], [null, null, null])
                s.sendall(data[4096:])
                s.shutdown(socket.SHUT_WR)  # all sent: a request cut short is seen at once
                answer = b""
                while True:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    answer += chunk
            except (BrokenPipeError, ConnectionResetError):
                answer = b""
            finally:
                s.close()
            if answer[:1] == b"r":
                text = answer[1:].decode()
                assert "\n" not in text and text, (n, answer)
                answers["r"] += 1
            elif answer[:1] == b"a":
                answers["a"] += 1
            elif answer == b"s":  # a module file of the checkout changed meanwhile: a new server
                srv.proc.wait(timeout=30)
                (tmp_path / f"again{n}").mkdir()
                srv = start_server(tmp_path / f"again{n}")
                servers.append(srv)
            else:
                assert answer == b"", (n, answer)
                answers["none"] += 1
    finally:
        os.close(null)
    try:
        log = "".join(x.log.read_text(errors="replace") for x in servers)
        assert "Traceback" not in log and "a request failed" not in log, log[-3000:]
        print(answers)
        assert answers["r"] >= 150 and answers["a"] >= 1, answers
        assert run(["check", "--lexicon", str(lex), "hestur"], srv).stdout == "hestur\tVALID\n"
    finally:
        for x in servers[1:]:
            x.proc.terminate()
            x.proc.wait(timeout=10)


@ROOT_WITH_SETPRIV
def test_the_callers_groups_are_the_commands(server, tmp_path):
    """A lexicon in a folder only group 4242 may enter (0750, another owner): a caller without
    capabilities reads it when 4242 is one of its groups and not otherwise, served as in its own
    process (the server itself has neither the group nor, for the command, the capabilities)."""
    shared = tmp_path / "shared"
    shared.mkdir()
    lex = _lexicon(shared, ["hestur", "joint"])
    os.chown(shared, 12345, 4242)
    os.chmod(shared, 0o750)
    args = ["check", "--lexicon", str(lex), "hestur"]
    for groups, status in (("4242", 0), ("4243", 2)):
        before = server.ran()
        served, here = both_ways(server, args, [*DROP_CAPS, f"--groups={groups}"])
        assert here.returncode == status, here.stderr
        assert (served.returncode, served.stdout, served.stderr) == (here.returncode, here.stdout, here.stderr)
        assert server.ran() == before + 1, server.log.read_text()


@ROOT_WITH_SETPRIV
def test_a_caller_with_more_capabilities_than_the_server_is_refused_and_runs_it_itself(tmp_path):
    """A server started without capabilities cannot act for a root caller that has them: it
    refuses (one line in its log), and the caller runs the command itself: the private folder is
    read, as the caller may."""
    import time

    from test_serve import Server

    private = tmp_path / "private"
    private.mkdir()
    lex = _lexicon(private, ["hestur", "joint"])
    os.chown(private, 12345, 12345)
    os.chmod(private, 0o700)
    path, log = tmp_path / "skrafl.sock", tmp_path / "serve.log"
    proc = subprocess.Popen(
        [*DROP_CAPS, sys.executable, "-m", "cli.main", "serve", "--socket", str(path)],
        cwd=PROJECT_ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=open(log, "wb"),
    )
    try:
        deadline = time.monotonic() + 60
        while "listening on" not in log.read_text(errors="replace") and time.monotonic() < deadline:
            time.sleep(0.05)
        srv = Server(path, proc, log)
        served, here = both_ways(srv, ["check", "--lexicon", str(lex), "hestur"])
        assert (
            (served.returncode, served.stdout, served.stderr)
            == (here.returncode, here.stdout, here.stderr)
            == (0, "hestur\tVALID\n", "")
        )
        assert srv.ran() == 0
        assert "refused a request: the caller has capabilities the server does not" in log.read_text(), log.read_text()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
