"""docs/library.md's example runs as written, from the repository root."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.paths import ROOT


def test_library_example_runs() -> None:
    page = (ROOT / "docs" / "library.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    assert len(blocks) == 1
    done = subprocess.run(
        [sys.executable, "-c", blocks[0]], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("hello-operator stable {'beta': 'hello-operator.v0.3.0'")
    assert lines[-1] == '    "schema": "olm.package",'
