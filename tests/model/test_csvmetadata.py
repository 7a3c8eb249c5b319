"""olmcat.model.csvmetadata: opm's olm.csv.metadata property, bundle-object-to-csv-metadata.

Expected texts below were derived from the Go struct definitions (operator-registry
alpha/property CSVMetadata, operator-framework/api v1alpha1 types) and cross-checked with a
standard-library Go program mirroring those structs (encoding/json, SetEscapeHTML(false),
json.Compact).
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest

from olmcat.errors import InputError
from olmcat.model import Bundle, Package, PackageCatalog
from olmcat.model.csvmetadata import bundle_objects_to_csv_metadata, csv_metadata
from olmcat.model.property import (
    TYPE_BUNDLE_OBJECT,
    TYPE_CSV_METADATA,
    Property,
    bundle_object,
    gvk,
    package,
)
from tests.support.paths import (
    SHARED,
    parse_stream,
)

EXPECTED = SHARED / "corpus" / "expected"

# CSVMetadata's fields in Go declaration order, with the JSON names opm writes.
GO_ORDER = [
    "annotations",
    "apiServiceDefinitions",
    "crdDescriptions",
    "description",
    "displayName",
    "installModes",
    "keywords",
    "labels",
    "links",
    "maintainers",
    "maturity",
    "minKubeVersion",
    "nativeAPIs",
    "provider",
]

# \u003c, \u003e or \u0026 as an escape (not as text after an escaped backslash).
HTML_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u00(?:3c|3e|26)")

EMPTY = '{"apiServiceDefinitions":{},"crdDescriptions":{},"provider":{}}'


def csv_doc(**fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        **fields,
    }


# --------------------------------------------------------------------------------------------------
# csv_metadata: exact text
# --------------------------------------------------------------------------------------------------


def test_minimal_csv_keeps_empty_structs() -> None:
    # omitempty never omits a struct: apiServiceDefinitions, crdDescriptions and provider stay.
    prop = csv_metadata(csv_doc(metadata={"name": "demo.v1.0.0"}, spec={}))
    assert prop == Property(TYPE_CSV_METADATA, EMPTY)


def test_csv_without_metadata_or_spec() -> None:
    assert csv_metadata({"kind": "ClusterServiceVersion"}).value == EMPTY


FULL_CSV = {
    "kind": "ClusterServiceVersion",
    "status": {"phase": "Succeeded"},
    "spec": {
        "provider": {"url": "https://example.com", "name": "Example & Co"},
        "nativeAPIs": [{"kind": "Pod", "version": "v1", "group": ""}],
        "minKubeVersion": "1.16.0",
        "maturity": "stable",
        "maintainers": [{"email": "a@example.com", "name": "A"}, {"name": ""}],
        "links": [{"url": "https://example.com/docs?a=1&b=2", "name": "Docs"}],
        "keywords": ["b", "a"],
        "installModes": [
            {"supported": False, "type": "OwnNamespace"},
            {"type": "AllNamespaces", "supported": True},
        ],
        "displayName": "Demo <Operator>",
        "description": 'Line one\nline "two" \u2028',
        "customresourcedefinitions": {
            "required": [{"kind": "Req", "name": "reqs.example.com", "version": "v1"}],
            "owned": [
                {
                    "specDescriptors": [
                        {
                            "x-descriptors": ["urn:alm:descriptor:com.tectonic.ui:podCount"],
                            "description": "",
                            "path": "size",
                            "displayName": "Size",
                            "value": 3,
                        }
                    ],
                    "statusDescriptors": [{"path": "nodes"}],
                    "actionDescriptors": [{"path": "restart"}],
                    "resources": [{"version": "v1", "name": "", "kind": "Deployment"}],
                    "description": "A demo",
                    "displayName": "Demo",
                    "kind": "Demo",
                    "version": "v1",
                    "name": "demos.example.com",
                    "unknownField": 1,
                }
            ],
        },
        "apiservicedefinitions": {
            "owned": [
                {
                    "containerPort": 8443,
                    "deploymentName": "demo-api",
                    "kind": "Thing",
                    "version": "v1alpha1",
                    "group": "things.example.com",
                    "name": "things",
                }
            ]
        },
        "replaces": "demo.v0.9.0",
        "install": {"strategy": "deployment", "spec": {"deployments": []}},
        "version": "1.0.0",
        "icon": [{"base64data": "", "mediatype": "image/png"}],
    },
    "metadata": {
        "name": "demo.v1.0.0",
        "namespace": "placeholder",
        "labels": {"operatorframework.io/arch.amd64": "supported"},
        "annotations": {
            "z-last": "1",
            "alm-examples": '[{"kind":"Demo","spec":{"size":3}}]',
            "capabilities": "Basic Install",
            "containerImage": "quay.io/example/demo:v1.0.0 <&>",
            "a-first": "2",
        },
    },
}

FULL_EXPECTED = (
    '{"annotations":{"a-first":"2",'
    '"alm-examples":"[{\\"kind\\":\\"Demo\\",\\"spec\\":{\\"size\\":3}}]",'
    '"capabilities":"Basic Install","containerImage":"quay.io/example/demo:v1.0.0 <&>",'
    '"z-last":"1"},'
    '"apiServiceDefinitions":{"owned":[{"name":"things","group":"things.example.com",'
    '"version":"v1alpha1","kind":"Thing","deploymentName":"demo-api","containerPort":8443}]},'
    '"crdDescriptions":{"owned":[{"name":"demos.example.com","version":"v1","kind":"Demo",'
    '"displayName":"Demo","description":"A demo","resources":[{"name":"","kind":"Deployment",'
    '"version":"v1"}],"statusDescriptors":[{"path":"nodes"}],"specDescriptors":[{"path":"size",'
    '"displayName":"Size","x-descriptors":["urn:alm:descriptor:com.tectonic.ui:podCount"],'
    '"value":3}],"actionDescriptors":[{"path":"restart"}]}],"required":[{"name":"reqs.example.com",'
    '"version":"v1","kind":"Req"}]},"description":"Line one\\nline \\"two\\" \\u2028",'
    '"displayName":"Demo <Operator>","installModes":[{"type":"OwnNamespace","supported":false},'
    '{"type":"AllNamespaces","supported":true}],"keywords":["b","a"],'
    '"labels":{"operatorframework.io/arch.amd64":"supported"},'
    '"links":[{"name":"Docs","url":"https://example.com/docs?a=1&b=2"}],'
    '"maintainers":[{"name":"A","email":"a@example.com"},{}],"maturity":"stable",'
    '"minKubeVersion":"1.16.0","nativeAPIs":[{"group":"","version":"v1","kind":"Pod"}],'
    '"provider":{"name":"Example & Co","url":"https://example.com"}}'
)


def test_full_csv_exact_text() -> None:
    # Struct field order (CRDDescription: status before spec descriptors), sorted map keys, no
    # HTML escaping, U+2028 always escaped, unknown and unused fields dropped, zero-valued
    # omitempty fields dropped but "supported":false and GVK's "group":"" kept.
    assert csv_metadata(FULL_CSV).value == FULL_EXPECTED


def test_top_level_order_follows_go_struct() -> None:
    decoded = json.loads(csv_metadata(FULL_CSV).value)
    assert list(decoded) == GO_ORDER


def test_nulls_as_go_decodes_them() -> None:
    # null into a map element or slice element gives the zero value; into a struct it is a no-op;
    # into json.RawMessage it is the literal null, which omitempty keeps.
    csv = csv_doc(
        metadata={"annotations": {"m": None}},
        spec={
            "keywords": ["a", None],
            "provider": None,
            "installModes": [None],
            "customresourcedefinitions": {
                "owned": [
                    {
                        "name": "n",
                        "version": "v1",
                        "kind": "K",
                        "specDescriptors": [{"path": "p", "value": None}],
                    }
                ]
            },
        },
    )
    assert csv_metadata(csv).value == (
        '{"annotations":{"m":""},"apiServiceDefinitions":{},"crdDescriptions":{"owned":[{"name":"n",'
        '"version":"v1","kind":"K","specDescriptors":[{"path":"p","value":null}]}]},'
        '"installModes":[{"type":"","supported":false}],"keywords":["a",""],"provider":{}}'
    )


@pytest.mark.parametrize(
    "spec",
    [
        {"keywords": None, "links": [], "maintainers": None, "displayName": None},
        {
            "customresourcedefinitions": None,
            "apiservicedefinitions": {"owned": [], "required": None},
        },
        {"provider": {}, "nativeAPIs": [], "installModes": None, "description": ""},
    ],
)
def test_empty_and_null_fields_are_omitted(spec: dict[str, Any]) -> None:
    assert csv_metadata(csv_doc(spec=spec)).value == EMPTY


def test_keys_match_case_insensitively_and_last_wins() -> None:
    # encoding/json falls back to a case-insensitive match (with Unicode simple folding: the
    # Kelvin sign folds to k, the long s to s); a later key for the same field overwrites.
    csv = {
        "kind": "ClusterServiceVersion",
        "Metadata": {"Labels": {"x": "y"}},
        "SPEC": {"DisplayName": "Upper", "displayName": "lower", "\u212aEYWORD\u017f": ["kelvin"]},
    }
    assert csv_metadata(csv).value == (
        '{"apiServiceDefinitions":{},"crdDescriptions":{},"displayName":"lower",'
        '"keywords":["kelvin"],"labels":{"x":"y"},"provider":{}}'
    )


def test_repeated_struct_keys_merge() -> None:
    # Go decodes the second object into the struct the first one filled.
    csv = csv_doc(spec={"provider": {"name": "p"}, "Provider": {"url": "u"}})
    assert json.loads(csv_metadata(csv).value)["provider"] == {"name": "p", "url": "u"}


def test_descriptor_value_keeps_document_order() -> None:
    # json.RawMessage: keys are not sorted, HTML is not escaped.
    descriptor = {"path": "p", "value": {"z": "<b>", "a": [1.5, 2, True, None]}}
    csv = csv_doc(
        spec={
            "customresourcedefinitions": {
                "owned": [
                    {"name": "n", "version": "v1", "kind": "K", "specDescriptors": [descriptor]}
                ]
            }
        }
    )
    value = json.loads(csv_metadata(csv).value)["crdDescriptions"]["owned"][0]["specDescriptors"]
    assert csv_metadata(csv).value.endswith(
        '"value":{"z":"<b>","a":[1.5,2,true,null]}}]}]},"provider":{}}'
    )
    assert value == [descriptor]


def test_lone_surrogate_becomes_replacement_character() -> None:
    csv = csv_doc(spec={"displayName": "a\ud800b"})
    assert json.loads(csv_metadata(csv).value)["displayName"] == "a\ufffdb"


# --------------------------------------------------------------------------------------------------
# csv_metadata: what Go's json.Unmarshal rejects
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"metadata": {"annotations": {"certified": False}}}, "metadata.annotations.certified"),
        ({"metadata": {"labels": {"tier": 1}}}, "metadata.labels.tier"),
        ({"metadata": {"generation": "1"}}, "metadata.generation"),
        ({"metadata": {"creationTimestamp": "2020-01-02 03:04:05"}}, "metadata.creationTimestamp"),
        ({"metadata": "demo"}, "metadata"),
        ({"spec": []}, "spec"),
        ({"spec": {"keywords": "operator"}}, "spec.keywords"),
        ({"spec": {"keywords": ["a", 1]}}, "spec.keywords[1]"),
        ({"spec": {"icon": {"base64data": "", "mediatype": "image/png"}}}, "spec.icon"),
        ({"spec": {"installModes": [{"type": "OwnNamespace", "supported": "true"}]}}, "supported"),
        ({"spec": {"version": None}}, "spec.version"),
        ({"spec": {"version": "not-a-version"}}, "spec.version"),
        ({"spec": {"version": 1}}, "spec.version"),
        ({"spec": {"install": {"spec": {"deployments": [{"spec": "x"}]}}}}, "deployments[0].spec"),
        ({"spec": {"webhookdefinitions": [{"targetPort": True}]}}, "targetPort"),
        ({"spec": {"annotations": {"a": ["b"]}}}, "spec.annotations.a"),
        ({"status": {"certsLastUpdated": "yesterday"}}, "status.certsLastUpdated"),
        (
            {"spec": {"apiservicedefinitions": {"owned": [{"containerPort": "8443"}]}}},
            "spec.apiservicedefinitions.owned[0].containerPort",
        ),
        (
            {"spec": {"apiservicedefinitions": {"owned": [{"containerPort": 8443.0}]}}},
            "containerPort",
        ),
        (
            {"spec": {"apiservicedefinitions": {"owned": [{"containerPort": 2**31}]}}},
            "containerPort",
        ),
        (
            {
                "spec": {
                    "customresourcedefinitions": {
                        "owned": [{"specDescriptors": [{"x-descriptors": [1]}]}]
                    }
                }
            },
            "x-descriptors[0]",
        ),
    ],
)
def test_go_unmarshal_errors(fields: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError, match="cannot be read as opm reads it") as info:
        csv_metadata(csv_doc(**fields))
    assert field in str(info.value)


def test_error_names_the_csv() -> None:
    csv = csv_doc(metadata={"name": "etcd.v0.9.4", "annotations": {"certified": False}})
    with pytest.raises(InputError, match=r"CSV etcd\.v0\.9\.4 .*metadata\.annotations\.certified"):
        csv_metadata(csv)


@pytest.mark.parametrize(
    "fields",
    [
        {"spec": {"version": "v1.2"}},  # ParseTolerant
        {"metadata": {"creationTimestamp": None, "annotations": None}},
        {"metadata": {"creationTimestamp": "2020-01-02T03:04:05.5+02:00"}},
        {"spec": {"install": {"spec": {"deployments": [{"spec": {"replicas": "anything"}}]}}}},
        {"spec": {"webhookdefinitions": [{"targetPort": "https", "timeoutSeconds": 5}]}},
        {"unknown": {"whatever": [1, "x"]}, "spec": {"unknown": 1}},
    ],
)
def test_go_accepts(fields: dict[str, Any]) -> None:
    assert csv_metadata(csv_doc(**fields)).value == EMPTY


def test_int32_bounds() -> None:
    csv = csv_doc(spec={"apiservicedefinitions": {"owned": [{"containerPort": -(2**31)}]}})
    assert '"containerPort":-2147483648' in csv_metadata(csv).value


# --------------------------------------------------------------------------------------------------
# bundle_objects_to_csv_metadata
# --------------------------------------------------------------------------------------------------

IMAGE = "quay.io/example/demo-bundle:v1.0.0"
CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {}}


def obj(manifest: dict[str, Any] | str) -> Property:
    text = manifest if isinstance(manifest, str) else json.dumps(manifest)
    return bundle_object(text.encode())


def catalog(*bundles: Bundle) -> PackageCatalog:
    return PackageCatalog(Package("demo"), bundles=bundles)


def demo_bundle(*properties: Property, image: str = IMAGE, name: str = "demo.v1.0.0") -> Bundle:
    return Bundle(name=name, package="demo", image=image, properties=properties)


def test_bundle_objects_replaced_by_csv_metadata() -> None:
    props = (package("demo", "1.0.0"), gvk("example.com", "v1", "Demo"), obj(CRD), obj(FULL_CSV))
    out = bundle_objects_to_csv_metadata(catalog(demo_bundle(*props)))
    assert out.bundles[0].properties == (
        package("demo", "1.0.0"),
        gvk("example.com", "v1", "Demo"),
        Property(TYPE_CSV_METADATA, FULL_EXPECTED),
    )


def test_kept_properties_keep_their_order() -> None:
    label = Property("olm.label", '{"label":"x"}')
    props = (label, obj(FULL_CSV), package("demo", "1.0.0"), obj(CRD), gvk("g", "v1", "K"))
    out = bundle_objects_to_csv_metadata(catalog(demo_bundle(*props)))
    assert [p.type for p in out.bundles[0].properties] == [
        "olm.label",
        "olm.package",
        "olm.gvk",
        TYPE_CSV_METADATA,
    ]


def test_bundle_without_image_is_unchanged() -> None:
    bundle = demo_bundle(package("demo", "1.0.0"), obj(FULL_CSV), image="")
    out = bundle_objects_to_csv_metadata(catalog(bundle))
    assert out.bundles[0] is bundle


def test_bundle_without_csv_is_unchanged() -> None:
    ref = Property(TYPE_BUNDLE_OBJECT, '{"ref":"objects/csv.yaml"}')
    bundle = demo_bundle(package("demo", "1.0.0"), obj(CRD), ref)
    assert bundle_objects_to_csv_metadata(catalog(bundle)).bundles[0] is bundle


def test_bundle_with_csv_metadata_is_unchanged() -> None:
    existing = Property(TYPE_CSV_METADATA, '{"displayName":"kept as it is"}')
    bundle = demo_bundle(package("demo", "1.0.0"), obj(CRD), obj(FULL_CSV), existing)
    assert bundle_objects_to_csv_metadata(catalog(bundle)).bundles[0] is bundle


def test_csv_metadata_check_comes_after_unmarshal() -> None:
    # opm unmarshals the CSV before it looks for an existing olm.csv.metadata property.
    bad = csv_doc(metadata={"name": "demo.v1.0.0", "annotations": {"certified": False}})
    existing = Property(TYPE_CSV_METADATA, EMPTY)
    with pytest.raises(InputError, match="certified"):
        bundle_objects_to_csv_metadata(catalog(demo_bundle(obj(bad), existing)))


def test_error_names_bundle_and_field() -> None:
    bad = csv_doc(metadata={"name": "demo.v1.0.0", "annotations": {"certified": False}})
    with pytest.raises(InputError) as info:
        bundle_objects_to_csv_metadata(catalog(demo_bundle(obj(bad), name="demo.v1.0.0")))
    message = str(info.value)
    assert message.startswith("bundle demo.v1.0.0 (package demo): ")
    assert "metadata.annotations.certified" in message


def test_unreadable_csv_object_is_an_error() -> None:
    broken = '{"kind": "ClusterServiceVersion", "spec": {'
    with pytest.raises(InputError, match=r"bundle demo\.v1\.0\.0 .*not valid JSON"):
        bundle_objects_to_csv_metadata(catalog(demo_bundle(obj(broken))))


def test_only_the_first_csv_is_used() -> None:
    first = csv_doc(spec={"displayName": "first"})
    second = csv_doc(spec={"displayName": "second"})
    out = bundle_objects_to_csv_metadata(catalog(demo_bundle(obj(first), obj(second))))
    assert out.bundles[0].properties == (
        Property(
            TYPE_CSV_METADATA,
            '{"apiServiceDefinitions":{},"crdDescriptions":{},"displayName":"first","provider":{}}',
        ),
    )


def test_returns_a_new_catalog_and_leaves_other_bundles() -> None:
    plain = demo_bundle(package("demo", "0.9.0"), name="demo.v0.9.0", image="")
    pkg = catalog(plain, demo_bundle(obj(FULL_CSV)))
    out = bundle_objects_to_csv_metadata(pkg)
    assert out is not pkg
    assert out.package == pkg.package
    assert out.bundles[0] is plain
    assert pkg.bundles[1].properties == (obj(FULL_CSV),)  # the input is not modified


def test_descriptor_value_source_text_is_kept() -> None:
    # A RawMessage is copied, compacted, from the manifest: escapes, number literals and even
    # repeated keys stay as written. Everything else is re-encoded (HTML not escaped).
    manifest = (
        '{"kind":"ClusterServiceVersion","metadata":{"annotations":{"a":"\\u003c"}},'
        '"spec":{"customresourcedefinitions":{"owned":[{"name":"n","version":"v1","kind":"K",'
        '"specDescriptors":[{"path":"p","value": {"z": "\\u003cb\\u003e", "a": [1.50, -0, 1e3],'
        ' "z": 2}},{"path":"q","value":"caf\\u00e9"}]}]}}}'
    )
    out = bundle_objects_to_csv_metadata(catalog(demo_bundle(obj(manifest))))
    assert out.bundles[0].properties == (
        Property(
            TYPE_CSV_METADATA,
            '{"annotations":{"a":"<"},"apiServiceDefinitions":{},"crdDescriptions":{"owned":['
            '{"name":"n","version":"v1","kind":"K","specDescriptors":[{"path":"p","value":'
            '{"z":"\\u003cb\\u003e","a":[1.50,-0,1e3],"z":2}},{"path":"q","value":"caf\\u00e9"}]}]},'
            '"provider":{}}',
        ),
    )


# --------------------------------------------------------------------------------------------------
# Corpus: every CSV opm migrated, checked with plain dict manipulation
# --------------------------------------------------------------------------------------------------


def corpus_catalogs(*names: str) -> list[Path]:
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent: the conformance corpus lives in ../shared (read-only)")
    files = sorted(p for name in names for p in (EXPECTED / name).glob("*/catalog.json"))
    if not files:
        pytest.skip(f"no catalog.json under {', '.join(names)} in {EXPECTED}")
    return files


def corpus_bundles(*names: str) -> list[dict[str, Any]]:
    return [
        blob
        for path in corpus_catalogs(*names)
        for blob in parse_stream(path.read_text(encoding="utf-8"))
        if blob.get("schema") == "olm.bundle"
    ]


def bundle_csv(blob: dict[str, Any]) -> dict[str, Any] | None:
    for prop in blob.get("properties", []):
        data = prop["value"].get("data") if prop["type"] == TYPE_BUNDLE_OBJECT else None
        if data:
            manifest = json.loads(base64.b64decode(data))
            if manifest.get("kind") == "ClusterServiceVersion":
                return manifest  # type: ignore[no-any-return]
    return None


def get(src: dict[str, Any] | None, key: str) -> Any:
    """``src[key]`` as encoding/json finds it: keys also match case-insensitively (the corpus has
    ``MinKubeVersion``), the last match wins, and null changes nothing."""
    found = None
    for name, value in (src or {}).items():
        if name.lower() == key.lower() and value is not None:
            found = value
    return found


def pick(
    src: dict[str, Any] | None, required: tuple[str, ...], optional: tuple[str, ...]
) -> dict[str, Any]:
    """``required`` keys always (default ""), ``optional`` ones only when not empty (omitempty)."""
    out = {key: get(src, key) or "" for key in required}
    out.update({key: get(src, key) for key in optional if get(src, key)})
    return out


def expected_descriptor(src: dict[str, Any]) -> dict[str, Any]:
    out = pick(src, ("path",), ("displayName", "description"))
    if get(src, "x-descriptors"):
        out["x-descriptors"] = [x or "" for x in get(src, "x-descriptors")]
    if any(key.lower() == "value" for key in src):
        out["value"] = get(src, "value")
    return out


def expected_description(
    src: dict[str, Any], required: tuple[str, ...], optional: tuple[str, ...]
) -> dict[str, Any]:
    out = pick(src, required, optional)
    if get(src, "resources"):
        out["resources"] = [pick(r, ("name", "kind", "version"), ()) for r in get(src, "resources")]
    for key in ("statusDescriptors", "specDescriptors", "actionDescriptors"):
        if get(src, key):
            out[key] = [expected_descriptor(d) for d in get(src, key)]
    return out


def expected_definitions(
    src: dict[str, Any] | None, required: tuple[str, ...], optional: tuple[str, ...]
) -> dict[str, Any]:
    return {
        key: [expected_description(d, required, optional) for d in get(src, key)]
        for key in ("owned", "required")
        if get(src, key)
    }


def expected_metadata(csv: dict[str, Any]) -> dict[str, Any]:
    """What opm's CSVMetadata holds for ``csv``, written independently of olmcat's tables."""
    meta, spec = get(csv, "metadata"), get(csv, "spec")
    out: dict[str, Any] = {}
    if get(meta, "annotations"):
        out["annotations"] = {k: v or "" for k, v in get(meta, "annotations").items()}
    out["apiServiceDefinitions"] = expected_definitions(
        get(spec, "apiservicedefinitions"),
        ("name", "group", "version", "kind"),
        ("deploymentName", "containerPort", "displayName", "description"),
    )
    out["crdDescriptions"] = expected_definitions(
        get(spec, "customresourcedefinitions"),
        ("name", "version", "kind"),
        ("displayName", "description"),
    )
    out.update(pick(spec, (), ("description", "displayName")))
    if get(spec, "installModes"):
        out["installModes"] = [
            {"type": get(m, "type") or "", "supported": bool(get(m, "supported"))}
            for m in get(spec, "installModes")
        ]
    if get(spec, "keywords"):
        out["keywords"] = [k or "" for k in get(spec, "keywords")]
    if get(meta, "labels"):
        out["labels"] = {k: v or "" for k, v in get(meta, "labels").items()}
    for key in ("links", "maintainers"):
        if get(spec, key):
            fields = ("name", "url") if key == "links" else ("name", "email")
            out[key] = [pick(item, (), fields) for item in get(spec, key)]
    out.update(pick(spec, (), ("maturity", "minKubeVersion")))
    if get(spec, "nativeAPIs"):
        out["nativeAPIs"] = [
            pick(g, ("group", "version", "kind"), ()) for g in get(spec, "nativeAPIs")
        ]
    out["provider"] = pick(get(spec, "provider"), (), ("name", "url"))
    return out


def test_corpus_csv_metadata_matches_csv_fields() -> None:
    checked = with_html = 0
    for blob in corpus_bundles("small.json", "upstream-subset.json"):
        csv = bundle_csv(blob)
        if csv is None:
            continue
        value = csv_metadata(csv).value
        decoded = json.loads(value)
        assert decoded == expected_metadata(csv), blob["name"]
        assert list(decoded) == [key for key in GO_ORDER if key in decoded], blob["name"]
        # SetEscapeHTML(false); the corpus has no descriptor value (kept raw) with <, > or &.
        assert HTML_ESCAPE.search(value) is None, blob["name"]
        with_html += any(c in value for c in "<>&")
        checked += 1
    assert checked >= 200  # 10 bundles in small.json, 230 in upstream-subset.json
    assert with_html > 0


def corpus_catalog(blobs: list[dict[str, Any]]) -> PackageCatalog:
    bundles = tuple(
        Bundle(
            name=blob["name"],
            package=blob["package"],
            image=blob.get("image", ""),
            properties=tuple(
                Property(p["type"], json.dumps(p["value"], separators=(",", ":")))
                for p in blob.get("properties", [])
            ),
        )
        for blob in blobs
    )
    return PackageCatalog(Package(blobs[0]["package"]), bundles=bundles)


@pytest.mark.parametrize("name", ["small.json", "upstream-subset.json", "index-upstream.json"])
def test_corpus_migration(name: str) -> None:
    by_package: dict[str, list[dict[str, Any]]] = {}
    for blob in corpus_bundles(name):
        by_package.setdefault(blob["package"], []).append(blob)
    for blobs in by_package.values():
        pkg = corpus_catalog(blobs)
        out = bundle_objects_to_csv_metadata(pkg)
        for blob, before, after in zip(blobs, pkg.bundles, out.bundles, strict=True):
            csv = bundle_csv(blob)
            if not before.image or csv is None:
                assert after is before, before.name
                continue
            others = [p for p in before.properties if p.type != TYPE_BUNDLE_OBJECT]
            assert after.properties == (*others, csv_metadata(csv)), before.name
