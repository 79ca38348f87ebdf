"""The planning calls: a stocking plan (and its PDF report) and the cheapest planting options."""

from __future__ import annotations

import os
from typing import Any, Iterable, Mapping

from ._common import Treatments, _mapping
from ._core import ClientCore
from .bodies import Climate, climate_field, compact
from .results import PlantingOptions, StockingPlan


class PlanCalls(ClientCore):
    """``/v1/plans/stocking`` and ``/v1/plans/options``."""

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


def _values(values: str | Iterable[str]) -> list[str]:
    """One value or several, as the list a body takes."""
    return [values] if isinstance(values, str) else list(values)


def _species_mix(mix: str | Mapping[str, float] | Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(mix, str):
        return [{"species_code": mix, "share": 1}]
    if isinstance(mix, Mapping):
        return [{"species_code": code, "share": share} for code, share in mix.items()]
    return [dict(item) for item in mix]
