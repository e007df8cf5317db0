"""A throwaway distribution on the import path, as `pip install` leaves one: what the plugin tests
(solvers, memory methods) install to see arcmemo find a plugin it knows nothing about."""

from __future__ import annotations

from pathlib import Path


def install_fake_distribution(root: Path, dist: str, package: str | None, entry_points: dict[str, str], *,
                              group: str, source: str = "") -> None:
    """A package `package` (its __init__.py holding `source`; None: no package) and a *.dist-info
    with METADATA and entry_points.txt declaring `entry_points` in `group`."""
    if package:
        (root / package).mkdir()
        (root / package / "__init__.py").write_text(source)
    info = root / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    lines = [f"[{group}]"] + [f"{k} = {v}" for k, v in entry_points.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
