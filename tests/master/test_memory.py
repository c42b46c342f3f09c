"""Memory of an outstation at rest (DESIGN D146): at most 40 KiB of Python allocations per
connected outstation. The peer is a listening socket that never accepts (the kernel
completes each connection from its backlog), so every byte traced is the master's."""

from __future__ import annotations

import asyncio
import gc
import socket
import tracemalloc

from gridwire.master import Master, OutstationSettings

SESSIONS = 200
AT_MOST = 40 * 1024


async def test_an_idle_outstation_keeps_at_most_40_kib() -> None:
    with socket.socket() as peer:
        peer.bind(("127.0.0.1", 0))
        peer.listen(SESSIONS + 16)
        port = peer.getsockname()[1]
        master = Master()

        def settings(name: str) -> OutstationSettings:
            return OutstationSettings(name=name, host="127.0.0.1", port=port, manual=True)

        try:
            await master.add(settings("first"))  # what the first of all allocates once
            gc.collect()
            tracemalloc.start()
            try:
                before = tracemalloc.get_traced_memory()[0]
                for n in range(SESSIONS):
                    await master.add(settings(f"o{n}"))
                await asyncio.sleep(0.05)
                gc.collect()
                per = (tracemalloc.get_traced_memory()[0] - before) / SESSIONS
            finally:
                tracemalloc.stop()
            connected = [o for o in master.status().outstations if o.connected]
            assert len(connected) == SESSIONS + 1
            assert per <= AT_MOST, f"{per / 1024:.1f} KiB per idle outstation"
        finally:
            await master.close()
