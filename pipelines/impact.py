"""Lexicon impact: which past plays change verdict between two lexicons (``skrafl impact``).

Input: game files and folders (replayed here without a lexicon, locally or on a Dask cluster,
into a scratch dataset that is removed), or an already replayed dataset (``replay --dataset``)
or output folder (``replay --out``). Every tile play (``kind = play``) is checked word by word
(``words_formed``: the main word and the cross words) against both lexicons: a play whose words
were all valid under ``--old`` and are not all valid under ``--new`` is ``now_phony``; one that
was not valid and now is, ``now_valid``.

Winner under a challenge (first order: the rest of the game as it was played): a ``now_phony``
play that stood would be challenged off (its score taken back); a ``now_valid`` play that was
withdrawn after a challenge (the player's next turn is ``withdraw``: a GCG ``--`` line, a
Netskrafl ``RESP`` of minus the play's score after the opponent's ``CHALL``) would have stood (its
score kept). A finished game whose winner changes with these corrections is listed; an unfinished
game has no winner to change and is left out (``summary.md`` says how many).

Games that say they are in another language than the lexicons (a Netskrafl record's ``locale``,
a GCG ``#locale`` or ``#lexicon``) are refused by ``skrafl impact`` before any replay
(:func:`check_games_language`; :func:`run_impact` with ``check_language``).

Output folder (one output, command ``impact``, written whole):

- ``plays.parquet`` / ``plays.csv``: ``file, game_id, finished_at, turn, player`` (the seat,
  1–4), ``name`` (that seat's player, as ``winners`` names them), ``coord, word, score, change,
  words`` (the words whose verdict changed), ``withdrawn``.
- ``words.parquet`` / ``words.csv``: per changed word: ``word, change, plays, games, first, last``
  (UTC days of the first and last game; empty for games without times), most plays first.
- ``winners.parquet`` / ``winners.csv``: ``file, game_id, finished_at, player1 … player4, score1
  … score4, winner, score1_new … score4_new, winner_new`` (the third and fourth seats empty in a
  two-player game; the new winner is the one highest new score, none on a tie).
- ``summary.md``: the counts and the words, for a committee to circulate.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, cast

from gamecore.errors import UsageError

CHANGES = ("now_phony", "now_valid")
TURN_KINDS = ("play", "pass", "exchange", "withdraw")
"""Events that are a player's turn: a withdrawal takes back the play of the turn before it."""


GAME_COLUMNS = (
    "file",
    "format",
    "game_id",
    "finished_at",
    "status",
    "player1",
    "player2",
    "score1",
    "score2",
    "winner",
    "finished",
    "locale",
    "player3",
    "player4",
    "score3",
    "score4",
)
"""The games-table columns impact reads (``finished``, ``locale`` and the third and fourth seats
only where the replay wrote them)."""

SEATS = (1, 2, 3, 4)
"""A GCG game has 2 to 4 players (replay's ``player1`` … ``player4``, ``score1`` … ``score4``)."""


def _game_columns(ds: str | Path) -> set[str]:
    """The games-table columns of a dataset (its first partition's; every one has the same)."""
    import pyarrow.parquet as pq

    from pipelines.replay.dataset import dataset_partitions

    for folder in dataset_partitions(ds).values():
        return set(pq.read_schema(folder / "games" / "data.parquet").names)
    return set(GAME_COLUMNS)


def locale_language(locale: str | None) -> str | None:
    """The language of a locale (``is_IS`` → ``is``, ``nb-NO`` and ``no_NO`` → ``nb``)."""
    lang = (locale or "").strip().replace("-", "_").split("_")[0].lower()
    return {"no": "nb"}.get(lang, lang) or None


def lexicon_name_language(name: str | None) -> str | None:
    """The language a GCG ``#lexicon`` name stands for (:func:`gamecore.gcg.lexicon_language`), else None."""
    from gamecore.gcg import lexicon_language

    return lexicon_language(name)


def file_language(path: str) -> tuple[str | None, str]:
    """The language a game file says it is in, and what says so: a Netskrafl record's ``locale``
    (``is_IS`` when it has none, as replay reads it), a GCG file's ``#locale`` or ``#lexicon``
    (in its first 4 KB: pragmas come before the events); ``(None, "")`` when it names none or
    cannot be read (the replay reports an unreadable file)."""
    import json
    import re

    from gamecore.gamelog import GameLogError, read_game_bytes

    try:
        if path.lower().endswith(".json"):
            from gamecore.text import strip_bom

            data = json.loads(strip_bom(read_game_bytes(path)))  # at most 16 MiB
            if not isinstance(data, dict):
                return None, ""
            locale = data.get("locale") if isinstance(data.get("locale"), str) and data.get("locale") else "is_IS"
            return locale_language(locale), f"locale {locale}"
        with open(path, "rb") as f:
            head = f.read(4096).decode("latin-1")
    except (OSError, ValueError, RecursionError, GameLogError):
        return None, ""
    for pragma, language in (("locale", locale_language), ("lexicon", lexicon_name_language)):
        m = re.search(rf"^#{pragma}[ \t]+(\S+)", head, re.MULTILINE | re.IGNORECASE)
        if m and language(m.group(1)):
            return language(m.group(1)), f"#{pragma} {m.group(1)}"
    return None, ""


def check_games_language(said, lexicons: str | None) -> None:
    """Refuse games that say they are in another language than the lexicons: judged by another
    language's words, every play is a phony under both and nothing changes, a report of no impact
    that means nothing. ``said``: ``(file, language, what says so)`` in file order; games that name
    no language are judged (most GCG files name none).

    Raises:
        UsageError: ``FILE: the game is in 'is' (locale is_IS), the lexicons in 'en': …`` (one line,
            the first such file)."""
    if not lexicons:
        return
    for file, lang, what in said:
        if lang and lang != lexicons:
            raise UsageError(
                f"the game is in {lang!r} ({what}) and the lexicons in {lexicons!r}: give games of the lexicons' "
                "language (a play judged by another language's words changes nothing)",
                file,
            )


def _tables(
    items: list[str],
    scratch: Path,
    *,
    workers: int,
    cluster: str | None,
    quiet: bool,
    preset: str | None,
    lang: str | None,
    language: str | None = None,
    skip_other_language: bool = False,
):
    """(games, moves, skipped) of the input: a dataset or replay folder read as it is, game files
    replayed into a scratch dataset first. ``language``: the lexicons' language; game files that
    say they are in another are refused before the replay (:func:`check_games_language`), or with
    ``skip_other_language`` left out of both frames and listed in ``skipped`` (``file, game_id,
    reason``): the nightly job's impact step, where one such game in an old partition stopped every
    night after a lexicon change."""
    import polars as pl

    from pipelines.replay.dataset import is_dataset, read_table

    def checked(games, moves, again: bool = True):
        if not language or not again:
            return games, moves, _skipped_frame([])
        said = list(_table_languages(games))
        named = {f for f, lang, _ in said if lang and lang != language}
        if not skip_other_language or (named and named >= set(games["file"].to_list())):
            # refused, and in the nightly job too when *every* game is of another language (the
            # lexicons are of the wrong language: a report of no impact would mean nothing)
            check_games_language(said, language)
            return games, moves, _skipped_frame([])
        other = [
            (f, f"the game is in {lang!r} ({what}), the lexicons in {language!r}")
            for f, lang, what in said
            if lang and lang != language
        ]
        if not other:
            return games, moves, _skipped_frame([])
        files = [f for f, _ in other]
        ids = dict(games.select("file", "game_id").unique("file", keep="first").iter_rows())
        skipped = _skipped_frame([(f, ids.get(f), why) for f, why in other])
        return games.filter(~pl.col("file").is_in(files)), moves.filter(~pl.col("file").is_in(files)), skipped

    checked_before = False
    if len(items) == 1 and Path(items[0]).is_dir() and is_dataset(items[0]):
        ds = items[0]  # languages: the locale replay read, else the GCG file's #lexicon
    elif (
        len(items) == 1
        and Path(items[0]).is_dir()
        and (Path(items[0]) / "games.parquet").exists()
        and (Path(items[0]) / "moves.parquet").exists()
    ):
        from gamecore.folders import open_output

        folder = open_output(items[0], "replay output")
        games = pl.read_parquet(folder / "games.parquet")
        games = games.select([c for c in GAME_COLUMNS if c in games.columns])
        return checked(games, pl.read_parquet(folder / "moves.parquet"))  # the locale replay read, else #lexicon
    else:
        from pipelines.replay import collect_files
        from pipelines.replay.jobs import ReplayOptions, run_replay_dataset
        from pipelines.replay.run import is_database_url

        files = [i for i in items if not is_database_url(i)]
        checked_before = bool(language) and files == items and not skip_other_language
        if checked_before:  # before any replay: a mismatch costs nothing
            check_games_language(((f, *file_language(f)) for f in collect_files(files)), language)
        ds = str(scratch / "replay")
        run_replay_dataset(items, ds, ReplayOptions(preset=preset, lang=lang), workers=workers, quiet=quiet, cluster=cluster)
    games = cast("pl.DataFrame", pl.from_arrow(read_table(ds, "games", [c for c in GAME_COLUMNS if c in _game_columns(ds)])))
    moves = cast(
        "pl.DataFrame",
        pl.from_arrow(
            read_table(ds, "moves", ["file", "turn", "player", "kind", "coord", "word", "score_computed", "words_formed"])
        ),
    )
    return checked(games.drop("part"), moves.drop("part"), again=not checked_before)


SKIPPED_COLUMNS = ("file", "game_id", "reason")
"""``skipped.{parquet,csv}`` (the nightly job's impact step): the games left out, and why."""


def _skipped_frame(rows: list[tuple]):
    import polars as pl

    return pl.DataFrame(rows, schema={c: pl.String for c in SKIPPED_COLUMNS}, orient="row").sort("file")


def _table_languages(games):
    """``(file, language, what says so)`` of each game of a games table, in file order: its
    ``locale`` (a Netskrafl record's, a GCG ``#locale``), else for a GCG file still there the
    ``#lexicon`` it names (:func:`file_language`)."""
    cols = [c for c in ("file", "format", "locale") if c in games.columns]
    for row in games.select(cols).unique("file", keep="first").sort("file").iter_rows(named=True):
        locale = row.get("locale")
        if locale:
            yield row["file"], locale_language(locale), f"locale {locale}"
        elif row.get("format", "gcg") == "gcg" and row["file"] and Path(row["file"]).is_file():
            yield (row["file"], *file_language(row["file"]))


def compute_impact(games, moves, old, new) -> dict[str, Any]:
    """The impact tables of ``games``/``moves`` (replay's columns) between two
    :class:`~gamecore.lexicon.Lexicon` objects."""
    import polars as pl

    moves = moves.sort(["file", "turn"], maintain_order=True)
    # A withdrawal takes back the last play when no turn came between (replay's rule): a GCG ``--``
    # line right after it, a Netskrafl RESP -X after the opponent's CHALL. Only turns (play, pass,
    # exchange, withdraw) count; a challenge, a bonus or a penalty between them does not.
    turns = (
        moves.filter(pl.col("kind").is_in(TURN_KINDS))
        .with_columns(
            (
                (pl.col("kind").shift(-1).over("file") == "withdraw")
                & (pl.col("player").shift(-1).over("file") == pl.col("player"))
            )
            .fill_null(False)
            .alias("withdrawn")
        )
        .select("file", "turn", "withdrawn")
    )
    moves = moves.join(turns, on=["file", "turn"], how="left", maintain_order="left").with_columns(
        pl.col("withdrawn").fill_null(False)
    )
    plays = moves.filter(
        (pl.col("kind") == "play") & pl.col("words_formed").is_not_null() & (pl.col("words_formed").list.len() > 0)
    )
    words = plays.select(pl.col("words_formed").explode().alias("w")).unique()["w"].to_list()
    words = new.in_order(w for w in words if w)  # the language's alphabet order, as words.txt
    rank = {w: i for i, w in enumerate(words)}
    in_old = dict(zip(words, old.contains_many(words), strict=True)) if words else {}
    in_new = dict(zip(words, new.contains_many(words), strict=True)) if words else {}
    changed_words = {w for w in words if in_old[w] != in_new[w]}
    plays = plays.with_columns(
        pl.col("words_formed").list.eval(pl.element().is_in(list(changed_words))).list.any().alias("_touch")
    ).filter(pl.col("_touch"))
    rows = []
    for r in plays.iter_rows(named=True):
        ws = r["words_formed"]
        valid_old = all(in_old.get(w, False) for w in ws)
        valid_new = all(in_new.get(w, False) for w in ws)
        if valid_old == valid_new:
            continue
        rows.append(
            {
                **{k: r[k] for k in ("file", "turn", "player", "coord", "word", "withdrawn")},
                "score": r["score_computed"],
                "change": "now_phony" if valid_old else "now_valid",
                "words": sorted({w for w in ws if w in changed_words}, key=rank.__getitem__),
            }
        )
    schema: dict[str, Any] = {
        "file": pl.String,
        "turn": pl.Int32,
        "player": pl.Int32,
        "coord": pl.String,
        "word": pl.String,
        "withdrawn": pl.Boolean,
        "score": pl.Int32,
        "change": pl.String,
        "words": pl.List(pl.String),
    }
    changes = pl.DataFrame(rows, schema=schema)
    seats = [f"player{k}" for k in SEATS if f"player{k}" in games.columns]
    info = games.select(["file", "game_id", "finished_at", *seats]).unique("file", keep="first", maintain_order=True)
    name = pl.lit(None, dtype=pl.String)  # the seat's player, as games.parquet and winners name them
    for k, seat in enumerate(seats, start=1):
        name = pl.when(pl.col("player") == k).then(pl.col(seat)).otherwise(name)
    changes = (
        changes.join(info, on="file", how="left")
        .with_columns(name.alias("name"))
        .select(
            ["file", "game_id", "finished_at", "turn", "player", "name", "coord", "word", "score", "change", "words", "withdrawn"]
        )
        .sort(["file", "turn"])
    )
    per_word = (
        changes.explode("words")
        .rename({"words": "w"})
        .with_columns(pl.col("finished_at").dt.date().alias("day"))
        .group_by(["w", "change"])
        .agg(
            pl.len().alias("plays"),
            pl.col("file").n_unique().alias("games"),
            pl.col("day").min().alias("first"),
            pl.col("day").max().alias("last"),
        )
        .rename({"w": "word"})
        .with_columns(pl.col("word").replace_strict(rank, return_dtype=pl.Int64).alias("_rank"))
        .sort(["plays", "_rank", "change"], descending=[True, False, False])
        .drop("_rank")
    )
    per_word = per_word.with_columns(pl.col("plays").cast(pl.Int64), pl.col("games").cast(pl.Int64))
    # winners under a challenge
    delta = (
        changes.with_columns(
            pl.when((pl.col("change") == "now_phony") & ~pl.col("withdrawn"))
            .then(-pl.col("score"))
            .when((pl.col("change") == "now_valid") & pl.col("withdrawn"))
            .then(pl.col("score"))
            .otherwise(0)
            .cast(pl.Int64)
            .alias("d")
        )
        .group_by("file")
        .agg([(pl.col("d") * (pl.col("player") == k)).sum().alias(f"d{k}") for k in SEATS])
    )
    # only a finished game has a winner to change: an unfinished one (null winner, the game not
    # over) is left out, and counted for the summary
    finished = pl.col("finished").fill_null(False) if "finished" in games.columns else pl.lit(True)
    ok = games.filter(pl.col("status") == "ok")
    unfinished = ok.filter(~finished).join(changes.select("file").unique(), on="file", how="semi").height
    for k in SEATS:  # a replay table of an older skrafl, or a hand-made one: two seats
        if f"player{k}" not in ok.columns:
            ok = ok.with_columns(
                pl.lit(None, dtype=pl.String).alias(f"player{k}"), pl.lit(None, dtype=pl.Int64).alias(f"score{k}")
            )
    g = (
        ok.filter(finished)
        .join(delta, on="file", how="inner")
        .with_columns([(pl.col(f"score{k}") + pl.col(f"d{k}")).alias(f"score{k}_new") for k in SEATS])
    )
    # the winner: the one highest new score among the game's 2-4 seats (a tie: none)
    top = pl.max_horizontal([pl.col(f"score{k}_new") for k in SEATS])
    at_top = pl.sum_horizontal([(pl.col(f"score{k}_new") == top).fill_null(False).cast(pl.Int32) for k in SEATS])
    g = g.with_columns(
        pl.when(at_top == 1)
        .then(pl.coalesce([pl.when(pl.col(f"score{k}_new") == top).then(pl.col(f"player{k}")) for k in SEATS]))
        .otherwise(None)
        .alias("winner_new")
    )
    winners = (
        g.filter(pl.col("winner_new").eq_missing(pl.col("winner")).not_())
        .select(
            [
                "file",
                "game_id",
                "finished_at",
                "player1",
                "player2",
                "player3",
                "player4",
                "score1",
                "score2",
                "score3",
                "score4",
                "winner",
                "score1_new",
                "score2_new",
                "score3_new",
                "score4_new",
                "winner_new",
            ]
        )
        .sort("file")
    )
    return {
        "plays": changes,
        "words": per_word,
        "winners": winners,
        "games": games.height,
        "unfinished_left_out": unfinished,
        "plays_checked": moves.filter(pl.col("kind") == "play").height,
    }


def _csv(frame, path: Path) -> None:
    import polars as pl

    flat = frame.with_columns([pl.col(c).list.join(" ") for c, t in frame.schema.items() if isinstance(t, pl.List)])
    flat.write_csv(path)


def summary_text(result: dict, old_name: str, new_name: str) -> str:
    words = result["words"]
    lines = [
        "# Lexicon impact",
        "",
        f"Old lexicon: {old_name}  ",
        f"New lexicon: {new_name}",
        "",
        f"- games checked: {result['games']}; tile plays checked: {result['plays_checked']}",
    ]
    for change, label in (("now_phony", "valid before, phonies now"), ("now_valid", "phonies before, valid now")):
        w = words.filter(words["change"] == change)
        p = result["plays"].filter(result["plays"]["change"] == change)
        lines.append(f"- {label}: {w.height} words, {p.height} plays in {p['file'].n_unique() if p.height else 0} games")
    lines.append(f"- games whose winner would change under a challenge: {result['winners'].height}")
    skipped = result.get("skipped")
    if skipped is not None and skipped.height:
        lines.append(
            f"- games left out: {skipped.height} (not of the lexicons' language; each with its reason in skipped.csv, "
            f"first: {skipped['file'][0]})"
        )
    left_out = result.get("unfinished_left_out", 0)
    if left_out:
        lines.append(f"- unfinished games with a changed play, left out of that count (no winner to change): {left_out}")
    if words.height:
        lines += ["", "| word | change | plays | games | first | last |", "|---|---|---|---|---|---|"]
        for r in words.head(50).iter_rows(named=True):
            lines.append(
                f"| {r['word']} | {r['change']} | {r['plays']} | {r['games']} | {r['first'] or ''} | {r['last'] or ''} |"
            )
        if words.height > 50:
            lines.append(f"| … {words.height - 50} more in words.csv | | | | | |")
    return "\n".join(lines) + "\n"


def run_impact(
    old_dir: str | Path,
    new_dir: str | Path,
    items: list[str],
    out_dir: str | Path,
    *,
    workers: int = 1,
    cluster: str | None = None,
    quiet: bool = True,
    preset: str | None = None,
    lang: str | None = None,
    before_swap: Callable[[dict], None] | None = None,
    check_language: bool = False,
    skip_other_language: bool = False,
) -> dict[str, Any]:
    """The whole ``skrafl impact`` job: the output folder ``out_dir`` (command ``impact``).

    ``check_language``: refuse games that say they are in another language than the lexicons
    (:func:`check_games_language`; ``skrafl impact`` and the nightly job's impact step do).
    ``skip_other_language`` (the nightly job): such games are not refused but left out, each a row
    of ``skipped.{parquet,csv}`` with its reason (``result["skipped"]``; the file is written, empty
    or not, in this mode only), and counted in ``summary.md``.

    ``before_swap``: called with the result once the files are written and before the new output
    is swapped in (the command's printing: an error in it discards the new output)."""
    from gamecore.lexicon import Lexicon
    from pipelines.atomic import check_output_dir, output_dir

    inputs = [*items, str(old_dir), str(new_dir)]
    check_output_dir(Path(out_dir), "impact", inputs)
    old, new = Lexicon.load(old_dir), Lexicon.load(new_dir)
    parent = Path(os.path.dirname(os.path.abspath(out_dir)))
    parent.mkdir(parents=True, exist_ok=True)
    scratch, held = _new_scratch(parent)  # beside the output: on the workers' shared file system
    try:
        language = (old.manifest.get("language") or new.manifest.get("language")) if check_language else None
        games, moves, skipped = _tables(
            items,
            scratch,
            workers=workers,
            cluster=cluster,
            quiet=quiet,
            preset=preset,
            lang=lang,
            language=language,
            skip_other_language=skip_other_language,
        )
        result = compute_impact(games, moves, old, new)
        result["skipped"] = skipped
    except Exception as exc:  # a full disk while the games are replayed beside the output: named as the output
        from gamecore.errors import OutputError, SkraflError, is_disk_full

        if isinstance(exc, OutputError) or (is_disk_full(exc) and not isinstance(exc, SkraflError)):
            raise OutputError(
                "no space left on the device for this output (the games are replayed into a scratch folder beside "
                "it first): nothing was changed",
                out_dir,
            ) from None
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        os.close(held)
    with output_dir(Path(out_dir), "impact", inputs) as stage:
        for name in ("plays", "words", "winners", *(("skipped",) if skip_other_language else ())):
            result[name].write_parquet(stage / f"{name}.parquet", compression="zstd", statistics=False)
            _csv(result[name], stage / f"{name}.csv")
        (stage / "summary.md").write_text(summary_text(result, str(old_dir), str(new_dir)), encoding="utf-8")
        if before_swap is not None:
            before_swap(result)
    return result


SCRATCH_PREFIX = ".skrafl-impact-"
"""The scratch folder of a run (a replayed copy of its games) beside its output."""
_SCRATCH_LOCK = ".skrafl-scratch.lock"
SCRATCH_GRACE = 60.0
"""Seconds a scratch folder that holds files but no lock file is left alone; older, it is a killed
run's (or an older skrafl's). (A run makes its lock before any other file: an empty folder is
removed at once, and a run whose folder is taken so makes another.)"""


def _new_scratch(parent: Path) -> tuple[Path, int]:
    """A new scratch folder in ``parent``, held by an exclusive ``flock`` on its lock file for the
    run (the kernel drops it when the process dies), after the scratch folders of killed runs
    there are removed (:func:`tidy_scratch`). Returns the folder and the lock's descriptor. The
    lock is made as ``LOCK.new``, held, then renamed: a folder whose lock is not held, or that is
    still empty, is a killed run's; should another run's tidy-up take this one before its lock is
    held, a new folder is made."""
    import fcntl

    tidy_scratch(parent)
    for _ in range(100):
        scratch = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=parent))
        try:
            fd = os.open(scratch / f"{_SCRATCH_LOCK}.new", os.O_RDWR | os.O_CREAT, 0o644)
        except FileNotFoundError:  # removed, still empty, by another run's tidy-up
            continue
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            os.rename(scratch / f"{_SCRATCH_LOCK}.new", scratch / _SCRATCH_LOCK)
        except FileNotFoundError:  # taken by another run's tidy-up before it was held
            os.close(fd)
            continue
        return scratch, fd
    raise OSError(errno.EAGAIN, "cannot make a scratch folder", str(parent))


def tidy_scratch(parent: Path) -> list[Path]:
    """Remove the scratch folders that killed ``impact`` runs left in ``parent`` (a full copy of
    the replayed games each): those whose lock (``LOCK``, or ``LOCK.new`` of a run killed as it
    made it) no live run holds, the empty ones (a run killed before it made its lock), and those
    without a lock file older than :data:`SCRATCH_GRACE` (an older skrafl's). A running impact's
    scratch is left alone. Returns those removed."""
    import fcntl
    import time

    removed: list[Path] = []
    try:
        found = [p for p in parent.iterdir() if p.name.startswith(SCRATCH_PREFIX)]
    except OSError:
        return removed
    for p in sorted(found):
        if p.is_symlink() or not p.is_dir():
            continue
        for name in (_SCRATCH_LOCK, f"{_SCRATCH_LOCK}.new"):
            try:
                fd = os.open(p / name, os.O_RDWR)
                break
            except FileNotFoundError:
                fd = None
            except OSError:
                fd = -1
                break
        if fd == -1:
            continue
        if fd is None:
            try:
                os.rmdir(p)  # empty: its run was killed before it made its lock
                removed.append(p)
                continue
            except OSError:
                pass
            try:
                if time.time() - p.stat().st_mtime > SCRATCH_GRACE:
                    shutil.rmtree(p, ignore_errors=True)
                    removed.append(p)
            except OSError:
                pass
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)  # a running impact's
            continue
        shutil.rmtree(p, ignore_errors=True)
        removed.append(p)
        os.close(fd)
    return removed


def check_lexicons(old_dir, new_dir) -> None:
    """Refuse, before any work, ``--old`` and ``--new`` that are one folder or lexicons of different
    languages (:func:`pipelines.diff.check_one_language`; a folder that is no lexicon is refused
    when it is loaded).

    Raises:
        UsageError: one line."""
    import json

    from pipelines.diff import check_one_language

    if Path(old_dir).resolve() == Path(new_dir).resolve():
        raise UsageError("--old and --new are the same lexicon")
    manifests = []
    for folder in (old_dir, new_dir):
        try:
            manifests.append(json.loads((Path(folder) / "manifest.json").read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return  # no readable manifest: Lexicon.load says what is wrong with the folder
    if all(isinstance(m, dict) for m in manifests):
        check_one_language(manifests[0], manifests[1], f"--old {old_dir}", f"--new {new_dir}")
