"""Reader for the OpenCorpora Russian dictionary as compiled in the PyPI package
``pymorphy3-dicts-ru`` (the default Russian source; OpenCorpora CC BY-SA 3.0), enumerated through
``pymorphy3`` (with ``DAWG2`` installed the word DAWG is walked in C: ~5.1 million entries in
seconds; data_sources.md).

Every (form, paradigm, index) entry of the word DAWG becomes one row; the lemma (normal form) is
rebuilt from the paradigm's prefix/suffix tables the way pymorphy3 does. The schema is shared
with :mod:`lexicon_sources.readers.opencorpora_xml` (the official ``dict.opcorpora.xml``) so one
recipe serves both:

- ``form``, ``lemma``: lowercase, with ё where OpenCorpora writes it;
- ``pos``: the part of speech (NOUN, ADJF, VERB, …);
- ``grammemes``: every grammeme of the form, comma-separated with a comma at each end
  (``,NOUN,inan,masc,sing,nomn,``: a recipe tests ``grammemes LIKE '%,Pltm,%'``);
- ``case_`` (nomn gent … or null), ``number`` (sing plur or null);
- ``tag``: the OpenCorpora tag as written (``NOUN,inan,masc sing,nomn``);
- ``lexeme``: one id per lexeme (here ``PARADIGM:LEMMA``), for rules over a whole lexeme;
- ``row``: ordinal of the entry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from gamecore.errors import UsageError
from lexicon_sources.readers._common import BATCH_ROWS, dist_versions

NAME = "opencorpora"
CASES = ("nomn", "gent", "gen1", "gen2", "datv", "accs", "acc2", "ablt", "loct", "loc1", "loc2", "voct")
NUMBERS = ("sing", "plur")


def SCHEMA() -> Any:
    import pyarrow as pa

    return pa.schema([
        ("form", pa.string()), ("lemma", pa.string()), ("pos", pa.string()), ("grammemes", pa.string()),
        ("case_", pa.string()), ("number", pa.string()), ("tag", pa.string()), ("lexeme", pa.string()),
        ("row", pa.int64()),
    ])


def tag_columns(tag: str) -> tuple[str, str, str | None, str | None]:
    """``(pos, grammemes, case_, number)`` of an OpenCorpora tag string such as
    ``NOUN,inan,masc sing,nomn`` (grammemes in the order written)."""
    parts = [g for g in tag.replace(" ", ",").split(",") if g]
    pos = parts[0] if parts and parts[0].isupper() else ""
    case = next((g for g in parts if g in CASES), None)
    number = next((g for g in parts if g in NUMBERS), None)
    return pos, "," + ",".join(parts) + ",", case, number


def version(path: Path | None = None) -> str:
    return dist_versions("pymorphy3-dicts-ru", "pymorphy3", "DAWG2")


def _dictionary() -> Any:
    try:
        import pymorphy3_dicts_ru
        from pymorphy3.opencorpora_dict.wrapper import Dictionary
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise UsageError(
            "the Russian source needs 'pymorphy3' and 'pymorphy3-dicts-ru': pip install 'skrafl[ru]' (or make setup)"
        ) from exc
    return Dictionary(pymorphy3_dicts_ru.get_path())


def read(path: Path | None = None, progress: bool = True, limit: int | None = None) -> Iterator[Any]:
    """Yield record batches of every entry of the installed dictionary.

    Args:
        path: must be None (the package is the source; use ``opencorpora-xml`` for a file).
        limit: stop after this many entries (tests).
    Raises:
        UsageError: a path was given, or the packages are not installed.
    """
    if path is not None:
        raise UsageError("the 'opencorpora' source reads the installed package; for dict.opcorpora.xml use --source opencorpora-xml")
    import pyarrow as pa
    import pyarrow.compute as pc
    from tqdm import tqdm

    d = _dictionary()
    paradigms, suffixes, prefixes = d.paradigms, d.suffixes, d.paradigm_prefixes
    texts = [str(t) for t in d.gramtab]
    columns = [tag_columns(t) for t in texts]
    tag_table = {
        "tag": pa.array(texts, pa.string()),
        "pos": pa.array([c[0] for c in columns], pa.string()),
        "grammemes": pa.array([c[1] for c in columns], pa.string()),
        "case_": pa.array([c[2] for c in columns], pa.string()),
        "number": pa.array([c[3] for c in columns], pa.string()),
    }
    schema = SCHEMA()
    total = int(d.meta.get("words_dawg_length", 0)) or None
    row = 0

    def batch(words: list, lemmas: list, tag_ids: list, para_ids: list) -> Any:
        ids = pa.array(tag_ids, pa.int32())
        lemma_arr = pa.array(lemmas, pa.string())
        lexeme = pc.binary_join_element_wise(pc.cast(pa.array(para_ids, pa.int32()), pa.string()), lemma_arr, ":")
        cols = {
            "form": pa.array(words, pa.string()), "lemma": lemma_arr,
            **{k: v.take(ids) for k, v in tag_table.items()},
            "lexeme": lexeme,
            "row": pa.array(range(row - len(words) + 1, row + 1), pa.int64()),
        }
        return pa.RecordBatch.from_pydict({name: cols[name] for name in schema.names}, schema=schema)

    words: list[str] = []
    lemmas: list[str] = []
    tag_ids: list[int] = []
    para_ids: list[int] = []
    size = BATCH_ROWS
    for word, (pid, idx) in tqdm(d.words.iteritems(), total=total, desc="OpenCorpora entries", unit=" forms",
                                 disable=not progress, mininterval=0.5):
        para = paradigms[pid]
        n = len(para) // 3
        if idx == 0:
            lemma = word
        else:
            pre, suf = prefixes[para[2 * n + idx]], suffixes[para[idx]]
            lemma = prefixes[para[2 * n]] + word[len(pre):len(word) - len(suf)] + suffixes[para[0]]
        words.append(word)
        lemmas.append(lemma)
        tag_ids.append(para[n + idx])
        para_ids.append(pid)
        row += 1
        if len(words) >= size:
            yield batch(words, lemmas, tag_ids, para_ids)
            words, lemmas, tag_ids, para_ids = [], [], [], []
        if limit is not None and row >= limit:
            break
    if words:
        yield batch(words, lemmas, tag_ids, para_ids)
