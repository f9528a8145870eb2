"""The source entries of a few words, classified by a recipe (``skrafl why``), without classifying
the whole source.

:func:`pipelines.build.classify` over all of a large source (Russian: 5.1 million entries) for
one word takes seconds and gigabytes. :func:`classify_words` gives the same rows for the words
asked: it classifies only the entries the recipe's rules need to decide them:

- a rule that reads only the entry's own row needs nothing more;
- a window (``… OVER (PARTITION BY lemma)``) needs every entry of the same partition: the
  entries sharing the partition value of one of the words' entries are classified too (their
  own verdicts are not returned);
- an aggregate over the whole source (``MAX(…) OVER ()``: :data:`AGGREGATES`) is computed once
  over the whole source (only the columns it reads, streamed) and put into the condition as its
  value.

Anything else — an aggregate or window this module does not recognise, a window inside another
window or inside a partition key, a window over the computed ``frequency`` or
``lemma_in_hunspell`` — falls back to classifying every entry, which is slow but gives the same
answer.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import re
from typing import Any

from pipelines.recipe import Recipe

#: Columns that :func:`pipelines.build.classify` computes itself: a window or aggregate over them
#: cannot be evaluated before classifying (only ``word`` can: it is computed here the same way).
COMPUTED = {"frequency", "lemma_in_hunspell", "rule"}

#: Expression functions that work row by row (what the recipes' conditions compile to); any
#: other function makes :func:`classify_words` classify every entry.
ELEMENTWISE = {
    "Boolean": {"Not", "IsNull", "IsNotNull", "IsIn", "IsBetween", "IsNan", "IsNotNan", "IsFinite", "IsInfinite"},
    "StringExpr": {
        "Contains",
        "StartsWith",
        "EndsWith",
        "LenChars",
        "LenBytes",
        "Lowercase",
        "Uppercase",
        "Replace",
        "ReplaceMany",
        "Slice",
        "Head",
        "Tail",
        "StripChars",
        "StripCharsStart",
        "StripCharsEnd",
        "StripPrefix",
        "StripSuffix",
        "ConcatHorizontal",
        "Reverse",
    },
    "Sql": {"IsIn"},
}
PLAIN_FUNCTIONS = {"Coalesce", "Abs", "FillNull"}
#: The SQL aggregates whose ``NAME(…) OVER ()`` over the whole source is one value, put into the
#: condition as that value; any other function ``OVER ()`` makes :func:`classify_words` classify
#: every entry.
AGGREGATES = {"MAX", "MIN", "SUM", "COUNT", "AVG"}


def _global_calls(sql: str) -> list[tuple[int, int]]:
    """Spans ``(start, end)`` of the calls ``NAME(…) OVER ()`` in ``sql`` (outside string
    literals), each from the function name to the end of ``OVER ()``."""
    spans = []
    opened: list[int] = []  # positions of the open parentheses
    last_call: tuple[int, int] | None = None  # span of the call closed last, if nothing came after it
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch == "'":  # a string literal; '' inside it is a quote
            j = i + 1
            while j < n:
                if sql[j] == "'":
                    if j + 1 < n and sql[j + 1] == "'":
                        j += 2
                        continue
                    break
                j += 1
            i, last_call = j + 1, None
            continue
        if ch == "(":
            opened.append(i)
            last_call = None
        elif ch == ")":
            start = opened.pop() if opened else 0
            name = re.search(r"[A-Za-z_][A-Za-z_0-9]*\s*$", sql[:start])
            last_call = (name.start(), i + 1) if name else None
        elif ch.isspace():
            pass
        else:
            over = re.compile(r"OVER\s*\(\s*\)", re.IGNORECASE).match(sql, i)
            if over and last_call is not None and (i == 0 or not (sql[i - 1].isalnum() or sql[i - 1] == "_")):
                spans.append((last_call[0], over.end()))
                i, last_call = over.end(), None
                continue
            last_call = None
        i += 1
    return spans


def _sql_literal(value: Any) -> str | None:
    """``value`` written as an SQL literal, or None when it cannot be written exactly."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return None


def _tree(expr: Any) -> Any:
    return json.loads(expr.meta.serialize(format="json"))


def _expr(node: Any) -> Any:
    import polars as pl

    return pl.Expr.deserialize(io.StringIO(json.dumps(node)), format="json")


class _Unsupported(Exception):
    """A condition this module cannot restrict exactly (classify every entry instead)."""


#: expression keys whose bodies are walked as they are; keys that hold no expression
_WALKED = frozenset(("BinaryExpr", "Ternary", "Cast", "Alias", "left", "right", "predicate", "truthy", "falsy", "expr", "input"))
_LEAVES = frozenset(
    ("Column", "Literal", "Dyn", "Scalar", "Series", "op", "dtype", "options", "strict", "propagate_nans", "include_nulls")
)


def _walk(node: Any, partitions: list, inside_window: bool = False) -> None:
    """Check that the expression tree ``node`` is row by row apart from windows (appended to
    ``partitions``: the list of partition expression trees of each); raise :class:`_Unsupported`
    for an aggregate over the whole frame or a function not known to work row by row."""
    if isinstance(node, list):
        for x in node:
            _walk(x, partitions, inside_window)
        return
    if isinstance(node, str):  # a bare variant: "Len" (COUNT(*)) and the like
        if node in ("Len", "Nth") and not inside_window:
            raise _Unsupported(node)
        return
    if not isinstance(node, dict):
        return
    for kind, body in node.items():
        if kind in _LEAVES:
            continue
        if kind == "Over":
            _walk_window(body, partitions, inside_window)
        elif kind == "Agg":
            if not inside_window:
                raise _Unsupported("aggregate over the whole source")
            _walk(body, [], True)
        elif kind == "Function":
            if not _row_by_row(body.get("function")) and not inside_window:
                raise _Unsupported(f"function {body.get('function')}")
            _walk(body.get("input"), partitions, inside_window)
        elif kind in _WALKED or inside_window:
            _walk(body, partitions, inside_window)
        else:
            raise _Unsupported(kind)


def _walk_window(body: dict, partitions: list, inside_window: bool) -> None:
    """A window (``Over``): partitioned, not inside another window, with row-by-row partition keys
    and order; its partition keys are appended to ``partitions``."""
    if not body.get("partition_by"):
        raise _Unsupported("window without partition")
    if inside_window:
        # a window inside a window's function: its partitions would be needed for every
        # row of the outer one's (not restricted: classify every entry)
        raise _Unsupported("window inside a window")
    inner: list = []
    for p in body["partition_by"]:
        _walk(p, inner, False)  # a partition key must itself be row by row
    if body.get("order_by"):
        _walk(body["order_by"], inner, False)
    if inner:  # a window inside a partition key or an order: computed over the whole source
        raise _Unsupported("window inside a partition key")
    partitions.append(body["partition_by"])
    _walk(body.get("function"), [], True)


def _row_by_row(fn: Any) -> bool:
    """Whether a ``Function`` node's function is known to work row by row."""
    if isinstance(fn, str):
        return fn in PLAIN_FUNCTIONS
    if isinstance(fn, dict) and len(fn) == 1:
        ((group, variant),) = fn.items()
        name = variant if isinstance(variant, str) else next(iter(variant), None)
        return name in ELEMENTWISE.get(group, set())
    return False


def restricted(keyed: Any, recipe: Recipe, source: str | None) -> tuple[Recipe, list[list[Any]]] | None:
    """The recipe with every whole-source aggregate of its rules (``MAX(…) OVER ()``) replaced by
    its value over ``keyed`` (the entries with their ``word``), and the partition keys (lists of
    polars expressions) of the rules' windows; None when a rule cannot be restricted (see the
    module docstring) or does not parse (:func:`pipelines.build.classify` then says why)."""

    drops, calls = [], []
    for drop in recipe.drops:
        spans = _global_calls(drop.when) if drop.applies_to(source) else []
        calls += [drop.when[a:b] for a, b in spans]
        drops.append((drop, spans))
    if any(re.split(r"[^A-Za-z_]", c, maxsplit=1)[0].upper() not in AGGREGATES for c in calls):
        return None  # ROW_NUMBER() OVER (), UPPER(form) OVER (): a value per row, not one
    values = _whole_source_values(keyed, calls) if calls else []
    if values is None:
        return None
    new_drops: list[Any] = []
    partitions: list[list[Any]] = []
    k = 0
    for drop, spans in drops:
        when = drop.when
        for a, b in reversed(spans):
            when = when[:a] + f"({values[k + spans.index((a, b))]})" + when[b:]
        k += len(spans)
        if drop.applies_to(source) and not _add_partitions(when, partitions):
            return None
        new_drops.append(dataclasses.replace(drop, when=when))
    return dataclasses.replace(recipe, drops=new_drops), partitions


def _whole_source_values(keyed: Any, calls: list[str]) -> list[str | None] | None:
    """The value of each whole-source aggregate (``MAX(len) OVER ()``) over ``keyed``, as SQL
    literals; None when one cannot be computed as one value (a computed column, not one row, a
    value with no literal, SQL polars cannot apply)."""
    import polars as pl

    try:
        exprs = [pl.sql_expr(re.sub(r"\s*OVER\s*\(\s*\)$", "", c, flags=re.IGNORECASE)) for c in calls]
        if any(set(e.meta.root_names()) & COMPUTED for e in exprs):
            return None
        values_frame = keyed.select([e.alias(f"_g{i}") for i, e in enumerate(exprs)]).collect(engine="streaming")
        if values_frame.height != 1:
            return None  # not one value over the whole source
        row = values_frame.row(0)
    except Exception:  # polars raises several error types for SQL it cannot apply
        return None
    values = [_sql_literal(v) for v in row]
    return None if any(v is None for v in values) else values


def _add_partitions(when: str, partitions: list[list[Any]]) -> bool:
    """Add the partition keys of the windows of the condition ``when`` to ``partitions`` (each
    once; a window over ``word`` needs none); False when it cannot be restricted (an unsupported
    expression, a key over a computed column, a condition that does not parse)."""
    import polars as pl

    try:
        tree = _tree(pl.sql_expr(when))
        found: list = []
        _walk(tree, found)
    except Exception:  # _Unsupported, or it does not parse: classify reports that
        return False
    for keys in found:
        exprs = [_expr(p) for p in keys]
        if any(set(e.meta.root_names()) & COMPUTED for e in exprs):
            return False
        # the asked words' own entries are classified anyway: a window over word needs no more
        if [str(e) for e in exprs] != [str(pl.col("word"))] and all(
            [str(e) for e in exprs] != [str(x) for x in p] for p in partitions
        ):
            partitions.append(exprs)
    return True


def classify_words(entries: Any, recipe: Recipe, source: str | None, keys: list[str]) -> Any:
    """``classify(entries, recipe, source)`` (:func:`pipelines.build.classify`) filtered to the
    entries whose ``word`` is one of ``keys``, collected: the same rows, computed from the entries
    the rules need (module docstring). ``entries``: a LazyFrame (a Parquet scan).

    Raises:
        DataError: as :func:`pipelines.build.classify`.
    """
    import polars as pl

    from pipelines.build import classify, word_expr

    base = entries.with_row_index("_entry")
    keyed = base.with_columns(word=word_expr(recipe))
    plan = restricted(keyed, recipe, source)
    if plan is None:
        return classify(entries, recipe, source).filter(pl.col("word").is_in(keys)).collect()
    recipe, partitions = plan
    if partitions:
        mine = keyed.filter(pl.col("word").is_in(keys))
        asked = mine.select(
            "_entry", *[e.alias(f"_p{i}_{j}") for i, p in enumerate(partitions) for j, e in enumerate(p)]
        ).collect()
        queries = [asked.lazy().select("_entry")]
        for i, p in enumerate(partitions):
            names = [f"_p{i}_{j}" for j in range(len(p))]
            values = asked.select(names).unique()
            queries.append(
                keyed.select("_entry", *[e.alias(n) for n, e in zip(names, p, strict=True)])
                .join(values.lazy(), on=names, how="semi", nulls_equal=True)
                .select("_entry")
            )
        rows = pl.concat(pl.collect_all(queries))["_entry"].unique().sort()
        needed = base.filter(pl.col("_entry").is_in(rows.implode())).drop("_entry")
    else:
        needed = entries.filter(word_expr(recipe).is_in(keys))
    found = classify(needed, recipe, source).filter(pl.col("word").is_in(keys)).collect()
    return found
