# Generated from ../_async by tools/sdk/generate-python.mjs: edit that, then `npm run sdk:generate:python`.
"""The client over httpx. ``_async/client.py`` is the source: ``_sync/client.py`` is generated
from it by ``tools/sdk/generate-python.mjs``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel

from .._base import ClientOptions, sync_sleep, query, should_retry
from ..errors import APIConnectionError, error_for
from .resources import (
    ApiKeys,
    Audit,
    Chunks,
    Collections,
    ConnectSessions,
    Connections,
    Contents,
    Conversations,
    Events,
    Integrations,
    Memories,
    Messages,
    Webhooks,
)

M = TypeVar("M", bound=BaseModel)


class Lore:
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
        http_client: httpx.Client | None = None,
    ) -> None:
        self._options = ClientOptions.resolve(api_key, base_url, workspace_id, timeout, max_retries, default_headers)
        self._http = http_client if http_client is not None else httpx.Client(timeout=timeout)
        self._owns_http = http_client is None
        self.api_keys = ApiKeys(self)
        self.collections = Collections(self)
        self.contents = Contents(self)
        self.chunks = Chunks(self)
        self.integrations = Integrations(self)
        self.connections = Connections(self)
        self.connect_sessions = ConnectSessions(self)
        self.conversations = Conversations(self)
        self.messages = Messages(self)
        self.memories = Memories(self)
        self.webhooks = Webhooks(self)
        self.events = Events(self)
        self.audit = Audit(self)

    @property
    def base_url(self) -> str:
        return self._options.base_url

    def request(
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
        response = self._send(method, path, params=params, json=json, data=data, files=files, idempotent=idempotent)
        return response.json()

    def _call(self, model: type[M], method: str, path: str, **options: Any) -> M:
        return model.model_validate(self.request(method, path, **options))

    def _send(
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
                response = self._http.send(request, stream=stream)
            except httpx.TransportError as error:
                if attempt < retry.max_retries and should_retry(method, idempotent, status=None):
                    sync_sleep(retry.delay(attempt, None))
                    attempt += 1
                    continue
                raise APIConnectionError(f"{method} {path}: {error!r}") from error
            if response.status_code < 400:
                return response
            response.read()
            response.close()
            if attempt < retry.max_retries and should_retry(method, idempotent, status=response.status_code):
                sync_sleep(retry.delay(attempt, response))
                attempt += 1
                continue
            raise error_for(response)

    @contextmanager
    def _stream(self, method: str, path: str, **options: Any) -> Iterator[httpx.Response]:
        response = self._send(method, path, stream=True, **options)
        try:
            yield response
        finally:
            response.close()

    def close(self) -> None:
        """Closes the HTTP connections (unless the client was given its own ``http_client``)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Lore:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
