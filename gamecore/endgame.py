"""The endgame: the bag is empty and both racks are known, so the rest of the game can be searched
exactly. :meth:`Endgame.solve` finds the best sequence and the final spread the side on turn reaches.

Search: negamax with alpha-beta over every play of the side on turn (from the compiled generator,
:class:`gamecore.movegen.Position`: one board per ply, the parent's copied into the child's with
``copy_from`` and the play placed, instead of taking tiles off) and the pass; move ordering (the
transposition table's move, then plays that go out, then by score); a transposition table keyed by
a Zobrist hash of the board, both racks, the side on turn and the scoreless-turn count (and the
scores, when the value depends on them); iterative deepening one ply at a time, up to ``plies`` or
until a depth's search reaches the end of the game on every line (the value is then exact:
``proved``); a time limit after which the last completed depth's result is returned. Near the
horizon (when the value is the spread, the own-passes rule aside) bounds replace searches: at the
horizon a play is worth its score (plus the bonus when it goes out), a ply before it at most its
score (the reply is worth at least a pass to the opponent), so such a node stops at the first play
that cannot raise alpha, and the pruned search for the top play alone settles it when that play goes
out (a one-tile rack always), cuts, or cannot raise alpha even going out. A ply's board is made only
when its search needs it (not for a transposition-table hit).

Values (the rule set's end conditions, as :class:`gamecore.game_state.GameState` applies them):

- going out: the player who goes out gains twice the opponent's rack under ``double_opponent_rack``;
  under ``others_racks`` the opponent loses the rack and the player gains it (the same spread);
- a play that reaches an Endline target (``end_targets``) ends the game, no rack adjustment;
- scoreless turns: a pass adds one, a play sets the count back to 0; the game ends after
  ``scoreless_turns_end`` of them (six for two players under most presets), or when a player has
  passed ``player_passes_end`` of their own turns in a row; each player then loses their own rack
  (``end_passes = "minus_own_rack"``);
- ``score_floor_zero``: final scores below 0 count as 0 (the value then depends on the scores, which
  join the hash).

Passes (MAGPIE's endgame, ``game_set_endgame_solving_mode``, ends the game at two scoreless turns in
a row): without the own-passes rule the value of a position depends only on whether one more
scoreless turn ends the game — with r turns left the player on turn either plays (the same plays
whatever r is) or passes, and by induction the values for r = 2, 3, 4, … are all that of r = 2 —
so the count is kept as 0 or 1 of an end at 2, as MAGPIE does; with the own-passes rule the counts
are kept exactly. A blank on a rack is worth 0. At the depth limit the value is the spread so far
(racks not counted).

The search runs in C (``gamecore/c/endgame.c``, ``_native.Endgame``: the same algorithm step for step,
its own transposition table of two-entry buckets); the Python search here is the reference it is
tested against (``solve(engine="python")``). The iterative deepening, the time limit and the result
are this module's for both.

``value`` is the final spread from the side on turn's view (its score minus the opponent's, the
given scores included); ``gain`` the spread it adds to the current one.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from gamecore.errors import UsageError

#: transposition-table bound kinds
_EXACT, _LOWER, _UPPER = 0, 1, 2
#: a depth that stands for "searched to the end of the game on every line"
_PROVED = 1 << 20
#: entries kept in the transposition table before it is cleared
TT_MAX = 2_000_000
_INF = 1 << 40
_PASSED = ("pass",)  # (a board to make that is its parent's)


class EndgameTimeout(Exception):
    """Raised inside the search when the time limit or a stop request ends it."""


@dataclass(frozen=True)
class EndgameMove:
    """One move of a sequence: a play (``coord``, ``word`` with played-through letters, ``score``) or
    a pass (``coord`` and ``word`` empty, score 0); ``player`` 0 = the side on turn at the start."""

    player: int
    coord: str
    word: str
    score: int
    tiles_placed: int
    out: bool = False

    @property
    def is_pass(self) -> bool:
        return not self.coord

    def text(self) -> str:
        return "(pass)" if self.is_pass else f"{self.coord} {self.word} {self.score}"


@dataclass
class EndgameResult:
    """What :meth:`Endgame.solve` found.

    Attributes:
        value: the final spread from the side on turn's view (given scores included).
        gain: ``value`` minus the spread now.
        sequence: the best moves of both sides from here (the principal variation).
        depth: plies searched completely (the last depth of the iterative deepening that finished).
        proved: every line of that depth reached the end of the game: ``value`` is exact.
        nodes: positions visited; seconds: wall time of the search.
        stopped: the time limit (or a stop) cut the search short.
        spread: the spread now (side on turn's score minus the opponent's); racks: both racks.
    """

    value: int
    gain: int
    sequence: list[EndgameMove]
    depth: int
    proved: bool
    nodes: int
    seconds: float
    stopped: bool = False
    spread: int = 0
    racks: tuple[str, str] = ("", "")


class Endgame:
    """An endgame to solve: the board, both racks (side on turn first), the scores (same order), the
    scoreless turns so far and each side's own passes in a row.

    Args:
        board: a :class:`gamecore.board.Board`.
        racks: (on turn, opponent): labels, ``?`` = blank.
        kwg, alphabet: the lexicon graph and its labels in tile-number order
            (:class:`gamecore.best.LexiconBundle`'s).
        rules: the :class:`gamecore.rules.RuleSet`.
        scores: (on turn, opponent).
        scoreless: consecutive scoreless turns before this position.
        passes: each side's own passes in a row (``player_passes_end``), (on turn, opponent).

    Raises:
        UsageError: a rule the solver does not model (added word premiums), a rack letter outside
            the lexicon's alphabet.
    """

    def __init__(
        self,
        board,
        racks: tuple[Sequence[str], Sequence[str]],
        kwg,
        alphabet: Sequence[str],
        rules,
        scores: tuple[int, int] = (0, 0),
        scoreless: int = 0,
        passes: tuple[int, int] = (0, 0),
    ):
        from gamecore import movegen
        from gamecore.best import encode_grid

        if rules.word_premiums != "multiply":
            raise UsageError(f"the endgame solver scores with multiplied word premiums; the rules of {rules.name} add them")
        self.board, self.rules, self.alphabet = board, rules, list(alphabet)
        ts = board.tile_set
        self.tile_set = ts
        idx = {label: i for i, label in enumerate(self.alphabet, 1)}
        self.values = [0] + [ts.value(label) for label in self.alphabet]
        self.racks = []
        for side, rack in enumerate(racks):
            counts = [0] * (len(self.alphabet) + 1)
            for t in rack:
                if t == "?":
                    counts[0] += 1
                elif t in idx:
                    counts[idx[t]] += 1
                else:
                    who = "the side on turn" if side == 0 else "the opponent"
                    raise UsageError(f"{who}'s rack holds {t}, a letter outside the lexicon's alphabet")
            self.racks.append(counts)
        self.rack_labels = (list(racks[0]), list(racks[1]))
        self.scores = (int(scores[0]), int(scores[1]))
        self.scoreless, self.passes = int(scoreless), (int(passes[0]), int(passes[1]))
        self.grid = encode_grid(board, self.alphabet)
        self.kwg = kwg
        self.layout = board.layout
        self._make_position = lambda: movegen.Position(
            kwg,
            board.layout,
            self.values,
            rules.bingo_bonus,
            rules.bingo_min_tiles,
            rules.blank_value == "letter",
            self.grid,
        )

    # ------------------------------------------------------------------ the search

    def solve(
        self,
        plies: int | None = None,
        seconds: float | None = None,
        stop=None,
        tt_max: int = TT_MAX,
        exact_passes: bool = False,
        clock=time.monotonic,
        engine: str = "c",
    ) -> EndgameResult:
        """The best sequence by iterative deepening to ``plies`` (None: to the end of the game), within
        ``seconds`` (None: no limit); ``stop()`` (optional) is called now and then and may raise to
        end the search (a stop signal). Deterministic: the same position gives the same result
        (a time limit excepted: where it cuts depends on the machine). ``exact_passes``: keep the
        scoreless-turn count as it is instead of MAGPIE's 0-or-1 (the same values, more positions;
        for checking). ``clock``: what ``seconds`` are measured on (``time.process_time``: CPU
        seconds, for measuring on a shared machine). ``engine``: ``"c"`` the search in C
        (``gamecore/c/endgame.c``), ``"python"`` the same search in Python (the reference the C one
        is tested against; the same values, slower)."""
        if engine not in ("c", "python"):
            raise ValueError(f"engine: 'c' or 'python', not {engine!r}")
        search = _NativeSearch if engine == "c" else _Search
        return search(self, tt_max, exact_passes, clock).run(plies, seconds, stop)


def _first_then(first, rest):
    """``first``, then the items of ``rest``."""
    yield first
    yield from rest


class _Search:
    def __init__(self, eg: Endgame, tt_max: int, exact_passes: bool = False, clock=time.monotonic):
        r = eg.rules
        self.eg = eg
        self.R, self.C = len(eg.grid), len(eg.grid[0])
        self.g = bytearray(v for row in eg.grid for v in row)
        self.vals = eg.values
        self.rk = [list(eg.racks[0]), list(eg.racks[1])]
        self.n = [sum(x) for x in self.rk]
        self.rv = [sum(c * v for c, v in zip(x[1:], eg.values[1:], strict=True)) for x in self.rk]
        self.sc = list(eg.scores)
        self.end_n = r.scoreless_turns_end(2)
        self.own_passes = r.player_passes_end
        self.target = r.end_target(2)
        self.floor = bool(r.score_floor_zero)
        self.additive = not self.floor and self.target is None
        self.exact_passes = bool(self.own_passes) or exact_passes
        self.tt: dict = {}
        self.tt_max = tt_max
        self.nodes = 0
        self.horizon = 0
        self.pos = [eg._make_position()]
        self.pend: list = [None]  # per ply: the move whose board is still to be made there
        self.deadline = None
        self.stop = None
        self.clock = clock
        self._init_hash()

    def _init_hash(self) -> None:
        """The Zobrist keys and the root's hash."""
        eg = self.eg
        rnd = random.Random(0x5EED_E4D6)
        bits = lambda: rnd.getrandbits(64)  # noqa: E731
        cells = self.R * self.C
        self.zb = [bits() for _ in range(cells * 128)]
        na = len(eg.alphabet) + 1
        self.zr = [[[bits() for _ in range(16)] for _ in range(na)] for _ in range(2)]
        for side in range(2):
            for letter in range(na):
                self.zr[side][letter][0] = 0
        self.zside = bits()
        self.zk = [bits() for _ in range(64)]
        self.zp = [[bits() for _ in range(64)] for _ in range(2)]
        h = 0
        for sq, v in enumerate(self.g):
            if v:
                h ^= self.zb[sq * 128 + v]
        for side in range(2):
            for letter, c in enumerate(self.rk[side]):
                h ^= self.zr[side][letter][min(c, 15)]
        self.h = h

    # ---------------------------------------------------------------- helpers

    def _position(self, d: int):
        while len(self.pos) <= d:
            self.pos.append(self.eg._make_position())
            self.pend.append(None)
        return self.pos[d]

    def _terminal_zeros(self, p: int) -> int:
        """The value for ``p`` when the game ends by scoreless turns now: each loses their own rack."""
        q = 1 - p
        if self.additive:
            return -self.rv[p] + self.rv[q]
        return self._final(self.sc[p] - self.rv[p], self.sc[q] - self.rv[q])

    def _final(self, mine: int, theirs: int) -> int:
        """The final spread from the final scores (when the value is not additive: absolute)."""
        if self.floor:
            mine, theirs = max(0, mine), max(0, theirs)
        return mine - theirs

    def _key(self, p: int, k: int, passes) -> int:
        h = self.h ^ (self.zside if p else 0) ^ self.zk[k]
        if self.exact_passes:
            h ^= self.zp[0][passes[0]] ^ self.zp[1][passes[1]]
        if not self.additive:
            h ^= hash((self.sc[0], self.sc[1])) * 0x9E3779B97F4A7C15 & 0xFFFFFFFFFFFFFFFF
        return h

    # ---------------------------------------------------------------- make / unmake

    def _make(self, d: int, p: int, m) -> list:
        """Place play ``m`` (a RawMove) of side ``p`` on board ``d + 1``; returns the undo record."""
        row, col, across, letters, score, placed = m
        self._position(d + 1)
        self.pend[d + 1] = m  # the board of ply d + 1 is made when a search there needs it
        g, C, rack, zb, zr = self.g, self.C, self.rk[p], self.zb, self.zr[p]
        step = 1 if across else C
        sq = row * C + col
        h = self.h
        new = []
        rv = 0
        for b in letters:
            if not g[sq]:
                g[sq] = b
                h ^= zb[sq * 128 + b]
                t = 0 if b & 64 else b
                c = rack[t]
                h ^= zr[t][c] ^ zr[t][c - 1]
                rack[t] = c - 1
                rv += 0 if t == 0 else self.vals[t]
                new.append(sq)
            sq += step
        self.h = h
        self.n[p] -= placed
        self.rv[p] -= rv
        self.sc[p] += score
        return new

    def _unmake(self, p: int, m, new: list) -> None:
        g, rack, zb, zr = self.g, self.rk[p], self.zb, self.zr[p]
        h = self.h
        rv = 0
        for sq in new:
            b = g[sq]
            g[sq] = 0
            h ^= zb[sq * 128 + b]
            t = 0 if b & 64 else b
            c = rack[t]
            h ^= zr[t][c] ^ zr[t][c + 1]
            rack[t] = c + 1
            rv += 0 if t == 0 else self.vals[t]
        self.h = h
        self.n[p] += m[5]
        self.rv[p] += rv
        self.sc[p] -= m[4]

    # ---------------------------------------------------------------- negamax

    def _negamax(self, d: int, p: int, k: int, passes: tuple, depth: int, alpha: int, beta: int, pv: list) -> int:
        """The value for side ``p`` on turn at ply ``d`` (relative to the spread now), ``k`` scoreless
        turns so far, ``depth`` plies left; ``pv`` receives the best line."""
        self.nodes += 1
        if self.nodes & 255 == 0:
            self._check_time()
        q = 1 - p
        key = self._key(p, k, passes)
        tt_move = None
        e = self.tt.get(key)
        if e is not None:
            e_depth, e_flag, e_value, tt_move = e
            if e_depth >= depth:
                if e_flag == _EXACT or (e_flag == _LOWER and e_value >= beta) or (e_flag == _UPPER and e_value <= alpha):
                    if tt_move is not None:
                        pv[:] = [(p, tt_move)]
                    else:
                        pv.clear()
                    self.horizon += e_depth < _PROVED
                    return e_value
        alpha0 = alpha
        horizon0 = self.horizon
        rack = self.rk[p]
        P = self.pos[d]
        m = self.pend[d]
        if m is not None:  # the board of this ply: the parent's, and the play that led here
            self.pend[d] = None
            P.copy_from(self.pos[d - 1])
            if m is not _PASSED:
                P.place(m[0], m[1], m[2], m[3])
        n_me = self.n[p]
        additive = self.additive
        out_bonus = 2 * self.rv[q]
        cut2 = additive and not self.exact_passes
        best = -_INF
        best_move = None
        child_pv: list = []
        pass_first = tt_move == "pass"
        # the pass (tried first when the table says so, else last)
        if pass_first:
            v = self._pass_value(d, p, k, passes, depth, -beta, -alpha, child_pv)
            best, best_move = v, "pass"
            pv[:] = [(p, "pass"), *child_pv]
            if v > alpha:
                alpha = v
        tt_first = None
        plays: Iterable[Any] | None = None  # the plays to search in order (None: settled without them)
        settled = False  # the plays are settled without listing them
        if depth <= 2 and (cut2 if depth == 2 else additive) and not pass_first:
            # at the horizon a play is worth its score, one that goes out its score + the bonus;
            # a ply before it at most its score (the reply is worth at least a pass), one that goes
            # out exactly its score + the bonus: the pruned search for the top play settles most
            # such nodes without listing every play
            top = P.top(rack, rack[0], limit=1)
            if not top:
                plays = ()
            else:
                m = top[0]
                s1 = m[4]
                settled = True
                if m[5] == n_me:  # the top play goes out: no other play is worth more
                    best, best_move = s1 + out_bonus, m
                    if n_me > 1:  # (the other plays' bound holds at this depth only)
                        self.horizon += 1
                elif depth == 1 and s1 >= beta:  # a cut
                    self.horizon += 1
                    best, best_move = s1, m
                elif s1 + out_bonus <= alpha:  # no play can raise alpha, even going out
                    self.horizon += 1
                    best, best_move = s1 + out_bonus, m
                else:
                    settled = False
                if settled:
                    pv[:] = [(p, m)]
                    if best > alpha:
                        alpha = best
        if settled or plays is not None:
            pass
        elif depth >= 2:
            # the order: the table's move, plays that go out (best score first), the rest by score
            outs: list[Any] = []
            rest: list[Any] = []
            for m in P.moves(rack, rack[0], sorted=True):
                (outs if m[5] == n_me else rest).append(m)
            ordered = outs + rest
            if tt_move is not None and not pass_first:
                for i, m in enumerate(ordered):
                    if m == tt_move:
                        if i:
                            ordered.insert(0, ordered.pop(i))
                        break
            plays = ordered
        else:
            # at the horizon: by score as generated (read one at a time); the table's move first
            plays = P.moves(rack, rack[0], sorted=True)
            if tt_move is not None and not pass_first:
                tt_first = tt_move
                plays = _first_then(tt_move, plays)
        if plays is not None and alpha < beta:
            if not additive:
                mine, theirs = self.sc[p], self.sc[q]
                if self.eg.rules.end_out == "others_racks":
                    out_mine, out_theirs = mine + self.rv[q], theirs - self.rv[q]
                else:
                    out_mine, out_theirs = mine + out_bonus, theirs
            child_passes = (0, passes[1]) if p == 0 else (passes[0], 0)
            first = True
            for m in plays:
                score = m[4]
                if tt_first is not None and not first and m == tt_first:
                    continue  # (tried first)
                if depth <= 1 and additive and score + out_bonus <= best:
                    # sorted by score: no later play can do better at the horizon (a bound that
                    # holds at this depth only, unless every play goes out)
                    if n_me > 1:
                        self.horizon += 1
                    break
                if depth == 2 and cut2 and score <= alpha and m[5] != n_me:
                    # the reply at the horizon is worth at least 0 to the opponent (a pass), so this
                    # play is worth at most its score, and so is every later one (lower scores; the
                    # plays that go out come first; the table's move, put first, excepted): none can
                    # raise alpha (fail-soft: that bound is what this node may be worth)
                    self.horizon += 1
                    if score > best:
                        best = score
                    if first and tt_move is not None:
                        first = False
                        continue
                    break
                first = False
                line: Sequence[Any] = ()
                if m[5] == n_me:  # goes out
                    v = score + out_bonus if additive else self._final(out_mine + score, out_theirs)
                elif self.target is not None and self.sc[p] + score >= self.target:
                    v = self._final(self.sc[p] + score, self.sc[q])
                elif depth <= 1:
                    v = score if additive else self.sc[p] + score - self.sc[q]
                    self.horizon += 1
                else:
                    new = self._make(d, p, m)
                    child_line: list[Any] = []
                    line = child_line
                    try:
                        if additive:
                            v = score - self._negamax(
                                d + 1, q, 0, child_passes, depth - 1, score - beta, score - alpha, child_line
                            )
                        else:
                            v = -self._negamax(d + 1, q, 0, child_passes, depth - 1, -beta, -alpha, child_line)
                    finally:
                        self._unmake(p, m, new)
                if v > best:
                    best, best_move = v, m
                    pv[:] = [(p, m), *line]
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
        if not pass_first and alpha < beta:
            child_pv = []
            v = self._pass_value(d, p, k, passes, depth, -beta, -alpha, child_pv)
            if v > best:
                best, best_move = v, "pass"
                pv[:] = [(p, "pass")] + child_pv
        flag = _UPPER if best <= alpha0 else _LOWER if best >= beta else _EXACT
        stored = _PROVED if self.horizon == horizon0 else depth
        if len(self.tt) >= self.tt_max:
            self.tt.clear()
        self.tt[key] = (stored, flag, best, best_move)
        return best

    def _pass_value(self, d: int, p: int, k: int, passes: tuple, depth: int, alpha: int, beta: int, pv: list) -> int:
        """The value for ``p`` of passing (``alpha``, ``beta``: the opponent's window)."""
        q = 1 - p
        k1 = k + 1
        mine = passes[p] + 1
        ends = k1 >= (self.end_n if self.exact_passes else 2) or (self.own_passes and mine >= self.own_passes)
        if ends:
            pv.clear()
            return self._terminal_zeros(p)
        if depth <= 1:
            pv.clear()
            self.horizon += 1
            return 0 if self.additive else self.sc[p] - self.sc[q]
        self._position(d + 1)
        self.pend[d + 1] = _PASSED
        np = (mine, passes[1]) if p == 0 else (passes[0], mine)
        return -self._negamax(d + 1, q, k1, np, depth - 1, alpha, beta, pv)

    def _check_time(self) -> None:
        if self.stop is not None:
            self.stop()
        if self.deadline is not None and self.clock() > self.deadline:
            raise EndgameTimeout

    # ---------------------------------------------------------------- iterative deepening

    def run(self, plies: int | None, seconds: float | None, stop) -> EndgameResult:
        eg = self.eg
        start = time.monotonic()
        self.deadline = self.clock() + seconds if seconds is not None else None
        self.stop = stop
        if self.exact_passes:
            k0 = min(eg.scoreless, 63)
        else:
            k0 = 1 if eg.scoreless + 1 >= self.end_n else 0
        passes0 = (min(eg.passes[0], 63), min(eg.passes[1], 63))
        # at most: every tile played one at a time with a pass between, and the passes that end it
        limit = 2 * (self.n[0] + self.n[1]) + (self.end_n if self.exact_passes else 2) + 1
        if plies is not None:
            limit = min(limit, max(1, int(plies)))
        best_pv: list = []
        best_value = 0
        done_depth = 0
        proved = False
        stopped = False
        for depth in range(1, limit + 1):
            pv: list = []
            h0 = self._horizon()
            try:
                self._check_time()
                v = self._root(depth, k0, passes0, pv)
            except EndgameTimeout:
                stopped = True
                break
            best_value, best_pv, done_depth = v, pv, depth
            if self._horizon() == h0:
                proved = True
                break
        if done_depth == 0:  # not even one ply in time: the best play by score
            moves = self.pos[0].moves(self.rk[0], self.rk[0][0], sorted=True)
            best_pv = [(0, moves[0])] if len(moves) else [(0, "pass")]
            best_value = moves[0][4] if len(moves) else 0
            if not self.additive:
                best_value += self.sc[0] - self.sc[1]
        best_pv = self._extend(best_pv, k0, passes0) if done_depth else best_pv
        elapsed = time.monotonic() - start
        spread = eg.scores[0] - eg.scores[1]
        value = spread + best_value if self.additive else best_value
        return EndgameResult(
            value=value,
            gain=value - spread,
            sequence=self._sequence(best_pv),
            depth=done_depth,
            proved=proved,
            nodes=self._nodes(),
            seconds=elapsed,
            stopped=stopped,
            spread=spread,
            racks=("".join(eg.rack_labels[0]), "".join(eg.rack_labels[1])),
        )

    def _root(self, depth: int, k: int, passes: tuple, pv: list) -> int:
        """The root's value searched to ``depth`` plies; ``pv`` receives the best line."""
        return self._negamax(0, 0, k, passes, depth, -_INF, _INF, pv)

    def _horizon(self) -> int:
        return self.horizon

    def _nodes(self) -> int:
        return self.nodes

    def _extend(self, pv: list, k: int, passes: tuple) -> list:
        """The line ``pv`` played out, then continued with the transposition table's moves while
        the game goes on (a line cut short where a stored value answered)."""
        line = []
        made = []
        d = 0
        p = 0
        end = self.end_n if self.exact_passes else 2
        try:
            while True:
                if d < len(pv):
                    p, m = pv[d]
                else:
                    e = self.tt.get(self._key(p, k, passes))
                    if e is None or e[3] is None:
                        break
                    m = e[3]
                line.append((p, m))
                if m == "pass":
                    k += 1
                    mine = passes[p] + 1
                    passes = (mine, passes[1]) if p == 0 else (passes[0], mine)
                    if k >= end or (self.own_passes and mine >= self.own_passes):
                        break
                    self._position(d + 1)
                    self.pend[d + 1] = _PASSED
                else:
                    made.append((p, m, self._make(d, p, m)))
                    k = 0
                    passes = (0, passes[1]) if p == 0 else (passes[0], 0)
                    if self.n[p] == 0 or (self.target is not None and self.sc[p] >= self.target):
                        break
                d += 1
                p = 1 - p
                if d > 4 * (sum(self.n) + end + 2):  # (a cycle of passes cannot happen; a guard all the same)
                    break
        finally:
            for p_, m_, new in reversed(made):
                self._unmake(p_, m_, new)
        return line

    def _sequence(self, pv: list) -> list[EndgameMove]:
        """The moves of a line as :class:`EndgameMove` (coordinates, words with the board tiles)."""
        from gamecore.coords import format_gcg

        eg = self.eg
        g = bytearray(v for row in eg.grid for v in row)
        n = [sum(x) for x in eg.racks]
        C = self.C
        labels = eg.alphabet
        out = []
        for p, m in pv:
            if m == "pass":
                out.append(EndgameMove(p, "", "", 0, 0))
                continue
            row, col, across, letters, score, placed = m
            step = 1 if across else C
            sq = row * C + col
            word = []
            for b in letters:
                label = labels[(b & 63) - 1]
                text = label.lower() if b & 64 else label
                text = f"[{text}]" if len(label) > 1 else text
                if g[sq]:
                    word.append(f"({text})")
                else:
                    g[sq] = b
                    word.append(text)
                sq += step
            n[p] -= placed
            out.append(
                EndgameMove(p, format_gcg(row, col, bool(across)), "".join(word).replace(")(", ""), score, placed, n[p] == 0)
            )
        return out


class _NativeSearch(_Search):
    """The same search in C (``gamecore/c/endgame.c``: ``_native.Endgame``), on the same boards per
    ply; the iterative deepening, the time limit and the result stay here. Its transposition table is
    its own (two-entry buckets, growing up to ``tt_max`` entries): the same values, other node counts."""

    def __init__(self, eg: Endgame, tt_max: int, exact_passes: bool = False, clock=time.monotonic):
        super().__init__(eg, tt_max, exact_passes, clock)
        from gamecore.kwg import native_core

        r = eg.rules
        self.cpos = [self.pos[0].native]
        self.c = native_core().Endgame(
            self.cpos,
            self._position_native,
            self._check_time,
            bytes(self.g),
            (self.rk[0], self.rk[1]),
            self.vals,
            (self.sc[0], self.sc[1]),
            self.end_n,
            int(self.own_passes or 0),
            -1 if self.target is None else int(self.target),
            self.floor,
            r.end_out == "others_racks",
            self.exact_passes,
            tt_max,
        )

    def _init_hash(self) -> None:  # (the keys are the C search's own)
        pass

    def _position_native(self, d: int) -> None:
        self._position(d)
        while len(self.cpos) < len(self.pos):
            self.cpos.append(self.pos[len(self.cpos)].native)

    def _root(self, depth: int, k: int, passes: tuple, pv: list) -> int:
        return self.c.search(depth, k, passes[0], passes[1])

    def _horizon(self) -> int:
        return self.c.horizon

    def _nodes(self) -> int:
        return self.c.nodes

    def _extend(self, pv: list, k: int, passes: tuple) -> list:
        return self.c.line(k, passes[0], passes[1])
