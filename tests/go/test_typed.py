"""Go's typed decoding as checks: encoding/json, the case-sensitive Kubernetes decoder and the
unstructured converter, over the struct layouts generated from the Go sources (go/k8stypes.py).

Expected answers follow from Go's rules (a JSON kind must fit the field's kind; integers must be
integral and in range; types with their own decoder accept what that decoder accepts);
tests/differential checks the same rules against the real initializer on whole trees.
"""

from __future__ import annotations

from typing import Any

import pytest

from olmcat.go.json import RawNumber
from olmcat.go.typed import decode_error, valid_quantity, valid_rfc3339


def container(**fields: Any) -> dict[str, Any]:
    return {"template": {"spec": {"containers": [{"name": "c", **fields}]}}}


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (container(env=[{"name": "A", "value": 1}]), "env[0].value: a number where a string"),
        (container(env=[{"name": "A", "value": "1"}]), None),
        (container(env=[{"name": "A", "value": None}]), None),  # null leaves a field alone
        (container(ports=[{"containerPort": "80"}]), "a string where an integer (int32)"),
        (container(ports=[{"containerPort": 2**31}]), "does not fit int32"),
        (container(ports=[{"containerPort": RawNumber("80.5")}]), "80.5 is not an integer"),
        (container(resources={"limits": {"cpu": "1 core"}}), "'1 core' is not a quantity"),
        (container(resources={"limits": {"cpu": 0.5, "memory": "64Mi"}}), None),
        (container(livenessProbe={"httpGet": {"port": "http"}}), None),
        (container(livenessProbe={"httpGet": {"port": RawNumber("1.5")}}), "not an int32"),
        (container(livenessProbe={"httpGet": {"port": True}}), "a boolean where a string or"),
        ({"replicas": "1"}, "replicas: a string where an integer"),
        ({"template": []}, "template: an array where an object"),
        ({"unknownField": {"anything": 1}}, None),
    ],
)
def test_deployment_spec(value: dict[str, Any], problem: str | None) -> None:
    found = decode_error(value, "apps.DeploymentSpec")
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found


def test_encoding_json_matches_field_names_ignoring_case_the_k8s_decoder_does_not() -> None:
    value = {"Replicas": "one"}
    assert decode_error(value, "apps.DeploymentSpec", "json") is not None
    assert decode_error(value, "apps.DeploymentSpec", "k8s") is None


def test_converter_accepts_integral_numbers_only_for_integers() -> None:
    meta = {"metadata": {"generation": RawNumber("1e+21")}}
    assert decode_error(meta, "registry.ClusterServiceVersion", "converter") is None
    meta = {"metadata": {"generation": RawNumber("1.5")}}
    assert "not an integer" in str(
        decode_error(meta, "registry.ClusterServiceVersion", "converter")
    )
    labels = {"metadata": {"labels": {"app": True}}}
    assert "a boolean where a string" in str(
        decode_error(labels, "registry.ClusterServiceVersion", "converter")
    )
    stamp = {"metadata": {"creationTimestamp": "yesterday"}}
    assert "not an RFC 3339 time" in str(
        decode_error(stamp, "registry.ClusterServiceVersion", "converter")
    )


def test_csv_version_must_parse_tolerantly_even_when_null() -> None:
    csv = "olm.ClusterServiceVersion"
    assert decode_error({"spec": {"version": "v1.2"}}, csv) is None  # tolerant: v, no patch
    assert "not a semantic version" in str(decode_error({"spec": {"version": "1.0-rc1"}}, csv))
    assert "null where a semantic version" in str(decode_error({"spec": {"version": None}}, csv))
    assert decode_error({"spec": {}}, csv) is None


def test_crd_schema_decoders() -> None:
    crd = "crdv1.CustomResourceDefinition"

    def with_schema(schema: dict[str, Any]) -> dict[str, Any]:
        version = {"name": "v1", "schema": {"openAPIV3Schema": schema}}
        return {"spec": {"versions": [version]}}

    assert decode_error(with_schema({"additionalProperties": False}), crd) is None
    assert decode_error(with_schema({"additionalProperties": {"type": "string"}}), crd) is None
    assert "a boolean or a JSON schema" in str(
        decode_error(with_schema({"additionalProperties": "no"}), crd)
    )
    assert decode_error(with_schema({"items": "ignored"}), crd) is None
    assert "a string where a number" in str(decode_error(with_schema({"minimum": "0"}), crd))
    assert decode_error(with_schema({"default": {"any": ["thing"]}}), crd) is None


def test_base64_bytes() -> None:
    conversion = {"spec": {"conversion": {"webhook": {"clientConfig": {"caBundle": "QUJD"}}}}}
    assert decode_error(conversion, "crdv1.CustomResourceDefinition") is None
    conversion["spec"]["conversion"]["webhook"]["clientConfig"]["caBundle"] = "QUJ"
    assert "not valid base64" in str(decode_error(conversion, "crdv1.CustomResourceDefinition"))


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("1", True),
        ("100m", True),
        ("1.5Gi", True),
        ("1e3", True),
        ("1E", True),  # exa
        ("-1", True),
        ("+.5", True),
        (".", True),  # Go's parser takes an empty number as zero
        ("-", True),
        ("", False),
        ("1ki", False),
        ("1e", False),
        ("1 core", False),
        ("1.2.3", False),
        ("0x10", False),
    ],
)
def test_quantity_grammar(text: str, ok: bool) -> None:
    assert valid_quantity(text) is ok


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("2021-07-21T10:04:45Z", True),
        ("2021-07-21T10:04:45.123+02:00", True),
        ("2021-07-21T1:04:45Z", True),  # Go's layout accepts a one-digit hour
        ("2020-02-29T00:00:00Z", True),
        ("2021-02-29T00:00:00Z", False),
        ("2021-07-21", False),
        ("2021-07-21 10:04:45Z", False),
        ("2021-13-01T00:00:00Z", False),
    ],
)
def test_rfc3339(text: str, ok: bool) -> None:
    assert valid_rfc3339(text) is ok
