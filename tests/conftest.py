from __future__ import annotations

import gc

import pytest

from tests.support.net import free_port
from tests.support.schedule import Recorder, longest_modules_first, read_durations
from tests.support.tshark import tshark_path


@pytest.fixture(autouse=True, scope="session")
def _state_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The restore journals of evaluations (gridwire.evaluate.journal) go to a folder of the
    test session, not the user's state directory (subprocesses inherit it)."""
    import os

    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-durations",
        action="store_true",
        help="write each test module's seconds into tests/durations.json (make durations)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("record_durations") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(Recorder(), "gridwire-durations")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest modules first, so that no long one starts last (tests.support.schedule)."""
    longest_modules_first(items, read_durations())


@pytest.fixture
def port() -> int:
    """A free TCP port on 127.0.0.1, picked at run time."""
    return free_port()


@pytest.fixture
def tshark() -> None:
    """tshark is needed to read what the test writes: missing, the test is skipped, or fails
    under CI (see tests.support.tshark.tshark_path)."""
    tshark_path()


@pytest.fixture(autouse=True)
def _root_logging_as_found() -> object:
    """A test that runs a command in process (which sets the root logger's handlers to the
    standard error pytest captures for that test) leaves no handler writing to a stream that
    is closed once the test ends: the root logger's handlers and level are put back."""
    import logging

    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection allocated (every test module, every item) lives for the whole run:
    frozen, no full collection walks it again. The services freeze their start-up so
    (gridwire.process.runtime.settle_heap); without it a full collection of pytest's heap stopped an
    in-process service 140-270 ms, failing the tests that time how long the loop is held."""
    gc.collect()
    gc.freeze()
