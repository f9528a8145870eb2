"""Replay applies the rules as the games have them (issues 23 and 25): the record's bag, the
challenge bonus per word challenged, exchanges and the bag, the minimum word length, a player's
two passes in a row, bounded time penalties.

Expected values come from the rules (reference/rules.md, the tile sets of reference/tile_sets.tsv,
the seeds) and the written scores of real game logs, never from the replayer."""

from __future__ import annotations

import json

import pytest

from pipelines.replay import ReplayOptions, replay_file


def _replay(path, **opts):
    res = replay_file(str(path), ReplayOptions(**opts))
    return res.game_row, res.move_rows


# --- issue 23 item 5: a Netskrafl record's bag wins over --lang/--rules -------------------------------


def _old_bag_record(tmp_path):
    # DÓT across from H7, the Ó on the centre star (a double word). Old bag (reference/tile_sets.tsv,
    # icelandic_old, from Netskrafl's languages.py): D 4, Ó 6, T 1 → (4 + 6 + 1) × 2 = 22; the new
    # bag's values (D 5, Ó 3, T 2) would give 20.
    rec = {
        "irack0": "dótaeir",
        "irack1": "nsklmgu",
        "prefs": {"newbag": False},
        "moves": [{"player": 0, "coord": "H7", "tiles": "dót", "score": 22, "rack": "aeirnnn"}],
    }
    path = tmp_path / "old_bag.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    return path


@pytest.mark.parametrize("opts", [{}, {"lang": "is"}, {"preset": "netskrafl"}], ids=["record", "lang-is", "rules-netskrafl"])
def test_the_record_old_bag_wins_over_the_options(tmp_path, opts):
    row, moves = _replay(_old_bag_record(tmp_path), strict=True, **opts)
    assert row["status"] == "ok", row["error"]
    assert [m["score_computed"] for m in moves] == [22]
