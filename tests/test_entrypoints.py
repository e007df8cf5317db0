"""Entry points remembered in the user directory (core/plugins.py): what importlib.metadata
gives, read again when a distribution on the import path is installed, removed or rewritten."""

from __future__ import annotations

import sys

import pytest
from plugin_support import install_fake_distribution

from arcmemo.core import plugins as discovery
from arcmemo.core.plugins import CACHE, entry_points

GROUP = "arcmemo.test-plugins"


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    """A folder on the import path with one distribution declaring two entry points of GROUP."""
    root = tmp_path / "site"
    root.mkdir()
    install_fake_distribution(root, "first_dist", None, {"b": "pkg_b:B", "a": "pkg_a:A"}, group=GROUP)
    monkeypatch.syspath_prepend(str(root))
    return root


def listed() -> list[tuple[str, str, str, str]]:
    return [(ep["name"], ep["value"], ep["distribution"], ep["version"]) for ep in entry_points(GROUP)]


def scanned() -> list[tuple[str, str, str, str]]:
    return [(ep["name"], ep["value"], ep["distribution"], ep["version"]) for ep in discovery._read_entry_points(GROUP)]


def test_a_second_listing_is_remembered_and_the_same(plugins, isolated_home, monkeypatch):
    first = listed()
    assert first == scanned() == [("b", "pkg_b:B", "first_dist", "0.1"), ("a", "pkg_a:A", "first_dist", "0.1")]
    assert (isolated_home / CACHE).is_file()
    monkeypatch.setattr(discovery, "_read_entry_points", lambda group: pytest.fail("read again though nothing changed"))
    assert listed() == first


def test_a_distribution_installed_removed_or_rewritten_is_seen(plugins):
    listed()
    install_fake_distribution(plugins, "second_dist", None, {"c": "pkg_c:C"}, group=GROUP)
    assert ("c", "pkg_c:C", "second_dist", "0.1") in listed()
    points = plugins / "second_dist-0.1.dist-info" / "entry_points.txt"
    points.write_text(f"[{GROUP}]\nc = pkg_c:Changed\n")       # in place: the folder's listing is the same
    assert ("c", "pkg_c:Changed", "second_dist", "0.1") in listed()
    (points.parent / "METADATA").unlink()
    points.unlink()
    points.parent.rmdir()
    assert listed() == scanned() and all(ep[0] != "c" for ep in listed())


def test_another_import_path_is_read_afresh(plugins, tmp_path, monkeypatch):
    listed()
    other = tmp_path / "other"
    other.mkdir()
    install_fake_distribution(other, "other_dist", None, {"d": "pkg_d:D"}, group=GROUP)
    monkeypatch.setattr(sys, "path", [str(other), *sys.path])
    assert ("d", "pkg_d:D", "other_dist", "0.1") in listed()


def test_an_unwritable_user_directory_only_costs_a_scan(plugins, isolated_home, monkeypatch):
    (isolated_home / CACHE).mkdir()           # a directory where the file would go: it cannot be replaced
    assert listed() == scanned()
    assert listed() == scanned()
