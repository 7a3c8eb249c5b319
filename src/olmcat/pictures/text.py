"""Catalog text made safe for HTML and SVG: every string a catalog controls passes through here.

Names, descriptions and property values are attacker-controlled. They are made *visible* first
(control, bidi and other invisible format characters become ``[U+XXXX]``, so a name cannot
reorder the text around it or hide characters: "Trojan Source"), cut to a length where a picture
needs that, then escaped for the place they land (element text and attribute values alike: the
five XML-special characters). The result is valid in HTML and in a standalone SVG (XML 1.0 has
no escape for most control characters, so they must never reach it as characters).
"""

from __future__ import annotations

import html
import re
from typing import Final

__all__ = ["attr", "clip", "esc", "visible"]

# C0/C1 controls (tab and newline are handled by the callers that allow them), the bidi
# embeddings, overrides and isolates, zero-width and other invisible format characters,
# noncharacters, lone surrogates and the invisible "tag" characters.
_HIDDEN: Final = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u206f\ufeff\ufff9-\ufffb\ufffe\uffff\ud800-\udfff\U000e0000-\U000e007f]"
)


def _named(match: re.Match[str]) -> str:
    return f"[U+{ord(match.group()):04X}]"


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with every invisible or direction-changing character spelled out; tabs and line
    breaks become spaces unless ``lines`` is set."""
    if not lines:
        text = text.replace("\t", " ").replace("\r", " ").replace("\n", " ")
    else:
        text = text.replace("\r", " ").replace("\t", " ")
    return _HIDDEN.sub(_named, text)


def clip(text: str, limit: int) -> str:
    """At most ``limit`` characters, the last one an ellipsis when something was cut."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def esc(text: str, limit: int | None = None, *, lines: bool = False) -> str:
    """Element text: made visible, optionally clipped, then escaped."""
    shown = visible(text, lines=lines)
    if limit is not None:
        shown = clip(shown, limit)
    return html.escape(shown, quote=True)


def attr(text: str, limit: int | None = None) -> str:
    """An attribute value (to be written inside double quotes)."""
    return esc(text, limit)
