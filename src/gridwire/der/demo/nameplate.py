"""The demo map's nameplate ratings, the ratings and references in effect, and the
system's availability."""

from __future__ import annotations

from gridwire.der.demo.builder import INT32_MIN, MONITORING, NAMEPLATE, SETTINGS, Builder


def nameplate(b: Builder) -> None:
    ai = b.inputs("Nameplate ratings", NAMEPLATE, 3)

    charging = {"minimum": INT32_MIN, "maximum": 0}
    rated = {"mandatory_1547": True}
    ai(
        0,
        "Profile version number, times 100",
        None,
        100,
        multiplier=0.01,
        minimum=100,
        maximum=100,
        mandatory=True,
    )
    ai(
        1,
        "Profile implementation level <1> Level 1 <2> Level 2 <3> Level 3",
        None,
        2,
        minimum=1,
        maximum=3,
        mandatory=True,
    )
    ai(2, "Nameplate minimum voltage rating", "V", 2112, multiplier=0.1, mandatory=True, **rated)
    ai(3, "Nameplate maximum voltage rating", "V", 2640, multiplier=0.1, mandatory=True, **rated)
    ai(
        4,
        "Nameplate active power rating, generating at unity power factor",
        "W",
        10000,
        mandatory=True,
        **rated,
    )
    ai(
        5,
        "Nameplate active power rating, charging at unity power factor",
        "W",
        -10000,
        **charging,
        **rated,
    )
    ai(
        6,
        "Nameplate active power rating, generating at the over-excited power factor",
        "W",
        9000,
        **rated,
    )
    ai(
        7,
        "Nameplate active power rating, charging at the over-excited power factor",
        "W",
        -9000,
        **charging,
        **rated,
    )
    ai(
        8,
        "Over-excited power factor the ratings are given at",
        None,
        90,
        multiplier=0.01,
        minimum=-100,
        maximum=100,
        **rated,
    )
    ai(
        9,
        "Nameplate active power rating, generating at the under-excited power factor",
        "W",
        9000,
        **rated,
    )
    ai(
        10,
        "Nameplate active power rating, charging at the under-excited power factor",
        "W",
        -9000,
        **charging,
        **rated,
    )
    ai(
        11,
        "Under-excited power factor the ratings are given at",
        None,
        90,
        multiplier=0.01,
        minimum=-100,
        maximum=100,
        **rated,
    )
    ai(12, "Nameplate reactive power rating, injecting", "var", 4400, mandatory=True, **rated)
    ai(13, "Nameplate reactive power rating, absorbing", "var", -4400, **charging, **rated)
    ai(14, "Nameplate apparent power rating, generating", "VA", 10000, mandatory=True, **rated)
    ai(15, "Nameplate apparent power rating, charging", "VA", -10000, **charging, **rated)
    ai(16, "Nameplate storage energy capacity", "Ah or Wh", 20000)
    ai(17, "Storage capacity in effect (after ageing)", "Ah or Wh", 19500)
    ai(18, "Storage capacity usable", "Ah or Wh", 18000)
    ai(19, "Nameplate maximum AC current, generating", "A", 417, multiplier=0.1, **rated)
    ai(20, "Nameplate maximum AC current, charging", "A", -417, multiplier=0.1, **charging, **rated)
    ai(21, "Reactive susceptance remaining", "S", 0, minimum=INT32_MIN)
    ai(
        22,
        "IEEE 1547 normal performance category <0> Unknown <1> Category A <2> Category B",
        None,
        2,
        maximum=2,
        **rated,
    )
    ai(
        23,
        "IEEE 1547 abnormal performance category <0> Unknown <1> Category I "
        "<2> Category II <3> Category III",
        None,
        2,
        maximum=3,
        **rated,
    )
    ai(24, "Number of schedules", None, 4)
    ai(25, "Number of meters", None, 0)
    ai(26, "Number of inverters", None, 1)
    ai(27, "Number of batteries", None, 1)
    ai(28, "Number of DER units behind the controller", None, 1)


def references(b: Builder) -> None:
    section = "Ratings and references in effect"
    b.pair(
        0,
        29,
        "Reference voltage",
        section=section,
        purpose=SETTINGS,
        units="V",
        multiplier=0.1,
        value=2400,
        mandatory=True,
        mandatory_1547=True,
    )
    b.pair(
        1,
        30,
        "Reference voltage offset",
        section=section,
        purpose=SETTINGS,
        units="V",
        multiplier=0.1,
        minimum=INT32_MIN,
        value=0,
    )
    b.pair(
        2,
        31,
        "Nominal grid frequency",
        section=section,
        purpose=SETTINGS,
        units="Hz",
        multiplier=0.001,
        maximum=70000,
        value=60000,
        mandatory=True,
    )

    ai = b.inputs(section, SETTINGS, 2)

    charging = {"minimum": INT32_MIN, "maximum": 0}
    ai(32, "Maximum active power, generating", "W", 10000)
    ai(33, "Maximum active power, charging", "W", -10000, **charging)
    ai(34, "Maximum reactive power, injecting", "var", 4400)
    ai(35, "Maximum reactive power, absorbing", "var", -4400, **charging)
    ai(36, "Maximum apparent power, generating", "VA", 10000)
    ai(37, "Maximum apparent power, charging", "VA", -10000, **charging)
    ai(38, "Minimum voltage", "V", 2112, multiplier=0.1)
    ai(39, "Maximum voltage", "V", 2640, multiplier=0.1)
    b.pair(
        3,
        40,
        "Open loop response time percentage. Share of the target reached within the "
        "open loop response time",
        section=section,
        purpose=SETTINGS,
        units="%",
        multiplier=0.1,
        maximum=1000,
        value=900,
    )
    b.pair(
        4,
        41,
        "Power factor sign convention <1> IEC active power <2> IEEE lead/lag",
        section=section,
        purpose=SETTINGS,
        minimum=1,
        maximum=2,
        value=2,
    )
    b.pair(
        5,
        42,
        "Reactive power setpoints are relative to <0> Not applicable "
        "<1> Percent of maximum active power (WMax) <2> Percent of maximum reactive power "
        "(VArMax) <3> Percent of available reactive power (VArAval)",
        section=section,
        purpose=SETTINGS,
        maximum=3,
        value=2,
    )


def availability(b: Builder) -> None:
    ai = b.inputs("System availability", MONITORING, 2)

    charging = {"minimum": INT32_MIN, "maximum": 0}
    ai(43, "Active power available, generating", "W", 10000)
    ai(44, "Active power available, charging", "W", -10000, **charging)
    ai(45, "Reactive power available, injecting", "var", 4400)
    ai(46, "Reactive power available, absorbing", "var", -4400, **charging)
    ai(
        47,
        "State of charge. Stored energy as a share of the capacity in effect",
        "%",
        500,
        multiplier=0.1,
        maximum=1000,
    )
    ai(
        48,
        "Usable state of charge. Usable stored energy as a share of the usable capacity",
        "%",
        450,
        multiplier=0.1,
        maximum=1000,
    )
