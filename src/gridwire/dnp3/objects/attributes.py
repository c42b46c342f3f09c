"""Device attributes (group 0): each object is a data type code, a length and the value
(IEEE 1815-2012 11.9.7 and Table 11-3). The variation names the attribute (209-255 in the
standard set 0; 254 "all" and 255 "list of attribute variations" in reads); the point index
is the attribute set.

An extended list (type 255) counts its length from 256: a length octet of n means n + 256
octets of list.
"""

from __future__ import annotations

import struct

from gridwire.dnp3.errors import DecodeError, EncodeError
from gridwire.dnp3.objects.records import Attribute, AttributeEntry
from gridwire.dnp3.objects.singles import single_bits, single_from_octets
from gridwire.dnp3.objects.times import TIME48_MAX

DATA_TYPES: dict[int, str] = {
    1: "VSTR",  # visible string
    2: "UINT",
    3: "INT",
    4: "FLT",
    5: "OSTR",  # octet string
    6: "BSTR",  # bit string
    7: "TIME",  # DNP3 time, 6 octets
    254: "LIST",  # list of (variation u8, properties u8)
    255: "EXTLIST",  # the same, 256-511 octets long
}
_CODES = {name: code for code, name in DATA_TYPES.items()}
_EXTENDED = 256

ALL_ATTRIBUTES = 254
"""g0v254: the non-specific "all attributes" request of a read."""
LIST_OF_VARIATIONS = 255
"""g0v255: the list of attribute variations the outstation has (data type LIST)."""

STANDARD_SET = 0
"""The attribute set (the point index of g0 objects) of the standard's attributes."""

# The standard attributes of set 0 (IEEE 1815-2012 Table 11-3 and its annex of g0 objects):
# variation -> (key, name). 251 and 253 are reserved.
ATTRIBUTE_NAMES: dict[int, tuple[str, str]] = {
    196: ("configuration_id", "Configuration ID"),
    197: ("configuration_version", "Configuration version"),
    198: ("configuration_build_date", "Configuration build date"),
    199: ("configuration_last_change_date", "Configuration last change date"),
    200: ("configuration_digest", "Configuration digest"),
    201: ("configuration_digest_algorithm", "Configuration digest algorithm"),
    202: ("master_resource_id", "Master resource ID (mRID)"),
    203: ("device_altitude", "Device altitude (m)"),
    204: ("device_longitude", "Device longitude (degrees)"),
    205: ("device_latitude", "Device latitude (degrees)"),
    206: ("secondary_operator_name", "User-assigned secondary operator name"),
    207: ("primary_operator_name", "User-assigned primary operator name"),
    208: ("system_name", "User-assigned system name"),
    209: ("secure_authentication_version", "Secure authentication version"),
    210: ("security_statistics", "Number of security statistics per association"),
    211: ("user_specific_attributes", "Identification of support for user-specific attributes"),
    212: ("master_data_set_prototypes", "Number of master-defined data set prototypes"),
    213: ("outstation_data_set_prototypes", "Number of outstation-defined data set prototypes"),
    214: ("master_data_sets", "Number of master-defined data sets"),
    215: ("outstation_data_sets", "Number of outstation-defined data sets"),
    216: ("max_binary_outputs_per_request", "Maximum binary output objects per request"),
    217: ("local_timing_accuracy", "Local timing accuracy (microseconds)"),
    218: ("time_accuracy_duration", "Duration of time accuracy (seconds)"),
    219: ("analog_output_events", "Support for analog output events"),
    220: ("max_analog_output_index", "Maximum analog output index"),
    221: ("analog_outputs", "Number of analog outputs"),
    222: ("binary_output_events", "Support for binary output events"),
    223: ("max_binary_output_index", "Maximum binary output index"),
    224: ("binary_outputs", "Number of binary outputs"),
    225: ("frozen_counter_events", "Support for frozen counter events"),
    226: ("frozen_counters", "Support for frozen counters"),
    227: ("counter_events", "Support for counter events"),
    228: ("max_counter_index", "Maximum counter index"),
    229: ("counters", "Number of counter points"),
    230: ("frozen_analog_inputs", "Support for frozen analog inputs"),
    231: ("analog_input_events", "Support for analog input events"),
    232: ("max_analog_input_index", "Maximum analog input index"),
    233: ("analog_inputs", "Number of analog input points"),
    234: ("double_bit_input_events", "Support for double-bit binary input events"),
    235: ("max_double_bit_input_index", "Maximum double-bit binary input index"),
    236: ("double_bit_inputs", "Number of double-bit binary input points"),
    237: ("binary_input_events", "Support for binary input events"),
    238: ("max_binary_input_index", "Maximum binary input index"),
    239: ("binary_inputs", "Number of binary input points"),
    240: ("max_transmit_fragment", "Maximum transmit fragment size"),
    241: ("max_receive_fragment", "Maximum receive fragment size"),
    242: ("software_version", "Device manufacturer's software version"),
    243: ("hardware_version", "Device manufacturer's hardware version"),
    244: ("owner_name", "User-assigned owner name"),
    245: ("location", "User-assigned location name"),
    246: ("id_code", "User-assigned ID code/number"),
    247: ("device_name", "User-assigned device name"),
    248: ("serial_number", "Device serial number"),
    249: ("subset_level", "DNP3 subset level and conformance"),
    250: ("product_name", "Device manufacturer's product name and model"),
    252: ("vendor_name", "Device manufacturer's name"),
    254: ("all_attributes", "Non-specific all attributes request"),
    255: ("attribute_list", "List of attribute variations"),
}


def attribute_key(variation: int, attribute_set: int = STANDARD_SET) -> str:
    """The attribute's key: the standard's name of a variation of set 0, else ``g0v<n>``
    (with the set when it is not 0: ``set2.g0v240``)."""
    named = ATTRIBUTE_NAMES.get(variation) if attribute_set == STANDARD_SET else None
    if named is not None:
        return named[0]
    plain = f"g0v{variation}"
    return plain if attribute_set == STANDARD_SET else f"set{attribute_set}.{plain}"


def attribute_name(variation: int, attribute_set: int = STANDARD_SET) -> str:
    """What the standard calls the attribute (set 0), else "device attribute <n>"."""
    named = ATTRIBUTE_NAMES.get(variation) if attribute_set == STANDARD_SET else None
    return named[1] if named is not None else f"device attribute {variation}"


def read_attribute(data: bytes | memoryview, pos: int, end: int) -> tuple[Attribute, int]:
    """The attribute at ``pos`` (which must end by ``end``) and the offset after it."""
    if end - pos < 2:
        raise DecodeError(f"device attribute truncated: {end - pos} of 2 header octets")
    code, length = data[pos], data[pos + 1]
    if code == 255:
        length += _EXTENDED
    start, stop = pos + 2, pos + 2 + length
    if stop > end:
        raise DecodeError(f"device attribute of {length} octets: {end - start} remain")
    kind = DATA_TYPES.get(code)
    raw = bytes(data[start:stop])
    value: str | int | float | bytes | list[AttributeEntry]
    if kind == "VSTR":
        value = raw.decode("utf-8", "replace")
    elif kind in ("UINT", "INT") and 1 <= length <= 8:
        value = int.from_bytes(raw, "little", signed=kind == "INT")
    elif kind == "FLT" and length == 4:
        value = single_from_octets(raw, 0)
    elif kind == "FLT" and length == 8:
        (value,) = struct.unpack("<d", raw)
    elif kind in ("OSTR", "BSTR"):
        value = raw
    elif kind == "TIME" and length == 6:
        value = int.from_bytes(raw, "little")
    elif kind in ("LIST", "EXTLIST") and length % 2 == 0:
        value = [AttributeEntry(raw[k], raw[k + 1]) for k in range(0, length, 2)]
    elif kind is None:
        raise DecodeError(f"unknown device attribute data type {code}")
    else:
        raise DecodeError(f"device attribute {kind} cannot be {length} octets long")
    return Attribute(kind, value), stop


def _integer(value: object, signed: bool) -> bytes:
    if not isinstance(value, int):
        raise EncodeError(f"an integer attribute needs an int, not {value!r}")
    for width in (1, 2, 4, 8):
        try:
            return value.to_bytes(width, "little", signed=signed)
        except OverflowError:
            continue
    raise EncodeError(f"attribute value {value} does not fit 8 octets")


def _float(value: object) -> bytes:
    if not isinstance(value, int | float):
        raise EncodeError(f"a FLT attribute needs a number, not {value!r}")
    wide = struct.pack("<d", value)
    try:
        narrow = struct.pack("<I", single_bits(float(value)))
    except EncodeError:
        return wide
    # a single when it holds the value exactly (bit for bit, NaNs included)
    return narrow if struct.pack("<d", single_from_octets(narrow, 0)) == wide else wide


def _body(attribute: Attribute) -> bytes:
    kind, value = attribute.data_type, attribute.value
    if kind == "VSTR" and isinstance(value, str):
        return value.encode("utf-8")
    if kind in ("UINT", "INT"):
        return _integer(value, signed=kind == "INT")
    if kind == "FLT":
        return _float(value)
    if kind in ("OSTR", "BSTR") and isinstance(value, bytes | bytearray):
        return bytes(value)
    if kind == "TIME" and isinstance(value, int) and 0 <= value <= TIME48_MAX:
        return value.to_bytes(6, "little")
    if kind in ("LIST", "EXTLIST") and isinstance(value, list):
        return b"".join(bytes((entry.variation, entry.properties)) for entry in value)
    raise EncodeError(f"cannot encode {value!r} as a {kind} device attribute")


def encode_attribute(attribute: Attribute) -> bytes:
    """Data type code, length and value of a device attribute."""
    kind = attribute.data_type.strip().upper()
    if kind not in _CODES:
        raise EncodeError(f"unknown device attribute data type {attribute.data_type!r}")
    try:
        body = _body(Attribute(kind, attribute.value))
    except (ValueError, struct.error) as exc:
        raise EncodeError(f"cannot encode device attribute: {exc}") from None
    length = len(body) - (_EXTENDED if kind == "EXTLIST" else 0)
    if not 0 <= length <= 0xFF:
        raise EncodeError(f"a {kind} device attribute cannot hold {len(body)} octets")
    return bytes((_CODES[kind], length)) + body
