"""Leave values: KLV2 files (wolges, MAGPIE, MAGPIE-DATA's ``data/lexica/*.klv2``), read and written.

Layout (wolges ``details.txt``; MAGPIE ``src/ent/klv.h``), all little-endian:

- ``u32`` the number of KWG nodes K, then K ``u32`` nodes (the layout of :mod:`gamecore.kwg`:
  bits 0–21 arc index, bit 22 *is_end*, bit 23 *accepts*, bits 24–31 tile); node 0 points to the
  DAWG root list, node 1 to an (empty) GADDAG list;
- ``u32`` the number of leaves N, then N ``f32`` values, one per word of the DAWG in its order.

A leave is a multiset of tiles written as a word in ascending tile order: ``0`` is the blank,
``1..`` the letters in the tile set's alphabet order (English ``A`` = 1). Its value is the float
at the word's index, counted in the DAWG's preorder (a word before its extensions, siblings in
ascending tile order) as MAGPIE counts it (``klv_get_word_index``); a leave not in the file is
worth 0. MAGPIE turns each float into thousandths of a point (``round(x * 1000)``); so does
:meth:`Klv.milli`, so that equities agree with MAGPIE's to the last digit it prints.

:func:`write_klv2` writes a minimal DAWG of the given leaves (every prefix of a leave is a leave
too: MAGPIE's index counting assumes it, so a missing prefix is written with the value 0, which is
what a missing leave is worth anyway). The older KLV (16-bit values) is recognised and refused.
"""

from __future__ import annotations

import math
import struct
import sys
from array import array
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

from gamecore.errors import DataError

ARC_MASK = 0x3FFFFF
IS_END = 1 << 22
ACCEPTS = 1 << 23
#: MAGPIE's equity unit: thousandths of a point (``EQUITY_RESOLUTION``)
RESOLUTION = 1000
#: the largest leave value MAGPIE can hold (its equity is a 32-bit count of thousandths)
LIMIT = 2_000_000.0
#: files larger than this are not read (CSW21.klv2 is 3.7 MB)
MAX_BYTES = 1 << 30


def _little_endian(typecode: str, data: bytes) -> array:
    """An array of 32-bit little-endian values (``I`` unsigned, ``f`` float) read from ``data``."""
    a = array(typecode)
    a.frombytes(data)
    if sys.byteorder == "big":
        a.byteswap()
    return a


def _u32(data: bytes) -> array:
    return _little_endian("I", data)


def _f32(data: bytes) -> array:
    return _little_endian("f", data)


def to_milli(x: float) -> int:
    """A leave value in thousandths of a point, rounded half away from zero (C ``round``)."""
    y = x * RESOLUTION
    return int(math.floor(abs(y) + 0.5)) * (1 if y >= 0 else -1)


class Klv:
    """A KLV2 leave file, loaded.

    Attributes:
        path: where it was read from (None when made in memory).
        nodes: the KWG nodes; values: the leaves' float32 values in DAWG order.
        max_tile: the highest tile number in the file (0 = the blank).
    """

    def __init__(self, nodes: Sequence[int], values: Sequence[float], path: Path | None = None):
        self.path = path
        self.nodes = nodes
        self.values = values
        self._counts = self._word_counts()
        root = self.nodes[0] & ARC_MASK if self.nodes else 0
        self.root = root
        words = self._counts[root] if root else 0
        if words != len(values):
            raise DataError(f"not a KLV2 file: its graph holds {words} leaves but it has {len(values)} values", path)
        self.max_tile = max((n >> 24 for n in self.nodes[2:]), default=0)

    @classmethod
    def read(cls, path: str | Path) -> "Klv":
        """Read a KLV2 file.

        Raises:
            DataError: not a KLV2 file (sizes that do not add up, arcs out of range, a graph whose
            word count differs from the number of values), or a KLV file of the older 16-bit kind.
        """
        path = Path(path)
        try:
            size = path.stat().st_size
            if size > MAX_BYTES:
                raise DataError(f"not a KLV2 file: {size} bytes is more than any leave file", path)
            data = read_bytes_maybe_xz(path)
        except IsADirectoryError:
            raise DataError("is a folder, not a KLV2 leave file", path) from None
        except FileNotFoundError:
            raise DataError("no such file", path) from None
        except OSError as exc:
            raise DataError(f"cannot read: {exc.strerror or exc}", path) from None
        return cls.from_bytes(data, path)

    @classmethod
    def from_bytes(cls, data: bytes, path: Path | None = None) -> "Klv":
        what = "not a KLV2 file (u32 node count, nodes, u32 leave count, f32 values)"
        if len(data) < 8:
            raise DataError(f"{what}: only {len(data)} bytes", path)
        (k,) = struct.unpack_from("<I", data, 0)
        if k < 2 or 4 + 4 * k + 4 > len(data):
            raise DataError(f"{what}: a node count of {k} does not fit its {len(data)} bytes", path)
        (n,) = struct.unpack_from("<I", data, 4 + 4 * k)
        end = 8 + 4 * k
        if end + 4 * n != len(data):
            if end + 2 * n == len(data):
                raise DataError("a KLV file of the older kind (16-bit values): convert it to KLV2", path)
            raise DataError(f"{what}: {k} nodes and {n} leaves need {end + 4 * n} bytes, the file has {len(data)}", path)
        nodes = _u32(data[4 : 4 + 4 * k])
        bad = next((i for i, x in enumerate(nodes) if (x & ARC_MASK) >= k), None)
        if bad is not None:
            raise DataError(f"{what}: node {bad} points past the last node ({k - 1})", path)
        return cls(nodes, _f32(data[end:]), path)

    def _word_counts(self) -> list[int]:
        """Words under each node and its later siblings (MAGPIE ``klv_count_words``), without recursion."""
        nodes = self.nodes
        k = len(nodes)
        counts = [0] * k
        state = bytearray(k)  # 0 new, 1 waiting for its arc and sibling, 2 done
        for start in range(k - 1, -1, -1):
            stack = [start]
            while stack:
                i = stack[-1]
                if state[i] == 2:
                    stack.pop()
                    continue
                node = nodes[i]
                arc = node & ARC_MASK
                sib = 0 if node & IS_END else i + 1
                if sib >= k:
                    raise DataError("not a KLV2 file: the last node list runs past the end", self.path)
                if state[i] == 0:
                    state[i] = 1
                    for j in (arc, sib):
                        if j and state[j] == 1:
                            raise DataError("not a KLV2 file: its graph has a cycle", self.path)
                        if j and state[j] == 0:
                            stack.append(j)
                    continue
                counts[i] = (1 if node & ACCEPTS else 0) + (counts[arc] if arc else 0) + (counts[sib] if sib else 0)
                state[i] = 2
                stack.pop()
        return counts

    def __len__(self) -> int:
        return len(self.values)

    def index(self, tiles: Sequence[int]) -> int | None:
        """The index of a leave (tile numbers in ascending order, 0 = blank), None when absent."""
        if not tiles:
            return None
        nodes, counts = self.nodes, self._counts
        node, idx = self.root, 0
        last = len(tiles) - 1
        for pos, t in enumerate(tiles):
            if node == 0:
                return None
            while True:  # MAGPIE increment_node_to_ml: skip the lower siblings and their words
                x = nodes[node]
                if x >> 24 == t:
                    break
                if x & IS_END:
                    return None
                idx += counts[node] - counts[node + 1]
                node += 1
            if pos == last:
                return idx if nodes[node] & ACCEPTS else None
            idx += 1  # MAGPIE follow_arc: the word ending here comes before its extensions
            node = nodes[node] & ARC_MASK
        return None

    def _checked(self, i: int) -> float:
        # values are checked when used, not all 914,624 of CSW21 at load: a 3.7 MB file opens in ~15 ms
        v = float(self.values[i])
        if not (math.isfinite(v) and abs(v) <= LIMIT):
            raise DataError(f"leave value number {i + 1} is {v}: not a number of points", self.path)
        return v

    def value(self, tiles: Sequence[int]) -> float:
        """The leave's value as stored (float32), 0.0 when absent.

        Raises:
            DataError: the stored value is not a number of points (NaN, infinite, beyond ±2,000,000).
        """
        i = self.index(tiles)
        return 0.0 if i is None else self._checked(i)

    def milli(self, tiles: Sequence[int]) -> int:
        """The leave's value in thousandths of a point as MAGPIE loads it; 0 when absent."""
        i = self.index(tiles)
        return 0 if i is None else to_milli(self._checked(i))

    def words(self) -> Iterator[tuple[int, ...]]:
        """Every leave in the file's order (the order of :attr:`values`)."""
        nodes = self.nodes

        def walk(arc: int, prefix: tuple[int, ...]):
            i = arc
            while arc:
                x = nodes[i]
                word = prefix + (x >> 24,)
                if x & ACCEPTS:
                    yield word
                if x & ARC_MASK:
                    yield from walk(x & ARC_MASK, word)
                if x & IS_END:
                    break
                i += 1

        yield from walk(self.root, ())

    def items(self) -> Iterator[tuple[tuple[int, ...], float]]:
        """(leave, value) for every leave, in the file's order."""
        return zip(self.words(), map(float, self.values), strict=True)


LEAVES_DIR = Path(__file__).resolve().parent / "data" / "leaves"


def shipped_leaves(lang: str, rules: str | None = None) -> Path | None:
    """The leave file shipped for a language and rule set (``gamecore/data/leaves/NAME.klv2``, or
    ``NAME.klv2.xz`` for a large tile set), None when there is none.

    NAME is the rule-set preset (``rules``, else the language's default preset), and the file's
    manifest (``NAME.json``) must name a lexicon of that language; a rule set with no file of its
    own takes the file of the language's default preset when their tile sets and rack sizes agree.
    """
    import json

    from gamecore.rules import load_rules, rules_for

    try:
        own = load_rules(rules) if rules else rules_for(lang)
        default = rules_for(lang)
    except Exception:  # an unknown language or preset: nothing shipped for it
        return None
    for rs in (own, default):
        if rs is not own and (rs.tile_set != own.tile_set or rs.rack_size != own.rack_size):
            continue
        for name in (f"{rs.name}.klv2", f"{rs.name}.klv2.xz"):
            p = LEAVES_DIR / name
            if not p.is_file():
                continue
            try:
                man = json.loads((LEAVES_DIR / f"{rs.name}.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if man.get("lexicon") == lang:
                return p
    return None


def leaves_option(value: str, lang: str | None, rules: str | None) -> Path | None:
    """What ``--leaves VALUE`` names when it is no file: ``shipped`` (the shipped leaves of the
    command's language and rule set) or a language code (that language's, for ``rules`` when it
    has a file); None when VALUE is neither (then it is a path)."""
    import re

    if Path(value).exists():
        return None
    if value == "shipped":
        from gamecore.errors import UsageError

        if not lang:
            raise UsageError("--leaves shipped: give --lang L (or --leaves LANG, or a KLV2 file)")
        value = lang
    elif not re.fullmatch(r"[a-z]{2,3}", value):
        return None
    p = shipped_leaves(value, rules)
    if p is None:
        from gamecore.errors import UsageError

        for_rules = f" and rules {rules!r}" if rules else ""
        raise UsageError(f"--leaves {value}: no leave file is shipped for language {value!r}{for_rules}; give a KLV2 file")
    return p


def read_bytes_maybe_xz(path: Path) -> bytes:
    """A file's bytes, unpacked when it is xz-compressed (a name ending in ``.xz``)."""
    data = path.read_bytes()
    if path.name.endswith(".xz"):
        import lzma

        try:
            data = lzma.decompress(data)
        except lzma.LZMAError as exc:
            raise DataError(f"not an xz-compressed file: {exc}", path) from None
    return data


def plain_klv2(path: Path) -> Path:
    """A plain KLV2 copy of a shipped leave file: the file itself, or for ``NAME.klv2.xz`` the
    unpacked ``NAME-SHA12.klv2`` in the cache folder (``$SKRAFL_CACHE``, else ``~/.cache/skrafl``),
    written once (a temporary file renamed into place)."""
    import hashlib
    import os

    if not path.name.endswith(".xz"):
        return path
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()[:12]
    root = Path(os.environ.get("SKRAFL_CACHE") or Path.home() / ".cache" / "skrafl") / "leaves"
    target = root / f"{path.name[: -len('.klv2.xz')]}-{digest}.klv2"
    if target.is_file():
        return target
    root.mkdir(parents=True, exist_ok=True)
    data = read_bytes_maybe_xz(path)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    return target


def klv2_bytes(leaves: Mapping[Sequence[int], float]) -> bytes:
    """A KLV2 file holding ``leaves`` (tile tuples, 0 = blank, any order within a leave; at most 255
    per tile number) → value. Deterministic: the same leaves give the same bytes.

    Raises:
        DataError: an empty leave, a tile number outside 0..255, the same leave twice.
    """
    table: dict[tuple[int, ...], float] = {}
    for tiles, v in leaves.items():
        key = tuple(sorted(tiles))
        if not key:
            raise DataError("an empty leave has no value in a KLV2 file (it is worth 0)")
        if key[0] < 0 or key[-1] > 255:
            raise DataError(f"leave {key}: tile numbers are 0..255")
        if key in table:
            raise DataError(f"leave {key} given twice")
        table[key] = float(v)
    for key in list(table):  # MAGPIE's index counting needs every prefix present
        for j in range(1, len(key)):
            table.setdefault(key[:j], 0.0)
    words = sorted(table)
    return klv2_bytes_sorted(words, [table[w] for w in words])


def klv2_bytes_sorted(words: Sequence[tuple[int, ...]], values: Sequence[float]) -> bytes:
    """A KLV2 file of ``words`` (ascending tile tuples, sorted, distinct, every prefix of a word
    present) with ``values`` in the same order: :func:`klv2_bytes` without its checks and copies,
    for a whole tile set's leaves (millions) listed in order."""
    nodes, _ = _dawg(words)
    out = bytearray(struct.pack("<I", len(nodes)))
    out += array("I", nodes).tobytes() if sys.byteorder == "little" else struct.pack(f"<{len(nodes)}I", *nodes)
    out += struct.pack("<I", len(words))
    vals = array("f", values)
    if sys.byteorder == "big":
        vals.byteswap()
    out += vals.tobytes()
    return bytes(out)


def write_klv2(path: str | Path, leaves: Mapping[Sequence[int], float]) -> int:
    """Write ``leaves`` as a KLV2 file at ``path`` (see :func:`klv2_bytes`); returns the bytes written.
    The caller owns ``path`` (an output is written whole by its owner, e.g. inside
    :func:`pipelines.atomic.output_dir` or to a temporary file renamed into place)."""
    data = klv2_bytes(leaves)
    Path(path).write_bytes(data)
    return len(data)


def _dawg(words: Iterable[tuple[int, ...]]) -> tuple[list[int], int]:
    """A minimal DAWG of sorted, distinct, prefix-closed words, as KWG nodes (node 0 → DAWG root,
    node 1 → empty GADDAG); returns (nodes, root list index)."""
    register: dict[tuple, int] = {(): 0}
    lists: list[tuple] = [()]

    def intern(arcs: list) -> int:
        sig = tuple(arcs)
        i = register.get(sig)
        if i is None:
            i = register[sig] = len(lists)
            lists.append(sig)
        return i

    path: list[list] = []  # [tile, accepts, arcs of finished children]
    root: list = []
    prev: tuple[int, ...] = ()
    for w in words:
        k = 0
        while k < len(prev) and k < len(w) and prev[k] == w[k]:
            k += 1
        while len(path) > k:
            tile, acc, arcs = path.pop()
            (path[-1][2] if path else root).append((tile, acc, intern(arcs)))
        for t in w[k:]:
            path.append([t, False, []])
        path[-1][1] = True
        prev = w
    while path:
        tile, acc, arcs = path.pop()
        (path[-1][2] if path else root).append((tile, acc, intern(arcs)))
    root_id = intern(root) if root else 0
    # lay the lists out: the root list first (index 2), then the others in the order they were made
    order = ([root_id] if root_id else []) + [i for i in range(1, len(lists)) if i != root_id]
    pos = {0: 0}
    at = 2
    for i in order:
        pos[i] = at
        at += len(lists[i])
    nodes = [IS_END | pos[root_id], IS_END]
    for i in order:
        arcs = lists[i]
        for j, (tile, acc, child) in enumerate(arcs):
            nodes.append((tile << 24) | (ACCEPTS if acc else 0) | (IS_END if j == len(arcs) - 1 else 0) | pos[child])
    return nodes, pos[root_id]
