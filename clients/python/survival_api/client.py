"""The client: one method per operation of the REST API ``/v1``, gathered from a module per group."""

from __future__ import annotations

from ._common import BBox, Treatments
from ._core import API_KEY_ENV, BASE_URL_ENV, DEFAULT_BASE_URL, PAPERS
from ._jobs import JobCalls, JobRef
from ._keys import KeyCalls
from ._models import ModelCalls
from ._plans import PlanCalls
from ._predictions import PredictionCalls
from ._rasters import RasterCalls, RasterSource
from ._reference import ReferenceCalls
from ._surveys import SurveyCalls

__all__ = [
    "Client",
    "DEFAULT_BASE_URL",
    "API_KEY_ENV",
    "BASE_URL_ENV",
    "PAPERS",
    "JobRef",
    "Treatments",
    "BBox",
    "RasterSource",
]


class Client(
    PredictionCalls, PlanCalls, RasterCalls, ReferenceCalls, KeyCalls, SurveyCalls, ModelCalls, JobCalls
):
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
