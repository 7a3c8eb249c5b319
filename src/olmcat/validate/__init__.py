"""``olmcat validate``: opm's catalog rules (v1.26 or v1.72), every problem in one run, located,
with stable rule IDs and text / JSON / SARIF output."""

from olmcat.validate.problems import Problem, Summary
from olmcat.validate.rules import COMPAT_LEVELS, DEFAULT_COMPAT, RULES, Compat, Rule, RuleSet
from olmcat.validate.run import validate

__all__ = [
    "COMPAT_LEVELS",
    "DEFAULT_COMPAT",
    "RULES",
    "Compat",
    "Problem",
    "Rule",
    "RuleSet",
    "Summary",
    "validate",
]
