"""``skrafl bag``: the balance of a tile set (a bag) measured by self-play of two equity players.

Game ``i`` (0-based) is a function of ``(seed, i)`` only (its bag shuffled by
``random.Random(f"{seed}:{i}")``, as ``skrafl autoplay``), both seats play the equity player with
the same leave table, and each game is reduced to its bag statistics
(:func:`gamecore.bagstats.game_tally`) in the worker. Games are summed in game order, so the same
seed gives the same bytes at any worker count, locally or on a Dask cluster (``--cluster``).

Statistics (per letter and per bag) are ratios of sums over games; their 95 % intervals are
per-game clustered (the delta method over games: ``R = ΣA/ΣB``, ``se² = G/(G−1)·Σ(a−R·b)²/(ΣB)²``,
``R ± 1.96·se``). The **evenness** of a bag is the standard deviation, over the letters of the set
(the blank left out), of the letter's mean turns on a rack: 0 when every letter stays equally long.
Its interval (and the interval of the difference between two bags) is a seeded Poisson bootstrap
over games (:data:`BOOT` replicates, percentile interval).

Output (``pipelines.atomic.output_dir``, command ``bag``): ``letters.csv`` (one row per bag and
letter), ``bag.csv`` (one row per bag and measure), ``report.md`` and ``rack_turns.svg``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy as np

Z95 = 1.959963984540054
BOOT = 200  # bootstrap replicates of the evenness
CHUNK = 8  # games per task


@dataclass(frozen=True)
class Config:
    """One bag's run: ``rules`` a preset or path, ``tiles`` a tile-set file played instead of the
    rule set's (or None), ``leaves`` the KLV2 file of both equity players."""

    lexicon: str
    rules: str
    leaves: str
    games: int
    seed: int
    tiles: str | None = None

    @property
    def name(self) -> str:
        return Path(self.tiles).stem if self.tiles else self.rules


def load_rules_with_tiles(rules: str, tiles: str | None):
    from gamecore.rules import load_rules

    rs = load_rules(rules)
    return replace(rs, tile_set=str(tiles)) if tiles else rs


def check_tile_set(tiles: str, rules: str, alphabet: Sequence[str]) -> None:
    """A candidate tile set against the rule set's own: every letter of the lexicon present, no
    letter the rule set's tile set lacks, and the same number of tiles and the same total points
    (count × value) as the rule set's tile set (a new bag keeps the points of the old one).

    Raises:
        DataError: one line naming the file, the letter's line and the letter.
    """
    from gamecore.errors import DataError
    from gamecore.tilesets import read_tile_set

    path = Path(tiles)
    cand = read_tile_set(path)
    ref = load_rules_with_tiles(rules, None).tiles()

    def line_of(label: str) -> int | None:
        for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if raw.split("\t")[0].strip() == label:
                return n
        return None

    for a in alphabet:
        if not cand.has(a) or cand.counts.get(a, 0) == 0:
            raise DataError(f"letter {a}: the lexicon has it, the tile set has no tile of it", path, line_of(a))
    for a in cand.letters:
        if not ref.has(a):
            raise DataError(f"letter {a}: not a letter of the tile set {ref.name} of rules {rules}", path, line_of(a))
    tiles_c = sum(cand.counts.values()) + cand.blanks
    tiles_r = sum(ref.counts.values()) + ref.blanks
    pts_c = sum(cand.counts[a] * cand.values[a] for a in cand.letters)
    pts_r = sum(ref.counts[a] * ref.values[a] for a in ref.letters)
    if tiles_c == tiles_r and pts_c == pts_r:
        return
    what = "tiles" if tiles_c != tiles_r else "points"
    got, want = (tiles_c, tiles_r) if what == "tiles" else (pts_c, pts_r)
    for a in ref.letters:
        c, v = cand.counts.get(a, 0), cand.values.get(a, 0)
        if (what == "tiles" and c != ref.counts[a]) or (what == "points" and c * v != ref.counts[a] * ref.values[a]):
            have = f"{c} tiles" if what == "tiles" else f"{c} × {v} points"
            was = f"{ref.counts[a]}" if what == "tiles" else f"{ref.counts[a]} × {ref.values[a]}"
            raise DataError(
                f"letter {a}: {have}, not {was} as in {ref.name}; the {what} sum to {got}, not {want} as the rule set {rules}'s",
                path,
                line_of(a),
            )
    if cand.blanks != ref.blanks:
        raise DataError(
            f"letter ?: {cand.blanks} blanks, not {ref.blanks}; the tiles sum to {got}, not {want}", path, line_of("?")
        )


# ------------------------------------------------------------------ workers

_W: dict = {}


def _setup(cfg: Config) -> None:
    from gamecore.autoplay import Mover, Strategy
    from gamecore.best import load_bundle
    from gamecore.equity import LeaveTable
    from gamecore.klv import Klv

    if _W.get("cfg") == cfg:
        return
    bundle = load_bundle(cfg.lexicon)
    rules = load_rules_with_tiles(cfg.rules, cfg.tiles)
    table = LeaveTable(Klv.read(cfg.leaves), rules.tiles())
    mover = Mover(bundle, rules)
    _W.clear()
    _W.update(
        cfg=cfg,
        mover=mover,
        rules=rules,
        table=table,
        strategies=[Strategy("equity", table), Strategy("equity", table)],
    )


def play_chunk(cfg: Config, indexes: Sequence[int]):
    """The games ``indexes``: an int32 array (a game's sums are far below 2³¹), one row of :func:`gamecore.bagstats.game_tally` per
    game, and the CPU seconds. A game the rules engine refuses comes back as ``("error", line)``."""
    import numpy as np

    from gamecore.autoplay import play_game
    from gamecore.bagstats import game_tally
    from gamecore.errors import SkraflError

    _setup(cfg)
    t0 = time.process_time()
    rows = []
    for i in indexes:
        try:
            res = play_game(_W["mover"], _W["strategies"], f"{cfg.seed}:{i}", f"{cfg.seed}:{i}:moves", check_plays=False)
        except SkraflError as exc:
            return ("error", f"{cfg.name} game {i}: {exc}")
        st = res.state
        rows.append(game_tally(st.history, st.racks, st.scores, _W["rules"].tiles(), _W["rules"]))
    return np.asarray(rows, dtype=np.int32), time.process_time() - t0


def _chunk_task(args):
    return play_chunk(*args)


def play_all(cfg: Config, workers: int = 1, cluster=None, progress: Callable[[int], None] | None = None):
    """Every game's statistics in game order (an int32 array) and the CPU seconds of the games."""
    import numpy as np

    from gamecore.errors import DataError

    jobs = [(cfg, list(range(a, min(a + CHUNK, cfg.games)))) for a in range(0, cfg.games, CHUNK)]
    parts: dict[int, object] = {}
    cpu = 0.0

    def take(k: int, got) -> None:
        nonlocal cpu
        if isinstance(got[0], str):
            raise DataError(got[1])
        parts[k] = got[0]
        cpu += got[1]
        if progress:
            progress(len(got[0]))

    if cluster:
        from pipelines.replay.cluster import connect_client

        client, own = connect_client(cluster)
        try:
            futures = client.map(_chunk_task, jobs, pure=False)
            for k, fut in enumerate(futures):
                take(k, fut.result())
        finally:
            if own:
                client.close()
    elif workers <= 1:
        for k, job in enumerate(jobs):
            take(k, _chunk_task(job))
    else:
        import os

        from pipelines.replay.run import pool_context, worker_init

        with pool_context().Pool(min(workers, len(jobs)), initializer=worker_init, initargs=(os.getpid(),)) as pool:
            for k, got in enumerate(pool.imap(_chunk_task, jobs)):
                take(k, got)
    return np.concatenate([parts[k] for k in range(len(jobs))]), cpu


# ------------------------------------------------------------------ statistics


def ratio(a, b) -> tuple[float, float, float]:
    """``Σa/Σb`` over games with its per-game clustered 95 % interval (delta method)."""
    import numpy as np

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    sb = b.sum()
    if sb == 0:
        return (math.nan, math.nan, math.nan)
    r = a.sum() / sb
    g = len(a)
    if g < 2:
        return (r, math.nan, math.nan)
    se = math.sqrt(g / (g - 1) * float(((a - r * b) ** 2).sum())) / sb
    return (r, r - Z95 * se, r + Z95 * se)


def _fields(arr, k: int):
    from gamecore.bagstats import GAME_FIELDS, LETTER_FIELDS

    out = {f: arr[:, n * k : (n + 1) * k] for n, f in enumerate(LETTER_FIELDS)}
    base = len(LETTER_FIELDS) * k
    out.update({f: arr[:, base + n] for n, f in enumerate(GAME_FIELDS)})
    return out


def evenness_of(turns, arrivals, letters: Sequence[int]) -> float:
    """The spread of per-letter mean turns on a rack: their standard deviation over ``letters``
    (column indexes), from summed ``turns`` and ``arrivals`` per letter (a letter without arrivals
    left out)."""
    import warnings

    import numpy as np

    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a replicate of no games (tiny runs): NaN
        m = np.asarray(turns, dtype=np.float64)[..., letters] / np.asarray(arrivals, dtype=np.float64)[..., letters]
        return np.nanstd(m, axis=-1)


def boot_evenness(arr, k: int, letters: Sequence[int], seed: int):
    """:data:`BOOT` bootstrap replicates of the evenness: Poisson(1) weights per game, drawn by a
    generator seeded by ``seed``, games taken in order in blocks of 4096."""
    import numpy as np

    f = _fields(arr, k)
    rng = np.random.default_rng([seed, 27])
    t = np.zeros((BOOT, k))
    a = np.zeros((BOOT, k))
    g = arr.shape[0]
    for s in range(0, g, 4096):
        w = rng.poisson(1.0, size=(BOOT, min(4096, g - s))).astype(np.float64)
        t += w @ f["rack_turns"][s : s + 4096]
        a += w @ f["arrivals"][s : s + 4096]
    return evenness_of(t, a, letters)


@dataclass
class BagResult:
    name: str
    rules: str
    tile_set: object
    games: int
    cpu: float
    letters: list  # per-letter dict rows
    summary: dict[str, tuple[float, float, float]]  # measure -> (value, low, high)
    boot: np.ndarray  # evenness replicates


def analyse(cfg: Config, arr, cpu: float, table=None) -> BagResult:
    """Per-letter rows and the bag's measures of one run's statistics (``arr`` from :func:`play_all`);
    ``table``: the leave table the games were played with (default: ``cfg.leaves`` read again)."""
    import numpy as np

    from gamecore.bagstats import labels
    from gamecore.equity import LeaveTable
    from gamecore.klv import Klv

    rules = load_rules_with_tiles(cfg.rules, cfg.tiles)
    ts = rules.tiles()
    names = labels(ts)
    k = len(names)
    f = _fields(arr, k)
    if table is None:
        table = LeaveTable(Klv.read(cfg.leaves), ts)
    ones = np.ones(arr.shape[0])
    rows = []
    for i, label in enumerate(names):
        count = ts.blanks if label == "?" else ts.counts[label]
        if count == 0:
            continue
        t = ratio(f["rack_turns"][:, i], f["arrivals"][:, i])
        pts = ratio(f["play_points"][:, i], f["played"][:, i])
        bg = ratio(f["bingos_with"][:, i], f["racks_with"][:, i])
        stuck = ratio(f["left_at_end"][:, i], ones)
        rows.append(
            {
                "bag": cfg.name,
                "letter": label,
                "count": count,
                "value": 0 if label == "?" else ts.values[label],
                "vowel": label in ts.vowels,
                "rack_turns": t[0],
                "rack_turns_low": t[1],
                "rack_turns_high": t[2],
                "leave": table.milli([label]) / 1000,
                "play_points": pts[0],
                "play_points_low": pts[1],
                "play_points_high": pts[2],
                "bingo_rate": bg[0],
                "bingo_rate_low": bg[1],
                "bingo_rate_high": bg[2],
                "left_at_end_per_game": stuck[0],
            }
        )
    letters = [i for i, label in enumerate(names) if label != "?" and ts.counts[label] > 0]
    tsum, asum = f["rack_turns"].sum(axis=0), f["arrivals"].sum(axis=0)
    boot = boot_evenness(arr, k, letters, cfg.seed)
    even = float(evenness_of(tsum, asum, letters))
    lo, hi = np.nanpercentile(boot, [2.5, 97.5])
    players = 2
    summary: dict[str, tuple[float, float, float]] = {
        "evenness": (even, float(lo), float(hi)),
        "mean_score": ratio(f["score"], ones * players),
        "bingos_per_game": ratio(f["bingos"], ones),
        "moves_per_game": ratio(f["moves"], ones),
        "vowel_share_of_racks": ratio(f["vowels"], f["vowels"] + f["consonants"]),
        "unbalanced_racks": ratio(f["unbalanced"], f["full_racks"]),
    }
    bag_vowels = sum(ts.counts[a] for a in ts.letters if a in ts.vowels)
    bag_all = sum(ts.counts[a] for a in ts.letters)
    summary["vowel_share_of_bag"] = (bag_vowels / bag_all, math.nan, math.nan)
    return BagResult(cfg.name, cfg.rules, ts, arr.shape[0], cpu, rows, summary, boot)


MEASURES = {
    "evenness": "SD over letters of mean turns on a rack (lower: more even)",
    "mean_score": "final score per player per game",
    "bingos_per_game": "bingos per game (both players)",
    "moves_per_game": "moves per game (both players)",
    "vowel_share_of_racks": "vowels among the non-blank tiles of full racks",
    "unbalanced_racks": "full racks with fewer than 2 vowels or fewer than 2 consonants",
    "vowel_share_of_bag": "vowels among the non-blank tiles of the bag",
}


def comparison(a: BagResult, b: BagResult) -> dict:
    """The evenness of ``a`` minus that of ``b`` with its bootstrap interval (independent runs:
    replicate minus replicate)."""
    import numpy as np

    d = a.boot - b.boot
    lo, hi = np.nanpercentile(d, [2.5, 97.5])
    diff = a.summary["evenness"][0] - b.summary["evenness"][0]
    if hi < 0:
        verdict = f"{a.name} is more even than {b.name}"
    elif lo > 0:
        verdict = f"{b.name} is more even than {a.name}"
    else:
        verdict = "neither bag is measurably more even (the interval holds 0)"
    return {"evenness_difference": diff, "low": float(lo), "high": float(hi), "verdict": verdict}


# ------------------------------------------------------------------ outputs


def _fmt(x: float, nd: int = 2) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}f}"


def _iv(v, lo, hi, nd=2) -> str:
    return f"{_fmt(v, nd)} [{_fmt(lo, nd)}, {_fmt(hi, nd)}]" if not math.isnan(lo) else _fmt(v, nd)


def letters_csv(results: Sequence[BagResult]) -> str:
    import csv
    import io

    buf = io.StringIO()
    cols = list(results[0].letters[0])
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in results:
        for row in r.letters:
            w.writerow([_fmt(row[c], 4) if isinstance(row[c], float) else row[c] for c in cols])
    return buf.getvalue()


def bag_csv(results: Sequence[BagResult], cmp: dict | None) -> str:
    lines = ["bag,measure,value,low,high,games,cpu_seconds"]
    for r in results:
        for m, (v, lo, hi) in r.summary.items():
            lines.append(f"{r.name},{m},{_fmt(v, 4)},{_fmt(lo, 4)},{_fmt(hi, 4)},{r.games},{r.cpu:.1f}")
    if cmp:
        lines.append(
            f"{results[0].name}-{results[1].name},evenness_difference,{_fmt(cmp['evenness_difference'], 4)},"
            f"{_fmt(cmp['low'], 4)},{_fmt(cmp['high'], 4)},,"
        )
    return "\n".join(lines) + "\n"


def report_md(results: Sequence[BagResult], cmp: dict | None, seed: int) -> str:
    out = [f"# Bag balance by self-play (seed {seed})", ""]
    out.append(
        "Two equity players (static equity with the leave table shown per letter) play every game. "
        "Intervals: 95 %, per-game clustered (delta method over games); the evenness's: Poisson "
        f"bootstrap over games, {BOOT} replicates, seeded by the run's seed."
    )
    out.append("")
    out.append("| measure | " + " | ".join(f"{r.name} ({r.games} games)" for r in results) + " |")
    out.append("|---|" + "---|" * len(results))
    for m, text in MEASURES.items():
        nd = 3 if m in ("evenness", "vowel_share_of_racks", "unbalanced_racks", "vowel_share_of_bag") else 2
        out.append(f"| {m}: {text} | " + " | ".join(_iv(*r.summary[m], nd=nd) for r in results) + " |")
    if cmp:
        out += [
            "",
            f"Evenness difference ({results[0].name} − {results[1].name}): "
            f"{cmp['evenness_difference']:.3f} [{cmp['low']:.3f}, {cmp['high']:.3f}]: **{cmp['verdict']}**.",
        ]
    out += ["", "## Per letter", ""]
    head = "| letter | " + " | ".join(f"{r.name}: count×value, turns on rack, leave, play points, bingo rate" for r in results)
    out.append(head + " |")
    out.append("|---|" + "---|" * len(results))
    by = [{row["letter"]: row for row in r.letters} for r in results]
    order: list[str] = []
    for r in results:
        order += [row["letter"] for row in r.letters if row["letter"] not in order]
    for label in order:
        cells = []
        for b in by:
            row = b.get(label)
            if row is None:
                cells.append("—")
                continue
            cells.append(
                f"{row['count']}×{row['value']}, {_iv(row['rack_turns'], row['rack_turns_low'], row['rack_turns_high'])}, "
                f"{row['leave']:+.2f}, {_iv(row['play_points'], row['play_points_low'], row['play_points_high'], 1)}, "
                f"{_iv(row['bingo_rate'], row['bingo_rate_low'], row['bingo_rate_high'], 3)}"
            )
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out.append("")
    return "\n".join(out)


def chart_svg(results: Sequence[BagResult]) -> str:
    """Mean turns on a rack per letter with its interval, one colour per bag."""
    from xml.sax.saxutils import escape

    order: list[str] = []
    for r in results:
        order += [row["letter"] for row in r.letters if row["letter"] not in order]
    rows = [{row["letter"]: row for row in r.letters} for r in results]
    hi = max(row["rack_turns_high"] for r in results for row in r.letters if not math.isnan(row["rack_turns_high"]))
    ymax = math.ceil(hi + 0.5)
    left, top, step, ph = 50, 30, 22, 260
    width = left + step * len(order) + 20
    height = top + ph + 50
    colours = ("#1f77b4", "#d62728")

    def y(v: float) -> float:
        return top + ph - v / ymax * ph

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
        '<rect width="100%" height="100%" fill="#ffffff"/>',
        f'<text x="{left}" y="18" font-size="13" fill="#222222">Mean turns a tile stays on a rack (95 % interval)</text>',
    ]
    for v in range(0, ymax + 1):
        parts.append(f'<line x1="{left}" x2="{width - 10}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#dddddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" font-size="11" text-anchor="end" fill="#444444">{v}</text>')
    for n, label in enumerate(order):
        x0 = left + step * n
        parts.append(
            f'<text x="{x0 + step / 2:.1f}" y="{top + ph + 16}" font-size="11" text-anchor="middle">{escape(label)}</text>'
        )
        for b, (by, colour) in enumerate(zip(rows, colours, strict=False)):
            row = by.get(label)
            if row is None:
                continue
            cx = x0 + step / 2 + (b - (len(rows) - 1) / 2) * 6
            parts.append(
                f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{y(row["rack_turns_low"]):.1f}" y2="{y(row["rack_turns_high"]):.1f}" stroke="{colour}"/>'
            )
            parts.append(f'<circle cx="{cx:.1f}" cy="{y(row["rack_turns"]):.1f}" r="2.5" fill="{colour}"/>')
    for b, (r, colour) in enumerate(zip(results, colours, strict=False)):
        parts.append(f'<text x="{left + 160 * b}" y="{height - 10}" font-size="12" fill="{colour}">● {escape(r.name)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def run_bag(
    cfgs: Sequence[Config],
    out: Path | None,
    workers: int = 1,
    cluster=None,
    progress: Callable[[int], None] | None = None,
    inputs: Sequence = (),
) -> tuple[list[BagResult], dict | None]:
    """Play and analyse one bag (or two: the second is compared with the first); with ``out`` write
    the tables, the report and the chart there (whole and atomically)."""
    if out is not None:
        from pipelines.atomic import check_output_dir

        check_output_dir(out, "bag", inputs)
    tables = []
    for cfg in cfgs:
        _setup(cfg)  # bad inputs fail here, once, before any worker starts
        tables.append(_W["table"])  # the leave values as read when the run began
    results = []
    for cfg, table in zip(cfgs, tables, strict=True):
        arr, cpu = play_all(cfg, workers, cluster, progress)
        results.append(analyse(cfg, arr, cpu, table))
    cmp = comparison(results[0], results[1]) if len(results) == 2 else None
    if out is not None:
        from pipelines.atomic import output_dir

        with output_dir(out, "bag", inputs) as stage:
            (stage / "letters.csv").write_text(letters_csv(results), encoding="utf-8")
            (stage / "bag.csv").write_text(bag_csv(results, cmp), encoding="utf-8")
            (stage / "report.md").write_text(report_md(results, cmp, cfgs[0].seed), encoding="utf-8")
            (stage / "rack_turns.svg").write_text(chart_svg(results), encoding="utf-8")
    return results, cmp
