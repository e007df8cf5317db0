"""Run configuration files: `arcmemo solve --config FILE` (a path, or a shipped name).

A file is a YAML mapping whose keys are the solve command's own options, spelled as their
parameter names (`selection`, `top_k`, `solver_model`, `reasoning_effort`, ...): the table
of keys is the command's parameters, so every option `solve` has is a key with no code
here. The values become the options' defaults (click's `default_map`), so a flag given on
the command line still wins. Each value is checked as its option checks a flag (type,
range, choices), plus its YAML type (`top_k: 2.5` and `continual: "yes"` are errors), and
any problem fails before anything runs, naming the file, the line and the key.

The paper's settings ship in `arcmemo/data/configs/` (`arcmemo solve --config arcmemo-ps`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

NOT_KEYS = {"config_file", "resume", "help"}    # options a configuration file cannot set


def shipped_configs() -> dict[str, Path]:
    """The shipped run configurations by name (file name without .yaml): a folder of the
    installed package (listed for --config's help, so importlib.resources is not loaded for it)."""
    folder = Path(__file__).resolve().parents[1] / "data" / "configs"
    return dict(sorted((p.stem, p) for p in folder.glob("*.yaml")))     # a setting, then its -released


def config_file(value: str) -> Path:
    """`value` as a file path, else as the name of a shipped configuration."""
    path = Path(value).expanduser()
    if path.is_file():
        return path
    shipped = shipped_configs()
    name = value.removesuffix(".yaml")
    if name in shipped and not path.exists():
        return shipped[name]
    if path.exists():
        raise click.BadParameter(f"{value}: not a file", param_hint="--config")
    raise click.BadParameter(f"{value}: no such file, nor a shipped configuration "
                             f"({', '.join(shipped)})", param_hint="--config")


class ConfigFileError(click.BadParameter):
    def __init__(self, path: Path, line: int | None, message: str):
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {message}", param_hint="--config")


def _lines(text: str) -> dict[Any, int]:
    """Each top-level key's line (1-based)."""
    from arcmemo.core import safeyaml

    try:
        node = safeyaml.compose(text)
    except safeyaml.YAMLError:
        return {}
    if node is None or not hasattr(node, "value") or not isinstance(node.value, list):
        return {}
    return {key.value: key.start_mark.line + 1 for key, _ in node.value if hasattr(key, "value")}


def _yaml_type_problem(param: click.Parameter, value: Any) -> str | None:
    """What is wrong with a YAML value's type for `param`, or None."""
    kind = param.type
    if getattr(param, "is_flag", False):
        return None if isinstance(value, bool) else "expected true or false"
    if isinstance(value, bool):
        return "expected a value, not true/false"
    if isinstance(kind, click.types.IntParamType):
        return None if isinstance(value, int) else "expected a whole number"
    if isinstance(kind, click.types.FloatParamType):
        return None if isinstance(value, (int, float)) else "expected a number"
    if isinstance(value, (dict, list)) or value is None:
        return "expected a single value"
    if not isinstance(value, str) and isinstance(kind, click.Choice):
        return "expected one of " + ", ".join(map(str, kind.choices))
    return None


def load_config(path: Path, command: click.Command, ctx: click.Context) -> dict[str, Any]:
    """The file's settings as {parameter name: value}, each checked as its option would be;
    ConfigFileError naming the file, line and key of the first problem."""
    from arcmemo.core import safeyaml

    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigFileError(path, None, "not UTF-8 text") from None
    except OSError as exc:
        raise ConfigFileError(path, None, f"cannot read ({exc.strerror or exc})") from None
    try:
        data = safeyaml.load(text)
    except safeyaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigFileError(path, mark.line + 1 if mark else None,
                              f"invalid YAML: {getattr(exc, 'problem', None) or exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigFileError(path, 1, "expected a mapping of option names to values")
    params = {p.name: p for p in command.params if p.name not in NOT_KEYS and isinstance(p, click.Option)}
    # an option's other long names are keys too (`method` for `selection`, as --method is --selection)
    aliases = {flag[2:].replace("-", "_"): p.name for p in params.values() for flag in p.opts
               if flag.startswith("--") and flag[2:].replace("-", "_") not in params}
    lines = _lines(text)
    values: dict[str, Any] = {}
    for key, value in data.items():
        line = lines.get(key)
        name = str(key).replace("-", "_")
        name = aliases.get(name, name)
        param = params.get(name)
        if param is None:
            raise ConfigFileError(path, line, f"unknown key {key!r} (keys are the options of "
                                              f"`arcmemo {command.name}`: {', '.join(sorted(params))})")
        if name in values:
            raise ConfigFileError(path, line, f"key {key!r} sets {name!r} again; give it once")
        if param.multiple:      # an option given any number of times: one value or a list of them
            value = value if isinstance(value, list) else [value]
        for one in value if param.multiple else [value]:
            problem = _yaml_type_problem(param, one)
            if problem is not None:
                raise ConfigFileError(path, line, f"key {key!r}: {problem}, got {one!r}")
            if not getattr(param, "is_flag", False):
                try:
                    param.type.convert(one, param, ctx)
                except click.ClickException as exc:     # the option's own check: range, choices, path
                    raise ConfigFileError(path, line, f"key {key!r}: {exc.message.rstrip('.')}") from None
        values[name] = value
    return values


def config_option(fn):
    """`--config FILE`: take the command's options from a run configuration file first."""

    def apply(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        if value is None:
            return None
        path = config_file(value)
        values = load_config(path, ctx.command, ctx)
        ctx.default_map = {**(ctx.default_map or {}), **values}
        return str(path)

    return click.option("--config", "config_file", default=None, is_eager=True, expose_value=True, callback=apply,
                        metavar="FILE",
                        help="A run configuration: a YAML file of this command's options (flags given here "
                             "win), or a shipped one by name: " + ", ".join(shipped_configs()) + ".")(fn)


__all__ = ["config_option", "config_file", "load_config", "shipped_configs", "ConfigFileError"]
