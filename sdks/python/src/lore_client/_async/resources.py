"""One class per resource of the API. Request bodies and query strings are typed keyword
arguments (the TypedDicts of ``lore_client.requests``); answers are the pydantic models of
``lore_client.models``."""

from __future__ import annotations

import builtins
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import httpx
from typing_extensions import Unpack

from .. import models as m
from .. import requests as r
from .._base import FileContent, ServerSentEvent, SSEDecoder, async_sleep, upload_fields, upload_files
from ..errors import APIConnectionError
from .pagination import cursor_items, offset_items

if TYPE_CHECKING:
    from .client import AsyncLore


def _id(value: str) -> str:
    return quote(value, safe="")


class _Resource:
    def __init__(self, client: AsyncLore) -> None:
        self._client = client


class AsyncApiKeys(_Resource):
    async def create(self, **body: Unpack[r.CreateApiKeyBody]) -> m.CreatedApiKey:
        """A new key; its secret ``key`` is in this answer only."""
        return await self._client._call(m.CreatedApiKey, "POST", "/api/v1/api-keys", json=body)

    async def list(self, **params: Unpack[r.ListApiKeysQuery]) -> m.ListApiKeysResponse:
        return await self._client._call(m.ListApiKeysResponse, "GET", "/api/v1/api-keys", params=params)

    async def iter(self, **params: Unpack[r.ListApiKeysQuery]) -> AsyncIterator[m.ApiKeyRecord]:
        async for key in offset_items(lambda p: self.list(**p), params, lambda page: page.data):
            yield key

    async def get(self, key_id: str) -> m.ApiKeyRecord:
        return await self._client._call(m.ApiKeyRecord, "GET", f"/api/v1/api-keys/{_id(key_id)}")

    async def revoke(self, key_id: str) -> m.ApiKeyRecord:
        return await self._client._call(m.ApiKeyRecord, "DELETE", f"/api/v1/api-keys/{_id(key_id)}")


class AsyncCollections(_Resource):
    async def create(self, **body: Unpack[r.CreateCollectionBody]) -> m.CollectionRecord:
        return await self._client._call(m.CollectionRecord, "POST", "/api/v1/collections", json=body)

    async def list(self, **params: Unpack[r.ListCollectionsQuery]) -> m.ListCollectionsResponse:
        return await self._client._call(m.ListCollectionsResponse, "GET", "/api/v1/collections", params=params)

    async def iter(self, **params: Unpack[r.ListCollectionsQuery]) -> AsyncIterator[m.CollectionRecord]:
        async for collection in offset_items(lambda p: self.list(**p), params, lambda page: page.data):
            yield collection

    async def get(self, collection_id: str) -> m.CollectionRecord:
        return await self._client._call(m.CollectionRecord, "GET", f"/api/v1/collections/{_id(collection_id)}")

    async def update(self, collection_id: str, **body: Unpack[r.UpdateCollectionBody]) -> m.CollectionRecord:
        return await self._client._call(m.CollectionRecord, "PATCH", f"/api/v1/collections/{_id(collection_id)}", json=body)

    async def delete(self, collection_id: str) -> m.DeleteCollectionResponse:
        return await self._client._call(m.DeleteCollectionResponse, "DELETE", f"/api/v1/collections/{_id(collection_id)}")

    async def search(self, **body: Unpack[r.SearchCollectionBody]) -> m.SearchResponse:
        """Vector, keyword or hybrid search (``search_type``) over a collection's chunks; each
        result carries its sub-scores."""
        return await self._client._call(m.SearchResponse, "POST", "/api/v1/collections/search", json=body)


class AsyncContents(_Resource):
    async def create(self, **body: Unpack[r.CreateContentBody]) -> m.ContentRecord:
        """Adds a text; it is chunked and embedded in the background (``status``)."""
        return await self._client._call(m.ContentRecord, "POST", "/api/v1/contents", json=body)

    async def upload(
        self,
        file: FileContent,
        *,
        collection_id: str,
        filename: str | None = None,
        mime_type: str | None = None,
        name: str | None = None,
        source: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> m.ContentRecord:
        """Uploads a file (bytes, an open binary file or a path) as multipart/form-data."""
        fields = upload_fields({"collection_id": collection_id, "name": name, "source": source, "metadata": metadata})
        return await self._client._call(m.ContentRecord, "POST", "/api/v1/contents", data=fields, files=upload_files(file, filename, mime_type))

    async def list(self, **params: Unpack[r.ListContentsQuery]) -> m.ListContentsResponse:
        return await self._client._call(m.ListContentsResponse, "GET", "/api/v1/contents", params=params)

    async def iter(self, **params: Unpack[r.ListContentsQuery]) -> AsyncIterator[m.ContentRecord]:
        async for content in offset_items(lambda p: self.list(**p), params, lambda page: page.contents):
            yield content

    async def get(self, content_id: str) -> m.ContentRecord:
        return await self._client._call(m.ContentRecord, "GET", f"/api/v1/contents/{_id(content_id)}")

    async def wait(self, content_id: str, *, timeout: float = 60.0, interval: float = 0.2) -> m.ContentRecord:
        """Polls until the content is ``completed`` or ``failed``; TimeoutError past ``timeout`` seconds."""
        waited = 0.0
        while True:
            content = await self.get(content_id)
            if content.status in ("completed", "failed"):
                return content
            if waited >= timeout:
                raise TimeoutError(f"content {content_id} still {content.status} after {timeout} s")
            await async_sleep(interval)
            waited += interval

    async def delete(self, content_id: str) -> m.DeleteContentResponse:
        return await self._client._call(m.DeleteContentResponse, "DELETE", f"/api/v1/contents/{_id(content_id)}")

    async def reprocess(self, content_id: str) -> m.ContentRecord:
        return await self._client._call(m.ContentRecord, "POST", f"/api/v1/contents/{_id(content_id)}/reprocess")

    async def download(self, content_id: str) -> bytes:
        """The uploaded file as it came, while it is kept (the record's `original`); NotFoundError otherwise."""
        response = await self._client._send("GET", f"/api/v1/contents/{_id(content_id)}/file")
        return response.content


class AsyncChunks(_Resource):
    async def list(self, **params: Unpack[r.ListChunksQuery]) -> m.ListChunksResponse:
        return await self._client._call(m.ListChunksResponse, "GET", "/api/v1/chunks", params=params)

    async def iter(self, **params: Unpack[r.ListChunksQuery]) -> AsyncIterator[m.ChunkRecord]:
        async for chunk in cursor_items(lambda p: self.list(**p), params, lambda page: page.chunks):
            yield chunk

    async def get(self, chunk_id: str, **params: Unpack[r.GetChunkQuery]) -> m.ChunkRecord:
        return await self._client._call(m.ChunkRecord, "GET", f"/api/v1/chunks/{_id(chunk_id)}", params=params)

    async def update(self, chunk_id: str, **body: Unpack[r.UpdateChunkBody]) -> m.ChunkRecord:
        return await self._client._call(m.ChunkRecord, "PATCH", f"/api/v1/chunks/{_id(chunk_id)}", json=body)

    async def delete(self, chunk_id: str) -> m.DeleteChunkResponse:
        return await self._client._call(m.DeleteChunkResponse, "DELETE", f"/api/v1/chunks/{_id(chunk_id)}")


class AsyncIntegrations(_Resource):
    """The catalogue of integrations and the models of AI providers (open endpoints)."""

    async def list(self, **params: Unpack[r.ListIntegrationsQuery]) -> builtins.list[m.IntegrationRecord]:
        return (await self._client._call(m.ListIntegrationsResponse, "GET", "/api/v1/integrations", params=params)).root

    async def get(self, integration_id: str) -> m.IntegrationRecord:
        return await self._client._call(m.IntegrationRecord, "GET", f"/api/v1/integrations/{_id(integration_id)}")

    async def provider_models(self, provider_id: str, **params: Unpack[r.ListProviderModelsQuery]) -> builtins.list[m.ProviderModelRecord]:
        path = f"/api/v1/integrations/providers/{_id(provider_id)}/models"
        return (await self._client._call(m.ListProviderModelsResponse, "GET", path, params=params)).root


class AsyncConnections(_Resource):
    async def create(self, **body: Unpack[r.CreateConnectionBody]) -> m.ConnectionRecord:
        return await self._client._call(m.ConnectionRecord, "POST", "/api/v1/connections", json=body)

    async def list(self, **params: Unpack[r.ListConnectionsQuery]) -> m.ListConnectionsResponse:
        return await self._client._call(m.ListConnectionsResponse, "GET", "/api/v1/connections", params=params)

    async def iter(self, **params: Unpack[r.ListConnectionsQuery]) -> AsyncIterator[m.ConnectionRecord]:
        async for connection in offset_items(lambda p: self.list(**p), params, lambda page: page.data):
            yield connection

    async def list_by_integration_type(self, integration_type: str, **params: Unpack[r.ListConnectionsByIntegrationTypeQuery]) -> builtins.list[m.ConnectionRecord]:
        path = f"/api/v1/connections/integrations/{_id(integration_type)}"
        return (await self._client._call(m.ListConnectionsByIntegrationTypeResponse, "GET", path, params=params)).root

    async def get(self, connection_id: str, *, user_id: str | None = None) -> m.ConnectionRecord:
        return await self._client._call(m.ConnectionRecord, "GET", f"/api/v1/connections/{_id(connection_id)}", params={"user_id": user_id})

    async def update(self, connection_id: str, **body: Unpack[r.UpdateConnectionBody]) -> m.ConnectionRecord:
        return await self._client._call(m.ConnectionRecord, "PATCH", f"/api/v1/connections/{_id(connection_id)}", json=body)

    async def delete(self, connection_id: str, *, user_id: str | None = None) -> m.DeleteConnectionResponse:
        path = f"/api/v1/connections/{_id(connection_id)}"
        return await self._client._call(m.DeleteConnectionResponse, "DELETE", path, params={"user_id": user_id})

    async def test(self, connection_id: str, *, user_id: str | None = None) -> m.ConnectionTestResult:
        """Runs the integration's verification request with the stored credentials."""
        path = f"/api/v1/connections/{_id(connection_id)}/test"
        return await self._client._call(m.ConnectionTestResult, "POST", path, params={"user_id": user_id})


class AsyncConnectSessions(_Resource):
    """Connect sessions: a one-time URL that runs a provider's OAuth authorization for a user."""

    async def create(self, **body: Unpack[r.CreateConnectSessionBody]) -> m.ConnectSessionRecord:
        """Answers the session with ``connect_url``, the one-time URL to send the user's browser to (shown only here)."""
        return await self._client._call(m.ConnectSessionRecord, "POST", "/api/v1/connect/sessions", json=body)

    async def get(self, session_id: str, *, user_id: str | None = None) -> m.ConnectSessionRecord:
        """The session's status and outcome (``completed`` with ``connection_id``, or ``failed`` with ``error``): poll it."""
        path = f"/api/v1/connect/sessions/{_id(session_id)}"
        return await self._client._call(m.ConnectSessionRecord, "GET", path, params={"user_id": user_id})


class AsyncConversations(_Resource):
    async def create(self, **body: Unpack[r.CreateConversationBody]) -> m.ConversationRecord:
        return await self._client._call(m.ConversationRecord, "POST", "/api/v1/conversations", json=body)

    async def list(self, **params: Unpack[r.ListConversationsQuery]) -> m.ListConversationsResponse:
        return await self._client._call(m.ListConversationsResponse, "GET", "/api/v1/conversations", params=params)

    async def iter(self, **params: Unpack[r.ListConversationsQuery]) -> AsyncIterator[m.ConversationRecord]:
        async for conversation in cursor_items(lambda p: self.list(**p), params, lambda page: page.conversations):
            yield conversation

    async def get(self, conversation_id: str, *, user_id: str | None = None) -> m.ConversationRecord:
        path = f"/api/v1/conversations/{_id(conversation_id)}"
        return await self._client._call(m.ConversationRecord, "GET", path, params={"user_id": user_id})

    async def update(self, conversation_id: str, *, user_id: str | None = None, **body: Unpack[r.UpdateConversationBody]) -> m.ConversationRecord:
        path = f"/api/v1/conversations/{_id(conversation_id)}"
        return await self._client._call(m.ConversationRecord, "PATCH", path, params={"user_id": user_id}, json=body)

    async def delete(self, conversation_id: str, *, user_id: str | None = None) -> m.DeleteConversationResponse:
        path = f"/api/v1/conversations/{_id(conversation_id)}"
        return await self._client._call(m.DeleteConversationResponse, "DELETE", path, params={"user_id": user_id})

    async def export(self, conversation_id: str, **params: Unpack[r.ExportConversationQuery]) -> m.ExportConversationResponse:
        """The conversation and its messages as JSON (``format=markdown``: use ``export_markdown``)."""
        path = f"/api/v1/conversations/{_id(conversation_id)}/export"
        return await self._client._call(m.ExportConversationResponse, "GET", path, params={**params, "format": "json"})

    async def export_markdown(self, conversation_id: str, *, user_id: str | None = None) -> str:
        path = f"/api/v1/conversations/{_id(conversation_id)}/export"
        response = await self._client._send("GET", path, params={"user_id": user_id, "format": "markdown"})
        return response.text

    async def context(self, conversation_id: str, *, user_id: str | None = None, **body: Unpack[r.ConversationContextBody]) -> m.ConversationContext:
        """What an assistant needs for its next turn: recent messages, relevant memories and
        chunks of the conversation's collections, within ``max_tokens``."""
        path = f"/api/v1/conversations/{_id(conversation_id)}/context"
        return await self._client._call(m.ConversationContext, "POST", path, params={"user_id": user_id}, json=body)

    async def append_message(self, conversation_id: str, *, user_id: str | None = None, **body: Unpack[r.AppendMessageBody]) -> m.MessageRecord:
        """Appends a message. It is idempotent: a ``client_message_id`` is generated when none is
        given, so a retry (after a 503 or a lost connection) returns the first message instead
        of adding a second one."""
        message = {**body, "client_message_id": body.get("client_message_id") or str(uuid.uuid4())}
        path = f"/api/v1/conversations/{_id(conversation_id)}/messages"
        return await self._client._call(m.MessageRecord, "POST", path, params={"user_id": user_id}, json=message, idempotent=True)

    async def list_messages(self, conversation_id: str, **params: Unpack[r.ListConversationMessagesQuery]) -> m.ListConversationMessagesResponse:
        path = f"/api/v1/conversations/{_id(conversation_id)}/messages"
        return await self._client._call(m.ListConversationMessagesResponse, "GET", path, params=params)

    async def iter_messages(self, conversation_id: str, **params: Unpack[r.ListConversationMessagesQuery]) -> AsyncIterator[m.MessageRecord]:
        async for message in offset_items(lambda p: self.list_messages(conversation_id, **p), params, lambda page: page.data):
            yield message


class AsyncMessages(_Resource):
    """Messages across conversations (appending is ``conversations.append_message``)."""

    async def list(self, **params: Unpack[r.ListMessagesQuery]) -> m.ListMessagesResponse:
        return await self._client._call(m.ListMessagesResponse, "GET", "/api/v1/messages", params=params)

    async def iter(self, **params: Unpack[r.ListMessagesQuery]) -> AsyncIterator[m.MessageRecord]:
        async for message in cursor_items(lambda p: self.list(**p), params, lambda page: page.data):
            yield message

    async def get(self, message_id: str, *, user_id: str | None = None) -> m.MessageRecord:
        return await self._client._call(m.MessageRecord, "GET", f"/api/v1/messages/{_id(message_id)}", params={"user_id": user_id})

    async def update(self, message_id: str, *, user_id: str | None = None, **body: Unpack[r.UpdateMessageBody]) -> m.MessageRecord:
        """An edit: a new sibling of the message (``edit_of``), which the active path moves to."""
        path = f"/api/v1/messages/{_id(message_id)}"
        return await self._client._call(m.MessageRecord, "PATCH", path, params={"user_id": user_id}, json=body)

    async def delete(self, message_id: str, *, user_id: str | None = None) -> m.DeleteMessageResponse:
        path = f"/api/v1/messages/{_id(message_id)}"
        return await self._client._call(m.DeleteMessageResponse, "DELETE", path, params={"user_id": user_id})


class AsyncMemories(_Resource):
    async def create(self, **body: Unpack[r.CreateMemoryBody]) -> m.CreateMemoryResponse:
        return await self._client._call(m.CreateMemoryResponse, "POST", "/api/v1/memories", json=body)

    async def list(self, **params: Unpack[r.ListMemoriesQuery]) -> m.ListMemoriesResponse:
        return await self._client._call(m.ListMemoriesResponse, "GET", "/api/v1/memories", params=params)

    async def iter(self, **params: Unpack[r.ListMemoriesQuery]) -> AsyncIterator[m.MemoryRecord]:
        async for memory in cursor_items(lambda p: self.list(**p), params, lambda page: page.data):
            yield memory

    async def get(self, memory_id: str, *, user_id: str | None = None) -> m.MemoryRecord:
        return await self._client._call(m.MemoryRecord, "GET", f"/api/v1/memories/{_id(memory_id)}", params={"user_id": user_id})

    async def replace(self, memory_id: str, **body: Unpack[r.ReplaceMemoryBody]) -> m.ReplaceMemoryResponse:
        path = f"/api/v1/memories/{_id(memory_id)}/replace"
        return await self._client._call(m.ReplaceMemoryResponse, "POST", path, json=body)

    async def history(self, memory_id: str, *, user_id: str | None = None) -> m.GetMemoryHistoryResponse:
        path = f"/api/v1/memories/{_id(memory_id)}/history"
        return await self._client._call(m.GetMemoryHistoryResponse, "GET", path, params={"user_id": user_id})

    async def search(self, **body: Unpack[r.SearchMemoriesBody]) -> m.SearchMemoriesResponse:
        return await self._client._call(m.SearchMemoriesResponse, "POST", "/api/v1/memories/search", json=body)

    async def extract(self, **body: Unpack[r.ExtractMemoriesBody]) -> m.ExtractMemoriesResponse:
        """Memory extraction by the server's chat model, from ``messages`` or a ``conversation_id``: each fact decided add, update, invalidate or none."""
        return await self._client._call(m.ExtractMemoriesResponse, "POST", "/api/v1/memories/extract", json=body)

    async def undo_decision(self, memory_id: str, decision_id: str, *, user_id: str | None = None) -> m.UndoMemoryDecisionResponse:
        """Undoes the memory's latest extraction decision by a new event (409 for an older one)."""
        path = f"/api/v1/memories/{_id(memory_id)}/decisions/{_id(decision_id)}/undo"
        return await self._client._call(m.UndoMemoryDecisionResponse, "POST", path, json={"user_id": user_id})

    async def delete(self, memory_id: str, *, user_id: str | None = None) -> m.DeleteMemoryResponse:
        path = f"/api/v1/memories/{_id(memory_id)}"
        return await self._client._call(m.DeleteMemoryResponse, "DELETE", path, params={"user_id": user_id})

    async def delete_all(self, *, user_id: str | None = None) -> m.DeleteUserMemoriesResponse:
        """Deletes every memory of the user."""
        return await self._client._call(m.DeleteUserMemoriesResponse, "DELETE", "/api/v1/memories", params={"user_id": user_id})

    async def export(self, *, user_id: str | None = None) -> m.ExportUserMemoriesResponse:
        return await self._client._call(m.ExportUserMemoriesResponse, "GET", "/api/v1/memories/export", params={"user_id": user_id})


class AsyncWebhooks(_Resource):
    async def create(self, **body: Unpack[r.CreateWebhookBody]) -> m.CreateWebhookResponse:
        """A new endpoint; its signing ``secret`` (``whsec_…``) is in this answer only."""
        return await self._client._call(m.CreateWebhookResponse, "POST", "/api/v1/webhooks", json=body)

    async def list(self, **params: Unpack[r.ListWebhooksQuery]) -> m.ListWebhooksResponse:
        return await self._client._call(m.ListWebhooksResponse, "GET", "/api/v1/webhooks", params=params)

    async def iter(self, **params: Unpack[r.ListWebhooksQuery]) -> AsyncIterator[m.ListWebhooksResponseDatum]:
        async for webhook in offset_items(lambda p: self.list(**p), params, lambda page: page.data):
            yield webhook

    async def get(self, webhook_id: str) -> m.GetWebhookResponse:
        return await self._client._call(m.GetWebhookResponse, "GET", f"/api/v1/webhooks/{_id(webhook_id)}")

    async def update(self, webhook_id: str, **body: Unpack[r.UpdateWebhookBody]) -> m.UpdateWebhookResponse:
        return await self._client._call(m.UpdateWebhookResponse, "PATCH", f"/api/v1/webhooks/{_id(webhook_id)}", json=body)

    async def delete(self, webhook_id: str) -> m.DeleteWebhookResponse:
        return await self._client._call(m.DeleteWebhookResponse, "DELETE", f"/api/v1/webhooks/{_id(webhook_id)}")

    async def list_deliveries(self, webhook_id: str, **params: Unpack[r.ListWebhookDeliveriesQuery]) -> m.ListWebhookDeliveriesResponse:
        path = f"/api/v1/webhooks/{_id(webhook_id)}/deliveries"
        return await self._client._call(m.ListWebhookDeliveriesResponse, "GET", path, params=params)

    async def iter_deliveries(self, webhook_id: str, **params: Unpack[r.ListWebhookDeliveriesQuery]) -> AsyncIterator[m.ListWebhookDeliveriesResponseDelivery]:
        async for delivery in cursor_items(lambda p: self.list_deliveries(webhook_id, **p), params, lambda page: page.deliveries):
            yield delivery

    async def redeliver(self, webhook_id: str, delivery_id: str) -> m.RedeliverWebhookDeliveryResponse:
        path = f"/api/v1/webhooks/{_id(webhook_id)}/deliveries/{_id(delivery_id)}/redeliver"
        return await self._client._call(m.RedeliverWebhookDeliveryResponse, "POST", path)


class AsyncAudit(_Resource):
    async def verify(self, **params: Unpack[r.VerifyAuditChainQuery]) -> m.VerifyAuditChainResponse:
        """The hash chains of the workspace's streams, per context (administrators only). When
        ``truncated``, pass its ``next_cursor`` as ``cursor`` to go on."""
        return await self._client._call(m.VerifyAuditChainResponse, "GET", "/api/v1/admin/audit/verify", params=params)


class AsyncEvents(_Resource):
    async def stream(
        self,
        *,
        types: Sequence[str] | None = None,
        contexts: Sequence[str] | None = None,
        after: str | None = None,
        read_timeout: float = 60.0,
        max_reconnects: int = 10,
    ) -> AsyncIterator[ServerSentEvent]:
        """The workspace's integration events (``event.json()``), for as long as the caller
        iterates. When the connection drops or Lore restarts, it reconnects with
        ``Last-Event-ID`` (backing off; ``max_reconnects`` failures in a row end it with
        APIConnectionError), so no event is missed or repeated. ``after``: resume after this
        id (``"0"``: from the oldest kept); without it, new events only. An ``event == "gap"``
        says events after the id asked for had expired."""
        retry = self._client._options.retry
        params = {"types": ",".join(types) if types else None, "contexts": ",".join(contexts) if contexts else None, "after": after}
        last_event_id: str | None = None
        failures = 0
        while True:
            headers = {"Accept": "text/event-stream", **({"Last-Event-ID": last_event_id} if last_event_id is not None else {})}
            try:
                async with self._client._stream("GET", "/api/v1/events", params=params, headers=headers, timeout=httpx.Timeout(10.0, read=read_timeout)) as response:
                    decoder = SSEDecoder()
                    async for line in response.aiter_lines():
                        event = decoder.decode(line)
                        failures = 0
                        if event is None:
                            continue
                        if event.id is not None:
                            last_event_id = event.id
                        yield event
            except (APIConnectionError, httpx.TransportError):
                # Cut while connecting or reading: Lore stopped, a proxy closed it, no heartbeat came.
                failures += 1
                if failures > max_reconnects:
                    raise APIConnectionError(f"the event stream failed {failures} times in a row") from None
            await async_sleep(retry.delay(failures, None))

