# Interview suite — developer entry points. `make run` and `make test` are all a new user needs.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
PROTOS := $(shell find protos -name '*.proto')
GEN_STAMP := shared/gen/.stamp
# PostgreSQL for the tests: the variable wins; otherwise a local server if one answers.
TEST_DATABASE_URL ?= $(shell pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null && echo postgresql+asyncpg://postgres@127.0.0.1:5432/postgres)
export TEST_DATABASE_URL
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install protos lint test serve run bench e2e e2e-compose clean help

help:
	@echo "make run      start all six services and the interactive interview client"
	@echo "make test     run the whole test suite (PostgreSQL via TEST_DATABASE_URL or a local server)"
	@echo "make serve    start all six services (SQLite files under ./data, offline LLM by default)"
	@echo "make lint     ruff, mypy, buf lint, buf breaking"
	@echo "make protos   regenerate shared/gen from protos/"
	@echo "make bench    run the benchmarks (writes reports under .bench/)"

install: $(STAMP) $(NODE_STAMP) $(GEN_STAMP)

# CPU torch first: a plain `torch` requirement would pull several GB of CUDA packages.
$(STAMP): pyproject.toml constraints.txt
	test -d $(VENV) || python3.11 -m venv $(VENV) || python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -c constraints.txt torch==2.13.0
	$(PIP) install -q -c constraints.txt -e '.[dev]'
	touch $@

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(GEN_STAMP): $(PROTOS) scripts/gen_protos.py $(STAMP)
	$(PY) scripts/gen_protos.py
	touch $@

protos: $(STAMP)
	$(PY) scripts/gen_protos.py
	touch $(GEN_STAMP)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy shared services scripts bench deploy $(wildcard cli simulation)
	npx --no-install buf lint
	@if git rev-parse --verify -q main >/dev/null && git cat-file -e main:buf.yaml 2>/dev/null; then \
		npx --no-install buf breaking --against '.git#branch=main'; \
	else echo "buf breaking: no main branch with protos to compare against; skipped"; fi

test: install
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

serve: install
	$(PY) -m services.launcher

run: install
	$(PY) -m services.launcher

bench: install
	mkdir -p .bench
	$(PY) bench/bench_graph_store.py .bench/graph_store.json
	$(PY) bench/bench_scoring.py .bench/scoring.json

# The e2e suite against a running compose deployment (docker compose up -d first; see deploy/README.md).
e2e-compose: install
	E2E_TARGET=$${E2E_TARGET:-127.0.0.1:50051} $(PY) -m pytest -q -p no:cacheprovider tests/e2e

clean:
	rm -rf shared/gen .mypy_cache .ruff_cache .pytest_cache .bench
