"""The ``gridwire`` command.

Each subcommand lives in a module of this package that defines ``register(subparsers)``; the
module adds its parser and sets ``func`` (taking the parsed namespace, returning an exit code).
A subcommand that is not built yet has no module, so it is absent rather than a stub.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from gridwire import __version__
from gridwire.cli._usage import invoked_parser, unknown_words
from gridwire.errors import GridwireError


def _commands() -> list[str]:
    """The subcommands: each module of this package not named with a leading underscore
    whose ``register`` adds the parser of the command of its own name."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``gridwire`` parser; with ``only`` (a command's name), that command's alone, so
    that a command imports what it needs and not every other command's modules (``gridwire
    sim`` starts in a third of the time)."""
    parser = argparse.ArgumentParser(
        prog="gridwire",
        description="DNP3 (IEEE 1815) master, simulated IEEE 1815.2 DER, IEEE 2030.5 client.",
    )
    parser.add_argument("--version", action="version", version=f"gridwire {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in [only] if only is not None else _commands():
        module = importlib.import_module(f"{__name__}.{name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(words[0] if words and words[0] in _commands() else None)
    args, extras = parser.parse_known_args(words)
    if extras:
        invoked = invoked_parser(parser, words)
        invoked.error(unknown_words(invoked, extras))
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        code: int = func(args)
    except GridwireError as exc:
        print(f"gridwire {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of our output went away (`gridwire poll ... | head`): say nothing more,
        # and point stdout at nowhere so the interpreter's last flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # as a shell reports a command ended by SIGPIPE
    return code
