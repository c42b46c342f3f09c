"""der.compare with nothing of ours on either side: opendnp3's own Device Profile (edition
2.10, ../shared) against yadnp3's outstation (opendnp3, C++, a subprocess) serving 10 points
of each type, where the document declares 20 binary and 20 analog outputs and keeps double-bit
inputs out of class 0, which the stack puts in it."""

from __future__ import annotations

import pytest

from gridwire.derops.compare import der_compare
from gridwire.master import Master, OutstationSettings
from tests.devprofile.documents import shared_document
from tests.support.peers import yadnp3_outstation

pytestmark = pytest.mark.interop


async def test_opendnp3s_document_against_yadnp3s_outstation() -> None:
    document = shared_document("2.10")
    with yadnp3_outstation(points=10) as peer:
        master = Master()
        try:
            await master.add(OutstationSettings(name="y", host="127.0.0.1", port=peer.port))
            result = await der_compare(master, "y", document)
        finally:
            await master.close()
    # Declared: 10 BI, 10 DBI, 20 BO, 10 counters and their 10 frozen counters, 10 AI, 20 AO.
    assert (result.declared, result.served) == (90, 70)
    assert [(p.type, p.index) for p in result.absent] == [
        *(("bo", i) for i in range(10, 20)),
        *(("ao", i) for i in range(10, 20)),
    ]
    assert result.absent[0].name == "BO #10" and result.undeclared == []
    assert {(c.type, c.declared, c.carried) for c in result.class_0} == {("dbi", "never", True)}
    assert [c.index for c in result.class_0] == list(range(10))
    counter = next(p for p in result.points if (p.type, p.index) == ("counter", 0))
    frozen = next(p for p in result.points if (p.type, p.index) == ("frozen", 0))
    assert (counter.event_class, frozen.event_class) == (2, 1)  # as declared, not asked
    # Class 0, output status, then the absent outputs: both ranges in one read, refused whole
    # (PARAMETER_ERROR: the stack has no BO 10), then each range alone (g10 and g40, 10-19).
    requests = [e.request[4:] for e in result.exchanges]
    assert requests == [
        "3c0106",
        "0a0006280006",
        "0a00000a13" + "2800000a13",
        "0a00000a13",
        "2800000a13",
    ]
    assert all("PARAMETER_ERROR" in e.indications for e in result.exchanges[2:])
