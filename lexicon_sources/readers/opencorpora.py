"""Reader for the OpenCorpora Russian dictionary as compiled in the PyPI package
``pymorphy3-dicts-ru`` (the default Russian source; OpenCorpora CC BY-SA 3.0), enumerated through
``pymorphy3`` (with ``DAWG2`` installed the word DAWG is walked in C: ~5.1 million entries in
seconds; docs/LEXICONS.md §6).

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

from gamecore.errors import DataError, UsageError
from lexicon_sources.readers.common import BATCH_ROWS, dist_versions

NAME = "opencorpora"
CASES = ("nomn", "gent", "gen1", "gen2", "datv", "accs", "acc2", "ablt", "loct", "loc1", "loc2", "voct")
NUMBERS = ("sing", "plur")


def SCHEMA() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("form", pa.string()),
            ("lemma", pa.string()),
            ("pos", pa.string()),
            ("grammemes", pa.string()),
            ("case_", pa.string()),
            ("number", pa.string()),
            ("tag", pa.string()),
            ("lexeme", pa.string()),
            ("row", pa.int64()),
        ]
    )


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
        raise UsageError(
            "the 'opencorpora' source reads the installed package; for dict.opcorpora.xml use --source opencorpora-xml"
        )
    import gc
    import itertools

    import numpy as np

    try:
        import dawg  # DAWG2: the C implementation
    except ImportError:  # pragma: no cover - pymorphy3 falls back to the pure-Python reader
        import dawg_python as dawg
    import polars as pl
    from tqdm import tqdm

    d = _dictionary()
    schema = SCHEMA()
    texts = [str(t) for t in d.gramtab]
    columns = [tag_columns(t) for t in texts]
    tag_table = pl.DataFrame(
        {
            "tag": texts,
            "pos": [c[0] for c in columns],
            "grammemes": [c[1] for c in columns],
            "case_": [c[2] for c in columns],
            "number": [c[3] for c in columns],
        },
        schema={k: pl.String for k in ("tag", "pos", "grammemes", "case_", "number")},
    )
    # Paradigm tables flattened: entry k = offset[pid] + idx holds the form's suffix, tag and prefix ids.
    para_len = np.array([len(p) // 3 for p in d.paradigms], dtype=np.int64)
    offset = np.concatenate([[0], np.cumsum(para_len)[:-1]])
    flat_suf = np.concatenate([np.asarray(p[: len(p) // 3], dtype=np.int32) for p in d.paradigms])
    flat_tag = np.concatenate([np.asarray(p[len(p) // 3 : 2 * (len(p) // 3)], dtype=np.int32) for p in d.paradigms])
    flat_pre = np.concatenate([np.asarray(p[2 * (len(p) // 3) :], dtype=np.int32) for p in d.paradigms])
    suffixes = pl.Series(list(d.suffixes), dtype=pl.String)
    prefixes = pl.Series(list(d.paradigm_prefixes), dtype=pl.String)
    suf_len = suffixes.str.len_chars().to_numpy()
    pre_len = prefixes.str.len_chars().to_numpy()
    total = int(d.meta.get("words_dawg_length", 0)) or None
    first_row = 1

    def batches(keys: list, values: list) -> list:
        """Record batches of one chunk of DAWG items (form, packed ``>HH`` paradigm id and index):
        the lemma is prefix(normal form) + stem + suffix(normal form), the stem being the form
        without its own paradigm prefix and suffix (pymorphy3's ``build_normal_form``, vectorised)."""
        words = pl.Series("form", keys, dtype=pl.String)
        packed = np.frombuffer(b"".join(values), dtype=">u2")
        if len(packed) != 2 * len(keys):
            raise DataError("unexpected pymorphy3 word DAWG format (values are not >HH)", None)
        pid = packed[0::2].astype(np.int64)
        idx = packed[1::2].astype(np.int64)
        k, k0 = offset[pid] + idx, offset[pid]
        df = (
            pl.DataFrame(
                {
                    "form": words,
                    "start": pre_len[flat_pre[k]],
                    "end_len": suf_len[flat_suf[k]],
                    "norm_pre": prefixes.gather(flat_pre[k0]),
                    "norm_suf": suffixes.gather(flat_suf[k0]),
                    "pid": pid,
                }
            )
            .with_columns(
                lemma=pl.concat_str(
                    [
                        pl.col("norm_pre"),
                        pl.col("form").str.slice(
                            pl.col("start"), pl.col("form").str.len_chars() - pl.col("start") - pl.col("end_len")
                        ),
                        pl.col("norm_suf"),
                    ]
                ),
            )
            .with_columns(
                lexeme=pl.concat_str([pl.col("pid").cast(pl.String), pl.lit(":"), pl.col("lemma")]),
                row=pl.int_range(first_row, first_row + len(keys), dtype=pl.Int64),
            )
            .hstack(tag_table[flat_tag[k]])
            .with_columns(
                # Unicode NFC (gamecore.text.nfc, vectorised), after the slicing by character counts
                pl.col("form").str.normalize("NFC"),
                pl.col("lemma").str.normalize("NFC"),
            )
        )
        return df.select(schema.names).to_arrow().cast(schema).combine_chunks().to_batches()

    # BytesDAWG.iteritems gives the packed values without a Python tuple per entry; the garbage
    # collector is paused while millions of small objects are made (it would rescan them all).
    it = dawg.BytesDAWG.iteritems(d.words)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with tqdm(total=total, desc="OpenCorpora entries", unit=" forms", disable=not progress, mininterval=0.5) as bar:
            while True:
                size = BATCH_ROWS if limit is None else min(BATCH_ROWS, limit - first_row + 1)
                keys: list[str] = []
                values: list[bytes] = []
                for key, value in itertools.islice(it, max(size, 0)):
                    keys.append(key)
                    values.append(value)
                if not keys:
                    break
                out = batches(keys, values)
                first_row += len(keys)
                bar.update(len(keys))
                yield from out
    finally:
        if gc_was_enabled:
            gc.enable()
