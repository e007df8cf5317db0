"""Run configurations: the keys of `arcmemo solve --config FILE` (a path, or a shipped name) and of a
sweep's `solve:` and `grid:`, and their one check (`checked_options`).

A configuration is a YAML mapping whose keys are the solve command's own options, spelled as
their parameter names or any of their long flags (`method` or `selection`, `top_k` or
`top-k`, `solver_model`, `reasoning_effort`, ...): the table of keys is the command's
parameters, so every option `solve` has is a key with no code here. A few keys older files
and sweeps use are read as the options they mean (`task_ids`: `tasks`; `source`: the task
source options). Each value is checked as its option checks a flag (type, range, choices),
plus its YAML type (`top_k: 2.5` and `continual: "yes"` are errors; an on/off option takes
true/false too), and a misspelt key gets the nearest one ("did you mean"). Any problem fails
before anything runs, naming the file, the line (or the sweep's section) and the key.

The values of a --config file become the options' defaults (click's `default_map`), so a flag
given on the command line still wins; `select --config` takes the keys it has and leaves the
others (a configuration names a whole solve). The paper's settings ship in
`arcmemo/data/configs/` (`arcmemo solve --config arcmemo-ps`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

NOT_KEYS = {"config_file", "resume", "help"}    # options a configuration cannot set
# keys of older files and sweeps (RunConfig's field names), read as the options they mean
RENAMED = {"task_ids": "tasks"}


def shipped_configs() -> dict[str, Path]:
    """The shipped run configurations by name (file name without .yaml): a folder of the
    installed package (listed for --config's help, so importlib.resources is not loaded for it)."""
    folder = Path(__file__).resolve().parents[2] / "data" / "configs"
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
    """A configuration's key or value its option would refuse; the message starts with where it is."""

    def __init__(self, where: str, message: str):
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


def _as_option_value(name: str, param: click.Parameter, value: Any) -> Any:
    """A YAML value in the form its option takes: true/false for an on/off option, a mapping of
    method options as KEY=VALUE pairs."""
    if isinstance(value, bool) and isinstance(param.type, click.Choice) and set(param.type.choices) == {"on", "off"}:
        return "on" if value else "off"
    if name == "method_options" and isinstance(value, Mapping):
        import json

        return [f"{key}={json.dumps(one)}" for key, one in value.items()]
    return value


def _source_options(value: Any) -> dict[str, Any]:
    """A RunConfig task source (`training`, `arc-agi-2/evaluation`, `all`, a path) as the task source
    options that name it."""
    from arcmemo.core.datasets import DEFAULT_DATASET, parse_source_name

    parsed = parse_source_name(str(value))
    if parsed is None:
        return {"tasks_from": str(value)}
    dataset, split = parsed
    return {**({"dataset": dataset} if dataset != DEFAULT_DATASET else {}), **({} if split == "all" else
                                                                                {"split": split})}


def _expanded(data: Mapping[Any, Any]) -> list[tuple[Any, str, Any]]:
    """(key as written, key read, value) of each entry: older keys read as the options they mean, and
    a protocol given as a mapping (`{name: released-code, retry_when: train-fails}`) as --protocol
    and its choices."""
    entries = []
    for key, value in data.items():
        name = str(key).replace("-", "_")
        if name == "source":
            entries += [(key, option, one) for option, one in _source_options(value).items()]
        elif name == "protocol" and isinstance(value, Mapping):
            entries += [(key, "protocol" if choice == "name" else str(choice), one) for choice, one in value.items()]
        else:
            entries.append((key, RENAMED.get(name, name), value))
    return entries


def unknown_key(key: Any, known: list[str]) -> str:
    """The message for a key no option has: the nearest key, or where the keys are listed."""
    from arcmemo.core.config import did_you_mean

    return f"unknown key {key!r}" + (did_you_mean(key, known) or " (the keys are the options of `arcmemo solve`: "
                                                                 "`arcmemo solve --help`)")


def checked_options(data: Mapping[Any, Any], command: click.Command, ctx: click.Context,
                    where: Callable[[Any], str]) -> dict[str, Any]:
    """`data` (a configuration's keys) as {parameter name: value}, each checked as its option
    would check it; ConfigFileError naming `where(key)` and the key of the first problem."""
    params = {p.name: p for p in command.params if p.name not in NOT_KEYS and isinstance(p, click.Option)}
    # an option's other long names are keys too (`selection` for `method`, as --selection is --method)
    aliases = {flag[2:].replace("-", "_"): p.name for p in params.values() for flag in p.opts
               if flag.startswith("--") and flag[2:].replace("-", "_") not in params}
    values: dict[str, Any] = {}
    given: dict[str, Any] = {}
    for key, name, value in _expanded(data):
        if value is None:       # null: not set (a sweep's grid may leave an option at its default)
            continue
        name = aliases.get(name, name)
        param = params.get(name)
        if param is None:
            raise ConfigFileError(where(key), unknown_key(key, sorted({*params, *aliases})))
        if name in values:
            raise ConfigFileError(where(key), f"{given[name]!r} and {key!r} both set {name}; give it once")
        value = _as_option_value(name, param, value)
        if param.multiple:      # an option given any number of times: one value or a list of them
            value = value if isinstance(value, list) else [value]
        for one in value if param.multiple else [value]:
            problem = _yaml_type_problem(param, one)
            if problem is not None:
                raise ConfigFileError(where(key), f"key {key!r}: {problem}, got {one!r}")
            if not getattr(param, "is_flag", False):
                try:
                    param.type.convert(one, param, ctx)
                except click.ClickException as exc:     # the option's own check: range, choices, path
                    raise ConfigFileError(where(key), f"key {key!r}: {exc.message.rstrip('.')}") from None
        values[name], given[name] = value, key
    return values


def load_config(path: Path, command: click.Command, ctx: click.Context) -> dict[str, Any]:
    """The file's settings as {parameter name: value}, each checked as its option would be;
    ConfigFileError naming the file, line and key of the first problem."""
    from arcmemo.core import safeyaml

    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigFileError(str(path), "not UTF-8 text") from None
    except OSError as exc:
        raise ConfigFileError(str(path), f"cannot read ({exc.strerror or exc})") from None
    try:
        data = safeyaml.load(text)
    except safeyaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigFileError(f"{path}:{mark.line + 1}" if mark else str(path),
                              f"invalid YAML: {getattr(exc, 'problem', None) or exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigFileError(f"{path}:1", "expected a mapping of option names to values")
    lines = _lines(text)
    return checked_options(data, command, ctx, lambda key: f"{path}:{lines[key]}" if key in lines else str(path))


def config_option(fn):
    """`--config FILE`: take the command's options from a run configuration file first (its keys are
    solve's options; a command takes those it has)."""

    def apply(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        if value is None:
            return None
        from arcmemo.cli.solve import solve

        path = config_file(value)
        values = load_config(path, solve, ctx)
        own = {p.name for p in ctx.command.params}
        ctx.default_map = {**(ctx.default_map or {}), **{k: v for k, v in values.items() if k in own}}
        return str(path)

    return click.option("--config", "config_file", default=None, is_eager=True, expose_value=True, callback=apply,
                        metavar="FILE",
                        help="Options from a run configuration: a YAML file of solve's options, or a shipped name "
                             "(below). Flags win.")(fn)


__all__ = ["config_option", "config_file", "load_config", "checked_options", "shipped_configs", "ConfigFileError",
           "unknown_key"]
