"""predict, compare, rank, batch and stocking plans: what is sent, and what comes back."""

from __future__ import annotations

import json

from fakes import API_KEY, MODEL, SITE, batch_answer, last_request, prediction, ranking_answer

from survival_api import BatchResult, Comparison, Prediction, Ranking, StockingPlan


def test_predict_sends_the_body_and_key(client, httpserver):
    httpserver.expect_request(
        "/v1/predict",
        method="POST",
        headers={"X-API-Key": API_KEY, "Content-Type": "application/json"},
        json={"latitude": 44.6, "longitude": -123.6, "species_code": "PSME", "planting_method": "manual"},
    ).respond_with_json(prediction(), headers={"Request-Id": "req-1", "Survival-Data-Version": "sites_b0d332dfe90b"})

    result = client.predict(44.6, -123.6, "PSME", "manual")

    assert isinstance(result, Prediction)
    assert result.species_common_name == "Douglas-fir"
    assert result.site.match_distance_km == 0.67
    assert result.predictions[2].risk_factors[0].factor == "Competing vegetation"
    assert result.survival(5) == 0.86
    assert result.raw == prediction()
    assert result.meta.request_id == "req-1"
    assert result.meta.data_version == "sites_b0d332dfe90b"


def test_predict_optional_fields_mirror_the_body(client, httpserver):
    httpserver.expect_request(
        "/v1/predict",
        method="POST",
        json={
            "latitude": 44.6,
            "longitude": -123.6,
            "species_code": "PSME",
            "planting_method": "drone_seeded",
            "horizons": [1, 5],
            "climate": {"period": "2041-2070", "scenario": "ssp245"},
            "model_version": "0.2",
        },
    ).respond_with_json(prediction((1, 5)))

    result = client.predict(
        44.6,
        -123.6,
        "PSME",
        "drone_seeded",
        horizons=(1, 5),
        climate=("2041-2070", "ssp245"),
        model_version="0.2",
    )

    assert [p.horizon_years for p in result.predictions] == [1, 5]
    assert result.survival(3) is None


def test_compare_sends_no_method(client, httpserver):
    answer = {
        "site": SITE,
        "species_code": "PSME",
        "species_common_name": "Douglas-fir",
        "predictions": {"manual": prediction()["predictions"], "drone_seeded": prediction()["predictions"]},
        "method_differential": [
            {"horizon_years": h, "manual": 0.9, "drone_seeded": 0.7, "difference": 0.2} for h in (1, 3, 5)
        ],
        "model": MODEL,
        "generated_at": "2026-11-27T15:48:55.389Z",
    }
    httpserver.expect_request(
        "/v1/predict/compare",
        method="POST",
        json={"latitude": 44.6, "longitude": -123.6, "species_code": "PSME", "climate": {"period": "1991_2020"}},
    ).respond_with_json(answer)

    result = client.compare(44.6, -123.6, "PSME", climate={"period": "1991_2020"})

    assert isinstance(result, Comparison)
    assert result.method_differential[0].difference == 0.2


def test_rank_sends_method_and_horizon(client, httpserver):
    httpserver.expect_request(
        "/v1/predict/rank",
        method="POST",
        json={"latitude": 44.2, "longitude": -122.2, "planting_method": "manual", "horizon": 5},
    ).respond_with_json(ranking_answer())

    result = client.rank(44.2, -122.2, "manual", 5)

    assert isinstance(result, Ranking)
    assert result.ranking[0].species_code == "CADE"


def test_batch_sends_sites_and_one_model_version(client, httpserver):
    sites = [
        {"latitude": 44.6, "longitude": -123.6, "species_code": "PSME", "planting_method": "manual", "horizons": [5]},
        {"latitude": 43.6, "longitude": -116.2, "species_code": "PIPO", "planting_method": "drone_seeded",
         "climate": ("2041-2070", "ssp245")},
    ]
    httpserver.expect_request(
        "/v1/predict/batch",
        method="POST",
        json={
            "sites": [
                sites[0],
                {**sites[1], "climate": {"period": "2041-2070", "scenario": "ssp245"}},
            ],
            "model_version": "0.2",
        },
    ).respond_with_json(batch_answer())

    result = client.predict_batch(sites, model_version="0.2")

    assert isinstance(result, BatchResult)
    assert result.predictions[0].survival(5) == 0.86
    assert result.predictions[1] is None
    assert result.errors[1].code == "outside_coverage"


def test_batch_accepts_a_dataframe(client, httpserver):
    import pandas

    table = pandas.DataFrame(
        {
            "latitude": [44.6, 43.6],
            "longitude": [-123.6, -116.2],
            "species_code": ["PSME", "PIPO"],
            "planting_method": ["manual", "drone_seeded"],
        }
    )
    httpserver.expect_request("/v1/predict/batch", method="POST").respond_with_json(batch_answer())

    client.predict_batch(table)

    sent = json.loads(last_request(httpserver).get_data())
    assert sent == {"sites": table.to_dict(orient="records")}


def test_stocking_plan_builds_the_species_mix(client, httpserver):
    httpserver.expect_request(
        "/v1/plans/stocking",
        method="POST",
        json={
            "latitude": 44.6,
            "longitude": -123.6,
            "planting_method": "manual",
            "species_mix": [{"species_code": "PSME", "share": 0.8}, {"species_code": "THPL", "share": 0.2}],
            "trees_per_acre": 300,
            "confidence": 0.9,
        },
    ).respond_with_json(plan_answer())

    plan = client.stocking_plan(
        "manual", {"PSME": 0.8, "THPL": 0.2}, latitude=44.6, longitude=-123.6, trees_per_acre=300, confidence=0.9
    )

    assert isinstance(plan, StockingPlan)
    assert plan.required.trees_per_acre == 318
    table = plan.to_dataframe()
    assert list(table["horizon_years"]) == [1, 3, 5]


def test_stocking_plan_for_a_stand(client, httpserver):
    stand = {
        "type": "Polygon",
        "coordinates": [[[-123.65, 44.55], [-123.55, 44.55], [-123.55, 44.65], [-123.65, 44.65], [-123.65, 44.55]]],
    }
    httpserver.expect_request(
        "/v1/plans/stocking",
        method="POST",
        json={
            "stand": stand,
            "planting_method": "manual",
            "species_mix": [{"species_code": "PSME", "share": 1}],
            "trees_per_hectare": 990,
        },
    ).respond_with_json(plan_answer())

    client.stocking_plan("manual", "PSME", stand=stand, trees_per_hectare=990)


def plan_answer():
    return {
        "rule": {"id": "or_fpa", "minimum_trees_per_acre": 200, "horizon_years": 5},
        "planted": {"trees_per_acre": 300, "trees_per_hectare": 741.3},
        "horizons": [
            {"horizon_years": h, "survival_probability": p, "expected_trees_per_acre": 300 * p, "lower": 150, "upper": 299}
            for h, p in ((1, 0.938), (3, 0.894), (5, 0.852))
        ],
        "meets_standard": {"probability": 0.866, "at_confidence": False, "horizon_years": 5},
        "required": {"trees_per_acre": 318, "trees_per_hectare": 786, "overplanting_factor": 1.59},
        "notes": ["synthetic data"],
    }
