"""Run one act of a fuzz run again, alone, against a service already running: the act a
problem names (``client N act K``) draws what it sends from the seed, the client and its
number only (tests/fuzz/swarm.py), so it sends the same octets again.

    python -m tests.fuzz.replay serve SEED CLIENT ACT --line PORT
    python -m tests.fuzz.replay console SEED CLIENT ACT --http PORT
    python -m tests.fuzz.replay sep2 SEED CLIENT ACT --http PORT

It prints the problems the act found (none: the act passed this time) and its figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random

from tests.fuzz.console_acts import console, console_acts
from tests.fuzz.line_acts import line_acts
from tests.fuzz.messages import Messages
from tests.fuzz.sep2_acts import sep2, sep2_acts
from tests.fuzz.swarm import Budget, Client, Swarm


async def replay(target: str, seed: int, number: int, step: int, ports: dict[str, int]) -> None:
    if target == "serve":
        acts, about = line_acts(), None
    elif target == "console":
        acts, about = console_acts(), console(ports["http"])
    else:
        acts, about = sep2_acts(), sep2(ports["http"])
    swarm = Swarm(target, Budget(seconds=60, seed=seed, clients=1), ports, acts, about)
    swarm.deadline = asyncio.get_running_loop().time() + 60
    name = f"{seed}:{target}:{number}"
    plan = random.Random(name)
    weights = [weight for weight, _, _ in acts]
    for _ in range(step):
        _, act, _ = plan.choices(acts, weights)[0]
    rng = random.Random(f"{name}:{step}")
    client = Client(swarm, number, rng, Messages(rng), step, act.__name__)
    print(f"client {number} act {step}: {act.__name__}")
    await act(client)
    print("\n".join(swarm.tally.problems) or "no problem this time")
    print(json.dumps(swarm.tally.summary()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("target", choices=["console", "serve", "sep2"])
    parser.add_argument("seed", type=int)
    parser.add_argument("client", type=int)
    parser.add_argument("act", type=int)
    parser.add_argument("--http", type=int)
    parser.add_argument("--line", type=int)
    args = parser.parse_args()
    ports = {k: v for k, v in (("http", args.http), ("line", args.line)) if v is not None}
    asyncio.run(replay(args.target, args.seed, args.client, args.act, ports))


if __name__ == "__main__":
    main()
