"""``replay --analyze`` in bulk: one :class:`gamecore.best.GameAnalyzer` per game, fed
the compiled replay board's codes (``CompiledBoard.codes()``), the position kept in C between turns.

The reference is the path it replaced, kept for the oracle replay board: a fresh
:class:`gamecore.board.Board` per turn and :func:`gamecore.best.best_play` on it. Every move row
(best coordinate, word, score, points lost included) must be the same, on real games (the shared
GCG corpus with English lexicons, the Netskrafl records with the Icelandic one) and on the GCG
fixtures (withdrawn phonies take tiles off the board: the analyzer's position goes back too);
with two workers (the analysis runs in the worker processes) the output files are byte-identical
to one process'. Hand-scored best plays are in tests/test_replay.py
(test_analyze_with_a_small_lexicon)."""

from __future__ import annotations

from pathlib import Path

import pytest
from clirun import PROJECT_ROOT, run_skrafl_here


@pytest.fixture(scope="module")
def small_en(tmp_path_factory, shared) -> Path:
    """An English lexicon of the shared positions' word lists (2,868 words: plenty of plays)."""
    tmp = tmp_path_factory.mktemp("lex")
    words = tmp / "words.txt"
    pos = shared / "corpora" / "positions"
    text = "".join((pos / f"{n}.words").read_text(encoding="utf-8") for n in ("mid1_b1", "mid2_b0", "open3_b0"))
    words.write_text(text, encoding="utf-8")
    res = run_skrafl_here("build", "en", "--source", "wordlist", "--input", str(words), "--out", str(tmp / "en"), "-q")
    assert res.returncode == 0, res.stderr
    return tmp / "en"


def _rows(files, lexicon: Path, oracle: bool, monkeypatch) -> list[list[dict]]:
    from gamecore.replay_board import OracleBoard
    from pipelines.replay import ReplayOptions, replay_file
    from pipelines.replay import game as game_mod

    opts = ReplayOptions(lexicon_dir=str(lexicon), analyze=True)
    with monkeypatch.context() as m:
        if oracle:  # the reference: a Board per turn and best_play on it
            m.setattr(game_mod, "replay_board", OracleBoard)
        return [replay_file(str(f), opts).move_rows for f in files]


def _compare(files, lexicon: Path, monkeypatch) -> int:
    got = _rows(files, lexicon, False, monkeypatch)
    want = _rows(files, lexicon, True, monkeypatch)
    analysed = 0
    for f, g, w in zip(files, got, want, strict=True):
        assert g == w, f"{Path(f).name}: analysis differs from best_play on a fresh Board"
        analysed += sum(1 for r in g if r.get("best_score") is not None)
    return analysed


def test_shared_gcg_small_english(shared, small_en, monkeypatch):
    files = sorted((shared / "corpora" / "gcg").glob("*.gcg"))
    assert _compare(files, small_en, monkeypatch) > 100


def test_gcg_fixtures_with_withdrawals(fixtures, small_en, monkeypatch):
    files = sorted((fixtures / "gcg").glob("*.gcg"))
    assert any("withdraw" in f.name for f in files)
    _compare(files, small_en, monkeypatch)


@pytest.mark.slow
@pytest.mark.skipif(not (PROJECT_ROOT / "output" / "en" / "lexicon.kwg").is_file(), reason="output/en not built")
def test_shared_gcg_full_english(shared, monkeypatch):
    files = sorted((shared / "corpora" / "gcg").glob("*.gcg"))[::3]
    assert _compare(files, PROJECT_ROOT / "output" / "en", monkeypatch) > 100


@pytest.mark.skipif(not (PROJECT_ROOT / "output" / "is" / "lexicon.kwg").is_file(), reason="output/is not built")
def test_netskrafl_records_icelandic(shared, monkeypatch):
    files = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))[:4]
    assert _compare(files, PROJECT_ROOT / "output" / "is", monkeypatch) > 50


def test_workers_give_the_same_files(shared, small_en, tmp_path):
    gcg = str(shared / "corpora" / "gcg")
    outs = []
    for workers in ("1", "2"):
        out = tmp_path / f"o{workers}"
        res = run_skrafl_here("replay", gcg, "--lexicon", str(small_en), "--analyze", "--out", str(out), "-j", workers, "-q")
        assert res.returncode in (0, 1), res.stderr  # 1: some corpus games are not ok (status mismatch)
        outs.append(out)
    for name in ("moves.parquet", "games.parquet"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name


def test_codes_are_the_position(shared):
    """CompiledBoard.codes() is the board position() draws: 0 empty, tile index + 0x40 for a blank."""
    from gamecore.replay_board import CompiledBoard
    from gamecore.rules import load_rules

    rules = load_rules("wespa")
    b = CompiledBoard(rules)
    assert b.codes() == bytes(225)
    b.play(7, 7, True, ["Q", "i"])
    codes = b.codes()
    ts = rules.tiles()
    assert codes[7 * 15 + 7] == ts.letters.index("Q") + 1 and codes[7 * 15 + 8] == (ts.letters.index("I") + 1) | 0x40
    board = b.position()
    assert sum(1 for x in codes if x) == sum(1 for row in board.squares for t in row if t is not None) == 2
    b.undo()
    assert b.codes() == bytes(225)
