"""A control for the latency a fuzz run measures: a line service that does nothing (each
line ``{"id": N, ...}`` answered ``{"id": N, "ok": true, "result": {}}`` at once), a
process of its own, watched like the service under fuzz. Whatever time it takes to answer is
the machine's (scheduling on shared cores), not gridwire's; a run reports both, so a slow
``status`` can be told apart from a busy machine.

    python -m tests.fuzz.control        # prints its port, serves until its input closes
"""

from __future__ import annotations

import asyncio
import json
import sys


async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while line := await reader.readline():
            ident = json.loads(line).get("id")
            writer.write(json.dumps({"id": ident, "ok": True, "result": {}}).encode() + b"\n")
            await writer.drain()
    except (ConnectionError, ValueError):
        pass
    finally:
        writer.close()


async def main() -> None:
    server = await asyncio.start_server(_answer, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)  # until the test closes it
    server.close()


if __name__ == "__main__":
    asyncio.run(main())
