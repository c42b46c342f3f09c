"""README's code blocks run as pasted (issue 18).

Every fenced ``python`` block compiles, and every one not marked skip runs as a script of its
own. The ``sh`` blocks run in README's order in a folder of their own (``.venv`` linked into
it, so ``source .venv/bin/activate`` works there), with README's variables (``PORT``,
``LINE_PORT``, ``SIM_PORT``, ``TOKEN``) pointed at free ports and a fresh token. A block marked
``<!-- readme-test: background ... -->`` starts programs that run until Ctrl-C: each of its
lines is started as README says and stopped by pid when the test ends. A block marked
``<!-- readme-test: skip (why) -->`` is only read.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.net import free_port
from tests.support.processes import running
from tests.support.waiting import eventually

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MARK = re.compile(r"<!-- readme-test: (skip|background)\b(.*?)-->")
FENCE = re.compile(r"^```(\w*)\s*$")
SHELLS = {"sh", "bash", "console"}
BIND = re.compile(r"--bind 127\.0\.0\.1:\$(\w+)")
VARIABLES = ("PORT", "LINE_PORT", "SIM_PORT")


@dataclass(frozen=True)
class Block:
    language: str
    text: str
    line: int
    mark: str  # "", "skip" or "background"
    why: str


def blocks(text: str) -> Iterator[Block]:
    """README's fenced blocks, each with the readme-test mark on the line before it."""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        mark = MARK.search(lines[index - 1]) if index else None
        end = index + 1
        while not lines[end].startswith("```"):
            end += 1
        yield Block(
            language=opening.group(1),
            text="\n".join(lines[index + 1 : end]) + "\n",
            line=index + 1,
            mark=mark.group(1) if mark else "",
            why=mark.group(2).strip() if mark else "",
        )
        index = end + 1


README_BLOCKS = list(blocks(README.read_text(encoding="utf-8")))
PYTHON = [block for block in README_BLOCKS if block.language == "python"]
SHELL = [block for block in README_BLOCKS if block.language in SHELLS]


def test_the_marks_are_few_and_say_why() -> None:
    marked = [block for block in README_BLOCKS if block.mark]
    assert all(block.why.startswith("(") and block.why.endswith(")") for block in marked)
    skipped = [block for block in marked if block.mark == "skip"]
    # Nine: each needs what a test run has not (a head-end, a serial device, a DER, a NATS
    # cluster beyond loopback) or runs until Ctrl-C; a tenth is a question to ask first.
    assert len(skipped) <= 9, [block.line for block in skipped]
    assert len(PYTHON) >= 5 and len(SHELL) >= 10


@pytest.mark.parametrize("block", PYTHON, ids=lambda block: f"line{block.line}")
def test_python_block_compiles(block: Block) -> None:
    compile(block.text, f"README.md:{block.line}", "exec")


@pytest.mark.parametrize(
    "block", [b for b in PYTHON if b.mark != "skip"], ids=lambda block: f"line{block.line}"
)
def test_python_block_runs(block: Block, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", block.text],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, f"README.md:{block.line}\n{done.stderr}"
    assert "Traceback" not in done.stderr
    assert done.stdout.strip(), f"README.md:{block.line} printed nothing"


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update({name: str(free_port()) for name in VARIABLES})
    # A token that begins with "-" (as a URL-safe one may) must work as README writes it.
    env["TOKEN"] = "-" + secrets.token_urlsafe(16)
    env["PATH"] = f"{ROOT / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def _start(block: Block, folder: Path, env: dict[str, str], stack: ExitStack) -> None:
    """Each command of a background block, started as README says; each waited for until it
    listens on the port its --bind names."""
    for number, line in enumerate(block.text.splitlines()):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        path = folder / f"background-{block.line}-{number}.log"
        log = stack.enter_context(path.open("w"))
        proc = stack.enter_context(
            running(["bash", "-c", f"exec {line}"], cwd=folder, env=env, stdout=log, stderr=log)
        )
        bind = BIND.search(line)
        assert bind is not None, f"README.md:{block.line}: no --bind 127.0.0.1:$PORT in {line}"
        port = int(env[bind.group(1)])
        up = _started(proc, port)
        said = path.read_text(errors="replace")[-2000:]
        assert proc.poll() is None, f"README.md:{block.line}: {line} ended: {said}"
        assert up, f"README.md:{block.line}: {line} not listening after 60 s: {said}"


def _started(proc: subprocess.Popen[str], port: int) -> bool:
    """Whether ``proc`` listens on ``port`` within 60 s (False at once when it ended)."""
    return eventually(lambda: proc.poll() is not None or _listening(port), 60, every=0.1)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _run(block: Block, folder: Path, env: dict[str, str]) -> None:
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block.text],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    where = f"README.md:{block.line}\n{block.text}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert done.returncode == 0, where
    assert not re.search(r'"ok":\s*false', done.stdout), where
    if "/api" in block.text or '"op"' in block.text:  # an operation answered ok
        assert re.search(r'"ok":\s*true', done.stdout), where


@pytest.mark.timeout(360)  # every block in turn: 64 s in a clean clone's run, 2 min and more loaded
def test_shell_blocks_run_in_order(tmp_path: Path) -> None:
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    env = _environment()
    ran: list[int] = []
    with ExitStack() as stack:
        for block in SHELL:
            if block.mark == "background":
                _start(block, tmp_path, env, stack)
            elif block.mark != "skip":
                _run(block, tmp_path, env)
                ran.append(block.line)
    assert ran, "no shell block ran"
    # What the blocks were said to write is there.
    assert "<html" in (tmp_path / "der.html").read_text(encoding="utf-8").lower()
    assert (tmp_path / "der.xml").stat().st_size > 0
    assert (tmp_path / "der-profile.html").stat().st_size > 0
    assert '"verdict"' in (tmp_path / "eval.json").read_text(encoding="utf-8")
