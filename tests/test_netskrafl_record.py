"""Netskrafl JSON game records (docs/NETSKRAFL.md): conversion, and the 10 real games replayed with every
move score and both final scores reproduced (the records' own numbers are authoritative)."""

from __future__ import annotations

import json

import pytest

from gamecore.gamelog import GameLogError
from gamecore.netskrafl_record import parse_netskrafl_coordinate, parse_netskrafl_record, read_netskrafl_record
from pipelines.replay import ReplayOptions, replay_file


def test_coordinates():
    # docs/NETSKRAFL.md: row letter first = across (H4 = row H, column 4); number first = down
    assert parse_netskrafl_coordinate("H4") == (7, 3, True)
    assert parse_netskrafl_coordinate("9H") == (7, 8, False)
    assert parse_netskrafl_coordinate("O15") == (14, 14, True)
    assert parse_netskrafl_coordinate("Z") is None


def test_conversion():
    rec = {
        "irack0": "ab?cdef",
        "irack1": "ghijklm",
        "score0": 0,
        "score1": 0,
        "moves": [
            {"player": 0, "coord": "H8", "tiles": "b?ógar", "score": 9, "rack": "xyzcdef"},
            {"player": 1, "coord": "", "tiles": "EXCH gh", "score": 0, "rack": "ijklmno"},
            {"player": 0, "coord": "", "tiles": "PASS", "score": 0, "rack": "xyzcdef"},
        ],
    }
    g = parse_netskrafl_record(rec)
    play = g.events[0]
    assert play.coord == "8H" and play.across and play.word == ["B", "ó", "G", "A", "R"]
    assert play.rack == ["A", "B", "?", "C", "D", "E", "F"]
    assert g.events[1].kind == "exchange" and g.events[1].tiles == ["G", "H"]
    assert g.events[2].rack == ["X", "Y", "Z", "C", "D", "E", "F"]  # rack after the player's previous move


def test_bad_records(tmp_path):
    (tmp_path / "a.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(GameLogError) as exc:
        read_netskrafl_record(tmp_path / "a.json")
    assert exc.value.code == "RECORD_MALFORMED"
    bad = {"irack0": "abc", "irack1": "def", "moves": [{"player": 0, "coord": "Z99", "tiles": "ab", "score": 1, "rack": ""}]}
    with pytest.raises(GameLogError):
        parse_netskrafl_record(bad)


@pytest.mark.parametrize(
    ("field", "text", "code"),
    [("tiles", "a\u0345", "PLAY_MALFORMED"), ("rack", "a\u0345", "RACK_MALFORMED"), ("tiles", "a1", "PLAY_MALFORMED")],
)
def test_a_character_that_is_no_letter_is_refused(field, text, code):
    """U+0345 is no letter although its upper case is one (Greek capital iota)."""
    move = {"player": 0, "coord": "H8", "tiles": "ab", "score": 4, "rack": "cdefgh"}
    move[field] = text
    with pytest.raises(GameLogError) as exc:
        parse_netskrafl_record({"irack0": "abcdefg", "irack1": "hijklmn", "moves": [move]})
    assert exc.value.code == code


def test_ten_games(shared):
    files = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))
    assert len(files) == 10
    for f in files:
        data = json.loads(f.read_text(encoding="utf-8"))
        res = replay_file(str(f), ReplayOptions(strict=True))
        row = res.game_row
        assert row["status"] == "ok", (f.name, row["error"])
        assert (row["score1"], row["score2"]) == (data["score0"], data["score1"]), f.name
        recorded = [m["score"] for m in data["moves"]]
        replayed = [m for m in res.move_rows if m["score_recorded"] is not None]
        assert [m["score_recorded"] for m in replayed] == recorded
        assert [m["score_computed"] for m in replayed] == recorded, f.name
        # challenges resolved as recorded: RESP -X takes the play back, RESP +10 credits the challenged player
        kinds = [m["kind"] for m in replayed]
        for m, mv in zip(replayed, data["moves"], strict=True):
            if mv["tiles"] == "RESP":
                assert m["kind"] == ("withdraw" if mv["score"] < 0 else "challenge_bonus")
        assert kinds.count("challenge") == data.get("num_challenges", kinds.count("challenge"))


def test_regular_games_words_known(shared):
    from pathlib import Path

    lexdir = Path(__file__).resolve().parents[1] / "output" / "is"
    if not (lexdir / "lexicon.marisa").is_file():
        pytest.skip("the Icelandic lexicon is not built (skrafl ingest is && skrafl build is)")
    from gamecore.lexicon import Lexicon

    lex = Lexicon.load(lexdir)
    opts = ReplayOptions(lexicon_dir=str(lexdir))
    for f in sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        if data.get("manual"):
            continue  # competition games contain challenged phonies
        res = replay_file(str(f), opts)
        assert res.game_row["unknown_words"] == [], f.name
        assert all(w in lex for m in res.move_rows for w in (m["words_formed"] or []))


def test_faults_in_a_record(shared, tmp_path):
    """A real record with one number or rack changed: the replay names the fault."""
    src = shared / "corpora" / "netskrafl" / "games" / "game_00e0c260-72d8-11f0-97e1-055a4832c9c7.json"
    base = json.loads(src.read_text(encoding="utf-8"))

    def variant(name, change, code):
        data = json.loads(json.dumps(base))
        change(data)
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        lenient = replay_file(str(path), ReplayOptions())
        assert lenient.game_row["status"] == "mismatch", name
        assert code in [f.code for f in lenient.findings], name
        strict = replay_file(str(path), ReplayOptions(strict=True))
        assert strict.game_row["error"].startswith(code), (name, strict.game_row["error"])

    variant("score", lambda d: d["moves"][0].update(score=33), "PLAY_SCORE_INCORRECT")
    variant("final", lambda d: d.update(score1=444), "FINAL_SCORE_MISMATCH")
    # the first rack after a move must keep the tiles not played (irack0 ttaalié minus létta = i)
    variant("rack", lambda d: d["moves"][0].update(rack="xmuáar?"), "RACK_AFTER_MOVE_INCORRECT")
    # a +10 wrong-challenge bonus the final scores do not contain
    variant(
        "resp",
        lambda d: d["moves"].insert(2, {"player": 1, "coord": "", "tiles": "RESP", "score": 10, "rack": d["moves"][1]["rack"]}),
        "FINAL_SCORE_MISMATCH",
    )
