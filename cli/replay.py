"""``skrafl replay``: replay GCG files and Netskrafl JSON game records, check every number, write tables."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional

import typer

from cli.common import QUIET_OPTION, output_root
from gamecore.errors import UsageError

HELP = (
    "Replay GCG / Netskrafl game logs on the rules engine: re-score every play, check racks against the "
    "bag, totals, end-of-game adjustments and challenges; mark words missing from the lexicon. Writes "
    "OUT/games.parquet (one row per file) and OUT/moves.parquet (one row per event), streamed as the "
    "games are replayed; OUT is replaced whole when the run ends (a stopped or failed run leaves the "
    "previous OUT as it was).\n\n"
    "Arguments: FILES... are GCG files, Netskrafl .json game records, or folders searched (recursively) "
    "for *.gcg and *.json (hidden entries, names starting with '.', and links to folders are skipped: a "
    "skrafl output inside a folder is not read again; name it to read it); '-' reads a list of such paths "
    "from stdin, one per line.\n\n"
    "Challenge rule of a GCG file: --rules, else its #challenge-rule (VOID, SINGLE, DOUBLE, TRIPLE, "
    "FIVE_POINT, TEN_POINT, FIVE_POINT_PER_WORD), else its first wrong-challenge bonus (+5 or +10 per "
    "challenge, +5 per word); --lang does not change it.\n\n"
    "Words: with --lang or --lexicon they are checked; without either (and without --no-lexicon) the "
    "lexicon the files name is used when it is built (GCG #lexicon: CSW/NWL/TWL… → en, NSF → nb, "
    "Netskrafl records and #lexicon netskrafl → is; all files must name the same), else a note says "
    "once that words are not checked.\n\n"
    "Exit status: 0 every game ok; 1 some game is not ok (status mismatch or error in games.parquet; "
    "the first 20 listed on stderr); 2 usage error, no game file found, or no file readable as a game log (then "
    "nothing is written); 130 / 143 stopped by SIGINT / SIGTERM (nothing written, workers stopped)."
)


def replay(
    files: List[str] = typer.Argument(
        ...,
        metavar="FILES...",
        help="GCG files, Netskrafl .json records, or folders holding them (searched recursively); - = paths from stdin.",
    ),
    out: Optional[Path] = typer.Option(
        None,
        "--out",
        "-o",
        help="Folder for games.parquet and moves.parquet (a new folder or an earlier replay output: replaced whole).",
    ),
    dataset: Optional[Path] = typer.Option(
        None,
        "--dataset",
        help="Instead of --out: a partitioned dataset folder (games/ and moves/, Hive partitions part=DAY or part=src-FOLDER-HASH); "
        "the run's games are added, a game already there (same id) replaced, all others kept; published whole, atomically.",
    ),
    since: Optional[str] = typer.Option(
        None, "--since", help="With --dataset: only games finished on or after this UTC day (YYYY-MM-DD)."
    ),
    until: Optional[str] = typer.Option(
        None,
        "--until",
        help="With --dataset: only games finished on or before this UTC day (YYYY-MM-DD).",
    ),
    drop_missing: bool = typer.Option(
        False,
        "--drop-missing",
        help="With --dataset: drop the games of the partitions this run writes (and of the days of --since/--until) "
        "that it did not bring; says how many. Without it no game is ever dropped: games are added or replaced by id.",
    ),
    cluster: Optional[str] = typer.Option(
        None,
        "--cluster",
        help="With --dataset: run on this Dask scheduler (tcp://HOST:8786; needs skrafl[cluster]; default $SKRAFL_DASK_SCHEDULER, else local --workers).",
    ),
    lang: Optional[str] = typer.Option(
        None,
        "--lang",
        "-l",
        help="Language: its tiles and board, and the built lexicon output/LANG for word checks (a GCG file keeps its own challenge rule).",
    ),
    lexicon: Optional[Path] = typer.Option(None, "--lexicon", help="A built lexicon folder to check words with."),
    no_lexicon: bool = typer.Option(False, "--no-lexicon", help="Do not check words."),
    rules: Optional[str] = typer.Option(
        None, "--rules", help="Rules preset (netskrafl, wespa, …), its challenge rule too; default from each file."
    ),
    strict: bool = typer.Option(
        False,
        "--strict",
        help="Every inconsistency is an error (the GCG error catalogue): an unknown #challenge-rule, an unreadable ts_last_move or #finished-at too.",
    ),
    workers: int = typer.Option(1, "--workers", "-j", min=1, help="Worker processes."),
    quiet: bool = QUIET_OPTION,
    export_gcg: Optional[Path] = typer.Option(
        None,
        "--export-gcg",
        help="Also write every replayed game as GCG into this folder, a separate output replaced whole (a resignation as a final (time) line + #note #resign).",
    ),
    analyze: bool = typer.Option(False, "--analyze", help="Add the best play of each turn and the points lost (slow)."),
    leaves: Optional[str] = typer.Option(
        None,
        "--leaves",
        help="With --analyze: also value each turn by static equity with this KLV2 leave file (or LANG, or shipped: "
        "the leaves shipped for the lexicon's language and each game's rule set): equity, best move, equity and win % lost, "
        "mistake size; per player accuracy, mistake index, estimated rating.",
    ),
    sim_iterations: Optional[int] = typer.Option(
        None,
        "--sim-iterations",
        help="With --leaves: win % lost by simulation (the best 5 moves by equity and the one played, 2 plies, "
        "at most N iterations each; two-player games while the bag holds tiles; English, N = 64: about a CPU-second a game).",
    ),
    review: Optional[Path] = typer.Option(
        None,
        "--review",
        help="With --analyze --leaves: also write a review of every game into this folder (a separate output replaced whole): "
        "index.md, and NAME.md per game with pictures of its biggest mistakes.",
    ),
    coords: str = typer.Option(
        "gcg",
        "--coords",
        help="Order of coord and best_coord in moves.parquet: gcg (8D across, D8 down) or netskrafl (H4 across, 4H down).",
    ),
    export_svg: Optional[Path] = typer.Option(
        None,
        "--export-svg",
        help="Also draw every game at its end as DIR/NAME.svg (skrafl show's pictures), a separate output replaced whole.",
    ),
    every_move: bool = typer.Option(
        False, "--every-move", help="With --export-svg: also one picture per event, DIR/NAME/NNN.svg (the play highlighted)."
    ),
) -> None:
    """Replay game logs on the rules engine: re-score every play, check racks against the bag,
    totals, end-of-game adjustments and challenges; mark words missing from the lexicon.

    Exit status: 0 when every game is ok, 1 when any is not, 2 on usage errors."""
    from pipelines.replay import ReplayOptions

    # every check of the options goes before any note or work: a usage error is the only line
    _check_options(out, dataset, since, until, cluster, lexicon, no_lexicon, analyze, every_move, export_gcg, export_svg, coords)
    _check_review_options(analyze, leaves, review, dataset, out, export_gcg, export_svg)
    if sim_iterations is not None and (leaves is None or sim_iterations < 1):
        raise UsageError("--sim-iterations N (N at least 1) goes with --analyze --leaves")
    if drop_missing and dataset is None:
        raise UsageError("--drop-missing goes with --dataset DIR")
    files = stdin_paths(files)
    lexicon_dir, guess, note = _lexicon_choice(files, lang, lexicon, no_lexicon, rules, analyze)
    leave_file = _leaves(leaves, lexicon_dir, lang, rules) if leaves is not None else None
    opts = ReplayOptions(
        preset=rules,
        lang=lang,
        lexicon_dir=lexicon_dir,
        strict=strict,
        analyze=analyze,
        coords=coords,
        leaves=leave_file,
        sim_iterations=sim_iterations,
    )
    if rules or lang:
        from gamecore.rules import rules_for

        rules_for(lang, rules)  # unknown preset or language: usage error before any work
    if dataset is None:
        _check_outputs(files, out, export_gcg, export_svg, review)
    if note and not quiet:
        typer.echo(f"skrafl replay: note: {note}", err=True)
    if dataset is not None:
        summary = _replay_dataset(files, dataset, since, until, cluster, opts, workers, quiet, guess, drop_missing)
        raise typer.Exit(0 if summary["ok"] == summary["games"] else 1)
    assert out is not None  # without --dataset
    draw = _pictures(export_svg, files, rules, lang, every_move) if export_svg is not None else None
    summary = _replay_out(files, out, opts, workers, quiet, export_gcg, draw, review)
    _say_summary(summary, out, review, export_svg, quiet)
    raise typer.Exit(0 if summary["ok"] == summary["games"] else 1)


def _lexicon_choice(
    files: List[str], lang: Optional[str], lexicon: Optional[Path], no_lexicon: bool, rules: Optional[str], analyze: bool
) -> tuple[Optional[str], bool, Optional[str]]:
    """The lexicon the words are checked with: ``(folder, guess, note)``. ``--lexicon``, else the
    built lexicon of ``--lang``, else (without --no-lexicon and --rules) the one the files name
    (``note`` says which, or that words are not checked), or for a PostgreSQL source ``guess``: the
    games' locales name it. The folder is loaded now: a missing or damaged lexicon, or --analyze
    without one, is the run's one line (exit 2)."""
    lexicon_dir, guess, note = None, False, None
    if lexicon is not None:
        lexicon_dir = str(lexicon)
    elif lang and not no_lexicon:
        lexicon_dir = _built_lexicon(lang)
    elif lexicon is None and not no_lexicon and not rules:
        from pipelines.replay.run import is_database_url

        if any(is_database_url(f) for f in files):
            guess = True  # the games' locales name the lexicon (pipelines.postgres.lexicon_named)
        else:
            lexicon_dir, note = lexicon_named_by(files)
    if lexicon_dir is not None:
        from gamecore.lexicon import Lexicon

        Lexicon.load(lexicon_dir)  # fail early (exit 2) on a missing or damaged lexicon
    if analyze and lexicon_dir is None:
        raise UsageError("--analyze needs a lexicon to find the best plays: give --lang L or --lexicon DIR")
    return lexicon_dir, guess, note


def _built_lexicon(lang: str) -> str:
    """``--lang``'s built lexicon, output/LANG; an unknown language or an unbuilt lexicon is a usage error."""
    candidate = output_root() / lang
    if not (candidate / "manifest.json").is_file():
        from lexicon_sources import language

        language(lang)  # an unknown language: say so, and list the known ones
        raise UsageError(
            f"no built lexicon for {lang!r} in {candidate} (run: skrafl ingest {lang} && skrafl build {lang}, or add --no-lexicon)"
        )
    return str(candidate)


def _check_outputs(
    files: List[str], out: Optional[Path], export_gcg: Optional[Path], export_svg: Optional[Path], review: Optional[Path]
) -> None:
    """``replay --out DIR``: its source and every output checked before any note or work, as
    run_replay and the pictures' output do again: a refused one is the run's one line, and nothing
    is written."""
    from pipelines.atomic import check_output_dir
    from pipelines.replay.run import is_database_url

    assert out is not None  # --out or --dataset (checked by the option checks)

    if any(is_database_url(f) for f in files):
        raise UsageError("a PostgreSQL source goes with --dataset DIR (the games are replayed into a partitioned dataset)")
    check_output_dir(out, command="replay", inputs=list(files))
    if export_gcg is not None:
        check_output_dir(export_gcg, command="replay-export", inputs=list(files))
    if export_svg is not None:
        check_output_dir(export_svg, command="replay-svg", inputs=list(files))
    if review is not None:
        check_output_dir(review, command="replay-review", inputs=list(files))


def _pictures(export_svg: Path, files: List[str], rules: Optional[str], lang: Optional[str], every_move: bool):
    """``--export-svg DIR``: the run's last step, drawing the games' pictures."""
    from cli.show import export_game_pictures

    def draw(game_files: List[str], outputs):
        # inside the run: the pictures are drawn once the tables are complete, into an output
        # of the run's stack, committed with the others (a failure here discards them all)
        return export_game_pictures(
            game_files, export_svg, preset=rules, lang=lang, every_move=every_move, inputs=list(files), stack=outputs
        )

    return draw


def _replay_out(files: List[str], out: Path, opts, workers: int, quiet: bool, export_gcg, draw, review) -> dict:
    """``replay --out DIR``: the run (see :func:`pipelines.replay.run.run_replay`), its summary;
    stopped by a signal: says what was written, exit 128 + the signal's number."""
    from pipelines.replay import Stopped, run_replay

    try:
        report = None
        if review is not None:
            from pipelines.review import write_review

            def report(tables: Path, outputs):
                # inside the run: from the complete tables, into an output of the run's stack
                return write_review(tables, review, opts, list(files), outputs)

        return run_replay(list(files), out, opts, workers=workers, quiet=quiet, export_dir=export_gcg, finish=draw, report=report)
    except Stopped as stop:
        if stop.committed:  # held back while the outputs were committed: they are all in place
            typer.echo(f"skrafl: replay {stop} as its outputs were committed; they are complete and in place", err=True)
            raise typer.Exit(128 + stop.signum) from None
        kept = ", the previous output is kept" if os.path.lexists(out) else ""
        typer.echo(f"skrafl: replay {stop}; nothing written{kept}", err=True)
        raise typer.Exit(128 + stop.signum) from None


def _say_summary(summary: dict, out: Path, review: Optional[Path], export_svg: Optional[Path], quiet: bool) -> None:
    """``replay --out DIR``'s lines on stderr (none with --quiet): repeated names dropped, the
    counts, the games not ok (those the summary lists), the reviews and pictures written."""
    if not quiet and summary["repeats"]:
        typer.echo(
            f"skrafl replay: note: {summary['repeats']} repeated name(s) of a file already found dropped "
            "(each file is replayed once, under the first name given)",
            err=True,
        )
    if not quiet:
        typer.echo(
            f"replay: {summary['games']} games, {summary['ok']} ok, {summary['mismatch']} mismatch, "
            f"{summary['error']} error ({summary['warnings']} ok with repairs/warnings), {summary['moves']} events → {out}",
            err=True,
        )
        for status, file, error in summary["not_ok"]:
            typer.echo(f"  {status}: {file}: {error}", err=True)
        listed = len(summary["not_ok"])
        if listed < summary["games"] - summary["ok"]:
            typer.echo(
                f"  … and {summary['games'] - summary['ok'] - listed} more not ok (status in {out / 'games.parquet'})", err=True
            )
    if review is not None and not quiet:
        typer.echo(f"replay: {summary['reviewed']} games reviewed → {review}", err=True)
    if export_svg is not None:
        drawn, undrawn = summary["finish"]
        if not quiet:
            typer.echo(
                f"replay: {drawn} pictures → {export_svg}"
                + (f" ({len(undrawn)} games not drawn: not replayable to the end)" if undrawn else ""),
                err=True,
            )


def _check_review_options(analyze, leaves, review, dataset, out, export_gcg, export_svg) -> None:
    """``--leaves`` and ``--review``: what they go with (one line, exit 2, before any work)."""
    if leaves is not None and not analyze:
        raise UsageError("--leaves values each turn by equity: give --analyze too")
    if review is not None and leaves is None:
        raise UsageError("--review grades the games by equity: give --analyze --leaves FILE|LANG|shipped")
    if review is not None and dataset is not None:
        raise UsageError("--review goes with --out DIR (the reviews are read from the run's tables)")
    if review is not None:
        from pipelines.replay.run import paths_apart

        for flag, path in (("--out", out), ("--export-gcg", export_gcg), ("--export-svg", export_svg)):
            if path is not None and not paths_apart(review, path):
                raise UsageError(f"--review {review}: must be apart from {flag} {path} (each is a whole output)")


def _leaves(value: str, lexicon_dir: Optional[str], lang: Optional[str], rules: Optional[str]) -> str:
    """``--leaves``: a KLV2 file (read now: a bad one is the run's one line), LANG (its shipped
    file for --rules or its default rules) or ``shipped`` (kept as is: each game takes the file
    shipped for its rule set; the lexicon's language must have one for --rules or its default)."""
    from gamecore.klv import Klv, leaves_option, shipped_leaves

    language = lang
    if language is None and lexicon_dir is not None:
        import json

        try:
            language = json.loads((Path(lexicon_dir) / "manifest.json").read_text(encoding="utf-8")).get("language")
        except (OSError, ValueError):
            language = None
    if value == "shipped":
        if not language:
            raise UsageError("--leaves shipped: give --lang L (or --leaves FILE.klv2)")
        if shipped_leaves(language, rules) is None:
            for_rules = f" and rules {rules!r}" if rules else ""
            raise UsageError(
                f"--leaves shipped: no leave file is shipped for language {language!r}{for_rules}; give --leaves FILE.klv2"
            )
        return "shipped"
    p = leaves_option(value, language, rules)
    if p is None:
        from cli.common import input_file

        p = input_file(Path(value), "leave", "--leaves")
    Klv.read(p)  # a damaged or foreign file: one line now, not an error per game
    return str(p)


def _day(value: Optional[str], flag: str):
    import datetime as dt

    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{flag} {value!r}: expected YYYY-MM-DD") from None


def _check_options(
    out, dataset, since, until, cluster, lexicon, no_lexicon, analyze, every_move, export_gcg, export_svg, coords
) -> None:
    """Refuse a combination of options that cannot go together (one line, exit 2), before any note,
    any file is read or any work is done."""
    if lexicon is not None and no_lexicon:
        raise UsageError("give --lexicon DIR or --no-lexicon, not both")
    if analyze and no_lexicon:
        raise UsageError("--analyze needs a lexicon to find the best plays: give --lang L or --lexicon DIR, not --no-lexicon")
    if every_move and export_svg is None:
        raise UsageError("--every-move goes with --export-svg DIR")
    # each output is a whole folder of its own: none may be another or lie inside it (--export-svg
    # inside a new --out would be refused only once the tables were written)
    from pipelines.replay.run import paths_apart

    named = [(flag, path) for flag, path in (("--out", out), ("--export-gcg", export_gcg), ("--export-svg", export_svg)) if path]
    for i, (flag, path) in enumerate(named):
        for other_flag, other in named[:i]:
            if not paths_apart(path, other):
                raise UsageError(f"{flag} {path}: must be apart from {other_flag} {other} (each is a whole output)")
    if coords not in ("gcg", "netskrafl"):
        raise UsageError(f"--coords {coords!r}: expected gcg or netskrafl")
    if dataset is None and out is None:
        raise UsageError("give --out DIR (one table per run) or --dataset DIR (partitioned)")
    if dataset is not None:
        if out is not None:
            raise UsageError("give --out DIR or --dataset DIR, not both")
        if export_gcg is not None or export_svg is not None:
            raise UsageError("--export-gcg/--export-svg go with --out DIR")
        lo, hi = _day(since, "--since"), _day(until, "--until")
        if lo and hi and lo > hi:
            raise UsageError(f"--since {since} is after --until {until}")
        return
    if since or until:
        raise UsageError("--since/--until go with --dataset DIR")
    if cluster:
        raise UsageError("--cluster goes with --dataset DIR (the workers write partitions of a dataset)")


def _replay_dataset(files, dataset, since, until, cluster, opts, workers, quiet, guess=False, drop_missing=False) -> dict:
    """``replay --dataset DIR`` (see :func:`pipelines.replay.run.run_replay_dataset`); the options
    were checked by :func:`_check_options`."""
    from pipelines.replay import Stopped
    from pipelines.replay.jobs import is_database_url, run_replay_dataset

    lo, hi = _day(since, "--since"), _day(until, "--until")
    try:
        import os

        cluster = cluster or os.environ.get("SKRAFL_DASK_SCHEDULER") or None
        summary = run_replay_dataset(
            list(files),
            dataset,
            opts,
            workers=workers,
            quiet=quiet,
            since=lo,
            until=hi,
            cluster=cluster,
            guess_lexicon=guess,
            drop_missing=drop_missing,
        )
    except Stopped as stop:
        typer.echo(f"skrafl: replay {stop}; no partition of this run was swapped in (the dataset is as it was)", err=True)
        raise typer.Exit(128 + stop.signum) from None
    if not quiet:
        source = summary.get("source") or ", ".join(f for f in files if not is_database_url(f))
        typer.echo(
            f"replay: {summary['games']} games, {summary['ok']} ok, {summary['mismatch']} mismatch, {summary['error']} error, "
            f"{summary['moves']} events from {source} → {dataset}: partitions replaced {', '.join(summary['partitions']) or 'none'}"
            + (f"; unchanged {', '.join(summary['unchanged'])}" if summary["unchanged"] else "")
            + (f"; removed {', '.join(summary['removed'])}" if summary["removed"] else "")
            + (f"; {summary['replaced']} games replaced (same id)" if summary.get("replaced") else "")
            + (f"; {summary['duplicates']} games read twice (the later kept)" if summary.get("duplicates") else "")
            + (f"; dropped {summary['dropped']} games this run did not bring (--drop-missing)" if drop_missing else "")
            + (f"; {summary['outside']} games outside --since/--until left out" if summary["outside"] else ""),
            err=True,
        )
        for status, file, error in summary["not_ok"]:
            typer.echo(f"  {status}: {file}: {error}", err=True)
        listed = len(summary["not_ok"])
        if listed < summary["games"] - summary["ok"]:
            typer.echo(
                f"  … and {summary['games'] - summary['ok'] - listed} more not ok (status in the dataset's games)", err=True
            )
    return summary


def stdin_paths(items: List[str]) -> List[str]:
    """The arguments with ``-`` replaced by the paths read from stdin (one per line, blank lines
    skipped; a leading byte-order mark and Windows line ends dropped). A line is read up to
    :data:`gamecore.text.LINE_CAP` bytes (4 KiB, Linux's longest path), no more: a longer line,
    an endless stdin included, is one error. Raises UsageError (``-:LINE: …`` for a line) when
    stdin gives no path, a line is too long, or names no file or folder."""
    if "-" not in items:
        return list(items)
    import os
    import sys

    from gamecore.text import LINE_CAP, bounded_lines, strip_bom

    out: List[str] = []
    for item in items:
        if item == "-":
            got: List[str] = []
            for lineno, raw in bounded_lines(sys.stdin.buffer, LINE_CAP):
                if raw is None:
                    raise UsageError(f"a line of more than {LINE_CAP} bytes: expected one file or folder per line", "-", lineno)
                raw = raw.rstrip(b"\r\n")
                if lineno == 1:
                    raw = strip_bom(raw)
                if not raw.strip():
                    continue
                # paths as the file system spells them: not put in NFC (an NFD file name stays NFD)
                path = os.fsdecode(raw)
                if not os.path.lexists(path):
                    shown = path if len(path) <= 200 else path[:200] + "…"
                    raise UsageError(f"no such file or folder: {shown}", "-", lineno)
                got.append(path)
            if not got:
                raise UsageError("'-' given but stdin holds no path (one file or folder per line)")
            out.extend(got)
        else:
            out.append(item)
    return out


_BUILT_LANGS = ("is", "nb", "en", "sl", "ru")
"""The languages of ``#lexicon`` names (:func:`gamecore.gcg.lexicon_language`) whose lexicon skrafl builds."""

_SCAN_MAX = 20_000


def lexicon_named_by(items: List[str]) -> tuple[Optional[str], Optional[str]]:
    """The built lexicon the game files name, when they all name one language and output/LANG is
    built: ``(folder, note)``; else ``(None, note)`` saying once that words are not checked.
    A Netskrafl record (``.json``) names ``is``; a GCG file its ``#lexicon`` (read from its first
    4 KB); a file naming none, or more than :data:`_SCAN_MAX` files, decides nothing."""
    import re

    from gamecore.gcg import lexicon_language
    from pipelines.replay import collect_files

    try:
        paths = collect_files(list(items))
    except UsageError:
        return None, None  # reported by the replay itself
    if not paths:
        return None, None  # "no game files" is the one line the replay prints
    langs: set[Optional[str]] = set()
    if len(paths) > _SCAN_MAX:
        langs.add(None)
    else:
        for path in paths:
            if path.lower().endswith(".json"):
                langs.add("is")
                continue
            try:
                with open(path, "rb") as f:
                    head = f.read(4096).decode("latin-1")
            except OSError:
                continue
            m = re.search(r"^#lexicon[ \t]+(\S+)", head, re.MULTILINE | re.IGNORECASE)
            name = m.group(1).lower() if m else ""
            lang = lexicon_language(name)
            langs.add(lang if lang in _BUILT_LANGS else None)
            if len(langs) > 1:
                break
    unchecked = "words are not checked (no --lang/--lexicon"
    if len(langs) != 1 or None in langs:
        return (
            None,
            f"{unchecked}, and the files do not all name one language whose lexicon is built; add --no-lexicon to silence this)",
        )
    lang = next(iter(langs))
    assert lang is not None  # (None is refused above)
    candidate = output_root() / lang
    if not (candidate / "manifest.json").is_file():
        return (
            None,
            f"{unchecked}; the files name {lang!r}, whose lexicon {candidate} is not built: skrafl ingest {lang} && skrafl build {lang})",
        )
    return str(candidate), f"words checked with {candidate} (the lexicon the files name; --no-lexicon to skip)"


def register(app: typer.Typer) -> None:
    app.command(
        "replay",
        help=HELP,
        epilog="Example: skrafl replay games/ --out output/replay --lang is --workers 2",
    )(replay)
