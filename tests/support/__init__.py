"""Helpers shared by the test suite: free ports, processes stopped by pid, ../shared data,
and the external tools (tshark) tests check our output with."""
