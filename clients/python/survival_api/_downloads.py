"""Streaming a download to a file: whole or not at all, resumable, never held in memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import requests

from .errors import ApiConnectionError, ApiError
from .transport import Transport


def stream_to_file(
    transport: Transport,
    url_path: str,
    path: str | Path,
    *,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    resume: bool = True,
    chunk_size: int = 1 << 16,
) -> Path:
    """Streams ``GET url_path`` to ``path`` through ``<path>.part``, renamed only when complete.

    With ``resume`` a ``.part`` left by a cut download is continued with a ``Range`` request. A cut
    stream raises :class:`~survival_api.errors.ApiConnectionError` and keeps the ``.part``.
    """
    target = Path(path)
    partial = target.with_name(target.name + ".part")
    offset = partial.stat().st_size if resume and partial.exists() else 0
    send = dict(headers or {})
    if offset:
        send["Range"] = f"bytes={offset}-"
    try:
        response = transport.request("GET", url_path, params=params, headers=send, stream=True)
    except ApiError as error:
        if offset and error.code == "range_not_satisfiable" and _complete_length(error) == offset:
            partial.replace(target)  # the cut download had in fact finished
            return target
        raise
    announced = response.headers.get("Content-Length")
    received = 0
    try:
        with response, partial.open("ab" if response.status_code == 206 else "wb") as out:
            for chunk in response.iter_content(chunk_size):
                out.write(chunk)
                received += len(chunk)
    except requests.RequestException as exc:
        raise _cut_download(url_path, partial, str(exc)) from exc
    # urllib3 1.x does not check Content-Length: a stream that ends early must not pass as whole.
    if announced is not None and announced.isdigit() and received < int(announced):
        raise _cut_download(url_path, partial, f"{received} of {announced} bytes received")
    partial.replace(target)
    return target


def _cut_download(url_path: str, partial: Path, reason: str) -> ApiConnectionError:
    return ApiConnectionError(
        f"the download of {url_path} was cut ({reason}); {partial.name} is kept: call again to resume"
    )


def _complete_length(error: ApiError) -> int | None:
    content_range = error.headers.get("Content-Range", "")  # "bytes */<length>"
    length = content_range.rpartition("/")[2]
    return int(length) if length.isdigit() else None
