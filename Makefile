# memlib notebooks: every target sets up what it needs on first use.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
# Offline unless the caller chooses otherwise (e.g. `make run MEMLIB_LLM=auto`).
MEMLIB_LLM ?= offline
export MEMLIB_LLM
# Pin BLAS / FAISS / onnxruntime threads: faster and reproducible on small machines.
export OMP_NUM_THREADS ?= 1
export OPENBLAS_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1
export PYDEVD_DISABLE_FILE_VALIDATION = 1
# With PYTHONDONTWRITEBYTECODE set (containers often set it) and the virtualenv installed
# --no-compile, every Python process compiled each library it imports from source again: 6-7 s of
# CPU for every notebook kernel and every CLI a test starts. The bytecode goes to build/pycache
# instead (written on first import, checked against the sources' times, removed by `make clean`),
# so nothing is written into the sources or the virtualenv.
ifneq ($(PYTHONDONTWRITEBYTECODE),)
unexport PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX ?= $(CURDIR)/build/pycache
endif

.PHONY: help setup dev run test unit notebooks lab lint format sync bench book clean upgrade

help:
	@echo "make run     execute every notebook into build/notebooks/ (+ records.json)"
	@echo "make test    unit tests, then every notebook, asserting on recorded figures"
	@echo "make lab     open JupyterLab on the memlib kernel"
	@echo "make book    the executed notebooks as a static site: build/book/index.html"
	@echo "make sync    copy the notebooks' saved cells (# @save memlib.<module>) into memlib"
	@echo "make lint | format | bench | clean"
	@echo "make upgrade refresh requirements/ to the newest versions pyproject.toml allows"

LOCK     := requirements/lock.txt
DEV_LOCK := requirements/lock-dev.txt

# Installs come from the committed locks: the exact versions the suite last passed with. A
# learner's targets (run, lab, bench) get the runtime lock only; test, lint and book add the dev
# lock (pytest, Playwright, Sphinx, ...). Bytecode is left to Python to write on first import
# (--no-compile), so the learner's virtualenv stays under 1 GB.
$(STAMP): pyproject.toml $(LOCK)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-compile -r $(LOCK)
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -c "from memlib.testing import ensure_kernel; ensure_kernel()"
	@touch $(STAMP)

$(DEV_STAMP): $(STAMP) $(DEV_LOCK)
	$(PY) -m pip install --quiet --no-compile -r $(DEV_LOCK)
	@touch $(DEV_STAMP)

setup: $(STAMP)

dev: $(DEV_STAMP)

# VARIANT=openai | reworded: ChatOpenAI against the local OpenAI-compatible server (CI's paths)
run: $(STAMP)
	$(PY) -m memlib $(if $(VARIANT),--variant $(VARIANT))

# Both packages' tests: memlib's (tests/) and the offline model's (offline_model/tests/).
TESTS := tests offline_model/tests

test: $(DEV_STAMP)
	$(PY) -m pytest -n 2 --dist loadgroup $(TESTS)

unit: $(DEV_STAMP)
	$(PY) -m pytest $(TESTS) -m "not notebook"

notebooks: $(DEV_STAMP)
	$(PY) -m pytest tests -m notebook

lab: $(STAMP)
	$(PY) scripts/lab_settings.py
	$(VENV)/bin/jupyter lab notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

RUFF_PATHS := memlib offline_model tests benchmarks notebooks scripts

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check $(RUFF_PATHS)
	$(VENV)/bin/ruff format --check $(RUFF_PATHS)
	$(PY) scripts/notebooks_clean.py --check

format: $(DEV_STAMP)
	$(VENV)/bin/ruff format $(RUFF_PATHS)
	$(VENV)/bin/ruff check --fix $(RUFF_PATHS)
	$(PY) scripts/notebooks_clean.py

# The notebooks are the source of memlib's saved code (cells marked `# @save memlib.<module>`):
# copy them into memlib after editing such a cell. tests/test_notebook_code.py checks it.
sync:
	$(PYTHON) scripts/sync_saved.py
	@if [ -x $(VENV)/bin/ruff ]; then $(VENV)/bin/ruff format --quiet memlib; fi

# Every benchmarks/*.py (each prints its table and writes benchmarks/results/<name>.json), timed,
# then the README's tables from the JSON files: 184 s of CPU (timed at load 13-21 on 2026-12-02,
# docs/benchmarks.md), so about 3-4 minutes on an idle machine. One: make bench BENCH=benchmarks/tokens.py. The large runs are behind LARGE=1 (about an hour): the scripts in
# LARGE_BENCH get --large (recall_latency.py measures 1,000 to 100,000 items into recall_latency_large.json,
# eval.py runs 100 and 500 sessions and the sweep to 2,000 into eval.json; a default run writes
# recall_latency.json and eval_quick.json and leaves those alone), and three long runs are added:
# notebooks.py (every notebook, timed), the offline model's offline_model/benchmarks/
# offline_eval.py (writing offline_model/benchmarks/results/), and neighbour_stats.py (5,483 real
# sentences embedded, synthetic sets to 1,000,000 vectors). On request only:
# make bench BENCH=offline_model/benchmarks/open_eval.py (about 10 minutes);
# make bench BENCH=benchmarks/index_sweep.py BENCH_ARGS="100000 hnswsq4:32:64" (it needs its N and configs);
# make bench BENCH=benchmarks/recall_latency.py BENCH_ARGS=--million (about an hour).
LONG_BENCH := benchmarks/notebooks.py offline_model/benchmarks/offline_eval.py \
	benchmarks/neighbour_stats.py
ON_REQUEST := offline_model/benchmarks/open_eval.py benchmarks/index_sweep.py \
	$(if $(LARGE),,$(LONG_BENCH))
BENCH ?= $(filter-out $(ON_REQUEST),$(wildcard benchmarks/*.py offline_model/benchmarks/*.py))
LARGE_BENCH := benchmarks/recall_latency.py benchmarks/eval.py
bench: $(STAMP)
	@for f in $(BENCH); do \
		args="$(BENCH_ARGS)"; \
		case " $(if $(LARGE),$(LARGE_BENCH)) " in *" $$f "*) args="$$args --large";; esac; \
		echo "== $$f $$args"; start=$$(date +%s); \
		$(PY) $$f $$args || exit 1; \
		echo "== $$f: $$(( $$(date +%s) - start )) s"; \
	done
	@echo "== README tables (scripts/bench_table.py)"
	@$(PY) scripts/bench_table.py

# The book: Sphinx + myst-nb over the executed notebooks. Notebooks with no executed copy in
# build/notebooks/, or one older than the notebook, are run first (as `make run` would).
book: $(DEV_STAMP)
	@stale=$$(for nb in notebooks/[0-9][0-9]_*.ipynb; do \
	  out=build/notebooks/$${nb#notebooks/}; [ -f "$$out" ] && [ "$$out" -nt "$$nb" ] || echo "$$nb"; \
	done); \
	if [ -n "$$stale" ]; then echo "running first:" $$stale; $(PY) -m memlib $$stale || exit 1; fi
	$(PY) scripts/build_book.py

clean:
	rm -rf build .pytest_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

# Newest versions pyproject.toml allows, resolved in a scratch virtualenv, written to the locks.
# Then run `make test` (it reinstalls from the new lock) and commit requirements/ if it passes.
LOCK_VENV := build/lock-venv
FREEZE    = $(LOCK_VENV)/bin/python -m pip freeze --exclude-editable | grep -v '^memlib-notebooks'
upgrade:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LOCK_VENV)/bin/python -m pip install --quiet .
	$(FREEZE) > $(LOCK)
	$(LOCK_VENV)/bin/python -m pip install --quiet '.[dev]'
	$(FREEZE) > $(DEV_LOCK)
	rm -rf $(LOCK_VENV)
	@echo "locks refreshed: run make test, then commit requirements/ if it passes"
