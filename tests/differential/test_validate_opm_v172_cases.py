"""The operator-registry v1.72.0 test cases (tests/support/opm_v172_cases.py) through the real
opm v1.26.5: its verdict must be the one the table records for v1.26.5, and ``olmcat validate
--compat v1.26`` must give it too.

v1.26.5 and v1.72 differ on these cases where v1.72 has rules v1.26.5 lacks (deprecations,
release versions, image pull specs, skipRange, duplicate versions, a skipped replaces edge ending
the chain): there the table's ``valid_v126`` differs from ``valid``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from olmcat.validate import RuleSet, Summary, validate
from tests.support import oracle
from tests.support.opm_v172_cases import CASES

BY_ID = {case.id: case for case in CASES}


@pytest.fixture(scope="session")
def opm_v126_verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bool]:
    """opm v1.26.5's verdict on every case, one run each, once per session."""
    oracle.require_oracle()
    scratch = tmp_path_factory.mktemp("opm-v172-cases")
    verdicts = {}
    for number, case in enumerate(CASES):
        root = case.write(scratch / f"case{number}")
        run = oracle.opm("validate", root, cwd=scratch, timeout=120)
        # v1.26.5 panics (exit 2) formatting the error of some unparsable files: a refusal too.
        assert run.returncode in (0, 1) or "panic:" in run.stderr, (case.id, run.stderr[-2000:])
        verdicts[case.id] = run.ok
    return verdicts


@pytest.mark.parametrize("case_id", sorted(BY_ID), ids=str)
def test_opm_v126_verdict(case_id: str, opm_v126_verdicts: dict[str, bool], tmp_path: Path) -> None:
    case = BY_ID[case_id]
    assert opm_v126_verdicts[case_id] == case.v126, "the table is wrong about opm v1.26.5"
    summary = Summary()
    for _ in validate(
        case.write(tmp_path / "catalog"), rules=RuleSet.build("v1.26"), summary=summary
    ):
        pass
    assert summary.valid() == opm_v126_verdicts[case_id]
