"""The layers point down only, no module imports itself through others, no file is long.

Each package of ``src/gridwire`` has a place in :data:`LAYERS`; a module may import from its
own package and from the packages before its own, never from one after it (a lower layer
knows nothing of what is built on it: ``master/`` never imports ``evaluate/``). Imports
made only for type checking count too. The modules, taken one by one, import one another
without a cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

LAYERS = (
    "__init__",  # the package face: __version__
    "errors",
    "process",  # host clock, the caller, heap settling
    "dnp3",  # the sans-IO protocol core
    "net",  # binding, sockets, HTTP serving, limits, origin, token, TLS files
    "capture",
    "channels",  # TCP, TLS, serial, UDP; several outstations on one channel
    "master",
    "outstation",
    "der",  # the IEEE 1815.2 point map
    "devprofile",
    "derops",  # the DER procedures
    "simulator",
    "evaluate",
    "sep2",
    "operations",  # declarations, table, dispatch, OpenAPI
    "gateway",  # 2030.5 DER controls applied to a 1815.2 DER
    "console",  # the page's static files
    "transports",  # HTTP, the line service, event streams
    "cluster",  # workers and fronts on NATS
    "service",  # the process: configuration, runner
    "cli",
    "__main__",
)


def _module(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> Iterator[str]:
    """Every gridwire module ``path`` imports, type-checking imports included."""
    package = _module(path).rsplit(".", 1)[0] if path.name != "__init__.py" else _module(path)
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("gridwire"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            if not base.startswith("gridwire"):
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                yield candidate if _exists(candidate) else base


def _exists(module: str) -> bool:
    path = SRC.joinpath(*module.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _layer(module: str) -> int:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    return LAYERS.index(top.removesuffix(".py"))


def _graph() -> dict[str, set[str]]:
    return {
        _module(p): {m for m in _imports(p) if _exists(m)}
        for p in sorted((SRC / "gridwire").rglob("*.py"))
    }


def test_every_package_has_a_layer() -> None:
    tops = {p.stem if p.is_file() else p.name for p in (SRC / "gridwire").iterdir()}
    tops -= {"py", "__pycache__", "py.typed"}
    assert {t for t in tops if not t.startswith(".")} - {"py"} <= set(LAYERS)


def test_no_import_points_up() -> None:
    upward = [
        f"{module} imports {target}"
        for module, targets in _graph().items()
        for target in targets
        if _layer(target) > _layer(module)
    ]
    assert upward == []


def test_no_module_imports_itself_through_others() -> None:
    graph = _graph()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(module: str, trail: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if target.startswith(f"{module}.") or module.startswith(f"{target}."):
                continue  # a package and its own modules
            if state.get(target) == 1:
                cycles.append([*trail[trail.index(target) :], target] if target in trail else [])
            elif target not in state:
                visit(target, [*trail, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert [c for c in cycles if c] == []


def test_no_source_file_is_over_500_lines() -> None:
    longest = 500
    over = {
        str(p.relative_to(SRC)): n
        for p in (SRC / "gridwire").rglob("*")
        if p.suffix in {".py", ".js", ".css", ".j2"}
        and (n := len(p.read_text().splitlines())) > longest
    }
    assert over == {}
