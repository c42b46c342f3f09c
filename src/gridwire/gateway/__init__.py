"""The gateway: IEEE 2030.5 DER controls from a utility's head-end, scheduled on the head-end's
clock and applied to an IEEE 1815.2 DER over DNP3 through the der.* operations, with the DER
reported back to the head-end."""
