"""``skrafl bag``: the balance of a tile set measured by self-play of two equity players."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from cli.common import FORMAT_OPTION, QUIET_OPTION, OutputFormat, emit, input_file, lexicon_folder

HELP = (
    "Measure a bag (the tile set of a rule set, or a candidate tile-set file) by self-play of two equity players: per "
    "letter the mean turns a tile stays on a rack, its single-tile leave value, the score of the plays that place it "
    "and the bingo rate of racks holding it; for the bag its evenness (the standard deviation over letters of the mean "
    "turns on a rack), vowel balance of racks, score, bingos and moves per game, all with 95 % intervals. --compare "
    "RULES2 plays a second bag letter by letter beside the first. Prints the bag's measures; with --out DIR writes "
    "DIR/letters.csv, DIR/bag.csv, DIR/report.md and DIR/rack_turns.svg, replaced whole.\n\n"
    "Intervals are per-game clustered (delta method over games); the evenness's and the difference's a Poisson "
    "bootstrap over games seeded by --seed. Game i is a function of --seed and i only: the same seed gives the same "
    "bytes at any --workers or on --cluster. A --tiles file must hold as many tiles and as many points as the rule "
    "set's tile set (a bad one: one line naming the letter).\n\n"
    "Exit status: 0 done; 2 usage or input error (one line on stderr)."
)


def bag(
    lang: Optional[str] = typer.Option(None, "--lang", "-l", help="Language: the built lexicon output/LANG."),
    lexicon: Optional[Path] = typer.Option(None, "--lexicon", help="A lexicon folder written by 'skrafl build'."),
    rules: Optional[str] = typer.Option(None, "--rules", help="Rules preset or .toml file (default: the lexicon's)."),
    tiles: Optional[Path] = typer.Option(None, "--tiles", help="A candidate tile-set file (.tsv) played under --rules."),
    compare: Optional[str] = typer.Option(None, "--compare", help="A second rule set whose bag is compared with the first."),
    compare_tiles: Optional[Path] = typer.Option(
        None, "--compare-tiles", help="A candidate tile-set file played as the second bag (under --compare, else --rules)."
    ),
    leaves: Optional[str] = typer.Option(
        None, "--leaves", help="KLV2 leave file of the equity players (default: the shipped leaves of each rule set)."
    ),
    games: int = typer.Option(1000, "--games", "-n", help="Games per bag."),
    seed: int = typer.Option(0, "--seed", help="Seed (0 or more): the same seed gives the same games and intervals."),
    workers: int = typer.Option(1, "--workers", "-j", help="Worker processes."),
    cluster: Optional[str] = typer.Option(
        None, "--cluster", help="Run the games on this Dask scheduler (tcp://HOST:8786; needs skrafl[cluster])."
    ),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write letters.csv, bag.csv, report.md, rack_turns.svg here."),
    fmt: OutputFormat = FORMAT_OPTION,
    quiet: bool = QUIET_OPTION,
) -> None:
    """Measure a bag's balance by self-play."""
    import sys

    from gamecore.errors import UsageError

    if (lexicon is None) == (lang is None):
        raise UsageError("give --lang L (the built lexicon output/L) or --lexicon DIR, one of them")
    if games < 2:
        raise UsageError(f"--games must be at least 2 (the intervals need two games); got {games}")
    if seed < 0:
        raise UsageError(f"--seed must be 0 or more; got {seed}")
    if workers < 1:
        raise UsageError(f"--workers must be at least 1; got {workers}")
    folder = lexicon_folder(lexicon, lang)
    from gamecore.best import load_bundle

    bundle = load_bundle(folder)
    from cli.position import resolve_rules

    first = resolve_rules(rules, bundle, lang)
    rules_ref = rules if rules else first.name
    bags = [(rules_ref, tiles)]
    if compare is not None or compare_tiles is not None:
        second = compare if compare is not None else rules_ref
        resolve_rules(second, bundle, lang)
        bags.append((second, compare_tiles))
    from pipelines.bag import Config, run_bag

    cfgs, inputs = [], [folder]
    for r, t in bags:
        tile_file = input_file(Path(t), "tile set", "--tiles") if t is not None else None
        lv = _bag_inputs(bundle, r, tile_file, leaves, lang)
        inputs += [p for p in (tile_file, lv) if p is not None]
        cfgs.append(Config(str(bundle.folder), r, str(lv), games, seed, str(tile_file) if tile_file else None))
    if len(cfgs) == 2 and cfgs[0] == cfgs[1]:
        raise UsageError("--compare names the same bag as the first: give another rule set or --compare-tiles")
    from tqdm import tqdm

    bar = tqdm(total=games * len(cfgs), unit="game", desc="bag", file=sys.stderr, disable=quiet, leave=False)
    try:
        results, cmp = run_bag(cfgs, out, workers, cluster, bar.update, inputs)
    finally:
        bar.close()
    _report(results, cmp, fmt)


def _bag_inputs(bundle, rules: str, tile_file: Path | None, leaves: str | None, lang: str | None) -> Path:
    """Check one bag (its rule set, with ``--tiles`` its tile set) against the lexicon; the leave
    file its equity players use (``--leaves``, else the shipped leaves of ``--lang``)."""
    from gamecore.errors import UsageError
    from pipelines.bag import check_tile_set, load_rules_with_tiles

    if tile_file is not None:
        check_tile_set(str(tile_file), rules, bundle.alphabet)
    rs = load_rules_with_tiles(rules, str(tile_file) if tile_file else None)
    if rs.blank_swap:
        raise UsageError(f"the rule set {rs.name} swaps blanks from the board, which self-play does not play")
    ts = rs.tiles()
    missing = [a for a in bundle.alphabet if not ts.has(a)]
    if missing:
        raise UsageError(f"the lexicon {bundle.folder} has letters the tile set {ts.name} lacks ({''.join(missing[:12])})")
    if not (leaves or lang):
        raise UsageError("give --leaves FILE.klv2 (or --lang L for the shipped leaves)")
    return _leave_path(leaves or "shipped", lang, rules)


def _report(results, cmp, fmt: OutputFormat) -> None:
    """Each bag's measures with their intervals (and the difference of two bags' evenness, with its
    verdict) on stdout."""
    import json
    import math
    import sys

    rows = []
    for r in results:
        for m, (v, lo, hi) in r.summary.items():
            rows.append(
                [r.name, m, round(v, 4), None if math.isnan(lo) else round(lo, 4), None if math.isnan(hi) else round(hi, 4)]
            )
        rows.append([r.name, "games_per_cpu_second", round(r.games / r.cpu, 1) if r.cpu else None, None, None])
    if cmp:
        rows.append(
            [
                "difference",
                "evenness_difference",
                round(cmp["evenness_difference"], 4),
                round(cmp["low"], 4),
                round(cmp["high"], 4),
            ]
        )
    if fmt == OutputFormat.json:
        d = {"bags": [{"bag": a, "measure": m, "value": v, "low": lo, "high": hi} for a, m, v, lo, hi in rows]}
        if cmp:
            d["verdict"] = cmp["verdict"]
        json.dump(d, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        emit(rows, ["bag", "measure", "value", "low", "high"], fmt)
        if cmp and fmt == OutputFormat.table:
            sys.stdout.write(cmp["verdict"] + "\n")


def _leave_path(value: str, lang: str | None, rules: str | None) -> Path:
    from gamecore.klv import leaves_option

    shipped = leaves_option(value, lang, rules)
    return shipped if shipped is not None else input_file(Path(value), "leave", "--leaves")


def register(app: typer.Typer) -> None:
    app.command(
        "bag",
        help=HELP,
        epilog="Example: skrafl bag --lang is --rules netskrafl --compare netskrafl_old --games 20000 --workers 2 --out runs/bag",
    )(bag)
