"""The drift check: the committed generated modules (models.py, requests.py, _sync/) are what
the generator makes from the OpenAPI document the current code serves (committed at
libs/client/generated/openapi.json, which the TypeScript SDK's drift check proves current)."""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path

from .lore_server import REPO_ROOT, LoreServer


def check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["node", "tools/sdk/generate-python.mjs", "--check", *args], cwd=REPO_ROOT, capture_output=True, text=True)


def test_generated_code_matches_the_current_api() -> None:
    result = check()
    assert result.returncode == 0, result.stderr


def test_a_changed_schema_is_reported_until_regenerated(lore: LoreServer, tmp_path: Path) -> None:
    with urllib.request.urlopen(f"{lore.url}/openapi.json") as response:
        document = json.load(response)
    # As if a route now answered with one more field on memories.
    document["components"]["schemas"]["MemoryRecord"]["properties"]["importance"] = {"type": "number"}
    changed = tmp_path / "openapi.json"
    changed.write_text(json.dumps(document))
    result = check("--document", str(changed))
    assert result.returncode == 1
    assert "models.py" in result.stderr and "requests.py" not in result.stderr
    assert "npm run sdk:generate:python" in result.stderr
