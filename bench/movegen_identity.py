"""Is the move generator's output byte-identical to an earlier revision's? (Not a timing: run it by
hand after a change to the C of ``gamecore/c/``; ``make bench`` does not.)

    .venv/bin/python bench/movegen_identity.py [REV] [GAMES]

REV (default ``HEAD``): the revision whose ``gamecore._native`` C (``gamecore/c/*.c`` with its headers,
or the single ``gamecore/_native.c`` of revisions before the split) is compiled here into a temporary folder and loaded beside the installed build. GAMES (default 37) self-play
games of the ``score`` strategy in each of ``output/en`` (``wespa``) and ``output/is``
(``netskrafl``), whichever are built (37 of each: about 1,670 positions). On every position, each
build gives: every play of a ``Position`` synced from the previous position (a ``MoveList``), every
play of the stateless ``generate``, and the top K = 1, 2, 5, 10 of the pruned search with and
without the bingo index; the two builds' outputs are hashed (SHA-256 of the pickled tuples) and
compared. Prints the number of positions, both digests and IDENTICAL or DIFFERENT (exit 1).
"""

from __future__ import annotations

import hashlib
import importlib.util
import pickle
import random
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]


def old_build(rev: str, folder: Path):
    """The C of ``gamecore._native`` at ``rev`` compiled into ``folder`` and loaded (as a module apart)."""
    src = folder / "src"
    src.mkdir()
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", rev, "gamecore/"], cwd=PROJECT, capture_output=True, text=True, check=True
    ).stdout.split()
    split = any(name.startswith("gamecore/c/") for name in names)
    for name in names:
        if name.endswith((".c", ".h")) and (name.startswith("gamecore/c/") if split else name.count("/") == 1):
            text = subprocess.run(["git", "show", f"{rev}:{name}"], cwd=PROJECT, capture_output=True, check=True).stdout
            (src / Path(name).name).write_bytes(text)
    sources = sorted(str(p) for p in src.glob("*.c")) if split else [str(src / "_native.c")]
    so = folder / ("_native" + sysconfig.get_config_var("EXT_SUFFIX"))
    inc = sysconfig.get_paths()["include"]
    cc = ["cc", "-O3", "-std=gnu99", "-pthread", "-shared", "-fPIC", f"-I{inc}", *sources, "-o", str(so)]
    subprocess.run(cc, check=True)
    spec = importlib.util.spec_from_file_location("_native", so)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def positions(lang: str, rules_name: str, games: int):
    from gamecore.autoplay import Mover, Strategy
    from gamecore.best import _index_map, encode_grid, load_bundle
    from gamecore.game_state import GameState
    from gamecore.rules import load_rules

    bundle, rules = load_bundle(PROJECT / "output" / lang), load_rules(rules_name)
    mover, idx = Mover(bundle, rules), _index_map(bundle.alphabet)
    out = []
    for g in range(games):
        st = GameState.new(rules, 2, seed=f"id{lang}{g}")
        rng = random.Random(g)
        while st.over is None:
            counts, blanks = [0] * (len(bundle.alphabet) + 1), 0
            for t in st.racks[st.turn]:
                if t == "?":
                    blanks += 1
                elif t in idx:
                    counts[idx[t]] += 1
            out.append((encode_grid(st.board, bundle.alphabet), counts, blanks, st.board.is_empty()))
            st.apply(mover.choose(st, Strategy("score"), rng))
    return bundle, rules, out


def digest(mod, bundle, rules, pos) -> hashlib._Hash:
    ts, lay = rules.tiles(), rules.layout()
    values = [0] + [ts.value(x) for x in bundle.alphabet]
    index = bundle.kwg.bingo_index(rules.bingo_min_tiles)
    kwg, wide = bundle.kwg.buffer, int(bundle.kwg.wide)
    sr, sc = lay.start
    h = hashlib.sha256()
    p = mod.Position(kwg, lay.letter_mult, lay.word_mult, sr, sc, values, rules.bingo_bonus, rules.bingo_min_tiles, None, wide)
    for grid, counts, blanks, first in pos:
        p.sync(grid)
        h.update(pickle.dumps([tuple(m) for m in p.generate(counts, blanks, -1, False, False, None, None, None, True)]))
        plays = mod.generate(kwg, grid, counts, blanks, lay.letter_mult, lay.word_mult, sr, sc, values, rules.bingo_bonus,
                             first, rules.bingo_min_tiles, None, wide, False)  # fmt: skip
        h.update(pickle.dumps([tuple(m) for m in plays]))
        for k in (1, 2, 5, 10):
            for bi in (None, index):
                h.update(pickle.dumps([tuple(m) for m in p.generate(counts, blanks, k, True, True, None, None, bi)]))
    return h


def main() -> int:
    rev = sys.argv[1] if len(sys.argv) > 1 else "HEAD"
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 37
    from gamecore.kwg import native_core

    new = native_core()
    total, hs = 0, {"old": hashlib.sha256(), "new": hashlib.sha256()}
    with tempfile.TemporaryDirectory() as tmp:
        old = old_build(rev, Path(tmp))
        for lang, rules_name in (("en", "wespa"), ("is", "netskrafl")):
            if not (PROJECT / "output" / lang / "lexicon.kwg").is_file():
                print(f"output/{lang} not built: left out")
                continue
            bundle, rules, pos = positions(lang, rules_name, games)
            total += len(pos)
            for name, mod in (("old", old), ("new", new)):
                hs[name].update(digest(mod, bundle, rules, pos).digest())
    same = hs["old"].digest() == hs["new"].digest()
    print(f"positions {total}; {rev}: {hs['old'].hexdigest()}; this build: {hs['new'].hexdigest()}")
    print("IDENTICAL" if same else "DIFFERENT")
    return 0 if same else 1


if __name__ == "__main__":
    sys.path.insert(0, str(PROJECT))
    raise SystemExit(main())
