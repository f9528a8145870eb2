"""``skrafl autoplay``: self-play games between two strategies, a games table and a summary."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from cli.common import FORMAT_OPTION, QUIET_OPTION, OutputFormat, emit, input_file, lexicon_folder

HELP = (
    "Play games between two strategies (self-play) on the rules engine: score (top play by score), equity (static "
    "equity with a leave file, exchanges included), sim (Monte Carlo simulation of the best 5 moves by static equity, "
    "at most 96 iterations of 2 plies each, with the leave file; the equity player's move once the bag is empty), "
    "equity+endgame and sim+endgame (the same, and once the bag is empty the exact endgame solver's first move, "
    "searched 2 plies deep) or Netskrafl's robots (fullsterkur, midlungur, amlodi). Prints a summary (games, wins, "
    "ties, p1's win rate with ties counted half and its 95 % interval, mean scores, games per CPU-second); with --out "
    "DIR writes DIR/games.parquet and DIR/games.csv (one row per game) and, with --gcg, "
    "DIR/gcg/game-NNNNNN.gcg, replaced whole.\n\n"
    "Game i is a function of --seed and i only (the same seed gives the same bytes at any --workers); p1 moves first "
    "in even games, p2 in odd ones. --pairs: games 2k and 2k+1 share one bag, so each strategy plays the other's "
    "tiles from the same seat.\n\n"
    "Exit status: 0 done; 2 usage or input error (one line on stderr)."
)


class Strategy(str, Enum):
    score = "score"
    equity = "equity"
    sim = "sim"
    equity_endgame = "equity+endgame"
    sim_endgame = "sim+endgame"
    fullsterkur = "fullsterkur"
    midlungur = "midlungur"
    amlodi = "amlodi"


def autoplay(
    lang: Optional[str] = typer.Option(None, "--lang", "-l", help="Language: the built lexicon output/LANG."),
    lexicon: Optional[Path] = typer.Option(None, "--lexicon", help="A lexicon folder written by 'skrafl build'."),
    rules: Optional[str] = typer.Option(None, "--rules", help="Rules preset or .toml file (default: the lexicon's)."),
    games: int = typer.Option(100, "--games", "-n", help="Games to play."),
    seed: int = typer.Option(0, "--seed", help="Seed (0 or more): the same seed gives the same games."),
    p1: Strategy = typer.Option(Strategy.score, "--p1", help="Player 1's strategy."),
    p2: Strategy = typer.Option(Strategy.score, "--p2", help="Player 2's strategy."),
    leaves: Optional[str] = typer.Option(
        None, "--leaves", help="KLV2 leave file (or LANG, or shipped) for every equity player (default with --lang: shipped)."
    ),
    leaves1: Optional[str] = typer.Option(None, "--leaves1", help="Leave file of player 1 (equity)."),
    leaves2: Optional[str] = typer.Option(None, "--leaves2", help="Leave file of player 2 (equity)."),
    pairs: bool = typer.Option(False, "--pairs", help="Play games in pairs on the same bag, seats swapped."),
    workers: int = typer.Option(1, "--workers", "-j", help="Worker processes."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write games.parquet, games.csv (and gcg/) here."),
    gcg: bool = typer.Option(False, "--gcg", help="Also write every game as GCG under OUT/gcg/."),
    check_plays: bool = typer.Option(
        False,
        "--check-plays",
        help="Check every play with the rules oracle as replay does (its words in the lexicon, its score): the same "
        "games, about a fifth slower. Without it a play is taken as the move generator made it.",
    ),
    fmt: OutputFormat = FORMAT_OPTION,
    quiet: bool = QUIET_OPTION,
) -> None:
    """Play games between two strategies (self-play) and summarise who won."""
    import json
    import sys

    from gamecore.errors import UsageError

    if lexicon is not None and lang is not None:
        raise UsageError("give --lang or --lexicon, not both")
    if lexicon is None and lang is None:
        raise UsageError("give --lang L (the built lexicon output/L) or --lexicon DIR")
    _check_counts(games, seed, workers, pairs)
    if gcg and out is None:
        raise UsageError("--gcg writes OUT/gcg/: give --out DIR too")
    from gamecore.autoplay import EQUITY_STRATEGIES

    kinds = (p1.value, p2.value)
    given = _leave_choices(kinds, leaves, (leaves1, leaves2), lang)
    folder = lexicon_folder(lexicon, lang)
    from gamecore.best import load_bundle

    bundle = load_bundle(folder)
    from cli.position import resolve_rules

    ruleset = resolve_rules(rules, bundle, lang)  # --rules, else the lexicon's, else the language's
    if ruleset.blank_swap:
        raise UsageError(f"the rule set {ruleset.name} swaps blanks from the board, which autoplay does not play")
    ts = ruleset.tiles()
    missing = [a for a in bundle.alphabet if not ts.has(a)]
    if missing:
        raise UsageError(
            f"the lexicon {folder} has letters the tile set {ts.name} of rules {ruleset.name} lacks "
            f"({''.join(missing[:12])}): give --rules of the lexicon's language"
        )
    rules_ref = rules if rules else ruleset.name
    leave_paths = []
    for kind, lv in zip(kinds, given, strict=True):
        leave_paths.append(leave_path(lv, lang, rules_ref) if kind in EQUITY_STRATEGIES and lv is not None else None)
    vocab = [vocabulary_tier(kind, folder) for kind in kinds]
    from pipelines.autoplay import Config, run_autoplay

    cfg = Config(
        lexicon=str(bundle.folder),
        rules=rules_ref,
        p1=kinds[0],
        p2=kinds[1],
        games=games,
        seed=seed,
        leaves=tuple(str(p) if p else None for p in leave_paths),
        vocabulary=tuple(vocab),
        pairs=pairs,
        gcg=gcg,
        check_plays=check_plays,
    )
    inputs = [folder] + [p for p in leave_paths if p]
    from tqdm import tqdm

    bar = tqdm(total=games, unit="game", desc="autoplay", file=sys.stderr, disable=quiet, leave=False)
    try:
        summary = run_autoplay(cfg, out, workers, bar.update, inputs)
    finally:
        bar.close()
    d = summary.as_dict()
    if fmt == OutputFormat.json:
        json.dump(d, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        emit([[k, v] for k, v in d.items()], ["field", "value"], fmt)


def _check_counts(games: int, seed: int, workers: int, pairs: bool) -> None:
    from gamecore.errors import UsageError

    if games < 1:
        raise UsageError(f"--games must be at least 1; got {games}")
    if seed < 0:
        raise UsageError(f"--seed must be 0 or more; got {seed}")
    if workers < 1:
        raise UsageError(f"--workers must be at least 1; got {workers}")
    if pairs and games % 2:
        raise UsageError(f"--pairs plays games two by two: give an even --games (got {games})")


def _leave_choices(
    kinds: tuple[str, str], leaves: str | None, each: tuple[str | None, str | None], lang: str | None
) -> tuple[str | None, str | None]:
    """Each player's ``--leaves`` value: its own, else the common one, else with ``--lang`` the
    shipped leaves of its rule set; a leave option for a player that plays without leaves refused."""
    from gamecore.autoplay import EQUITY_STRATEGIES
    from gamecore.errors import UsageError

    fallback = "shipped" if lang is not None else None
    given = (each[0] or leaves or fallback, each[1] or leaves or fallback)
    for k, (kind, lv) in enumerate(zip(kinds, given, strict=True), 1):
        if kind in EQUITY_STRATEGIES and lv is None:
            raise UsageError(f"--p{k} {kind} needs leave values: give --leaves FILE.klv2 (or --leaves{k} FILE.klv2)")
        if kind not in EQUITY_STRATEGIES and each[k - 1] is not None:
            raise UsageError(f"--leaves{k} is for an equity player: player {k} plays {kind} (give --p{k} equity)")
    if leaves is not None and not any(k in EQUITY_STRATEGIES for k in kinds):
        raise UsageError("--leaves is for equity players: give --p1 equity or --p2 equity")
    return given


def vocabulary_tier(kind: str, folder: Path) -> str | None:
    """The vocabulary tier a Netskrafl robot plays (``midlungur``, ``amlodi``: built beside the
    lexicon), None for the others."""
    from gamecore.errors import UsageError

    if kind not in ("midlungur", "amlodi"):
        return None
    tier = folder / kind
    if not (tier / "manifest.json").is_file():
        raise UsageError(f"{kind} plays the words of its vocabulary, {tier}: build it with 'skrafl build' (the {kind} recipe)")
    return str(tier)


def leave_path(value: str, lang: str | None = None, rules: str | None = None) -> Path:
    """``--leaves``: a KLV2 file, ``shipped`` or a language code (its shipped leaves for the rules)."""
    from gamecore.klv import leaves_option

    shipped = leaves_option(value, lang, rules)
    return shipped if shipped is not None else input_file(Path(value), "leave", "--leaves")


def register(app: typer.Typer) -> None:
    app.command(
        "autoplay",
        help=HELP,
        epilog="Example: skrafl autoplay --lang is --games 200 --seed 1 --p1 score --p2 amlodi --workers 2 --out runs/is1",
    )(autoplay)
