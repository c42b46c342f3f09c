"""Restore journals named per outstation (D201): by channel and link address on a named
channel, by host, port and link address otherwise (the name they always had), never by
nickname; a journal a channel's outstation left under the name all of them shared before is
still found for it, and only for it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gridwire.errors import Conflict
from gridwire.evaluate.journal import journal_path, refuse_if_left
from gridwire.master.settings import OutstationSettings


def _on(channel: str, link: int, name: str = "der") -> OutstationSettings:
    return OutstationSettings(name=name, channel=channel, outstation_address=link)


def test_each_outstation_its_own(tmp_path: Path) -> None:
    tcp = OutstationSettings(name="a", host="10.0.0.7", port=20001, outstation_address=5)
    paths = [
        journal_path(tmp_path, tcp),
        journal_path(tmp_path, _on("rs485", 5)),
        journal_path(tmp_path, _on("cell-1", 5)),  # another channel, the same link address
        journal_path(tmp_path, _on("rs485", 6)),  # the same channel, another address
        journal_path(tmp_path, _on("rs485", 5, name="renamed")),  # a nickname changes nothing
    ]
    assert [p.name for p in paths] == [
        "journal-10.0.0.7-20001-5.json",  # the short form's name, as before
        "journal-channel=rs485-5.json",
        "journal-channel=cell-1-5.json",
        "journal-channel=rs485-6.json",
        "journal-channel=rs485-5.json",
    ]


def test_channel_names_kept_apart(tmp_path: Path) -> None:
    names = {journal_path(tmp_path, _on(c, 1)).name for c in ("a b", "a_b", "a=20b", "a/b")}
    assert names == {
        "journal-channel=a=20b-1.json",  # the space is octet 0x20
        "journal-channel=a_b-1.json",
        "journal-channel=a=3D20b-1.json",  # '=' itself is 0x3D
        "journal-channel=a=2Fb-1.json",
    }
    long = journal_path(tmp_path, _on("線" * 64, 1)).name  # 192 octets: 576 characters
    assert long.startswith("journal-channel==") and len(long) < 100


def test_a_journal_under_the_shared_name_still_found(tmp_path: Path) -> None:
    shared = tmp_path / "journal--0-5.json"  # what a channel's outstation was given before
    shared.write_text(
        json.dumps({"outstation": "der", "host": "", "port": 0, "link": 5, "entries": [{"x": 1}]})
    )
    assert journal_path(tmp_path, _on("rs485", 5)) == shared
    with pytest.raises(Conflict, match=re.escape(str(shared))):  # a new run is refused
        refuse_if_left(journal_path(tmp_path, _on("rs485", 5)))
    # not another outstation's, with the same link address on another channel
    assert journal_path(tmp_path, _on("cell", 5, name="other")).name == (
        "journal-channel=cell-5.json"
    )
    # a journal of the new name, once written, is the one
    new = tmp_path / "journal-channel=rs485-5.json"
    new.write_text("{}")
    assert journal_path(tmp_path, _on("rs485", 5)) == new
