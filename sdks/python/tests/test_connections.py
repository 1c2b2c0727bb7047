"""The integration catalogue, providers' models and connections, tested against a real HTTP
server on 127.0.0.1 standing in for the provider (Lore runs with LORE_EGRESS_ALLOW=127.0.0.1)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lore_client import BadRequestError, Lore, NotFoundError

from .http_receiver import Received, Receiver, Reply

TOKEN = "provider-token-0123456789"


def provider_health(request: Received) -> Reply:
    authorised = request.headers.get("authorization") == f"Bearer {TOKEN}"
    return (200 if authorised else 401), {"content-type": "application/json"}, b"{}"


@pytest.fixture
def provider() -> Iterator[Receiver]:
    receiver = Receiver(provider_health)
    yield receiver
    receiver.close()


def test_catalogue_and_provider_models(admin: Lore) -> None:
    integrations = admin.integrations.list(type="model")
    assert integrations and all(i.type == "model" for i in integrations)
    assert admin.integrations.get("rest-api").id == "rest-api"
    models = admin.integrations.provider_models("openai")
    assert models and all(model.provider_id == "openai" for model in models)
    with pytest.raises(NotFoundError):
        admin.integrations.get("no-such-integration")


def test_connection_lifecycle(admin: Lore, provider: Receiver) -> None:
    config = {"base_url": provider.url, "health_path": "/health"}
    connection = admin.connections.create(integration="rest-api", label="Stand-in", auth_method_id="bearer", config=config, credentials={"token": TOKEN})
    assert admin.connections.get(connection.id).label == "Stand-in"
    assert [c.id for c in admin.connections.iter(limit=1)] == [connection.id]
    assert [c.id for c in admin.connections.list_by_integration_type(connection.integration_type)] == [connection.id]

    tested = admin.connections.test(connection.id)
    assert tested.success and tested.http_status == 200
    assert provider.wait_for(1)[0].path == "/health"

    assert admin.connections.update(connection.id, label="Renamed").label == "Renamed"
    admin.connections.delete(connection.id)
    with pytest.raises(NotFoundError):
        admin.connections.get(connection.id)


def test_failed_checks_are_a_bad_request_listing_each(admin: Lore) -> None:
    with pytest.raises(BadRequestError) as refused:
        admin.connections.create(integration="rest-api", label="x", auth_method_id="bearer", config={})
    detail = refused.value.detail
    assert isinstance(detail, dict) and any("base_url" in error for error in detail["errors"])
    assert "base_url" in refused.value.message
