"""The command line's rough edges, as a new user meets them (issue 18): each case runs
``gridwire`` as a subprocess and reads what it prints."""

from __future__ import annotations

import socket

from tests.service.test_cli import one_line_error, run_cli


def test_mistyped_option_gets_the_subcommands_usage_and_a_suggestion() -> None:
    result = run_cli("evaluate", "--allow-deviaton", "--outstation", "127.0.0.1:1")
    assert result.returncode == 2
    assert result.stderr.startswith("usage: gridwire evaluate "), result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last == (
        "gridwire evaluate: error: unknown option --allow-deviaton "
        "(did you mean --allow-deviations?)"
    ), last
    far = run_cli("serve", "--zzzzzz")
    assert far.stderr.startswith("usage: gridwire serve "), far.stderr
    assert far.stderr.strip().endswith("gridwire serve: error: unknown option --zzzzzz")


def test_a_port_in_use_reads_the_same_in_every_command() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        where = f"127.0.0.1:{taken.getsockname()[1]}"
        for command, flags in (
            ("sim", ["--der", "--bind", where]),
            ("console", ["--no-token", "--bind", where]),
            ("serve", ["--bind", where]),
        ):
            line = one_line_error(run_cli(command, *flags), command)
            assert line == f"gridwire {command}: {where} is already in use", line
