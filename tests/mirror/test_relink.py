"""Re-linking a channel cut down to chosen entries: the edge-rewriting rules, one by one."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from olmcat.go.semver import Version
from olmcat.mirror.relink import bundle_version, relink
from olmcat.model import Bundle, Channel, ChannelEntry
from olmcat.model import property as prop
from olmcat.notices import Notice
from tests.support.filter_strategies import (
    chain,
    entries,
    opm_channel_problems,
    reachable,
    valid_packages,
    versions_of,
)


def test_everything_kept_changes_nothing() -> None:
    channel = Channel("stable", "p", chain("1.0.0", "1.1.0", "1.2.0"))
    assert relink(channel, [e.name for e in channel.entries], versions_of(channel)) == channel


def test_cutting_the_middle_contracts_replaces_and_keeps_the_old_target_as_a_skip() -> None:
    channel = Channel("stable", "p", chain("1.0.0", "1.1.0", "1.2.0", "1.3.0"))
    got = relink(channel, ["p.v1.0.0", "p.v1.3.0"], versions_of(channel))
    assert entries(got) == {
        "p.v1.0.0": ("", ()),
        "p.v1.3.0": ("p.v1.0.0", ("p.v1.2.0",)),
    }
    assert opm_channel_problems(got) == []


def test_cutting_the_head_makes_the_newest_kept_entry_the_head() -> None:
    channel = Channel("stable", "p", chain("1.0.0", "1.1.0", "1.2.0", "1.3.0"))
    got = relink(channel, ["p.v1.0.0", "p.v1.1.0"], versions_of(channel))
    assert entries(got) == {"p.v1.0.0": ("", ()), "p.v1.1.0": ("p.v1.0.0", ())}
    assert got.head() == "p.v1.1.0"


def test_cutting_the_tail_keeps_the_dangling_replaces() -> None:
    # opm allows the tail to replace a bundle that is not there; it keeps the upgrade from it.
    channel = Channel("stable", "p", chain("1.0.0", "1.1.0", "1.2.0"))
    got = relink(channel, ["p.v1.1.0", "p.v1.2.0"], versions_of(channel))
    assert entries(got) == {"p.v1.1.0": ("p.v1.0.0", ()), "p.v1.2.0": ("p.v1.1.0", ())}
    assert opm_channel_problems(got) == []


def test_skips_of_removed_entries_are_followed() -> None:
    # oc-mirror #758: the kept 1.0.0 is reachable only through the removed 1.1.0's skips.
    channel = Channel(
        "stable",
        "p",
        (
            ChannelEntry("p.v1.0.0"),
            ChannelEntry("p.v0.9.0"),
            ChannelEntry("p.v1.1.0", "p.v0.9.0", ("p.v1.0.0",)),
            ChannelEntry("p.v1.2.0", "p.v1.1.0"),
        ),
    )
    assert opm_channel_problems(channel) == []
    got = relink(channel, ["p.v1.0.0", "p.v1.2.0"], versions_of(channel))
    assert entries(got) == {
        "p.v1.0.0": ("", ()),
        "p.v1.2.0": ("p.v1.1.0", ("p.v1.0.0",)),
    }
    assert opm_channel_problems(got) == []


def test_two_branches_without_their_common_head_get_one_head(caplog: object) -> None:
    # oc-mirror #345 / #758: cutting the head of a branched graph left two heads.
    channel = Channel(
        "stable",
        "p",
        (
            ChannelEntry("p.v1.0.0"),
            ChannelEntry("p.v1.1.0", "p.v1.0.0"),
            ChannelEntry("p.v1.1.1", "p.v1.0.0"),
            ChannelEntry("p.v2.0.0", "p.v1.1.0", ("p.v1.1.1",)),
        ),
    )
    assert opm_channel_problems(channel) == []
    notices: list[Notice] = []
    got = relink(
        channel, ["p.v1.0.0", "p.v1.1.0", "p.v1.1.1"], versions_of(channel), notices.append
    )
    notes = [n.message for n in notices]
    assert {(n.code, n.package) for n in notices} == {("filter.stranded-relinked", "p")}
    assert got.heads() == ["p.v1.1.1"]
    assert entries(got) == {
        "p.v1.0.0": ("", ()),
        "p.v1.1.0": ("p.v1.0.0", ()),
        "p.v1.1.1": ("p.v1.0.0", ("p.v1.1.0",)),
    }
    assert opm_channel_problems(got) == []
    assert notes == [
        "channel p/stable: p.v1.1.0 would be stranded after filtering (neither on the replaces "
        "chain of the head p.v1.1.1 nor skipped from it); added to p.v1.1.1's skips"
    ]


def test_replaced_only_side_branch_is_linked_when_the_head_goes() -> None:
    # 1.5.0 is skipped by the head and replaces 1.4.0; once the head is gone, 1.4.0 is only
    # replaced by an entry off the head's chain: opm would call it stranded.
    channel = Channel(
        "stable",
        "p",
        (
            ChannelEntry("p.v1.4.0"),
            ChannelEntry("p.v1.5.0", "p.v1.4.0"),
            ChannelEntry("p.v1.6.0", "p.v1.4.0"),
            ChannelEntry("p.v2.0.0", "p.v1.6.0", ("p.v1.5.0",)),
        ),
    )
    got = relink(channel, ["p.v1.4.0", "p.v1.5.0", "p.v1.6.0"], versions_of(channel))
    assert opm_channel_problems(got) == []
    assert got.head() == "p.v1.6.0"
    assert "p.v1.5.0" in got.entry("p.v1.6.0").skips  # type: ignore[union-attr]


def test_nothing_kept_gives_no_entries() -> None:
    channel = Channel("stable", "p", chain("1.0.0"))
    assert relink(channel, [], {}).entries == ()
    assert relink(channel, ["p.v9.9.9"], {}).entries == ()


def test_cycles_in_the_input_are_cut_with_a_warning() -> None:
    channel = Channel(
        "stable",
        "p",
        (
            ChannelEntry("p.v1.0.0", "p.v1.1.0"),
            ChannelEntry("p.v1.1.0", "p.v1.0.0"),
        ),
    )
    notices: list[Notice] = []
    got = relink(channel, ["p.v1.0.0", "p.v1.1.0"], versions_of(channel), notices.append)
    notes = [n.message for n in notices]
    assert notices and notices[0].code == "filter.cycle-edge-dropped"
    assert opm_channel_problems(got) == []
    assert got.head() == "p.v1.1.0"
    assert notes and "cycle" in notes[0]


def test_bundle_version_reads_the_olm_package_property() -> None:
    bundle = Bundle("b", "p", properties=(prop.package("p", "v1.2"),))
    assert bundle_version(bundle) == Version(1, 2, 0)
    assert bundle_version(Bundle("b", "p")) is None
    assert bundle_version(None) is None
    weird = Bundle("b", "p", properties=(prop.package("p", "not-a-version"),))
    assert bundle_version(weird) is None


@settings(max_examples=500, deadline=None)
@given(st.data())
def test_relink_of_any_subset_keeps_it_connected(data: st.DataObject) -> None:
    # The graph rules alone, on arbitrary subsets rather than version ranges.
    pkg = data.draw(valid_packages())
    channel = data.draw(st.sampled_from(pkg.channels))
    names = [e.name for e in channel.entries]
    keep = data.draw(st.sets(st.sampled_from(names), min_size=1))
    versions = {b.name: bundle_version(b) for b in pkg.bundles}
    got = relink(channel, keep, versions)
    assert opm_channel_problems(got) == []
    assert {e.name for e in got.entries} == keep
    for entry in got.entries:
        before = channel.entry(entry.name)
        assert before is not None
        assert set(before.edges()) <= set(entry.edges())
        assert reachable(channel, entry.name) & keep <= reachable(got, entry.name)
        for target in entry.edges():
            if target in keep:
                assert versions[target] < versions[entry.name]  # type: ignore[operator]
    if channel.head() in keep:
        assert got.head() == channel.head()
