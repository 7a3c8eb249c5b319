"""The legacy loader's bookkeeping shared by the SQLite and directory readers: the package icon
and opm's model rules (``check_like_opm``)."""

from __future__ import annotations

import base64

import pytest

from olmcat.errors import ValidationError
from olmcat.model import Bundle, Channel, ChannelEntry, Package, PackageCatalog
from olmcat.model import property as prop
from olmcat.notices import NoticeLog
from olmcat.readers.legacy import check_like_opm, decode_package_icon

PNG = base64.b64encode(b"\x89PNG\r\n").decode()


def test_icon_is_reencoded_and_spaces_repaired_as_opm_does() -> None:
    notices = NoticeLog()
    icon = decode_package_icon((PNG[:4] + " " + PNG[4:], "image/png"), notices, "icon")
    assert icon is not None and (icon.base64data, icon.mediatype) == (PNG, "image/png")
    assert len(notices) == 0


@pytest.mark.parametrize(
    ("data", "code", "severity"),
    [("", "legacy.icon-empty", "info"), ("not*base64", "legacy.icon-invalid", "warning")],
)
def test_icon_opm_leaves_out(data: str, code: str, severity: str) -> None:
    notices = NoticeLog()
    assert decode_package_icon((data, "image/png"), notices, "icon", package="p") is None
    assert [(n.code, n.severity, n.package) for n in notices] == [(code, severity, "p")]


def catalog(
    *entries: ChannelEntry, props: tuple[prop.Property, ...] | None = None
) -> PackageCatalog:
    bundles = tuple(
        Bundle(
            e.name,
            "demo",
            image="quay.io/x/demo:1",
            properties=props if props is not None else (prop.package("demo", "1.0.0"),),
        )
        for e in entries
    )
    return PackageCatalog(
        Package("demo", default_channel="stable"),
        channels=(Channel("stable", "demo", tuple(entries)),),
        bundles=bundles,
    )


@pytest.mark.parametrize(
    ("pkg", "message"),
    [
        (
            catalog(ChannelEntry("a"), ChannelEntry("b")),
            "multiple channel heads found in graph: a, b",
        ),
        (
            catalog(ChannelEntry("a", replaces="b"), ChannelEntry("b", replaces="a")),
            "no channel head found in graph",
        ),
        (catalog(ChannelEntry("a", skips=("",))), "skip[0] is empty"),
        (
            catalog(
                ChannelEntry("a"),
                props=(prop.package("demo", "1.0.0"), prop.package("other", "1.0.0")),
            ),
            'must be exactly one property with type "olm.package"',
        ),
        (
            catalog(
                ChannelEntry("a"),
                props=(prop.package("demo", "1.0.0"), prop.Property("olm.gvk", '{"group":1}')),
            ),
            "property 1 (olm.gvk): group: a number where a string is expected",
        ),
    ],
)
def test_opm_model_rules(pkg: PackageCatalog, message: str) -> None:
    with pytest.raises(ValidationError, match="opm migrate refuses the catalog") as caught:
        check_like_opm(pkg, "where")
    assert message in str(caught.value)


def test_a_valid_package_passes() -> None:
    check_like_opm(catalog(ChannelEntry("b", replaces="a"), ChannelEntry("a")), "where")


# -- the shortcut for inline manifests (olm.bundle.object {"data": ...}) ---------------------------

_SHORT_ALPHABET = ["A", "z", "+", "/", "=", "\n", "-", '"', "\\", "é"]


def _file_decodes(value: str) -> bool:
    """The full rule the shortcut stands in for: the value parses and decodes as property.File."""
    from olmcat.go import json as gojson
    from olmcat.go.typed import decode_error

    try:
        parsed = gojson.loads(value)
    except ValueError:
        return False
    return decode_error(parsed, "property.File") is None


def test_inline_file_shortcut_accepts_only_what_decodes_exhaustive() -> None:
    # every data string up to 5 characters over base64 letters, padding and characters that
    # must not be taken (line breaks, quotes, escapes, non-ASCII): whatever the shortcut
    # accepts, the full check accepts too; base64 it accepts, the full check confirms
    import itertools

    from olmcat.readers.legacy import _plain_inline_file

    accepted = 0
    for length in range(6):
        for chars in itertools.product(_SHORT_ALPHABET, repeat=length):
            value = '{"data":"' + "".join(chars) + '"}'
            if _plain_inline_file(value):
                accepted += 1
                assert _file_decodes(value), value
            elif all(c in "Az+/" for c in chars) and len(chars) % 4 == 0:
                raise AssertionError(f"unpadded-free base64 refused: {value}")
    assert accepted > 100


def test_inline_file_shortcut_takes_what_readers_write_and_nothing_else() -> None:
    from olmcat.readers.legacy import _plain_inline_file

    for size in range(0, 40):
        data = bytes(range(size))
        assert _plain_inline_file(prop.bundle_object(data).value)
    for other in (
        '{"data":"QQ==","ref":"x"}',  # two fields: the mutual-exclusion rule must run
        '{"ref":"x","data":"QQ=="}',
        '{"data": "QQ=="}',  # other spelling: the full parse decides
        '{"data":"Q\\u0051=="}',
        '{"data":"QQ=\\n="}',
    ):
        assert not _plain_inline_file(other), other
    # a bundle object the shortcut leaves to the full check is still refused when it is bad
    bad = catalog(
        ChannelEntry("a"),
        props=(
            prop.package("demo", "1.0.0"),
            prop.Property(prop.TYPE_BUNDLE_OBJECT, '{"data":"Q"}'),
        ),
    )
    with pytest.raises(ValidationError, match="not valid base64"):
        check_like_opm(bad, "where")
