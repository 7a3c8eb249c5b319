"""``-o mermaid`` of ``opm alpha render-template``: ``declcfg.MermaidWriter.WriteChannels`` without
filters (a ``graph LR`` with one subgraph per package and channel, ``replace`` / ``skip`` /
``skipRange`` edges)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from olmcat.errors import InputError
from olmcat.go.semver import Version, parse_skip_range, parse_version
from olmcat.go.sort import sort_slice
from olmcat.model import property as prop
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.templates.decl import Config


def _q(text: str) -> str:
    """Go's ``%q`` for the names that occur here (printable text)."""
    return json.dumps(text, ensure_ascii=False)


def _versions(config: Config) -> dict[str, Version]:
    versions: dict[str, Version] = {}
    for blob in config.bundles:
        data = json.loads(blob.text)
        if blob.name in versions:
            continue
        packages = [p for p in data.get("properties") or [] if p.get("type") == prop.TYPE_PACKAGE]
        if len(packages) != 1:
            raise InputError(
                f'bundle "{blob.name}" has multiple "olm.package" properties, expected exactly 1'
            )
        version = str((packages[0].get("value") or {}).get("version", ""))
        try:
            versions[blob.name] = parse_version(version)
        except InputError as exc:
            raise InputError(
                f'bundle "{blob.name}" has invalid version "{version}": {exc}'
            ) from None
    return versions


def write_mermaid(config: Config, notify: NoticeSink = discard) -> Iterator[str]:
    versions = _versions(config)
    floor = Version(0, 0, 0)
    channels = [json.loads(b.text) for b in config.channels]
    sort_slice(channels, lambda a, b: str(a["name"]) < str(b["name"]))
    packages: dict[str, list[str]] = {}
    for channel in channels:
        package, name = str(channel["package"]), str(channel["name"])
        lines = packages.setdefault(package, [])
        channel_id = f"{package}-{name}"
        lines.append(f"    %% channel {_q(name)}\n")
        lines.append(f"    subgraph {channel_id}[{_q(name)}]\n")
        entries = channel.get("entries") or []
        for entry in entries:
            entry_name = str(entry["name"])
            # A bundle the channel names but the catalog lacks has the zero version.
            if versions.get(entry_name, floor).compare(floor) < 0:
                continue
            entry_id = f"{channel_id}-{entry_name}"
            lines.append(f"      {entry_id}[{_q(entry_name)}]\n")
            replaces = entry.get("replaces") or ""
            if replaces:
                lines.append(
                    f"      {channel_id}-{replaces}[{_q(replaces)}]-- replace --> "
                    f"{entry_id}[{_q(entry_name)}]\n"
                )
            for skip in entry.get("skips") or []:
                lines.append(
                    f"      {channel_id}-{skip}[{_q(skip)}]-- skip --> "
                    f"{entry_id}[{_q(entry_name)}]\n"
                )
            skip_range = entry.get("skipRange") or ""
            if skip_range:
                try:
                    allowed = parse_skip_range(skip_range)
                except InputError as exc:
                    notify(
                        Notice(
                            "template.mermaid-skiprange",
                            f"ignoring invalid skipRange of {package}/{entry_name}: {exc}",
                            package=package,
                            bundle=entry_name,
                        )
                    )
                    continue
                for other in entries:
                    other_name = str(other["name"])
                    if allowed.contains(versions.get(other_name, floor)):
                        lines.append(
                            f"      {channel_id}-{other_name}[{_q(other_name)}]-- "
                            f'"skipRange({skip_range})" --> {entry_id}[{_q(entry_name)}]\n'
                        )
        lines.append("    end\n")
    yield "graph LR\n"
    for package in sorted(packages):
        yield f"  %% package {_q(package)}\n"
        yield f"  subgraph {_q(package)}\n"
        yield from packages[package]
        yield "  end\n"
