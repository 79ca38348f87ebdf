"""The survey calls: store, list, delete and upload survey plots, and report on them."""

from __future__ import annotations

from datetime import date
from typing import Any, Iterator

from ._common import BBox, _segment
from ._core import ClientCore
from .bodies import records, to_jsonable
from .results import ApiObject, SurveyReport, Surveys
from .uploads import upload_body


class SurveyCalls(ClientCore):
    """``/v1/surveys``, ``/v1/surveys/report`` and ``/v1/surveys/uploads``."""

    def store_surveys(self, plots: Any) -> Surveys:
        """``POST /v1/surveys``: 1 to 1,000 survey plots, all stored or none.

        ``plots`` is a list of mappings or a DataFrame with the fields of a plot (``plot_id``,
        ``latitude``, ``longitude``, ``species_code``, ``planting_method``, ``planted_on``,
        ``surveyed_on``, ``planted``, ``alive``, optional ``plot_area_m2``, ``protocol``). Dates
        may be :class:`datetime.date`; missing optional values (``None``, ``NaN``) are left out.
        """
        data, meta = self._call("POST", "/v1/surveys", body={"plots": records(plots)})
        return Surveys(data, meta)

    def list_surveys(
        self,
        *,
        species_code: str | None = None,
        planting_method: str | None = None,
        bbox: BBox | None = None,
        surveyed_from: str | date | None = None,
        surveyed_to: str | date | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Surveys:
        """``GET /v1/surveys``: a page of the account's surveys (``next_cursor`` for the next)."""
        params = _survey_filters(species_code, planting_method, bbox, surveyed_from, surveyed_to)
        params.update(limit=limit, cursor=cursor)
        return Surveys(*self._call("GET", "/v1/surveys", params=params))

    def iter_survey_pages(self, **filters: Any) -> Iterator[Surveys]:
        """Every page of :meth:`list_surveys` with the same filters, following ``next_cursor``."""
        cursor = filters.pop("cursor", None)
        while True:
            page = self.list_surveys(cursor=cursor, **filters)
            yield page
            cursor = page.raw.get("next_cursor")
            if not cursor:
                return

    def survey_plot(self, plot_id: str) -> Surveys:
        """``GET /v1/surveys/{plot_id}``: every survey of one plot, oldest first."""
        return Surveys(*self._call("GET", f"/v1/surveys/{_segment(plot_id)}"))

    def delete_survey_plot(self, plot_id: str) -> ApiObject:
        """``DELETE /v1/surveys/{plot_id}``: every survey of one plot (``deleted`` says how many)."""
        return ApiObject(*self._call("DELETE", f"/v1/surveys/{_segment(plot_id)}"))

    def delete_all_surveys(self, *, confirm: bool = False) -> ApiObject:
        """``DELETE /v1/surveys?confirm=all``: every survey of the account. Needs ``confirm=True``."""
        if confirm is not True:
            raise ValueError("delete_all_surveys deletes every survey of the account: pass confirm=True")
        return ApiObject(*self._call("DELETE", "/v1/surveys", params={"confirm": "all"}))

    def survey_report(
        self,
        *,
        species_code: str | None = None,
        planting_method: str | None = None,
        bbox: BBox | None = None,
        surveyed_from: str | date | None = None,
        surveyed_to: str | date | None = None,
        model_version: str | None = None,
    ) -> SurveyReport:
        """``GET /v1/surveys/report``: observed survival beside the prediction, and calibration scores."""
        params = _survey_filters(species_code, planting_method, bbox, surveyed_from, surveyed_to)
        params["model_version"] = model_version
        return SurveyReport(*self._call("GET", "/v1/surveys/report", params=params))

    def upload_surveys(
        self,
        source: Any,
        *,
        format: str | None = None,
        skip_invalid: bool = False,
        compress: bool = False,
    ) -> ApiObject:
        """``POST /v1/surveys/uploads``: up to 1,000,000 surveys from a file, streamed.

        ``source`` is a path (``.csv``, ``.ndjson``, ``.geojson``, optionally ``.gz``), a
        DataFrame, rows, or a binary file with ``format``. Without ``skip_invalid`` one refused
        row stores nothing: :class:`~survival_api.errors.ValidationError` with code
        ``survey_upload_refused`` and the rows in ``details["refused"]``.
        """
        body = upload_body(source, format, compress)
        params = {"skip_invalid": True} if skip_invalid else None
        return ApiObject(*self._call("POST", "/v1/surveys/uploads", request_body=body, params=params))

    def survey_upload(self, upload_id: str, *, limit: int | None = None, cursor: str | None = None) -> ApiObject:
        """``GET /v1/surveys/uploads/{upload_id}``: an upload and a page of its refused rows."""
        path = f"/v1/surveys/uploads/{_segment(upload_id)}"
        return ApiObject(*self._call("GET", path, params={"limit": limit, "cursor": cursor}))


def _survey_filters(
    species_code: str | None,
    planting_method: str | None,
    bbox: BBox | None,
    surveyed_from: str | date | None,
    surveyed_to: str | date | None,
) -> dict[str, Any]:
    return {
        "species_code": species_code,
        "planting_method": planting_method,
        "bbox": bbox if bbox is None or isinstance(bbox, str) else ",".join(str(v) for v in bbox),
        "surveyed_from": to_jsonable(surveyed_from),
        "surveyed_to": to_jsonable(surveyed_to),
    }
