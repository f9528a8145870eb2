"""KWG builder and loader, checked by an independent reader written from docs/MOVEGEN.md §1's description.

docs/MOVEGEN.md §1: little-endian 32-bit nodes; Node22: bits 0–21 arc index, bit 22 is_end, bit 23 accepts,
bits 24–31 tile; node 0 → DAWG root, node 1 → GADDAG root; tile 0 = GADDAG separator; CARE is
stored as ERAC, RAC@E, AC@RE, C@ARE. Node24: tile in bits 0–5, flags in bits 6–7 (is_end, accepts),
arc in bits 8–31.
"""

from __future__ import annotations

import random
import struct

import pytest

from gamecore.errors import DataError
from gamecore.kwg import Alphabet, Kwg, build_kwg, write_kwg

ENGLISH = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def decode(blob: bytes, node24: bool = False):
    """Independent reader: (DAWG word set, GADDAG string set) with '@' for the separator."""
    nodes = struct.unpack(f"<{len(blob) // 4}I", blob)

    def fields(n):
        if node24:
            return n & 63, bool(n & 0x40), bool(n & 0x80), n >> 8
        return n >> 24, bool(n & (1 << 22)), bool(n & (1 << 23)), n & 0x3FFFFF

    def walk(arc, prefix, out):
        i = arc
        while True:
            tile, end, acc, child = fields(nodes[i])
            s = prefix + ("@" if tile == 0 else ENGLISH[tile - 1])
            if acc:
                out.add(s)
            if child:
                walk(child, s, out)
            if end:
                return
            i += 1

    dawg, gaddag = set(), set()
    walk(fields(nodes[0])[3], "", dawg)
    walk(fields(nodes[1])[3], "", gaddag)
    return dawg, gaddag


def gaddag_strings(words):
    out = set()
    for w in words:
        for i in range(1, len(w) + 1):
            out.add(w[:i][::-1] + ("@" + w[i:] if i < len(w) else ""))
    return out


def test_deterministic_whatever_the_input_order(shared):
    """Same words → byte-identical file (the build sorts, de-duplicates and runs two threads)."""
    words = (shared / "corpora" / "positions" / "mid1_b1.words").read_text().split()
    shuffled = words[::-1] + words[:100]
    random.Random(1).shuffle(shuffled)
    assert build_kwg(words, ENGLISH) == build_kwg(shuffled, ENGLISH)


def test_one_thread_gives_the_same_bytes(shared, monkeypatch):
    words = (shared / "corpora" / "positions" / "mid1_b1.words").read_text().split()
    two = build_kwg(words, ENGLISH)
    monkeypatch.setenv("SKRAFL_KWG_ONE_THREAD", "1")
    assert build_kwg(words, ENGLISH) == two


def test_care_as_in_kwg_md():
    dawg, gaddag = decode(build_kwg(["CARE"], ENGLISH))
    assert dawg == {"CARE"}
    assert gaddag == {"ERAC", "RAC@E", "AC@RE", "C@ARE"}


@pytest.mark.parametrize("node24", [False, True])
def test_random_word_lists_decode_back(node24):
    rng = random.Random(3)
    for _ in range(20):
        alphabet = ENGLISH[: rng.randint(2, 26)]
        words = {"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 9))) for _ in range(rng.randint(1, 300))}
        blob = build_kwg(sorted(words, key=lambda w: rng.random()), alphabet, node24=node24)  # any order
        dawg, gaddag = decode(blob, node24)
        assert dawg == words
        assert gaddag == gaddag_strings(words)
        kwg = Kwg(blob, alphabet, node24=node24)
        assert set(kwg.words()) == words
        for w in list(words)[:20]:
            assert kwg.contains(w)
            assert not kwg.contains(w + alphabet[0]) or (w + alphabet[0]) in words


def test_long_words_sharing_long_prefixes():
    """Words of up to 40 tiles with long shared beginnings and endings (the builder packs the
    first 20 tiles of each key; longer ones are compared in place)."""
    rng = random.Random(7)
    stems = ["".join(rng.choice("ABC") for _ in range(rng.randint(8, 25))) for _ in range(8)]
    words = set()
    for _ in range(400):
        w = (
            rng.choice(stems)
            + "".join(rng.choice("ABCD") for _ in range(rng.randint(0, 6)))
            + rng.choice(stems)[: rng.randint(0, 9)]
        )
        words.add(w[:40])
    dawg, gaddag = decode(build_kwg(words, "ABCD"))
    assert dawg == words
    assert gaddag == gaddag_strings(words)


def test_sowpods_list_roundtrip(shared, tmp_path):
    words = (shared / "corpora" / "positions" / "mid1_b1.words").read_text().split()
    path = tmp_path / "mid1.kwg"
    n = write_kwg(words, ENGLISH, path)
    assert path.stat().st_size == 4 * n
    dawg, gaddag = decode(path.read_bytes())
    assert dawg == set(words)
    assert gaddag == gaddag_strings(words)
    kwg = Kwg.load(path, ENGLISH)
    assert all(kwg.contains(w) for w in words)
    assert all(kwg.contains(w.lower()) for w in words[:50])
    assert not kwg.contains("QXZ")


def test_duplicates_and_case_and_multichar_labels():
    kwg = Kwg.from_words(["ab", "AB", "Ab", "ba"], "AB")
    assert sorted(kwg.words()) == ["AB", "BA"]
    cat = Alphabet(["A", "L", "L·L", "U"])
    assert cat.encode("AL·LU") == [1, 3, 4]
    kwg = Kwg.from_words(["AL·LU", "AL"], cat)
    assert kwg.contains("AL·LU") and kwg.contains("al") and not kwg.contains("ALLU")


def test_cyrillic_and_case_variants():
    kwg = Kwg.from_words(["кот", "КИТ", "Кто"], "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ")
    assert list(kwg.words()) == ["КИТ", "КОТ", "КТО"]
    with pytest.raises(DataError, match="word 2"):
        build_kwg(["кот", "котё"], "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ")  # Ё is not in this alphabet


def test_icelandic_alphabet_order():
    alpha = "aábdðeéfghiíjklmnoóprstuúvxyýþæö"
    kwg = Kwg.from_words(["þrekraun", "ás", "öl"], alpha)
    assert list(kwg.words()) == ["ás", "þrekraun", "öl"]  # tile order, not Unicode order


def test_bad_input(tmp_path):
    with pytest.raises(DataError, match="word 2"):
        build_kwg(["AB", "A1"], "AB")
    with pytest.raises(DataError):
        Kwg(b"\x00\x00\x00\x00")  # one node only
    with pytest.raises(DataError):
        Kwg(struct.pack("<2I", 0x00400005, 0x00400000))  # root arc past the end
    bad = struct.pack("<4I", 0x00400002, 0x00400002, 0x01000009, 0x02C00000)  # inner arc past the end
    with pytest.raises(DataError):
        Kwg(bad, verify=True)
    path = tmp_path / "bad.kwg"
    path.write_bytes(bad)
    with pytest.raises(DataError):
        Kwg.load(path, verify=True)
    path.write_bytes(b"")
    with pytest.raises(DataError):
        Kwg.load(path)


def test_generator_survives_a_damaged_graph():
    """Kwg.load scans nothing by default; the generator's reads are bounds-checked."""
    from gamecore.movegen import MoveLayout, generate

    bad = struct.pack("<4I", 0x00400002, 0x00400002, 0x0100FFFF, 0x02C0FFFF)  # arcs far outside
    kwg = Kwg(bad)
    one = [[1] * 5 for _ in range(5)]
    grid = [[0] * 5 for _ in range(5)]
    grid[2][2] = 1
    assert isinstance(generate(kwg, grid, [0, 2, 2], 1, MoveLayout(one, one, (2, 2)), [0, 1, 1], 50, False), list)


def test_empty_and_one_letter_lexicons():
    from gamecore.movegen import MoveLayout, generate

    empty = Kwg.from_words([], "AB")
    assert list(empty.words()) == [] and not empty.contains("A")
    one = [[1] * 5 for _ in range(5)]
    layout = MoveLayout(one, one, (2, 2))
    assert generate(empty, [[0] * 5 for _ in range(5)], [0, 2, 2], 1, layout, [0, 1, 1], 50, True) == []
    kwg = Kwg.from_words(["A", "AB"], "AB")
    assert list(kwg.words()) == ["A", "AB"]
    moves = generate(kwg, [[0] * 5 for _ in range(5)], [0, 1, 1], 0, layout, [0, 1, 1], 50, True)
    assert all(len(m.letters) >= 2 for m in moves) and len(moves) == 4  # AB across/down over the start
