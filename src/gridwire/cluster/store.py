"""The cluster's names on NATS: the connection, the subjects and the JetStream key-value
buckets (D152), and the keys outstations are kept under.

Buckets (``<prefix>`` is ``gridwire`` unless set):

- ``<prefix>-outstations``: an outstation's settings (JSON), under its key; ``add`` writes,
  ``remove`` deletes. No TTL: it lasts until removed.
- ``<prefix>-workers``: one entry per live worker, TTL the lease time, renewed by the worker
  every fifth of it. Its first revision is the worker's *epoch*.
- ``<prefix>-leases``: which worker holds an outstation (``{"worker", "epoch"}``), written by
  compare-and-set; valid only while the worker's entry lives with that epoch. Its revision
  is the lease's fencing token.
- ``<prefix>-journals``: evaluations' restore journals, by outstation key.

Subjects: ``<prefix>.op.<worker>`` (operations, request/reply), ``<prefix>.added.<worker>``
(how taking an outstation ended), ``<prefix>.status`` (every worker answers with its summary
and count), ``<prefix>.status.<worker>`` (a page of that worker's entries, D220),
``<prefix>.events.<worker>`` (a worker's events), ``<prefix>.want`` (a front has listeners),
``<prefix>.pending.<worker>`` (whether an operation routed there is still being carried out,
D241).
"""

from __future__ import annotations

import asyncio
import base64
import re
from dataclasses import dataclass
from typing import Any

import nats
from nats.aio.client import Client
from nats.js.api import KeyValueConfig
from nats.js.errors import BucketNotFoundError, ServiceUnavailableError
from nats.js.kv import KeyValue

from gridwire.cluster.asking import ATTEMPT
from gridwire.cluster.settings import ClusterSettings
from gridwire.errors import ConfigError

JS_TIMEOUT = 10.0
"""Seconds a JetStream request (a KV read or write) may take: a worker busy polling
thousands of outstations reads the answer late, and nats-py's 5 s gave up too soon."""
START_WAIT = 10.0
"""Seconds a worker or front tries to reach NATS at start before it gives up."""
BUCKETS_WAIT = 30.0
"""Seconds a worker or front tries to open or make its buckets at start: a NATS cluster
started with it places copies only once its JetStream leader is elected (4-5 s measured)."""
_PLAIN = re.compile(r"^[A-Za-z0-9_-]+$")


def outstation_key(name: str) -> str:
    """The key of outstation ``name`` in every bucket: ``o.<name>`` when the name is made of
    letters, digits, ``-`` and ``_``, else ``x.<base32 of its UTF-8>`` (keys allow little)."""
    if _PLAIN.match(name):
        return f"o.{name}"
    coded = base64.b32encode(name.encode()).decode().rstrip("=").lower()
    return f"x.{coded}"


def name_of_key(key: str) -> str:
    """The outstation name a key was made from (:func:`outstation_key` reversed)."""
    kind, _, rest = key.partition(".")
    if kind == "o":
        return rest
    padded = rest.upper() + "=" * (-len(rest) % 8)
    return base64.b32decode(padded).decode()


@dataclass(frozen=True, slots=True)
class Subjects:
    prefix: str

    def op(self, worker: str) -> str:
        return f"{self.prefix}.op.{worker}"

    def added(self, worker: str) -> str:
        return f"{self.prefix}.added.{worker}"

    def pending(self, worker: str) -> str:
        return f"{self.prefix}.pending.{worker}"

    @property
    def status(self) -> str:
        return f"{self.prefix}.status"

    def status_of(self, worker: str) -> str:
        return f"{self.prefix}.status.{worker}"

    def events(self, worker: str) -> str:
        return f"{self.prefix}.events.{worker}"

    @property
    def all_events(self) -> str:
        return f"{self.prefix}.events.*"

    @property
    def want(self) -> str:
        return f"{self.prefix}.want"


@dataclass(slots=True)
class Buckets:
    outstations: KeyValue
    workers: KeyValue
    leases: KeyValue
    journals: KeyValue
    lease: float
    """The workers bucket's TTL, in seconds: how long a worker's lease lasts unrenewed."""


async def connect(
    settings: ClusterSettings, name: str, start_wait: float = START_WAIT, **callbacks: Any
) -> Client:
    """A connection to the cluster that keeps reconnecting once made; ConfigError naming
    the last error when none can be made within ``start_wait`` seconds at start (nats-py
    itself would try forever, a wrong password included)."""
    seen: list[Exception] = []
    given_cb = callbacks.pop("error_cb", None)

    async def error_cb(exc: Exception) -> None:
        seen.append(exc)
        if given_cb is not None:
            await given_cb(exc)

    options: dict[str, Any] = {
        "name": name,
        "connect_timeout": 5,
        "max_reconnect_attempts": -1,
        "reconnect_time_wait": 0.5,
        "allow_reconnect": True,
        **settings.connect_options(),
        **callbacks,
        "error_cb": error_cb,
    }
    try:
        return await asyncio.wait_for(nats.connect(**options), start_wait)
    except Exception as exc:
        cause = seen[-1] if seen else exc
        raise ConfigError(
            f"--cluster {','.join(settings.servers)}: cannot connect to NATS: "
            f"{cause or type(cause).__name__}"
        ) from None


async def open_buckets(nc: Client, settings: ClusterSettings) -> Buckets:
    """The cluster's buckets, created when missing (the first process creates them with its
    ``lease``; the bucket's TTL is the cluster's lease time from then on)."""
    js = nc.jetstream(timeout=JS_TIMEOUT)
    prefix = settings.prefix
    copies = settings.replicas
    outstations = await _bucket(js, f"{prefix}-outstations", 0, copies)
    workers = await _bucket(js, f"{prefix}-workers", settings.lease, copies)
    leases = await _bucket(js, f"{prefix}-leases", 0, copies)
    journals = await _bucket(js, f"{prefix}-journals", 0, copies)
    status = await workers.status()
    ttl = float(status.ttl or settings.lease)
    return Buckets(outstations, workers, leases, journals, ttl)


async def _bucket(js: Any, name: str, ttl: float, replicas: int) -> KeyValue:
    """Bucket ``name``, created when missing. A NATS cluster just started cannot place a
    bucket's copies for some seconds ("no suitable peers", timeouts while its JetStream
    leader is elected): asked again until :data:`BUCKETS_WAIT` has passed (D240)."""
    config = KeyValueConfig(bucket=name, history=1, ttl=ttl or None, replicas=replicas)
    loop = asyncio.get_running_loop()
    until = loop.time() + BUCKETS_WAIT
    while True:
        try:
            return await _opened(js, config)
        except Exception as exc:
            if loop.time() >= until:
                why = exc or type(exc).__name__
                if isinstance(exc, ServiceUnavailableError):
                    why = f"{why} (is JetStream enabled on the NATS server: nats-server -js?)"
                raise ConfigError(f"bucket {name} cannot be opened or made: {why}") from None
        await asyncio.sleep(0.5)


async def _opened(js: Any, config: KeyValueConfig) -> KeyValue:
    try:
        kv: KeyValue = await asyncio.wait_for(js.key_value(config.bucket), ATTEMPT)
        return kv
    except BucketNotFoundError:
        pass
    try:
        kv = await asyncio.wait_for(js.create_key_value(config), ATTEMPT)
        return kv
    except Exception:
        # Another process may have created it meanwhile.
        kv = await asyncio.wait_for(js.key_value(config.bucket), ATTEMPT)
        return kv
