"""MkDocs hooks for the documentation site (mkdocs.yml `hooks:`): the generated references and
one Markdown-dialect fix.

* `<!-- olmcat:command-reference -->` in a page becomes one section per command and subcommand
  holding the command's `--help` exactly as click prints it (examples included), so the site and
  `--help` cannot disagree. mkdocs-click was tried first and left out: with click 8.3+ it prints
  `Sentinel.UNSET` as the default of every option without one, it drops the epilog that holds
  each command's examples, and it renders help text as Markdown (`*.crt` turns into italics).
* `<!-- olmcat:library-reference -->` becomes one mkdocstrings block per name in
  `olmcat.__all__`, grouped by layer, rendered from the docstrings.
* The pages are read on GitHub as they are and built into the site, and the two Markdown
  dialects disagree on a `|` inside a code span in a table cell: GitHub needs it escaped
  (`a\\|b`) even there, Python-Markdown keeps the backslash. The site drops it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import click

COMMAND_MARKER = "<!-- olmcat:command-reference -->"
LIBRARY_MARKER = "<!-- olmcat:library-reference -->"
HELP_WIDTH = 80  # click's own default width: what a user sees in a terminal

# olmcat.__all__ grouped by the subpackage a name lives in, in this order
LIBRARY_GROUPS = {
    "errors": "Errors",
    "notices": "Notices",
    "model": "The model",
    "readers": "Reading catalogs",
    "writers": "Writing catalogs",
    "migrate": "Migrating",
    "diff": "Diffing",
    "validate": "Validating",
    "mirror": "Filtering, images and mirroring",
    "export": "Exporting",
    "upgrade": "Before a cluster upgrade",
    "oci": "Registries",
    "templates": "Templates",
    "maintain": "Maintaining a catalog",
    "olmv1": "OLM v1",
}


# -- the command reference ------------------------------------------------------------------------


def _root() -> tuple[click.Group, click.Context]:
    from olmcat.cli import cli

    ctx = click.Context(
        cli, info_name="olmcat", terminal_width=HELP_WIDTH, max_content_width=HELP_WIDTH
    )
    return cli, ctx


def walk_commands() -> Iterator[tuple[tuple[str, ...], click.Command, click.Context]]:
    """Every command and subcommand, depth first in `--help` order, with the context its
    `--help` is printed in."""
    cli, ctx = _root()

    def walk(
        path: tuple[str, ...], command: click.Command, ctx: click.Context
    ) -> Iterator[tuple[tuple[str, ...], click.Command, click.Context]]:
        if command.hidden:
            return
        yield path, command, ctx
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None:
                    yield from walk(
                        (*path, name), sub, click.Context(sub, info_name=name, parent=ctx)
                    )

    yield from walk((), cli, ctx)


def command_help(path: tuple[str, ...]) -> str:
    """`olmcat PATH --help` as click prints it at HELP_WIDTH columns."""
    for found, command, ctx in walk_commands():
        if found == path:
            return command.get_help(ctx)
    raise KeyError(" ".join(path))


def command_reference() -> str:
    sections = []
    for path, command, ctx in walk_commands():
        name = " ".join(("olmcat", *path))
        level = "#" * min(len(path) + 1, 4)
        summary = command.get_short_help_str(limit=200)
        if path:
            sections.append(f"{level} {name}\n\n{summary}\n")
        sections.append(f"```text\n{command.get_help(ctx)}\n```\n")
    return "\n".join(sections)


# -- the library reference ------------------------------------------------------------------------


def library_names() -> dict[str, list[tuple[str, str]]]:
    """Group title -> [(public name, "module.attribute")] for every name in olmcat.__all__."""
    import olmcat

    groups: dict[str, list[tuple[str, str]]] = {title: [] for title in LIBRARY_GROUPS.values()}
    for name, target in olmcat._EXPORTS.items():
        module, _, attribute = target.partition(":")
        layer = module.split(".")[1]
        groups.setdefault(LIBRARY_GROUPS.get(layer, module), []).append(
            (name, f"{module}.{attribute}")
        )
    return {title: names for title, names in groups.items() if names}


def library_reference() -> str:
    parts = []
    for title, names in library_names().items():
        parts.append(f"### {title}\n")
        for name, target in names:
            parts.append(
                f"::: {target}\n"
                f"    options:\n"
                f"      heading: olmcat.{name}\n"
                f"      toc_label: {name}\n"
                f"      heading_level: 4\n"
            )
    return "\n".join(parts)


# -- Markdown dialects ----------------------------------------------------------------------------

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


# Docstrings use Sphinx roles (:class:`Notice`), which mkdocstrings leaves as text before the code
_SPHINX_ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):<code>~?")


def drop_sphinx_roles(html: str) -> str:
    return _SPHINX_ROLE.sub("<code>", html)


def on_page_content(html: str, **_: Any) -> str:
    return drop_sphinx_roles(html)


def on_page_markdown(markdown: str, **_: Any) -> str:
    if COMMAND_MARKER in markdown:
        markdown = markdown.replace(COMMAND_MARKER, command_reference())
    if LIBRARY_MARKER in markdown:
        markdown = markdown.replace(LIBRARY_MARKER, library_reference())
    return unescape_table_pipes(markdown)
