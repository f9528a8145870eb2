"""The BÍN entry schema shared by the BÍN readers (installed ``islenska`` package, ``SHsnid.csv``,
``KRsnid.csv``).

Column (BÍN field in KRsnid, "Kristínarsnið"): ``lemma`` (ord), ``bin_id`` (bin_id), ``word_class``
(ofl: kk, kvk, hk, so, lo, ao, …), ``domain`` (hluti: alm, ism, bibl, …), ``grade`` (einkunn 0–5, 1 =
standard), ``register`` (malsnid: URE, SJALD, GAM, …), ``grammar`` (malfraedi), ``cross_ref``
(millivisun), ``visibility`` (birting: K core, V rest of BÍN, G synthetic, '' Greynir addition),
``form`` (bmynd), ``tag`` (mark: inflection tag such as ``EFET``, ``SP-GM-FT``), ``form_grade``
(beinkunn), ``form_register`` (bmalsnid), ``form_value`` (bgildi), ``extra_lemma`` (aukafletta).
SHsnid ("Sigrúnarsnið") has only lemma, bin_id, word_class, domain, form, tag: the other columns are
null. ``row`` is the 1-based line in the source file (or the running entry number for the
installed package), so every lexicon decision can be traced back to its source row.
"""

from __future__ import annotations

from typing import Any

COLUMNS = (
    ("form", "string"),
    ("lemma", "string"),
    ("bin_id", "int32"),
    ("word_class", "string"),
    ("domain", "string"),
    ("tag", "string"),
    ("grade", "int8"),
    ("register", "string"),
    ("grammar", "string"),
    ("cross_ref", "int32"),
    ("visibility", "string"),
    ("form_grade", "int8"),
    ("form_register", "string"),
    ("form_value", "string"),
    ("extra_lemma", "string"),
    ("row", "int64"),
)

# KRsnid column order (15 fields), as in the official dump and islenska's Ksnid.
KR_FIELDS = (
    "lemma",
    "bin_id",
    "word_class",
    "domain",
    "grade",
    "register",
    "grammar",
    "cross_ref",
    "visibility",
    "form",
    "tag",
    "form_grade",
    "form_register",
    "form_value",
    "extra_lemma",
)
# SHsnid column order (6 fields).
SH_FIELDS = ("lemma", "bin_id", "word_class", "domain", "form", "tag")
INT_FIELDS = {"bin_id", "grade", "cross_ref", "form_grade"}


def schema() -> Any:
    """The pyarrow schema of BÍN entries (pyarrow imported lazily)."""
    import pyarrow as pa

    return pa.schema([(name, getattr(pa, kind)()) for name, kind in COLUMNS])


class BatchBuilder:
    """Collect rows column by column and hand out pyarrow record batches of ``size`` rows."""

    def __init__(self, size: int = 250_000):
        self.size = size
        self.sch = schema()
        self.cols: dict[str, list] = {name: [] for name, _ in COLUMNS}

    def add(self, row: dict[str, Any]) -> None:
        for name, col in self.cols.items():
            col.append(row.get(name))

    def full(self) -> bool:
        return len(self.cols["form"]) >= self.size

    def take(self) -> Any:
        import pyarrow as pa

        batch = pa.RecordBatch.from_pydict(self.cols, schema=self.sch)
        self.cols = {name: [] for name, _ in COLUMNS}
        return batch

    def __len__(self) -> int:
        return len(self.cols["form"])
