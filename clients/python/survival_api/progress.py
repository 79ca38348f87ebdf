"""A plain progress printout for :meth:`Client.wait_for_job` (``progress=True``)."""

from __future__ import annotations

import sys
from typing import Any, Mapping, TextIO


class JobProgressPrinter:
    """Prints a line whenever a job's status or row count changes, e.g.

    ``job_3f9c…: running 1,200/5,000 rows (24%), 3 failed, about 12 s left``

    Pass an instance as ``on_progress=`` or use ``progress=True``; the stream defaults to stderr,
    so a notebook cell or a script's stdout stays clean.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self._last: tuple[Any, ...] | None = None

    def __call__(self, job: Mapping[str, Any]) -> None:
        state = (job.get("status"), job.get("rows_done"), job.get("rows_failed"))
        if state == self._last:
            return
        self._last = state
        stream = self._stream or sys.stderr
        print(describe_job(job), file=stream, flush=True)


def describe_job(job: Mapping[str, Any]) -> str:
    """One line on where a job stands."""
    done, total = job.get("rows_done") or 0, job.get("rows_total")
    text = f"{job.get('id')}: {job.get('status')}"
    if total:
        text += f" {done:,}/{total:,} rows ({100 * done // total}%)"
    failed = job.get("rows_failed") or 0
    if failed:
        text += f", {failed:,} failed"
    eta = job.get("eta_seconds")
    if eta is not None and job.get("status") == "running":
        text += f", about {eta} s left"
    return text
