"""The win models of ``skrafl best --sim`` (:class:`gamecore.simulation.WinModel`), made by our own
self-play: ``python -m bench.build_win_models [GAMES]`` plays GAMES games per language (default 400)
of the static-equity player against itself where a leave file is at hand (English: CSW21.klv2 from
``$MAGPIE_DATA``/data/lexica or /tmp; else a language's shipped leaves), else of the top-score player,
on the built lexicons output/LANG, and fits the logistic curve to every position of them
(:func:`gamecore.simulation.fit_win_model`); writes gamecore/data/win_models.json.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
LANGS = ("en", "is", "nb", "ru", "sl")


def _leaves(lang: str, tile_set):
    from gamecore.equity import LeaveTable
    from gamecore.klv import Klv, shipped_leaves

    path = None
    if lang == "en":
        for root in (os.environ.get("MAGPIE_DATA", ""), ""):
            p = Path(root, "data", "lexica", "CSW21.klv2") if root else Path("/tmp/CSW21.klv2")
            if p.is_file():
                path = p
                break
    if path is None:
        path = shipped_leaves(lang)
    return LeaveTable(Klv.read(path), tile_set) if path is not None else None


def build(lang: str, games: int) -> dict | None:
    from gamecore.autoplay import Mover, Strategy, play_game
    from gamecore.best import load_bundle
    from gamecore.rules import rules_for
    from gamecore.simulation import fit_win_model, win_samples

    folder = PROJECT / "output" / lang
    if not (folder / "manifest.json").is_file():
        print(f"{lang}: no built lexicon in {folder}: skipped")
        return None
    bundle = load_bundle(folder)
    rules = rules_for(lang, bundle.rules_name)
    table = _leaves(lang, rules.tiles())
    kind = "equity" if table is not None else "score"
    mover = Mover(bundle, rules)
    strategy = Strategy(kind, table)
    samples = []
    t = time.process_time()
    wall = time.perf_counter()
    for i in range(games):
        res = play_game(mover, [strategy, strategy], f"winmodel:{lang}:{i}", f"winmodel:{lang}:{i}:moves")
        samples += win_samples(res)
    played = time.process_time() - t
    model = fit_win_model(samples, f"{games} self-play games, {kind} v {kind}, {len(samples)} positions")
    print(f"{lang}: {model} ({played:.0f} CPU-s of play, {time.perf_counter() - wall:.0f} s in all)", flush=True)
    return {"turn": model.turn, "scale": model.scale, "per_tile": model.per_tile, "source": model.source}


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    langs = sys.argv[2].split(",") if len(sys.argv) > 2 else LANGS
    out = PROJECT / "gamecore" / "data" / "win_models.json"
    data = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    from gamecore.errors import SkraflError

    for lang in langs:
        try:
            got = build(lang, games)
        except SkraflError as exc:  # a language whose self-play fails: reported, the others go on
            print(f"{lang}: not built: {exc}", flush=True)
            continue
        if got is not None:
            data[lang] = got
            tmp = out.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
            tmp.replace(out)


if __name__ == "__main__":
    main()
