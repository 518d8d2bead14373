# tvm-gnn-cost: `make demo` and `make test` set up .venv on first use (TVM 0.19, the pinned
# stack); `make test-modern` sets up .venv-modern (apache-tvm 0.27 from PyPI) and runs the tests
# that apply there (MetaSchedule; that TVM has no Ansor).
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
MODERN_VENV := .venv-modern
MODERN_PY := $(MODERN_VENV)/bin/python
MODERN_STAMP := $(MODERN_VENV)/.installed
MODERN_TESTS := tests/metaschedule tests/core tests/test_layers.py tests/test_curves.py \
	tests/test_progress.py

.PHONY: demo demo-modern test test-modern setup setup-modern bench clean

setup: $(STAMP)

setup-modern: $(MODERN_STAMP)

$(STAMP): requirements.txt setup.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -r requirements.txt
	$(PY) -m pip install -q --no-deps -e .
	touch $(STAMP)

$(MODERN_STAMP): requirements-modern.txt setup.py
	test -x $(MODERN_PY) || $(PYTHON) -m venv $(MODERN_VENV)
	$(MODERN_PY) -m pip install -q -r requirements-modern.txt
	$(MODERN_PY) -m pip install -q --no-deps -e .
	touch $(MODERN_STAMP)

# The default model (online GNN + shipped prior) against stock Ansor (XGBModel as
# TaskScheduler builds it) on the demo workloads: table, plot, verdict in runs/demo.
DEMO_TRIALS ?= 96

demo: $(STAMP)
	$(VENV)/bin/tvm-gnn-cost compare --network demo --models gnn,xgb --trials $(DEMO_TRIALS) \
		--seeds 1 --measures-per-round 8 --out runs/demo

# The same on apache-tvm 0.27: the default model against MetaSchedule's own XGBoost (as
# tune_tasks builds it) on the demo operators, in runs/demo-modern.
DEMO_MS_TRIALS ?= 64

demo-modern: $(MODERN_STAMP)
	$(MODERN_VENV)/bin/tvm-gnn-cost compare --searcher metaschedule --network demo \
		--models gnn,xgb --trials $(DEMO_MS_TRIALS) --seeds 1 --out runs/demo-modern

test: $(STAMP)
	TOPHUB_LOCATION=NONE $(PY) -m pytest -v --durations=15 tests

test-modern: $(MODERN_STAMP)
	$(MODERN_PY) -m pytest -v --durations=10 $(MODERN_TESTS)

bench: $(STAMP)
	TOPHUB_LOCATION=NONE $(PY) benchmarks/bench_predict.py

clean:
	rm -rf $(VENV) $(MODERN_VENV) build *.egg-info
