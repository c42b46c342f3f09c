"""The object library: :mod:`.table` declares every group and variation as data; :mod:`.fixed`
compiles fixed-size layouts into decoders and encoders; :mod:`.packed`, :mod:`.attributes`
and :mod:`.freeformat` read the special layouts; :mod:`.decode` decodes the objects of one
header and :mod:`.encode` builds a header and its objects. :mod:`.records` holds what comes
out (:class:`~.records.DnpObject`), :mod:`.flags`, :mod:`.controls` and :mod:`.times` the
names of flags, command statuses and interval units."""
