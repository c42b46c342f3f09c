"""Device Profile documents for the tests: the three real ones in ../shared (read from there,
skipped with a reason when absent) and small synthetic ones written here."""

from __future__ import annotations

from pathlib import Path

from tests.support.shared import shared_file

SHARED = {
    "2.07": "data/device-profiles/opendnp3-outstation-2.07.00.xml",
    "2.08": "data/device-profiles/opendnp3-2.08.00.xml",
    "2.10": "data/device-profiles/opendnp3-2.10.00.xml",
}
LARGEST = "2.10"


def shared_document(edition: str) -> Path:
    return shared_file(SHARED[edition])


def document(body: str, *, root: str = "DNP3DeviceProfileDocument", ns: str = "urn:x") -> str:
    """A document of ``body`` under a root element in namespace ``ns``."""
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<{root} xmlns="{ns}">{body}</{root}>'


def points_list(*entries: str) -> str:
    """A referenceDevice whose dataPointsList holds these entries."""
    return f"<referenceDevice><dataPointsList>{''.join(entries)}</dataPointsList></referenceDevice>"
