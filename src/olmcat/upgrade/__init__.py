"""Upgrade readiness: can the operators a cluster runs move from one catalog to the next?

:func:`upgrade_check` takes two catalogs (any reference olmcat reads) and an inventory
(:func:`load_inventory`: ``oc get subscriptions,clusterserviceversions -o yaml``, OLM v1
ClusterExtensions, or package/channel/version rows) and returns an :class:`UpgradeReport` with one
:class:`OperatorVerdict` per installed operator (JSON schema ``olmcat.upgrade-check.v1``).
"""

from olmcat.upgrade.check import (
    BLOCKING,
    SCHEMA,
    SEMANTICS,
    STATUSES,
    OperatorVerdict,
    Semantics,
    UpgradeReport,
    check_operator,
    upgrade_check,
)
from olmcat.upgrade.inventory import Installed, load_inventory, parse_inventory

__all__ = [
    "BLOCKING",
    "SCHEMA",
    "SEMANTICS",
    "STATUSES",
    "Installed",
    "OperatorVerdict",
    "Semantics",
    "UpgradeReport",
    "check_operator",
    "load_inventory",
    "parse_inventory",
    "upgrade_check",
]
