"""Fenced examples marked runnable in the README and docs/, and how they are run.

The marker is an HTML comment on the line before the fence (invisible on GitHub and in the site):

    <!-- runnable -->                       everything it needs is in the repository
    <!-- runnable: needs ../shared, dot -->  skipped (with the reason) where a path or command is
                                             absent

``sh`` blocks run as one ``bash -e -o pipefail`` script and must exit 0. ``console`` blocks are
transcripts: each ``$ `` line (with ``\\``-continued lines) runs, and what it prints (stdout and
stderr, as a terminal shows them) must be the lines that follow; a line that is just ``...`` stands
for any number of lines, and durations (``0.40 s``) match any duration. ``$ echo $?`` prints the
status of the command before it.

The blocks of one page run in order in one scratch directory that holds a copy of ``fixtures/``,
the repository's ``scripts/`` and, beside it, ``../shared`` when the checkout has it -- so a page's
later example can use what an earlier one wrote, and paths read as they do from a checkout.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from tests.support.paths import ROOT, SHARED

MARKER = re.compile(r"^<!-- runnable(?::\s*needs\s+(?P<needs>[^>]*?))?\s*-->$")
DURATION = re.compile(r"\b\d+(?:\.\d+)? (?:s|ms)\b")


@dataclass(frozen=True)
class Example:
    page: Path
    line: int  # of the opening fence, 1-based
    language: str
    body: str
    needs: tuple[str, ...]

    @property
    def where(self) -> str:
        page = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page
        return f"{page}:{self.line}"


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


FENCE = re.compile(r"^\s*(`{3,})(.*)$")


def examples(page: Path) -> list[Example]:
    """The marked examples of a page; markers inside a fenced block are its content, not marks."""
    lines = page.read_text().splitlines()
    found = []
    fence = ""  # the backticks of the fenced block we are in, if any
    for index, line in enumerate(lines):
        opening = FENCE.match(line)
        if fence:
            if opening and opening.group(1).startswith(fence) and not opening.group(2).strip():
                fence = ""
            continue
        if opening:
            fence = opening.group(1)
            continue
        marker = MARKER.match(line.strip())
        if marker is None:
            continue
        following = lines[index + 1].strip() if index + 1 < len(lines) else ""
        assert following.startswith("```"), (
            f"{page}:{index + 1}: a runnable marker must precede a fence"
        )
        language = following[3:].strip().split()[0] if following[3:].strip() else ""
        assert language in ("sh", "console"), f"{page}:{index + 2}: runnable {language!r}?"
        end = next(i for i in range(index + 2, len(lines)) if lines[i].strip().startswith("```"))
        needs = tuple(n.strip() for n in (marker["needs"] or "").split(",") if n.strip())
        found.append(
            Example(
                page, index + 2, language, textwrap.dedent("\n".join(lines[index + 2 : end])), needs
            )
        )
    return found


def missing_need(example: Example) -> str | None:
    for need in example.needs:
        if need.startswith("../shared"):
            if not (SHARED / need[len("../shared/") :]).exists():
                return f"{need} is absent"
        elif shutil.which(need) is None:
            return f"{need} is not installed"
    return None


def scratch(root: Path) -> Path:
    """A directory laid out like a checkout, for the examples of one page."""
    work = root / "olmcat"
    work.mkdir()
    shutil.copytree(ROOT / "fixtures", work / "fixtures")
    (work / "scripts").symlink_to(ROOT / "scripts")
    if SHARED.is_dir():
        (root / "shared").symlink_to(SHARED)
    return work


def environment(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OLMCAT_", "REGISTRY_AUTH"))}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(root / "home"),
        OLMCAT_CACHE_DIR=str(root / "cache"),
        NO_COLOR="1",
        COLUMNS="80",
        LC_ALL="C.UTF-8",
    )
    return env


def run_sh(example: Example, cwd: Path, env: dict[str, str]) -> None:
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", example.body],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"{example.where}: exit {done.returncode}\n{done.stderr}"


def transcript(body: str) -> list[tuple[str, list[str]]]:
    """[(command, expected output lines)] of a console block."""
    steps: list[tuple[str, list[str]]] = []
    lines = body.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        assert line.startswith("$ "), f"console block line {index + 1}: expected '$ ': {line!r}"
        command = line[2:]
        while command.endswith("\\") and index + 1 < len(lines):
            index += 1
            command = command[:-1] + " " + lines[index].strip()
        index += 1
        output = []
        while index < len(lines) and not lines[index].startswith("$ "):
            output.append(lines[index])
            index += 1
        while output and not output[-1].strip():  # a blank line between two commands
            output.pop()
        steps.append((command, output))
    return steps


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line, '...' lines matching any run of lines, durations matching any duration."""
    norm = [DURATION.sub("N s", line).rstrip() for line in actual]
    want = [DURATION.sub("N s", line).rstrip() for line in expected]

    def match(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(norm)
        if want[i].strip() == "...":
            return any(match(i + 1, k) for k in range(j, len(norm) + 1))
        return j < len(norm) and want[i] == norm[j] and match(i + 1, j + 1)

    return match(0, 0)


def run_console(example: Example, cwd: Path, env: dict[str, str]) -> None:
    status = 0
    for command, expected in transcript(example.body):
        if command.strip() == "echo $?":
            actual = [str(status)]
        else:
            done = subprocess.run(
                ["bash", "-o", "pipefail", "-c", command + " 2>&1"],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
                stdin=subprocess.DEVNULL,
            )
            status, actual = done.returncode, done.stdout.splitlines()
        assert matches(expected, actual), (
            f"{example.where}: $ {command}\n--- expected\n"
            + "\n".join(expected)
            + f"\n--- printed (exit {status})\n"
            + "\n".join(actual)
        )
