"""skrafl impact under a challenge: a Netskrafl play challenged off (CHALL, then RESP -X) is a
withdrawn play, and an unfinished game has no winner to change (user trial, problems 1 and 2).

Expected values come from the game records themselves: the move scores and final scores a
Netskrafl record holds, and the GCG file's two plays (no end of game)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl
import pytest
from lexicon_helpers import make_lexicon

from pipelines.impact import run_impact

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKRAFL_SHARED", ROOT.parent / "shared")) / "corpora"
CHALLENGED = SHARED / "netskrafl" / "games" / "game_15fa21c2-7a13-11f0-8121-0be7fa3227eb.json"
UNFINISHED = SHARED / "gcg" / "domino14_macondo__gcgio_testdata_name_iso8859-1.gcg"  # WINDY 32, GALE 16; no end


def _words(game: Path, tmp: Path) -> list[str]:
    """Every word formed in ``game``'s plays (replayed without a lexicon)."""
    from pipelines.replay.dataset import read_table
    from pipelines.replay.jobs import ReplayOptions, run_replay_dataset

    run_replay_dataset([str(game)], tmp / "ds", ReplayOptions(), quiet=True)
    moves = pl.from_arrow(read_table(tmp / "ds", "moves"))
    return sorted(set(moves.filter(pl.col("kind") == "play")["words_formed"].explode().drop_nulls().to_list()))


@pytest.mark.skipif(not CHALLENGED.exists(), reason="no Netskrafl corpus in ../shared")
def test_netskrafl_play_challenged_off_is_withdrawn_and_its_points_come_back(tmp_path):
    record = json.loads(CHALLENGED.read_text(encoding="utf-8"))
    moves = record["moves"]
    # the record: move 6, player 1's FATTARNIR (64), challenged (CHALL) and taken back (RESP -64)
    assert [m["tiles"] for m in moves[5:8]] == ["fattarnir", "CHALL", "RESP"]
    assert (moves[5]["score"], moves[7]["score"]) == (64, -64)
    score = {m["tiles"].lstrip("?"): m["score"] for m in moves if m["player"] == 1 and m["coord"]}
    words = _words(CHALLENGED, tmp_path)
    assert "fattarnir" in words
    old = make_lexicon(tmp_path / "old", [w for w in words if w != "fattarnir"])
    # the trial's pair: four of player 1's standing plays become phonies, fattarnir becomes valid
    gone = ["firrtan", "æfan", "hex", "murrinu"]
    new = make_lexicon(tmp_path / "new", [w for w in words if w not in gone] + ["fattarnir"])
    result = run_impact(old, new, [str(CHALLENGED)], tmp_path / "out")
    plays = pl.read_csv(tmp_path / "out" / "plays.csv")
    assert plays.select("turn", "change", "withdrawn").rows() == [
        (6, "now_valid", True),
        (10, "now_phony", False),
        (24, "now_phony", False),
        (28, "now_phony", False),
        (32, "now_phony", False),
    ]
    # 581 - 74 - 30 - 51 - 71 + 64 = 419 for player1, 383 for player0: the winner stands
    assert record["score1"] - sum(score[w] for w in gone) + 64 > record["score0"]
    assert result["winners"].height == 0
    assert "games whose winner would change under a challenge: 0" in (tmp_path / "out" / "summary.md").read_text()
    # one more of player 1's plays (nískt, 39) gone: 419 - 39 = 380 < 383, the winner changes
    new2 = make_lexicon(tmp_path / "new2", [w for w in words if w not in [*gone, "nískt"]] + ["fattarnir"])
    result = run_impact(old, new2, [str(tmp_path / "ds")], tmp_path / "out2")
    assert result["winners"].select("score1", "score2", "winner", "score1_new", "score2_new", "winner_new").rows() == [
        (
            record["score0"],
            record["score1"],
            "player1",
            record["score0"],
            record["score1"] - sum(score[w] for w in [*gone, "nískt"]) + 64,
            "player0",
        )
    ]
    assert result["winners"]["score2_new"][0] == 380


@pytest.mark.skipif(not UNFINISHED.exists(), reason="no GCG corpus in ../shared")
def test_unfinished_game_has_no_winner_to_change(tmp_path):
    words = _words(UNFINISHED, tmp_path)
    assert "windy" in words
    old = make_lexicon(tmp_path / "old", words, language="en")
    new = make_lexicon(tmp_path / "new", [w for w in words if w != "windy"], language="en")
    result = run_impact(old, new, [str(UNFINISHED)], tmp_path / "out")
    assert result["plays"].select("word", "change").rows() == [("WINDY", "now_phony")]
    assert result["winners"].height == 0
    assert pl.read_csv(tmp_path / "out" / "winners.csv").height == 0
    summary = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8").splitlines()
    assert "- games whose winner would change under a challenge: 0" in summary
    assert "- unfinished games with a changed play, left out of that count (no winner to change): 1" in summary
