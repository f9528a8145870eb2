"""``skrafl elo``: Netskrafl's Elo ratings in batch (the work is in :mod:`pipelines.elo`)."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer

from cli.common import FORMAT_OPTION, QUIET_OPTION, OutputFormat, emit, picture_target, show_path_as
from gamecore.errors import UsageError

if TYPE_CHECKING:
    from pipelines.elo.state import EloParams

HELP = (
    "Rate players with Netskrafl's Elo system: three lists (all games, human games, competition "
    "games), K 20 established / 32 beginner, start 1200, beginner rule, floor 0. Writes "
    "DIR/ratings.parquet, DIR/top100_{all,human,competition}.csv, DIR/history/ and DIR/late_games.csv; "
    "--state PREV_DIR continues a previous run (games already rated there are skipped).\n\n"
    "Days rated: the output records the UTC days it has rated. --date D rates day D and needs a --state "
    "that has rated D-1 (or D itself); a skipped day is an error unless --catch-up, which rates the missing "
    "days in order first (the result equals one nightly run per day). A run without --date rates every day "
    "up to its last game's day. A new game finished on a day the state has already rated is not rated: it "
    "is listed in late_games.csv with the reason and counted in a warning on stderr. From no --state, or a "
    "--state that records no days (rated from games without times), --date D rates D only: the table's "
    "earlier games are listed in late_games.csv and counted in a warning (--catch-up rates every day up to D). "
    "A replayed game without a finished_at (a GCG file) in a replay dataset's day partition (the nightly job's "
    "incoming/{date}) is rated at the end of that UTC day; other games without a time are rated in file order, after "
    "the games with times (a note; with --date they are skipped with a warning: their day is unknown). Players are "
    "known by their names (a GCG file's) where there are no ids. Not rated (a note): a game against oneself, a game "
    "whose optional column rated is false (or unrated true).\n\n"
    "Exit status: 0 ratings written (or --explain printed; skipped and late games are warned about on stderr); "
    "2 usage error, a skipped day, a bad games table (one line on stderr: file, row, column; or different "
    "replayed games sharing a game_id that is only their file name, a GCG file without #id), or, without --date, "
    "a table with games of which none can be rated (the reasons on one line), nothing written.\n\n"
    "Presets: netskrafl (default) is Netskrafl's nightly batch (src/skraflstats.py: 'established' per list, "
    "the competition list by the human-game count, robots beginners for their first 10 games, a stored "
    "human/competition rating of 0 read back as 1200); netskrafl-live is its per-game model "
    "(src/skraflelo.py: established by the human games in every locale, robots established, no change for a "
    "game of 2 moves or fewer); ordspill: the nightly model from 1000. Ratings are kept per locale (optional "
    "games-table column locale; replay's games.parquet carries it); optional column moves (counting a "
    "resignation). Games of 3 or 4 players and unfinished games are not rated (a warning): Elo rates a game "
    "between two players.\n\n"
    "--games - reads the games table from stdin (CSV, JSON lines or Parquet, by its first bytes)."
)
EPILOG = (
    "Example: skrafl elo --games games.csv --out output/elo/2024-05-01 --state output/elo/2024-04-30 "
    "--date 2024-05-01   |   ... --state output/elo/2024-04-28 --date 2024-05-01 --catch-up   |   "
    "skrafl elo --games games.csv --explain alice"
)


def elo(
    games: str = typer.Option(
        ...,
        "--games",
        "-g",
        help="Games table: CSV, Parquet or JSON lines (or replay's games.parquet, a replay --out folder, a replay --dataset folder, "
        "or postgresql://… : the finished games of Netskrafl's 'games' table); - = a table on stdin.",
    ),
    ratings_to: Optional[str] = typer.Option(
        None,
        "--ratings-to",
        help="Also store the ratings into this PostgreSQL database (postgresql://…), in one transaction, replacing the rows of the same day; "
        "committed just before the output is swapped in (a failure of either leaves both as they were).",
    ),
    table: Optional[str] = typer.Option(
        None, "--table", help="With --ratings-to: the table's name (default skrafl_ratings; created if missing)."
    ),
    players_from: Optional[str] = typer.Option(
        None,
        "--players-from",
        help="postgresql://… : name the players of replayed Netskrafl records (which carry no player ids) from that "
        "database's games table, by game id; without it such games are not rated (a warning).",
    ),
    out: Optional[Path] = typer.Option(
        None,
        "--out",
        "-o",
        help="Output folder, written atomically; an existing one is replaced only if skrafl wrote it (never a file, the current folder or a parent).",
    ),
    state: Optional[Path] = typer.Option(None, "--state", help="A previous output folder to continue from (only read)."),
    anchors: Optional[Path] = typer.Option(
        None,
        "--anchors",
        help="A CSV of player,rating (skrafl ladder's anchors.csv): those players are held at their rating in every list.",
    ),
    preset: Optional[str] = typer.Option(
        None,
        "--preset",
        help="netskrafl (default: Netskrafl's nightly batch), netskrafl-live (its per-game model) or ordspill (start 1000).",
    ),
    k: Optional[int] = typer.Option(None, "--k", min=0, max=1000, help="K for established players, 0-1000 (netskrafl 20)."),
    k_beginner: Optional[int] = typer.Option(
        None, "--k-beginner", min=0, max=1000, help="K for beginners, 0-1000 (netskrafl 32)."
    ),
    established_after: Optional[int] = typer.Option(
        None,
        "--established-after",
        min=0,
        max=1_000_000,
        help="Established with more than this many games in the list, 0-1000000 (netskrafl 10).",
    ),
    start: Optional[int] = typer.Option(
        None, "--start", min=0, max=10_000, help="Rating of a new player, 0-10000 (netskrafl 1200, ordspill 1000)."
    ),
    scale: Optional[float] = typer.Option(
        None, "--scale", min=100.0, max=10_000.0, help="Rating gap that multiplies the odds by 10, 100-10000 (400)."
    ),
    date: Optional[str] = typer.Option(
        None,
        "--date",
        help="Rate only games finished on this UTC day, YYYY-MM-DD (the nightly job); --state must have rated the day before.",
    ),
    catch_up: bool = typer.Option(
        False,
        "--catch-up",
        help="With --date: first rate, in order, the days --state has not rated (from nothing: every day up to --date).",
    ),
    explain: Optional[str] = typer.Option(
        None, "--explain", help="Print this player's rating history game by game (writes nothing)."
    ),
    lists: Optional[List[str]] = typer.Option(
        None, "--list", help="With --explain: only this list (all, human, competition); repeatable."
    ),
    svg: Optional[Path] = typer.Option(
        None,
        "--svg",
        help="With --explain: also draw the rating over time in each list (dates along the axis, beginner games hollow) as .svg or .png.",
    ),
    fmt: OutputFormat = FORMAT_OPTION,
    quiet: bool = QUIET_OPTION,
) -> None:
    from pipelines import elo as lib

    if games == "-":  # a games table on stdin: kept in a temporary file for the run
        import tempfile

        tmp = tempfile.TemporaryDirectory(prefix="skrafl-elo-stdin-")
        import click

        click.get_current_context().call_on_close(tmp.cleanup)
        saved = _stdin_table(Path(tmp.name))
        show_path_as(saved, "-")  # an error in it names "-:LINE", as the user gave it
        games = str(saved)
    day = None
    if date is not None:
        from cli.common import parse_day

        day = parse_day(date)
    overrides = dict(k=k, k_beginner=k_beginner, established_after=established_after, start=start, scale=scale)
    params = lib.resolve_params(preset, state, **overrides)

    if explain is not None:
        given = [name for name, v in (("--out", out), ("--ratings-to", ratings_to), ("--table", table)) if v is not None]
        if given:  # --explain writes nothing: these would be ignored without a word
            raise UsageError(f"--explain prints one player's history and writes no ratings: give no {given[0]} (or no --explain)")
        _explain(games, explain, state, params, day, lists, svg, fmt, quiet, catch_up=catch_up, players_from=players_from)
        return
    if lists:
        raise UsageError("--list goes with --explain")
    if svg is not None:
        raise UsageError("--svg goes with --explain PLAYER")
    if out is None:
        raise UsageError("--out DIR is required (or --explain PLAYER)")
    if table is not None and ratings_to is None:
        raise UsageError("--table goes with --ratings-to postgresql://…")
    run = lib.run_elo(
        games,
        out,
        state,
        params,
        day,
        quiet=quiet,
        catch_up=catch_up,
        ratings_to=ratings_to,
        ratings_table=table,
        players_from=players_from,
        anchors=read_anchors(anchors) if anchors is not None else None,
    )
    for note in run.notes:
        if note.startswith("warning: "):  # a skipped game: shown even with --quiet
            typer.echo(f"skrafl elo: {note}", err=True)
        elif not quiet:
            typer.echo(f"skrafl elo: note: {note}", err=True)
    if not quiet:
        as_of = run.as_of.isoformat().replace("+00:00", "Z") if run.as_of is not None else "no finished_at"
        typer.echo(
            f"skrafl elo: {run.games_rated} games rated, {run.games_skipped} already rated, "
            f"{run.games_ignored} 0-0 ignored, {run.late.height if run.late is not None else 0} late; as of {as_of} → {out}",
            err=True,
        )


def _explain(
    games: str,
    player: str,
    state: Path | None,
    params: EloParams,
    day: datetime.date | None,
    lists: list[str] | None,
    svg: Path | None,
    fmt: OutputFormat,
    quiet: bool,
    *,
    catch_up: bool,
    players_from: str | None,
) -> None:
    """``--explain PLAYER``: the player's rating history game by game, and its chart with ``--svg``."""
    from pipelines import elo as lib

    chosen = tuple(lists) if lists else lib.LISTS
    for name in chosen:
        if name not in lib.LISTS:
            raise UsageError(f"--list {name!r}: expected one of {', '.join(lib.LISTS)}")
    picture_inputs = (None if lib.is_url(games) else games, state)
    if svg is not None:  # the picture's target is checked before any work (README "Pictures")
        picture_target(svg, "--svg", picture_inputs)
    rows = lib.explain_player(games, player, state, params, day, chosen, catch_up=catch_up, players_from=players_from)
    columns = list(rows[0].keys())
    emit([[r[c] for c in columns] for r in rows], columns, fmt)
    if svg is not None:
        from gamecore.chart import rating_chart_svg
        from gamecore.picture import save_svg

        beginner_k = params.k_beginner if params.k_beginner != params.k else None
        save_svg(rating_chart_svg(rows, player, beginner_k=beginner_k), svg, picture_inputs)
        if not quiet:
            typer.echo(f"skrafl elo: rating chart of {player} → {svg}", err=True)


STDIN_TABLE_MAX = 4 << 30
"""The most bytes of a games table piped to ``--games -`` (a million games are about 100 MB of CSV)."""


def _stdin_table(folder: Path) -> Path:
    """Standard input saved as a games table in ``folder``: ``stdin.parquet`` (it starts with
    ``PAR1``), ``stdin.jsonl`` (with ``{``) or ``stdin.csv``, copied in 1 MiB pieces (memory stays
    flat). Raises UsageError when stdin is empty, holds NUL bytes outside Parquet (no text table
    does: ``/dev/zero``) or is longer than :data:`STDIN_TABLE_MAX`."""
    import sys

    src = sys.stdin.buffer
    head = src.read(1 << 20)  # (a buffered read waits for the whole MiB or the end of stdin)
    if not head.strip():
        raise UsageError("--games -: stdin is empty (pipe a games table: CSV, JSON lines or Parquet)")
    parquet = head[:4] == b"PAR1"
    if not parquet and b"\0" in head:
        raise UsageError("--games -: stdin holds NUL bytes: not a games table (CSV, JSON lines or Parquet)")
    suffix = ".parquet" if parquet else ".jsonl" if head.lstrip()[:1] == b"{" else ".csv"
    path = folder / f"stdin{suffix}"
    size = 0
    with open(path, "wb") as out:
        piece = head
        while piece:
            size += len(piece)
            if size > STDIN_TABLE_MAX:
                raise UsageError(f"--games -: stdin is longer than {STDIN_TABLE_MAX >> 30} GiB: not a games table")
            out.write(piece)
            piece = src.read(1 << 20)
    return path


def read_anchors(path: Path) -> dict[str, int]:
    """``--anchors``: a CSV with the header ``player,rating`` and one player a line (the rating a
    number, rounded to a whole point, 0 to 1,000,000).

    Raises:
        DataError: a bad header, a bad or repeated line (file and line named)."""
    from cli.common import input_file
    from gamecore.errors import DataError

    path = input_file(path, "anchors", "--anchors")
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or [c.strip() for c in lines[0].split(",")] != ["player", "rating"]:
        raise DataError("expected the header 'player,rating'", path, 1)
    out: dict[str, int] = {}
    for n, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        cols = line.rsplit(",", 1)
        try:
            rating = float(cols[1])
        except (IndexError, ValueError):
            raise DataError(f"expected player,rating; got {line!r}", path, n) from None
        who = cols[0].strip()
        if not who or not (0 <= rating <= 1_000_000):
            raise DataError(f"expected a player and a rating from 0 to 1000000; got {line!r}", path, n)
        if who in out:
            raise DataError(f"player {who!r} listed twice", path, n)
        out[who] = int(round(rating))
    return out


def register(app: typer.Typer) -> None:
    app.command("elo", help=HELP, epilog=EPILOG)(elo)
