"""Calibration of a backtest's predictions: a table by bins of the predicted probability, and its
picture (``calibration.svg`` of ``skrafl backtest --out``).

The games are put in :data:`BINS` equal bins of the predicted probability that player0 wins
(0–0.1, …, 0.9–1; 1 itself in the last); per system and bin: the games, their mean prediction and
their mean result (a win 1, a draw ½, a loss 0). A calibrated system's points lie on the diagonal.

The picture is a small SVG template like :mod:`gamecore.chart`: the diagonal, one line per system
through its bins' points (mean prediction, mean result), each point a
``<circle class="bin" data-system=… data-games=… data-predicted=… data-observed=…>`` whose area
grows with its games, so tests can read the chart back.
"""

from __future__ import annotations

import math
from typing import Any
from xml.sax.saxutils import escape, quoteattr

BINS = 10
"""Equal bins of the predicted probability."""

COLUMNS: tuple[str, ...] = ("system", "bin", "low", "high", "games", "predicted", "observed")
"""The calibration table: system, bin number (0 …), its bounds, games, mean prediction, mean result."""

COLOURS = {
    "netskrafl": "#1f6fb2",
    "netskrafl-live": "#6fa8dc",
    "elo": "#2e8b3e",
    "glicko2": "#c0392b",
    "glicko2-daily": "#e67e22",
    "truth": "#555555",
}
_OTHER = ("#7b4fa0", "#b8860b", "#17becf")
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
WIDTH, HEIGHT = 760, 560
LEFT, RIGHT, TOP, BOTTOM = 64, 180, 44, 56


def calibration_table(predictions: Any, columns: dict[str, str], bins: int = BINS) -> Any:
    """The calibration table (:data:`COLUMNS`) of ``predictions`` (a frame with ``result0``):
    ``columns`` maps each system to its column of predictions; empty bins are left out."""
    import numpy as np
    import polars as pl

    y = predictions["result0"].to_numpy().astype(np.float64)
    rows: list[dict[str, Any]] = []
    for system, column in columns.items():
        p = predictions[column].to_numpy().astype(np.float64)
        which = np.minimum((p * bins).astype(np.int64), bins - 1)
        count = np.bincount(which, minlength=bins)
        sum_p = np.bincount(which, weights=p, minlength=bins)
        sum_y = np.bincount(which, weights=y, minlength=bins)
        for k in range(bins):
            if count[k]:
                rows.append(
                    {
                        "system": system,
                        "bin": k,
                        "low": k / bins,
                        "high": (k + 1) / bins,
                        "games": int(count[k]),
                        "predicted": float(sum_p[k] / count[k]),
                        "observed": float(sum_y[k] / count[k]),
                    }
                )
    schema = {
        "system": pl.String,
        "bin": pl.Int64,
        "low": pl.Float64,
        "high": pl.Float64,
        "games": pl.Int64,
        "predicted": pl.Float64,
        "observed": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema)


def calibration_svg(table: Any, title: str = "Calibration") -> str:
    """The calibration plot of ``table`` (:func:`calibration_table`) as SVG text."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(v: float) -> float:
        return LEFT + plot_w * v

    def y(v: float) -> float:
        return TOP + plot_h * (1.0 - v)

    most = max(table["games"].to_list(), default=1)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{FONT}">',
        f'<rect class="background" x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        f'<text class="title" x="{LEFT}" y="24" font-size="15" font-weight="bold" fill="#222222">{escape(title)}</text>',
        f'<rect class="plot" x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#fafafa" stroke="#999999"/>',
    ]
    for i in range(11):
        v = i / 10
        out.append(f'<line class="grid" x1="{x(v):.1f}" y1="{TOP}" x2="{x(v):.1f}" y2="{TOP + plot_h}" stroke="#e8e8e8"/>')
        out.append(f'<line class="grid" x1="{LEFT}" y1="{y(v):.1f}" x2="{LEFT + plot_w}" y2="{y(v):.1f}" stroke="#e8e8e8"/>')
        out.append(
            f'<text class="tick" x="{x(v):.1f}" y="{TOP + plot_h + 16}" font-size="11" fill="#444444" text-anchor="middle">{v:.1f}</text>'
        )
        out.append(
            f'<text class="tick" x="{LEFT - 6}" y="{y(v):.1f}" font-size="11" fill="#444444" text-anchor="end" dominant-baseline="central">{v:.1f}</text>'
        )
    out.append(
        f'<line class="diagonal" x1="{x(0):.1f}" y1="{y(0):.1f}" x2="{x(1):.1f}" y2="{y(1):.1f}" stroke="#999999" stroke-dasharray="5,4"/>'
    )
    out.append(
        f'<text class="axis" x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 14}" font-size="12" fill="#222222" text-anchor="middle">'
        "predicted probability that player0 wins</text>"
    )
    out.append(
        f'<text class="axis" x="16" y="{TOP + plot_h / 2:.1f}" font-size="12" fill="#222222" text-anchor="middle" '
        f'transform="rotate(-90 16 {TOP + plot_h / 2:.1f})">mean result of player0 (draw ½)</text>'
    )
    systems = list(dict.fromkeys(table["system"].to_list()))
    for i, system in enumerate(systems):
        colour = COLOURS.get(system, _OTHER[i % len(_OTHER)])
        rows = table.filter(table["system"] == system).sort("bin").to_dicts()
        line = " ".join(f"{x(r['predicted']):.1f},{y(r['observed']):.1f}" for r in rows)
        dash = ' stroke-dasharray="2,3"' if system == "truth" else ""
        out.append(
            f'<polyline class="system-line" data-system={quoteattr(system)} points="{line}" fill="none" stroke="{colour}" stroke-width="1.8"{dash}/>'
        )
        for r in rows:
            radius = 2.0 + 5.0 * math.sqrt(r["games"] / most)
            out.append(
                f'<circle class="bin" data-system={quoteattr(system)} data-games="{r["games"]}" data-predicted="{r["predicted"]:.4f}" '
                f'data-observed="{r["observed"]:.4f}" cx="{x(r["predicted"]):.1f}" cy="{y(r["observed"]):.1f}" r="{radius:.1f}" '
                f'fill="{colour}" fill-opacity="0.55" stroke="{colour}"/>'
            )
        ly, lx = TOP + 14 + 20 * i, LEFT + plot_w + 14
        out.append(
            f'<g class="legend" data-system={quoteattr(system)}><line x1="{lx}" y1="{ly}" x2="{lx + 22}" y2="{ly}" stroke="{colour}" stroke-width="2"{dash}/>'
            f'<text x="{lx + 28}" y="{ly}" font-size="12" fill="#222222" dominant-baseline="central">{escape(system)}</text></g>'
        )
    ly = TOP + 14 + 20 * len(systems) + 8
    out.append(
        f'<text class="note" x="{LEFT + plot_w + 14}" y="{ly}" font-size="11" fill="#555555">dot area: games in the bin</text>'
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"
