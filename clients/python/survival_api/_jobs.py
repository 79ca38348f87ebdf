"""The job calls: submit a file of sites, follow the job, fetch or download its results, cancel it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, TextIO

from ._common import _segment
from ._core import ClientCore, _media_type
from ._downloads import stream_to_file
from .progress import JobProgressPrinter
from .results import Job, JobResults, ResponseMeta
from .uploads import FORMATS, upload_body

JobRef = str | Mapping[str, Any]
"""A job id, or a job object (anything with an ``id``)."""


class JobCalls(ClientCore):
    """``/v1/jobs`` and ``/v1/jobs/{id}``, its results and its progress."""

    def submit_job(
        self,
        source: Any,
        *,
        format: str | None = None,
        model_version: str | None = None,
        compress: bool = False,
        defaults: Mapping[str, Any] | None = None,
    ) -> Job:
        """``POST /v1/jobs``: score up to 1,000,000 sites as a job (mycel and hypha keys).

        Args:
            source: a path (``.csv``, ``.ndjson``/``.jsonl``, ``.geojson``, optionally ``.gz``),
                streamed from disk; a DataFrame (sent as CSV, other columns echoed in the results);
                an iterable of rows (predict bodies plus an optional ``id``), sent as NDJSON; or a
                binary file object with ``format``.
            format: ``csv``, ``ndjson`` or ``geojson``, when the source does not say.
            model_version: the version every row is scored with.
            compress: gzip rows or a DataFrame on the way (a ``.gz`` file is sent as it is).
            defaults: query defaults. Any job's treatments for the rows that name none, a row's
                own value winning (``{"vegetation_control": "release_2yr"}``); a GeoJSON job's also
                for features that lack a property (``species_code``, ``planting_method``,
                ``horizons``, ``trees_per_acre``...).

        Returns the accepted job (``id``, ``status``, ``rows``); follow it with :meth:`wait_for_job`.
        """
        params: dict[str, Any] = {name: _query_value(value) for name, value in (defaults or {}).items()}
        if model_version is not None:
            params["model_version"] = model_version
        body = upload_body(source, format, compress)
        return Job(*self._call("POST", "/v1/jobs", request_body=body, params=params))

    def job(self, job: JobRef) -> Job:
        """``GET /v1/jobs/{id}``: status, ``rows_done``, ``rows_failed``, ``eta_seconds`` (not counted)."""
        return Job(*self._call("GET", f"/v1/jobs/{_segment(_job_id(job))}"))

    def wait_for_job(
        self,
        job: JobRef,
        *,
        poll_interval: float = 1.0,
        timeout: float | None = None,
        on_progress: Callable[[Job], None] | None = None,
        progress: bool | TextIO = False,
    ) -> Job:
        """Polls a job until it has succeeded, failed or been cancelled, and returns it.

        Args:
            on_progress: called with the job after every poll.
            progress: ``True`` prints a line to stderr whenever the job moves (a text stream:
                prints there instead).
            timeout: seconds before :class:`TimeoutError` (default: wait as long as it takes).
        """
        callbacks: list[Callable[[Job], None]] = [on_progress] if on_progress else []
        if progress:
            callbacks.append(JobProgressPrinter(None if progress is True else progress))
        job_id = _job_id(job)

        def report(current: Job) -> None:
            for callback in callbacks:
                callback(current)

        return self._poll(
            lambda: self.job(job_id),
            poll_interval=poll_interval,
            timeout=timeout,
            on_progress=report,
            what=f"job {job_id}",
        )

    def job_results(self, job: JobRef, *, format: str | None = None) -> JobResults:
        """``GET /v1/jobs/{id}/results`` into memory; ``to_dataframe()`` reads them.

        ``format`` (``csv``, ``ndjson``, ``geojson``) asks for that layout; default the upload's.
        For large results prefer :meth:`download_job_results`.
        """
        response = self._transport.request(
            "GET", f"/v1/jobs/{_segment(_job_id(job))}/results", headers=_accept(format)
        )
        return JobResults(response.content, _media_type(response), ResponseMeta.of(response))

    def download_job_results(
        self,
        job: JobRef,
        path: str | Path,
        *,
        format: str | None = None,
        resume: bool = True,
        chunk_size: int = 1 << 16,
    ) -> Path:
        """Streams a succeeded job's results to ``path``, never holding them in memory.

        The bytes go to ``<path>.part`` first and are renamed when complete, so ``path`` only
        ever holds whole results. With ``resume`` (default) a ``.part`` left by a cut download is
        continued with a ``Range`` request. Returns ``path``.
        """
        return stream_to_file(
            self._transport,
            f"/v1/jobs/{_segment(_job_id(job))}/results",
            path,
            headers=_accept(format),
            resume=resume,
            chunk_size=chunk_size,
        )

    def cancel_job(self, job: JobRef) -> Job | None:
        """``DELETE /v1/jobs/{id}``: cancels a running job (returned, ``cancelled``), or deletes a
        finished one and its results (``None``)."""
        data, meta = self._call("DELETE", f"/v1/jobs/{_segment(_job_id(job))}")
        return Job(data, meta) if data is not None else None


def _query_value(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return "|".join(str(v) for v in value)  # horizons=1|5
    return value


def _job_id(job: JobRef) -> str:
    if isinstance(job, str):
        return job
    return str(job["id"])


def _accept(format: str | None) -> dict[str, str]:
    if format is None:
        return {"Accept": "*/*"}  # the server answers in the upload's own format
    try:
        return {"Accept": FORMATS[format.lower()]}
    except KeyError:
        raise ValueError(f"format is one of {', '.join(FORMATS)}, not {format!r}") from None
