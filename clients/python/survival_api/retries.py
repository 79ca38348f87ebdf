"""When to try a request again, and how long to wait first.

Only ``429 rate_limit_exceeded`` and ``503 service_unavailable`` are retried (and connection
failures of idempotent calls): every other status is the same answer the next time. The wait is
the server's ``Retry-After`` (seconds or an HTTP date) when it gives one, else a capped exponential
backoff. A ``Retry-After`` longer than ``max_retry_after`` is not waited out: a spent daily quota
answers with the seconds until midnight UTC, and a client sleeping for hours helps nobody.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Callable

RETRYABLE_STATUSES = frozenset({429, 503})


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date.

    Returns ``None`` when the header is absent or unreadable; a date in the past gives ``0.0``.
    """
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if seconds == seconds else None  # NaN is unreadable
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # RFC 9110 dates are GMT
        when = when.replace(tzinfo=timezone.utc)
    current = now or datetime.now(timezone.utc)
    return max(0.0, (when - current).total_seconds())


@dataclass(frozen=True)
class RetryPolicy:
    """How many times to retry and how long to wait.

    Attributes:
        max_retries: retries after the first attempt (0: never retry).
        backoff_base: the first backoff in seconds, doubled on each retry.
        backoff_cap: the longest backoff in seconds.
        max_retry_after: the longest ``Retry-After`` honoured; a longer one is raised at once.
    """

    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_cap: float = 30.0
    max_retry_after: float = 120.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("max_retries must be 0 or more")

    def backoff(self, attempt: int) -> float:
        """The wait before retry number ``attempt + 1`` when the server named none."""
        return min(self.backoff_cap, self.backoff_base * (2**attempt))

    def delay_for_status(
        self,
        status: int,
        attempt: int,
        retry_after: str | None,
        now: Callable[[], datetime] | None = None,
    ) -> float | None:
        """Seconds to wait before retrying a response, or ``None`` when it must not be retried."""
        if status not in RETRYABLE_STATUSES or attempt >= self.max_retries:
            return None
        asked = parse_retry_after(retry_after, now() if now else None)
        if asked is None:
            return self.backoff(attempt)
        return asked if asked <= self.max_retry_after else None

    def delay_for_connection_error(self, attempt: int) -> float | None:
        """Seconds to wait before retrying after a connection failure, or ``None`` to give up."""
        return self.backoff(attempt) if attempt < self.max_retries else None
