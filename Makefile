# Hermes UI. Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PEER_VENV := .peer-venv
PORT ?= 8000
BIN := $(VENV)/bin
# uv installs every venv: one download cache shared by the dashboard's venv and the
# four hermes-agent releases'. A cold peer venv took 36 s with it, 95 s with pip
# (docs/development/testing.md).
UV := $(BIN)/uv
UV_VERSION := 0.13.9
# A run starts hundreds of Python processes (servers, workers, commands). Where the
# environment sets PYTHONDONTWRITEBYTECODE (and uv installs without .pyc files), each
# compiled Django and the dashboard from source again: 2.4 CPU-s a start, not 0.9.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run serve test test-ready test-collect test-fast lint format bench docs docs-serve screenshots peer-venv peer-venvs venv system-run system-test clean oidc-provider axe-core

venv: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "Python 3.11 ($(PYTHON)) is required"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	$(UV) pip install --quiet --python $(BIN)/python -e '.[test]'
	touch $@

# The real Hermes API server lives in its own virtualenv, apart from the dashboard's.
peer-venv: $(PEER_VENV)/.installed
$(PEER_VENV)/.installed: | venv
	$(UV) venv --quiet --python $(PYTHON) $(PEER_VENV)
	$(UV) pip install --quiet --python $(PEER_VENV)/bin/python hermes-agent==0.19.0 aiohttp==3.14.1
	touch $@

# The OpenID provider the single sign-on tests start (panva's oidc-provider, from npm).
OIDC_DIR := devtools/oidc
oidc-provider: $(OIDC_DIR)/node_modules/.installed
$(OIDC_DIR)/node_modules/.installed: $(OIDC_DIR)/package.json $(OIDC_DIR)/package-lock.json
	@command -v npm >/dev/null || { echo "Node.js 18+ with npm is required for the single sign-on tests"; exit 1; }
	cd $(OIDC_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# axe-core, the accessibility engine the browser tests run on every page (from npm).
AXE_DIR := devtools/axe
axe-core: $(AXE_DIR)/node_modules/.installed
$(AXE_DIR)/node_modules/.installed: $(AXE_DIR)/package.json $(AXE_DIR)/package-lock.json
	@command -v npm >/dev/null || { echo "Node.js 18+ with npm is required for the accessibility test"; exit 1; }
	cd $(AXE_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The release matrix (docs/hermes-releases.md): one cached venv per extra hermes-agent
# release, .peer-venv-<version>, installed side by side; a no-op once installed.
peer-venvs: peer-venv
	$(PYTHON) -m devtools.peer.launcher --install --version 0.15.2 & a=$$!; \
	$(PYTHON) -m devtools.peer.launcher --install --version 0.17.0 & b=$$!; \
	$(PYTHON) -m devtools.peer.launcher --install --version 0.13.0 & c=$$!; \
	wait $$a && wait $$b && wait $$c

# Debian packages: graphviz's `dot` for lineage graphs; Chromium for browser tests.
system-run:
	@command -v dot >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz fonts-dejavu-core >/dev/null; }
system-test:
	@# One apt-get update for whatever is missing: Chromium for the browser tests,
	@# PostgreSQL 15 and Redis 7 for the tests/scale workers, Prometheus 2 (and promtool)
	@# for tests/monitoring. The suite starts its own servers.
	@missing=""; lean=""; \
	command -v dot >/dev/null || missing="$$missing graphviz fonts-dejavu-core"; \
	test -x /usr/bin/chromium || missing="$$missing chromium"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	test -x /usr/bin/prometheus || lean="prometheus"; \
	if [ -n "$$missing$$lean" ]; then \
	  apt-get update -qq && \
	  { [ -z "$$missing" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; } && \
	  { [ -z "$$lean" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$lean >/dev/null; }; \
	fi

run: venv peer-venv system-run
	$(BIN)/python manage.py demo --port $(PORT)

# Production: migrate, collectstatic, check --deploy, then WEB_CONCURRENCY workers
# (default: one per core; more than one needs REDIS_URL) plus the task workers.
serve: venv system-run
	$(BIN)/python manage.py serve --port $(PORT)

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

format: venv
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Three pytest workers (pytest-xdist) on two cores: with two, a fifth of their time
# was tests waiting (on timeouts, restarts, a browser), which a third worker fills.
# tests/conftest.py groups the tests that share a package's peer or dashboard onto one
# worker; tests/support/ordering.py hands out the longest groups first and browser
# groups last, an order xdist keeps only without its reordering. PYTEST_WORKERS=0 runs
# in this process.
# The installs, lint and the manual build run side by side first (-j: apt and the
# registries wait on the network while mypy uses a core); -O keeps each one's output
# together.
PYTEST_WORKERS ?= 3
test:
	@$(MAKE) --no-print-directory -j 6 -O test-ready
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --no-loadscope-reorder

test-ready: venv peer-venvs oidc-provider axe-core system-test lint docs test-collect

# One collection while the installs run: pytest caches the test modules it rewrote
# (assertion rewriting) under tests/, so the workers each read them instead of
# rewriting all of them at once.
test-collect: venv
	@out=$$($(BIN)/python -m pytest --collect-only -q 2>&1) || { echo "$$out" | tail -40; exit 1; }

# The everyday loop: make test without Chromium, the scale tests and the release matrix.
# CI calls make test.
test-fast: venv peer-venv oidc-provider system-run
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --no-loadscope-reorder \
		-m "not browser and not scale and not release"

# The manual: MkDocs over docs/, into site/. --strict: a broken link or a page
# missing from the navigation fails the build (and so make test).
docs: venv
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: venv
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8001

# The docs' pictures (docs/images/), taken in Chromium over the demo seed.
screenshots: venv peer-venv system-test
	HERMES_UI_SCREENSHOTS=docs/images $(BIN)/python -m pytest -q tests/docs/test_screenshots.py \
		tests/shares/test_browser_shares.py

bench: venv peer-venv system-run
	$(BIN)/python manage.py bench

clean:
	rm -rf $(VENV) $(PEER_VENV) $(PEER_VENV)-* data test-artifacts site
