"""The checks, one module per family (profile, monitoring, service, curves, modes, link,
confirmation). Each module defines the functions the catalogue names
(:data:`gridwire.evaluate.catalogue.CATALOGUE`): ``async def name(ctx: CheckContext) -> None``.
A family module not written yet is simply absent: its checks are reported not_run ("not
implemented in this build")."""
