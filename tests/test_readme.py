"""The README is the landing page: short, and every way out of it leads somewhere real."""

from __future__ import annotations

import re

import click
import pytest

from olmcat.cli import cli
from tests.support.paths import ROOT

README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def readme() -> str:
    return README.read_text()


def code_blocks(text: str) -> list[str]:
    return re.findall(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M)


def test_readme_fits_on_a_screen_or_three() -> None:
    assert len(readme().splitlines()) <= 200


def test_the_first_two_blocks_are_the_fresh_machine_commands() -> None:
    first, second = code_blocks(readme())[:2]
    assert "python3 -m venv .venv" in first and "pip install -e ." in first
    assert "olmcat migrate sqlite fixtures/example/sqlite/schema-13.db" in first
    assert "pip install -e '.[test]'" in second and "pytest" in second


def test_every_relative_link_leads_to_a_file() -> None:
    targets = [m.group(1) for m in LINK.finditer(readme())]
    local = [t for t in targets if "://" not in t]
    assert len(local) >= 20, local  # the task tables link into the site
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing


def test_every_command_is_named_in_the_readme() -> None:
    """A newcomer finds the command for their task from the README alone."""
    text = readme()
    with click.Context(cli) as ctx:
        names = cli.list_commands(ctx)
    assert len(names) >= 20
    absent = [
        name
        for name in names
        if not any(f in text for f in (f"`{name}", f" {name}`", f"olmcat {name} "))
    ]
    assert not absent


def task_examples() -> list[tuple[str, str]]:
    """(command line, linked page) of each task of 'The six commands most people need'."""
    text = readme()
    start = text.index("## The six commands most people need")
    section = text[start : text.index("\n## ", start + 1)]
    found = re.findall(
        r"\[(docs/[\w-]+\.md)\]\(docs/[\w-]+\.md\)\n\n<!-- runnable -->\n```sh\n(.*?)\n```", section
    )
    return [(command, page) for page, command in found]


def test_six_tasks_each_with_one_example_and_its_page() -> None:
    assert len(task_examples()) == 6


@pytest.mark.parametrize(("command", "page"), task_examples())
def test_each_task_example_is_a_real_command_explained_on_its_page(command: str, page: str) -> None:
    words = command.split()
    assert words[0] == "olmcat"
    group = cli
    path = []
    with click.Context(cli) as ctx:
        for word in words[1:]:
            if not isinstance(group, click.Group) or word.startswith("-"):
                break
            sub = group.get_command(ctx, word)
            if sub is None:
                break
            path.append(word)
            group = sub
    assert path, command
    assert f"olmcat {' '.join(path)}" in (ROOT / page).read_text(), (command, page)


def test_the_one_tables_the_site_shows_are_marked_for_inclusion() -> None:
    """docs/performance.md includes these README sections (one source); the deviations table lives
    in docs/deviations.md alone, and the README links to it."""
    text = readme()
    for name in ("intro", "install", "performance"):
        start, end = f"<!-- --8<-- [start:{name}] -->", f"<!-- --8<-- [end:{name}] -->"
        assert text.count(start) == 1 and text.count(end) == 1, name
        assert text.index(start) < text.index(end)
    assert "(docs/deviations.md)" in text
    deviations = (ROOT / "docs" / "deviations.md").read_text()
    assert "--8<--" not in deviations
    assert deviations.count("\n| ") >= 20  # one row per kept deviation
    performance = text[text.index("[start:performance]") : text.index("[end:performance]")]
    assert "Latest run:" in performance and "| target |" in performance  # one row per target
