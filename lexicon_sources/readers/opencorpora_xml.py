"""Reader for the official OpenCorpora dictionary dump ``dict.opcorpora.xml`` (docs/LEXICONS.md §6),
streamed with ``iterparse`` (the full file is ~400 MB; memory stays flat)::

    <dictionary><lemmata>
      <lemma id="1"><l t="ёж"><g v="NOUN"/><g v="anim"/><g v="masc"/></l>
        <f t="ёж"><g v="sing"/><g v="nomn"/></f> <f t="ежа"><g v="sing"/><g v="gent"/></f> …</lemma>
    </lemmata></dictionary>

Each ``<f>`` is one row; its grammemes are the lemma's (``<l>``) followed by the form's own. The
columns are those of :mod:`lexicon_sources.readers.opencorpora` (one recipe serves both); ``lexeme``
is the lemma's ``id``; ``row`` the ordinal of the form in the file. Errors name the line where
the fault is found.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from gamecore.errors import DataError
from gamecore.text import nfc
from lexicon_sources.readers.common import Batcher, file_version
from lexicon_sources.readers.opencorpora import SCHEMA, tag_columns

NAME = "opencorpora-xml"

__all__ = ["NAME", "SCHEMA", "read", "version"]


def version(path: Path) -> str:
    return file_version(path)


def read(path: Path | None, progress: bool = True) -> Iterator[Any]:
    """Yield record batches of every form of every lemma.

    Raises:
        DataError: no file, malformed XML (line and column of the fault), a ``<lemma>`` without
            ``<l t=…>``, a form without ``t``, or no lemmas at all.
    """
    if path is None:
        raise DataError("the opencorpora-xml source needs a file: --input dict.opcorpora.xml")
    import xml.etree.ElementTree as ET

    from tqdm import tqdm

    path = Path(path)
    if not path.is_file():
        raise DataError("file not found", path)
    batcher = Batcher(SCHEMA())
    row = 0
    lemmas = 0
    size = path.stat().st_size
    with (
        open(path, "rb") as fh,
        tqdm(total=size, desc="dict.opcorpora.xml", unit="B", unit_scale=True, disable=not progress, mininterval=0.5) as bar,
    ):
        parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("end",))
        lineno = 1
        try:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                bar.update(len(chunk))
                parser.feed(chunk)
                for event in parser.read_events():
                    elem = event[-1]  # ("end", the element)
                    if not isinstance(elem, ET.Element) or elem.tag != "lemma":
                        continue
                    lemmas += 1
                    head = elem.find("l")
                    lex_id = elem.get("id", "")
                    lemma_text = head.get("t") if head is not None else None
                    if head is None or not lemma_text:
                        raise DataError(f"<lemma id={lex_id!r}> has no <l t=…> (lemma form)", path, lineno)
                    lemma = nfc(lemma_text)
                    lemma_g = [g.get("v", "") for g in head.findall("g")]
                    for f in elem.findall("f"):
                        form = f.get("t")
                        if not form:
                            raise DataError(f"<lemma id={lex_id!r}>: a <f> without t=", path, lineno)
                        form = nfc(form)
                        form_g = [g.get("v", "") for g in f.findall("g")]
                        tag = ",".join(lemma_g) + (" " + ",".join(form_g) if form_g else "")
                        pos, grammemes, case, number = tag_columns(tag)
                        row += 1
                        batcher.add(
                            form=form,
                            lemma=lemma,
                            pos=pos,
                            grammemes=grammemes,
                            case_=case,
                            number=number,
                            tag=tag,
                            lexeme=lex_id,
                            row=row,
                        )
                    elem.clear()
                    if batcher.full():
                        yield batcher.take()
                lineno += chunk.count(b"\n")
            parser.close()
        except ET.ParseError as exc:
            line, col = exc.position
            raise DataError(f"malformed XML at column {col}: {exc.msg if hasattr(exc, 'msg') else exc}", path, line) from None
        except LookupError as exc:  # the XML declaration names an encoding Python does not know
            raise DataError(f"malformed XML: {exc}", path, 1) from None
    if lemmas == 0:
        raise DataError("no <lemma> elements: not an OpenCorpora dictionary", path, 1)
    if len(batcher):
        yield batcher.take()
