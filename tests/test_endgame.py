"""The endgame solver (``gamecore/endgame.py``, ``skrafl endgame``).

Expected values come from the rules, worked by hand on tiny positions (a one-tile rack that goes
out, a stuck rack that must pass, two stuck racks), and from an independent oracle: a plain minimax
over :class:`gamecore.game_state.GameState` (every play of the generator and the pass, applied and
scored by the rules engine, six — or the preset's — scoreless turns and the own-passes rule kept
exactly, no pruning, no table), on English, Icelandic (Netskrafl: scores floored at 0) and Russian
boards and on an Endline preset. With ../shared and a MAGPIE build (``MAGPIE_DIR``, else a
``magpie`` checkout beside this one): the same values as MAGPIE's solver on corpus positions.
"""

from __future__ import annotations

import copy
import json
import os
import random
from pathlib import Path

import pytest

from gamecore.board import Board
from gamecore.endgame import Endgame
from gamecore.game_state import GameState, Pass, Play
from gamecore.kwg import Kwg
from gamecore.rules import load_rules

REPO = Path(__file__).resolve().parents[1]
ENGLISH = "abcdefghijklmnopqrstuvwxyz"


def _board(rules, words: list[tuple[int, int, bool, str]]) -> Board:
    b = Board(rules.layout(), rules.tiles())
    for row, col, across, word in words:
        for i, label in enumerate(word):
            b.place(row + (0 if across else i), col + (i if across else 0), label)
    return b


def _solve(board, racks, words, rules, alphabet=ENGLISH, scores=(0, 0), scoreless=0, **kw):
    kwg = Kwg.from_words(sorted(set(words)), alphabet)
    eg = Endgame(board, racks, kwg, [a.upper() for a in alphabet], rules, scores, scoreless)
    return eg.solve(**kw), kwg


def oracle(board, racks, kwg, alphabet, rules, scores=(0, 0), scoreless: int = 0) -> int:
    """The final spread (player 0's view) with best play, by plain minimax over GameState."""
    from gamecore.best import generate_plays

    ts = rules.tiles()
    st = GameState(rules, ts, board.copy(), [], [list(racks[0]), list(racks[1])], random.Random(0))
    st.scores, st.passes, st.turn, st.scoreless = list(scores), [0, 0], 0, scoreless
    labels = [a.upper() for a in alphabet]
    memo: dict = {}

    def value(s: GameState) -> int:
        if s.over is not None:
            return s.scores[0] - s.scores[1]
        key = (
            s.board.cgp_rows(),
            tuple(sorted(s.racks[0])),
            tuple(sorted(s.racks[1])),
            tuple(s.scores),
            s.scoreless,
            tuple(s.passes),
            s.turn,
        )
        if key in memo:
            return memo[key]
        p = s.turn
        out = []
        for ev in [Play(p, sp) for sp in generate_plays(s.board, s.racks[p], kwg, labels, rules)] + [Pass(p)]:
            s2 = copy.copy(s)  # the parts apply() changes, copied
            s2.board, s2.racks, s2.scores = s.board.copy(), [list(x) for x in s.racks], list(s.scores)
            s2.passes, s2.history, s2.adjustments = list(s.passes), [], []
            s2.apply(ev)
            out.append(value(s2))
        memo[key] = v = max(out) if p == 0 else min(out)
        return v

    return value(st)


# ---------------------------------------------------------------------------- by hand


def test_one_tile_goes_out():
    """CAT on 8H-8J; the side on turn holds S: CATS (C3 A1 T1 S1 on K8, a plain square) = 6 goes
    out, + twice the opponent's rack (Q 10 + Z 10) = 46."""
    rules = load_rules("wespa")
    b = _board(rules, [(7, 7, True, "CAT")])
    r, _ = _solve(b, (["S"], ["Q", "Z"]), ["cat", "cats"], rules, scores=(100, 90))
    assert (r.value, r.gain, r.proved) == (10 + 46, 46, True)
    assert [(m.coord, m.word, m.score) for m in r.sequence] == [("8H", "(CAT)S", 6)]


def test_stuck_rack_must_pass():
    """The side on turn holds Q and Z and can play nothing: it passes, and the opponent goes out
    with CATS (6 + 2 × 20 = 46; passing back would give it only 20 - 1 = 19)."""
    rules = load_rules("wespa")
    b = _board(rules, [(7, 7, True, "CAT")])
    r, _ = _solve(b, (["Q", "Z"], ["S"]), ["cat", "cats"], rules)
    assert (r.value, r.proved) == (-46, True)
    assert [m.text() for m in r.sequence] == ["(pass)", "8H (CAT)S 6"]
    # after five scoreless turns the forced pass is the sixth: the game ends, each loses their own
    # rack (-20 against -1)
    for exact in (False, True):
        r, _ = _solve(b, (["Q", "Z"], ["S"]), ["cat", "cats"], rules, scoreless=5, exact_passes=exact)
        assert (r.value, r.proved, [m.text() for m in r.sequence]) == (-19, True, ["(pass)"])


def test_both_stuck_end_by_passes():
    """Neither side can play: the scoreless turns end the game and each loses their own rack
    (Q 10 against Z 10 and X 8): 100 - 10 - (90 - 18) = 18."""
    rules = load_rules("wespa")
    b = _board(rules, [(7, 7, True, "CAT")])
    for exact in (False, True):
        r, _ = _solve(b, (["Q"], ["Z", "X"]), ["cat"], rules, scores=(100, 90), exact_passes=exact)
        assert (r.value, r.proved) == (18, True)


def test_plies_and_time_limit_report_the_depth():
    rules = load_rules("wespa")
    b = _board(rules, [(7, 7, True, "CAT")])
    words = ["cat", "cats", "at", "ta", "as", "tas", "sat", "act", "acts", "scat", "cast", "ats"]
    r, _ = _solve(b, (["A", "S", "T"], ["C", "S", "A"]), words, rules, plies=1)
    assert r.depth == 1 and not r.proved
    r, _ = _solve(b, (["A", "S", "T"], ["C", "S", "A"]), words, rules, seconds=0.0)
    assert r.stopped and r.depth == 0 and len(r.sequence) >= 1  # the best play by score, never nothing


# ---------------------------------------------------------------------------- against the oracle

CASES = {
    "english": (
        "wespa",
        ENGLISH,
        [
            "cat",
            "cats",
            "at",
            "ta",
            "as",
            "tas",
            "sat",
            "act",
            "acts",
            "scat",
            "cast",
            "ats",
            "cost",
            "cots",
            "to",
            "so",
            "oat",
            "oats",
            "taco",
            "tacos",
            "coat",
        ],
        [(7, 7, True, "CAT"), (8, 9, False, "O")],
        (["S", "O", "T"], ["A", "C"]),
        (120, 131),
    ),
    "endline": (
        "scrabble_endline_beginner",
        ENGLISH,
        ["cat", "cats", "at", "ta", "as", "tas", "sat", "act", "acts", "scat", "cast", "ats", "to", "so", "oat", "oats"],
        [(7, 7, True, "CAT")],
        (["S", "O"], ["A", "S", "Q"]),
        (60, 66),
    ),
    "passes_twice": (
        "scrabble_passes_twice",
        ENGLISH,
        ["cat", "cats", "at", "ta", "as", "sat", "qat", "qats"],
        [(7, 7, True, "CAT")],
        (["S", "Q"], ["A", "?", "T"]),
        (10, 12),
    ),
}


@pytest.mark.parametrize("engine", ["c", "python"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_value_equals_plain_minimax(name, engine):
    preset, alphabet, words, placed, racks, scores = CASES[name]
    rules = load_rules(preset)
    b = _board(rules, placed)
    r, kwg = _solve(b, racks, words, rules, alphabet, scores, engine=engine)
    assert r.proved
    assert r.value == oracle(b, racks, kwg, alphabet, rules, scores)
    # the pass counts kept exactly give the same value (MAGPIE's two-pass end is no approximation)
    r2, _ = _solve(b, racks, words, rules, alphabet, scores, exact_passes=True, engine=engine)
    assert r2.value == r.value


def test_icelandic_netskrafl_floor_at_zero():
    """Netskrafl: Icelandic tiles, scores floored at 0 (the side on turn starts at 2: its rack's
    loss is cut at 0)."""
    rules = load_rules("netskrafl")
    ts = rules.tiles()
    alphabet = "".join(ts.letters).lower()
    words = ["ás", "sá", "ða", "að", "áð", "ráð", "ráða", "ráðs", "sár", "ár", "rá", "ós", "só", "rós", "ósa"]
    b = _board(rules, [(7, 6, True, "RÁÐ")])
    racks = (["Ó", "Þ"], ["S", "A", "Æ"])
    for scores in ((2, 0), (40, 33)):
        for engine in ("c", "python"):
            r, kwg = _solve(b, racks, words, rules, alphabet, scores, engine=engine)
            assert r.proved and r.value == oracle(b, racks, kwg, alphabet, rules, scores)
    assert any(m.word for m in r.sequence)


def test_russian_board():
    """Russian Scrabble: Cyrillic tiles, four scoreless turns end the game, others' racks at the end."""
    rules = load_rules("russian_scrabble")
    ts = rules.tiles()
    alphabet = "".join(ts.letters).lower()
    words = ["кот", "коты", "ток", "то", "от", "ты", "рот", "роты", "тор", "торт", "кто", "ком", "мот"]
    b = _board(rules, [(7, 6, True, "КОТ")])
    racks = (["Ы", "Р"], ["О", "Т", "Щ"])
    for engine in ("c", "python"):
        r, kwg = _solve(b, racks, words, rules, alphabet, (77, 80), engine=engine)
        assert r.proved and r.value == oracle(b, racks, kwg, alphabet, rules, (77, 80))


def _corpus_endgames(shared, limit: int):
    """Bag-empty positions of the English corpus games (the rack on turn from the log, the opponent
    holding the rest) as CGP strings, game by game."""
    from cli.position import game_positions

    out = []
    for path in sorted((shared / "corpora" / "gcg").glob("domino14_macondo__gcgio_testdata_*.gcg")):
        try:
            positions = list(game_positions(path, "wespa", None))
        except Exception:  # (a game this reader refuses is no endgame to test)
            continue
        for _, pos in positions:
            ts = pos.board.tile_set
            if set(ts.letters) != set(ENGLISH.upper()):
                break
            if not pos.rack:
                continue
            left = {t: ts.counts.get(t, 0) for t in ts.letters} | {"?": ts.blanks}
            for t, c in pos.board.used_counts().items():
                left[t] = left.get(t, 0) - c
            for t in pos.rack:
                left[t] = left.get(t, 0) - 1
            if sum(left.values()) > 7 or min(left.values()) < 0:
                continue
            opp = "".join(t * c for t, c in left.items() if c > 0)
            if len(pos.rack) + len(opp) > 9:  # (small enough for the Python search)
                continue
            s = pos.scores
            out.append(f"{pos.board.cgp_rows()} {''.join(pos.rack)}/{opp} {s[pos.mover]}/{s[1 - pos.mover]} 0")
            break
        if len(out) >= limit:
            break
    return out


@pytest.mark.slow
@pytest.mark.skipif(not (REPO / "output" / "en" / "lexicon.kwg").is_file(), reason="output/en not built")
def test_c_search_equals_the_python_search_on_corpus_endgames(shared):
    """The search in C (``gamecore/c/endgame.c``) against the same search in Python, on real
    bag-empty positions of the corpus games with the English lexicon: the same value, both proved,
    and the C line's first move is a best one (played, the rest solved by the Python search gives
    the same value)."""
    from gamecore.best import load_bundle
    from gamecore.board import parse_cgp
    from gamecore.play import apply_play, validate_play

    bundle = load_bundle(REPO / "output" / "en")
    rules = load_rules("wespa")
    cgps = _corpus_endgames(shared, 6)
    assert len(cgps) >= 4
    for cgp in cgps:
        c = parse_cgp(cgp, rules.tiles(), rules.layout())
        args = (c.board, c.racks, bundle.kwg, bundle.alphabet, rules, c.scores, c.zeros)
        rc = Endgame(*args).solve(seconds=60, engine="c")
        rp = Endgame(*args).solve(seconds=60, engine="python")
        assert rc.proved and rp.proved, cgp
        assert rc.value == rp.value, cgp
        first = rc.sequence[0]
        mine, theirs = list(c.racks[0]), list(c.racks[1])
        if first.is_pass:
            after, kept, score, zeros = c.board, mine, 0, c.zeros + 1
        else:
            play = validate_play(c.board, (first.coord, first.word), mine, None, rules)
            assert play.score == first.score, cgp
            after, kept, score, zeros = apply_play(c.board, play), play.leave(mine), play.score, 0
            if not kept:  # it goes out: its score and twice the opponent's rack
                assert rc.value == c.scores[0] + score - c.scores[1] + 2 * sum(rules.tiles().value(t) for t in theirs), cgp
                continue
        rest = Endgame(after, (theirs, kept), bundle.kwg, bundle.alphabet, rules, (c.scores[1], c.scores[0] + score), zeros)
        assert -rest.solve(seconds=60, engine="python").value == rc.value, cgp


# ---------------------------------------------------------------------------- the command


@pytest.fixture(scope="module")
def cats_lexicon(tmp_path_factory):
    from clirun import run_skrafl

    tmp = tmp_path_factory.mktemp("eg")
    (tmp / "w.txt").write_text("cat\ncats\n", encoding="utf-8")
    res = run_skrafl("build", "en", "--source", "wordlist", "--input", str(tmp / "w.txt"), "--out", str(tmp / "lex"), "-q")
    assert res.returncode == 0, res.stderr
    return tmp / "lex"


def _full_cgp() -> str:
    """CAT on 8H-8J, and every other tile of the English set but S, Q and Z in rows 1-5 and 11-15,
    in alphabet order (no CAT in any line of them; blanks as z): the bag is empty when the racks
    are S and QZ."""
    ts = load_rules("wespa").tiles()
    left = {t: ts.counts[t] for t in ts.letters}
    for t in "CATSQZ":
        left[t] -= 1
    tiles = [t for t in ts.letters for _ in range(left[t])] + ["z"] * ts.blanks
    rows = []
    for r in range(15):
        if r == 7:
            rows.append("7CAT5")
        elif 5 <= r <= 9:
            rows.append("15")
        else:
            row, tiles = tiles[:15], tiles[15:]
            rows.append("".join(row) + (str(15 - len(row)) if len(row) < 15 else ""))
    assert not tiles
    return "/".join(rows)


def _endgame_in_process(capsys, **options) -> str:
    """``skrafl endgame`` called in this process (its function, every option given); its stdout."""
    from cli.common import BoardFormat, OutputFormat
    from cli.endgame import endgame

    given = dict(cgp=None, board=None, board_format=BoardFormat.gcg, rack=None, opp_rack=None, game=None, move=None)
    given |= dict(lang=None, lexicon=None, rules=None, plies=None, seconds=None, candidates=10, leaves=None)
    given |= dict(fmt=OutputFormat.table) | options
    capsys.readouterr()
    endgame(**given)
    return capsys.readouterr().out


def test_cli_json_table_and_bag_refused(cats_lexicon, capsys):
    from clirun import run_skrafl

    from cli.common import OutputFormat

    board = _full_cgp()
    out = _endgame_in_process(capsys, lexicon=cats_lexicon, cgp=f"{board} S/QZ 100/90 0", fmt=OutputFormat.json)
    doc = json.loads(out)
    assert (doc["value"], doc["depth"] >= 1, doc["proved"]) == (56, True, True)
    assert doc["sequence"] == [{"player": "on turn", "coord": "8H", "word": "(CAT)S", "score": 6}]
    assert set(doc) >= {"value", "sequence", "depth", "proved", "nodes", "seconds"}
    # the opponent's rack left out: the unseen tiles, Q and Z; the same in a table
    out = _endgame_in_process(capsys, lexicon=cats_lexicon, cgp=f"{board} S/ 100/90 0")
    assert "value: +56" in out and "(out)" in out
    # two tiles left in the bag (a D off the board, and Z): one line, exit 2, nothing on stdout (the
    # real command); one tile in the bag is a pre-endgame (tests/test_preendgame.py)
    two = board.replace("CDDDD/", "CDDD1/", 1)
    res = run_skrafl("endgame", "--lexicon", str(cats_lexicon), "--cgp", f"{two} S/Q 100/90 0")
    assert res.returncode == 2 and res.stdout == ""
    (line,) = res.stderr.splitlines()
    assert "the bag is not empty: 2 tiles are neither on the board nor on a rack" in line
    from gamecore.errors import UsageError

    with pytest.raises(UsageError, match="the bag is not empty: 96 tiles"):
        _endgame_in_process(capsys, lexicon=cats_lexicon, cgp="/".join(["15"] * 7 + ["7CAT5"] + ["15"] * 7) + " S/ 0/0 0")


# ---------------------------------------------------------------------------- MAGPIE


def _magpie() -> Path | None:
    root = Path(os.environ.get("MAGPIE_DIR", REPO.parent / "magpie"))
    return root if (root / "bin" / "magpie").is_file() else None


def test_same_value_as_magpie(shared, tmp_path, monkeypatch):
    """Corpus positions (the bag empty, the rack on turn from the game log, the opponent holding the
    rest), our value against MAGPIE's ``endgame`` (one thread) at the depth ours proved."""
    root = _magpie()
    if root is None:
        pytest.skip("no MAGPIE build (MAGPIE_DIR)")
    import sys

    sys.path.insert(0, str(REPO / "bench"))
    from bench_endgame import run_magpie
    from bench_movegen import english_words, magpie_data

    from cli.position import game_positions
    from gamecore.board import parse_cgp
    from gamecore.kwg import write_kwg

    monkeypatch.setenv("MAGPIE_DIR", str(root))
    words, _ = english_words()  # a full-size English list (english-words) when installed
    kwg_path = tmp_path / "en.kwg"
    write_kwg(sorted(w.lower() for w in words), ENGLISH, kwg_path)
    work = magpie_data(tmp_path / "mp", kwg_path)
    assert work is not None
    kwg = Kwg.load(kwg_path, ENGLISH)
    rules = load_rules("wespa")
    gcg = shared / "corpora" / "gcg"
    checked = 0
    for name, moves in (
        ("domino14_macondo__gcgio_testdata_doug_v_emely.gcg", (26, 27)),
        ("domino14_macondo__gcgio_testdata_guy_vs_bot.gcg", (24, 25)),
        # (a position where a node settled by a bound of its depth only was once taken as proved)
        ("domino14_macondo__gcgio_testdata_noah_vs_peter.gcg", (36,)),
    ):
        for n, pos in game_positions(gcg / name, "wespa", None, upto=max(moves)):
            if n not in moves:
                continue
            ts = pos.board.tile_set
            left = {t: ts.counts.get(t, 0) for t in ts.letters} | {"?": ts.blanks}
            for t, c in pos.board.used_counts().items():
                left[t] -= c
            for t in pos.rack:
                left[t] -= 1
            opp = "".join(t * c for t, c in left.items() if c > 0)
            s = pos.scores
            cgp = f"{pos.board.cgp_rows()} {''.join(pos.rack)}/{opp} {s[pos.mover]}/{s[1 - pos.mover]} 0"
            c = parse_cgp(cgp, rules.tiles(), rules.layout())
            r = Endgame(c.board, c.racks, kwg, ENGLISH.upper(), rules, c.scores).solve(seconds=60)
            assert r.proved, cgp
            theirs = run_magpie(root / "bin" / "magpie", work, cgp, r.depth)
            assert theirs["value"] == r.value, (cgp, theirs, r.value)
            checked += 1
    assert checked == 5


def test_cli_game_move_is_the_cgp_of_that_position(shared, cats_lexicon, capsys):
    """``--game FILE --move N`` solves the position before event N: the same as its CGP string (the
    opponent holding every unseen tile); a move whose bag still has tiles is refused."""
    from cli.common import OutputFormat
    from cli.position import game_positions
    from gamecore.errors import UsageError

    gcg = shared / "corpora" / "gcg" / "domino14_macondo__gcgio_testdata_guy_vs_bot.gcg"
    pos = next(p for n, p in game_positions(gcg, "wespa", None, upto=24) if n == 24)
    s = pos.scores
    cgp = f"{pos.board.cgp_rows()} {''.join(pos.rack)}/ {s[pos.mover]}/{s[1 - pos.mover]} 0"
    by_game = json.loads(_endgame_in_process(capsys, lexicon=cats_lexicon, game=gcg, move=24, fmt=OutputFormat.json))
    by_cgp = json.loads(_endgame_in_process(capsys, lexicon=cats_lexicon, cgp=cgp, fmt=OutputFormat.json))
    for doc in (by_game, by_cgp):
        del doc["seconds"]
    assert by_game == by_cgp and by_game["proved"]
    with pytest.raises(UsageError, match="the bag is not empty"):
        _endgame_in_process(capsys, lexicon=cats_lexicon, game=gcg, move=10)
