"""olmcat.model.graph: the channel-graph algorithms, on channels small enough to check by hand."""

from __future__ import annotations

import pytest

from olmcat.errors import ValidationError
from olmcat.go.semver import Version
from olmcat.model import Channel, ChannelEntry, graph


def channel(*entries: ChannelEntry) -> Channel:
    return Channel("stable", "demo", entries)


E = ChannelEntry
# a <- b <- c (replaces), d skips b, e is off to the side
LINEAR = channel(E("a"), E("b", replaces="a"), E("c", replaces="b"))


def test_heads_are_entries_nothing_points_to() -> None:
    assert graph.heads(LINEAR.entries) == ["c"]
    assert graph.heads([E("x"), E("y")]) == ["x", "y"]
    assert graph.heads([E("x", replaces="y"), E("y", replaces="x")]) == []


def test_single_head_names_the_channel_when_there_is_not_exactly_one() -> None:
    assert graph.single_head(LINEAR) == "c"
    with pytest.raises(ValidationError, match="demo/stable must have exactly one head, found x, y"):
        graph.single_head(channel(E("x"), E("y")))


def test_replaces_chain_includes_a_dangling_target_and_stops_at_a_cycle() -> None:
    assert graph.replaces_chain(LINEAR.entries, "c") == ["c", "b", "a"]
    assert graph.replaces_chain([E("b", replaces="gone")], "b") == ["b", "gone"]
    assert graph.replaces_chain([E("x", replaces="y"), E("y", replaces="x")], "x") == ["x", "y"]


def test_opm_chain_stops_at_a_skipped_replaces_target() -> None:
    # c replaces b and also skips it: opm treats b as a leaf, so nothing below c is chained.
    entries = {
        e.name: e for e in (E("a"), E("b", replaces="a"), E("c", replaces="b", skips=("b",)))
    }
    assert graph.opm_chain(entries, "c") == ["c"]
    plain = {e.name: e for e in LINEAR.entries}
    assert graph.opm_chain(plain, "c") == ["c", "b", "a"]
    assert graph.opm_chain({"c": E("c", replaces="gone")}, "c") == ["c"]


def test_replaces_cycles_ignore_skips_but_upgrade_cycles_do_not() -> None:
    by_skips = channel(E("a", skips=("b",)), E("b", skips=("a",)), E("c", replaces="a"))
    assert graph.replaces_cycles({e.name: e for e in by_skips.entries}) == []
    assert graph.upgrade_cycles(by_skips) == [("a", "b")]
    by_replaces = channel(E("b", replaces="a"), E("a", replaces="b"), E("self", replaces="self"))
    assert graph.replaces_cycles({e.name: e for e in by_replaces.entries}) == [
        ["a", "b", "a"],
        ["self", "self"],
    ]
    assert graph.upgrade_cycles(by_replaces) == [("a", "b"), ("self",)]


def test_upgrade_sources_add_what_the_skip_range_covers() -> None:
    versions = {"a": Version(1, 0, 0), "b": Version(1, 1, 0), "z": Version(2, 0, 0)}
    entry = E("c", replaces="b", skip_range=">=1.0.0 <1.1.0")
    assert graph.upgrade_sources(entry, versions) == {"a", "b"}
    assert graph.upgrade_sources(E("c", skip_range="not a range"), versions) == set()


def test_reaching_head_walks_replaces_skips_and_ranges_backwards() -> None:
    versions = {"a": Version(1, 0, 0), "b": Version(1, 1, 0), "old": Version(0, 9, 0)}
    ch = channel(E("a"), E("b", skip_range="<1.0.0"), E("c", replaces="b"))
    # Two heads: the target is the versioned one with the highest version.
    assert graph.heads(ch.entries) == ["a", "c"]
    assert graph.target_head(ch, versions) == "a"  # c has no version yet
    versions["c"] = Version(1, 2, 0)
    assert graph.target_head(ch, versions) == "c"
    assert graph.reaching_head(ch, versions) == {"c", "b", "old"}


def test_closure_keeps_the_chain_from_the_head_down_to_the_deepest_wanted_entry() -> None:
    ch = channel(E("a"), E("b", replaces="a"), E("c", replaces="b"), E("d", replaces="c"))
    assert [e.name for e in graph.closure(ch, ["b"])] == ["b", "c", "d"]
    assert [e.name for e in graph.closure(ch, ["unknown"])] == ["d"]
    two_heads = channel(E("x"), E("y"))
    assert graph.closure(two_heads, ["x"]) == two_heads.entries


def test_distance_from_head_counts_replaces_steps() -> None:
    assert graph.distance_from_head(LINEAR, "c") == {"c": 0, "b": 1, "a": 2}
    assert graph.distance_from_head(channel(E("b", replaces="gone")), "b") == {"b": 0}


# ------------------------------------------------------------------------------------------------
# One resolver step: candidates and choices
# ------------------------------------------------------------------------------------------------


def v(text: str) -> Version:
    return Version.parse(text)


def test_legacy_successors_by_replaces_skips_and_skip_range() -> None:
    entries = [
        E("a"),
        E("b", replaces="a"),
        E("c", replaces="b", skips=("a",), skip_range="<0.2.0"),
    ]
    assert graph.legacy_successors(entries, "a", v("0.1.0")) == [("b", "replaces"), ("c", "skips")]
    # a version the catalog does not hold (nameless): only skipRange can catch it
    assert graph.legacy_successors(entries, "", v("0.1.5")) == [("c", "skipRange")]
    assert graph.legacy_successors(entries, "", v("0.2.0")) == []
    # an invalid skipRange covers nothing, as in OLM
    assert graph.legacy_successors([E("x", skip_range="not a range")], "", v("0.1.0")) == []


def test_semver_successors_follow_the_caret_rule_per_major_and_zero_versions() -> None:
    versions = {
        n: v(t) for n, t in [("a", "1.0.0"), ("b", "1.4.0"), ("c", "2.0.0"), ("p", "1.5.0-rc.1")]
    }
    # same major, never the version itself, no pre-release unless the installed one is one
    assert graph.semver_successors(versions, v("1.0.0")) == ["b"]
    zero = {n: v(t) for n, t in [("a", "0.2.3"), ("b", "0.2.9"), ("c", "0.3.0"), ("d", "0.0.4")]}
    assert graph.semver_successors(zero, v("0.2.3")) == ["b"]  # 0.x: patch steps only
    assert graph.semver_successors(zero, v("0.0.3")) == []  # 0.0.x: no automatic step


def test_olm_v0_takes_the_candidate_nearest_the_head_then_the_highest_version() -> None:
    versions = {"b": v("1.1.0"), "c": v("1.2.0"), "x": v("9.0.0")}
    assert graph.olm_v0_choice(["b", "c"], {"c": 0, "b": 1}, versions) == "c"
    assert graph.olm_v0_choice(["b", "c"], {"c": 1, "b": 0}, versions) == "b"
    # off the replaces chain counts as farthest; among equals the highest version wins
    assert graph.olm_v0_choice(["x", "b"], {"b": 0, "c": 1}, versions) == "b"
    assert graph.olm_v0_choice(["x", "c"], {}, versions) == "x"


def test_olm_v1_takes_non_deprecated_then_highest_version_and_release() -> None:
    versions = {"b": v("1.1.0"), "c": v("1.2.0+2"), "d": v("1.2.0+10"), "n": v("1.2.0")}
    assert graph.olm_v1_choice(["b", "c", "d"], versions) == "d"  # release 10 > 2
    assert graph.olm_v1_choice(["n", "c"], versions) == "c"  # a release beats none
    assert graph.olm_v1_choice(["b", "c", "d"], versions, {"c", "d"}) == "b"


def test_semver_reaching_is_every_version_one_caret_step_below() -> None:
    pairs = [("a", "1.0.0"), ("b", "1.1.0"), ("h", "1.3.0"), ("z", "0.9.0")]
    versions = {n: v(t) for n, t in pairs}
    assert graph.semver_reaching("h", versions) == {"a", "b", "h"}


def test_olm_v0_walk_prefers_the_candidate_nearest_the_head() -> None:
    # a(1.0) <- b(1.1) <- c(1.2) <- d(1.3), and d also skips a: from a OLM v0 jumps to d
    chan = channel(
        E("a"), E("b", replaces="a"), E("c", replaces="b"), E("d", replaces="c", skips=("a",))
    )
    versions = {
        n: v(t) for n, t in [("a", "1.0.0"), ("b", "1.1.0"), ("c", "1.2.0"), ("d", "1.3.0")]
    }
    walk = graph.olm_v0_walk(chan, "a", versions["a"], versions)
    assert [(s.name, s.via) for s in walk.steps] == [("d", "skips")]
    assert walk.end == "d" and not walk.looped
    walk = graph.olm_v0_walk(chan, "b", versions["b"], versions)
    assert walk.names == ["b", "c", "d"]
    # a version the catalog never held, caught by nothing: no step
    assert graph.olm_v0_walk(chan, "", v("0.5.0"), versions).end == ""


def test_olm_v0_walk_reports_a_loop_and_leaves_a_cycle_through_an_exit() -> None:
    versions = {"h": v("3.0.0"), "x": v("1.0.0"), "y": v("2.0.0")}
    # x and y skip each other; h replaces x, so from y the walk leaves the cycle through x
    chan = channel(E("h", replaces="x"), E("x", skips=("y",)), E("y", skips=("x",)))
    assert graph.olm_v0_walk(chan, "y", versions["y"], versions, head="h").names == ["y", "x", "h"]
    # without the exit the walk goes round: y -> x -> y
    closed = channel(E("h"), E("x", skips=("y",)), E("y", skips=("x",)))
    walk = graph.olm_v0_walk(closed, "y", versions["y"], versions, head="h")
    assert walk.looped and walk.end == "y" and walk.names == ["y", "x"]


def test_olm_v1_walk_takes_the_highest_successor_and_honours_policy_and_range() -> None:
    # 1.0 <- 1.1 <- 2.0 (replaces chain); 1.5 skips 1.0 (a side branch)
    chan = channel(
        E("a"), E("b", replaces="a"), E("s", skips=("a",)), E("c", replaces="b", skips=("s",))
    )
    versions = {
        n: v(t) for n, t in [("a", "1.0.0"), ("b", "1.1.0"), ("s", "1.5.0"), ("c", "2.0.0")]
    }
    walk = graph.olm_v1_walk([chan], "a", versions["a"], versions)
    assert walk.names == [
        "a",
        "s",
        "c",
    ]  # v1: highest successor (s), v0 would take b (on the chain)
    assert graph.olm_v0_walk(chan, "a", versions["a"], versions).names == ["a", "b", "c"]
    # semver: 1.x may go to any higher 1.x, never to 2.0.0 by itself
    assert graph.olm_v1_walk([chan], "a", versions["a"], versions, semver=True).names == ["a", "s"]
    # SelfCertified: straight to the best allowed bundle
    walk = graph.olm_v1_walk([chan], "a", versions["a"], versions, self_certified=True)
    assert [(s.name, s.via) for s in walk.steps] == [("c", "semver")]
    # a range keeps the walk below 1.2
    walk = graph.olm_v1_walk(
        [chan], "a", versions["a"], versions, allowed=lambda n: n != "s" and n != "c"
    )
    assert walk.names == ["a", "b"]
    # a deprecated successor is taken only when nothing else is offered
    walk = graph.olm_v1_walk([chan], "a", versions["a"], versions, deprecated={"s"})
    assert walk.names == ["a", "b", "c"]
