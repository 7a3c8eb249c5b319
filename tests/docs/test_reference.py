"""The generated references: every command of `olmcat --help` (and of each group's `--help`) is in
the command reference with exactly the help it prints, and every public name is in the library
reference."""

from __future__ import annotations

import functools
import re

import pytest
from click.testing import CliRunner

import olmcat
from olmcat.cli import cli
from tests.docs.support import hooks
from tests.support.paths import FIXTURES


@functools.cache
def command_reference() -> str:
    return str(hooks().command_reference())


CATALOG = str(FIXTURES / "example" / "expected")


def help_of(*args: str) -> str:
    result = CliRunner().invoke(
        cli, [*args, "--help"], prog_name="olmcat", terminal_width=80, max_content_width=80
    )
    assert result.exit_code == 0, result.output
    return result.stdout


def listed_commands(help_text: str) -> list[str]:
    """The names in the 'Commands:' section of a --help text."""
    if "\nCommands:\n" not in help_text:
        return []
    section = help_text.split("\nCommands:\n", 1)[1]
    return re.findall(r"^  (\S+)", section, re.M)


def command_line(path: tuple[str, ...]) -> list[str]:
    """Arguments that reach PATH's --help: query's subcommands need its CATALOG first."""
    if len(path) == 2 and path[0] == "query":
        return ["query", CATALOG, path[1]]
    return list(path)


def help_paths() -> list[tuple[str, ...]]:
    """Every command path that `--help` lists, found by reading the help texts themselves."""
    paths: list[tuple[str, ...]] = []
    pending: list[tuple[str, ...]] = [()]
    while pending:
        path = pending.pop(0)
        for name in listed_commands(help_of(*command_line(path))):
            paths.append((*path, name))
            pending.append((*path, name))
    return paths


PATHS = help_paths()


def test_help_lists_the_known_commands() -> None:
    # the walk above reaches nested groups and query's subcommands (a sanity check of the parser)
    for path in [("migrate", "sqlite"), ("mirror", "copy"), ("query", "upgrades"), ("diff",)]:
        assert path in PATHS
    assert len(PATHS) >= 35


def test_every_command_in_help_is_in_the_reference() -> None:
    reference = command_reference()
    headings = set(re.findall(r"^#+ (olmcat(?: \S+)+)$", reference, re.M))
    missing = [" ".join(("olmcat", *p)) for p in PATHS if " ".join(("olmcat", *p)) not in headings]
    assert not missing


@pytest.mark.parametrize("path", [(), *PATHS], ids=lambda p: " ".join(p) or "olmcat")
def test_the_reference_shows_exactly_what_help_prints(path: tuple[str, ...]) -> None:
    printed = help_of(*command_line(path))
    assert f"```text\n{printed.rstrip()}\n```" in command_reference()


def test_the_examples_are_in_the_reference() -> None:
    reference = command_reference()
    assert reference.count("Examples:\n") >= 25
    assert "olmcat diff --fail-on stranded" in reference or "olmcat diff " in reference


def test_every_public_name_is_in_the_library_reference() -> None:
    reference = hooks().library_reference()
    documented = set(re.findall(r"^      heading: olmcat\.(\w+)$", reference, re.M))
    assert documented == set(olmcat.__all__) - {"__version__"}
    # each block names the object where it is defined, so mkdocstrings can load it
    for target in re.findall(r"^::: (\S+)$", reference, re.M):
        module, _, attribute = target.rpartition(".")
        assert attribute in vars(__import__(module, fromlist=[attribute])), target
