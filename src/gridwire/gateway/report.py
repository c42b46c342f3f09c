"""Reporting the DER back to the head-end, sans-IO: the bodies of DERCapability,
DERSettings, DERStatus and DERAvailability (PUT to the links of this EndDevice's DER), and of
the MirrorUsagePoint and its MirrorMeterReadings (POST), from the DER's readings by name.

Element names and order are the IEEE 2030.5 schema's. Power values are ActivePower /
ReactivePower / ApparentPower (``multiplier`` 0, ``value`` whole: a value over Int16 is carried
with a multiplier of ten as needed). What the 1815.2 tables do not say is left out (the schema
makes it optional) rather than invented; see DESIGN D169 for each field's source.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from gridwire.sep2.parsing import NAMESPACE

# DERControlType bits of modesSupported / modesEnabled (IEEE 2030.5), by mode.
MODE_BITS = {
    "opModConnect": 2,
    "opModEnergize": 3,
    "opModFixedPFAbsorbW": 4,
    "opModFixedPFInjectW": 5,
    "opModFixedVar": 6,
    "opModFixedW": 7,
    "opModFreqWatt": 9,
    "opModMaxLimW": 20,
    "opModTargetW": 22,
    "opModVoltVar": 23,
    "opModVoltWatt": 24,
    "opModWattVar": 26,
}
# CSIP-AUS doeModesSupported bits.
DOE_BITS = {"opModExpLimW": 0, "opModImpLimW": 1, "opModGenLimW": 2, "opModLoadLimW": 3}
CSIPAUS = "https://csipaus.org/ns"

# The DER points each report reads, by name in the profile's tables.
RATINGS = {
    "rtgMaxVA": "Nameplate apparent power rating, generating",
    "rtgMaxVar": "Nameplate reactive power rating, injecting",
    "rtgMaxVarNeg": "Nameplate reactive power rating, absorbing",
    "rtgMaxW": "Nameplate active power rating, generating at unity power factor",
}
SETTINGS = {
    "setMaxVA": "Maximum apparent power, generating",
    "setMaxVar": "Maximum reactive power, injecting",
    "setMaxVarNeg": "Maximum reactive power, absorbing",
    "setMaxW": "Maximum active power, generating",
}
STATUS = {
    "connected": "Connect/disconnect switch closed",
    "available": "Off and available to start",
    "started": "Started (in service)",
    "starting": "Starting up",
    "stopping": "Stopping (ceasing to energize)",
    "alarm1": "Priority 1 alarm present",
    "alarm2": "Priority 2 alarm present",
    "alarm3": "Priority 3 alarm present",
}
AVAILABILITY = {
    "statWAvail": "Active power available, generating",
    "statVarAvail": "Reactive power available, injecting",
}
# MirrorMeterReadings: name -> (DER point, uom: 38 W, 63 var, 29 V, 33 Hz)
METER = {
    "active power": ("System meter active power", 38),
    "reactive power": ("System meter reactive power", 63),
    "voltage": ("System meter voltage, phase A", 29),
    "frequency": ("System meter frequency", 33),
}
Readings = Mapping[str, object]  # point name -> value read


def _power(tag: str, value: float) -> str:
    """An ActivePower-like element: whole value in Int16, with a power of ten as needed."""
    multiplier, number = 0, round(value)
    while abs(number) > 32767:
        multiplier += 1
        number = round(value / 10**multiplier)
    return f"<{tag}><multiplier>{multiplier}</multiplier><value>{number}</value></{tag}>"


def _number(readings: Readings, name: str) -> float | None:
    value = readings.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _powers(readings: Readings, fields: Mapping[str, str]) -> dict[str, str]:
    out = {}
    for tag, name in fields.items():
        value = _number(readings, name)
        if value is not None:
            out[tag] = _power(tag, abs(value))
    return out


def _bits(modes: set[str], table: Mapping[str, int]) -> str:
    value = 0
    for mode in modes:
        if mode in table:
            value |= 1 << table[mode]
    return f"{value:08X}"


def der_capability(readings: Readings, supported: set[str], der_type: int) -> bytes:
    powers = _powers(readings, RATINGS)
    if "rtgMaxW" not in powers:
        powers["rtgMaxW"] = _power("rtgMaxW", 0)
    body = (
        f"<modesSupported>{_bits(supported, MODE_BITS)}</modesSupported>"
        + "".join(powers[k] for k in sorted(powers))
        + f"<type>{der_type}</type>"
        + f'<csipaus:doeModesSupported xmlns:csipaus="{CSIPAUS}">'
        f"{_bits(supported, DOE_BITS)[-2:]}</csipaus:doeModesSupported>"
    )
    return f'<DERCapability xmlns="{NAMESPACE}">{body}</DERCapability>'.encode()


def der_settings(readings: Readings, enabled: set[str], grad_w: float, now: int) -> bytes:
    powers = _powers(readings, SETTINGS)
    powers.setdefault("setMaxW", _power("setMaxW", 0))
    order = ["setMaxVA", "setMaxVar", "setMaxVarNeg", "setMaxW"]
    body = (
        f"<modesEnabled>{_bits(enabled, MODE_BITS)}</modesEnabled>"
        f"<setGradW>{round(grad_w * 100)}</setGradW>"
        + "".join(powers[k] for k in order if k in powers)
        + f"<updatedTime>{now}</updatedTime>"
    )
    return f'<DERSettings xmlns="{NAMESPACE}">{body}</DERSettings>'.encode()


@dataclass(frozen=True, slots=True)
class StatusParts:
    connect_bits: int  # genConnectStatus: 0 connected, 1 available, 2 operating
    operational: int  # operationalModeStatus: 1 off, 2 operational
    inverter: int  # inverterStatus: 1 off, 3 starting, 4 in service, 6 shutting down
    manufacturer: str  # the priority of the alarms present, or OK


def status_parts(readings: Readings) -> StatusParts:
    def on(key: str) -> bool:
        return readings.get(STATUS[key]) is True

    bits = (1 if on("connected") else 0) | (2 if on("available") or on("started") else 0)
    bits |= 4 if on("started") else 0
    inverter = 4 if on("started") else 3 if on("starting") else 6 if on("stopping") else 1
    alarms = [n for n in ("1", "2", "3") if on(f"alarm{n}")]
    return StatusParts(
        bits, 2 if on("started") else 1, inverter, "ALM" + "".join(alarms) if alarms else "OK"
    )


def der_status(readings: Readings, now: int) -> bytes:
    p = status_parts(readings)
    stamp = f"<dateTime>{now}</dateTime>"
    body = (
        f"<genConnectStatus>{stamp}<value>{p.connect_bits:02X}</value></genConnectStatus>"
        f"<inverterStatus>{stamp}<value>{p.inverter}</value></inverterStatus>"
        f"<manufacturerStatus>{stamp}<value>{p.manufacturer}</value></manufacturerStatus>"
        f"<operationalModeStatus>{stamp}<value>{p.operational}</value></operationalModeStatus>"
        f"<readingTime>{now}</readingTime>"
    )
    return f'<DERStatus xmlns="{NAMESPACE}">{body}</DERStatus>'.encode()


def der_availability(readings: Readings, now: int) -> bytes:
    powers = _powers(readings, AVAILABILITY)
    body = f"<readingTime>{now}</readingTime>" + "".join(
        powers[k] for k in ("statVarAvail", "statWAvail") if k in powers
    )
    return f'<DERAvailability xmlns="{NAMESPACE}">{body}</DERAvailability>'.encode()


def mrid(lfdi: str, what: str) -> str:
    return hashlib.sha256(f"{lfdi}:{what}".encode()).hexdigest()[:32].upper()


def _reading_type(uom: int) -> str:
    # instantaneous (12), forward (1), power/voltage/frequency kind (37: instantaneous)
    return (
        "<ReadingType><accumulationBehaviour>12</accumulationBehaviour>"
        "<flowDirection>1</flowDirection><kind>37</kind><phase>0</phase>"
        f"<powerOfTenMultiplier>-3</powerOfTenMultiplier><uom>{uom}</uom></ReadingType>"
    )


def mirror_usage_point(lfdi: str) -> bytes:
    readings = "".join(
        f"<MirrorMeterReading><mRID>{mrid(lfdi, name)}</mRID><description>{name}"
        f"</description>{_reading_type(uom)}</MirrorMeterReading>"
        for name, (_, uom) in METER.items()
    )
    return (
        f'<MirrorUsagePoint xmlns="{NAMESPACE}"><mRID>{mrid(lfdi, "site")}</mRID>'
        "<description>DER site</description><roleFlags>03</roleFlags>"
        "<serviceCategoryKind>0</serviceCategoryKind><status>1</status>"
        f"<deviceLFDI>{lfdi}</deviceLFDI>{readings}</MirrorUsagePoint>"
    ).encode()


def meter_readings(lfdi: str, readings: Readings, now: int, period: int) -> bytes:
    """The MirrorMeterReadings of the site's readings now (values in their uom, times 1000
    with powerOfTenMultiplier -3 so a frequency keeps its decimals)."""
    items = []
    for name, (point, _) in METER.items():
        value = _number(readings, point)
        if value is None:
            continue
        items.append(
            f"<MirrorMeterReading><mRID>{mrid(lfdi, name)}</mRID><Reading>"
            f"<timePeriod><duration>{period}</duration><start>{now}</start></timePeriod>"
            f"<value>{round(value * 1000)}</value></Reading></MirrorMeterReading>"
        )
    return (
        f'<MirrorMeterReadingList xmlns="{NAMESPACE}" all="{len(items)}" '
        f'results="{len(items)}">{"".join(items)}</MirrorMeterReadingList>'
    ).encode()


def report_names() -> list[str]:
    """Every DER point name a report reads."""
    names = [*RATINGS.values(), *SETTINGS.values(), *STATUS.values(), *AVAILABILITY.values()]
    return names + [point for point, _ in METER.values()]
