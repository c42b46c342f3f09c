"""The operations: one declaration each (:mod:`.declaration`), the table (:mod:`.table`),
parameters and results, dispatch to the master and the envelope, and the OpenAPI document. No
transport: HTTP and the line service are in :mod:`gridwire.transports`."""
