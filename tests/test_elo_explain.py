"""``skrafl elo --explain``: the messages for a player and the lists asked for:

- ``elo --explain alice --list competition --svg c.svg`` said ``player 'alice' has no rated game
  in games.csv`` though alice has rated games, none of them in the competition list: the message
  now names the list asked for and counts the player's games in the others.
"""

from __future__ import annotations

from pathlib import Path

from clirun import one_error_line, run_skrafl_here

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "elo" / "games.csv"

# alice: 4 rated games, every one between humans outside competition; the one competition game
# of the table (g5) is bob's and carol's
GAMES = """game_id,finished_at,player0,player1,robot0,robot1,score0,score1,competition
g1,2024-05-01T09:00:00Z,alice,bob,false,false,400,300,false
g2,2024-05-01T10:00:00Z,bob,alice,false,false,350,360,false
g3,2024-05-02T09:00:00Z,alice,carol,false,false,200,420,false
g4,2024-05-02T10:00:00Z,carol,alice,false,false,300,300,false
g5,2024-05-02T11:00:00Z,bob,carol,false,false,300,280,true
"""


def test_explain_a_player_without_games_in_the_list_names_the_list(tmp_path):
    games = tmp_path / "games.csv"
    games.write_text(GAMES, encoding="utf-8")
    svg = tmp_path / "c.svg"
    line = one_error_line(
        run_skrafl_here("elo", "--games", str(games), "--explain", "alice", "--list", "competition", "--svg", str(svg))
    )
    assert line == (
        f"skrafl: error: player 'alice' has no rated game in the competition list of {games} "
        "(4 in the all list, 4 in the human list)"
    )
    assert not svg.exists()


def test_explain_names_every_list_asked_for(tmp_path):
    """The fixture: carl's games are n3 (a draw between humans) and n5 (0-0, ignored by the
    rules, in competition): one rated game, in the all and human lists, none in competition."""
    line = one_error_line(run_skrafl_here("elo", "--games", str(FIXTURE), "--explain", "carl", "--list", "competition"))
    assert line == (
        f"skrafl: error: player 'carl' has no rated game in the competition list of {FIXTURE} "
        "(1 in the all list, 1 in the human list)"
    )
    line = one_error_line(
        run_skrafl_here("elo", "--games", str(FIXTURE), "--explain", "Amlóði", "--list", "human", "--list", "competition")
    )
    assert line == (
        f"skrafl: error: player 'Amlóði' has no rated game in the human and competition lists of {FIXTURE} (1 in the all list)"
    )


def test_explain_a_player_without_any_rated_game_says_so_plainly():
    line = one_error_line(run_skrafl_here("elo", "--games", str(FIXTURE), "--explain", "zed", "--list", "competition"))
    assert line == f"skrafl: error: player 'zed' has no rated game in {FIXTURE}"


def test_explain_with_an_output_is_refused_not_ignored(tmp_path):
    # --explain writes nothing: an --out (or --ratings-to) given with it was ignored without a word
    out = tmp_path / "ratings"
    line = one_error_line(run_skrafl_here("elo", "--games", str(FIXTURE), "--explain", "anna", "--out", str(out)))
    assert line == "skrafl: error: --explain prints one player's history and writes no ratings: give no --out (or no --explain)"
    assert not out.exists()
    line = one_error_line(
        run_skrafl_here("elo", "--games", str(FIXTURE), "--explain", "anna", "--ratings-to", "postgresql://x/y")
    )
    assert "give no --ratings-to" in line
