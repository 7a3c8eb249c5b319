"""MkDocs hooks for the documentation site (mkdocs.yml `hooks:`).

The pages are read on GitHub as they are and built into the site, and the two Markdown dialects
disagree on one thing the pages need: a `|` inside a code span in a table cell. GitHub needs it
escaped (`a\\|b`) even there; Python-Markdown keeps the backslash in the code. So the site drops
the backslash in code spans of table rows, and the pages keep GitHub's form.
"""

from __future__ import annotations

import re
from typing import Any

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def _unescape_pipes(row: str) -> str:
    return _CODE_SPAN.sub(lambda m: m.group(1) + m.group(2).replace("\\|", "|") + m.group(1), row)


def unescape_table_pipes(markdown: str) -> str:
    """Table rows (lines starting with `|`) outside fenced code, with `\\|` in code spans as `|`."""
    lines, fence = [], ""
    for line in markdown.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = "" if fence == marker else (fence or marker)
        elif not fence and stripped.startswith("|") and "\\|" in line:
            line = _unescape_pipes(line)
        lines.append(line)
    return "\n".join(lines)


def on_page_markdown(markdown: str, **_: Any) -> str:
    return unescape_table_pipes(markdown)
