"""The IEEE 1815.2 DER procedures (the ``der.*`` operations), above the master and the point
map: reading points by name in engineering units, writing settings, switching functions, and
the curve block. Written against :class:`gridwire.master.Master`'s public API and
:class:`gridwire.der.PointMap`; ``gridwire.master`` never imports this package.
"""
