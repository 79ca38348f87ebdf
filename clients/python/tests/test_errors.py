"""Error responses become typed exceptions carrying the envelope and the Request-Id."""

from __future__ import annotations

import pytest
from fakes import unreachable_url

from survival_api import (
    ApiConnectionError,
    ApiError,
    AuthenticationError,
    Client,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    SurvivalApiError,
    ValidationError,
)
from survival_api.errors import error_from_response


def envelope(code, message="went wrong", details=None):
    error = {"code": code, "message": message}
    if details is not None:
        error["details"] = details
    return {"error": error}


@pytest.mark.parametrize(
    ("status", "code", "expected"),
    [
        (400, "invalid_request", ValidationError),
        (401, "invalid_api_key", AuthenticationError),
        (403, "key_inactive", PermissionDeniedError),
        (403, "jobs_not_in_tier", PermissionDeniedError),
        (404, "not_found", NotFoundError),
        (405, "method_not_allowed", ApiError),
        (409, "job_not_finished", ConflictError),
        (413, "payload_too_large", ApiError),
        (415, "unsupported_media_type", ApiError),
        (422, "invalid_species", ValidationError),
        (429, "rate_limit_exceeded", RateLimitError),
        (500, "internal_error", ApiError),
        (503, "service_unavailable", ServiceUnavailableError),
    ],
)
def test_each_status_maps_to_its_family(client, httpserver, status, code, expected):
    # A Retry-After past the client's limit: 429 and 503 are raised without waiting.
    httpserver.expect_request("/v1/methods").respond_with_json(
        envelope(code), status=status, headers={"Request-Id": "req-42", "Retry-After": "999999"}
    )

    with pytest.raises(expected) as caught:
        client.methods()

    error = caught.value
    assert isinstance(error, SurvivalApiError)
    assert (error.status, error.code, error.message, error.request_id) == (status, code, "went wrong", "req-42")


def test_conflicts_are_api_errors_too(client, httpserver):
    httpserver.expect_request("/v1/models/calibrations", method="POST").respond_with_json(
        envelope("calibration_running", details={"calibration": "f39b85dd"}), status=409
    )

    with pytest.raises(ApiError) as caught:
        client.calibrate()

    assert caught.value.details == {"calibration": "f39b85dd"}


def test_a_bad_species_carries_details(client, httpserver):
    httpserver.expect_request("/v1/predict", method="POST").respond_with_json(
        envelope(
            "invalid_species",
            'Species code "PSMA" is not recognized. Did you mean PSME (Douglas-fir)?',
            {"suggestion": "GET /v1/species lists the recognized species codes", "closest_code": "PSME"},
        ),
        status=422,
        headers={"Request-Id": "abc"},
    )

    with pytest.raises(ValidationError) as caught:
        client.predict(44.6, -123.6, "PSMA", "manual")

    error = caught.value
    assert error.code == "invalid_species"
    assert error.details["closest_code"] == "PSME"
    assert "Did you mean PSME" in str(error)
    assert "abc" in str(error)


def test_invalid_request_names_the_field(client, httpserver):
    httpserver.expect_request("/v1/predict", method="POST").respond_with_json(
        envelope("invalid_request", "latitude must be at most 90", {"field": "latitude", "reason": "out of range"}),
        status=400,
    )

    with pytest.raises(ValidationError) as caught:
        client.predict(95, -123.6, "PSME", "manual")

    assert caught.value.field == "latitude"


def test_rate_limit_error_reports_retry_after(client, httpserver):
    httpserver.expect_request("/v1/usage").respond_with_json(
        envelope("rate_limit_exceeded", "Daily limit of the spore tier reached"),
        status=429,
        headers={"Retry-After": "30000"},
    )

    with pytest.raises(RateLimitError) as caught:
        client.usage()

    assert caught.value.retry_after == 30000.0


def test_a_body_that_is_not_the_envelope_still_gives_the_status_family():
    error = error_from_response(502, {"request-id": "r1"}, b"<html>Bad gateway</html>")

    assert isinstance(error, ApiError)
    assert error.code == "http_502"
    assert "Bad gateway" in error.message
    assert error.request_id == "r1"


def test_no_response_is_a_connection_error(sleeps):
    unreachable = Client(api_key="k", base_url=unreachable_url(), max_retries=2, sleep=sleeps)

    with pytest.raises(ApiConnectionError) as caught:
        unreachable.species()

    assert caught.value.status is None
    assert len(sleeps.calls) == 2  # GET is idempotent: retried, then given up
