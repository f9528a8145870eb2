"""The ``skrafl`` console command: the command run by a ``skrafl serve`` server when one is named,
else in this process.

With ``SKRAFL_SERVER=PATH`` naming the socket of a running ``skrafl serve`` (:mod:`cli.serve`), a
command is sent there: its arguments, current folder, whole environment, umask and the three
standard file descriptors. The server has already imported typer, click, the commands and the
game core, so the command costs this process little more than a bare Python start-up; the server
forks a child that runs exactly :func:`cli.main.main`, writes to this process's own stdout and
stderr, and answers with the exit status, which this process exits with. SIGINT, SIGTERM and
SIGHUP received here are passed on to the child (the command stops as it would here: exit
128 + N, the output being written discarded).

Without the variable, or when the socket is absent or refuses, or the server answers that it is
stale (a module file changed since it started) or runs another interpreter or project, the
command runs here (:func:`cli.main.main`), silently: the result is the same either way. A server
that does not give its first answer within :data:`WAIT` seconds (``SKRAFL_SERVER_TIMEOUT``;
stopped or stuck) is given up too: the command runs here after one ``skrafl: note:`` line on
stderr (a slow call should say why), and the server, should it answer later, finds this end
closed and runs nothing. Only that wait is bounded: a command the server has begun runs as long
as it takes. (A stopped server still holds the descriptors sent with the request: a reader of
this command's output through a pipe sees its end only when that server goes on or dies.)
``skrafl serve`` itself and the full-screen ``skrafl judge`` (without ``--word`` / ``--batch``: the
screen needs this terminal's signals) always run here.

This module imports only light modules of the standard library (``os``, ``sys``, ``_socket``,
``_signal``): check with ``python -X importtime``.
"""

import _socket
import os
import sys

#: Protocol (shared with :mod:`cli.serve`). Request: ``MAGIC``, the 4-byte big-endian length of
#: the rest, then fields, each a 4-byte length and bytes, in key/value pairs; the file descriptors
#: 0, 1, 2 ride on the first bytes (SCM_RIGHTS). Answers from the server: ``a`` + the 4-byte pid of the process that will
#: run the command (accepted: the client sends its SIGINT, SIGTERM and SIGHUP there with
#: ``kill``), ``s`` (stale: run it yourself), ``r`` + reason (refused: another interpreter or
#: project), ``x`` + a 4-byte signed exit status. A client that gave up waiting for ``a``
#: (:data:`WAIT`) has closed its end: the server's ``a`` fails and nothing is run there. The client
#: closing its end stops the command (SIGTERM).
MAGIC = b"skrafl-serve 2\n"
FORWARDED = (2, 15, 1)  # SIGINT, SIGTERM, SIGHUP
#: Seconds the client waits for the server's first answer (connecting, sending the request and
#: the ``a``/``s``/``r`` answer; ``SKRAFL_SERVER_TIMEOUT`` overrides): a server that accepts and
#: never answers (stopped, stuck) then costs this long, and the command runs here. A command the
#: server has begun is never timed out.
WAIT = 10.0


def wait_limit() -> float:
    """:data:`WAIT`, or ``SKRAFL_SERVER_TIMEOUT`` when that is a positive number of seconds."""
    try:
        value = float(os.environ.get("SKRAFL_SERVER_TIMEOUT") or WAIT)
    except ValueError:
        return WAIT
    return value if 0 < value < 1e9 else WAIT


def project_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # an editable install links here


def fingerprint() -> dict[str, bytes]:
    """What must be the same in the server for its child to run a command as this process would:
    the interpreter, the project, the flags and options Python was started with, the module path
    (``PYTHONPATH``) and the file system encoding."""
    path = os.pathsep.join(sys.path[1:])  # sys.path[0] is the script's folder: not used for imports here
    return {
        "executable": os.fsencode(sys.executable),
        "prefix": os.fsencode(sys.prefix),
        "project": os.fsencode(project_root()),
        "flags": repr(tuple(sys.flags)).encode(),
        "options": repr((sys.warnoptions, sorted(sys._xoptions.items()))).encode(),
        "path": os.fsencode(path),
        "fsencoding": f"{sys.getfilesystemencoding()}:{sys.getfilesystemencodeerrors()}".encode(),
        "hashseed": os.environ.get("PYTHONHASHSEED", "").encode(),  # read at start-up only
    }


def encode(pairs: list[tuple[str, bytes]]) -> bytes:
    out = []
    for key, value in pairs:
        for item in (key.encode(), value):
            out.append(len(item).to_bytes(4, "big"))
            out.append(item)
    body = b"".join(out)
    return MAGIC + len(body).to_bytes(4, "big") + body


def served(args: list[str]) -> bool:
    """Whether a server runs this command line: every command but ``serve`` and the full-screen
    ``judge`` (without ``--word`` or ``--batch``)."""
    command = next((a for a in args if not a.startswith("-")), None)
    if command == "serve":
        return False
    if command == "judge":
        return any(a in ("--word", "-w", "--batch") or a.startswith(("--word=", "--batch=", "-w")) for a in args)
    return True


def _stream_facts(name: str) -> tuple[bytes, bytes]:
    stream = getattr(sys, name)
    if stream is None:
        raise OSError(f"no {name}")
    return stream.encoding.encode(), stream.errors.encode()


class _Link:
    sock: _socket.socket | None = None
    pending: list[int] = []  # signals received before the server accepted
    accepted = False
    pid = 0  # the server's child running the command
    waiting = False  # in the wait for the server's first answer
    forwarded: int | None = None


class _Interrupted(Exception):
    """A stop signal before the server began the command: stop waiting for it."""


def _on_signal(signum: int, frame: object) -> None:
    if _Link.forwarded is None:
        _Link.forwarded = signum
    if not _Link.accepted:
        _Link.pending.append(signum)
        if _Link.waiting:
            raise _Interrupted  # out of the wait for the answer (a busy or stopped server)
        return
    try:
        os.kill(_Link.pid, signum)  # straight to the command's process (held there until it can stop)
    except OSError:
        pass


def _recv_exact(sock, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _set_wait(sock, _socket, seconds: float) -> None:
    """Bound each blocking receive, send and connect of ``sock`` to ``seconds`` (0: no bound)
    with SO_RCVTIMEO and SO_SNDTIMEO (a ``struct timeval`` of two C longs): the call then fails
    with EAGAIN (BlockingIOError). The socket stays in blocking mode: its Python timeout mode
    (``settimeout``) lost a Ctrl-C that came while the server was starting the command."""
    width = 8 if sys.maxsize > 2**32 else 4
    whole = int(seconds)
    tv = whole.to_bytes(width, sys.byteorder) + int((seconds - whole) * 1e6).to_bytes(width, sys.byteorder)
    for opt in (_socket.SO_RCVTIMEO, _socket.SO_SNDTIMEO):
        sock.setsockopt(_socket.SOL_SOCKET, opt, tv)


def build_request(argv: list[str]) -> tuple[bytes, list[int]]:
    """The request for ``argv`` (:data:`MAGIC`, its length, its fields) and the forwarded signals
    this process ignores. The caller's privileges (user and group IDs, groups, capabilities,
    resource limits) are not in it: the server reads them from the kernel (``/proc/PID``).

    Raises:
        OSError, ValueError, AttributeError: a standard stream missing or without an encoding."""
    import _signal

    facts = fingerprint()
    streams = [_stream_facts(n) for n in ("stdin", "stdout", "stderr")]
    pairs = list(facts.items())
    pairs.append(("cwd", os.fsencode(os.getcwd())))
    mask = os.umask(0o022)
    os.umask(mask)
    pairs.append(("umask", str(mask).encode()))
    for name, (enc, err) in zip(("stdin", "stdout", "stderr"), streams, strict=True):
        pairs += [(f"{name}.encoding", enc), (f"{name}.errors", err)]
    pairs.append(("unbuffered", b"1" if getattr(sys.stdout, "write_through", False) else b"0"))  # python -u, PYTHONUNBUFFERED
    ignored = [s for s in FORWARDED if _signal.getsignal(s) == _signal.SIG_IGN]
    pairs.append(("ignored", ",".join(map(str, ignored)).encode()))
    pairs += [("argv", os.fsencode(a)) for a in argv]
    pairs += [("env", k + b"=" + v) for k, v in os.environb.items()]
    return encode(pairs), ignored


def _first_answer(sock: _socket.socket, path: str, request: bytes, limit: float) -> tuple[bytes | None, bool]:
    """Connect, send the request (the three standard descriptors ride on its first bytes) and read
    the server's first answer, all within ``limit`` seconds: ``(answer or None, timed out)``. A
    stop while connecting, sending or waiting ends the wait (:class:`_Interrupted`)."""
    deadline = os.times().elapsed + limit

    def bounded() -> None:  # what is left of the wait for the first answer
        _set_wait(sock, _socket, max(deadline - os.times().elapsed, 0.001))

    try:
        _Link.waiting = True
        bounded()
        sock.connect(path)
        bounded()
        sent = sock.sendmsg(
            [request[:4096]],
            [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2)))],
        )
        bounded()
        sock.sendall(request[sent:])
        bounded()
        return _recv_exact(sock, 1), False
    except BlockingIOError:  # SO_RCVTIMEO / SO_SNDTIMEO ran out (EAGAIN)
        return None, True
    except (OSError, _Interrupted):
        return None, False
    finally:
        _Link.waiting = False


def _exit_status(sock: _socket.socket) -> int | None:
    """The command's exit status as the server sends it (``x`` and four bytes), or None when its
    process ended without one."""
    try:
        if _recv_exact(sock, 1) != b"x":
            return None
        raw = _recv_exact(sock, 4)
    except OSError:
        return None
    return None if raw is None else int.from_bytes(raw, "big", signed=True)


def forward(path: str, argv: list[str]) -> int | None:
    """Run ``argv`` in the server at ``path``: its exit status, or None when it did not run there
    (no server, refused, stale: the caller runs it itself). A signal received here is passed on."""
    import _signal

    try:
        request, ignored = build_request(argv)
    except (OSError, ValueError, AttributeError):
        return None
    previous = {}
    for signum in FORWARDED:
        if signum not in ignored:
            previous[signum] = _signal.signal(signum, _on_signal)

    def restore() -> None:
        for signum, handler in previous.items():
            _signal.signal(signum, handler)

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    _Link.sock = sock
    limit = wait_limit()
    answer, timed_out = _first_answer(sock, path, request, limit)
    if answer != b"a" and _Link.pending:  # stopped while waiting: nothing more is run (a command
        sock.close()  # the server had just begun sees its client gone and stops, output discarded)
        restore()
        name = {2: "SIGINT", 15: "SIGTERM", 1: "SIGHUP"}.get(_Link.pending[0], f"signal {_Link.pending[0]}")
        sys.stderr.write(f"skrafl: stopped by {name}; nothing was changed\n")  # as every command says it
        return 128 + _Link.pending[0]
    if answer != b"a":  # not run there (no answer, refused, stale, too slow): run it here
        sock.close()  # (a server that answers later finds this end closed and runs nothing)
        restore()
        if timed_out:
            sys.stderr.write(
                f"skrafl: note: the server {path} did not answer within {limit:g} s; the command runs here "
                "(SKRAFL_SERVER_TIMEOUT sets the wait)\n"
            )
            sys.stderr.flush()
        return None
    try:
        _set_wait(sock, _socket, 0)  # accepted: the command's own time is never limited
        raw = _recv_exact(sock, 4)
    except OSError:
        raw = None
    _Link.pid = int.from_bytes(raw, "big") if raw else 0
    _Link.accepted = _Link.pid > 0
    for signum in _Link.pending:
        _on_signal(signum, None)
    status = _exit_status(sock)
    sock.close()
    if status is not None:
        return status
    # the server's process ended without a status: killed by the signal passed on to it (SIGHUP:
    # as this process would have been), or by something else
    restore()
    if _Link.forwarded is not None:
        _signal.signal(_Link.forwarded, _signal.SIG_DFL)
        os.kill(os.getpid(), _Link.forwarded)
        return 128 + _Link.forwarded
    sys.stderr.write(f"skrafl: error: the command's process in the server {path} ended without an exit status\n")
    return 2


def _stopped_while_starting(signum: int, frame: object) -> None:
    """A stop before the command has its own stop handling (Python importing typer and the
    command): nothing has been done yet, so one line and the exit status, without the traceback
    of a KeyboardInterrupt."""
    name = "SIGINT" if signum == 2 else "SIGTERM"
    os.write(2, f"skrafl: stopped by {name} before the command began; nothing was changed\n".encode())
    os._exit(128 + signum)


def main() -> None:
    """The console entry point (``skrafl``)."""
    path = os.environ.get("SKRAFL_SERVER")
    if path and served(sys.argv[1:]):
        status = forward(path, sys.argv)
        if status is not None:
            sys.exit(status)
    import _signal

    for signum in (2, 15):  # until cli.main.main puts in its own (a signal inherited ignored stays so)
        if _signal.getsignal(signum) is not _signal.SIG_IGN:
            _signal.signal(signum, _stopped_while_starting)
    from cli.main import main as run

    run()


if __name__ == "__main__":
    main()
