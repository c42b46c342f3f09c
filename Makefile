# make test   - set up .venv (if missing) and run every check: ruff, mypy --strict, pytest.
#               pytest runs in two phases (DESIGN D126-D127): first every test not marked
#               `serial`, spread over JOBS processes (pytest-xdist; they mostly wait on sockets
#               and timers, so more processes than cores pay), the longest modules first
#               (tests/durations.json); then the `serial` tests, which bound how soon something
#               happens (loop held, latency), one at a time on a machine the suite left quiet.
#               Both phases run even when the first fails; make test fails if either did.
#               Each prints its ten slowest tests.
# make durations - run the parallel phase and write each module's seconds into
#               tests/durations.json (the order above; a stale file only costs a little time)
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

.PHONY: test lint types unit durations bench fuzz demo setup clean

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

# six processes: DESIGN D126, D205
JOBS     ?= 6
PARALLEL := -n $(JOBS) --dist load --maxschedchunk 1 -m "not serial" --durations=10
SERIAL   := -n 0 -m serial --durations=10

unit: $(STAMP)
	status=0; \
	$(BIN)/pytest -q $(PARALLEL) || status=$$?; \
	$(BIN)/pytest -q $(SERIAL) || status=$$?; \
	exit $$status

test: lint types unit

durations: $(STAMP)
	$(BIN)/pytest -q $(PARALLEL) --record-durations

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
