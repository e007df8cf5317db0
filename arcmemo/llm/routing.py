"""Where the calls for a model name go, and what that model takes.

A name resolves through the models.yaml aliases. Registered test doubles come first, then
`local`/`local-small` (the embedded server, local.py, started on first use), then any
OpenAI-compatible endpoint (openai_backend.py; one client per base URL and key). Backends are
built lazily on the client's event loop. A backend's own concurrency bound
(`max_concurrency`, the embedded server's slots) is kept here.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from arcmemo.llm.backend import Backend, registered_model
from arcmemo.llm.catalog import Catalog, ModelTraits
from arcmemo.llm.errors import EndpointFatal
from arcmemo.llm.settings import LLMSettings

LOCAL_MODELS = ("local", "local-small")
LOCAL_TIMEOUT_S = 3600.0        # a CPU model is slow: one local request may take many minutes


class Route:
    """Where calls for one configured model name go."""

    def __init__(self, model: str, backend: Backend | None, factory=None):
        self.model = model
        self.backend = backend
        self.factory = factory      # async () -> Backend, built lazily on the loop
        self.lock = asyncio.Lock()

    async def get(self) -> Backend:
        if self.backend is None:
            async with self.lock:
                if self.backend is None:
                    self.backend = await self.factory()
        return self.backend


class Router:
    def __init__(self, settings: LLMSettings, catalog: Catalog):
        self.settings = settings
        self.catalog = catalog
        self._routes: dict[str, Route] = {}
        self._openai: dict[tuple, Backend] = {}
        self._limits: dict[int, asyncio.Semaphore] = {}

    def route(self, name: str) -> Route:
        route = self._routes.get(name)
        if route is None:
            route = self._routes[name] = self._new_route(name)
        return route

    def traits(self, name: str) -> ModelTraits:
        """What the model behind `name` takes: a registered backend's declared traits, else
        models.yaml; the embedded models' context is the `local_n_ctx` setting."""
        route = self.route(name)
        backend = registered_model(name) or registered_model(route.model)
        declared = getattr(backend, "traits", None)
        if isinstance(declared, ModelTraits):
            return declared
        traits = self.catalog.traits(route.model)
        if route.model in LOCAL_MODELS:
            traits = ModelTraits(self.settings.local_n_ctx, traits.vision, traits.reasoning, traits.tokenizer)
        return traits

    def limit(self, backend: Backend) -> Any:
        """A backend's own bound (`max_concurrency`), if it has one."""
        bound = getattr(backend, "max_concurrency", None)
        if not bound:
            return contextlib.nullcontext()
        key = id(backend)
        if key not in self._limits:
            self._limits[key] = asyncio.Semaphore(int(bound))
        return self._limits[key]

    async def aclose(self) -> None:
        for backend in self._openai.values():
            aclose = getattr(backend, "aclose", None)
            if aclose is not None:
                try:
                    await aclose()
                except Exception:  # closing sockets must not fail a run
                    pass

    def _new_route(self, name: str) -> Route:
        backend = registered_model(name)
        if backend is not None:
            return Route(name, backend)
        target = self.catalog.resolve(name)
        backend = registered_model(target.model)
        if backend is not None:
            return Route(target.model, backend)
        if target.model in LOCAL_MODELS:
            return Route(target.model, None, lambda m=target.model: self._local_backend(m))
        base_url = target.base_url or self.settings.base_url
        if not base_url and not self.settings.api_key:
            raise EndpointFatal(
                f"model {name!r} needs an endpoint: set OPENAI_API_KEY (and OPENAI_BASE_URL "
                "for a non-OpenAI server) or --base-url; or use the offline model 'local'")
        return Route(target.model, None, lambda u=base_url: self._openai_backend(u, self.settings.api_key))

    async def _openai_backend(self, base_url: str | None, api_key: str | None, endpoint: str | None = None,
                              timeout_s: float | None = None) -> Backend:
        from arcmemo.llm.openai_backend import OpenAIBackend

        key = (base_url, api_key, endpoint)
        if key not in self._openai:
            self._openai[key] = OpenAIBackend(base_url, api_key, timeout_s=timeout_s or self.settings.timeout_s,
                                              endpoint=endpoint)
        return self._openai[key]

    async def _local_backend(self, model: str) -> Backend:
        from arcmemo.llm import local

        try:
            server = await asyncio.to_thread(local.ensure_server, model, None, self.settings)
        except local.LocalModelError as exc:
            raise EndpointFatal(str(exc), model=model) from None
        # Requests beyond the server's slots would only queue inside llama.cpp and time out
        # there, so they wait here instead, and each one gets a long timeout.
        backend = await self._openai_backend(server.base_url, "local", endpoint=server.identity,
                                             timeout_s=max(self.settings.timeout_s, LOCAL_TIMEOUT_S))
        backend.max_concurrency = server.slots
        backend.call_budget_s = max(self.settings.call_budget_s, LOCAL_TIMEOUT_S)
        return backend


__all__ = ["Route", "Router", "LOCAL_MODELS"]
