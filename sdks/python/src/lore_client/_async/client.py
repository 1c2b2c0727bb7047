"""The client over httpx. ``_async/client.py`` is the source: ``_sync/client.py`` is generated
from it by ``tools/sdk/generate-python.mjs``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel

from .._base import ClientOptions, async_sleep, query, should_retry
from ..errors import APIConnectionError, error_for
from .resources import (
    AsyncApiKeys,
    AsyncAudit,
    AsyncChunks,
    AsyncCollections,
    AsyncConnectSessions,
    AsyncConnections,
    AsyncContents,
    AsyncConversations,
    AsyncEvents,
    AsyncIntegrations,
    AsyncMemories,
    AsyncMessages,
    AsyncWebhooks,
)

M = TypeVar("M", bound=BaseModel)


class AsyncLore:
    """A client of one Lore. ``api_key`` is an API key (``lore_key_…``) or a JWT; without it,
    ``LORE_API_KEY``. ``base_url`` defaults to ``LORE_BASE_URL``, then http://localhost:8080;
    ``workspace_id`` to ``LORE_WORKSPACE_ID`` (the TypeScript SDK reads the same variables).

    Requests answered 429 are retried (``max_retries`` times, honouring ``Retry-After``);
    503s and lost connections too when the request is safe to repeat (GET, PUT, DELETE, and
    message appends, which carry a ``client_message_id``)."""

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        workspace_id: str | None = None,
        timeout: float | httpx.Timeout = 30.0,
        max_retries: int = 2,
        default_headers: Mapping[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._options = ClientOptions.resolve(api_key, base_url, workspace_id, timeout, max_retries, default_headers)
        self._http = http_client if http_client is not None else httpx.AsyncClient(timeout=timeout)
        self._owns_http = http_client is None
        self.api_keys = AsyncApiKeys(self)
        self.collections = AsyncCollections(self)
        self.contents = AsyncContents(self)
        self.chunks = AsyncChunks(self)
        self.integrations = AsyncIntegrations(self)
        self.connections = AsyncConnections(self)
        self.connect_sessions = AsyncConnectSessions(self)
        self.conversations = AsyncConversations(self)
        self.messages = AsyncMessages(self)
        self.memories = AsyncMemories(self)
        self.webhooks = AsyncWebhooks(self)
        self.events = AsyncEvents(self)
        self.audit = AsyncAudit(self)

    @property
    def base_url(self) -> str:
        return self._options.base_url

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        data: Mapping[str, str] | None = None,
        files: Mapping[str, Any] | None = None,
        idempotent: bool | None = None,
    ) -> Any:
        """Any operation of the API by method and path: the answer's parsed JSON body."""
        response = await self._send(method, path, params=params, json=json, data=data, files=files, idempotent=idempotent)
        return response.json()

    async def _call(self, model: type[M], method: str, path: str, **options: Any) -> M:
        return model.model_validate(await self.request(method, path, **options))

    async def _send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        data: Mapping[str, str] | None = None,
        files: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        idempotent: bool | None = None,
        stream: bool = False,
        timeout: float | httpx.Timeout | None = None,
    ) -> httpx.Response:
        """Sends with retries; an error status raises its typed error (body read, response closed)."""
        retry = self._options.retry
        attempt = 0
        while True:
            request = self._http.build_request(
                method,
                self._options.base_url + path,
                params=query(params),
                json=json,
                data=data,
                files=files,
                headers={**self._options.headers(), **(headers or {})},
                timeout=timeout if timeout is not None else self._options.timeout,
            )
            try:
                response = await self._http.send(request, stream=stream)
            except httpx.TransportError as error:
                if attempt < retry.max_retries and should_retry(method, idempotent, status=None):
                    await async_sleep(retry.delay(attempt, None))
                    attempt += 1
                    continue
                raise APIConnectionError(f"{method} {path}: {error!r}") from error
            if response.status_code < 400:
                return response
            await response.aread()
            await response.aclose()
            if attempt < retry.max_retries and should_retry(method, idempotent, status=response.status_code):
                await async_sleep(retry.delay(attempt, response))
                attempt += 1
                continue
            raise error_for(response)

    @asynccontextmanager
    async def _stream(self, method: str, path: str, **options: Any) -> AsyncIterator[httpx.Response]:
        response = await self._send(method, path, stream=True, **options)
        try:
            yield response
        finally:
            await response.aclose()

    async def close(self) -> None:
        """Closes the HTTP connections (unless the client was given its own ``http_client``)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncLore:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.close()
