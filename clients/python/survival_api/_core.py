"""The client's core: its settings, its HTTP session and the plumbing every call goes through."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Self

import requests

from .bodies import json_bytes
from .errors import ApiError
from .results import ResponseMeta
from .retries import RetryPolicy
from .transport import RequestBody, Transport

DEFAULT_BASE_URL = "http://localhost:8080"
API_KEY_ENV = "SURVIVAL_API_KEY"
BASE_URL_ENV = "SURVIVAL_API_URL"

PAPERS = ("a4", "letter")
"""The papers a PDF report is laid out on (``paper=``)."""


class ClientCore:
    """The settings, session and plumbing (``_call``, ``_report``, ``_poll``) under every group of calls;
    :class:`~survival_api.Client` documents the arguments."""

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | tuple[float, float] = 30,
        max_retries: int = 3,
        session: requests.Session | None = None,
        *,
        sleep: Callable[[float], None] | None = None,
        retry_policy: RetryPolicy | None = None,
    ) -> None:
        self._owns_session = session is None
        self._sleep = sleep or time.sleep
        self._transport = Transport(
            base_url=(base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip("/"),
            api_key=api_key if api_key is not None else os.environ.get(API_KEY_ENV),
            timeout=timeout,
            retry=retry_policy or RetryPolicy(max_retries=max_retries),
            session=session or requests.Session(),
            sleep=self._sleep,
        )

    @property
    def base_url(self) -> str:
        return self._transport.base_url

    @property
    def api_key(self) -> str | None:
        """The key in use (never printed by the client)."""
        return self._transport.api_key

    @api_key.setter
    def api_key(self, value: str | None) -> None:
        self._transport.api_key = value

    @property
    def retry_policy(self) -> RetryPolicy:
        return self._transport.retry

    def close(self) -> None:
        """Closes the HTTP session if the client made it."""
        if self._owns_session:
            self._transport.session.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        key = "set" if self.api_key else "not set"
        return f"Client(base_url={self.base_url!r}, api key {key})"

    def _call(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        request_body: RequestBody | None = None,
        params: Mapping[str, Any] | None = None,
        idempotent: bool | None = None,
        authenticated: bool = True,
    ) -> tuple[Any, ResponseMeta]:
        """Sends a call and decodes its JSON answer (``None`` for an empty one, as a 204)."""
        if body is not None:
            request_body = RequestBody.of_bytes(json_bytes(body), "application/json")
        response = self._transport.request(
            method,
            path,
            params=params,
            body=request_body,
            idempotent=idempotent,
            authenticated=authenticated,
        )
        data = json.loads(response.content) if response.content else None
        return data, ResponseMeta.of(response)

    def _report(
        self,
        url_path: str,
        body: Any,
        *,
        language: str,
        paper: str | None,
        path: str | os.PathLike[str] | None,
    ) -> bytes:
        """The operation's answer as a PDF report: ``Accept: application/pdf``, the language as
        ``Accept-Language`` and the paper as ``?paper=``. Errors stay the API's JSON errors."""
        if paper is not None and paper not in PAPERS:
            raise ValueError(f"paper is one of {', '.join(PAPERS)}, not {paper!r}")
        if not isinstance(language, str) or not language.strip() or len(language) > 200:
            raise ValueError(f"language is an Accept-Language value such as 'es-MX', not {language!r}")
        response = self._transport.request(
            "POST",
            url_path,
            params={"paper": paper},
            body=RequestBody.of_bytes(json_bytes(body), "application/json"),
            headers={"Accept": "application/pdf", "Accept-Language": language},
            idempotent=True,
        )
        if _media_type(response) != "application/pdf":
            raise ApiError(
                f"asked for a PDF report, the server answered {_media_type(response) or 'no content type'}",
                status=response.status_code,
                code="not_a_report",
                request_id=response.headers.get("Request-Id"),
                headers=response.headers,
            )
        content = response.content
        if path is not None:
            Path(path).write_bytes(content)
        return content

    def _poll(
        self,
        fetch: Callable[[], Any],
        *,
        poll_interval: float,
        timeout: float | None,
        on_progress: Callable[[Any], None] | None,
        what: str,
    ) -> Any:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            current = fetch()
            if on_progress:
                on_progress(current)
            if current.finished:
                return current
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"{what} still {current.get('status')} after {timeout} s")
            self._sleep(poll_interval)


def _media_type(response: requests.Response) -> str:
    return response.headers.get("Content-Type", "").split(";")[0].strip().lower()
