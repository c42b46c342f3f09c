"""An option the subcommand does not know, answered by that subcommand's usage.

argparse leaves an unknown option to the top-level parser, which prints ``gridwire``'s usage
and not the usage of the subcommand the option was given to. Here the subcommand's parser
answers, naming the option and the nearest one it has ("did you mean --allow-deviations?").
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Sequence


def invoked_parser(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.ArgumentParser:
    """The innermost subcommand parser ``argv`` names (``parser`` itself when none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for token in argv:
                if token in action.choices:
                    sub: argparse.ArgumentParser = action.choices[token]
                    rest = list(argv)[list(argv).index(token) + 1 :]
                    return invoked_parser(sub, rest)
    return parser


def unknown_words(parser: argparse.ArgumentParser, extras: Sequence[str]) -> str:
    """The error for arguments ``parser`` does not take, with a near match for each option."""
    known = [o for o in parser._option_string_actions if o.startswith("--")]
    parts = []
    for extra in extras:
        word = extra.split("=", 1)[0]
        near = difflib.get_close_matches(word, known, n=1) if word.startswith("-") else []
        hint = f" (did you mean {near[0]}?)" if near else ""
        kind = "option" if word.startswith("-") else "argument"
        parts.append(f"unknown {kind} {extra}{hint}")
    return "; ".join(parts)
