"""Iterating every item of a list, page after page: by ``next_cursor`` or by ``skip``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

E = TypeVar("E", bound=BaseModel)
T = TypeVar("T")


async def cursor_items(fetch: Callable[[dict[str, Any]], Awaitable[E]], params: Mapping[str, Any], items: Callable[[E], list[T]]) -> AsyncIterator[T]:
    """Follows ``next_cursor`` while ``has_more`` (keyset pages: none repeated or skipped)."""
    current = dict(params)
    while True:
        page = await fetch(current)
        for item in items(page):
            yield item
        cursor = getattr(page, "next_cursor", None)
        if not cursor or getattr(page, "has_more", None) is False:
            return
        current["cursor"] = cursor


async def offset_items(fetch: Callable[[dict[str, Any]], Awaitable[E]], params: Mapping[str, Any], items: Callable[[E], list[T]]) -> AsyncIterator[T]:
    """Advances ``skip`` by each page's length until ``has_more`` is false or ``total_count`` is reached."""
    skip = int(params.get("skip") or 0)
    while True:
        page = await fetch({**params, "skip": skip})
        batch = items(page)
        for item in batch:
            yield item
        skip += len(batch)
        has_more = getattr(page, "has_more", None)
        more = has_more if isinstance(has_more, bool) else skip < int(getattr(page, "total_count", 0))
        if not batch or not more:
            return
