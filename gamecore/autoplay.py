"""One game between two strategies on :class:`gamecore.game_state.GameState` (``skrafl autoplay``).

Strategies (:data:`STRATEGIES`):

- ``score``: the top play by score (:func:`gamecore.best.best_play`, the pruned search);
- ``equity``: the top move by static equity, exchanges included (needs a leave table): searched
  in C (:class:`gamecore.best.EquitySearch`: each play's equity computed as it is found, only the
  best kept), else :func:`gamecore.equity.rank` over every play;
- ``equity+endgame``, ``sim+endgame``: ``equity`` and ``sim`` while the bag has tiles; once it is
  empty (two players), the first move of :class:`gamecore.endgame.Endgame`'s best sequence searched
  to :data:`ENDGAME_PLIES` plies (a depth, not a time limit, so that a game stays a function of its
  seeds; a small endgame is proved well within it). Separate names rather than a change to
  ``equity`` and ``sim`` keep the games those write, and the tests and tables made from them,
  byte-identical;
- ``fullsterkur``, ``midlungur``, ``amlodi``: Netskrafl's robots (:func:`gamecore.best.robot_pick`
  over every play, best first; midlungur and amlodi keep the plays whose main word is in their
  vocabulary and pick one at random).

Without a play, a player exchanges its whole rack when the bag allows it, else passes. Plays of
folded tiles (a Ё tile played as Е) and rule sets with ``min_word_length`` above 2 go through
:func:`gamecore.folded.best_plays_folded`, as ``replay --analyze`` does.

Determinism: a game is a function of its ``bag_seed`` (the bag's shuffles) and ``move_seed`` (the
robots' random picks), and of nothing else.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence

from gamecore.errors import UsageError
from gamecore.game_state import Exchange, GameState, Pass, Play

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gamecore.equity import LeaveTable
    from gamecore.play import Lexicon

STRATEGIES = ("score", "equity", "sim", "equity+endgame", "sim+endgame", "fullsterkur", "midlungur", "amlodi")
#: the strategies that rank by static equity (they need a leave table)
EQUITY_STRATEGIES = ("equity", "sim", "equity+endgame", "sim+endgame")
#: the depth of the endgame search of ``equity+endgame`` and ``sim+endgame`` (plies)
ENDGAME_PLIES = 2


@dataclass
class Strategy:
    """How one player picks its moves. ``leaves``: a :class:`gamecore.equity.LeaveTable` (equity);
    ``vocabulary``: words a robot plays (``in``); ``pick_from``: midlungur/amlodi's list length."""

    kind: str
    leaves: LeaveTable | None = None
    vocabulary: Lexicon | None = None
    pick_from: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in STRATEGIES:
            raise UsageError(f"unknown strategy {self.kind!r}; known: {', '.join(STRATEGIES)}")
        if self.kind in EQUITY_STRATEGIES and self.leaves is None:
            raise UsageError(f"the {self.kind} strategy needs a leave file: give --leaves FILE.klv2")


@dataclass
class GameResult:
    """One finished game. ``scores``/``pre_end`` by seat (seat 0 moved first)."""

    state: GameState
    strategies: tuple[str, ...]
    turns: int
    bingos: list[int]


class Mover:
    """Picks moves for the players of one lexicon and rule set."""

    def __init__(self, bundle, rules):
        from gamecore.folded import folded_tiles, manifest_fold

        self.bundle, self.rules = bundle, rules
        ts = rules.tiles()
        self.folded = folded_tiles(ts, bundle.alphabet, manifest_fold(bundle))
        self.plain = not self.folded and rules.min_word_length <= 2
        self._index = bundle.kwg.bingo_index(rules.bingo_min_tiles) if rules.bingo_bonus > 0 else None
        # the board as generator codes, kept from play to play (see _grid)
        self._gidx = {label: i for i, label in enumerate(bundle.alphabet, 1)}
        self._gstate, self._gseen, self._g = None, 0, None
        self._searches: dict = {}

    def _grid(self, state: GameState) -> bytes | None:
        """The board's generator codes (:func:`gamecore.best.encode_grid`, as bytes row by row), kept
        up to date from the plays applied since the last call on the same state; None when the
        history holds an event other than a play, exchange or pass, or a tile the lexicon's alphabet
        lacks (a folded Ё), for the rest of the game (the board is then encoded)."""
        history = state.history
        if self._gstate is not state or len(history) < self._gseen:
            size = state.board.size
            self._gstate, self._gseen, self._g = state, 0, bytearray(size * size)
        g, size = self._g, state.board.size
        if g is None:
            return None
        idx = self._gidx
        for rec in history[self._gseen :]:
            ev = rec.event
            if isinstance(ev, Play):
                sp = ev.play
                dr, dc = (0, 1) if sp.across else (1, 0)
                for i, (t, new) in enumerate(zip(sp.word, sp.new, strict=True)):
                    if new:
                        code = idx.get(t.label)
                        if code is None:  # a folded tile (Ё): no generator code; the search encodes the board
                            self._g = None
                            return None
                        g[(sp.row + dr * i) * size + sp.col + dc * i] = code + (64 if t.blank else 0)
            elif not isinstance(ev, (Exchange, Pass)):
                self._g = None
                return None
        self._gseen = len(history)
        return bytes(g)

    def equity_search(self, leaves):
        """The equity search in C for a leave table (:class:`gamecore.best.EquitySearch`)."""
        got = self._searches.get(id(leaves))
        if got is None or got.leaves is not leaves:
            from gamecore.best import equity_search

            got = self._searches[id(leaves)] = equity_search(self.bundle, self.rules, leaves, bool(self.folded))
        return got

    def all_plays(self, state: GameState, rack: Sequence[str]) -> list:
        from gamecore.folded import best_plays_folded

        return best_plays_folded(state.board, list(rack), self.bundle, self.rules, None)

    def top_play(self, state: GameState, rack: Sequence[str]):
        if not self.plain:
            got = self.all_plays(state, rack)
            return got[0] if got else None
        from gamecore.best import generate_plays

        got = generate_plays(state.board, list(rack), self.bundle.kwg, self.bundle.alphabet, self.rules, 1, self._index)
        return got[0] if got else None

    def endgame_move(self, state: GameState):
        """The first move of the endgame's best sequence to :data:`ENDGAME_PLIES` plies (bag empty, two
        players), as an event; None when the solver does not model the rules or the play is not
        found among the generator's (a folded tile)."""
        from gamecore.best import generate_plays
        from gamecore.endgame import Endgame

        p = state.turn
        q = 1 - p
        try:
            eg = Endgame(
                state.board,
                (list(state.racks[p]), list(state.racks[q])),
                self.bundle.kwg,
                self.bundle.alphabet,
                self.rules,
                (state.scores[p], state.scores[q]),
                state.scoreless,
                (state.passes[p], state.passes[q]),
            )
        except UsageError:
            return None
        res = eg.solve(plies=ENDGAME_PLIES)
        if not res.sequence:
            return None
        first = res.sequence[0]
        if first.is_pass:
            return Pass(p)
        if not self.plain:
            return None
        for sp in generate_plays(state.board, list(state.racks[p]), self.bundle.kwg, self.bundle.alphabet, self.rules):
            if sp.coord == first.coord and sp.score == first.score and _endgame_text(sp) == first.word:
                return Play(p, sp)
        return None

    def choose(self, state: GameState, strategy: Strategy, rng: random.Random):
        """The event the player on turn makes."""
        p = state.turn
        rack = state.racks[p]
        kind = strategy.kind
        if kind.endswith("+endgame"):
            if not state.bag and state.players == 2 and state.racks[1 - p]:
                ev = self.endgame_move(state)
                if ev is not None:
                    return ev
            kind = kind[: -len("+endgame")]
        if kind == "sim":  # gamecore.simulation; the equity player's move when it gives none
            from gamecore.simulation import autoplay_move

            row = autoplay_move(self, state, strategy.leaves, rng)
            if row is not None:
                return Play(p, row.play) if row.kind == "play" else Exchange(p, tuple(row.exchanged))
            kind = "equity"
        if kind == "score":
            play = self.top_play(state, rack)
        elif kind == "equity":
            from gamecore.equity import rank

            opponent = [t for q, r in enumerate(state.racks) if q != p for t in r] if not state.bag else []
            # unseen by the player: the bag, and while it has tiles the other racks (as equity.bag_count)
            bag = len(state.bag) + (sum(len(r) for q, r in enumerate(state.racks) if q != p) if state.bag else 0)
            top = self.equity_search(strategy.leaves).best(state.board, rack, opponent, self._grid(state), bag)
            if top is not None and top[0] == "play":
                return Play(p, top[1])
            if top is not None and top[0] == "exchange" and state.can_exchange(len(top[1])):
                return Exchange(p, tuple(top[1]))
            # no move, an exchange the state refuses, or rules the search does not model: every
            # move, ranked in Python
            assert strategy.leaves is not None  # an equity strategy has its leaves (Strategy.__post_init__)
            ranked = rank(state.board, rack, self.all_plays(state, rack), strategy.leaves, self.rules, opponent)
            for row in ranked:
                if row.kind == "play":
                    assert row.play is not None  # a placement's row has its play
                    return Play(p, row.play)
                if state.can_exchange(len(row.exchanged)):
                    return Exchange(p, tuple(row.exchanged))
            play = None
        else:
            from gamecore.best import robot_pick

            seed = rng.getrandbits(64)
            play = robot_pick(self.all_plays(state, rack), kind, strategy.vocabulary, seed, strategy.pick_from)
        if play is not None:
            return Play(p, play)
        if rack and state.can_exchange(len(rack)):
            return Exchange(p, tuple(rack))
        return Pass(p)


def _endgame_text(sp) -> str:
    """A play's word as :class:`gamecore.endgame.EndgameMove` writes it (board tiles in parentheses)."""
    out = []
    for t, new in zip(sp.word, sp.new, strict=True):
        text = t.label.lower() if t.blank else t.label
        text = f"[{text}]" if len(t.label) > 1 else text
        out.append(text if new else f"({text})")
    return "".join(out).replace(")(", "")


def play_game(
    mover: Mover,
    strategies: Sequence[Strategy],
    bag_seed: str,
    move_seed: str,
    lexicon=None,
    max_turns: int = 10_000,
    check_plays: bool = True,
) -> GameResult:
    """Play one game: seat 0 (moves first) plays ``strategies[0]``, seat 1 ``strategies[1]``.
    ``check_plays=False``: the state takes the generator's plays as given (:meth:`GameState.new`).

    Raises:
        gamecore.game_state.IllegalMove: a strategy made a move the state refused (a bug).
    """
    state = GameState.new(mover.rules, players=len(strategies), seed=bag_seed, lexicon=lexicon, check_plays=check_plays)
    rng = random.Random(move_seed)
    bingos = [0] * state.players
    turns = 0
    while state.over is None and turns < max_turns:
        ev = mover.choose(state, strategies[state.turn], rng)
        state.apply(ev)
        if isinstance(ev, Play) and ev.play.tiles_placed >= mover.rules.bingo_min_tiles:
            bingos[ev.player] += 1
        turns += 1
    return GameResult(state, tuple(s.kind for s in strategies), turns, bingos)


def gcg_text(result: GameResult, names: Sequence[str], title: str = "", lexicon_name: str = "") -> str:
    """The game as GCG (:func:`gamecore.gcg.write_gcg`): every move with the rack before it, the
    end-of-game rack lines, cumulative scores."""
    from gamecore.game_state import ChallengeBonus, TimePenalty
    from gamecore.gamelog import Event as GEvent
    from gamecore.gamelog import Game, Player
    from gamecore.gcg import write_gcg

    state = result.state
    game = Game("gcg", players=[Player(n, n) for n in names])
    if title:
        game.pragmas["title"] = title
    if lexicon_name:
        game.pragmas["lexicon"] = lexicon_name
    cum = [0] * state.players
    for rec in state.history:
        ev = rec.event
        p = ev.player
        cum[p] += rec.score
        rack = [t for t in rec.rack]
        if isinstance(ev, Play):
            sp = ev.play
            word = list(sp.word_text("."))
            game.events.append(GEvent("play", p, rack=rack, coord=sp.coord, word=word, score=rec.score, cumulative=cum[p]))
        elif isinstance(ev, Exchange):
            game.events.append(GEvent("exchange", p, rack=rack, tiles=list(ev.tiles), score=0, cumulative=cum[p]))
        elif isinstance(ev, Pass):
            game.events.append(GEvent("pass", p, rack=rack, score=0, cumulative=cum[p]))
        elif isinstance(ev, ChallengeBonus):
            game.events.append(GEvent("challenge_bonus", p, score=rec.score, cumulative=cum[p]))
        elif isinstance(ev, TimePenalty):
            game.events.append(GEvent("time", p, score=rec.score, cumulative=cum[p]))
    for a in state.adjustments:
        cum[a.player] += a.points
        kind = "end_rack" if a.points > 0 or (state.over == "out" and a.player == state.out_player) else "rack_penalty"
        shown = list(a.tiles) if kind == "rack_penalty" else None
        game.events.append(GEvent(kind, a.player, rack=shown, tiles=list(a.tiles), score=a.points, cumulative=cum[a.player]))
    return write_gcg(game)
