"""`solve --executor ray` refuses what cannot work before anything is made, naming the fix:
Ray not installed, an unreachable cluster, a SQLite memory for a cluster's workers."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from arcmemo.cli import cli

FAKE = ["--solver-model", "fake", "--aux-model", "fake", "--select-model", "fake"]


def solve(tmp_path, *args):
    result = CliRunner().invoke(cli, ["solve", "--tasks", "0d3d703e", "--selection", "none", "--executor", "ray",
                                      *args, *FAKE, "--run-dir", str(tmp_path / "runs")])
    assert not (tmp_path / "runs").exists()            # no run directory
    return result


def test_ray_not_installed_says_how_to_install_it(tmp_path, fake_model, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)       # what `import ray` finds without the extra
    result = solve(tmp_path, "--db", str(tmp_path / "m.db"))
    assert result.exit_code == 1 and "Ray is not installed: pip install 'arcmemo[ray]'" in result.output
    assert not (tmp_path / "m.db").exists()


def test_a_sqlite_memory_for_a_remote_cluster_is_refused(tmp_path, fake_model):
    pytest.importorskip("ray")
    result = solve(tmp_path, "--ray-address", "ray://127.0.0.1:1", "--db", str(tmp_path / "m.db"))
    assert result.exit_code == 1 and "is a SQLite file on this machine" in result.output
    assert "--db postgresql://" in result.output and not (tmp_path / "m.db").exists()


def test_an_unreachable_cluster_is_named(tmp_path, fake_model):
    pytest.importorskip("ray")
    result = solve(tmp_path, "--ray-address", "ray://127.0.0.1:1", "--db", "postgresql://u:pw@127.0.0.1:1/x")
    assert result.exit_code == 1 and "cannot reach the Ray cluster at ray://127.0.0.1:1" in result.output
    result = solve(tmp_path, "--ray-address", "nowhere", "--db", str(tmp_path / "m.db"))
    assert result.exit_code == 1 and "is not auto, HOST:PORT or ray://HOST:PORT" in result.output


def test_a_ray_address_without_the_ray_executor_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(cli, ["solve", "--ray-address", "auto", "--run-dir", str(tmp_path / "runs")])
    assert result.exit_code == 2 and "--ray-address needs --executor ray" in result.output
