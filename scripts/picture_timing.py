#!/usr/bin/env python3
"""Time olmcat's version-lane layout against Graphviz on the same upgrade graphs, alternating.

For each graph: olmcat's layout and SVG drawing (in this process: the layout is pure Python and
has no start-up of its own) and each Graphviz program found (``dot`` on PATH, and any other given
with ``--graphviz NAME``) on the DOT text ``olmcat render-graph --format dot`` writes for the same
package, ``-Tsvg``, as a child process (its start-up included: that is what using it would cost).
Runs alternate so that load from other processes hits every side alike. Prints medians.

    python scripts/picture_timing.py                       # the largest corpus channel
    python scripts/picture_timing.py --dense 300 --runs 5  # plus a synthetic 300-entry channel
    python scripts/picture_timing.py --graphviz graphviz-pure
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from olmcat.model import Bundle, Channel, ChannelEntry, Package, PackageCatalog
from olmcat.model.property import package
from olmcat.pictures.graph import package_picture
from olmcat.pictures.lanes import draw
from olmcat.query.render_graph import package_graph, write_dot
from olmcat.readers.catalog import open_catalog

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "sqlite"


def largest_channel() -> tuple[str, PackageCatalog]:
    """The package holding the corpus channel with the most entries, reduced to that channel."""
    best: tuple[int, str, PackageCatalog] | None = None
    for db in sorted(CORPUS.glob("*.db")):
        with open_catalog(db) as catalog:
            for pkg in catalog.packages():
                for channel in pkg.channels:
                    size = len(channel.entries)
                    if best is None or size > best[0]:
                        only = PackageCatalog(pkg.package, (channel,), pkg.bundles)
                        best = (size, f"{db.name} {pkg.name}/{channel.name}", only)
    assert best is not None, f"no catalog in {CORPUS}"
    return best[1], best[2]


def dense(entries: int) -> PackageCatalog:
    """A channel of ``entries`` bundles, each replacing the previous one and with a skipRange
    over every older one (the shape of many real operators' channels)."""
    versions = [f"1.{m}.0" for m in range(entries)]
    names = [f"op.v{v}" for v in versions]
    chain = tuple(
        ChannelEntry(name, names[i - 1] if i else "", (), f">=1.0.0 <{versions[i]}")
        for i, name in enumerate(names)
    )
    bundles = tuple(
        Bundle(n, "op", f"x/op:{v}", (package("op", v),))
        for n, v in zip(names, versions, strict=True)
    )
    return PackageCatalog(Package("op", "stable"), (Channel("stable", "op", chain),), bundles)


def time_olmcat(pkg: PackageCatalog) -> float:
    started = time.perf_counter()
    graph = package_graph(pkg)
    assert graph is not None
    draw(package_picture(graph))
    return time.perf_counter() - started


def time_graphviz(program: str, dot_text: str, limit: float) -> float:
    """Seconds for one run; ``inf`` when it takes longer than ``limit``."""
    started = time.perf_counter()
    try:
        subprocess.run(
            [program, "-Tsvg"],
            input=dot_text.encode(),
            capture_output=True,
            check=True,
            timeout=limit,
        )
    except subprocess.TimeoutExpired:
        return float("inf")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--dense", type=int, action="append", default=[], metavar="ENTRIES")
    parser.add_argument("--graphviz", action="append", default=[], metavar="PROGRAM")
    parser.add_argument("--limit", type=float, default=120.0, help="seconds per Graphviz run")
    args = parser.parse_args()
    graphs = [largest_channel()]
    graphs += [(f"synthetic dense channel of {n} entries", dense(n)) for n in args.dense]
    programs = [p for p in ["dot", *args.graphviz] if shutil.which(p)]
    for label, pkg in graphs:
        graph = package_graph(pkg)
        assert graph is not None
        nodes = sum(len(c.nodes) for c in graph.channels)
        edges = sum(len(c.edges) for c in graph.channels)
        dot_text = "digraph catalog {\n  rankdir=LR;\n" + write_dot(graph) + "}\n"
        times: dict[str, list[float]] = {"olmcat": []}
        for _ in range(args.runs):
            times["olmcat"].append(time_olmcat(pkg))
            for program in programs:
                times.setdefault(program, []).append(time_graphviz(program, dot_text, args.limit))
        print(f"{label}: {nodes} nodes, {edges} edges", flush=True)
        for name, values in times.items():
            print(
                f"  {name:16} median {statistics.median(values) * 1000:9.1f} ms  "
                f"(min {min(values) * 1000:.1f}, {len(values)} runs)",
                flush=True,
            )


if __name__ == "__main__":
    main()
