"""compare_pdf, rank_pdf and stocking_plan_pdf: the JSON siblings' bodies asked for as a PDF report."""

from __future__ import annotations

import json

import pytest
from fakes import API_KEY, last_request

from survival_api import NotFoundError, RateLimitError, ValidationError
from survival_api.errors import ApiError

PDF = b"%PDF-1.7\n% a report\n%%EOF\n"


def pdf_answer(httpserver, path: str, **expected) -> None:
    httpserver.expect_request(path, method="POST", **expected).respond_with_data(
        PDF,
        content_type="application/pdf",
        headers={"Content-Disposition": 'inline; filename="report.pdf"', "Request-Id": "req-pdf"},
    )


def test_compare_pdf_sends_compare_body_with_accept_and_language(client, httpserver):
    pdf_answer(
        httpserver,
        "/v1/predict/compare",
        headers={"X-API-Key": API_KEY, "Accept": "application/pdf", "Accept-Language": "es-MX"},
        json={
            "latitude": 44.6,
            "longitude": -123.6,
            "species_code": "PSME",
            "horizons": [1, 5],
            "climate": {"period": "2041-2070", "scenario": "ssp245"},
            "model_version": "0.2",
        },
    )

    pdf = client.compare_pdf(
        44.6,
        -123.6,
        "PSME",
        horizons=(1, 5),
        climate=("2041-2070", "ssp245"),
        model_version="0.2",
        language="es-MX",
    )

    assert pdf == PDF
    assert last_request(httpserver).query_string == b""


def test_compare_pdf_body_equals_compare_body(client, httpserver):
    httpserver.expect_request("/v1/predict/compare", method="POST").respond_with_json({"species_code": "PSME"})
    client.compare(44.6, -123.6, "PSME", horizons=3, climate={"period": "2071-2100", "scenario": "ssp585"})
    json_body = json.loads(last_request(httpserver).data)
    httpserver.clear()
    pdf_answer(httpserver, "/v1/predict/compare")
    client.compare_pdf(44.6, -123.6, "PSME", horizons=3, climate={"period": "2071-2100", "scenario": "ssp585"})
    assert json.loads(last_request(httpserver).data) == json_body


def test_rank_pdf_sends_paper_as_the_query_and_english_by_default(client, httpserver):
    pdf_answer(
        httpserver,
        "/v1/predict/rank",
        query_string={"paper": "a4"},
        headers={"Accept": "application/pdf", "Accept-Language": "en"},
        json={"latitude": 44.0, "longitude": -121.6, "planting_method": "manual", "horizon": 3},
    )

    assert client.rank_pdf(44.0, -121.6, "manual", 3, paper="a4") == PDF


def test_stocking_plan_pdf_writes_the_file_too(client, httpserver, tmp_path):
    stand = {
        "type": "Feature",
        "properties": {"name": "North unit"},
        "geometry": {
            "type": "Polygon",
            "coordinates": [[[-123.63, 44.57], [-123.57, 44.57], [-123.57, 44.63], [-123.63, 44.57]]],
        },
    }
    pdf_answer(
        httpserver,
        "/v1/plans/stocking",
        query_string={"paper": "letter"},
        json={
            "stand": stand,
            "planting_method": "manual",
            "species_mix": [{"species_code": "PSME", "share": 0.8}, {"species_code": "THPL", "share": 0.2}],
            "trees_per_acre": 300,
            "confidence": 0.9,
        },
    )
    target = tmp_path / "plan.pdf"

    pdf = client.stocking_plan_pdf(
        "manual",
        {"PSME": 0.8, "THPL": 0.2},
        stand=stand,
        trees_per_acre=300,
        confidence=0.9,
        paper="letter",
        path=target,
    )

    assert pdf == PDF
    assert target.read_bytes() == PDF


def test_errors_stay_the_typed_errors(client, httpserver):
    httpserver.expect_request("/v1/predict/compare", method="POST").respond_with_json(
        {"error": {"code": "outside_coverage", "message": "The coordinates lie outside"}},
        status=422,
        headers={"Request-Id": "req-422"},
    )
    with pytest.raises(ValidationError) as raised:
        client.compare_pdf(43.6, -116.2, "PSME")
    assert raised.value.code == "outside_coverage"
    assert raised.value.request_id == "req-422"

    httpserver.expect_request("/v1/plans/stocking", method="POST").respond_with_json(
        {"error": {"code": "not_found", "message": "No endpoint"}}, status=404
    )
    with pytest.raises(NotFoundError):
        client.stocking_plan_pdf("manual", "PSME", latitude=44.6, longitude=-123.6, trees_per_acre=300)


def test_a_429_is_retried_then_the_pdf_returned(client, httpserver, sleeps):
    httpserver.expect_ordered_request("/v1/predict/rank", method="POST").respond_with_json(
        {"error": {"code": "rate_limit_exceeded", "message": "slow down"}},
        status=429,
        headers={"Retry-After": "2"},
    )
    pdf_answer(httpserver, "/v1/predict/rank")

    assert client.rank_pdf(44.0, -121.6, "manual", 5) == PDF
    assert sleeps.calls == [2.0]


def test_a_json_answer_to_a_pdf_request_is_an_error(client, httpserver):
    httpserver.expect_request("/v1/predict/rank", method="POST").respond_with_json({"ranking": []})
    with pytest.raises(ApiError) as raised:
        client.rank_pdf(44.0, -121.6, "manual", 5)
    assert raised.value.code == "not_a_report"
    assert "application/json" in str(raised.value)


@pytest.mark.parametrize("paper", ["A4", "tabloid", ""])
def test_a_paper_that_is_not_one_is_refused_before_sending(client, httpserver, paper):
    with pytest.raises(ValueError, match="paper is one of a4, letter"):
        client.compare_pdf(44.6, -123.6, "PSME", paper=paper)
    assert len(httpserver.log) == 0


def test_a_language_that_is_not_one_is_refused_before_sending(client, httpserver):
    with pytest.raises(ValueError, match="language"):
        client.compare_pdf(44.6, -123.6, "PSME", language=" ")
    assert len(httpserver.log) == 0


def test_rate_limit_past_the_retries_is_raised(client, httpserver):
    httpserver.expect_request("/v1/predict/compare", method="POST").respond_with_json(
        {"error": {"code": "rate_limit_exceeded", "message": "Daily request limit"}},
        status=429,
        headers={"Retry-After": "36000"},
    )
    with pytest.raises(RateLimitError):
        client.compare_pdf(44.6, -123.6, "PSME")
