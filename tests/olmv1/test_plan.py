"""``olmv1 plan``: each installed OLM v0 operator against a catalog, as OLM v1 would take it."""

from __future__ import annotations

from olmcat.model import Bundle, Channel, ChannelEntry, Package, PackageCatalog
from olmcat.model import property as prop
from olmcat.olmv1.check import BundleCheck, Reason
from olmcat.olmv1.plan import OperatorPlan, install_command, plan, plan_operator
from olmcat.upgrade.inventory import Installed, parse_inventory
from tests.support.paths import FIXTURES

EXAMPLE = str(FIXTURES / "example" / "expected")


def _rows(text: str) -> list[Installed]:
    return parse_inventory(text, "test")


def test_installed_and_newest() -> None:
    report = plan(
        EXAMPLE, _rows("package,channel,version,namespace\nhello-operator,beta,0.1.0,a\n")
    )
    (item,) = report.operators
    assert (item.bundle, item.newest) == ("hello-operator.v0.1.0", "hello-operator.v0.3.0")
    assert item.status == "installable"
    assert item.command == (
        f"olmcat olmv1 install hello-operator --catalog {EXAMPLE} --namespace a --channel beta "
        "--version 0.1.0"
    )


def test_blocked_operator_has_no_command() -> None:
    report = plan(
        EXAMPLE, _rows("package,channel,version,namespace\nworld-operator,alpha,1.0.0,w\n")
    )
    (item,) = report.operators
    assert item.status == "blocked" and item.command == ""
    assert item.installed_check is not None
    assert [r.rule for r in item.installed_check.reasons] == ["olmv1.resolve.dependency-property"]


def test_package_not_in_catalog_and_no_namespace() -> None:
    report = plan(EXAMPLE, _rows("package,channel,version\nnope,stable,1.0.0\n"))
    (item,) = report.operators
    assert item.status == "not-in-catalog"
    assert any("installs into nope" in note for note in item.notes)
    assert not report.ok


def test_upgrade_first_when_only_the_newest_installs() -> None:
    old = Bundle(
        "op.v1", "op", "", (prop.package("op", "1.0.0"), prop.gvk_required("g", "v1", "K"))
    )
    new = Bundle("op.v2", "op", "", (prop.package("op", "2.0.0"),))
    pkg = PackageCatalog(
        Package("op", "stable"),
        (Channel("stable", "op", (ChannelEntry("op.v1"), ChannelEntry("op.v2", "op.v1"))),),
        (old, new),
    )
    item = Installed("list", "op", channel="stable", version="1.0.0", namespace="ns")
    result = plan_operator(item, pkg, catalog="cat")
    # op.v1 is refused for its dependency; op.v2 has no CSV in the catalog: unknown, not a yes.
    assert result.installed_check is not None and result.installed_check.verdict == "refused"
    assert result.newest_check is not None and result.newest_check.verdict == "unknown"
    assert result.status == "unknown" and result.command == ""


def test_install_command_quotes_words() -> None:
    assert install_command("p", "my catalog/", "ns", version="1.0.0") == (
        "olmcat olmv1 install p --catalog 'my catalog/' --namespace ns --version 1.0.0"
    )


def test_an_unknown_installed_version_is_unknown_even_when_the_newest_installs() -> None:
    item = Installed("list", "op", channel="stable", version="1.0.0")
    unknown = BundleCheck("op", "op.v1", not_run=["x"], not_run_because="offline")
    refused = BundleCheck("op", "op.v1", reasons=[Reason("olmv1.provider.x", "refused")])
    installable = BundleCheck("op", "op.v2")

    def status(now: BundleCheck, later: BundleCheck) -> str:
        found = OperatorPlan(
            item, bundle="op.v1", installed_check=now, newest="op.v2", newest_check=later
        )
        return found.status

    assert status(unknown, installable) == "unknown"
    assert status(refused, installable) == "upgrade-first"
    assert status(refused, unknown) == "unknown"
    assert status(refused, refused) == "blocked"
    assert status(installable, refused) == "installable"


def test_hostile_inventory_text_is_escaped_in_the_page() -> None:
    from olmcat.pictures.olmv1 import plan_html

    evil = "<script>window.__canary='x'</script>"
    rows = _rows(f'package,channel,version,namespace\n"{evil}",stable,1.0.0,"{evil}"\n')
    html = plan_html(plan(EXAMPLE, rows))
    assert "<script>window" not in html
    assert "&lt;script&gt;window.__canary=&#x27;x&#x27;&lt;/script&gt;" in html


def test_own_namespace_operator_gets_its_watch_namespace() -> None:
    report = plan(
        EXAMPLE,
        _rows("package,channel,version,namespace\nhello-operator,beta,0.1.0,team\n"),
        gates="SingleOwnNamespaceInstallSupport=true",
    )
    (item,) = report.operators
    # hello-operator supports AllNamespaces: no watchNamespace is needed
    assert "--watch-namespace" not in item.command


def test_watch_namespace_for_an_own_namespace_only_bundle() -> None:
    from olmcat.olmv1.plan import _watch_namespace

    needs = BundleCheck("op", "op.v1", install_modes=("OwnNamespace",))
    needs.requirements.append(Reason("olmv1.config.watch-namespace-required", "x"))
    single = BundleCheck("op", "op.v1", install_modes=("SingleNamespace",))
    single.requirements.append(Reason("olmv1.config.watch-namespace-required", "x"))
    assert _watch_namespace(needs, "team") == "team"
    assert _watch_namespace(single, "team") == ""
    assert _watch_namespace(BundleCheck("op", "op.v1", install_modes=("OwnNamespace",)), "t") == ""
    assert install_command("p", "c", "team", watch_namespace="team").endswith(
        "--watch-namespace team"
    )
