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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gridwire",
        description="DNP3 (IEEE 1815) master, simulated IEEE 1815.2 DER, IEEE 2030.5 client.",
    )
    parser.add_argument("--version", action="version", version=f"gridwire {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    words = sys.argv[1:] if argv is None else list(argv)
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
