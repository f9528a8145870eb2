"""GCG reader and writer (docs/GCG.md): encodings, every event form, the error catalogue (strict and
lenient, one fixture per fault in tests/fixtures/gcg), the shared corpus against INDEX.tsv, and
parse → write → parse."""

from __future__ import annotations

import csv

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamecore.gamelog import GameLogError
from gamecore.gcg import parse_gcg_bytes, parse_gcg_text, read_gcg, write_gcg
from pipelines.replay import ReplayOptions, replay_file


def _expected(fixtures):
    with open(fixtures / "gcg" / "expected.tsv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_every_catalogue_fixture_is_listed(fixtures):
    names = {r["file"] for r in _expected(fixtures)}
    on_disk = {p.name for p in (fixtures / "gcg").glob("*.gcg")}
    assert names == on_disk
    assert len(names) >= 40


@pytest.mark.parametrize("strict", [True, False], ids=["strict", "lenient"])
def test_catalogue_fixtures(fixtures, strict):
    for row in _expected(fixtures):
        res = replay_file(str(fixtures / "gcg" / row["file"]), ReplayOptions(strict=strict))
        code = (res.game_row["error"] or "").split(":")[0]
        if strict:
            assert code == row["strict_code"], row["file"]
            assert res.game_row["status"] == ("ok" if not row["strict_code"] else "error"), row["file"]
        else:
            assert res.game_row["status"] == row["lenient_status"], (row["file"], res.game_row["error"])
            if row["lenient_code"]:
                assert row["lenient_code"] in [f.code for f in res.findings] + [code], row["file"]


def test_base_fixture_values(fixtures):
    g = read_gcg(fixtures / "gcg" / "base.gcg", strict=True)  # CRLF line ends
    assert [p.nick for p in g.players] == ["alice", "bob"]
    assert g.players[0].name == "Alice Able"
    assert [e.kind for e in g.events] == [
        "play",
        "play",
        "exchange",
        "pass",
        "pass",
        "pass",
        "pass",
        "pass",
        "rack_penalty",
        "rack_penalty",
        "time",
    ]
    assert g.events[2].note == "exchange\nkeeping ELOT"
    assert g.events[1].coord == "G7" and g.events[1].across is False and g.events[1].word == ["B", ".", "D"]
    res = replay_file(str(fixtures / "gcg" / "base.gcg"), ReplayOptions(strict=True))
    row = res.game_row
    assert (row["status"], row["score1"], row["score2"], row["winner"]) == ("ok", 56, -17, "alice")
    assert row["bingos1"] == 1 and row["bingos2"] == 0
    assert [m["score_computed"] for m in res.move_rows][:2] == [66, 11]  # hand-scored (see _make.py)


def test_event_forms():
    text = "\n".join(
        [
            "#player1 a A",
            "#player2 b B",
            ">a: ?ABCDEF 8d CaB +10 10",
            ">a: ?ABCDEF --  -10 0",
            ">b: XYZ -3 +0 0",
            ">a: ?ABCDEF 8D CAB +7 7  CAB",
            ">a: ABC (challenge) +5 12",
            ">a:  (challenge) +5 17",
            ">b: Q (time) +-10 -5",
            ">a:  (QZ) +40 52",
            ">a: Q (Q) -10 42",
            ">b: U - +0 -5",
        ]
    )
    g = parse_gcg_text(text)
    ev = g.events
    assert ev[0].coord == "8D" and ev[0].word == ["C", "a", "B"]
    assert ev[1].kind == "withdraw" and ev[1].score == -10
    assert ev[2].kind == "exchange" and ev[2].count == 3
    assert ev[3].extra == "CAB"
    assert ev[4].kind == "challenge_bonus" and ev[4].rack == ["A", "B", "C"]
    assert ev[5].rack is None and ev[5].score == 5
    assert ev[6].kind == "time" and ev[6].score == -10
    assert ev[7].kind == "end_rack" and ev[7].tiles == ["Q", "Z"]
    assert ev[8].kind == "rack_penalty" and ev[8].rack == ["Q"]
    assert ev[9].kind == "pass"


def test_old_quackle_withdrawal_form():
    g = parse_gcg_text("#player1 a A\n#player2 b B\n>a: ABCDEFG 8D CAB +10 10\n>a: ABCDEFG -- +0 0\n")
    assert g.events[1].score == -10


def test_encodings(shared):
    d = shared / "corpora" / "gcg"
    assert read_gcg(d / "domino14_macondo__gcgio_testdata_name_iso8859-1.gcg").players[1].nick == "hércules"
    assert read_gcg(d / "domino14_macondo__gcgio_testdata_name_utf8_noheader.gcg").players[0].nick == "cÃ©sar"
    assert read_gcg(d / "domino14_macondo__gcgio_testdata_name_utf8_with_header.gcg").players[0].nick == "césar"
    with pytest.raises(GameLogError) as exc:
        read_gcg(d / "domino14_macondo__gcgio_testdata_name_weird_encoding_with_header.gcg", strict=True)
    assert exc.value.code == "UNSUPPORTED_CHARACTER_ENCODING"
    g = read_gcg(d / "domino14_macondo__gcgio_testdata_utf8_dos.gcg", strict=True)
    assert [p.nick for p in g.players] == ["angwantibo", "Michal_Josko"]


def test_utf8_letters_without_header_lenient():
    data = "#player1 t T\n#player2 a A\n>t: AGLRTÖÜ -LÖÜ +0 0\n".encode("utf-8")
    g = parse_gcg_bytes(data)
    assert g.events[0].tiles == ["L", "Ö", "Ü"]
    assert "ENCODING_GUESSED" in [w.code for w in g.warnings]


def _index(shared):
    with open(shared / "corpora" / "gcg" / "INDEX.tsv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _final_scores(text: str) -> list[int]:
    # "doug 451 / emely 345", "1 304 / 2 258", "player1 345 / player2 356 (same nickname; ...)"
    parts = text.split("(")[0].split("/")
    return [int(p.split()[-1]) for p in parts]


def test_corpus_against_index(shared):
    rows = _index(shared)
    assert len(rows) == 52
    for row in rows:
        path = shared / "corpora" / "gcg" / row["file"]
        if "must FAIL" in row["repo_tests_assert"]:
            with pytest.raises(GameLogError):
                read_gcg(path, strict=True)
        g = read_gcg(path)
        assert len(g.events) == int(row["events"]), row["file"]
        assert sum(e.kind == "play" for e in g.events) == int(row["tile_placements"]), row["file"]
        assert g.recorded_totals() == _final_scores(row["final_scores_as_written"]), row["file"]


def test_corpus_replays(shared):
    """Every recorded placement score of the corpus is reproduced; the only findings are the
    three files whose data is inconsistent (hand-edited cumulatives in two wolges issue files;
    a Quackle sample where a player plays an F not on the recorded rack)."""
    known = {
        "andy-k_wolges__src_main_endgame.rs__embedded2_polish_issue154_c.gcg": "CUMULATIVE_SCORING_ERROR",
        "andy-k_wolges__src_main_endgame.rs__embedded3_polish_issue154_d.gcg": "CUMULATIVE_SCORING_ERROR",
        "quackle_quackle__test_positions_multiplayer-crash.gcg": "PLAYED_TILES_NOT_IN_RACK",
    }
    for row in _index(shared):
        res = replay_file(str(shared / "corpora" / "gcg" / row["file"]), ReplayOptions())
        assert "PLAY_SCORE_INCORRECT" not in [f.code for f in res.findings], row["file"]
        if row["file"] in known:
            assert res.game_row["status"] == "mismatch"
            assert res.game_row["error"].startswith(known[row["file"]])
        else:
            assert res.game_row["status"] == "ok", (row["file"], res.game_row["error"])
            want = _final_scores(row["final_scores_as_written"])
            assert [res.game_row["score1"], res.game_row["score2"]] == want[:2], row["file"]


def _same(g1, g2):
    assert [(p.nick, p.name) for p in g1.players] == [(p.nick, p.name) for p in g2.players]
    keys = ("kind", "player", "rack", "coord", "word", "tiles", "count", "score", "cumulative", "note")
    assert [[getattr(e, k) for k in keys] for e in g1.events] == [[getattr(e, k) for k in keys] for e in g2.events]
    assert g1.last_racks == g2.last_racks


def test_round_trip(shared, fixtures):
    files = sorted((shared / "corpora" / "gcg").glob("*.gcg")) + [fixtures / "gcg" / "base.gcg"]
    for path in files:
        g1 = read_gcg(path)
        text = write_gcg(g1)
        g2 = parse_gcg_bytes(text.encode("utf-8"))
        _same(g1, g2)
        assert write_gcg(g2) == text  # the writer is stable


def test_bad_input(tmp_path):
    (tmp_path / "garbage.gcg").write_bytes(bytes(range(256)) * 50)
    (tmp_path / "truncated.gcg").write_text("#player1 a A\n#player2 b B\n>a: ABCDEFG 8D CAB +1", encoding="utf-8")
    (tmp_path / "long.gcg").write_text("#player1 a A\n#player2 b B\n#note " + "x" * 10_000_000 + "\n", encoding="utf-8")
    for name in ("garbage.gcg", "truncated.gcg", "long.gcg"):
        res = replay_file(str(tmp_path / name), ReplayOptions())
        assert res.game_row["status"] == "error", name
        assert res.game_row["error"]


def test_end_of_game_faults_on_a_real_ending(shared, tmp_path):
    """Faults that need a player to go out, injected into macondo's doug_v_emely.gcg (emely goes
    out with .aFS; doug holds OPEG = 7 points, so emely gets 2 x 7 = 14)."""
    src = (shared / "corpora" / "gcg" / "domino14_macondo__gcgio_testdata_doug_v_emely.gcg").read_text(encoding="latin-1")
    last = ">emely:  (OPEG) +14 345"
    assert src.rstrip().endswith(last)
    cases = {
        # wrong end-rack points: 1x without the opponent's penalty line
        "end_points": (src.replace(last, ">emely:  (OPEG) +10 341"), "RACK_END_POINTS_INCORRECT"),
        # time penalty before the end-rack points
        "time_early": (src.replace(last, ">doug: EGOP (time) -10 441\n" + last), "PREMATURE_TIME_PENALTY"),
        # a move after the end-rack points
        "move_after": (src.rstrip() + "\n>doug: EGOP - +0 451\n", "MOVE_EVENT_AFTER_GAME_END"),
        # end-rack tiles that doug cannot hold (he holds 4 tiles)
        "end_tiles": (src.replace(last, ">emely:  (OPE) +10 341"), "END_RACK_TILES_INCORRECT"),
    }
    for name, (text, code) in cases.items():
        path = tmp_path / f"{name}.gcg"
        path.write_text(text, encoding="latin-1")
        strict = replay_file(str(path), ReplayOptions(strict=True, preset="wespa")).game_row
        assert (strict["status"], strict["error"].split(":")[0]) == ("error", code), name
        lenient = replay_file(str(path), ReplayOptions())
        assert lenient.game_row["status"] == "mismatch", name
        assert code in [f.code for f in lenient.findings], name
    ok = replay_file(
        str(shared / "corpora" / "gcg" / "domino14_macondo__gcgio_testdata_doug_v_emely.gcg"),
        ReplayOptions(strict=True, preset="wespa"),
    )
    assert ok.game_row["status"] == "ok"


def test_cyrillic_game_with_blank(fixtures):
    """UTF-8 Cyrillic tiles, a lowercase (blank) Cyrillic letter, names and notes (values of the
    russian tile set: К 2, О 1, Т 1, Р 1; scores worked out in the fixture's #title)."""
    g = read_gcg(fixtures / "gcg" / "other" / "russian_utf8.gcg", strict=True)
    assert g.players[0].name == "Иван Петров"
    assert g.events[1].word == ["ш", ".", "Р"] and g.events[1].note == "blank as ш"
    assert g.last_racks == {0: list("ШАЕИЛМН")}
    res = replay_file(str(fixtures / "gcg" / "other" / "russian_utf8.gcg"), ReplayOptions(strict=True, preset="russian_scrabble"))
    assert res.game_row["status"] == "ok", res.game_row["error"]
    assert [m["score_computed"] for m in res.move_rows] == [8, 2]
    assert res.move_rows[1]["words_formed"] == ["шор"]
    text = write_gcg(g)
    assert parse_gcg_bytes(text.encode("utf-8")).events[1].word == ["ш", ".", "Р"]


def test_resign_written_as_time_line_with_note_and_read_back():
    from gamecore.gcg import parse_gcg_text, write_gcg

    text = (
        "#player1 ann Ann\n#player2 bob Bob\n>ann: AEINRST 8D RETAINS +66 66\n>bob: (time) -0 0\n#note #resign\n#note gave up\n"
    )
    g = parse_gcg_text(text, strict=True)
    assert [e.kind for e in g.events] == ["play", "resign"] and g.events[1].note == "gave up"
    out = write_gcg(g)
    assert ">bob:  (time) +0 0\n#note #resign\ngave up\n" in out  # a two-line note
    again = parse_gcg_text(out, strict=True)
    fields = lambda e: (e.kind, e.player, e.coord, e.word, e.score, e.cumulative, e.note)  # noqa: E731
    assert [fields(e) for e in again.events] == [fields(e) for e in g.events]
    # a plain time penalty stays a time penalty
    plain = parse_gcg_text(text.replace("#note #resign\n", ""), strict=True)
    assert plain.events[1].kind == "time"


# ---- the fast path for plain play lines against the general path ------------------------------


def _parse_both(data: bytes, strict: bool):
    """The game (or the error) from the reader as it is, and with the fast path switched off."""
    from unittest import mock

    import gamecore.gcg as gcg

    def outcome():
        try:
            return gcg.parse_gcg_bytes(data, path="x.gcg", strict=strict), None
        except GameLogError as exc:
            return None, str(exc)

    fast = outcome()
    init = gcg._Parser.__init__

    def general_only(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.plain = False

    with mock.patch.object(gcg._Parser, "__init__", general_only):
        general = outcome()
    return fast, general


def test_fast_path_reads_every_file_as_the_general_path(shared, fixtures):
    files = sorted((shared / "corpora" / "gcg").glob("*.gcg")) + sorted((fixtures / "gcg").glob("*.gcg"))
    for path in files:
        for strict in (False, True):
            fast, general = _parse_both(path.read_bytes(), strict)
            assert fast == general, (path.name, strict)


# plain values, which the fast path takes, and odd ones (each line has at most one odd part, so
# both paths are exercised on nearly the same lines)
_PLAIN = {
    "nick": ["alice", "bob"],
    "rack": ["", "AEINRST ", "?EINRST ", "?? ", "ÆÞÐ? "],
    "coord": ["8D", "D8", "8d", "h8", "08D", "15O"],
    "word": ["RETSINA", "RE.SINA", "ÞÓR", "..A", "reTSINa"],
    "score": ["+66", "-66", "66"],
    "cum": ["66", "-6"],
    "extra": ["", " RETSINA", "  a   b "],
}
_ODD = {
    "nick": [" alice", "Alice", "carol", ""],
    "rack": ["A2B ", "8D ", "[CH]A ", "ab² ", "A·B ", "A_B "],
    "coord": ["16A", "A16", "8", "DD", "８D", "Þ8"],
    "word": ["re(T)SINA", "R2D2", "A·B", "[CH]AT", "a²", "A_B"],
    "score": ["+-6", "+٦٦", "+6x", "--6"],
    "cum": ["6.0", "x", "+6"],
    "extra": [" ÞÓR ²"],
}


@st.composite
def _event_lines(draw):
    odd = draw(st.sampled_from([None, None, *_PLAIN]))
    p = {k: draw(st.sampled_from((_ODD if k == odd else _PLAIN)[k])) for k in _PLAIN}
    return f">{p['nick']}: {p['rack']}{p['coord']} {p['word']} {p['score']} {p['cum']}{p['extra']}"


@settings(max_examples=400, deadline=None, derandomize=True)
@given(_event_lines(), st.booleans())
def test_fast_path_agrees_with_general_path_on_odd_lines(line, strict):
    data = ("#character-encoding UTF-8\n#player1 alice Alice\n#player2 bob Bob\n" + line + "\n").encode("utf-8")
    fast, general = _parse_both(data, strict)
    assert fast == general, line
