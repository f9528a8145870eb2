"""``skrafl autoplay``: many self-play games (gamecore.autoplay), in worker processes, written atomically.

Game ``i`` (0-based) is a function of ``(seed, i)`` only: its bag is shuffled by
``random.Random(f"{seed}:{i}")`` (with ``pairs``: ``f"{seed}:pair:{i // 2}"``, the same bag for
both games of a pair) and the robots' picks by ``random.Random(f"{seed}:{i}:moves")``. Strategy
``p1`` moves first in even games and ``p2`` in odd ones, so with ``pairs`` each player gets the
other's tiles from the same seat in the pair's other game. Rows are sorted by game, so the same seed
gives the same bytes at any worker count.

Output (``pipelines.atomic.output_dir``, command ``autoplay``): ``games.parquet`` and ``games.csv``
(:data:`COLUMNS`), and with ``gcg`` one ``gcg/game-NNNNNN.gcg`` per game.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

COLUMNS = (
    "game",  # 0-based game index
    "pair",  # game // 2 with --pairs, else null
    "first",  # the strategy that moved first: p1 or p2
    "p1",
    "p2",  # strategy names
    "p1_score",
    "p2_score",  # final scores (after the end-of-game adjustments)
    "p1_before_end",
    "p2_before_end",  # scores before the end-of-game adjustments
    "winner",  # p1, p2, or null for a tie
    "end",  # out, zeros, passes, target
    "turns",
    "p1_bingos",
    "p2_bingos",
)


@dataclass
class Config:
    """What one run plays. ``lexicon``: the lexicon folder; ``rules``: a preset name or path;
    ``leaves``: per player, a KLV2 path or None; ``vocabulary``: per player, a folder or None."""

    lexicon: str
    rules: str
    p1: str
    p2: str
    games: int
    seed: int
    leaves: tuple = (None, None)
    vocabulary: tuple = (None, None)
    pairs: bool = False
    gcg: bool = False
    check_plays: bool = False  # every play through the rules oracle (words, score): the same games, slower


@dataclass
class Summary:
    games: int
    p1: str
    p2: str
    p1_wins: int
    p2_wins: int
    ties: int
    p1_win_rate: float
    p1_win_rate_low: float
    p1_win_rate_high: float
    p1_mean_score: float
    p2_mean_score: float
    cpu_seconds: float
    games_per_cpu_second: float
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        d = dict(self.__dict__)
        d.pop("extra")
        return d


def wilson(wins: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The 95 % Wilson score interval of a rate ``wins / n`` (ties counted half)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


# ------------------------------------------------------------------ workers

_W: dict = {}


def setup_process(cfg: Config) -> None:
    """Load the lexicon, rules, leaves and vocabularies once per process."""
    from gamecore.autoplay import EQUITY_STRATEGIES, Mover, Strategy
    from gamecore.best import load_bundle
    from gamecore.equity import LeaveTable
    from gamecore.klv import Klv
    from gamecore.rules import load_rules

    if _W.get("cfg") == cfg:
        return
    bundle = load_bundle(cfg.lexicon)
    rules = load_rules(cfg.rules)
    ts = rules.tiles()
    strategies = []
    for kind, leaves, vocab in zip((cfg.p1, cfg.p2), cfg.leaves, cfg.vocabulary, strict=True):
        table = LeaveTable(Klv.read(leaves), ts) if leaves else None
        words = None
        if vocab:
            from gamecore.lexicon import Lexicon

            words = Lexicon.load(vocab)
        strategies.append(Strategy(kind, table if kind in EQUITY_STRATEGIES else None, words))
    mover = Mover(bundle, rules)
    # with check_plays the oracle checks every word a play forms against the lexicon, unless a tile is folded (Ё)
    lexicon = bundle.words if cfg.check_plays and not mover.folded else None
    _W.clear()
    _W.update(cfg=cfg, mover=mover, strategies=strategies, lexicon=lexicon, lexicon_name=bundle.manifest.get("name", ""))


def play_one(cfg: Config, i: int) -> tuple[dict, str | None, float]:
    """Game ``i``: its row, its GCG text (or None) and the CPU seconds it took."""
    from gamecore.autoplay import gcg_text, play_game

    setup_process(cfg)
    t0 = time.process_time()
    p1, p2 = _W["strategies"]
    p1_first = i % 2 == 0
    seats = [p1, p2] if p1_first else [p2, p1]
    bag_seed = f"{cfg.seed}:pair:{i // 2}" if cfg.pairs else f"{cfg.seed}:{i}"
    res = play_game(_W["mover"], seats, bag_seed, f"{cfg.seed}:{i}:moves", lexicon=_W["lexicon"], check_plays=cfg.check_plays)
    st = res.state
    s1, s2 = (0, 1) if p1_first else (1, 0)  # seats of p1 and p2
    w = st.winner()
    row = {
        "game": i,
        "pair": i // 2 if cfg.pairs else None,
        "first": "p1" if p1_first else "p2",
        "p1": cfg.p1,
        "p2": cfg.p2,
        "p1_score": st.scores[s1],
        "p2_score": st.scores[s2],
        "p1_before_end": st.pre_end[s1] if st.pre_end else st.scores[s1],
        "p2_before_end": st.pre_end[s2] if st.pre_end else st.scores[s2],
        "winner": None if w is None else ("p1" if w == s1 else "p2"),
        "end": st.over or "unfinished",
        "turns": res.turns,
        "p1_bingos": res.bingos[s1],
        "p2_bingos": res.bingos[s2],
    }
    text = None
    if cfg.gcg:
        names = ["p1", "p2"] if p1_first else ["p2", "p1"]
        title = f"autoplay seed {cfg.seed} game {i}: p1 {cfg.p1}, p2 {cfg.p2}"
        text = gcg_text(res, names, title, _W["lexicon_name"])
    return row, text, time.process_time() - t0


def _play_chunk(args) -> list:
    """The games of one chunk; a game the rules engine refuses comes back as its one-line error
    (a SkraflError need not survive pickling between processes)."""
    from gamecore.errors import SkraflError

    cfg, indexes = args
    out = []
    for i in indexes:
        try:
            out.append(play_one(cfg, i))
        except SkraflError as exc:
            return [("error", f"game {i}: {exc}")]
    return out


def _raise_error(got: list) -> None:
    if got and got[0][0] == "error":
        from gamecore.errors import DataError

        raise DataError(got[0][1])


def play_games(cfg: Config, workers: int = 1, progress: Callable[[int], None] | None = None) -> tuple[list, list, float]:
    """Play every game: rows and GCG texts sorted by game, and the CPU seconds of the games."""
    out: list = []
    chunk = 4
    jobs = [(cfg, list(range(a, min(a + chunk, cfg.games)))) for a in range(0, cfg.games, chunk)]
    if workers <= 1:
        for job in jobs:
            got = _play_chunk(job)
            _raise_error(got)
            out.extend(got)
            if progress:
                progress(len(got))
    else:
        import os

        # replay's worker discipline: SIGINT ignored (the parent stops the pool), SIGTERM kills,
        # a worker dies with its parent
        from pipelines.replay.run import pool_context, worker_init

        with pool_context().Pool(min(workers, len(jobs)), initializer=worker_init, initargs=(os.getpid(),)) as pool:
            for got in pool.imap_unordered(_play_chunk, jobs):
                _raise_error(got)
                out.extend(got)
                if progress:
                    progress(len(got))
    out.sort(key=lambda r: r[0]["game"])
    return [r for r, _, _ in out], [t for _, t, _ in out], sum(c for _, _, c in out)


def summarize(rows: Sequence[dict], cfg: Config, cpu: float) -> Summary:
    n = len(rows)
    w1 = sum(r["winner"] == "p1" for r in rows)
    w2 = sum(r["winner"] == "p2" for r in rows)
    ties = n - w1 - w2
    rate = (w1 + ties / 2) / n if n else 0.0
    lo, hi = wilson(w1 + ties / 2, n)
    return Summary(
        games=n,
        p1=cfg.p1,
        p2=cfg.p2,
        p1_wins=w1,
        p2_wins=w2,
        ties=ties,
        p1_win_rate=round(rate, 4),
        p1_win_rate_low=round(lo, 4),
        p1_win_rate_high=round(hi, 4),
        p1_mean_score=round(sum(r["p1_score"] for r in rows) / n, 2) if n else 0.0,
        p2_mean_score=round(sum(r["p2_score"] for r in rows) / n, 2) if n else 0.0,
        cpu_seconds=round(cpu, 3),
        games_per_cpu_second=round(n / cpu, 1) if cpu > 0 else 0.0,
    )


def write_tables(stage: Path, rows: Sequence[dict], texts: Sequence[str | None]) -> None:
    import polars as pl

    schema = {
        "game": pl.Int64,
        "pair": pl.Int64,
        "first": pl.Utf8,
        "p1": pl.Utf8,
        "p2": pl.Utf8,
        "p1_score": pl.Int64,
        "p2_score": pl.Int64,
        "p1_before_end": pl.Int64,
        "p2_before_end": pl.Int64,
        "winner": pl.Utf8,
        "end": pl.Utf8,
        "turns": pl.Int64,
        "p1_bingos": pl.Int64,
        "p2_bingos": pl.Int64,
    }
    df = pl.DataFrame([{c: r[c] for c in COLUMNS} for r in rows], schema=schema, orient="row")
    df.write_parquet(stage / "games.parquet", statistics=False)
    df.write_csv(stage / "games.csv")
    if any(t is not None for t in texts):
        (stage / "gcg").mkdir()
        for r, t in zip(rows, texts, strict=True):
            if t is not None:
                (stage / "gcg" / f"game-{r['game']:06d}.gcg").write_text(t, encoding="utf-8")


def run_autoplay(
    cfg: Config, out: Path | None, workers: int = 1, progress: Callable[[int], None] | None = None, inputs: Sequence = ()
) -> Summary:
    """Play the games and, with ``out``, write them there (whole and atomically)."""
    if out is not None:
        from pipelines.atomic import check_output_dir

        check_output_dir(out, "autoplay", inputs)  # a bad --out costs nothing
    setup_process(cfg)  # bad inputs (lexicon, leaves) fail here, once, before any worker starts
    rows, texts, cpu = play_games(cfg, workers, progress)
    summary = summarize(rows, cfg, cpu)
    if out is not None:
        from pipelines.atomic import output_dir

        with output_dir(out, "autoplay", inputs) as stage:
            write_tables(stage, rows, texts)
    return summary
