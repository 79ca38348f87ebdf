"""The model calls: the versions, the account's default, and calibrations on its surveys."""

from __future__ import annotations

from datetime import date
from typing import Callable

from ._common import BBox, _segment
from ._core import ClientCore
from .bodies import compact
from .results import ApiObject, CalibrationRun, ModelList


class ModelCalls(ClientCore):
    """``/v1/models``, ``/v1/models/default`` and ``/v1/models/calibrations``."""

    def models(self) -> ModelList:
        """``GET /v1/models``: the versions this account may pin, its calibrations first."""
        return ModelList(*self._call("GET", "/v1/models"))

    def model(self, version: str) -> ApiObject:
        """``GET /v1/models/{version}``: one version (a calibrated one with its ``fit``)."""
        return ApiObject(*self._call("GET", f"/v1/models/{_segment(version)}"))

    def set_default_model(self, version: str | None) -> ApiObject:
        """``PUT /v1/models/default``: the version unpinned requests use; ``None``: the base version."""
        return ApiObject(*self._call("PUT", "/v1/models/default", body={"model_version": version}))

    def calibrate(
        self,
        *,
        species_code: str | None = None,
        planting_method: str | None = None,
        bbox: BBox | None = None,
        surveyed_from: str | date | None = None,
        surveyed_to: str | date | None = None,
        wait: bool = True,
        poll_interval: float = 1.0,
        timeout: float | None = None,
        on_progress: Callable[[CalibrationRun], None] | None = None,
    ) -> CalibrationRun:
        """``POST /v1/models/calibrations``: fit a calibrated version on the account's surveys.

        The filters choose the plots (none: every plot). A fit that ends within about 2 s comes
        back finished; a longer one is polled until it has (``wait=False``: returned running).
        ``model_version`` of a succeeded run is the version to pin or make the default.
        """
        body = compact(
            species_code=species_code,
            planting_method=planting_method,
            bbox=list(bbox) if bbox is not None and not isinstance(bbox, str) else bbox,
            surveyed_from=surveyed_from,
            surveyed_to=surveyed_to,
        )
        run = CalibrationRun(*self._call("POST", "/v1/models/calibrations", body=body))
        if not wait or run.finished:
            return run
        return self.wait_for_calibration(run.id, poll_interval=poll_interval, timeout=timeout, on_progress=on_progress)

    def calibration(self, calibration_id: str) -> CalibrationRun:
        """``GET /v1/models/calibrations/{id}``: a calibration as it stands (not counted)."""
        return CalibrationRun(*self._call("GET", f"/v1/models/calibrations/{_segment(calibration_id)}"))

    def wait_for_calibration(
        self,
        calibration_id: str,
        *,
        poll_interval: float = 1.0,
        timeout: float | None = None,
        on_progress: Callable[[CalibrationRun], None] | None = None,
    ) -> CalibrationRun:
        """Polls a calibration until it has succeeded or failed, and returns it.

        Raises :class:`TimeoutError` after ``timeout`` seconds.
        """
        return self._poll(
            lambda: self.calibration(calibration_id),
            poll_interval=poll_interval,
            timeout=timeout,
            on_progress=on_progress,
            what=f"calibration {calibration_id}",
        )
