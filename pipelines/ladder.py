"""``skrafl ladder``: a round robin of self-play robots, a win matrix and Elo ratings fitted to it.

Every pair of players plays ``games`` games in pairs (``skrafl autoplay --pairs``: games 2k and
2k+1 share one bag, seats swapped), each pairing with the same ``seed`` (so every pairing plays the
same bags). The win matrix counts a tie as half a win; its intervals are Wilson's (95 %).

Ratings: the maximum-likelihood Bradley–Terry fit on the Elo scale, ``P(a beats b) = 1 / (1 +
10^((R_b − R_a)/400))``, over every game (ties half), with one virtual tie added to each pairing
(so that a player who never won still has a finite rating; its weight fades as games grow), solved by
Newton's method. One player, the anchor, is held at a given rating; the others' 95 % intervals are
``± 1.96`` standard errors from the inverse of the Fisher information (the anchor's row and column
left out), so they are intervals relative to the anchor. A gap between two players has its own
standard error ``√(V_aa + V_bb − 2·V_ab)``.

Output (``pipelines.atomic.output_dir``, command ``ladder``): ``matrix.csv`` (one row per ordered
pair), ``ratings.csv`` (player, rating, low, high, games, score), ``gaps.csv`` (neighbours in
rating order), ``anchors.csv`` (``player,rating``: what ``skrafl elo --anchors`` reads) and
``report.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

Z95 = 1.959963984540054
SCALE = 400 / math.log(10)  # Elo points per natural-log unit of the odds


@dataclass
class Fit:
    players: list[str]
    ratings: list[float]
    se: list[float]
    cov: list[list[float]]  # covariance of the ratings (the anchor's row and column 0)

    def gap(self, a: int, b: int) -> tuple[float, float]:
        """``R_a − R_b`` and its standard error."""
        c = self.cov
        return self.ratings[a] - self.ratings[b], math.sqrt(max(0.0, c[a][a] + c[b][b] - 2 * c[a][b]))


def fit_bradley_terry(
    players: Sequence[str], results: dict, anchor: str, anchor_rating: float = 1500.0, prior_ties: float = 1.0
) -> Fit:
    """Ratings from ``results[(a, b)] = (a's score, games)`` (ties counted half, each unordered pair
    once), ``anchor`` held at ``anchor_rating``; ``prior_ties`` virtual ties per pairing.

    Raises:
        ValueError: the anchor is not a player, or a player has no games.
    """
    import numpy as np

    idx = {p: i for i, p in enumerate(players)}
    if anchor not in idx:
        raise ValueError(f"the anchor {anchor!r} is not one of the players ({', '.join(players)})")
    n = len(players)
    pairs = []
    for (a, b), (score, games) in results.items():
        pairs.append((idx[a], idx[b], score + prior_ties / 2, games + prior_ties))
    played = {i for a, b, _, g in pairs if g > 0 for i in (a, b)}
    for p in players:
        if idx[p] not in played:
            raise ValueError(f"player {p!r} has no games")
    free = [i for i in range(n) if i != idx[anchor]]
    theta = np.zeros(n)  # natural-log strengths, the anchor's 0
    for _ in range(100):
        grad = np.zeros(n)
        info = np.zeros((n, n))
        for a, b, s, g in pairs:
            prob = 1 / (1 + math.exp(theta[b] - theta[a]))
            grad[a] += s - g * prob
            grad[b] -= s - g * prob
            w = g * prob * (1 - prob)
            info[a, a] += w
            info[b, b] += w
            info[a, b] -= w
            info[b, a] -= w
        sub = info[np.ix_(free, free)]
        step = np.linalg.solve(sub, grad[free])
        theta[free] += step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    cov = np.zeros((n, n))
    cov[np.ix_(free, free)] = np.linalg.inv(info[np.ix_(free, free)]) * SCALE**2
    ratings = [anchor_rating + SCALE * float(t) for t in theta]
    return Fit(list(players), ratings, [math.sqrt(cov[i, i]) for i in range(n)], cov.tolist())


@dataclass(frozen=True)
class Config:
    """The ladder: ``players`` (autoplay strategies), ``games`` per pairing (even), ``anchor`` held
    at ``anchor_rating``; lexicon, rules, leaves and vocabularies as ``skrafl autoplay``'s."""

    lexicon: str
    rules: str
    players: tuple[str, ...]
    games: int
    seed: int
    leaves: str | None
    vocabulary: tuple  # per player: a folder or None
    anchor: str
    anchor_rating: float = 1500.0


def play_ladder(cfg: Config, workers: int = 1, progress: Callable[[int], None] | None = None):
    """Every pairing's games (:func:`pipelines.autoplay.play_games`): ``{(a, b): rows}`` in pairing
    order, and the CPU seconds."""
    from pipelines.autoplay import Config as PlayConfig
    from pipelines.autoplay import play_games, setup_process

    out, cpu = {}, 0.0
    vocab = dict(zip(cfg.players, cfg.vocabulary, strict=True))
    for i, a in enumerate(cfg.players):
        for b in cfg.players[i + 1 :]:
            lv = tuple(cfg.leaves if k in ("equity", "sim") else None for k in (a, b))
            pc = PlayConfig(cfg.lexicon, cfg.rules, a, b, cfg.games, cfg.seed, lv, (vocab[a], vocab[b]), pairs=True)
            setup_process(pc)
            rows, _, c = play_games(pc, workers, progress)
            out[(a, b)] = rows
            cpu += c
    return out, cpu


def tally(games: dict) -> dict:
    """``{(a, b): (a's score, games)}``, a tie half."""
    res = {}
    for (a, b), rows in games.items():
        s = sum(1.0 if r["winner"] == "p1" else 0.5 if r["winner"] is None else 0.0 for r in rows)
        res[(a, b)] = (s, len(rows))
    return res


def matrix_rows(res: dict) -> list[dict]:
    from pipelines.autoplay import wilson

    rows = []
    for (a, b), (s, g) in res.items():
        for x, y, sx in ((a, b, s), (b, a, g - s)):
            lo, hi = wilson(sx, g)
            rows.append({"player": x, "opponent": y, "games": g, "score": sx, "rate": sx / g, "low": lo, "high": hi})
    return rows


def write_outputs(stage: Path, cfg: Config, res: dict, fit: Fit, cpu: float, games: int) -> None:
    import csv

    mrows = matrix_rows(res)
    with open(stage / "matrix.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["player", "opponent", "games", "score", "rate", "low", "high"])
        for r in mrows:
            w.writerow(
                [r["player"], r["opponent"], r["games"], r["score"], f"{r['rate']:.4f}", f"{r['low']:.4f}", f"{r['high']:.4f}"]
            )
    order = sorted(range(len(fit.players)), key=lambda i: -fit.ratings[i])
    totals = {p: [0.0, 0] for p in fit.players}
    for (a, b), (s, g) in res.items():
        totals[a][0] += s
        totals[a][1] += g
        totals[b][0] += g - s
        totals[b][1] += g
    with open(stage / "ratings.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["player", "rating", "low", "high", "games", "score"])
        for i in order:
            p, rating, se = fit.players[i], fit.ratings[i], fit.se[i]
            w.writerow([p, f"{rating:.1f}", f"{rating - Z95 * se:.1f}", f"{rating + Z95 * se:.1f}", totals[p][1], totals[p][0]])
    gaps = []
    for x, y in zip(order, order[1:], strict=False):
        d, se = fit.gap(x, y)
        gaps.append((fit.players[x], fit.players[y], d, d - Z95 * se, d + Z95 * se))
    with open(stage / "gaps.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["above", "below", "gap", "low", "high"])
        for a, b, d, lo, hi in gaps:
            w.writerow([a, b, f"{d:.1f}", f"{lo:.1f}", f"{hi:.1f}"])
    (stage / "anchors.csv").write_text(
        "player,rating\n" + "".join(f"{fit.players[i]},{fit.ratings[i]:.1f}\n" for i in order), encoding="utf-8"
    )
    lines = [
        f"# Robot ladder: {', '.join(cfg.players)} (rules {cfg.rules}, seed {cfg.seed})",
        "",
        f"{games} games per pairing, in pairs on the same bag with seats swapped; {cpu:.0f} CPU-seconds. "
        f"Ratings: maximum-likelihood Bradley–Terry on the Elo scale, {cfg.anchor} held at {cfg.anchor_rating:g}, "
        "one virtual tie per pairing; intervals 95 % from the Fisher information (relative to the anchor). "
        "Win rates: ties half, Wilson 95 % intervals.",
        "",
        "| player | rating | 95 % interval |",
        "|---|---|---|",
    ]
    for i in order:
        rating, se = fit.ratings[i], fit.se[i]
        lines.append(f"| {fit.players[i]} | {rating:.0f} | [{rating - Z95 * se:.0f}, {rating + Z95 * se:.0f}] |")
    lines += ["", "| gap | Elo | 95 % interval |", "|---|---|---|"]
    for a, b, d, lo, hi in gaps:
        lines.append(f"| {a} − {b} | {d:.0f} | [{lo:.0f}, {hi:.0f}] |")
    lines += ["", "Win matrix (row's score against column, ties half):", ""]
    names = [fit.players[i] for i in order]
    lines.append("| | " + " | ".join(names) + " |")
    lines.append("|---|" + "---|" * len(names))
    cell = {(r["player"], r["opponent"]): r for r in mrows}
    for a in names:
        cs = []
        for b in names:
            got = cell.get((a, b))
            cs.append("—" if got is None else f"{got['rate']:.3f} [{got['low']:.3f}, {got['high']:.3f}]")
        lines.append(f"| {a} | " + " | ".join(cs) + " |")
    (stage / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def run_ladder(
    cfg: Config, out: Path | None, workers: int = 1, progress: Callable[[int], None] | None = None, inputs: Sequence = ()
):
    """Play the round robin, fit the ratings and, with ``out``, write the tables there atomically.
    Returns ``(results, fit, cpu)``."""
    if out is not None:
        from pipelines.atomic import check_output_dir

        check_output_dir(out, "ladder", inputs)
    games, cpu = play_ladder(cfg, workers, progress)
    res = tally(games)
    fit = fit_bradley_terry(cfg.players, res, cfg.anchor, cfg.anchor_rating)
    if out is not None:
        from pipelines.atomic import output_dir

        with output_dir(out, "ladder", inputs) as stage:
            write_outputs(stage, cfg, res, fit, cpu, cfg.games)
    return res, fit, cpu
