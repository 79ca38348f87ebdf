"""Retries: 429 and 503 only, Retry-After honoured, capped backoff, sleeps injected."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest
from fakes import prediction, unreachable_url

from survival_api import Client, RateLimitError, RetryPolicy, ServiceUnavailableError, ValidationError
from survival_api.retries import parse_retry_after

LIMITED = {"error": {"code": "rate_limit_exceeded", "message": "Daily limit of the spore tier reached"}}
UNAVAILABLE = {"error": {"code": "service_unavailable", "message": "The data store is not answering"}}


def test_429_then_200_waits_what_retry_after_says(client, httpserver, sleeps):
    httpserver.expect_ordered_request("/v1/predict", method="POST").respond_with_json(
        LIMITED, status=429, headers={"Retry-After": "7"}
    )
    httpserver.expect_ordered_request("/v1/predict", method="POST").respond_with_json(prediction())

    result = client.predict(44.6, -123.6, "PSME", "manual")

    assert result.species_code == "PSME"
    assert sleeps.calls == [7.0]
    assert len(httpserver.log) == 2
    first, second = (request for request, _ in httpserver.log)
    assert first.get_data() == second.get_data()  # the same body sent again


def test_retry_after_as_an_http_date(client, httpserver, sleeps):
    when = datetime.now(timezone.utc) + timedelta(seconds=30)
    httpserver.expect_ordered_request("/v1/species").respond_with_json(
        LIMITED, status=429, headers={"Retry-After": format_datetime(when, usegmt=True)}
    )
    httpserver.expect_ordered_request("/v1/species").respond_with_json({"species": [], "count": 0})

    client.species()

    assert len(sleeps.calls) == 1
    assert 25 <= sleeps.calls[0] <= 30


def test_503_without_retry_after_backs_off_exponentially(client, httpserver, sleeps):
    for _ in range(3):
        httpserver.expect_ordered_request("/v1/methods").respond_with_json(UNAVAILABLE, status=503)
    httpserver.expect_ordered_request("/v1/methods").respond_with_json({"methods": []})

    client.methods()

    assert sleeps.calls == [0.5, 1.0, 2.0]


def test_503_honours_retry_after(client, httpserver, sleeps):
    httpserver.expect_ordered_request("/v1/predict/batch", method="POST").respond_with_json(
        UNAVAILABLE, status=503, headers={"Retry-After": "5"}
    )
    httpserver.expect_ordered_request("/v1/predict/batch", method="POST").respond_with_json({"results": []})

    client.predict_batch([{"latitude": 44.6, "longitude": -123.6, "species_code": "PSME", "planting_method": "manual"}])

    assert sleeps.calls == [5.0]


def test_gives_up_after_max_retries(httpserver, sleeps):
    httpserver.expect_request("/v1/methods").respond_with_json(UNAVAILABLE, status=503, headers={"Retry-After": "1"})
    client = Client(api_key="k", base_url=httpserver.url_for("/"), max_retries=2, sleep=sleeps)

    with pytest.raises(ServiceUnavailableError):
        client.methods()

    assert sleeps.calls == [1.0, 1.0]
    assert len(httpserver.log) == 3


def test_400_is_never_retried(client, httpserver, sleeps):
    httpserver.expect_request("/v1/predict", method="POST").respond_with_json(
        {"error": {"code": "invalid_request", "message": "bad", "details": {"field": "latitude", "reason": "x"}}},
        status=400,
    )

    with pytest.raises(ValidationError):
        client.predict(95, 0, "PSME", "manual")

    assert sleeps.calls == []
    assert len(httpserver.log) == 1


def test_500_is_never_retried(client, httpserver, sleeps):
    httpserver.expect_request("/v1/usage").respond_with_json(
        {"error": {"code": "internal_error", "message": "oops"}}, status=500
    )

    with pytest.raises(Exception):
        client.usage()

    assert sleeps.calls == []
    assert len(httpserver.log) == 1


def test_a_retry_after_past_the_limit_is_raised_at_once(client, httpserver, sleeps):
    # A spent daily quota says "come back at midnight": not worth sleeping for.
    httpserver.expect_request("/v1/usage").respond_with_json(LIMITED, status=429, headers={"Retry-After": "30000"})

    with pytest.raises(RateLimitError):
        client.usage()

    assert sleeps.calls == []


def test_max_retries_zero_never_retries(httpserver, sleeps):
    httpserver.expect_request("/v1/usage").respond_with_json(LIMITED, status=429, headers={"Retry-After": "1"})
    client = Client(api_key="k", base_url=httpserver.url_for("/"), max_retries=0, sleep=sleeps)

    with pytest.raises(RateLimitError):
        client.usage()

    assert sleeps.calls == []


def test_a_one_shot_body_is_not_retried(client, httpserver, sleeps):
    httpserver.expect_request("/v1/jobs", method="POST").respond_with_json(LIMITED, status=429, headers={"Retry-After": "1"})
    rows = ({"latitude": 44.6, "longitude": -123.6, "species_code": "PSME", "planting_method": "manual"} for _ in range(3))

    with pytest.raises(RateLimitError):
        client.submit_job(rows)

    assert sleeps.calls == []


def test_connection_errors_of_a_post_are_not_retried(sleeps):
    client = Client(api_key="k", base_url=unreachable_url(), sleep=sleeps)

    with pytest.raises(Exception):
        client.submit_job([{"latitude": 44.6}])

    assert sleeps.calls == []


@pytest.mark.parametrize(
    ("header", "seconds"),
    [("0", 0.0), ("120", 120.0), ("1.5", 1.5), ("-4", 0.0), ("soon", None), (None, None)],
)
def test_parse_retry_after_seconds(header, seconds):
    assert parse_retry_after(header) == seconds


def test_parse_retry_after_http_date():
    now = datetime(2026, 11, 27, 23, 59, 0, tzinfo=timezone.utc)
    assert parse_retry_after("Sat, 28 Nov 2026 00:00:00 GMT", now) == 60.0
    assert parse_retry_after("Fri, 27 Nov 2026 00:00:00 GMT", now) == 0.0


def test_backoff_is_capped():
    policy = RetryPolicy(max_retries=10, backoff_base=1, backoff_cap=5)
    assert [policy.backoff(n) for n in range(5)] == [1, 2, 4, 5, 5]
