"""A real Lore for the tests: the standalone bundle (built once per run by ``node tools/build.mjs``)
on a free loopback port, with its data in a temporary directory and a JWT secret of its own."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
JWT_SECRET = "lore-python-sdk-tests-secret-0123456789abcdef"

#: Settings that make webhooks and events observable within a test's time.
TEST_ENV = {
    "EVENTS_HEARTBEAT_MS": "500",
    "WEBHOOK_RETRY_SCHEDULE_MS": "200,400,800",
    "WEBHOOK_POLL_MS": "100",
    "WEBHOOK_TIMEOUT_MS": "3000",
    "LORE_EGRESS_ALLOW": "127.0.0.1",
    # One request a second for callers of the workspace `py-limited` (the retry tests).
    "LORE_WORKSPACE_LIMITS": json.dumps({"py-limited": {"caller_requests_per_minute": 60, "caller_burst": 1}}),
}


def models_dir() -> Path:
    """Where the embedding model is: MODELS_DIR, else ../shared/models beside the repository."""
    configured = os.environ.get("MODELS_DIR", "").strip()
    return Path(configured).resolve() if configured else (REPO_ROOT.parent / "shared" / "models").resolve()


def build_bundle() -> None:
    subprocess.run(["node", "tools/build.mjs"], cwd=REPO_ROOT, check=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def mint_jwt(sub: str, workspace: str, *, roles: list[str] | None = None, workspaces: list[str] | None = None, ttl: int = 3600) -> str:
    """An HS256 token as tools/mint-jwt.mjs mints it (``admin`` role: a workspace administrator;
    ``workspaces``: others it may select with X-Workspace-Id)."""

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    now = int(time.time())
    claims: dict[str, object] = {"sub": sub, "workspace_id": workspace, "iat": now, "exp": now + ttl}
    if roles:
        claims["roles"] = roles
    if workspaces:
        claims["workspaces"] = workspaces
    signing_input = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + b64(json.dumps(claims).encode())
    signature = hmac.new(JWT_SECRET.encode(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64(signature)


class LoreServer:
    """One standalone Lore process; ``restart`` keeps its port and data (a restart in place)."""

    def __init__(self) -> None:
        self.data_dir = Path(tempfile.mkdtemp(prefix="lore-py-sdk-"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> LoreServer:
        env = {
            **os.environ,
            **TEST_ENV,
            "PORT": str(self.port),
            "HOST": "127.0.0.1",
            "DATA_DIR": str(self.data_dir),
            "AUTH_JWT_SECRET": JWT_SECRET,
            "LOG_LEVEL": "silent",
            "LORE_MASTER_KEY": "",
            "MODELS_DIR": str(models_dir()),
        }
        self.process = subprocess.Popen(["node", "--enable-source-maps", str(REPO_ROOT / "dist/standalone.js")], env=env, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Lore exited with {self.process.returncode} before it was ready")
            try:
                with urllib.request.urlopen(f"{self.url}/ready", timeout=1) as response:
                    if response.status == 200:
                        return self
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("Lore did not become ready within 30 s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=15)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.data_dir, ignore_errors=True)
