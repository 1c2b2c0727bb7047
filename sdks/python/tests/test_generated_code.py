"""The drift check: the committed generated modules (models.py, requests.py, _sync/) are what
the generator makes from the OpenAPI document the current code serves."""

from __future__ import annotations

import subprocess

from .lore_server import REPO_ROOT, LoreServer


def test_generated_code_matches_the_current_api(lore: LoreServer) -> None:
    # `lore` has built dist/ from the current code (and runs from it: no second build under it).
    check = subprocess.run(["node", "tools/sdk/generate-python.mjs", "--check", "--no-build"], cwd=REPO_ROOT, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
