"""The prediction calls: one site, both methods compared, every species ranked, a batch; and PDF reports."""

from __future__ import annotations

import os
from typing import Any, Iterable

from ._common import Treatments, _mapping
from ._core import ClientCore
from .bodies import Climate, climate_field, compact, horizons_field, records
from .results import BatchResult, Comparison, Prediction, Ranking


class PredictionCalls(ClientCore):
    """``/v1/predict``, ``/v1/predict/compare``, ``/v1/predict/rank`` and ``/v1/predict/batch``."""

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
