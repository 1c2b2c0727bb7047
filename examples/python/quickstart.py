"""Lore's Python quick start: ingest a few files, search them, and build a conversation's
next-turn context. Runs against any Lore (with the local embedding model, offline):

    LORE_BASE_URL=http://localhost:8080 LORE_API_KEY=<a JWT or an API key> \\
        sdks/python/.venv/bin/python examples/python/quickstart.py
"""

from __future__ import annotations

from pathlib import Path

from lore_client import Lore

FILES = Path(__file__).parent / "files"


def main() -> None:
    with Lore() as lore:  # LORE_API_KEY and LORE_BASE_URL from the environment
        collection = lore.collections.create(name="kitchen", description="How to make drinks")
        uploads = [lore.contents.upload(path, collection_id=collection.id) for path in sorted(FILES.iterdir())]
        for content in uploads:
            done = lore.contents.wait(content.id)  # chunked and embedded in the background
            print(f"ingested {done.name}: {done.status}")

        for search_type in ("vector", "keyword", "hybrid"):
            found = lore.collections.search(collection_id=collection.id, query="how hot should the water be for tea", search_type=search_type, max_results=2)
            top = found.results[0]
            sub_scores = {name: round(s.score, 3) for name, s in (("vector", top.scores.vector), ("keyword", top.scores.keyword)) if s is not None}
            print(f"{search_type} search: {top.content_name} (score {top.score:.3f}, {sub_scores})")

        conversation = lore.conversations.create(title="Tea time", collection_ids=[collection.id])
        lore.conversations.append_message(conversation.id, content="My green tea always tastes bitter. Why?")
        context = lore.conversations.context(conversation.id, max_tokens=400)
        print(f"context: {len(context.messages)} message(s), {len(context.chunks)} chunk(s), {context.total_tokens} tokens")
        print(context.context)


if __name__ == "__main__":
    main()
