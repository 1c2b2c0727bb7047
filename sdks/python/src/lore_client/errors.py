"""Typed errors. Every error answer of Lore's API has a ``detail``: a message (most statuses),
a list of validation issues (422) or ``{message, errors}`` (400 from a connection's checks)."""

from __future__ import annotations

from typing import Any

import httpx

from .models import ValidationError


class LoreError(Exception):
    """Base of every error this package raises."""


class APIConnectionError(LoreError):
    """No answer: the connection failed or timed out (after the retries allowed)."""


class APIError(LoreError):
    """Lore answered with an error status; ``detail`` is the body's ``detail`` as sent."""

    status_code: int
    detail: Any
    request_id: str | None
    response: httpx.Response

    def __init__(self, response: httpx.Response, body: Any) -> None:
        self.response = response
        self.status_code = response.status_code
        self.detail = body.get("detail") if isinstance(body, dict) else body
        self.request_id = response.headers.get("x-request-id")
        super().__init__(f"{self.status_code}: {self.message}")

    @property
    def message(self) -> str:
        """One readable line of the detail, whichever shape it has."""
        detail = self.detail
        if isinstance(detail, str):
            return detail
        if isinstance(detail, dict) and isinstance(detail.get("message"), str):
            errors = detail.get("errors")
            return str(detail["message"]) + (f" ({'; '.join(map(str, errors))})" if isinstance(errors, list) and errors else "")
        if isinstance(detail, list):
            return "; ".join(_issue_text(issue) for issue in detail)
        return str(detail)


def _issue_text(issue: Any) -> str:
    if isinstance(issue, dict) and "msg" in issue:
        return f"{'.'.join(map(str, issue.get('loc', [])))}: {issue['msg']}"
    return str(issue)


class BadRequestError(APIError):
    """400: e.g. a connection whose checks failed (``detail`` is ``{message, errors}``)."""


class AuthenticationError(APIError):
    """401: no credentials, or ones Lore does not accept."""


class PermissionDeniedError(APIError):
    """403: the key lacks the permission, the collection scope or the user it names."""


class NotFoundError(APIError):
    """404: absent, or another user's or workspace's."""


class ConflictError(APIError):
    """409: e.g. a ``client_message_id`` reused with other content, or a concurrent change."""


class PayloadTooLargeError(APIError):
    """413: a body or upload over its limit."""


class UnprocessableEntityError(APIError):
    """422: the request failed validation; ``errors`` lists each issue with its location."""

    @property
    def errors(self) -> list[ValidationError]:
        if not isinstance(self.detail, list):
            return []
        return [ValidationError.model_validate(issue) for issue in self.detail if isinstance(issue, dict)]


class RateLimitError(APIError):
    """429: over a rate limit or quota; ``retry_after`` is the seconds Lore asked to wait."""

    @property
    def retry_after(self) -> float | None:
        return parse_retry_after(self.response.headers.get("retry-after"))


class InternalServerError(APIError):
    """500."""


class BadGatewayError(APIError):
    """502: a model provider Lore called (a rerank API) failed; ``detail`` carries its message."""


class ServiceUnavailableError(APIError):
    """503: a context service did not answer in time, or Lore is stopping."""


class GatewayTimeoutError(APIError):
    """504: a model provider Lore called (a rerank API) did not answer in time."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    500: InternalServerError,
    502: BadGatewayError,
    503: ServiceUnavailableError,
    504: GatewayTimeoutError,
}


def error_for(response: httpx.Response) -> APIError:
    """The typed error for an error answer whose body has been read."""
    try:
        body: Any = response.json()
    except ValueError:
        body = {"detail": response.text}
    return _BY_STATUS.get(response.status_code, APIError)(response, body)


def parse_retry_after(value: str | None) -> float | None:
    """``Retry-After`` as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3)."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime
    from datetime import datetime, timezone

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
