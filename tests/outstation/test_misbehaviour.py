"""Rules the outstation breaks on purpose (gridwire.outstation.misbehaviour), so that a check of
an evaluation can be seen to fail: ``accept_bad_crc`` and ``forget_unconfirmed_events``, set
through ``OutstationConfig.misbehave``, the settings file of ``gridwire sim`` and its
``--misbehave`` flag. Literal octets throughout; the well-behaved outstation alongside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridwire.cli import build_parser
from gridwire.cli.sim import settings_of
from gridwire.errors import ConfigError
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.misbehaviour import mend_crcs
from gridwire.simulator.config import load_settings
from tests.outstation.conftest import EPOCH_MS, make_wire

# READ class 0, sequence 0, master 1 -> outstation 1024, with its good CRCs (CA 8A, FF 50).
GOOD = bytes.fromhex("05 64 0B C4 00 04 01 00 CA 8A C0 C0 01 3C 01 06 FF 50")
BAD_HEADER = bytes.fromhex("05 64 0B C4 00 04 01 00 35 75 C0 C0 01 3C 01 06 FF 50")
BAD_DATA = bytes.fromhex("05 64 0B C4 00 04 01 00 CA 8A C0 C0 01 3C 01 06 00 AF")
CRC_BLIND = frozenset({"accept_bad_crc"})
FORGETFUL = frozenset({"forget_unconfirmed_events"})


def test_whole_frames_get_good_crcs_and_nothing_else_changes() -> None:
    assert mend_crcs(BAD_HEADER) == GOOD
    assert mend_crcs(BAD_DATA) == GOOD
    assert mend_crcs(GOOD) == GOOD
    assert mend_crcs(b"\x00\x11" + BAD_HEADER + BAD_DATA) == b"\x00\x11" + GOOD + GOOD
    # A frame not whole here (cut short), a LENGTH below 5, garbage: as they came.
    for octets in (BAD_DATA[:15], BAD_HEADER[:9], b"\x05\x64\x04" + BAD_HEADER[3:], b"\x05"):
        assert mend_crcs(octets) == octets


@pytest.mark.parametrize("frame", [BAD_HEADER, BAD_DATA], ids=["header", "data"])
def test_a_frame_with_a_bad_crc_is_answered_only_when_misbehaving(frame: bytes) -> None:
    well = make_wire()
    assert well.session.receive(frame, 1.0) == []
    assert well.session.channel.ignored == 1
    blind = make_wire(misbehave=CRC_BLIND)
    answers = blind.fragments(blind.session.receive(frame, 1.0))
    assert len(answers) == 1 and answers[0][:2] == bytes.fromhex("C0 81")  # seq 0, RESPONSE


def test_events_not_confirmed_are_forgotten_only_when_misbehaving() -> None:
    for misbehave, again in ((frozenset(), [(1, True, EPOCH_MS + 2000)]), (FORGETFUL, [])):
        wire = make_wire(misbehave=misbehave)
        wire.session.database.update("bi", 1, True, now=2.0)
        first = wire.ask("C1 01 3C 02 06", now=3.0)  # READ class 1: the event, CON
        assert first.control.con and len(first.objects) == 1
        # No confirm; the next request abandons the response.
        answer = wire.ask("C2 01 3C 02 06", now=4.0)
        assert [(o.index, o.value, o.time_ms) for o in answer.objects] == again


def test_misbehaviours_are_named_and_checked(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="misbehave: lie is not one of accept_bad_crc"):
        OutstationConfig(misbehave=frozenset({"lie"})).validate()
    config = tmp_path / "sim.json"
    config.write_text(json.dumps({"der": True, "misbehave": ["accept_bad_crc"]}))
    assert load_settings(config).outstation.misbehave == CRC_BLIND
    args = build_parser().parse_args(
        ["sim", "--config", str(config), "--misbehave", "forget_unconfirmed_events"]
    )
    assert settings_of(args).outstation.misbehave == CRC_BLIND | FORGETFUL
    config.write_text(json.dumps({"misbehave": "accept_bad_crc"}))
    with pytest.raises(ConfigError, match="misbehave: a list of names"):
        load_settings(config)
    config.write_text(json.dumps({"misbehave": ["lie"]}))
    with pytest.raises(ConfigError, match="lie is not one of"):
        load_settings(config)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["sim", "--misbehave", "lie"])
