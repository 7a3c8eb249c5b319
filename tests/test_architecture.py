"""The layers of src/olmcat, checked on every import statement (function-level ones included).

A module may import from its own layer or below, never above; top-level packages must not import
each other in a cycle. A new top-level package or module must be given a layer here.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from tests.support.paths import ROOT

SRC = ROOT / "src" / "olmcat"

# Bottom to top. Operations may use other operations (diff is used by mirror, templates, ...),
# as long as no two of them depend on each other.
LAYERS: dict[str, int] = {
    "errors": 0,
    "notices": 0,
    "go": 1,
    "files": 1,
    "oci": 2,
    "model": 2,
    "readers": 3,
    "writers": 3,
    "migrate": 4,
    "diff": 4,
    "validate": 4,
    "mirror": 4,
    "query": 4,
    "templates": 4,
    "maintain": 4,
    "upgrade": 4,
    "export": 4,
    "render": 4,
    "__init__": 5,
    "commands": 6,
    "cli": 6,
    "__main__": 6,
}


def _top(module: str) -> str | None:
    """``olmcat.readers.fbc`` -> ``readers``; ``olmcat`` -> ``__init__``; others -> None."""
    parts = module.split(".")
    if parts[0] != "olmcat":
        return None
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    package = ".".join(("olmcat", *path.relative_to(SRC).with_suffix("").parts))
    if path.name == "__init__.py":
        package = package.rsplit(".", 1)[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the importing module's package
                base = package.split(".")
                base = base[: len(base) - node.level + 1] if node.level > 1 else base
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            # ``from olmcat import diff`` names a subpackage, not an attribute
            if target == "olmcat":
                found += [(node.lineno, f"olmcat.{alias.name}") for alias in node.names]
    return found


def _modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def test_every_top_level_package_has_a_layer() -> None:
    tops = {path.relative_to(SRC).parts[0].removesuffix(".py") for path in _modules()}
    assert sorted(tops - set(LAYERS)) == [], "give the new package a layer in LAYERS"


def test_no_module_imports_a_layer_above_its_own() -> None:
    violations = []
    for path in _modules():
        own = path.relative_to(SRC).parts[0].removesuffix(".py")
        for line, module in _imports(path):
            target = _top(module)
            if target is None or target == own or target not in LAYERS:
                continue
            if target == "__init__" and module != "olmcat":
                continue
            if LAYERS[target] > LAYERS[own]:
                violations.append(f"{path.relative_to(ROOT)}:{line} ({own}) imports {module}")
    assert violations == []


def test_top_level_packages_do_not_import_each_other_in_a_cycle() -> None:
    edges: dict[str, set[str]] = defaultdict(set)
    for path in _modules():
        own = path.relative_to(SRC).parts[0].removesuffix(".py")
        for _, module in _imports(path):
            target = _top(module)
            if target is not None and target != own and target in LAYERS and module != "olmcat":
                edges[own].add(target)
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(node: str, path: list[str]) -> bool:
        state[node] = 1
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycle.extend([*path, node, nxt])
                return True
            if nxt not in state and visit(nxt, [*path, node]):
                return True
        state[node] = 2
        return False

    for node in sorted(edges):
        if node not in state and visit(node, []):
            break
    assert cycle == [], " -> ".join(cycle)


def test_no_test_module_imports_another_test_module() -> None:
    # Shared builders, strategies and data live in tests/support/; importing a test module would
    # also collect its tests twice and tie unrelated suites together.
    offenders = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in names:
                parts = name.split(".")
                if parts[0] == "tests" and any(part.startswith("test_") for part in parts[1:]):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {name}")
    assert offenders == []
