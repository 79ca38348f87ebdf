"""Flat rows from API answers, and pandas / geopandas frames of them.

pandas and geopandas are optional (``pip install "survival-api[dataframes]"`` or ``[geo]``): they
are imported only when a frame is asked for, so the client works without them.
"""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

if TYPE_CHECKING:  # pragma: no cover - imports for type checkers only
    import geopandas
    import pandas

HORIZONS = (1, 3, 5)
WGS84 = "EPSG:4326"


def require_pandas() -> Any:
    """The pandas module, or an ImportError naming the extra that installs it."""
    try:
        import pandas
    except ImportError as exc:
        raise ImportError(
            'to_dataframe() needs pandas: pip install "survival-api[dataframes]"'
        ) from exc
    return pandas


def require_geopandas() -> Any:
    """The geopandas module, or an ImportError naming the extra that installs it."""
    try:
        import geopandas
    except ImportError as exc:
        raise ImportError('to_geodataframe() needs geopandas: pip install "survival-api[geo]"') from exc
    return geopandas


def frame(rows: Iterable[Mapping[str, Any]], columns: Sequence[str] | None = None) -> "pandas.DataFrame":
    """A DataFrame of rows; ``columns`` fixes the order (and the columns of an empty frame)."""
    pandas = require_pandas()
    rows = list(rows)
    if columns is None:
        return pandas.DataFrame.from_records(rows)
    return pandas.DataFrame.from_records(rows, columns=list(columns))


def points_frame(
    table: "pandas.DataFrame", latitude: str = "latitude", longitude: str = "longitude"
) -> "geopandas.GeoDataFrame":
    """A GeoDataFrame of ``table`` with a point per row (EPSG:4326) from its coordinate columns."""
    geopandas = require_geopandas()
    missing = [name for name in (latitude, longitude) if name not in table.columns]
    if missing:
        raise ValueError(f"no coordinates to place the rows: missing column(s) {', '.join(missing)}")
    geometry = geopandas.points_from_xy(table[longitude], table[latitude])
    return geopandas.GeoDataFrame(table, geometry=geometry, crs=WGS84)


def features_frame(features: Sequence[Mapping[str, Any]]) -> "geopandas.GeoDataFrame":
    """A GeoDataFrame of GeoJSON features (EPSG:4326), keeping each feature's ``id``."""
    geopandas = require_geopandas()
    table = geopandas.GeoDataFrame.from_features(list(features), crs=WGS84)
    if any("id" in feature for feature in features) and "id" not in table.columns:
        table.insert(0, "id", [feature.get("id") for feature in features])
    return table


# Rows of each answer ---------------------------------------------------------------------------

PREDICTION_COLUMNS = (
    "latitude",
    "longitude",
    "species_code",
    "species_common_name",
    "planting_method",
    *(f"survival_{h}y" for h in HORIZONS),
    *(f"top_factor_{h}y" for h in HORIZONS),
    "matched_latitude",
    "matched_longitude",
    "match_distance_km",
    "model_version",
)


def prediction_row(prediction: Mapping[str, Any]) -> dict[str, Any]:
    """One ``/v1/predict`` answer as one wide row, laid out as a job's results are.

    ``survival_1y/3y/5y`` and ``top_factor_1y/3y/5y`` are ``None`` for horizons not asked for.
    """
    site = prediction.get("site") or {}
    row: dict[str, Any] = {
        "latitude": site.get("latitude"),
        "longitude": site.get("longitude"),
        "species_code": prediction.get("species_code"),
        "species_common_name": prediction.get("species_common_name"),
        "planting_method": prediction.get("planting_method"),
    }
    by_horizon = {p.get("horizon_years"): p for p in prediction.get("predictions") or []}
    for horizon in HORIZONS:
        row[f"survival_{horizon}y"] = (by_horizon.get(horizon) or {}).get("survival_probability")
    for horizon in HORIZONS:
        factors = (by_horizon.get(horizon) or {}).get("risk_factors") or []
        row[f"top_factor_{horizon}y"] = factors[0].get("factor") if factors else None
    row.update(
        matched_latitude=site.get("matched_latitude"),
        matched_longitude=site.get("matched_longitude"),
        match_distance_km=site.get("match_distance_km"),
        model_version=(prediction.get("model") or {}).get("version"),
    )
    return row


BATCH_COLUMNS = ("index", *PREDICTION_COLUMNS, "error_code", "error_message")


def batch_rows(
    results: Sequence[Mapping[str, Any]], sites: Sequence[Mapping[str, Any]] | None
) -> list[dict[str, Any]]:
    """One row per batch item, in request order; a failed item keeps the coordinates it was sent."""
    rows = []
    for result in results:
        index = result.get("index")
        if "prediction" in result:
            row = {"index": index, **prediction_row(result["prediction"])}
            row.update(error_code=None, error_message=None)
        else:
            sent = sites[index] if sites is not None and isinstance(index, int) and index < len(sites) else {}
            error = result.get("error") or {}
            row = {name: None for name in BATCH_COLUMNS}
            row.update(
                index=index,
                latitude=sent.get("latitude"),
                longitude=sent.get("longitude"),
                species_code=sent.get("species_code"),
                planting_method=sent.get("planting_method"),
                error_code=error.get("code"),
                error_message=error.get("message"),
            )
        rows.append(row)
    return rows


COMPARISON_COLUMNS = (
    "latitude",
    "longitude",
    "species_code",
    "horizon_years",
    "manual",
    "drone_seeded",
    "difference",
)


def comparison_rows(comparison: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per horizon of ``method_differential`` (``difference`` = manual − drone_seeded)."""
    site = comparison.get("site") or {}
    return [
        {
            "latitude": site.get("latitude"),
            "longitude": site.get("longitude"),
            "species_code": comparison.get("species_code"),
            "horizon_years": item.get("horizon_years"),
            "manual": item.get("manual"),
            "drone_seeded": item.get("drone_seeded"),
            "difference": item.get("difference"),
        }
        for item in comparison.get("method_differential") or []
    ]


RANKING_COLUMNS = (
    "rank",
    "species_code",
    "species_common_name",
    "survival_probability",
    "native_range",
    "top_factor",
    "top_factor_impact",
    "top_factor_magnitude",
    "planting_method",
    "horizon_years",
    "latitude",
    "longitude",
)


def ranking_rows(ranking: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per species, best first (``rank`` from 1)."""
    site = ranking.get("site") or {}
    rows = []
    for rank, entry in enumerate(ranking.get("ranking") or [], start=1):
        factor = entry.get("top_factor") or {}
        rows.append(
            {
                "rank": rank,
                "species_code": entry.get("species_code"),
                "species_common_name": entry.get("species_common_name"),
                "survival_probability": entry.get("survival_probability"),
                "native_range": entry.get("native_range"),
                "top_factor": factor.get("factor"),
                "top_factor_impact": factor.get("impact"),
                "top_factor_magnitude": factor.get("magnitude"),
                "planting_method": ranking.get("planting_method"),
                "horizon_years": ranking.get("horizon_years"),
                "latitude": site.get("latitude"),
                "longitude": site.get("longitude"),
            }
        )
    return rows


def survey_rows(plots: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per survey; the matched ``site`` is spread into ``site_id``, ``matched_latitude``..."""
    rows = []
    for plot in plots:
        row = {name: value for name, value in plot.items() if name != "site"}
        row.update(plot.get("site") or {})
        rows.append(row)
    return rows


def flatten(record: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested objects spread into ``parent_child`` columns; lists are kept as they are."""
    row: dict[str, Any] = {}
    for name, value in record.items():
        key = f"{prefix}{name}"
        if isinstance(value, Mapping):
            row.update(flatten(value, f"{key}_"))
        else:
            row[key] = value
    return row


# Job results -------------------------------------------------------------------------------------


def job_results_frame(content: bytes, media_type: str) -> "pandas.DataFrame":
    """A DataFrame of a job's results as downloaded (CSV, NDJSON, or GeoJSON without geometry)."""
    pandas = require_pandas()
    if media_type == "text/csv":
        # ids stay text ("007" is not 7); empty cells (a horizon not asked for, no error) are NaN
        return pandas.read_csv(io.BytesIO(content), dtype={"id": str, "error_code": str})
    if media_type == "application/x-ndjson":
        lines = content.decode("utf-8").splitlines()
        return frame(json.loads(line) for line in lines if line.strip())
    if media_type == "application/geo+json":
        collection = json.loads(content)
        return frame(
            {"id": feature.get("id"), **(feature.get("properties") or {})}
            for feature in collection.get("features") or []
        )
    raise ValueError(f"cannot read job results of type {media_type!r}")


def job_results_geoframe(content: bytes, media_type: str) -> "geopandas.GeoDataFrame":
    """A GeoDataFrame of a job's results: GeoJSON's own geometries, else points from the columns."""
    if media_type == "application/geo+json":
        return features_frame(json.loads(content).get("features") or [])
    return points_frame(job_results_frame(content, media_type))
