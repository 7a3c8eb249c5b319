"""``olmcat validate`` output for people (text), scripts (JSON) and code scanning (SARIF 2.1.0)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from olmcat.validate.problems import Problem, Summary
from olmcat.validate.rules import RULES, Rule, RuleSet

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
_SRCROOT = "SRCROOT"


def text(problem: Problem, *, fix: bool = True) -> str:
    """``file:line:col: severity: message [ID name]`` and, indented below it, the fix."""
    line = str(problem)
    if fix and problem.fix:
        line += f"\n    fix: {problem.fix}"
    return line


def json_document(
    catalog: str, summary: Summary, problems: Iterable[Problem], *, strict: bool
) -> dict[str, Any]:
    """One document: the verdict, the counts, and one object per problem."""
    return {
        "catalog": catalog,
        "kind": summary.kind,
        "compat": summary.compat,
        "valid": summary.valid(strict),
        "strict": strict,
        "packages": summary.packages,
        "errors": summary.errors,
        "warnings": summary.warnings,
        "problems": [p.to_dict() for p in problems],
    }


def _uri(path: str) -> tuple[str, str | None]:
    """A SARIF artifact URI for a path as the user gave it: relative paths stay relative to
    %SRCROOT% (the working directory, where CI checks the repository out)."""
    if os.path.isabs(path):
        return "file://" + quote(PurePosixPath(path).as_posix()), None
    return quote(PurePosixPath(path).as_posix()), _SRCROOT


def _rule_descriptor(rule: Rule, rules: RuleSet) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary.split(". ")[0].rstrip(".") + "."},
        "fullDescription": {"text": rule.summary},
        "help": {
            "text": f"Fix: {rule.fix}. Enforced by opm {rule.releases}. opm says: {rule.opm_says}"
        },
        "defaultConfiguration": {
            "level": rule.severity(rules.compat),
            "enabled": rules.is_on(rule.id),
        },
        "properties": {
            "opm": list(rule.opm),
            "releases": rule.releases,
            "since": rule.since,
            "until": rule.until,
        },
    }


def sarif_document(
    catalog: str,
    summary: Summary,
    problems: Iterable[Problem],
    rules: RuleSet,
    *,
    version: str,
) -> dict[str, Any]:
    """A SARIF 2.1.0 log of one run, for GitHub code scanning and other SARIF viewers.

    Problems without a file of their own (a package of an SQLite database) are placed on the
    catalog file itself when the catalog is a file.
    """
    index = {rule.id: position for position, rule in enumerate(RULES)}
    results = []
    for problem in problems:
        result: dict[str, Any] = {
            "ruleId": problem.rule,
            "ruleIndex": index[problem.rule],
            "level": problem.severity,
            "message": {"text": f"{problem.message}. Fix: {problem.fix}."},
            "properties": {
                "package": problem.package,
                "channel": problem.channel,
                "bundle": problem.bundle,
            },
        }
        location: dict[str, Any] = {}
        file = problem.file or (catalog if catalog != "-" and os.path.isfile(catalog) else "")
        if file:
            uri, base = _uri(file)
            artifact: dict[str, Any] = {"uri": uri}
            if base:
                artifact["uriBaseId"] = base
            physical: dict[str, Any] = {"artifactLocation": artifact}
            if problem.line:
                physical["region"] = {"startLine": problem.line, "startColumn": problem.column}
            location["physicalLocation"] = physical
        names = [n for n in (problem.package, problem.channel or problem.bundle) if n]
        if names:
            location["logicalLocations"] = [
                {"fullyQualifiedName": "/".join(names), "kind": "module"}
            ]
        if location:
            result["locations"] = [location]
        results.append(result)
    cwd = PurePosixPath(os.getcwd()).as_posix().rstrip("/") + "/"
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "olmcat",
                        "version": version,
                        "rules": [_rule_descriptor(rule, rules) for rule in RULES],
                    }
                },
                "originalUriBaseIds": {_SRCROOT: {"uri": "file://" + quote(cwd)}},
                "columnKind": "unicodeCodePoints",
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "properties": {
                            "catalog": catalog,
                            "compat": summary.compat,
                            "valid": summary.valid(),
                        },
                    }
                ],
                "results": results,
            }
        ],
    }


def rules_table(rules: RuleSet) -> str:
    """The rules as aligned text lines: ID, name, severity at this level, on/off, opm."""
    lines = []
    for rule in RULES:
        state = "on" if rules.is_on(rule.id) else "off"
        opm = rule.releases
        lines.append(
            f"{rule.id:<14} {rule.name:<32} {rule.severity(rules.compat):<8} {state:<4} {opm}"
        )
    return "\n".join(lines)
