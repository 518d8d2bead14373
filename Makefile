# tvm-gnn-cost: `make demo` and `make test` set up .venv on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test setup bench clean

setup: $(STAMP)

$(STAMP): requirements.txt setup.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -r requirements.txt
	$(PY) -m pip install -q --no-deps -e .
	touch $(STAMP)

demo: $(STAMP)
	TOPHUB_LOCATION=NONE $(PY) examples/demo.py

test: $(STAMP)
	TOPHUB_LOCATION=NONE $(PY) -m pytest -v tests

bench: $(STAMP)
	TOPHUB_LOCATION=NONE $(PY) benchmarks/bench_predict.py

clean:
	rm -rf $(VENV) build *.egg-info
