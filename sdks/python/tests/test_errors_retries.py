"""Typed errors and the retry rule: 429s are retried after Retry-After (a real Lore with a
one-request-a-second limit); 503s only where repeating cannot do the work twice (a real HTTP
server answering 503 first)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from lore_client import APIConnectionError, AuthenticationError, Lore, PermissionDeniedError, RateLimitError, ServiceUnavailableError
from lore_client.errors import parse_retry_after

from .http_receiver import Received, Receiver, Reply
from .lore_server import LoreServer, free_port, mint_jwt

MESSAGE: dict[str, object] = {"id": "msg_1", "conversation_id": "conv_1", "sender_id": "alice", "owner_id": "alice", "workspace_id": "w", "content": "hi", "role": "user", "message_type": "text", "tool_calls": [], "tags": [], "checksum": "x", "attachments": [], "parent_message_id": None, "meta_data": {}, "client_message_id": "c", "edit_of": None, "sent_at": "t", "created_at": "t", "updated_at": "t"}


def unavailable_first(times: int, body: object) -> Callable[[Received], Reply]:
    """503 (``Retry-After: 0``) for the first ``times`` requests, then 200 with ``body``."""
    seen = [0]

    def respond(_: Received) -> Reply:
        seen[0] += 1
        if seen[0] <= times:
            return 503, {"content-type": "application/json", "retry-after": "0"}, b'{"detail":"Service Unavailable"}'
        return 200, {"content-type": "application/json"}, json.dumps(body).encode()

    return respond


@pytest.fixture
def flaky() -> Iterator[Callable[[Callable[[Received], Reply]], Receiver]]:
    started: list[Receiver] = []

    def start(respond: Callable[[Received], Reply]) -> Receiver:
        started.append(Receiver(respond))
        return started[-1]

    yield start
    for receiver in started:
        receiver.close()


def test_a_429_is_retried_after_the_seconds_lore_asks_for(lore: LoreServer) -> None:
    token = mint_jwt(f"user-{time.monotonic_ns()}", "py-limited")  # one request a second, burst 1
    with Lore(token, base_url=lore.url, max_retries=0) as impatient, pytest.raises(RateLimitError) as limited:
        for _ in range(5):
            impatient.memories.list()
    assert limited.value.retry_after is not None and limited.value.retry_after >= 1

    answers: list[tuple[int, float, str | None]] = []
    record = lambda response: answers.append((response.status_code, time.monotonic(), response.headers.get("retry-after")))  # noqa: E731
    with Lore(token, base_url=lore.url, max_retries=3, http_client=httpx.Client(event_hooks={"response": [record]})) as patient:
        for _ in range(3):
            patient.memories.list()
    refused = [i for i, (status, _, _) in enumerate(answers) if status == 429]
    assert refused and answers[-1][0] == 200
    status, at, retry_after = answers[refused[0]]
    assert retry_after is not None and answers[refused[0] + 1][1] - at >= float(retry_after) * 0.95


def test_an_invalid_token_is_an_authentication_error(lore: LoreServer) -> None:
    with Lore("not-a-token", base_url=lore.url) as client, pytest.raises(AuthenticationError) as refused:
        client.memories.list()
    assert refused.value.status_code == 401 and refused.value.message


def test_workspace_id_selects_one_of_the_token_s_workspaces(lore: LoreServer, workspace: str) -> None:
    token = mint_jwt("alice", workspace, workspaces=[f"{workspace}-other"])
    with Lore(token, base_url=lore.url, workspace_id=f"{workspace}-other") as other, Lore(token, base_url=lore.url) as default:
        other.memories.create(memory="In the other workspace")
        assert (other.memories.list().total_count, default.memories.list().total_count) == (1, 0)
    with Lore(token, base_url=lore.url, workspace_id="not-mine") as stranger, pytest.raises(PermissionDeniedError):
        stranger.memories.list()


def test_the_environment_configures_a_client_as_it_does_the_typescript_one(lore: LoreServer, workspace: str, monkeypatch: pytest.MonkeyPatch) -> None:
    token = mint_jwt("alice", workspace, workspaces=[f"{workspace}-env"])
    monkeypatch.setenv("LORE_API_KEY", token)
    monkeypatch.setenv("LORE_BASE_URL", lore.url)
    monkeypatch.setenv("LORE_WORKSPACE_ID", f"{workspace}-env")
    with Lore() as from_env:
        from_env.memories.create(memory="Chosen by LORE_WORKSPACE_ID")
    with Lore(token, base_url=lore.url, workspace_id=f"{workspace}-env") as named, Lore(token, base_url=lore.url, workspace_id=workspace) as own:
        assert (named.memories.list().total_count, own.memories.list().total_count) == (1, 0)


def test_503_is_retried_for_reads_and_appends_but_not_for_other_writes(flaky: Callable[[Callable[[Received], Reply]], Receiver]) -> None:
    reads = flaky(unavailable_first(2, {"memory_id": "m", "user_id": "u", "memory": "x", "memory_type": "user", "topics": [], "metadata": {}, "status": "active", "expires_at": None, "created_at": "t", "updated_at": "t"}))
    with Lore("key", base_url=reads.url) as client:
        assert client.memories.get("m").memory == "x"
    assert len(reads.requests) == 3

    appends = flaky(unavailable_first(1, MESSAGE))
    with Lore("key", base_url=appends.url) as client:
        client.conversations.append_message("conv_1", content="hi")
    first, retry = (json.loads(r.body) for r in appends.requests)
    assert first == retry and first["client_message_id"]  # the same message, recognised by Lore

    writes = flaky(unavailable_first(1, {}))
    with Lore("key", base_url=writes.url) as client, pytest.raises(ServiceUnavailableError):
        client.memories.create(memory="maybe stored already")
    assert len(writes.requests) == 1


def test_no_answer_is_a_connection_error_after_the_retries() -> None:
    with Lore("key", base_url=f"http://127.0.0.1:{free_port()}", max_retries=1) as client, pytest.raises(APIConnectionError):
        client.memories.list()


def test_retry_after_as_seconds_or_an_http_date() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past: at once
    assert parse_retry_after("soon") is None
