"""The event stream (Server-Sent Events, resumed with Last-Event-ID across a restart of Lore)
and webhooks delivered to a real receiver that verifies their Standard Webhooks signatures."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import anyio
import pytest

from lore_client import AsyncLore, Lore, PermissionDeniedError, WebhookVerificationError, verify_webhook

from .http_receiver import Received, Receiver, Reply
from .lore_server import LoreServer, mint_jwt


def accept(_: Received) -> Reply:
    return 200, {}, b""


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver(accept)
    yield server
    server.close()


def test_webhooks_are_signed_delivered_listed_and_redelivered(admin: Lore, receiver: Receiver) -> None:
    webhook = admin.webhooks.create(url=f"{receiver.url}/hook", event_types=["memory.created"], description="receiver")
    assert webhook.secret.startswith("whsec_")
    memory = admin.memories.create(memory="Signed and delivered")

    delivered = receiver.wait_for(1)[0]
    body = verify_webhook(webhook.secret, delivered.body, delivered.headers)
    assert body["type"] == "memory.created" and body["data"]["memory_id"] == memory.memory_id
    with pytest.raises(WebhookVerificationError):
        verify_webhook(webhook.secret, delivered.body.replace(b"memory.created", b"memory.deleted"), delivered.headers)

    # Lore records the delivery once the receiver's answer is in: a moment after the request.
    deadline = time.monotonic() + 10
    while (deliveries := list(admin.webhooks.iter_deliveries(webhook.id, limit=1)))[0].status == "pending" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [d.status for d in deliveries] == ["delivered"]
    admin.webhooks.redeliver(webhook.id, deliveries[0].id)
    again = receiver.wait_for(2)[1]
    assert again.headers["webhook-id"] == delivered.headers["webhook-id"]  # receivers de-duplicate by it
    verify_webhook(webhook.secret, again.body, again.headers)

    assert admin.webhooks.get(webhook.id).description == "receiver"
    assert admin.webhooks.update(webhook.id, status="disabled").status == "disabled"
    assert [w.id for w in admin.webhooks.iter()] == [webhook.id]
    admin.webhooks.delete(webhook.id)
    assert admin.webhooks.list().total_count == 0


@pytest.mark.anyio
async def test_the_event_stream_resumes_after_lore_restarts_without_gaps_or_repeats(lore: LoreServer, workspace: str) -> None:
    async with AsyncLore(mint_jwt("alice", workspace), base_url=lore.url, max_retries=5) as client:
        events = client.events.stream(types=["memory.created"], after="0")

        async def next_memory_id() -> str:
            with anyio.fail_after(20):
                event = await anext(events)
            assert event.event == "message" and event.id
            memory_id: str = event.json()["memory_id"]
            return memory_id

        first = await client.memories.create(memory="Before the restart")
        assert await next_memory_id() == first.memory_id
        # The generator is paused at its yield: the memories below are created before it can
        # reconnect, so only resuming from the last id (not "from now") finds them.
        lore.restart()
        later = [(await client.memories.create(memory=f"After the restart {i}")).memory_id for i in range(2)]
        assert [await next_memory_id() for _ in later] == later


def test_standard_webhooks_reference_vector() -> None:
    """The example of the Standard Webhooks specification's reference libraries."""
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    headers = {"webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek", "webhook-timestamp": "1614265330", "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="}
    body = b'{"test": 2432232314}'
    assert verify_webhook(secret, body, headers, now=1614265330) == json.loads(body)
    with pytest.raises(WebhookVerificationError, match="tolerance"):
        verify_webhook(secret, body, headers, now=1614265330 + 301)
    with pytest.raises(WebhookVerificationError, match="no signature"):
        verify_webhook("whsec_" + "A" * 32, body, headers, now=1614265330)


def test_audit_verify_checks_the_workspace_and_refuses_a_member(lore: LoreServer, admin: Lore, workspace: str) -> None:
    admin.memories.create(memory="Chained")
    report = admin.audit.verify(limit=50)
    assert report.ok and not report.truncated and report.next_cursor is None
    assert {c.context: c.streams for c in report.contexts}["memory"] == 1
    with Lore(mint_jwt("bob", workspace), base_url=lore.url) as member, pytest.raises(PermissionDeniedError):
        member.audit.verify()
