"""scripts/picture_timing.py: the graphs it times are the ones docs/architecture.md names."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from types import ModuleType

from olmcat.query.render_graph import package_graph
from tests.support.paths import ROOT

SCRIPT = ROOT / "scripts" / "picture_timing.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("picture_timing", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_dense_channel_has_a_range_edge_from_every_older_bundle() -> None:
    graph = package_graph(_load().dense(20))
    assert graph is not None
    (channel,) = graph.channels
    kinds = [edge.kind for edge in channel.edges]
    # each bundle replaces the previous one and its range takes every older one: 19 + 190 = 209
    assert (len(channel.nodes), kinds.count("replaces"), kinds.count("skipRange")) == (20, 19, 190)


def test_help() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "--graphviz" in done.stdout
