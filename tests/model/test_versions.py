"""olmcat.model.versions: each named parser answers as its tool does."""

from __future__ import annotations

from olmcat.go.semver import Version
from olmcat.model import Bundle
from olmcat.model.property import package as package_property
from olmcat.model.versions import (
    olm_v0_version,
    olm_v1_version,
    opm_version,
    skip_range,
    version_key,
)


def test_opm_is_strict_where_olm_v0_is_tolerant() -> None:
    assert opm_version("1.2.3") == Version(1, 2, 3)
    assert opm_version("v1.2.3") is None  # blang semver.Parse refuses the v
    assert olm_v0_version("v1.2") == Version(1, 2, 0)  # ParseTolerant pads and strips
    assert opm_version("") is None and olm_v0_version("") is None and olm_v1_version("") is None


def test_a_bundle_is_read_through_its_olm_package_property() -> None:
    bundle = Bundle("demo.v1.0.0", "demo", properties=(package_property("demo", "1.0.0"),))
    assert opm_version(bundle) == olm_v0_version(bundle) == Version(1, 0, 0)
    assert opm_version(Bundle("x", "demo")) is None


def test_invalid_skip_range_covers_nothing() -> None:
    assert skip_range("garbage") is None
    covered = skip_range(">=1.0.0 <2.0.0")
    assert covered is not None and covered.contains(Version(1, 5, 0))


def test_version_key_sorts_unknown_first_then_by_version_then_name() -> None:
    keys = sorted(
        [("b", Version(1, 0, 0)), ("a", None), ("c", Version(0, 1, 0))],
        key=lambda item: version_key(item[1], item[0]),
    )
    assert [name for name, _ in keys] == ["a", "c", "b"]
