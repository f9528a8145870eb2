"""Replay game logs on the rules engine and write the results as tables.

``replay_game`` replays one :class:`~gamecore.gamelog.Game` (GCG or Netskrafl record) move by move on
a replay board (:mod:`gamecore.replay_board`): every tile play is checked and re-scored by the
compiled scorer, and an illegal one gets its reason from :mod:`gamecore.play`, the oracle. Tiles
are checked against the recorded racks and the unseen pool (bag), the cumulative totals,
end-of-game adjustments (docs/RULES.md §3: 2× opponent's rack, or 1× plus the opponent's
penalty line in the older GCG style; −own rack after six scoreless turns; Netskrafl: never below 0,
resigner gets 0), challenge bonuses and withdrawn phonies are recomputed, and each word formed is
looked up in the lexicon when one is given (an unknown word is a finding about the lexicon, not a
game error).

Status of a game: ``ok`` (every recorded number reproduced), ``mismatch`` (read and replayed but a
recorded number or rack differs from the rules), ``error`` (cannot be read, or an illegal play).
In strict mode every fault is an error with its code (docs/GCG.md §8).

``run_replay`` does this for many files (``--workers N`` process pool, results in input order, so
outputs are deterministic) and streams ``games.parquet`` and ``moves.parquet`` into one output
folder committed whole at the end (memory stays flat: a row group per 4,096 games). One bad file
never costs the batch (any failure is its ``error`` row, a dead worker costs only the file that
killed it), and SIGINT/SIGTERM or the death of the parent stop every worker at once, the previous
output intact (see :mod:`.run`).

Modules, one concept each: :mod:`.read` (finding and reading game files), :mod:`.game` (replaying
one game: rules of a game, the replayer, the result), :mod:`.tables` (the tables' columns and
schemas, writing them and the GCG exports), :mod:`.run` (many files: the worker pool and
``run_replay``).
"""

from __future__ import annotations

from .game import GameResult, distribution_of, game_facts, replay_game, rules_for_game
from .read import collect_files, read_game_file
from .run import ReplayOptions, Stopped, replay_file, replay_run, replay_runs, run_replay
from .tables import (
    ANALYZE_COLUMNS,
    GAME_COLUMNS,
    GROUP_GAMES,
    MOVE_COLUMNS,
    UNREAD,
    GcgExporter,
    TableBatch,
    TableWriter,
    schemas,
    to_batch,
    write_exports,
    write_tables,
)

__all__ = [
    "ANALYZE_COLUMNS",
    "GAME_COLUMNS",
    "GROUP_GAMES",
    "MOVE_COLUMNS",
    "UNREAD",
    "GameResult",
    "GcgExporter",
    "ReplayOptions",
    "Stopped",
    "TableBatch",
    "TableWriter",
    "collect_files",
    "distribution_of",
    "game_facts",
    "read_game_file",
    "replay_file",
    "replay_game",
    "replay_run",
    "replay_runs",
    "rules_for_game",
    "run_replay",
    "schemas",
    "to_batch",
    "write_exports",
    "write_tables",
]
