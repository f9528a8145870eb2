"""The Word Judge station (``skrafl judge``): rulings and the audit log (gamecore.wordjudge), and the
screen driven headlessly by Textual's own test pilot (``App.run_test``): words typed, Enter, the
verdict shown and the words not, the screen cleared, leaving only by the key sequence or password,
one log line per ruling on disk."""

from __future__ import annotations

import asyncio
import html
import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from clirun import build_word_lexicon, run_skrafl_here

from gamecore.errors import DataError, UsageError
from gamecore.wordjudge import AuditLog, WordJudge, manifest_checksum

PROJECT = Path(__file__).resolve().parents[1]
WORDS = ["joint", "fore", "for", "ta", "ax", "hey", "ýf", "þú"]


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("judge")
    (d / "words.txt").write_text("\n".join(WORDS[:6]) + "\n", encoding="utf-8")
    r = run_skrafl_here("build", "en", "--source", "wordlist", "--input", str(d / "words.txt"), "--out", str(d / "en"), "-q")
    assert r.returncode == 0, r.stderr
    return d / "en"


@pytest.fixture
def judge(lexicon) -> WordJudge:
    return WordJudge.load(lexicon)


def screen_text(app) -> str:
    """What the screen shows, as plain text (Textual's own screenshot, tags stripped)."""
    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


def drive(app, steps, size=(100, 30)):
    """Run ``app`` headlessly and call each ``async step(pilot)`` in turn."""

    async def go():
        async with app.run_test(size=size) as pilot:
            for step in steps:
                await step(pilot)
        return app

    return asyncio.run(go())


# ---- rulings and the log ------------------------------------------------------------------------


def test_ruling_acceptable_only_when_every_word_is_valid(judge):
    assert judge.rule(["joint", "FORE"]).verdict == "ACCEPTABLE"
    r = judge.rule(["joint", "xyzzy"])
    assert r.verdict == "UNACCEPTABLE" and r.words == ("joint", "xyzzy") and r.time.endswith("Z")
    with pytest.raises(UsageError):
        judge.rule([])
    with pytest.raises(UsageError):
        judge.split("a b c d e f g h i")  # nine words: more than --max-words 8


def test_manifest_checksum_is_the_markers(lexicon, judge):
    marker = json.loads((lexicon / ".skrafl-output").read_text(encoding="utf-8"))
    assert judge.checksum == marker["files"]["manifest.json"]["sha256"] == manifest_checksum(lexicon)
    assert judge.name == "en"


def test_changed_manifest_is_refused(lexicon, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(Path(lexicon).resolve(), copy)
    man = copy / "manifest.json"
    man.write_text(man.read_text(encoding="utf-8").replace('"en"', '"xx"', 1), encoding="utf-8")
    with pytest.raises(DataError):
        manifest_checksum(copy)


def test_audit_log_one_line_per_ruling(judge, tmp_path):
    path = tmp_path / "log.jsonl"
    with AuditLog(path) as log:
        log.write(judge.record(judge.rule(["joint"])))
        # on disk before close (flushed and fsynced per ruling)
        assert len(path.read_text(encoding="utf-8").splitlines()) == 1
        log.write(judge.record(judge.rule(["xyzzy"])))
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert [x["verdict"] for x in lines] == ["ACCEPTABLE", "UNACCEPTABLE"]
    assert set(lines[0]) == {"time", "words", "verdict", "lexicon", "manifest_sha256"}
    assert lines[0]["manifest_sha256"] == judge.checksum and lines[1]["words"] == ["xyzzy"]


def test_log_survives_a_kill(lexicon, tmp_path):
    """A station killed right after a ruling: the log line is there (written before the verdict)."""
    path = tmp_path / "log.jsonl"
    code = (
        "import os, signal\n"
        "from gamecore.wordjudge import WordJudge, AuditLog\n"
        f"j = WordJudge.load({str(lexicon)!r}); log = AuditLog({str(path)!r})\n"
        "log.write(j.record(j.rule(['joint', 'fore'])))\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True)
    assert p.returncode == -9
    assert json.loads(path.read_text(encoding="utf-8"))["verdict"] == "ACCEPTABLE"


# ---- the screen, through Textual's pilot ---------------------------------------------------------


def _app(judge, **kw):
    from cli.judge import make_app

    return make_app(judge, **kw)


def test_screen_shows_the_verdict_and_the_words_never_which_failed(judge, tmp_path):
    log = AuditLog(tmp_path / "log.jsonl")
    app = _app(judge, log=log, clear_after=30)
    seen = {}

    async def type_words(pilot):
        await pilot.press(*"joint", "space", *"xyzzy", "space", *"fore", "enter")
        await pilot.pause()
        seen["text"] = screen_text(app)

    drive(app, [type_words])
    log.close()
    text = seen["text"]
    assert "UNACCEPTABLE" in text
    # the words ruled on are shown under the verdict (as Zyzzyva's Word Judge does), all alike, in
    # the order typed: nothing marks the one that failed
    assert "JOINT XYZZY FORE" in text
    assert "INVALID" not in text and "VALID" not in text.replace("UNACCEPTABLE", "")
    assert app.state == "verdict" and [r.verdict for r in app.rulings] == ["UNACCEPTABLE"]
    line = json.loads((tmp_path / "log.jsonl").read_text(encoding="utf-8"))
    assert line["words"] == ["joint", "xyzzy", "fore"] and line["verdict"] == "UNACCEPTABLE"


@pytest.mark.slow
def test_screen_acceptable_then_cleared(judge):
    # the verdict clears after 1.5 s: long enough that a loaded machine still shows it when the
    # screen is read right after Enter (0.2 s was missed once by a CI run)
    app = _app(judge, clear_after=1.5)
    seen = {}

    async def rule(pilot):
        await pilot.press(*"joint", "space", *"hey", "enter")
        await pilot.pause()
        seen["during"] = screen_text(app)
        seen["class"] = set(app.query_one("#verdict").classes)

    async def wait(pilot):
        await pilot.pause(2.5)
        seen["after"] = screen_text(app)
        seen["value"] = app.query_one("#words").value

    drive(app, [rule, wait])
    assert "ACCEPTABLE" in seen["during"] and "UNACCEPTABLE" not in seen["during"] and seen["class"] == {"acceptable"}
    assert "ACCEPTABLE" not in seen["after"] and "Type the words" in seen["after"] and app.state == "entry"
    assert seen["value"] == ""


def test_a_refusal_clears_when_the_field_is_cleared(judge):
    """A refusal (too many words) is about the entry it refused: once the field is cleared it goes
    (it stayed on the screen under an empty field)."""
    app = _app(judge, clear_after=30)
    seen = {}

    async def refuse_then_clear(pilot):
        app.query_one("#words").value = " ".join(["ta"] * 9)
        await pilot.press("enter")
        await pilot.pause()
        seen["refused"] = screen_text(app)
        await pilot.press("ctrl+u")  # the readline key that clears the field
        await pilot.pause()
        seen["cleared"] = screen_text(app)
        seen["value"] = app.query_one("#words").value

    drive(app, [refuse_then_clear])
    assert "at most 8 words" in seen["refused"]
    assert seen["value"] == "" and "at most 8 words" not in seen["cleared"] and app.rulings == []


def test_nfd_typing_is_ruled_as_nfc(tmp_path):
    """Norwegian å and ø typed as a letter + combining mark (NFD) are the lexicon's NFC letters."""
    (tmp_path / "w.txt").write_text("blå\nsjø\n", encoding="utf-8")
    r = run_skrafl_here(
        "build", "nb", "--source", "wordlist", "--input", str(tmp_path / "w.txt"), "--out", str(tmp_path / "nb"), "-q"
    )
    assert r.returncode == 0, r.stderr
    judge = WordJudge.load(tmp_path / "nb")
    app = _app(judge, clear_after=30)
    typed = unicodedata.normalize("NFD", "BLÅ sjø")
    assert typed != unicodedata.normalize("NFC", typed)

    async def type_nfd(pilot):
        app.query_one("#words").value = typed
        await pilot.press("enter")
        await pilot.pause()

    drive(app, [type_nfd])
    assert app.rulings[0].verdict == "ACCEPTABLE" and app.rulings[0].words == ("BLÅ", "sjø")


def test_too_many_words_is_a_message_not_a_ruling(judge):
    app = _app(judge, clear_after=30)
    seen = {}

    async def many(pilot):
        app.query_one("#words").value = " ".join(["ta"] * 9)
        await pilot.press("enter")
        await pilot.pause()
        seen["text"] = screen_text(app)

    drive(app, [many])
    assert app.rulings == [] and "at most 8 words" in seen["text"]


def test_leaving_needs_the_key_sequence(judge):
    app = _app(judge)
    states = []

    async def leave_and_back(pilot):
        await pilot.press("ctrl+q")
        await pilot.pause()
        states.append((app.state, "Press Y to leave" in screen_text(app)))
        await pilot.press("n")  # any other key goes back
        await pilot.pause()
        states.append((app.state, app.is_running))
        await pilot.press("ctrl+c")
        await pilot.pause()
        states.append(app.state)
        await pilot.press("y")
        await pilot.pause()

    drive(app, [leave_and_back])
    assert states == [("leave", True), ("entry", True), "leave"]
    assert app.return_code == 0


def test_locked_station_needs_the_password(judge):
    app = _app(judge, password="hekla")
    states = []

    async def try_leave(pilot):
        await pilot.press("ctrl+q", *"wrong", "enter")
        await pilot.pause()
        states.append((app.state, "wrong password" in screen_text(app)))
        await pilot.press("ctrl+q", "y")  # the sequence of an unlocked station does not leave
        await pilot.pause()
        states.append(app.is_running)
        await pilot.press("escape")
        await pilot.pause()
        states.append(app.state)
        await pilot.press("ctrl+q", *"hekla", "enter")
        await pilot.pause()

    drive(app, [try_leave])
    assert states == [("entry", True), True, "entry"]
    assert app.return_code == 0


def _logged_words(path: Path) -> list[list[str]]:
    return [json.loads(x)["words"] for x in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("clear_after", [0, 5])
def test_key_during_verdict_clears_it_and_is_typed(judge, tmp_path, clear_after):
    """A key typed while a verdict shows clears the verdict at once and is the first letter of the
    next entry (--clear-after 0, and within the 5 s of the default)."""
    log = AuditLog(tmp_path / "log.jsonl")
    app = _app(judge, log=log, clear_after=clear_after)
    seen = {}

    async def steps(pilot):
        await pilot.press(*"joint", "enter")
        await pilot.pause()
        seen["before"] = (app.state, set(app.query_one("#verdict").classes))
        await pilot.press("x")
        await pilot.pause()
        seen["after"] = (app.state, set(app.query_one("#verdict").classes), app.query_one("#words").value)
        seen["text"] = screen_text(app)
        await pilot.press(*"yzq", "enter")
        await pilot.pause()

    drive(app, [steps])
    log.close()
    assert seen["before"] == ("verdict", {"acceptable"})
    assert seen["after"] == ("entry", set(), "x")
    assert "ACCEPTABLE" not in seen["text"] and "Type the words" in seen["text"]
    assert _logged_words(tmp_path / "log.jsonl") == [["joint"], ["xyzq"]]


@pytest.mark.parametrize("clear_after", [0, 5])
def test_burst_during_verdict_is_kept_whole(judge, tmp_path, clear_after):
    """Keys sent in one burst right after a verdict (fast typing), no pause between them."""
    log = AuditLog(tmp_path / "log.jsonl")
    app = _app(judge, log=log, clear_after=clear_after)

    async def steps(pilot):
        await pilot.press(*"joint", "enter", *"xyzq", "space", *"fore", "enter", *"ta", "enter")
        await pilot.pause()

    drive(app, [steps])
    log.close()
    assert _logged_words(tmp_path / "log.jsonl") == [["joint"], ["xyzq", "fore"], ["ta"]]
    assert [r.verdict for r in app.rulings] == ["ACCEPTABLE", "UNACCEPTABLE", "ACCEPTABLE"]


@pytest.mark.parametrize("clear_after", [0, 5])
def test_paste_during_verdict_is_kept_whole(judge, tmp_path, clear_after):
    """A paste (the terminal's bracketed paste) while a verdict shows: all of it is the new entry,
    its lines joined by spaces; it clears the verdict and rules nothing until Enter."""
    from textual import events

    log = AuditLog(tmp_path / "log.jsonl")
    app = _app(judge, log=log, clear_after=clear_after)
    seen = {}

    async def steps(pilot):
        await pilot.press(*"fore", "enter")
        await pilot.pause()
        app._driver.send_message(events.Paste("joint\nxyzq\n"))
        await pilot.pause()
        seen["after"] = (app.state, app.query_one("#words").value, len(app.rulings))
        await pilot.press("enter")
        await pilot.pause()

    drive(app, [steps])
    log.close()
    assert seen["after"] == ("entry", "joint xyzq", 1)
    assert _logged_words(tmp_path / "log.jsonl") == [["fore"], ["joint", "xyzq"]]


def test_enter_or_escape_during_verdict_clears_it_and_rules_nothing(judge, tmp_path):
    log = AuditLog(tmp_path / "log.jsonl")
    app = _app(judge, log=log, clear_after=0)
    states = []

    async def steps(pilot):
        for key in ("enter", "escape"):
            await pilot.press(*"joint", "enter")
            await pilot.pause()
            states.append(app.state)
            await pilot.press(key)
            await pilot.pause()
            states.append((app.state, app.query_one("#words").value))

    drive(app, [steps])
    log.close()
    assert states == ["verdict", ("entry", ""), "verdict", ("entry", "")]
    assert _logged_words(tmp_path / "log.jsonl") == [["joint"], ["joint"]]


@pytest.mark.parametrize("key", ["ctrl+c", "ctrl+q"])
@pytest.mark.parametrize("clear_after", [0, 5])
def test_leave_key_works_the_same_with_a_verdict_showing(judge, key, clear_after):
    """Ctrl+C and Ctrl+Q ask to leave whether a verdict shows or not; nothing of the verdict stays."""
    app = _app(judge, clear_after=clear_after)
    seen = []

    async def steps(pilot):
        await pilot.press(key)
        await pilot.pause()
        seen.append((app.state, "Press Y to leave" in screen_text(app)))
        await pilot.press("n")  # back
        await pilot.pause()
        await pilot.press(*"joint", "enter")
        await pilot.pause()
        seen.append(app.state)
        await pilot.press(key)
        await pilot.pause()
        text = screen_text(app)
        seen.append((app.state, "Press Y to leave" in text, "ACCEPTABLE" in text))
        await pilot.press("y")
        await pilot.pause()

    drive(app, [steps])
    assert seen == [("leave", True), "verdict", ("leave", True, False)]
    assert app.return_code == 0


def test_cli_judge_errors_one_line():
    r = run_skrafl_here("judge")
    assert r.returncode == 2 and "--lang" in r.stderr and r.stderr.count("\n") == 1
    r = run_skrafl_here("judge", "--lexicon", "/nonexistent/lexicon")
    assert r.returncode == 2 and r.stderr.count("\n") == 1


def test_cli_lock_without_terminal_or_password(lexicon):
    r = subprocess.run(
        [sys.executable, "-m", "cli.main", "judge", "--lexicon", str(lexicon), "--lock"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={k: v for k, v in __import__("os").environ.items() if k != "SKRAFL_JUDGE_PASSWORD"},
    )
    assert r.returncode == 2 and "SKRAFL_JUDGE_PASSWORD" in r.stderr


def test_textual_is_not_imported_by_other_commands():
    code = "import sys, cli.main; print('textual' in sys.modules, 'pyfiglet' in sys.modules)"
    p = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True)
    assert p.stdout.split() == ["False", "False"], p.stderr


def test_no_verdict_without_its_log_line(judge):
    class FullDisk:
        def write(self, record):
            raise OSError(28, "No space left on device")

    app = _app(judge, log=FullDisk(), clear_after=30)
    seen = {}

    async def rule(pilot):
        await pilot.press(*"joint", "enter")
        await pilot.pause()
        seen["text"] = screen_text(app)

    drive(app, [rule])
    assert app.rulings == [] and app.state == "entry"
    assert "No space left on device" in seen["text"] and "ACCEPTABLE" not in seen["text"]


# ---- without the screen: --word and --batch ------------------------------------------------------

TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def _tsv(out: str) -> list[list[str]]:
    """The rows of --format tsv without the last column, the ruling's time (checked: a header
    ``time``, then an ISO 8601 UTC time with milliseconds on every row)."""
    rows = [line.split("\t") for line in out.splitlines()]
    assert rows and rows[0][-1] == "time", rows
    assert all(TIME.fullmatch(r[-1]) for r in rows[1:]), rows
    return [r[:-1] for r in rows]


def test_cli_tsv_columns_are_the_json_keys(lexicon, tmp_path):
    """--format tsv has the columns --format json has as keys (line, words, verdict, time), and
    each row's time is its log line's."""
    log = tmp_path / "log.jsonl"
    stdin = "joint fore\nxyzzy\n"
    t = run_skrafl_here("judge", "--lexicon", str(lexicon), "--batch", "-", "-f", "tsv", "-q", "--log", str(log), stdin=stdin)
    j = run_skrafl_here("judge", "--lexicon", str(lexicon), "--batch", "-", "-f", "json", "-q", stdin=stdin)
    assert t.returncode == j.returncode == 1
    header, *rows = [line.split("\t") for line in t.stdout.splitlines()]
    objects = json.loads(j.stdout)
    assert header == list(objects[0]) == ["line", "words", "verdict", "time"]
    assert [r[:3] for r in rows] == [[str(o["line"]), " ".join(o["words"]), o["verdict"]] for o in objects]
    assert [r[3] for r in rows] == [json.loads(x)["time"] for x in log.read_text(encoding="utf-8").splitlines()]


def test_cli_word_rules_once(lexicon):
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--word", "joint", "--word", "FORE", "-f", "tsv")
    assert r.returncode == 0, r.stderr
    assert _tsv(r.stdout) == [["line", "words", "verdict"], ["1", "joint FORE", "ACCEPTABLE"]]
    assert "1 ruling" in r.stderr and "1 ACCEPTABLE, 0 UNACCEPTABLE" in r.stderr
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--word", "joint xyzzy", "-q")
    assert r.returncode == 1 and r.stderr == ""
    assert r.stdout.split()[-1] == "UNACCEPTABLE" and "xyzzy" in r.stdout  # the words as given, not which failed


def test_cli_batch_from_stdin_logged_and_json(lexicon, tmp_path):
    log = tmp_path / "rulings.jsonl"
    text = "joint fore\n\nxyzzy, ta\nhey;ax\n"
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--batch", "-", "-f", "json", "--log", str(log), "-q", stdin=text)
    assert r.returncode == 1 and r.stderr == "", r.stderr
    out = json.loads(r.stdout)
    assert [(x["line"], x["words"], x["verdict"]) for x in out] == [
        (1, ["joint", "fore"], "ACCEPTABLE"),
        (3, ["xyzzy", "ta"], "UNACCEPTABLE"),
        (4, ["hey", "ax"], "ACCEPTABLE"),
    ]
    lines = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    assert [x["verdict"] for x in lines] == ["ACCEPTABLE", "UNACCEPTABLE", "ACCEPTABLE"]
    assert [x["time"] for x in lines] == [x["time"] for x in out]
    assert {x["lexicon"] for x in lines} == {"en"}


def test_cli_batch_file_table_all_acceptable(lexicon, tmp_path):
    f = tmp_path / "challenges.txt"
    f.write_text("joint\nfor ta\n", encoding="utf-8")
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--batch", str(f))
    assert r.returncode == 0, r.stderr
    assert [line.split() for line in r.stdout.splitlines()] == [
        ["line", "words", "verdict"],
        ["1", "joint", "ACCEPTABLE"],
        ["2", "for", "ta", "ACCEPTABLE"],
    ]


def test_cli_batch_nfd_ruled_as_nfc(tmp_path):
    (tmp_path / "w.txt").write_text("blå\nsjø\n", encoding="utf-8")
    r = run_skrafl_here(
        "build", "nb", "--source", "wordlist", "--input", str(tmp_path / "w.txt"), "--out", str(tmp_path / "nb"), "-q"
    )
    assert r.returncode == 0, r.stderr
    nfd = unicodedata.normalize("NFD", "blå sjø")
    r = run_skrafl_here("judge", "--lexicon", str(tmp_path / "nb"), "--batch", "-", "-f", "tsv", "-q", stdin=nfd + "\n")
    assert r.returncode == 0, r.stdout
    assert _tsv(r.stdout)[1] == ["1", "blå sjø", "ACCEPTABLE"]


@pytest.mark.parametrize(
    "args, stdin, message",
    [
        (["--batch", "-"], "joint\na b c d e f g h i\n", "-:2: at most 8 words at once; got 9"),
        (["--batch", "-"], "\n\n", "no words to rule on"),
        (["--batch", "/nonexistent/file.txt"], None, "no batch file"),
        (["--word", "joint", "--batch", "-"], "", "not both"),
        (["-f", "json"], None, "--format applies to the rulings of --word/--batch"),
        (["--word", "joint", "--lock"], None, "--lock locks the screen"),
    ],
)
def test_cli_batch_bad_input_one_line_nothing_logged(lexicon, tmp_path, args, stdin, message):
    log = tmp_path / "log.jsonl"
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--log", str(log), *args, stdin=stdin)
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("skrafl: error: ") and message in lines[0], r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert not log.exists() or log.read_text(encoding="utf-8") == ""  # every line checked before any ruling


def test_cli_batch_not_utf8(lexicon, tmp_path):
    f = tmp_path / "bad.txt"
    f.write_bytes(b"joint\n\xff\xfe\n")
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--batch", str(f))
    assert r.returncode == 2 and f"{f}:2: not UTF-8" in r.stderr and r.stderr.count("\n") == 1


@pytest.mark.slow
def test_screen_and_batch_agree(judge, lexicon):
    """The same words typed on the screen (Textual's pilot) and given to --batch get the same verdicts."""
    asked = ["joint fore", "joint xyzzy", "ta ax hey"]
    app = _app(judge, clear_after=0)

    async def type_all(pilot):
        for line in asked:
            keys = ["space" if ch == " " else ch for ch in line]
            await pilot.press(*keys, "enter")  # the first key clears the last verdict and is typed
            await pilot.pause()

    drive(app, [type_all])
    screen = [r.verdict for r in app.rulings]
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--batch", "-", "-f", "json", "-q", stdin="\n".join(asked) + "\n")
    assert [x["verdict"] for x in json.loads(r.stdout)] == screen == ["ACCEPTABLE", "UNACCEPTABLE", "ACCEPTABLE"]


# ---- the audit log: never over an input or into a skrafl output; a log that cannot be written ---


def _tree_bytes(folder: Path) -> dict[str, bytes]:
    real = folder.resolve()
    return {str(p.relative_to(real)): p.read_bytes() for p in sorted(real.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def other_output(tmp_path_factory) -> Path:
    """Another skrafl output (a second lexicon), not the one the judge uses."""
    return build_word_lexicon(tmp_path_factory.mktemp("other"), ["ax"], name="lex")


@pytest.mark.parametrize(
    "log, message",
    [
        ("BATCH", "is an input of this command"),
        ("LEX/manifest.json", "is inside the input folder"),
        ("LEX/words.txt", "is inside the input folder"),
        ("LEX/rulings.jsonl", "is inside the input folder"),
        ("OTHER/rulings.jsonl", "an output of 'skrafl build'"),
        ("TMP", "is a folder"),
    ],
)
@pytest.mark.parametrize("how", ["--batch", "--word"])
def test_cli_log_refused_when_an_input_or_inside_an_output(lexicon, other_output, tmp_path, log, message, how):
    """The README's guarantees: an input is only read, and a skrafl output is written only by the
    command that owns it. A log that would be either is refused, one line, exit 2, before any
    ruling; the lexicon is untouched and still loads."""
    if log == "BATCH" and how == "--word":
        pytest.skip("--word reads no batch file")
    batch = tmp_path / "challenges.txt"
    batch.write_text("joint\n", encoding="utf-8")
    target = (
        log.replace("BATCH", str(batch))
        .replace("LEX", str(lexicon))
        .replace("OTHER", str(other_output))
        .replace("TMP", str(tmp_path))
    )
    before = _tree_bytes(lexicon), _tree_bytes(other_output), batch.read_bytes()
    args = ["--batch", str(batch)] if how == "--batch" else ["--word", "joint"]
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), *args, "--log", target)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == "" and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"skrafl: error: {target}: ") and message in r.stderr, r.stderr
    assert (_tree_bytes(lexicon), _tree_bytes(other_output), batch.read_bytes()) == before
    assert run_skrafl_here("check", "--lexicon", str(lexicon), "joint").returncode == 0


def test_cli_log_refused_when_it_is_the_file_stdin_reads(lexicon, tmp_path):
    """``--batch - < ch.txt --log ch.txt``: the log would be the batch input itself."""
    batch = tmp_path / "ch.txt"
    batch.write_text("joint\n", encoding="utf-8")
    with open(batch, "rb") as fh:
        r = subprocess.run(
            [sys.executable, "-m", "cli.main", "judge", "--lexicon", str(lexicon), "--batch", "-", "--log", str(batch)],
            cwd=PROJECT,
            stdin=fh,
            capture_output=True,
            text=True,
        )
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "is an input of this command" in r.stderr, r.stderr
    assert batch.read_text(encoding="utf-8") == "joint\n"


def test_cli_log_refused_before_the_screen(lexicon):
    """The screen (no --word/--batch) gets the same refusal before it starts."""
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--log", str(lexicon / "manifest.json"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "is inside the input folder" in r.stderr, r.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_cli_log_on_a_full_device_is_one_line_naming_it(lexicon):
    for args in (["--word", "joint"], ["--batch", "-"]):
        r = run_skrafl_here("judge", "--lexicon", str(lexicon), *args, "--log", "/dev/full", stdin="joint\nfore\n")
        assert r.returncode == 2, r.stderr
        assert r.stderr == "skrafl: error: /dev/full: No space left on device\n" and r.stdout == ""


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="no /dev/null")
def test_cli_log_to_dev_null_is_accepted(lexicon):
    """/dev/null as a log is legitimate (a practice table): it cannot be fsynced, and need not be."""
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--word", "joint", "--log", "/dev/null", "-f", "tsv", "-q")
    assert r.returncode == 0, r.stderr
    assert _tsv(r.stdout) == [["line", "words", "verdict"], ["1", "joint", "ACCEPTABLE"]]
    with AuditLog("/dev/null") as log:
        log.write({"verdict": "ACCEPTABLE"})


# ---- control characters: refused as 'skrafl check' refuses them, never ruled on ------------------


@pytest.mark.parametrize(
    "stdin, message",
    [
        ("joint\u200b\n", "-:1: an invisible format character (U+200B) in a word"),
        ("joint\nfore ta\nfore\u200bta\n", "-:3: an invisible format character (U+200B) in a word"),
        ("joint\x01\n", "-:1: a control character (U+0001) in a word"),
        ("ta,\u2060ax\n", "-:1: an invisible format character (U+2060) in a word"),
    ],
)
def test_cli_batch_control_character_refused_before_any_ruling(lexicon, tmp_path, stdin, message):
    log = tmp_path / "log.jsonl"
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--batch", "-", "-f", "tsv", "--log", str(log), stdin=stdin)
    assert r.returncode == 2, (r.returncode, r.stdout)
    assert r.stderr == f"skrafl: error: {message}\n" and r.stdout == ""
    assert not log.exists() or log.read_text(encoding="utf-8") == ""
    # the same line is refused by 'skrafl check', with the same words
    last = stdin.splitlines()[-1].replace(",", " ").split()
    c = run_skrafl_here("check", "--lexicon", str(lexicon), "-", stdin="\n".join(last) + "\n")
    assert c.returncode == 2 and message.split(": ", 1)[1] in c.stderr


def test_cli_batch_file_control_character_names_the_file(lexicon, tmp_path):
    f = tmp_path / "ch.txt"
    f.write_bytes("joint\njoint\u200b fore\n".encode("utf-8"))
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--batch", str(f))
    assert r.returncode == 2 and r.stderr == f"skrafl: error: {f}:2: an invisible format character (U+200B) in a word\n"


def test_cli_word_control_character_refused(lexicon, tmp_path):
    log = tmp_path / "log.jsonl"
    for word, what in (("joint\x01", "a control character (U+0001)"), ("joint\u200b", "an invisible format character (U+200B)")):
        r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--word", "fore", "--word", word, "--log", str(log))
        assert r.returncode == 2 and r.stdout == ""
        assert r.stderr == f"skrafl: error: --word: {what} in a word\n"
    assert not log.exists() or log.read_text(encoding="utf-8") == ""


def test_screen_refuses_a_control_character_visibly(judge, tmp_path):
    """A pasted zero-width space: no verdict, no log line, a message naming the character; the
    entry is kept (so the judge sees nothing was ruled) and a clean retype is ruled."""
    from textual import events

    log = AuditLog(tmp_path / "log.jsonl")
    app = _app(judge, log=log, clear_after=30)
    seen = {}

    async def steps(pilot):
        await pilot.press(*"joint")
        app._driver.send_message(events.Paste("\u200b"))
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        seen["text"] = screen_text(app)
        seen["state"] = (app.state, len(app.rulings), set(app.query_one("#verdict").classes))
        await pilot.press("ctrl+u", *"joint", "enter")
        await pilot.pause()

    drive(app, [steps])
    log.close()
    assert seen["state"] == ("entry", 0, set())
    assert "U+200B" in seen["text"] and "no ruling" in seen["text"] and "ACCEPTABLE" not in seen["text"]
    assert [r.verdict for r in app.rulings] == ["ACCEPTABLE"]
    assert _logged_words(tmp_path / "log.jsonl") == [["joint"]]


# ---- user trial: typed invisible characters and the 64-character word limit ----------------------


@pytest.mark.parametrize("char", ["\u200b", "\u2060"])
def test_screen_refuses_a_typed_invisible_character(judge, tmp_path, char):
    """A zero-width space (or word joiner, BOM) typed as a key, not pasted: Textual's Input drops a
    key that is not printable, so "fo<U+200B>re" was ruled on as "fore". It is refused as a paste is:
    no verdict, nothing logged, a message naming the character."""
    log = AuditLog(tmp_path / "log.jsonl")
    app = _app(judge, log=log, clear_after=30)
    seen = {}

    async def steps(pilot):
        await pilot.press(*"fo", char, *"re", "enter")
        await pilot.pause()
        seen["text"] = screen_text(app)
        seen["state"] = (app.state, len(app.rulings), set(app.query_one("#verdict").classes))
        seen["value"] = app.query_one("#words").value

    drive(app, [steps])
    log.close()
    assert seen["state"] == ("entry", 0, set())
    assert seen["value"] == f"fo{char}re"
    assert f"U+{ord(char):04X}" in seen["text"] and "no ruling" in seen["text"] and "ACCEPTABLE" not in seen["text"]
    assert (tmp_path / "log.jsonl").read_text(encoding="utf-8") == ""


@pytest.mark.parametrize("char", ["\u200b", "\u2060", "\ufeff"])
def test_screen_refuses_an_invisible_character_as_the_terminal_sends_it(judge, tmp_path, char):
    """The keys as a terminal sends them (Textual's own xterm parser: the zero-width space arrives
    as a key with its character), not the pilot's key names."""
    from textual._xterm_parser import XTermParser

    log = AuditLog(tmp_path / "log.jsonl")
    app = _app(judge, log=log, clear_after=30)
    seen = {}

    async def steps(pilot):
        for event in XTermParser(debug=False).feed(f"fo{char}re"):
            app._driver.send_message(event)
            await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        seen["text"] = screen_text(app)
        seen["state"] = (app.state, len(app.rulings))

    drive(app, [steps])
    log.close()
    assert seen["state"] == ("entry", 0)
    assert f"U+{ord(char):04X}" in seen["text"] and "no ruling" in seen["text"] and "ACCEPTABLE" not in seen["text"]
    assert (tmp_path / "log.jsonl").read_text(encoding="utf-8") == ""


def test_backspace_as_the_terminal_sends_it_deletes(judge, tmp_path):
    """A terminal's Backspace is the byte DEL (0x7F): Textual's parser makes it the key
    "backspace", which deletes the letter before the cursor (not a control character typed)."""
    from textual._xterm_parser import XTermParser

    log = AuditLog(tmp_path / "log.jsonl")
    app = _app(judge, log=log, clear_after=30)
    seen = {}

    async def steps(pilot):
        for event in XTermParser(debug=False).feed("jointt\x7f"):
            app._driver.send_message(event)
            await pilot.pause()
        seen["value"] = app.query_one("#words").value
        await pilot.press("enter")
        await pilot.pause()

    drive(app, [steps])
    log.close()
    assert seen["value"] == "joint"
    assert [r.verdict for r in app.rulings] == ["ACCEPTABLE"]


def test_screen_refuses_a_word_over_64_characters(judge, tmp_path):
    log = AuditLog(tmp_path / "log.jsonl")
    app = _app(judge, log=log, clear_after=30)
    seen = {}

    async def steps(pilot):
        app.query_one("#words").value = "joint " + "a" * 70
        await pilot.press("enter")
        await pilot.pause()
        seen["text"] = screen_text(app)

    drive(app, [steps])
    log.close()
    assert app.rulings == [] and app.state == "entry"
    assert "a word of 70 characters (at most 64)" in seen["text"] and "ACCEPTABLE" not in seen["text"]
    assert (tmp_path / "log.jsonl").read_text(encoding="utf-8") == ""


@pytest.mark.parametrize(
    "args, stdin, message",
    [
        (["--batch", "-"], "joint\n" + "a" * 200 + "\n", "-:2: a word of 200 characters (at most 64)"),
        (["--batch", "-"], "joint fore " + "b" * 65 + "\n", "-:1: a word of 65 characters (at most 64)"),
        (["--word", "joint", "--word", "a" * 65], None, "--word: a word of 65 characters (at most 64)"),
    ],
)
def test_cli_word_over_64_characters_refused_nothing_logged(lexicon, tmp_path, args, stdin, message):
    """As 'skrafl check' refuses it: one line, exit 2, no ruling made or logged (64 is accepted)."""
    log = tmp_path / "log.jsonl"
    r = run_skrafl_here("judge", "--lexicon", str(lexicon), "--log", str(log), *args, stdin=stdin)
    assert r.returncode == 2 and r.stdout == "" and r.stderr == f"skrafl: error: {message}\n", r.stderr
    assert not log.exists() or log.read_text(encoding="utf-8") == ""
    ok = run_skrafl_here("judge", "--lexicon", str(lexicon), "--word", "a" * 64, "-f", "tsv", "-q")
    assert ok.returncode == 1 and _tsv(ok.stdout)[1] == ["1", "a" * 64, "UNACCEPTABLE"]
