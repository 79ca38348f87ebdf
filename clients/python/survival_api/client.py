"""The client: one method per operation of the REST API ``/v1``."""

from __future__ import annotations

import json
import os
import time
from datetime import date
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TextIO
from urllib.parse import quote

import requests

from .bodies import Climate, climate_field, compact, horizons_field, json_bytes, records, to_jsonable
from .errors import ApiConnectionError, ApiError
from .progress import JobProgressPrinter
from .results import (
    ApiObject,
    BatchResult,
    CalibrationRun,
    Comparison,
    Coverage,
    Job,
    JobResults,
    ModelList,
    Prediction,
    PlantingOptions,
    Ranking,
    ResponseMeta,
    SpeciesList,
    StockingPlan,
    SurveyReport,
    Surveys,
    Usage,
)
from .retries import RetryPolicy
from .transport import RequestBody, Transport
from .uploads import FORMATS, upload_body

DEFAULT_BASE_URL = "http://localhost:8080"
API_KEY_ENV = "SURVIVAL_API_KEY"
BASE_URL_ENV = "SURVIVAL_API_URL"

PAPERS = ("a4", "letter")
"""The papers a PDF report is laid out on (``paper=``)."""

JobRef = str | Mapping[str, Any]
"""A job id, or a job object (anything with an ``id``)."""

Treatments = Mapping[str, str | None] | None
"""Establishment treatments: ``{"vegetation_control": ..., "animal_protection": ..., "stock_type": ...,
"shade": ...}``, each optional (docs/treatments.md)."""

BBox = Sequence[float] | str
"""``(west, south, east, north)`` in degrees, or the string ``"w,s,e,n"``."""


class Client:
    """A client of the Survival Prediction API.

    Args:
        api_key: the key sent as ``X-API-Key``; default ``$SURVIVAL_API_KEY``.
        base_url: scheme, host and port; default ``$SURVIVAL_API_URL``, else ``http://localhost:8080``.
        timeout: seconds to wait to connect and for each read (a number or a ``(connect, read)`` pair).
        max_retries: retries of a ``429`` or ``503`` (honouring ``Retry-After``) and of a
            connection failure of an idempotent call; other errors are never retried.
        session: a :class:`requests.Session` to send with (proxies, certificates, adapters); the
            client makes its own otherwise and closes only that one.
        sleep: waits between retries and polls; tests pass a function that records instead.
        retry_policy: the whole retry policy, instead of ``max_retries`` alone.

    Results are :class:`~survival_api.results.ApiObject` mappings with attribute access; the
    tabular ones have ``to_dataframe()`` and, with coordinates, ``to_geodataframe()``.
    """

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

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        key = "set" if self.api_key else "not set"
        return f"Client(base_url={self.base_url!r}, api key {key})"

    # Predictions ------------------------------------------------------------------------------

    def predict(
        self,
        latitude: float,
        longitude: float,
        species_code: str,
        planting_method: str,
        *,
        horizons: int | Iterable[int] | None = None,
        climate: Climate = None,
        treatments: Treatments = None,
        model_version: str | None = None,
    ) -> Prediction:
        """``POST /v1/predict``: survival at 1, 3 and 5 years for one site, species and method.

        Args:
            horizons: any of 1, 3, 5 (default all three).
            climate: a future, ``("2041-2070", "ssp245")`` or ``{"period": ..., "scenario": ...}``.
            treatments: establishment treatments, e.g. ``{"vegetation_control": "release_2yr",
                "animal_protection": "mesh_tubes"}`` (docs/treatments.md); absent: untreated.
            model_version: pin a version of :meth:`models` (default the account's default).
        """
        body = compact(
            latitude=latitude,
            longitude=longitude,
            species_code=species_code,
            planting_method=planting_method,
            horizons=horizons_field(horizons),
            climate=climate_field(climate),
            treatments=_mapping(treatments),
            model_version=model_version,
        )
        data, meta = self._call("POST", "/v1/predict", body=body, idempotent=True)
        return Prediction(data, meta)

    def compare(
        self,
        latitude: float,
        longitude: float,
        species_code: str,
        *,
        horizons: int | Iterable[int] | None = None,
        climate: Climate = None,
        treatments: Treatments = None,
        model_version: str | None = None,
    ) -> Comparison:
        """``POST /v1/predict/compare``: both planting methods and ``method_differential``
        (``difference`` = manual − drone_seeded, positive when hand planting survives better)."""
        body = _compare_body(latitude, longitude, species_code, horizons, climate, treatments, model_version)
        data, meta = self._call("POST", "/v1/predict/compare", body=body, idempotent=True)
        return Comparison(data, meta)

    def compare_pdf(
        self,
        latitude: float,
        longitude: float,
        species_code: str,
        *,
        horizons: int | Iterable[int] | None = None,
        climate: Climate = None,
        treatments: Treatments = None,
        model_version: str | None = None,
        language: str = "en",
        paper: str | None = None,
        path: str | os.PathLike[str] | None = None,
    ) -> bytes:
        """The PDF report of :meth:`compare`'s answer (``Accept: application/pdf``): its bytes.

        Args:
            language: sent as ``Accept-Language``, e.g. ``"es-MX"`` or ``"en-GB"``: the report is in
                Spanish for ``es``, else English, and (unless ``paper`` says) on its region's paper.
            paper: ``"a4"`` or ``"letter"``, whatever the language.
            path: also write the PDF to this file.

        Counts one request, as the JSON answer does; errors are raised as for :meth:`compare`.
        """
        body = _compare_body(latitude, longitude, species_code, horizons, climate, treatments, model_version)
        return self._report("/v1/predict/compare", body, language=language, paper=paper, path=path)

    def rank(
        self,
        latitude: float,
        longitude: float,
        planting_method: str,
        horizon: int,
        *,
        climate: Climate = None,
        treatments: Treatments = None,
        model_version: str | None = None,
    ) -> Ranking:
        """``POST /v1/predict/rank``: all 20 species at one site for one method and horizon, best first."""
        body = _rank_body(latitude, longitude, planting_method, horizon, climate, treatments, model_version)
        data, meta = self._call("POST", "/v1/predict/rank", body=body, idempotent=True)
        return Ranking(data, meta)

    def rank_pdf(
        self,
        latitude: float,
        longitude: float,
        planting_method: str,
        horizon: int,
        *,
        climate: Climate = None,
        treatments: Treatments = None,
        model_version: str | None = None,
        language: str = "en",
        paper: str | None = None,
        path: str | os.PathLike[str] | None = None,
    ) -> bytes:
        """The PDF report of :meth:`rank`'s answer: its bytes (``language``, ``paper`` and ``path``
        as for :meth:`compare_pdf`)."""
        body = _rank_body(latitude, longitude, planting_method, horizon, climate, treatments, model_version)
        return self._report("/v1/predict/rank", body, language=language, paper=paper, path=path)

    def predict_batch(self, sites: Any, *, model_version: str | None = None) -> BatchResult:
        """``POST /v1/predict/batch``: several sites in one call (counted as one request).

        Args:
            sites: predict bodies (``latitude``, ``longitude``, ``species_code``,
                ``planting_method``, optional ``horizons`` and ``climate``), as a list of mappings
                or a pandas DataFrame with those columns. At most the tier's batch size (spore 10,
                mycel 100, hypha 500); for more, submit a job.
            model_version: the version for every site.

        A site that fails a domain rule (``outside_coverage``...) fails alone; its row in
        ``to_dataframe()`` carries ``error_code``.
        """
        site_bodies = records(sites)
        body = compact(sites=site_bodies, model_version=model_version)
        data, meta = self._call("POST", "/v1/predict/batch", body=body, idempotent=True)
        return BatchResult(data, meta, sites=site_bodies)

    def stocking_plan(
        self,
        planting_method: str,
        species_mix: str | Mapping[str, float] | Iterable[Mapping[str, Any]],
        *,
        latitude: float | None = None,
        longitude: float | None = None,
        stand: Mapping[str, Any] | None = None,
        trees_per_acre: float | None = None,
        trees_per_hectare: float | None = None,
        confidence: float | None = None,
        rule_set: str | None = None,
        site_class: str | None = None,
        target_trees_per_acre: float | None = None,
        climate: Climate = None,
        treatments: Treatments = None,
        costs: Mapping[str, Any] | None = None,
        model_version: str | None = None,
    ) -> StockingPlan:
        """``POST /v1/plans/stocking``: the chance of meeting the reforestation standard, and the
        density that reaches ``confidence``.

        Args:
            species_mix: ``"PSME"`` (one species), ``{"PSME": 0.8, "THPL": 0.2}`` or the API's
                ``[{"species_code": ..., "share": ...}]``.
            latitude, longitude: a point, or instead ``stand``: a GeoJSON Polygon, MultiPolygon or
                a Feature holding one.
            trees_per_acre, trees_per_hectare: the planted density, exactly one of them.
            treatments: as for :meth:`predict`; a treated plan answers its ``cost``.
            costs: figures replacing the cost defaults, e.g. ``{"planting_per_tree": 0.6,
                "seedlings": [{"species_code": "PSME", "per_tree": 0.45}]}`` (docs/costs.md);
                ``{}`` asks for the defaults. Given or treated, the plan answers ``cost``.
        """
        body = _stocking_plan_body(
            planting_method,
            species_mix,
            latitude=latitude,
            longitude=longitude,
            stand=stand,
            trees_per_acre=trees_per_acre,
            trees_per_hectare=trees_per_hectare,
            confidence=confidence,
            rule_set=rule_set,
            site_class=site_class,
            target_trees_per_acre=target_trees_per_acre,
            climate=climate,
            treatments=treatments,
            costs=costs,
            model_version=model_version,
        )
        data, meta = self._call("POST", "/v1/plans/stocking", body=body, idempotent=True)
        return StockingPlan(data, meta)

    def stocking_plan_pdf(
        self,
        planting_method: str,
        species_mix: str | Mapping[str, float] | Iterable[Mapping[str, Any]],
        *,
        latitude: float | None = None,
        longitude: float | None = None,
        stand: Mapping[str, Any] | None = None,
        trees_per_acre: float | None = None,
        trees_per_hectare: float | None = None,
        confidence: float | None = None,
        rule_set: str | None = None,
        site_class: str | None = None,
        target_trees_per_acre: float | None = None,
        climate: Climate = None,
        treatments: Treatments = None,
        costs: Mapping[str, Any] | None = None,
        model_version: str | None = None,
        language: str = "en",
        paper: str | None = None,
        path: str | os.PathLike[str] | None = None,
    ) -> bytes:
        """The PDF report of :meth:`stocking_plan`'s answer: its bytes (``language``, ``paper`` and
        ``path`` as for :meth:`compare_pdf`). A stand sent as a GeoJSON Feature with a ``name``
        property is titled with that name."""
        body = _stocking_plan_body(
            planting_method,
            species_mix,
            latitude=latitude,
            longitude=longitude,
            stand=stand,
            trees_per_acre=trees_per_acre,
            trees_per_hectare=trees_per_hectare,
            confidence=confidence,
            rule_set=rule_set,
            site_class=site_class,
            target_trees_per_acre=target_trees_per_acre,
            climate=climate,
            treatments=treatments,
            costs=costs,
            model_version=model_version,
        )
        return self._report("/v1/plans/stocking", body, language=language, paper=paper, path=path)

    def planting_options(
        self,
        species_mix: str | Mapping[str, float] | Iterable[Mapping[str, Any]] | None = None,
        *,
        species_mixes: Iterable[str | Mapping[str, float] | Iterable[Mapping[str, Any]]] | None = None,
        latitude: float | None = None,
        longitude: float | None = None,
        stand: Mapping[str, Any] | None = None,
        confidence: float | None = None,
        methods: str | Iterable[str] | None = None,
        treatments: Mapping[str, str | Iterable[str]] | None = None,
        costs: Mapping[str, Any] | None = None,
        max_trees_per_acre: int | None = None,
        climate: Climate = None,
        model_version: str | None = None,
    ) -> PlantingOptions:
        """``POST /v1/plans/options``: the cheapest ways to meet the reforestation standard.

        Every mix × method × combination of the treatment values weighed, each at its smallest
        density meeting the standard at ``confidence``, ranked by cost per acre; and
        ``cheapest_failing``, the cheapest that falls short (with its ``shortfall``), or ``None``.
        One request, whatever the number of candidates.

        Args:
            species_mix: one mix, as for :meth:`stocking_plan`; or instead ``species_mixes``: up to
                10 candidate mixes (an option names its mix by ``mix_index``).
            latitude, longitude: a point, or instead ``stand`` (as for :meth:`stocking_plan`).
            methods: ``"manual"``, ``"drone_seeded"`` or both (default both).
            treatments: the values weighed, each a list (or one value), e.g.
                ``{"vegetation_control": ["none", "release_2yr"], "animal_protection": ["none"]}``;
                default every value of vegetation control, animal protection and shade.
            costs: figures replacing the cost defaults, as for :meth:`stocking_plan`.
            max_trees_per_acre: the densest planting an option may ask for (default 5000).
        """
        if (species_mix is None) == (species_mixes is None):
            raise ValueError("give exactly one of species_mix and species_mixes")
        body = compact(
            latitude=latitude,
            longitude=longitude,
            stand=stand,
            species_mix=None if species_mix is None else _species_mix(species_mix),
            species_mixes=None if species_mixes is None else [_species_mix(m) for m in species_mixes],
            confidence=confidence,
            methods=None if methods is None else _values(methods),
            treatments=None
            if treatments is None
            else {str(name): _values(values) for name, values in treatments.items()},
            costs=_mapping(costs),
            max_trees_per_acre=max_trees_per_acre,
            climate=climate_field(climate),
            model_version=model_version,
        )
        data, meta = self._call("POST", "/v1/plans/options", body=body, idempotent=True)
        return PlantingOptions(data, meta)

    # Reference and service ----------------------------------------------------------------------

    def species(
        self, *, group: str | None = None, search: str | None = None, zone: str | None = None
    ) -> SpeciesList:
        """``GET /v1/species``, optionally filtered by ``group`` (conifer/hardwood), ``search``, ``zone``."""
        data, meta = self._call("GET", "/v1/species", params={"group": group, "search": search, "zone": zone})
        return SpeciesList(data, meta)

    def methods(self) -> ApiObject:
        """``GET /v1/methods``: the planting methods."""
        return ApiObject(*self._call("GET", "/v1/methods"))

    def treatments(self) -> ApiObject:
        """``GET /v1/treatments``: the treatments' values, and each effect with its figure, statuses and sources.

        Answers made with treatments name each effect by ``effect_id``; its sources are listed here.
        """
        return ApiObject(*self._call("GET", "/v1/treatments"))

    def climate(self) -> ApiObject:
        """``GET /v1/climate``: the periods, scenarios and climate deltas a prediction may use."""
        return ApiObject(*self._call("GET", "/v1/climate"))

    def coverage(self) -> Coverage:
        """``GET /v1/coverage``: the covered area as GeoJSON (``to_geodataframe()`` for polygons)."""
        return Coverage(*self._call("GET", "/v1/coverage"))

    def health(self) -> ApiObject:
        """``GET /v1/health``: status, version, model, database (no key needed)."""
        return ApiObject(*self._call("GET", "/v1/health", authenticated=False))

    def live(self) -> ApiObject:
        """``GET /v1/health/live``: the liveness probe (no key needed)."""
        return ApiObject(*self._call("GET", "/v1/health/live", authenticated=False))

    def openapi(self) -> dict[str, Any]:
        """``GET /v1/openapi.json``: the OpenAPI document, as a plain dict."""
        data, _ = self._call("GET", "/v1/openapi.json", authenticated=False)
        return data

    # Keys ---------------------------------------------------------------------------------------

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

    # Surveys ------------------------------------------------------------------------------------

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

    # Models -------------------------------------------------------------------------------------

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

    # Jobs ---------------------------------------------------------------------------------------

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
        target = Path(path)
        partial = target.with_name(target.name + ".part")
        offset = partial.stat().st_size if resume and partial.exists() else 0
        headers = _accept(format)
        if offset:
            headers["Range"] = f"bytes={offset}-"
        url_path = f"/v1/jobs/{_segment(_job_id(job))}/results"
        try:
            response = self._transport.request("GET", url_path, headers=headers, stream=True)
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

    def cancel_job(self, job: JobRef) -> Job | None:
        """``DELETE /v1/jobs/{id}``: cancels a running job (returned, ``cancelled``), or deletes a
        finished one and its results (``None``)."""
        data, meta = self._call("DELETE", f"/v1/jobs/{_segment(_job_id(job))}")
        return Job(data, meta) if data is not None else None

    # Plumbing -----------------------------------------------------------------------------------

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


def _compare_body(
    latitude: float,
    longitude: float,
    species_code: str,
    horizons: int | Iterable[int] | None,
    climate: Climate,
    treatments: Treatments,
    model_version: str | None,
) -> dict[str, Any]:
    """The body of ``POST /v1/predict/compare``, for its JSON answer and its PDF report alike."""
    return compact(
        latitude=latitude,
        longitude=longitude,
        species_code=species_code,
        horizons=horizons_field(horizons),
        climate=climate_field(climate),
        treatments=_mapping(treatments),
        model_version=model_version,
    )


def _rank_body(
    latitude: float,
    longitude: float,
    planting_method: str,
    horizon: int,
    climate: Climate,
    treatments: Treatments,
    model_version: str | None,
) -> dict[str, Any]:
    """The body of ``POST /v1/predict/rank``, for its JSON answer and its PDF report alike."""
    return compact(
        latitude=latitude,
        longitude=longitude,
        planting_method=planting_method,
        horizon=horizon,
        climate=climate_field(climate),
        treatments=_mapping(treatments),
        model_version=model_version,
    )


def _stocking_plan_body(
    planting_method: str,
    species_mix: str | Mapping[str, float] | Iterable[Mapping[str, Any]],
    *,
    latitude: float | None,
    longitude: float | None,
    stand: Mapping[str, Any] | None,
    trees_per_acre: float | None,
    trees_per_hectare: float | None,
    confidence: float | None,
    rule_set: str | None,
    site_class: str | None,
    target_trees_per_acre: float | None,
    climate: Climate,
    treatments: Treatments,
    costs: Mapping[str, Any] | None,
    model_version: str | None,
) -> dict[str, Any]:
    """The body of ``POST /v1/plans/stocking``, for its JSON answer and its PDF report alike."""
    return compact(
        latitude=latitude,
        longitude=longitude,
        stand=stand,
        planting_method=planting_method,
        species_mix=_species_mix(species_mix),
        trees_per_acre=trees_per_acre,
        trees_per_hectare=trees_per_hectare,
        confidence=confidence,
        rule_set=rule_set,
        site_class=site_class,
        target_trees_per_acre=target_trees_per_acre,
        climate=climate_field(climate),
        treatments=_mapping(treatments),
        costs=_mapping(costs),
        model_version=model_version,
    )


def _mapping(value: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A mapping of a body (treatments, costs) as a plain dict; ``None`` leaves the field out."""
    return None if value is None else {str(k): v for k, v in value.items()}


def _values(values: str | Iterable[str]) -> list[str]:
    """One value or several, as the list a body takes."""
    return [values] if isinstance(values, str) else list(values)


def _species_mix(mix: str | Mapping[str, float] | Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(mix, str):
        return [{"species_code": mix, "share": 1}]
    if isinstance(mix, Mapping):
        return [{"species_code": code, "share": share} for code, share in mix.items()]
    return [dict(item) for item in mix]


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


def _query_value(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return "|".join(str(v) for v in value)  # horizons=1|5
    return value


def _job_id(job: JobRef) -> str:
    if isinstance(job, str):
        return job
    return str(job["id"])


def _segment(value: str) -> str:
    """One path segment, percent-encoded (``/`` and ``+`` included)."""
    return quote(str(value), safe="")


def _accept(format: str | None) -> dict[str, str]:
    if format is None:
        return {"Accept": "*/*"}  # the server answers in the upload's own format
    try:
        return {"Accept": FORMATS[format.lower()]}
    except KeyError:
        raise ValueError(f"format is one of {', '.join(FORMATS)}, not {format!r}") from None


def _media_type(response: requests.Response) -> str:
    return response.headers.get("Content-Type", "").split(";")[0].strip().lower()


def _cut_download(url_path: str, partial: Path, reason: str) -> ApiConnectionError:
    return ApiConnectionError(
        f"the download of {url_path} was cut ({reason}); {partial.name} is kept: call again to resume"
    )


def _complete_length(error: ApiError) -> int | None:
    content_range = error.headers.get("Content-Range", "")  # "bytes */<length>"
    length = content_range.rpartition("/")[2]
    return int(length) if length.isdigit() else None
