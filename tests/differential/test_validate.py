"""``olmcat validate --compat v1.26`` gives the verdict of the real ``opm validate`` (v1.26.5, the
oracle) on the crafted case of every rule, on every corpus golden, on the issue's cases and on
generated valid and broken catalogs."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from olmcat.validate import RuleSet, Summary, validate
from tests.support import oracle
from tests.support.fbc_catalogs import (
    bnd,
    ch,
    entry,
    good_package,
    package_property,
    pkg,
    write_fbc,
)
from tests.support.paths import corpus_path
from tests.support.validate_cases import CASES


def opm_accepts(directory: Path, scratch: Path) -> bool:
    run = oracle.opm("validate", directory, cwd=scratch, timeout=120)
    # opm v1.26.5 panics (exit 2) while formatting the error of some unparsable files
    # (formatUnmarshallErrorString indexes past the end): that is a refusal too.
    assert run.returncode in (0, 1) or "panic:" in run.stderr, run.stderr[-2000:]
    return run.ok


def olmcat_accepts(directory: Path, compat: str = "v1.26") -> bool:
    summary = Summary()
    for _ in validate(directory, rules=RuleSet.build(compat), summary=summary):  # type: ignore[arg-type]
        pass
    return summary.valid()


@pytest.fixture(scope="session")
def case_verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bool]:
    """opm's verdict on every crafted rule case, run once per session."""
    oracle.require_oracle()
    scratch = tmp_path_factory.mktemp("opm-cases")
    verdicts = {}
    for name, (blobs, _, _) in CASES.items():
        root = write_fbc(scratch / name, *blobs)
        verdicts[name] = opm_accepts(root, scratch)
    return verdicts


@pytest.mark.parametrize("case", sorted(CASES), ids=str)
def test_rule_cases_get_opm_v126s_verdict(
    case: str, case_verdicts: dict[str, bool], tmp_path: Path
) -> None:
    blobs, _, accepted_by_v126 = CASES[case]
    assert case_verdicts[case] == accepted_by_v126, "the case table is wrong about opm v1.26.5"
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert olmcat_accepts(root) == case_verdicts[case]


GOLDENS = [
    "deprecate-before.json",
    "deprecated.json",
    "index-upstream-old.json",
    "index-upstream-synth.json",
    "index-upstream.json",
    "small.json",
    "upstream-subset.json",
    "upstream-subset.yaml",
    *(
        f"schemas/v{v}-small.json"
        for v in (
            "1.6.0",
            "1.7.0",
            "1.10.0",
            "1.12.8",
            "1.13.0",
            "1.13.7",
            "1.14.0",
            "1.17.0",
            "1.17.1",
            "1.18.0",
        )
    ),
]


@pytest.mark.parametrize("golden", GOLDENS)
def test_corpus_goldens_get_opms_verdict(golden: str, tmp_path: Path) -> None:
    oracle.require_oracle()
    root = corpus_path("expected", *golden.split("/"))
    assert olmcat_accepts(root) == opm_accepts(root, tmp_path)


# -- the issue's cases ----------------------------------------------------------------------------


def _stray(root: Path, name: str, text: str) -> None:
    (root / name).write_text(text)


ISSUE_CASES: dict[str, Any] = {
    "readme": lambda r: _stray(r, "README.md", "# Catalog\n\nServed by opm.\n"),
    "notes": lambda r: _stray(r, "notes.txt", "remember to bump the channel\n"),
    "dockerfile": lambda r: _stray(
        r, "Dockerfile", 'FROM quay.io/operator-framework/opm:latest\nENTRYPOINT ["/bin/opm"]\n'
    ),
    "empty-file": lambda r: _stray(r, "empty.yaml", ""),
    "comment-only": lambda r: _stray(r, "c.yaml", "# nothing here\n"),
    "trailing-comment-document": lambda r: _stray(
        r, "x.yaml", "schema: x.other\npackage: foo\n---\n# done\n"
    ),
    "ignored-readme": lambda r: (
        _stray(r, "README.md", "# Catalog\n"),
        _stray(r, ".indexignore", "*.md\n"),
    ),
    "nested-indexignore": lambda r: (
        (r / "docs").mkdir(),
        _stray(r / "docs", "guide.md", "# Guide\n"),
        _stray(r / "docs", ".indexignore", "guide.md\n"),
    ),
    "json-in-txt": lambda r: _stray(r, "extra.txt", '{"schema": "x.other", "package": "foo"}\n'),
    "related-images-object": lambda r: _stray(
        r, "bad.json", json.dumps({"schema": "olm.bundle", "relatedImages": {}})
    ),
}


@pytest.mark.parametrize("case", sorted(ISSUE_CASES), ids=str)
def test_issue_cases_get_opms_verdict(case: str, tmp_path: Path) -> None:
    oracle.require_oracle()
    root = write_fbc(tmp_path / "fbc", *good_package())
    ISSUE_CASES[case](root)
    assert olmcat_accepts(root) == opm_accepts(root, tmp_path)


def test_an_empty_directory_is_valid_as_for_opm(tmp_path: Path) -> None:
    oracle.require_oracle()
    (tmp_path / "empty").mkdir()
    assert opm_accepts(tmp_path / "empty", tmp_path)
    assert olmcat_accepts(tmp_path / "empty")


# -- generated catalogs ---------------------------------------------------------------------------

VERSIONS = ["0.1.0", "0.2.0", "0.3.0", "1.0.0", "1.0.0-rc.1"]
BAD_VERSIONS = ["v1.0.0", "1.0", "01.0.0", ""]


@st.composite
def catalogs(draw: st.DrawFn) -> list[dict[str, Any]]:
    """One or two packages whose channels draw replaces/skips among a few bundles, with
    occasional defects of the kinds opm checks."""
    blobs: list[dict[str, Any]] = []
    for package in draw(st.sampled_from([["foo"], ["foo", "bar"]])):
        count = draw(st.integers(1, 4))
        versions = VERSIONS[:count]
        names = [f"{package}.v{v}" for v in versions]
        channel_names = draw(st.sampled_from([["stable"], ["stable", "fast"]]))
        clean = draw(st.integers(0, 2)) > 0  # most packages start from a valid linear channel
        default = channel_names[0] if clean else draw(st.sampled_from([*channel_names, "x"]))
        blobs.append(pkg(package, default))
        for channel in channel_names:
            if clean:
                chain = [entry(names[0])]
                chain += [entry(n, p) for p, n in itertools.pairwise(names)]
                if draw(st.integers(0, 3)) == 0 and count > 2:
                    chain[-1]["skips"] = [names[-2]]  # a replaces+skips pair, as migrate writes
                blobs.append(ch(channel, *chain, package=package))
                continue
            members = draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
            entries = []
            for member in members:
                e: dict[str, Any] = {"name": member}
                others = [m for m in members if m != member]
                if others and draw(st.booleans()):
                    e["replaces"] = draw(st.sampled_from([*others, "gone.v0.0.1"]))
                if others and draw(st.integers(0, 3)) == 0:
                    e["skips"] = draw(st.lists(st.sampled_from(others), max_size=2, unique=True))
                if draw(st.integers(0, 5)) == 0:
                    e["skipRange"] = draw(st.sampled_from([">=0.1.0 <0.3.0", "<=v0.1.0", "x"]))
                entries.append(e)
            blobs.append(ch(channel, *entries, package=package))
        for name, version in zip(names, versions, strict=True):
            if draw(st.integers(0, 30)) == 0:
                continue  # a channel entry without its bundle
            roll = draw(st.integers(0, 50))
            props = [package_property(package, version)]
            image = f"quay.io/example/{package}-bundle:v{version}"
            if roll == 0:
                props = [package_property(package, draw(st.sampled_from(BAD_VERSIONS)))]
            elif roll == 1:
                props = [package_property("other", version)]
            elif roll == 2:
                props = []
            elif roll == 3:
                image = ""
            elif roll == 4:
                image = "quay.io/Example/op:v1"
            elif roll == 5:
                props.append({"type": "olm.gvk", "value": {"kind": 3}})
            blobs.append(bnd(name, version, package, props=props, image=image))
    return blobs


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(blobs=catalogs())
def test_generated_catalogs_get_opms_verdict(blobs: list[dict[str, Any]], tmp_path: Path) -> None:
    oracle.require_oracle()
    root = tmp_path / "gen"
    shutil.rmtree(root, ignore_errors=True)
    write_fbc(root, *blobs)
    assert olmcat_accepts(root) == opm_accepts(root, tmp_path), json.dumps(blobs)
