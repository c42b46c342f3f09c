"""The DNP3 (IEEE 1815) protocol core, sans-IO.

Layers, bottom up: :mod:`.crc`, :mod:`.link` (FT3 frames), :mod:`.transport` (segments),
:mod:`.app` (fragments, headers, function codes, indications), :mod:`.objects` (the
group/variation table and its codec), and :mod:`.requests` (what a master sends). Every
function takes octets and returns octets or records; time comes from an injected clock.
Nothing here opens a socket or touches asyncio.
"""
