"""Challenge rules: what a challenged play is worth to each side, and who moves next.

The rules judges meet (docs/RULES.md §3 "challenge" row; Woogles/macondo ``ChallengeRule``; Netskrafl's help for
Netskrafl; the Scrabble rules page for 3–4 players). The *player* made the play; the *opponent* challenges it.
In a game of 3 or 4 players the challenger is the next player in turn order (the Scrabble rules page: a play is
challenged before the next turn, so by the player whose turn it would be; the bonus goes to the
player, the lost turn is the challenger's).

=================== ======================================================= ==========================================
rule                the play is acceptable (every challenged word valid)     the play is a phony (some word invalid)
=================== ======================================================= ==========================================
void                no challenge: the play stands; opponent moves            the play is refused before it is made: it
                                                                             scores 0 and the player plays again
single              play stands; no penalty; opponent moves                  taken back, scores 0; opponent moves
double              play stands; the opponent loses the turn: player moves   taken back, scores 0; opponent moves
                    (3–4 players: the player after the challenger moves)
five_point          play stands; +5 to the player per word challenged        taken back, scores 0; opponent moves
                    (WESPA, NASPA's CSW rule); opponent
                    moves
five_point_per_word the same as five_point (its older name)                  taken back, scores 0; opponent moves
ten_point           play stands; +10 to the player; opponent moves           taken back, scores 0; opponent moves
netskrafl           play stands; +10 to the player (competition mode), the   taken back with its tiles, scores 0;
                    opponent keeps the turn: opponent moves                  opponent moves
=================== ======================================================= ==========================================

A challenge names each word at most as many times as the play forms it (a word named twice is
not two challenges).

Standard library, and the game state's challenge bonus (:func:`gamecore.game_state.challenge_bonus`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from gamecore.errors import UsageError

RULES = ("void", "single", "double", "five_point", "five_point_per_word", "ten_point", "netskrafl")

#: the bonus to the player when a challenge is wrong, as a rule set's (``challenge_bonus_per``,
#: ``challenge_bonus``), given by :func:`gamecore.game_state.challenge_bonus`
_BONUS = {
    "void": ("challenge", 0),
    "single": ("challenge", 0),
    "double": ("challenge", 0),
    "five_point": ("word", 5),  # per word challenged (WESPA; NASPA CSW): not one bonus per challenge
    "five_point_per_word": ("word", 5),
    "ten_point": ("challenge", 10),
    "netskrafl": ("challenge", 10),
}


@dataclass(frozen=True)
class ChallengeOutcome:
    """The outcome of a challenge of one play.

    Attributes:
        rule: one of :data:`RULES`.
        challenged: the words challenged (lowercase).
        acceptable: every challenged word is valid.
        stands: the play stays on the board.
        player: points to the player who made the play (its score when it stands, plus any bonus).
        opponent: points to the challenger (0 under every rule here: penalties are bonuses to the
            player or a lost turn).
        bonus: the part of ``player`` that the wrong challenge earned.
        next: who moves next: ``player``, ``opponent`` (the challenger), or ``following`` (the
            player after the challenger: a wrong challenge under ``double`` in a game of 3–4 players).
        summary: one sentence for people.
    """

    rule: str
    challenged: tuple[str, ...]
    acceptable: bool
    stands: bool
    player: int
    opponent: int
    bonus: int
    next: str
    summary: str

    def as_dict(self, names: tuple[str, ...] | None = None, totals: tuple[int, int] | None = None) -> dict:
        """The ``challenge`` object of ``skrafl score --format json``; ``names``: the player's, the
        challenger's and (3–4 players) the name of the player after the challenger; with ``totals``
        (the two scores before the play: player's, opponent's) the scores after it too."""
        out = {
            "rule": self.rule,
            "challenged": list(self.challenged),
            "acceptable": self.acceptable,
            "play_stands": self.stands,
            "points": {"player": self.player, "opponent": self.opponent},
            "bonus": self.bonus,
            "next": self.next,
            "summary": self.summary,
        }
        if names is not None:
            out["players"] = {"player": names[0], "opponent": names[1]}
            who = {"player": 0, "opponent": 1, "following": 2}[self.next]
            out["next_name"] = names[who] if who < len(names) else None
        if totals is not None:
            out["scores_after"] = {"player": totals[0] + self.player, "opponent": totals[1] + self.opponent}
        return out


def challenge_outcome(
    rule: str,
    score: int,
    words: Sequence[tuple[str, bool]],
    challenged: Sequence[str] | None = None,
    players: int = 2,
) -> ChallengeOutcome:
    """Apply challenge ``rule`` to a legal play worth ``score`` that forms ``words`` (word, valid).

    Args:
        challenged: the words the opponent challenges (default: every word the play forms). A
            phony among the words not challenged does not take the play back. A word may be named
            at most as many times as the play forms it.
        players: how many play the game (2–4): with more than 2 a wrong challenger under
            ``double`` loses the turn to the player after them (``next`` = ``following``).
    Raises:
        UsageError: unknown rule, a challenged word the play does not form, or one named more
            times than the play forms it.
    """
    if rule not in RULES:
        raise UsageError(f"unknown challenge rule {rule!r}; known: {', '.join(RULES)}")
    formed = [w for w, _ in words]
    valid = {w: ok for w, ok in words}
    if challenged is None:
        chosen = tuple(formed)
    else:
        chosen = tuple(w.lower() for w in challenged)
        missing = [w for w in chosen if w not in valid]
        if missing:
            raise UsageError(
                f"the play does not form {', '.join(w.upper() for w in missing)}; it forms {', '.join(w.upper() for w in formed)}"
            )
        if not chosen:
            raise UsageError("name at least one challenged word")
        extra = sorted({w for w in chosen if chosen.count(w) > formed.count(w)})
        if extra:
            raise UsageError(
                "a word is challenged once: "
                + ", ".join(
                    f"{w.upper()} is named {chosen.count(w)} times but the play forms it "
                    + ("once" if formed.count(w) == 1 else f"{formed.count(w)} times")
                    for w in extra
                )
            )
    if rule == "void":
        chosen = tuple(formed)  # under void every word is checked at once
    acceptable = all(valid[w] for w in chosen)
    per, points = _BONUS[rule]
    n = len(chosen)
    if acceptable:
        from gamecore.game_state import challenge_bonus

        bonus = challenge_bonus(per, points, len(formed), n)
        nxt = ("player" if players <= 2 else "following") if rule == "double" else "opponent"
        if rule == "void":
            summary = f"void: every word is valid; the play stands for {score}; the opponent moves"
        elif rule == "double" and players > 2:
            summary = (
                f"double: the challenge is wrong; the play stands for {score} and the challenger loses the turn: "
                "the player after the challenger moves"
            )
        elif rule == "double":
            summary = f"double: the challenge is wrong; the play stands for {score} and the opponent loses the turn: the player moves again"
        elif bonus:
            what = f" ({points} × {n} word{'s' if n != 1 else ''} challenged)" if per == "word" else ""
            keeps = "; the challenger keeps the turn" if rule == "netskrafl" else "; the opponent moves"
            summary = f"{rule}: the challenge is wrong; the play stands for {score}, +{bonus} to the player{what}{keeps}"
        else:
            summary = f"single: the challenge is wrong; the play stands for {score}, no penalty; the opponent moves"
        if players > 2:  # the opponent who challenged is the next player in turn order
            summary = summary.replace("; the opponent moves", "; the challenger (the next player) moves")
        return ChallengeOutcome(rule, chosen, True, True, score + bonus, 0, bonus, nxt, summary)
    phonies = ", ".join(w.upper() for w in chosen if not valid[w])
    if rule == "void":
        return ChallengeOutcome(
            rule,
            chosen,
            False,
            False,
            0,
            0,
            0,
            "player",
            f"void: {phonies} not in the lexicon; the play is refused, scores 0, and the player plays again",
        )
    return ChallengeOutcome(
        rule,
        chosen,
        False,
        False,
        0,
        0,
        0,
        "opponent",
        f"{rule}: the challenge succeeds ({phonies} not in the lexicon); the play is taken back and scores 0; "
        + ("the opponent moves" if players <= 2 else "the challenger (the next player) moves"),
    )


__all__ = ["RULES", "ChallengeOutcome", "challenge_outcome"]
