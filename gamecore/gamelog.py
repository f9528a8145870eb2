"""The common game-log model: one :class:`Game` of :class:`Event` lines, whatever file it came from.

Both readers (:mod:`gamecore.gcg` for GCG, :mod:`gamecore.netskrafl_record` for Netskrafl JSON
records) produce this model, the GCG writer reads it and :mod:`pipelines.replay` replays it on the
rules engine. The event kinds are those of the GCG spec (docs/GCG.md §3) plus the Netskrafl ones
(docs/NETSKRAFL.md: CHALL/RESP, RSGN):

==================  =====================================================================
kind                meaning
==================  =====================================================================
``play``            tile placement (``coord``, ``word``)
``pass``            pass (score 0)
``exchange``        exchange of ``tiles`` (or ``count`` unknown tiles), score 0
``withdraw``        phony withdrawn after a successful challenge (``--``), score −X
``challenge_bonus`` bonus to the challenged player for a wrong challenge (+5/+10)
``challenge``       a challenge that itself scores 0 (Netskrafl ``CHALL``)
``end_rack``        end-of-game points for the opponent's rack (``tiles``)
``rack_penalty``    own-rack penalty (``tiles``), negative
``time``            time penalty, negative
``resign``          resignation (Netskrafl ``RSGN``)
==================  =====================================================================

Tiles are lists of tile labels (one string per tile, so multi-letter tiles such as ``L·L`` or
``[CH]`` stay whole). In racks ``?`` is a blank; in words a lowercase letter is a blank standing for
that letter and ``.`` marks a square already occupied (played-through tile) whose letter the file did
not repeat.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gamecore.errors import DataError

EVENT_KINDS = (
    "play",
    "pass",
    "exchange",
    "withdraw",
    "challenge_bonus",
    "challenge",
    "end_rack",
    "rack_penalty",
    "time",
    "resign",
)


class GameLogError(DataError):
    """A fault in a game log, with a named code (docs/GCG.md §8) and where it is.

    Attributes:
        code: upper-case error code, e.g. ``CUMULATIVE_SCORING_ERROR``.
        message, path, line: as :class:`gamecore.errors.SkraflError`.
    """

    def __init__(self, code: str, message: str, path: str | None = None, line: int | None = None):
        super().__init__(f"{code}: {message}", path, line)
        self.code = code
        self.detail = message


def read_game_bytes(path: str) -> bytes:
    """The bytes of a game file (GCG or Netskrafl JSON record), read with a size cap: at most
    :data:`gamecore.text.GAME_FILE_MAX` bytes (16 MiB; a real game file is a few KB), so a huge
    or endless file (``/dev/zero``) costs no more memory than that.

    Raises:
        GameLogError: ``FILE_UNREADABLE`` (an OS error), ``FILE_TOO_LARGE`` (more than the cap)."""
    from gamecore.text import GAME_FILE_MAX, mib, read_at_most

    try:
        with open(path, "rb") as f:
            data = read_at_most(f, GAME_FILE_MAX)
    except OSError as exc:
        raise GameLogError("FILE_UNREADABLE", f"cannot read: {exc.strerror or exc}", path, None) from None
    if data is None:
        raise GameLogError(
            "FILE_TOO_LARGE", f"more than {mib(GAME_FILE_MAX)}: not a game file (a game file is a few KB)", path, None
        )
    return data


@dataclass
class Finding:
    """A warning (lenient mode: the fault was repaired or ignored) or an error, with its code."""

    code: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.code}: {self.message}"


@dataclass
class Player:
    """A player: ``nick`` is the one-token name used on event lines, ``name`` the full name."""

    nick: str
    name: str = ""


@dataclass(slots=True)
class Event:
    """One event line of a game log.

    Attributes:
        kind: one of :data:`EVENT_KINDS`.
        player: 0-based player index (file order).
        rack: tiles held before the event (``?`` = blank); ``None`` when the log does not say.
        coord: GCG coordinate of a play (``8D`` across, ``D8`` down), upper case.
        row, col: 0-based start square of a play; ``across`` its direction.
        word: a play's tiles from the start square, including played-through squares
            (``.`` or the letter); lowercase = blank.
        through: indexes of ``word`` written in parentheses (lenient ``( )`` notation).
        tiles: exchanged tiles (exchange), or the tiles in parentheses (end_rack, rack_penalty).
        count: number of tiles exchanged when only the count is known.
        score: the recorded score of the event (signed), ``None`` if not recorded.
        cumulative: the recorded cumulative score of the player after the event, if recorded.
        note: annotation (``#note`` lines joined by newlines).
        line: 1-based line (GCG) or move number (Netskrafl, 1-based) in the source.
        extra: trailing tokens after the cumulative (Quackle writes the cross-words there).
        rack_after: the mover's rack after the move and the refill (Netskrafl records).
    """

    kind: str
    player: int
    rack: list[str] | None = None
    coord: str | None = None
    row: int | None = None
    col: int | None = None
    across: bool | None = None
    word: list[str] | None = None
    through: tuple[int, ...] = ()
    tiles: list[str] | None = None
    count: int | None = None
    score: int | None = None
    cumulative: int | None = None
    note: str = ""
    line: int | None = None
    extra: str = ""
    rack_after: list[str] | None = None


@dataclass
class Game:
    """A game log as read from a file.

    Attributes:
        format: ``gcg`` or ``netskrafl``.
        players: in file order (GCG ``#player1``, ``#player2``…; Netskrafl player 0, player 1).
        events: in file order.
        pragmas: GCG pragmas by name without ``#`` (``lexicon``, ``title``, ``description``, ``id``,
            ``game-type``, ``board-layout``, ``tile-distribution``…), the last value for each.
        encoding: the text encoding the file was decoded with.
        last_racks: known racks at the end of an unfinished game (``#rack1``/``#rack2``), by player.
        incomplete: the log says the game is not finished (``#incomplete``).
        initial_racks: racks at the start (Netskrafl ``irack0``/``irack1``).
        final_scores: final scores as recorded by the source (Netskrafl ``score0``/``score1``);
            for GCG they are the last cumulative of each player.
        prefs: source preferences (Netskrafl ``prefs``: ``newbag``, ``board_type``, ``manual``…).
        warnings: faults repaired or ignored in lenient mode.
        path: the source file.
        game_id: the source's game id (Netskrafl ``game_id``).
        meta: other facts of the source about the game, not its moves (Netskrafl top-level
            ``manual`` = competition mode, and ``robot0``/``robot1`` when a record has them).
        ascii: the source file was all ASCII (then no tile is a letter English lacks).
        unknown_pragmas: GCG pragma lines the reader does not know (``#style wsc2001``), as read
            before the first event: ignored (``UNKNOWN_PRAGMA``), kept so that a writer can give
            them back.
    """

    format: str
    players: list[Player] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    pragmas: dict[str, str] = field(default_factory=dict)
    encoding: str = "iso-8859-1"
    last_racks: dict[int, list[str]] = field(default_factory=dict)
    incomplete: bool = False
    initial_racks: dict[int, list[str]] = field(default_factory=dict)
    final_scores: list[int] | None = None
    prefs: dict = field(default_factory=dict)
    warnings: list[Finding] = field(default_factory=list)
    path: str | None = None
    game_id: str | int | None = None  # a Netskrafl record may give a whole number
    meta: dict = field(default_factory=dict)
    ascii: bool = False
    unknown_pragmas: list[str] = field(default_factory=list)

    def recorded_totals(self) -> list[int | None]:
        """Each player's last recorded cumulative score (``None`` when a player has no event)."""
        if self.final_scores is not None:
            return list(self.final_scores)
        totals: list[int | None] = [None] * len(self.players)
        for ev in self.events:
            if ev.cumulative is not None and 0 <= ev.player < len(totals):
                totals[ev.player] = ev.cumulative
        return totals


def split_tiles(text: str, multi: tuple[str, ...] = ()) -> list[str]:
    """Split a rack or word into tiles: ``[..]`` groups are one tile, labels in ``multi`` (longest
    first, either case) are one tile, every other character is one tile (docs/GCG.md §5 multi-letter
    tiles). Raises ``ValueError`` on an unclosed ``[`` and on brackets around fewer than two
    characters (``[A]``, ``[]``: brackets are for multi-letter tiles only, docs/GCG.md §5, so ``[A]``
    is not the ``A`` tile written another way)."""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "[":
            j = text.find("]", i + 1)
            if j < 0:
                raise ValueError(f"unclosed '[' in {text!r}")
            if j - i - 1 < 2:
                raise ValueError(
                    f"{text[i : j + 1]!r} in {text!r}: brackets are for multi-letter tiles only (write a single letter without them)"
                )
            out.append(text[i : j + 1])
            i = j + 1
            continue
        if multi:
            for label in multi:
                seg = text[i : i + len(label)]
                if len(seg) == len(label) and seg.upper() == label.upper():
                    out.append(seg)
                    i += len(label)
                    break
            else:
                out.append(ch)
                i += 1
            continue
        out.append(ch)
        i += 1
    return out


def tile_text(tile: str) -> str:
    """One tile as written in a rack or word: a multi-letter tile in brackets (``[CH]``, ``[L·L]``),
    so that a leave of a separate ``C`` and ``H`` (``CH``) never reads back as the ``CH`` tile."""
    if len(tile) > 1 and not tile.startswith("["):
        return f"[{tile}]"
    return tile


def tiles_text(tiles: list[str] | None) -> str:
    """The tiles joined back into one string, multi-letter tiles in brackets (:func:`tile_text`;
    the inverse of :func:`split_tiles`)."""
    if not tiles:
        return ""
    if all(len(t) == 1 for t in tiles):
        return "".join(tiles)
    return "".join(map(tile_text, tiles))


__all__ = [
    "EVENT_KINDS",
    "Event",
    "Finding",
    "Game",
    "GameLogError",
    "Player",
    "TIME_EXAMPLE",
    "parse_time",
    "read_game_bytes",
    "split_tiles",
    "tile_text",
    "tiles_text",
]


def parse_time(text: object):
    """An ISO 8601 time (``2025-08-11T15:58:35.597951+00:00``, ``…Z``; no offset means UTC) as an
    aware UTC :class:`datetime.datetime`; ``None`` for anything else (not text, empty, unreadable).
    Netskrafl's ``ts_last_move`` and the ``#finished-at`` pragma are read with it."""
    import datetime as dt

    if not isinstance(text, str) or not text.strip():
        return None
    try:
        when = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
        return when.replace(tzinfo=dt.timezone.utc) if when.tzinfo is None else when.astimezone(dt.timezone.utc)
    except (ValueError, OverflowError):  # OverflowError: an offset past year 1 or 9999 in UTC
        return None


TIME_EXAMPLE = "2025-08-11T15:58:35+00:00"
"""An example of the ISO 8601 UTC time that ``ts_last_move`` and ``#finished-at`` hold (for messages)."""
