"""The application layer: :mod:`.control` (the control octet), :mod:`.functions` (function
codes), :mod:`.iin` (internal indications), :mod:`.headers` (object headers and qualifiers)
and :mod:`.fragments` (parsing and encoding request and response fragments)."""
