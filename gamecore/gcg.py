"""GCG game logs: reader (strict and lenient) and writer.

Source of every rule: `docs/GCG.md` (the GCG spec v1.2 as implemented by macondo,
MAGPIE, Quackle and wolges). The reader checks what can be checked from the text alone: encoding,
pragmas, players, line syntax, coordinates against the board size, the placement of withdrawals and
challenge bonuses, and ``#rack1/#rack2``. Everything that needs the board, the tile set or the rules
(scores, racks against the bag, end of game, turn order) is checked by :mod:`pipelines.replay`, with
the same error codes.

Strict mode raises :class:`~gamecore.gamelog.GameLogError` with one named code per fault of the
docs/GCG.md §8 (MAGPIE names where MAGPIE has one, a finer name where MAGPIE lumps faults
together). Lenient mode repairs what is safe (an unknown pragma is ignored, a note before the first
event is kept as a game note, ``( )`` around played-through tiles is accepted, UTF-8 racks and words
in a file without the encoding header are re-decoded…), records a :class:`~gamecore.gamelog.Finding`
in ``game.warnings`` and goes on; faults that leave the game unreadable raise in both modes.

Error codes raised here: ``GCG_EMPTY``, ``UNSUPPORTED_CHARACTER_ENCODING``, ``MISPLACED_ENCODING``,
``ENCODING_ERROR``, ``DUPLICATE_NICKNAMES``, ``DUPLICATE_NAMES``, ``PLAYER_NUMBER_REDUNDANT``,
``UNSUPPORTED_PLAYER_NUMBER``, ``PRAGMA_SUCCEEDED_EVENT``, ``MOVE_BEFORE_PLAYER``,
``PLAYER_DOES_NOT_EXIST``, ``NOTE_PRECEDENT_EVENT``, ``REDUNDANT_PRAGMA``,
``UNRECOGNIZED_GAME_VARIANT``, ``UNRECOGNIZED_CHALLENGE_RULE``, ``TIMESTAMP_MALFORMED``, ``UNKNOWN_PRAGMA``, ``NO_MATCHING_TOKEN``, ``RACK_MALFORMED``,
``PLAY_MALFORMED``, ``COORDINATE_OUT_OF_BOUNDS``, ``PLAY_OUT_OF_BOUNDS``, ``SCORE_MALFORMED``,
``PHONY_TILES_RETURNED_WITHOUT_PLAY``, ``INVALID_PHONY_TILES_PLAYER_INDEX``,
``PHONY_TILES_RETURNED_MISMATCH``, ``CHALLENGE_BONUS_WITHOUT_PLAY``,
``INVALID_CHALLENGE_BONUS_PLAYER_INDEX``, ``EVENT_AFTER_LAST_RACK``, ``LINE_TOO_LONG``,
``SCORE_OUT_OF_RANGE`` (a score or total beyond ±(2^31 − 1), or the scores of the game added up
as absolute values beyond 2^31 − 1: the tables store scores and totals as int32).

The decoded text is put in Unicode NFC once (:func:`gamecore.text.nfc`), so an NFD file (``y`` +
combining acute for ``ý``) reads as the same game as its NFC form. Numbers are ASCII digits.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from gamecore.gamelog import TIME_EXAMPLE, Event, Finding, Game, GameLogError, Player, parse_time, read_game_bytes, split_tiles
from gamecore.text import INT32_MAX, nfc

MAX_PLAYERS = 4
"""Scrabble, Ordspill and Slovenian Scrabble are games for 2 to 4 players (the Ordspill.no rules, the Scrabble rules page, the Slovenian Scrabble article):
``#player1`` … ``#player4`` are read, turns go round in that order."""

MAX_LINE = 100_000  # characters; a longer line is not a GCG line (bad input: "a 10 MB line")

GAME_TYPES = ("classic", "wordsmog", "classic_super", "wordsmog_super")
LEXICON_PREFIXES = (
    ("nswl", "english", "en"),
    ("nwl", "english", "en"),
    ("twl", "english", "en"),
    ("owl", "english", "en"),
    ("csw", "english", "en"),
    ("america", "english", "en"),
    ("cel", "english", "en"),
    ("ecwl", "english", "en"),
    ("iwi", "english", "en"),
    ("osps", "polish", "pl"),
    ("nsf", "norwegian", "nb"),
    ("fra", "french", "fr"),
    ("rd", "german", "de"),
    ("deutsch", "german", "de"),
    ("cgl", "german", "de"),
    ("german", "german", "de"),
    ("disc", "catalan", "ca"),
    ("fise", "spanish", "es"),
    ("file", "spanish", "es"),
    ("dsw", "dutch", "nl"),
    ("slv", "slovene", "sl"),
    ("netskrafl", "icelandic", "is"),
)
"""``#lexicon`` name prefixes (macondo's, docs/GCG.md §2) → (macondo tile distribution, language code)."""


def _lexicon_prefix(name: str | None) -> tuple[str, str, str] | None:
    name = (name or "").strip().lower()
    return next((row for row in LEXICON_PREFIXES if name and name.startswith(row[0])), None)


def lexicon_distribution(name: str | None) -> str | None:
    """The macondo tile-distribution name a ``#lexicon`` name stands for (``CSW21`` → ``english``), or None."""
    row = _lexicon_prefix(name)
    return row[1] if row else None


def lexicon_language(name: str | None) -> str | None:
    """The language a ``#lexicon`` name stands for (``CSW21`` → ``en``, ``NSF23`` → ``nb``), or None."""
    row = _lexicon_prefix(name)
    return row[2] if row else None


CHALLENGE_RULE_VALUES = ("void", "single", "double", "triple", "five_point", "ten_point", "five_point_per_word")
"""``#challenge-rule`` values (case and ``-``/``_`` aside): macondo/liwords' names (docs/GCG.md §2: VOID,
SINGLE, DOUBLE, FIVE_POINT, TEN_POINT, TRIPLE; not a pragma of the GCG spec, read when present) and
``five_point_per_word`` (+5 per word of the challenged play). Anything else is
``UNRECOGNIZED_CHALLENGE_RULE`` (strict: an error; lenient: a warning, the pragma ignored)."""
BOARD_SIZES = {"crosswordgame": 15, "standard15": 15, "supercrosswordgame": 21, "standard21": 21}

# The pragmas a game log may give once (a second is REDUNDANT_PRAGMA), in the order the writer
# puts them; `#description` may come on several lines and is written after the title.
ONCE_PRAGMAS = (
    "title",
    "id",
    "lexicon",
    "game-type",
    "board-layout",
    "tile-distribution",
    "challenge-rule",
    "finished-at",
    "date",
    "competition",
    "locale",
)

# pragmas recognised and kept; the value is whether it may follow the first event
KNOWN_PRAGMAS = {
    "character-encoding": False,
    "player1": False,
    "player2": False,
    "player3": False,
    "player4": False,
    "title": False,
    "description": False,
    "id": False,
    "lexicon": False,
    "game-type": False,
    "board-layout": False,
    "tile-distribution": False,
    "tile": False,
    "tile-set": False,
    "game-board": False,
    "-": False,
    "note": True,
    "rack1": True,
    "rack2": True,
    "rack3": True,
    "rack4": True,
    "incomplete": True,
    "challenge-rule": False,
    "finished-at": False,
    "date": False,
    "competition": False,
    "locale": False,
}

_COORD_ACROSS = re.compile(r"^([0-9]+)([A-Za-z]+)$")  # 8D: row first = across
_COORD_DOWN = re.compile(r"^([A-Za-z]+)([0-9]+)$")  # D8: column first = down
_SCORE = re.compile(r"^(\+-|[+-])?([0-9]+)$")
_CUMUL = re.compile(r"^-?[0-9]+$")
FAR = 10_000
"""Row or column given to a coordinate with more than 4 digits or letters: off every board (the
bounds check then names the coordinate), without reading a huge number."""
_PAREN = re.compile(r"^\((.*)\)$")
# the common event line, a tile placement in its plainest form: >nick: [RACK] COORD WORD +SCORE CUM
# [extra] with ASCII digits and no "+-"; the rack and word are checked to be one character per tile
# (letters, '?' in racks, '.' in words) before the fast path takes the line, anything else takes the
# general path
_PLAIN_PLAY = re.compile(
    r">([^:]*):\s+(?:(\S+)\s+)?(?:([0-9]+)([A-Za-z]+)|([A-Za-z]+)([0-9]+))\s+(\S+)\s+([+-]?)([0-9]+)\s+(-?[0-9]+)(?:\s+(.*))?"
)
_COLUMNS = {ch: i for i, ch in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")} | {
    ch: i for i, ch in enumerate("abcdefghijklmnopqrstuvwxyz")
}
"""One-letter GCG columns → 0-based index (see :func:`column_index`)."""


def column_index(letters: str) -> int:
    """0-based column of GCG column letters (``A`` = 0; ``AA`` = 26 for boards wider than 26);
    :data:`FAR` for more than 4 letters."""
    if len(letters) > 4:
        return FAR
    n = 0
    for ch in letters.upper():
        n = n * 26 + (ord(ch) - 64)
    return n - 1


def column_letters(col: int) -> str:
    """GCG column letters of a 0-based column (inverse of :func:`column_index`)."""
    out = ""
    col += 1
    while col > 0:
        col, rem = divmod(col - 1, 26)
        out = chr(65 + rem) + out
    return out


def parse_coordinate(token: str) -> tuple[int, int, bool] | None:
    """``(row, col, across)`` (0-based) of a GCG coordinate, ``None`` when it is not one.

    docs/GCG.md §4: number first = across (``8D``), letter first = down (``D8``); case-insensitive."""
    if token[:1].isdigit():  # only the across form starts with a digit
        m = _COORD_ACROSS.match(token)
        if m and m.group(2).isascii():
            return _row(m.group(1)), column_index(m.group(2)), True
        return None
    m = _COORD_DOWN.match(token)
    if m and m.group(1).isascii():
        return _row(m.group(2)), column_index(m.group(1)), False
    return None


def _row(digits: str) -> int:
    """0-based row of the ASCII digits of a coordinate; :data:`FAR` for more than 4 digits."""
    return int(digits) - 1 if len(digits) <= 4 else FAR


@lru_cache(maxsize=4096)
def format_coordinate(row: int, col: int, across: bool) -> str:
    """GCG coordinate of a 0-based start square: ``8D`` across, ``D8`` down."""
    return f"{row + 1}{column_letters(col)}" if across else f"{column_letters(col)}{row + 1}"


def _decode(data: bytes, strict: bool, path: str | None, warnings: list[Finding]) -> tuple[str, str]:
    """Decode per docs/GCG.md §1: ISO-8859-1 unless the first line declares UTF-8. A file that starts
    with UTF-8's byte-order mark (a Windows editor's "UTF-8") is UTF-8: the mark is dropped and the
    file read as if its first line declared it."""
    from gamecore.text import strip_bom

    if data.startswith(b"\xef\xbb\xbf"):
        data = strip_bom(data)
        head = data.split(b"\n", 1)[0].strip().lower()
        if not head.startswith(b"#character-encoding"):
            try:
                return data.decode("utf-8"), "utf-8"
            except UnicodeDecodeError:
                pass  # not UTF-8 after all: read as the spec says
    first_end = len(data)
    for sep in (b"\n", b"\r"):
        k = data.find(sep)
        if k >= 0:
            first_end = min(first_end, k)
    first = data[:first_end].decode("latin-1").strip()
    if first.lower().startswith("#character-encoding"):
        parts = first.split(None, 1)
        declared = parts[1].strip() if len(parts) > 1 else ""
        if declared.lower() in ("utf-8", "utf8"):
            try:
                return data.decode("utf-8"), "utf-8"
            except UnicodeDecodeError as exc:
                if strict:
                    raise GameLogError(
                        "ENCODING_ERROR", f"declared UTF-8 but bytes are not UTF-8 ({exc.reason} at byte {exc.start})", path, None
                    ) from None
                warnings.append(Finding("ENCODING_ERROR", "declared UTF-8 but bytes are not UTF-8; undecodable bytes replaced"))
                return data.decode("utf-8", errors="replace"), "utf-8"
        if strict:
            raise GameLogError(
                "UNSUPPORTED_CHARACTER_ENCODING", f"#character-encoding {declared!r}: only UTF-8 may be declared", path, 1
            )
        import codecs

        try:
            text = data.decode("utf-8")
            warnings.append(
                Finding(
                    "UNSUPPORTED_CHARACTER_ENCODING",
                    f"#character-encoding {declared!r} is not supported; the bytes are valid UTF-8 and were read as UTF-8",
                    1,
                )
            )
            return text, "utf-8"
        except UnicodeDecodeError:
            pass
        try:
            codecs.lookup(declared)
            text = data.decode(declared, errors="replace")
            warnings.append(
                Finding(
                    "UNSUPPORTED_CHARACTER_ENCODING", f"#character-encoding {declared!r} is not UTF-8; decoded with it anyway", 1
                )
            )
            return text, declared.lower()
        except (LookupError, ValueError):  # unknown name, NUL in the name, a codec that cannot replace
            warnings.append(
                Finding("UNSUPPORTED_CHARACTER_ENCODING", f"unknown #character-encoding {declared!r}; decoded as ISO-8859-1", 1)
            )
    return data.decode("latin-1"), "iso-8859-1"


def _fix_mojibake(token: str) -> str:
    """Re-decode a token read as Latin-1 whose bytes are valid multi-byte UTF-8 (lenient repair of
    a UTF-8 file without the header, docs/GCG.md §1: the German Elise file). Latin-1 letters never form
    valid UTF-8 multi-byte sequences, so a genuine Latin-1 token is never changed."""
    if token.isascii():
        return token
    try:
        return nfc(token.encode("latin-1").decode("utf-8"))
    except (UnicodeEncodeError, UnicodeDecodeError):
        return token


class _Parser:
    def __init__(self, path: str | None, strict: bool, board_size: int | None, multi: tuple[str, ...]):
        self.path = path
        self.strict = strict
        self.board_size = board_size
        self.multi = multi
        self.game = Game(format="gcg", path=path)
        self.player_numbers: dict[int, int] = {}  # GCG number -> index
        self.nicks: dict[str, int] = {}  # nickname -> index, for nicknames used by one player
        self.seen_pragmas: set[str] = set()
        self.in_note = False
        self.last_racks_seen = False
        self.mojibake = False
        # plain play lines may take the fast path (one character per tile, bounds checked later)
        self.plain = not multi and board_size is None

    # -- faults ---------------------------------------------------------------------------------
    def fault(self, code: str, message: str, line: int | None) -> None:
        """Strict: raise. Lenient: record a warning (the caller then repairs)."""
        if self.strict:
            raise GameLogError(code, message, self.path, line)
        self.game.warnings.append(Finding(code, message, line))

    def error(self, code: str, message: str, line: int | None) -> GameLogError:
        return GameLogError(code, message, self.path, line)

    # -- tokens ---------------------------------------------------------------------------------
    def tiles(self, token: str, line: int, what: str, code: str = "RACK_MALFORMED") -> list[str]:
        if self.mojibake:
            token = _fix_mojibake(token)
        letters = token.replace("?", "")
        if not self.multi and (not letters or letters.isalpha()):
            return list(token)  # fast path: letters (any script) and '?', one character per tile
        try:
            tiles = split_tiles(token, self.multi)
        except ValueError as exc:
            raise self.error(code, f"{what} {token!r}: {exc}", line) from None
        for t in tiles:
            body = t[1:-1] if t.startswith("[") else t
            if not (t == "?" or (body and all(c.isalpha() or c == "·" for c in body))):
                raise self.error(code, f"{what} {token!r}: {t!r} is not a tile (letters, '?' for a blank)", line)
        return tiles

    def score(self, token: str, line: int) -> int:
        m = _SCORE.match(token)
        if not m:
            raise self.error("SCORE_MALFORMED", f"score {token!r}: expected a signed number like +34 or -10", line)
        value = self.bounded(m.group(2), token, "score", line)
        return -value if m.group(1) in ("-", "+-") else value

    def cumulative(self, token: str, line: int) -> int:
        if not _CUMUL.match(token):
            raise self.error("SCORE_MALFORMED", f"cumulative score {token!r}: expected a number", line)
        value = self.bounded(token.lstrip("-"), token, "cumulative score", line)
        return -value if token.startswith("-") else value

    def bounded(self, digits: str, token: str, what: str, line: int) -> int:
        """The number of ASCII ``digits`` (no sign); raises ``SCORE_OUT_OF_RANGE`` beyond
        :data:`~gamecore.text.INT32_MAX` (scores are stored as int32)."""
        value = int(digits) if len(digits) <= 12 else INT32_MAX + 1
        if value > INT32_MAX:
            raise self.error(
                "SCORE_OUT_OF_RANGE", f"{what} {token[:40]!r}: expected a number between -{INT32_MAX} and {INT32_MAX}", line
            )
        return value

    # -- lines ----------------------------------------------------------------------------------
    def pragma(self, text: str, lineno: int) -> None:
        g = self.game
        body = text[1:]
        if body.startswith(">"):
            self.in_note = False
            self.fault("UNKNOWN_PRAGMA", f"commented-out event line {text[:40]!r}", lineno)
            return
        if body.startswith("- ") or body == "-":
            return  # continuation of #tile-set / #game-board: ignored (macondo)
        parts = body.split(None, 1)
        name = parts[0].lower() if parts else ""
        value = parts[1].strip() if len(parts) > 1 else ""
        if name != "note":
            self.in_note = False
        if name.startswith("player") and name[6:].isascii() and name[6:].isdigit() and len(name) < 12:
            if g.events:
                self.fault(
                    "PRAGMA_SUCCEEDED_EVENT",
                    f"#{name} after the first event (only #note and #rack1/#rack2 may follow events)",
                    lineno,
                )
            self.player(int(name[6:]), value, lineno)
            return
        if name not in KNOWN_PRAGMAS:
            self.fault("UNKNOWN_PRAGMA", f"unknown pragma #{name}", lineno)
            if not g.events:
                g.unknown_pragmas.append(text.strip())  # ignored, kept for the writer
            return
        if g.events and not KNOWN_PRAGMAS[name]:
            self.fault(
                "PRAGMA_SUCCEEDED_EVENT",
                f"#{name} after the first event (only #note and #rack1/#rack2 may follow events)",
                lineno,
            )
        self.known_pragma(name, value, lineno)

    def known_pragma(self, name: str, value: str, lineno: int) -> None:
        """A pragma of :data:`KNOWN_PRAGMAS` (its place already checked): its value kept or refused."""
        g = self.game
        if name == "character-encoding":
            if lineno != 1:
                self.fault("MISPLACED_ENCODING", "#character-encoding must be the first line", lineno)
            return
        if name.startswith("player"):
            self.player(int(name[6:]), value, lineno)
            return
        if name == "note":
            self.note(value, lineno)
            return
        if name in ("rack1", "rack2", "rack3", "rack4"):
            self.once(name, lineno)
            g.last_racks[int(name[4:]) - 1] = self.tiles(value.split()[0] if value else "", lineno, f"#{name} rack")
            self.last_racks_seen = True
            return
        if name == "incomplete":
            g.incomplete = True
            if value:
                g.pragmas["incomplete"] = value
            return
        if name in ONCE_PRAGMAS:
            self.once(name, lineno)
        if not self.pragma_value_refused(name, value, lineno):
            self.keep_pragma(name, value)

    def once(self, name: str, lineno: int) -> None:
        """A pragma that may be given once: ``REDUNDANT_PRAGMA`` the second time."""
        if name in self.seen_pragmas:
            self.fault("REDUNDANT_PRAGMA", f"#{name} given twice", lineno)
        self.seen_pragmas.add(name)

    def pragma_value_refused(self, name: str, value: str, lineno: int) -> bool:
        """Whether a pragma's value is refused (its fault said): a game type, challenge rule, time
        or board layout that is not one of the known ones."""
        if name == "game-type" and value.lower() not in GAME_TYPES:
            self.fault("UNRECOGNIZED_GAME_VARIANT", f"#game-type {value!r}: expected one of {', '.join(GAME_TYPES)}", lineno)
            return True
        if name == "challenge-rule" and value.strip().lower().replace("-", "_") not in CHALLENGE_RULE_VALUES:
            self.fault(
                "UNRECOGNIZED_CHALLENGE_RULE",
                f"#challenge-rule {value[:60]!r}: expected one of {', '.join(v.upper() for v in CHALLENGE_RULE_VALUES)}"
                + ("" if self.strict else " (ignored: the rule is taken from the first bonus)"),
                lineno,
            )
            return True
        if name in ("finished-at", "date") and parse_time(value) is None:
            self.fault(
                "TIMESTAMP_MALFORMED",
                f"#{name} {value[:60]!r} is not an ISO 8601 time or day (e.g. {TIME_EXAMPLE}, 2025-08-11): the game has no finish time",
                lineno,
            )
            return True
        if name == "board-layout" and value.lower() not in BOARD_SIZES:
            self.fault("UNKNOWN_PRAGMA", f"#board-layout {value!r}: expected CrosswordGame or SuperCrosswordGame", lineno)
            return True
        return False

    def keep_pragma(self, name: str, value: str) -> None:
        """A pragma's value kept for the game (several #description or #tile lines joined)."""
        g = self.game
        if name == "description" and "description" in g.pragmas:
            g.pragmas["description"] += "\n" + value  # MAGPIE: several lines are concatenated
            return
        if name == "tile":
            g.pragmas.setdefault("tile", "")
            g.pragmas["tile"] = (g.pragmas["tile"] + "\n" + value).strip("\n")
            return
        g.pragmas[name] = value

    def player(self, number: int, value: str, lineno: int) -> None:
        g = self.game
        if number in self.player_numbers:
            self.fault("PLAYER_NUMBER_REDUNDANT", f"#player{number} given twice", lineno)
            return
        if number > MAX_PLAYERS:  # (KNOWN_PRAGMAS has #player1 … #player4: crossword games are for 2 to 4)
            self.fault("UNSUPPORTED_PLAYER_NUMBER", f"#player{number}: a game has 2 to {MAX_PLAYERS} players", lineno)
            return  # lenient: the pragma is ignored
        parts = value.split(None, 1)
        if not parts:
            raise self.error("NO_MATCHING_TOKEN", f"#player{number} without a nickname", lineno)
        nick, name = parts[0], (parts[1].strip() if len(parts) > 1 else "")
        for p in g.players:
            if p.nick == nick:
                self.fault(
                    "DUPLICATE_NICKNAMES",
                    f"nickname {nick!r} used by two players (events are then assigned by turn order)",
                    lineno,
                )
            elif name and p.name == name:
                self.fault("DUPLICATE_NAMES", f"full name {name!r} used by two players", lineno)
        self.player_numbers[number] = len(g.players)
        g.players.append(Player(nick, name))
        nicks = [p.nick for p in g.players]
        self.nicks = {n: i for i, n in enumerate(nicks) if nicks.count(n) == 1}

    def note(self, text: str, lineno: int) -> None:
        g = self.game
        self.in_note = True
        if not g.events:
            self.fault("NOTE_PRECEDENT_EVENT", "#note before the first event (a note annotates the event before it)", lineno)
            g.pragmas["note"] = (g.pragmas.get("note", "") + "\n" + text).lstrip("\n") if "note" in g.pragmas else text
            return
        ev = g.events[-1]
        ev.note = ev.note + "\n" + text if ev.note else text

    def continuation(self, text: str, lineno: int) -> bool:
        g = self.game
        if not self.in_note:
            return False
        if g.events:
            g.events[-1].note += "\n" + text
        else:
            g.pragmas["note"] = g.pragmas.get("note", "") + "\n" + text
        return True

    def player_index(self, nick: str, lineno: int) -> int:
        g = self.game
        matches = [i for i, p in enumerate(g.players) if p.nick == nick]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:  # duplicate nicknames (Quackle sample): assign by turn order
            return self._turn_order_guess(matches)
        if len(g.players) < 2:
            self.fault("MOVE_BEFORE_PLAYER", f"event by {nick!r} before both players are declared", lineno)
            g.players.append(Player(nick, nick))
            return len(g.players) - 1
        folded = [i for i, p in enumerate(g.players) if p.nick.casefold() == nick.casefold()]
        if len(folded) == 1 and not self.strict:
            g.warnings.append(
                Finding(
                    "PLAYER_DOES_NOT_EXIST", f"nickname {nick!r} matched to {g.players[folded[0]].nick!r} ignoring case", lineno
                )
            )
            return folded[0]
        raise self.error(
            "PLAYER_DOES_NOT_EXIST", f"no player with nickname {nick!r} (players: {', '.join(p.nick for p in g.players)})", lineno
        )

    def _turn_order_guess(self, matches: list[int]) -> int:
        evs = self.game.events
        n = len(self.game.players)
        # the player after the last one to make a turn-taking move
        for ev in reversed(evs):
            if ev.kind in ("play", "pass", "exchange"):
                nxt = (ev.player + 1) % n
                return nxt if nxt in matches else matches[0]
        return matches[0]

    def event(self, text: str, lineno: int) -> None:
        g = self.game
        if self.plain:
            m = _PLAIN_PLAY.fullmatch(text)
            if m is not None and not self.last_racks_seen and len(g.players) >= 2 and self.plain_play(m, lineno):
                self.in_note = False
                return
        self.in_note = False
        if self.last_racks_seen:
            self.fault("EVENT_AFTER_LAST_RACK", "event after #rack1/#rack2 (those end an unfinished game)", lineno)
        colon = text.find(":")
        if colon < 0:
            raise self.error("NO_MATCHING_TOKEN", "event line without 'nick:'", lineno)
        nick = text[1:colon].strip()
        if not nick:
            raise self.error("NO_MATCHING_TOKEN", "event line without a nickname", lineno)
        if len(g.players) < 2 and nick in [p.nick for p in g.players]:
            self.fault("MOVE_BEFORE_PLAYER", "event before both #player1 and #player2 are declared", lineno)
        player = self.player_index(nick, lineno)
        toks = text[colon + 1 :].split()
        ev = self.parse_event(toks, player, lineno)
        self.check_context(ev, lineno)
        g.events.append(ev)

    def plain_play(self, m: re.Match, lineno: int) -> bool:
        """A tile placement matched by ``_PLAIN_PLAY`` whose rack and word have one character per
        tile: add the same event as :meth:`parse_event` gives for it, without splitting and
        testing the tokens one by one, and return True. Return False (nothing done) for a line
        the general path must read."""
        nick, rack, row_a, col_a, col_d, row_d, word, sign, score, cum, extra = m.groups()
        if rack is not None:
            letters = rack.replace("?", "")
            if letters and not letters.isalpha():
                return False
        letters = word.replace(".", "")
        if letters and not letters.isalpha():
            return False
        nick = nick.strip()
        if not nick:
            raise self.error("NO_MATCHING_TOKEN", "event line without a nickname", lineno)
        player = self.nicks.get(nick)
        if player is None:
            player = self.player_index(nick, lineno)
        across = row_a is not None
        letters = col_a if across else col_d
        col = _COLUMNS.get(letters)
        if col is None:
            col = column_index(letters)
        row = _row(row_a if across else row_d)
        value = self.bounded(score, score, "score", lineno)
        total = self.bounded(cum.lstrip("-"), cum, "cumulative score", lineno)
        self.game.events.append(
            Event(
                "play",
                player,
                rack=list(rack) if rack is not None else None,
                coord=format_coordinate(row, col, across),
                row=row,
                col=col,
                across=across,
                word=list(word),
                score=-value if sign == "-" else value,
                cumulative=-total if cum.startswith("-") else total,
                line=lineno,
                extra=" ".join(extra.split()) if extra else "",
            )
        )
        return True

    def parse_event(self, toks: list[str], player: int, lineno: int) -> Event:
        if not toks:
            raise self.error("NO_MATCHING_TOKEN", "empty event line", lineno)
        # "(challenge)", "(time)" and "(RACK)" lines have a token in parentheses among the first two
        paren = toks[0].startswith("(") or (len(toks) > 1 and toks[1].startswith("("))
        if paren and (ev := self.bonus_event(toks, player, lineno)) is not None:
            return ev
        if len(toks) == 3 and toks[0].startswith("-") and _SCORE.match(toks[1]) and _CUMUL.match(toks[2]):
            # a pass, exchange or withdrawal with no rack written: ">emely:  - +0 236" (the rack is unknown)
            ev = self.parse_event(["", *toks], player, lineno)
            ev.rack = None
            return ev
        if len(toks) >= 2 and toks[1] == "--":
            rest = toks[2:]
            if len(rest) < 2:
                raise self.error("NO_MATCHING_TOKEN", "'--' line needs a score and a cumulative score", lineno)
            return Event(
                "withdraw",
                player,
                rack=self.tiles(toks[0], lineno, "rack"),
                score=self.score(rest[0], lineno),
                cumulative=self.cumulative(rest[1], lineno),
                line=lineno,
            )
        if paren and (ev := self.rack_event(toks, player, lineno)) is not None:
            return ev
        if len(toks) >= 2 and toks[1].startswith("-") and toks[1] != "--":
            return self.pass_or_exchange(toks, player, lineno)
        return self.placement(toks, player, lineno)

    def bonus_event(self, toks: list[str], player: int, lineno: int) -> Event | None:
        """A ``(challenge)`` bonus or ``(time)`` penalty line, or None. They come first: "(challenge)"
        also looks like "(RACK)" (docs/GCG.md §3)."""
        low = [t.lower() for t in toks[:2]]
        for special, kind in (("(challenge)", "challenge_bonus"), ("(time)", "time")):
            if special in low:
                k = low.index(special)
                rack = self.tiles(toks[0], lineno, "rack") if k == 1 else None
                rest = toks[k + 1 :]
                if len(rest) < 2:
                    raise self.error("NO_MATCHING_TOKEN", f"{special} line needs a score and a cumulative score", lineno)
                return Event(
                    kind,
                    player,
                    rack=rack,
                    score=self.score(rest[0], lineno),
                    cumulative=self.cumulative(rest[1], lineno),
                    line=lineno,
                    extra=" ".join(rest[2:]),
                )
        return None

    def rack_event(self, toks: list[str], player: int, lineno: int) -> Event | None:
        """``(RACK) SCORE CUM`` (the rack left at the end) or ``RACK (TILES) SCORE CUM`` (a penalty
        for tiles kept), or None."""
        for k in (0, 1):
            if len(toks) >= k + 3 and toks[k].startswith("(") and (paren_match := _PAREN.match(toks[k])):
                inner = paren_match.group(1)
                tiles = self.tiles(inner, lineno, "rack in parentheses")
                score = self.score(toks[k + 1], lineno)
                cum = self.cumulative(toks[k + 2], lineno)
                if k == 0:
                    return Event("end_rack", player, tiles=tiles, score=score, cumulative=cum, line=lineno)
                rack = self.tiles(toks[0], lineno, "rack")
                return Event("rack_penalty", player, rack=rack, tiles=tiles, score=score, cumulative=cum, line=lineno)
        return None

    def pass_or_exchange(self, toks: list[str], player: int, lineno: int) -> Event:
        """``RACK -[tiles|N] SCORE CUM``: a pass (``-``, ``-0``) or an exchange (its tiles or their number)."""
        rack = self.tiles(toks[0], lineno, "rack")
        what = toks[1][1:]
        if len(toks) < 4:
            raise self.error("NO_MATCHING_TOKEN", "pass/exchange line needs a score and a cumulative score", lineno)
        score = self.score(toks[2], lineno)
        cum = self.cumulative(toks[3], lineno)
        if what in ("", "0"):
            return Event("pass", player, rack=rack, score=score, cumulative=cum, line=lineno)
        if what.isascii() and what.isdigit():
            if len(what) > 3:
                raise self.error(
                    "PLAY_MALFORMED",
                    f"exchange of {what[:20]} tiles: expected the tiles or their number (at most 999)",
                    lineno,
                )
            return Event("exchange", player, rack=rack, count=int(what), score=score, cumulative=cum, line=lineno)
        return Event(
            "exchange",
            player,
            rack=rack,
            tiles=self.tiles(what, lineno, "exchanged tiles"),
            score=score,
            cumulative=cum,
            line=lineno,
        )

    def placement(self, toks: list[str], player: int, lineno: int) -> Event:
        """A tile placement: ``[RACK] COORD WORD SCORE CUM [extra]``."""
        # tile placement: [RACK] COORD WORD SCORE CUM [extra]
        coord = parse_coordinate(toks[0])
        if coord is not None and len(toks) >= 4 and _SCORE.match(toks[2]):
            rack_tok, rest = None, toks
        elif len(toks) >= 5:
            rack_tok, rest = toks[0], toks[1:]
            coord = parse_coordinate(rest[0])
        else:
            raise self.error(
                "NO_MATCHING_TOKEN",
                f"cannot read event {' '.join(toks)[:60]!r}: expected RACK COORD WORD +SCORE TOTAL, a pass, an exchange, '--', (challenge), (time) or (RACK)",
                lineno,
            )
        if coord is None:
            raise self.error(
                "NO_MATCHING_TOKEN", f"{rest[0]!r} is not a coordinate (8D across, D8 down) in {' '.join(toks)[:60]!r}", lineno
            )
        rack = self.tiles(rack_tok, lineno, "rack") if rack_tok is not None else None
        row, col, across = coord
        word, through = self.word(rest[1], lineno)
        score = self.score(rest[2], lineno)
        cum = self.cumulative(rest[3], lineno)
        size = self.board_size
        if size is not None:
            if not (0 <= row < size and 0 <= col < size):
                raise self.error("COORDINATE_OUT_OF_BOUNDS", f"coordinate {rest[0]!r} is off the {size}x{size} board", lineno)
            end = (col if across else row) + len(word)
            if end > size:
                raise self.error("PLAY_OUT_OF_BOUNDS", f"{rest[0]} {rest[1]} runs off the {size}x{size} board", lineno)
        return Event(
            "play",
            player,
            rack=rack,
            coord=format_coordinate(row, col, across),
            row=row,
            col=col,
            across=across,
            word=word,
            through=through,
            score=score,
            cumulative=cum,
            line=lineno,
            extra=" ".join(rest[4:]),
        )

    def word(self, token: str, lineno: int) -> tuple[list[str], tuple[int, ...]]:
        if self.mojibake:
            token = _fix_mojibake(token)
        letters = token.replace(".", "")
        if not self.multi and token and (not letters or letters.isalpha()):
            return list(token), ()  # fast path: letters (any script) and '.', one character per tile
        through: list[int] = []
        out: list[str] = []
        depth = 0
        flat = ""
        if "(" in token or ")" in token:
            if self.strict:
                raise self.error(
                    "PLAY_MALFORMED",
                    f"word {token!r}: parentheses are display notation, GCG writes '.' for played-through tiles",
                    lineno,
                )
            self.game.warnings.append(
                Finding("PLAY_MALFORMED", f"word {token!r}: parentheses around played-through tiles accepted", lineno)
            )
        marks: list[bool] = []
        for ch in token:
            if ch == "(":
                depth += 1
                continue
            if ch == ")":
                depth -= 1
                continue
            flat += ch
            marks.append(depth > 0)
        if depth != 0:
            raise self.error("PLAY_MALFORMED", f"word {token!r}: unbalanced parentheses", lineno)
        try:
            tiles = split_tiles(flat, self.multi)
        except ValueError as exc:
            raise self.error("PLAY_MALFORMED", f"word {token!r}: {exc}", lineno) from None
        pos = 0
        for i, t in enumerate(tiles):
            body = t[1:-1] if t.startswith("[") else t
            if not (t == "." or (body and all(c.isalpha() or c == "·" for c in body))):
                raise self.error("PLAY_MALFORMED", f"word {token!r}: {t!r} is not a letter or '.'", lineno)
            if marks[pos]:
                through.append(i)
            pos += len(t)
            out.append(t)
        if not out:
            raise self.error("PLAY_MALFORMED", "empty word", lineno)
        return out, tuple(through)

    def check_context(self, ev: Event, lineno: int) -> None:
        """Checks of an event against the one before it (docs/GCG.md §3, MAGPIE codes)."""
        evs = self.game.events
        prev = evs[-1] if evs else None
        if ev.kind == "withdraw":
            if prev is None or prev.kind != "play":
                raise self.error(
                    "PHONY_TILES_RETURNED_WITHOUT_PLAY", "'--' (phony withdrawn) must follow a tile placement", lineno
                )
            if prev.player != ev.player:
                raise self.error(
                    "INVALID_PHONY_TILES_PLAYER_INDEX",
                    f"'--' by {self.game.players[ev.player].nick!r} but the play before was by {self.game.players[prev.player].nick!r}",
                    lineno,
                )
            if prev.rack is not None and ev.rack is not None and sorted(prev.rack) != sorted(ev.rack):
                raise self.error(
                    "PHONY_TILES_RETURNED_MISMATCH",
                    f"rack {''.join(ev.rack)} differs from the withdrawn play's rack {''.join(prev.rack)}",
                    lineno,
                )
            if ev.score == 0 and prev.score:
                ev.score = -prev.score  # old Quackle form "-- +0 CUM" (docs/GCG.md §3)
        elif ev.kind == "challenge_bonus":
            # the bonus follows the challenged play (possibly after the opponent's turn? no: right after)
            target = None
            for p in reversed(evs):
                if p.kind in ("play", "pass", "exchange", "withdraw"):
                    target = p
                    break
            if target is None or target.kind != "play":
                raise self.error("CHALLENGE_BONUS_WITHOUT_PLAY", "(challenge) bonus must follow a tile placement", lineno)
            if target.player != ev.player:
                raise self.error(
                    "INVALID_CHALLENGE_BONUS_PLAYER_INDEX",
                    f"(challenge) bonus credited to {self.game.players[ev.player].nick!r} but the challenged play was by {self.game.players[target.player].nick!r}",
                    lineno,
                )

    # -- driver ---------------------------------------------------------------------------------
    def run(self, text: str) -> Game:
        g = self.game
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # CRLF, CR or LF (docs/GCG.md §1)
        if not text.strip():
            raise self.error("GCG_EMPTY", "empty file: no pragmas and no events", None)
        check_long = len(text) > MAX_LINE  # otherwise no line can be too long
        check_nul = "\x00" in text
        for lineno, raw in enumerate(lines, 1):
            if check_long and len(raw) > MAX_LINE:
                raise self.error("LINE_TOO_LONG", f"line of {len(raw)} characters (more than {MAX_LINE})", lineno)
            line = raw.strip()
            if not line:
                continue
            if check_nul and "\x00" in line:
                raise self.error("NO_MATCHING_TOKEN", "binary data (NUL bytes): not a GCG file", lineno)
            first = line[0]
            if first == ">":
                self.event(line, lineno)
            elif first == "#":
                self.pragma(line, lineno)
            elif not self.continuation(raw.rstrip(), lineno):
                self.fault("NO_MATCHING_TOKEN", f"line {line[:60]!r} is neither a pragma (#) nor an event (>)", lineno)
        if not g.players and not g.events:
            raise self.error("NO_MATCHING_TOKEN", "no #player pragma and no event line: not a GCG file", None)
        points = 0
        for ev in g.events:
            if ev.kind == "time":
                _resign_from_time(ev)
            if ev.score is not None:
                points += abs(ev.score)
        if points > INT32_MAX:
            raise self.error(
                "SCORE_OUT_OF_RANGE",
                f"the scores of the game add up (as absolute values) to {points}, beyond {INT32_MAX}: the totals would not fit the tables",
                _first_over(g.events),
            )
        return g


def _first_over(events: list[Event]) -> int | None:
    """The line of the event where the scores added up as absolute values pass INT32_MAX."""
    points = 0
    for ev in events:
        points += abs(ev.score or 0)
        if points > INT32_MAX:
            return ev.line
    return None


RESIGN_NOTE = "#resign"
"""First line of the note that marks a ``(time)`` line as a resignation (see :func:`write_gcg`)."""


def _resign_from_time(ev: Event) -> None:
    """A ``(time)`` line whose note starts with ``#resign`` is our writer's form of a resignation:
    read it back as a ``resign`` event (the rest of the note stays)."""
    if ev.kind != "time" or not ev.note:
        return
    first, _, rest = ev.note.partition("\n")
    if first.strip() == RESIGN_NOTE:
        ev.kind = "resign"
        ev.note = rest


def parse_gcg_text(
    text: str,
    *,
    path: str | None = None,
    strict: bool = False,
    board_size: int | None = None,
    multi: tuple[str, ...] = (),
    encoding: str = "utf-8",
    mojibake: bool = False,
    warnings: list[Finding] | None = None,
) -> Game:
    """Parse GCG text already decoded (put in Unicode NFC here). See :func:`read_gcg` for the
    arguments."""
    text = nfc(text)
    p = _Parser(path, strict, board_size, multi)
    p.mojibake = mojibake
    p.plain = p.plain and not mojibake
    if warnings:
        p.game.warnings.extend(warnings)
    p.game.encoding = encoding
    game = p.run(text)
    if board_size is None:
        layout = game.pragmas.get("board-layout", "").lower()
        size = BOARD_SIZES.get(layout, 15)
        # coordinates are checked against the board declared in the file (default 15x15)
        _check_bounds(game, size, p)
    return game


def _check_bounds(game: Game, size: int, p: _Parser) -> None:
    for ev in game.events:
        if ev.kind != "play":
            continue
        assert ev.row is not None and ev.col is not None and ev.word is not None  # every play has them
        if not (0 <= ev.row < size and 0 <= ev.col < size):
            raise GameLogError(
                "COORDINATE_OUT_OF_BOUNDS", f"coordinate {ev.coord!r} is off the {size}x{size} board", p.path, ev.line
            )
        end = (ev.col if ev.across else ev.row) + len(ev.word)
        if end > size:
            raise GameLogError(
                "PLAY_OUT_OF_BOUNDS", f"{ev.coord} {''.join(ev.word)} runs off the {size}x{size} board", p.path, ev.line
            )


def parse_gcg_bytes(
    data: bytes, *, path: str | None = None, strict: bool = False, board_size: int | None = None, multi: tuple[str, ...] = ()
) -> Game:
    """Parse the bytes of a GCG file (docs/GCG.md: ISO-8859-1 unless line 1 declares UTF-8).

    Lenient mode re-decodes racks and words of a header-less file whose bytes are UTF-8 (names
    keep the Latin-1 reading the spec requires). Raises :class:`GameLogError`."""
    warnings: list[Finding] = []
    if not data.strip():
        raise GameLogError("GCG_EMPTY", "empty file: no pragmas and no events", path, None)
    text, enc = _decode(data, strict, path, warnings)
    mojibake = False
    if enc == "iso-8859-1" and not strict and not data.isascii():
        try:
            data.decode("utf-8")
            mojibake = True
            warnings.append(
                Finding(
                    "ENCODING_GUESSED",
                    "no #character-encoding header but the bytes are UTF-8: racks and words read as UTF-8, names as ISO-8859-1 (GCG spec)",
                )
            )
        except UnicodeDecodeError:
            pass
    game = parse_gcg_text(
        text, path=path, strict=strict, board_size=board_size, multi=multi, encoding=enc, mojibake=mojibake, warnings=warnings
    )
    game.ascii = data.isascii()
    return game


def read_gcg(path: str | Path, *, strict: bool = False, board_size: int | None = None, multi: tuple[str, ...] = ()) -> Game:
    """Read a GCG file into a :class:`~gamecore.gamelog.Game`.

    Args:
        path: the file.
        strict: raise on every fault (docs/GCG.md §8) instead of repairing and warning.
        board_size: check coordinates against this size; default: from ``#board-layout`` (15).
        multi: multi-character tile labels of the tile set (e.g. ``("L·L", "NY", "QU")``).

    Raises:
        GameLogError: a fault (with ``code``, ``path``, ``line``); ``OSError`` is re-raised as
        ``GameLogError("FILE_UNREADABLE", ...)``; a file of more than
        :data:`gamecore.text.GAME_FILE_MAX` bytes is ``FILE_TOO_LARGE`` (read no further).
    """
    data = read_game_bytes(str(path))
    return parse_gcg_bytes(data, path=str(path), strict=strict, board_size=board_size, multi=multi)


# ---------------------------------------------------------------------------------------------
# writer


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def event_line(game: Game, ev: Event) -> str:
    """The GCG event line of one event (macondo's layout, docs/GCG.md §3)."""
    nick = game.players[ev.player].nick if ev.player < len(game.players) else f"player{ev.player + 1}"
    rack = "".join(ev.rack) if ev.rack else ""
    cum = ev.cumulative if ev.cumulative is not None else 0
    score = ev.score if ev.score is not None else 0
    if ev.kind == "play":
        word = "".join(ev.word or [])
        head = f">{nick}: {rack} " if rack else f">{nick}: "
        return f"{head}{ev.coord} {word} {_signed(score)} {cum}"
    if ev.kind == "pass":
        return f">{nick}: {rack} - {_signed(score)} {cum}"
    if ev.kind == "exchange":
        what = "".join(ev.tiles) if ev.tiles else str(ev.count or 0)
        return f">{nick}: {rack} -{what} {_signed(score)} {cum}"
    if ev.kind == "withdraw":
        return f">{nick}: {rack} -- {_signed(score)} {cum}"
    if ev.kind == "challenge_bonus":
        return f">{nick}: {rack} (challenge) {_signed(score)} {cum}"
    if ev.kind in ("time", "resign"):  # resign: see write_gcg
        return f">{nick}: {rack} (time) {_signed(score)} {cum}"
    if ev.kind == "end_rack":
        return f">{nick}:  ({''.join(ev.tiles or [])}) {_signed(score)} {cum}"
    if ev.kind == "rack_penalty":
        return f">{nick}: {rack} ({''.join(ev.tiles or [])}) {_signed(score)} {cum}"
    raise ValueError(f"event kind {ev.kind!r} has no GCG form")


def write_gcg(game: Game) -> str:
    """The GCG text of a game (UTF-8 header first, like Quackle; pragmas, events, notes).

    GCG has no resignation (docs/GCG.md has no such event), so a Netskrafl ``resign`` (RSGN: the
    resigner's score becomes 0, docs/NETSKRAFL.md §2) is written as the final adjustment GCG
    does have, a ``(time)`` line taking the resigner's total to 0 (``>bob: (time) -153 0``; any
    GCG reader then gets the same final scores and winner), followed by ``#note #resign``, from
    which our reader reads it back as ``resign``. A Netskrafl ``challenge`` (CHALL, no score)
    becomes ``#note #challenge`` after the challenged play. Parse → write → parse gives the same
    players, pragmas and events (a CHALL is kept only as that note), the notes before the first
    event and the pragmas the reader does not know (``#style``: ignored, written back after the
    known ones)."""
    out = ["#character-encoding UTF-8"]
    for i, p in enumerate(game.players, 1):
        out.append(f"#player{i} {p.nick} {p.name}".rstrip())
    for name in ("title", "description", *ONCE_PRAGMAS[1:]):
        value = game.pragmas.get(name)
        if value is None:
            continue
        for part in value.split("\n") if name == "description" else [value]:
            out.append(f"#{name} {part}".rstrip())
    if "tile" in game.pragmas:
        for part in game.pragmas["tile"].split("\n"):
            out.append(f"#tile {part}")
    if game.incomplete:
        out.append(f"#incomplete {game.pragmas.get('incomplete', '')}".rstrip())
    out.extend(game.unknown_pragmas)  # ignored when read, given back as they were
    if "note" in game.pragmas:  # the notes before the first event (the reader joins their lines)
        out.extend(f"#note {line}".rstrip() for line in game.pragmas["note"].split("\n"))
    for ev in game.events:
        if ev.kind == "challenge":
            out.append(f"#note #{ev.kind}")
            continue
        out.append(event_line(game, ev))
        note = (RESIGN_NOTE + ("\n" + ev.note if ev.note else "")) if ev.kind == "resign" else ev.note
        if note:
            first, *rest = note.split("\n")
            out.append(f"#note {first}".rstrip())
            for r in rest:
                out.append(" " + r if r.startswith(("#", ">")) else r)
    for idx in sorted(game.last_racks):
        out.append(f"#rack{idx + 1} {''.join(game.last_racks[idx])}")
    return "\n".join(out) + "\n"


__all__ = [
    "column_index",
    "column_letters",
    "event_line",
    "format_coordinate",
    "parse_coordinate",
    "parse_gcg_bytes",
    "parse_gcg_text",
    "read_gcg",
    "write_gcg",
]
