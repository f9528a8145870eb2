"""The equity search in C (``gamecore.movegen.Position.equity``, ``gamecore.best.EquitySearch``,
autoplay's ``equity`` strategy) against the Python ranking it replaces (``gamecore.equity.rank``
over every play, itself checked against MAGPIE's complete move lists in test_equity.py): the same
top moves (placements and exchanges), the same equities to the thousandth, in the same order.

Positions: the shared SOWPODS positions with the CSW21 sub-leave file (every row of the ranking,
pruned and not), and every position of self-play games (the opening, the middle, the empty bag) in
each language's rule set (its alphabet, values, bag, board and bingo), on lexicons drawn from its
tile frequencies, with leave files of random values for every leave of up to three tiles (longer
leaves absent, worth 0) and the CSW21 sub-leaves for English. Also the leave look-up in C against
the KLV2 reader, and a damaged value refused as the reader refuses it.
"""

from __future__ import annotations

import random
import struct
from functools import lru_cache
from itertools import combinations_with_replacement
from pathlib import Path

import pytest

from gamecore.best import EquitySearch, LexiconBundle, generate_plays
from gamecore.board import parse_cgp
from gamecore.equity import LeaveTable, rank
from gamecore.errors import DataError
from gamecore.klv import Klv, klv2_bytes
from gamecore.kwg import Kwg
from gamecore.rules import load_rules

LEAVES = Path(__file__).resolve().parent / "fixtures" / "leaves"
SUBSET = LEAVES / "csw21_subset.klv2"
RULE_SETS = ["wespa", "netskrafl", "ordspill", "russian_scrabble", "slovene", "erudit", "scrabble9"]


def _key(r) -> tuple:
    p = r.play
    return (r.kind, r.score, r.milli, r.leave, r.exchanged, (p.row, p.col, p.across, p.word) if p else None)


@lru_cache(maxsize=None)
def _bundle(rules_name: str) -> LexiconBundle:
    """Words drawn from the tile set's frequencies: two-letter words of its common letters (dense
    boards) and a few thousand longer ones (some bingos among them)."""
    ts = load_rules(rules_name).tiles()
    letters = list(ts.letters)
    rng = random.Random(f"equity/{rules_name}")
    pool = [x for x in letters for _ in range(ts.counts.get(x, 0))]
    common = sorted(set(pool), key=lambda x: (-pool.count(x), letters.index(x)))[:12]
    words = {a + b for a in common for b in common if rng.random() < 0.45}
    while len(words) < 4000:
        words.add("".join(rng.choice(pool) for _ in range(rng.choice([3, 3, 4, 4, 5, 5, 6, 7, 7, 8, 9]))))
    kwg = Kwg.from_words(sorted(w.lower() for w in words), [x.lower() for x in letters])
    return LexiconBundle(Path("."), {}, None, kwg, letters)


@lru_cache(maxsize=None)
def _random_leaves(rules_name: str) -> LeaveTable:
    """Every leave of one to three tiles of the tile set, a random value each (-8..12 points)."""
    ts = load_rules(rules_name).tiles()
    rng = random.Random(f"leaves/{rules_name}")
    table = {}
    for k in (1, 2, 3):
        for c in combinations_with_replacement(range(len(ts.letters) + 1), k):
            table[c] = rng.uniform(-8, 12)
    return LeaveTable(Klv.from_bytes(klv2_bytes(table)), ts)


def _self_play(rules_name: str, leaves: LeaveTable, games: int, seed: str) -> dict:
    """Play equity against equity (the C search) and check every position against the Python
    ranking; returns what was covered."""
    from gamecore.autoplay import Mover, Strategy
    from gamecore.game_state import Exchange, GameState, Play

    rules = load_rules(rules_name)
    bundle = _bundle(rules_name)
    mover = Mover(bundle, rules)
    search = EquitySearch(bundle, rules, leaves)
    assert search.plain
    strategy = Strategy("equity", leaves=leaves)
    seen = {"positions": 0, "opening": 0, "empty bag": 0, "exchange first": 0}
    for g in range(games):
        st = GameState.new(rules, seed=f"{seed}/{g}")
        rng = random.Random(g)
        while st.over is None:
            p, rack = st.turn, st.racks[st.turn]
            opponent = [t for q, r in enumerate(st.racks) if q != p for t in r] if not st.bag else []
            want = rank(st.board, rack, mover.all_plays(st, rack), leaves, rules, opponent)
            for limit, prune in ((1, True), (1, False), (4, True)):
                got = search.rank(st.board, rack, opponent, limit, prune=prune)
                assert [_key(r) for r in got] == [_key(r) for r in want[:limit]], (rules_name, g, "".join(rack), limit, prune)
            ev = mover.choose(st, strategy, rng)  # the Mover's own board codes and bag count
            first = next((r for r in want if r.kind == "play" or st.can_exchange(len(r.exchanged))), None)
            if first is None:
                assert not isinstance(ev, Play)
            elif first.kind == "play":
                assert isinstance(ev, Play) and ev.play == first.play
            else:
                assert isinstance(ev, Exchange) and sorted(ev.tiles) == sorted(first.exchanged)
            seen["positions"] += 1
            seen["opening"] += st.board.is_empty()
            seen["empty bag"] += not st.bag
            seen["exchange first"] += bool(want) and want[0].kind == "exchange"
            st.apply(ev)
    return seen


@pytest.mark.parametrize("rules_name", RULE_SETS)
def test_self_play_positions_equal_the_python_ranking(rules_name):
    seen = _self_play(rules_name, _random_leaves(rules_name), 6, "native")
    assert seen["opening"] >= 6 and seen["empty bag"] >= 6 and seen["positions"] >= 100, seen


def test_self_play_with_csw21_sub_leaves():
    """English with MAGPIE-DATA's CSW21 values of the sub-leaves the fixture holds (most leaves of
    a game are absent from it: worth 0, as MAGPIE counts them)."""
    seen = _self_play("wespa", LeaveTable(Klv.read(SUBSET), load_rules("wespa").tiles()), 3, "csw21")
    assert seen["positions"] >= 30


def test_an_exchange_comes_first_on_bad_racks():
    """A rack of heavy duplicates with leaves that reward keeping little: the best move is an
    exchange (its equity is the kept tiles' value), found in C as in Python."""
    rules = load_rules("wespa")
    ts = rules.tiles()
    table = {(i,): -20.0 for i in range(len(ts.letters) + 1)}
    table[(ts.index("S"),)] = 25.0
    leaves = LeaveTable(Klv.from_bytes(klv2_bytes(table)), ts)
    seen = _self_play("wespa", leaves, 2, "exch")
    assert seen["exchange first"] >= 1, seen


def _shared_ranked(shared: Path, name: str):
    import csv

    rows = list(csv.DictReader((LEAVES / "positions.tsv").open(encoding="utf-8"), delimiter="\t"))
    pos = next(r for r in rows if r["name"] == name)
    wespa = load_rules("wespa")
    en = wespa.tiles()
    words = (shared / "corpora" / "positions" / pos["words"]).read_text(encoding="utf-8").split()
    kwg = Kwg.from_words(sorted({w.lower() for w in words}), "abcdefghijklmnopqrstuvwxyz")
    cgp = parse_cgp(pos["cgp"], en, wespa.layout())
    leaves = LeaveTable(Klv.read(SUBSET), en)
    bundle = LexiconBundle(Path("."), {}, None, kwg, list(en.letters))
    plays = generate_plays(cgp.board, cgp.racks[0], kwg, list(en.letters), wespa)
    want = rank(cgp.board, cgp.racks[0], plays, leaves, wespa, cgp.racks[1])
    return EquitySearch(bundle, wespa, leaves), cgp, want


@pytest.mark.parametrize("name", ["open3_b0", "mid2_b0", "mid1_b1", "mid1_b2", "mid2_end", "mid2_bag6", "mid2_bag7"])
def test_shared_positions_every_row(shared, name):
    """Every placement and exchange, in order: the whole ranking asked of the C search."""
    search, cgp, want = _shared_ranked(shared, name)
    for limit in (1, 3, len(want)):
        for prune in (True, False):
            got = search.rank(cgp.board, cgp.racks[0], cgp.racks[1], limit, prune=prune)
            assert [_key(r) for r in got] == [_key(r) for r in want[:limit]], (name, limit, prune)


def test_leave_lookup_in_c_equals_the_reader():
    klv = Klv.read(SUBSET)
    native = LeaveTable(klv, load_rules("wespa").tiles()).native()
    words = list(klv.words())
    assert len(words) == len(klv) > 300
    for w in words:
        assert native.milli(bytes(w)) == klv.milli(w)
    rng = random.Random(1)
    for _ in range(2000):  # mostly leaves the file lacks: 0
        w = tuple(sorted(rng.randrange(27) for _ in range(rng.randint(1, 6))))
        assert native.milli(bytes(w)) == klv.milli(w)


def test_a_damaged_leave_value_is_the_readers_error():
    rules = load_rules("wespa")
    ts = rules.tiles()
    data = bytearray(klv2_bytes({(i,): 1.0 for i in range(len(ts.letters) + 1)}))
    struct.pack_into("<f", data, len(data) - 4 * (len(ts.letters) + 1) + 4 * ts.index("E"), float("nan"))
    leaves = LeaveTable(Klv.from_bytes(bytes(data)), ts)
    search = EquitySearch(_bundle("wespa"), rules, leaves)
    from gamecore.board import Board

    with pytest.raises(DataError, match="leave value number .* not a number of points"):
        search.rank(Board(rules.layout(), ts), list("EARTHLY"), (), 1)


def test_cli_equity_robot(shared, tmp_path_factory):
    """``best --robot equity``: the first row of the whole ranking (``--leaves --all``); without
    --leaves, the language's shipped leaves, or one line naming the fix when none is shipped."""
    import json

    from clirun import run_skrafl

    from gamecore.klv import shipped_leaves

    out = tmp_path_factory.mktemp("robot") / "lex"
    src = shared / "corpora" / "positions" / "mid2_b0.words"
    r = run_skrafl("build", "en", "--source", "wordlist", "--input", str(src), "--out", str(out), "-q")
    assert r.returncode == 0, r.stderr
    cgp = "15/15/8JOE4/7FAUTOR2/7A7/7B7/7L1M5/7E1O5/5GIRON5/4DONS1A5/4AE3C5/9I5/9D5/15/15 BDEGORW/ 0/0 0"
    base = ["best", "--lexicon", str(out), "--rules", "wespa", "--cgp", cgp, "-f", "json"]
    every = json.loads(run_skrafl(*base, "--leaves", str(SUBSET), "--all").stdout)
    r = run_skrafl(*base, "--leaves", str(SUBSET), "--robot", "equity")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == every[:1] and every[0]["word"] == "GOWDER"
    r = run_skrafl(*base, "--robot", "equity")
    if shipped_leaves("en", "wespa") is None:
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "give --leaves FILE.klv2" in r.stderr
    else:
        assert r.returncode == 0 and len(json.loads(r.stdout)) == 1, r.stderr
    r = run_skrafl(*base, "--leaves", str(SUBSET), "--robot", "equity", "--pick-from", "3")
    assert r.returncode == 2 and "--pick-from" in r.stderr


@pytest.mark.skipif(
    not (Path(__file__).resolve().parents[1] / "output" / "is" / "lexicon.kwg").is_file(), reason="output/is not built"
)
def test_built_icelandic_lexicon():
    """The whole Icelandic lexicon (2.8 million word forms, Node24 graph) on the Netskrafl board and
    bag, leave values at random: the first moves of two games, every position checked."""
    from gamecore.autoplay import Mover
    from gamecore.best import load_bundle
    from gamecore.game_state import GameState

    bundle = load_bundle(Path(__file__).resolve().parents[1] / "output" / "is")
    rules = load_rules("netskrafl")
    leaves = _random_leaves("netskrafl")
    mover = Mover(bundle, rules)
    search = EquitySearch(bundle, rules, leaves)
    n = 0
    for g in range(2):
        st = GameState.new(rules, seed=f"is/{g}")
        while st.over is None and len(st.history) < 12:
            rack = st.racks[st.turn]
            want = rank(st.board, rack, mover.all_plays(st, rack), leaves, rules)
            got = search.rank(st.board, rack, (), 3)
            assert [_key(r) for r in got] == [_key(r) for r in want[:3]], (g, "".join(rack))
            top = next((r for r in want if r.kind == "play"), None)
            if top is not None:
                from gamecore.game_state import Play

                st.apply(Play(st.turn, top.play))
            else:
                break
            n += 1
    assert n >= 12


@pytest.mark.parametrize("rules_name", ["wespa", "netskrafl"])
def test_searches_in_threads_give_what_one_thread_gives(rules_name):
    """A Position's search runs without the GIL (its search state is its own): four threads, each
    with its own EquitySearch, ranking the positions of self-play at once (each from another start,
    so different positions are searched side by side), give exactly the rows one thread gives."""
    import threading

    from gamecore.autoplay import Mover, Strategy
    from gamecore.game_state import GameState

    rules, bundle, leaves = load_rules(rules_name), _bundle(rules_name), _random_leaves(rules_name)
    mover, strategy = Mover(bundle, rules), Strategy("equity", leaves=leaves)
    cases = []
    for g in range(4):
        st = GameState.new(rules, seed=f"threads/{g}")
        rng = random.Random(g)
        while st.over is None:
            opponent = [t for q, r in enumerate(st.racks) if q != st.turn for t in r] if not st.bag else []
            cases.append((st.board.copy(), list(st.racks[st.turn]), opponent))
            st.apply(mover.choose(st, strategy, rng))
    assert len(cases) >= 60

    def ranked(search: EquitySearch, board, rack, opponent) -> list:
        return [
            [_key(r) for r in search.rank(board, rack, opponent, limit, prune=prune)]
            for limit, prune in ((1, True), (8, True), (3, False))
        ]

    one = EquitySearch(bundle, rules, leaves)
    want = [ranked(one, *c) for c in cases]
    got: list[list] = [[None] * len(cases) for _ in range(4)]
    errors: list[BaseException] = []

    def worker(t: int) -> None:
        try:
            search = EquitySearch(bundle, rules, leaves)
            for _rep in range(2):
                for k in range(len(cases)):
                    i = (k + t * len(cases) // 4) % len(cases)
                    got[t][i] = ranked(search, *cases[i])
        except BaseException as e:  # noqa: BLE001  (reported below, in the test's thread)
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    for t in range(4):
        assert got[t] == want, t
