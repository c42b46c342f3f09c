"""What is process-wide: the host clock, the client behind a message (a context variable),
and the settling of the heap of a long-running command."""
