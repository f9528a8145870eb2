"""Tiles whose letter the lexicon folds: the Russian set's Ё tile, while the lexicon
folds ё to е (the Russian Scrabble article: "the letter е counts as е or ё"). Such a tile plays as the letter it folds
to wherever the folded word exists, and scores the tile's own value.

:func:`best_plays_folded` wraps :func:`gamecore.best.best_plays`: the search runs with each folded
tile (rack and board) replaced by its letter (Ё → Е, which the lexicon's graph knows), then every
play that placed that letter is re-scored on the real board with the real tiles: for each way the
rack's Ё tiles can be among the placed Е squares (the player's choice), one play, scored by the
validator (:func:`gamecore.play.validate_placements`: the Ё tile's value, premiums as usual).
Without such a tile on the rack or the board it is :func:`best_plays` itself.

The rule set's shortest word (``min_word_length``, the Slovenian Scrabble article's Križemkražem: 4) is kept by
:func:`gamecore.best.best_plays` (:func:`gamecore.game_state.forms_short_word`): no play forming a
shorter word, main or cross.
"""

from __future__ import annotations

from itertools import combinations
from typing import Sequence


def folded_tiles(tile_set, alphabet: Sequence[str], fold: dict | None) -> dict[str, str]:
    """Tile label → the label it plays as, for tiles whose letter is not in the lexicon's
    ``alphabet`` but folds (``fold``: the manifest's map, lowercase) to one that is (``Ё`` → ``Е``)."""
    if not fold:
        return {}
    letters = {a.lower() for a in alphabet}
    out = {}
    for label in tile_set.letters:
        low = label.lower()
        target = fold.get(low)
        if low not in letters and target is not None and target in letters and tile_set.has(target.upper()):
            out[label] = target.upper()
    return out


def best_plays_folded(position, rack: Sequence[str], bundle, rules, limit: int | None = None, fold: dict | None = None):
    """:func:`gamecore.best.best_plays` where folded tiles play as their letter (see the module
    docstring). ``fold`` defaults to the lexicon manifest's ``fold``."""
    from gamecore.best import best_plays, check_tiles
    from gamecore.play import IllegalPlay, Placement, validate_placements

    if fold is None:
        fold = manifest_fold(bundle)
    ft = folded_tiles(position.tile_set, bundle.alphabet, fold)
    on_board = [
        (r, c, t)
        for r in range(position.size)
        for c in range(position.size)
        if (t := position[r, c]) is not None and t.label in ft
    ]
    if not ft or (not any(t in ft for t in rack) and not on_board):
        return best_plays(position, rack, bundle, rules, limit)
    check_tiles(position, rack, rules)  # the real tiles; the search below sees Ё as Е
    plain = position.copy()
    for r, c, t in on_board:
        plain.place(r, c, ft[t.label], t.blank)
    sub_rack = [ft.get(t, t) for t in rack]
    out = []
    seen = set()
    for p in best_plays(plain, sub_rack, bundle, rules, None, checked=True):
        dr, dc = (0, 1) if p.across else (1, 0)
        new = [(p.row + i * dr, p.col + i * dc, t) for i, (t, n) in enumerate(zip(p.word, p.new, strict=True)) if n]
        for label, as_letter in ft.items():
            k = sum(1 for t in rack if t == label)  # folded tiles of this kind on the rack
            m = sum(1 for t in rack if t == as_letter)  # real tiles of the letter
            spots = [i for i, (_, _, t) in enumerate(new) if not t.blank and t.label == as_letter]
            fewest = max(0, len(spots) - m)
            choices: list[tuple[int, ...]] = [()] if fewest == 0 else []
            for j in range(max(1, fewest), min(k, len(spots)) + 1):
                choices.extend(combinations(spots, j))
            for chosen in choices:
                placements = [Placement(r, c, label if i in chosen else t.label, t.blank) for i, (r, c, t) in enumerate(new)]
                try:
                    sp = validate_placements(position, placements, list(rack), None, rules, across=p.across)
                except IllegalPlay:
                    continue
                key = (sp.row, sp.col, sp.across, sp.word)
                if key not in seen:
                    seen.add(key)
                    out.append(sp)
            break  # one kind of folded tile (Ё) in the sets shipped; others play as found
    out.sort(key=lambda sp: sp.sort_key())
    return out if limit is None else out[:limit]


def manifest_fold(bundle) -> dict:
    import json

    try:
        manifest = json.loads((bundle.folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    fold = manifest.get("fold") or {}
    return {k.lower(): v.lower() for k, v in fold.items() if isinstance(k, str) and isinstance(v, str)}
