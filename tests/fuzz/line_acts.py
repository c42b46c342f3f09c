"""Hostile acts against the line service (``gridwire serve``): batches of hostile messages,
one per line (blank lines, CRLF, invalid UTF-8 and broken JSON among them), sent whole or
dripped; lines over 4 MiB; a last message without its newline; lines cut by a close or a
reset; subscribers that never read; clients that leave before their answers; connections
that say nothing; floods of lines sent before any answer is read.

Every non-blank line must be answered with one envelope line, in order (event lines of a
subscribed connection aside); a line over 4 MiB is answered with a request error and the
connection closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

from tests.fuzz.checks import envelope_problem
from tests.fuzz.http_acts import SMALL_BUFFER
from tests.fuzz.messages import LIMIT, Message
from tests.fuzz.swarm import ANSWER_WITHIN, Act, Client
from tests.fuzz.wire import Wire

BIG = (
    b'{"op": "profile", "outstation": "der"}\n',
    b'{"op": "values", "outstation": "der"}\n',
    b'{"op": "der.functions", "outstation": "der"}\n',
    b'{"op": "trace", "outstation": "der"}\n',
)


def _answered(data: bytes) -> bool:
    """Whether the service answers this line (it skips blank ones, as ``bytes.strip`` has
    blank)."""
    return bool(data.strip())


def _is_event(line: bytes) -> bool:
    try:
        decoded = json.loads(line)
    except ValueError:
        return False
    return isinstance(decoded, dict) and "event" in decoded and "ok" not in decoded


async def read_answers(
    client: Client, wire: Wire, sent: list[Message], *, closing: bool = False
) -> bool:
    """One envelope line for each of ``sent``, in order (event lines skipped); whether all
    came. ``closing``: the service then closes the connection (a last line over 4 MiB)."""
    tally = client.run.tally
    for n, message in enumerate(sent):
        tally.messages += 1
        try:
            while True:
                line = await asyncio.wait_for(wire.reader.readline(), ANSWER_WITHIN)
                if not _is_event(line):
                    break
                tally.answers["event"] += 1
        except TimeoutError:
            client.problem(f"line {n + 1} of {len(sent)}: no answer within {ANSWER_WITHIN} s",
                           message.data)  # fmt: skip
            return False
        except (ConnectionError, ValueError) as exc:  # ValueError: a line over the limit
            client.problem(f"line {n + 1} of {len(sent)}: {exc!r}", message.data)
            return False
        if not line.endswith(b"\n"):
            client.problem(
                f"line {n + 1} of {len(sent)}: the connection ended"
                + (f" inside an answer {line[:200]!r}" if line else " before its answer"),
                message.data,
            )
            return False
        tally.answered += 1
        problem = envelope_problem(line, message.ident)
        tally.answers["ok" if b'"ok":true' in line[:400] else "error"] += 1
        if problem is not None:
            client.problem(f"line {n + 1} of {len(sent)}: {problem}: {line[:300]!r}", message.data)
    if closing and not await wire.closed_within(ANSWER_WITHIN):
        client.problem("a line over 4 MiB: the connection stayed open")
    return True


def _separators(client: Client, count: int) -> list[bytes]:
    return [client.rng.choice([b"\n", b"\n", b"\r\n", b"\n\n", b" \t\n"]) for _ in range(count)]


async def batch(client: Client) -> None:
    """1-30 hostile lines, sent at once or dripped in pieces, each answered in order; the
    connection then closed, reset, or half-closed after a last line without its newline."""
    rng = client.rng
    messages = []
    for _ in range(rng.randint(1, 30)):
        message = client.messages.message()
        if len(message.data) > 1 << 20:
            continue
        if b"\n" in message.data:
            message = Message(message.data.replace(b"\n", b" "), message.label)
        messages.append(message)
    if not messages:
        return
    data = b"".join(
        m.data + sep for m, sep in zip(messages, _separators(client, len(messages)), strict=True)
    )
    if rng.random() < 0.2:
        data = b"\n \r\n\t\n" + data  # blank lines are skipped
    expected = [m for m in messages if _answered(m.data)]
    last_unended = rng.random() < 0.15
    if last_unended:
        data = data.rstrip(b"\r\n \t")
    async with Wire.open(client.run.ports["line"]) as wire:

        async def send() -> None:
            if rng.random() < 0.3:
                pieces, pause = rng.randint(2, 20), rng.choice([0, 0.01, 0.1])
                await wire.send_slowly(data, pieces, pause)
            else:
                await wire.send(data)
            if last_unended:
                wire.half_close()  # the last message may lack its newline: it is answered

        # Sent while the answers are read: a client that reads nothing until it has written
        # everything would stall both ways once the buffers fill.
        sending = asyncio.ensure_future(send())
        await read_answers(client, wire, expected)
        await sending
        if last_unended and not await wire.closed_within(ANSWER_WITHIN):
            client.problem(
                f"after a half-close the connection stayed open; after the answers came "
                f"{wire.dropped[:300]!r}",
                data[-300:],
            )
        how = rng.random()
        if how < 0.3:
            wire.reset()


async def oversize_line(client: Client) -> None:
    """A line over 4 MiB after a few good ones: those answered, then an error, then the
    connection closed."""
    rng = client.rng
    good = [
        Message(b'{"op": "status", "id": %d}' % n, "status", n) for n in range(rng.randint(0, 3))
    ]
    async with client.run.big:
        huge = b'{"op": "status", "params": {"x": "' + b"a" * (LIMIT + rng.randint(1024, 65536))
        if rng.random() < 0.5:
            huge += b'"}}\n'
        sent = b"".join(m.data + b"\n" for m in good) + huge
        refusal = Message(huge[:100], "oversize", None)
        async with Wire.open(client.run.ports["line"]) as wire:
            sending = asyncio.ensure_future(wire.send(sent))
            await read_answers(client, wire, [*good, refusal], closing=True)
            sending.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sending


async def near_limit_line(client: Client) -> None:
    """A line just under 4 MiB: answered, and the connection carries on."""
    rng = client.rng
    async with client.run.big:
        message = client.messages.padded(LIMIT - rng.randint(2048, 65536))
        async with Wire.open(client.run.ports["line"]) as wire:
            await wire.send(message + b'\n{"op": "status", "id": "after"}\n')
            await read_answers(client, wire, [Message(message[:100], "near-limit", None),
                                              Message(b"status", "status", "after")])  # fmt: skip


async def cut_line(client: Client) -> None:
    """Part of a line, then a reset, a close of both ways, or silence until the run ends
    (nothing is under way, so it stays open until the 5-minute line idleness)."""
    rng = client.rng
    message = client.messages.message().data[:100_000]
    async with Wire.open(client.run.ports["line"]) as wire:
        await wire.send(message[: rng.randrange(1, max(2, len(message)))])
        how = rng.choice(["rst", "close", "hold"])
        if how == "rst":
            wire.reset()
        elif how == "hold":
            await client.linger()
            wire.reset()


async def subscriber_never_reads(client: Client) -> None:
    """``subscribe`` with a 4 KiB receive buffer, then nothing read; held, then left."""
    async with Wire.open(client.run.ports["line"], rcvbuf=SMALL_BUFFER) as wire:
        await wire.send(b'{"op": "subscribe", "id": 1}\n')
        if client.rng.random() < 0.5:
            await wire.send(b"".join(client.rng.choices(BIG, k=4)))
        await client.linger(at_most=30)
        wire.reset()


async def subscriber(client: Client) -> None:
    """``subscribe``, then hostile messages: answers in order among the events."""
    messages = [Message(b'{"op": "subscribe", "id": "s"}', "subscribe", "s")]
    messages += [
        m
        for m in (client.messages.message() for _ in range(10))
        if len(m.data) < 1 << 20 and b"\n" not in m.data
    ]
    async with Wire.open(client.run.ports["line"]) as wire:
        sending = asyncio.ensure_future(wire.send(b"".join(m.data + b"\n" for m in messages)))
        await read_answers(client, wire, [m for m in messages if _answered(m.data)])
        await sending


async def cut_mid_answer(client: Client) -> None:
    """Messages with large answers, then a reset before (or while) reading them."""
    rng = client.rng
    async with Wire.open(client.run.ports["line"]) as wire:
        await wire.send(b"".join(rng.choices(BIG, k=rng.randint(1, 6))))
        await asyncio.sleep(rng.choice([0, 0.001, 0.05]))
        if rng.random() < 0.5:
            with contextlib.suppress(TimeoutError, ConnectionError):
                await asyncio.wait_for(wire.reader.read(rng.randint(1, 100_000)), 1)
        wire.reset() if rng.random() < 0.7 else wire.writer.close()


async def silent(client: Client) -> None:
    """A connection that says nothing, held, then left."""
    async with Wire.open(client.run.ports["line"]) as wire:
        await client.linger()
        wire.reset() if client.rng.random() < 0.5 else wire.half_close()


async def flood(client: Client) -> None:
    """Hundreds of lines sent before any answer is read, then every answer read."""
    rng = client.rng
    count = rng.choice([100, 500, 2000])
    messages = [Message(b'{"op": "status", "id": %d}' % n, "status", n) for n in range(count)]
    if rng.random() < 0.5:
        messages = [Message(b'{"op": "values", "outstation": "der", "id": %d}' % n, "values", n)
                    for n in range(count // 10)]  # fmt: skip
    async with Wire.open(client.run.ports["line"]) as wire:
        sending = asyncio.ensure_future(wire.send(b"".join(m.data + b"\n" for m in messages)))
        await read_answers(client, wire, messages)
        await sending


async def garbage(client: Client) -> None:
    """Random octets, newlines among them: each non-blank line answered with an error."""
    rng = client.rng
    data = bytes(rng.randrange(256) for _ in range(rng.choice([10, 500, 5000])))
    lines = data.split(b"\n")
    expected = [Message(line, "garbage") for line in lines[:-1] if _answered(line)]
    async with Wire.open(client.run.ports["line"]) as wire:
        await wire.send(b"\n".join(lines[:-1]) + b"\n")
        await read_answers(client, wire, expected)


def line_acts() -> list[tuple[float, Act, bool]]:
    return [
        (30, batch, False),
        (1, oversize_line, False),
        (1, near_limit_line, False),
        (5, cut_line, True),
        (2, subscriber_never_reads, True),
        (3, subscriber, False),
        (5, cut_mid_answer, False),
        (2, silent, True),
        (3, flood, False),
        (5, garbage, False),
    ]
