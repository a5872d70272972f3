# Interview suite — developer entry points. `make run` and `make test` are all a new user needs.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
PROTOS := $(shell find protos -name '*.proto')
GEN_STAMP := shared/gen/.stamp
MODEL_STAMP := data/models/.exported
# Where CPU-only PyTorch builds live, for a pip that has no `+cpu` wheel of its own (PyPI has none).
TORCH_INDEX_URL ?= https://download.pytorch.org/whl/cpu
# PostgreSQL for the tests: the variable wins; otherwise a local server if one answers.
TEST_DATABASE_URL ?= $(shell pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null && echo postgresql+asyncpg://postgres@127.0.0.1:5432/postgres)
export TEST_DATABASE_URL
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install protos lint test serve run bench trace simulate e2e e2e-compose clean help

help:
	@echo "make run      start all six services and the interactive interview client"
	@echo "make test     run the whole test suite (PostgreSQL via TEST_DATABASE_URL or a local server)"
	@echo "make serve    start all six services (SQLite files under ./data, offline LLM by default)"
	@echo "make lint     ruff, mypy, buf lint, buf breaking"
	@echo "make protos   regenerate shared/gen from protos/"
	@echo "make bench    run the benchmarks (writes reports under .bench/)"
	@echo "make trace    where a turn's time goes, call by call, from the services' spans (.bench/trace/)"
	@echo "make simulate synthetic interviews, concept x persona (reports under reports/simulation/)"
	@echo "make e2e      end-to-end tests; make e2e-compose the same against docker compose"
	@echo "make install  virtualenv, packages, npm tools, generated code, ONNX model (every target runs it)"
	@echo "make clean    remove generated code, caches and benchmark output (not .venv, not data/)"

install: $(STAMP) $(NODE_STAMP) $(GEN_STAMP) $(MODEL_STAMP)

# CPU torch first: a plain `torch` requirement would pull several GB of CUDA packages. The constraint
# pins the `+cpu` build: found where pip is configured with it (a local wheel folder), else fetched
# from PyTorch's CPU index.
$(STAMP): pyproject.toml constraints.txt
	test -d $(VENV) || python3.11 -m venv $(VENV) || python3 -m venv $(VENV)
	@$(PY) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "$(VENV) has Python " + sys.version.split()[0] + "; the suite needs 3.11 (install python3.11, then remove $(VENV))")'
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -c constraints.txt torch==2.13.0 2>/dev/null \
		|| $(PIP) install -q -c constraints.txt --extra-index-url $(TORCH_INDEX_URL) torch==2.13.0
	$(PIP) install -q -c constraints.txt -e '.[dev]'
	touch $@

$(NODE_STAMP): package.json package-lock.json
	# `npm ci` rejects this lock file (npm 11 and buf's per-platform optional packages), so install.
	npm install --no-audit --no-fund --loglevel=error
	touch $@

$(GEN_STAMP): $(PROTOS) scripts/gen_protos.py $(STAMP)
	$(PY) scripts/gen_protos.py
	touch $@

# The embedding model's ONNX files (fp32, and int8 for queries), made once here rather than by the
# services on their first start (in a child process and one at a time, `shared.model_export`, while
# `make run` waits for them). Deleted files are made again by the services.
$(MODEL_STAMP): $(STAMP) shared/onnx_encoder.py
	$(PY) -m shared.onnx_encoder > /dev/null
	touch $@

protos: $(STAMP)
	$(PY) scripts/gen_protos.py
	touch $(GEN_STAMP)

# `buf breaking` compares the protos with main (a branch's change) and with their first commit, so
# that on main itself every field, number and name the v1 API ever published is still there.
PROTO_BASELINE := b1a92c18609f4234656e0ba8c754a48bb7415cf8

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy shared services scripts bench deploy $(wildcard cli simulation) tests
	npx --no-install buf lint
	@if git cat-file -e $(PROTO_BASELINE)^{commit} 2>/dev/null; then \
		npx --no-install buf breaking --against ".git#ref=$(PROTO_BASELINE),depth=$$(git rev-list --count HEAD)"; \
	else echo "buf breaking: $(PROTO_BASELINE) (the first protos) is not in this clone; skipped"; fi
	@if git rev-parse --verify -q main >/dev/null && git cat-file -e main:buf.yaml 2>/dev/null; then \
		npx --no-install buf breaking --against '.git#branch=main'; \
	else echo "buf breaking: no main branch with protos to compare against; skipped"; fi

test: install
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

serve: install
	$(PY) -m services.launcher

# Shell steps of a recipe that started `services.launcher` in the background (its pid in the shell
# variable pid, its output in the log $(1)): wait until the launcher prints that every service is
# healthy (each service's own health check, not only the orchestrator's), or stop with the end of
# the log if the launcher died.
wait_for_launcher = until grep -q 'services healthy' $(1); do \
		if ! kill -0 $$pid 2>/dev/null; then \
			echo "The services did not start; the end of $(1):"; tail -n 20 $(1); exit 1; \
		fi; \
		sleep 0.5; \
	done

# The services run in the background (own process group, log in $(RUN_LOG)) while the interactive
# client owns the terminal; they are stopped when the client exits, however it exits.
RUN_LOG ?= data/services.log
run: install
	@mkdir -p $(dir $(RUN_LOG)); : > $(RUN_LOG)
	@setsid $(PY) -m services.launcher >>$(RUN_LOG) 2>&1 & pid=$$!; \
	trap 'kill -TERM $$pid 2>/dev/null; wait $$pid 2>/dev/null' EXIT; \
	trap 'exit 130' TERM; \
	echo "Starting the six services (log: $(RUN_LOG)) ..."; \
	$(call wait_for_launcher,$(RUN_LOG)); \
	$(PY) -m cli --target 127.0.0.1:$${ORCHESTRATOR_PORT:-50051} $(CLI_ARGS)

bench: install
	$(PY) -m bench.run_bench --out .bench $(BENCH_ARGS)

trace: install
	$(PY) -m bench.trace_turns --out .bench/trace $(TRACE_ARGS)

# Synthetic interviews (concept x persona, offline engine) through the public API of services started
# on their own ports and SQLite files; reports, records and plots go to $(SIM_OUT).
SIM_OUT ?= reports/simulation
SIM_DATA ?= data/simulation
SIM_PORT ?= 50151
SIM_ARGS ?=
simulate: install
	@mkdir -p $(SIM_DATA) $(SIM_OUT) && rm -f $(SIM_DATA)/*.db && : > $(SIM_DATA)/services.log
	@base=$(SIM_PORT); \
	export ORCHESTRATOR_PORT=$$base EXTRACTION_PORT=$$((base+1)) GRAPH_STORE_PORT=$$((base+2)) \
	       CANONICAL_SLOTS_PORT=$$((base+3)) SCORING_PORT=$$((base+4)) QUESTION_PORT=$$((base+5)); \
	export ORCHESTRATOR_DATABASE_URL=sqlite+aiosqlite:///$(abspath $(SIM_DATA))/orchestrator.db \
	       GRAPH_STORE_DATABASE_URL=sqlite+aiosqlite:///$(abspath $(SIM_DATA))/graph_store.db \
	       CANONICAL_SLOTS_DATABASE_URL=sqlite+aiosqlite:///$(abspath $(SIM_DATA))/canonical_slots.db; \
	$(PY) -m services.launcher >> $(SIM_DATA)/services.log 2>&1 & pid=$$!; \
	trap 'kill -TERM $$pid 2>/dev/null; wait $$pid 2>/dev/null' EXIT; \
	$(call wait_for_launcher,$(SIM_DATA)/services.log); \
	$(PY) -m simulation matrix --target 127.0.0.1:$$base --out $(SIM_OUT) --parallel 2 $(SIM_ARGS)

# The six services as separate processes on PostgreSQL: interviews, traces, grpcurl, Node client, faults.
e2e: install
	$(PY) -m pytest -q -p no:cacheprovider tests/e2e $(PYTEST_ARGS)

# The e2e suite against a running compose deployment (docker compose up -d first; see deploy/README.md).
e2e-compose: install
	E2E_TARGET=$${E2E_TARGET:-127.0.0.1:50051} $(PY) -m pytest -q -p no:cacheprovider tests/e2e

clean:
	rm -rf shared/gen .mypy_cache .ruff_cache .pytest_cache .bench
