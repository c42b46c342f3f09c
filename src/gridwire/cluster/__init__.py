"""The cluster: many gridwire processes on many machines behind one operations API, on NATS.

Workers run masters and hold outstations under leases kept in JetStream key-value buckets; a
front serves the same operations, OpenAPI and events over every outstation of the cluster. The
embedded default (one process, no NATS) does not use this package."""
