"""Builds JSON request bodies from Python values.

The API's bodies are strict (an unknown field is ``400 invalid_request``), so optional fields left
as ``None`` are dropped rather than sent. Values from pandas or numpy (``numpy.int64``, ``NaN``,
``Timestamp``) and ``datetime.date`` are turned into plain JSON.
"""

from __future__ import annotations

import json
import math
from datetime import date
from typing import Any, Iterable, Mapping, Sequence

Climate = Mapping[str, Any] | Sequence[str | None] | None
"""A climate future: ``{"period": ..., "scenario": ...}`` or ``(period, scenario)``."""


def compact(**fields: Any) -> dict[str, Any]:
    """The fields whose value is not ``None``, in the order given."""
    return {name: value for name, value in fields.items() if value is not None}


def climate_field(climate: Climate) -> dict[str, Any] | None:
    """The ``climate`` object of a body, from a mapping or a ``(period, scenario)`` pair."""
    if climate is None:
        return None
    if isinstance(climate, Mapping):
        return {str(k): v for k, v in climate.items()}
    if isinstance(climate, str):
        raise TypeError("climate is a mapping {'period', 'scenario'} or a (period, scenario) pair")
    parts = list(climate)
    if len(parts) not in (1, 2):
        raise ValueError("climate as a sequence is (period, scenario) or (period,)")
    return compact(period=parts[0], scenario=parts[1] if len(parts) == 2 else None)


def horizons_field(horizons: int | Iterable[int] | None) -> list[int] | None:
    """``horizons`` as a list of ints (one int is one horizon)."""
    if horizons is None:
        return None
    if isinstance(horizons, int):
        return [horizons]
    return [int(h) for h in horizons]


def record_body(record: Mapping[str, Any]) -> dict[str, Any]:
    """One row given by the caller (a batch site, a survey plot, a job row) as a JSON object.

    Missing values (``None``, ``NaN``) are dropped, ``climate`` and ``horizons`` are normalised as
    for :func:`climate_field` and :func:`horizons_field`.
    """
    body: dict[str, Any] = {}
    for name, value in record.items():
        value = to_jsonable(value)
        if value is None:
            continue
        if name == "climate":
            value = climate_field(value)
        elif name == "horizons":
            value = horizons_field(value)
        body[str(name)] = value
    return body


def records(rows: Any) -> list[dict[str, Any]]:
    """Rows as JSON objects, from an iterable of mappings or a pandas DataFrame."""
    return [record_body(row) for row in iter_records(rows)]


def iter_records(rows: Any) -> Iterable[Mapping[str, Any]]:
    """Iterates rows given as mappings or as a pandas DataFrame (its records)."""
    if _is_dataframe(rows):
        return rows.to_dict(orient="records")
    if isinstance(rows, Mapping):
        raise TypeError("expected several rows (a list of mappings or a DataFrame), got one mapping")
    return rows


def to_jsonable(value: Any) -> Any:
    """A value JSON can carry: missing values become ``None``, numpy scalars Python numbers."""
    if _is_missing(value):
        return None
    if isinstance(value, date):  # datetime and pandas.Timestamp too
        return value.isoformat()
    item = getattr(value, "item", None)
    if callable(item) and type(value).__module__ == "numpy":
        return to_jsonable(item())
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or type(value).__name__ == "ndarray":
        return [to_jsonable(v) for v in value]
    return value


def json_bytes(body: Any) -> bytes:
    """The body encoded as compact UTF-8 JSON."""
    return json.dumps(to_jsonable(body), separators=(",", ":"), allow_nan=False).encode("utf-8")


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    # pandas.NA and pandas.NaT, recognised without importing pandas
    return type(value).__name__ in {"NAType", "NaTType"}


def _is_dataframe(value: Any) -> bool:
    return hasattr(value, "to_dict") and hasattr(value, "columns") and hasattr(value, "iloc")
