"""One game state: board, bag, racks, scores, turn, scoreless turns and end, changed only by :meth:`GameState.apply`.

The state follows a game of two to ``players_max`` players under one :class:`gamecore.rules.RuleSet`.
Every rule-set field outside placement and scoring is decided by one function of this module
(:func:`check_word_lengths` / :func:`too_short`, :func:`exchange_refusal`, :func:`challenge_bonus`,
:func:`time_penalty_refusal`, :func:`end_after_play`, :func:`end_after_scoreless`,
:func:`end_adjustments`, :func:`winner_of`), called by :meth:`GameState.apply` and by the other
front ends: ``replay``'s game loop (``pipelines/replay/game.py``, which also gives ``score --game``
and ``show --game`` their positions), ``score``'s ruling (``gamecore/adjudicate.py``) and the best
plays (``gamecore/best.py``: :func:`forms_short_word`). The events:

- a **play** (:class:`Play`): the tiles must be on the mover's rack; it is validated and scored
  again by the oracle (:func:`gamecore.play.validate_placements`, with the lexicon when the state
  has one) and every word it forms must have ``min_word_length`` tiles or more; the mover draws
  back up to ``rack_size`` from the bag; the game ends when the bag is empty and the mover's rack is
  too (going out), or when the mover reaches the Endline target (``end_targets``);
- an **exchange** (:class:`Exchange`): needs at least ``max(exchange_min_bag, tiles exchanged, 1)``
  tiles in the bag (never more tiles than the bag holds, never from an empty bag); the new tiles are
  drawn first, then the old ones go back and the bag is shuffled;
- a **pass** (:class:`Pass`);
- a **challenge bonus** (:class:`ChallengeBonus`, a wrong challenge of the last play): ``challenge_bonus``
  per challenge, or per word challenged (``challenge_bonus_per = "word"``: at most the words the
  play formed) to the player who made the play;
- a **time penalty** (:class:`TimePenalty`, after the game ended): a multiple of ``time_penalty``,
  at most ``time_penalty_max``.

Scoreless turns: a pass or an exchange adds one, a tile play sets the count back to 0; the game ends
after ``scoreless_rounds_end`` × players of them, or when one player has passed ``player_passes_end``
of their own turns in a row (an exchange is no pass). At the end the state adds the end-of-game
rack points itself (:attr:`GameState.adjustments`): going out under ``double_opponent_rack`` (two
players) the out-player gains twice the opponent's rack; under ``others_racks`` (or more than two
players) each other player loses their rack and the out-player gains the sum; an end by scoreless
turns or passes (``end_passes = "minus_own_rack"``): each player loses their own rack; an Endline
end: no adjustment. ``score_floor_zero`` then lifts negative scores to 0. The winner: the highest
final score; under ``tie_break = "score_before_adjustments"`` a tie goes to the tied player who had
more before the adjustments. A blank is worth 0 on a rack.

Drawing is random: the state owns a :class:`random.Random` (given, or from ``seed``), so the same seed
and the same moves give the same game.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Iterable, Sequence, Union

from gamecore.board import Board
from gamecore.errors import SkraflError
from gamecore.play import IllegalPlay, ScoredPlay, validate_placements

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gamecore.play import Lexicon
    from gamecore.rules import RuleSet
    from gamecore.tilesets import TileSet

BLANK = "?"


class IllegalMove(SkraflError):
    """A move the rules do not allow in this state (``code``: ``not_on_turn``, ``game_over``,
    ``not_on_rack``, ``illegal_play``, ``score_mismatch``, ``too_short``, ``bag_too_small``,
    ``no_play_to_challenge``, ``no_challenge_bonus``, ``time_penalty``)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code

    def __reduce__(self):  # made again from both arguments when sent between processes
        return (type(self), (self.code, self.message))


@dataclass(frozen=True)
class Play:
    player: int
    play: ScoredPlay


@dataclass(frozen=True)
class Exchange:
    player: int
    tiles: tuple[str, ...]  # labels, ``?`` = blank


@dataclass(frozen=True)
class Pass:
    player: int


@dataclass(frozen=True)
class ChallengeBonus:
    """A wrong challenge of the last play: the bonus goes to the player who made it. ``words``: the
    words challenged (``challenge_bonus_per = "word"``; 0 = every word the play formed)."""

    player: int
    words: int = 0


@dataclass(frozen=True)
class TimePenalty:
    """Points lost for time, after the game ended (``points`` ≤ 0)."""

    player: int
    points: int


Event = Union[Play, Exchange, Pass, ChallengeBonus, TimePenalty]


@dataclass(frozen=True)
class Adjustment:
    """An end-of-game rack adjustment: ``player`` gets ``points`` for ``tiles`` (whose rack they were)."""

    player: int
    points: int
    tiles: tuple[str, ...]


@dataclass
class Record:
    """One applied event and what it did: ``score`` the points it gave its player, ``drawn`` the
    tiles drawn, ``rack`` the mover's rack before it."""

    event: Event
    score: int
    rack: tuple[str, ...] = ()
    drawn: tuple[str, ...] = ()


def rack_value(tiles: Sequence[str], tile_set) -> int:
    """Points of rack tiles (a blank is 0; a tile given in lowercase is its letter's tile)."""
    return sum(tile_set.value(t.upper()) for t in tiles if t != BLANK)


# ---------------------------------------------------------------------------------------------
# The rule checks: the one place each rule-set field outside placement and scoring is decided.
# GameState.apply calls them, and so do replay's game loop (pipelines/replay/game.py, which also
# gives score --game and show --game their positions), score's ruling (gamecore/adjudicate.py) and
# the best-play search (gamecore/best.py: no play forming a word under min_word_length).


def word_length(tile_set, word: str) -> int:
    """Tiles in ``word`` (a two-letter tile counts once; text the tile set cannot split: its characters)."""
    try:
        return len(tile_set.split_word(word.upper()))
    except SkraflError:
        return len(word)


def too_short(rules, lengths: Iterable[tuple[str, int]]) -> str | None:
    """``min_word_length`` (the Slovenian Scrabble article's Križemkražem: 4; every word a play forms, main and cross,
    counted in tiles): why the play cannot be made, or ``None`` when every word is long enough.

    Args:
        lengths: (word, tiles) of every word the play forms.
    """
    shortest = rules.min_word_length if rules is not None else 2
    if shortest <= 2:
        return None  # every word has two tiles or more
    short = [f"{w.upper()} has {n}" for w, n in lengths if n < shortest]
    if not short:
        return None
    return f"words must have at least {shortest} letters under rules {rules.name}: {', '.join(short)}"


def check_word_lengths(rules, tile_set, words: Iterable[str]) -> None:
    """Raise ``IllegalMove("too_short")`` when a word of ``words`` (every word a play forms) is
    shorter than the rule set's ``min_word_length`` (see :func:`too_short`)."""
    if rules.min_word_length <= 2:
        return
    why = too_short(rules, [(w, word_length(tile_set, w)) for w in words])
    if why is not None:
        raise IllegalMove("too_short", why)


def play_word_lengths(board, play) -> list[int]:
    """The tiles of every word ``play`` (a :class:`gamecore.play.ScoredPlay` made on ``board``, the
    position before it) forms: the main word, then the line across each new tile where it meets
    board tiles. For plays that carry no word list (the move generator's)."""
    out = [len(play.word)]
    dr, dc = (1, 0) if play.across else (0, 1)  # across the main word
    size = board.size
    for i, fresh in enumerate(play.new):
        if not fresh:
            continue
        r, c = (play.row, play.col + i) if play.across else (play.row + i, play.col)
        n = 1
        for step in (-1, 1):
            rr, cc = r + step * dr, c + step * dc
            while 0 <= rr < size and 0 <= cc < size and board[rr, cc] is not None:
                n += 1
                rr, cc = rr + step * dr, cc + step * dc
        if n > 1:
            out.append(n)
    return out


def forms_short_word(rules, board, play) -> bool:
    """Whether ``play`` forms a word shorter than the rule set's ``min_word_length`` (see
    :func:`too_short`; ``board``: the position before the play)."""
    if rules is None or rules.min_word_length <= 2:
        return False
    return too_short(rules, [("", n) for n in play_word_lengths(board, play)]) is not None


def exchange_refusal(rules, bag: int, n: int) -> str | None:
    """Why an exchange of ``n`` tiles with ``bag`` tiles in the bag is not allowed, or ``None``.

    The rule set's ``exchange_min_bag`` (WESPA, Netskrafl, Ordspill: 7; Russian, Slovenian: 0);
    whatever it is, the new tiles come from the bag: never more tiles than it holds, never from an
    empty bag (``gamecore/data/rules/README.md``)."""
    need = max(rules.exchange_min_bag, n, 1)
    if bag >= need:
        return None
    if rules.exchange_min_bag >= max(n, 1):
        why = f"the rules of {rules.name} need {rules.exchange_min_bag}"
    elif n:
        why = f"{n} tile{'s' if n != 1 else ''} exchanged need as many in the bag"
    else:
        why = "an exchange needs a tile in the bag"
    return f"exchange with {bag} tiles in the bag ({why})"


def check_exchange(rules, bag: int, n: int) -> None:
    """Raise ``IllegalMove("bag_too_small")`` when :func:`exchange_refusal` refuses the exchange."""
    why = exchange_refusal(rules, bag, n)
    if why is not None:
        raise IllegalMove("bag_too_small", why)


def challenge_bonus(per: str, points: int, formed: int, challenged: int = 0) -> int:
    """The bonus for a wrong challenge of a play forming ``formed`` words: ``points`` per challenge
    (``per = "challenge"``), or ``points`` per word challenged (``per = "word"``: WESPA's and NASPA's
    CSW five-point rule; ``challenged`` words, 0 = every word formed).

    Raises:
        IllegalMove: ``no_challenge_bonus``, more words challenged than the play formed.
    """
    if per != "word" or points == 0:
        return points
    formed = max(1, formed)
    n = formed if challenged <= 0 else challenged
    if n > formed:
        raise IllegalMove("no_challenge_bonus", f"{n} words challenged, but the play formed {formed}")
    return points * n


def challenge_bonus_fits(per: str, points: int, formed: int, bonus: int) -> bool:
    """Whether ``bonus`` is one :func:`challenge_bonus` gives for some number of words challenged."""
    if per != "word" or points == 0:
        return bonus == points
    return bonus % points == 0 and 1 <= bonus // points <= max(1, formed)


def time_penalty_refusal(rules, points: int) -> str | None:
    """Why a time penalty of ``points`` (≤ 0) is not one the rule set gives, or ``None``: a
    multiple of ``time_penalty`` (per started period over time), at most ``time_penalty_max``."""
    r = rules
    if r.time_penalty and (points % r.time_penalty or (r.time_penalty_max and -points > r.time_penalty_max)):
        most = f", at most -{r.time_penalty_max}" if r.time_penalty_max else ""
        return f"time penalty {points:+d}: the rules of {r.name} take {r.time_penalty} per started period over time{most}"
    return None


def reached_target(rules, players: int, score: int) -> bool:
    """Endline (``end_targets``): whether ``score`` ends a game of ``players`` players."""
    target = rules.end_target(players)
    return target is not None and score >= target


def end_after_play(rules, players: int, rack_left: int, bag_left: int, score: int) -> str | None:
    """How a tile play ends the game: ``out`` (the bag is empty and so is the mover's rack),
    ``target`` (the mover reached the Endline target), else ``None``."""
    if rack_left == 0 and bag_left == 0:
        return "out"
    return "target" if reached_target(rules, players, score) else None


def end_after_scoreless(rules, players: int, scoreless: int, own_passes: int) -> str | None:
    """How a pass or an exchange ends the game: ``zeros`` (``scoreless_rounds_end`` × players
    scoreless turns in a row), ``passes`` (the mover's ``player_passes_end``-th pass in a row),
    else ``None``."""
    if scoreless >= rules.scoreless_turns_end(players):
        return "zeros"
    if rules.player_passes_end and own_passes >= rules.player_passes_end:
        return "passes"
    return None


def others_pay(rules, players: int) -> bool:
    """Going out: whether each other player loses their own rack and the out-player gains the sum
    (``others_racks``, or more than two players), rather than the out-player gaining twice the
    opponent's rack (``double_opponent_rack``)."""
    return rules.end_out == "others_racks" or players > 2


def end_adjustments(rules, over: str | None, racks: Sequence[Sequence[str]], out_player: int | None, tile_set) -> list:
    """The end-of-game rack adjustments (:class:`Adjustment`) of a game that ended by ``over``:
    going out, :func:`others_pay` or twice the opponent's rack to the out-player; an end by
    scoreless turns or passes (``end_passes = "minus_own_rack"``), each player loses their own
    rack; an Endline end (or a game not over), none."""
    n = len(racks)
    adj: list[Adjustment] = []
    if over == "out":
        assert out_player is not None  # a game that ends by going out has its out-player
        p = out_player
        others = [q for q in range(n) if q != p]
        tiles = tuple(t for q in others for t in racks[q])
        v = rack_value(tiles, tile_set)
        if others_pay(rules, n):
            for q in others:
                adj.append(Adjustment(q, -rack_value(racks[q], tile_set), tuple(racks[q])))
            adj.append(Adjustment(p, v, tiles))
        else:
            adj.append(Adjustment(p, 2 * v, tiles))
    elif over in ("zeros", "passes"):
        for q in range(n):
            adj.append(Adjustment(q, -rack_value(racks[q], tile_set), tuple(racks[q])))
    return adj


def winner_of(rules, scores: Sequence[int], pre_end: Sequence[int] | None = None) -> int | None:
    """The winner's index: the highest final score; ``None`` for a tie. Under ``tie_break =
    "score_before_adjustments"`` (the Scrabble rules page) a tie goes to the tied player who had more before the
    end-of-game adjustments (``pre_end``)."""
    if not scores:
        return None
    top = max(scores)
    best = [i for i, s in enumerate(scores) if s == top]
    if len(best) > 1 and rules.tie_break == "score_before_adjustments" and pre_end is not None:
        high = max(pre_end[i] for i in best)
        best = [i for i in best if pre_end[i] == high]
    return best[0] if len(best) == 1 else None


@dataclass
class GameState:
    """A game in progress. Make one with :meth:`new`; change it only with :meth:`apply`.

    Attributes:
        rules, tile_set, board: the rule set, its tile set, the position.
        bag: the tiles in the bag (drawn from the end).
        racks: each player's rack (labels, ``?`` = blank).
        scores: each player's score (after :attr:`adjustments` and the floor once the game is over).
        turn: the player on turn.
        scoreless: consecutive scoreless turns (passes and exchanges).
        passes: each player's own passes in a row (``player_passes_end``).
        over: ``None`` while the game goes on, else ``out``, ``zeros``, ``passes`` or ``target``.
        out_player: who went out (``over == "out"``).
        pre_end: the scores before the end-of-game adjustments.
        adjustments: the end-of-game rack adjustments.
        history: every applied event (:class:`Record`).
    """

    rules: RuleSet
    tile_set: TileSet
    board: Board
    bag: list[str]
    racks: list[list[str]]
    rng: random.Random
    lexicon: Lexicon | None = None
    scores: list[int] = field(default_factory=list)
    turn: int = 0
    scoreless: int = 0
    passes: list[int] = field(default_factory=list)
    over: str | None = None
    out_player: int | None = None
    pre_end: list[int] | None = None
    adjustments: list[Adjustment] = field(default_factory=list)
    history: list[Record] = field(default_factory=list)
    last_play: tuple[int, int] | None = None  # (player, words formed) of the last tile play, for a challenge
    check_plays: bool = True  # False: plays are trusted as the move generator made them (see :meth:`new`)

    @classmethod
    def new(
        cls,
        rules,
        players: int = 2,
        seed: int | float | str | bytes | None = None,
        rng: random.Random | None = None,
        lexicon=None,
        first: int = 0,
        check_plays: bool = True,
    ) -> "GameState":
        """A new game: the whole tile set shuffled into the bag (tile-set order, then shuffled by the
        state's RNG: ``random.Random(seed)`` unless ``rng`` is given), each player dealt ``rack_size``
        tiles in turn from player 0, ``first`` on turn.

        ``check_plays=False`` is for self-play whose plays come from our move generator on this very
        state: a play's placement, words and score are then taken as given (its tiles must still be on
        the rack; every other rule is checked as always), and a challenge bonus is refused (the words
        a play formed are not counted). tests/test_autoplay_trusted.py plays games both ways and
        gets the same bytes.

        Raises:
            IllegalMove: fewer than 2 or more than ``players_max`` players.
        """
        if not 2 <= players <= rules.players_max:
            raise IllegalMove("players", f"{players} players: the rules of {rules.name} allow 2 to {rules.players_max}")
        ts = rules.tiles()
        bag = [label for label in ts.letters for _ in range(ts.counts.get(label, 0))] + [BLANK] * ts.blanks
        rng = rng if rng is not None else random.Random(seed)
        rng.shuffle(bag)
        state = cls(rules, ts, Board(rules.layout(), ts), bag, [[] for _ in range(players)], rng, lexicon)
        state.check_plays = check_plays
        state.scores = [0] * players
        state.passes = [0] * players
        state.turn = first
        for p in range(players):
            state._draw(p)
        return state

    # ---------------------------------------------------------------- views

    @property
    def players(self) -> int:
        return len(self.racks)

    def unseen(self, player: int) -> list[str]:
        """What ``player`` cannot see: the bag and the other players' racks (sorted)."""
        out = list(self.bag)
        for q, r in enumerate(self.racks):
            if q != player:
                out.extend(r)
        return sorted(out)

    def tile_counts(self) -> dict[str, int]:
        """Tiles in the bag, on the racks and on the board, per label (``?`` blanks): always the
        tile set's counts (tile conservation)."""
        out = dict(self.board.used_counts())
        for t in self.bag + [t for r in self.racks for t in r]:
            out[t] = out.get(t, 0) + 1
        return out

    def winner(self) -> int | None:
        """The winner's index once the game is over; ``None`` for a tie (or a game not over)."""
        if self.over is None:
            return None
        return winner_of(self.rules, self.scores, self.pre_end)

    def can_exchange(self, n: int = 1) -> bool:
        """Whether an exchange of ``n`` tiles is allowed now (the bag's minimum, and as many tiles)."""
        return self.over is None and exchange_refusal(self.rules, len(self.bag), n) is None

    # ---------------------------------------------------------------- events

    def apply(self, ev: Event) -> Record:
        """Apply one event; return its :class:`Record`. The state is unchanged when it raises.

        Raises:
            IllegalMove: the event breaks a rule (see its ``code``).
        """
        if isinstance(ev, TimePenalty):
            return self._time(ev)
        if isinstance(ev, ChallengeBonus):
            return self._challenge(ev)
        if self.over is not None:
            raise IllegalMove("game_over", f"the game is over ({self.over}): no more moves")
        if ev.player != self.turn:
            raise IllegalMove("not_on_turn", f"player {ev.player} moved, but player {self.turn} is on turn")
        if isinstance(ev, Play):
            rec = self._play(ev)
        elif isinstance(ev, Exchange):
            rec = self._exchange(ev)
        elif isinstance(ev, Pass):
            rec = Record(ev, 0, tuple(self.racks[ev.player]))
            self.scoreless += 1
            self.passes[ev.player] += 1
            self.last_play = None
        else:
            raise TypeError(f"not a game event: {ev!r}")
        self.history.append(rec)
        if self.over is None and not isinstance(ev, Play):
            self.over = end_after_scoreless(self.rules, self.players, self.scoreless, self.passes[ev.player])
        if self.over is not None:
            self._finish()
        else:
            self.turn = (self.turn + 1) % self.players
        return rec

    def _take(self, player: int, tiles: Sequence[str]) -> list[str]:
        rest = list(self.racks[player])
        for t in tiles:
            if t not in rest:
                raise IllegalMove(
                    "not_on_rack", f"tiles {''.join(tiles)} are not all on player {player}'s rack {''.join(self.racks[player])}"
                )
            rest.remove(t)
        return rest

    def _draw(self, player: int) -> tuple[str, ...]:
        n = min(self.rules.rack_size - len(self.racks[player]), len(self.bag))
        drawn = tuple(self.bag.pop() for _ in range(max(0, n)))
        self.racks[player].extend(drawn)
        return drawn

    def _play(self, ev: Play) -> Record:
        p, sp = ev.player, ev.play
        used = sp.used()
        rest = self._take(p, used)
        if self.check_plays:
            try:
                checked = validate_placements(
                    self.board, sp.placements(), self.racks[p], self.lexicon, self.rules, across=sp.across
                )
            except IllegalPlay as exc:
                raise IllegalMove("illegal_play", f"{sp.coord} {sp.word_text()}: {exc.message} ({exc.code})") from None
            if checked.score != sp.score:
                raise IllegalMove("score_mismatch", f"{sp.coord} {sp.word_text()} scores {checked.score}, given {sp.score}")
            try:
                check_word_lengths(self.rules, self.tile_set, checked.words)
            except IllegalMove as exc:
                raise IllegalMove(exc.code, f"{sp.coord} {sp.word_text()}: {exc.message}") from None
            score, words = checked.score, max(1, len(checked.words))
        else:
            score, words = sp.score, 0
        rack = tuple(self.racks[p])
        dr, dc = (0, 1) if sp.across else (1, 0)
        for i, (t, new) in enumerate(zip(sp.word, sp.new, strict=True)):
            if new:
                self.board.place(sp.row + i * dr, sp.col + i * dc, t.label, t.blank)
        self.racks[p] = rest
        drawn = self._draw(p)
        self.scores[p] += score
        self.scoreless = 0
        self.passes[p] = 0
        self.last_play = (p, words)
        self.over = end_after_play(self.rules, self.players, len(self.racks[p]), len(self.bag), self.scores[p])
        if self.over == "out":
            self.out_player = p
        return Record(ev, score, rack, drawn)

    def _exchange(self, ev: Exchange) -> Record:
        p, tiles = ev.player, list(ev.tiles)
        n = len(tiles)
        rest = self._take(p, tiles)
        if not n:
            raise IllegalMove("not_on_rack", "an exchange swaps at least one tile (a pass swaps none)")
        check_exchange(self.rules, len(self.bag), n)
        rack = tuple(self.racks[p])
        self.racks[p] = rest
        drawn = self._draw(p)
        self.bag.extend(tiles)
        self.rng.shuffle(self.bag)
        self.scoreless += 1
        self.passes[p] = 0  # an exchange is no pass
        self.last_play = None
        return Record(ev, 0, rack, drawn)

    def _challenge(self, ev: ChallengeBonus) -> Record:
        r = self.rules
        if self.last_play is None or self.last_play[0] != ev.player:
            raise IllegalMove("no_play_to_challenge", f"a challenge bonus to player {ev.player}, who made no play just now")
        if not r.challenge_bonus:
            raise IllegalMove("no_challenge_bonus", f"the rules of {r.name} give no challenge bonus")
        if not self.last_play[1]:
            raise IllegalMove(
                "no_challenge_bonus", "a game state that trusts its plays (check_plays=False) takes no challenge bonus"
            )
        bonus = challenge_bonus(r.challenge_bonus_per, r.challenge_bonus, self.last_play[1], ev.words)
        self.scores[ev.player] += bonus
        if self.pre_end is not None:
            self.pre_end[ev.player] += bonus
        rec = Record(ev, bonus)
        self.history.append(rec)
        if self.over is None and reached_target(r, self.players, self.scores[ev.player]):
            self.over = "target"
            self._finish()
        return rec

    def _time(self, ev: TimePenalty) -> Record:
        r = self.rules
        if self.over is None:
            raise IllegalMove("time_penalty", "a time penalty comes after the game ended")
        pts = ev.points
        if pts > 0:
            raise IllegalMove("time_penalty", f"a time penalty is negative, recorded {pts:+d}")
        why = time_penalty_refusal(r, pts)
        if why is not None:
            raise IllegalMove("time_penalty", why)
        if any(isinstance(h.event, TimePenalty) and h.event.player == ev.player for h in self.history):
            raise IllegalMove("time_penalty", f"a second time penalty for player {ev.player}")
        self.scores[ev.player] += pts
        if self.rules.score_floor_zero:
            self.scores[ev.player] = max(0, self.scores[ev.player])
        rec = Record(ev, pts)
        self.history.append(rec)
        return rec

    def _finish(self) -> None:
        """The end-of-game rack adjustments of the preset (:func:`end_adjustments`), then the floor at 0."""
        self.pre_end = list(self.scores)
        self.adjustments = end_adjustments(self.rules, self.over, self.racks, self.out_player, self.tile_set)
        for a in self.adjustments:
            self.scores[a.player] += a.points
        if self.rules.score_floor_zero:
            self.scores = [max(0, s) for s in self.scores]
