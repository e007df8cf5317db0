"""Removing a run's folder where runs cannot have a tmpfs of their own (no mount namespace):
without recursion, however deep the tree a run left, and whatever modes it set on it.

A run may leave a directory tree thousands of levels deep (too deep for a recursive removal,
longer than PATH_MAX) or folders it made unreadable (mode 0300). The tree is walked one level
at a time through directory descriptors, with only the current level open. The run is dead
by then: nothing changes the tree while it is removed.
"""

from __future__ import annotations

import os

_OPEN = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path: str) -> bool:
    """Remove the directory `path` and everything below it; True when it is gone."""
    try:
        fd = os.open(path, _OPEN)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    entered: list[tuple[str, list[str]]] = []  # per level below `path`: its name, its parent's dirs still to do
    try:
        todo = _clear(fd)
        while True:
            if todo:
                name = todo.pop()
                inner = os.open(name, _OPEN, dir_fd=fd)
                os.close(fd)
                fd = inner
                entered.append((name, todo))
                todo = _clear(fd)
            elif entered:
                name, todo = entered.pop()
                outer = os.open("..", _OPEN, dir_fd=fd)
                os.close(fd)
                fd = outer
                os.rmdir(name, dir_fd=fd)
            else:
                break
    except OSError:
        return False
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except OSError:
        return False
    return True


def _clear(fd: int) -> list[str]:
    """Unlink every entry but the directories in the directory `fd` (made listable first if
    need be); the names of those directories."""
    try:
        os.fchmod(fd, 0o700)
    except OSError:
        pass  # not ours to change (a root worker in a run's folder): root lists it anyway
    with os.scandir(fd) as entries:
        found = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
    for name, is_dir in found:
        if is_dir:
            try:
                os.chmod(name, 0o700, dir_fd=fd)  # a run may have left it unreadable (mode 0)
            except OSError:
                pass
        else:
            os.unlink(name, dir_fd=fd)
    return [name for name, is_dir in found if is_dir]
