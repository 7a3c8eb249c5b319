"""``olmcat completion bash|zsh|fish``: click's completion scripts, loaded by the real shells where
they are installed, answering from the real olmcat program."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from olmcat.cli import cli

BIN = Path(sys.executable).parent
OLMCAT = BIN / "olmcat"


def script(shell: str) -> str:
    result = CliRunner().invoke(cli, ["completion", shell], prog_name="olmcat")
    assert result.exit_code == 0, result.output
    return result.stdout


def shell_env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def need(shell: str) -> str:
    found = shutil.which(shell)
    if found is None:
        pytest.skip(f"{shell} is not installed")
    if not OLMCAT.exists():
        pytest.skip(f"no olmcat console script beside {sys.executable} (pip install -e .)")
    return found


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_each_script_calls_back_olmcat_with_its_variable(shell: str) -> None:
    text = script(shell)
    assert "_OLMCAT_COMPLETE" in text and f"{shell}_complete" in text


def test_an_unknown_shell_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["completion", "tcsh"])
    assert result.exit_code == 2
    assert "'tcsh' is not one of 'bash', 'zsh', 'fish'" in result.output


def test_the_program_answers_the_completion_protocol() -> None:
    """What every script asks at <Tab>: the entry point (not just the click group) answers."""
    env = {**os.environ, "_OLMCAT_COMPLETE": "bash_complete", "COMP_WORDS": "olmcat mi"}
    done = subprocess.run(
        [sys.executable, "-m", "olmcat"],
        env={**env, "COMP_CWORD": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["plain,migrate", "plain,mirror"]


BASH_COMPLETE = r"""
source <(olmcat completion bash)
read -ra COMP_WORDS <<< "$LINE"
[[ "$LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
_olmcat_completion olmcat
printf '%s\n' "${COMPREPLY[@]}"
"""


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("olmcat mi", ["migrate", "mirror"]),
        ("olmcat migrate ", ["pkgman", "sqlite"]),
        ("olmcat diff --forma", ["--format"]),
        ("olmcat diff --format ", ["text", "json", "markdown", "html"]),
        ("olmcat query CATALOG upg", ["upgrades"]),
        ("olmcat completion ", ["bash", "zsh", "fish"]),
    ],
)
def test_bash_completes_commands_options_and_choices(line: str, expected: list[str]) -> None:
    bash = need("bash")
    done = subprocess.run(
        [bash, "-c", BASH_COMPLETE],
        env={**shell_env(), "LINE": line},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == expected


ZSH_COMPLETE = r"""
autoload -U compinit && compinit -u
source <(olmcat completion zsh)
_describe() { print -l -- "${(@P)3}" }      # what the script hands to zsh's completion system
compadd() { print -l -- "${(@P)${@[-1]}}" }
words=(${=LINE}); [[ "$LINE" == *" " ]] && words+=("")
CURRENT=${#words}
_olmcat_completion
"""


def test_zsh_parses_the_script_and_completes() -> None:
    zsh = need("zsh")
    text = script("zsh")
    parsed = subprocess.run([zsh, "-n"], input=text, capture_output=True, text=True, timeout=60)
    assert parsed.returncode == 0, parsed.stderr
    done = subprocess.run(
        [zsh, "-f", "-c", ZSH_COMPLETE],
        env={**shell_env(), "LINE": "olmcat migrate "},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    names = [line.split(":", 1)[0] for line in done.stdout.splitlines()]
    assert names == ["pkgman", "sqlite"]


def test_fish_parses_the_script_and_completes(tmp_path: Path) -> None:
    fish = need("fish")
    path = tmp_path / "olmcat.fish"
    path.write_text(script("fish"))
    parsed = subprocess.run([fish, "--no-execute", str(path)], capture_output=True, text=True)
    assert parsed.returncode == 0, parsed.stderr
    done = subprocess.run(
        [fish, "--no-config", "-c", f"source {path}; complete -C 'olmcat diff --format '"],
        env={**shell_env(), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.split()) == ["html", "json", "markdown", "text"]
