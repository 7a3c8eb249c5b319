"""The README's library example runs as written, from the repository root."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.paths import ROOT


def _section(title: str) -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_library_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", _section("Use as a library"), re.S)
    assert len(blocks) == 1
    done = subprocess.run(
        [sys.executable, "-c", blocks[0]], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("hello-operator stable {'beta': 'hello-operator.v0.3.0'")
    assert lines[-1] == '    "schema": "olm.package",'
