"""What the synchronous and asynchronous clients share: configuration, the retry rule, query
and upload encoding, and the Server-Sent Events decoder. Nothing here does I/O."""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Union

import anyio
import httpx

from . import __version__
from .errors import parse_retry_after

DEFAULT_BASE_URL = "http://localhost:8080"
#: Statuses worth another attempt: refused by a rate limit (nothing was done) or unavailable.
RETRYABLE_STATUSES = frozenset({429, 503})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})

async_sleep = anyio.sleep
sync_sleep = time.sleep


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait: exponential backoff with full jitter, unless the answer
    says how long (``Retry-After``, honoured up to ``max_retry_after`` seconds)."""

    max_retries: int = 2
    initial_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0

    def delay(self, attempt: int, response: httpx.Response | None) -> float:
        asked = parse_retry_after(response.headers.get("retry-after")) if response is not None else None
        if asked is not None:
            return min(asked, self.max_retry_after)
        return random.uniform(0, min(self.max_delay, self.initial_delay * 2**attempt))


def should_retry(method: str, idempotent: bool | None, *, status: int | None) -> bool:
    """429 always (the request was refused before any work); 503 and lost connections only
    when repeating the request cannot do its work twice."""
    safe = idempotent if idempotent is not None else method in IDEMPOTENT_METHODS
    if status is None:
        return safe
    return status == 429 or (status in RETRYABLE_STATUSES and safe)


@dataclass(frozen=True)
class ClientOptions:
    api_key: str
    base_url: str
    workspace_id: str | None
    timeout: float | httpx.Timeout
    retry: RetryPolicy
    default_headers: Mapping[str, str] = field(default_factory=dict)

    @staticmethod
    def resolve(
        api_key: str | None,
        base_url: str | None,
        workspace_id: str | None,
        timeout: float | httpx.Timeout,
        max_retries: int,
        default_headers: Mapping[str, str] | None,
    ) -> ClientOptions:
        key = api_key if api_key is not None else os.environ.get("LORE_API_KEY")
        if not key:
            raise ValueError("an API key or JWT is needed: pass api_key= or set LORE_API_KEY")
        url = base_url or os.environ.get("LORE_BASE_URL") or DEFAULT_BASE_URL
        workspace = workspace_id if workspace_id is not None else (os.environ.get("LORE_WORKSPACE_ID") or None)
        return ClientOptions(key, url.rstrip("/"), workspace, timeout, RetryPolicy(max_retries=max_retries), default_headers or {})

    def headers(self) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.api_key}", "User-Agent": f"lore-client-python/{__version__}", **self.default_headers}
        if self.workspace_id is not None:
            headers["X-Workspace-Id"] = self.workspace_id
        return headers


def query(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Query parameters without the unset ones; booleans as ``true``/``false``."""
    if not params:
        return {}
    return {k: (str(v).lower() if isinstance(v, bool) else v) for k, v in params.items() if v is not None}


FileContent = Union[bytes, IO[bytes], str, Path]
"""A file to upload: its bytes, an open binary file, or a path."""


def upload_files(file: FileContent, filename: str | None, mime_type: str | None) -> dict[str, Any]:
    """The multipart ``file`` part: the name defaults to the path's or the file object's."""
    if isinstance(file, (str, Path)):
        path = Path(file)
        content = path.read_bytes()
        filename = filename or path.name
    else:
        # Read now, so that a retry sends the whole file again.
        content = file if isinstance(file, bytes) else file.read()
        filename = filename or Path(str(getattr(file, "name", "upload"))).name
    if mime_type is not None:
        return {"file": (filename, content, mime_type)}
    return {"file": (filename, content)}


def upload_fields(fields: Mapping[str, Any]) -> dict[str, str]:
    """Multipart text fields; ``metadata`` goes as JSON text, as the API asks."""
    out: dict[str, str] = {}
    for name, value in fields.items():
        if value is None:
            continue
        out[name] = json.dumps(value) if name == "metadata" and not isinstance(value, str) else str(value)
    return out


@dataclass(frozen=True)
class ServerSentEvent:
    """One event of ``GET /api/v1/events``: ``event`` is ``message`` for integration events and
    ``gap`` when the position asked for had expired."""

    data: str
    event: str = "message"
    id: str | None = None

    def json(self) -> Any:
        return json.loads(self.data)


class SSEDecoder:
    """The WHATWG event-stream parsing rules, one line at a time (comments and heartbeats
    yield nothing; an event ends at a blank line)."""

    def __init__(self) -> None:
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None
        #: The last id the stream set: what a reconnect sends as ``Last-Event-ID``.
        self.last_event_id: str | None = None

    def decode(self, line: str) -> ServerSentEvent | None:
        line = line.rstrip("\r\n")
        if line == "":
            if not self._data:
                self._event = ""
                return None
            event = ServerSentEvent(data="\n".join(self._data), event=self._event or "message", id=self.last_event_id)
            self._data, self._event = [], ""
            return event
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self.last_event_id = value
        return None
