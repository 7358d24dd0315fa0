# tourney — `make help` lists the targets.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.DEFAULT_GOAL := help
.PHONY: help setup browser test test-slow league league-warchest bench golden docs lint screenshots clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 14

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,dask]'
	touch $(STAMP)

setup: $(STAMP) browser ## create .venv, install tourney with its development extras, and Chromium

# The report tests drive a real headless Chromium (Debian's chromium + chromium-driver).
browser: ## install headless Chromium for the report tests (apt-get, as root) or say how
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing chromium and chromium-driver (apt-get)"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			chromium chromium-driver >/dev/null || { apt-get update -q >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			chromium chromium-driver >/dev/null; }; \
	else \
		echo "error: the report tests need headless Chromium: run 'sudo apt-get install chromium chromium-driver' (or make setup as root)" >&2; exit 1; \
	fi

test: $(STAMP) browser ## run the test suite (slow soak tests excluded)
	$(BIN)/python -m pytest -q -m "not slow"

test-slow: $(STAMP) ## run only the slow soak and statistical tests
	$(BIN)/python -m pytest -q -m slow

league: $(STAMP) ## the demo round robin of the ladder's rungs (random, greedy, mcts) on Battle Line, with ratings
	$(BIN)/tourney league battleline random greedy mcts --games 60 --out results/demo --seed 1
	$(BIN)/tourney ratings results/demo --h2h

league-warchest: $(STAMP) ## the same demo on War Chest (results/demo-warchest)
	$(BIN)/tourney league warchest random greedy mcts --games 10 --out results/demo-warchest --seed 1
	$(BIN)/tourney ratings results/demo-warchest --h2h

bench: $(STAMP) ## print the benchmark figures (engines, sandbox, leagues)
	$(BIN)/tourney bench

golden: $(STAMP) ## regenerate the golden playthroughs in tests/golden/
	$(BIN)/python -m tests.golden_gen

docs: $(STAMP) ## regenerate docs/observation.md (observation keys and examples from real games)
	$(BIN)/python -m tests.observation_doc

lint: $(STAMP) ## ruff and mypy --strict over games, harness, agents and tests
	$(BIN)/ruff check games harness agents tests
	$(BIN)/mypy

screenshots: $(STAMP) browser ## photograph the report and both replay viewers into docs/screenshots/
	$(BIN)/python -m tests.report.screenshots

clean: ## remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
