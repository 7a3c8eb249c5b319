"""``olmcat render-graph``: Mermaid and DOT upgrade graphs.

The Mermaid graph of small.json's etcd is compared with tests/data/graph/small-etcd.mmd, checked by
hand against the golden: alpha and stable are v0.6.1 <- v0.9.0 <- v0.9.2 (replaces), v0.9.2 skips
v0.9.1 (in no channel: dashed) and has skipRange "< 0.6.0" (which no etcd version satisfies, so
no skipRange edge; the range is shown under the name); beta is v0.6.1 <- v0.9.0; heads are bold;
alpha is the default channel.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import InputError
from olmcat.model import (
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    DeprecationEntry,
    Package,
    PackageCatalog,
)
from olmcat.model.property import Property, package
from olmcat.query.render_graph import package_graph, render
from olmcat.readers.catalog import open_catalog
from tests.support.paths import DATA as TEST_DATA
from tests.support.paths import ROOT, corpus_path

DATA = TEST_DATA / "graph"


def bundle(pkg: str, version: str, *extra: Property) -> Bundle:
    return Bundle(
        f"{pkg}.v{version}", pkg, f"quay.io/x/{pkg}:v{version}", (package(pkg, version), *extra)
    )


def demo(entries: tuple[ChannelEntry, ...] | None = None, **kwargs: object) -> PackageCatalog:
    """demo: stable = 1.0.0 <- 1.1.0 <- 1.2.0 (skips 1.1.1, skipRange >=1.0.0 <1.2.0); fast =
    1.2.0 alone."""
    stable = entries or (
        ChannelEntry("demo.v1.0.0"),
        ChannelEntry("demo.v1.1.0", "demo.v1.0.0"),
        ChannelEntry("demo.v1.2.0", "demo.v1.1.0", ("demo.v1.1.1",), ">=1.0.0 <1.2.0"),
    )
    return PackageCatalog(
        Package("demo", "stable"),
        (
            Channel("stable", "demo", stable),
            Channel("fast", "demo", (ChannelEntry("demo.v1.2.0"),)),
        ),
        tuple(bundle("demo", v) for v in ("1.0.0", "1.1.0", "1.2.0")),
        **kwargs,  # type: ignore[arg-type]
    )


def mermaid(*packages: PackageCatalog, **options: str) -> str:
    return "".join(render(packages, **options))  # type: ignore[arg-type]


# -- the corpus -----------------------------------------------------------------------------------


def test_mermaid_of_small_etcd_matches_the_hand_checked_file() -> None:
    expected = (DATA / "small-etcd.mmd").read_text()
    with open_catalog(corpus_path("expected", "small.json")) as catalog:
        assert "".join(render(catalog.packages(), package="etcd")) == expected
    # What the acceptance names explicitly:
    skip = "etcd-alpha-etcdoperator.v0.9.1 -. skips .-> etcd-alpha-etcdoperator.v0.9.2"
    assert skip in expected.splitlines()[14]
    assert '["etcdoperator.v0.9.2<br/>skipRange: < 0.6.0"]' in expected
    assert 'subgraph etcd-alpha["alpha (default)"]' in expected


def test_the_same_graph_comes_from_the_sqlite_database() -> None:
    expected = (DATA / "small-etcd.mmd").read_text()
    with open_catalog(corpus_path("sqlite", "small.db")) as catalog:
        assert "".join(render(catalog.packages(), package="etcd")) == expected


def test_corpus_skip_range_edges_are_drawn() -> None:
    """multicluster-operators-subscription's heads carry skipRanges over earlier entries."""
    with open_catalog(corpus_path("expected", "upstream-subset.json")) as catalog:
        text = "".join(render(catalog.packages(), package="multicluster-operators-subscription"))
    edges = [line.strip() for line in text.splitlines() if "== skipRange ==>" in line]
    assert edges, text
    for edge in edges:
        source, _, target = edge.partition(" == skipRange ==> ")
        assert source != target


# -- hand-built graphs ----------------------------------------------------------------------------


def test_skips_and_skip_range_edges() -> None:
    text = mermaid(demo())
    assert text == "".join(
        [
            "graph LR\n",
            "  classDef head stroke-width:4px,font-weight:bold\n",
            "  classDef deprecated fill:#E8960F\n",
            "  classDef missing stroke-dasharray:5 5,color:#666\n",
            '  %% package "demo"\n',
            '  subgraph demo["demo"]\n',
            '    %% channel "fast"\n',
            '    subgraph demo-fast["fast"]\n',
            '      demo-fast-demo.v1.2.0["demo.v1.2.0"]\n',
            "      class demo-fast-demo.v1.2.0 head\n",
            "    end\n",
            '    %% channel "stable"\n',
            '    subgraph demo-stable["stable (default)"]\n',
            '      demo-stable-demo.v1.0.0["demo.v1.0.0"]\n',
            '      demo-stable-demo.v1.1.0["demo.v1.1.0"]\n',
            '      demo-stable-demo.v1.2.0["demo.v1.2.0<br/>skipRange: >=1.0.0 <1.2.0"]\n',
            '      demo-stable-demo.v1.1.1["demo.v1.1.1"]\n',
            # by target, then replaces / skips / skipRange, then source
            "      demo-stable-demo.v1.0.0 -- replaces --> demo-stable-demo.v1.1.0\n",
            "      demo-stable-demo.v1.1.0 -- replaces --> demo-stable-demo.v1.2.0\n",
            "      demo-stable-demo.v1.1.1 -. skips .-> demo-stable-demo.v1.2.0\n",
            "      demo-stable-demo.v1.0.0 == skipRange ==> demo-stable-demo.v1.2.0\n",
            "      demo-stable-demo.v1.1.0 == skipRange ==> demo-stable-demo.v1.2.0\n",
            "      class demo-stable-demo.v1.2.0 head\n",
            "      class demo-stable-demo.v1.1.1 missing\n",
            "    end\n",
            "  end\n",
        ]
    )


def test_deprecations_are_marked() -> None:
    deprecation = Deprecation(
        "demo",
        (
            DeprecationEntry("olm.package", "", "use another"),
            DeprecationEntry("olm.channel", "fast", "gone"),
            DeprecationEntry("olm.bundle", "demo.v1.1.0", "CVE"),
        ),
    )
    pkg = demo(deprecations=(deprecation,))
    legacy = Property("olm.deprecated", "{}")
    pkg = PackageCatalog(
        pkg.package,
        pkg.channels,
        (*pkg.bundles[:2], bundle("demo", "1.2.0", legacy)),
        pkg.deprecations,
    )
    text = mermaid(pkg)
    assert "      class demo-stable-demo.v1.1.0,demo-stable-demo.v1.2.0 deprecated\n" in text
    assert "      class demo-fast-demo.v1.2.0 deprecated\n" in text
    assert text.endswith("  end\n  style demo fill:#989695\n  style demo-fast fill:#DCD0FF\n")
    dot = "".join(render([pkg], format="dot"))
    assert 'fillcolor="#E8960F", penwidth=3, style="rounded,filled,bold"' in dot
    assert '    style=filled; fillcolor="#989695";\n' in dot
    assert '      style=filled; fillcolor="#DCD0FF";\n' in dot


def test_minimum_edge_keeps_the_package_and_versions_from_that_bundle() -> None:
    other = PackageCatalog(
        Package("aaa", "stable"),
        (Channel("stable", "aaa", (ChannelEntry("aaa.v1.0.0"),)),),
        (bundle("aaa", "1.0.0"),),
    )
    text = mermaid(other, demo(), minimum_edge="demo.v1.1.0")
    assert "aaa" not in text
    assert "demo.v1.0.0" not in text and "demo.v1.1.1" not in text
    assert "      demo-stable-demo.v1.1.0 -- replaces --> demo-stable-demo.v1.2.0\n" in text
    assert "      demo-stable-demo.v1.1.0 == skipRange ==> demo-stable-demo.v1.2.0\n" in text
    assert "subgraph demo-fast" in text  # v1.2.0 is above the floor there too


def test_output_does_not_depend_on_entry_order() -> None:
    base = demo()
    shuffled = list(base.channels[0].entries)
    random.Random(7).shuffle(shuffled)
    assert shuffled != list(base.channels[0].entries)
    again = demo(tuple(shuffled))
    reordered = PackageCatalog(again.package, tuple(reversed(again.channels)), again.bundles[::-1])
    assert mermaid(reordered) == mermaid(base)
    assert "".join(render([reordered], format="dot")) == "".join(render([base], format="dot"))


def test_ids_are_unique_and_safe() -> None:
    pkg = PackageCatalog(
        Package("p", "a b"),
        (
            Channel("a b", "p", (ChannelEntry("x+1"),)),
            Channel("a_b", "p", (ChannelEntry("x+1"),)),
        ),
        (Bundle("x+1", "p", "img", (package("p", "1.0.0+1"),)),),
    )
    graph = package_graph(pkg)
    assert graph is not None
    ids = [c.id for c in graph.channels] + [n.id for c in graph.channels for n in c.nodes]
    assert ids == ["p-a_b", "p-a_b_2", "p-a_b-x_1", "p-a_b-x_1_2"]


def test_labels_are_escaped() -> None:
    pkg = demo(
        (ChannelEntry("demo.v1.0.0"), ChannelEntry("demo.v1.1.0", "demo.v1.0.0", (), '"odd"'))
    )
    assert '["demo.v1.1.0<br/>skipRange: #quot;odd#quot;"]' in mermaid(pkg)
    assert r'label="demo.v1.1.0\nskipRange: \"odd\""' in "".join(render([pkg], format="dot"))


def test_errors_and_empty_catalogs() -> None:
    with pytest.raises(InputError, match="no package 'nope'"):
        mermaid(demo(), package="nope")
    with pytest.raises(InputError, match=r"unknown minimum edge 'demo\.v9\.0\.0'"):
        mermaid(demo(), minimum_edge="demo.v9.0.0")
    assert mermaid().startswith("graph LR\n")
    assert "".join(render([], format="dot")).endswith("}\n")


# -- graphviz -------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz 'dot' is not installed")
def test_dot_renders_with_graphviz(tmp_path: Path) -> None:
    text = "".join(render([demo()], format="dot"))
    result = subprocess.run(
        ["dot", "-Tsvg"], input=text, capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    svg = result.stdout
    for name in (
        "demo.v1.0.0",
        "demo.v1.1.1",
        "stable (default)",
        "skipRange: &gt;=1.0.0 &lt;1.2.0",
    ):
        assert name in svg


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz 'dot' is not installed")
def test_corpus_dot_renders_with_graphviz() -> None:
    with open_catalog(corpus_path("expected", "small.json")) as catalog:
        text = "".join(render(catalog.packages(), format="dot"))
    result = subprocess.run(
        ["dot", "-Tsvg"], input=text, capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 0, result.stderr
    svg = result.stdout.replace("&#45;", "-")  # graphviz writes '-' as an entity
    assert "strimzi-cluster-operator.v0.12.2" in svg and "etcdoperator.v0.9.2" in svg


def test_the_readme_picture_is_the_rendered_etcd_graph() -> None:
    picture = ROOT / "docs" / "graph-etcd.svg"
    svg = picture.read_text()
    assert svg.lstrip().startswith("<?xml")
    for name in ("etcdoperator.v0.9.1", "alpha (default)", "skipRange: &lt; 0.6.0"):
        assert name in svg


# -- the command ----------------------------------------------------------------------------------


def write_demo(root: Path) -> Path:
    pkg = demo()
    blobs: list[dict[str, object]] = [
        {"schema": "olm.package", "name": "demo", "defaultChannel": "stable"}
    ]
    for channel in pkg.channels:
        entries = []
        for e in channel.entries:
            item: dict[str, object] = {"name": e.name}
            if e.replaces:
                item["replaces"] = e.replaces
            if e.skips:
                item["skips"] = list(e.skips)
            if e.skip_range:
                item["skipRange"] = e.skip_range
            entries.append(item)
        blobs.append(
            {"schema": "olm.channel", "name": channel.name, "package": "demo", "entries": entries}
        )
    for b in pkg.bundles:
        blobs.append(
            {
                "schema": "olm.bundle",
                "name": b.name,
                "package": "demo",
                "image": b.image,
                "properties": [
                    {"type": p.type, "value": json.loads(p.value)} for p in b.properties
                ],
            }
        )
    root.mkdir()
    (root / "catalog.json").write_text("\n".join(json.dumps(b) for b in blobs))
    return root


def test_cli_mermaid_and_dot(tmp_path: Path) -> None:
    root = write_demo(tmp_path / "fbc")
    runner = CliRunner()
    result = runner.invoke(cli, ["render-graph", str(root)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == mermaid(demo())
    result = runner.invoke(cli, ["render-graph", str(root), "--format", "dot", "-p", "demo"])
    assert result.exit_code == 0
    assert result.stdout == "".join(render([demo()], format="dot"))
    result = runner.invoke(cli, ["render-graph", str(root), "--minimum-edge", "demo.v1.2.0"])
    assert result.exit_code == 0
    assert "demo.v1.1.0" not in result.stdout


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    root = write_demo(tmp_path / "fbc")
    runner = CliRunner()
    result = runner.invoke(cli, ["render-graph", str(root), "--package", "nope"])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"olmcat: error: {root}: no package 'nope' in the catalog\n"
    result = runner.invoke(cli, ["render-graph", str(root), "--minimum-edge", "x.v1"])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith("olmcat: error: unknown minimum edge 'x.v1'")
