"""The transports of the operations: the HTTP app and server (routes, server-sent events),
the line service, event streams and the JSON encoding of answers; :class:`~gridwire.transports.service.Service`
ties a table of operations to them."""
