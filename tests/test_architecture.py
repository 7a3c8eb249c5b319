"""The layers of src/olmcat, checked on every import statement (function-level ones included).

A module may import from its own layer or below, never above; top-level packages must not import
each other in a cycle, and no module imports itself through others (no import circle anywhere).
A new top-level package or module must be given a layer here.
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
    "pictures": 4,
    "olmv1": 4,
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


def _module_name(path: Path, src: Path = SRC) -> str:
    """``src/olmcat/readers/fbc.py`` -> ``olmcat.readers.fbc``; a package's ``__init__.py`` is
    the package itself."""
    parts = (src.name, *path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, src: Path = SRC) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    package = ".".join((src.name, *path.relative_to(src).with_suffix("").parts))
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
            if target == src.name:
                found += [(node.lineno, f"{src.name}.{alias.name}") for alias in node.names]
    return found


def _module_imports(src: Path) -> dict[str, set[str]]:
    """Module -> the modules of ``src`` it imports, from every import statement anywhere in it
    (function-level and ``TYPE_CHECKING`` ones included). ``from P import m`` imports module
    ``P.m`` when ``m`` is one, else ``P`` itself (its ``__init__``); a module's own parent
    packages, which Python loads first, are not counted as imports of it."""
    paths = {_module_name(path, src): path for path in sorted(src.rglob("*.py"))}
    edges: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - node.level + 1]
                    module = ".".join([*base, node.module] if node.module else base)
                else:
                    module = node.module or ""
                submodules = [
                    f"{module}.{alias.name}"
                    for alias in node.names
                    if f"{module}.{alias.name}" in paths
                ]
                targets = submodules + ([module] if len(submodules) < len(node.names) else [])
            for target in targets:
                while target not in paths and "." in target:  # ``import a.b.c`` of a name in b
                    target = target.rpartition(".")[0]
                if target in paths and target != name:
                    edges[name].add(target)
    return edges


def _import_circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import each other (directly or through others), each as one
    circle ``a -> b -> ... -> a`` through it, sorted (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    circles = []
    for group in groups:
        start = min(group)
        # the shortest way back to ``start`` inside the group (breadth first)
        previous: dict[str, str] = {}
        frontier = [start]
        while frontier and start not in previous:
            following = []
            for node in frontier:
                for target in sorted(edges[node] & group):
                    if target not in previous:
                        previous[target] = node
                        following.append(target)
            frontier = following
        path = [start]
        while (node := previous[path[-1]]) != start:
            path.append(node)
        circles.append([start, *reversed(path)])
    return sorted(circles)


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


def test_no_module_imports_itself_through_others() -> None:
    circles = _import_circles(_module_imports(SRC))
    assert circles == [], "\n".join(" -> ".join(circle) for circle in circles)


def test_import_circles_are_found_through_function_level_and_type_checking_imports(
    tmp_path: Path,
) -> None:
    src = tmp_path / "pkg"
    (src / "sub").mkdir(parents=True)
    (src / "__init__.py").write_text("from pkg.low import base\n")
    (src / "low.py").write_text("base = 1\n")
    (src / "sub" / "__init__.py").write_text("")
    (src / "sub" / "a.py").write_text("from pkg.sub import b\n")
    (src / "sub" / "b.py").write_text("def f():\n    from . import c\n")
    (src / "sub" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.sub.a\n"
    )
    (src / "sub" / "d.py").write_text("from pkg import base\nfrom pkg.sub.a import x\n")
    assert _import_circles(_module_imports(src)) == [
        ["pkg.sub.a", "pkg.sub.b", "pkg.sub.c", "pkg.sub.a"]
    ]
    # a package's __init__ importing its own submodules is no circle; importing a name the
    # package's __init__ defines from a module that __init__ imports is one
    (src / "low.py").write_text("from pkg import other\nbase = 1\n")
    assert _import_circles(_module_imports(src))[0] == ["pkg", "pkg.low", "pkg"]


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
