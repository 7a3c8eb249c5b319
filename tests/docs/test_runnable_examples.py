"""Every fenced example marked runnable, wherever it lives, runs as written (tests/docs/runnable.py
says how examples are marked and run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs import runnable
from tests.support.paths import ROOT

PAGES = [page for page in runnable.pages() if runnable.examples(page)]


def test_the_landing_page_and_the_site_have_runnable_examples() -> None:
    assert ROOT / "README.md" in PAGES
    assert len(runnable.examples(ROOT / "README.md")) >= 6
    assert sum(len(runnable.examples(page)) for page in PAGES) >= 10


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_runnable_examples_run_as_written(page: Path, tmp_path: Path) -> None:
    work = runnable.scratch(tmp_path)
    env = runnable.environment(tmp_path)
    skipped = []
    for example in runnable.examples(page):
        reason = runnable.missing_need(example)
        if reason is not None:
            skipped.append(f"{example.where}: {reason}")
            continue
        if example.language == "sh":
            runnable.run_sh(example, work, env)
        else:
            runnable.run_console(example, work, env)
    if skipped:
        pytest.skip("; ".join(skipped))


def test_transcripts_match_with_ellipses_and_durations() -> None:
    assert runnable.matches(["a", "...", "z"], ["a", "b", "c", "z"])
    assert runnable.matches(["a", "...", "z"], ["a", "z"])
    assert runnable.matches(["wrote 2 packages in 0.40 s"], ["wrote 2 packages in 0.02 s"])
    assert not runnable.matches(["a", "z"], ["a", "b", "z"])
    assert not runnable.matches(["a"], ["a", "b"])
    assert not runnable.matches(["valid: 2 packages"], ["valid: 3 packages"])


def test_a_failing_example_fails(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- runnable -->\n```console\n$ echo hello\nbye\n```\n")
    (example,) = runnable.examples(page)
    with pytest.raises(AssertionError, match="expected"):
        runnable.run_console(example, tmp_path, runnable.environment(tmp_path))
    page.write_text("<!-- runnable -->\n```sh\nfalse\n```\n")
    (example,) = runnable.examples(page)
    with pytest.raises(AssertionError, match="exit 1"):
        runnable.run_sh(example, tmp_path, runnable.environment(tmp_path))


def test_needs_name_paths_and_commands(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- runnable: needs ../shared/no-such-file, no-such-command-x -->\n```sh\n```\n"
    )
    (example,) = runnable.examples(page)
    assert example.needs == ("../shared/no-such-file", "no-such-command-x")
    assert runnable.missing_need(example) == "../shared/no-such-file is absent"


def test_a_marker_inside_a_fence_is_content(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "````markdown\n<!-- runnable -->\n```sh\nfalse\n```\n````\n\n"
        "<!-- runnable -->\n```sh\ntrue\n```\n"
    )
    (example,) = runnable.examples(page)
    assert example.body == "true" and example.line == 9
