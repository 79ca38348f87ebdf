"""The type aliases and small helpers that several groups of calls share."""

from __future__ import annotations

from typing import Any, Mapping, Sequence
from urllib.parse import quote

Treatments = Mapping[str, str | None] | None
"""Establishment treatments: ``{"vegetation_control": ..., "animal_protection": ..., "stock_type": ...,
"shade": ...}``, each optional (docs/treatments.md)."""

BBox = Sequence[float] | str
"""``(west, south, east, north)`` in degrees, or the string ``"w,s,e,n"``."""


def _mapping(value: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A mapping of a body (treatments, costs) as a plain dict; ``None`` leaves the field out."""
    return None if value is None else {str(k): v for k, v in value.items()}


def _segment(value: str) -> str:
    """One path segment, percent-encoded (``/`` and ``+`` included)."""
    return quote(str(value), safe="")
