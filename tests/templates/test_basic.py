"""Basic templates: both forms, what opm's struct decoding does to blobs, the writer's order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from olmcat.errors import InputError, OutputError
from olmcat.notices import NoticeLog
from olmcat.templates import BundleResolver, detect_kind, render_template, render_text
from tests.support.paths import parse_stream
from tests.support.template_strategies import PIXEL, POOL, write_pool


@pytest.fixture(scope="module")
def refs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_pool(tmp_path_factory.mktemp("pool"))


DEMO_1 = next(b.ref for b in POOL if b.name == "demo.v1.0.0")


def render(
    refs: dict[str, Path], text: str, opm: str = "1.26", output: str = "json", **kw: Any
) -> str:
    with BundleResolver(bundle_dirs=refs) as resolver:
        config = render_template("basic", text, resolver, opm=opm, **kw)  # type: ignore[arg-type]
        return "".join(render_text(config, output, opm=opm))  # type: ignore[arg-type]


def stream(*blobs: dict[str, Any]) -> str:
    return "".join(json.dumps(b) + "\n" for b in blobs)


def test_bundle_references_become_rendered_bundles(refs: dict[str, Path]) -> None:
    text = stream(
        {"schema": "olm.package", "name": "demo", "defaultChannel": "stable"},
        {
            "schema": "olm.channel",
            "name": "stable",
            "package": "demo",
            "entries": [{"name": "demo.v1.0.0"}],
        },
        {"schema": "olm.bundle", "image": DEMO_1},
    )
    blobs = parse_stream(render(refs, text))
    bundle = blobs[2]
    assert (bundle["name"], bundle["package"], bundle["image"]) == ("demo.v1.0.0", "demo", DEMO_1)
    assert {"type": "olm.package", "value": {"packageName": "demo", "version": "1.0.0"}} in bundle[
        "properties"
    ]


def test_v172_form_renders_like_the_plain_stream(refs: dict[str, Path]) -> None:
    entries = [
        {"schema": "olm.package", "name": "demo", "defaultChannel": "stable"},
        {"schema": "olm.bundle", "image": DEMO_1},
    ]
    wrapped = json.dumps({"schema": "olm.template.basic", "entries": entries})
    assert detect_kind(wrapped, "t") == "basic"
    assert render(refs, wrapped) == render(refs, stream(*entries))
    yaml_form = "schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: demo\n"
    assert parse_stream(render(refs, yaml_form)) == [
        {"schema": "olm.package", "name": "demo", "defaultChannel": ""}
    ]


def test_full_bundles_are_refused_unless_inlined(refs: dict[str, Path]) -> None:
    full = {
        "schema": "olm.bundle",
        "name": "x.v1",
        "package": "x",
        "image": "example.com/x:1",
        "properties": [{"type": "olm.package", "value": {"packageName": "x", "version": "1.0.0"}}],
    }
    with pytest.raises(InputError, match="unexpected fields present in basic template bundle"):
        render(refs, stream(full))
    notices = NoticeLog()
    with BundleResolver() as resolver:
        config = render_template(
            "basic", stream(full), resolver, inline_bundles=True, notify=notices
        )
    assert parse_stream("".join(render_text(config))) == [full]
    assert notices.codes()["template.inline-bundle"] == 1


def test_structs_normalise_blobs(refs: dict[str, Path]) -> None:
    wrapped_icon = PIXEL[:10] + "\n" + PIXEL[10:]
    text = stream(
        {
            "defaultChannel": "a",
            "schema": "olm.package",
            "Name": "demo",  # field names match case-insensitively
            "unknown": [1, 2],  # unknown fields disappear
            "icon": {"mediatype": "image/png", "base64data": wrapped_icon},
        },
        {"schema": "olm.channel", "name": "a", "package": "demo"},  # no entries: null
        {
            "schema": "olm.channel",
            "name": "b",
            "package": "demo",
            "entries": [{"skips": [], "name": "x"}],
        },
    )
    out = render(refs, text)
    blobs = parse_stream(out)
    assert blobs[0] == {
        "schema": "olm.package",
        "name": "demo",
        "defaultChannel": "a",
        "icon": {"base64data": PIXEL, "mediatype": "image/png"},  # decoded, re-encoded
    }
    assert blobs[1]["entries"] is None
    assert blobs[2]["entries"] == [{"name": "x"}]
    with pytest.raises(InputError, match="illegal base64"):
        render(refs, stream({"schema": "olm.package", "name": "d", "icon": {"base64data": "!!"}}))


def test_wrong_types_are_refused_like_go_json(refs: dict[str, Path]) -> None:
    with pytest.raises(InputError, match="cannot unmarshal number"):
        render(refs, stream({"schema": "olm.package", "name": 3}))
    with pytest.raises(InputError, match="missing root schema"):
        render(refs, stream({"name": "x"}))
    # yaml.v2 reads "n" as a boolean, which no string field accepts
    with pytest.raises(InputError, match="cannot unmarshal bool"):
        render(
            refs, "schema: olm.channel\nname: a\npackage: p\nentries:\n- name: x\n  replaces: n\n"
        )


def test_yaml_v2_numbers_are_numbers(refs: dict[str, Path]) -> None:
    # yaml.v2 reads 0E0, 1e3 and 0o17 as numbers (PyYAML's YAML 1.1 reads them as strings); opm
    # then refuses them in a string field; values checked against the oracle opm v1.26.5.
    for spelling in ("0E0", "1e3", "0o17", "0x1F"):
        with pytest.raises(InputError, match="cannot unmarshal number"):
            render(refs, f"schema: olm.package\nname: demo\ndescription: {spelling}\n")
    out = render(refs, "schema: acme.note\npackage: demo\na: 1e3\nb: 0o17\nc: 08\nd: 1_0\n")
    note = json.loads(out)
    assert (note["a"], note["b"], note["c"], note["d"]) == (1000, 15, 8, 10)


def test_an_alias_bomb_is_one_line_naming_the_file_once(refs: dict[str, Path]) -> None:
    rows = ["schema: acme.note", "a: &a [x, x, x, x, x, x, x, x, x]"]
    for previous, name in zip("abcdef", "bcdefg", strict=True):
        rows.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    with pytest.raises(InputError) as caught:
        render(refs, "\n".join(rows) + "\n")
    message = str(caught.value)
    assert "YAML aliases expand" in message and "\n" not in message
    assert "not valid YAML" not in message  # the bound, not a syntax error


def test_raw_values_keep_their_json_spelling(refs: dict[str, Path]) -> None:
    text = (
        '{"schema":"olm.package","name":"demo","properties":[{"type":"t","value":'
        '{"b":1.50,"a":"\\u00e9\\/"}}]}\n'
        '{"schema":"acme.note","package":"demo","z":1,"a":"\\u003ctag\\u003e"}\n'
    )
    out = render(refs, text)
    assert '"b": 1.50' in out and '"a": "\\u00e9\\/"' in out  # RawMessage: as written
    assert '"a": "<tag>"' in out  # opm v1.26.5 un-escapes \u003c \u003e \u0026 before decoding
    assert out.index('"z"') < out.index('"a": "<tag>"')  # key order kept
    # YAML goes through sigs.k8s.io/yaml: keys sorted
    yaml_out = render(refs, "schema: acme.note\npackage: demo\nz: 1\na: b\n")
    assert yaml_out.index('"a"') < yaml_out.index('"z"')


def test_writer_order(refs: dict[str, Path]) -> None:
    text = stream(
        {"schema": "zz.global", "name": "g2"},
        {"schema": "b.other", "package": "demo", "name": "second"},
        {"schema": "olm.channel", "name": "b", "package": "demo", "entries": []},
        {"schema": "olm.deprecations", "package": "demo", "entries": []},
        {"schema": "a.other", "package": "demo", "name": "first"},
        {"schema": "b.other", "package": "demo", "name": "a-third"},
        {"schema": "olm.bundle", "image": DEMO_1},
        {"schema": "olm.channel", "name": "a", "package": "demo", "entries": []},
        {"schema": "olm.package", "name": "demo"},
        {"schema": "aa.global", "name": "g1"},
    )

    def order(out: str) -> list[tuple[str, str]]:
        return [(b["schema"], b.get("name", "")) for b in parse_stream(out)]

    # v1.26.5: package, channels and bundles by name, then other schemas stable-sorted by
    # schema (olm.deprecations is one of them), then blobs of no package in input order
    assert order(render(refs, text)) == [
        ("olm.package", "demo"),
        ("olm.channel", "a"),
        ("olm.channel", "b"),
        ("olm.bundle", "demo.v1.0.0"),
        ("a.other", "first"),
        ("b.other", "second"),
        ("b.other", "a-third"),
        ("olm.deprecations", ""),
        ("zz.global", "g2"),
        ("aa.global", "g1"),
    ]
    # v1.72: olm.deprecations is typed and written after the other schemas
    assert order(render(refs, text, "1.72"))[4:8] == [
        ("a.other", "first"),
        ("b.other", "second"),
        ("b.other", "a-third"),
        ("olm.deprecations", ""),
    ]


def test_v172_re_encodes_unknown_blobs_as_maps(refs: dict[str, Path]) -> None:
    text = '{"schema":"acme.note","package":"demo","z":1.50,"a":true}\n'
    assert '"z": 1.50' in render(refs, text, "1.26")
    out = render(refs, text, "1.72")
    assert out.index('"a"') < out.index('"z"') and '"z": 1.5' in out


def test_yaml_output(refs: dict[str, Path]) -> None:
    out = render(refs, stream({"schema": "olm.package", "name": "demo"}), output="yaml")
    assert out == '---\ndefaultChannel: ""\nname: demo\nschema: olm.package\n'


def test_escaped_special_characters_in_raw_values_as_yaml(refs: dict[str, Path]) -> None:
    """yaml.v2 decodes escapes it would refuse (or fold) as raw characters; opm v1.26.5 then
    writes them escaped in double quotes (expected bytes from the oracle's output)."""
    text = (
        '{"schema": "olm.package", "name": "demo", "properties": [{"type": "x.a", "value": '
        '["\\u0085x", "\\u007f", "a\\u0085\\u0085b", "\\uffff"]}]}\n'
    )
    assert render(refs, text, output="yaml") == (
        '---\ndefaultChannel: ""\nname: demo\nproperties:\n- type: x.a\n  value:\n'
        '  - "\\Nx"\n  - "\\x7F"\n  - "a\\N\\Nb"\n  - "\\uFFFF"\nschema: olm.package\n'
    )
    # written raw (as Go's JSON encoder writes them), yaml.v2 refuses U+FFFF: so does olmcat
    with pytest.raises(OutputError, match="cannot be written as YAML"):
        render(refs, text.replace("\\uffff", "\uffff"), output="yaml")


def test_bundle_images_render_as_the_release_renders_them_once(refs: dict[str, Path]) -> None:
    """v1.40.0 renders a bundle with an image to one olm.csv.metadata; the template takes it
    from the render itself (one notice, not a second conversion), and --migrate-level at v1.46.0
    goes through the same as_rendered_by as every other command."""
    text = stream(
        {"schema": "olm.package", "name": "demo"}, {"schema": "olm.bundle", "image": DEMO_1}
    )

    def rendered(opm: str, **kw: Any) -> tuple[dict[str, Any], list[str]]:
        log = NoticeLog()
        with BundleResolver(bundle_dirs=refs, notify=log) as resolver:
            config = render_template("basic", text, resolver, opm=opm, notify=log, **kw)
            blobs = parse_stream("".join(render_text(config, "json", opm=opm)))
        [bundle] = [b for b in blobs if b["schema"] == "olm.bundle"]
        return bundle, [n.code for n in log]

    bundle, codes = rendered("1.40")
    assert [p["type"] for p in bundle["properties"]][-1] == "olm.csv.metadata"
    assert "olm.bundle.object" not in [p["type"] for p in bundle["properties"]]
    assert codes.count("render.csv-metadata-default") == 1
    again, codes = rendered("1.46", migrate_level="bundle-object-to-csv-metadata")
    assert again["properties"] == bundle["properties"]
    assert "render.csv-metadata-default" not in codes and codes.count("migrate.csv-metadata") == 1
