"""``olmcat completion``: the shell completion script, from click's own completion support.

The script does not list olmcat's commands itself: at each <Tab> the shell runs ``olmcat`` with
``_OLMCAT_COMPLETE`` set, and click answers from the command tree of the installed version, so
completions never fall behind the commands, options and choices.
"""

from __future__ import annotations

import click

from olmcat.commands._options import examples

SHELLS = ("bash", "zsh", "fish")
PROG_NAME = "olmcat"
# what click.Command.main derives from the program name; the script and main() must agree
COMPLETE_VAR = "_OLMCAT_COMPLETE"


def completion_script(root: click.Command, shell: str) -> str:
    """The completion script for ``shell`` that completes the ``olmcat`` program."""
    from click.shell_completion import get_completion_class

    completion_class = get_completion_class(shell)
    if completion_class is None:  # pragma: no cover - click knows every shell in SHELLS
        raise click.UsageError(f"click has no completion for {shell}")
    return completion_class(root, {}, PROG_NAME, COMPLETE_VAR).source()


@examples(
    'eval "$(olmcat completion bash)"          # in ~/.bashrc (bash 4.4 or newer)',
    'eval "$(olmcat completion zsh)"           # in ~/.zshrc, after compinit',
    "olmcat completion fish > ~/.config/fish/completions/olmcat.fish",
    "olmcat completion bash > ~/.local/share/bash-completion/completions/olmcat",
)
@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """Print the shell completion script for SHELL (bash, zsh or fish).

    Once loaded, <Tab> completes commands, subcommands, options, choices and paths. The script
    asks the installed olmcat for each completion (click's shell completion), so it stays right
    across upgrades; load it from the shell's startup file as the examples show.
    """
    click.echo(completion_script(ctx.find_root().command, shell), nl=False)
