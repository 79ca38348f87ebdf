"""The calls about the key and its account: usage, audit log, rotation, and asking for a key."""

from __future__ import annotations

from ._core import ClientCore
from .bodies import compact
from .results import ApiObject, Usage


class KeyCalls(ClientCore):
    """``/v1/usage``, ``/v1/audit``, ``/v1/keys/rotate`` and ``/keys``."""

    def usage(self) -> Usage:
        """``GET /v1/usage``: the key, its limits, today's count and the last 30 UTC days."""
        return Usage(*self._call("GET", "/v1/usage"))

    def audit_log(self, *, limit: int | None = None, cursor: str | None = None) -> ApiObject:
        """``GET /v1/audit``: the account's events, newest first (``next_cursor`` for the next page)."""
        return ApiObject(*self._call("GET", "/v1/audit", params={"limit": limit, "cursor": cursor}))

    def rotate_key(self, *, grace_seconds: int | None = None, use_new_key: bool = True) -> ApiObject:
        """``POST /v1/keys/rotate``: a new key for this one (the old works ``grace_seconds`` more).

        With ``use_new_key`` (default) this client switches to the new key. The answer holds the
        new key in ``key``: store it as a secret; it is not shown again.
        """
        data, meta = self._call("POST", "/v1/keys/rotate", body=compact(grace_seconds=grace_seconds))
        if use_new_key:
            self.api_key = data["key"]
        return ApiObject(data, meta)

    def request_key(self, email: str, *, name: str | None = None) -> ApiObject:
        """``POST /keys``: ask for a free spore key, sent to ``email`` (no key needed)."""
        body = compact(email=email, name=name)
        return ApiObject(*self._call("POST", "/keys", body=body, authenticated=False))
