"""Sends one API call over HTTP: headers, retries, and the error envelope turned into exceptions."""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Iterable, Mapping, Union

import requests

from ._version import __version__
from .errors import ApiConnectionError, error_from_response
from .retries import RetryPolicy

USER_AGENT = (
    f"survival-api-python/{__version__} "
    f"(python {platform.python_version()}; requests {requests.__version__})"
)

Body = Union[bytes, IO[bytes], Iterable[bytes], None]


@dataclass
class RequestBody:
    """A request body that can be made again for a retry.

    ``open`` gives a fresh body for each attempt (bytes, a file, or an iterator of chunks).
    ``replayable`` is false for a one-shot source (a generator handed in by the caller): such a
    request is sent once and never retried, since its rows cannot be sent twice.
    """

    open: Callable[[], Body]
    content_type: str
    content_encoding: str | None = None
    replayable: bool = True

    @classmethod
    def of_bytes(cls, data: bytes, content_type: str) -> "RequestBody":
        return cls(open=lambda: data, content_type=content_type)


@dataclass
class Transport:
    """The HTTP side of :class:`~survival_api.Client`: one session, one key, one retry policy."""

    base_url: str
    api_key: str | None
    timeout: float | tuple[float, float]
    retry: RetryPolicy
    session: requests.Session
    sleep: Callable[[float], None] = time.sleep
    extra_headers: dict[str, str] = field(default_factory=dict)

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: RequestBody | None = None,
        headers: Mapping[str, str] | None = None,
        idempotent: bool | None = None,
        stream: bool = False,
        authenticated: bool = True,
    ) -> requests.Response:
        """Sends the call, retrying as the policy allows, and returns a successful response.

        Raises a :class:`~survival_api.errors.SurvivalApiError` subclass for an error status and
        :class:`~survival_api.errors.ApiConnectionError` when no response arrives.
        ``idempotent`` defaults to true for GET, HEAD, PUT and DELETE: only those calls are
        retried after a connection failure (the server may have acted on the first attempt).
        """
        if idempotent is None:
            idempotent = method.upper() in {"GET", "HEAD", "PUT", "DELETE"}
        replayable = body is None or body.replayable
        url = self.base_url + path
        send_headers = self._headers(body, headers, authenticated)
        attempt = 0
        while True:
            payload = body.open() if body is not None else None
            try:
                response = self.session.request(
                    method,
                    url,
                    params=_query(params),
                    data=payload,
                    headers=send_headers,
                    timeout=self.timeout,
                    stream=stream,
                )
            except (requests.ConnectionError, requests.Timeout) as exc:
                delay = (
                    self.retry.delay_for_connection_error(attempt)
                    if idempotent and replayable
                    else None
                )
                if delay is None:
                    raise ApiConnectionError(f"{method} {path} failed: {exc}") from exc
                self.sleep(delay)
                attempt += 1
                continue
            finally:
                _close(payload)
            if response.status_code < 400:
                return response
            delay = (
                self.retry.delay_for_status(
                    response.status_code, attempt, response.headers.get("Retry-After")
                )
                if replayable
                else None
            )
            if delay is None:
                raise error_from_response(response.status_code, response.headers, response.content)
            response.close()
            self.sleep(delay)
            attempt += 1

    def _headers(
        self,
        body: RequestBody | None,
        headers: Mapping[str, str] | None,
        authenticated: bool,
    ) -> dict[str, str]:
        result = {"User-Agent": USER_AGENT, "Accept": "application/json", **self.extra_headers}
        if authenticated and self.api_key:
            result["X-API-Key"] = self.api_key
        if body is not None:
            result["Content-Type"] = body.content_type
            if body.content_encoding:
                result["Content-Encoding"] = body.content_encoding
        result.update(headers or {})
        return result


def _query(params: Mapping[str, Any] | None) -> dict[str, str] | None:
    """Drops absent parameters and writes the rest as the API reads them (booleans lower case)."""
    if not params:
        return None
    query: dict[str, str] = {}
    for name, value in params.items():
        if value is None:
            continue
        if isinstance(value, bool):
            query[name] = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            query[name] = ",".join(str(part) for part in value)
        else:
            query[name] = str(value)
    return query or None


def _close(payload: Body) -> None:
    close = getattr(payload, "close", None)
    if callable(close) and not isinstance(payload, (bytes, bytearray)):
        close()
