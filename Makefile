# skrafl: the two commands are `make run` (build the Icelandic lexicon from BÍN and check a few
# words) and `make test` (the whole test suite; `make test-fast`: all but the slow tests, for the
# edit loop). Both set up .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
EXTRAS := is,nb,ru,sl,test,bench,cluster,postgres,duckdb
# The editable install is strict (setup.py): a link per package file (modules and the package data
# of pyproject.toml) under build/, so the stamp is named by the list of those files -- a module
# added or removed installs again -- and a missing link tree (build/ removed) installs again too.
PKG_FILES := $(shell find cli pipelines gamecore lexicon_sources -name __pycache__ -prune -o -type f \( -name '*.py' -o -name '*.toml' -o -name '*.txt' -o -name '*.tsv' -o -name '*.json' \) ! -name '.*' -print 2>/dev/null | LC_ALL=C sort | cksum | cut -d' ' -f1)
INSTALLED := $(VENV)/.installed-$(PKG_FILES)
STAMP  := $(INSTALLED)$(if $(wildcard build/__editable__.*),,-relink)

.PHONY: setup setup-en run test test-fast test-sanitize lint c-check c-format bench clean lexicons

setup: $(STAMP)

# The C of the two extensions (setup.py lists the same files)
NATIVE_SOURCES := $(sort $(wildcard gamecore/c/*.c))
SCORER_SOURCES := gamecore/_scorer.c
C_SOURCES := $(NATIVE_SOURCES) $(SCORER_SOURCES)
C_HEADERS := $(sort $(wildcard gamecore/c/*.h))

$(STAMP): pyproject.toml setup.py $(C_SOURCES) $(C_HEADERS)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'   # PEP 660 editable (strict, setup.py): the C extensions are built in place
	rm -f $(VENV)/.installed*
	@$(MAKE) --no-print-directory setup-en || echo "note: English source (Debian scowl) not installed; 'make setup-en' as root"
	touch $(INSTALLED)

# The English source (SCOWL word lists) is a Debian package, not a PyPI one: `skrafl build en` reads
# /usr/share/dict/scowl (or --source scowl --input FOLDER). `make setup` installs it when run as
# root on Debian; elsewhere it prints a note and goes on (every other language still works).
setup-en:
	@test -d /usr/share/dict/scowl || { test "$$(id -u)" = 0 && command -v apt-get >/dev/null && \
	  { apt-get install -y -q scowl >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q scowl >/dev/null; }; }; }

# Incremental like `make test`: the lexicon is ingested and built only when missing or when its
# recipe changed (the file targets below); then a few words are checked.
run: setup lexicons
	@echo '--- skrafl check: valid words, a phony, a proper noun, two-letter words on and off the list'
	$(BIN)/skrafl check --lang is hestur hestanna xyzzy Reykjavík ýf ab || true
	@echo '--- skrafl why: why the proper noun is out'
	$(BIN)/skrafl why --lang is reykjavík || true

# The tests on real data need the Icelandic lexicon built from BÍN (about 3 minutes, once).
output/entries/is/entries.parquet: | $(STAMP)
	$(BIN)/skrafl ingest is --quiet
output/is/manifest.json: output/entries/is/entries.parquet $(wildcard lexicon_sources/is/*) | $(STAMP)
	$(BIN)/skrafl build is --quiet
lexicons: output/is/manifest.json

# Tests run in parallel (pytest-xdist, one worker per core; TEST_WORKERS=0: all in one process;
# --dist loadgroup keeps the tests of one xdist_group on one worker; PYTEST_ARGS: more options).
# `make test` runs every test; `make test-fast` leaves out those marked slow (docs/CONTRIBUTING.md).
TEST_WORKERS ?= auto
PYTEST_ARGS ?=
PYTEST := $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)
test: setup lexicons
	$(PYTEST)

test-fast: setup lexicons
	$(PYTEST) -m "not slow"

# Lint as MAGPIE's CI does on every push: ruff (check with pyflakes, isort and bugbear, and format
# --check), import-linter (the layers cli > pipelines > lexicon_sources > gamecore, and no modules
# importing in a circle), the complexity ratchet (no function above McCabe 15 but those listed in
# tools/complexity_ratchet.txt, none of them growing), the private-import gate (no module using another
# module's _name: tools/check_private_imports.py) and mypy (its scope is `files` of [tool.mypy]: every
# package, whole). One configuration, in pyproject.toml.
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/python tools/check_complexity.py
	$(BIN)/python tools/check_private_imports.py
	$(BIN)/mypy
	@$(MAKE) --no-print-directory c-check

# The C's gates (MAGPIE's dev flags, format check and static analysis): both extensions compiled with
# every warning an error into a temporary folder (nothing is installed), clang-format (.clang-format)
# finding nothing to change, and clang-tidy (.clang-tidy: its checks, and why some are left out)
# finding nothing in any .c file (the headers through them; two at a time, the largest first);
# `make c-format` formats the C in place.
C_WARN := -std=gnu99 -Wall -Wextra -Wshadow -Wstrict-prototypes -Werror
c-check:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	inc=$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["include"])') && \
	for f in $(C_SOURCES); do \
	  $(CC) $(C_WARN) -O2 -pthread -fPIC -I"$$inc" -c $$f -o "$$tmp/$$(basename $$f .c).o" || exit 1; \
	done && echo "c-check: $(words $(C_SOURCES)) C files compile clean with $(C_WARN)"
	$(BIN)/clang-format --dry-run --Werror $(C_SOURCES) $(C_HEADERS)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && start=$$(date +%s) && \
	inc=$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["include"])') && \
	if ls -S $(C_SOURCES) | xargs -P 2 -I{} sh -c '"$$0" --quiet "$$1" -- -I"$$2" >"$$3/$$(basename "$$1").log" 2>&1' \
	  $(BIN)/clang-tidy {} "$$inc" "$$tmp"; then \
	  echo "c-check: clang-tidy finds nothing in $(words $(C_SOURCES)) C files ($$(( $$(date +%s) - start )) s)"; \
	else cat "$$tmp"/*.log | grep -v ' generated\.$$'; echo "c-check: clang-tidy findings above (.clang-tidy)"; exit 1; fi

c-format:
	$(BIN)/clang-format -i $(C_SOURCES) $(C_HEADERS)

# The C-heavy tests (KWG, move generation and its pruning, equity, endgame, simulation, the replay's
# scorer) and the move generation identity check on a few games, on both extensions built with
# AddressSanitizer and UndefinedBehaviorSanitizer into a temporary folder (.ci/test-sanitize).
SANITIZE_TESTS := tests/test_kwg.py tests/test_movegen.py tests/test_shadow.py tests/test_shadow_bingo.py \
  tests/test_shadow_first.py tests/test_shadow_words.py tests/test_equity_native.py tests/test_equity.py \
  tests/test_endgame.py tests/test_preendgame.py tests/test_simulation.py tests/test_replay_board.py
test-sanitize: setup lexicons
	NATIVE_SOURCES="$(NATIVE_SOURCES)" SCORER_SOURCES="$(SCORER_SOURCES)" PYTHON=$(BIN)/python \
	  SANITIZE_TESTS="$(SANITIZE_TESTS)" TEST_WORKERS=$(TEST_WORKERS) .ci/test-sanitize

bench: setup
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info
