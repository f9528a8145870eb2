"""The fuzz campaign of every command: 300 seeded mutants of each command form, run
in-process through :func:`cli.main.main` (a few ms each, no interpreter start).

A form is a command line over small real inputs (a GCG game and a Netskrafl record, a board and a
CGP position, a games table, a KLV2 leave file, a word list, a nightly config, lexicons built by
``skrafl build``). A mutant changes the arguments (a character or a token inserted, cut or
replaced, an argument inserted or replaced), the bytes of the files the command reads (the tokens
of tests/test_fuzz.py: huge numbers, NUL, bytes that are not UTF-8, superscript digits, brackets,
quotes; stretches cut and lines doubled) and its standard input. Every mutant must end with exit
0, 1 or 2, with no traceback, no ``internal error`` and at most one ``skrafl: error:`` line (a
batch read from a file or stdin: one ``FILE:LINE`` line per bad line).

The runs are confined: the working folder and ``SKRAFL_OUTPUT`` are the form's own temporary
folder, every path is relative to it and no mutation makes a path absolute, so a mutant can write
nowhere else. fsync is a no-op here (what is tested is the handling of the input, not the disk).
The server's socket requests are fuzzed the same way by tests/test_serve_privileges.py.
"""

from __future__ import annotations

import io
import os
import random
import re
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from clirun import build_word_lexicon
from conftest import FIXTURES, PROJECT_ROOT
from lexicon_helpers import make_lexicon

MUTANTS = 300
GCG = FIXTURES / "gcg" / "base.gcg"
EMPTY_CGP = "15/" * 14 + "15 HEST/ 0/0 0"
BASE_CGP = "15/" * 7 + "3RETAINS5/" + "15/" * 6 + "15 BDEGLOU/ 66/0 0"

RECIPE = """[lexicon]
name = "t"
language = "en"
tile_set = "english"
rules = "wespa"
alphabet = "abcdefghijklmnopqrstuvwxyz"
min_length = 2
max_length = 15
[fold]
"é" = "e"
[[drop]]
rule = "short"
when = "length(form) < 3"
[[drop]]
rule = "q_without_u"
when = "form LIKE '%q%' AND form NOT LIKE '%qu%'"
""".encode()
#: inserted into or put in place of arguments ("/" never starts one: a path stays relative)
ARG_TOKENS = [
    "?", "*", "[", "]", "^", "-", "\u0301", "²", "٣", "é", "ß", "\n", " ", "'", "\\", "x" * 70, "--limit", "0",
    "-1", "2147483648", "9" * 40, "-f", "table", "json", "tsv", "--length", "--anagram", "--hooks", "\ufeff",
    "\u200b", "Å", "ø", "8D", "H8", "15/", " 0/0 0", "--top", "--rack", "--play", "??", "\t", "-q", "--quiet",
    "--lexicon", "--lang", "is", "en", "nb", "ru", "xx", "--rules", "wespa", "netskrafl", "--out", ".", "..",
    "-n", "3", "1e9", "nan", "-0", "+1", "2025-13-01", "0001-01-01", "--date", "--seed", "--games", "--workers",
    "-j", "--format", "--coords", "netskrafl", "gcg", "--move", "99", "--board-format", "cgp", "%s", "{date}",
]  # fmt: skip
STDIN_TOKENS = [t.encode() for t in ARG_TOKENS] + [b"\x00", b"\xff", b"\xc3", b"\r\n", b"\t8D HEST\n", b"\r", b"\x1c"]
#: inserted into or put in place of bytes of the files a command reads
FILE_TOKENS = [
    b"2147483647", b"2147483648", b"-2147483648", b"99999999999999999999999", b"9" * 400, b"0", b"-0", b"+5",
    b"1e999", b"nan", b"inf", b"-inf", b"\x00", b"\xff", b"\xc3", b"\xef\xbb\xbf", b"\xc2\xb2", b"\xd9\xa3",
    b"y\xcc\x81", b"(", b")", b"[", b"]", b"{", b"}", b"[[", b"]]", b'"', b"'", b'"""', b"=", b",", b";", b":",
    b"#", b">", b"-", b"?", b".", b"\\", b"\\u0000", b"\\ud800", b"\r", b"\n", b"\r\n", b" ", b"\t", b"true",
    b"null", b"[]", b"{}", b"A" * 200, b"#player3 c C", b"#rack1 ABC", b"(challenge)", b"8D", b"H8", b"PASS",
    b"2025-08-12", b"0001-01-01T00:00:00Z", b"9999-12-31", b"{date}", b"..",
    b"[" * 5000, b'{"a":' * 3000, b"a = [" * 2000, b"B" * 70000, b'"x\ny"', b"\x1c", b"\xe2\x80\xa8",
]  # fmt: skip
NUMBER = re.compile(rb"[+-]?[0-9]+")


def mutate_args(rng: random.Random, args: list[str]) -> list[str]:
    """``args`` with 1-3 edits: a token inserted into an argument, characters cut from one, an
    argument inserted or replaced by a token. No argument is made to start with ``/``."""
    args = list(args)
    for _ in range(rng.randint(1, 3)):
        if not args:
            args.append(rng.choice(ARG_TOKENS))
            continue
        i = rng.randrange(len(args))
        op = rng.randrange(4)
        if op == 2:
            args.insert(i, rng.choice(ARG_TOKENS))
        elif op == 3:
            args[i] = rng.choice(ARG_TOKENS)
        else:
            chars, j = list(args[i]), rng.randrange(len(args[i]) + 1)
            if op == 0:
                chars[j:j] = list(rng.choice(ARG_TOKENS))
            else:
                del chars[j : j + rng.randint(1, 3)]
            args[i] = "".join(chars)
    return [a.lstrip("/") or "." if a.startswith("/") else a for a in args]


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """``data`` with 1-6 edits: a token inserted, a stretch cut, a byte changed, a number replaced
    by another, a line doubled. A changed byte is never ``/`` (a path in a file stays relative)."""
    data = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(5)
        pos = rng.randint(0, len(data))
        if op == 0:
            data[pos:pos] = rng.choice(FILE_TOKENS)
        elif op == 1:
            del data[pos : pos + rng.randint(1, 12)]
        elif op == 2 and data:
            data[min(pos, len(data) - 1)] = rng.choice([b for b in range(256) if b != 0x2F])
        elif op == 3:
            nums = list(NUMBER.finditer(bytes(data)))
            if nums:
                m = rng.choice(nums)
                data[m.start() : m.end()] = rng.choice(FILE_TOKENS[:9])
        else:
            lines = bytes(data).split(b"\n")
            i = rng.randrange(len(lines))
            lines.insert(rng.randint(0, len(lines)), lines[i])
            data = bytearray(b"\n".join(lines))
    return bytes(data)


#: per-run state kept in modules (emptied before each run, as a new process starts without it)
RUN_STATE = (("pipelines.replay.run", "_LEXICONS"), ("pipelines.replay.run", "_BUNDLES"), ("cli.common", "_SHOWN_AS"))


def clear_caches() -> None:
    """The ``functools`` caches of the project's modules and :data:`RUN_STATE` emptied: a rule
    set, tile set or game a mutant rewrote under the same path is read again, as by a new process
    (``load_rules`` keeps what it read by path)."""
    import functools

    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in ("cli", "pipelines", "gamecore", "lexicon_sources"):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, functools._lru_cache_wrapper):
                value.cache_clear()
    for module, attr in RUN_STATE:
        state = getattr(sys.modules.get(module), attr, None)
        if isinstance(state, dict):
            state.clear()


def run_in_process(argv: list[str], stdin: bytes, seconds: float = 10.0) -> tuple[object, str]:
    """``skrafl ARGV`` through :func:`cli.main.main` in this process, its caches emptied first:
    (exit code, stderr). A run still going after ``seconds`` (a mutant asking for a billion games)
    is stopped as a user stops it, by SIGTERM (the command's own stop handling: exit 143), and its
    code is ``"stopped"``."""
    from cli.main import main
    from pipelines.stops import StopState

    clear_caches()
    StopState.signum, StopState.held, StopState.redeliver, StopState.writing, StopState.kept = (
        None,
        0,
        False,
        False,
        False,
    )  # main() holds stops at its end
    out, err = io.StringIO(), io.StringIO()
    saved = sys.argv, sys.stdin, sys.stdout, sys.stderr
    sys.argv = ["skrafl", *argv]
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    fired = []

    def alarm(signum, frame):
        fired.append(signum)
        os.kill(os.getpid(), signal.SIGTERM)  # main() has put its stop handlers in by now

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    code: object = None
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sys.argv, sys.stdin, sys.stdout, sys.stderr = saved
    if fired and code == 128 + signal.SIGTERM:
        code = "stopped"
    return code, err.getvalue()


@dataclass
class Form:
    """One command form: ``argv`` (paths relative to the form's folder), the files it reads
    (name → seed bytes, written afresh for every mutant), its standard input, whether several
    ``FILE:LINE`` error lines may be printed (a batch), and how a mutant is made."""

    argv: list[str]
    files: dict[str, bytes] = field(default_factory=dict)
    stdin: bytes = b""
    batch: bool = False
    fixed: int = 0  # leading arguments a mutant keeps most of the time (the command and its lexicon)


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict:
    """The inputs every form reads: lexicons (built by skrafl build, or written as a lexicon
    output), a game of each format, games tables, a leave file, a BÍN CSV, a rule set."""
    root = tmp_path_factory.mktemp("fuzz_commands")
    lex = root / "lexicons"
    lex.mkdir()
    nb = build_word_lexicon(lex, ["hest", "hesten", "øl", "søl", "ide", "ål"], lang="nb")
    en = build_word_lexicon(lex, ["retains", "bad", "bod", "cat", "cats", "dog", "bag", "dab"], lang="en")
    en2 = build_word_lexicon(lex, ["retains", "bod", "cat", "dog", "horse"], lang="en", name="en2")
    return {
        "nb": nb,
        "en": en,
        "en2": en2,
        "gcg": GCG.read_bytes(),
        "record": (FIXTURES / "fuzz" / "record_seed.json").read_bytes(),
        "games_csv": (FIXTURES / "elo" / "games.csv").read_bytes(),
        "klv2": (FIXTURES / "leaves" / "CSW21_small.klv2").read_bytes(),
        "games_jsonl": (FIXTURES / "elo" / "games.jsonl").read_bytes(),
        "bin_csv": (FIXTURES / "bin" / "SHsnid_small.csv").read_bytes(),
        "rules": (PROJECT_ROOT / "gamecore" / "data" / "rules" / "wespa.toml").read_bytes(),
    }


def _board_text(cgp: str) -> bytes:
    rows = []
    for row in cgp.split()[0].split("/"):
        rows.append(re.sub(r"\d+", lambda m: "." * int(m.group()), row))
    return ("\n".join(rows) + "\n").encode()


def forms(w: dict) -> dict[str, Form]:
    """Every command's main forms over the inputs of :func:`world`."""
    nb, en, en2 = "lex_nb", "lex_en", "lex_en2"
    words = b"hello\nworld\nquiz\nretains\nbad\n"
    nightly = (
        b'[lexicon]\npath = "lex"\n[games]\nsource = "incoming/{date}"\nmissing_days = "empty"\n[replay]\n'
        b'dataset = "data/replay"\nworkers = 1\n[elo]\nout = "data/elo"\ncatch_up = true\n[impact]\nout = "data/impact"\n'
    )
    batch = f"{BASE_CGP}\tG7 B.D\n{EMPTY_CGP}\tH5 HEST\n".encode()
    return {
        "ingest": Form(["ingest", "en", "--source", "wordlist", "--input", "words.txt", "--out", "out", "-q"], {"words.txt": words}),
        "build": Form(
            ["build", "en", "--source", "wordlist", "--input", "words.txt", "--out", "out", "-q"], {"words.txt": words}
        ),
        "check": Form(["check", "--lexicon", nb, "hest", "øl"], fixed=3),
        "check -": Form(["check", "--lexicon", nb, "-"], stdin=b"hest\n\xc3\xb8l\nx\n", batch=True, fixed=3),
        "why": Form(["why", "--lexicon", en, "bad", "cat", "-f", "json"], fixed=3),
        "diff": Form(["diff", en, en2, "--out", "out", "-q"]),
        "best --cgp": Form(["best", "--lexicon", nb, "--cgp", EMPTY_CGP, "-n", "2"], fixed=3),
        "best --board": Form(["best", "--lexicon", en, "--board", "pos.board", "--rack", "BDEGLOU", "-n", "3"], {"pos.board": _board_text(BASE_CGP)}, fixed=3),
        "best --board -": Form(["best", "--lexicon", en, "--board", "-", "-f", "tsv"], stdin=(BASE_CGP + "\n").encode(), batch=True, fixed=3),
        "leaves show": Form(["leaves", "show", "leaves.klv2", "AEINST?"], {"leaves.klv2": w["klv2"]}),
        "autoplay": Form(["autoplay", "--lexicon", en, "--games", "2", "--seed", "7", "-q", "--out", "out"], fixed=3),
        "replay": Form(["replay", "game.gcg", "record.json", "--out", "out", "--lexicon", en, "-j", "1", "-q"], {"game.gcg": w["gcg"], "record.json": w["record"]}),
        "replay --dataset": Form(["replay", "games", "--dataset", "ds", "--no-lexicon", "--drop-missing", "-q"], {"games/game.gcg": w["gcg"]}),
        "elo": Form(["elo", "--games", "games.csv", "--out", "out", "-q"], {"games.csv": w["games_csv"]}),
        "elo -": Form(["elo", "--games", "-", "--out", "out", "-q"], stdin=w["games_csv"]),
        "score --cgp": Form(["score", "--lexicon", en, "--cgp", BASE_CGP, "--play", "G7 B.D"], fixed=3),
        "score --game": Form(["score", "--lexicon", en, "--game", "game.gcg", "--move", "2"], {"game.gcg": w["gcg"]}, fixed=3),
        "score --batch": Form(["score", "--lexicon", en, "--batch", "plays.tsv"], {"plays.tsv": batch}, batch=True, fixed=3),
        "judge --batch": Form(["judge", "--lexicon", en, "--batch", "words.txt", "-f", "tsv", "-q"], {"words.txt": b"bad cat\nretains\nxyz\n"}, batch=True, fixed=3),
        "judge --word": Form(["judge", "--lexicon", en, "--word", "bad", "--word", "cat", "--log", "rulings.jsonl", "-q"], fixed=3),
        "show --game": Form(["show", "--game", "game.gcg", "--move", "3", "--out", "pic.svg"], {"game.gcg": w["gcg"]}),
        "show --board": Form(["show", "--lexicon", en, "--board", "pos.board", "--rack", "BDEGLOU", "--play", "G7 B.D", "--out", "pic.svg"], {"pos.board": _board_text(BASE_CGP)}),
        "compare": Form(["compare", en, "ref.txt", "--out", "out", "-f", "tsv", "-q"], {"ref.txt": b"retains\nbad\ncow\n"}),
        "find": Form(["find", "--lexicon", nb, "h?st*"], fixed=3),
        "find --anagram": Form(["find", "--lexicon", nb, "--anagram", "tseh?"], fixed=3),
        "find --hooks": Form(["find", "--lexicon", nb, "--hooks", "øl", "-f", "json"], fixed=3),
        "impact": Form(["impact", "--old", en, "--new", en2, "games", "--out", "out", "-q"], {"games/game.gcg": w["gcg"]}),
        "nightly": Form(["nightly", "nightly.toml", "--date", "2025-08-12", "-q"], {"nightly.toml": nightly, "incoming/2025-08-12/game.gcg": w["gcg"]}),
        "ingest bin-sh": Form(["ingest", "is", "--source", "bin-sh", "--input", "SHsnid.csv", "--out", "out", "-q"], {"SHsnid.csv": w["bin_csv"]}),
        "best --leaves": Form(["best", "--lexicon", en, "--cgp", BASE_CGP, "--leaves", "leaves.klv2", "-n", "3"], {"leaves.klv2": w["klv2"]}, fixed=3),
        "best --rules": Form(["best", "--lexicon", en, "--rules", "rules.toml", "--cgp", BASE_CGP, "-n", "3"], {"rules.toml": w["rules"]}, fixed=3),
        "score --game record": Form(["score", "--game", "record.json", "--move", "2", "--rules", "netskrafl", "-f", "json"], {"record.json": w["record"]}),
        "show --game record": Form(["show", "--game", "record.json", "--move", "4", "--out", "pic.svg"], {"record.json": w["record"]}),
        "replay --rules": Form(["replay", "game.gcg", "--rules", "rules.toml", "--out", "out", "--no-lexicon", "-j", "1", "-q"], {"game.gcg": w["gcg"], "rules.toml": w["rules"]}),
        "build --recipe": Form(["build", "en", "--source", "wordlist", "--input", "words.txt", "--recipe", "recipe.toml", "--out", "out", "-q"], {"words.txt": words, "recipe.toml": RECIPE}),
        "score --challenge": Form(["score", "--lexicon", en2, "--cgp", BASE_CGP, "--play", "G7 B.D", "--challenge", "double", "--challenged", "BAD", "-f", "json"], fixed=3),
        "best --robot": Form(["best", "--lexicon", en, "--cgp", BASE_CGP, "--robot", "equity", "--leaves", "leaves.klv2", "--seed", "3"], {"leaves.klv2": w["klv2"]}, fixed=3),
        "autoplay equity": Form(["autoplay", "--lexicon", en, "--games", "1", "--p1", "equity", "--leaves", "leaves.klv2", "-q"], {"leaves.klv2": w["klv2"]}, fixed=3),
        "replay --export": Form(["replay", "game.gcg", "--out", "out", "--lexicon", en, "--export-gcg", "gcg", "--export-svg", "svg", "--analyze", "-j", "1", "-q"], {"game.gcg": w["gcg"]}),
        "elo jsonl": Form(["elo", "--games", "games.jsonl", "--out", "out", "--date", "2024-05-02", "-q"], {"games.jsonl": w["games_jsonl"]}),
    }  # fmt: skip


def _prepare(w: dict, folder: Path) -> None:
    """The form's folder: links to the lexicons (relative names), the nightly's lexicon ``lex``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, key in (("lex_nb", "nb"), ("lex_en", "en"), ("lex_en2", "en2")):
        (folder / name).symlink_to(w[key])
    make_lexicon(folder / "lex", ["retains", "bad", "bod"], language="en")


FORM_NAMES = [
    "ingest", "build", "check", "check -", "why", "diff", "best --cgp", "best --board", "best --board -", "leaves show",
    "autoplay", "replay", "replay --dataset", "elo", "elo -", "score --cgp", "score --game", "score --batch",
    "judge --batch", "judge --word", "show --game", "show --board", "compare", "find", "find --anagram", "find --hooks",
    "impact", "nightly",
    "ingest bin-sh", "best --leaves", "best --rules", "score --game record", "show --game record", "replay --rules", "elo jsonl",
    "build --recipe", "score --challenge", "best --robot", "autoplay equity", "replay --export",
]  # fmt: skip


@pytest.mark.parametrize("name", FORM_NAMES)
def test_fuzz_command(world, name, tmp_path, monkeypatch):
    """300 seeded mutants of the form ``name`` (its arguments, the files it reads, its stdin):
    every run ends 0, 1 or 2, with one error line at most (a batch: one per bad line), never an
    ``internal error`` or a traceback."""
    form = forms(world)[name]
    folder = tmp_path / "run"
    _prepare(world, folder)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("SKRAFL_OUTPUT", str(folder / "output"))
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    rng = random.Random(f"skrafl fuzz {name}")
    failures, codes = [], {}
    for n in range(MUTANTS):
        choice = rng.random()
        args = list(form.argv)
        if n and choice < 0.6:
            keep = form.fixed if rng.random() < 0.85 else 0
            args = args[:keep] + mutate_args(rng, args[keep:])
        files = dict(form.files)
        if n and files and (choice >= 0.6 or rng.random() < 0.2):
            k = rng.choice(sorted(files))
            files[k] = mutate_bytes(rng, files[k])
        stdin = bytearray(form.stdin)
        if n and form.stdin and rng.random() < 0.5:
            stdin = bytearray(mutate_bytes(rng, bytes(stdin)))
        for rel, data in files.items():
            p = folder / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        code, err = run_in_process(args, bytes(stdin))
        if n == 0:
            assert code in (0, 1), (args, err)  # the seed itself runs
        codes[code] = codes.get(code, 0) + 1
        errors = [line for line in err.splitlines() if line.startswith(("skrafl: error:", "skrafl: nightly: step "))]
        per_line = form.batch and all(re.match(r"skrafl: error: [^:]+:\d+: ", e) for e in errors)
        if (
            "internal error" in err
            or "Traceback" in err
            or (len(errors) > 1 and not per_line)
            or code not in (0, 1, 2, "stopped")
            or (code == 2 and not errors and "Usage" not in err)
        ):
            changed = {k: v[:300] for k, v in files.items() if v != form.files.get(k)}
            failures.append(f"mutant {n}: {args!r} files {changed!r} stdin {bytes(stdin)[:200]!r}: exit {code}: {err[-800:]!r}")
    print(f"{name}: {codes}")
    assert not failures, "\n".join(failures[:5])
