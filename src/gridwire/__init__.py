"""gridwire: a DNP3 (IEEE 1815) master with a JSON operations API, a simulated IEEE 1815.2
DER outstation, and an IEEE 2030.5 client with a management API."""

__version__ = "0.1.0"
