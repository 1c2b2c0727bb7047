"""Verifying Lore's webhook deliveries, which follow Standard Webhooks
(https://www.standardwebhooks.com): ``webhook-signature`` holds ``v1,<base64 HMAC-SHA256>`` of
``<webhook-id>.<webhook-timestamp>.<body>`` under the endpoint's ``whsec_`` secret."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

#: How far a delivery's timestamp may be from now, either way (replayed or skewed deliveries).
DEFAULT_TOLERANCE_SECONDS = 5 * 60


class WebhookVerificationError(Exception):
    """The delivery is not from the endpoint's Lore, was altered, or is too old or new."""


def verify_webhook(
    secret: str,
    body: bytes | str,
    headers: Mapping[str, str],
    *,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: float | None = None,
) -> dict[str, Any]:
    """Checks a delivery and returns its parsed body ``{type, timestamp, data}``.

    ``body`` must be the raw bytes received (not re-serialised JSON); ``headers`` may use any
    case. Raises :class:`WebhookVerificationError` when any check fails.
    """
    lowered = {name.lower(): value for name, value in headers.items()}
    message_id, timestamp, signatures = (lowered.get(h) for h in ("webhook-id", "webhook-timestamp", "webhook-signature"))
    if not message_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header")
    try:
        sent_at = int(timestamp)
    except ValueError:
        raise WebhookVerificationError("webhook-timestamp is not a number of seconds") from None
    if abs((time.time() if now is None else now) - sent_at) > tolerance_seconds:
        raise WebhookVerificationError("webhook-timestamp is outside the tolerance")
    payload = body if isinstance(body, bytes) else body.encode()
    expected = base64.b64encode(hmac.new(_key(secret), f"{message_id}.{sent_at}.".encode() + payload, hashlib.sha256).digest())
    for candidate in signatures.split(" "):
        version, _, signature = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(signature.encode(), expected):
            parsed: dict[str, Any] = json.loads(payload)
            return parsed
    raise WebhookVerificationError("no signature matches")


def _key(secret: str) -> bytes:
    try:
        return base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except binascii.Error:
        raise WebhookVerificationError("the secret is not a whsec_ secret") from None
