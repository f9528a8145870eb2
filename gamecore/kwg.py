"""Lexicon graph (KWG): build from a word list, write, load by memory map, look words up.

The file is a KWG ("Kurnia Word Graph") as written by wolges ``buildlex`` and read by macondo
(word-golib) and MAGPIE — docs/MOVEGEN.md §1: a little-endian array of 32-bit nodes, bits 0–21 the arc index
(first node of the child sibling list; 0 = no children), bit 22 *is_end* (last sibling), bit 23
*accepts* (the path ending on this node's tile is a word), bits 24–31 the tile number. Node 0
points to the DAWG root list, node 1 to the GADDAG root list; in the GADDAG, tile 0 is the
direction-switch separator and CARE is stored as ERAC, RAC@E, AC@RE, C@ARE; separator arcs point
into the DAWG (the "Gaddawg" form). Tiles are numbered 1..N in the order of the tile set's
alphabet (English A=1 … Z=26); at most 63 tile kinds (the move generator keeps cross-checks in a
64-bit mask, as wolges does).

The 22-bit arc index limits a Node22 KWG to 4,194,304 nodes. The full Icelandic lexicon (BÍN, 2.8
million word forms) needs about 7.9 million, so beyond 2^22 nodes the file uses wolges' ``Node24``
layout instead (docs/MOVEGEN.md §1: tile in bits 0–5, then the flags — is_end bit 6, accepts bit 7, in the same
order as Node22 — and the arc index in bits 8–31). The layout is implied by the size: a file of more
than 2^22 nodes is Node24, any other is Node22.

Building and move generation are compiled (``gamecore/c/``, built by ``pip install -e .``);
loading is a memory map, so opening even the full Icelandic lexicon costs microseconds. The build
is deterministic (the same words in any order give the same bytes); ``SKRAFL_KWG_TIMING=1`` prints
its phases (wall and CPU seconds) to stderr.
"""

from __future__ import annotations

import mmap
import os
import sys

from gamecore.errors import DataError, UsageError

TYPE_CHECKING = False  # (typing is not imported at start-up)
if TYPE_CHECKING:  # light start-up: re, tempfile and pathlib are imported where used
    from collections.abc import Iterable, Iterator, Sequence
    from pathlib import Path

#: Node fields (docs/MOVEGEN.md §1, wolges ``Node22``).
ARC_MASK = 0x3FFFFF
IS_END = 1 << 22
ACCEPTS = 1 << 23
MAX_TILES = 63
#: Largest node count of a Node22 file; larger files are Node24.
NODE22_MAX = 1 << 22


#: The version of the compiled core (gamecore/c/) this module expects (its ``NATIVE_ABI``).
NATIVE_ABI = 7


def native_core():
    """The compiled core; UsageError when it is missing or older than the Python code."""
    try:
        from gamecore import _native
    except ImportError as exc:  # pragma: no cover - only without a compiled build
        if "failed to map segment" in str(exc) or "cannot allocate memory" in str(exc).lower():
            raise UsageError(  # the library is there: the loader found no memory for it (a ulimit -v)
                "out of memory: the compiled core gamecore._native could not be loaded into memory "
                "(a memory limit such as ulimit -v too low for this run?)"
            ) from exc
        raise UsageError(
            "the compiled core gamecore._native is missing; install the package with `pip install -e .` (it needs a C compiler)"
        ) from exc
    if getattr(_native, "ABI", None) != NATIVE_ABI:  # pragma: no cover - a stale build
        raise UsageError("the compiled core gamecore._native is out of date; rebuild it with `pip install -e .`")
    return _native


class Alphabet:
    """Letter labels of a tile set, numbered 1..N in the given order (0 = KWG separator/blank).

    Args:
        alphabet: a string (one character per letter) or a sequence of labels (multi-character
            labels such as Catalan ``L·L`` are allowed). Words are matched in the labels' own case
            and in their upper- and lower-case forms.

    Raises:
        UsageError: empty alphabet, more than 63 letters, a repeated label.
    """

    def __init__(self, alphabet: str | Sequence[str]):
        labels = list(alphabet)
        if not labels or len(labels) > MAX_TILES:
            raise UsageError(f"an alphabet needs 1 to {MAX_TILES} letters, got {len(labels)}")
        if len(set(labels)) != len(labels) or any(not lab for lab in labels):
            raise UsageError(f"alphabet has a repeated or empty label: {labels!r}")
        self.labels: list[str] = labels
        self._index: dict[str, int] = {}
        for variant in (str.lower, str.upper, lambda s: s):
            for i, lab in enumerate(labels, 1):
                self._index[variant(lab)] = i
        self._single = all(len(k) == 1 for k in self._index)
        self._token_re = None
        if not self._single:
            import re

            keys = sorted(self._index, key=len, reverse=True)
            self._token_re = re.compile("|".join(re.escape(k) for k in keys))
        self._table = None
        if self._single and all(ord(k) < 65536 for k in self._index):
            table = bytearray(b"\xff" * 65536)  # code point -> tile (0xFF: not a letter)
            for ch, i in self._index.items():
                table[ord(ch)] = i
            self._table = bytes(table)

    def __len__(self) -> int:
        return len(self.labels)

    def encode(self, word: str) -> list[int]:
        """Tile numbers (1..N) of ``word``.

        Raises:
            DataError: a letter that is not in the alphabet.
        """
        if self._single:
            try:
                return [self._index[ch] for ch in word]
            except KeyError as exc:
                raise DataError(f"word {word!r}: letter {exc.args[0]!r} is not in the alphabet") from None
        out: list[int] = []
        pos = 0
        assert self._token_re is not None  # made in __init__ whenever a label is longer than one character
        for m in self._token_re.finditer(word):
            if m.start() != pos:
                break
            out.append(self._index[m.group()])
            pos = m.end()
        if pos != len(word):
            raise DataError(f"word {word!r}: letters from {word[pos:]!r} are not in the alphabet")
        return out

    def decode(self, tiles: Iterable[int]) -> str:
        """The word for tile numbers (a blank flag +64 is ignored)."""
        return "".join(self.labels[(t & 63) - 1] for t in tiles)

    def encode_many(self, words: Iterable[str]) -> bytes:
        """All words as tile numbers, separated by zero bytes (the builder's input).

        Raises:
            DataError: a word with a letter outside the alphabet (the first such word is named, with
                its 1-based position in the list).
        """
        words = words if isinstance(words, list) else list(words)
        if self._table is not None:
            try:
                return native_core().encode_words(words, self._table)
            except IndexError as exc:
                n = exc.args[0]
                try:
                    self.encode(words[n])
                except DataError as bad:
                    raise DataError(f"word {n + 1}: {bad.message}") from None
                raise DataError(f"word {n + 1}: {words[n]!r} has a letter outside the alphabet") from None
            except TypeError as exc:
                raise DataError(str(exc)) from None
        return b"\0".join(bytes(self.encode(w)) for w in words)


def build_kwg(words: Iterable[str], alphabet: str | Sequence[str] | Alphabet, node24: bool = False) -> bytes:
    """The KWG (DAWG + GADDAG) of ``words`` as bytes; see the module docstring for the layout.

    Args:
        words: the words, in any order (duplicates and empty strings are ignored).
        alphabet: the tile set's letters in tile-number order, or an :class:`Alphabet`.
        node24: write the Node24 layout even when Node22 would do (for tests; the default picks
            Node24 only beyond 2^22 nodes).

    Raises:
        DataError: a letter outside the alphabet; a word longer than 255 tiles; more than
            16,777,215 nodes (the Node24 arc index).
    """
    alpha = alphabet if isinstance(alphabet, Alphabet) else Alphabet(alphabet)
    data = alpha.encode_many(words)
    try:
        return native_core().build_kwg(data, node24)
    except ValueError as exc:
        raise DataError(f"cannot build the KWG: {exc}") from None


def write_kwg(words: Iterable[str], alphabet: str | Sequence[str] | Alphabet, path: str | Path) -> int:
    """Build the KWG of ``words`` (see :func:`build_kwg`) and write it atomically to ``path``.

    Returns:
        The number of 32-bit nodes written.

    Raises:
        DataError: as :func:`build_kwg`; OSError when the file cannot be written.
    """
    import tempfile

    blob = build_kwg(words, alphabet)
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=name + ".", suffix=".tmp", dir=folder)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes 0600; a lexicon is an ordinary file
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return len(blob) // 4


class Kwg:
    """A loaded KWG: a read-only memory map (no per-node Python objects).

    Attributes:
        buffer: the raw bytes (buffer protocol; what :func:`gamecore.movegen.generate` reads).
        nodes: the nodes as a sequence of unsigned 32-bit ints (``memoryview`` cast, or an array on a
            big-endian machine).
        alphabet: the :class:`Alphabet`, if one was given (needed to look words up by string).
    """

    def __init__(
        self,
        data,
        alphabet: str | Sequence[str] | Alphabet | None = None,
        path=None,
        node24: bool | None = None,
        verify: bool = False,
    ):
        self.path = None if path is None else str(path)
        nbytes = len(memoryview(data))
        #: Node24 layout: given, or implied by the size (more than 2^22 nodes); see the module docstring.
        self.wide = nbytes // 4 > NODE22_MAX if node24 is None else bool(node24)
        if nbytes % 4 or nbytes < 8:
            raise DataError(f"not a KWG file: {nbytes} bytes, expected a multiple of 4, at least 8", self.path)
        if verify:  # a full scan (30 MB: ~10 ms); the generator bounds-checks every node read anyway
            try:
                native_core().check_kwg(data, self.wide)
            except ValueError as exc:
                raise DataError(f"not a KWG file: {exc}", self.path) from None
        self.buffer = data
        if sys.byteorder == "little":
            self.nodes: Sequence[int] = memoryview(data).cast("I")
        else:  # pragma: no cover
            import array

            arr = array.array("I", bytes(data))
            arr.byteswap()
            self.nodes = arr
        if self.arc(0) >= len(self.nodes) or self.arc(1) >= len(self.nodes):
            raise DataError("not a KWG file: root arcs point past the end", self.path)
        if alphabet is not None and not isinstance(alphabet, Alphabet):
            alphabet = Alphabet(alphabet)
        self.alphabet: Alphabet | None = alphabet

    # node fields, for either layout
    def tile(self, i: int) -> int:
        """Tile number of node ``i`` (0 = GADDAG separator)."""
        n = self.nodes[i]
        return n & 63 if self.wide else n >> 24

    def arc(self, i: int) -> int:
        """Arc index of node ``i``: first node of its child list, 0 = none."""
        n = self.nodes[i]
        return n >> 8 if self.wide else n & ARC_MASK

    def is_end(self, i: int) -> bool:
        """Whether node ``i`` is the last of its sibling list."""
        return bool(self.nodes[i] & (0x40 if self.wide else IS_END))

    def accepts(self, i: int) -> bool:
        """Whether the path ending on node ``i`` spells a word."""
        return bool(self.nodes[i] & (0x80 if self.wide else ACCEPTS))

    @classmethod
    def load(
        cls,
        path: str | Path,
        alphabet: str | Sequence[str] | Alphabet | None = None,
        node24: bool | None = None,
        verify: bool = False,
    ) -> "Kwg":
        """Memory-map the KWG file at ``path`` (``node24``: layout; None = implied by the size).

        Only the size and the two root nodes are checked unless ``verify`` (every arc inside the
        array, every tile ≤ 63); the move generator bounds-checks its reads either way.

        Raises:
            DataError: the file is empty or not a KWG (bad size, roots outside the array; with
                ``verify``, any arc outside the array).
            OSError: the file cannot be opened.
        """
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                raise DataError("not a KWG file: empty", path)
            # pages are mapped lazily: a move generation touches only the part of the graph it needs
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return cls(mm, alphabet, path, node24, verify)

    @classmethod
    def from_words(cls, words: Iterable[str], alphabet: str | Sequence[str] | Alphabet, node24: bool = False) -> "Kwg":
        """Build in memory (for tests and small lexicons)."""
        alpha = alphabet if isinstance(alphabet, Alphabet) else Alphabet(alphabet)
        return cls(build_kwg(words, alpha, node24), alpha, node24=True if node24 else None)

    def __len__(self) -> int:
        return len(self.nodes)

    def bingo_index(self, min_len: int = 7) -> bytes:
        """Multiset hashes of every word of at least ``min_len`` letters, and a word map (every
        word of 2 to ``min_len`` + 1 letters by its multiset hash), tied to this graph (its node
        count and roots: an index of another graph is ignored); made once per graph and kept
        (English, 423k words: ~60 ms and 13 MiB; the full Icelandic list: 0.25–0.4 s and 80 MiB).
        :func:`gamecore.movegen.generate_top` uses it to skip spans that would take the whole rack
        when no word is an anagram of the rack and the span's board tiles, and, for a rack without
        a blank, to score a span that can still make the cut word by word before its anchor is
        walked (the first move reads its words from the map); worth it for many positions with
        one lexicon (analysis, robots), not for one."""
        cache = self.__dict__.setdefault("_bingo_index", {})
        got = cache.get(min_len)
        if got is None:
            got = cache[min_len] = native_core().bingo_index(self.buffer, int(self.wide), int(min_len))
        return got

    @property
    def dawg_root(self) -> int:
        """Index of the first node of the DAWG root sibling list."""
        return self.arc(0)

    @property
    def gaddag_root(self) -> int:
        """Index of the first node of the GADDAG root sibling list."""
        return self.arc(1)

    def _tiles(self, word: str | Sequence[int]) -> Sequence[int] | None:
        if isinstance(word, str):
            if self.alphabet is None:
                raise UsageError("Kwg.contains(str) needs the alphabet: Kwg.load(path, alphabet)")
            try:
                return self.alphabet.encode(word)
            except DataError:
                return None
        return word

    def find(self, arc: int, tile: int) -> int:
        """Index of the node for ``tile`` in the sibling list starting at ``arc``, or -1."""
        if arc == 0:
            return -1
        i = arc
        while True:
            t = self.tile(i)
            if t == tile:
                return i
            if t > tile or self.is_end(i):
                return -1
            i += 1

    def contains(self, word: str | Sequence[int]) -> bool:
        """Whether ``word`` (a string, or tile numbers 1..N) is in the lexicon (DAWG walk)."""
        tiles = self._tiles(word)
        if not tiles:
            return False
        arc = self.dawg_root
        node = -1
        for t in tiles:
            node = self.find(arc, t & 63)
            if node < 0:
                return False
            arc = self.arc(node)
        return self.accepts(node)

    __contains__ = contains

    def iter_tiles(self, arc: int | None = None) -> Iterator[tuple[int, ...]]:
        """Every word below sibling list ``arc`` (default: the DAWG root) as tile numbers, in order."""

        def walk(a: int, prefix: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
            i = a
            while True:
                w = prefix + (self.tile(i),)
                if self.accepts(i):
                    yield w
                if self.arc(i):
                    yield from walk(self.arc(i), w)
                if self.is_end(i):
                    return
                i += 1

        root = self.dawg_root if arc is None else arc
        if root:
            yield from walk(root, ())

    def words(self) -> Iterator[str]:
        """Every word as a string (needs the alphabet), in tile order."""
        if self.alphabet is None:
            raise UsageError("Kwg.words() needs the alphabet: Kwg.load(path, alphabet)")
        for t in self.iter_tiles():
            yield self.alphabet.decode(t)
