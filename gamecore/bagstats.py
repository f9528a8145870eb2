"""Bag statistics of one finished game (``skrafl bag``): what each letter of the tile set did on
the racks, read from :attr:`gamecore.game_state.GameState.history` (every move's rack before it and
the tiles it drew).

Per letter (the tile set's letters in alphabet order, then the blank ``?``), summed over the game's
players (:data:`LETTER_FIELDS`):

- ``rack_turns``: over every move (play, exchange or pass), the tiles of the letter on the mover's
  rack before it: a tile on a rack for three of its player's moves counts 3;
- ``arrivals``: tiles of the letter that came to a rack and stood there for at least one move of
  their player (the dealt rack, and tiles drawn by a move that the same player follows with
  another move); ``rack_turns / arrivals`` is the mean number of its player's moves a tile of
  the letter stays on a rack (which of two equal tiles leaves first does not change this sum);
- ``played``: tiles of the letter placed on the board (a blank counts as ``?``);
- ``play_points``: over those tiles, the score of the play that placed the tile;
- ``racks_with``: moves whose rack holds the letter; ``bingos_with``: of those, the plays of
  ``bingo_min_tiles`` tiles or more;
- ``left_at_end``: tiles of the letter on a rack when the game ended.

Per game (:data:`GAME_FIELDS`): moves, the players' final scores summed, bingos, and over the racks
of ``rack_size`` tiles before a move: their count, the vowels and consonants on them (the blank is
neither) and the racks with fewer than two vowels or fewer than two consonants (``unbalanced``).
"""

from __future__ import annotations

from typing import Sequence

LETTER_FIELDS = ("rack_turns", "arrivals", "played", "play_points", "racks_with", "bingos_with", "left_at_end")
GAME_FIELDS = ("moves", "score", "bingos", "full_racks", "vowels", "consonants", "unbalanced")


def labels(tile_set) -> tuple[str, ...]:
    """The letters of the statistics: the tile set's letters in order, then ``?`` (the blank)."""
    return tuple(tile_set.letters) + ("?",)


def game_tally(history: Sequence, racks_at_end: Sequence[Sequence[str]], scores: Sequence[int], tile_set, rules) -> list[int]:
    """One game's statistics as a flat list: ``LETTER_FIELDS`` for each of :func:`labels` (field by
    field, letter by letter: ``[rack_turns of every letter, arrivals of every letter, ...]``),
    then :data:`GAME_FIELDS`.

    ``history``: the game's :class:`~gamecore.game_state.Record` list; ``racks_at_end``: the racks
    when it ended; ``scores``: the final scores.
    """
    from gamecore.game_state import Exchange, Pass, Play

    names = labels(tile_set)
    idx = {label: i for i, label in enumerate(names)}
    k = len(names)
    tally = [0] * (k * len(LETTER_FIELDS))
    turns, arrivals, played, points, with_, bingo_with, left = (f * k for f in range(len(LETTER_FIELDS)))
    vowels = tile_set.vowels
    moves = bingos = full = nv = nc = unbalanced = 0
    pending: dict[int, tuple[str, ...]] = {}  # per player: tiles drawn by its last move
    seen: set[int] = set()
    for rec in history:
        ev = rec.event
        if not isinstance(ev, (Play, Exchange, Pass)):
            continue
        p = ev.player
        rack = rec.rack
        moves += 1
        came = rack if p not in seen else pending.get(p, ())
        seen.add(p)
        for t in came:
            tally[arrivals + idx[t]] += 1
        pending[p] = rec.drawn
        held = set()
        for t in rack:
            i = idx[t]
            tally[turns + i] += 1
            held.add(i)
        for i in held:
            tally[with_ + i] += 1
        if len(rack) == rules.rack_size:
            v = sum(t in vowels for t in rack)
            c = sum(t != "?" and t not in vowels for t in rack)
            full += 1
            nv += v
            nc += c
            unbalanced += v < 2 or c < 2
        if isinstance(ev, Play):
            used = ev.play.used()
            for t in used:
                i = idx[t]
                tally[played + i] += 1
                tally[points + i] += rec.score
            if len(used) >= rules.bingo_min_tiles:
                bingos += 1
                for i in held:
                    tally[bingo_with + i] += 1
    for r in racks_at_end:
        for t in r:
            tally[left + idx[t]] += 1
    return tally + [moves, sum(scores), bingos, full, nv, nc, unbalanced]
