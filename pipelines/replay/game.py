"""Replaying one game: the rules it is played under, the replayer, and what it gives
(:class:`GameResult`: the rows of ``games.parquet`` and ``moves.parquet``, the GCG export).

Error codes raised here (besides those of :mod:`gamecore.gcg`): ``GAME_EVENT_OFF_TURN``,
``MOVE_EVENT_AFTER_GAME_END``, ``RACK_NOT_IN_BAG``, ``PLAYED_TILES_NOT_IN_RACK``,
``EXCHANGE_NOT_IN_RACK``, ``EXCHANGE_BAG_TOO_SMALL``, ``TILE_NOT_IN_TILE_SET``, ``ILLEGAL_PLAY``,
``PLAY_OUT_OF_BOUNDS``, ``PLAY_SCORE_INCORRECT``, ``CUMULATIVE_SCORING_ERROR``,
``RACK_END_POINTS_INCORRECT``, ``END_RACK_TILES_INCORRECT``, ``END_RACK_PENALTY_INCORRECT``,
``END_RACK_PENALTY_MISMATCH``, ``END_GAME_EVENT_BEFORE_GAME_END``, ``PREMATURE_TIME_PENALTY``,
``GAME_REDUNDANT_TIME_PENALTY``, ``CHALLENGE_BONUS_INCORRECT``, ``PHONY_SCORE_INCORRECT``,
``INVALID_PHONY_TILES_PLAYER_INDEX``, ``INVALID_CHALLENGE_BONUS_PLAYER_INDEX``,
``RACK_AFTER_MOVE_INCORRECT``, ``RESIGN_SCORE_INCORRECT``, ``FINAL_SCORE_MISMATCH``,
``TIME_PENALTY_INCORRECT`` (not a multiple of the rule set's ``time_penalty``, or beyond its
``time_penalty_max``),
``LEXICON_NOT_SPECIFIED`` (strict, and only when a file without ``#lexicon`` has letters English
lacks; otherwise a warning: English/WESPA rules), ``UNKNOWN_TILE_DISTRIBUTION``,
``RACK_TOO_LARGE``, ``UNSUPPORTED_PLAYER_NUMBER`` (more players than the rule set allows);
warnings: ``CHALLENGE_RULE_INFERRED``, ``END_RACK_PENALTY_MISSING``.
"""

from __future__ import annotations

import copy
import os
from itertools import chain
from typing import Any

from gamecore.coords import parse_gcg
from gamecore.errors import SkraflError
from gamecore.game_state import challenge_bonus as _rule_bonus
from gamecore.game_state import (
    challenge_bonus_fits,
    end_adjustments,
    end_after_play,
    end_after_scoreless,
    exchange_refusal,
    others_pay,
    rack_value,
    reached_target,
    time_penalty_refusal,
    too_short,
    winner_of,
    word_length,
)
from gamecore.gamelog import Event, Finding, Game, GameLogError, parse_time
from gamecore.play import IllegalPlay
from gamecore.replay_board import replay_board

from .equity import MOVE_COLUMNS as EQUITY_MOVE_COLUMNS
from .equity import row_values as equity_row
from .tables import ANALYZE_COLUMNS, GAME_COLUMNS, MOVE_COLUMNS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gamecore.best import GameAnalyzer

# macondo distribution names → our tile sets
_TILE_SETS = {
    "english": "english",
    "english_super": "english_super",
    "german": "german",
    "polish": "polish",
    "norwegian": "norwegian_nsf",
    "slovene": "slovene",
    "icelandic": "icelandic_new",
}


# ---------------------------------------------------------------------------------------------
# rules of a game


def distribution_of(game: Game) -> str | None:
    """The macondo tile-distribution name a GCG file declares (``#tile-distribution``, else from the
    ``#lexicon`` prefix as macondo does), or ``None`` when it names nothing."""
    dist = game.pragmas.get("tile-distribution", "").strip().lower()
    if dist:
        return dist
    from gamecore.gcg import lexicon_distribution

    name = lexicon_distribution(game.pragmas.get("lexicon", ""))
    if name is None:
        return None
    return name + ("_super" if game.pragmas.get("board-layout", "").lower() == "supercrosswordgame" and name == "english" else "")


def _guess_distribution(game: Game, strict: bool) -> str:
    """A GCG file that names no distribution is English. Lenient repair: when its racks
    and words hold letters English lacks, take the first tile set holding them all (Polish,
    German, Norwegian, Slovene, Icelandic), with a warning (macondo takes it from its config)."""
    from gamecore.tilesets import load_tile_set

    if strict or game.ascii:
        return "english"  # every ASCII letter is an English tile
    text = "".join(chain.from_iterable([seq for ev in game.events for seq in (ev.rack, ev.word, ev.tiles) if seq]))
    if text.isascii():
        return "english"  # every ASCII letter is an English tile
    letters = {t.upper().strip("[]") for t in set(text)} - {"?", ".", "", "[", "]"}
    if all(load_tile_set("english").has(x) for x in letters):
        return "english"
    for dist in ("polish", "german", "norwegian", "slovene", "icelandic"):
        ts = load_tile_set(_TILE_SETS[dist])
        if all(ts.has(x) for x in letters):
            game.warnings.append(
                Finding(
                    "TILE_DISTRIBUTION_GUESSED",
                    f"no #lexicon or #tile-distribution; letters {''.join(sorted(letters - set(load_tile_set('english').letters)))} fit the {dist} tile set",
                )
            )
            return dist
    return "english"


def rules_for_game(game: Game, preset: str | None = None, lang: str | None = None, strict: bool = False):
    """The :class:`~gamecore.rules.RuleSet` to replay ``game`` with.

    ``preset`` (``--rules``) or ``lang`` (``--lang``) win, except over a Netskrafl record's own
    bag and board: a record uses the ``netskrafl`` preset (or the one the options name) with its
    prefs (``newbag`` false → the old tile set, ``board_type`` explo → the explo board), whatever
    the options; a GCG file uses tournament rules (``wespa``) with the tile set its
    ``#tile-distribution``/``#lexicon`` names (English when it names nothing).

    Raises:
        GameLogError: ``UNKNOWN_TILE_DISTRIBUTION`` (a distribution we have no tile set for).
        UsageError: unknown preset or language.
    """
    if game.format == "netskrafl":
        # the record's bag and board are the game's: they win over --lang/--rules
        board_type = str(game.prefs.get("board_type", "standard")).lower()
        return _cached_rules(
            ("netskrafl", game.prefs.get("newbag") is False, board_type == "explo", (lang, preset) if preset or lang else None)
        )
    if preset or lang:
        return _cached_rules(("options", lang, preset))
    dist = distribution_of(game) or _guess_distribution(game, strict)
    if dist == "icelandic":
        return _cached_rules(("preset", "netskrafl"))  # e.g. a Netskrafl game exported to GCG (#lexicon netskrafl)
    ts = _TILE_SETS.get(dist)
    if ts is None:
        raise GameLogError(
            "UNKNOWN_TILE_DISTRIBUTION",
            f"tile distribution {dist!r} (from #tile-distribution/#lexicon) has no tile set here; give --rules",
            game.path,
            None,
        )
    return _cached_rules(("gcg", ts, game.pragmas.get("board-layout", "").lower() in ("supercrosswordgame", "standard21")))


_RULES: dict[tuple, object] = {}


def _cached_rules(key: tuple):
    """The rule set a :func:`rules_for_game` key stands for, built once per process (many games
    share a few rule sets)."""
    r = _RULES.get(key)
    if r is None:
        r = _RULES[key] = _build_rules(key)
    return r


def _build_rules(key: tuple):
    from gamecore.rules import load_rules, rules_for

    kind = key[0]
    if kind == "preset":
        return load_rules(key[1])
    if kind == "options":
        return rules_for(key[1], key[2])
    if kind == "netskrafl":
        _, old_bag, explo, options = key
        r = rules_for(*options) if options else load_rules("netskrafl")
        # a Netskrafl record is Icelandic: its bag is the old or the new one, its board standard or explo
        return r.replace(tile_set="icelandic_old" if old_bag else "icelandic_new", board="explo" if explo else "standard")
    _, ts, super_board = key
    changes = {"tile_set": ts}
    if super_board:
        changes["board"] = "super"
        if ts == "english":
            changes["tile_set"] = "english_super"
    return load_rules("wespa").replace(**changes)


# ---------------------------------------------------------------------------------------------
# the challenge rule

CHALLENGE_RULES: tuple[tuple[str, int], ...] = (("word", 5), ("challenge", 10))
"""The bonus rules for a wrong challenge, in the order a first bonus is read as (the
rule set's own rule is tried first): +5 per word challenged (the five-point rule of WESPA and
NASPA's CSW: the challenger names some or all of the words the play forms; e.g.
liwords ``many_challenges.gcg``: +10 and +5), +10 per challenge."""

CHALLENGE_PRAGMA = {
    "five_point": ("word", 5),
    "ten_point": ("challenge", 10),
    "five_point_per_word": ("word", 5),
    "void": ("challenge", 0),
    "single": ("challenge", 0),
    "double": ("challenge", 0),
    "triple": ("challenge", 0),
}
"""``#challenge-rule`` values (macondo/liwords names, docs/GCG.md §2; not a pragma of the GCG spec, read
when present; :data:`gamecore.gcg.CHALLENGE_RULE_VALUES`, the reader refuses others) → the bonus rule."""


def _bonus_fits(rule: tuple[str, int], words: int, bonus: int) -> bool:
    """Whether ``bonus`` is one the rule gives for a wrong challenge of a play forming ``words``
    words (:func:`gamecore.game_state.challenge_bonus_fits`)."""
    return challenge_bonus_fits(rule[0], rule[1], words, bonus)


def _bonus(rule: tuple[str, int], words: int, recorded: int | None = None) -> int:
    """The bonus the rule gives (:func:`gamecore.game_state.challenge_bonus`): per word challenged,
    the recorded bonus's count of words, within 1 to ``words``; all of them when unknown."""
    kind, points = rule
    challenged = 0 if recorded is None or not points else min(max(1, recorded // points), max(1, words))
    return _rule_bonus(kind, points, words, challenged)


def _rule_text(rule: tuple[str, int], words: int | None = None) -> str:
    if rule[0] != "word":
        return f"+{rule[1]} per wrong challenge"
    if words is None:
        return f"+{rule[1]} per word challenged"
    return f"+{rule[1]} per word challenged (+{rule[1]} to +{rule[1] * max(1, words)}: the play forms {words} word{'s' if words != 1 else ''})"


def _own_rule(rules) -> tuple[str, int]:
    """The challenge bonus rule of a rule set: (``challenge`` or ``word``, points)."""
    return (rules.challenge_bonus_per, rules.challenge_bonus)


def challenge_rule_of(game: Game) -> tuple[str, int] | None:
    """The challenge rule a ``#challenge-rule`` pragma names, ``None`` without one (or an unknown value)."""
    value = game.pragmas.get("challenge-rule", "").strip().lower().replace("-", "_")
    return CHALLENGE_PRAGMA.get(value)


# ---------------------------------------------------------------------------------------------
# one game


class GameResult:
    """What replaying one file gives: its ``games.parquet`` row (``game_row``), ``moves.parquet``
    rows (``move_rows``, one dict per event), the findings (warnings and mismatches) and the game as
    exported to GCG (``gcg``; ``None`` on error).

    A result sent back by a worker process travels as value tuples under one key list (half the
    bytes of a dict per row); the dicts are built only if ``move_rows`` is read (the tables are
    written straight from the tuples, see :meth:`row_values`)."""

    __slots__ = ("game_row", "findings", "gcg", "_rows", "_packed")

    def __init__(
        self, game_row: dict, move_rows: list[dict] | None = None, findings: list[Finding] | None = None, gcg: str | None = None
    ):
        self.game_row = game_row
        self._rows: list[dict] | None = move_rows if move_rows is not None else []
        self._packed: tuple[tuple[str, ...], list[tuple]] | None = None
        self.findings = findings if findings is not None else []
        self.gcg = gcg

    @property
    def move_rows(self) -> list[dict]:
        if self._rows is None:
            keys, rows = self._packed_rows()
            self._rows = [dict(zip(keys, r, strict=True)) for r in rows]
            self._packed = None
        return self._rows

    @property
    def event_count(self) -> int:
        """Number of move rows (without building them)."""
        return len(self._rows) if self._rows is not None else len(self._packed_rows()[1])

    def row_values(self, names: tuple[str, ...]) -> list[tuple]:
        """The move rows as tuples of the values of ``names`` (``None`` for a missing one)."""
        if self._rows is not None:
            return [tuple(map(r.get, names)) for r in self._rows]
        keys, rows = self._packed_rows()
        if keys == names:
            return rows
        where = {k: i for i, k in enumerate(keys)}
        return [tuple(r[where[n]] if n in where else None for n in names) for r in rows]

    def _packed_rows(self) -> tuple[tuple[str, ...], list[tuple]]:
        """The rows as they came from a worker: one of ``_rows`` and ``_packed`` is always set."""
        assert self._packed is not None
        return self._packed

    def __reduce__(self):
        if self._rows is None:
            keys, rows = self._packed_rows()
        else:
            keys = tuple(self._rows[0]) if self._rows else ()
            rows = [tuple(r.values()) for r in self._rows]
        return _unpickle_result, (self.game_row, keys, rows, self.findings, self.gcg)

    @classmethod
    def packed(
        cls, game_row: dict, keys: tuple[str, ...], rows: list[tuple], findings: list[Finding], gcg: str | None
    ) -> "GameResult":
        """A result whose move rows are value tuples under ``keys``."""
        res = cls(game_row, None, findings, gcg)
        res._rows, res._packed = None, (keys, rows)
        return res

    def __repr__(self) -> str:
        return f"GameResult({self.game_row!r}, {self.event_count} move rows, {len(self.findings)} findings)"


def _unpickle_result(game_row: dict, keys: tuple, rows: list[tuple], findings: list, gcg: str | None) -> GameResult:
    return GameResult.packed(game_row, keys, rows, findings, gcg)


_RACK_LABELS: dict[object, dict[str, str]] = {}
"""Tile set → rack token → label (see ``Replayer.rack_label``)."""

_NO_BEST = {"best_coord": None, "best_word": None, "best_score": None, "points_lost": None}


def _value(ts, tiles, rules) -> int:
    """Points of rack tiles (:func:`gamecore.game_state.rack_value`; ``None`` is no tiles)."""
    return rack_value(tiles or (), ts)


def _take(big: list[str], small: list[str]) -> list[str] | None:
    """What is left of ``big`` after taking the tiles of ``small``; ``None`` when they are not all in it."""
    rest = list(big)
    remove = rest.remove
    try:
        for t in small:
            remove(t)
    except ValueError:
        return None
    return rest


class Replayer:
    def __init__(
        self,
        game: Game,
        rules,
        lexicon,
        strict: bool,
        analyze: bool = False,
        bundle=None,
        fixed_challenge: tuple[str, int] | None = None,
        equity=None,
    ):
        self.bundle = bundle
        # --analyze --leaves: each turn valued by static equity (pipelines.replay.equity); the
        # turn's values per row index, for a withdrawn play's regrading
        self.equity = equity
        self.eq_values: dict[int, dict] = {}
        self.export = False
        self.folded: dict[str, str] | None = None  # --analyze: tiles the lexicon folds (Ё → Е), found once
        # --analyze: one analyzer per game (gamecore.best.GameAnalyzer), the position kept in C
        # between turns and read from the compiled replay board's codes; made at the first turn
        self.analyzer: GameAnalyzer | None = None

        self.game = game
        self.rules = rules
        self.lexicon = lexicon
        self.strict = strict
        self.analyze = analyze
        self.pboard = replay_board(rules)
        self.ts, self.layout = self.pboard.tile_set, self.pboard.layout
        self.rack_size = rules.rack_size
        self.n = max(2, len(game.players))
        # Going out: two players under double_opponent_rack (Netskrafl, WESPA): the out-player gets
        # 2x the opponent's rack. With 3 or 4 players, and under others_racks (Ordspill), each
        # player loses their own rack and the out-player gains the sum (the boxed game's rule).
        self.others_racks = others_pay(rules, self.n)
        self.target = rules.end_target(self.n)  # Endline: the score that ends the game, or None
        self.pre_end: list[int] | None = None  # the scores before the end-of-game adjustments (tie-break)
        self.unseen = dict(self.ts.counts)  # label (``?`` blank) → tiles not yet on the board
        self.unseen["?"] = self.ts.blanks
        self.bag_n = sum(self.unseen.values())
        self.holds = [0] * self.n
        for p in range(self.n):
            d = min(rules.rack_size, self.bag_n)
            self.holds[p] = d
            self.bag_n -= d
        self.computed = [0] * self.n
        self.recorded = [0] * self.n
        self.zeros = 0
        self.passes = [0] * self.n  # each player's passes in a row (rule player_passes_end)
        self.expected: int | None = None
        self.over: str | None = None
        self.out_player: int | None = None
        self.final_pass_ok = False
        self.one_x = False
        self.done_adjust: set[int] = set()
        self.time_done: set[int] = set()
        # the last tile play, for a withdrawal or a challenge bonus:
        # (player, used, score, recorded score, drawn, zeros before, bingo, over before)
        self.last_play: tuple | None = None
        self.findings: list[Finding] = []
        self.mismatch = False
        self.mismatches: list[Finding] = []  # the findings that made the game a mismatch (not the notes)
        self.rows: list[tuple] = []
        self.row_keys = MOVE_COLUMNS + (ANALYZE_COLUMNS if analyze else ()) + (EQUITY_MOVE_COLUMNS if equity is not None else ())
        self.bingos = [0] * self.n
        self.unknown: set[str] = set()
        self.last_rack_after: dict[int, list[str]] = {}
        self.bingo_min = rules.bingo_min_tiles
        self.shortest = rules.min_word_length  # the shortest word a play may form (2; Križemkražem 4)
        # the challenge rule: fixed by --rules or a #challenge-rule pragma, else inferred from
        # the first bonus of the file (candidates kept while the bonuses agree with them)
        self.challenge_rules: list[tuple[str, int]] | None = None if fixed_challenge is None else [fixed_challenge]
        self.last_words = 1
        # the tile-set label of each rack token seen so far, shared by the games of a tile set (a
        # few dozen distinct tokens: the check runs once per token)
        self.rack_labels: dict[str, str] = _RACK_LABELS.setdefault(self.ts, {})

    def to_netskrafl_coords(self) -> None:
        """The move rows' ``coord`` (and ``best_coord``) in Netskrafl's order (``--coords netskrafl``)."""
        from gamecore.coords import gcg_to_netskrafl

        size = self.layout.size
        conv: dict[str, str] = {}

        def c(text):
            if text is None:
                return None
            got = conv.get(text)
            if got is None:
                got = conv[text] = gcg_to_netskrafl(text, size)
            return got

        best = self.row_keys.index("best_coord") if "best_coord" in self.row_keys else None
        best_move = self.row_keys.index("best_move") if "best_move" in self.row_keys else None
        rows = []
        for row in self.rows:
            r = list(row)
            r[4] = c(r[4])
            if best is not None:
                r[best] = c(r[best])
            if best_move is not None and r[best_move] and " " in r[best_move]:
                at, word = r[best_move].split(" ", 1)
                r[best_move] = f"{c(at)} {word}"
            rows.append(tuple(r))
        self.rows = rows

    # -- faults -----------------------------------------------------------------------------------
    def fault(self, code: str, msg: str, ev: Event | None, *, kind: str = "mismatch") -> None:
        """strict: raise; lenient: ``mismatch`` marks the game, ``warning`` only records,
        ``error`` raises."""
        line = ev.line if ev is not None else None
        if self.strict or kind == "error":
            raise GameLogError(code, msg, self.game.path, line)
        self.findings.append(Finding(code, msg, line))
        if kind == "mismatch":
            self.mismatch = True
            self.mismatches.append(self.findings[-1])

    def nick(self, p: int) -> str:
        return self.game.players[p].nick if p < len(self.game.players) else f"player{p + 1}"

    # -- rows ---------------------------------------------------------------------------------------
    def row(
        self,
        ev: Event,
        kind: str,
        coord=None,
        word=None,
        placed=0,
        computed=None,
        bingo=False,
        words=None,
        unknown=None,
        best=None,
        eq=None,
    ):
        """Add the event's ``moves.parquet`` row (a tuple in :attr:`row_keys` order)."""
        r: tuple[Any, ...] = (
            self.game.path,
            len(self.rows) + 1,
            ev.player + 1,
            kind,
            coord,
            word,
            placed,
            ev.score,
            computed,
            self.computed[ev.player],
            bingo,
            list(words) if words is not None else None,
            unknown,
        )
        if self.analyze:
            b = best or _NO_BEST
            r += (b["best_coord"], b["best_word"], b["best_score"], b["points_lost"])
        if self.equity is not None:
            if eq is not None:
                self.eq_values[len(self.rows)] = eq
            r += equity_row(eq)
        self.rows.append(r)

    # -- checks shared by events ------------------------------------------------------------------
    def check_turn(self, ev: Event) -> None:
        if self.expected is not None and ev.player != self.expected:
            self.fault(
                "GAME_EVENT_OFF_TURN",
                f"{self.nick(ev.player)} moves but it is {self.nick(self.expected)}'s turn",
                ev,
                kind="warning",
            )
        self.expected = (ev.player + 1) % self.n

    def check_rack(self, ev: Event) -> list[str] | None:
        """The event's rack as tile-set labels (``?`` blank), checked against the unseen pool."""
        if ev.rack is None:
            return None
        try:
            rack = list(map(self.rack_labels.__getitem__, ev.rack))
        except KeyError:
            rack = [self.rack_label(t, ev) for t in ev.rack]
        if len(rack) > self.rack_size:
            self.fault(
                "RACK_TOO_LARGE",
                f"rack {''.join(ev.rack or ())} has {len(rack)} tiles; the racks of {self.rules.name} hold {self.rack_size}",
                ev,
            )
        if not self.fits_unseen(rack):
            self.fault(
                "RACK_NOT_IN_BAG",
                f"rack {''.join(ev.rack or ())} cannot be drawn: those tiles are not all unseen (tile set {self.ts.name}, board as replayed)",
                ev,
            )
        return rack

    def rack_label(self, t: str, ev: Event) -> str:
        """The tile-set label of a rack token (``?`` blank), remembered; an error when the tile set
        has no such tile."""
        lab = self.rack_labels.get(t)
        if lab is None:
            lab = t if t == "?" else t.upper().strip("[]")
            if lab != "?" and not self.ts.has(lab):
                self.fault(
                    "TILE_NOT_IN_TILE_SET",
                    f"rack {''.join(ev.rack or ())}: {t!r} is not a tile of {self.ts.name}",
                    ev,
                    kind="error",
                )
            self.rack_labels[t] = lab  # only tiles of the set are remembered
        return lab

    def fits_unseen(self, tiles: list[str]) -> bool:
        """Whether ``tiles`` can all be unseen at once (tile set minus the tiles on the board)."""
        unseen, n = self.unseen, len(tiles)
        for t in tiles:
            have = unseen.get(t, 0)
            if have < n and have < tiles.count(t):  # with as many unseen as tiles, no need to count
                return False
        return True

    def check_after(self, ev: Event, kept: list[str]) -> None:
        """Netskrafl: the recorded rack after the move holds the kept tiles and has the right size."""
        if ev.rack_after is None:
            return
        p = ev.player
        self.last_rack_after[p] = ev.rack_after
        if _take(ev.rack_after, kept) is None or len(ev.rack_after) != self.holds[p]:
            self.fault(
                "RACK_AFTER_MOVE_INCORRECT",
                f"rack after the move {''.join(ev.rack_after)} should keep {''.join(kept)} and hold {self.holds[p]} tiles",
                ev,
            )

    def check_cumulative(self, ev: Event) -> None:
        p = ev.player
        if ev.cumulative is None:
            self.recorded[p] += ev.score or 0
            return
        want = self.recorded[p] + (ev.score or 0)
        if ev.cumulative != want:
            self.fault(
                "CUMULATIVE_SCORING_ERROR", f"cumulative {ev.cumulative} should be {self.recorded[p]} {ev.score:+d} = {want}", ev
            )
        self.recorded[p] = ev.cumulative

    def after_move_over_check(self, ev: Event) -> None:
        if self.over is None:
            return
        if self.over == "out" and self.final_pass_ok and ev.kind == "pass" and ev.player != self.out_player:
            self.final_pass_ok = False  # the opponent's pass after the going-out play (challenge window)
            return
        self.fault("MOVE_EVENT_AFTER_GAME_END", f"{ev.kind} by {self.nick(ev.player)} after the game ended", ev)

    # -- events -----------------------------------------------------------------------------------------
    def play(self, ev: Event) -> None:
        if self.over is not None:
            self.after_move_over_check(ev)
        p = ev.player
        self.check_turn(ev)
        rack = self.check_rack(ev)
        position = self.before() if self.analyze else None
        placement = self.place(ev)
        if placement is None:
            return
        score, used, words, text = placement
        placed = len(used)
        kept = self.kept_tiles(ev, rack, used)
        holds = self.holds
        if placed > holds[p]:
            self.fault(
                "PLAYED_TILES_NOT_IN_RACK", f"{_play_text(ev)} places {placed} tiles but {self.nick(p)} holds only {holds[p]}", ev
            )
        best = self.best(ev, rack, score, position) if self.analyze else None
        eq = self.turn_equity(ev, "play", rack, position, score=score, kept=kept, placed=placed, text=text)
        if ev.score is not None and ev.score != score:
            self.fault("PLAY_SCORE_INCORRECT", f"{_play_text(ev)} scores {score}, recorded {ev.score:+d}", ev)
        unknown = None
        if self.lexicon is not None:
            lexicon = self.lexicon
            unknown = [w for w in words if w not in lexicon]
            if unknown:
                self.unknown.update(unknown)
        unseen = self.unseen
        for u in used:
            unseen[u] -= 1
        # refill from the bag
        holds[p] -= placed
        drawn = min(placed, self.bag_n, max(0, self.rack_size - holds[p]))
        holds[p] += drawn
        self.bag_n -= drawn
        self.computed[p] += score
        self.check_cumulative(ev)
        if kept is not None:
            self.check_after(ev, kept)
        bingo = placed >= self.bingo_min
        if bingo:
            self.bingos[p] += 1
        self.last_play = (p, used, score, ev.score, drawn, self.zeros, bingo, self.over)
        self.last_words = max(1, len(words))
        self.zeros = 0
        self.passes[p] = 0
        if self.over is None and (holds[p] == 0 or self.target is not None):  # else the play ends nothing
            # going out, or the Endline target (the Scrabble rules page: the game ends when a player reaches it)
            self.over = end_after_play(self.rules, self.n, holds[p], self.bag_n, self.computed[p])
            if self.over == "out":
                self.out_player, self.final_pass_ok = p, True
        self.row(ev, "play", ev.coord, text, placed, score, bingo, words, unknown, best, eq)
        if self.export:
            self.export_word[id(ev)] = _split_norm(text)

    def place(self, ev: Event):
        """A play's tiles on the board: ``(score, used, words, text)``, or None when it cannot be
        made (the error row written). A play with a word too short for the rules is taken back."""
        try:
            if ev.row is not None and ev.word:
                assert ev.col is not None and ev.across is not None  # a play's start square and direction
                score, used, words, text = self.pboard.play(ev.row, ev.col, ev.across, ev.word, ev.through)
            else:  # an event made without a start square or tiles: its coordinate and word as text
                score, used, words, text = self.play_text(ev)
        except IllegalPlay as exc:
            code = {"off_board": "PLAY_OUT_OF_BOUNDS", "unknown_letter": "TILE_NOT_IN_TILE_SET"}.get(exc.code, "ILLEGAL_PLAY")
            self.fault(code, f"{_play_text(ev)}: {exc.message} ({exc.code})", ev, kind="error")
            return None
        except SkraflError as exc:
            self.fault("COORDINATE_OUT_OF_BOUNDS", f"{_play_text(ev)}: {exc.message}", ev, kind="error")
            return None
        if self.shortest > 2:
            self.check_word_lengths(ev, words)
        return score, used, words, text

    def kept_tiles(self, ev: Event, rack: list[str] | None, used: list[str]) -> list[str] | None:
        """What the recorded rack keeps after the play (None: no rack recorded); tiles the rack
        lacks are a fault, and the rest is kept."""
        if rack is None:
            return None
        kept = _take(rack, used)
        if kept is None:
            self.fault(
                "PLAYED_TILES_NOT_IN_RACK",
                f"{_play_text(ev)} uses {''.join(used)}, not all on the rack {''.join(ev.rack or ())}",
                ev,
            )
            kept = list(rack)
            for u in used:
                if u in kept:
                    kept.remove(u)
        return kept

    def check_word_lengths(self, ev: Event, words) -> None:
        """The rule set's shortest word (``min_word_length``; the Slovenian Scrabble article's Križemkražem: 4), for
        the main word and every cross word, counted in tiles, as ``score`` rules it (``too_short``).
        The play is taken back before the error: it cannot be made."""
        why = too_short(self.rules, [(w, word_length(self.ts, w)) for w in words])
        if why is not None:
            self.pboard.undo()
            self.fault("ILLEGAL_PLAY", f"{_play_text(ev)}: {why} (too_short)", ev, kind="error")

    def play_text(self, ev: Event):
        """Play an event from its coordinate and its word read as text (as
        :func:`gamecore.play.parse_play` reads them). Raises IllegalPlay, CoordinateError."""
        row, col, across = parse_gcg(ev.coord or "", self.layout.size)
        word = "".join(ev.word or ())
        try:
            tokens = self.ts.split_word(word.replace("(", "").replace(")", ""), allow=".")
        except SkraflError as exc:
            raise IllegalPlay("unknown_letter", exc.message) from None
        if not tokens:
            raise IllegalPlay("no_tiles", "empty word")
        return self.pboard.play(row, col, across, tokens)

    def before(self):
        """``--analyze``: the position before the event, as the compiled board's codes (bytes, no
        Board made: :meth:`best` hands them to the game's analyzer) or, on the oracle board, a
        :class:`gamecore.board.Board`. Only when there is a bundle to analyse with."""
        if self.bundle is None:
            return None
        codes = getattr(self.pboard, "codes", None)
        return codes() if codes is not None else self.pboard.position()

    def best(self, ev: Event, rack, score: int, position) -> dict | None:
        """``--analyze``: the best play of the position (gamecore.best, top score) and the points
        lost; for a pass or an exchange (score 0) the best play the player had instead.

        ``position``: from :meth:`before`. Board codes go to the game's one
        :class:`gamecore.best.GameAnalyzer` (the pruned search for the top play on a position kept
        in C, updated by the tiles added since the last turn), which gives exactly what
        :func:`gamecore.best.best_play` gives on the same Board; a Board (the oracle replay board)
        goes to ``best_play`` itself."""
        empty = _NO_BEST
        if rack is None or self.bundle is None or len(rack) < len(ev.rack or ()):
            return empty
        try:
            bp = self.top_play(position, rack)
        except SkraflError:
            return empty
        if bp is None:
            return empty
        return {
            "best_coord": bp.coord,
            "best_word": bp.word_text("."),
            "best_score": bp.score,
            "points_lost": max(0, bp.score - score),
        }

    def top_play(self, position, rack):
        """The best play (a ScoredPlay) or None: see :meth:`best`. Raises SkraflError as
        :func:`gamecore.best.best_play` does (an impossible rack, a letter outside the lexicon)."""
        if self.folded is None:
            from gamecore.folded import folded_tiles, manifest_fold

            self.folded = folded_tiles(self.ts, self.bundle.alphabet, manifest_fold(self.bundle))
        codes = position if isinstance(position, bytes) else None
        # the best play forms no word shorter than min_word_length: gamecore.best keeps that rule
        if self.folded:
            board = position if codes is None else self.game_analyzer().board(codes)
            if any(t in self.folded for t in rack) or any(
                t is not None and t.label in self.folded for row in board.squares for t in row
            ):
                from gamecore.folded import best_plays_folded  # a Ё tile plays as Е (the Russian Scrabble article)

                got = best_plays_folded(board, rack, self.bundle, self.rules, 1)
                return got[0] if got else None
        if codes is not None:
            return self.game_analyzer().best(codes, rack)
        from gamecore.best import best_play

        return best_play(position, rack, self.bundle, self.rules)

    def game_analyzer(self) -> GameAnalyzer:
        """The game's analyzer, made at its first use."""
        if self.analyzer is None:
            from gamecore.best import GameAnalyzer

            self.analyzer = GameAnalyzer(self.bundle, self.rules)
        return self.analyzer

    def turn_equity(self, ev: Event, kind: str, rack, position, *, score=0, kept=None, placed=0, text=None) -> dict | None:
        """``--analyze --leaves``: the turn's equity values (:class:`pipelines.replay.equity.EquityAnalysis`),
        before the move changes the bag and the unseen tiles; None without a rack or a position."""
        if self.equity is None or rack is None or position is None or kept is None:
            return None
        p = ev.player
        others = [q for q in range(self.n) if q != p]
        if isinstance(position, bytes):
            empty = not position.strip(b"\0")
            board = self.game_analyzer().board(position)
        else:
            board, empty = position, position.is_empty()
        return self.equity.turn(
            board,
            list(rack),
            kind,
            score=score,
            kept=kept,
            placed=placed,
            coord=ev.coord,
            text=text,
            bag=self.bag_n,
            unseen=self.unseen,
            spread=self.computed[p] - max(self.computed[q] for q in others),
            opponent_holds=sum(self.holds[q] for q in others),
            players=self.n,
            empty_board=empty,
        )

    def regrade_withdrawn(self, player: int) -> None:
        """A play withdrawn (a phony): its row's equity values become the pass's."""
        for i in range(len(self.rows) - 1, -1, -1):
            r = self.rows[i]
            if r[2] == player + 1 and r[3] == "play":
                eq = self.eq_values.get(i)
                if eq is not None:
                    eq = self.eq_values[i] = self.equity.withdrawn(eq)
                    self.rows[i] = r[: -len(EQUITY_MOVE_COLUMNS)] + equity_row(eq)
                return

    def withdraw(self, ev: Event) -> None:
        lp = self.last_play
        p = ev.player
        if lp is None:
            self.fault("PHONY_TILES_RETURNED_WITHOUT_PLAY", "phony withdrawn but there is no play to take back", ev, kind="error")
            return
        player, used, score, recorded, drawn, zeros, bingo, over = lp
        if player != p:
            self.fault(
                "INVALID_PHONY_TILES_PLAYER_INDEX", f"{self.nick(p)} withdraws {self.nick(player)}'s play", ev, kind="error"
            )
            return
        self.pboard.undo()
        for u in used:
            self.unseen[u] += 1
        self.holds[p] += len(used) - drawn
        self.bag_n += drawn
        self.computed[p] -= score
        if bingo:
            self.bingos[p] -= 1
        if recorded is not None and ev.score is not None and ev.score != -recorded:
            self.fault(
                "PHONY_SCORE_INCORRECT", f"withdrawal scores {ev.score:+d}, should be -{recorded} (the withdrawn play)", ev
            )
        self.over = over
        if self.over is None:
            self.out_player, self.final_pass_ok = None, False
        self.zeros = zeros + (1 if self.game.format == "gcg" else 0)
        self.check_cumulative(ev)
        if ev.rack_after is not None:
            self.last_rack_after[p] = ev.rack_after
        self.last_play = None
        if self.equity is not None:
            self.regrade_withdrawn(p)
        self.row(ev, "withdraw", computed=-score)
        self.check_zeros(ev)

    def challenge_bonus(self, ev: Event) -> None:
        p = ev.player
        lp = self.last_play
        if lp is None:
            self.fault("CHALLENGE_BONUS_WITHOUT_PLAY", "challenge bonus without a play to challenge", ev, kind="error")
            return
        if lp[0] != p:
            self.fault(
                "INVALID_CHALLENGE_BONUS_PLAYER_INDEX",
                f"challenge bonus to {self.nick(p)} but the challenged play was by {self.nick(lp[0])}",
                ev,
                kind="error",
            )
            return
        bonus = self.challenge_value(ev)
        if ev.score is not None and ev.score != bonus:
            rule = self.challenge_rules[0] if self.challenge_rules else _own_rule(self.rules)
            self.fault(
                "CHALLENGE_BONUS_INCORRECT",
                f"challenge bonus {ev.score:+d}, the rules give +{bonus}"
                + (f" ({_rule_text(rule, self.last_words)})" if rule[0] == "word" else ""),
                ev,
            )
        self.computed[p] += bonus
        if self.over is None and reached_target(self.rules, self.n, self.computed[p]):
            self.over = "target"  # Endline: a bonus that reaches the target ends the game too
        self.check_cumulative(ev)
        self.row(ev, "challenge_bonus", computed=bonus)

    def challenge_value(self, ev: Event) -> int:
        """The bonus the challenge rule gives for this wrong challenge. Without a rule fixed by
        ``--rules`` or ``#challenge-rule``, the rule is inferred from the file's first
        bonus (+5 per word challenged, up to the words the challenged play forms, or +10 per
        challenge; the rule set's own rule first) and the rest of the game is held to it (the
        candidates that agree with every bonus so far)."""
        words = self.last_words
        recorded = ev.score
        if self.challenge_rules is None:
            own = _own_rule(self.rules)
            order = [own] + [c for c in CHALLENGE_RULES if c != own] if own[1] else list(CHALLENGE_RULES)
            fits = [c for c in order if _bonus_fits(c, words, recorded or 0)]
            if not fits:
                return _bonus(own, words, recorded) if own[1] else (recorded or 0)
            self.challenge_rules = fits
            if fits[0] != own:
                self.findings.append(
                    Finding(
                        "CHALLENGE_RULE_INFERRED",
                        f"the file names no challenge rule: {_rule_text(fits[0])} (from its first bonus, {recorded or 0:+d})",
                        ev.line,
                    )
                )
            return recorded or 0
        fits = [c for c in self.challenge_rules if _bonus_fits(c, words, recorded or 0)]
        if fits and recorded is not None:
            self.challenge_rules = fits
            return recorded
        return _bonus(self.challenge_rules[0], words, recorded)

    def check_zeros(self, ev: Event) -> None:
        """The end of the game by scoreless turns (``scoreless_rounds_end``), or by a player's
        passes in a row (``player_passes_end``, the Scrabble rules page: twice)."""
        if self.over is not None:
            return
        self.over = end_after_scoreless(self.rules, self.n, self.zeros, self.passes[ev.player])

    def pass_(self, ev: Event) -> None:
        self.after_move_over_check(ev)
        self.check_turn(ev)
        rack = self.check_rack(ev)
        position = self.before() if self.analyze and rack else None
        best = self.best(ev, rack, 0, position) if position is not None else None
        eq = self.turn_equity(ev, "pass", rack, position, kept=rack)
        if self.over is None:
            self.zeros += 1
            self.passes[ev.player] += 1
        if ev.score not in (None, 0):
            self.fault("PLAY_SCORE_INCORRECT", f"a pass scores 0, recorded {ev.score:+d}", ev)
        self.check_cumulative(ev)
        if rack is not None:
            self.check_after(ev, rack)
        self.last_play = None
        self.row(ev, "pass", computed=0, best=best, eq=eq)
        self.check_zeros(ev)

    def exchange(self, ev: Event) -> None:
        self.after_move_over_check(ev)
        self.check_turn(ev)
        rack = self.check_rack(ev)
        position = self.before() if self.analyze and rack else None
        best = self.best(ev, rack, 0, position) if position is not None else None
        tiles = [t if t == "?" else t.upper() for t in (ev.tiles or [])]
        eq = None
        if self.equity is not None and rack is not None and ev.tiles is not None:
            eq = self.turn_equity(ev, "exchange", rack, position, kept=_take(rack, tiles))
        if rack is not None and ev.tiles is not None and _take(rack, tiles) is None:
            self.fault("EXCHANGE_NOT_IN_RACK", f"exchanges {''.join(ev.tiles)}, not all on the rack {''.join(ev.rack or ())}", ev)
        n = len(tiles) if ev.tiles is not None else (ev.count or 0)
        # the rule set's minimum (WESPA, Netskrafl: 7); whatever it is, the tiles drawn come from
        # the bag: never more than it holds, never from an empty bag (the Slovenian Scrabble article: "draws as many
        # new ones from the bag")
        why = exchange_refusal(self.rules, self.bag_n, n)
        if why is not None:
            self.fault("EXCHANGE_BAG_TOO_SMALL", why, ev)
        if ev.score not in (None, 0):
            self.fault("PLAY_SCORE_INCORRECT", f"an exchange scores 0, recorded {ev.score:+d}", ev)
        if self.over is None:
            self.zeros += 1
            self.passes[ev.player] = 0  # an exchange is no pass
        self.check_cumulative(ev)
        if rack is not None:
            kept = list(rack)
            for t in tiles:
                if t in kept:
                    kept.remove(t)
            self.check_after(ev, kept)
        self.last_play = None
        self.row(
            ev, "exchange", word="".join(ev.tiles) if ev.tiles else str(ev.count or 0), placed=0, computed=0, best=best, eq=eq
        )
        self.check_zeros(ev)

    def end_rack(self, ev: Event) -> None:
        p = ev.player
        if self.pre_end is None:
            self.pre_end = list(self.computed)
        v = _value(self.ts, ev.tiles, self.rules)
        if self.over != "out":
            self.fault(
                "END_GAME_EVENT_BEFORE_GAME_END", f"end-of-game rack points for {self.nick(p)} but nobody has gone out", ev
            )
        elif p != self.out_player:
            assert self.out_player is not None  # the game is over by going out
            self.fault(
                "GAME_EVENT_OFF_TURN", f"end-of-game rack points to {self.nick(p)}, but {self.nick(self.out_player)} went out", ev
            )
        others = [q for q in range(self.n) if q != p]
        if self.over == "out" and sum(self.holds[q] for q in others) != len(ev.tiles or []):
            self.fault(
                "END_RACK_TILES_INCORRECT",
                f"({''.join(ev.tiles or [])}): the opponent holds {sum(self.holds[q] for q in others)} tiles",
                ev,
            )
        want = v if self.others_racks else 2 * v
        if ev.score == v and v != 2 * v and not self.others_racks:
            self.one_x = True  # older style: 1x to the out-player and a penalty line for the opponent
            want = v
        if ev.score is not None and ev.score != want:
            self.fault(
                "RACK_END_POINTS_INCORRECT",
                f"({''.join(ev.tiles or [])}) is worth {v}: the out-player gets {want}, recorded {ev.score:+d}",
                ev,
            )
        self.computed[p] += want
        self.done_adjust.add(p)
        self.check_cumulative(ev)
        self.final_pass_ok = False
        self.row(ev, "end_rack", word="".join(ev.tiles or []), computed=want)

    def rack_penalty(self, ev: Event) -> None:
        p = ev.player
        if self.pre_end is None:
            self.pre_end = list(self.computed)
        tiles = [t if t == "?" else t.upper() for t in (ev.tiles or [])]
        if ev.rack is not None and sorted(tiles) != sorted(t if t == "?" else t.upper() for t in ev.rack):
            self.fault(
                "END_RACK_PENALTY_MISMATCH",
                f"penalty tiles ({''.join(ev.tiles or [])}) differ from the rack {''.join(ev.rack or ())}",
                ev,
            )
        v = _value(self.ts, tiles, self.rules)
        allowed = self.over in ("zeros", "passes") or (self.over == "out" and p != self.out_player)
        if not allowed:
            self.fault("END_GAME_EVENT_BEFORE_GAME_END", f"own-rack penalty for {self.nick(p)} before the game ended", ev)
        if p in self.done_adjust and self.over in ("zeros", "passes"):
            self.fault("GAME_EVENT_OFF_TURN", f"second own-rack penalty for {self.nick(p)}", ev)
        if ev.score is not None and ev.score != -v:
            self.fault(
                "END_RACK_PENALTY_INCORRECT",
                f"({''.join(ev.tiles or [])}) is worth {v}: penalty -{v}, recorded {ev.score:+d}",
                ev,
            )
        if self.holds[p] != len(tiles) and self.over is not None:
            self.fault("END_RACK_TILES_INCORRECT", f"({''.join(ev.tiles or [])}): {self.nick(p)} holds {self.holds[p]} tiles", ev)
        self.computed[p] -= v
        self.done_adjust.add(p)
        self.check_cumulative(ev)
        self.final_pass_ok = False
        self.row(ev, "rack_penalty", word="".join(ev.tiles or []), computed=-v)

    def adjustments_pending(self) -> bool:
        if self.over == "out":
            each = self.one_x or self.others_racks
            need = {self.out_player} | ({q for q in range(self.n) if q != self.out_player} if each else set())
            return not need <= self.done_adjust
        if self.over in ("zeros", "passes"):
            return not set(range(self.n)) <= self.done_adjust
        return False

    def time(self, ev: Event) -> None:
        p = ev.player
        if self.over is None:
            self.fault("END_GAME_EVENT_BEFORE_GAME_END", f"time penalty for {self.nick(p)} before the game ended", ev)
        elif self.adjustments_pending() and self.game.format == "gcg":
            self.fault("PREMATURE_TIME_PENALTY", f"time penalty for {self.nick(p)} before the end-of-game rack lines", ev)
        if p in self.time_done:
            self.fault("GAME_REDUNDANT_TIME_PENALTY", f"second time penalty for {self.nick(p)}", ev)
        self.time_done.add(p)
        score = ev.score or 0
        if score > 0:
            self.fault("PLAY_SCORE_INCORRECT", f"a time penalty is negative, recorded {score:+d}", ev)
        elif (why := time_penalty_refusal(self.rules, score)) is not None:
            # the rule set's penalty per started period (Ordspill, Netskrafl, WESPA: 10) and its most
            # (Ordspill: a game ends once a player is more than 5 minutes over; per started 15 s in
            # Lynrask and Panikk, at most 21 × 10; Netskrafl: 100)
            self.fault("TIME_PENALTY_INCORRECT", why, ev)
        self.computed[p] += score
        self.check_cumulative(ev)
        self.row(ev, "time", computed=score)

    def resign(self, ev: Event) -> None:
        p = ev.player
        want = -self.computed[p]
        if ev.score is not None and ev.score != want:
            self.fault(
                "RESIGN_SCORE_INCORRECT", f"resignation scores {ev.score:+d}, should be {want:+d} (the resigner's score)", ev
            )
        self.computed[p] = 0
        self.check_cumulative(ev)
        self.over = "resign"
        self.row(ev, "resign", computed=want)

    def challenge(self, ev: Event) -> None:
        if ev.score not in (None, 0):
            self.fault("PLAY_SCORE_INCORRECT", f"a challenge scores 0, recorded {ev.score:+d}", ev)
        self.check_cumulative(ev)
        self.row(ev, "challenge", computed=0)

    # -- whole game -----------------------------------------------------------------------------------
    #: event kind → the method that applies it
    HANDLERS = {
        "play": "play",
        "pass": "pass_",
        "exchange": "exchange",
        "withdraw": "withdraw",
        "challenge_bonus": "challenge_bonus",
        "challenge": "challenge",
        "end_rack": "end_rack",
        "rack_penalty": "rack_penalty",
        "time": "time",
        "resign": "resign",
    }

    def start(self) -> None:
        """Before the first event: the game's players against the rule set."""
        g = self.game
        self.export_word: dict[int, list[str]] = {}
        self.synthetic: list[Event] = []
        if len(g.players) > self.rules.players_max:
            self.fault(
                "UNSUPPORTED_PLAYER_NUMBER",
                f"{len(g.players)} players, but {self.rules.name} is a game for at most {self.rules.players_max}",
                None,
                kind="error",
            )

    def step(self, ev: Event) -> None:
        """Apply one event (after :meth:`start`): the one game loop of ``replay``, ``--analyze``
        and the positions of ``score --game`` / ``show --game`` (``cli/position.py``)."""
        if ev.player >= self.n:
            self.fault("PLAYER_DOES_NOT_EXIST", f"player {ev.player + 1}", ev, kind="error")
        getattr(self, self.HANDLERS[ev.kind])(ev)

    def run(self) -> None:
        g = self.game
        self.start()
        # self.step(ev), written out: replay's hot loop (millions of moves); the bound methods in a
        # local, not on self (a cycle that would keep every replayed game until the collector runs)
        handlers = {kind: getattr(self, name) for kind, name in self.HANDLERS.items()}
        n = self.n
        for ev in g.events:
            if ev.player >= n:
                self.fault("PLAYER_DOES_NOT_EXIST", f"player {ev.player + 1}", ev, kind="error")
            handlers[ev.kind](ev)
        for p, rack in sorted(g.last_racks.items()):
            if g.format == "gcg" and rack and not self.fits_unseen([t if t == "?" else t.upper() for t in rack]):
                self.fault("RACK_NOT_IN_BAG", f"#rack{p + 1} {''.join(rack)} cannot be drawn: not all unseen", None)
        if g.format == "netskrafl":
            self.netskrafl_end()
        else:
            if self.over in ("zeros", "passes") and not g.incomplete and not g.last_racks:
                missing = [q for q in range(self.n) if q not in self.done_adjust and self.holds[q]]
                if missing:
                    have = len(set(range(self.n)) - set(missing))
                    self.fault(
                        "END_RACK_PENALTY_MISSING",
                        (
                            f"the game ended on {self.rules.scoreless_turns_end(self.n)} scoreless turns, "
                            if self.over == "zeros"
                            else f"the game ended on a player's {self.rules.player_passes_end} passes in a row, "
                        )
                        + f"but {', '.join(self.nick(q) for q in missing)} {'has' if len(missing) == 1 else 'have'} no own-rack deduction line "
                        f"({have} of {self.n} recorded; every player loses their own rack)",
                        None,
                        kind="warning",
                    )
            recorded = g.recorded_totals()
            for p in range(min(self.n, len(recorded))):
                if recorded[p] is not None and recorded[p] != self.computed[p] and not self.mismatch:
                    self.fault(
                        "FINAL_SCORE_MISMATCH", f"{self.nick(p)} ends on {recorded[p]}, the rules give {self.computed[p]}", None
                    )

    def netskrafl_end(self) -> None:
        """docs/NETSKRAFL.md §2: out-player +2× opponent's rack; six zeros: each −own rack;
        never below 0; resigner 0. Added as end_rack / rack_penalty rows (no recorded score)."""
        g = self.game
        racks = {p: self.last_rack_after.get(p, g.initial_racks.get(p, [])) for p in range(self.n)}
        self.pre_end = list(self.computed)
        for p, r in g.last_racks.items():
            if sorted(r) != sorted(racks.get(p, [])):
                self.fault(
                    "RACK_AFTER_MOVE_INCORRECT",
                    f"rack{p}_final {''.join(r)} differs from the replayed rack {''.join(racks.get(p, []))}",
                    None,
                )
        # the rule set's adjustments (gamecore.game_state.end_adjustments; Netskrafl: the out-player
        # +2x the opponent's rack, six zeros: each -own rack), as rows
        for a in end_adjustments(self.rules, self.over, [racks[q] for q in range(self.n)], self.out_player, self.ts):
            p, tiles, v = a.player, list(a.tiles), a.points
            self.computed[p] += v
            if self.over == "out" and p == self.out_player:
                ev = Event("end_rack", p, tiles=tiles, score=None)
                self.row(ev, "end_rack", word="".join(tiles), computed=v)
                self.synthetic.append(Event("end_rack", p, tiles=tiles, score=v, cumulative=self.computed[p]))
            else:
                ev = Event("rack_penalty", p, rack=tiles, tiles=tiles, score=None)
                self.row(ev, "rack_penalty", word="".join(tiles), computed=v)
                self.synthetic.append(Event("rack_penalty", p, rack=tiles, tiles=tiles, score=v, cumulative=self.computed[p]))
        if self.rules.score_floor_zero:
            self.computed = [max(0, s) for s in self.computed]
        if g.final_scores is not None:
            for p, want in enumerate(g.final_scores[: self.n]):
                if want != self.computed[p]:
                    self.fault(
                        "FINAL_SCORE_MISMATCH", f"player {p} final score recorded {want}, the rules give {self.computed[p]}", None
                    )


def _play_text(ev: Event) -> str:
    """``COORD WORD`` of a play event, for messages."""
    return f"{ev.coord} {''.join(ev.word or ())}"


def _split_norm(word: str) -> list[str]:
    from gamecore.gamelog import split_tiles

    return split_tiles(word)


def export_game(game: Game, rep: Replayer) -> Game:
    """The game as it will be written to GCG: words with ``.`` for played-through tiles, cumulative
    scores filled in (Netskrafl records have none), Netskrafl end-of-game adjustments as events."""
    out = copy.deepcopy(game)
    out.warnings = []
    running = [0] * max(2, len(out.players))
    for ev, orig in zip(out.events, game.events, strict=True):
        if id(orig) in rep.export_word:
            ev.word = rep.export_word[id(orig)]
            ev.through = ()
        if ev.cumulative is None:
            running[ev.player] += ev.score or 0
            ev.cumulative = running[ev.player]
        else:
            running[ev.player] = ev.cumulative
    for ev in rep.synthetic:
        out.events.append(ev)
    if game.format == "netskrafl":
        out.last_racks = {}  # the game is finished: rack{0,1}_final are the end-of-game racks above
    facts = game_facts(game)
    gid = facts["game_id"]
    if not game.pragmas.get("id") or (game.format == "netskrafl" and game.game_id is None):
        # no id of its own (a GCG file without #id, a record without game_id): it is known by its
        # file name and content digest, which the export (another name, its words and
        # cumulative scores written out) would not give again; #id SKRAFL_ID keeps it
        out.pragmas.pop("id", None)
        if gid and "\n" not in gid and "\r" not in gid and gid == gid.strip():
            out.pragmas["id"] = f"{SKRAFL_ID} {gid}"
    if facts["finished_at"] is not None:
        out.pragmas["finished-at"] = facts["finished_at"].isoformat().replace("+00:00", "Z")
    if facts["competition"] is not None:
        out.pragmas["competition"] = "true" if facts["competition"] else "false"
    if facts.get("locale"):
        out.pragmas["locale"] = facts["locale"]
    return out


def replay_game(
    game: Game,
    rules=None,
    lexicon=None,
    *,
    strict: bool = False,
    analyze: bool = False,
    preset: str | None = None,
    lang: str | None = None,
    export: bool = False,
    bundle=None,
    coords: str = "gcg",
    leaves: str | None = None,
    sim_iterations: int | None = None,
) -> GameResult:
    """Replay one parsed game. Never raises for bad game data: the result's row says ``error``.

    Args:
        game: from :func:`gamecore.gcg.read_gcg` or :func:`gamecore.netskrafl_record.read_netskrafl_record`.
        rules: a RuleSet; default :func:`rules_for_game` (with ``preset``/``lang``).
        lexicon: anything answering ``word in lexicon`` (lowercase words), or ``None``.
        strict: every inconsistency is an error (docs/GCG.md §8).
        analyze: add the best play per turn (columns best_coord, best_word, best_score, points_lost).
        bundle: a :class:`gamecore.best.LexiconBundle` for ``analyze`` (without it those are null).
        export: also return the game as GCG text.
        coords: ``gcg`` (default) or ``netskrafl``: the order of ``coord`` and ``best_coord`` in the
            move rows (Netskrafl's: row letter first across, ``H4``; column number first down).
        leaves: with ``analyze`` and a bundle, a KLV2 path or ``shipped``: each turn valued by
            static equity (:mod:`pipelines.replay.equity`: the moves' equity columns, the players'
            grades in the game row); a game whose rule set has no such leaves gets nulls and a
            warning ``EQUITY_NOT_ANALYZED``.
        sim_iterations: with ``leaves``, the win % lost by simulation (:mod:`pipelines.replay.equity`).
    """
    players = [p.nick for p in game.players] + [None] * 4
    base = {
        "file": game.path,
        "format": game.format,
        "player1": players[0],
        "player2": players[1],
        "player3": players[2],
        "player4": players[3],
        "players": max(2, len(game.players)),
        **game_facts(game),
    }
    try:
        fixed = None
        if rules is None:
            fixed = challenge_rule_of(game)
            if preset or lang:
                rules = rules_for_game(game, preset, lang, strict)
                if preset:  # --rules names the challenge rule; --lang only the language (its words, its tiles)
                    fixed = _own_rule(rules)
            elif game.format == "gcg" and not game.pragmas.get("lexicon") and not game.pragmas.get("tile-distribution"):
                rules = rules_for_game(game, None, None, False)
                if strict and lexicon is None and rules.tile_set not in ("english", "english_super"):
                    # the lexicon really matters: the letters are not English and neither the file nor
                    # the options (--lang, --lexicon, --rules) name one (MAGPIE: a lexicon from the file
                    # or from its configuration)
                    raise GameLogError(
                        "LEXICON_NOT_SPECIFIED",
                        f"no #lexicon in the file, its letters are not English (they fit {rules.tile_set}), and no --lang/--lexicon/--rules given",
                        game.path,
                        None,
                    )
                game.warnings.append(
                    Finding(
                        "LEXICON_NOT_SPECIFIED",
                        f"no #lexicon: replayed under {rules.name} rules with the {rules.tile_set} tile set (as macondo loads such files; give --rules or --lang to choose)",
                    )
                )
            else:
                rules = rules_for_game(game, preset, lang, strict)
        else:
            fixed = challenge_rule_of(game) or _own_rule(rules)
        if game.format == "netskrafl":
            fixed = _own_rule(rules)
        equity = None
        if analyze and leaves and bundle is not None:
            from .equity import analysis_for

            try:
                equity = analysis_for(bundle, rules, leaves, sim_iterations)
            except SkraflError as exc:
                game.warnings.append(Finding("EQUITY_NOT_ANALYZED", exc.message))
        rep = Replayer(game, rules, lexicon, strict, analyze, bundle, fixed, equity)
        rep.export = export
        rep.run()
        if coords == "netskrafl":
            rep.to_netskrafl_coords()
    except GameLogError as exc:
        row = error_row(base, exc)
        row["warnings"] = [str(f) for f in game.warnings]
        return GameResult(row, [], list(game.warnings), None)
    except SkraflError as exc:
        row = error_row(base, GameLogError("RULES_ERROR", exc.message, game.path, exc.line))
        row["warnings"] = [str(f) for f in game.warnings]
        return GameResult(row, [], list(game.warnings), None)
    findings = list(game.warnings) + rep.findings
    status = "mismatch" if rep.mismatch else "ok"
    # the cause named is the first finding that made the game a mismatch, not a note before it (the
    # challenge rule inferred from a first bonus named a game whose later bonus disagreed)
    first = next((f for f in rep.mismatches if f.code and f.code not in ("GAME_EVENT_OFF_TURN",)), None) if rep.mismatch else None
    scores = rep.computed + [None] * 4
    bingos = rep.bingos + [None] * 4
    # finished: someone went out, the scoreless turns ran out or a player resigned (a GCG file
    # marked #incomplete or ending on #rack lines is not, whatever its last line)
    finished = rep.over is not None and (game.format == "netskrafl" or not (game.incomplete or game.last_racks))
    row = dict(base)
    row.update(
        {
            "status": status,
            "error": (f"{first.code}: {first.message}" + (f" (line {first.line})" if first.line else "")) if first else None,
            "score1": scores[0],
            "score2": scores[1],
            "score3": scores[2],
            "score4": scores[3],
            "winner": _winner(game, rules, rep.computed, rep.pre_end) if finished else None,
            "finished": finished,
            "ended_by": rep.over if finished else None,
            "moves": sum(1 for r in rep.rows if r[3] in ("play", "pass", "exchange")),
            "bingos1": bingos[0],
            "bingos2": bingos[1],
            "bingos3": bingos[2],
            "bingos4": bingos[3],
            "unknown_words": sorted(rep.unknown) if lexicon is not None else None,
            "warnings": [str(f) for f in findings],
        }
    )
    if analyze and leaves:
        from .equity import player_grades

        row["rules"] = rules.name
        if equity is not None:
            players_of = [(r[2] - 1, rep.eq_values[i]) for i, r in enumerate(rep.rows) if i in rep.eq_values]
            row.update(player_grades(players_of, rep.n))
    gcg_text = None
    if export:
        from gamecore.gcg import write_gcg

        gcg_text = write_gcg(export_game(game, rep))
    return GameResult.packed(row, rep.row_keys, rep.rows, findings, gcg_text)


def _flag(value) -> bool | None:
    return value if isinstance(value, bool) else None


NETSKRAFL_ID = "is.netskrafl"
"""The ``#id`` authority of a Netskrafl record (``#id is.netskrafl GAME_ID``, docs/GCG.md §2 ``authority id``)."""

SKRAFL_ID = "skrafl.replay"
"""The ``#id`` authority of the id replay gave a game that had none of its own (``FILE#DIGEST``,
:func:`content_id`), written by ``--export-gcg``: ``#id skrafl.replay boys1.gcg#5a4a29d7f6e2``
is read back as ``boys1.gcg#5a4a29d7f6e2``, so the export is the same game."""


def content_id(game: Game) -> str:
    """12 hex digits of a SHA-256 over what a game is: its players (nick and name) and every
    event's player, kind, square, word, tiles, count, score and cumulative — not its notes, line
    numbers or file name. A GCG file without ``#id`` is known by its file name and this: the
    same game under any folder or name (a copy, the next night's re-read) keeps its id, and
    different games sharing a file name (``a/game.gcg``, ``b/game.gcg``; ``game1.gcg`` of two
    days) never share one (Elo would take the second for the first, already rated)."""
    import hashlib

    h = hashlib.sha256()
    for p in game.players:
        h.update(f"P\t{p.nick}\t{p.name}\n".encode())
    for e in game.events:
        tiles = "".join(e.tiles) if e.tiles else ""
        h.update(f"E\t{e.player}\t{e.kind}\t{e.coord}\t{e.word}\t{tiles}\t{e.count}\t{e.score}\t{e.cumulative}\n".encode())
    return h.hexdigest()[:12]


def game_facts(game: Game) -> dict:
    """The ``games.parquet`` columns that describe the game rather than its replay:
    ``game_id`` (Netskrafl: the record's ``game_id``; GCG: the ``#id`` pragma; else the file
    name and the game's :func:`content_id`, ``base.gcg#0123456789ab``), ``finished_at`` (Netskrafl ``ts_last_move`` as UTC; GCG: null), ``competition``
    (Netskrafl ``manual``, docs/NETSKRAFL.md §1 "competition mode"; GCG: null), ``robot1``/``robot2``
    (Netskrafl ``robot0``/``robot1`` when the record has them; otherwise false), ``locale``
    (Netskrafl ``locale``, ``is_IS`` when absent; GCG: ``#locale``, else null).

    A GCG file written by ``--export-gcg`` carries them as pragmas, so re-reading it gives the same
    facts: ``#id is.netskrafl GAME_ID`` (→ ``GAME_ID``), ``#id skrafl.replay FILE#DIGEST`` (→
    ``FILE#DIGEST``: a game that had no id of its own keeps the one replay gave it), ``#finished-at`` (ISO 8601 UTC),
    ``#competition true|false`` and ``#locale`` (not pragmas of the GCG spec: other readers skip
    or refuse unknown pragmas; ours knows them)."""
    if game.format == "netskrafl":
        meta = game.meta
        manual = meta["manual"] if "manual" in meta else game.prefs.get("manual")
        return {
            "game_id": str(game.game_id)
            if game.game_id is not None
            else (f"{os.path.basename(game.path)}#{content_id(game)}" if game.path else None),
            "finished_at": parse_time(game.pragmas.get("ts_last_move")),
            "competition": bool(manual) if isinstance(manual, bool) else None,
            "robot1": bool(_flag(meta.get("robot0"))),
            "robot2": bool(_flag(meta.get("robot1"))),
            "locale": game.pragmas.get("locale") or "is_IS",
        }
    gid = game.pragmas.get("id") or (f"{os.path.basename(game.path)}#{content_id(game)}" if game.path else None)
    for authority in (NETSKRAFL_ID, SKRAFL_ID):
        if gid and gid.startswith(authority + " "):
            # a Netskrafl game exported to GCG: its own game_id; a game without an id of its own
            # exported: the id replay gave it (FILE#DIGEST)
            gid = gid[len(authority) + 1 :].strip()
    competition = game.pragmas.get("competition", "").strip().lower()
    return {
        "game_id": gid,
        # #finished-at, else a #date (a day: its midnight UTC), as some sites write the day played
        "finished_at": parse_time(game.pragmas.get("finished-at")) or parse_time(game.pragmas.get("date")),
        "competition": {"true": True, "false": False}.get(competition),
        "robot1": False,
        "robot2": False,
        "locale": game.pragmas.get("locale") or None,
    }


def _winner(game: Game, rules, scores: list[int], before: list[int] | None = None) -> str | None:
    """The winner's nickname (:func:`gamecore.game_state.winner_of`); ``None`` for a draw. Under
    ``tie_break = "score_before_adjustments"`` (the Scrabble rules page) a tie on the final scores goes to the
    tied player who had more ``before`` the end-of-game adjustments."""
    i = winner_of(rules, scores, before)
    if i is None:
        return None  # a draw
    return game.players[i].nick if i < len(game.players) else f"player{i + 1}"


def error_row(base: dict, exc: GameLogError) -> dict:
    row: dict[str, Any] = {c: None for c in GAME_COLUMNS}
    row.update(base)
    where = f" (line {exc.line})" if exc.line is not None else ""
    row.update({"status": "error", "error": f"{exc.code}: {exc.detail}{where}"})
    return row
