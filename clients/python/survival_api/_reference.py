"""The reference and service calls: species, methods, treatments, climate, coverage, health, OpenAPI."""

from __future__ import annotations

from typing import Any

from ._core import ClientCore
from .results import ApiObject, Coverage, SpeciesList


class ReferenceCalls(ClientCore):
    """The reference lists the predictions draw on, and the service's health and OpenAPI document."""

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
