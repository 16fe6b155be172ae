# `make run` and `make test` are all a newcomer types: each sets up .venv on first use.
# Prerequisites: Python 3.11 or later and make. With npm, `make test` also fetches the OpenRPC meta-schema and three
# Ethereum nodes (anvil, ganache, hardhat) for the self-tests that need them; without it those tests skip.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
META   := $(VENV)/share/openrpc-meta-schema.json
ANVIL_VERSION  := 1.7.1
ANVIL_PLATFORM := $(shell uname -s | tr A-Z a-z)-$(if $(filter aarch64 arm64,$(shell uname -m)),arm64,amd64)
ANVIL  := $(VENV)/share/npm/anvil-$(ANVIL_VERSION)/package/bin/anvil
# ganache and hardhat, two more stock Ethereum nodes the self-tests point the suite at (tests/test_real_nodes.py).
GANACHE_VERSION := 7.9.2
HARDHAT_VERSION := 2.29.1
NODES  := $(VENV)/share/npm/nodes/ganache-$(GANACHE_VERSION)-hardhat-$(HARDHAT_VERSION)
# The oldest pytest the project supports: the engine's self-tests run on it too (pyproject.toml has the range).
PYTEST_OLDEST := 8.4.2
OLDEST := $(VENV)/share/pytest-$(PYTEST_OLDEST)
ENGINE_TESTS := tests/test_concurrency.py tests/test_generated.py tests/test_engine_boundary.py
# On the oldest pytest the equivalence of concurrent and sequential runs is proved on the quick profile, the newest
# on standard (quick is its smaller case; both are left out where the other runs), and evidence kept per test on
# the newest alone (the loop that keeps it is the one both equivalences prove): make test stays inside ten minutes.
ENGINE_ON_OLDEST := -k "not standard and not evidence_and_violations"
ENGINE_ON_NEWEST := --deselect "tests/test_concurrency.py::test_a_concurrent_run_sends_the_sequential_requests_and_decides_alike[quick]"
# The oldest requests and urllib3 the project supports (pyproject.toml has the ranges): the HTTP client's self-tests
# run on them too, as its transport overrides parts of both (conformance/clients/deadline.py).
REQUESTS_OLDEST := 2.31.0
URLLIB3_OLDEST  := 2.2.0
OLDEST_TRANSPORT := $(VENV)/share/requests-$(REQUESTS_OLDEST)-urllib3-$(URLLIB3_OLDEST)
TRANSPORT_TESTS := tests/test_transport_adapter.py tests/test_http.py
ARGS   ?=
# pytest caches its assertion rewrites as bytecode; without the cache every start re-parses every plugin module.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test bench clean

run: $(STAMP)
	$(BIN)/conformance run $(ARGS)

test: $(STAMP) $(OLDEST) $(OLDEST_TRANSPORT)
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory $(META) $(ANVIL) $(NODES); \
	else echo "npm not found: the OpenRPC meta-schema and the Ethereum nodes are not fetched; their self-tests skip"; fi
	$(BIN)/ruff check
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist worksteal --durations=15 $(ENGINE_ON_NEWEST) $(ARGS)
	PYTHONPATH=$(OLDEST) $(BIN)/python -m pytest -n 2 --dist worksteal $(ENGINE_ON_OLDEST) $(ENGINE_TESTS)
	PYTHONPATH=$(OLDEST_TRANSPORT) $(BIN)/python -m pytest -n 2 $(TRANSPORT_TESTS)

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py $(ARGS)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else f"Python 3.11 or later is needed, $(PYTHON) is {sys.version.split()[0]}: make PYTHON=python3.12 ...")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The OpenRPC meta-schema is published on npm only; the self-tests validate our OpenRPC documents with it.
$(META):
	mkdir -p $(VENV)/share/npm
	cd $(VENV)/share/npm && npm pack --silent @open-rpc/meta-schema@1.14.9 >/dev/null && tar xzf open-rpc-meta-schema-1.14.9.tgz
	node -e 'process.stdout.write(JSON.stringify(require("./$(VENV)/share/npm/package/index.js").openrpcDocument))' > $@.tmp && mv $@.tmp $@

# anvil, a local Ethereum node the self-tests point the suite at (tests/test_real_nodes.py); its npm platform package ships the
# native binary (the wrapper package would fetch it in a postinstall script).
$(ANVIL):
	mkdir -p $(VENV)/share/npm/anvil-$(ANVIL_VERSION)
	cd $(VENV)/share/npm/anvil-$(ANVIL_VERSION) && npm pack --silent @foundry-rs/anvil-$(ANVIL_PLATFORM)@$(ANVIL_VERSION) >/dev/null && tar xzf foundry-rs-anvil-$(ANVIL_PLATFORM)-$(ANVIL_VERSION).tgz && rm foundry-rs-anvil-$(ANVIL_PLATFORM)-$(ANVIL_VERSION).tgz
	$@ --version >/dev/null

# Installed without their install scripts: the native add-ons they would build have pure JavaScript fallbacks.
$(NODES):
	mkdir -p $@.tmp
	cd $@.tmp && echo '{"private": true}' > package.json && npm install --silent --no-audit --no-fund --ignore-scripts ganache@$(GANACHE_VERSION) hardhat@$(HARDHAT_VERSION)
	echo 'module.exports = {};' > $@.tmp/hardhat.config.js
	rm -rf $@ && mv $@.tmp $@

# pytest's oldest supported release beside the venv's own, for the engine's self-tests (the only code that reads
# pytest beyond its public hooks).
$(OLDEST): $(STAMP)
	rm -rf $@ && $(BIN)/python -m pip install --quiet --no-deps --target $@ pytest==$(PYTEST_OLDEST)
	PYTHONPATH=$@ $(BIN)/python -c 'import pytest, sys; sys.exit(pytest.__version__ != "$(PYTEST_OLDEST)")'

# requests' and urllib3's oldest supported releases beside the venv's own, for the HTTP client's self-tests.
$(OLDEST_TRANSPORT): $(STAMP)
	rm -rf $@ && $(BIN)/python -m pip install --quiet --no-deps --target $@ requests==$(REQUESTS_OLDEST) \
		urllib3==$(URLLIB3_OLDEST)
	PYTHONPATH=$@ $(BIN)/python -c 'import requests, urllib3, sys; \
		sys.exit((requests.__version__, urllib3.__version__) != ("$(REQUESTS_OLDEST)", "$(URLLIB3_OLDEST)"))'

clean:
	rm -rf $(VENV) reports/latest
