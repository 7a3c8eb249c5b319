"""Every command's --help works and ends with examples."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from tests.support import hostile_inputs


def _leaf_commands() -> list[list[str]]:
    """Paths of every runnable command (groups' subcommands, recursively)."""
    found: list[list[str]] = []
    ctx = click.Context(cli)

    def walk(group: click.Group, path: list[str]) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None, name
            if isinstance(command, click.Group):
                walk(command, [*path, name])
            else:
                found.append([*path, name])

    walk(cli, [])
    return found


@pytest.mark.parametrize("path", _leaf_commands(), ids=" ".join)
def test_help_ends_with_examples(path: list[str]) -> None:
    # query takes its CATALOG before the subcommand
    args = [path[0], "CATALOG", *path[1:]] if path[0] == "query" else path
    result = CliRunner().invoke(cli, [*args, "--help"])
    assert result.exit_code == 0, result.output
    assert "Examples:\n" in result.output
    examples = [line.strip() for line in result.output.split("Examples:\n", 1)[1].splitlines()]
    # each example is a command line that runs olmcat (possibly inside a pipeline)
    assert any(line.startswith("olmcat ") for line in examples)
    assert all("olmcat " in line for line in examples if line), examples


@pytest.mark.parametrize("width", [50, 80, 200])
def test_command_list_is_what_the_commands_themselves_say(width: int) -> None:
    # olmcat --help lists commands from cli.SUMMARIES; click would import each command for it
    ctx = click.Context(cli)
    listed = click.HelpFormatter(width=width)
    cli.format_commands(ctx, listed)
    imported = click.HelpFormatter(width=width)
    click.Group.format_commands(cli, ctx, imported)
    assert listed.getvalue() == imported.getvalue(), "update olmcat.cli.SUMMARIES"


def test_top_level_help_imports_no_command() -> None:
    code = (
        "import sys\n"
        "from olmcat.cli import cli\n"
        "try:\n"
        "    cli(['--help'], prog_name='olmcat')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('olmcat', 'yaml'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = done.stdout.strip().splitlines()[-1]
    assert "Commands:" in done.stdout
    assert "olmcat.commands.migrate" not in loaded
    assert "olmcat.model" not in loaded
    assert "'yaml'" not in loaded


def test_a_run_without_the_cache_loads_no_hash_library(tmp_path: Path) -> None:
    # hashlib brings OpenSSL's libcrypto (~4 MiB resident) and html its entity table (~2 MiB):
    # `migrate pkgman --no-cache` needs neither (the benchmark's peak-RSS rows run so).
    tree = tmp_path / "in"
    hostile_inputs.bundle_dir(tree / "op" / "1.0.0", version="1.0.0")
    code = (
        "import sys\n"
        "from olmcat.cli import cli\n"
        "try:\n"
        f"    cli(['migrate', 'pkgman', '-q', '--no-cache', {str(tree)!r}, "
        f"{str(tmp_path / 'out')!r}], prog_name='olmcat')\n"
        "except SystemExit as exit:\n"
        "    assert not exit.code, exit.code\n"
        "print(sorted(m for m in ('hashlib', 'html') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert (tmp_path / "out").is_dir()
    assert done.stdout.strip().splitlines()[-1] == "[]"
