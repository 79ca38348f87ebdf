"""Typed exceptions for the API's error envelope ``{"error": {"code", "message", "details"?}}``.

Every error the service answers with becomes a :class:`SurvivalApiError` subclass chosen by the HTTP
status; the machine-readable ``code`` (``invalid_species``, ``rate_limit_exceeded``, ...) and the
``Request-Id`` of the response are kept on it, so a failure can be reported to the operators.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from requests.structures import CaseInsensitiveDict

from .retries import parse_retry_after


class SurvivalApiError(Exception):
    """Base of every error raised by this package.

    Attributes:
        status: the HTTP status, or ``None`` when no response arrived (a connection failure).
        code: the API's machine-readable code, e.g. ``invalid_species``.
        message: the API's human-readable explanation.
        details: the envelope's ``details`` object (``{}`` when absent), e.g. ``closest_code``.
        request_id: the response's ``Request-Id`` header, to quote to the operators.
        headers: the response headers, case-insensitive (empty without a response).
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        details: Mapping[str, Any] | None = None,
        request_id: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details: dict[str, Any] = dict(details or {})
        self.request_id = request_id
        self.headers: CaseInsensitiveDict[str] = CaseInsensitiveDict(headers or {})

    def __str__(self) -> str:
        prefix = " ".join(str(part) for part in (self.status, self.code) if part is not None)
        text = f"{prefix}: {self.message}" if prefix else self.message
        return f"{text} (request id {self.request_id})" if self.request_id else text

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, "
            f"message={self.message!r}, request_id={self.request_id!r})"
        )


class ApiError(SurvivalApiError):
    """An error status without a family of its own (405, 413, 415, 416, 500, ...)."""


class AuthenticationError(SurvivalApiError):
    """401 ``invalid_api_key``: no key, an unknown, expired or rotated-out key."""


class PermissionDeniedError(SurvivalApiError):
    """403: ``key_inactive`` (a deactivated key) or ``jobs_not_in_tier`` (a spore key asking for a job)."""


class NotFoundError(SurvivalApiError):
    """404 ``not_found``: no such route, job, survey plot, upload or calibration for this account."""


class ConflictError(ApiError):
    """409: ``job_not_finished``, ``calibration_running``, ``survey_limit_reached``, ``key_rotated``."""


class ValidationError(SurvivalApiError):
    """400 or 422: the request was understood but refused.

    400 is the shape of the request (``invalid_request`` with ``details.field`` and
    ``details.reason``, ``invalid_json``); 422 a domain rule (``invalid_species``,
    ``outside_coverage``, ``batch_too_large``, ``invalid_model_version``, ...).
    """

    @property
    def field(self) -> str | None:
        """The field the API named in ``details.field``, when it named one."""
        field = self.details.get("field")
        return field if isinstance(field, str) else None


class _RetryAfterMixin:
    headers: CaseInsensitiveDict[str]

    @property
    def retry_after(self) -> float | None:
        """Seconds the server asked to wait (``Retry-After``), when it said."""
        return parse_retry_after(self.headers.get("Retry-After"))


class RateLimitError(_RetryAfterMixin, SurvivalApiError):
    """429 ``rate_limit_exceeded``: the daily quota is spent (``retry_after`` says until when)."""


class ServiceUnavailableError(_RetryAfterMixin, SurvivalApiError):
    """503 ``service_unavailable``: the data store is away or the server is shedding load."""


class ApiConnectionError(SurvivalApiError):
    """No response: the connection failed or timed out (``status`` is ``None``)."""


_CLASS_BY_STATUS: dict[int, type[SurvivalApiError]] = {
    400: ValidationError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: ValidationError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def error_class_for(status: int) -> type[SurvivalApiError]:
    """The exception class an HTTP error status maps to."""
    return _CLASS_BY_STATUS.get(status, ApiError)


def error_from_response(status: int, headers: Mapping[str, str], body: bytes) -> SurvivalApiError:
    """Builds the exception for an error response from its status, headers and body.

    A body that is not the API's envelope (a proxy's HTML page, say) still gives an exception of
    the status's class, with the code ``http_<status>`` and the start of the body as its message.
    """
    code, message, details = _read_envelope(body)
    if code is None:
        code = f"http_{status}"
        text = body.decode("utf-8", errors="replace").strip()
        message = text[:200] if text else f"HTTP {status} without an error body"
    return error_class_for(status)(
        message or code,
        status=status,
        code=code,
        details=details,
        request_id=CaseInsensitiveDict(headers).get("Request-Id"),
        headers=headers,
    )


def _read_envelope(body: bytes) -> tuple[str | None, str | None, dict[str, Any]]:
    try:
        document = json.loads(body)
    except ValueError:
        return None, None, {}
    error = document.get("error") if isinstance(document, dict) else None
    if not isinstance(error, dict) or not isinstance(error.get("code"), str):
        return None, None, {}
    details = error.get("details")
    return error["code"], str(error.get("message", "")), details if isinstance(details, dict) else {}

