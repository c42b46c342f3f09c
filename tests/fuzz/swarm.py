"""The hostile crowd of a fuzz run: ``clients`` tasks at once, each drawing acts (a hostile
thing a client does over one or a few connections) at random from a seeded generator of its
own, until the run's time is up; and the tally of what the service answered.

The seed, the time and the crowd come from the environment, so ``make fuzz`` runs longer
than ``make test`` and a failure can be run again:

- ``GRIDWIRE_FUZZ_SECONDS``: seconds of hostile traffic per service (4 by default);
- ``GRIDWIRE_FUZZ_SEED``: the seed (a fresh one, printed, by default);
- ``GRIDWIRE_FUZZ_CLIENTS``: hostile clients at once (50).

Client ``n`` of a run picks its acts from ``random.Random(f"{seed}:{target}:{n}")``, and its
act number ``k`` draws what it sends from ``random.Random(f"{seed}:{target}:{n}:{k}")``: the
same every time; only the interleaving with the others depends on timing (and whether an act
that holds a connection is skipped because enough are held). A problem is reported with the
client, the act's number and label, and the octets sent (shortened).
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.fuzz.messages import Messages

ANSWER_WITHIN = 15.0
"""Seconds a whole request may wait for its answer before it counts as missing (the slowest
operation the runs can start, a read the outstation never answers, times out in 5 s)."""
HELD_AT_MOST = 40
"""Connections the crowd keeps open doing nothing useful at once (idle, stalled, not
reading): well under the service's cap of 256, so the crowd is never refused as busy."""
BIG_AT_ONCE = 4
"""Messages of about 4 MiB in flight at once (each costs the fuzzer as much as the service)."""


@dataclass(frozen=True)
class Budget:
    seconds: float
    seed: int
    clients: int

    @classmethod
    def from_environment(cls) -> Budget:
        seed = os.environ.get("GRIDWIRE_FUZZ_SEED")
        return cls(
            seconds=float(os.environ.get("GRIDWIRE_FUZZ_SECONDS", "4")),
            seed=int(seed) if seed else random.SystemRandom().randrange(1 << 32),
            clients=int(os.environ.get("GRIDWIRE_FUZZ_CLIENTS", "50")),
        )

    def timeout(self) -> float:
        """pytest-timeout for one test: the traffic, the ends of the acts, starting and
        stopping three processes on a loaded machine."""
        return self.seconds + ANSWER_WITHIN + 150


@dataclass
class Tally:
    """What a run sent and what came back."""

    target: str
    seed: int
    acts: Counter[str] = field(default_factory=Counter)
    answers: Counter[str] = field(default_factory=Counter)  # HTTP status or line kind
    known: Counter[str] = field(default_factory=Counter)  # tests/fuzz/checks.py KNOWN
    messages: int = 0  # whole requests or lines sent that must be answered
    answered: int = 0
    problems: list[str] = field(default_factory=list)
    spans: list[tuple[float, float, str]] = field(default_factory=list)  # act start, end, label

    def during(self, start: float, end: float) -> Counter[str]:
        """The acts under way at some moment between ``start`` and ``end``."""
        return Counter(label for a, b, label in self.spans if a < end and b > start)

    def problem(self, where: str, text: str, sent: bytes = b"") -> None:
        shown = sent[:1500] + (b"..." if len(sent) > 1500 else b"")
        self.problems.append(f"{where}: {text}" + (f"; sent {shown!r}" if sent else ""))

    def summary(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "seed": self.seed,
            "acts": sum(self.acts.values()),
            "messages": self.messages,
            "answered": self.answered,
            "by_act": dict(sorted(self.acts.items())),
            "answers": dict(sorted(self.answers.items())),
            "known": dict(self.known),
            "problems": len(self.problems),
        }


@dataclass
class Client:
    """One hostile client: its generators, and where it is (for the reports)."""

    run: Swarm
    number: int
    rng: random.Random
    messages: Messages
    step: int = 0
    label: str = ""

    @property
    def where(self) -> str:
        return f"client {self.number} act {self.step} ({self.label})"

    def problem(self, text: str, sent: bytes = b"") -> None:
        self.run.tally.problem(self.where, text, sent)

    def remaining(self) -> float:
        return max(0.0, self.run.deadline - time.monotonic())

    async def linger(self, at_most: float = 10.0) -> None:
        """Stay a while (holding whatever this client holds), at most until the run ends."""
        await asyncio.sleep(self.rng.uniform(0, min(at_most, self.remaining())))


Act = Callable[[Client], Awaitable[None]]


@dataclass
class Swarm:
    target: str
    budget: Budget
    ports: dict[str, int]
    acts: Sequence[tuple[float, Act, bool]]  # weight, act, whether it holds a connection idle
    about: Any = None  # what the acts need to know of the service
    tally: Tally = field(init=False)
    deadline: float = 0.0
    held: int = 0
    big: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(BIG_AT_ONCE))

    def __post_init__(self) -> None:
        self.tally = Tally(self.target, self.budget.seed)

    async def run(self) -> Tally:
        self.deadline = time.monotonic() + self.budget.seconds
        await asyncio.gather(*(self._client(n) for n in range(self.budget.clients)))
        return self.tally

    async def _client(self, number: int) -> None:
        seed = f"{self.budget.seed}:{self.target}:{number}"
        plan = random.Random(seed)
        client = Client(self, number, plan, Messages(plan))
        weights = [weight for weight, _, _ in self.acts]
        while time.monotonic() < self.deadline:
            _, act, holds = plan.choices(self.acts, weights)[0]
            client.step += 1
            # Each act draws from a generator of its own: what it sends depends on the seed,
            # the client and the act's number only, whatever was skipped before it.
            client.rng = client.messages.rng = random.Random(f"{seed}:{client.step}")
            client.label = act.__name__
            if holds and self.held >= HELD_AT_MOST:
                self.tally.acts["(skipped: enough held)"] += 1
                continue
            self.tally.acts[client.label] += 1
            self.held += holds
            began = time.monotonic()
            try:
                async with asyncio.timeout(ANSWER_WITHIN + self.budget.seconds + 5):
                    await act(client)
            except TimeoutError:
                client.problem("the act did not end (an answer never came?)")
            except (ConnectionError, OSError) as exc:
                client.problem(f"the client failed: {exc!r}")
            finally:
                self.held -= holds
                self.tally.spans.append((began, time.monotonic(), client.label))
