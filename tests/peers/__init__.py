"""Third-party DNP3 peers run as subprocesses (programs here), and the proof that the harness
in tests/support/peers.py drives them (test_harness.py)."""
