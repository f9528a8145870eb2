"""Glicko-2: Glickman's published algorithm ("Example of the Glicko-2 system", M. E. Glickman,
2013), one rating period at a time, and the win probability of one game between two rated
players.

A player is ``(rating, rd, volatility)`` on the Glicko scale (1500, 350, 0.06 for a new player).
A rating period updates a player from the games they played in it, all against the opponents'
ratings at the start of the period (the paper's steps 2–8); a player without a game in a period
only gains uncertainty: φ' = √(φ² + σ²) (step 6 alone). The volatility is solved by the paper's
Illinois iteration (step 5, ε = 0.000001).

No PyPI package was taken: the Python ones are single-module ports kept by one person, unmaintained
for years or new (``glicko2``, ``pyglicko2``, ``glicko2-py``, ``skelo``); the algorithm is fifty
lines, and the tests check it against the paper's worked example (r = 1500, RD = 200 against three
opponents gives r' ≈ 1464.06, RD' ≈ 151.52, σ' ≈ 0.05999).

Standard library only (:mod:`math`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

SCALE = 173.7178
"""The Glicko-2 scale: μ = (r − 1500)/173.7178, φ = RD/173.7178 (400/ln 10)."""

EPSILON = 0.000001
"""The convergence tolerance of the volatility iteration (the paper's ε)."""


@dataclass(frozen=True)
class Glicko2Params:
    """The system's constants.

    Attributes:
        rating: a new player's rating (1500).
        rd: a new player's rating deviation (350).
        volatility: a new player's volatility σ (0.06).
        tau: τ, how much the volatility may change (the paper: 0.3 to 1.2; 0.5 here).
    """

    rating: float = 1500.0
    rd: float = 350.0
    volatility: float = 0.06
    tau: float = 0.5


def g(phi: float) -> float:
    """g(φ) = 1/√(1 + 3φ²/π²): how much an opponent's uncertainty flattens a result."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def win_probability(r_a: float, rd_a: float, r_b: float, rd_b: float) -> float:
    """The probability that a player rated ``r_a`` (deviation ``rd_a``) beats one rated ``r_b``
    (``rd_b``): 1/(1 + 10^(−g(√(RD_a² + RD_b²))·(r_a − r_b)/400)), Glickman's expected outcome of
    a game between two players (the Glicko paper), symmetric: P(a beats b) + P(b beats a) = 1.
    On the Glicko-2 scale it is 1/(1 + exp(−g(√(φ_a² + φ_b²))·(μ_a − μ_b)))."""
    phi = math.sqrt(rd_a * rd_a + rd_b * rd_b) / SCALE
    return 1.0 / (1.0 + math.exp(-g(phi) * (r_a - r_b) / SCALE))


def rate(
    rating: float,
    rd: float,
    volatility: float,
    opponents: Sequence[tuple[float, float]],
    scores: Sequence[float],
    tau: float = 0.5,
) -> tuple[float, float, float]:
    """One rating period of one player: the new ``(rating, rd, volatility)``.

    Args:
        opponents: each game's opponent ``(rating, rd)`` at the start of the period.
        scores: the player's result in each game (1 win, 0.5 draw, 0 loss).
        tau: the system constant τ.

    A period without games only widens the deviation: φ' = √(φ² + σ²), rating and volatility
    kept (the paper's step 6 alone).
    """
    mu = (rating - 1500.0) / SCALE
    phi = rd / SCALE
    sigma = volatility
    if not opponents:
        return rating, math.sqrt(phi * phi + sigma * sigma) * SCALE, sigma
    # Steps 3 and 4: the estimated variance v and the improvement Δ.
    v_inv = 0.0
    total = 0.0
    for (r_j, rd_j), s in zip(opponents, scores, strict=True):
        mu_j = (r_j - 1500.0) / SCALE
        g_j = g(rd_j / SCALE)
        e = 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))
        v_inv += g_j * g_j * e * (1.0 - e)
        total += g_j * (s - e)
    v = 1.0 / v_inv
    delta = v * total
    # Step 5: the new volatility σ', the root of f by the Illinois algorithm.
    sigma = _new_volatility(delta, phi, v, sigma, tau)
    # Steps 6 and 7: the deviation widened by σ', then narrowed by the period's games.
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * total
    # Step 8: back to the Glicko scale.
    return SCALE * mu_new + 1500.0, SCALE * phi_new, sigma


def _new_volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5 of the paper: σ' = e^(A/2) where A is the root of
    f(x) = e^x(Δ² − φ² − v − e^x) / (2(φ² + v + e^x)²) − (x − a)/τ², a = ln σ²."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    d2 = delta * delta

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (d2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if d2 > phi2 + v:
        big_b = math.log(d2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)
