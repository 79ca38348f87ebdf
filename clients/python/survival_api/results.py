"""Result objects: the API's JSON with attribute access, the raw JSON kept, frames where tabular.

Every JSON object of an answer is an :class:`ApiObject`, a read-only mapping whose fields are also
attributes (``prediction.site.match_distance_km`` is ``prediction["site"]["match_distance_km"]``).
Lists stay lists (of wrapped objects). ``.raw`` is the JSON exactly as decoded and ``.meta`` the
response it came in (status, ``Request-Id``, rate-limit headers). A field whose name clashes with
a method of the class (``keys``, ``items``, ``get``, ``raw``...) is read with ``obj["name"]``.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from . import dataframes

if TYPE_CHECKING:  # pragma: no cover
    import geopandas
    import pandas

_API_KEY_PATTERN = re.compile(r"[A-Za-z0-9]+_live_[0-9a-f]{32}")


@dataclass(frozen=True)
class ResponseMeta:
    """What the HTTP response said beside its body."""

    status: int
    request_id: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def data_version(self) -> str | None:
        """``Survival-Data-Version``: the site data version a prediction was read from."""
        return self.headers.get("Survival-Data-Version")

    @property
    def rate_limit_remaining(self) -> int | None:
        """``X-RateLimit-Remaining``: requests left today (``None`` for the unlimited tier)."""
        value = self.headers.get("X-RateLimit-Remaining")
        return int(value) if value is not None and value.isdigit() else None

    @property
    def key_expires(self) -> str | None:
        """``API-Key-Expires``: when the key stops working, when that is within 14 days."""
        return self.headers.get("API-Key-Expires")

    @classmethod
    def of(cls, response: Any) -> "ResponseMeta":
        headers = response.headers
        return cls(status=response.status_code, request_id=headers.get("Request-Id"), headers=headers)


class ApiObject(Mapping[str, Any]):
    """A JSON object of an answer: a read-only mapping with attribute access to its fields."""

    def __init__(self, data: Mapping[str, Any], meta: ResponseMeta | None = None) -> None:
        self._data = data
        self._meta = meta

    @property
    def raw(self) -> Any:
        """The JSON as the API sent it (not a copy: do not change it)."""
        return self._data

    @property
    def meta(self) -> ResponseMeta | None:
        """The response this object came in; ``None`` for nested objects."""
        return self._meta

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the JSON, free to change."""
        return copy.deepcopy(dict(self._data))

    def __getitem__(self, name: str) -> Any:
        return wrap(self._data[name])

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return wrap(self._data[name])
        except KeyError:
            raise AttributeError(
                f"{type(self).__name__} has no field {name!r}; fields: {', '.join(self._data)}"
            ) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | {k for k in self._data if k.isidentifier()})

    def __repr__(self) -> str:
        text = json.dumps(self._data, default=str, ensure_ascii=False)
        text = _API_KEY_PATTERN.sub("<api key>", text)  # never echo a key into logs or notebooks
        if len(text) > 600:
            text = text[:600] + "…"
        return f"{type(self).__name__}({text})"


def wrap(value: Any) -> Any:
    """JSON objects as :class:`ApiObject`, lists element by element, scalars as they are."""
    if isinstance(value, Mapping) and not isinstance(value, ApiObject):
        return ApiObject(value)
    if isinstance(value, list):
        return [wrap(item) for item in value]
    return value


class _Table:
    """Results with rows: ``to_dataframe()`` gives a pandas DataFrame of them."""

    _columns: Sequence[str] | None = None

    def _rows(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def to_dataframe(self) -> "pandas.DataFrame":
        """The rows as a pandas DataFrame (needs the ``dataframes`` extra)."""
        return dataframes.frame(self._rows(), self._columns)


class _Points(_Table):
    """Tabular results with ``latitude``/``longitude``: also ``to_geodataframe()``."""

    def to_geodataframe(self) -> "geopandas.GeoDataFrame":
        """The rows as a GeoDataFrame of points in EPSG:4326 (needs the ``geo`` extra)."""
        return dataframes.points_frame(self.to_dataframe())


class Prediction(_Points, ApiObject):
    """``POST /v1/predict``: one site, species and method. One row, laid out as a job's results."""

    def _rows(self) -> list[dict[str, Any]]:
        return [dataframes.prediction_row(self._data)]

    _columns = dataframes.PREDICTION_COLUMNS

    def survival(self, horizon: int) -> float | None:
        """The survival probability at ``horizon`` years, ``None`` if it was not asked for."""
        return next(
            (p["survival_probability"] for p in self._data.get("predictions", []) if p.get("horizon_years") == horizon),
            None,
        )


class Comparison(_Points, ApiObject):
    """``POST /v1/predict/compare``: both methods. One row per horizon of ``method_differential``."""

    _columns = dataframes.COMPARISON_COLUMNS

    def _rows(self) -> list[dict[str, Any]]:
        return dataframes.comparison_rows(self._data)


class Ranking(_Points, ApiObject):
    """``POST /v1/predict/rank``: every species at one site, best first. One row per species."""

    _columns = dataframes.RANKING_COLUMNS

    def _rows(self) -> list[dict[str, Any]]:
        return dataframes.ranking_rows(self._data)


class BatchResult(_Points, ApiObject):
    """``POST /v1/predict/batch``: one row per site sent, in order.

    A failed item keeps the coordinates, species and method it was sent with, and has
    ``error_code`` / ``error_message``; a scored one has them ``None``.
    """

    _columns = dataframes.BATCH_COLUMNS

    def __init__(
        self,
        data: Mapping[str, Any],
        meta: ResponseMeta | None = None,
        sites: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        super().__init__(data, meta)
        self._sites = sites

    def _rows(self) -> list[dict[str, Any]]:
        return dataframes.batch_rows(self._data.get("results", []), self._sites)

    @property
    def predictions(self) -> list[Prediction | None]:
        """Each item's prediction by position (``None`` where the item failed)."""
        return [
            Prediction(item["prediction"]) if "prediction" in item else None
            for item in self._data.get("results", [])
        ]

    @property
    def errors(self) -> dict[int, ApiObject]:
        """The failed items' errors (``code``, ``message``, ``details``) by position."""
        return {
            item["index"]: ApiObject(item["error"])
            for item in self._data.get("results", [])
            if "error" in item
        }


class StockingPlan(ApiObject):
    """``POST /v1/plans/stocking``. ``to_dataframe()``: one row per horizon."""

    def to_dataframe(self) -> "pandas.DataFrame":
        """The plan's ``horizons`` (1, 3, 5 years) as rows; nested objects spread into columns."""
        return dataframes.frame(dataframes.flatten(h) for h in self._data.get("horizons", []))


class PlantingOptions(_Table, ApiObject):
    """``POST /v1/plans/options``. ``to_dataframe()``: one row per option, cheapest first, with the
    cost's totals and treatments spread into columns (the parts and effects kept as lists)."""

    def _rows(self) -> list[dict[str, Any]]:
        return [dataframes.flatten(option) for option in self._data.get("options", [])]


class SpeciesList(_Table, ApiObject):
    """``GET /v1/species``: one row per species."""

    def _rows(self) -> list[dict[str, Any]]:
        return [dict(s) for s in self._data.get("species", [])]


class ModelList(_Table, ApiObject):
    """``GET /v1/models``: one row per version (``uncertainty`` spread into columns, no ``fit``)."""

    def _rows(self) -> list[dict[str, Any]]:
        return [
            dataframes.flatten({k: v for k, v in m.items() if k != "fit"})
            for m in self._data.get("models", [])
        ]


class Usage(_Table, ApiObject):
    """``GET /v1/usage``. ``to_dataframe()``: the last 30 UTC days, one row a day."""

    def _rows(self) -> list[dict[str, Any]]:
        return [dict(day) for day in self._data.get("history", [])]


class Surveys(_Points, ApiObject):
    """Survey records: stored (``plots``), a page (``plots``, ``next_cursor``), one plot (``surveys``).

    One row per survey, at the plot's own coordinates; the matched ``site`` is spread into
    ``site_id``, ``matched_latitude``, ``matched_longitude`` and ``match_distance_km``.
    """

    def _rows(self) -> list[dict[str, Any]]:
        plots = self._data.get("plots", self._data.get("surveys", []))
        return dataframes.survey_rows(plots)


class SurveyReport(_Table, ApiObject):
    """``GET /v1/surveys/report``. ``to_dataframe()``: ``overall`` then each group, one row each."""

    def _rows(self) -> list[dict[str, Any]]:
        overall = self._data.get("overall")
        groups = ([overall] if overall else []) + list(self._data.get("groups", []))
        return [dataframes.flatten(group) for group in groups]

    def reliability_dataframe(self) -> "pandas.DataFrame":
        """The reliability table: 10 bins of predicted survival."""
        return dataframes.frame(dataframes.flatten(b) for b in self._data.get("reliability", []))


class Coverage(ApiObject):
    """``GET /v1/coverage``: the covered area as a GeoJSON FeatureCollection."""

    def to_geodataframe(self) -> "geopandas.GeoDataFrame":
        """The coverage polygons as a GeoDataFrame in EPSG:4326 (needs the ``geo`` extra)."""
        return dataframes.features_frame(self._data.get("features", []))


JOB_FINISHED = frozenset({"succeeded", "failed", "cancelled"})


class Job(ApiObject):
    """A portfolio job: the 202 of ``POST /v1/jobs`` (``id``, ``status``, ``rows``) or its status."""

    @property
    def finished(self) -> bool:
        """True once the job has succeeded, failed or been cancelled."""
        return self._data.get("status") in JOB_FINISHED

    @property
    def succeeded(self) -> bool:
        return self._data.get("status") == "succeeded"

    @property
    def fraction_done(self) -> float | None:
        """``rows_done / rows_total`` (0 to 1), ``None`` before the total is known."""
        total = self._data.get("rows_total")
        return self._data.get("rows_done", 0) / total if total else None


class CalibrationRun(ApiObject):
    """A calibration started with ``POST /v1/models/calibrations``, as it stands."""

    @property
    def finished(self) -> bool:
        return self._data.get("status") in {"succeeded", "failed"}

    @property
    def succeeded(self) -> bool:
        return self._data.get("status") == "succeeded"


class JobResults(_Table):
    """A succeeded job's results in memory (CSV, NDJSON or GeoJSON, as downloaded).

    ``to_dataframe()`` reads them with pandas (an ``id`` column stays text);
    ``to_geodataframe()`` gives points from ``latitude``/``longitude``, or a GeoJSON job's own
    geometries.
    """

    def __init__(self, content: bytes, media_type: str, meta: ResponseMeta | None = None) -> None:
        self.content = content
        self.media_type = media_type
        self.meta = meta

    @classmethod
    def from_file(cls, path: str | Path, media_type: str | None = None) -> "JobResults":
        """Results saved by :meth:`Client.download_job_results`; the type follows the extension."""
        path = Path(path)
        return cls(path.read_bytes(), media_type or media_type_for_path(path))

    @property
    def text(self) -> str:
        return self.content.decode("utf-8")

    def to_dataframe(self) -> "pandas.DataFrame":
        return dataframes.job_results_frame(self.content, self.media_type)

    def to_geodataframe(self) -> "geopandas.GeoDataFrame":
        return dataframes.job_results_geoframe(self.content, self.media_type)

    def __repr__(self) -> str:
        return f"JobResults({self.media_type}, {len(self.content)} bytes)"


_MEDIA_TYPES = {
    ".csv": "text/csv",
    ".ndjson": "application/x-ndjson",
    ".jsonl": "application/x-ndjson",
    ".geojson": "application/geo+json",
    ".json": "application/geo+json",
}


def media_type_for_path(path: str | Path) -> str:
    """The media type a file's extension names (``.gz`` looked through), for jobs and uploads."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    if not suffixes or suffixes[-1] not in _MEDIA_TYPES:
        raise ValueError(
            f"cannot tell the format of {Path(path).name}: use .csv, .ndjson, .jsonl, .geojson or "
            ".json (optionally .gz), or pass format="
        )
    return _MEDIA_TYPES[suffixes[-1]]
