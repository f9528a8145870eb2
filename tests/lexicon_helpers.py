"""Tiny lexicon folders for tests: a word list written as a skrafl lexicon output (manifest.json +
lexicon.marisa, committed by pipelines.atomic like 'skrafl build'), enough for look-ups."""

from __future__ import annotations

import json
from pathlib import Path


def make_lexicon(folder: Path, words, language: str = "is", like: Path | None = None, alphabet: str | None = None) -> Path:
    import marisa_trie

    from pipelines.atomic import output_dir

    manifest = {"language": language, "name": f"test-{language}", "fold": {}, "words": len(set(words))}
    if alphabet is not None:
        manifest["alphabet"] = alphabet
    if like is not None:
        manifest = {**json.loads((Path(like) / "manifest.json").read_text(encoding="utf-8")), "words": len(set(words))}
    with output_dir(folder, "build") as stage:
        (stage / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
        marisa_trie.Trie(sorted(set(words))).save(str(stage / "lexicon.marisa"))
        (stage / "words.txt").write_text("".join(w + "\n" for w in sorted(set(words))), encoding="utf-8")
    return folder
