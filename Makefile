# make test   - set up .venv (if missing) and run every check: ruff, mypy --strict, pytest
# make bench  - print benchmark figures (never part of the tests)
# make fuzz   - hostile traffic against a running console, line service and 2030.5 API for
#               GRIDWIRE_FUZZ_SECONDS each (60 here; make test runs the same for 4 s each);
#               GRIDWIRE_FUZZ_SEED=N runs a seed again, GRIDWIRE_FUZZ_REPORT=FILE keeps figures
# make demo   - set up .venv and run the demo: a simulated IEEE 1815.2 DER, a master connected
#               to it with the profile, and the console on 127.0.0.1:8815 (Ctrl-C ends it)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: test lint types unit bench fuzz demo setup clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

types: $(STAMP)
	$(BIN)/mypy --strict src

unit: $(STAMP)
	$(BIN)/pytest -q

test: lint types unit

bench: $(STAMP)
	$(BIN)/python -m bench

GRIDWIRE_FUZZ_SECONDS ?= 60
fuzz: $(STAMP)
	GRIDWIRE_FUZZ_SECONDS=$(GRIDWIRE_FUZZ_SECONDS) $(BIN)/pytest -q -s -m fuzz tests/fuzz

# The demo commands a simulated device only, so it runs with --allow-control.
demo: $(STAMP)
	$(BIN)/gridwire console --demo --allow-control

clean:
	rm -rf $(VENV) build dist src/*.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis
