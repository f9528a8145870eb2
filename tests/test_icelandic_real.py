"""The Icelandic lexicon built from the real BÍN (``make test`` builds output/is first; the tests
skip when it is absent, as on a clone without ../shared).

Expected values: data_sources.md (BÍN entry count), lexicon_rules.md (about 2.8 million words;
169 two-letter words), the real Netskrafl games (every word of the regular games is valid; every
play taken back after a successful challenge has an invalid word).
"""

from __future__ import annotations

import json

import pytest

from cli.common import output_root
from clirun import run_skrafl


@pytest.fixture(scope="module")
def is_lexicon():
    folder = output_root() / "is"
    if not (folder / "manifest.json").is_file() or not (output_root() / "entries" / "is" / "entries.json").is_file():
        pytest.skip("the Icelandic lexicon is not built (make test builds it: skrafl ingest is && skrafl build is)")
    return folder


def test_full_build_counts(is_lexicon):
    manifest = json.loads((is_lexicon / "manifest.json").read_text("utf-8"))
    entries = json.loads((output_root() / "entries" / "is" / "entries.json").read_text("utf-8"))
    if entries["source"] == "islenska" and "islenska-data 5.0.0" in entries["source_version"]:
        assert entries["rows"] == 7_551_256  # data_sources.md, measured on islenska-data 5.0.0
    assert 2_700_000 <= manifest["words"] <= 2_900_000  # "about 2.8 million" (issue 2)
    assert manifest["words_by_length"]["2"] == 169
    assert set(manifest["words_by_length"]) == {str(n) for n in range(2, 16)}
    tier = json.loads((is_lexicon / "midlungur" / "manifest.json").read_text("utf-8"))
    assert tier["max_length"] == 10 and tier["words"] < manifest["words"]


def test_judge_examples(is_lexicon):
    # a valid noun form, a valid verb form, a proper noun, a two-letter word on and off the list, a phony
    words = ["hestur", "hestanna", "fórum", "Reykjavík", "Guðrún", "ýf", "ab", "xyzzy"]
    r = run_skrafl("check", "--lang", "is", *words)
    verdicts = dict(line.split("\t") for line in r.stdout.splitlines())
    assert verdicts == {
        "hestur": "VALID", "hestanna": "VALID", "fórum": "VALID", "Reykjavík": "INVALID", "Guðrún": "INVALID",
        "ýf": "VALID", "ab": "INVALID", "xyzzy": "INVALID",
    }
    assert r.returncode == 1


def test_challenged_plays_have_an_invalid_word(is_lexicon, shared):
    from pipelines.replay import ReplayOptions, replay_file

    opts = ReplayOptions(lexicon_dir=str(is_lexicon))
    withdrawn = []
    for path in sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json")):
        if not json.loads(path.read_text("utf-8")).get("manual"):
            continue
        rows = replay_file(str(path), opts).move_rows
        for i, row in enumerate(rows):
            if row["kind"] == "withdraw":
                play = next(r for r in reversed(rows[:i]) if r["kind"] == "play")
                withdrawn.append(play["words_formed"])
    assert len(withdrawn) == 4  # the 3 competition games: RESP with a negative score, 4 times
    for words in withdrawn:
        r = run_skrafl("check", "--lang", "is", "--play", *words)
        assert (r.returncode, r.stdout) == (1, "UNACCEPTABLE\n"), words


def test_regular_games_every_word_valid(is_lexicon, shared):
    from pipelines.replay import ReplayOptions, replay_file

    words = set()
    games = 0
    for path in sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json")):
        if json.loads(path.read_text("utf-8")).get("manual"):
            continue
        games += 1
        for row in replay_file(str(path), ReplayOptions()).move_rows:
            if row["kind"] == "play":
                words.update(row["words_formed"])
    assert games == 7 and len(words) > 200
    r = run_skrafl("check", "--lang", "is", "-", stdin="\n".join(sorted(words)) + "\n")
    invalid = [line for line in r.stdout.splitlines() if line.endswith("\tINVALID")]
    assert invalid == [] and r.returncode == 0
