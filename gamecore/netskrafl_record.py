"""Netskrafl JSON game records → the common game-log model (:mod:`gamecore.gamelog`).

Source: `docs/NETSKRAFL.md` ("Game record"). A record holds the initial racks
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

Every text field (racks, tiles) is read in Unicode NFC (:func:`gamecore.text.nfc`). Numbers
(``player``, ``score``, ``score0``/``score1``) must be JSON integers (an integral number or a string
of ASCII digits is accepted; ``true``, ``NaN``, ``Infinity`` are not); scores must lie within
±(2^31 − 1) (``SCORE_OUT_OF_RANGE``: the tables store them as int32), and so must the scores of a
game added up as absolute values.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from gamecore.gamelog import TIME_EXAMPLE, Event, Finding, Game, GameLogError, Player, parse_time, read_game_bytes
from gamecore.text import INT32_MAX, nfc, strip_bom

_ROWS = "ABCDEFGHIJKLMNOPQRSTU"


def _int(value: object) -> int:
    """A record's integer: a JSON integer (not ``true``/``false``), an integral finite number, or a
    string of ASCII digits with an optional sign. Raises ValueError (with what was found) otherwise;
    the number itself is not bounded here."""
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")) or not value.is_integer():
            raise ValueError(f"expected a whole number, got {value!r}")
        return int(value)
    if isinstance(value, str):
        digits = value.strip()
        digits = digits[1:] if digits[:1] in "+-" else digits
        if digits and len(digits) <= 12 and digits.isascii() and digits.isdigit():
            return int(value)
    raise ValueError(f"expected a number, got {str(value)[:40]!r}")


def _score(value: object, what: str, path: str | None, line: int | None) -> int:
    """A score of the record (see :func:`_int`), within ±INT32_MAX.

    Raises:
        GameLogError: ``RECORD_MALFORMED`` (not a whole number), ``SCORE_OUT_OF_RANGE``.
    """
    try:
        n = _int(value)
    except ValueError as exc:
        raise GameLogError("RECORD_MALFORMED", f"{what}: {exc}", path, line) from None
    if not -INT32_MAX <= n <= INT32_MAX:
        raise GameLogError(
            "SCORE_OUT_OF_RANGE", f"{what} {str(n)[:40]}: expected a number between -{INT32_MAX} and {INT32_MAX}", path, line
        )
    return n


def _tiles(text: str, *, path: str | None, line: int, what: str) -> list[str]:
    """Netskrafl tiles → model tiles: ``b?ógar`` → ``B o G A R`` (blank lowercase)."""
    text = nfc(text)
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
            raise GameLogError(
                "PLAY_MALFORMED", f"{what} {text!r}: '?' must be followed by the letter the blank stands for", path, line
            )
        if not ch.isalpha():
            raise GameLogError("PLAY_MALFORMED", f"{what} {text!r}: {ch!r} is not a letter", path, line)
        out.append(ch.upper())
        i += 1
    return out


def _rack(text: str, *, path: str | None, line: int, what: str) -> list[str]:
    """Netskrafl rack → model rack (uppercase letters, ``?`` = blank)."""
    text = nfc(text)
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
    docs/NETSKRAFL.md: row letter first = across, column number first = down."""
    t = text.strip().upper()
    if not (2 <= len(t) <= 5 and t.isascii()):  # at most 4 digits: H4, 9H, ... (ASCII digits only)
        return None
    if t[0] in _ROWS and t[1:].isdigit():
        return _ROWS.index(t[0]), int(t[1:]) - 1, True
    if t[-1] in _ROWS and t[:-1].isdigit():
        return _ROWS.index(t[-1]), int(t[:-1]) - 1, False
    return None


def _record_game(data: dict, path: str | None, strict: bool) -> Game:
    """The game of a Netskrafl record without its moves and racks: id, preferences, flags, pragmas,
    the finish time checked (see :func:`parse_netskrafl_record`).

    Raises:
        GameLogError: RECORD_MALFORMED, TIMESTAMP_MALFORMED (when ``strict``).
    """
    if not isinstance(data, dict) or not isinstance(data.get("moves"), list):
        raise GameLogError("RECORD_MALFORMED", "not a Netskrafl game record (no 'moves' list)", path, None)
    prefs = data.get("prefs")
    if prefs is None:
        prefs = {}
    if not isinstance(prefs, dict):
        raise GameLogError("RECORD_MALFORMED", f"'prefs' must be an object, got {type(prefs).__name__}", path, None)
    game_id = data.get("game_id")
    if game_id is not None and not isinstance(game_id, str) and not (type(game_id) is int and abs(game_id) < 10**18):
        raise GameLogError("RECORD_MALFORMED", f"'game_id' must be text, got {str(game_id)[:40]!r}", path, None)
    if isinstance(game_id, str) and not game_id.strip():
        game_id = None  # an empty id names no game: the record is known by its file and content
    game = Game(format="netskrafl", path=path, encoding="utf-8", prefs=dict(prefs))
    game.game_id = game_id
    game.meta = {k: data[k] for k in ("manual", "robot0", "robot1") if isinstance(data.get(k), bool)}
    game.players = [Player("player0", "player 0"), Player("player1", "player 1")]
    for key in ("locale", "ts_last_move"):
        if data.get(key):
            game.pragmas[key] = str(data[key])
    ts = data.get("ts_last_move")
    if ts is not None and ts != "" and parse_time(ts) is None:
        shown = repr(ts[:60]) if isinstance(ts, str) else f"{str(ts)[:60]} ({type(ts).__name__}, not text)"
        message = (
            f"ts_last_move {shown} is not an ISO 8601 time (e.g. {TIME_EXAMPLE}): the game has no finish time "
            "(finished_at empty, no day)"
        )
        if strict:
            raise GameLogError("TIMESTAMP_MALFORMED", message, path, None)
        game.warnings.append(Finding("TIMESTAMP_MALFORMED", message))
    game.pragmas["id"] = f"is.netskrafl {game_id if game_id is not None else ''}".strip()
    game.pragmas["lexicon"] = "netskrafl"
    return game


def parse_netskrafl_record(data: dict, *, path: str | None = None, board_size: int = 15, strict: bool = False) -> Game:
    """Convert a decoded Netskrafl JSON record (a dict) into a :class:`~gamecore.gamelog.Game`.

    ``Event.line`` is the 1-based move number. Raises :class:`GameLogError` (``RECORD_MALFORMED``,
    ``PLAY_MALFORMED``, ``RACK_MALFORMED``, ``COORDINATE_OUT_OF_BOUNDS``, ``NO_MATCHING_TOKEN``).

    A ``ts_last_move`` that is not an ISO 8601 time (docs/NETSKRAFL.md) leaves the game without a
    finish time (no day): a ``TIMESTAMP_MALFORMED`` warning naming the value, an error when
    ``strict``."""
    game = _record_game(data, path, strict)
    racks: dict[int, list[str]] = {}
    for p in (0, 1):
        ir = data.get(f"irack{p}")
        if not isinstance(ir, str):
            raise GameLogError("RECORD_MALFORMED", f"irack{p} missing or not text", path, None)
        racks[p] = _rack(ir, path=path, line=0, what=f"irack{p}")
        game.initial_racks[p] = list(racks[p])
    if data.get("score0") is not None and data.get("score1") is not None:  # else not recorded
        game.final_scores = [_score(data["score0"], "score0", path, None), _score(data["score1"], "score1", path, None)]
    else:
        game.final_scores = None
    for p in (0, 1):
        fr = data.get(f"rack{p}_final")
        if isinstance(fr, str):
            game.last_racks[p] = _rack(fr, path=path, line=0, what=f"rack{p}_final")
    last_play: Event | None = None
    points = 0  # the scores of the game added up as absolute values
    for n, mv in enumerate(data["moves"], 1):
        if not isinstance(mv, dict):
            raise GameLogError("RECORD_MALFORMED", f"move {n} is not an object", path, n)
        try:
            player = _int(mv["player"])
            coord = _text(mv.get("coord"), "coord")
            tiles = _text(mv["tiles"], "tiles")
            rack_after = _rack(_text(mv.get("rack"), "rack"), path=path, line=n, what="rack")
        except (KeyError, TypeError, ValueError) as exc:
            raise GameLogError("RECORD_MALFORMED", f"move {n}: missing or bad field ({exc})", path, n) from None
        if "score" not in mv:
            raise GameLogError("RECORD_MALFORMED", f"move {n}: missing or bad field ('score')", path, n)
        score = _score(mv["score"], f"move {n}: score", path, n)
        points += abs(score)
        if points > INT32_MAX:
            raise GameLogError("SCORE_OUT_OF_RANGE", f"move {n}: the scores of the game add up beyond {INT32_MAX}", path, n)
        if player not in (0, 1):
            raise GameLogError("PLAYER_DOES_NOT_EXIST", f"move {n}: player {player} (records have players 0 and 1)", path, n)
        before = list(racks[player])
        if coord:
            ev = _play_event(n, player, coord, tiles, score, before, rack_after, path, board_size)
            last_play = ev
        else:
            ev = _special_event(n, player, tiles, score, before, rack_after, last_play, path)
        racks[player] = rack_after
        game.events.append(ev)
    return game


def _play_event(
    n: int,
    player: int,
    coord: str,
    tiles: str,
    score: int,
    before: list[str],
    rack_after: list[str],
    path: str | None,
    board_size: int,
) -> Event:
    """Move ``n``, a play at the Netskrafl coordinate ``coord``, as an event.

    Raises:
        GameLogError: NO_MATCHING_TOKEN, COORDINATE_OUT_OF_BOUNDS, PLAY_OUT_OF_BOUNDS.
    """
    from gamecore.gcg import format_coordinate

    rc = parse_netskrafl_coordinate(coord)
    if rc is None:
        raise GameLogError(
            "NO_MATCHING_TOKEN", f"move {n}: {coord!r} is not a Netskrafl coordinate (H4 across, 4H down)", path, n
        )
    row, col, across = rc
    word = _tiles(tiles, path=path, line=n, what="tiles")
    if not (0 <= row < board_size and 0 <= col < board_size):
        raise GameLogError("COORDINATE_OUT_OF_BOUNDS", f"move {n}: coordinate {coord!r} is off the board", path, n)
    if (col if across else row) + len(word) > board_size:
        raise GameLogError("PLAY_OUT_OF_BOUNDS", f"move {n}: {coord} {tiles} runs off the board", path, n)
    # positional: kind, player, rack, coord, row, col, across, word, through, tiles, count,
    # score, cumulative, note, line, extra, rack_after (the fields of Event, in order)
    return Event(
        "play",
        player,
        before,
        format_coordinate(row, col, across),
        row,
        col,
        across,
        word,
        (),
        None,
        None,
        score,
        None,
        "",
        n,
        "",
        rack_after,
    )


def _special_event(
    n: int,
    player: int,
    tiles: str,
    score: int,
    before: list[str],
    rack_after: list[str],
    last_play: Event | None,
    path: str | None,
) -> Event:
    """Move ``n``, a move without a coordinate (PASS, EXCH, RSGN, CHALL, RESP), as an event.

    Raises:
        GameLogError: NO_MATCHING_TOKEN for another word.
    """
    head, _, rest = tiles.partition(" ")
    head = head.upper()
    if head == "PASS":
        ev = Event("pass", player, rack=before, score=score, line=n, rack_after=rack_after)
    elif head == "EXCH":
        ev = Event(
            "exchange",
            player,
            rack=before,
            tiles=_rack(rest.strip(), path=path, line=n, what="exchanged tiles"),
            score=score,
            line=n,
            rack_after=rack_after,
        )
    elif head == "RSGN":
        ev = Event("resign", player, rack=before, score=score, line=n, rack_after=rack_after)
    elif head == "CHALL":
        ev = Event("challenge", player, rack=before, score=score, line=n, rack_after=rack_after)
    elif head == "RESP":
        if score < 0:
            # the challenged move is taken back: the rack goes back to before that move
            ev = Event(
                "withdraw",
                player,
                rack=list(last_play.rack) if last_play and last_play.rack is not None else None,
                score=score,
                line=n,
                rack_after=rack_after,
            )
        else:
            ev = Event("challenge_bonus", player, rack=before, score=score, line=n, rack_after=rack_after)
    else:
        raise GameLogError(
            "NO_MATCHING_TOKEN", f"move {n}: special move {tiles!r} (expected PASS, EXCH, RSGN, CHALL or RESP)", path, n
        )
    return ev


def _text(value: object, what: str) -> str:
    """A text field of a move (``None``/missing = empty); a number is read as its text (older
    records), anything else (an object, a list, ``true``) raises ValueError."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**18:
        return str(value)
    raise ValueError(f"{what} must be text, got {str(value)[:40]!r}")


def read_netskrafl_record(path: str | Path, *, strict: bool = False) -> Game:
    """Read a Netskrafl JSON game record file (see :func:`parse_netskrafl_bytes`).

    Raises:
        GameLogError: ``FILE_UNREADABLE``, ``FILE_TOO_LARGE`` (more than
        :data:`gamecore.text.GAME_FILE_MAX` bytes), ``RECORD_MALFORMED`` (not JSON, missing fields) and the
        codes of :func:`parse_netskrafl_record`."""
    raw = read_game_bytes(str(path))
    return parse_netskrafl_bytes(raw, str(path), strict=strict)


def parse_netskrafl_bytes(raw: bytes, path: str | None = None, *, strict: bool = False) -> Game:
    """A Netskrafl JSON game record from the bytes of its file: UTF-8 JSON, one leading byte-order
    mark dropped (:func:`gamecore.text.strip_bom`).

    Raises:
        GameLogError: ``RECORD_MALFORMED`` (not UTF-8, not JSON, missing fields) and the codes of
        :func:`parse_netskrafl_record`."""
    try:
        data = json.loads(strip_bom(raw.decode("utf-8")), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        line = getattr(exc, "lineno", None)
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:200]
        raise GameLogError("RECORD_MALFORMED", f"not JSON: {reason}", path, line) from None
    return parse_netskrafl_record(data, path=path, strict=strict)


def _no_constant(name: str) -> float:
    """``NaN``, ``Infinity`` and ``-Infinity`` are not JSON (RFC 8259): refuse them."""
    raise ValueError(f"{name} is not a JSON number")


__all__ = ["parse_netskrafl_bytes", "parse_netskrafl_coordinate", "parse_netskrafl_record", "read_netskrafl_record"]
