"""Python client of the Survival Prediction API (REST ``/v1``).

>>> from survival_api import Client
>>> client = Client()  # key from $SURVIVAL_API_KEY, URL from $SURVIVAL_API_URL
>>> client.predict(44.6, -123.6, "PSME", "manual").survival(5)  # doctest: +SKIP
0.858459035214291
"""

from ._version import __version__
from .client import Client, RasterSource
from .errors import (
    ApiConnectionError,
    ApiError,
    AuthenticationError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    SurvivalApiError,
    ValidationError,
)
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
    PlantingOptions,
    Prediction,
    Ranking,
    ResponseMeta,
    SpeciesList,
    StockingPlan,
    SurveyReport,
    Surveys,
    Usage,
)
from .retries import RetryPolicy

__all__ = [
    "__version__",
    "Client",
    "RetryPolicy",
    "JobProgressPrinter",
    "RasterSource",
    # errors
    "SurvivalApiError",
    "ApiError",
    "ApiConnectionError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "ValidationError",
    "RateLimitError",
    "ServiceUnavailableError",
    # results
    "ApiObject",
    "ResponseMeta",
    "Prediction",
    "Comparison",
    "Ranking",
    "BatchResult",
    "StockingPlan",
    "PlantingOptions",
    "SpeciesList",
    "ModelList",
    "Usage",
    "Surveys",
    "SurveyReport",
    "Coverage",
    "Job",
    "JobResults",
    "CalibrationRun",
]
