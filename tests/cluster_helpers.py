"""A Dask worker plugin for tests: makes the worker process die (``os._exit``) when it replays a
file whose name contains ``match`` — every time, or only the first time across the cluster
(``once``: the first worker to create the file ``flag``). Patched into each worker as it starts
(restarted workers too), so the code under test is the real one."""

from __future__ import annotations

import os

from distributed.diagnostics.plugin import WorkerPlugin


class Saboteur(WorkerPlugin):
    name = "skrafl-saboteur"

    def __init__(self, match: str, flag: str | None = None):
        self.match = match
        self.flag = flag

    def setup(self, worker):
        import pipelines.replay.run as run

        original = getattr(run, "_original_replay_file", run.replay_file)
        run._original_replay_file = original
        match, flag = self.match, self.flag

        def replay_file(path, opts):
            name = path[0] if isinstance(path, tuple) else path
            if match in os.path.basename(name):
                if flag is None:
                    os._exit(17)
                try:
                    os.close(os.open(flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                    os._exit(17)
                except FileExistsError:
                    pass
            return original(path, opts)

        run.replay_file = replay_file
