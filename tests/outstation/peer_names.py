"""How the third-party peer harness (tests/support/peers.py) names gridwire's point types."""

PEER_TYPES = {
    "bi": "binary",
    "dbi": "double_bit",
    "bo": "binary_output_status",
    "counter": "counter",
    "frozen": "frozen_counter",
    "ai": "analog",
    "ao": "analog_output_status",
}
