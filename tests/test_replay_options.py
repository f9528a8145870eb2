"""``skrafl replay``: every option combination is checked before any note, so a usage error is the
one line on stderr (README: bad input is one line, exit 2)."""

from __future__ import annotations

import pytest
from clirun import one_error_line, run_skrafl_here

# --- 4. replay: every option combination checked before any note ---------------------------------


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--since", "2025-08-01"], "--since/--until go with --dataset DIR"),
        (["--cluster", "tcp://localhost:8786"], "--cluster goes with --dataset DIR"),
        (["--every-move"], "--every-move goes with --export-svg DIR"),
        (["--coords", "xy"], "--coords 'xy': expected gcg or netskrafl"),
    ],
)
def test_replay_usage_error_is_the_only_line(shared, tmp_path, extra, message):
    games = shared / "corpora" / "netskrafl" / "games"
    r = run_skrafl_here("replay", str(games), "--out", str(tmp_path / "x"), *extra)
    line = one_error_line(r)  # no "note: words checked with …" before it
    assert line.startswith(f"skrafl: error: {message}")
    assert not (tmp_path / "x").exists()


def test_replay_out_inside_input_is_the_only_line(shared):
    games = shared / "corpora" / "netskrafl" / "games"
    r = run_skrafl_here("replay", str(games), "--out", str(games / "sub"))
    assert "lies inside the input folder" in one_error_line(r)


def test_replay_analyze_without_lexicon(shared, tmp_path):
    games = shared / "corpora" / "netskrafl" / "games"
    r = run_skrafl_here("replay", str(games), "--out", str(tmp_path / "x"), "--analyze", "--no-lexicon")
    assert "--analyze needs a lexicon" in one_error_line(r)
