"""``skrafl leaves``: the value of a rack's tiles in a KLV2 leave file, and where a language's leave file is."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from cli.common import FORMAT_OPTION, QUIET_OPTION, OutputFormat, emit, input_file, output_root

HELP = (
    "Leave values: 'skrafl leaves show FILE RACK' prints the value of keeping RACK's tiles (a KLV2 leave file, as "
    "MAGPIE and wolges write it, e.g. MAGPIE-DATA's data/lexica/CSW21.klv2); 'skrafl leaves path --lang L' prints "
    "the path of the leave file shipped for language L.\n\n"
    "show: columns leave (alphabet order, blanks '?' last) and value (points, as stored; a leave the file "
    "lacks is worth 0). --all: every distinct non-empty sub-leave of RACK, best first (then fewer tiles). The "
    "letters are read with the tile set of --rules, else of --lang's rules (default en: wespa, English); a file "
    "whose tile numbers the set does not have is refused.\n\n"
    "path: the shipped leave file of --lang L (--rules R: of that rule set's tile set), a KLV2 file MAGPIE reads "
    "(a compressed one is unpacked once into the cache folder, $SKRAFL_CACHE or ~/.cache/skrafl, and that path "
    "printed).\n\n"
    "build: leave values from self-play (--lang L or --lexicon DIR, --rules R; --games N per generation, --seed S, "
    "--generations G, --workers W): equity players play each generation with the previous one's leaves; a leave is "
    "worth the mean equity of the racks holding it less that of all racks (MAGPIE's leavegen), modelled (tile copies, "
    "vowel/consonant balance, pairs) where the games saw it rarely, so that every leave of 1..rack size-1 tiles has a "
    "value. Writes --out FILE.klv2 and FILE.json (command, seed, games, generations, rules, lexicon checksum, time), "
    "each replaced whole; the same seed gives the same KLV2 bytes at any --workers.\n\n"
    "Exit status: 0 done; 2 usage or input error (one line on stderr)."
)


def leaves(
    action: str = typer.Argument(..., help="show (FILE RACK), path (--lang L) or build (--games N --out FILE.klv2)."),
    args: Optional[List[str]] = typer.Argument(None, help="show: the KLV2 file and the rack, e.g. CSW21.klv2 AEINST?"),
    lang: Optional[str] = typer.Option(None, "--lang", "-l", help="Language (its rules' tile set; path: whose leave file)."),
    rules: Optional[str] = typer.Option(None, "--rules", help="Rules preset or .toml file whose tile set reads the letters."),
    show_all: bool = typer.Option(False, "--all", help="show: every sub-leave of RACK, best first."),
    lexicon: Optional[Path] = typer.Option(None, "--lexicon", help="build: a lexicon folder written by 'skrafl build'."),
    games: Optional[int] = typer.Option(None, "--games", "-n", help="build: self-play games per generation."),
    seed: int = typer.Option(0, "--seed", help="build: seed (0 or more): the same seed gives the same leaves."),
    generations: int = typer.Option(3, "--generations", help="build: generations of self-play (the first without leaves)."),
    workers: int = typer.Option(1, "--workers", "-j", help="build: worker processes."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="build: the KLV2 file to write (and NAME.json beside it)."),
    quiet: bool = QUIET_OPTION,
    fmt: OutputFormat = FORMAT_OPTION,
) -> None:
    """Leave values: 'skrafl leaves show FILE RACK' prints the value of keeping RACK's tiles (a KLV2 leave file, as
    MAGPIE and wolges write it, e.g. MAGPIE-DATA's data/lexica/CSW21.klv2); 'skrafl leaves path --lang L' prints
    the path of the leave file shipped for language L."""
    from gamecore.errors import UsageError

    args = list(args or [])
    build_only = {"--lexicon": lexicon, "--games": games, "--out": out}
    if action != "build":
        given = [k for k, v in build_only.items() if v is not None]
        if given:
            raise UsageError(f"{', '.join(given)}: options of 'leaves build'")
    if action == "build":
        if args or show_all:
            raise UsageError("leaves build takes options only: --lang L or --lexicon DIR, --games N, --out FILE.klv2")
        _build(lang, lexicon, rules, games, seed, generations, workers, out, quiet)
        return
    if action == "path":
        from gamecore.klv import plain_klv2, shipped_leaves

        if args or show_all:
            raise UsageError("leaves path takes only --lang L (and --rules R)")
        if not lang:
            raise UsageError("leaves path: give --lang L")
        p = shipped_leaves(lang, rules)
        if p is None:
            raise UsageError(
                f"no leave file is shipped for language {lang!r}"
                + (f" and rules {rules!r}" if rules else "")
                + "; build one with 'skrafl leaves build'"
            )
        typer.echo(str(plain_klv2(p)))
        return
    if action != "show":
        raise UsageError(f"unknown action {action!r}: give 'show FILE RACK', 'path --lang L' or 'build'")
    if len(args) != 2:
        raise UsageError("leaves show takes a KLV2 file and a rack, e.g. 'skrafl leaves show CSW21.klv2 AEINST?'")
    from gamecore.equity import LeaveTable
    from gamecore.klv import Klv
    from gamecore.rules import load_rules, rules_for

    ruleset = load_rules(rules) if rules else rules_for(lang or "en")
    ts = ruleset.tiles()
    path = input_file(Path(args[0]), "leave", "FILE")
    table = LeaveTable(Klv.read(path), ts)
    if not args[1].strip():
        raise UsageError("the rack is empty: give its tiles, e.g. AEINST? ('?' = blank)")
    rack = ts.parse_rack(args[1], check_counts=False)
    tiles = table.tiles(rack)
    if show_all:
        from itertools import product

        kinds = sorted(set(tiles))
        subs = set()
        for n in product(*(range(tiles.count(k) + 1) for k in kinds)):
            sub = tuple(k for k, c in zip(kinds, n, strict=True) for _ in range(c))
            if sub:
                subs.add(sub)
    else:
        subs = {tiles}
    rows = [(table.labels(s), table.klv.milli(s) / 1000, s) for s in subs]  # as MAGPIE reads it: to the thousandth
    rows.sort(key=lambda r: (-r[1], len(r[2]), r[2]))
    emit([[text, value] for text, value, _ in rows], ["leave", "value"], fmt)


def _build(lang, lexicon, rules, games, seed, generations, workers, out, quiet) -> None:
    """``leaves build``: the checks (one line each, nothing written), the build, a summary."""
    import sys

    from gamecore.errors import UsageError

    if lexicon is not None and lang is not None:
        raise UsageError("give --lang or --lexicon, not both")
    if lexicon is None and lang is None:
        raise UsageError("leaves build: give --lang L (the built lexicon output/L) or --lexicon DIR")
    if games is None:
        raise UsageError("leaves build: give --games N (self-play games per generation, e.g. 20000)")
    if games < 1:
        raise UsageError(f"--games must be at least 1; got {games}")
    if seed < 0:
        raise UsageError(f"--seed must be 0 or more; got {seed}")
    if generations < 1:
        raise UsageError(f"--generations must be at least 1; got {generations}")
    if workers < 1:
        raise UsageError(f"--workers must be at least 1; got {workers}")
    if out is None:
        raise UsageError("leaves build: give --out FILE.klv2")
    if not out.name.endswith(".klv2") or out.name == ".klv2":
        raise UsageError(f"--out {out}: the leave file's name must end in .klv2")
    folder = Path(lexicon) if lexicon is not None else output_root() / lang
    from gamecore.best import load_bundle

    bundle = load_bundle(folder)
    from cli.position import resolve_rules

    ruleset = resolve_rules(rules, bundle, lang)
    if ruleset.blank_swap:
        raise UsageError(f"the rule set {ruleset.name} swaps blanks from the board, which self-play does not play")
    ts = ruleset.tiles()
    missing = [a for a in bundle.alphabet if not ts.has(a)]
    if missing:
        raise UsageError(
            f"the lexicon {folder} has letters the tile set {ts.name} of rules {ruleset.name} lacks "
            f"({''.join(missing[:12])}): give --rules of the lexicon's language"
        )
    if len(ts.letters) + 1 > 63 or ruleset.rack_size > 11:
        raise UsageError(f"leaves build handles at most 62 letters and racks of at most 11 tiles (rules {ruleset.name})")
    from gamecore.picture import check_write_target
    from pipelines.leaves_build import Config, manifest_path, run_leaves_build

    check_write_target(out, [folder], what="the leave file", name_hint="(NAME.klv2)")
    check_write_target(manifest_path(out), [folder], what="the leave file's manifest", name_hint="")
    cfg = Config(str(bundle.folder), rules if rules else ruleset.name, games, seed, generations)
    from tqdm import tqdm

    command = " ".join(
        ["skrafl leaves build", f"--lexicon {folder}" if lexicon else f"--lang {lang}"]
        + ([f"--rules {rules}"] if rules else [])
        + [f"--games {games}", f"--seed {seed}", f"--generations {generations}", f"--out {out.name}"]
    )
    bar = tqdm(total=games * generations, unit="game", desc="leaves build", file=sys.stderr, disable=quiet, leave=False)
    try:
        man = run_leaves_build(cfg, out, workers, bar.update, command)
    finally:
        bar.close()
    if not quiet:
        typer.echo(
            f"→ {out}: {man['leaves']:,} leaves ({man['leaves_observed']:,} seen in {man['racks']:,} racks of "
            f"{games * generations:,} games; {man['game_cpu_seconds']} CPU-seconds of play)",
            err=True,
        )


def register(app: typer.Typer) -> None:
    app.command(
        "leaves",
        help=HELP,
        epilog="Example: skrafl leaves show CSW21.klv2 AEINST? --all",
    )(leaves)
