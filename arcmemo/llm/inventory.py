"""What `arcmemo models list` shows: roles as resolved now (with their traits and the
tokenizer that counts for them), aliases, prices, traits, local models."""

from __future__ import annotations

from typing import Any

from arcmemo.llm.catalog import ROLES, Catalog, ModelTraits, load_catalog
from arcmemo.llm.settings import OPENAI_URL, LLMSettings
from arcmemo.llm.tokens import tokenizer_for


def _traits(catalog: Catalog, model: str, settings: LLMSettings) -> ModelTraits:
    """The catalog's traits; an embedded model's context is its `local_n_ctx` setting."""
    from arcmemo.llm import weights

    traits = catalog.traits(model)
    if model in weights.SPECS:
        return ModelTraits(settings.local_n_ctx, traits.vision, traits.reasoning, traits.tokenizer)
    return traits


def inventory(**flags: Any) -> dict[str, Any]:
    from arcmemo.llm import local, weights

    settings = LLMSettings.resolve(**flags)
    catalog = load_catalog()
    roles = []
    for role in ROLES:
        name = settings.model(role)
        target = catalog.resolve(name)
        price = catalog.price(target.model)
        traits = _traits(catalog, target.model, settings)
        roles.append({
            "role": role, "name": name, "model": target.model,
            "endpoint": ("in-process llama.cpp" if target.model in weights.SPECS else
                         target.base_url or settings.base_url or (OPENAI_URL if settings.api_key else None)),
            "price": ("free (offline)" if target.model in weights.SPECS else
                      f"${price.input:g} / ${price.output:g} per M tokens" if price else "unpriced (cost 0)"),
            "traits": traits.to_dict(),
            "tokens": tokenizer_for(target.model, traits).name,
            "temperature": settings.temperature(role),
            "call_defaults": settings.call_defaults(role),
        })
    runtime = local.runtime_found()
    locals_ = []
    for name, spec in weights.SPECS.items():
        if runtime:
            status = "not installed (xllamacpp missing)"
        else:
            problem = weights.weights_available(name)
            assembled = (weights.models_dir() / spec.filename).exists()
            status = ("weights missing: " + problem) if problem else (
                "ready" if assembled else "installed (assembled on first use)")
        locals_.append({"name": name, "title": spec.title, "status": status,
                        "packages": f"{spec.distribution.format(i='1..' + str(spec.parts))}=={spec.version}"})
    return {
        "endpoint": settings.base_url or (OPENAI_URL if settings.api_key else None),
        "roles": roles,
        "aliases": {k: {"model": v.model, "base_url": v.base_url} for k, v in catalog.aliases.items()},
        "prices": {k: {"input": v.input, "output": v.output, "cached_input": v.cached_input}
                   for k, v in catalog.prices.items()},
        "traits": {k: _traits(catalog, k, settings).to_dict() for k in catalog.traits_table},
        "local": locals_,
        "attribution": local.ATTRIBUTION,
        "sources": catalog.sources,
    }
