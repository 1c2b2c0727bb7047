"""Keys, collections, contents (text and file uploads), chunks and the three kinds of search,
with the synchronous client, through an API key scoped to what it needs."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from lore_client import Lore, NotFoundError, PermissionDeniedError, UnprocessableEntityError

from .lore_server import LoreServer

TEA = "Green tea is steeped at 80 degrees for two minutes; boiling water makes it bitter."
COFFEE = "Espresso is brewed by forcing hot water through finely ground coffee beans."
BIKES = "A bicycle chain should be cleaned and oiled every few hundred kilometres."


def test_api_keys_create_list_get_and_revoke(admin: Lore, lore: LoreServer) -> None:
    created = admin.api_keys.create(label="reader", permissions=["collections:read"])
    assert created.key.startswith("lore_")
    assert created.id in {key.id for key in admin.api_keys.iter(limit=1)}  # one key a page
    assert admin.api_keys.get(created.id).label == "reader"

    with Lore(created.key, base_url=lore.url) as reader:
        assert reader.collections.list().total_count == 0
        with pytest.raises(PermissionDeniedError) as denied:
            reader.collections.create(name="not allowed")
        assert denied.value.status_code == 403 and isinstance(denied.value.detail, str)

    assert admin.api_keys.revoke(created.id).status == "revoked"


def test_collections_contents_chunks_and_search(admin: Lore, lore: LoreServer, tmp_path: Path) -> None:
    key = admin.api_keys.create(label="knowledge", permissions=["collections:read", "collections:write"])
    client = Lore(key.key, base_url=lore.url)
    collection = client.collections.create(name="drinks", description="How to make drinks")
    assert client.collections.get(collection.id).name == "drinks"
    assert client.collections.update(collection.id, description="Tea and coffee").description == "Tea and coffee"
    assert [c.id for c in client.collections.iter()] == [collection.id]

    text = client.contents.create(collection_id=collection.id, name="tea.txt", text=TEA, metadata={"topic": "tea"})
    (tmp_path / "coffee.md").write_text(COFFEE)
    from_path = client.contents.upload(tmp_path / "coffee.md", collection_id=collection.id, metadata={"topic": "coffee"})
    from_file = client.contents.upload(io.BytesIO(BIKES.encode()), collection_id=collection.id, filename="bikes.txt", mime_type="text/plain")
    assert from_file.original is not None and from_file.original.file_name == "bikes.txt"
    assert client.contents.download(from_file.id) == BIKES.encode()
    assert from_path.name == "coffee.md" and from_file.name == "bikes.txt"
    for content in (text, from_path, from_file):
        assert client.contents.wait(content.id).status == "completed"
    assert {c.id for c in client.contents.iter(collection_id=collection.id, limit=2)} == {text.id, from_path.id, from_file.id}

    chunks = list(client.chunks.iter(collection_id=collection.id, limit=1))
    assert len(chunks) == 3 and {c.content_id for c in chunks} == {text.id, from_path.id, from_file.id}
    bike_chunk = next(c for c in chunks if c.content_id == from_file.id)
    assert client.chunks.get(bike_chunk.id, include_embedding=True).embedding is not None

    vector = client.collections.search(collection_id=collection.id, query="how hot should the water be for tea", search_type="vector")
    assert vector.results[0].content_id == text.id
    assert vector.results[0].scores.vector is not None and vector.results[0].scores.keyword is None
    keyword = client.collections.search(collection_id=collection.id, query="espresso", search_type="keyword")
    assert [r.content_id for r in keyword.results] == [from_path.id]
    hybrid = client.collections.search(collection_id=collection.id, query="oiled chain", search_type="hybrid", filters={"content_id": from_file.id})
    assert hybrid.results[0].chunk_id == bike_chunk.id
    assert hybrid.results[0].scores.vector is not None and hybrid.results[0].scores.keyword is not None

    updated = client.chunks.update(bike_chunk.id, metadata={"checked": True})
    assert updated.metadata["checked"] is True
    client.chunks.delete(bike_chunk.id)
    with pytest.raises(NotFoundError):
        client.chunks.get(bike_chunk.id)

    assert client.contents.reprocess(text.id).id == text.id
    client.contents.delete(from_path.id)
    client.collections.delete(collection.id)
    with pytest.raises(NotFoundError) as missing:
        client.collections.get(collection.id)
    assert missing.value.detail and missing.value.request_id
    client.close()


def test_validation_errors_carry_each_issue_with_its_location(admin: Lore) -> None:
    with pytest.raises(UnprocessableEntityError) as invalid:
        admin.collections.create(name="")
    assert [issue.loc for issue in invalid.value.errors] == [["body", "name"]]
    assert "body.name" in invalid.value.message


def test_any_operation_by_method_and_path(admin: Lore) -> None:
    """What the typed resources do not cover (the administrators' parked events) is one call away."""
    assert admin.request("GET", "/api/v1/admin/parked-events") == {"items": []}
