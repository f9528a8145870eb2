"""Challenge rules: what a challenged play is worth to each side, and who moves next.

The rules judges meet (rules.md "challenge" row; Woogles/macondo ``ChallengeRule``; seed 000 for
Netskrafl). The *player* made the play; the *opponent* challenges it.

========== ======================================================= ==========================================
rule       the play is acceptable (every challenged word valid)     the play is a phony (some word invalid)
========== ======================================================= ==========================================
void       no challenge: the play stands; opponent moves            the play is refused before it is made: it
                                                                    scores 0 and the player plays again
single     play stands; no penalty; opponent moves                  taken back, scores 0; opponent moves
double     play stands; the opponent loses the turn: player moves    taken back, scores 0; opponent moves
five_point play stands; +5 to the player per word challenged;       taken back, scores 0; opponent moves
           opponent moves
ten_point  play stands; +10 to the player; opponent moves           taken back, scores 0; opponent moves
netskrafl  play stands; +10 to the player (competition mode), the   taken back with its tiles, scores 0;
           opponent keeps the turn: opponent moves                  opponent moves
========== ======================================================= ==========================================

Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from gamecore.errors import UsageError

RULES = ("void", "single", "double", "five_point", "ten_point", "netskrafl")

#: points to the player when a challenge is wrong: (per challenged word, per challenge)
_BONUS = {
    "void": (0, 0),
    "single": (0, 0),
    "double": (0, 0),
    "five_point": (5, 0),
    "ten_point": (0, 10),
    "netskrafl": (0, 10),
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
        next: who moves next, ``player`` or ``opponent``.
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

    def as_dict(self, names: tuple[str, str] | None = None, totals: tuple[int, int] | None = None) -> dict:
        """The ``challenge`` object of ``skrafl score --format json``; with ``totals`` (the two
        scores before the play: player's, opponent's) the scores after it too."""
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
            out["next_name"] = names[0] if self.next == "player" else names[1]
        if totals is not None:
            out["scores_after"] = {"player": totals[0] + self.player, "opponent": totals[1] + self.opponent}
        return out


def challenge_outcome(
    rule: str, score: int, words: Sequence[tuple[str, bool]], challenged: Sequence[str] | None = None
) -> ChallengeOutcome:
    """Apply challenge ``rule`` to a legal play worth ``score`` that forms ``words`` (word, valid).

    Args:
        challenged: the words the opponent challenges (default: every word the play forms). A
            phony among the words not challenged does not take the play back.
    Raises:
        UsageError: unknown rule, or a challenged word the play does not form.
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
    if rule == "void":
        chosen = tuple(formed)  # under void every word is checked at once
    acceptable = all(valid[w] for w in chosen)
    per_word, per_challenge = _BONUS[rule]
    n = len(chosen)
    if acceptable:
        bonus = per_word * n + per_challenge
        nxt = "player" if rule == "double" else "opponent"
        if rule == "void":
            summary = f"void: every word is valid; the play stands for {score}; the opponent moves"
        elif rule == "double":
            summary = f"double: the challenge is wrong; the play stands for {score} and the opponent loses the turn: the player moves again"
        elif bonus:
            what = f" ({per_word} × {n} word{'s' if n != 1 else ''} challenged)" if per_word else ""
            keeps = "; the challenger keeps the turn" if rule == "netskrafl" else "; the opponent moves"
            summary = f"{rule}: the challenge is wrong; the play stands for {score}, +{bonus} to the player{what}{keeps}"
        else:
            summary = f"single: the challenge is wrong; the play stands for {score}, no penalty; the opponent moves"
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
        f"{rule}: the challenge succeeds ({phonies} not in the lexicon); the play is taken back and scores 0; the opponent moves",
    )


__all__ = ["RULES", "ChallengeOutcome", "challenge_outcome"]
