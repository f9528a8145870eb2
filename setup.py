"""Build hook for the compiled core: gamecore._native (KWG builder and move generator) and
gamecore._scorer (the replay's play checker and scorer, written apart from the move generator).

Everything else about the package is declared in pyproject.toml; this file only adds the C
extensions, which `pip install -e .` compiles with the machine's C compiler, and makes an editable
install "strict" (setuptools' supported mode: a tree of links under build/, named by one plain
.pth line). The default mode installs an import finder that every Python start-up of the venv
imports with pathlib and importlib.util: 20 ms, two thirds of a bare `python -c pass`, paid by
every `skrafl` command. A strict install sees edits to existing files at once; a module added or
removed needs `make setup` again (the Makefile's stamp is named by the list of package files, so
`make` does that by itself).
"""

from glob import glob

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "gamecore._native",
            sources=sorted(glob("gamecore/c/*.c")),  # one file a concept: gamecore/c/native.h says which
            depends=sorted(glob("gamecore/c/*.h")),
            extra_compile_args=["-O3", "-std=gnu99", "-Wall", "-pthread"],
            extra_link_args=["-pthread"],
        ),
        Extension("gamecore._scorer", sources=["gamecore/_scorer.c"], extra_compile_args=["-O2", "-std=gnu99", "-Wall"]),
    ],
    options={"editable_wheel": {"mode": "strict"}},
)
