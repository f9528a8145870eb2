"""The Word Judge: rule on a challenge of a few words at once, and keep an audit log of rulings.

As at a tournament's judging station (Zyzzyva's Word Judge, wolges' ``kwg-check``): the players
type the words of a challenged play, the judge answers ACCEPTABLE when every word is in the
lexicon and UNACCEPTABLE otherwise, and never says which word failed. :class:`WordJudge` holds the
lexicon (loaded once: a ruling is a few trie look-ups, well under a millisecond) and the identity
of the lexicon a ruling was made with: its name and the SHA-256 of its ``manifest.json`` (checked
against the folder's ``.skrafl-output`` marker, so a log line names exactly the build it used).
:class:`AuditLog` appends one JSON line per ruling and flushes and fsyncs it before the verdict is
shown, so a killed station loses no ruling. Standard library only (the screen is ``cli/judge.py``).
"""

from __future__ import annotations

import datetime as dt
import errno
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from gamecore.errors import DataError, UsageError
from gamecore.text import WORD_MAX, nfc, strip_bom

ACCEPTABLE, UNACCEPTABLE = "ACCEPTABLE", "UNACCEPTABLE"
#: what separates the words of a ruling: spaces (a tab, a no-break space: Unicode's space
#: separators), commas, semicolons. Other white space (CR, a vertical tab, U+001C, U+2028) breaks
#: a line or is a control character: refused, as ``skrafl check -`` refuses it, never a separator
_SEPARATORS = re.compile(r"[\t ,;\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+")


def describe_char(ch: str) -> str | None:
    """How an error names a character no word may hold: ``a control character (U+0001)``, ``an
    invisible format character (U+200B)`` (Unicode category Cf: a zero-width space, a soft hyphen,
    a BOM), ``a private-use character (U+E000)``, ``a surrogate (U+D800)``, ``a line separator
    (U+2028)``, or None for a character that is none of these."""
    import unicodedata

    kind = {
        "Cc": "a control character",
        "Cf": "an invisible format character",
        "Co": "a private-use character",
        "Cs": "a surrogate",
        "Zl": "a line separator",
        "Zp": "a paragraph separator",
    }.get(unicodedata.category(ch))
    return None if kind is None else f"{kind} (U+{ord(ch):04X})"


@dataclass(frozen=True)
class JudgeRuling:
    """One ruling: when (UTC, ISO 8601 with milliseconds), the words as typed (NFC), the verdict."""

    time: str
    words: tuple[str, ...]
    verdict: str

    @property
    def acceptable(self) -> bool:
        return self.verdict == ACCEPTABLE


class WordJudge:
    """Rulings against one lexicon.

    Attributes:
        lexicon: the :class:`gamecore.lexicon.Lexicon`.
        name: the lexicon's name (its manifest's ``name``).
        checksum: SHA-256 (hex) of the lexicon's ``manifest.json``.
        max_words: the most words one ruling takes.
    """

    def __init__(self, lexicon, max_words: int = 8):
        if max_words < 1:
            raise UsageError(f"--max-words must be at least 1; got {max_words}")
        self.lexicon = lexicon
        self.name = lexicon.name
        self.checksum = manifest_checksum(lexicon.folder)
        self.max_words = max_words

    @classmethod
    def load(cls, folder: str | Path, max_words: int = 8) -> "WordJudge":
        """Load the lexicon folder once (:meth:`gamecore.lexicon.Lexicon.load`: resolved and checked)."""
        from gamecore.lexicon import Lexicon

        return cls(Lexicon.load(folder), max_words)

    def split(self, text: str) -> list[str]:
        """The words of one line as typed: NFC, separated by spaces, tabs, no-break spaces, commas or
        semicolons.

        Raises:
            UsageError: more than :attr:`max_words` words.
        """
        words = [w for w in _SEPARATORS.split(nfc(text).strip()) if w]
        bad = next((ch for w in words for ch in w if ch.isspace()), None)
        if bad is not None:  # a line break inside the line (CR, U+2028) or a control character, not a separator
            what = describe_char(bad) or f"a white space character (U+{ord(bad):04X})"
            raise UsageError(
                f"{what} in the line: one ruling per line, its words separated by spaces, tabs, commas or semicolons"
            )
        if len(words) > self.max_words:
            raise UsageError(f"at most {self.max_words} words at once; got {len(words)}")
        return words

    def rule(self, words: list[str]) -> JudgeRuling:
        """ACCEPTABLE when every word is in the lexicon (case-insensitive, NFC), else UNACCEPTABLE.

        Raises:
            UsageError: no word, or more than :attr:`max_words`.
        """
        words = [nfc(w.strip()) for w in words if w.strip()]
        if not words:
            raise UsageError("no word to rule on")
        if len(words) > self.max_words:
            raise UsageError(f"at most {self.max_words} words at once; got {len(words)}")
        ok = all(self.lexicon.contains_many(words))
        now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return JudgeRuling(now, tuple(words), ACCEPTABLE if ok else UNACCEPTABLE)

    def record(self, ruling: JudgeRuling) -> dict:
        """The audit-log object of a ruling."""
        return {
            "time": ruling.time,
            "words": list(ruling.words),
            "verdict": ruling.verdict,
            "lexicon": self.name,
            "manifest_sha256": self.checksum,
        }


def _too_long(n: int, limit: int, judge: WordJudge) -> str:
    from gamecore.text import line_of

    return f"{line_of(n)} (at most {limit}: {judge.max_words} words of at most {WORD_MAX})"


def _capped(lines, limit: int, source: str, judge: WordJudge):
    """The raw lines of :func:`gamecore.text.capped_lines`; a line longer than its cap is refused."""
    for lineno, raw, length in lines:
        if length is not None:
            raise UsageError(_too_long(length, limit, judge), source, lineno)
        yield raw


def read_batch(judge: WordJudge, lines, source: str = "-", check=None) -> list[tuple[int, list[str]]]:
    """The rulings asked for by ``lines`` (bytes or text, one ruling per line: its words separated
    by spaces, commas or semicolons; blank lines skipped), as ``(line number, words)``, every line
    checked before any ruling is made (so a bad line costs no half-logged batch). ``check(word)``,
    if given, checks and returns each word (``skrafl judge``: the word check of ``skrafl check``,
    which refuses a control character).

    Raises:
        UsageError: a line that is not UTF-8, has more than :attr:`WordJudge.max_words` words or a
            word ``check`` refuses (naming ``source`` and the line).
    """
    from gamecore.text import capped_lines

    limit = judge.max_words * (WORD_MAX + 1)  # the longest line a ruling can take, in characters
    if hasattr(lines, "readline"):  # a file: a line read into memory only up to what it may hold
        lines = _capped(capped_lines(lines, 4 * limit + 8), limit, source, judge)
    out = []
    for lineno, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise UsageError("not UTF-8: convert the input to UTF-8 first", source, lineno) from None
        text = strip_bom(raw) if lineno == 1 else raw
        if len(text.strip()) > limit:
            raise UsageError(_too_long(len(text.strip()), limit, judge), source, lineno)
        try:
            words = judge.split(text)
            if check is not None:
                words = [check(w) for w in words]
        except UsageError as exc:
            raise UsageError(exc.message, source, lineno) from None
        if words:
            out.append((lineno, words))
    return out


def manifest_checksum(folder: str | Path) -> str:
    """SHA-256 of ``folder/manifest.json``, which must match the one the output marker records.

    Raises:
        DataError: no manifest, or one that differs from the marker's checksum (changed by hand).
    """
    from gamecore.folders import output_root, sha256_of

    folder = Path(os.path.realpath(folder))
    path = folder / "manifest.json"
    try:
        digest = sha256_of(path)
    except OSError as exc:
        raise DataError(f"cannot read the lexicon's manifest: {exc.strerror or exc}", path) from None
    found = output_root(folder)
    if found is not None:
        root, marker = found
        rel = path.relative_to(root).as_posix()
        recorded = (marker.get("files", {}).get(rel) or {}).get("sha256")
        if recorded is not None and recorded != digest:
            raise DataError(
                "damaged lexicon: manifest.json does not match its checksum in .skrafl-output: run 'skrafl build' again", folder
            )
    return digest


class AuditLog:
    """An append-only JSON-lines log of rulings, one line per ruling, written and fsynced at once.

    Each line goes to the file in one unbuffered append (nothing is left in a buffer when a write
    fails, so a failed line is not written later by ``close``). A log that is no file on a disk (a
    device such as ``/dev/null``, a pipe) has nothing to fsync: where the kernel says fsync is not
    supported there (EINVAL, ENOTSUP) it is skipped; on a regular file every error is raised.

    A file that is there already must be a rulings log: its first line a ruling (a JSON object
    with ``time``, ``words`` and ``verdict``), so that a word list or a report given as ``--log``
    by mistake is not appended to; a last line without its line break (a write cut short: a full
    disk, a crash) is ended before the next ruling, which then starts a line of its own.

    Raises:
        OSError: the file cannot be opened for appending (at start, before any ruling), or a line
            cannot be written or synced (a full disk); its ``filename`` is the log's path.
        DataError: an existing file that is not a rulings log (at start).
    """

    #: the keys a line of a rulings log has (:meth:`WordJudge.record`)
    KEYS = ("time", "words", "verdict")

    def __init__(self, path: str | Path):
        import stat

        self.path = Path(path)
        self._fd: int | None = None
        self._end_line = False  # the file's last line lacks its line break
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o666)
        except OSError as exc:
            if exc.errno not in (errno.EACCES, errno.EISDIR, errno.EINVAL):
                raise OSError(exc.errno, exc.strerror, str(self.path)) from None
            try:  # a device or pipe that cannot be read: appended to as it is
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o666)
            except OSError as exc2:
                raise OSError(exc2.errno, exc2.strerror, str(self.path)) from None
        try:
            st = os.fstat(fd)
            self._regular = stat.S_ISREG(st.st_mode)
            if self._regular and st.st_size:
                self._check_existing(fd, st.st_size)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def _check_existing(self, fd: int, size: int) -> None:
        first = os.pread(fd, 65536, 0).split(b"\n", 1)[0]
        try:
            record = json.loads(first.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            record = None
        if not (isinstance(record, dict) and all(k in record for k in self.KEYS)):
            raise DataError(
                "not a rulings log: its first line is no ruling (a JSON object with time, words, verdict); "
                "give a new file or a log this station wrote",
                self.path,
                1,
            )
        self._end_line = os.pread(fd, 1, size - 1) != b"\n"

    def write(self, record: dict) -> None:
        data = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        if self._fd is None:
            raise ValueError("the audit log is closed")
        if self._end_line:  # the last line was cut short: the ruling starts a line of its own
            data = b"\n" + data
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
            self._end_line = False
            try:
                os.fsync(self._fd)
            except OSError as exc:
                if self._regular or exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
                    raise
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, str(self.path)) from None

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def __enter__(self) -> "AuditLog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


__all__ = [
    "ACCEPTABLE",
    "UNACCEPTABLE",
    "AuditLog",
    "JudgeRuling",
    "WordJudge",
    "describe_char",
    "manifest_checksum",
    "read_batch",
]
