"""``skrafl leaves build``: leave values for a tile set from self-play, written as a KLV2 file.

The method (its anchors: MAGPIE's leavegen, which averages the equity of the racks holding a leave;
Quackle's superleaves; wolges' census):

1. **Self-play.** Each generation plays ``games`` games between two equity players
   (:mod:`gamecore.autoplay`) using the previous generation's leaves (generation 0: all leaves
   worth 0, i.e. the best score, exchanges when nothing scores). Game ``i`` of generation ``g`` is
   a function of ``(seed, g, i)`` only: its bag is shuffled by ``random.Random(f"leaves:{seed}:{g}:{i}")``.
2. **Observations** (:func:`gamecore.leavegen.observations`): each move kept a leave L with tiles
   still in the bag; the same player's next move scored s' and kept L'. The target of L is
   ``y = s' + value(L')`` with the generation's own leave values (a temporal-difference target;
   value(L') is 0 when the bag was empty after that move).
3. **A model for every leave.** A weighted ridge regression of the mean target of each observed
   leave on features of the leave: each tile's first, second and third-or-later copy (duplicates
   cost), the number of vowels and of consonants together (balance; blanks counted apart), and
   every pair of two different tiles (synergy: Q with U, E with R, the blank with S); the
   intercept is the empty leave's target, so the empty leave is worth 0 as in every KLV2.
4. **Blend.** A leave seen in n racks gets the model's value plus ``n / (n + k)`` of its own mean
   residual, ``k = σ² / τ²`` per leave size (σ² the spread of one rack's equity, τ² that of the
   leaves' true residuals, both estimated from the data, τ at least :data:`RESIDUAL_SD`): a leave
   seen often keeps its observed mean, one never seen gets the model's value.
5. The observations of every generation after the first (all of them when there is one) are
   pooled for the final fit, their targets re-valued with the latest leaves. Values are stored
   rounded to 1/64 of a point (exact in a 32-bit float; MAGPIE reads thousandths).

Every leave of 1..rack_size-1 tiles the tile set allows gets a value
(:func:`gamecore.leavegen.all_leaves`). The same seed gives the same bytes at any worker count:
workers only play games; games are gathered in index order and the fit is one process's
arithmetic.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy as np

#: stored values are multiples of this (exact in float32; a 1/64-point step is below what equity needs)
QUANTUM = 64
#: the least spread assumed for the leaves' true values around the model (points): the blend
#: constant k is at most sigma² / this², so a leave seen in a few hundred racks keeps its own mean
RESIDUAL_SD = 1.0
#: ridge penalty, in observations: a feature seen far fewer times than this stays near 0
RIDGE = 25.0


@dataclass(frozen=True)
class Config:
    """One build: ``lexicon`` folder, ``rules`` preset name or path, ``games`` per generation."""

    lexicon: str
    rules: str
    games: int
    seed: int
    generations: int = 3


# ------------------------------------------------------------------ every leave, indexed


class LeaveIndex:
    """Every leave of a tile set (:func:`gamecore.leavegen.all_leaves`, KLV2 order) as a padded
    tile array ``tiles`` (one row per leave, -1 after its last tile), and a look-up from a leave's
    code (6 bits per tile) to its row."""

    def __init__(self, tile_set, rack_size: int):
        import numpy as np

        from gamecore.leavegen import all_leaves

        self.max_tiles = m = rack_size - 1
        self.leaves = list(all_leaves(tile_set, m))
        n = len(self.leaves)
        tiles = np.full((n, m), -1, dtype=np.int16)
        for length in range(1, m + 1):
            rows = [i for i, leave in enumerate(self.leaves) if len(leave) == length]
            if rows:
                tiles[rows, :length] = np.array([self.leaves[i] for i in rows], dtype=np.int16)
        self.tiles = tiles
        codes = self.codes_of(tiles)
        self.order = np.argsort(codes, kind="stable")
        self.sorted_codes = codes[self.order]

    @staticmethod
    def codes_of(tiles):
        import numpy as np

        codes = np.zeros(len(tiles), dtype=np.int64)
        for j in range(tiles.shape[1]):
            codes |= (tiles[:, j].astype(np.int64) + 1) << (6 * j)
        return codes

    @staticmethod
    def code(leave: Sequence[int]) -> int:
        c = 0
        for j, t in enumerate(leave):
            c |= (t + 1) << (6 * j)
        return c

    def rows(self, codes):
        import numpy as np

        return self.order[np.searchsorted(self.sorted_codes, codes)]


# ------------------------------------------------------------------ self-play (workers)

_W: dict = {}


def _setup(cfg: Config, leaves_path: str | None, index: "LeaveIndex | None" = None) -> None:
    from gamecore.autoplay import Mover, Strategy
    from gamecore.best import load_bundle
    from gamecore.equity import LeaveTable
    from gamecore.klv import Klv
    from gamecore.rules import load_rules

    if _W.get("cfg") != cfg:
        rules = load_rules(cfg.rules)
        _W.clear()
        ts = rules.tiles()
        _W.update(cfg=cfg, rules=rules, ts=ts, mover=Mover(load_bundle(cfg.lexicon), rules))
        _W["index"] = index if index is not None else LeaveIndex(ts, rules.rack_size)
    if "strategy" not in _W or _W.get("leaves_path") != leaves_path:
        table = LeaveTable(Klv.read(leaves_path) if leaves_path else _zero_klv(), _W["ts"])
        _W["leaves_path"] = leaves_path
        _W["strategy"] = Strategy("equity", table)


def _play(mover, strategy, seed: str):
    """One self-play game (:func:`gamecore.autoplay.play_game`'s loop, both seats ``strategy``):
    the final state, and False when the game was cut short. Under a rule set with folded tiles (the
    Russian Ё playing as Е) the move search cannot yet take every board with such a tile on it
    (the generator's board codes have none for it, and the Python search counts the folded tiles
    as their letter): the game is then cut at that move and its racks so far kept."""
    import random

    from gamecore.errors import UsageError
    from gamecore.game_state import GameState

    state = GameState.new(mover.rules, players=2, seed=seed, check_plays=False)
    rng = random.Random(seed + ":moves")
    turns = 0
    while state.over is None and turns < 10_000:
        try:
            ev = mover.choose(state, strategy, rng)
        except (KeyError, UsageError):
            if not mover.folded:
                raise
            return state, False
        state.apply(ev)
        turns += 1
    return state, True


def _zero_klv():
    from gamecore.klv import Klv, klv2_bytes

    return Klv.from_bytes(klv2_bytes({(1,): 0.0}))


def _play_chunk(args) -> tuple:
    """The games of one chunk, summed per leave: ``(first game, rows, n, sum, sum of squares,
    racks, equity sum, score sum, games, cpu seconds)`` (:func:`gamecore.leavegen.add_rack_equities`
    with the rows of :class:`LeaveIndex`), or ``("error", line)``."""
    import numpy as np

    from gamecore.errors import SkraflError
    from gamecore.leavegen import game_turns, sub_leaves

    cfg, gen, leaves_path, indexes = args
    c0 = time.process_time()
    try:
        _setup(cfg, leaves_path)
        s = _W["strategy"]
        klv = s.leaves.klv
        ts, rack_size, index = _W["ts"], _W["rules"].rack_size, _W["index"]
        code = index.code
        codes: list[int] = []
        eqs: list[float] = []
        ways: list[int] = []
        racks, total, scores, cut = 0, 0.0, 0, 0
        for i in indexes:
            seed = f"leaves:{cfg.seed}:{gen}:{i}"
            state, whole = _play(_W["mover"], s, seed)
            cut += not whole
            scores += sum(state.scores)
            for _, rack, kept, score, bag in game_turns(state, ts):
                if kept is None or len(rack) != rack_size or bag < rack_size:
                    continue
                e = score + (klv.milli(kept) / 1000 if kept else 0.0)
                racks += 1
                total += e
                subs = sub_leaves(rack, rack_size - 1)
                codes.extend(code(x) for x, _ in subs)
                ways.extend(w for _, w in subs)
                eqs.extend([e] * len(subs))
        rows = index.rows(np.array(codes, dtype=np.int64)) if codes else np.zeros(0, dtype=np.int64)
        u, inv = np.unique(rows, return_inverse=True)
        e_arr = np.array(eqs)
        w_arr = np.array(ways, dtype=np.float64)
        n = np.bincount(inv, weights=w_arr, minlength=len(u)).astype(np.int64)  # whole numbers of ways
        sy = np.bincount(inv, weights=w_arr * e_arr, minlength=len(u))
        syy = np.bincount(inv, weights=w_arr * e_arr * e_arr, minlength=len(u))
        return (indexes[0], u, n, sy, syy, racks, total, scores, len(indexes), time.process_time() - c0, cut)
    except SkraflError as exc:
        return ("error", f"generation {gen}, games {indexes[0]}..{indexes[-1]}: {exc}")


class Tally:
    """Games summed per leave (rows of :class:`LeaveIndex`): ``n`` racks holding it, ``sy``/``syy``
    the sum and sum of squares of their equities; ``racks``/``equity`` every rack counted."""

    def __init__(self, size: int):
        import numpy as np

        self.n = np.zeros(size, dtype=np.int64)
        self.sy = np.zeros(size)
        self.syy = np.zeros(size)
        self.racks = 0
        self.equity = 0.0
        self.scores = 0
        self.games = 0
        self.cpu = 0.0
        self.cut = 0

    def add(self, rows, n, sy, syy, racks: int, equity: float, scores: int, games: int, cpu: float, cut: int = 0) -> None:
        self.n[rows] += n  # rows are distinct within a chunk
        self.sy[rows] += sy
        self.syy[rows] += syy
        self.racks += racks
        self.equity += equity
        self.scores += scores
        self.games += games
        self.cpu += cpu
        self.cut += cut


#: games per worker task; fixed, so that the sums are added in the same order at any worker count
CHUNK = 16


def play_generation(cfg: Config, gen: int, leaves_path: str | None, workers: int, tally: Tally, progress=None) -> None:
    """Every game of one generation, added to ``tally`` in game order."""
    from gamecore.errors import DataError

    jobs = [(cfg, gen, leaves_path, list(range(a, min(a + CHUNK, cfg.games)))) for a in range(0, cfg.games, CHUNK)]
    done: dict = {}
    firsts = [j[3][0] for j in jobs]
    nxt = 0

    def take(got):
        nonlocal nxt
        if got[0] == "error":
            raise DataError(got[1])
        done[got[0]] = got[1:]
        if progress:
            progress(got[8])
        while nxt < len(firsts) and firsts[nxt] in done:  # added in game order, whatever the finish order
            tally.add(*done.pop(firsts[nxt]))
            nxt += 1

    if workers <= 1:
        for job in jobs:
            take(_play_chunk(job))
    else:
        from pipelines.replay.run import pool_context, worker_init

        with pool_context().Pool(min(workers, len(jobs)), initializer=worker_init, initargs=(os.getpid(),)) as pool:
            for got in pool.imap_unordered(_play_chunk, jobs):
                take(got)


# ------------------------------------------------------------------ the estimate


class Features:
    """The regression's columns (module step 3): 0 the intercept; the first, second and
    third-or-later copy of each tile; each (vowels, consonants) count; each pair of two different
    tiles; and a last, dummy column for empty slots."""

    def __init__(self, tile_set, rack_size: int):
        import numpy as np

        k = self.kinds = len(tile_set.letters) + 1
        m = self.max_tiles = rack_size - 1
        self.vowel = np.array([False] + [label in tile_set.vowels for label in tile_set.letters])
        self.single0 = 1
        self.vc0 = self.single0 + 3 * k
        self.vc_col = np.zeros((m + 1, m + 1), dtype=np.int64)
        c = self.vc0
        for nv in range(m + 1):
            for nc in range(m + 1 - nv):
                if nv + nc:
                    self.vc_col[nv, nc] = c
                    c += 1
        self.pair0 = c
        self.size = self.pair0 + k * (k - 1) // 2  # the dummy column's index
        self.vc_col[0, 0] = self.size

    def columns(self, tiles):
        """The columns of each leave (rows of a padded tile array) as an int array, one row per
        leave, ``self.size`` in empty slots."""
        import numpy as np

        t = tiles.astype(np.int64)
        rows, m = t.shape
        valid = t >= 0
        copy = np.zeros_like(t)
        for j in range(1, m):
            copy[:, j] = np.where(valid[:, j] & (t[:, j] == t[:, j - 1]), copy[:, j - 1] + 1, 0)
        dummy = self.size
        cols = [np.zeros(rows, dtype=np.int64)]
        tt = np.where(valid, t, 0)
        for j in range(m):
            cols.append(np.where(valid[:, j], self.single0 + 3 * tt[:, j] + np.minimum(copy[:, j], 2), dummy))
        letter = valid & (tt > 0)
        nv = (letter & self.vowel[tt]).sum(axis=1)
        nc = (letter & ~self.vowel[tt]).sum(axis=1)
        cols.append(self.vc_col[nv, nc])
        first = valid & (copy == 0)
        k = self.kinds
        for a in range(m):
            for b in range(a + 1, m):
                ta, tb = tt[:, a], tt[:, b]
                col = self.pair0 + ta * (2 * k - ta - 1) // 2 + (tb - ta - 1)
                cols.append(np.where(first[:, a] & first[:, b], col, dummy))
        return np.stack(cols, axis=1)


@dataclass
class Fit:
    """A fitted model: ``weights`` by column (the dummy's 0), the blend constant ``k`` and the
    noise and spread it comes from, the racks and leaves it saw."""

    weights: np.ndarray
    k: float  # single tiles'
    sigma2: float
    tau2: float
    racks: int
    distinct: int
    k_by_size: list | None = None


def fit(tally: Tally, feats: Features, index: LeaveIndex) -> tuple[Fit, object, object]:
    """The weighted ridge regression (module step 3) and the blend (step 4): the fit, the observed
    rows and their blended corrections."""
    import numpy as np

    seen = np.nonzero(tally.n)[0]
    n = tally.n[seen].astype(np.float64)
    sy, syy = tally.sy[seen], tally.syy[seen]
    cols = feats.columns(index.tiles[seen])
    f = feats.size + 1
    xtx = np.zeros(f * f)
    xty = np.zeros(f)
    slots = cols.shape[1]
    for a in range(slots):
        xty += np.bincount(cols[:, a], weights=sy, minlength=f)
        base = cols[:, a] * f
        for b in range(slots):
            xtx += np.bincount(base + cols[:, b], weights=n, minlength=f * f)
    xtx = xtx.reshape(f, f)[: f - 1, : f - 1]
    xty = xty[: f - 1]
    pen = np.full(f - 1, RIDGE)
    pen[0] = 0.0
    xtx[np.diag_indices(f - 1)] += pen
    w = np.append(np.linalg.solve(xtx, xty), 0.0)
    pred = w[cols].sum(axis=1)
    mean = sy / n
    r = mean - pred
    # the blend, per leave size: short leaves are seen in thousands of racks, long ones in a few
    size = (index.tiles[seen] >= 0).sum(axis=1)
    corr = np.zeros(len(seen))
    ks, sigmas, taus = [], [], []
    for m in range(1, feats.max_tiles + 1):
        at = size == m
        if not at.any():
            continue
        nm, rm = n[at], r[at]
        dof = float((nm - 1).sum())
        within = float(np.maximum(syy[at] - nm * mean[at] ** 2, 0).sum())
        sigma2 = within / dof if dof > 0 else float(np.var(rm)) or 1.0
        between = float((nm * rm * rm - sigma2).sum()) / float(nm.sum())
        tau2 = max(between, RESIDUAL_SD**2)
        k = sigma2 / tau2
        corr[at] = nm / (nm + k) * rm
        ks.append(k)
        sigmas.append(sigma2)
        taus.append(tau2)
    k, sigma2, tau2 = ks[0], sigmas[0], taus[0]
    return Fit(w, k, sigma2, tau2, tally.racks, len(seen), [round(x, 1) for x in ks]), seen, corr


def predict_all(index: LeaveIndex, feats: Features, model: Fit, seen, corr, baseline: float):
    """Every leave's value: the model's mean rack equity plus the blended correction of the
    observed, less ``baseline`` (the mean equity of all racks), in KLV2 order."""
    import numpy as np

    out = np.empty(len(index.leaves))
    step = 1 << 19
    for a in range(0, len(out), step):
        out[a : a + step] = model.weights[feats.columns(index.tiles[a : a + step])].sum(axis=1)
    out -= baseline
    out[seen] += corr
    return out


def quantize(values) -> list[float]:
    """Values rounded to the nearest 1/:data:`QUANTUM` of a point (half away from zero)."""
    import numpy as np

    q = np.sign(values) * np.floor(np.abs(values) * QUANTUM + 0.5) / QUANTUM
    return q.astype(np.float32).tolist()


# ------------------------------------------------------------------ the build


@dataclass
class Result:
    klv: bytes
    stats: dict


def build_leaves(cfg: Config, workers: int = 1, progress: Callable[[int], None] | None = None) -> Result:
    """Play the generations and estimate every leave (the module's method); the KLV2 bytes and the
    numbers the manifest records."""
    from gamecore.klv import klv2_bytes_sorted
    from gamecore.rules import load_rules

    rules = load_rules(cfg.rules)
    ts = rules.tiles()
    feats = Features(ts, rules.rack_size)
    index = LeaveIndex(ts, rules.rack_size)
    _setup(cfg, None, index)  # bad inputs fail here, once; forked workers inherit the index
    tally = Tally(len(index.leaves))
    per_gen = []
    leaves_path = None
    cpu = 0.0
    with tempfile.TemporaryDirectory(prefix="skrafl-leaves-") as tmp:
        for gen in range(cfg.generations):
            if gen == 1:
                tally = Tally(len(index.leaves))  # generation 0 played without leaves: left out once others exist
            before = (tally.games, tally.scores, tally.racks, tally.cpu, tally.cut)
            play_generation(cfg, gen, leaves_path, workers, tally, progress)
            model, seen, corr = fit(tally, feats, index)
            baseline = tally.equity / tally.racks if tally.racks else 0.0
            est = quantize(predict_all(index, feats, model, seen, corr, baseline))
            games = tally.games - before[0]
            per_gen.append(
                {
                    "generation": gen,
                    "games": games,
                    "racks": tally.racks - before[2],
                    "mean_score": round((tally.scores - before[1]) / (2 * games), 2),
                    "leaves_observed": model.distinct,
                    "mean_rack_equity": round(baseline, 3),
                    "blend_k_by_size": model.k_by_size,
                    "game_cpu_seconds": round(tally.cpu - before[3], 1),
                    "games_cut_short": tally.cut - before[4],
                }
            )
            cpu += tally.cpu - before[3]
            if gen + 1 < cfg.generations:
                leaves_path = str(Path(tmp) / f"gen{gen + 1}.klv2")
                Path(leaves_path).write_bytes(klv2_bytes_sorted(index.leaves, est))
    data = klv2_bytes_sorted(index.leaves, est)
    stats = {
        "leaves": len(index.leaves),
        "racks": tally.racks,
        "leaves_observed": model.distinct,
        "rack_equity_sd": round(model.sigma2**0.5, 3),
        "leave_residual_sd": round(model.tau2**0.5, 3),
        "blend_k_by_size": model.k_by_size,
        "game_cpu_seconds": round(cpu, 1),
        "generations_detail": per_gen,
    }
    return Result(data, stats)


def lexicon_checksum(folder: Path) -> str:
    """SHA-256 of the lexicon's KWG as its manifest records it (else computed)."""
    m = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    got = (m.get("files") or {}).get("lexicon.kwg", {}).get("sha256")
    if got:
        return got
    h = hashlib.sha256()
    with open(folder / "lexicon.kwg", "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def manifest_path(out: Path) -> Path:
    """The manifest beside a leave file: ``NAME.klv2`` → ``NAME.json``."""
    name = out.name
    stem = name[: -len(".klv2")] if name.endswith(".klv2") else out.stem
    return out.with_name(stem + ".json")


def write_outputs(out: Path, data: bytes, manifest: dict) -> None:
    """The leave file and its manifest, each written to a temporary file beside it, fsynced and
    renamed into place (the leave file first; the manifest names its SHA-256)."""
    man = manifest_path(out)
    texts = [(out, data), (man, (json.dumps(manifest, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))]
    tmps = []
    try:
        for path, blob in texts:
            tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
            tmps.append(tmp)
            with open(tmp, "wb") as fh:
                fh.write(blob)
                fh.flush()
                os.fsync(fh.fileno())
        for (path, _), tmp in zip(texts, tmps, strict=True):
            os.replace(tmp, path)
    finally:
        for tmp in tmps:
            if tmp.exists():
                tmp.unlink()


def run_leaves_build(
    cfg: Config, out: Path, workers: int = 1, progress: Callable[[int], None] | None = None, command: str = ""
) -> dict:
    """Build and write ``out`` and its manifest; returns the manifest."""
    from gamecore.rules import load_rules

    t0, c0 = time.time(), time.process_time()
    res = build_leaves(cfg, workers, progress)
    rules = load_rules(cfg.rules)
    folder = Path(cfg.lexicon)
    lex = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest = {
        "command": command,
        "method": "self-play, equity players; leave = mean equity of the racks holding it less that of all racks; ridge model "
        "(tile copies, vowel/consonant balance, pairs) blended with observed means (pipelines/leaves_build.py)",
        "seed": cfg.seed,
        "games": cfg.games,
        "generations": cfg.generations,
        "rules": rules.name,
        "tile_set": rules.tiles().name,
        "rack_size": rules.rack_size,
        "lexicon": lex.get("name", folder.name),
        "lexicon_words": lex.get("words"),
        "lexicon_sha256": lexicon_checksum(folder),
        "klv2_sha256": hashlib.sha256(res.klv).hexdigest(),
        "klv2_bytes": len(res.klv),
        **res.stats,
        "time": {
            "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "wall_seconds": round(time.time() - t0, 1),
            "cpu_seconds_parent": round(time.process_time() - c0, 1),
            "workers": workers,
        },
    }
    write_outputs(out, res.klv, manifest)
    return manifest
