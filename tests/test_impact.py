"""skrafl impact: plays whose verdict changes between two lexicons."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest
from lexicon_helpers import make_lexicon

from pipelines.impact import run_impact

ROOT = Path(__file__).resolve().parents[1]
GAMES = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared")) / "corpora" / "netskrafl" / "games"
GAME = GAMES / "game_00e0c260-72d8-11f0-97e1-055a4832c9c7.json"  # first plays: LÉTTA, then ROSKNUÐ forming léttar

needs_corpus = pytest.mark.skipif(not GAME.exists(), reason="no Netskrafl corpus in ../shared")


def _corpus_words(tmp_path: Path) -> list[str]:
    from pipelines.replay.dataset import read_table
    from pipelines.replay.jobs import ReplayOptions, run_replay_dataset

    run_replay_dataset([str(GAME)], tmp_path / "ds", ReplayOptions(), quiet=True)
    moves = pl.from_arrow(read_table(tmp_path / "ds", "moves"))
    return sorted(set(moves.filter(pl.col("kind") == "play")["words_formed"].explode().drop_nulls().to_list()))


@needs_corpus
def test_tiny_pair_hand_made(tmp_path):
    words = _corpus_words(tmp_path)
    assert "létta" in words and "léttar" in words
    old = make_lexicon(tmp_path / "old", words)
    # new: 'léttar' removed (the cross word of turn 2), 'xyzzy' added (never played)
    new = make_lexicon(tmp_path / "new", [w for w in words if w != "léttar"] + ["xyzzy"])
    result = run_impact(old, new, [str(GAME)], tmp_path / "out")
    plays = result["plays"]
    assert plays.select("turn", "coord", "word", "change", "words").to_dicts() == [
        {"turn": 2, "coord": "I8", "word": "ROSKNUÐ", "change": "now_phony", "words": ["léttar"]},
    ]
    words_t = pl.read_parquet(tmp_path / "out" / "words.parquet")
    assert words_t.select("word", "change", "plays", "games").to_dicts() == [
        {"word": "léttar", "change": "now_phony", "plays": 1, "games": 1}
    ]
    assert str(words_t["first"][0]) == "2025-08-11" == str(words_t["last"][0])
    assert (
        (tmp_path / "out" / "words.csv").read_text(encoding="utf-8").splitlines()[1].startswith("léttar,now_phony,1,1,2025-08-11")
    )
    summary = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert "valid before, phonies now: 1 words, 1 plays in 1 games" in summary
    # the reverse: léttar becomes valid; the 86-point play is no longer withdrawn... it was never withdrawn: no winner change
    back = run_impact(new, old, [str(tmp_path / "ds")], tmp_path / "out2")
    assert back["plays"]["change"].to_list() == ["now_valid"]
    assert back["winners"].height == 0


@needs_corpus
def test_winner_changes_under_challenge(tmp_path):
    words = _corpus_words(tmp_path)
    games = pl.from_arrow(__import__("pipelines.replay.dataset", fromlist=["read_table"]).read_table(tmp_path / "ds", "games"))
    g = games.row(0, named=True)
    margin = abs(g["score1"] - g["score2"])
    moves = pl.from_arrow(__import__("pipelines.replay.dataset", fromlist=["read_table"]).read_table(tmp_path / "ds", "moves"))
    winner_seat = 1 if g["score1"] > g["score2"] else 2
    big = moves.filter((pl.col("kind") == "play") & (pl.col("player") == winner_seat) & (pl.col("score_computed") > margin)).row(
        0, named=True
    )
    gone = big["words_formed"][0]
    old = make_lexicon(tmp_path / "old", words)
    new = make_lexicon(tmp_path / "new", [w for w in words if w != gone])
    result = run_impact(old, new, [str(tmp_path / "ds")], tmp_path / "out")
    assert result["winners"].height == 1
    w = result["winners"].row(0, named=True)
    assert w["winner"] == g["winner"] and w["winner_new"] != g["winner"]


ICELANDIC = ROOT / "output" / "is"
ENTRIES = ROOT / "output" / "entries" / "is"


@pytest.mark.slow
@needs_corpus
@pytest.mark.skipif(
    not (ICELANDIC / "manifest.json").exists() or not ENTRIES.exists(), reason="Icelandic lexicon not built (make lexicons)"
)
def test_icelandic_one_removal_lists_exactly_its_plays(tmp_path):
    """Icelandic rebuilt from BÍN with one more committee removal — a word played in the corpus
    games — against the built lexicon: exactly the plays that formed that word are listed."""
    import dataclasses

    from gamecore.lexicon import Lexicon
    from pipelines.build import build
    from pipelines.recipe import load_recipe
    from pipelines.replay.dataset import read_table
    from pipelines.replay.jobs import ReplayOptions, run_replay_dataset

    run_replay_dataset([str(GAMES)], tmp_path / "ds", ReplayOptions(), quiet=True)
    plays = pl.from_arrow(read_table(tmp_path / "ds", "moves")).filter(pl.col("kind") == "play")
    current = Lexicon.load(ICELANDIC)
    word = "létta"
    assert word in current
    expected = plays.filter(pl.col("words_formed").list.contains(word)).select("file", "turn").sort("file", "turn")
    assert expected.height >= 1
    recipe = load_recipe(ROOT / "lexicon_sources" / "is" / "recipe.toml")
    removals = tmp_path / "removals.txt"
    removals.write_text(recipe.removals.read_text(encoding="utf-8") + f"\n{word}\n", encoding="utf-8")
    build([dataclasses.replace(recipe, removals=removals)], ENTRIES, tmp_path / "is-new", progress=False)
    assert word not in Lexicon.load(tmp_path / "is-new")
    result = run_impact(ICELANDIC, tmp_path / "is-new", [str(tmp_path / "ds")], tmp_path / "out")
    got = result["plays"]
    assert got.select("file", "turn").sort("file", "turn").to_dicts() == expected.to_dicts()
    assert set(got["change"]) == {"now_phony"} and set(got["words"].explode().to_list()) == {word}
    assert result["words"].select("word", "plays").rows() == [(word, expected.height)]


@pytest.mark.slow
@needs_corpus
def test_cli_and_refusals(tmp_path):

    words = _corpus_words(tmp_path)
    make_lexicon(tmp_path / "old", words)
    make_lexicon(tmp_path / "new", [w for w in words if w != "léttar"])

    from clirun import run_skrafl_here

    def skrafl(*args):
        return run_skrafl_here("impact", *map(str, args))

    r = skrafl(GAME, "--old", tmp_path / "old", "--new", tmp_path / "new", "--out", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert "1 plays now phonies" in r.stderr and "1 words" in r.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.name != ".skrafl-output") == sorted(
        [f"{n}.{e}" for n in ("plays", "words", "winners") for e in ("parquet", "csv")] + ["summary.md"]
    )
    first = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir() if p.name != ".skrafl-output"}
    r = skrafl(tmp_path / "ds", "--old", tmp_path / "old", "--new", tmp_path / "new", "--out", tmp_path / "out", "-q")
    assert r.returncode == 0, r.stderr
    assert {
        p.name: p.read_bytes() for p in (tmp_path / "out").iterdir() if p.name != ".skrafl-output"
    } == first  # from the dataset: the same bytes
    (tmp_path / "file").write_text("mine")
    make_lexicon(tmp_path / "other", ["x"])
    for out, expect in ((tmp_path / "file", "not a folder"), (tmp_path / "old", "input"), (tmp_path / "other", "'skrafl build'")):
        r = skrafl(GAME, "--old", tmp_path / "old", "--new", tmp_path / "new", "--out", out, "-q")
        assert r.returncode == 2 and expect in r.stderr, (out, r.stderr)
    r = skrafl(GAME, "--old", tmp_path / "old", "--new", tmp_path / "old", "--out", tmp_path / "o2", "-q")
    assert r.returncode == 2 and "same lexicon" in r.stderr
    r = skrafl(GAME, "--old", tmp_path / "nope", "--new", tmp_path / "new", "--out", tmp_path / "o3", "-q")
    assert r.returncode == 2 and not (tmp_path / "o3").exists()


@needs_corpus
def test_words_are_listed_in_the_alphabet_of_the_language(tmp_path):
    """words.csv and summary.md listed words of equal counts in code-point order (spjark, sáa,
    sénir; ægu, óguðu, örð, ýtar, þái): now in the language's alphabet (á after a, þ æ ö last),
    the order of words.txt and of find."""
    words = _corpus_words(tmp_path)
    gone = [w for w in words if w[0] in "áéíóúýþæö"][:10] + [w for w in words if w[0] in "bfs" and w.isascii()][:6]
    # the Icelandic alphabet as Netskrafl orders its tiles (mideind/Netskrafl src/languages.py)
    rows = [
        line.split("\t") for line in (GAMES.parents[2] / "reference" / "tile_sets.tsv").read_text(encoding="utf-8").splitlines()
    ]
    alphabet = "".join(r[1].lower() for r in rows if r[0] == "icelandic_new" and r[1] != "?")
    assert alphabet.index("á") == 1 and alphabet.endswith("þæö")
    old = make_lexicon(tmp_path / "old", words, alphabet=alphabet)
    new = make_lexicon(tmp_path / "new", [w for w in words if w not in gone], alphabet=alphabet)
    run_impact(old, new, [str(GAME)], tmp_path / "out")
    table = pl.read_csv(tmp_path / "out" / "words.csv")
    listed = list(zip(table["plays"], table["word"], strict=True))
    expected = sorted(listed, key=lambda pw: (-pw[0], [alphabet.index(c) for c in pw[1]]))
    assert len(listed) >= 10 and listed == expected, listed
    assert listed != sorted(listed, key=lambda pw: (-pw[0], pw[1]))  # the code-point order differs here
    summary = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    rows = [line.split(" | ")[0].lstrip("| ") for line in summary.splitlines() if line.startswith("| ") and "now_" in line]
    assert rows == [w for _, w in listed][: len(rows)] and rows


def test_a_three_player_games_winner_change_counts_every_seat(tmp_path):
    """Winners were computed between seats 1 and 2 only: in a finished three-player game (ann 24,
    ben 64, cat 77 after 3 scoreless rounds and the rack penalties) cat's ELINVAR (+93) a phony
    under the new lexicon makes ben the winner (cat 77 - 93 = -16); the third seat was ignored."""
    game = ROOT / "tests" / "fixtures" / "gcg" / "other" / "three_players_finished.gcg"
    words = ["joint", "trusteed", "elinvar", "ajoint"]
    old = make_lexicon(tmp_path / "old", words, language="en")
    new = make_lexicon(tmp_path / "new", [w for w in words if w != "elinvar"], language="en")
    result = run_impact(old, new, [str(game)], tmp_path / "out")
    assert result["plays"].select("player", "name", "word", "change").rows() == [(3, "cat", "ELINVAR", "now_phony")]
    (w,) = result["winners"].to_dicts()
    assert (w["player1"], w["player2"], w["player3"], w["player4"]) == ("ann", "ben", "cat", None)
    assert (w["score1"], w["score2"], w["score3"], w["winner"]) == (24, 64, 77, "cat")
    assert (w["score1_new"], w["score2_new"], w["score3_new"], w["score4_new"], w["winner_new"]) == (24, 64, -16, None, "ben")
    # the reverse: nothing changes seat 1 or 2, and a two-seat game still has its two seats
    back = run_impact(new, old, [str(game)], tmp_path / "out2")
    assert back["winners"].height == 0
