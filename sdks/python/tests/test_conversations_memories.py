"""Conversations, messages, next-turn context and memories, with the asynchronous client."""

from __future__ import annotations

import httpx
import pytest

from lore_client import AsyncLore, ConflictError, NotFoundError

from .lore_server import LoreServer

pytestmark = pytest.mark.anyio


async def test_conversation_messages_and_context(lore: LoreServer, admin_token: str) -> None:
    async with AsyncLore(admin_token, base_url=lore.url) as client:
        collection = await client.collections.create(name="manuals")
        content = await client.contents.create(collection_id=collection.id, name="kettle.txt", text="The kettle's limescale filter is rinsed under cold water weekly.")
        await client.contents.wait(content.id)
        await client.memories.create(memory="Alice descales her kettle every Sunday", topics=["kettle"])

        conversation = await client.conversations.create(title="Kettle care", collection_ids=[collection.id])
        question = await client.conversations.append_message(conversation.id, content="How do I clean the kettle filter?")
        assert question.client_message_id  # generated, so that a retry returns this message
        again = await client.conversations.append_message(conversation.id, content="How do I clean the kettle filter?", client_message_id=question.client_message_id)
        assert again.id == question.id
        with pytest.raises(ConflictError):
            await client.conversations.append_message(conversation.id, content="Something else", client_message_id=question.client_message_id)
        answer = await client.conversations.append_message(conversation.id, content="Rinse it under cold water.", role="assistant")
        assert answer.parent_message_id == question.id

        context = await client.conversations.context(conversation.id, query="kettle filter", max_tokens=500)
        assert [m.id for m in context.messages] == [question.id, answer.id]
        assert context.chunks[0].content_id == content.id
        assert context.memories[0].memory == "Alice descales her kettle every Sunday"
        assert "limescale" in context.context and context.total_tokens <= 500

        assert [m.id async for m in client.conversations.iter_messages(conversation.id, limit=1)] == [question.id, answer.id]
        assert {m.id async for m in client.messages.iter(conversation_id=conversation.id, limit=1)} == {question.id, answer.id}
        edited = await client.messages.update(answer.id, content="Rinse it under cold water, weekly.")
        assert edited.edit_of == answer.id
        assert (await client.messages.get(edited.id)).content.endswith("weekly.")
        assert (await client.conversations.get(conversation.id)).current_message_id == edited.id
        exported = await client.conversations.export(conversation.id)
        assert exported.active_path == [question.id, edited.id]
        assert "# Kettle care" in await client.conversations.export_markdown(conversation.id)
        await client.messages.delete(edited.id)

        renamed = await client.conversations.update(conversation.id, title="Kettles")
        assert renamed.title == "Kettles"
        assert [c.id async for c in client.conversations.iter(limit=1)] == [conversation.id]
        await client.conversations.delete(conversation.id)
        with pytest.raises(NotFoundError):
            await client.conversations.get(conversation.id)


async def test_an_append_retried_after_a_lost_answer_is_stored_once(lore: LoreServer, admin_token: str) -> None:
    """The first attempt reaches Lore but its answer is lost; the retry finds the same message."""
    sent: list[bytes] = []

    class LoseFirstAnswer(httpx.AsyncBaseTransport):
        def __init__(self) -> None:
            self._inner = httpx.AsyncHTTPTransport()

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            response = await self._inner.handle_async_request(request)
            if request.method == "POST" and request.url.path.endswith("/messages"):
                sent.append(request.content)
                if len(sent) == 1:
                    await response.aread()
                    raise httpx.ReadError("connection reset after the request was sent", request=request)
            return response

    async with AsyncLore(admin_token, base_url=lore.url) as plain:
        conversation = await plain.conversations.create(title="Retries")
    async with AsyncLore(admin_token, base_url=lore.url, http_client=httpx.AsyncClient(transport=LoseFirstAnswer())) as client:
        message = await client.conversations.append_message(conversation.id, content="Only once, please")
        assert len(sent) == 2 and sent[0] == sent[1]
        listed = await client.conversations.list_messages(conversation.id)
        assert [m.id for m in listed.data] == [message.id]


async def test_memories(lore: LoreServer, admin_token: str) -> None:
    async with AsyncLore(admin_token, base_url=lore.url) as client:
        created = [await client.memories.create(memory=text, topics=topics) for text, topics in (("Likes olives", ["food"]), ("Hates coriander", ["food"]), ("Bakes sourdough", ["food", "bread"]))]
        ids = [c.memory_id for c in created]
        assert {m.memory_id async for m in client.memories.iter(limit=2)} == set(ids)  # two pages by cursor
        assert (await client.memories.get(ids[0])).memory == "Likes olives"
        # A list goes as repeated parameters, every one of them read (memories having all topics).
        assert [(await client.memories.list(topics=topics)).total_count for topics in (["food"], ["food", "bread"], ["bread", "food"])] == [3, 1, 1]

        replaced = await client.memories.replace(ids[0], memory="Loves olives")
        assert replaced.new_memory.memory == "Loves olives" and replaced.old_memory.memory == "Likes olives"
        assert len((await client.memories.history(ids[0])).versions) == 2

        found = await client.memories.search(query="bread baking")
        assert found.results[0].memory_id == ids[2]
        assert len((await client.memories.export()).memories) == 3

        await client.memories.delete(ids[1])
        with pytest.raises(NotFoundError):
            await client.memories.get(ids[1])
        assert (await client.memories.delete_all()).deleted_count == 2
        assert (await client.memories.list()).total_count == 0
