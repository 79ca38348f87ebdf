"""planting_options, and treatments and costs passed through: what is sent, and what comes back."""

from __future__ import annotations

import json

import pytest
from fakes import prediction

from survival_api import PlantingOptions, ValidationError


def option(method: str, trees: int, per_acre: float, vegetation: str | None = "none") -> dict:
    return {
        "mix_index": 0,
        "species_mix": [{"species_code": "PSME", "share": 1}],
        "planting_method": method,
        "treatments": {"vegetation_control": vegetation, "animal_protection": None, "stock_type": None, "shade": None},
        "trees_per_acre": trees,
        "probability": 0.902,
        "meets_confidence": True,
        "cost": {
            "currency": "USD",
            "per_acre": per_acre,
            "per_established_tree": 0.87,
            "parts": [{"item": "planting", "status": "given", "unit_cost": 0.5}],
            "least_certain_status": "synthesis",
        },
        "treatment_effects": [],
        "least_certain_status": "synthesis",
    }


def options_answer() -> dict:
    return {
        "confidence": 0.9,
        "candidates": 12,
        "options": [option("manual", 236, 195.88), option("drone_seeded", 685, 275.35)],
        "cheapest_failing": None,
        "notes": ["synthetic data"],
    }


def test_planting_options_sends_the_search_and_reads_the_options(client, httpserver):
    httpserver.expect_request(
        "/v1/plans/options",
        method="POST",
        json={
            "latitude": 44.6,
            "longitude": -123.6,
            "species_mix": [{"species_code": "PSME", "share": 1}],
            "confidence": 0.9,
            "methods": ["manual", "drone_seeded"],
            "treatments": {"vegetation_control": ["none", "release_2yr"], "animal_protection": ["none"]},
            "costs": {"planting_per_tree": 0.5},
            "max_trees_per_acre": 800,
        },
    ).respond_with_json(options_answer(), headers={"Request-Id": "req-9"})

    result = client.planting_options(
        "PSME",
        latitude=44.6,
        longitude=-123.6,
        confidence=0.9,
        methods=("manual", "drone_seeded"),
        treatments={"vegetation_control": ["none", "release_2yr"], "animal_protection": "none"},
        costs={"planting_per_tree": 0.5},
        max_trees_per_acre=800,
    )

    assert isinstance(result, PlantingOptions)
    assert result.meta.request_id == "req-9"
    assert [o.cost.per_acre for o in result.options] == [195.88, 275.35]
    assert result.options[0].cost.parts[0].status == "given"
    assert result.cheapest_failing is None
    table = result.to_dataframe()
    assert list(table["planting_method"]) == ["manual", "drone_seeded"]
    assert list(table["cost_per_acre"]) == [195.88, 275.35]
    assert list(table["treatments_vegetation_control"]) == ["none", "none"]


def test_planting_options_takes_candidate_mixes_and_a_stand(client, httpserver):
    stand = {
        "type": "Polygon",
        "coordinates": [[[-123.65, 44.55], [-123.55, 44.55], [-123.55, 44.65], [-123.65, 44.65], [-123.65, 44.55]]],
    }
    httpserver.expect_request(
        "/v1/plans/options",
        method="POST",
        json={
            "stand": stand,
            "species_mixes": [
                [{"species_code": "PSME", "share": 1}],
                [{"species_code": "PSME", "share": 0.7}, {"species_code": "THPL", "share": 0.3}],
            ],
            "methods": ["manual"],
        },
    ).respond_with_json(options_answer())

    client.planting_options(species_mixes=["PSME", {"PSME": 0.7, "THPL": 0.3}], stand=stand, methods="manual")


def test_planting_options_needs_exactly_one_kind_of_mix(client):
    with pytest.raises(ValueError, match="exactly one"):
        client.planting_options(latitude=44.6, longitude=-123.6)
    with pytest.raises(ValueError, match="exactly one"):
        client.planting_options("PSME", species_mixes=["THPL"], latitude=44.6, longitude=-123.6)


def test_planting_options_refused_is_a_validation_error(client, httpserver):
    httpserver.expect_request("/v1/plans/options", method="POST").respond_with_json(
        {
            "error": {
                "code": "invalid_treatment",
                "message": "mesh_tubes does not apply to drone seeding",
                "details": {"treatment": "animal_protection", "value": "mesh_tubes", "planting_method": "drone_seeded"},
            }
        },
        status=422,
    )

    with pytest.raises(ValidationError) as raised:
        client.planting_options(
            "PSME",
            latitude=44.6,
            longitude=-123.6,
            methods="drone_seeded",
            treatments={"animal_protection": ["mesh_tubes"]},
        )

    assert raised.value.code == "invalid_treatment"
    assert raised.value.details["treatment"] == "animal_protection"


def test_stocking_plan_sends_treatments_and_costs(client, httpserver):
    httpserver.expect_request(
        "/v1/plans/stocking",
        method="POST",
        json={
            "latitude": 44.6,
            "longitude": -123.6,
            "planting_method": "manual",
            "species_mix": [{"species_code": "PSME", "share": 1}],
            "trees_per_acre": 300,
            "treatments": {"animal_protection": "mesh_tubes"},
            "costs": {"tubes_per_tree": 2.9, "seedlings": [{"species_code": "PSME", "per_tree": 0.45}]},
        },
    ).respond_with_json({"horizons": [], "cost": {"per_acre": 1119.0}})

    plan = client.stocking_plan(
        "manual",
        "PSME",
        latitude=44.6,
        longitude=-123.6,
        trees_per_acre=300,
        treatments={"animal_protection": "mesh_tubes"},
        costs={"tubes_per_tree": 2.9, "seedlings": [{"species_code": "PSME", "per_tree": 0.45}]},
    )

    assert plan.cost.per_acre == 1119.0


def test_predict_compare_and_rank_send_treatments(client, httpserver):
    treated = {"vegetation_control": "release_2yr"}
    for path in ("/v1/predict", "/v1/predict/compare", "/v1/predict/rank"):
        httpserver.expect_request(path, method="POST").respond_with_json(prediction())

    client.predict(44.6, -123.6, "PSME", "manual", treatments=treated)
    client.compare(44.6, -123.6, "PSME", treatments=treated)
    client.rank(44.6, -123.6, "manual", 5, treatments=treated)

    sent = [json.loads(request.get_data()) for request, _ in httpserver.log]
    assert [body["treatments"] for body in sent] == [treated] * 3
