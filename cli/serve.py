"""``skrafl serve``: a server that has paid the imports once; ``skrafl`` commands run in a child of it.

The parent imports what the commands need (typer, click, every command module, the game core and
its C extensions, pyarrow.parquet), optionally reads lexicons (``--preload``), checks that it has
one thread only, and listens on a Unix socket. Each request (from :mod:`cli.client`, when
``SKRAFL_SERVER`` names the socket) is run in a forked child (``socketserver.ForkingMixIn``): it
takes the client's privileges (:func:`_match_caller`: resource limits, groups, capabilities, read
from ``/proc/PID`` of the connected process; a caller it cannot match is refused), then its
current folder, environment, umask and standard file descriptors, rebuilds
``sys.stdin``/``stdout``/``stderr`` as Python does at start-up, runs :func:`cli.main.main` (the
normal entry: same outputs, errors and exit statuses) and sends the exit status back. Signals the
client receives are passed on and delivered to the child's main thread; a client that goes away
(killed) stops its command with SIGTERM.

A stale server never runs a command: before each, the child compares every module file the parent
loaded from the project (and every extension module) with what it was at start; if one changed,
it answers "stale" (the client then runs the command itself) and the server exits.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional

import typer

HELP = (
    "Serve skrafl commands on a Unix socket: imports paid once, every command run in a fork (set "
    "SKRAFL_SERVER=PATH for the skrafl command to use it).\n\n"
    "The server imports typer, the commands, the game core and pyarrow once, optionally reads lexicons "
    "(--preload: a language code or a lexicon folder, repeatable), and listens on PATH (a new socket, "
    "mode 0600, only the same user may connect; a stale socket left by a killed server is replaced). "
    "With SKRAFL_SERVER=PATH, 'skrafl COMMAND ...' sends the command there: it runs in a child with the "
    "caller's folder, environment, umask, stdin, stdout and stderr, and the caller's privileges (resource "
    "limits, groups, capabilities, read from /proc; a caller they cannot be matched for runs the command "
    "itself), and the caller exits with its status; "
    "Ctrl-C and SIGTERM stop it as they would stop it in the caller. Outputs are the same either way. "
    "A server that does not answer within 10 s (SKRAFL_SERVER_TIMEOUT=SECONDS; stopped or stuck) is given up: "
    "the caller runs the command itself after one 'skrafl: note:' line on stderr (a command the server has "
    "begun is never timed out).\n\n"
    "When a module file of the project changes, the server answers no more commands (the caller runs "
    "them itself) and exits. 'skrafl serve' and the full-screen 'skrafl judge' always run in the caller. "
    "Stop the server with Ctrl-C or SIGTERM (its socket is removed).\n\n"
    "Examples:\n\n"
    "  skrafl serve --socket /run/user/1000/skrafl.sock --preload is &\n\n"
    "  SKRAFL_SERVER=/run/user/1000/skrafl.sock skrafl check --lang is hestur"
)

#: Environment of the server's own imports: no thread may exist when it forks (numpy's OpenBLAS
#: pool and Arrow's jemalloc background thread start at import otherwise). The children run with
#: the client's environment; these libraries keep what they were started with.
_IMPORT_ENV = {
    "OPENBLAS_NUM_THREADS": "1",
    "JE_ARROW_MALLOC_CONF": "background_thread:false",
}


# --- The parent -------------------------------------------------------------------------------


def _import_everything() -> None:
    """Import what the commands import on their way to their work (not polars: it starts a thread
    pool when imported; the commands that use it import it in the child)."""
    import importlib
    import pkgutil

    import click  # noqa: F401

    import cli
    import gamecore
    import pipelines.atomic  # noqa: F401
    import pipelines.replay  # noqa: F401

    for pkg, skip in ((cli, {"cli.serve", "cli.client", "cli.judge"}), (gamecore, set())):
        for info in pkgutil.iter_modules(pkg.__path__, pkg.__name__ + "."):
            if info.name not in skip:
                importlib.import_module(info.name)
    import pyarrow  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    from cli.main import COMMANDS, click_app

    group = click_app()  # typer's click commands, made once here rather than in every child
    for name in COMMANDS:
        if f"cli.{name}" in sys.modules:
            group.commands[name]


def threads() -> int:
    """OS threads of this process (/proc/self/task), or Python's count where there is no /proc."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


def module_files(root: Path) -> dict[str, tuple[int, int]]:
    """(mtime_ns, size) of every loaded module file below ``root`` (the project, its virtual
    environment included) and of every loaded extension module (``.so``)."""
    out: dict[str, tuple[int, int]] = {}
    prefix = str(root) + os.sep
    for mod in list(sys.modules.values()):
        path = getattr(mod, "__file__", None)
        if not path or not (path.startswith(prefix) or path.endswith(".so")):
            continue
        try:
            st = os.stat(path)
        except OSError:
            continue
        out[path] = (st.st_mtime_ns, st.st_size)
    return out


def changed_files(files: dict[str, tuple[int, int]]) -> list[str]:
    changed = []
    for path, was in files.items():
        try:
            st = os.stat(path)
        except OSError:
            changed.append(path)
            continue
        if (st.st_mtime_ns, st.st_size) != was:
            changed.append(path)
    return changed


class _Preloaded:
    """Tries of preloaded lexicons, keyed by their file (real path, device, inode, size, mtime): a
    command reading a lexicon whose ``lexicon.marisa`` is the same file gets the parent's trie
    (shared by fork); a rebuilt lexicon is another file and is read as usual."""

    tries: dict[tuple, object] = {}

    @staticmethod
    def key(folder: Path) -> tuple | None:
        path = os.path.realpath(Path(folder) / "lexicon.marisa")
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _preload(items: list[str]) -> list[str]:
    import gamecore.lexicon as lexicon_module
    from cli.check import lexicon_dir
    from gamecore.best import load_bundle

    original = lexicon_module.read_trie
    names = []
    for item in items:
        folder = Path(item) if (os.sep in item or Path(item).is_dir()) else lexicon_dir(item, None)
        bundle = load_bundle(folder)
        assert bundle.words is not None  # load_bundle reads the words
        key = _Preloaded.key(bundle.folder)
        assert key is not None  # load_bundle has just read this file
        _Preloaded.tries[key] = bundle.words._trie  # read now, in the parent
        with open(bundle.folder / "lexicon.kwg", "rb") as fh:  # into the page cache
            while fh.read(1 << 20):
                pass
        names.append(str(folder))

    def read_trie(folder: Path):
        key = _Preloaded.key(folder)
        trie = _Preloaded.tries.get(key) if key is not None else None
        return trie if trie is not None else original(folder)

    lexicon_module.read_trie = read_trie
    return names


#: The longest Unix socket path, in bytes: ``sun_path`` of ``struct sockaddr_un`` (108 bytes on
#: Linux, 104 on macOS and the BSDs) less the final NUL (Python's socket module needs room for it).
SUN_PATH_MAX = (108 if sys.platform.startswith("linux") else 104) - 1


def _check_socket_path(path: Path) -> None:
    """Refuse a path longer than a socket address holds (:data:`SUN_PATH_MAX`), a path in a
    missing folder, or one that exists and is not a stale socket (a socket nobody listens on:
    removed)."""
    import socket
    import stat

    from gamecore.errors import UsageError

    size = len(os.fsencode(path))
    if size > SUN_PATH_MAX:
        raise UsageError(
            f"{path}: a socket path of {size} bytes is too long (at most {SUN_PATH_MAX}: a Unix socket "
            f"address holds {SUN_PATH_MAX + 1} bytes with the final NUL); give a shorter path, such as "
            "$XDG_RUNTIME_DIR/skrafl.sock"
        )
    if not path.parent.is_dir():
        raise UsageError(f"{path}: its folder does not exist; give a socket path in an existing folder")
    try:
        st = path.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(st.st_mode):
        raise UsageError(f"{path}: exists and is not a socket; give a new path")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except ConnectionRefusedError:
        path.unlink()  # a socket left by a server that was killed
        return
    except OSError as exc:
        raise UsageError(f"{path}: a socket that cannot be checked ({exc.strerror}); give a new path") from None
    finally:
        probe.close()
    raise UsageError(f"{path}: a server is listening there already")


def serve(
    socket_path: Path = typer.Option(..., "--socket", help="The Unix socket to listen on (a new path in an existing folder)."),
    preload: Optional[List[str]] = typer.Option(
        None, "--preload", help="A language code (the built lexicon output/LANG) or a lexicon folder to read once; repeatable."
    ),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No line on stderr when the server starts and stops, nor one per command run."
    ),
) -> None:
    socket_path = Path(os.path.abspath(socket_path))
    _check_socket_path(socket_path)
    saved = {k: os.environ.get(k) for k in _IMPORT_ENV}
    os.environ.update(_IMPORT_ENV)
    try:
        _import_everything()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    preloaded = _preload(list(preload or []))
    if threads() != 1:
        from gamecore.errors import SkraflError

        raise SkraflError(f"the server has {threads()} threads after its imports; it forks only with one")
    from cli.client import project_root

    Server = _server_class()
    server = Server(socket_path, Path(project_root()))
    server.quiet = quiet
    import gc

    gc.collect()
    gc.freeze()  # the children's collections leave the parent's objects (and their shared pages) alone
    if not quiet:
        extra = f", lexicons {', '.join(preloaded)}" if preloaded else ""
        typer.echo(f"skrafl serve: listening on {socket_path} (pid {os.getpid()}{extra})", err=True)
    try:
        server.serve_forever(poll_interval=0.5)
    finally:
        server.close()
    if not quiet:
        typer.echo(f"skrafl serve: stopped ({server.stopping or 'interrupted'})", err=True)


serve.__doc__ = HELP


def register(app: typer.Typer) -> None:
    app.command("serve", help=HELP)(serve)


def _request_error_line() -> str:
    """The server log's line for the request whose exception is being handled: a caller that went
    away before its answer (it gave up waiting, or was stopped: it runs the command itself or has
    ended; nothing of ours failed), else the traceback."""
    import traceback

    exc = sys.exc_info()[1]
    if isinstance(exc, (BrokenPipeError, ConnectionResetError)):
        return f"skrafl serve: a caller left before its answer ({type(exc).__name__})\n"
    return "skrafl serve: a request failed:\n" + traceback.format_exc()


def _server_class():
    import signal
    import socket
    import socketserver
    import struct

    class Stop(Exception):
        pass

    class Server(socketserver.ForkingMixIn, socketserver.UnixStreamServer):
        block_on_close = False
        max_children = 1 << 30  # never reached: socketserver would block in waitpid (verify_request limits)
        limit = 64  # commands running at once; one more is refused (its client runs it itself)

        def __init__(self, path: Path, root: Path) -> None:
            self.pid = os.getpid()
            self.path = path
            self.root = root
            self.stopping: str | None = None
            self.files = module_files(root)
            from cli.client import fingerprint

            self.fingerprint = fingerprint()
            self.log = os.dup(2)  # the server's own stderr (the children's fd 2 is the client's)
            os.set_inheritable(self.log, False)
            mask = os.umask(0o177)  # the socket is made 0600
            try:
                super().__init__(str(path), _Handler)  # type: ignore[arg-type]  # made with (request, address, server) as socketserver makes a handler
            finally:
                os.umask(mask)
            os.chmod(path, 0o600)
            self.inode = os.stat(path).st_ino
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(signum, self._on_signal)

        def _on_signal(self, signum, frame):  # noqa: ANN001
            # recorded only: the loop ends at its next turn (a handler may run inside a fork hook,
            # where an exception would be dropped)
            if self.stopping is None:
                self.stopping = signal.Signals(signum).name if signum != signal.SIGUSR1 else "a module file changed"

        def service_actions(self) -> None:
            super().service_actions()
            if self.stopping is not None:
                raise Stop

        def serve_forever(self, poll_interval: float = 0.5) -> None:
            signal.signal(signal.SIGUSR1, self._on_signal)  # from a child that found the server stale
            try:
                super().serve_forever(poll_interval)
            except (Stop, KeyboardInterrupt):
                pass

        def verify_request(self, request, client_address) -> bool:  # noqa: ANN001
            creds = request.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            _pid, uid, _gid = struct.unpack("3i", creds)
            if uid != os.getuid():
                return False
            self.collect_children()  # reaps the commands that ended, without waiting
            return len(self.active_children or ()) < self.limit

        def handle_error(self, request, client_address) -> None:  # noqa: ANN001
            os.write(self.log, _request_error_line().encode(errors="replace"))

        def close(self) -> None:
            self.server_close()
            try:
                if os.stat(self.path).st_ino == self.inode:  # still ours (not a new server's)
                    os.unlink(self.path)
            except OSError:
                pass

    return Server


# --- The child --------------------------------------------------------------------------------


def _decode(body: bytes) -> dict[str, list[bytes]]:
    items = []
    pos = 0
    while pos < len(body):
        n = int.from_bytes(body[pos : pos + 4], "big")
        items.append(body[pos + 4 : pos + 4 + n])
        pos += 4 + n
        if pos > len(body):
            raise ValueError("a field runs past the end of the request")
    if len(items) % 2:
        raise ValueError("a key without its value")
    fields: dict[str, list[bytes]] = {}
    for key, value in zip(items[::2], items[1::2], strict=False):
        fields.setdefault(key.decode("ascii"), []).append(value)
    return fields


def _parse(fields: dict[str, list[bytes]]) -> dict:
    """The request's fields checked and decoded: the folder, environment, umask, the streams'
    encodings, argv and the signals the caller ignores.

    Raises:
        ValueError: what is wrong with the request (one line, sent back to the caller)."""
    import codecs

    from cli.client import FORWARDED

    def one(key: str) -> bytes:
        values = fields.get(key)
        if not values:
            raise ValueError(f"no {key}")
        if len(values) > 1:
            raise ValueError(f"more than one {key}")
        return values[0]

    out: dict = {}
    cwd = one("cwd")
    if not cwd.startswith(b"/") or b"\0" in cwd:
        raise ValueError("cwd is not an absolute path")
    out["cwd"] = os.fsdecode(cwd)
    env = []
    for item in fields.get("env", []):
        key, eq, value = item.partition(b"=")
        if not key or not eq or b"\0" in item:
            raise ValueError("an env item is not NAME=VALUE")
        env.append((key, value))
    out["env"] = env
    umask = one("umask")
    if not umask.isdigit() or int(umask) > 0o777:
        raise ValueError("umask is not a number 0..511")
    out["umask"] = int(umask)
    for name in ("stdin", "stdout", "stderr"):
        try:
            enc, err = one(f"{name}.encoding").decode("ascii"), one(f"{name}.errors").decode("ascii")
            codecs.lookup(enc)
            codecs.lookup_error(err)
        except (UnicodeDecodeError, LookupError):
            raise ValueError(f"{name}: not a known encoding and error handler") from None
        out[name] = (enc, err)
    if one("unbuffered") not in (b"0", b"1"):
        raise ValueError("unbuffered is not 0 or 1")
    out["unbuffered"] = one("unbuffered") == b"1"
    argv = fields.get("argv", [])
    if not argv or any(b"\0" in a for a in argv):
        raise ValueError("no argv, or a NUL in it")
    out["argv"] = [os.fsdecode(a) for a in argv]
    ignored = one("ignored").decode("ascii", "replace").split(",") if one("ignored") else []
    if not all(x.isdigit() and int(x) in FORWARDED for x in ignored):
        raise ValueError("ignored names a signal that is not passed on")
    out["ignored"] = {int(x) for x in ignored}
    return out


def _receive(sock) -> tuple[dict[str, list[bytes]], list[int]]:
    """The request (``MAGIC``, its length, its fields: :mod:`cli.client`) and its descriptors."""
    import socket

    from cli.client import MAGIC

    data, fds, _flags, _addr = socket.recv_fds(sock, 1 << 16, 8)
    head = len(MAGIC) + 4
    while len(data) < head or len(data) < head + int.from_bytes(data[len(MAGIC) : head], "big"):
        if not MAGIC.startswith(data[: len(MAGIC)]):  # not a skrafl client: its length means nothing
            break
        chunk = sock.recv(1 << 16)
        if not chunk:
            for fd in fds:
                os.close(fd)
            raise ValueError("request cut short")
        data += chunk
    if not data.startswith(MAGIC):
        for fd in fds:
            os.close(fd)
        raise ValueError("not a skrafl request")
    return _decode(data[head:]), fds


def _stdio(fd: int, mode: str, encoding: str, errors: str, name: str, buffered: bool):
    """A standard stream as Python makes it at start-up (Python/pylifecycle.c, create_stdio)."""
    import io

    buf = io.open(fd, mode + "b", -1 if (buffered or mode == "r") else 0, closefd=False)
    raw = buf if isinstance(buf, io.FileIO) else getattr(buf, "raw", None)
    assert isinstance(raw, io.FileIO)  # io.open of a descriptor: a FileIO, or a buffer over one
    raw.name = name
    line_buffering = buffered and (raw.isatty() or fd == 2)
    text = io.TextIOWrapper(buf, encoding, errors, newline="\n", line_buffering=line_buffering, write_through=not buffered)
    text.mode = mode  # type: ignore[misc]  # as Python's own stdio has it; typeshed calls it read-only
    return text


#: ``/proc/PID/limits`` names of the resource limits a command runs with (the caller's, applied).
_LIMITS = {
    "Max cpu time": "RLIMIT_CPU",
    "Max file size": "RLIMIT_FSIZE",
    "Max data size": "RLIMIT_DATA",
    "Max stack size": "RLIMIT_STACK",
    "Max core file size": "RLIMIT_CORE",
    "Max resident set": "RLIMIT_RSS",
    "Max processes": "RLIMIT_NPROC",
    "Max open files": "RLIMIT_NOFILE",
    "Max locked memory": "RLIMIT_MEMLOCK",
    "Max address space": "RLIMIT_AS",
    "Max file locks": "RLIMIT_LOCKS",
    "Max pending signals": "RLIMIT_SIGPENDING",
    "Max msgqueue size": "RLIMIT_MSGQUEUE",
    "Max nice priority": "RLIMIT_NICE",
    "Max realtime priority": "RLIMIT_RTPRIO",
    "Max realtime timeout": "RLIMIT_RTTIME",
}
_CAP_SETS = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")


def _status(pid: int | str) -> dict[str, str]:
    """The fields of ``/proc/PID/status``."""
    with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as fh:
        return {k: v.strip() for k, _, v in (line.partition(":") for line in fh)}


def _limits(pid: int | str) -> dict[int, tuple[int, int]]:
    """``/proc/PID/limits`` as ``{RLIMIT_X: (soft, hard)}`` (``unlimited``: ``RLIM_INFINITY``)."""
    import resource

    out: dict[int, tuple[int, int]] = {}
    with open(f"/proc/{pid}/limits", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            name = next((n for n in _LIMITS if line.startswith(n + " ")), None)
            if name is None or not hasattr(resource, _LIMITS[name]):
                continue
            soft, hard = line[len(name) :].split()[:2]
            soft_v, hard_v = (resource.RLIM_INFINITY if v == "unlimited" else int(v) for v in (soft, hard))
            out[getattr(resource, _LIMITS[name])] = (soft_v, hard_v)
    return out


def _same_file(a: str, b: str) -> bool:
    st_a, st_b = os.stat(a), os.stat(b)
    return (st_a.st_dev, st_a.st_ino) == (st_b.st_dev, st_b.st_ino)


def _match_caller(pid: int, uid: int) -> str | None:
    """Make this child act with the caller's privileges, read from the kernel (``/proc/PID``: what
    the caller process is, not what its request says): its resource limits, group IDs and
    supplementary groups, capability sets (effective, permitted, inheritable, bounding, ambient)
    and no-new-privileges flag. None when done; else why the caller cannot be matched (then
    nothing is run: the caller runs the command itself): another user ID, namespace, root folder
    or security label, a seccomp filter or a capability or limit the server does not have, or a
    change the server has no privilege to make."""
    try:
        theirs, ours = _status(pid), _status("self")
        caps = {k: int(theirs[k], 16) for k in _CAP_SETS}
        mine = {k: int(ours[k], 16) for k in _CAP_SETS}
        problem = _unmatchable(pid, uid, theirs, ours, caps, mine)
        if problem:
            return problem
        limits = _limits(pid)
    except (OSError, ValueError, KeyError) as exc:
        return f"the caller's credentials cannot be read ({getattr(exc, 'strerror', None) or exc})"
    problem = _match_limits_and_groups(limits, theirs)
    if problem:
        return problem
    nnp = theirs.get("NoNewPrivs", "0") == "1"
    if caps != mine or nnp:
        problem = _set_capabilities(caps, mine, nnp)
        if problem:
            return problem
        if {k: int(v, 16) for k, v in ((k, _status("self")[k]) for k in _CAP_SETS)} != caps:
            return "the caller's capabilities could not be matched"
    return None


def _unmatchable(pid: int, uid: int, theirs: dict, ours: dict, caps: dict[str, int], mine: dict[str, int]) -> str | None:
    """Why the caller (``theirs``: its ``/proc/PID/status``) is confined otherwise than this process
    can become, or None: another user ID, more capabilities, another namespace, root folder,
    security label or seccomp filter, or no no-new-privileges where the server has it."""
    if theirs.get("Uid") != ours.get("Uid") or theirs.get("Uid", "").split()[1:2] != [str(uid)]:
        return "the caller's user IDs (real, effective, saved, file system) are not the server's"
    if caps["CapPrm"] & ~mine["CapPrm"] or caps["CapBnd"] & ~mine["CapBnd"]:
        return "the caller has capabilities the server does not"
    for ns in ("mnt", "user", "pid", "net", "ipc", "uts", "cgroup"):
        if os.path.exists(f"/proc/self/ns/{ns}") and not _same_file(f"/proc/{pid}/ns/{ns}", f"/proc/self/ns/{ns}"):
            return f"the caller is in another {ns} namespace"
    if not _same_file(f"/proc/{pid}/root", "/"):
        return "the caller has another root folder (chroot)"
    if _security_label(pid) != _security_label("self"):
        return "the caller has another security label (SELinux, AppArmor)"
    if int(theirs.get("Seccomp", "0") or 0) != int(ours.get("Seccomp", "0") or 0) or theirs.get("Seccomp_filters") != ours.get(
        "Seccomp_filters"
    ):
        return "the caller runs under a seccomp filter the server does not"
    if ours.get("NoNewPrivs", "0") == "1" and theirs.get("NoNewPrivs", "0") != "1":
        return "the server runs with no-new-privileges and the caller does not"
    return None


def _security_label(who: int | str) -> bytes | None:
    """A process's security label (``/proc/WHO/attr/current``), None when it has none to read."""
    try:
        with open(f"/proc/{who}/attr/current", "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _match_limits_and_groups(limits: dict, theirs: dict) -> str | None:
    """Take the caller's resource limits, group IDs and supplementary groups (what needs the
    server's capabilities, so before they are dropped); None when done, else why not."""
    import errno
    import resource

    try:
        for res, (soft, hard) in sorted(limits.items()):
            if resource.getrlimit(res) != (soft, hard):
                resource.setrlimit(res, (soft, hard))
        gids = [int(g) for g in theirs["Gid"].split()[:3]]
        if list(os.getresgid()) != gids:
            os.setresgid(*gids)
        groups = sorted({int(g) for g in theirs.get("Groups", "").split()})
        if sorted(set(os.getgroups())) != groups:
            os.setgroups(groups)
    except (OSError, ValueError) as exc:
        if isinstance(exc, OSError) and exc.errno not in (errno.EPERM, errno.EINVAL):
            raise
        return "the caller's limits or groups cannot be matched (the server lacks the privilege to set them)"
    return None


def _set_capabilities(caps: dict[str, int], mine: dict[str, int], nnp: bool) -> str | None:
    """Drop this process's capabilities to the caller's ``caps`` (bounding set, then effective,
    permitted and inheritable by capset(2), then ambient) and set no-new-privileges when the caller
    has it. None when done, else why not."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, PR_CAP_AMBIENT_CLEAR_ALL, PR_SET_NO_NEW_PRIVS = 24, 47, 2, 4, 38
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as fh:
            last = int(fh.read())
    except (OSError, ValueError):
        last = 63
    for cap in range(last + 1):
        if mine["CapBnd"] >> cap & 1 and not caps["CapBnd"] >> cap & 1:
            if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                return "the caller's capability bounding set cannot be matched (the server lacks CAP_SETPCAP)"
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    header = Header(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3: two 32-bit words per set
    data = (Data * 2)()
    for word in (0, 1):
        shift = 32 * word
        data[word].effective = caps["CapEff"] >> shift & 0xFFFFFFFF
        data[word].permitted = caps["CapPrm"] >> shift & 0xFFFFFFFF
        data[word].inheritable = caps["CapInh"] >> shift & 0xFFFFFFFF
    if libc.capset(ctypes.byref(header), data) != 0:
        return f"the caller's capabilities cannot be set ({os.strerror(ctypes.get_errno())})"
    for cap in range(last + 1):
        if caps["CapAmb"] >> cap & 1 and libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) != 0:
            return "the caller's ambient capabilities cannot be matched"
    if nnp and libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return "no-new-privileges cannot be set"
    return None


def _take_callers_context(request: dict, fds: list[int]) -> None:
    """Take the caller's environment, umask, locale, time zone, standard streams (its three file
    descriptors as 0, 1 and 2, no other copy kept), arguments and ignored signals."""
    import signal

    os.environ.clear()
    for key, value in request["env"]:
        os.environb[key] = value
    os.umask(request["umask"])
    try:
        import locale
        import time

        time.tzset()
        locale.setlocale(locale.LC_CTYPE, "")
    except Exception:  # noqa: BLE001  (a locale the server's C library lacks: the server's)
        pass
    for fd, target in zip(fds, (0, 1, 2), strict=True):
        os.dup2(fd, target)
    for fd in fds:  # only 0, 1 and 2 stay: a process the command forks holds no extra copy
        if fd > 2:
            os.close(fd)
    fds.clear()
    streams = []
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        enc, err = request[name]
        streams.append(_stdio(fd, mode, enc, err, f"<{name}>", not request["unbuffered"]))
    sys.stdin, sys.stdout, sys.stderr = streams
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams  # type: ignore[misc]  # as at start-up: the originals are the client's
    sys.argv = request["argv"]
    for signum in request["ignored"]:
        signal.signal(signum, signal.SIG_IGN)


class _Handler:
    """One request, in the forked child (a ``socketserver`` handler: made with the request, the
    client address and the server)."""

    def __init__(self, request, client_address, server) -> None:  # noqa: ANN001
        self.sock = request
        self.server = server
        self.done = False
        server.socket.close()  # the child serves no one else (and its workers inherit nothing)
        self.run()

    def answer(self, data: bytes) -> None:
        self.sock.sendall(data)

    def refuse(self, reason: str) -> None:
        """Answer ``r`` + ``reason`` (one line; the caller runs the command itself) and log it."""
        reason = " ".join(reason.split())
        try:
            self.answer(b"r" + reason.encode(errors="replace"))
        except OSError:
            pass
        if not self.server.quiet:
            self.log(f"skrafl serve: pid {os.getpid()} refused a request: {reason}\n")

    def log(self, line: str) -> None:
        """A line in the server's log, if it can be written (the caller's ``ulimit -f`` holds here too)."""
        try:
            os.write(self.server.log, line.encode(errors="replace"))
        except OSError:
            pass

    def run(self) -> None:
        import signal

        from pipelines.stops import StopState

        os.setsid()  # a signal at the server's terminal is not the command's: only the client's is
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        # the server ran through cli.main.main too: its stop state is not this command's. The
        # caller's stops (sent by the client straight to this process) wait, blocked, until
        # cli.main.main has its handlers in (pipelines.stops.install_stop_handlers unblocks them).
        StopState.signum, StopState.held, StopState.installed, StopState.redeliver = None, 0, False, False
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
        StopState.blocked = True
        try:
            self.sock.settimeout(10)  # a client that sends nothing does not hold a child
            fields, fds = _receive(self.sock)
            self.sock.settimeout(None)
        except ValueError as exc:  # a malformed request: one line back, none in the server's log
            self.refuse(f"a malformed request: {exc}")
            return
        except OSError:
            return
        try:
            self.serve(fields, fds)
        finally:
            for fd in fds:
                if fd > 2:
                    try:
                        os.close(fd)
                    except OSError:
                        pass

    def serve(self, fields: dict[str, list[bytes]], fds: list[int]) -> None:
        request = self.admit(fields, fds)
        if request is None:
            return
        _take_callers_context(request, fds)
        try:
            self.answer(b"a" + os.getpid().to_bytes(4, "big"))  # the client signals this process
        except OSError:  # the client went away before the command began (or gave up waiting): nothing is run
            return
        self.listen()
        status = self.command()
        self.done = True
        if not self.server.quiet:  # logged before the status is sent: a client that has its exit finds the line
            words = " ".join(sys.argv[1:3])
            self.log(f"skrafl serve: pid {os.getpid()} ran '{words} …' in {request['cwd']}: exit {status}\n")
        try:
            self.answer(b"x" + status.to_bytes(4, "big", signed=True))
        except OSError:
            pass

    def admit(self, fields: dict[str, list[bytes]], fds: list[int]) -> dict | None:
        """The request, once this child acts as its caller in the caller's folder; None when it is
        refused (answered ``r`` and logged) or the server is stale (answered ``s``; the server
        told to stop)."""
        import signal

        for key, value in self.server.fingerprint.items():
            if fields.get(key, [b""]) != [value]:
                self.refuse(f"{key} differs")
                return None
        if len(fds) != 3:
            self.refuse("three file descriptors expected")
            return None
        try:
            request = _parse(fields)
        except ValueError as exc:
            self.refuse(f"a malformed request: {exc}")
            return None
        changed = changed_files(self.server.files)
        if changed:
            os.write(self.server.log, f"skrafl serve: stale, changed since the start: {', '.join(changed[:5])}\n".encode())
            self.answer(b"s")
            if os.getppid() == self.server.pid:  # the server stops taking requests and exits
                os.kill(self.server.pid, signal.SIGUSR1)
            return None
        import socket
        import struct

        creds = self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        peer, uid, _gid = struct.unpack("3i", creds)
        problem = _match_caller(peer, uid)  # before anything is opened by path: as the caller could
        if problem is not None:
            self.refuse(problem)
            return None
        try:
            os.chdir(request["cwd"])
        except OSError:
            self.refuse("cannot enter the folder")
            return None
        return request

    def listen(self) -> None:
        """A thread watching the client's end of the socket: the client gone (killed), the
        command is stopped with SIGTERM. (The client's own signals come straight to this
        process: the ``a`` answer gave it the pid.)"""
        import signal
        import threading

        def read() -> None:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
            while not self.done:
                try:
                    data = self.sock.recv(64)
                except OSError:
                    data = b""
                if not data:
                    if not self.done:
                        os.kill(os.getpid(), signal.SIGTERM)
                    return

        threading.Thread(target=read, name="skrafl-serve-client", daemon=True).start()

    def command(self) -> int:
        """Run ``cli.main.main()`` and end as Python would: non-daemon threads joined, exit
        functions run, the standard streams flushed; the exit status."""
        import atexit
        import threading

        from cli.main import main

        try:
            main()
            status = 0
        except SystemExit as exc:
            status = _exit_status(exc.code)
        except BaseException:  # noqa: BLE001  (what Python would print and exit 1 with)
            import traceback

            traceback.print_exc()
            status = 1
        try:
            threading._shutdown()  # type: ignore[attr-defined]  # what Python runs at exit: join non-daemon threads
        except Exception:  # noqa: BLE001
            pass
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception as exc:  # noqa: BLE001  (CPython: "Exception ignored", exit 120)
                try:
                    sys.stderr.write(f"Exception ignored on flushing sys.{'stdout' if stream is sys.stdout else 'stderr'}:\n")
                    sys.stderr.write(f"{type(exc).__name__}: {exc}\n")
                    sys.stderr.flush()
                except Exception:  # noqa: BLE001
                    pass
                status = 120
        return status


def _exit_status(code: object) -> int:
    """The exit status Python gives ``SystemExit(code)`` (a message: printed, status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    try:
        sys.stderr.write(f"{code}\n")
    except Exception:  # noqa: BLE001
        pass
    return 1
