"""The Russian set's Ё tile plays as Е wherever the folded word exists (the Russian Scrabble article: "the
letter е counts as е or ё"; the lexicon folds ё → е), scored with the Ё tile's value, in ``best``
and in ``replay`` (words checked, --analyze). Lexicon: the hand-made OpenCorpora fixture (ёж, ёлка
→ еж, елка). Russian values (tile_sets.tsv russian): Ё 3, Е 1, Ж 5, Л 2, К 2, А 1; on an empty
board every first play covers H8 (DW) and no other premium square for these lengths."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from clirun import run_skrafl_here
from lang_helpers import LANG_FIX, build


@pytest.fixture(scope="module")
def ru(tmp_path_factory) -> Path:
    pytest.importorskip("gamecore.movegen")
    return build(tmp_path_factory.mktemp("ru"), "ru", "--source", str(LANG_FIX / "ru" / "dict.opcorpora_small.xml"))


def _empty(tmp_path: Path) -> Path:
    p = tmp_path / "empty.board"
    p.write_text("\n".join(["." * 15] * 15) + "\n", encoding="utf-8")
    return p


def _plays(ru: Path, tmp_path: Path, rack: str) -> list[list[str]]:
    res = run_skrafl_here(
        "best", "--lang", "ru", "--board", str(_empty(tmp_path)), "--rack", rack, "-f", "tsv", "--all", output_root=ru.parent
    )
    assert res.returncode == 0, res.stderr
    return [line.split("\t") for line in res.stdout.splitlines()[1:]]


def test_best_plays_the_yo_tile_as_ye(ru, tmp_path):
    rows = _plays(ru, tmp_path, "ЁЖИК")
    assert rows, "no play found for a rack with Ё"
    assert {r[1] for r in rows} == {"ЁЖ"}
    assert all(int(r[2]) == (3 + 5) * 2 for r in rows)  # the Ё tile's 3, not Е's 1; DW on H8
    assert all(r[4] == "ИК" for r in rows)


def test_best_with_both_tiles_offers_each_choice(ru, tmp_path):
    rows = _plays(ru, tmp_path, "ЕЁЖЛКА")
    by_word = {}
    for _coord, word, score, _placed, leave in rows:
        by_word.setdefault(word, set()).add((int(score), leave))
    assert by_word["ЁЖ"] == {(16, "АЕКЛ")} and by_word["ЕЖ"] == {(12, "АЁКЛ")}
    assert by_word["ЁЛКА"] == {((3 + 2 + 2 + 1) * 2, "ЕЖ")} and by_word["ЕЛКА"] == {((1 + 2 + 2 + 1) * 2, "ЁЖ")}
    assert [int(r[2]) for r in rows] == sorted((int(r[2]) for r in rows), reverse=True)


def test_replay_checks_and_scores_a_yo_play(ru, tmp_path):
    from gamecore.best import load_bundle
    from gamecore.gcg import parse_gcg_text
    from gamecore.lexicon import Lexicon
    from pipelines.replay.game import replay_game

    g = parse_gcg_text("#player1 a A\n#player2 b B\n#lexicon ru\n>a: ЁЖИКЛАН 8G ЁЖ +16 16\n>b: ЕЛКАМНО - +0 0\n", strict=True)
    res = replay_game(g, preset="russian_scrabble", lexicon=Lexicon.load(ru), analyze=True, bundle=load_bundle(ru))
    assert res.game_row["status"] == "ok", res.game_row["error"]
    rows = res.move_rows
    assert (rows[0]["score_computed"], rows[0]["words_formed"], rows[0]["unknown"]) == (16, ["ёж"], [])
    assert (rows[0]["best_word"], rows[0]["best_score"]) == ("ЁЖ", 16)
    assert rows[1]["best_word"] == "ЕЛКА" and rows[1]["best_score"] > 0  # the pass: the best play instead


def test_blank_swap_variant_in_best(ru, tmp_path):
    """The Russian Scrabble article's blank swap (preset russian_scrabble_swap: also the blank worth its letter): a
    blank ж on the board (ЕЖ across at 8G, the Ж a blank) and Ж on the rack: the player may take
    the blank and must play it. Without Л, ЕЛКА is possible only through the swap: Е (1, played
    through) + л on the DL G9 (2 × 2: worth its letter) + К 2 + А 1 = 8."""
    board = tmp_path / "swap.board"
    rows = ["." * 15 for _ in range(15)]
    rows[7] = "......Еж......."
    board.write_text("\n".join(rows) + "\n", encoding="utf-8")
    args = ["best", "--lang", "ru", "--board", str(board), "--rack", "ЖКАБВГД", "-f", "tsv", "--all"]
    res = run_skrafl_here(*args, "--rules", "russian_scrabble_swap", output_root=ru.parent)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].split("\t") == ["coord", "word", "score", "tiles_placed", "leave", "swap"]
    rows_ = [line.split("\t") for line in lines[1:]]
    assert ["G8", "ЕлКА", "8", "3", "БВГД", "8H=Ж"] in rows_
    assert all(r[5] == "" or "?" not in r[4] for r in rows_)  # the blank taken is played at once
    plain = run_skrafl_here(*args, output_root=ru.parent)
    assert plain.returncode == 0 and "ЕлКА" not in plain.stdout and plain.stdout.splitlines()[0].count("\t") == 4


def test_yo_tile_on_the_board_with_every_ye_in_play(ru, tmp_path):
    """The Ё tile on the board and all eight Е tiles on the board and rack: a legal position (Е 8,
    Ё 1 in the set), so ``best`` answers it; the search, which sees the Ё as an Е, must not count
    it as a ninth Е."""
    board = tmp_path / "yo.board"
    rows = ["." * 15 for _ in range(15)]
    rows[0] = "ЕЕЕЕЕ.........."
    rows[7] = "......ЁЖ......."
    board.write_text("\n".join(rows) + "\n", encoding="utf-8")
    res = run_skrafl_here(
        "best", "--lang", "ru", "--board", str(board), "--rack", "ЕЕЕЛКА", "-f", "tsv", "--all", output_root=ru.parent
    )
    assert res.returncode == 0, res.stderr
    words = {line.split("\t")[1] for line in res.stdout.splitlines()[1:]}
    assert "ЕЛКА" in words
    over = run_skrafl_here("best", "--lang", "ru", "--board", str(board), "--rack", "ЕЕЕЕЛКА", "-f", "tsv", output_root=ru.parent)
    assert over.returncode == 2 and "9 × 'Е'" in over.stderr  # a ninth Е tile is refused as before


def test_self_play_goes_on_after_the_yo_tile_is_played(ru, tmp_path):
    """Self-play under Russian Scrabble: once the Ё tile is on the board (a tile the lexicon's
    alphabet folds to Е), the equity player still moves (its board codes are made again by the
    search: the Ё has no code of its own)."""
    from gamecore.autoplay import Mover, Strategy
    from gamecore.best import load_bundle
    from gamecore.equity import LeaveTable
    from gamecore.game_state import GameState, Play
    from gamecore.klv import Klv, write_klv2
    from gamecore.rules import load_rules

    rules = load_rules("russian_scrabble")
    state = GameState.new(rules, seed=1)
    rack, bag = state.racks[0], state.bag
    for want in "ЁЖ":  # the two tiles onto the first rack, swapped with two of its own (counts kept)
        if want not in rack:
            i = bag.index(want)
            bag[i], rack[-1] = rack[-1], bag[i]
            rack.insert(0, rack.pop())
    mover = Mover(load_bundle(ru), rules)
    yo = [p for p in mover.all_plays(state, rack) if "Ё" in [t.label for t in p.word]]
    assert yo, "no play of the Ё tile"
    state.apply(Play(0, yo[0]))
    write_klv2(tmp_path / "ru.klv2", {(1,): 1.0})
    leaves = LeaveTable(Klv.read(tmp_path / "ru.klv2"), rules.tiles())
    assert mover._grid(state) is None
    ev = mover.choose(state, Strategy("equity", leaves=leaves), random.Random(1))
    state.apply(ev)
    assert state.turn == 0 and len(state.history) == 2
