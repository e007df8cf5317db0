"""arcmemo's one plugin discovery (core/plugins.py), the same rules for solvers and memory methods:
arcmemo's own plugins are its distribution's entry points (pyproject's, as installed), no other
distribution takes a name arcmemo ships or one another took first, one error type, names read
once per import path and never by importing a plugin."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

import pytest
import tomllib
from click.testing import CliRunner
from plugin_support import install_fake_distribution

from arcmemo.cli import cli
from arcmemo.core import plugins
from arcmemo.core.errors import ArcmemoError
from arcmemo.core.plugins import Plugin, PluginError
from arcmemo.methods.discovery import METHODS, MethodError, describe_methods, load_method
from arcmemo.solverkit.discovery import SOLVERS, describe_solvers, load_solver

ROOT = Path(__file__).resolve().parents[1]
KINDS = {"solvers": SOLVERS, "methods": METHODS}
NOWHERE = "no_such_module_for_arcmemo_tests"


@pytest.mark.parametrize("kind", KINDS.values(), ids=KINDS)
def test_arcmemos_own_plugins_are_the_entry_points_its_pyproject_declares(kind):
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"][kind.group]
    own = plugins.found(kind).own
    assert {name: entry.value for name, entry in own.items()} == declared, \
        "arcmemo's installed metadata predates pyproject.toml: reinstall it (pip install -e .)"
    assert {entry.distribution for entry in own.values()} == {"arcmemo"}
    assert list(plugins.names(kind))[:len(own)] == list(own)          # arcmemo's own are listed first


@pytest.fixture
def rivals(tmp_path, monkeypatch):
    """Two distributions, each in a folder of its own on the import path (`first` ahead), declaring
    for both kinds one of arcmemo's own names and a name they both want."""
    own = {group: next(iter(plugins.found(kind).own)) for group, kind in KINDS.items()}
    for dist in ("second", "first"):
        folder = tmp_path / dist
        folder.mkdir()
        for group, kind in KINDS.items():
            points = {"wanted": f"{NOWHERE}:{dist.title()}"}
            if dist == "first":
                points[own[group]] = f"{NOWHERE}:Own"
            install_fake_distribution(folder, f"{dist}_{group}", None, points, group=kind.group)
        monkeypatch.syspath_prepend(str(folder))
    importlib.invalidate_caches()
    return own


@pytest.mark.parametrize("group", KINDS)
def test_no_distribution_takes_a_name_arcmemo_ships_or_one_taken_first(rivals, group):
    kind, own = KINDS[group], rivals[group]
    installed = plugins.found(kind)
    assert installed.plugins[own].distribution == "arcmemo"
    assert installed.plugins["wanted"].value == f"{NOWHERE}:First"
    refused = {(entry.name, entry.value): why for entry, why in installed.refused}
    assert refused == {(own, f"{NOWHERE}:Own"): f"the name {own!r} is arcmemo's own {kind.noun}'s",
                       ("wanted", f"{NOWHERE}:Second"): f"the name 'wanted' is taken by {NOWHERE}:First "
                                                         f"(first_{group} 0.1)"}
    assert plugins.names(kind)[0] != "wanted"                            # arcmemo's own come first
    with pytest.raises(kind.error, match=rf"{kind.noun} 'wanted' \({NOWHERE}:First\) failed to import"):
        plugins.load(kind, "wanted")


def test_both_lists_show_a_refused_entry_point_with_why(rivals):
    solvers = {(r["name"], r["entry_point"]): r for r in describe_solvers()}
    methods = {(r["name"], r["entry_point"]): r for r in describe_methods(check=False)}
    for rows, group in ((solvers, "solvers"), (methods, "methods")):
        row = rows[(rivals[group], f"{NOWHERE}:Own")]
        assert row["status"] == "error" and row["error"].startswith("not used: ") and "arcmemo's own" in row["error"]
    listed = CliRunner().invoke(cli, ["solvers", "list"]).output.splitlines()
    assert any(line.startswith("wanted ") and f"{NOWHERE}:Second" in line and "not loadable: not used: the name "
               "'wanted' is taken by" in line for line in listed)
    listed = CliRunner().invoke(cli, ["methods", "list", "--no-check"]).output.splitlines()
    assert any(line.startswith("wanted ") and "not loadable: not used: the name 'wanted' is taken by" in line
               for line in listed)


def test_one_error_type_for_every_kind():
    assert issubclass(MethodError, PluginError) and issubclass(PluginError, (ArcmemoError, LookupError))
    with pytest.raises(PluginError, match=r"no solver named 'nope' \(entry point group 'arcmemo.solvers'"):
        load_solver("nope")
    with pytest.raises(MethodError, match=r"no memory method named 'nope' \(entry point group 'arcmemo.methods'"):
        load_method("nope")


def test_the_entry_points_are_read_once_per_import_path(tmp_path, monkeypatch):
    for kind in KINDS.values():
        plugins.names(kind)
    read = []
    monkeypatch.setattr(plugins, "entry_points", lambda group: read.append(group) or [])
    for kind in KINDS.values():
        plugins.names(kind)
        assert plugins.found(kind).plugins
    assert read == []
    monkeypatch.syspath_prepend(str(tmp_path))                      # another import path: read afresh
    assert plugins.names(SOLVERS) == () and read == ["arcmemo.solvers"]


def test_without_arcmemos_metadata_the_error_says_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setattr(plugins, "entry_points", lambda group: [])
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PluginError, match=r"available: none installed; arcmemo's own .* install arcmemo"):
        load_solver("program-synthesis")


def test_an_entry_point_names_a_module_attribute_or_a_dotted_one():
    assert Plugin("x", "os.path:join", None, None).load() is os.path.join
    assert Plugin("x", "json : decoder.JSONDecoder [extra]", None, None).load() is json.decoder.JSONDecoder
    assert Plugin("x", "json", None, None).load() is json
