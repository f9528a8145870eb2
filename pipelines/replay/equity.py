"""``replay --analyze --leaves``: each turn valued by static equity against the best move, and the
grades of a game's players.

Per turn (a tile play, an exchange or a pass), before the move is applied:

- ``equity``: the static equity of the move played (:mod:`gamecore.equity`: score + the leave's
  value while the bag holds tiles, the end-of-game terms once it is empty, the opening's vowel
  penalty; an exchange: the kept tiles' leave value). The **pass** is valued as the empty move:
  nothing scored, every tile kept (the whole rack's leave value while the bag holds tiles; once
  it is empty, minus twice the rack's points and 10, as a play that does not go out). MAGPIE gives
  the pass no number (a sentinel below every move), so a pass played would lose without bound;
  valued so, a pass made with no move left loses nothing. A play withdrawn after a challenge (a
  phony) is valued as a pass: the turn was lost and the rack kept (macondo's equity-loss
  report gives it 0 points).
- ``best_equity``, ``best_move``: the engine's move there, as ``autoplay``'s equity player picks
  it (:class:`gamecore.best.EquitySearch`, the tiles the player cannot see as its bag, the other
  racks once the bag is empty; an exchange the rules refuse skipped; no move at all: the pass).
- ``equity_lost``: ``best_equity - equity``, at least 0 (a move the engine does not list, such as
  a pass better than every move, loses nothing).
- ``win_pct_lost``: percentage points of win probability lost, from the language's win model
  (:func:`gamecore.simulation.win_model`: the side on turn's chance from its spread and the tiles
  it cannot see): a move worth ``e`` leaves the opponent on turn with ``-(spread + e)`` and the
  unseen tiles less those placed. Two-player games, while the bag holds tiles; else null.
- ``mistake``: Woogles' BestBot analysis sizes (macondo's ``MistakeSize``): ``small``,
  ``medium``, ``large``; null below 1 point of equity lost. By win % lost where there is one
  (small up to 3, medium up to 7, large beyond), else by equity lost in points as Woogles grades
  the endgame by spread (small 1-7, medium 8-15, large 16 and more).

With ``--sim-iterations N`` (two-player games, while the bag holds tiles, a language with a win
model, rules the equity search in C plays): ``win_pct_lost`` comes from a simulation
(:class:`gamecore.simulation.Simulator`, 2 plies, N iterations at most, its early stop) of the
best :data:`SIM_CANDIDATES` moves by equity and the move played, the same draws for all: the best
candidate's win probability less the played move's. The seed is drawn from the position (rack,
unseen tiles, spread), so a game gets the same values at any worker count.

Per player and game (:func:`player_grades`):

- ``accuracy``: ``100 x (1 - L / B)``, at least 0: ``L`` the player's equity lost, ``B`` the sum
  of the best moves' equities (those above 0) on the player's turns; the share of the available
  equity the player kept (the accuracy Woogles' users ask for: the player's equity as a share of
  the best moves'). 100 exactly when no turn lost equity.
- ``mistake_index``: Woogles' Mistake Index: 0.2 per small, 0.5 per medium, 1.0 per large mistake.
- ``rating``: Woogles' estimated-Elo table for a mistake index (0.0 → 2300 … 4.2 → 1650), read
  between its rows in straight lines; null past 4.2 (the table says only "below 1650"). Woogles
  fits it to simulation-graded English games: from static equity and other languages it is a
  rough guide.
"""

from __future__ import annotations

from typing import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gamecore.simulation import Simulator

from gamecore.errors import SkraflError
from gamecore.klv import RESOLUTION

MOVE_COLUMNS = ("equity", "best_equity", "best_move", "equity_lost", "win_pct_lost", "mistake")
"""The moves.parquet columns of ``--analyze --leaves`` (after the ``--analyze`` ones)."""

GAME_COLUMNS = (
    ("rules",)
    + tuple(f"accuracy{k}" for k in range(1, 5))
    + tuple(f"equity_lost{k}" for k in range(1, 5))
    + tuple(f"mistake_index{k}" for k in range(1, 5))
    + tuple(f"rating{k}" for k in range(1, 5))
)
"""The games.parquet columns of ``--analyze --leaves`` (the rule set's name; per player, null
beyond the game's players or without a graded turn)."""

NO_EQUITY = (None,) * len(MOVE_COLUMNS)

SIM_CANDIDATES = 5
"""``--sim-iterations``: the moves simulated besides the one played (the best by static equity)."""

#: Woogles' penalty per mistake size (the Mistake Index)
MISTAKE_WEIGHTS = {"small": 0.2, "medium": 0.5, "large": 1.0}
#: win % lost: the most a small and a medium mistake lose (Woogles: small up to 3 %, medium 4-7 %)
WIN_SMALL, WIN_MEDIUM = 3.0, 7.0
#: equity lost in points: the least a small, medium and large mistake lose (Woogles' endgame
#: spread grades 1-7, 8-15, 16+)
POINTS_SMALL, POINTS_MEDIUM, POINTS_LARGE = 1.0, 8.0, 16.0
#: Woogles' estimated Elo for a mistake index (its BestBot analysis help)
RATING_TABLE = (
    (0.0, 2300),
    (0.2, 2250),
    (0.5, 2200),
    (0.8, 2150),
    (1.2, 2100),
    (1.5, 2050),
    (1.7, 2000),
    (1.9, 1950),
    (2.3, 1900),
    (2.6, 1850),
    (2.9, 1800),
    (3.3, 1750),
    (3.8, 1700),
    (4.2, 1650),
)


def mistake_size(lost: float, win_lost: float | None) -> str | None:
    """The size of a turn's mistake (see the module docstring), or None."""
    if lost < POINTS_SMALL:
        return None
    if win_lost is not None:
        return "small" if win_lost <= WIN_SMALL else "medium" if win_lost <= WIN_MEDIUM else "large"
    return "small" if lost < POINTS_MEDIUM else "medium" if lost < POINTS_LARGE else "large"


def estimated_rating(index: float) -> int | None:
    """Woogles' estimated Elo for a mistake index, between its rows in straight lines; None past
    the table's last row."""
    table = RATING_TABLE
    if index > table[-1][0] + 1e-9:
        return None
    for (x0, y0), (x1, y1) in zip(table, table[1:], strict=False):
        if index <= x1 + 1e-9:
            t = 0.0 if index <= x0 else (index - x0) / (x1 - x0)
            return int(round(y0 + t * (y1 - y0)))
    return table[-1][1]


def player_grades(turns: Sequence[tuple[int, dict]], players: int) -> dict:
    """The games.parquet grade columns from ``(player index, turn values)`` of the graded turns."""
    lost = [0.0] * 4
    best = [0.0] * 4
    index = [0.0] * 4
    seen = [False] * 4
    for p, v in turns:
        if p >= 4:
            continue
        seen[p] = True
        lost[p] += v["equity_lost"]
        best[p] += max(v["best_equity"], 0.0)
        index[p] += MISTAKE_WEIGHTS.get(v["mistake"], 0.0)
    out: dict = {}
    for p in range(4):
        k = p + 1
        if p >= players or not seen[p]:
            out.update({f"accuracy{k}": None, f"equity_lost{k}": None, f"mistake_index{k}": None, f"rating{k}": None})
            continue
        if lost[p] <= 0:
            acc = 100.0
        elif best[p] > 0:
            acc = round(max(0.0, 100.0 * (1.0 - lost[p] / best[p])), 2)
        else:
            acc = 0.0
        mi = round(index[p], 1)
        out.update(
            {
                f"accuracy{k}": acc,
                f"equity_lost{k}": round(lost[p], 3),
                f"mistake_index{k}": mi,
                f"rating{k}": estimated_rating(mi),
            }
        )
    return out


class EquityAnalysis:
    """The equity of each turn of one game (see the module docstring).

    Args:
        bundle: the lexicon (:class:`gamecore.best.LexiconBundle`); rules: the game's rule set;
        leaves: a :class:`gamecore.equity.LeaveTable` read against the rule set's tile set;
        win: a :class:`gamecore.simulation.WinModel` or None.
    """

    def __init__(self, bundle, rules, leaves, win=None, sim_iterations: int | None = None):
        from gamecore.best import equity_search
        from gamecore.folded import folded_tiles, manifest_fold

        self.bundle, self.rules, self.leaves, self.win = bundle, rules, leaves, win
        self.ts = rules.tiles()
        self.folded = folded_tiles(self.ts, bundle.alphabet, manifest_fold(bundle))
        self.search = equity_search(bundle, rules, leaves, bool(self.folded))
        self._opening: tuple[list[int], list[int]] | None = None
        self.sim: Simulator | None = None
        self.sim_iterations = sim_iterations
        if sim_iterations and win is not None:
            from gamecore.errors import UsageError
            from gamecore.simulation import Simulator

            try:
                self.sim = Simulator(bundle, rules, leaves, win, bool(self.folded))
            except UsageError:
                self.sim = None  # rules the equity search in C does not play: the win model alone

    # -- the terms of a move ---------------------------------------------------------------------
    def _term(self, kept: Sequence[str], bag: int, outplay: int) -> int:
        """The leave's term in thousandths (:func:`gamecore.equity.rank`)."""
        if bag > 0:
            return self.leaves.milli(kept) if kept else 0
        if kept:
            from gamecore.equity import NON_OUTPLAY_CONSTANT_PENALTY

            return -2 * RESOLUTION * sum(self.ts.value(t) for t in kept if t != "?") - NON_OUTPLAY_CONSTANT_PENALTY
        return outplay

    def _opening_penalty(self, coord: str | None, text: str | None) -> int:
        """The opening play's vowel penalty (the board was empty): its tiles from the start square."""
        from gamecore.coords import parse_gcg
        from gamecore.equity import opening_penalties

        if not coord or not text:
            return 0
        if self._opening is None:
            self._opening = opening_penalties(self.rules.layout())
        row, col, along = parse_gcg(coord, self.rules.layout().size)
        table, start = (self._opening[0], col) if along else (self._opening[1], row)
        vowels = self.ts.vowels
        pen = 0
        for j, tok in enumerate(self.ts.split_word(text, allow=".")):
            if tok != "." and tok.upper() in vowels and 0 <= start + j < len(table):
                pen += table[start + j]
        return pen

    # -- one turn --------------------------------------------------------------------------------
    def turn(
        self,
        board,
        rack: list[str],
        kind: str,
        *,
        score: int = 0,
        kept: Sequence[str] | None = None,
        placed: int = 0,
        coord: str | None = None,
        text: str | None = None,
        bag: int,
        unseen: dict,
        spread: int,
        opponent_holds: int,
        players: int,
        empty_board: bool = False,
    ) -> dict | None:
        """The turn's values (a dict of :data:`MOVE_COLUMNS` plus ``pass_equity``), or None when
        it cannot be valued (a rack the position cannot hold, a letter outside the lexicon).

        ``board``: the position before the move (a :class:`gamecore.board.Board`); ``bag``: the
        tiles in the bag; ``unseen``: label → tiles not on the board (racks included);
        ``spread``: the mover's score less the best other's; ``opponent_holds``: the tiles on the
        other racks."""
        try:
            return self._turn(
                board, rack, kind, score, kept, placed, coord, text, bag, unseen, spread, opponent_holds, players, empty_board
            )
        except SkraflError:
            return None

    def _turn(self, board, rack, kind, score, kept, placed, coord, text, bag, unseen, spread, opp_holds, players, empty_board):
        ts = self.ts
        unseen_total = sum(unseen.values())
        # as autoplay's equity player sees it: the tiles it cannot see while the bag holds tiles,
        # the other racks (exactly the unseen tiles less its own) once it is empty
        opponent: list[str] = []
        if bag > 0:
            mbag = unseen_total - len(rack)
        else:
            mbag = 0
            left = dict(unseen)
            for t in rack:
                left[t] = left.get(t, 0) - 1
            opponent = [t for t, n in sorted(left.items()) for _ in range(max(n, 0))]
        outplay = 2 * RESOLUTION * sum(ts.value(t) for t in opponent if t != "?")
        pass_milli = self._term(list(rack), mbag, outplay) if rack else 0
        if kind == "play":
            played = score * RESOLUTION + self._term(list(kept or ()), mbag, outplay)
            if empty_board:
                played += self._opening_penalty(coord, text)
        elif kind == "exchange":
            played = self.leaves.milli(list(kept)) if kept else 0
        else:
            played = pass_milli
        best_milli, best_text, best_placed = self._best(board, rack, opponent, mbag, bag, pass_milli)
        values = {"pass_equity": pass_milli / RESOLUTION, "placed": placed, "best_placed": best_placed}
        values["best_equity"] = best_milli / RESOLUTION
        values["best_move"] = best_text
        values["equity"] = played / RESOLUTION
        self._grade(values, bag, unseen_total, spread, opp_holds, players)
        if self.sim is not None and bag > 0 and players == 2 and rack:
            win_lost = self._simulated(board, rack, kind, score, kept, played, coord, text, bag, unseen_total, spread)
            if win_lost is not None:
                values["win_pct_lost"] = win_lost
                values["mistake"] = mistake_size(values["equity_lost"], win_lost)
        return values

    def _simulated(self, board, rack, kind, score, kept, played, coord, text, bag, unseen_total, spread) -> float | None:
        """Win % lost by simulation (see the module), or None when there is nothing to compare."""
        import zlib

        from gamecore.equity import Ranked
        from gamecore.game_state import exchange_refusal

        ranked = self.search.rank(board, rack, (), SIM_CANDIDATES)
        if ranked is None:
            return None
        ranked = [r for r in ranked if r.kind == "play" or exchange_refusal(self.rules, bag, len(r.exchanged)) is None]
        if kind == "play":
            from gamecore.play import validate_play

            sp = validate_play(board, (coord, text), None, None, self.rules)
            mine = Ranked("play", score, played, tuple(kept or ()), play=sp)
            same = [
                r
                for r in ranked
                if r.kind == "play"
                and (r.play.row, r.play.col, r.play.across, r.play.word) == (sp.row, sp.col, sp.across, sp.word)
            ]
        else:  # an exchange, or the pass: every tile kept
            gone = list(rack)
            for t in kept or ():
                gone.remove(t)
            mine = Ranked("exchange", 0, played, tuple(kept or ()), exchanged=tuple(gone))
            same = [r for r in ranked if r.kind == "exchange" and sorted(r.exchanged) == sorted(gone)]
        if same:
            mine = same[0]
        else:
            ranked = ranked + [mine]
        if len(ranked) < 2:
            return 0.0
        seed = zlib.crc32(f"{''.join(rack)}|{unseen_total}|{spread}|{board.tile_count()}".encode())
        n = self.sim_iterations
        assert self.sim is not None and n is not None  # called only with a simulator, made with its iterations
        res = self.sim.run(
            board, rack, (), spread, ranked=ranked, iterations=n, plies=2, seed=seed, min_iterations=min(32, n), batch=16
        )
        wins = {id(c.ranked): c.win for c in res.candidates if c.iterations}
        if id(mine) not in wins:
            return None
        return round(max(0.0, 100.0 * (max(wins.values()) - wins[id(mine)])), 3)

    def _grade(self, values: dict, bag: int, unseen_total: int, spread: int, opp_holds: int, players: int) -> None:
        """Fill ``equity_lost``, ``win_pct_lost`` and ``mistake`` from the two equities."""
        lost = max(0.0, values["best_equity"] - values["equity"])
        win_lost = None
        if self.win is not None and players == 2 and bag > 0:
            # the opponent on turn after the move: the spread negated, the tiles it cannot see
            def after(e: float, placed: int) -> float:
                return 1.0 - self.win.probability(-(spread + e), unseen_total - placed - opp_holds)

            win_lost = round(
                max(
                    0.0, 100.0 * (after(values["best_equity"], values["best_placed"]) - after(values["equity"], values["placed"]))
                ),
                3,
            )
            if lost <= 0:
                win_lost = 0.0
        values["equity_lost"] = round(lost, 3)
        values["win_pct_lost"] = win_lost
        values["mistake"] = mistake_size(lost, win_lost)
        values["_grade_args"] = (bag, unseen_total, spread, opp_holds, players)

    def withdrawn(self, values: dict) -> dict:
        """A turn's values once its play is withdrawn (a phony): valued as the pass."""
        out = dict(values)
        out["equity"] = out["pass_equity"]
        out["placed"] = 0
        self._grade(out, *values["_grade_args"])
        return out

    def _best(self, board, rack, opponent, mbag, bag, pass_milli) -> tuple[int, str, int]:
        """The engine's move: ``(equity in thousandths, text, tiles placed)``."""
        from gamecore.game_state import exchange_refusal

        rules = self.rules
        rows = self.search.rank(board, rack, opponent, 1, None, True, mbag) if rack else []
        if rows is not None and rows:
            top = rows[0]
            if top.kind == "play" or exchange_refusal(rules, bag, len(top.exchanged)) is None:
                return self._described(top)
        elif rows is not None:
            return pass_milli, "-", 0
        # rules the search does not model, or an exchange the rules refuse: every move in Python
        from gamecore.equity import rank
        from gamecore.folded import best_plays_folded

        plays = best_plays_folded(board, list(rack), self.bundle, rules, None)
        for row in rank(board, rack, plays, self.leaves, rules, opponent):
            if row.kind == "play" or exchange_refusal(rules, bag, len(row.exchanged)) is None:
                return self._described(row)
        return pass_milli, "-", 0

    @staticmethod
    def _described(row) -> tuple[int, str, int]:
        if row.kind == "play":
            p = row.play
            return row.milli, f"{p.coord} {p.word_text('.')}", sum(1 for n in p.new if n)
        return row.milli, "-" + "".join(row.exchanged), 0


def row_values(values: dict | None) -> tuple:
    """The moves.parquet values (:data:`MOVE_COLUMNS`) of a turn's values."""
    if values is None:
        return NO_EQUITY
    return tuple(values[c] for c in MOVE_COLUMNS)


_WIN_MODELS: dict[str, object] = {}


def win_model_for(language: str):
    """The language's win model (read once), or None."""
    if language not in _WIN_MODELS:
        from gamecore.simulation import win_model

        _WIN_MODELS[language] = win_model(language)
    return _WIN_MODELS[language]


_TABLES: dict[tuple[str, str], object] = {}


class NoLeaves(SkraflError):
    """No leave file for a game's rule set (``--leaves shipped``)."""


def analysis_for(bundle, rules, leaves: str, sim_iterations: int | None = None) -> EquityAnalysis:
    """The :class:`EquityAnalysis` of a game: ``leaves`` a KLV2 path, or ``shipped`` (the file
    shipped for the lexicon's language and the game's rule set). The leave file is read once per
    path and tile set.

    Raises:
        NoLeaves: ``shipped`` and none is shipped for the rule set; DataError: a leave file that
        does not fit the tile set."""
    from gamecore.equity import LeaveTable
    from gamecore.klv import Klv, shipped_leaves

    path = leaves
    if leaves == "shipped":
        got = shipped_leaves(bundle.language, rules.name)
        if got is None:
            raise NoLeaves(f"no leave file is shipped for language {bundle.language!r} and rules {rules.name!r}")
        path = str(got)
    key = (path, rules.tile_set)
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = LeaveTable(Klv.read(path), rules.tiles())
    return EquityAnalysis(bundle, rules, table, win_model_for(bundle.language), sim_iterations)
