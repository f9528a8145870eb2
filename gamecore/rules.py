"""Rule sets: every difference between the game systems as a named option (docs/RULES.md §3).

A rule set is a TOML file ``gamecore/data/rules/<preset>.toml`` (presets ``netskrafl``, ``ordspill``,
``erudit``, ``russian_scrabble``, ``slovene``, ``wespa``); ``defaults.toml`` maps a language code to
its default preset (is → netskrafl, nb → ordspill, ru → russian_scrabble, sl → slovene, en → wespa).
A user adds a preset by dropping a file in that folder, or names a ``.toml`` path. A preset with
an ``unpublished`` line (``krizemkrazem``, ``etsi_sana``) refuses to load: what it lacks, and how to
give your own tile set and board, is in ``gamecore/data/rules/README.md``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any

from gamecore.errors import DataError, UsageError

DATA_DIR = Path(__file__).resolve().parent / "data" / "rules"
_NOT_PRESETS = {"defaults"}

BLANK_VALUES = ("zero", "letter")
END_OUT = ("double_opponent_rack", "others_racks")
END_PASSES = ("minus_own_rack",)
WORD_PREMIUMS = ("multiply", "add")
TIE_BREAKS = ("none", "score_before_adjustments")
CHALLENGE_BONUS_PER = ("challenge", "word")


@dataclass(frozen=True)
class RuleSet:
    """One game system's rules (docs/RULES.md §3; the fields, as in the preset files: docs/RULES.md §4).

    Attributes:
        name: preset name.
        tile_set: tile-set name or path (:func:`gamecore.tilesets.load_tile_set`).
        board: board-layout name or path (:func:`gamecore.boards.load_layout`).
        rack_size: tiles on a rack (7; 9 in the 9-tile variant).
        bingo_bonus: points for playing ``bingo_tiles`` or more tiles at once (50; Erudit 15).
        bingo_tiles: tiles needed for the bingo bonus; 0 means ``rack_size`` (wolges: tiles = rack size).
        blank_value: ``zero`` (blank scores 0) or ``letter`` (the value of the letter it stands for;
            Russian variant).
        exchange_min_bag: an exchange needs at least this many tiles in the bag (7; 0 = no minimum
            of its own). Whatever it is, an exchange draws its tiles from the bag: never more
            tiles than the bag holds, never from an empty bag.
        scoreless_rounds_end: consecutive scoreless turns *per player* that end the game
            (Netskrafl/WESPA 3 = 6 turns for two players; Russian/Slovenian 2).
        player_passes_end: a player who passes this many of their turns in a row ends the game,
            whatever the others do between (0 = no such rule; the Scrabble rules page's boxed game, "Ef leikmaður
            fer framhjá tveimur beygjum í röð er leiknum lokið": 2). Only passes count, not
            exchanges; each player then loses their own rack (``end_passes``).
        end_out: when a player goes out: ``double_opponent_rack`` (out-player +2× opponent's rack,
            Netskrafl/WESPA) or ``others_racks`` (each −own rack, out-player + the others' racks).
        end_passes: when the game ends by scoreless turns: ``minus_own_rack``.
        score_floor_zero: final scores never below 0 (Netskrafl).
        challenge_bonus: points to the challenged player for a wrong challenge (0, 5, 10).
        challenge_bonus_per: ``challenge`` (one bonus per wrong challenge: Netskrafl's +10) or
            ``word`` (the bonus per word challenged: WESPA's and NASPA's CSW five-point rule, +5 for
            each word of the play the challenger names, at most the words it forms).
        time_penalty: points lost per started ``time_penalty_seconds`` over time (0 = none).
        time_penalty_seconds: the period over time each penalty is counted per (60: per started minute).
        time_penalty_max: the most a time penalty may cost (0 = no cap).
        time_loss_minutes: minutes over time that lose/end the game (0 = never).
        word_premiums: ``multiply`` (two DW = ×4) or ``add`` (an Erudit implementation: ×2 + ×3 = ×5).
        tie_break: ``none`` (a tie is a draw) or ``score_before_adjustments`` (the Scrabble rules page: a tie goes
            to the player with the higher score before the end-of-game rack adjustments).
        end_targets: Endline (the Scrabble rules page "Endarlína"): the game ends when a player reaches the target
            score, given for 2, 3 and 4 players (``[70, 60, 50]``); empty = play to the end.
        players_max: the most players the game allows (2 to 4).
        blank_swap: the Russian Scrabble article's variant: a player holding the letter a blank on the board stands
            for may take the blank (putting the real tile in its place) and must play it in the
            same move. GCG has no notation for it: ``best`` offers such plays (a ``swap`` column),
            ``replay`` does not read them.
        min_word_length: the shortest word a play may form, main word and cross words (2; the Slovenian
            Scrabble article's Križemkražem: 4). ``score`` rules a shorter word ``too_short``; ``best`` offers
            no play forming one.
        unpublished: a preset whose tile distribution or board layout is not published (the
            Slovenian Scrabble article's Križemkražem, the Russian Scrabble article's 12×16 "Etsi sana"): what is missing, said in one line
            when the preset is asked for; it is a template to copy with your own tile set and board
            (``data/rules/README.md``).
        description, source: where the rules come from.
    """

    name: str
    tile_set: str
    board: str = "standard"
    rack_size: int = 7
    bingo_bonus: int = 50
    bingo_tiles: int = 0
    blank_value: str = "zero"
    exchange_min_bag: int = 7
    scoreless_rounds_end: int = 3
    player_passes_end: int = 0
    end_out: str = "double_opponent_rack"
    end_passes: str = "minus_own_rack"
    score_floor_zero: bool = False
    challenge_bonus: int = 0
    challenge_bonus_per: str = "challenge"
    time_penalty: int = 0
    time_penalty_seconds: int = 60
    time_penalty_max: int = 0
    time_loss_minutes: int = 0
    word_premiums: str = "multiply"
    tie_break: str = "none"
    end_targets: tuple[int, ...] = ()
    players_max: int = 4
    blank_swap: bool = False
    min_word_length: int = 2
    unpublished: str = ""
    description: str = ""
    source: str = ""

    @property
    def bingo_min_tiles(self) -> int:
        return self.bingo_tiles or self.rack_size

    def end_target(self, players: int = 2) -> int | None:
        """Endline: the score that ends a game of ``players`` players (``None``: no target)."""
        if not self.end_targets:
            return None
        return self.end_targets[min(max(players, 2), len(self.end_targets) + 1) - 2]

    def scoreless_turns_end(self, players: int = 2) -> int:
        """Consecutive scoreless turns that end a game of ``players`` players."""
        return self.scoreless_rounds_end * players

    def tiles(self):
        """The :class:`gamecore.tilesets.TileSet` this rule set names."""
        from gamecore.tilesets import load_tile_set

        return load_tile_set(self.tile_set)

    def layout(self):
        """The :class:`gamecore.boards.BoardLayout` this rule set names."""
        from gamecore.boards import load_layout

        return load_layout(self.board)

    def placeholder_note(self) -> str | None:
        """A one-line note when the tile set is a labelled placeholder (its ``# source:`` line
        says PLACEHOLDER, e.g. ``norwegian_wordfeud_104``), else ``None``."""
        try:
            ts = self.tiles()
        except Exception:  # noqa: BLE001  (a bad tile set is reported where it is used)
            return None
        if "PLACEHOLDER" not in ts.source.upper():
            return None
        return (
            f"the tile set {ts.name} of rules {self.name!r} is a placeholder, not a confirmed distribution "
            f"({ts.source.split(';', 1)[-1].strip()})"
        )

    def replace(self, **changes) -> "RuleSet":
        import dataclasses

        return dataclasses.replace(self, **changes)


_CHOICES = {
    "blank_value": BLANK_VALUES,
    "end_out": END_OUT,
    "end_passes": END_PASSES,
    "word_premiums": WORD_PREMIUMS,
    "tie_break": TIE_BREAKS,
    "challenge_bonus_per": CHALLENGE_BONUS_PER,
}


INT_MAX = 2**31 - 1
"""The largest value of an integer field of a rule set (the C scorer and the tables hold int32)."""


def read_rules(path: str | Path) -> RuleSet:
    """Read a rule-set TOML file.

    Raises:
        DataError: not TOML, unknown key, wrong type or value (naming the file).
    """
    from gamecore.text import CONFIG_FILE_MAX, read_text_file, toml_error, toml_loads

    path = Path(path)
    text = ""
    try:
        text = read_text_file(path, CONFIG_FILE_MAX, "rule set")  # at most 1 MiB, a leading BOM dropped
        data = toml_loads(text)  # a 5,000-digit integer is a TOML error with its line
    except tomllib.TOMLDecodeError as exc:
        line, what = toml_error(exc, text)
        raise DataError(f"not valid TOML: {what}", path, line) from None
    known = {f.name: f for f in fields(RuleSet)}
    data.setdefault("name", path.stem)
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            raise DataError(f"unknown rule-set key {key!r}; known: {', '.join(known)}", path)
        kwargs[key] = _rule_value(key, value, known[key].type, path)
    if kwargs.get("unpublished"):
        raise UsageError(f"rules {kwargs.get('name', path.stem)!r} ({path.name}): {kwargs['unpublished']}")
    if "tile_set" not in kwargs:
        raise DataError("missing tile_set", path)
    for key, suffix in (("tile_set", ".tsv"), ("board", ".txt")):
        # a tile set or board given as a relative path is read beside the rule-set file
        value = kwargs.get(key)
        if isinstance(value, str) and value.endswith(suffix):
            kwargs[key] = _beside(path, key, value)
    for key, default, low, high, why in _BOUNDS:
        if not low <= kwargs.get(key, default) <= high:
            raise DataError(f"{key} must {why}", path)
    return RuleSet(**kwargs)


#: bounds of rule-set fields beyond their type: (key, default, lowest, highest, what the message says)
_BOUNDS = (
    ("rack_size", 7, 1, INT_MAX, "be at least 1"),
    ("min_word_length", 2, 2, INT_MAX, "be at least 2 (a word is two letters or more)"),
    ("player_passes_end", 0, 0, INT_MAX, "be 0 (no such rule) or more"),
    ("players_max", 4, 2, 4, "be from 2 to 4"),
)


def _rule_value(key: str, value: Any, want: Any, path: Path) -> Any:
    """One rule-set field's value checked against its type, its choices and the scorer's int32.

    Raises:
        DataError: naming the key and what it must be.
    """
    if key == "end_targets":
        if (
            not isinstance(value, list)
            or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)
            or len(value) > 3
        ):
            raise DataError(
                f"end_targets must be a list of up to 3 positive integers (for 2, 3 and 4 players); got {value!r}", path
            )
        return tuple(value)
    ok = {"int": int, "str": str, "bool": bool}.get(str(want).replace("'", ""), object)
    if not isinstance(value, ok) or (ok is int and isinstance(value, bool)):
        raise DataError(f"{key} must be of type {want}; got {value!r}", path)
    if key in _CHOICES and value not in _CHOICES[key]:
        raise DataError(f"{key} must be one of {', '.join(_CHOICES[key])}; got {value!r}", path)
    if (
        isinstance(value, int) and ok is int and not 0 <= value <= INT_MAX
    ):  # counts and points: the scorer's and the tables' int32
        raise DataError(f"{key} must be a whole number from 0 to {INT_MAX}; got {value}", path)
    return value


def _beside(path: Path, key: str, value: str) -> str:
    """A tile set or board file named by a rule-set file: a relative path is read beside it."""
    if not Path(value).is_absolute() and (path.parent / value).is_file():
        return str(path.parent / value)
    if not Path(value).is_file():
        raise DataError(f"{key} {value!r}: no such file (a relative path is read beside the rule-set file)", path)
    return value


def preset_names() -> list[str]:
    """Names of the shipped presets."""
    return sorted(p.stem for p in DATA_DIR.glob("*.toml") if p.stem not in _NOT_PRESETS)


@lru_cache(maxsize=None)
def load_rules(name_or_path: str) -> RuleSet:
    """A rule set by preset name or ``.toml`` path.

    Raises:
        UsageError: unknown preset (the message lists the known ones). DataError: a malformed file.
    """
    p = Path(name_or_path)
    if p.suffix == ".toml" and p.is_file():
        return read_rules(p)
    candidate = DATA_DIR / f"{name_or_path}.toml"
    if name_or_path not in _NOT_PRESETS and candidate.is_file():
        return read_rules(candidate)
    raise UsageError(f"unknown rules preset {name_or_path!r}; known presets: {', '.join(preset_names())}")


def default_preset(language: str) -> str:
    """The default preset name for a language code (``is`` → ``netskrafl``).

    Raises:
        UsageError: no default for this language.
    """
    with open(DATA_DIR / "defaults.toml", "rb") as fh:
        defaults = tomllib.load(fh)["defaults"]
    try:
        return defaults[language]
    except KeyError:
        raise UsageError(
            f"no default rules preset for language {language!r}; known: {', '.join(sorted(defaults))} (or give --rules PRESET)"
        ) from None


def rules_for(language: str | None = None, preset: str | None = None) -> RuleSet:
    """The rule set named by ``preset``, else the language's default preset."""
    if preset:
        return load_rules(preset)
    if language:
        return load_rules(default_preset(language))
    raise UsageError("give a rules preset or a language")
