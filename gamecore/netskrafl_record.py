"""Netskrafl JSON game records → the common game-log model (:mod:`gamecore.gamelog`).

Source: ``../shared/reference/netskrafl.md`` ("Game record"). A record holds the initial racks
(``irack0``/``irack1``), the moves (``player``, ``coord``, ``tiles``, ``score`` and ``rack`` = the
mover's rack *after* the move and the refill), the final scores (``score0``/``score1``, every
adjustment included) and the prefs (``newbag``, ``board_type``, ``manual``, ``duration``).

Conversion to the model:

- Netskrafl coordinates (row letter first = across, ``H4``; column number first = down, ``9H``)
  become GCG coordinates (``8D`` across, ``D8`` down).
- Tiles are lowercase in Netskrafl, ``?x`` is a blank standing for ``x``: in the model a tile is
  uppercase and a blank is the lowercase letter (GCG convention).
- The rack *before* each move is the initial rack or the mover's ``rack`` after their previous
  move (after a withdrawn phony: the rack recorded on the ``RESP``).
- ``PASS`` → ``pass``, ``EXCH t`` → ``exchange``, ``RSGN`` → ``resign``, ``CHALL`` →
  ``challenge`` (score 0), ``RESP`` with a negative score → ``withdraw`` (the challenged player's
  move is taken back), with a positive score → ``challenge_bonus`` (+10, wrong challenge).
- End-of-game adjustments are not moves in a record: the replay computes them and checks them
  against ``score0``/``score1`` (``Game.final_scores``).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from gamecore.gamelog import Event, Game, GameLogError, Player

_ROWS = "ABCDEFGHIJKLMNOPQRSTU"


def _tiles(text: str, *, path: str | None, line: int, what: str) -> list[str]:
    """Netskrafl tiles → model tiles: ``b?ógar`` → ``B o G A R`` (blank lowercase)."""
    up = text.upper()
    if len(up) == len(text) and text.isalpha():
        return list(up)  # no blank: one letter per tile
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "?":
            if i + 1 < len(text) and text[i + 1].isalpha():
                out.append(text[i + 1].lower())
                i += 2
                continue
            raise GameLogError("PLAY_MALFORMED", f"{what} {text!r}: '?' must be followed by the letter the blank stands for", path, line)
        if not ch.isalpha():
            raise GameLogError("PLAY_MALFORMED", f"{what} {text!r}: {ch!r} is not a letter", path, line)
        out.append(ch.upper())
        i += 1
    return out


def _rack(text: str, *, path: str | None, line: int, what: str) -> list[str]:
    """Netskrafl rack → model rack (uppercase letters, ``?`` = blank)."""
    up = text.upper()
    letters = text.replace("?", "")
    if len(up) == len(text) and (not letters or letters.isalpha()):
        return list(up)  # letters and blanks, one character per tile
    out = []
    for ch in text:
        if ch == "?":
            out.append("?")
        elif ch.isalpha():
            out.append(ch.upper())
        else:
            raise GameLogError("RACK_MALFORMED", f"{what} {text!r}: {ch!r} is not a tile", path, line)
    return out


@lru_cache(maxsize=4096)
def parse_netskrafl_coordinate(text: str) -> tuple[int, int, bool] | None:
    """``H4`` → (7, 3, True) across; ``9H`` → (7, 8, False) down (0-based); ``None`` if not one.
    netskrafl.md: row letter first = across, column number first = down."""
    t = text.strip().upper()
    if len(t) >= 2 and t[0] in _ROWS and t[1:].isdigit():
        return _ROWS.index(t[0]), int(t[1:]) - 1, True
    if len(t) >= 2 and t[-1] in _ROWS and t[:-1].isdigit():
        return _ROWS.index(t[-1]), int(t[:-1]) - 1, False
    return None


def parse_netskrafl_record(data: dict, *, path: str | None = None, board_size: int = 15) -> Game:
    """Convert a decoded Netskrafl JSON record (a dict) into a :class:`~gamecore.gamelog.Game`.

    ``Event.line`` is the 1-based move number. Raises :class:`GameLogError` (``RECORD_MALFORMED``,
    ``PLAY_MALFORMED``, ``RACK_MALFORMED``, ``COORDINATE_OUT_OF_BOUNDS``, ``NO_MATCHING_TOKEN``)."""
    from gamecore.gcg import format_coordinate

    if not isinstance(data, dict) or not isinstance(data.get("moves"), list):
        raise GameLogError("RECORD_MALFORMED", "not a Netskrafl game record (no 'moves' list)", path, None)
    prefs = data.get("prefs") or {}
    game = Game(format="netskrafl", path=path, encoding="utf-8", prefs=dict(prefs))
    game.game_id = data.get("game_id")
    game.meta = {k: data[k] for k in ("manual", "robot0", "robot1") if isinstance(data.get(k), bool)}
    game.players = [Player("player0", "player 0"), Player("player1", "player 1")]
    for key in ("locale", "ts_last_move"):
        if data.get(key):
            game.pragmas[key] = str(data[key])
    game.pragmas["id"] = f"is.netskrafl {data.get('game_id', '')}".strip()
    game.pragmas["lexicon"] = "netskrafl"
    racks: dict[int, list[str]] = {}
    for p in (0, 1):
        ir = data.get(f"irack{p}")
        if not isinstance(ir, str):
            raise GameLogError("RECORD_MALFORMED", f"irack{p} missing or not text", path, None)
        racks[p] = _rack(ir, path=path, line=0, what=f"irack{p}")
        game.initial_racks[p] = list(racks[p])
    try:
        game.final_scores = [int(data["score0"]), int(data["score1"])]
    except (KeyError, TypeError, ValueError):
        game.final_scores = None
    for p in (0, 1):
        fr = data.get(f"rack{p}_final")
        if isinstance(fr, str):
            game.last_racks[p] = _rack(fr, path=path, line=0, what=f"rack{p}_final")
    last_play: Event | None = None
    for n, mv in enumerate(data["moves"], 1):
        if not isinstance(mv, dict):
            raise GameLogError("RECORD_MALFORMED", f"move {n} is not an object", path, n)
        try:
            player = int(mv["player"])
            coord = str(mv.get("coord") or "")
            tiles = str(mv["tiles"])
            score = int(mv["score"])
            rack_after = _rack(str(mv.get("rack") or ""), path=path, line=n, what="rack")
        except (KeyError, TypeError, ValueError) as exc:
            raise GameLogError("RECORD_MALFORMED", f"move {n}: missing or bad field ({exc})", path, n) from None
        if player not in (0, 1):
            raise GameLogError("PLAYER_DOES_NOT_EXIST", f"move {n}: player {player} (records have players 0 and 1)", path, n)
        before = list(racks[player])
        if coord:
            rc = parse_netskrafl_coordinate(coord)
            if rc is None:
                raise GameLogError("NO_MATCHING_TOKEN", f"move {n}: {coord!r} is not a Netskrafl coordinate (H4 across, 4H down)", path, n)
            row, col, across = rc
            word = _tiles(tiles, path=path, line=n, what="tiles")
            if not (0 <= row < board_size and 0 <= col < board_size):
                raise GameLogError("COORDINATE_OUT_OF_BOUNDS", f"move {n}: coordinate {coord!r} is off the board", path, n)
            if (col if across else row) + len(word) > board_size:
                raise GameLogError("PLAY_OUT_OF_BOUNDS", f"move {n}: {coord} {tiles} runs off the board", path, n)
            # positional: kind, player, rack, coord, row, col, across, word, through, tiles, count,
            # score, cumulative, note, line, extra, rack_after (the fields of Event, in order)
            ev = Event("play", player, before, format_coordinate(row, col, across), row, col, across, word, (), None, None, score, None, "", n, "", rack_after)
            last_play = ev
        else:
            head, _, rest = tiles.partition(" ")
            head = head.upper()
            if head == "PASS":
                ev = Event("pass", player, rack=before, score=score, line=n, rack_after=rack_after)
            elif head == "EXCH":
                ev = Event("exchange", player, rack=before, tiles=_rack(rest.strip(), path=path, line=n, what="exchanged tiles"), score=score, line=n, rack_after=rack_after)
            elif head == "RSGN":
                ev = Event("resign", player, rack=before, score=score, line=n, rack_after=rack_after)
            elif head == "CHALL":
                ev = Event("challenge", player, rack=before, score=score, line=n, rack_after=rack_after)
            elif head == "RESP":
                if score < 0:
                    # the challenged move is taken back: the rack goes back to before that move
                    ev = Event("withdraw", player, rack=list(last_play.rack) if last_play and last_play.rack is not None else None, score=score, line=n, rack_after=rack_after)
                else:
                    ev = Event("challenge_bonus", player, rack=before, score=score, line=n, rack_after=rack_after)
            else:
                raise GameLogError("NO_MATCHING_TOKEN", f"move {n}: special move {tiles!r} (expected PASS, EXCH, RSGN, CHALL or RESP)", path, n)
        racks[player] = rack_after
        game.events.append(ev)
    return game


def read_netskrafl_record(path: str | Path) -> Game:
    """Read a Netskrafl JSON game record file (UTF-8 JSON).

    Raises:
        GameLogError: ``FILE_UNREADABLE``, ``RECORD_MALFORMED`` (not JSON, missing fields) and the
        codes of :func:`parse_netskrafl_record`."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise GameLogError("FILE_UNREADABLE", f"cannot read: {exc.strerror or exc}", str(path), None) from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise GameLogError("RECORD_MALFORMED", f"not JSON: {exc}", str(path), line) from None
    return parse_netskrafl_record(data, path=str(path))


__all__ = ["parse_netskrafl_coordinate", "parse_netskrafl_record", "read_netskrafl_record"]
