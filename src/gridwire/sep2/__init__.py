"""The IEEE 2030.5 client (``gridwire.sep2``) and its management API.

Modules, bottom up: :mod:`.identity` (LFDI and SFDI), :mod:`.config` (settings),
:mod:`.tls` (the mutual-TLS context), :mod:`.resources` and :mod:`.parsing` (typed models,
safe XML), :mod:`.transport` (HTTPS to the head-end), :mod:`.discovery`, :mod:`.timebase`
(offsets per scope, no I/O), :mod:`.polling`, :mod:`.client` (all of it together),
:mod:`.reading` and :mod:`.status` (what the API reports), :mod:`.service`, :mod:`.api` and
:mod:`.docs` (the FastAPI router and app).

As a library::

    config = build_config({"server": {"url": "https://head-end:8443"},
                           "tls": {"ca": "ca.pem", "certificate": "dev.pem", "key": "dev.key"}})
    async with Sep2Client(config) as client:
        ...
        client.now(fsa_href)        # the time to schedule that FSA's events by
        client.time_reading()       # what GET /api/v1/time answers
"""

from gridwire.process.clock import SYSTEM_CLOCK, Clock, SystemClock
from gridwire.sep2.api import ManagementApi, management_app
from gridwire.sep2.client import Sep2Client
from gridwire.sep2.config import Sep2Config, build_config, read_config_file
from gridwire.sep2.errors import (
    CertificateError,
    DiscoveryError,
    HandshakeRefused,
    HeadEndError,
    HttpStatusError,
    NotConnected,
    ResourceError,
    Sep2Error,
    TimedOut,
    Unreachable,
)
from gridwire.sep2.identity import DeviceIdentity, identity_from_der, load_identity
from gridwire.sep2.polling import Poller, PollSettings
from gridwire.sep2.reading import TimeReading, TimeUnavailable, time_reading
from gridwire.sep2.service import ManagementService, Sep2Service
from gridwire.sep2.timebase import Effective, FsaLink, Observation, Timebase

__all__ = [
    "SYSTEM_CLOCK",
    "CertificateError",
    "Clock",
    "DeviceIdentity",
    "DiscoveryError",
    "Effective",
    "FsaLink",
    "HandshakeRefused",
    "HeadEndError",
    "HttpStatusError",
    "ManagementApi",
    "ManagementService",
    "NotConnected",
    "Observation",
    "PollSettings",
    "Poller",
    "ResourceError",
    "Sep2Client",
    "Sep2Config",
    "Sep2Error",
    "Sep2Service",
    "SystemClock",
    "TimeReading",
    "TimeUnavailable",
    "Timebase",
    "TimedOut",
    "Unreachable",
    "build_config",
    "identity_from_der",
    "load_identity",
    "management_app",
    "read_config_file",
    "time_reading",
]
