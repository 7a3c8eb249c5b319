"""operator-registry v1.72.0's own validation test tables, as file-based catalogs.

Each :class:`OpmCase` is one subtest of a v1.72.0 Go test that decides whether a declarative
config (or the model built from it) is valid, rewritten as the FBC files that express the same
defect, with opm v1.72's verdict (taken from the Go test's assertion), opm's message where the
test checks it, and the olmcat rules that name that defect (from docs/rules.md's descriptions).
``valid_v126`` is opm v1.26.5's verdict on the same files (checked against the real binary by
tests/differential/test_validate_opm_v172_cases.py).

Sources (``git show v1.72.0:<path>`` in operator-registry):

* ``alpha/declcfg/declcfg_to_model_test.go``: ``TestConvertToModel`` (every case),
  ``TestConvertToModelRoundtrip`` (its valid config).
* ``alpha/model/model_test.go``: ``TestValidators``, ``TestChannelHead``,
  ``TestValidReplacesChain``; each model is written as a package ``anakin`` whose channel holds
  the bundles of the case (a bundle validated on its own is the only entry of its channel).
* ``alpha/declcfg/load_test.go``: the files of ``invalidFS`` (every ``Error/...`` case of
  ``TestLoadReader``, ``TestLoadFile``, ``TestWalkMetasFS``, ``TestLoadFS``) and the layout of
  ``validFS`` (its ``.indexignore``, README and CSV beside the catalog files).
* ``alpha/model/versionrelease_test.go``: ``TestNewRelease``, each release in the
  ``olm.package`` property of a bundle named ``foo-v0.1.0-<release>`` (the normalized name).
* ``alpha/property/property_test.go``: ``TestParse``.

A property value that is not JSON (``{`` in the Go tests) cannot be written inside a JSON or YAML
catalog file; a property without ``value`` gives opm the same error (``unexpected end of JSON
input``), so those cases use that.

The verdict is ``opm validate``'s (load, ConvertToModel, Model.Validate). It is the Go test's own
assertion except where the test checks a function that ``opm validate`` does not reach or that
it follows with more checks; those cases say so in ``note``: ``RelatedImage/Error/NoImage``
(nothing on the path calls RelatedImage.Validate: accepted), the four icon cases commented out in
v1.72.0 (Icon.Validate checks nothing: accepted), ``load_test/Success/UnrecognizedSchema`` (it
loads, then ConvertToModel refuses the nameless package) and the ``validFS`` layout (given channel
blobs so the catalog is valid and the ``.indexignore`` decides).

``CRAFTED`` adds catalogs at the edges of the same rules (release parts, pull-spec grammar, name
lengths, deprecation references), with verdicts read from v1.72.0's source; one of them (an icon
whose data is not base64) found a bug, fixed in ``olmcat.readers.fbc``.

Left out (``SKIPPED`` lists each with the reason): in-memory models FBC cannot express (map keys
that differ from names, parent pointers that do not point back), tests of functions
``opm validate`` never calls, Go-API-only cases, and cases that repeat another case's catalog.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Blob = dict[str, Any]


@dataclass(frozen=True)
class OpmCase:
    source: str  # Go test function
    name: str  # subtest name
    files: Mapping[str, str]  # path below the catalog root -> content
    valid: bool  # opm v1.72's verdict
    rules: tuple[str, ...] = ()  # olmcat rules (errors) naming the defect opm reports
    opm_says: str = ""  # opm's message, as the Go test checks it
    valid_v126: bool | None = None  # opm v1.26.5's verdict; None: same as v1.72
    note: str = ""

    @property
    def id(self) -> str:
        return f"{self.source}/{self.name}"

    @property
    def v126(self) -> bool:
        return self.valid if self.valid_v126 is None else self.valid_v126

    def write(self, root: Path) -> Path:
        """The case's files under ``root`` (created); returns ``root``."""
        root.mkdir(parents=True, exist_ok=True)
        for name, text in self.files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return root


@dataclass(frozen=True)
class Skipped:
    source: str
    names: tuple[str, ...]
    reason: str


# -- builders ---------------------------------------------------------------------------------


def b64(data: str | bytes) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def fbc(*blobs: Blob, name: str = "catalog.json") -> dict[str, str]:
    """One file holding the blobs, one JSON object per line."""
    return {name: "".join(json.dumps(b) + "\n" for b in blobs)}


SMALL_CIRCLE = '<svg viewBox="0 0 100 100"><circle cx="25" cy="25" r="25"/></svg>'
BIG_CIRCLE = '<svg viewBox="0 0 100 100"><circle cx="50" cy="50" r="50"/></svg>'


def package(
    name: str, default: str = "", icon: str | dict[str, str] = SMALL_CIRCLE, **more: Any
) -> Blob:
    """A package as declcfg's tests build it: icon (an SVG, or the icon object given),
    description, default channel."""
    blob: Blob = {"schema": "olm.package", "name": name}
    if default:
        blob["defaultChannel"] = default
    blob["icon"] = (
        icon if isinstance(icon, dict) else {"base64data": b64(icon), "mediatype": "image/svg+xml"}
    )
    blob["description"] = f"{name} operator"
    return {**blob, **more}


def channel(pkg: str, name: str, *entries: Blob, **more: Any) -> Blob:
    return {"schema": "olm.channel", "name": name, "package": pkg, "entries": list(entries), **more}


def entry(name: str, replaces: str = "", skips: list[str] | None = None, **more: Any) -> Blob:
    out: Blob = {"name": name}
    if replaces:
        out["replaces"] = replaces
    if skips is not None:
        out["skips"] = skips
    return {**out, **more}


def prop(kind: str, value: Any) -> Blob:
    return {"type": kind, "value": value}


def pkg_prop(pkg: str, version: str, release: str = "") -> Blob:
    value = {"packageName": pkg, "version": version}
    if release:
        value["release"] = release
    return prop("olm.package", value)


def bundle_object(manifest: str) -> Blob:
    return prop("olm.bundle.object", {"data": b64(manifest)})


def gvk(group: str, version: str, kind: str) -> Blob:
    return prop("olm.gvk", {"group": group, "kind": kind, "version": version})


CRD = '{"kind": "CustomResourceDefinition", "apiVersion": "apiextensions.k8s.io/v1"}'


def bundle_name(pkg: str, version: str) -> str:
    return f"{pkg}.v{version}"


def bundle(pkg: str, version: str, **changes: Any) -> Blob:
    """A bundle as declcfg's tests build it: ``<pkg>.v<version>``, image
    ``<pkg>-bundle:v<version>``,
    its CSV and a CRD as olm.bundle.object properties, the image as related image ``bundle``."""
    name = bundle_name(pkg, version)
    image = f"{pkg}-bundle:v{version}"
    csv = json.dumps(
        {
            "kind": "ClusterServiceVersion",
            "apiVersion": "operators.coreos.com/v1alpha1",
            "metadata": {"name": name},
        }
    )
    blob: Blob = {
        "schema": "olm.bundle",
        "name": name,
        "package": pkg,
        "image": image,
        "properties": [bundle_object(csv), bundle_object(CRD), pkg_prop(pkg, version)],
        "relatedImages": [{"name": "bundle", "image": image}],
    }
    blob.update(changes)
    return {k: v for k, v in blob.items() if v is not None}


def foo(*more: Blob, default: str = "alpha") -> list[Blob]:
    """declcfg's smallest valid catalog: package foo, channel alpha = [foo.v0.1.0]."""
    return [package("foo", default), channel("foo", "alpha", entry("foo.v0.1.0")), *more]


# model_test.go's package: anakin, channel light = anakin.v0.0.1 <- anakin.v0.0.2.


def anakin_bundle(
    version: str,
    *,
    name: str = "",
    image: str | None = None,
    props: list[Blob] | None = None,
    **more: Any,
) -> Blob:
    blob: Blob = {
        "schema": "olm.bundle",
        "name": name or bundle_name("anakin", version),
        "package": "anakin",
        "image": f"anakin-operator:v{version}" if image is None else image,
        "properties": (
            [pkg_prop("anakin", version), gvk("skywalker.me", "v1alpha1", "PodRacer")]
            if props is None
            else props
        ),
        **more,
    }
    return {k: v for k, v in blob.items() if v != ""}


def anakin(
    *entries: Blob, bundles: list[Blob], default: str = "light", **pkg: Any
) -> dict[str, str]:
    """Package anakin with one channel ``light`` of ``entries`` and the given bundles."""
    return fbc(
        package("anakin", default, **pkg),
        channel("anakin", "light", *entries),
        *bundles,
    )


def anakin_light() -> dict[str, str]:
    return anakin(
        entry("anakin.v0.0.1"),
        entry("anakin.v0.0.2", "anakin.v0.0.1"),
        bundles=[anakin_bundle("0.0.1"), anakin_bundle("0.0.2")],
    )


def one_bundle(*, replaces: str = "", skips: list[str] | None = None, **b: Any) -> dict[str, str]:
    """Bundle anakin.v0.1.0 (as model_test builds it), alone in channel light."""
    more: Blob = {}
    if "skip_range" in b:
        more["skipRange"] = b.pop("skip_range")
    return anakin(
        entry("anakin.v0.1.0", replaces, skips, **more),
        bundles=[
            anakin_bundle(
                "0.1.0",
                image=b.pop("image", "registry.io/image"),
                props=b.pop("props", [pkg_prop("anakin", "0.1.0")]),
                **b,
            )
        ],
    )


def chain(*entries: Blob) -> dict[str, str]:
    """Channel light of anakin holding ``entries``, with a valid bundle for each."""
    return anakin(
        *entries,
        bundles=[anakin_bundle(e["name"].removeprefix("anakin.v")) for e in entries],
    )


# -- TestConvertToModel -------------------------------------------------------------------------

_C = "TestConvertToModel"
DIGEST = "abcd1234" * 8


def _c(name: str, files: dict[str, str], valid: bool, *rules: str, **kw: Any) -> OpmCase:
    return OpmCase(_C, name, files, valid, rules, **kw)


def _deprecations(pkg: str | None, *entries: Blob) -> Blob:
    blob: Blob = {"schema": "olm.deprecations"}
    if pkg is not None:
        blob["package"] = pkg
    if entries:
        blob["entries"] = list(entries)
    return blob


def _deprecate(schema: str, name: str, message: str) -> Blob:
    ref = {"schema": schema, "name": name} if name else {"schema": schema}
    return {"reference": ref, "message": message}


OWNER = prop("owner", {"group": "abc.com", "name": "admin"})


def _with_deprecations(*blobs: Blob) -> dict[str, str]:
    return fbc(
        package("foo", "alpha", properties=[OWNER]),
        channel("foo", "alpha", entry("foo.v0.1.0")),
        bundle("foo", "0.1.0"),
        *blobs,
    )


def _release_bundle(name: str, version: str, release: str) -> Blob:
    return bundle("foo", "0.1.0", name=name, properties=[pkg_prop("foo", version, release)])


def _image_case(name: str, valid: bool, image: str | None, related: list[Blob] | None) -> OpmCase:
    changes: Blob = {}
    if image is not None:
        changes["image"] = image
    if related is not None:
        changes["relatedImages"] = related
    return _c(
        name,
        fbc(*foo(bundle("foo", "0.1.0", **changes))),
        valid,
        *(() if valid else ("OLMCAT-BU009",)),
        opm_says="" if valid else "invalid image pull spec",
        valid_v126=True,
    )


CONVERT_TO_MODEL = [
    _c(
        "Error/PackageNoName",
        fbc(package("", "alpha"), {"schema": "olm.bundle", "name": "foo.v0.1.0"}),
        False,
        "OLMCAT-BL004",
        opm_says="config contains package with no name",
    ),
    _c(
        "Error/BundleMissingPackageName",
        fbc(package("foo", "alpha"), {"schema": "olm.bundle", "name": "foo.v0.1.0"}),
        False,
        "OLMCAT-BL004",
        opm_says='package name must be set for bundle "foo.v0.1.0"',
    ),
    _c(
        "Error/BundleUnknownPackage",
        fbc(package("foo", "alpha"), bundle("bar", "0.1.0")),
        False,
        "OLMCAT-BL005",
        opm_says='unknown package "bar" for bundle "bar.v0.1.0"',
    ),
    _c(
        "Error/BundleMissingChannel",
        fbc(package("foo", "alpha"), bundle("foo", "0.1.0")),
        False,
        "OLMCAT-BU001",
        opm_says='package "foo", bundle "foo.v0.1.0" not found in any channel entries',
    ),
    _c(
        "Error/BundleInvalidProperties",
        fbc(
            package("foo", "alpha"),
            bundle(
                "foo",
                "0.1.0",
                properties=[*bundle("foo", "0.1.0")["properties"], {"type": "olm.foo"}],
            ),
        ),
        False,
        "OLMCAT-BL004",
        opm_says='parse property[3] of type "olm.foo": unexpected end of JSON input',
        note="the Go test's value '{' is written as a property without value (same error)",
    ),
    _c(
        "Error/BundlePackageMismatch",
        fbc(
            package("foo", "alpha"),
            bundle("foo", "0.1.0", properties=[pkg_prop("foooperator", "0.1.0")]),
        ),
        False,
        "OLMCAT-BU003",
        opm_says='package "foo" does not match "olm.package" property "foooperator"',
    ),
    _c(
        "Error/BundleInvalidVersion",
        fbc(
            package("foo", "alpha"),
            bundle("foo", "0.1.0", properties=[pkg_prop("foo", "0.1.0.1")]),
        ),
        False,
        "OLMCAT-BU004",
        opm_says='version "0.1.0.1": Invalid character(s) found in patch number "0.1"',
    ),
    _c(
        "Error/BundleMissingVersion",
        fbc(package("foo", "alpha"), bundle("foo", "")),
        False,
        "OLMCAT-BU004",
        opm_says='error parsing bundle "foo.v" version "": Version string empty',
    ),
    _c(
        "Error/PackageMissingDefaultChannel",
        fbc(
            package("foo"),
            channel("foo", "bar", entry("foo.v0.1.0")),
            bundle("foo", "0.1.0"),
        ),
        False,
        "OLMCAT-PK002",
        opm_says="default channel must be set",
    ),
    _c(
        "Error/PackageNonExistentDefaultChannel",
        fbc(package("foo", "bar"), channel("foo", "bar")),
        False,
        "OLMCAT-CH001",
        opm_says="channel must contain at least one bundle",
    ),
    _c(
        "Error/BundleMissingPackageProperty",
        fbc(package("foo", "alpha"), bundle("foo", "0.1.0", properties=[])),
        False,
        "OLMCAT-BU002",
        opm_says='must have exactly 1 "olm.package" property, found 0',
    ),
    _c(
        "Error/BundleMultiplePackageProperty",
        fbc(
            package("foo", "alpha"),
            bundle("foo", "0.1.0", properties=[pkg_prop("foo", "0.1.0"), pkg_prop("foo", "0.1.0")]),
        ),
        False,
        "OLMCAT-BU002",
        opm_says='must have exactly 1 "olm.package" property, found 2',
    ),
    _c(
        "Success/BundleWithDataButMissingImage",
        fbc(*foo(bundle("foo", "0.1.0", image=None))),
        True,
    ),
    _c(
        "Error/ChannelEntryWithoutBundle",
        fbc(*foo()),
        False,
        "OLMCAT-CH004",
        opm_says='no olm.bundle blobs found in package "foo" for olm.channel entries [foo.v0.1.0]',
    ),
    _c(
        "Error/BundleWithoutChannelEntry",
        fbc(*foo(bundle("foo", "0.2.0"))),
        False,
        "OLMCAT-BU001",
        opm_says='package "foo", bundle "foo.v0.2.0" not found in any channel entries',
    ),
    _c(
        "Error/ChannelMissingName",
        fbc(
            package("foo", "alpha"),
            channel("foo", "", entry("foo.v0.1.0")),
            bundle("foo", "0.2.0"),
        ),
        False,
        "OLMCAT-BL004",
        opm_says='package "foo" contains channel with no name',
    ),
    _c(
        "Error/ChannelMissingPackageName",
        fbc(
            package("foo", "alpha"),
            channel("", "alpha", entry("foo.v0.1.0")),
            bundle("foo", "0.2.0"),
        ),
        False,
        "OLMCAT-BL004",
        opm_says='unknown package "" for channel "alpha"',
    ),
    _c(
        "Error/ChannelNonExistentPackage",
        fbc(
            package("foo", "alpha"),
            channel("non-existent", "alpha", entry("foo.v0.1.0")),
            bundle("foo", "0.1.0"),
        ),
        False,
        "OLMCAT-BL005",
        opm_says='unknown package "non-existent" for channel "alpha"',
    ),
    _c(
        "Error/ChannelDuplicateEntry",
        fbc(
            package("foo", "alpha"),
            channel("foo", "alpha", entry("foo.v0.1.0"), entry("foo.v0.1.0")),
            bundle("foo", "0.1.0"),
        ),
        False,
        "OLMCAT-CH002",
        opm_says='invalid package "foo", channel "alpha": duplicate entry "foo.v0.1.0"',
    ),
    _c(
        "Error/DuplicatePackage",
        fbc(package("foo", "alpha"), *foo(bundle("foo", "0.1.0"))),
        False,
        "OLMCAT-BL006",
        opm_says='duplicate package "foo"',
    ),
    _c(
        "Error/PackageBreaksRFC1123",
        fbc(
            package("foo.bar", "alpha"),
            channel("foo", "alpha", entry("foo.v0.1.0")),
            bundle("foo", "0.1.0"),
        ),
        False,
        "OLMCAT-PK001",
        opm_says='invalid package name "foo.bar": [must not contain dots]',
        note="opm v1.26.5 refuses it too: channel and bundle name package foo, which is missing",
    ),
    _c(
        "Error/DuplicateChannel",
        fbc(*foo(channel("foo", "alpha", entry("foo.v0.1.0")), bundle("foo", "0.1.0"))),
        False,
        "OLMCAT-BL007",
        opm_says='package "foo" has duplicate channel "alpha"',
    ),
    _c(
        "Error/DuplicateBundle",
        fbc(*foo(bundle("foo", "0.1.0"), bundle("foo", "0.1.0"))),
        False,
        "OLMCAT-BL008",
        opm_says='package "foo" has duplicate bundle "foo.v0.1.0"',
    ),
    _c("Success/ValidModel", fbc(*foo(bundle("foo", "0.1.0"))), True),
    _c(
        "Success/ValidModelWithChannelProperties",
        fbc(
            package("foo", "alpha"),
            channel(
                "foo",
                "alpha",
                entry("foo.v0.1.0"),
                properties=[prop("user", {"group": "xyz.com", "name": "account"})],
            ),
            bundle("foo", "0.1.0"),
        ),
        True,
    ),
    _c(
        "Success/ValidModelWithPackageProperties",
        _with_deprecations(),
        True,
    ),
    _c(
        "Error/Deprecation/UnspecifiedPackage",
        _with_deprecations(_deprecations(None)),
        False,
        "OLMCAT-DE006",
        opm_says="package name must be set for deprecation item 0",
        valid_v126=True,
    ),
    _c(
        "Error/Deprecation/OutOfBoundsBundle",
        _with_deprecations(
            _deprecations(
                "foo",
                _deprecate(
                    "olm.bundle", "foo.v2.0.0", "foo.v2.0.0 doesn't exist in the first place"
                ),
            )
        ),
        False,
        "OLMCAT-DE003",
        opm_says='cannot deprecate bundle "foo.v2.0.0" for package "foo": bundle not found',
        valid_v126=True,
    ),
    _c(
        "Error/Deprecation/OutOfBoundsPackage",
        _with_deprecations(_deprecations("nyarl")),
        False,
        "OLMCAT-DE001",
        opm_says='cannot apply deprecations to an unknown package "nyarl"',
        valid_v126=True,
    ),
    _c(
        "Error/Deprecation/MultiplePerPackage",
        _with_deprecations(
            _deprecations("foo", _deprecate("olm.channel", "alpha", "no more alpha channel")),
            _deprecations(
                "foo",
                _deprecate("olm.bundle", "foo.v0.1.0", "foo.v0.1.0 is dead.  do another thing"),
            ),
        ),
        False,
        "OLMCAT-DE002",
        opm_says='expected a maximum of one deprecation per package: "foo"',
        valid_v126=True,
    ),
    _c(
        "Error/Deprecation/BadRefSchema",
        _with_deprecations(
            _deprecations(
                "foo",
                _deprecate(
                    "badschema", "foo.v2.0.0", "foo.v2.0.0 doesn't exist in the first place"
                ),
            )
        ),
        False,
        "OLMCAT-DE003",
        opm_says="object schema unknown",
        valid_v126=True,
    ),
    _c(
        "Error/Deprecation/DuplicateRef",
        _with_deprecations(
            _deprecations(
                "foo",
                _deprecate("olm.bundle", "foo.v0.1.0", "foo.v0.1.0 is bad"),
                _deprecate("olm.bundle", "foo.v0.1.0", "foo.v0.1.0 is bad"),
            )
        ),
        False,
        "OLMCAT-DE004",
        opm_says='duplicate deprecation entry declcfg.PackageScopedReference{Schema:"olm.bundle", '
        'Name:"foo.v0.1.0"} for package "foo"',
        valid_v126=True,
    ),
    _c(
        "Error/InvalidReleaseVersion",
        fbc(*foo(_release_bundle("foo.v0.1.0", "0.1.0", "!!!"))),
        False,
        "OLMCAT-BU005",
        opm_says='release version "!!!": invalid release "!!!": segment 0: Invalid character(s)',
        valid_v126=True,
    ),
    _c(
        "Error/InvalidBundleNormalizedName",
        fbc(
            package("foo", "alpha"),
            channel("foo", "alpha", entry("foo.v0.1.0-alpha.1.0.0")),
            _release_bundle("foo.v0.1.0-alpha.1.0.0", "0.1.0", "alpha.1.0.0"),
        ),
        False,
        "OLMCAT-BU006",
        opm_says='name "foo.v0.1.0-alpha.1.0.0" does not match normalized name '
        '"foo-v0.1.0-alpha.1.0.0"',
        valid_v126=True,
    ),
    _c(
        "Success/ValidBundleReleaseVersion",
        fbc(
            package("foo", "alpha"),
            channel("foo", "alpha", entry("foo-v0.1.0-alpha.1.0.0")),
            _release_bundle("foo-v0.1.0-alpha.1.0.0", "0.1.0", "alpha.1.0.0"),
        ),
        True,
    ),
    _c(
        "Error/BundleReleaseWithBuildMetadata",
        fbc(
            package("foo", "alpha"),
            channel("foo", "alpha", entry("foo.v0.1.0+alpha.1.0.0-0.0.1")),
            _release_bundle("foo.v0.1.0+alpha.1.0.0-0.0.1", "0.1.0+alpha.1.0.0", "0.0.1"),
        ),
        False,
        "OLMCAT-BU006",
        "OLMCAT-BU007",
        opm_says="cannot use build metadata in version with a release version",
        valid_v126=True,
    ),
    _image_case(
        "Error/BundleImageInvalidPullSpecUnsupportedDigestSsha256",
        False,
        f"quay.io/operator-framework/foo-bundle@ssha256:{DIGEST}abcd1234",
        None,
    ),
    _image_case(
        "Error/BundleImageInvalidPullSpecUnsupportedDigestMd5",
        False,
        "quay.io/operator-framework/foo-bundle@md5:" + "abcd1234" * 4,
        None,
    ),
    _image_case(
        "Error/BundleRelatedImageInvalidPullSpecSsha256",
        False,
        None,
        [
            {"name": "bundle", "image": "foo-bundle:v0.1.0"},
            {
                "name": "operator",
                "image": f"quay.io/operator-framework/my-operator@ssha256:{DIGEST}",
            },
        ],
    ),
    _image_case(
        "Success/BundleImageValidSha256Digest",
        True,
        f"quay.io/operator-framework/foo-bundle@sha256:{DIGEST}",
        [{"name": "bundle", "image": f"quay.io/operator-framework/foo-bundle@sha256:{DIGEST}"}],
    ),
    _image_case(
        "Success/BundleImageValidTagWithDigest",
        True,
        f"quay.io/operator-framework/foo-bundle:v0.1.0@sha256:{DIGEST}",
        [
            {
                "name": "bundle",
                "image": f"quay.io/operator-framework/foo-bundle:v0.1.0@sha256:{DIGEST}",
            }
        ],
    ),
]


def _roundtrip_config() -> dict[str, str]:
    """helpers_test.go's buildValidDeclarativeConfig with unrecognized schemas."""
    a = [bundle("anakin", v) for v in ("0.0.1", "0.1.0", "0.1.1")]
    b = [bundle("boba-fett", v) for v in ("1.0.0", "2.0.0")]
    return fbc(
        package("anakin", "dark"),
        package("boba-fett", "mando", icon=BIG_CIRCLE),
        channel(
            "anakin",
            "dark",
            entry("anakin.v0.0.1"),
            entry("anakin.v0.1.0", "anakin.v0.0.1"),
            entry("anakin.v0.1.1", "anakin.v0.0.1", ["anakin.v0.1.0"]),
        ),
        channel("anakin", "light", entry("anakin.v0.0.1"), entry("anakin.v0.1.0", "anakin.v0.0.1")),
        channel(
            "boba-fett",
            "mando",
            entry("boba-fett.v1.0.0"),
            entry("boba-fett.v2.0.0", "boba-fett.v1.0.0"),
        ),
        *a,
        *b,
        {"schema": "custom.1"},
        {"schema": "custom.2"},
        {"myField": "foobar", "package": "anakin", "schema": "custom.3"},
        {"myField": "foobar", "package": "boba-fett", "schema": "custom.3"},
    )


ROUNDTRIP = [OpmCase("TestConvertToModelRoundtrip", "valid-config", _roundtrip_config(), True)]

# -- model_test.go ------------------------------------------------------------------------------

_V = "TestValidators"


def _v(name: str, files: dict[str, str], valid: bool, *rules: str, **kw: Any) -> OpmCase:
    return OpmCase(_V, name, files, valid, rules, **kw)


SVG_DATA = "PHN2ZyB2aWV3Qm94PTAgMCAxMDAgMTAwPjxjaXJjbGUgY3g9MjUgY3k9MjUgcj0yNS8+PC9zdmc+"
PNG_DATA = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABAQMAAAAl21bKAAAAA1BMVEUAAACnej3aAAAAAXRSTlMAQObYZgAAAApJREFU"
    "CNdjYAAAAAIAAeIhvDMAAAAASUVORK5CYII="
)
# The start of a JPEG file (SOI and JFIF APP0 markers): opm v1.72 does not look into icons.
JPEG_HEAD = b64(bytes.fromhex("ffd8ffe000104a46494600010101006000600000ffd9"))


def _icon(data: str | None, mediatype: str | None) -> dict[str, str]:
    icon = {}
    if data is not None:
        icon["base64data"] = data
    if mediatype is not None:
        icon["mediatype"] = mediatype
    return anakin(
        entry("anakin.v0.0.1"),
        entry("anakin.v0.0.2", "anakin.v0.0.1"),
        bundles=[anakin_bundle("0.0.1"), anakin_bundle("0.0.2")],
        icon=icon,
    )


def _no_icon() -> dict[str, str]:
    files = anakin_light()
    blobs = [json.loads(line) for line in files["catalog.json"].splitlines()]
    del blobs[0]["icon"]
    return fbc(*blobs)


VALIDATORS = [
    _v("Model/Success/Valid", anakin_light(), True),
    _v(
        "Model/Error/InvalidPackage",
        anakin(
            entry("anakin.v0.0.1"),
            entry("anakin.v0.0.2", "anakin.v0.0.1"),
            bundles=[anakin_bundle("0.0.1"), anakin_bundle("0.0.2")],
            default="not-found",
        ),
        False,
        "OLMCAT-PK003",
        opm_says='invalid package "anakin"',
        note="in FBC, opm turns an unknown default channel into an empty channel",
    ),
    _v(
        "Package/Error/NoName",
        fbc({"schema": "olm.package", "name": ""}),
        False,
        "OLMCAT-BL004",
        opm_says="package name must not be empty",
    ),
    _v(
        "Package/Error/NoChannels",
        fbc(package("anakin", icon=SMALL_CIRCLE)),
        False,
        "OLMCAT-PK004",
        opm_says="package must contain at least one channel",
    ),
    _v(
        "Package/Error/DuplicateBundleVersions",
        anakin(
            entry("anakin.v0.0.1"),
            entry("anakin.v0.0.2", "anakin.v0.0.1"),
            entry("anakin.v1.0.1", "anakin.v0.0.2"),
            entry("anakin.v1.0.2", "anakin.v1.0.1"),
            bundles=[
                anakin_bundle("0.0.1"),
                anakin_bundle("0.0.1", name="anakin.v0.0.2"),
                anakin_bundle("1.0.1"),
                anakin_bundle("1.0.1", name="anakin.v1.0.2"),
            ],
        ),
        False,
        "OLMCAT-PK005",
        opm_says="duplicate versions found in bundles: [{0.0.1: [anakin.v0.0.1, anakin.v0.0.2]} "
        "{1.0.1: [anakin.v1.0.1, anakin.v1.0.2]}]",
        valid_v126=True,
        note="the bundles form one replaces chain, so the duplicate versions are the only defect",
    ),
    _v(
        "Package/Error/DuplicateBundleVersionsReleases",
        anakin(
            entry("anakin.v0.0.1"),
            entry("anakin.v0.0.2", "anakin.v0.0.1"),
            entry("anakin-v0.0.1-100", "anakin.v0.0.2"),
            entry("anakin.v0.0.2-100", "anakin-v0.0.1-100"),
            bundles=[
                anakin_bundle("0.0.1"),
                anakin_bundle("0.0.1", name="anakin.v0.0.2"),
                anakin_bundle(
                    "0.0.1", name="anakin-v0.0.1-100", props=[pkg_prop("anakin", "0.0.1", "100")]
                ),
                anakin_bundle(
                    "0.0.1", name="anakin.v0.0.2-100", props=[pkg_prop("anakin", "0.0.1", "100")]
                ),
            ],
        ),
        False,
        "OLMCAT-PK005",
        opm_says="{0.0.1-100: [",
        valid_v126=True,
        note="two bundles cannot share the normalized name in FBC: the second keeps a dotted name",
    ),
    _v(
        "Package/Error/BundleReleaseNormalizedName",
        anakin(
            entry("anakin.v0.0.1.alpha1"),
            bundles=[
                anakin_bundle(
                    "0.0.1",
                    name="anakin.v0.0.1.alpha1",
                    props=[pkg_prop("anakin", "0.0.1", "alpha1")],
                )
            ],
        ),
        False,
        "OLMCAT-BU006",
        opm_says='name "anakin.v0.0.1.alpha1" does not match normalized name '
        '"anakin-v0.0.1-alpha1"',
        valid_v126=True,
    ),
    _v(
        "Package/Error/NoDefaultChannel",
        anakin(
            entry("anakin.v0.0.1"),
            entry("anakin.v0.0.2", "anakin.v0.0.1"),
            bundles=[anakin_bundle("0.0.1"), anakin_bundle("0.0.2")],
            default="",
        ),
        False,
        "OLMCAT-PK002",
        opm_says="default channel must be set",
    ),
    _v(
        "Package/Error/InvalidChannel",
        fbc(package("anakin", "light"), channel("anakin", "light")),
        False,
        "OLMCAT-CH001",
        opm_says='invalid channel "light"',
    ),
    _v("Icon/Success/ValidSVG", _icon(SVG_DATA, "image/svg+xml"), True),
    _v("Icon/Success/ValidPNG", _icon(PNG_DATA, "image/png"), True),
    _v("Icon/Success/ValidJPEG", _icon(JPEG_HEAD, "image/jpeg"), True),
    _v("Icon/Success/Nil", _no_icon(), True),
    _v(
        "Icon/Error/NoData (commented out in v1.72.0)",
        _icon(None, "image/svg+xml"),
        True,
        note="Icon.Validate checks nothing in v1.72.0; its cases are commented out",
    ),
    _v("Icon/Error/NoMediaType (commented out in v1.72.0)", _icon(SVG_DATA, None), True),
    _v(
        "Icon/Error/DataIsNotImage (commented out in v1.72.0)",
        _icon(b64("{}"), "application/json"),
        True,
    ),
    _v(
        "Icon/Error/DataDoesNotMatchMediaType (commented out in v1.72.0)",
        _icon(SVG_DATA, "image/jpeg"),
        True,
    ),
    _v(
        "Channel/Error/NoName",
        fbc(
            package("anakin", "light"),
            channel("anakin", "", entry("anakin.v0.0.1")),
            anakin_bundle("0.0.1"),
        ),
        False,
        "OLMCAT-BL004",
        opm_says="channel name must not be empty",
    ),
    _v(
        "Channel/Error/NoPackage",
        fbc(
            package("anakin", "light"),
            channel("", "light", entry("anakin.v0.0.1")),
            anakin_bundle("0.0.1"),
        ),
        False,
        "OLMCAT-BL004",
        opm_says="package must be set",
    ),
    _v(
        "Channel/Error/InvalidHead",
        chain(entry("anakin.v0.0.0"), entry("anakin.v0.0.1")),
        False,
        "OLMCAT-CH005",
        opm_says="multiple channel heads found in graph: anakin.v0.0.0, anakin.v0.0.1",
    ),
    _v(
        "Channel/Error/InvalidBundle",
        anakin(
            entry("anakin.v0.0.0"),
            bundles=[{"schema": "olm.bundle", "name": "anakin.v0.0.0", "package": "anakin"}],
        ),
        False,
        "OLMCAT-BU002",
        opm_says='invalid bundle "anakin.v0.0.0"',
    ),
    _v(
        "Bundle/Success/Valid",
        one_bundle(
            replaces="anakin.v0.0.1",
            skips=["anakin.v0.0.2"],
            props=[pkg_prop("anakin", "0.1.0"), gvk("skywalker.me", "v1alpha1", "PodRacer")],
        ),
        True,
    ),
    _v("Bundle/Success/ReplacesNotInChannel", one_bundle(replaces="anakin.v0.0.0"), True),
    _v(
        "Bundle/Success/NoBundleImage/HaveBundleData",
        one_bundle(
            image="",
            props=[
                pkg_prop("anakin", "0.1.0"),
                gvk("skywalker.me", "v1alpha1", "PodRacer"),
                bundle_object("testdata"),
            ],
        ),
        True,
    ),
    _v(
        "Bundle/Error/NoBundleImage",
        one_bundle(
            image="",
            props=[pkg_prop("anakin", "0.1.0"), gvk("skywalker.me", "v1alpha1", "PodRacer")],
        ),
        False,
        "OLMCAT-BU008",
        opm_says="bundle image must be set",
    ),
    _v(
        "Bundle/Error/NoName",
        anakin(entry(""), bundles=[anakin_bundle("0.1.0", name="", image="registry.io/image")]),
        False,
        "OLMCAT-BL004",
        opm_says="name must be set",
    ),
    _v(
        "Bundle/Error/NoChannel",
        fbc(
            package("anakin", "light"),
            channel("anakin", "light", entry("anakin.v0.0.1")),
            anakin_bundle("0.0.1"),
            anakin_bundle("0.1.0"),
        ),
        False,
        "OLMCAT-BU001",
        opm_says="channel must be set",
    ),
    _v(
        "Bundle/Error/NoPackage",
        fbc(
            package("anakin", "light"),
            channel("anakin", "light", entry("anakin.v0.1.0")),
            {k: v for k, v in anakin_bundle("0.1.0").items() if k != "package"},
        ),
        False,
        "OLMCAT-BL004",
        opm_says="package must be set",
    ),
    _v(
        "Bundle/Error/InvalidProperty",
        one_bundle(props=[pkg_prop("anakin", "0.1.0"), {"type": "broken"}]),
        False,
        "OLMCAT-BL004",
        opm_says='parse property[1] of type "broken": unexpected end of JSON input',
        note="the Go test's empty value is written as a property without value",
    ),
    _v(
        "Bundle/Error/EmptySkipsValue",
        one_bundle(replaces="anakin.v0.0.1", skips=[""]),
        False,
        "OLMCAT-CH010",
        opm_says="skip[0] is empty",
    ),
    _v("Bundle/Success/EmptySkipRange", one_bundle(replaces="anakin.v0.0.1"), True),
    _v(
        "Bundle/Success/ValidSkipRange",
        one_bundle(replaces="anakin.v0.0.1", skip_range=">=1.0.0 <2.0.0"),
        True,
    ),
    _v(
        "Bundle/Error/InvalidSkipRange/LeadingV",
        one_bundle(replaces="anakin.v0.0.1", skip_range=">v0.1.0"),
        False,
        "OLMCAT-CH011",
        opm_says='invalid skipRange ">v0.1.0": Could not parse Range ">v0.1.0"',
        valid_v126=True,
    ),
    _v(
        "Bundle/Error/InvalidSkipRange/LeadingZero",
        one_bundle(replaces="anakin.v0.0.1", skip_range=">1.00.1"),
        False,
        "OLMCAT-CH011",
        opm_says='Minor number must not contain leading zeroes "00"',
        valid_v126=True,
    ),
    _v(
        "Bundle/Error/MissingPackage",
        one_bundle(replaces="anakin.v0.0.1", skips=["anakin.v0.0.2"], props=[]),
        False,
        "OLMCAT-BU002",
        opm_says='property with type "olm.package"',
    ),
    _v(
        "Bundle/Error/MultiplePackages",
        one_bundle(
            replaces="anakin.v0.0.1",
            skips=["anakin.v0.0.2"],
            props=[pkg_prop("anakin", "0.1.0"), pkg_prop("anakin", "0.2.0")],
        ),
        False,
        "OLMCAT-BU002",
        opm_says='property with type "olm.package"',
    ),
    _v(
        "RelatedImage/Success/Valid",
        one_bundle(relatedImages=[{"name": "foo", "image": "bar"}]),
        True,
    ),
    _v(
        "RelatedImage/Error/NoImage",
        one_bundle(relatedImages=[{"name": "foo", "image": ""}]),
        True,
        note="RelatedImage.Validate refuses it, but nothing on opm validate's path calls it "
        "(Bundle.Validate does not; ConvertToModel skips empty pull specs): opm accepts",
    ),
]

_H = "TestChannelHead"
_R = "TestValidReplacesChain"
HEAD_AND_CHAIN = [
    OpmCase(
        _H,
        "Success/Valid",
        chain(
            entry("anakin.v0.0.1"),
            entry("anakin.v0.0.2"),
            entry("anakin.v0.0.3", "anakin.v0.0.1", ["anakin.v0.0.2"]),
        ),
        True,
    ),
    OpmCase(
        _H,
        "Error/NoChannelHead",
        chain(
            entry("anakin.v0.0.1", "anakin.v0.0.3"),
            entry("anakin.v0.0.3", "anakin.v0.0.1", ["anakin.v0.0.2"]),
        ),
        False,
        ("OLMCAT-CH005",),
        "no channel head found in graph",
    ),
    OpmCase(
        _H,
        "Error/MultipleChannelHeads",
        chain(
            entry("anakin.v0.0.1"),
            entry("anakin.v0.0.3", "anakin.v0.0.1", ["anakin.v0.0.2"]),
            entry("anakin.v0.0.4", "anakin.v0.0.1"),
        ),
        False,
        ("OLMCAT-CH005",),
        "multiple channel heads found in graph: anakin.v0.0.3, anakin.v0.0.4",
    ),
    OpmCase(
        _R,
        "Success/Valid",
        chain(
            entry("anakin.v0.0.1"),
            entry("anakin.v0.0.2", skips=["anakin.v0.0.1"]),
            entry("anakin.v0.0.3", skips=["anakin.v0.0.2"]),
            entry("anakin.v0.0.4", "anakin.v0.0.3"),
        ),
        True,
    ),
    OpmCase(
        _R,
        "Error/CycleNoHops",
        chain(entry("anakin.v0.0.4", "anakin.v0.0.4"), entry("anakin.v0.0.5", "anakin.v0.0.4")),
        False,
        ("OLMCAT-CH006",),
        "detected cycle in replaces chain of upgrade graph: anakin.v0.0.4 -> anakin.v0.0.4",
    ),
    OpmCase(
        _R,
        "Error/CycleMultipleHops",
        chain(
            entry("anakin.v0.0.1", "anakin.v0.0.3"),
            entry("anakin.v0.0.2", "anakin.v0.0.1"),
            entry("anakin.v0.0.3", "anakin.v0.0.2"),
            entry("anakin.v0.0.4", "anakin.v0.0.3"),
        ),
        False,
        ("OLMCAT-CH006",),
        "detected cycle in replaces chain of upgrade graph: "
        "anakin.v0.0.3 -> anakin.v0.0.2 -> anakin.v0.0.1 -> anakin.v0.0.3",
    ),
    OpmCase(
        _R,
        "Error/Stranded",
        chain(
            entry("anakin.v0.0.1"),
            entry("anakin.v0.0.2", "anakin.v0.0.1"),
            entry("anakin.v0.0.3", skips=["anakin.v0.0.2"]),
        ),
        False,
        ("OLMCAT-CH003",),
        "channel contains one or more stranded bundles: anakin.v0.0.1",
    ),
    OpmCase(
        _R,
        "Error/SkippedReplacesStranded",
        chain(
            entry("anakin.v0.0.1"),
            entry("anakin.v0.0.2", "anakin.v0.0.1"),
            entry("anakin.v0.0.3", "anakin.v0.0.2", ["anakin.v0.0.2"]),
        ),
        False,
        ("OLMCAT-CH007",),
        "channel contains one or more stranded bundles: anakin.v0.0.1",
        valid_v126=True,
    ),
]

# -- load_test.go -------------------------------------------------------------------------------

_L = "load_test"
INVALID_FILES = {
    "invalid-bundle.json": ('{"schema": "olm.bundle","relatedImages": {}}', ("OLMCAT-BL003",)),
    "invalid-package.json": ('{"schema": "olm.package","name": {}}', ("OLMCAT-BL003",)),
    "no-schema.yaml": ("hello: world", ("OLMCAT-BL002",)),
    "invalid-format.txt": ("[This is not yaml or json.}", ("OLMCAT-FS001",)),
    "not-object.json": ("[]", ("OLMCAT-BL001",)),
}

_KIALI_DEPRECATIONS = """---
schema: olm.deprecations
package: kiali
entries:
- reference:
    schema: olm.bundle
    name: kiali-operator.v1.68.0
  message: |
     kiali-operator.v1.68.0 is deprecated. Uninstall and install kiali-operator.v1.72.0 for support.
- reference:
    schema: olm.package
  message: |
     package kiali is end of life.  Please use 'kiali-new' package for support.
- reference:
    schema: olm.channel
    name: alpha
  message: |
       channel alpha is no longer supported.  Please switch to channel 'stable'.
"""

ETCD_DIGEST = "66a37fd61a06a43969854ee6d3e21087a98b93838e284a6086b13917f96b0d9b"
_ETCD_YAML = f"""---
schema: olm.package
name: etcd
defaultChannel: singlenamespace-alpha
description: A message about etcd operator, a description of channels
---
schema: olm.channel
package: etcd
name: singlenamespace-alpha
entries:
- name: etcdoperator.v0.9.0
- name: etcdoperator.v0.9.2
  replaces: etcdoperator.v0.9.0
---
schema: olm.bundle
name: etcdoperator.v0.9.0
package: etcd
image: quay.io/operatorhubio/etcd:v0.9.0
properties:
- type: olm.package
  value:
    packageName: etcd
    version: 0.9.0
relatedImages:
- name: etcdv0.9.0
  image: quay.io/coreos/etcd-operator@sha256:{ETCD_DIGEST}
---
schema: olm.bundle
name: etcdoperator.v0.9.2
package: etcd
image: quay.io/operatorhubio/etcd:v0.9.2
properties:
- type: olm.package
  value:
    packageName: etcd
    version: 0.9.2
"""


def _valid_fs() -> dict[str, str]:
    """validFS's layout: an .indexignore that keeps *.json and *.yaml but not CSVs, so the
    README and the CSV beside the catalog files are never loaded."""
    kiali = [
        package("kiali", "alpha", icon=BIG_CIRCLE),
        channel("kiali", "alpha", entry("kiali-operator.v1.68.0")),
        {**bundle("kiali", "1.68.0"), "name": "kiali-operator.v1.68.0"},
    ]
    return {
        ".indexignore": "*\n!*.json\n!*.yaml\n\n*.clusterserviceversion.yaml",
        "README.md": "# Catalog\n\nThis directory is a catalog; the README is ignored.\n",
        "etcdoperator.v0.6.1.clusterserviceversion.yaml": (
            "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\n"
            "metadata:\n  name: etcdoperator.v0.6.1\n"
        ),
        **fbc(
            package("cockroachdb", "stable-5.x"),
            channel("cockroachdb", "stable-5.x", entry("cockroachdb.v5.0.3")),
            bundle("cockroachdb", "5.0.3"),
            name="cockroachdb.json",
        ),
        "etcd.yaml": _ETCD_YAML,
        **fbc(*kiali, name="kiali.json"),
        "deprecations.yaml": _KIALI_DEPRECATIONS,
        "unrecognized-schema.json": '{ "schema":  "unexpected" }',
    }


LOAD = [
    *(
        OpmCase(_L, f"Error/{name}", {name: text}, False, rules, note="invalidFS file")
        for name, (text, rules) in INVALID_FILES.items()
    ),
    OpmCase(
        _L,
        "Error/Invalid (all of invalidFS)",
        {name: text for name, (text, _) in INVALID_FILES.items()},
        False,
        tuple(rule for _, rules in INVALID_FILES.values() for rule in rules),
    ),
    OpmCase(
        _L,
        "Success/UnrecognizedSchema",
        {
            "unrecognized-schema.json": (
                '{"schema":"olm.package"}{"schema":"unexpected"}{"schema":"olm.bundle"}'
            )
        },
        False,
        ("OLMCAT-BL004",),
        "config contains package with no name",
        note="loads (what the Go test checks), but the package has no name, which "
        "ConvertToModel refuses",
    ),
    OpmCase(
        _L,
        "Success/ValidDir (validFS layout)",
        _valid_fs(),
        True,
        note="validFS's files carry no olm.channel blobs; here each package has one, so the "
        "catalog is valid and the .indexignore decides",
    ),
]

# -- versionrelease_test.go: TestNewRelease -------------------------------------------------------

_N = "TestNewRelease"
RELEASES = {
    "empty string": ("", True),
    "single alphanumeric segment": ("alpha", True),
    "single numeric segment": ("1", True),
    "multiple segments": ("alpha.1.beta.2", True),
    "hyphens allowed": ("rc-1.beta-2", True),
    "max length 20 characters": ("12345678901234567890", True),
    "exceeds max length": ("123456789012345678901", False),
    "leading zeros in numeric segment": ("01", False),
    "leading zeros in multiple digit numeric segment": ("001", False),
    "zero without leading zeros is valid": ("0", True),
    "alphanumeric starting with zero is valid": ("0alpha", True),
    "invalid characters": ("alpha_beta", False),
}


def _release_case(name: str, release: str, valid: bool) -> OpmCase:
    bundle_name_ = f"foo-v0.1.0-{release}" if release else "foo.v0.1.0"
    return OpmCase(
        _N,
        name,
        fbc(
            package("foo", "alpha"),
            channel("foo", "alpha", entry(bundle_name_)),
            _release_bundle(bundle_name_, "0.1.0", release),
        ),
        valid,
        () if valid else ("OLMCAT-BU005",),
        valid_v126=True,
        note="opm v1.26.5 knows no release: it reads the bundle as foo 0.1.0",
    )


NEW_RELEASE = [_release_case(n, r, v) for n, (r, v) in RELEASES.items()]

# -- property_test.go: TestParse ------------------------------------------------------------------

_P = "TestParse"


def _parse_case(name: str, broken_type: str) -> OpmCase:
    return OpmCase(
        _P,
        name,
        fbc(
            *foo(
                bundle("foo", "0.1.0", properties=[pkg_prop("foo", "0.1.0"), {"type": broken_type}])
            )
        ),
        False,
        ("OLMCAT-BL004",),
        "unexpected end of JSON input",
        note="the Go test's value '{' is written as a property without value (same error)",
    )


PARSE = [
    _parse_case("Error/InvalidPackage", "olm.package"),
    _parse_case("Error/InvalidPackageRequired", "olm.package.required"),
    _parse_case("Error/InvalidGVK", "olm.gvk"),
    _parse_case("Error/InvalidGVKRequired", "olm.gvk.required"),
    _parse_case("Error/InvalidBundleObject", "olm.bundle.object"),
    _parse_case("Error/InvalidOther", "otherType1"),
    OpmCase(
        _P,
        "Success/Valid",
        fbc(
            *foo(
                bundle(
                    "foo",
                    "0.1.0",
                    properties=[
                        pkg_prop("foo", "0.1.0"),
                        prop(
                            "olm.package.required",
                            {"packageName": "package3", "versionRange": ">=1.0.0 <2.0.0-0"},
                        ),
                        prop(
                            "olm.package.required",
                            {"packageName": "package4", "versionRange": ">=2.0.0 <3.0.0-0"},
                        ),
                        gvk("group", "v1", "Kind1"),
                        gvk("group", "v1", "Kind2"),
                        prop(
                            "olm.gvk.required", {"group": "other", "kind": "Kind3", "version": "v2"}
                        ),
                        prop(
                            "olm.gvk.required", {"group": "other", "kind": "Kind4", "version": "v2"}
                        ),
                        bundle_object("testdata2"),
                        prop("otherType1", {"v": "otherValue1"}),
                        prop("otherType2", ["otherValue2"]),
                    ],
                )
            )
        ),
        True,
        note="the Go input's two olm.package properties (package1, package2) become the "
        "bundle's own one: a bundle must have exactly one",
    ),
]

# -- crafted: the rules those tests pin, at their edges ---------------------------------------
# Not from the Go tests: verdicts read from v1.72.0's source (declcfg_to_model.go, model.go,
# declcfg.go); the v1.26.5 verdicts are checked against the real binary like the others.

_X = "crafted"


def _two(first: Blob, second: Blob) -> dict[str, str]:
    """foo with channel alpha = first <- second."""
    return fbc(
        package("foo", "alpha"),
        channel("foo", "alpha", entry(first["name"]), entry(second["name"], first["name"])),
        first,
        second,
    )


def _released(name: str, version: str, release: str = "") -> Blob:
    return _release_bundle(name, version, release)


def _alone(blob: Blob, *more: Blob, pkg: str = "foo") -> dict[str, str]:
    return fbc(package(pkg, "alpha"), channel(pkg, "alpha", entry(blob["name"])), blob, *more)


def _x(name: str, files: dict[str, str], valid: bool, *rules: str, **kw: Any) -> OpmCase:
    return OpmCase(_X, name, files, valid, rules, **kw)


def _pkg_named(name: str) -> dict[str, str]:
    return _alone(bundle(name, "0.1.0"), pkg=name)


def _deprecation_entry(reference: Blob, message: str | None = "m") -> Blob:
    out: Blob = {"reference": reference}
    if message is not None:
        out["message"] = message
    return out


CRAFTED = [
    _x(
        "versions differing only in build metadata are distinct",
        _two(_released("foo.a", "1.0.0+a"), _released("foo.b", "1.0.0+b")),
        True,
    ),
    _x(
        "a version with and without a release are distinct",
        _two(_released("foo.v0.1.0", "0.1.0"), _released("foo-v0.1.0-1", "0.1.0", "1")),
        True,
    ),
    _x(
        "equal version and release under two names",
        _two(_released("foo-v0.1.0-1", "0.1.0", "1"), _released("foo.v0.1.0-1", "0.1.0", "1")),
        False,
        "OLMCAT-PK005",
        valid_v126=True,
    ),
    _x(
        "a bundle in two channels has one version",
        fbc(
            package("foo", "alpha"),
            channel("foo", "alpha", entry("foo.v0.1.0")),
            channel("foo", "beta", entry("foo.v0.1.0")),
            bundle("foo", "0.1.0"),
        ),
        True,
    ),
    _x(
        "release on a pre-release version",
        _alone(_released("foo-v0.1.0-rc.1-2", "0.1.0-rc.1", "2")),
        True,
    ),
    _x("release of two numeric parts", _alone(_released("foo-v0.1.0-1.0", "0.1.0", "1.0")), True),
    _x(
        "release of 20 letters",
        _alone(_released("foo-v0.1.0-abcdefghijklmnopqrst", "0.1.0", "abcdefghijklmnopqrst")),
        True,
    ),
    _x(
        "release with an empty part",
        _alone(_released("foo-v0.1.0-a..b", "0.1.0", "a..b")),
        False,
        "OLMCAT-BU005",
        valid_v126=True,
    ),
    _x(
        "release on a bundle with the usual dotted name",
        _alone(_released("foo.v0.1.0", "0.1.0", "2")),
        False,
        "OLMCAT-BU006",
        valid_v126=True,
    ),
    _x(
        "pre-release number with a leading zero",
        _alone(_released("foo.v0.1.0", "0.1.0-01")),
        False,
        "OLMCAT-BU004",
    ),
    _x("package name of 63 characters", _pkg_named("a" * 63), True),
    _x(
        "package name of 64 characters",
        _pkg_named("a" * 64),
        False,
        "OLMCAT-PK001",
        valid_v126=True,
    ),
    _x(
        "bundle image with an upper-case repository",
        fbc(*foo(bundle("foo", "0.1.0", image="quay.io/Foo/bar:v1"))),
        False,
        "OLMCAT-BU009",
        valid_v126=True,
    ),
    _x(
        "bundle image digest too short",
        fbc(*foo(bundle("foo", "0.1.0", image="quay.io/a/b@sha256:abcd"))),
        False,
        "OLMCAT-BU009",
        valid_v126=True,
    ),
    _x(
        "bundle image with a URL scheme",
        fbc(*foo(bundle("foo", "0.1.0", image="https://quay.io/a/b:1"))),
        False,
        "OLMCAT-BU009",
        valid_v126=True,
    ),
    _x(
        "bundle image tag of 129 characters",
        fbc(*foo(bundle("foo", "0.1.0", image="quay.io/a/b:" + "t" * 129))),
        False,
        "OLMCAT-BU009",
        valid_v126=True,
    ),
    _x(
        "bundle image name over 255 characters",
        fbc(*foo(bundle("foo", "0.1.0", image="quay.io/" + "a" * 260 + ":1"))),
        False,
        "OLMCAT-BU009",
        valid_v126=True,
    ),
    _x(
        "related image without a name",
        fbc(*foo(bundle("foo", "0.1.0", relatedImages=[{"image": "quay.io/a/b:1"}]))),
        True,
    ),
    _x(
        "icon data that is not base64",
        fbc(
            package("foo", "alpha", icon={"base64data": "@@@", "mediatype": "image/png"}),
            channel("foo", "alpha", entry("foo.v0.1.0")),
            bundle("foo", "0.1.0"),
        ),
        False,
        "OLMCAT-BL003",
        opm_says="parse package: illegal base64 data at input byte 0",
        note="olmcat accepted it before this table; readers/fbc.py now checks the base64",
    ),
    _x(
        "deprecation entry without a reference schema",
        _with_deprecations(_deprecations("foo", _deprecation_entry({"name": "x"}))),
        False,
        "OLMCAT-DE006",
        valid_v126=True,
    ),
    _x(
        "package deprecation naming the package",
        _with_deprecations(
            _deprecations("foo", _deprecation_entry({"schema": "olm.package", "name": "foo"}))
        ),
        False,
        "OLMCAT-DE003",
        valid_v126=True,
    ),
    _x(
        "bundle deprecation without a message",
        _with_deprecations(
            _deprecations(
                "foo", _deprecation_entry({"schema": "olm.bundle", "name": "foo.v0.1.0"}, None)
            )
        ),
        False,
        "OLMCAT-DE005",
        valid_v126=True,
    ),
    _x(
        "deprecations with no entries",
        _with_deprecations(_deprecations("foo")),
        True,
    ),
]

# The cases taken from the Go tests (CRAFTED ones are counted apart).
GO_CASES: list[OpmCase] = [
    *CONVERT_TO_MODEL,
    *ROUNDTRIP,
    *VALIDATORS,
    *HEAD_AND_CHAIN,
    *LOAD,
    *NEW_RELEASE,
    *PARSE,
]
CASES: list[OpmCase] = [*GO_CASES, *CRAFTED]

SKIPPED = [
    Skipped(
        _V,
        (
            "Model/Error/PackageKeyNameMismatch",
            "Package/Error/ChannelKeyNameMismatch",
            "Channel/Error/BundleKeyNameMismatch",
        ),
        "a model map key differing from the name: FBC has no keys, the name is the key",
    ),
    Skipped(
        _V,
        (
            "Package/Error/InvalidChannelPackageLink",
            "Channel/Error/InvalidBundleChannelLink",
            "Bundle/Error/WrongPackage",
        ),
        "parent pointers that do not point back: FBC links by name, so the link is always right",
    ),
    Skipped(
        _V,
        (
            "Package/Success/Valid",
            "Channel/Success/Valid",
            "Package/Error/DefaultChannelNotInChannelMap",
            "Channel/Error/NoBundles",
        ),
        "the same catalog as Model/Success/Valid, Model/Success/Valid, Model/Error/InvalidPackage "
        "and Package/Error/InvalidChannel",
    ),
    Skipped(
        "TestConvertToModelBundle", ("*",), "the catalog of TestConvertToModel/Success/ValidModel"
    ),
    Skipped("TestNormalize", ("*",), "rewrites property JSON; decides nothing about validity"),
    Skipped(
        _L,
        ("Error/NilFS", "Error/NonExistentDir", "Success/ValidFile"),
        "a nil fs.FS is Go API; a missing directory is an input error, not a verdict "
        "(tests/validate/test_checks.py::test_unreadable_input_raises); etcd.yaml of validFS "
        "has no olm.channel blobs (it loads; ValidDir covers the loading)",
    ),
    Skipped(
        "property_test",
        ("TestValidate", "TestBuild", "TestMustBuild", "TestDeduplicate"),
        "Property.Validate and the builders are not on opm validate's path",
    ),
    Skipped(
        "versionrelease_test",
        (
            "TestVersionRelease_MarshalJSON",
            "TestVersionRelease_UnmarshalJSON",
            "TestVersionRelease_MarshalUnmarshalRoundTrip",
            "TestVersionRelease_KubernetesSafeString",
        ),
        "serialization of the VersionRelease type; not on opm validate's path",
    ),
    Skipped(
        "legacy_releaseversion_test",
        ("TestBundle_usesLegacyReleaseVersion",),
        "olm.substitutesFor only orders bundles (templates); validation never asks",
    ),
    Skipped("TestAddBundle", ("*",), "builds models in memory; not validation"),
]


def _check_ids_unique() -> None:
    seen = [case.id for case in CASES]
    assert len(seen) == len(set(seen)), "duplicate case ids"


_check_ids_unique()
