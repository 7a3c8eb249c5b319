"""The template commands end to end: exit codes, reports, stdout, options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from tests.support.paths import FIXTURES, catalog_blobs, parse_stream
from tests.support.template_strategies import POOL, write_pool

EXAMPLE = FIXTURES / "example" / "expected"


def invoke(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    """A small catalog whose bundles have images: the pool's demo bundles 1.0.0 - 2.1.0."""
    refs = write_pool(tmp_path / "pool")
    mapping = tmp_path / "map.txt"
    mapping.write_text("".join(f"{r}={d}\n" for r, d in refs.items()))
    versions = ["1.0.0", "1.0.1", "1.1.0", "2.0.0", "2.1.0"]
    chosen = [b.ref for b in POOL if b.package == "demo" and b.version in versions]
    template = tmp_path / "t.yaml"
    template.write_text(
        "schema: olm.semver\nstable:\n  bundles:\n" + "".join(f"  - image: {r}\n" for r in chosen)
    )
    code, _, err = invoke(
        "render-template",
        "semver",
        str(template),
        "--bundle-map",
        str(mapping),
        "--out",
        str(tmp_path / "catalog"),
    )
    assert code == 0, err
    return tmp_path / "catalog"


def test_semver_template_of_a_semver_catalog_is_exact(catalog: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    code, out, err = invoke(
        "template",
        "semver",
        str(catalog),
        str(tmp_path / "t"),
        "--report",
        str(report),
        "--strict",
    )
    assert code == 0, err
    assert "round trip: 1 exact" in out
    document = json.loads(report.read_text())
    assert document["schema"] == "olmcat.template-report.v1" and document["exact"]
    assert document["packages"][0]["settings"]["generateMinorChannels"] is True
    text = (tmp_path / "t" / "demo.yaml").read_text()
    assert text.startswith("schema: olm.semver\ngenerateMajorChannels: false\n")


def test_strict_fails_when_the_graph_would_change(tmp_path: Path) -> None:
    out = tmp_path / "t"
    code, stdout, err = invoke("template", "basic", str(EXAMPLE), str(out), "--strict")
    # the example's bundles have no image: left out, so the round trip loses them
    assert code == 1 and "--strict" in err
    assert "- bundle hello-operator.v0.1.0" in stdout
    assert sorted(p.name for p in out.iterdir()) == ["hello-operator.json", "world-operator.json"]
    code, _, err = invoke(
        "template", "basic", str(EXAMPLE), str(tmp_path / "t2"), "--inline-bundles", "--strict"
    )
    assert code == 0, err


def test_stdout_needs_one_package(tmp_path: Path) -> None:
    code, _, err = invoke("template", "basic", str(EXAMPLE), "-")
    assert code == 1 and "exactly one" in err
    code, out, err = invoke(
        "template",
        "basic",
        str(EXAMPLE),
        "-",
        "-p",
        "world-operator",
        "--inline-bundles",
        "--opm-version",
        "1.26",  # the plain FBC stream form
    )
    assert code == 0, err
    assert parse_stream(out)[0]["name"] == "world-operator"
    assert "round trip: 1 exact" in err  # the report goes to stderr when stdout is the template


def test_inline_bundles_render_only_with_the_flag(tmp_path: Path) -> None:
    invoke("template", "basic", str(EXAMPLE), str(tmp_path / "t"), "--inline-bundles")
    template = tmp_path / "t" / "hello-operator.json"
    code, _, err = invoke("render-template", "basic", str(template))
    assert code == 1 and "unexpected fields present in basic template bundle" in err
    code, out, _ = invoke("render-template", str(template), "--inline-bundles")  # type detected
    assert code == 0
    assert out == (EXAMPLE / "hello-operator" / "catalog.json").read_text()


def test_render_template_from_stdin_and_yaml(catalog: Path, tmp_path: Path) -> None:
    invoke("template", "semver", str(catalog), str(tmp_path / "t"))
    text = (tmp_path / "t" / "demo.yaml").read_text()
    code, out, err = invoke(
        "render-template", "-o", "yaml", "--resolve-from", str(catalog), stdin=text
    )
    assert code == 0, err
    assert out.startswith("---\ndefaultChannel: stable-v2.1\nname: demo\nschema: olm.package\n")
    code, out, _ = invoke(
        "render-template",
        "semver",
        "-",
        "-o",
        "mermaid",
        "--resolve-from",
        str(catalog),
        stdin=text,
    )
    assert code == 0 and out.startswith('graph LR\n  %% package "demo"\n')


def test_v172_form_and_options(catalog: Path, tmp_path: Path) -> None:
    code, _, err = invoke(
        "template",
        "basic",
        str(catalog),
        str(tmp_path / "t"),
        "--opm-version",
        "1.72",
        "--format",
        "yaml",
    )
    assert code == 0, err
    text = (tmp_path / "t" / "demo.yaml").read_text()
    assert text.startswith("schema: olm.template.basic\nentries:\n- ")
    code, out, err = invoke(
        "render-template",
        str(tmp_path / "t" / "demo.yaml"),
        "--resolve-from",
        str(catalog),
        "--opm-version",
        "1.72",
    )
    assert code == 0, err
    assert list(parse_stream(out)) == list(catalog_blobs(catalog))


def test_usage_errors(catalog: Path, tmp_path: Path) -> None:
    assert invoke("render-template", "nonsense", "file")[0] == 2
    code, _, _ = invoke(
        "template", "semver", str(catalog), str(tmp_path / "t"), "--archetype", "alpha=beta"
    )
    assert code == 2
    code, _, err = invoke("render-template", "semver", str(tmp_path / "missing.yaml"))
    assert code == 1 and "no such file" in err
    template = tmp_path / "t.yaml"
    # port 1 on loopback: nothing listens, so pulling fails at once (no test leaves loopback)
    template.write_text("schema: olm.semver\nstable:\n  bundles:\n  - image: 127.0.0.1:1/x/y:1\n")
    code, _, err = invoke("render-template", str(template), "--use-http")
    assert code == 1 and "cannot resolve bundle image 127.0.0.1:1/x/y:1" in err
    assert "pulling it failed" in err
    code, _, err = invoke("render-template", str(template), "--no-pull")
    assert code == 1 and "pulling from registries is off (--no-pull)" in err
