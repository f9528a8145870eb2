"""Build hook for the compiled core: gamecore._native (KWG builder and move generator) and
gamecore._scorer (the replay's play checker and scorer, written apart from the move generator).

Everything else about the package is declared in pyproject.toml; this file only adds the C
extensions, which `pip install -e .` compiles with the machine's C compiler.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "gamecore._native",
            sources=["gamecore/_native.c"],
            depends=["gamecore/_walk.h"],
            extra_compile_args=["-O3", "-std=gnu99", "-Wall", "-pthread"],
            extra_link_args=["-pthread"],
        ),
        Extension("gamecore._scorer", sources=["gamecore/_scorer.c"], extra_compile_args=["-O2", "-std=gnu99", "-Wall"]),
    ]
)
