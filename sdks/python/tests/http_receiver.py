"""A real HTTP server on 127.0.0.1 for the tests: it records each request and answers with
what ``respond`` returns (a webhook receiver, a provider's health endpoint, a flaky API)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


Reply = tuple[int, dict[str, str], bytes]
Responder = Callable[[Received], Reply]


class Receiver:
    def __init__(self, respond: Responder) -> None:
        self.requests: list[Received] = []
        self.arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                request = Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length))
                # Recorded before answering: a client that has the answer finds its request here.
                with receiver.arrived:
                    receiver.requests.append(request)
                    receiver.arrived.notify_all()
                status, headers, body = respond(request)
                self.send_response(status)
                for name, value in {**headers, "content-length": str(len(body))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PATCH = do_DELETE = _handle

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        with self.arrived:
            if not self.arrived.wait_for(lambda: len(self.requests) >= count, timeout):
                raise TimeoutError(f"{len(self.requests)} of {count} requests arrived")
            return list(self.requests)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
