"""Python client for Lore's HTTP API: ``Lore`` (synchronous) and ``AsyncLore`` (asyncio/trio)."""

__version__ = "0.1.0"

from . import models, requests  # noqa: E402
from ._async.client import AsyncLore  # noqa: E402
from ._base import RetryPolicy, ServerSentEvent  # noqa: E402
from ._sync.client import Lore  # noqa: E402
from .errors import (  # noqa: E402
    APIConnectionError,
    APIError,
    AuthenticationError,
    BadGatewayError,
    BadRequestError,
    ConflictError,
    GatewayTimeoutError,
    InternalServerError,
    LoreError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    UnprocessableEntityError,
)
from .webhooks import WebhookVerificationError, verify_webhook  # noqa: E402

__all__ = [
    "APIConnectionError",
    "APIError",
    "AsyncLore",
    "AuthenticationError",
    "BadGatewayError",
    "BadRequestError",
    "ConflictError",
    "GatewayTimeoutError",
    "InternalServerError",
    "Lore",
    "LoreError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "RetryPolicy",
    "ServerSentEvent",
    "ServiceUnavailableError",
    "UnprocessableEntityError",
    "WebhookVerificationError",
    "models",
    "requests",
    "verify_webhook",
]
