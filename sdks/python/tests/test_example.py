"""examples/python/quickstart.py runs as the README says, against a real Lore."""

from __future__ import annotations

import os
import subprocess
import sys

from .lore_server import REPO_ROOT, LoreServer, mint_jwt


def test_the_quick_start_example_ingests_searches_and_builds_a_context(lore: LoreServer, workspace: str) -> None:
    env = {**os.environ, "LORE_BASE_URL": lore.url, "LORE_API_KEY": mint_jwt("alice", workspace)}
    run = subprocess.run([sys.executable, "examples/python/quickstart.py"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert sum(line.startswith("ingested") and line.endswith("completed") for line in lines) == 3
    assert [line.split(":")[1].split("(")[0].strip() for line in lines if " search: " in line] == ["green-tea.md"] * 3
    assert "context: 1 message(s)" in run.stdout and "80 °C" in run.stdout
