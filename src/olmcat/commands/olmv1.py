"""``olmcat olmv1``: what OLM v1 (operator-controller v1.11.0) does with a catalog's bundles."""

from __future__ import annotations

import click

from olmcat.commands.olmv1_check import check_command, plan_command


@click.group("olmv1")
def olmv1() -> None:
    """Check, plan and install bundles as OLM v1 (operator-controller v1.11.0) does."""


olmv1.add_command(check_command)
olmv1.add_command(plan_command)
