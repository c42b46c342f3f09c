"""der.document's layout of real Device Profiles (opendnp3's, three editions, read from
../shared) and of synthetic ones: facts, the implementation table with a row per entry, the
point lists, settings tables, codes with their names, labels. Entry counts are taken from the
documents independently, with lxml's XPath."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from gridwire.devprofile.codes import event_class, function_code, qualifier_code
from gridwire.devprofile.labels import label
from gridwire.devprofile.layout import Layout, Table, lay_out
from gridwire.devprofile.reader import read_document, read_document_file
from tests.devprofile.documents import document, shared_document


def laid(edition: str) -> tuple[Layout, etree._ElementTree]:
    path = shared_document(edition)
    return lay_out(read_document_file(path)), etree.parse(str(path))


def count(tree: etree._ElementTree, path: str) -> int:
    found = tree.xpath(f"count({path})")
    assert isinstance(found, float)
    return int(found)


def table(layout: Layout, section: str, title: str) -> Table:
    (found,) = [
        t for s in layout.sections if s.title == section for t in s.tables if t.title == title
    ]
    return found


def facts(layout: Layout) -> dict[str, str]:
    return {f.label: f.value for f in layout.facts}


ENTRY = "//*[local-name()='implementationTable']/*[local-name()='table']/*"


def test_the_2_10_document() -> None:
    layout, tree = laid("2.10")
    assert layout.title == "OpenDNP3 profile"
    assert "gridwire" in layout.notice
    assert facts(layout) == {
        "Schema Version": "2.10.00",
        "Document Name": "OpenDNP3 profile",
        "Document Description": "DNP3 Device Profile for the OpenDNP3 library",
        "Vendor Name": "Step Function I/O, LLC",
        "Device Name": "OpenDNP3 reference outstation",
        "Hardware Version": "N/A",
        "Software Version": "3.0.0",
        "Document Version Number": "1",
    }
    assert [s.title for s in layout.sections] == [
        "Configuration",
        "IEC 61850 Device Mapping",
        "Database",
        "Implementation Table",
        "Data Points List",
    ]
    implementation = table(layout, "Implementation Table", "Implementation Table")
    assert implementation.columns == [
        "Object Group",
        "Variation",
        "Description",
        "Request",
        "Response",
    ]
    assert len(implementation.rows) == count(tree, ENTRY) == 160
    assert implementation.rows[2] == [
        "1",
        "1",
        "Binary Input - Single-bit packed",
        "1 READ\n0x00 8-bit start-stop\n0x01 16-bit start-stop\n0x06 all",
        "129 RESPONSE\n0x00 8-bit start-stop\n0x01 16-bit start-stop",
    ]
    definition = table(layout, "Data Points List", "Binary Input Points: Configuration")
    assert definition.columns == ["Item", "Stated"]  # values, no setting among them
    assert definition.rows == [["Point List Definition", "Fixed\nConfigurable"]]
    binary = table(layout, "Data Points List", "Binary Input Points: Data Points")
    assert len(binary.rows) == count(tree, "//*[local-name()='binaryInput']") == 10
    assert binary.columns[:6] == [
        "Index",
        "Name",
        "Description",
        "User Data",
        "Change Event Class",
        "Included In Class 0 Response",
    ]
    assert binary.rows[0][:8] == ["0", "BI #0", "", "", "Class 1", "always", "Two", "One"]
    counters = table(layout, "Data Points List", "Counter Points: Data Points")
    row = dict(zip(counters.columns, counters.rows[0], strict=True))
    assert row["Counter Event Class"] == "Class 2"
    assert row["Frozen Counter Event Class"] == "Class 1"
    outputs = table(layout, "Data Points List", "Binary Output Points: Data Points")
    row = dict(zip(outputs.columns, outputs.rows[1], strict=True))
    assert row["Supported Control Operations"].splitlines() == [
        "Support Select Operate",
        "Support Direct Operate",
        "Support Direct Operate No Ack",
        "Support Pulse On",
        "Support Trip",
        "Count Greater Than One",
    ]
    link = table(layout, "Configuration", "Link Config")
    assert link.columns == ["Item", "Capabilities", "Current value", "Methods", "Stated"]
    address = link.rows[0]
    assert address[0] == "Data Link Address"
    assert address[1].splitlines()[1] == "Range: Minimum: 0; Maximum: 65519"
    assert address[2:] == ["1024", "Proprietary File Via Other Transport Mechanism", ""]


def test_the_2_08_document() -> None:
    layout, tree = laid("2.08")
    assert facts(layout)["Software Version"] == "2.0.0"
    assert layout.sections[0].title == "Document Header"
    history = table(layout, "Document Header", "Revision History")
    assert history.columns == ["Version", "Date", "Author", "Reason"]
    assert history.rows == [["1", "2014-09-07", "Adam Crain", "Initial version of 2012 schema"]]
    implementation = table(layout, "Implementation Table", "Implementation Table")
    assert len(implementation.rows) == count(tree, ENTRY) == 157
    # Its point lists declare no points: each list is there, with no rows.
    data_points = table(layout, "Data Points List", "Analog Input Points: Data Points")
    assert data_points.rows == [] and data_points.columns == []
    security = table(layout, "Configuration", "Security Config")
    assert len(security.rows) == count(tree, "//*[local-name()='securityConfig']/*") == 17


def test_the_2_07_outstation_document() -> None:
    layout, tree = laid("2.07")
    assert facts(layout)["Schema Location"].startswith("http://www.dnp3.org/DNP3/DeviceProfile")
    assert facts(layout)["Vendor Name"] == "VENDOR SPECIFIC"
    implementation = table(layout, "Implementation Table", "Implementation Table")
    # Variations and one function code: the entries differ in kind, so an Entry column leads.
    assert implementation.columns[0] == "Entry"
    assert len(implementation.rows) == count(tree, ENTRY) == 72
    assert implementation.rows[-1] == [
        "Supported Function Code",
        "",
        "",
        "",
        "23 DELAY_MEASURE",
        "",
    ]
    by_kind = {r[0] for r in implementation.rows}
    assert by_kind == {"Supported Variation", "Supported Function Code"}
    # Its qualifiers are written with a leading zero ("06"): the same code.
    assert "0x06 all" in implementation.rows[0][4]
    assert [s.title for s in layout.sections][-1] == "Data Points List"
    assert layout.sections[-1].tables == []


SETTINGS = document(
    "<documentHeader><documentName>Synthetic</documentName><revisionHistory>"
    "<date>2024-01-02</date><reason>first</reason></revisionHistory><revisionHistory>"
    "<date>2024-03-04</date><author>Ann</author></revisionHistory></documentHeader>"
    "<referenceDevice><configuration><deviceConfig>"
    "<vendorName><currentValue><value>ACME</value></currentValue></vendorName>"
    "<deviceFunction><capabilities><master/><outstation/></capabilities>"
    "<currentValue><outstation/></currentValue></deviceFunction>"
    "<oddity flavour='sour'>lemon</oddity>"
    "</deviceConfig><linkConfig><dataLinkAddress><capabilities><range><minimum>0</minimum>"
    "<maximum>65519</maximum></range></capabilities><currentValue><value>7</value>"
    "</currentValue><methods><protocol/></methods></dataLinkAddress></linkConfig>"
    "</configuration><vendorWidgets><widget><size>3</size></widget><widget><size>4</size>"
    "<colour>red</colour></widget></vendorWidgets></referenceDevice>"
    "<vendorAppendix>free text</vendorAppendix>"
)


def test_settings_records_and_what_the_layout_does_not_know() -> None:
    layout = lay_out(read_document(SETTINGS))
    assert layout.title == "Synthetic"
    assert facts(layout) == {"Document Name": "Synthetic", "Vendor Name": "ACME"}
    history = table(layout, "Document Header", "Revision History")
    assert history.columns == ["Date", "Reason", "Author"]
    assert history.rows == [["2024-01-02", "first", ""], ["2024-03-04", "", "Ann"]]
    device = table(layout, "Configuration", "Device Config")
    # No row has methods: no Methods column. The oddity is stated, by label and text.
    assert device.columns == ["Item", "Capabilities", "Current value", "Stated"]
    assert device.rows == [
        ["Vendor Name", "", "ACME", ""],
        ["Device Function", "Master\nOutstation", "Outstation", ""],
        ["Oddity", "", "", "Flavour: sour\nlemon"],
    ]
    link = table(layout, "Configuration", "Link Config")
    assert link.columns == ["Item", "Capabilities", "Current value", "Methods", "Stated"]
    assert link.rows == [
        ["Data Link Address", "Range: Minimum: 0; Maximum: 65519", "7", "Protocol", ""]
    ]
    widgets = table(layout, "Vendor Widgets", "Vendor Widgets")
    assert widgets.columns == ["Size", "Colour"]
    assert widgets.rows == [["3", ""], ["4", "red"]]
    appendix = table(layout, "Vendor Appendix", "Vendor Appendix")
    assert appendix.rows == [["Vendor Appendix", "free text"]]


def test_text_beside_attributes_or_elements_is_not_lost() -> None:
    text = document(
        "<documentHeader><documentName lang='en'>Named</documentName><draft state='yes'/>"
        "</documentHeader><referenceDevice><dataPointsList><analogInputPoints><dataPoints>"
        "<analogInput><index>1</index><units kind='SI'>V</units>"
        "<note>see <b>here</b> and more</note></analogInput><analogInput><index>2</index>"
        "</analogInput></dataPoints></analogInputPoints></dataPointsList>"
        "<files><file name='a'>first</file><file name='b'/></files>"
        "<vendorPart><setting><currentValue><value>1</value></currentValue></setting>"
        "<remark source='lab'>checked <by>Ann</by></remark></vendorPart></referenceDevice>"
        "<vendorNote>read me<part><size>3</size></part></vendorNote>"
    )
    layout = lay_out(read_document(text))
    assert facts(layout) == {"Document Name": "Named (Lang: en)", "Draft": "State: yes"}
    assert layout.title == "Named"
    points = table(layout, "Data Points List", "Data Points List")
    assert points.columns == ["Index", "Units", "Note"]
    assert points.rows == [["1", "V (Kind: SI)", "see\nB: here\nand more"], ["2", "", ""]]
    files = table(layout, "Files", "Files")
    assert (files.columns, files.rows) == (["Name", "Value"], [["a", "first"], ["b", ""]])
    vendor = table(layout, "Vendor Part", "Vendor Part")
    assert vendor.rows[1] == ["Remark", "", "", "Source: lab\nchecked\nBy: Ann"]
    note = table(layout, "Vendor Note", "Vendor Note")
    assert note.rows == [["Vendor Note", "read me"], ["Part", "Size: 3"]]


def test_a_document_with_nothing_but_its_root() -> None:
    layout = lay_out(read_document("<DNP3DeviceProfileDocument/>"))
    assert layout.title == "Device Profile"
    assert layout.facts == [] and layout.sections == []


def test_the_title_falls_back_to_the_device_name() -> None:
    text = document(
        "<referenceDevice><configuration><deviceConfig><deviceName><currentValue>"
        "<value>Relay 7</value></currentValue></deviceName></deviceConfig></configuration>"
        "</referenceDevice>"
    )
    assert lay_out(read_document(text)).title == "Relay 7"


@pytest.mark.parametrize(
    ("name", "readable"),
    [
        ("tcpListenPort", "TCP Listen Port"),
        ("gatewayIPAddress", "Gateway IP Address"),
        ("iec61850DeviceMapping", "IEC 61850 Device Mapping"),
        ("maxObjectsInCROBControlRequest", "Max Objects In CROB Control Request"),
        ("outstationId", "Outstation ID"),
        ("onlineXmlFileNames", "Online XML File Names"),
        ("dnp3Version", "DNP3 Version"),
        ("iinBits", "IIN Bits"),
        ("udpPortForResponses", "UDP Port For Responses"),
        ("tlsCipherSuites", "TLS Cipher Suites"),
        ("utcTime", "UTC Time"),
        ("lanOnly", "LAN Only"),
        ("nameState0", "Name State 0"),
        ("additionalCriticalFCs", "Additional Critical FCs"),
        ("outstationSetsIIN14", "Outstation Sets IIN1.4"),
        ("startupToIIN14", "Startup To IIN1.4"),
        ("rs485Options", "RS-485 Options"),
        ("TLSCipherSuites", "TLS Cipher Suites"),
        ("schemaVersion", "Schema Version"),
        ("x_y-z", "X Y Z"),
        ("élément", "élément"),
    ],
)
def test_labels(name: str, readable: str) -> None:
    assert label(name) == readable


def test_codes_are_shown_with_their_names() -> None:
    assert function_code("1") == "1 READ"
    assert function_code("129") == "129 RESPONSE"
    assert function_code("200") == "200"
    assert qualifier_code("6") == "0x06 all"
    assert qualifier_code("06") == "0x06 all"
    assert qualifier_code("0x28") == "0x28 16-bit count, 16-bit index prefix"
    assert qualifier_code("23") == "0x17 8-bit count, 8-bit index prefix"
    assert qualifier_code("67") == "67"
    assert event_class("one") == "Class 1"
    assert event_class("three") == "Class 3"
    assert event_class("none") == "None"
    assert event_class("sometimes") == "sometimes"


def test_control_status_codes_are_named_and_other_choices_keep_their_labels() -> None:
    text = document(
        "<referenceDevice><configuration><applConfig><controlStatusCodesSupported>"
        "<capabilities><code1/><code4/><code126/></capabilities><currentValue><code4/>"
        "</currentValue></controlStatusCodesSupported></applConfig><broadcastConfig>"
        "<byEventClass><capabilities><enabled/></capabilities><currentValue><one/>"
        "</currentValue></byEventClass></broadcastConfig></configuration></referenceDevice>"
    )
    codes, broadcast = lay_out(read_document(text)).sections[0].tables
    assert codes.rows == [
        [
            "Control Status Codes Supported",
            "1 TIMEOUT\n4 NOT_SUPPORTED\n126 NON_PARTICIPATING",
            "4 NOT_SUPPORTED",
            "",
        ]
    ]
    # Under a setting named for an event class, a class is named; another choice keeps its label.
    assert broadcast.rows == [["By Event Class", "Enabled", "Class 1", ""]]
    layout, _ = laid("2.10")
    (row,) = [r for r in table(layout, "Configuration", "Appl Config").rows if "Status" in r[0]]
    assert row[1].splitlines()[:2] == ["1 TIMEOUT", "2 NO_SELECT"]


def test_an_empty_group_among_groups_is_a_table_of_its_own() -> None:
    # 2.07 writes <masterConfig/> between applConfig and outstationConfig: it is a group the
    # document states nothing of, not a row of a "Configuration" table.
    layout, _ = laid("2.07")
    titles = [t.title for t in layout.sections[1].tables]
    assert titles[4:7] == ["Appl Config", "Master Config", "Outstation Config"]
    assert "Configuration" not in titles
    empty = table(layout, "Configuration", "Master Config")
    assert (empty.columns, empty.rows) == ([], [])
    # A setting's values that are empty elements stay values of one table.
    definition = table(
        lay_out(read_document_file(shared_document("2.10"))),
        "Data Points List",
        "Binary Input Points: Configuration",
    )
    assert definition.rows == [["Point List Definition", "Fixed\nConfigurable"]]


def test_an_event_class_written_as_a_choice_is_named_too(tmp_path: Path) -> None:
    text = document(
        "<referenceDevice><dataPointsList><binaryInputPoints><dataPoints><binaryInput>"
        "<index>4</index><changeEventClass><two/></changeEventClass></binaryInput>"
        "</dataPoints></binaryInputPoints></dataPointsList></referenceDevice>"
    )
    rows = lay_out(read_document(text)).sections[0].tables[0].rows
    assert rows == [["4", "Class 2"]]
