"""The parameter models of the operations (pydantic): validated strictly, so a value of the
wrong kind is refused naming its parameter; their JSON Schema is the OpenAPI request body.

``add`` takes the master's :class:`~gridwire.master.OutstationSettings` and ``wait_for`` the
master's wait parameters, as they are. Names the spec lists (scan kinds, restart kinds,
broadcast addresses...) are enumerations in the schema.

Every list and object a message fills is bounded (:data:`OPERATE_CONTROLS`, READ_ITEMS,
:data:`HEX_LENGTH`...), and refused at its first wrong item: an answer never waits on
thousands of items, or of errors, being looked at.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, WithJsonSchema
from pydantic_core import PydanticCustomError

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.master.association import REQUEST_HEADER
from gridwire.master.conditions import PointType, WaitParameters
from gridwire.master.deviations import DEVIATIONS
from gridwire.master.limits import (
    LONGEST_WAIT,
    MAX_REQUEST_FRAGMENT,
    MIN_SCAN_INTERVAL,
    READ_ITEMS,
    STATUS_PAGE,
    STATUS_PAGE_MAX,
)
from gridwire.operations.declaration import OutstationParams, Params

ScanKind = Literal["integrity", "events", "class0", "class1", "class2", "class3", "outputs"]
EventClass = Literal[1, 2, 3]

REQUEST_FUNCTIONS: tuple[str, ...] = tuple(f.name for f in FunctionCode if not f.is_response)
OPERATE_CONTROLS = 512
"""The most controls of one type one ``operate`` names (a 2048-octet request holds at most
170 CROBs, or 511 analog outputs at their smallest)."""
HEX_LENGTH = 2 * (MAX_REQUEST_FRAGMENT - REQUEST_HEADER)
"""The longest hexadecimal body of ``request`` and ``broadcast``: the object data of the
largest request fragment that can be set (a request must also fit the outstation's own
``max_request_fragment``, 2048 octets unless set)."""
CLASS_LIST = 16
"""The longest list of event classes (there are three; a class may come twice)."""


def _request_function(name: str) -> str:
    if name not in REQUEST_FUNCTIONS:
        shown = name if len(name) <= 40 else f"{name[:37]}..."
        raise ValueError(f"{shown!r} is not the name of a request function code")
    return name


def at_most(limit: int) -> BeforeValidator:
    """Refuses an object (or list) of more than ``limit`` entries before any entry is
    validated (pydantic looks at every entry of an object before its length)."""

    def check(value: Any) -> Any:
        if isinstance(value, dict | list) and len(value) > limit:
            raise PydanticCustomError(
                "too_long", f"holds {len(value)} entries; at most {limit} are taken"
            )
        return value

    return BeforeValidator(check)


def _deviation_names(value: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(value) - set(DEVIATIONS))
    if unknown:
        raise ValueError(f"unknown deviation {', '.join(unknown)}")
    return value


RequestFunction = Annotated[
    str,
    AfterValidator(_request_function),
    WithJsonSchema(
        {
            "type": "string",
            "enum": list(REQUEST_FUNCTIONS),
            "description": "A function code by its IEEE 1815-2012 name",
        }
    ),
]
HexText = Annotated[
    str,
    Field(
        pattern=r"^(?:[0-9a-fA-F]{2})*$",
        max_length=HEX_LENGTH,
        description="Octets as hexadecimal text",
    ),
]
PointIndex = Annotated[int, Field(ge=0, le=0xFFFF)]
IndexRange = Annotated[str, Field(pattern=r"^\s*\d{1,5}\s*(?:-\s*\d{1,5}\s*)?$")]
IndexKey = Annotated[str, Field(pattern=r"^\d{1,5}$")]
ControlValue = bool | int | float | str


class NoParams(Params):
    """No parameters."""


class StatusParams(Params):
    """A page of the outstations (gridwire's own parameters, D149)."""

    offset: int = Field(default=0, ge=0, description="The first outstation listed (0 first)")
    limit: int = Field(
        default=STATUS_PAGE,
        ge=1,
        le=STATUS_PAGE_MAX,
        description=f"Outstations listed at most ({STATUS_PAGE} unless given)",
    )


class ConnectParams(OutstationParams):
    wait: float | None = Field(
        default=None,
        ge=0,
        le=LONGEST_WAIT,
        description="Seconds to keep trying, once a second; without it the first failure "
        "is the answer",
    )


class TaskChoices(Params):
    """Tasks to change; a task left out keeps its value."""

    startup: bool | None = None
    clear_restart: bool | None = Field(default=None, description="Writes: needs control")
    write_time: bool | None = Field(default=None, description="Writes: needs control")
    events_when_indicated: bool | None = None
    integrity_on_overflow: bool | None = None
    enable_unsolicited: list[EventClass] | None = Field(
        default=None,
        max_length=CLASS_LIST,
        fail_fast=True,
        description="Event classes whose unsolicited reporting is enabled",
    )


class SetTasksParams(OutstationParams):
    tasks: TaskChoices

    @property
    def changes(self) -> dict[str, Any]:
        return self.tasks.model_dump(exclude_none=True)


class WaitForParams(OutstationParams, WaitParameters):
    """``timeout`` seconds and exactly one of ``value``, ``event``, ``indication``."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "oneOf": [
                {"required": ["value"]},
                {"required": ["event"]},
                {"required": ["indication"]},
            ]
        },
    )


class ScanParams(OutstationParams):
    kind: ScanKind = Field(description="What to read")


class ReadParams(OutstationParams):
    points: Annotated[
        dict[
            PointType,
            Annotated[
                list[PointIndex | IndexRange],
                Field(min_length=1, max_length=READ_ITEMS, fail_fast=True),
            ],
        ],
        at_most(len(PointType.__args__)),
    ] = Field(
        min_length=1,
        description='Indexes or "a-b" ranges by point type; one READ of range headers '
        f"(overlapping and adjacent ones merged), at most {READ_ITEMS} in all, as many as "
        "fit the outstation's max_request_fragment",
    )

    @property
    def by_type(self) -> dict[str, list[int | str]]:
        return {str(kind): list(items) for kind, items in self.points.items()}


class RequestParams(OutstationParams):
    function: RequestFunction
    body: HexText = Field(default="", description="Object data after the function code (hex)")


class OperateParams(OutstationParams):
    points: Annotated[
        dict[
            Literal["bo", "ao"],
            Annotated[
                dict[IndexKey, ControlValue],
                Field(max_length=OPERATE_CONTROLS),
                at_most(OPERATE_CONTROLS),
            ],
        ],
        at_most(2),
    ] = Field(
        min_length=1,
        description="Values by index (as a string key): a binary output takes true/false "
        f"(latch) or an operation by name, an analog output a number; at most "
        f"{OPERATE_CONTROLS} of each type, as many as fit the outstation's "
        "max_request_fragment",
    )
    mode: Literal["direct", "select", "direct_no_ack"] = "direct"
    variation: int | None = Field(default=None, ge=1, le=255, description="Object variation")


class SynchronizeParams(OutstationParams):
    procedure: Literal["lan", "non_lan"] = "lan"


class FreezeParams(OutstationParams):
    clear: bool = Field(default=False, description="Freeze and clear")
    no_ack: bool = Field(default=False, description="The no-acknowledgment form")


class RestartParams(OutstationParams):
    kind: Literal["cold", "warm"] = "cold"


class BroadcastParams(OutstationParams):
    function: RequestFunction
    body: HexText = Field(default="", description="Object data after the function code (hex)")
    address: Literal["no_confirm", "shall_confirm", "optional_confirm"] = "optional_confirm"


class UnsolicitedParams(OutstationParams):
    classes: list[EventClass] = Field(
        default=[1, 2, 3], min_length=1, max_length=CLASS_LIST, fail_fast=True
    )


class RepeatParams(OutstationParams):
    kind: ScanKind | None = Field(
        default=None, description="The scan to repeat; left out, every schedule ends"
    )
    interval: float | None = Field(
        default=None,
        ge=MIN_SCAN_INTERVAL,
        description=f"Seconds between scans, at least {MIN_SCAN_INTERVAL:g}; left out, the "
        "schedule ends",
    )


class AfterParams(OutstationParams):
    after: int = Field(default=0, ge=0, description="Only frames with a greater id")


class ClearParams(OutstationParams):
    what: Literal["frames", "events", "values"] = "frames"


class DeviateParams(OutstationParams):
    deviations: Annotated[
        dict[str, bool | int | float | None],
        at_most(len(DEVIATIONS)),
        AfterValidator(_deviation_names),
        WithJsonSchema(
            {
                "type": "object",
                "propertyNames": {"enum": list(DEVIATIONS)},
                "additionalProperties": {"type": ["boolean", "number", "null"]},
            }
        ),
    ] = Field(description="Deviation name -> true/false, or a parameter (seconds, count...)")

    @property
    def changes(self) -> dict[str, object]:
        return dict(self.deviations.items())
