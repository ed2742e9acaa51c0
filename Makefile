# Two commands do all the set-up: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
WEB_STAMP := $(VENV)/.installed-web

.PHONY: run test lint typecheck pytest bench clean venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(WEB_STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[web]'
	touch $(VENV)/.installed $@

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(VENV)/.installed $(WEB_STAMP) $@

venv: $(VENV)/.installed

# the web server on the default SQLite file; it prints the lobby's address (docs/server.md)
run: $(WEB_STAMP)
	$(BIN)/marsdice serve

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

# -rs lists every skipped test with its reason (the PostgreSQL tests without
# MARSDICE_TEST_DATABASE_URL, see .ci/run)
# The browser tests run on their own: Playwright's driver shares the process's stderr, and a
# failure there must not disturb pytest's output capture for the other tests.
BROWSER_TESTS := tests/test_browser_martian.py tests/test_browser_attacks.py tests/test_browser_declared.py \
	tests/test_browser_protocol.py tests/test_browser_words.py tests/test_browser_review.py \
	tests/test_browser_feel.py tests/test_browser_community.py

pytest: $(STAMP)
	$(BIN)/pytest -n 2 -rs $(addprefix --ignore=,$(BROWSER_TESTS))
	$(BIN)/pytest -n 2 -rs $(BROWSER_TESTS)

test: lint typecheck pytest

bench: $(STAMP)
	@for f in bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build src/*.egg-info
