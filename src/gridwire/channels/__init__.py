"""Channels: what a DNP3 connection is made over (TCP, TLS, serial, UDP), and several
outstations sharing one channel by link address (multi-drop). Below the master, above the
sans-IO core: a channel moves octets; the master's sessions frame and answer them."""
