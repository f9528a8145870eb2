"""Monte Carlo simulation of a position's best candidates (``skrafl best --sim``, autoplay's ``sim``).

The candidates are the best ``candidates`` moves by static equity (:class:`gamecore.best.EquitySearch`,
exchanges included). One iteration draws, from the tiles unseen by the side on turn (the tile set less
the board and its rack; an opponent's rack given by the position is kept and only filled up), the
opponent's rack and the order of the bag, with ``random.Random`` seeded by ``(seed, iteration)``; then
every candidate still in the race is played on that same draw (common random numbers: differences
between candidates are not blurred by differences between draws), followed by ``plies`` moves of the
static-equity player for each side in turn (the opponent first), drawing from the sampled bag.

The value of one iteration for a candidate (MAGPIE ``rv_sim_sample``, in thousandths of a point): the
change of the spread (our points less the opponent's, the candidate's score included, with the
going-out bonus of the rules when a side goes out), plus the leave value of the tiles each of the last
two moves kept (ours added, the opponent's subtracted; with one ply, the candidate's own leave too).
The win probability of an iteration: the game's result when it ended, else the win model's
(:class:`WinModel`) probability for the side on turn at the end, from its spread plus that leftover and
the tiles it cannot see (the bag and the other rack).

Early stop (best-arm identification on paired differences): every ``batch`` iterations, once at least
``min_iterations`` are done, the leader is the candidate with the highest mean; a candidate is dropped
when the leader's mean advantage over it on the same draws is more than ``z`` standard errors above zero
(the one-sided test at 99 % for the default ``z`` = 2.576). The run ends when one candidate is left, or
the budget (``iterations``, or ``seconds`` of wall time checked between batches) is spent. The order
(MAGPIE's, :func:`compare_simulated`): the candidates still in the race by mean win probability, the
higher mean equity first between two equal ones or two both within 0.005 % of a certain loss or win
(by mean equity when there is no win model); then the dropped ones, latest first. The first is the
simulated best: what ``best --sim`` lists first and autoplay's ``sim`` player plays.

Determinism: an iteration is a function of ``(seed, iteration)``; the batches are cut at the same
iteration counts whatever the number of workers, so ``iterations`` and ``seed`` give byte-identical
results at any ``workers``. With ``seconds`` the number of iterations depends on the machine's speed.

Not modelled: rules the equity search cannot play (folded tiles, ``min_word_length`` above 2, blank
swaps, letter-valued blanks), an end by scoreless turns within the plies, more than two players.
"""

from __future__ import annotations

import functools
import json
import math
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from gamecore.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gamecore.equity import Ranked

#: the default z of the early stop (one-sided 99 %)
Z_DEFAULT = 2.576
WIN_MODELS = Path(__file__).resolve().parent / "data" / "win_models.json"


@dataclass(frozen=True)
class WinModel:
    """The probability that the side on turn wins, from its spread (points, its leave's value
    included) and the tiles it cannot see (bag and the other rack): a logistic curve
    ``1 / (1 + exp(-(spread + turn) / (scale + per_tile x unseen)))`` fitted by
    :func:`fit_win_model` to positions of self-play games (``turn``: what being on turn is worth)."""

    turn: float
    scale: float
    per_tile: float
    source: str = ""

    def probability(self, spread: float, unseen: int) -> float:
        width = self.scale + self.per_tile * unseen
        x = (spread + self.turn) / (width if width > 0.5 else 0.5)
        if x > 40:
            return 1.0
        if x < -40:
            return 0.0
        return 1.0 / (1.0 + math.exp(-x))


def win_model(language: str) -> WinModel | None:
    """The win model shipped for a language (:data:`WIN_MODELS`), or None."""
    try:
        data = json.loads(WIN_MODELS.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    got = data.get(language)
    if not got:
        return None
    return WinModel(float(got["turn"]), float(got["scale"]), float(got["per_tile"]), got.get("source", ""))


def fit_win_model(samples: Sequence[tuple[int, int, float]], source: str = "") -> WinModel:
    """Fit :class:`WinModel` by maximum likelihood (Newton steps on the three parameters, numeric
    derivatives) to ``(spread, unseen, won)`` samples: the spread of the side on turn, the tiles it
    cannot see, and 1, 0.5 or 0 for its final result."""
    if len(samples) < 10:
        raise UsageError("fitting a win model needs at least 10 positions")

    groups: dict[tuple[int, int], list[float]] = {}  # (spread, unseen) -> [positions, wins]
    for s, u, w in samples:
        g = groups.setdefault((int(s), int(u)), [0.0, 0.0])
        g[0] += 1
        g[1] += w
    rows = sorted((s, u, n, w) for (s, u), (n, w) in groups.items())

    def loss(p):
        turn, scale, per = p
        total = 0.0
        for s, u, n, w in rows:
            width = max(scale + per * u, 0.5)
            x = (s + turn) / width
            # log(1 + exp(-x)) and log(1 + exp(x)), stably
            lp = -x if x < -30 else math.log1p(math.exp(-x)) if x < 30 else math.exp(-x)
            lq = x if x > 30 else math.log1p(math.exp(x)) if x > -30 else math.exp(x)
            total += w * lp + (n - w) * lq
        return total / len(samples)

    p = [0.0, 20.0, 0.5]
    steps = [0.5, 1.0, 0.02]
    best = loss(p)
    for _ in range(60):  # coordinate search with shrinking steps: robust, a few thousand evaluations
        moved = False
        for i in range(3):
            for sign in (1, -1):
                q = list(p)
                q[i] += sign * steps[i]
                v = loss(q)
                if v < best:
                    p, best, moved = q, v, True
                    break
        if not moved:
            steps = [s / 2 for s in steps]
            if max(steps) < 1e-3:
                break
    return WinModel(round(p[0], 4), round(p[1], 4), round(p[2], 5), source)


def win_samples(result) -> list[tuple[int, int, float]]:
    """From one finished two-player game (:class:`gamecore.autoplay.GameResult`), one sample per
    tile play, exchange or pass before it is made: ``(spread of the side on turn, tiles it cannot
    see, its final result 1/0.5/0)``, for :func:`fit_win_model`."""
    from gamecore.game_state import Exchange, Pass, Play

    state = result.state
    if state.players != 2 or state.over is None:
        return []
    winner = state.winner()
    total = state.tile_set.total
    scores = [0, 0]
    placed = 0
    out = []
    for rec in state.history:
        ev = rec.event
        p = ev.player
        if isinstance(ev, (Play, Exchange, Pass)):
            won = 0.5 if winner is None else 1.0 if winner == p else 0.0
            out.append((scores[p] - scores[1 - p], total - placed - len(rec.rack), won))
        scores[p] += rec.score
        if isinstance(ev, Play):
            placed += ev.play.tiles_placed
    return out


@dataclass
class Candidate:
    """One simulated move: ``ranked`` its static-equity row (:class:`gamecore.equity.Ranked`)."""

    ranked: Ranked
    values: list[int] = field(default_factory=list)  # per iteration, thousandths
    wins: list[float] = field(default_factory=list)
    dropped_at: int | None = None  # the iteration count when it was dropped

    @property
    def iterations(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return sum(self.values) / len(self.values) / 1000 if self.values else 0.0

    @property
    def stderr(self) -> float:
        n = len(self.values)
        if n < 2:
            return float("inf") if n == 0 else 0.0
        s, ss = sum(self.values), sum(v * v for v in self.values)
        var = max(ss - s * s / n, 0) / (n - 1) / 1e6
        return math.sqrt(var / n)

    @property
    def win(self) -> float:
        return sum(self.wins) / len(self.wins) if self.wins else 0.0


@dataclass
class SimResult:
    """The candidates in their final order (the first is the simulated best), the iterations run
    (of the longest-lived candidate) and why it stopped (``one left``, ``iterations``, ``seconds``)."""

    candidates: list[Candidate]
    iterations: int
    stopped: str


def paired_drop(leader: Candidate, other: Candidate, z: float) -> bool:
    """Whether ``other`` is clearly below ``leader`` on the iterations both ran (the same draws):
    the mean of the differences more than ``z`` standard errors above zero."""
    n = min(len(leader.values), len(other.values))
    if n < 2:
        return False
    d = [a - b for a, b in zip(leader.values[:n], other.values[:n], strict=True)]
    s = sum(d)
    ss = sum(x * x for x in d)
    var = max(ss - s * s / n, 0) / (n - 1)
    if var == 0:
        return s > 0
    return s / n > z * math.sqrt(var / n)


class Simulator:
    """Simulation for one lexicon, rule set and leave table (:mod:`gamecore.simulation`).

    Raises:
        UsageError: rules the equity search cannot play (see the module), a tile set with letters
        the lexicon lacks.
    """

    def __init__(self, bundle, rules, leaves, model: WinModel | None = None, folded: bool = False):
        from gamecore import equity, movegen
        from gamecore.best import equity_search

        self.bundle, self.rules, self.leaves = bundle, rules, leaves
        self.search = equity_search(bundle, rules, leaves, folded)
        if not self.search.plain:
            raise UsageError(
                f"simulation plays the static-equity player in C, which does not model the rule set {rules.name} "
                "with this lexicon (folded tiles, words shorter than 2 letters refused, blank swaps or letter-valued blanks)"
            )
        self.model = model
        ts = self.tile_set = rules.tiles()
        alphabet = bundle.alphabet
        self.idx = {label: i for i, label in enumerate(alphabet, 1)}
        missing = [t for t in ts.letters if ts.counts.get(t, 0) and t not in self.idx]
        if missing:
            raise UsageError(f"simulation: the tile set {ts.name} has letters the lexicon lacks: {' '.join(missing)}")
        self.values = [0] * 128
        for label, i in self.idx.items():
            self.values[i] = ts.value(label)
        self.klv_tiles, self.vowels = leaves.for_lexicon(alphabet)
        self.native = leaves.native()
        self.layout = rules.layout()
        self.pen = equity.opening_penalties(self.layout)
        self.tile_values = [0] + [ts.value(label) for label in alphabet]
        self.pos = movegen.Position(bundle.kwg, self.layout, self.tile_values, rules.bingo_bonus, rules.bingo_min_tiles)
        self.work = movegen.Position(bundle.kwg, self.layout, self.tile_values, rules.bingo_bonus, rules.bingo_min_tiles)
        self.bingo_index = bundle.kwg.bingo_index(rules.bingo_min_tiles) if rules.bingo_bonus > 0 else None
        self._leave_cache: dict[tuple[int, ...], int] = {}
        self.size = self.layout.size
        self.rack_size = rules.rack_size

    # -- tiles ----------------------------------------------------------------------------------
    def code(self, label: str) -> int:
        """A rack label as a tile code: 0 the blank, else the lexicon's tile number."""
        if label == "?":
            return 0
        i = self.idx.get(label)
        if i is None:
            raise UsageError(f"tile {label!r} is not in the lexicon's alphabet")
        return i

    def leave_value(self, tiles: Sequence[int]) -> int:
        """The leave file's value of kept tiles (codes), thousandths (0 for none)."""
        if not tiles:
            return 0
        key = tuple(sorted(tiles))
        v = self._leave_cache.get(key)
        if v is None:
            kt = self.klv_tiles
            v = self._leave_cache[key] = self.leaves.klv.milli(tuple(sorted(kt[t] if t else 0 for t in key)))
        return v

    def unseen(self, board, rack: Sequence[str], opponent: Sequence[str] = ()) -> list[int]:
        """The tiles the side on turn cannot see as codes, in a fixed order: the tile set less the
        board's tiles, its rack and the opponent's known tiles."""
        ts = self.tile_set
        left = {t: n for t, n in ts.counts.items() if n}
        left["?"] = ts.blanks
        for t, n in board.used_counts().items():
            left[t] = left.get(t, 0) - n
        for t in list(rack) + list(opponent):
            left[t] = left.get(t, 0) - 1
        bad = [t for t, n in left.items() if n < 0]
        if bad:
            raise UsageError(f"board and racks hold more {bad[0]!r} tiles than the tile set {ts.name} has")
        out: list[int] = []
        for t in ["?", *ts.letters]:
            out += [self.code(t)] * left.get(t, 0)
        return out

    # -- one side's best move -------------------------------------------------------------------
    def _best(self, pos, rack: list[int], bag: int, other: list[int]):
        """The static-equity player's move on ``pos``: ``(kind, raw move or kept codes, score, kept)``
        (kind ``play``, ``exchange`` or ``pass``)."""
        counts = [0] * (len(self.tile_values))
        blanks = 0
        for t in rack:
            if t:
                counts[t] += 1
            else:
                blanks += 1
        rules = self.rules
        outplay = 0 if bag else 2000 * sum(self.values[t] for t in other)
        from gamecore.game_state import exchange_refusal

        nex = (
            1
            if bag + len(other) - self.rack_size >= max(rules.exchange_min_bag, 1) and exchange_refusal(rules, bag, 1) is None
            else 0
        )
        plays, eqs, exch = pos.equity(
            counts,
            blanks,
            self.native,
            self.klv_tiles,
            bag=bag,
            outplay=outplay,
            vowels=self.vowels,
            pen_across=self.pen[0],
            pen_down=self.pen[1],
            exchanges=nex,
            limit=1,
            prune=True,
            bingo_index=self.bingo_index,
        )
        if exch and (not plays or exch[0][0] > eqs[0]):
            kept = list(exch[0][1])
            if exchange_refusal(rules, bag, len(rack) - len(kept)) is None:
                return "exchange", None, 0, kept
        if plays:
            return "play", plays[0], plays[0][4], None
        return "pass", None, 0, list(rack)

    # -- the run --------------------------------------------------------------------------------
    def candidates(self, board, rack: Sequence[str], opponent: Sequence[str], n: int) -> list:
        """The best ``n`` moves by static equity (:class:`gamecore.equity.Ranked`)."""
        from gamecore.best import check_tiles

        check_tiles(board, rack, self.rules)
        got = self.search.rank(board, rack, opponent, n)
        if got is None:
            raise UsageError("simulation: a rack tile is not in the lexicon's alphabet")
        return got

    def prepare(self, board, rack: Sequence[str], opponent: Sequence[str], ranked: Sequence) -> "_Setup":
        from gamecore.best import encode_grid

        grid = encode_grid(board, self.bundle.alphabet)
        flat = bytes(v for row in grid for v in row)
        rack_codes = [self.code(t) for t in rack]
        opp_codes = [self.code(t) for t in opponent]
        unseen = self.unseen(board, rack, opponent)
        moves = []
        for r in ranked:
            if r.kind == "play":
                p = r.play
                letters = bytes(self.code(t.label) | (64 if t.blank else 0) for t in p.word)
                kept = [self.code(t) for t in r.leave]
                moves.append(("play", p.row, p.col, p.across, letters, p.score, kept))
            else:
                moves.append(("exchange", 0, 0, False, b"", 0, [self.code(t) for t in r.leave]))
        return _Setup(flat, rack_codes, opp_codes, unseen, moves, board.is_empty())

    def positions(self, setup: "_Setup", grid) -> None:
        """The boards of a run, in C: ``setup.root`` the position, ``setup.after`` each candidate's
        board after it (the root for an exchange)."""
        from gamecore import movegen

        r = self.rules
        setup.root = movegen.Position(self.bundle.kwg, self.layout, self.tile_values, r.bingo_bonus, r.bingo_min_tiles)
        setup.root.sync(grid)
        setup.after = []
        for kind, row, col, across, letters, _, _ in setup.moves:
            if kind != "play":
                setup.after.append(setup.root)
                continue
            p = movegen.Position(self.bundle.kwg, self.layout, self.tile_values, r.bingo_bonus, r.bingo_min_tiles)
            p.copy_from(setup.root)
            p.place(row, col, across, letters)
            setup.after.append(p)

    def iterate(self, setup: "_Setup", which: Sequence[int], seed: int, i: int, plies: int, pos=None) -> list[tuple[int, float]]:
        """Iteration ``i`` for the candidates ``which``: ``(value in thousandths, win probability)``
        each, searched on ``pos`` (the simulator's own board when None; a thread brings its own)."""
        if pos is None:
            pos = self.work
        rng = random.Random(f"{seed}:{i}")
        pool = list(setup.unseen)
        rng.shuffle(pool)
        need = self.rack_size - len(setup.opp)
        opp0 = setup.opp + pool[:need]
        bag0 = pool[need:]
        xrng_seed = rng.getrandbits(64)
        out = []
        for c in which:
            out.append(self._one(pos, setup, c, opp0, bag0, xrng_seed, plies))
        return out

    def _one(self, pos, setup, c, opp0, bag0, xseed, plies) -> tuple[int, float]:
        kind, _, _, _, _, score, kept = setup.moves[c]
        grid = bytearray(setup.grid)
        bag = list(bag0)
        mine = self._play_candidate(pos, setup, c, grid, bag, xseed)
        spread = score if kind == "play" else 0  # ours less the opponent's, thousandths are added at the end
        leftover = self.leave_value(kept) if plies == 1 else 0
        racks = [mine, list(opp0)]  # 0: us, 1: the opponent
        over = False
        if kind == "play" and not bag and not mine:  # the candidate went out
            spread += 2 * sum(self.values[t] for t in racks[1])
            over = True
        side = 1
        for ply in range(plies):
            if over:
                break
            mscore, mkept, out = self._reply(pos, grid, racks, side, bag, xseed, ply, last=ply == plies - 1)
            sign = 1 if side == 0 else -1
            spread += sign * mscore
            if ply >= plies - 2:
                leftover += sign * self.leave_value(mkept)
            if out:
                spread += sign * 2 * sum(self.values[t] for t in racks[1 - side])
                over = True
            side = 1 - side
        return spread * 1000 + leftover, self._win(setup.spread + spread, leftover, over, len(bag) + len(racks[1 - side]), side)

    def _play_candidate(self, pos, setup, c, grid: bytearray, bag: list[int], xseed: int) -> list[int]:
        """Candidate ``c`` made on ``pos`` and ``grid`` (an exchange: its tiles back in ``bag``,
        shuffled); our rack after it, refilled from ``bag``."""
        kind, row, col, across, letters, _, kept = setup.moves[c]
        mine = list(kept)
        if kind == "play":
            pos.copy_from(setup.after[c])  # the board after the candidate, made once per run
            step = 1 if across else self.size
            sq = row * self.size + col
            for b in letters:
                grid[sq] = b
                sq += step
            take = self.rack_size - len(mine)
            mine += bag[:take]
            del bag[:take]
            return mine
        pos.copy_from(setup.root)
        gone = list(setup.rack)
        for t in kept:
            gone.remove(t)
        mine += bag[: len(gone)]
        del bag[: len(gone)]
        bag += gone
        random.Random(xseed).shuffle(bag)
        return mine

    def _reply(self, pos, grid: bytearray, racks: list[list[int]], side: int, bag: list[int], xseed: int, ply: int, last: bool):
        """The static-equity player's move for ``side``, made on ``pos`` (not after the ``last``
        ply) and ``grid``, its rack refilled from ``bag``: ``(score, tiles kept, went out)``."""
        rack = racks[side]
        mkind, raw, mscore, mkept = self._best(pos, rack, len(bag), racks[1 - side])
        if mkind == "play":
            r, c, acr, lets = raw[0], raw[1], raw[2], raw[3]
            step = 1 if acr else self.size
            sq = r * self.size + c
            mkept = list(rack)
            for b in lets:
                if not grid[sq]:
                    mkept.remove(0 if b & 64 else b)
                    grid[sq] = b
                sq += step
            if not last:
                pos.place(r, c, acr, bytes(lets))
            rack[:] = mkept
            take = self.rack_size - len(rack)
            rack += bag[:take]
            del bag[:take]
        elif mkind == "exchange":
            gone = list(rack)
            for t in mkept:
                gone.remove(t)
            rack[:] = list(mkept) + bag[: len(gone)]
            del bag[: len(gone)]
            bag += gone
            random.Random(xseed + ply + 1).shuffle(bag)
        return mscore, mkept, mkind == "play" and not bag and not rack

    def _win(self, final: int, leftover: int, over: bool, unseen: int, side: int) -> float:
        """An iteration's win probability for us: the result when the game ended, else the win
        model's for the side on turn (``side``) at the spread ``final`` plus the leftover."""
        if over:
            return 1.0 if final > 0 else 0.5 if final == 0 else 0.0
        if self.model is None:
            return float("nan")
        ours = final + leftover / 1000
        p = self.model.probability(ours if side == 0 else -ours, unseen)
        return p if side == 0 else 1.0 - p

    def run(
        self,
        board,
        rack: Sequence[str],
        opponent: Sequence[str] = (),
        spread: int = 0,
        *,
        candidates: int = 10,
        plies: int = 2,
        iterations: int | None = None,
        seconds: float | None = None,
        seed: int = 0,
        workers: int = 1,
        threads: int = 1,
        min_iterations: int = 64,
        batch: int = 32,
        z: float = Z_DEFAULT,
        ranked: Sequence | None = None,
    ) -> SimResult:
        """Simulate the best ``candidates`` moves (see the module). ``spread``: the side on turn's
        score less the opponent's (for the win probability); ``ranked``: the candidates when the
        caller has them. Budget: ``iterations`` (default 1,000 when neither is given) or ``seconds``.
        ``threads`` searches in threads of this process (the C search runs without the GIL),
        ``workers`` in forked processes; either way the results are those of one thread."""
        iterations = check_budget(plies, candidates, iterations, seconds, workers, threads)
        if ranked is None:
            ranked = self.candidates(board, rack, opponent, candidates)
        cands = [Candidate(r) for r in ranked]
        if len(cands) <= 1:
            return SimResult(cands, 0, "one left")
        setup = self.prepare(board, rack, opponent, ranked)
        setup.spread = spread
        from gamecore.best import encode_grid

        self.positions(setup, encode_grid(board, self.bundle.alphabet))
        race = _Race(cands, z)
        start = time.monotonic()
        if workers > 1:
            pool: _Serial | _Threads | _Pool = _Pool(self, setup, plies, seed, workers)
        elif threads > 1:
            pool = _Threads(self, setup, plies, seed, threads)
        else:
            pool = _Serial(self, setup, plies, seed)
        stopped = "iterations"
        failed = True
        try:
            while True:
                n = batch if iterations is None else min(batch, iterations - race.done)
                if n <= 0:
                    break
                race.add(pool.run(race.alive, race.done, race.done + n), min_iterations)
                if len(race.alive) == 1:
                    stopped = "one left"
                    break
                if seconds is not None and time.monotonic() - start >= seconds:
                    stopped = "seconds"
                    break
            failed = False
        finally:
            pool.close(failed)
        return SimResult(race.order(), race.done, stopped)


def check_budget(
    plies: int, candidates: int, iterations: int | None, seconds: float | None, workers: int, threads: int
) -> int | None:
    """The options of a run checked (one :class:`UsageError` line each); the iterations to run
    (1,000 when neither ``iterations`` nor ``seconds`` is given)."""
    if plies < 1:
        raise UsageError("--plies must be at least 1")
    if candidates < 1:
        raise UsageError("--candidates must be at least 1")
    if iterations is not None and iterations < 1:
        raise UsageError("--iterations must be at least 1")
    if seconds is not None and seconds <= 0:
        raise UsageError("--seconds must be above 0")
    if iterations is not None and seconds is not None:
        raise UsageError("give --iterations or --seconds, not both")
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    if threads < 1:
        raise UsageError("--threads must be at least 1")
    if workers > 1 and threads > 1:
        raise UsageError("give --threads or --workers, not both")
    if iterations is None and seconds is None:
        return 1000
    return iterations


class _Race:
    """The candidates' values as the iterations come in, and the early stop (see the module)."""

    def __init__(self, cands: list[Candidate], z: float) -> None:
        self.cands, self.z = cands, z
        self.alive = list(range(len(cands)))
        self.done = 0

    def add(self, rows: list[list[tuple[int, float]]], min_iterations: int) -> None:
        """One batch of iterations (a row per iteration, a pair per candidate still in the race),
        then the candidates clearly behind the leader dropped."""
        cands = self.cands
        for row in rows:
            for c, (v, w) in zip(self.alive, row, strict=True):
                cands[c].values.append(v)
                cands[c].wins.append(w)
        self.done += len(rows)
        if self.done < min_iterations:
            return
        leader = max(self.alive, key=lambda c: (cands[c].mean, -c))
        keep = []
        for c in self.alive:
            if c != leader and paired_drop(cands[leader], cands[c], self.z):
                cands[c].dropped_at = self.done
            else:
                keep.append(c)
        self.alive = keep

    def order(self) -> list[Candidate]:
        """Those still in the race in MAGPIE's order (:func:`compare_simulated`), then the dropped
        ones, latest first (then by mean)."""
        cands = self.cands

        def cmp(a: int, b: int) -> int:
            return compare_simulated(cands[a], cands[b]) or a - b

        alive = sorted(self.alive, key=functools.cmp_to_key(cmp))
        dropped = sorted(
            (c for c in range(len(cands)) if cands[c].dropped_at is not None),
            key=lambda c: (-(cands[c].dropped_at or 0), -cands[c].mean, c),
        )
        return [cands[c] for c in alive + dropped]


#: MAGPIE's default cutoff (0.005 %): two win probabilities both within it of 0, or both within it
#: of 1, count as equal (then equity decides)
WIN_CUTOFF = 0.00005


def compare_simulated(a: Candidate, b: Candidate, cutoff: float = WIN_CUTOFF) -> int:
    """MAGPIE's order of simulated moves (``compare_simmed_plays``): negative when ``a`` goes first.
    The higher mean win probability first; between two whose win probabilities are equal, or both
    within ``cutoff`` of a certain loss or of a certain win, the higher mean equity. Without win
    probabilities (no win model) the higher mean equity."""
    wa, wb = a.win, b.win
    if math.isnan(wa) or math.isnan(wb) or wa == wb or (wa <= cutoff and wb <= cutoff) or (wa >= 1 - cutoff and wb >= 1 - cutoff):
        return (b.mean > a.mean) - (b.mean < a.mean)
    return (wb > wa) - (wb < wa)


def _blocks(a: int, b: int, k: int) -> list[tuple[int, int]]:
    """Iterations ``a`` to ``b`` cut into at most ``k`` contiguous blocks, in order."""
    cuts = [a + (b - a) * j // k for j in range(k + 1)]
    return [(cuts[j], cuts[j + 1]) for j in range(k) if cuts[j + 1] > cuts[j]]


@dataclass
class _Setup:
    grid: bytes
    rack: list[int]
    opp: list[int]
    unseen: list[int]
    moves: list[tuple]
    empty: bool
    spread: int = 0
    root: object = None
    after: list = field(default_factory=list)


class _Serial:
    """Iterations run one after the other on the simulator's own board."""

    def __init__(self, sim, setup, plies, seed):
        self.args = (sim, setup, plies, seed)

    def run(self, alive, a, b):
        sim, setup, plies, seed = self.args
        return [sim.iterate(setup, alive, seed, i, plies) for i in range(a, b)]

    def close(self, failed: bool = False):
        pass


class _Threads:
    """Threads of this process running blocks of iterations, each on a board of its own (a
    :class:`gamecore.movegen.Position` searches without the GIL); the results come back in
    iteration order, so they are those of one thread."""

    def __init__(self, sim, setup, plies, seed, threads):
        from concurrent.futures import ThreadPoolExecutor

        from gamecore import movegen

        r = sim.rules
        self.args = (sim, setup, plies, seed)
        self.boards = [
            movegen.Position(sim.bundle.kwg, sim.layout, sim.tile_values, r.bingo_bonus, r.bingo_min_tiles)
            for _ in range(threads)
        ]
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="skrafl-sim")

    def _block(self, pos, alive, a, b):
        sim, setup, plies, seed = self.args
        return [sim.iterate(setup, alive, seed, i, plies, pos) for i in range(a, b)]

    def run(self, alive, a, b):
        futures = [
            self.pool.submit(self._block, pos, alive, lo, hi)
            for pos, (lo, hi) in zip(self.boards, _blocks(a, b, len(self.boards)), strict=False)
        ]
        return [row for f in futures for row in f.result()]

    def close(self, failed: bool = False):
        self.pool.shutdown(wait=True, cancel_futures=failed)


_WORKER: dict = {}


def _work(args):
    alive, a, b = args
    sim, setup, plies, seed = _WORKER["state"]
    return [sim.iterate(setup, alive, seed, i, plies) for i in range(a, b)]


class _Pool:
    """Worker processes (forked: they inherit the simulator) running blocks of iterations; the
    results come back in iteration order, so they are those of one process."""

    def __init__(self, sim, setup, plies, seed, workers):
        import multiprocessing

        _WORKER["state"] = (sim, setup, plies, seed)
        _WORKER["grid"] = setup.root.grid()
        self.workers = workers
        ctx = multiprocessing.get_context("fork")
        self.pool = ctx.Pool(workers, initializer=_init_worker)  # each worker makes its own boards

    def run(self, alive, a, b):
        parts = self.pool.map(_work, [(alive, lo, hi) for lo, hi in _blocks(a, b, self.workers)])
        return [row for part in parts for row in part]

    def close(self, failed: bool = False):
        if failed:
            self.pool.terminate()
        else:
            self.pool.close()
        self.pool.join()


def _init_worker():
    import signal

    from gamecore import movegen

    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent stops the run; a worker just ends
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    sim, setup, plies, seed = _WORKER["state"]
    r = sim.rules
    sim.positions(setup, _WORKER["grid"])
    sim.work = movegen.Position(sim.bundle.kwg, sim.layout, sim.tile_values, r.bingo_bonus, r.bingo_min_tiles)


#: autoplay's ``sim`` player: a small budget per move (candidates, iterations, plies)
AUTOPLAY_BUDGET = {"candidates": 5, "iterations": 96, "plies": 2}
_SIMULATORS: dict[tuple[int, int, int], Simulator] = {}


def autoplay_move(mover, state, leaves, rng: random.Random):
    """The ``sim`` player's move in self-play (:mod:`gamecore.autoplay`): while the bag has tiles, the
    best of :data:`AUTOPLAY_BUDGET`'s candidates by simulation (seeded from the game's move RNG);
    with an empty bag, or when only one candidate is left, the static-equity player's move. Returns a
    :class:`gamecore.equity.Ranked`, or None: the caller then plays as the equity player."""
    if not state.bag or state.players != 2:
        return None
    key = (id(mover.bundle), id(mover.rules), id(leaves))
    sim = _SIMULATORS.get(key)
    if sim is None or sim.leaves is not leaves or sim.bundle is not mover.bundle or sim.rules is not mover.rules:
        try:
            sim = _SIMULATORS[key] = Simulator(
                mover.bundle, mover.rules, leaves, win_model(mover.bundle.language), bool(mover.folded)
            )
        except UsageError:
            return None
    p = state.turn
    rack = state.racks[p]
    ranked = sim.search.rank(state.board, rack, (), AUTOPLAY_BUDGET["candidates"])
    if ranked is None:
        return None
    ranked = [r for r in ranked if r.kind == "play" or state.can_exchange(len(r.exchanged))]
    if len(ranked) <= 1:
        return ranked[0] if ranked else None
    seed = rng.getrandbits(64)
    spread = state.scores[p] - state.scores[1 - p]
    res = sim.run(
        state.board,
        rack,
        (),
        spread,
        iterations=AUTOPLAY_BUDGET["iterations"],
        plies=AUTOPLAY_BUDGET["plies"],
        seed=seed,
        ranked=ranked,
        min_iterations=32,
        batch=16,
    )
    return res.candidates[0].ranked
