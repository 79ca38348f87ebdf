"""Helpers and canned API answers shared by the unit tests."""

from __future__ import annotations

import copy
import socket
from typing import Any

API_KEY = "tsp_live_0123456789abcdef0123456789abcdef"


class SleepRecorder:
    """Stands in for time.sleep: remembers each wait instead of waiting."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def last_request(httpserver: Any) -> Any:
    """The last request the test server received (a werkzeug Request)."""
    assert httpserver.log, "the server received no request"
    return httpserver.log[-1][0]


# Answers as the API gives them (abridged where the client does not care) ----------------------

SITE = {
    "latitude": 44.6,
    "longitude": -123.6,
    "matched_latitude": 44.60257,
    "matched_longitude": -123.59234,
    "match_distance_km": 0.67,
    "region": "pnw",
}
MODEL = {"version": "0.2", "codename": "chanterelle", "series": "mycel"}


def factors(magnitude: float) -> list[dict[str, Any]]:
    return [
        {"factor": "Competing vegetation", "impact": "negative", "magnitude": magnitude},
        {"factor": "Browse and seed predation", "impact": "negative", "magnitude": 0.3},
        {"factor": "Frost exposure", "impact": "positive", "magnitude": 0.2},
    ]


def prediction(horizons: tuple[int, ...] = (1, 3, 5), site: dict[str, Any] | None = None) -> dict[str, Any]:
    survival = {1: 0.94, 3: 0.9, 5: 0.86}
    return {
        "site": copy.deepcopy(site or SITE),
        "species_code": "PSME",
        "species_common_name": "Douglas-fir",
        "planting_method": "manual",
        "predictions": [
            {"horizon_years": h, "survival_probability": survival[h], "risk_factors": factors(0.5 + h / 10)}
            for h in horizons
        ],
        "model": MODEL,
        "generated_at": "2026-11-27T15:48:55.389Z",
    }


def job_status(status: str, done: int, total: int = 4, **extra: Any) -> dict[str, Any]:
    job_id = "job_0123456789abcdef01234567"
    return {
        "id": job_id,
        "status": status,
        "format": "csv",
        "model_version": "0.2",
        "rows_total": total,
        "rows_done": done,
        "rows_failed": 0,
        "errors_by_code": {},
        "data_versions": ["sites_b0d332dfe90b"],
        "created_at": "2026-11-27T15:48:59.770Z",
        "started_at": None,
        "finished_at": None,
        "expires_at": "2026-12-04T15:48:59.769Z",
        "eta_seconds": None,
        "links": {"self": f"/v1/jobs/{job_id}", "results": f"/v1/jobs/{job_id}/results"},
        **extra,
    }


def unreachable_url() -> str:
    """A local address nothing listens on (a port just freed), so connecting fails at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def raw_path(request: Any) -> str:
    """The path as the client wrote it on the request line, before werkzeug decoded it."""
    uri = request.environ.get("RAW_URI") or request.environ["REQUEST_URI"]
    return uri.split("?", 1)[0]


def ranking_answer():
    entries = [
        ("CADE", "incense-cedar", 0.89, True),
        ("ABGR", "grand fir", 0.86, True),
        ("PSME", "Douglas-fir", 0.80, False),
    ]
    return {
        "site": SITE,
        "planting_method": "manual",
        "horizon_years": 5,
        "ranking": [
            {
                "species_code": code,
                "species_common_name": name,
                "survival_probability": p,
                "native_range": native,
                "top_factor": {"factor": "Competing vegetation", "impact": "negative", "magnitude": 0.5},
            }
            for code, name, p, native in entries
        ],
        "model": MODEL,
        "generated_at": "2026-11-27T15:48:55.389Z",
    }


def batch_answer():
    return {
        "results": [
            {"index": 0, "prediction": prediction((5,))},
            {
                "index": 1,
                "error": {
                    "code": "outside_coverage",
                    "message": "The coordinates lie outside the coverage region (Oregon and Washington)",
                    "details": {"suggestion": "GET /v1/coverage returns the covered area as GeoJSON"},
                },
            },
        ]
    }
