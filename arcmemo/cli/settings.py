"""`arcmemo settings`: every setting, its value here and now, where the value came from, how to set it."""

from __future__ import annotations

import click

from arcmemo.cli.common import echo_json, user_errors

GROUPS = {"run": "what a command opens (memory, runs, sandbox, prompts)", "model": "the endpoint and the models",
          "embedded": "the embedded offline model", "files": "where arcmemo keeps its files"}


def _rows() -> list[dict]:
    """Each declared setting as resolved now (a bad value is shown with its error, not raised)."""
    from arcmemo.core.config import DEFAULT, MODEL_ROLES, SETTINGS, ConfigError, load_config_file, resolve

    load_config_file()          # a broken config file is one error, not one per setting
    rows, values = [], {}
    for setting in SETTINGS:
        try:
            value, source = resolve(setting.name)
            error = None
        except ConfigError as exc:
            value, source, error = None, "", str(exc)
        values[setting.name] = value
        rows.append({"name": setting.name, "group": setting.group, "value": value, "from": source, "error": error,
                     "env": list(setting.env), "config_key": setting.key, "flag": setting.flag,
                     "expects": setting.type, "help": setting.help})
    endpoint = values["base_url"] or values["api_key"]
    for row in rows:
        if row["name"] == "api_key":
            row["value"] = "set" if row["value"] else None
        elif row["name"] == "base_url":
            from arcmemo.llm.settings import url_for_record

            row["value"] = url_for_record(row["value"])
        elif row["name"] in {f"{role}_model" for role in MODEL_ROLES} and row["from"] == DEFAULT:
            from arcmemo.llm.catalog import load_catalog

            row["value"] = load_catalog().defaults.get(row["name"][:-6], "local") if endpoint else "local"
        elif row["value"] is not None and not isinstance(row["value"], (bool, int, float, str)):
            row["value"] = str(row["value"])
    return rows


@click.command("settings")
@click.option("--verbose", "-v", is_flag=True, help="Also say what each setting is and how to set it.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (with how to set each).")
@user_errors
def settings_command(verbose, as_json) -> None:
    """Every setting: its value here and now, where it came from, and how to set it.

    A value comes from the first of: the command's flag, an env var (ARCMEMO_<NAME>; the
    endpoint ARCMEMO_BASE_URL, then OPENAI_BASE_URL), the config file
    ($ARCMEMO_HOME/config.yaml, `name: value`), the default. A run records each value it
    used and its source in its config.json (`resolved_settings`)."""
    from arcmemo.core.config import config_file
    from arcmemo.core.table import table, wrapped

    rows = _rows()
    if as_json:
        echo_json({"config_file": str(config_file()), "settings": rows})
        return
    path = config_file()
    click.echo(wrapped(f"config file: {path}" + ("" if path.exists() else " (none)"), "  "))
    for group, title in GROUPS.items():
        click.echo(f"\n{title}:")
        shown = []
        for row in (r for r in rows if r["group"] == group):
            line = [row["name"], "-" if row["value"] is None else str(row["value"]),
                    f"ERROR {row['error']}" if row["error"] else f"from {row['from']}"]
            if verbose:
                ways = [*(["flag " + row["flag"]] if row["flag"] else []), *(f"env {e}" for e in row["env"]),
                        *([f"config {row['config_key']}"] if row["config_key"] else [])]
                line.append(f"{row['help']}; {row['expects']}; set by {', '.join(ways)}")
            shown.append(line)
        click.echo(table(shown, ("setting", "value", "from", *(("what it is, how to set it",) if verbose else ())),
                         rule=False, indent="  "))
    if any(row["error"] for row in rows):
        raise click.exceptions.Exit(1)


COMMANDS = [settings_command]
