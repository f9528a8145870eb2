"""The pre-endgame with one tile in the bag, solved exactly by enumerating the draws.

The side on turn holds rack R; the tiles it cannot see are U, the opponent's rack and the one tile
in the bag (``|U|`` = the opponent's rack size + 1). For each candidate play m (the best ``n`` by
static equity with a leave table, else by score) and each distinct tile b of U, weighted by how many
of it U holds (weight count(b) / |U|, so the weights sum to 1):

- the opponent's rack is U - b;
- m is played and, as it placed at least one tile, the side on turn draws b: the bag is now empty;
- that position, the opponent on turn, is an endgame solved exactly by
  :class:`gamecore.endgame.Endgame`; its value negated is m's outcome for draw b.

m's value is the weighted mean of its outcomes (the final spread from the side on turn's view, the
given scores included); wins, draws and losses count the tiles of U whose outcome is above, at or
below 0. The best candidate has the highest value (ties: the earlier in the candidate order).

Passes and exchanges are not candidates: after a pass the opponent is on turn with a tile still in
the bag and a rack it cannot see, which is not an endgame, and an exchange from a one-tile bag
(allowed only where the rule set's ``exchange_min_bag`` is 0 or 1) likewise leaves one tile in the
bag; :func:`gamecore.game_state.exchange_refusal` says when one would be allowed.

Each endgame solve gets ``seconds`` (as :meth:`gamecore.endgame.Endgame.solve`); the result keeps
the smallest depth completed and whether every solve was proved to the end of the game.
Deterministic: no randomness; candidates and draws in a fixed order (a time limit excepted).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

from gamecore.errors import UsageError

#: candidate plays by default
DEFAULT_CANDIDATES = 10


@dataclass(frozen=True)
class DrawOutcome:
    """One bag tile ``tile`` (``?`` = blank), held ``count`` times by U: the endgame's value from the
    side on turn's view, its depth and whether it was proved."""

    tile: str
    count: int
    value: int
    depth: int
    proved: bool


@dataclass
class PreendgameCandidate:
    """One candidate play: its mean value over the draws (exact as a fraction), the tiles of U whose
    draw wins, draws and loses for the side on turn, and the outcome of each distinct draw."""

    play: object  # gamecore.play.ScoredPlay
    equity: float
    mean: Fraction
    wins: int
    draws: int
    losses: int
    outcomes: list[DrawOutcome] = field(default_factory=list)

    @property
    def value(self) -> float:
        return float(self.mean)

    @property
    def proved(self) -> bool:
        return all(o.proved for o in self.outcomes)

    @property
    def depth(self) -> int:
        return min((o.depth for o in self.outcomes), default=0)


@dataclass
class PreendgameResult:
    """Candidates best first (value descending, then candidate order); ``weights``: each distinct
    bag tile's probability (count / |U|, summing to 1); ``unseen``: U in tile order."""

    candidates: list[PreendgameCandidate]
    weights: dict[str, Fraction]
    unseen: list[str]
    nodes: int
    seconds: float
    spread: int

    @property
    def best(self) -> PreendgameCandidate | None:
        return self.candidates[0] if self.candidates else None

    @property
    def proved(self) -> bool:
        return all(c.proved for c in self.candidates)

    @property
    def depth(self) -> int:
        return min((c.depth for c in self.candidates), default=0)


def draw_weights(unseen: Sequence[str]) -> dict[str, Fraction]:
    """Each distinct tile of ``unseen`` and the chance that it is the one in the bag (count / |U|)."""
    if not unseen:
        raise UsageError("the pre-endgame needs unseen tiles: the opponent's rack and the one in the bag")
    counts = Counter(unseen)
    return {t: Fraction(c, len(unseen)) for t, c in counts.items()}


def candidate_plays(board, rack: Sequence[str], kwg, alphabet: Sequence[str], rules, n: int, leaves=None, unseen=()):
    """The best ``n`` plays: by static equity with a leave table (:func:`gamecore.equity.rank`, one tile
    in the bag), else by score; as (play, equity) pairs."""
    from gamecore.best import generate_plays

    plays = generate_plays(board, list(rack), kwg, list(alphabet), rules)
    if leaves is None:
        return [(p, float(p.score)) for p in plays[:n]]
    from gamecore.equity import rank

    # the opponent's rack as rank() counts the bag: every unseen tile but one
    opp = list(unseen)[:-1]
    rows = [r for r in rank(board, list(rack), plays, leaves, rules, opp) if r.kind == "play"]
    return [(r.play, r.equity) for r in rows[:n]]


def solve_preendgame(
    board,
    rack: Sequence[str],
    unseen: Sequence[str],
    kwg,
    alphabet: Sequence[str],
    rules,
    scores: tuple[int, int] = (0, 0),
    candidates: int = DEFAULT_CANDIDATES,
    leaves=None,
    plies: int | None = None,
    seconds: float | None = None,
    stop=None,
) -> PreendgameResult:
    """Solve the pre-endgame (see the module docstring). ``rack``: the side on turn's; ``unseen``: the
    opponent's rack and the bag's one tile together; ``scores``: (on turn, opponent); ``plies`` and
    ``seconds``: each endgame solve's limits.

    Raises:
        UsageError: an empty U, or rules the endgame solver does not model.
    """
    from gamecore.endgame import Endgame
    from gamecore.play import apply_play

    if candidates < 1:
        raise UsageError("--candidates must be at least 1")
    weights = draw_weights(unseen)
    order = [t for t in sorted(weights, key=lambda t: (t == "?", t))]
    t0 = time.monotonic()
    nodes = 0
    out: list[PreendgameCandidate] = []
    for play, equity in candidate_plays(board, rack, kwg, alphabet, rules, candidates, leaves, unseen):
        after = apply_play(board, play)
        kept = play.leave(rack)
        outcomes = []
        for b in order:
            opp = list(unseen)
            opp.remove(b)
            mine = kept + [b]
            eg = Endgame(after, (opp, mine), kwg, alphabet, rules, (scores[1], scores[0] + play.score), 0, (0, 0))
            r = eg.solve(plies=plies, seconds=seconds, stop=stop)
            nodes += r.nodes
            outcomes.append(DrawOutcome(b, Counter(unseen)[b], -r.value, r.depth, r.proved))
        mean = sum((weights[o.tile] * o.value for o in outcomes), Fraction(0))
        wins = sum(o.count for o in outcomes if o.value > 0)
        draws = sum(o.count for o in outcomes if o.value == 0)
        losses = sum(o.count for o in outcomes if o.value < 0)
        out.append(PreendgameCandidate(play, equity, mean, wins, draws, losses, outcomes))
    ranked = sorted(enumerate(out), key=lambda ic: (-ic[1].mean, ic[0]))
    return PreendgameResult(
        [c for _, c in ranked],
        weights,
        [t for t in order for _ in range(Counter(unseen)[t])],
        nodes,
        time.monotonic() - t0,
        scores[0] - scores[1],
    )
