# tourney — `make help` lists the targets.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NATIVE := $(VENV)/.native
# uv installs .venv exactly as uv.lock pins it (every package, version and file hash; the build of
# tourney itself is pinned in pyproject.toml's [tool.uv]). uv lives in a small environment of its
# own, .tools, made with $(PY)'s venv and pip; it never downloads a Python.
UV_VERSION := 0.13.9
TOOLS := .tools
UV := $(TOOLS)/bin/uv
UV_STAMP := $(TOOLS)/.uv-$(UV_VERSION)
export UV_PYTHON_DOWNLOADS := never
# the system's certificates (a proxy's own authority among them), as pip uses here
export UV_SYSTEM_CERTS := 1
# installed modules are compiled once, at setup: where PYTHONDONTWRITEBYTECODE is set (CI's
# images), every tourney command the tests start would otherwise compile them again (0.33 s
# against 0.19 s for one game); BYTECODE does the same for tourney's own sources before a run
export UV_COMPILE_BYTECODE := 1
BYTECODE := $(BIN)/python -m compileall -q -j 0 games harness agents
LOCK_STALE := uv.lock does not match pyproject.toml: run 'make lock' and commit uv.lock
# make test: the suite in one worker process per core (pytest-xdist); TEST_JOBS=1 runs it in one
TEST_JOBS ?= auto
ENGINE_SOURCES := $(wildcard games/*.py games/battleline/*.py games/warchest/*.py)

.DEFAULT_GOAL := help
.PHONY: help setup lock lock-check native compiler browser proxy test test-user test-slow league league-warchest bench learn golden docs lint screenshots clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 14

$(UV_STAMP):
	$(PY) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	touch $(UV_STAMP)

$(STAMP): pyproject.toml uv.lock $(UV_STAMP)
	@$(UV) lock --check --quiet || { echo "$(LOCK_STALE)" >&2; exit 1; }
	$(UV) sync --locked --quiet --extra dev --extra dask --extra rl --python $(PY)
	touch $(STAMP)

setup: $(STAMP) $(NATIVE) browser proxy ## create .venv with exactly the versions of uv.lock, install tourney in it, compile the engines, Chromium and nginx

lock: $(UV_STAMP) ## bring uv.lock in line with pyproject.toml, keeping its other pins (UPGRADE=1: the newest versions allowed)
	$(UV) lock $(if $(UPGRADE),--upgrade)

lock-check: $(UV_STAMP) ## fail unless uv.lock matches pyproject.toml (CI runs it)
	@$(UV) lock --check --quiet || { echo "$(LOCK_STALE)" >&2; exit 1; }
	@echo "uv.lock matches pyproject.toml"

# The engines' hot modules compiled with mypyc (games/native.py): the same games, 2-3x faster.
# Rebuilt when an engine source changes; an engine whose build fails runs from its sources, and
# the stamp is left out so that the next `make native` (say, once gcc is installed) tries again.
$(NATIVE): $(STAMP) $(ENGINE_SOURCES) | compiler
	$(BIN)/python -m games.native_build --stamp $(NATIVE)

native: $(NATIVE) ## compile the engines' hot modules (mypyc; make setup does it)

compiler: ## install a C compiler for the compiled engines (apt-get, as root) or say how
	@if command -v cc >/dev/null || command -v gcc >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing gcc (apt-get)"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gcc libc6-dev >/dev/null || { apt-get update -q >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gcc libc6-dev >/dev/null; }; \
	else \
		echo "warning: no C compiler: the engines will run from their sources (slower); 'sudo apt-get install gcc' compiles them" >&2; \
	fi

# The report tests drive a real headless Chromium (Debian's chromium + chromium-driver). Without
# it (not root, no browser) every other test runs and the browser tests are reported as not run.
browser: ## install headless Chromium for the browser tests (apt-get, as root) or say how
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing chromium and chromium-driver (apt-get)"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			chromium chromium-driver >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			chromium chromium-driver >/dev/null; } || \
		echo "warning: apt-get could not install chromium, so the browser tests (report and replay pages) will not run" >&2; \
	else \
		echo "warning: no headless Chromium, so the browser tests (report and replay pages) will not run: 'sudo apt-get install chromium chromium-driver' installs it" >&2; \
	fi

# docs/serve.md's reverse-proxy recipe runs in front of a real server in tests/serve/test_nginx.py
# (Debian's nginx, and openssl for its certificate). Without them that test is reported as not run.
proxy: ## install nginx and openssl for the reverse-proxy test (apt-get, as root) or say how
	@if command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; then command -v openssl >/dev/null || echo "warning: no openssl, so the reverse-proxy test will not run: 'sudo apt-get install openssl' installs it" >&2; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing nginx and openssl (apt-get)"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			nginx openssl >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			nginx openssl >/dev/null; } || \
		echo "warning: apt-get could not install nginx, so the reverse-proxy test will not run" >&2; \
	else \
		echo "warning: no nginx, so the reverse-proxy test will not run: 'sudo apt-get install nginx openssl' installs it" >&2; \
	fi

test: $(STAMP) $(NATIVE) browser proxy ## run the test suite in parallel (slow soak tests excluded), then its ten slowest tests
	@$(BYTECODE)
	$(BIN)/python -m pytest -q -m "not slow and not serial" -n $(TEST_JOBS) --durations=10
	$(BIN)/python -m pytest -q -m "serial and not slow"

test-user: $(STAMP) ## as root: the sandbox and hostile-bot tests again as an unprivileged user
	$(BIN)/python -m tests.unprivileged

test-slow: $(STAMP) $(NATIVE) ## run only the slow soak and statistical tests
	$(BIN)/python -m pytest -q -m slow

league: $(STAMP) $(NATIVE) ## the demo round robin of the ladder's first three rungs (random, greedy, mcts) on Battle Line, with ratings
	$(BIN)/tourney league battleline random greedy mcts --games 60 --out results/demo --seed 1
	$(BIN)/tourney ratings results/demo --h2h

league-warchest: $(STAMP) $(NATIVE) ## the same demo on War Chest (results/demo-warchest)
	$(BIN)/tourney league warchest random greedy mcts --games 10 --out results/demo-warchest --seed 1
	$(BIN)/tourney ratings results/demo-warchest --h2h

bench: $(STAMP) $(NATIVE) ## print the benchmark figures (engines, sandbox, leagues, server, start-up); ONLY="sandbox league" for some
	$(BIN)/python -m bench $(foreach s,$(ONLY),--only $(s))

learn: $(STAMP) $(NATIVE) ## fit the learned judgements from self-play (GAME=battleline or GAME=warchest for one) into agents/GAME_value.json
	@case "$(GAME)" in ""|battleline|warchest) ;; *) echo "make learn: GAME=$(GAME) has no learned judgement; give GAME=battleline or GAME=warchest, or no GAME for both" >&2; exit 2;; esac
	@if [ -z "$(GAME)" ] || [ "$(GAME)" = battleline ]; then $(BIN)/python -m agents.learn_battleline; fi
	@if [ -z "$(GAME)" ] || [ "$(GAME)" = warchest ]; then $(BIN)/python -m agents.learn_warchest; fi

golden: $(STAMP) ## regenerate the golden playthroughs in tests/golden/
	$(BIN)/python -m tests.golden_gen

docs: $(STAMP) ## regenerate docs/observation.md (observation keys and examples from real games)
	$(BIN)/python -m tests.observation_doc

lint: $(STAMP) ## ruff and mypy --strict over games, harness, agents, bench and tests
	$(BIN)/ruff check games harness agents bench tests
	$(BIN)/mypy

screenshots: $(STAMP) browser ## photograph the report, the replay viewers and the competition's pages into docs/screenshots/
	$(BIN)/python -m tests.report.screenshots
	$(BIN)/python -m tests.serve.test_browser
	$(BIN)/python -m tests.serve.test_dashboard_browser

clean: ## remove the virtual environment, uv's environment and the caches
	rm -rf $(VENV) $(TOOLS) .pytest_cache .mypy_cache .ruff_cache
