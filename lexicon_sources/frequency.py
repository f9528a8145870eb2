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
"""

from __future__ import annotations

from typing import Iterable

from gamecore.errors import UsageError

SOURCES = ("icegrams", "wordfreq")


def version(name: str) -> str:
    from lexicon_sources.readers._common import dist_versions

    return dist_versions(name)


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
