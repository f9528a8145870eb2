"""``skrafl leaves``: the value of a rack's tiles in a KLV2 leave file, and where a language's leave file is."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from cli.common import FORMAT_OPTION, OutputFormat, emit, input_file

HELP = (
    "Leave values: 'skrafl leaves show FILE RACK' prints the value of keeping RACK's tiles (a KLV2 leave file, as "
    "MAGPIE and wolges write it, e.g. MAGPIE-DATA's data/lexica/CSW21.klv2); 'skrafl leaves path --lang L' prints "
    "the path of the leave file shipped for language L.\n\n"
    "show: columns leave (alphabet order, blanks '?' last) and value (points, as stored; a leave the file "
    "lacks is worth 0). --all: every distinct non-empty sub-leave of RACK, best first (then fewer tiles). The "
    "letters are read with the tile set of --rules, else of --lang's rules (default en: wespa, English); a file "
    "whose tile numbers the set does not have is refused.\n\n"
    "path: no leave file is shipped yet for any language: the command then says so (exit 2).\n\n"
    "Exit status: 0 done; 2 usage or input error (one line on stderr)."
)


def leaves(
    action: str = typer.Argument(..., help="show (FILE RACK) or path (--lang L)."),
    args: Optional[List[str]] = typer.Argument(None, help="show: the KLV2 file and the rack, e.g. CSW21.klv2 AEINST?"),
    lang: Optional[str] = typer.Option(None, "--lang", "-l", help="Language (its rules' tile set; path: whose leave file)."),
    rules: Optional[str] = typer.Option(None, "--rules", help="Rules preset or .toml file whose tile set reads the letters."),
    show_all: bool = typer.Option(False, "--all", help="show: every sub-leave of RACK, best first."),
    fmt: OutputFormat = FORMAT_OPTION,
) -> None:
    """Leave values: 'skrafl leaves show FILE RACK' prints the value of keeping RACK's tiles (a KLV2 leave file, as
    MAGPIE and wolges write it, e.g. MAGPIE-DATA's data/lexica/CSW21.klv2); 'skrafl leaves path --lang L' prints
    the path of the leave file shipped for language L."""
    from gamecore.errors import UsageError

    args = list(args or [])
    if action == "path":
        from gamecore.klv import shipped_leaves

        if args or rules is not None or show_all:
            raise UsageError("leaves path takes only --lang L")
        if not lang:
            raise UsageError("leaves path: give --lang L")
        p = shipped_leaves(lang)
        if p is None:
            raise UsageError(f"no leave file is shipped for language {lang!r} yet; give a KLV2 file (--leaves FILE)")
        typer.echo(str(p))
        return
    if action != "show":
        raise UsageError(f"unknown action {action!r}: give 'show FILE RACK' or 'path --lang L'")
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
            sub = tuple(k for k, c in zip(kinds, n) for _ in range(c))
            if sub:
                subs.add(sub)
    else:
        subs = {tiles}
    rows = [(table.labels(s), table.klv.milli(s) / 1000, s) for s in subs]  # as MAGPIE reads it: to the thousandth
    rows.sort(key=lambda r: (-r[1], len(r[2]), r[2]))
    emit([[text, value] for text, value, _ in rows], ["leave", "value"], fmt)


def register(app: typer.Typer) -> None:
    app.command(
        "leaves",
        help=HELP,
        epilog="Example: skrafl leaves show CSW21.klv2 AEINST? --all",
    )(leaves)
