from tests.sep2.conftest import headend, pki

__all__ = ["headend", "pki"]
