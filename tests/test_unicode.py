"""Unicode NFC at every input boundary: the same text in NFD (``y`` + combining acute for ``ý``) must
give the same verdict, play, replay and word list as in NFC (gamecore/text.py).

Expected verdicts come from the data, not from the code under test: a word of a lexicon's
``words.txt`` is VALID, a word of the shared Icelandic two-letter list is a word, the shared riddle
position's best play is ``A4 ÞREKRAUN`` for 104 (corpora/positions/README.md). Tests that need
``../shared`` or a built lexicon skip cleanly without them.
"""

from __future__ import annotations

import json
import random
import unicodedata
from pathlib import Path

import pytest
from clirun import PROJECT_ROOT, run_skrafl_here
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cli.main import app
from gamecore.text import nfc

runner = CliRunner()
OUTPUT = PROJECT_ROOT / "output"


def nfd(s: str) -> str:
    return unicodedata.normalize("NFD", s)


def _built_lexicons() -> list[Path]:
    return sorted(
        p.parent
        for p in OUTPUT.glob("*/manifest.json")
        if not p.parent.name.startswith(".") and (p.parent / "words.txt").is_file()
    )


def _loadable(folder: Path) -> bool:
    from gamecore.errors import SkraflError
    from gamecore.lexicon import Lexicon

    try:
        Lexicon.load(folder)
    except SkraflError:
        return False
    return True


def _words_with_marks(folder: Path, n: int = 5000) -> list[str]:
    """Up to ``n`` words of the lexicon's words.txt whose NFD differs from their NFC (accented
    letters), a fixed random sample."""
    words = [w for w in (folder / "words.txt").read_text(encoding="utf-8").split() if nfd(w) != w]
    random.Random(10).shuffle(words)
    return sorted(words[:n])


def check(lexicon: Path, words: list[str]) -> list[tuple[str, str]]:
    """``skrafl check --lexicon DIR WORDS`` in-process: its (word, verdict) lines."""
    res = runner.invoke(app, ["check", "--lexicon", str(lexicon), *words])
    assert res.exit_code in (0, 1), res.output
    return [tuple(line.split("\t")) for line in res.stdout.splitlines()]


def test_nfc_helper():
    assert nfc("y\u0301f") == "ýf"
    assert nfc("ýf") == "ýf"
    assert nfc("bla\u030abær") == "blåbær"
    assert nfc("") == ""
    s = "hestur"
    assert nfc(s) is s  # fast path: the string itself


# -- the lexicons -------------------------------------------------------------------------------

LEXICONS = _built_lexicons()


@pytest.mark.slow
@pytest.mark.parametrize(
    "folder",
    LEXICONS or [pytest.param(None, marks=pytest.mark.skip(reason="no lexicon built in output/"))],
    ids=lambda f: f.name if f else "none",
)
def test_nfd_words_get_the_nfc_verdict(folder):
    if not _loadable(folder):
        pytest.skip(f"{folder} cannot be loaded")
    sample = _words_with_marks(folder)
    if not sample:
        pytest.skip(f"{folder.name}: no word with a combining mark in NFD")
    known = set((folder / "words.txt").read_text(encoding="utf-8").split())
    # the recipe's letter folds (manifest "fold", e.g. nb é -> e: IDÉ is the word ide) apply to what is checked
    fold = str.maketrans(json.loads((folder / "manifest.json").read_text(encoding="utf-8")).get("fold") or {})

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        st.lists(st.sampled_from(sample), min_size=1, max_size=6), st.booleans(), st.text("áéíóúýöæðþ", min_size=1, max_size=2)
    )
    def prop(words, upper, tail):
        words = [w.upper() if upper else w for w in words]
        others = [w + tail for w in words]  # mostly not words: the verdict comes from words.txt
        items = words + others
        want = ["VALID" if w.lower().translate(fold) in known else "INVALID" for w in items]
        assert want[: len(words)] == ["VALID"] * len(words)
        got_nfc = check(folder, items)
        got_nfd = check(folder, [nfd(w) for w in items])
        assert [v for _, v in got_nfc] == want
        assert [v for _, v in got_nfd] == want
        assert [w for w, _ in got_nfd] == items  # echoed in NFC

    prop()


def _is_lexicon() -> Path:
    folder = OUTPUT / "is"
    if not (folder / "manifest.json").is_file() or not _loadable(folder):
        pytest.skip("the Icelandic lexicon output/is is not built")
    return folder


def test_nfd_yf_reproducer(shared):
    folder = _is_lexicon()
    two = (shared / "reference" / "icelandic_two_letter_words.txt").read_text(encoding="utf-8").split()
    assert "ýf" in two
    word = b"y\xcc\x81f".decode("utf-8")  # the NFD bytes
    assert word != "ýf" and nfc(word) == "ýf"
    r = run_skrafl_here("check", "--lexicon", str(folder), word)
    assert r.returncode == 0 and r.stdout == "ýf\tVALID\n", (r.stdout, r.stderr)
    assert check(folder, [word, "ýf", nfd("ÝF")]) == [("ýf", "VALID"), ("ýf", "VALID"), ("ÝF", "VALID")]


def test_nfd_stdin_lines(shared):
    folder = _is_lexicon()
    two = (shared / "reference" / "icelandic_two_letter_words.txt").read_text(encoding="utf-8").split()
    marked = [w for w in two if nfd(w) != w]
    text = "\ufeff" + "\n".join(nfd(w) for w in marked) + "\n"
    r = run_skrafl_here("check", "--lexicon", str(folder), "-", stdin=text)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [f"{w}\tVALID" for w in marked]


@pytest.fixture(scope="module")
def nb_tiny(tmp_path_factory):
    """A Norwegian lexicon built from an NFD word list (so it also tests the wordlist reader)."""
    d = tmp_path_factory.mktemp("nb")
    words = ["idé", "blåbær", "hest", "ærlig", "øre"]
    (d / "words.txt").write_bytes("".join(nfd(w) + "\n" for w in words).encode("utf-8"))
    r = run_skrafl_here("build", "nb", "--source", "wordlist", "--input", str(d / "words.txt"), "--out", str(d / "nb"), "-q")
    assert r.returncode == 0, r.stderr
    return d / "nb"


def test_build_from_an_nfd_word_list(nb_tiny):
    built = (nb_tiny / "words.txt").read_text(encoding="utf-8").split()
    # the Norwegian recipe folds é to e (docs/LEXICONS.md); every word is kept, in NFC
    assert sorted(built) == sorted(["ide", "blåbær", "hest", "ærlig", "øre"])
    assert all(unicodedata.is_normalized("NFC", w) for w in built)


@pytest.mark.parametrize("word", ["idé", "blåbær", "ærlig", "øre", "IDÉ", "BLÅBÆR"])
def test_nb_nfd_and_nfc_same_verdict(nb_tiny, word):
    assert check(nb_tiny, [word]) == [(word, "VALID")]
    assert check(nb_tiny, [nfd(word)]) == [(word, "VALID")]
    assert check(nb_tiny, [nfd(word) + "x"]) == [(word + "x", "INVALID")]


def test_wordlist_reader_nfd(tmp_path):
    from lexicon_sources.readers import wordlist

    p = tmp_path / "w.txt"
    p.write_bytes(("\ufeff" + nfd("ýf") + "\n" + nfd("ÞREKRAUN") + "\n").encode("utf-8"))
    batch = next(wordlist.read(p))
    assert batch.column("form").to_pylist() == ["ýf", "þrekraun"]


# -- committee lists ----------------------------------------------------------------------------


def test_committee_list_nfd_lines(shared, tmp_path):
    from pipelines.recipe import read_word_list

    for src in [
        shared / "reference" / "icelandic_two_letter_words.txt",
        shared / "corpora" / "netskrafl" / "ordalisti.add.txt",
        PROJECT_ROOT / "lexicon_sources" / "is" / "two_letter_words.txt",
    ]:
        if not src.is_file():
            continue
        text = src.read_text(encoding="utf-8")
        assert text == nfc(text), f"{src} should be NFC"
        copy = tmp_path / src.name
        copy.write_text(nfd(text), encoding="utf-8")
        assert nfd(text) != text
        assert read_word_list(copy) == read_word_list(src), src.name


def test_committee_list_nfd_with_comments(tmp_path):
    from pipelines.recipe import read_word_list

    p = tmp_path / "additions.txt"
    p.write_text("# comment\n" + nfd("Ýfður") + "  # trailing comment\n", encoding="utf-8")
    assert read_word_list(p) == ["ýfður"]


def test_why_nfd_word_finds_the_committee_list():
    folder = _is_lexicon()
    listed = (PROJECT_ROOT / "lexicon_sources" / "is" / "two_letter_words.txt").read_text(encoding="utf-8").split()
    assert "ýf" in listed
    res = runner.invoke(app, ["why", "--lexicon", str(folder), nfd("ýf"), "-f", "json"])
    assert res.exit_code == 0, res.output
    (item,) = json.loads(res.stdout)
    assert item["word"] == "ýf" and item["valid"] is True
    assert any("two_letter_words.txt" in note for note in item["notes"]), item["notes"]


# -- racks and boards ---------------------------------------------------------------------------


def test_nfd_rack_in_best(shared, tmp_path):
    folder = _is_lexicon()
    two = (shared / "reference" / "icelandic_two_letter_words.txt").read_text(encoding="utf-8").split()
    board = shared / "corpora" / "positions" / "empty.board"
    want = {w.upper() for w in two if sorted(w) == sorted("ýf")}  # the words the rack ÝF can make
    assert want
    out = {}
    for rack in ("ÝF", nfd("ÝF"), nfd("ýf")):
        r = run_skrafl_here("best", "--lexicon", str(folder), "--board", str(board), "--rack", rack, "--all", "-f", "tsv")
        assert r.returncode == 0, r.stderr
        out[rack] = r.stdout
        words = {line.split("\t")[1] for line in r.stdout.splitlines()[1:]}
        assert words == want, rack
    assert len(set(out.values())) == 1


def test_nfd_board_in_best(shared, tmp_path):
    folder = _is_lexicon()
    src = shared / "corpora" / "positions" / "netskrafl_riddle1.board"
    text = src.read_text(encoding="utf-8")
    assert nfd(text) != text
    b = tmp_path / "riddle_nfd.board"
    b.write_text(nfd(text), encoding="utf-8")
    r = run_skrafl_here("best", "--lexicon", str(folder), "--board", str(b), "--rack", "UAENRRK", "-n", "1", "-f", "tsv")
    assert r.returncode == 0, r.stderr
    row = r.stdout.splitlines()[1].split("\t")
    assert (row[0], row[1], row[2]) == ("A4", "ÞREKRAUN", "104")  # corpora/positions/README.md


def test_nfd_board_and_cgp_parse_alike():
    from gamecore.board import parse_board_text, parse_cgp
    from gamecore.rules import load_rules

    rules = load_rules("netskrafl")
    ts, layout = rules.tiles(), rules.layout()
    rows = ["." * 15] * 15
    rows[7] = "....ÞRÖSTUR....".replace("R", "r", 1)
    text = "\n".join(rows) + "\n"
    a = parse_board_text(text, ts, layout, "gcg")
    b = parse_board_text(nfd(text), ts, layout, "gcg")
    assert a.squares == b.squares and a.tile_count() == 7  # Þ R Ö S T U R
    cgp = "15/" * 7 + "4ÞrÖSTUR4" + "/15" * 7 + " ÁÉÍ?/ 0/0 0"
    pa, pb = parse_cgp(cgp, ts, layout), parse_cgp(nfd(cgp), ts, layout)
    assert pa.board.squares == pb.board.squares and pa.racks == pb.racks == (["Á", "É", "Í", "?"], [])


def test_nfd_rack_parse():
    from gamecore.rules import load_rules

    ts = load_rules("netskrafl").tiles()
    assert ts.parse_rack(nfd("ÁÐÉÍÓÚ?")) == ["Á", "Ð", "É", "Í", "Ó", "Ú", "?"]
    assert ts.split_word(nfd("ýfðu")) == ["ý", "f", "ð", "u"]


# -- game logs ----------------------------------------------------------------------------------


def _replay_rows(files: list[Path], out: Path) -> list[dict]:
    import polars as pl

    res = runner.invoke(app, ["replay", *map(str, files), "--out", str(out), "--no-lexicon", "--quiet"])
    assert res.exit_code == 0, res.output
    games = pl.read_parquet(out / "games.parquet").drop("file", "game_id").to_dicts()
    moves = pl.read_parquet(out / "moves.parquet").drop("file").to_dicts()
    return games, moves


def _events(game) -> list[tuple]:
    return [(e.kind, e.player, e.rack, e.coord, e.word, e.tiles, e.score, e.cumulative) for e in game.events]


GCG_NON_ASCII = [
    "domino14_macondo__gcgio_testdata_polish_endgame.gcg",
    "andy-k_wolges__src_main_endgame.rs__embedded0_polish_issue154_a.gcg",
    "domino14_macondo__gcgio_testdata_name_utf8_with_header.gcg",
]


@pytest.mark.parametrize("name", GCG_NON_ASCII)
def test_nfd_gcg_replays_as_nfc(shared, tmp_path, name):
    from gamecore.gcg import read_gcg

    src = shared / "corpora" / "gcg" / name
    if not src.is_file():
        pytest.skip(f"{name} not in the corpus")
    text = src.read_bytes().decode("utf-8")
    assert nfd(text) != text
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = tmp_path / "a" / name, tmp_path / "b" / name
    a.write_text(text, encoding="utf-8")
    b.write_text(nfd(text), encoding="utf-8")
    ga, gb = read_gcg(a), read_gcg(b)
    assert _events(ga) == _events(gb) and [p.nick for p in ga.players] == [p.nick for p in gb.players]
    games_a, moves_a = _replay_rows([a], tmp_path / "oa")
    games_b, moves_b = _replay_rows([b], tmp_path / "ob")
    assert games_a == games_b and moves_a == moves_b
    if "polish" in name:
        assert games_a[0]["status"] == "ok"


def test_nfd_gcg_without_header_is_repaired_alike(tmp_path):
    """A header-less UTF-8 file is read as Latin-1 and its racks and words re-decoded (docs/GCG.md §1):
    the re-decoded NFD tokens are NFC too."""
    from gamecore.gcg import parse_gcg_bytes

    body = "#player1 a A\n#player2 b B\n>a: ÞÆÐÖÝFA 8D ÞÆÐ +20 20\n"
    ga = parse_gcg_bytes(body.encode("utf-8"))
    gb = parse_gcg_bytes(nfd(body).encode("utf-8"))
    assert _events(ga) == _events(gb)
    assert ga.events[0].word == ["Þ", "Æ", "Ð"]


def _nfd_json(obj):
    if isinstance(obj, str):
        return nfd(obj)
    if isinstance(obj, list):
        return [_nfd_json(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _nfd_json(v) for k, v in obj.items()}
    return obj


def test_nfd_netskrafl_record_replays_as_nfc(shared, tmp_path):
    from gamecore.netskrafl_record import read_netskrafl_record

    games = sorted((shared / "corpora" / "netskrafl" / "games").glob("*.json"))
    if not games:
        pytest.skip("no Netskrafl records in the corpus")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    names = []
    for src in games[:4]:
        data = json.loads(src.read_text(encoding="utf-8"))
        (tmp_path / "a" / src.name).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        nfd_text = json.dumps(_nfd_json(data), ensure_ascii=False)
        assert nfd_text != json.dumps(data, ensure_ascii=False)
        (tmp_path / "b" / src.name).write_text(nfd_text, encoding="utf-8")
        names.append(src.name)
        ga = read_netskrafl_record(tmp_path / "a" / src.name)
        gb = read_netskrafl_record(tmp_path / "b" / src.name)
        assert _events(ga) == _events(gb)
    games_a, moves_a = _replay_rows([tmp_path / "a" / n for n in names], tmp_path / "oa")
    games_b, moves_b = _replay_rows([tmp_path / "b" / n for n in names], tmp_path / "ob")
    assert games_a == games_b and moves_a == moves_b
    assert {g["status"] for g in games_a} == {"ok"}
