"""The edges every listening program shares: binding an address, listening sockets, HTTP serving
(lingering close, deadlines), connection limits, the Host/Origin rule, the bearer token guard
and TLS files."""
