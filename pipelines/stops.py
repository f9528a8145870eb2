"""Stops: SIGINT and SIGTERM end any command at a safe point, its output discarded (the previous
one kept), with exit status 128 + the signal's number.

Apart from :mod:`pipelines.atomic` (output folders), which uses them, so that a command that writes
no folder (``check``, ``best``, ``score``) does not import the folder machinery (hashlib, ctypes,
tempfile) to have its stops handled: this module needs only the standard library's ``contextlib``.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

# --- Stops: SIGINT and SIGTERM ------------------------------------------------------------------
#
# One mechanism for every command (installed by the CLI, :func:`install_stop_handlers`): the
# first SIGINT or SIGTERM is *recorded*, then raised as :class:`Signalled` in the main thread. A
# raised exception can still be lost on its way — Python runs a signal handler wherever the main
# thread happens to be, also inside a ``__del__`` or a weak-reference callback run by the garbage
# collector, where an exception is "ignored" (printed and dropped: this is how a Ctrl-C during
# ``build`` was lost, in ``tqdm.__del__``); a library may catch it (polars turns Ctrl-C into its
# own KeyboardInterrupt, which typer turns into a plain exit status). So the record is what
# counts: a stop dropped in a finalizer is raised again at once (:func:`_unraisable`), no output is
# swapped in once a stop is recorded (:func:`check_stop` before the swap), and the CLI reports a
# recorded stop whatever the command returned or raised. ``signals_held()`` defers the stop (still
# recorded) over the steps that must not be cut in two: making the stage, the swap, the cleanup.


class Signalled(BaseException):
    """SIGTERM or SIGINT, raised in the main thread. A BaseException, so that no handler of
    ordinary errors (nor typer's own KeyboardInterrupt handling) takes it: the output being written
    is discarded on the way (its stage removed, the previous output kept); the CLI exits 128 + the
    signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class StopState:
    signum: int | None = None  # the first stop signal received (what the exit status reports)
    held = 0  # depth of signals_held() blocks in the main thread
    installed = False
    redeliver = False  # a stop was dropped in a finalizer: deliver it again until it is raised
    blocked = False  # SIGINT/SIGTERM/SIGHUP blocked until the handlers are in (skrafl serve's children)
    writing = False  # an output folder was begun (pipelines.atomic): what a stop's one line says
    kept = False  # ... and one of them replaces an earlier output (kept when the run stops)


def _on_signal(signum: int, frame: object) -> None:
    if StopState.signum is None:
        StopState.signum = signum
    if StopState.held:
        return  # delivered when the held block ends
    StopState.redeliver = False
    raise Signalled(StopState.signum)


def _redeliver(signum: int) -> None:
    """Trip the main thread's handler again (from a helper thread) until the stop is raised in
    ordinary code: the handler may run inside the next finalizer too."""
    import _thread
    import signal
    import time

    while StopState.redeliver:
        time.sleep(0.02)
        _thread.interrupt_main(signal.Signals(signum))


def _unraisable(previous):  # noqa: ANN001, ANN202
    def hook(unraisable) -> None:  # noqa: ANN001
        exc = unraisable.exc_value
        if isinstance(exc, (Signalled, KeyboardInterrupt)):
            # a stop raised inside a finalizer (__del__, a weakref callback) is dropped there:
            # deliver it again once this hook has returned (nothing printed)
            import signal
            import threading

            signum = getattr(exc, "signum", None) or StopState.signum or signal.SIGINT
            if not StopState.redeliver:
                StopState.redeliver = True
                threading.Thread(target=_redeliver, args=(signum,), daemon=True, name="skrafl-stop").start()
            return
        from gamecore.errors import is_disk_full

        if is_disk_full(exc):
            # a file closed by its finalizer (a Parquet writer whose write failed): the failed
            # write itself is the command's error, said in its one line
            return
        previous(unraisable)

    return hook


class _KeepSigintIgnored:
    """A meta-path finder that ignores SIGINT again once polars is imported: polars' start-up
    (its runtime's ``register_startup_deps``) installs a SIGINT handler of its own in C, over an
    inherited SIG_IGN, and a Ctrl-C meant for the foreground job then ended a background run
    (``skrafl … &`` in a script) at once, exit 130, without a word and without its clean-up."""

    def find_spec(self, name, path=None, target=None):  # noqa: ANN001, ANN201
        if name != "polars":
            return None
        import importlib.machinery
        import signal

        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader: Any = spec.loader  # its exec_module is wrapped below
        exec_module = loader.exec_module

        def exec_and_ignore(module) -> None:  # noqa: ANN001
            try:
                exec_module(module)
            finally:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # sigaction: replaces polars' handler

        loader.exec_module = exec_and_ignore
        return spec


def install_stop_handlers() -> None:
    """SIGTERM and SIGINT stop the run (see above); a signal inherited as ignored (SIGINT of a
    background job) stays ignored, also once polars is imported (:class:`_KeepSigintIgnored`).
    Called once, by the CLI, in the main thread."""
    import signal
    import sys

    if StopState.installed:
        return
    StopState.installed = True
    for signum in (signal.SIGTERM, signal.SIGINT):
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _on_signal)
        elif signum == signal.SIGINT:
            if "polars" in sys.modules:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
            else:
                sys.meta_path.insert(0, _KeepSigintIgnored())
    sys.unraisablehook = _unraisable(sys.unraisablehook)
    if StopState.blocked:  # a skrafl serve child: the caller's stops, held until now, arrive here
        StopState.blocked = False
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})


def output_begun(replaces: bool = False) -> None:
    """Record that this run began writing an output folder (:func:`pipelines.atomic.output_dir`);
    ``replaces``: one that is there already (a stop keeps it)."""
    StopState.writing = True
    StopState.kept = StopState.kept or replaces


def stopped_by(signum: int | None) -> str:
    """``stopped by SIGINT`` (``stopped by signal N`` for another number, ``stopped`` for none)."""
    import signal

    if signum is None:
        return "stopped"
    try:
        return f"stopped by {signal.Signals(signum).name}"
    except ValueError:
        return f"stopped by signal {signum}"


def stop_message(signum: int | None = None) -> str:
    """The one line of a stopped run: the signal, and that the output being written was discarded
    when the run was writing one."""
    what = stopped_by(signum) if signum is not None else "interrupted"
    if StopState.writing:
        return f"skrafl: {what}; the output being written was discarded" + (
            ", the previous one is kept" if StopState.kept else ""
        )
    return f"skrafl: {what}"


def stop_requested() -> int | None:
    """The signal that asked this run to stop (SIGINT, SIGTERM), or None."""
    return StopState.signum


def check_stop() -> None:
    """Raise :class:`Signalled` if a stop was recorded (and is not held back): a safe point."""
    if StopState.signum is not None and not StopState.held:
        raise Signalled(StopState.signum)


def hold_stops() -> None:
    """Defer stops for the rest of the run (the CLI, once it is reporting how the run ended)."""
    StopState.held += 1


@contextlib.contextmanager
def signals_held(block: bool = False) -> Iterator[None]:
    """Hold SIGINT and SIGTERM back while the block runs: they are recorded, and raised when the
    block ends normally (an exception already on its way is not replaced).

    ``block``: also block SIGINT in this thread (``pthread_sigmask``), so that processes and threads
    started in the block begin with it blocked (worker pools then ignore it: the parent stops them).
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = None
    if block and hasattr(signal, "pthread_sigmask"):
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    StopState.held += 1
    try:
        yield
    finally:
        if old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)  # a pending SIGINT is recorded now
        StopState.held -= 1
    check_stop()


_NUMPY_READY: list[bool] = []


def polars_numpy_ready() -> None:
    """Make polars' NumPy interop ready with stops held. The first time polars turns a Series into
    a NumPy array it loads NumPy's C API, calling back into Python (NumPy's version check); a stop
    raised there comes back to polars' Rust code as an error it does not expect: a panic and a
    150-line backtrace on stderr instead of the one line. Call this before ``to_numpy()``."""
    if _NUMPY_READY:
        return
    import polars as pl

    with signals_held():
        pl.Series([0]).to_numpy()
        _NUMPY_READY.append(True)
