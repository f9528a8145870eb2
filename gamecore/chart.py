"""A player's rating over time as a picture (``skrafl elo --explain PLAYER --svg FILE``).

One line per rating list (all, human, competition), the game dates along the bottom axis, the
rating up the side; each game a dot, a beginner game (rated with the beginner K) a hollow dot.
Written as SVG by a small template, like :mod:`gamecore.picture` (PNG through the same
:func:`gamecore.picture.png_bytes`). Every line is a ``<polyline class="rating-line"
data-list="all">`` and every game a ``<circle class="game [beginner]" data-list=… data-rating=…
data-date=…>`` so tests can read the chart back. Standard library only.
"""

from __future__ import annotations

import datetime as dt
from typing import Iterable
from xml.sax.saxutils import escape, quoteattr

from gamecore.errors import UsageError

#: list → line colour
LIST_COLOURS = {"all": "#1f6fb2", "human": "#2e8b3e", "competition": "#c0392b"}
_OTHER = ("#7b4fa0", "#b8860b", "#555555")
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"

WIDTH, HEIGHT = 800, 380
LEFT, RIGHT, TOP, BOTTOM = 64, 175, 44, 52


def _when(text: str) -> dt.datetime | None:
    if not text:
        return None
    try:
        t = dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=dt.timezone.utc)


def rating_chart_svg(rows: Iterable[dict], player: str, beginner_k: int | None = None, title: str | None = None) -> str:
    """The chart of ``rows`` (the rows of ``skrafl elo --explain``: ``list``, ``finished_at``,
    ``rating``, ``before``, ``k``), one line per list in the order first seen.

    Args:
        beginner_k: the K of a beginner game (marked hollow); None marks none.
    Raises:
        UsageError: no row with a date.
    """
    series: dict[str, list[tuple[dt.datetime, int, int, bool]]] = {}
    for r in rows:
        when = _when(r.get("finished_at", ""))
        if when is None:
            continue
        beginner = beginner_k is not None and r.get("k") == beginner_k
        series.setdefault(str(r["list"]), []).append((when, int(r["before"]), int(r["rating"]), beginner))
    if not series:
        raise UsageError(f"no dated game of {player} to draw")
    times = [p[0] for pts in series.values() for p in pts]
    ratings = [v for pts in series.values() for p in pts for v in (p[1], p[2])]
    # the time axis: whole UTC days, from the first game's day to the end of the last game's
    first_day, last_day = min(times).date(), max(times).date()
    n_days = (last_day - first_day).days + 1
    t0 = dt.datetime(first_day.year, first_day.month, first_day.day, tzinfo=dt.timezone.utc)
    span = n_days * 86400.0
    lo, hi = min(ratings), max(ratings)
    pad = max(10, (hi - lo) // 10)
    lo, hi = (lo - pad) // 10 * 10, (hi + pad + 9) // 10 * 10
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(t: dt.datetime) -> float:
        return LEFT + plot_w * (t - t0).total_seconds() / span

    def y(v: float) -> float:
        return TOP + plot_h * (1 - (v - lo) / (hi - lo))

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'font-family="{FONT}" data-player={quoteattr(player)}>',
        f'<rect class="background" x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        f'<text class="title" x="{LEFT}" y="24" font-size="16" font-weight="bold" fill="#222222">{escape(title or f"Rating of {player}")}</text>',
        f'<rect class="plot" x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#fafafa" stroke="#999999"/>',
    ]
    # rating axis: about six gridlines on round numbers
    step = max(10, ((hi - lo) // 6 + 9) // 10 * 10)
    v = (lo + step - 1) // step * step
    while v <= hi:
        yy = y(v)
        out.append(f'<line class="grid" x1="{LEFT}" y1="{yy:.1f}" x2="{LEFT + plot_w}" y2="{yy:.1f}" stroke="#e2e2e2"/>')
        out.append(
            f'<text class="tick rating" x="{LEFT - 6}" y="{yy:.1f}" font-size="11" fill="#444444" text-anchor="end" dominant-baseline="central">{v}</text>'
        )
        v += step
    # date axis: a mark at the start of every STEP-th day (at most seven labels), the day's date
    # under the middle of it; days without games are days of the axis too
    step = -(-n_days // 7)
    for i in range(0, n_days, step):
        start = t0 + dt.timedelta(days=i)
        xx, mid = x(start), x(start + dt.timedelta(hours=12))
        out.append(
            f'<line class="tick-mark" x1="{xx:.1f}" y1="{TOP + plot_h}" x2="{xx:.1f}" y2="{TOP + plot_h + 5}" stroke="#999999"/>'
        )
        out.append(
            f'<text class="tick date" x="{mid:.1f}" y="{TOP + plot_h + 18}" font-size="11" fill="#444444" text-anchor="middle">{start.date().isoformat()}</text>'
        )
    # one line per list; the first point is the rating before the first game
    for i, (name, pts) in enumerate(series.items()):
        colour = LIST_COLOURS.get(name, _OTHER[i % len(_OTHER)])
        pts.sort(key=lambda p: p[0])
        coords = [(x(pts[0][0]), y(pts[0][1]))] + [(x(t), y(after)) for t, _, after, _ in pts]
        line = " ".join(f"{a:.1f},{b:.1f}" for a, b in coords)
        out.append(
            f'<polyline class="rating-line" data-list={quoteattr(name)} points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>'
        )
        for t, _, after, beginner in pts:
            fill = "#ffffff" if beginner else colour
            cls = "game beginner" if beginner else "game"
            out.append(
                f'<circle class="{cls}" data-list={quoteattr(name)} data-rating="{after}" data-date="{t.date().isoformat()}" '
                f'cx="{x(t):.1f}" cy="{y(after):.1f}" r="3.5" fill="{fill}" stroke="{colour}" stroke-width="1.5"/>'
            )
        ly = TOP + 14 + 20 * i
        lx = LEFT + plot_w + 14
        out.append(
            f'<g class="legend" data-list={quoteattr(name)}><line x1="{lx}" y1="{ly}" x2="{lx + 22}" y2="{ly}" stroke="{colour}" stroke-width="2"/>'
            f'<text x="{lx + 28}" y="{ly}" font-size="12" fill="#222222" dominant-baseline="central">{escape(name)} {pts[-1][2]}</text></g>'
        )
    if beginner_k is not None:
        ly = TOP + 14 + 20 * len(series) + 6
        lx = LEFT + plot_w + 14
        out.append(
            f'<g class="legend beginner"><circle cx="{lx + 11}" cy="{ly}" r="3.5" fill="#ffffff" stroke="#555555" stroke-width="1.5"/>'
            f'<text x="{lx + 28}" y="{ly}" font-size="12" fill="#222222" dominant-baseline="central">beginner game</text></g>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


__all__ = ["LIST_COLOURS", "rating_chart_svg"]
