"""The base64 check of olm.bundle.object data: the fast strict decode accepts exactly what
``b64decode(validate=True)`` accepts (Go's StdEncoding, CR/LF skipped), and the manifest bytes
reused from it equal a fresh decode."""

from __future__ import annotations

import base64
import binascii

from hypothesis import given, settings
from hypothesis import strategies as st

from olmcat.validate import checks


def reference(text: str) -> bytes | None:
    try:
        return base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError):
        return None


texts = st.text(alphabet="AQgw09+/=\r\n -_é", max_size=16) | st.binary(max_size=24).map(
    lambda b: base64.b64encode(b).decode()
)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_accepts_what_validating_decode_accepts(text: str) -> None:
    expected = reference(text)
    assert checks._go_base64(text) == (expected is not None)
    if expected is not None:
        assert checks._base64_bytes(text) == expected


def test_reuse_needs_the_same_text_object() -> None:
    assert checks._go_base64("aGVsbG8=")
    other = "".join(["d29y", "bGQ="])  # a different object: decoded afresh
    assert checks._base64_bytes(other) == b"world"
