from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from lore_client import Lore

from .lore_server import LoreServer, build_bundle, mint_jwt, models_dir


@pytest.fixture(scope="session")
def lore() -> Iterator[LoreServer]:
    if not models_dir().is_dir():
        message = f"no embedding model at {models_dir()}: set MODELS_DIR (see the README)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    build_bundle()
    server = LoreServer().start()
    yield server
    server.remove()


@pytest.fixture
def workspace() -> str:
    """A workspace of the test's own: nothing another test does is visible in it."""
    return f"py-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def admin_token(workspace: str) -> str:
    return mint_jwt("alice", workspace, roles=["admin"])


@pytest.fixture
def admin(lore: LoreServer, admin_token: str) -> Iterator[Lore]:
    """A workspace administrator's client (a JWT): mints keys, manages webhooks."""
    with Lore(admin_token, base_url=lore.url) as client:
        yield client


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
