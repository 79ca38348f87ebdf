"""Surveys (store, page, one plot, delete, report, upload) and models (list, pin, default, calibrate)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from fakes import last_request, raw_path

from survival_api import CalibrationRun, ModelList, SurveyReport, Surveys

PLOT_IN = {
    "plot_id": "Unit 4/NE",
    "latitude": 44.6,
    "longitude": -123.6,
    "species_code": "PSME",
    "planting_method": "manual",
    "planted_on": "2021",
    "surveyed_on": "2024-03-15",
    "planted": 40,
    "alive": 31,
}
PLOT_KEPT = {
    **PLOT_IN,
    "planted_on": "2021-03-01",
    "observed_survival": 0.775,
    "plot_area_m2": None,
    "protocol": None,
    "age_years": 3.04,
    "predicted_survival": 0.898,
    "model_version": "0.2",
    "site": {"site_id": 6743, "matched_latitude": 44.60257, "matched_longitude": -123.59234, "match_distance_km": 0.67},
    "updated_at": "2026-11-27T15:49:13.765Z",
}
BASE_MODEL = {
    "version": "0.2",
    "series": "mycel",
    "codename": "chanterelle",
    "kind": "base",
    "parent": None,
    "created_at": "2026-11-24T00:00:00.000Z",
    "default": True,
    "uncertainty": {"planting_year_sd": 0.8, "site_sd": 0.5, "clumping_dispersion": 2, "status": "assumption"},
}
CALIBRATED = {**BASE_MODEL, "version": "0.2+cal.159a5350", "kind": "calibrated", "parent": "0.2", "default": False, "fit": {"method": "offsets-eb-2"}}


def calibration(status, **extra):
    return {
        "id": "f39b85dd-052c-41fa-b012-87623143d24e",
        "status": status,
        "filter": {"species_code": None, "planting_method": None, "bbox": None, "surveyed_from": None, "surveyed_to": None},
        "progress": {"stages_done": 6 if status == "succeeded" else 2, "stages": 6, "plots": 48},
        "model_version": "0.2+cal.159a5350" if status == "succeeded" else None,
        "error": None,
        "created_at": "2026-11-27T05:07:03.595Z",
        "finished_at": None,
        "links": {"self": "/v1/models/calibrations/f39b85dd-052c-41fa-b012-87623143d24e", "model": None},
        "model": CALIBRATED if status == "succeeded" else None,
        **extra,
    }


def test_store_surveys_sends_plots_with_dates_and_drops_missing(client, httpserver):
    httpserver.expect_request(
        "/v1/surveys", method="POST", json={"plots": [{**PLOT_IN, "surveyed_on": "2024-03-15"}]}
    ).respond_with_json({"stored": 1, "plots": [PLOT_KEPT]})

    stored = client.store_surveys([{**PLOT_IN, "surveyed_on": dt.date(2024, 3, 15), "protocol": None}])

    assert isinstance(stored, Surveys)
    assert stored.stored == 1
    table = stored.to_dataframe()
    assert table.loc[0, "site_id"] == 6743
    assert table.loc[0, "matched_latitude"] == 44.60257


def test_list_surveys_sends_filters(client, httpserver):
    httpserver.expect_request("/v1/surveys", method="GET").respond_with_json({"plots": [PLOT_KEPT], "next_cursor": "abc"})

    page = client.list_surveys(
        species_code="PSME", bbox=(-124, 44, -121, 46), surveyed_from=dt.date(2020, 1, 1), limit=1
    )

    assert page.next_cursor == "abc"
    assert last_request(httpserver).args.to_dict() == {
        "species_code": "PSME",
        "bbox": "-124,44,-121,46",
        "surveyed_from": "2020-01-01",
        "limit": "1",
    }


def test_iter_survey_pages_follows_the_cursor(client, httpserver):
    httpserver.expect_ordered_request("/v1/surveys").respond_with_json({"plots": [PLOT_KEPT], "next_cursor": "c2"})
    httpserver.expect_ordered_request("/v1/surveys").respond_with_json({"plots": [PLOT_KEPT], "next_cursor": None})

    pages = list(client.iter_survey_pages(planting_method="manual", limit=1))

    assert len(pages) == 2
    second = httpserver.log[1][0]
    assert second.args.to_dict() == {"planting_method": "manual", "limit": "1", "cursor": "c2"}


def test_one_plot_and_its_deletion_percent_encode_the_id(client, httpserver):
    # werkzeug matches on the decoded path; the raw request line shows the encoding sent
    httpserver.expect_request("/v1/surveys/Unit 4/NE", method="GET").respond_with_json(
        {"plot_id": "Unit 4/NE", "surveys": [PLOT_KEPT]}
    )
    httpserver.expect_request("/v1/surveys/Unit 4/NE", method="DELETE").respond_with_json(
        {"plot_id": "Unit 4/NE", "deleted": 1}
    )

    plot = client.survey_plot("Unit 4/NE")
    deleted = client.delete_survey_plot("Unit 4/NE")

    assert plot.to_dataframe().shape[0] == 1
    assert deleted.deleted == 1
    assert [raw_path(request) for request, _ in httpserver.log] == ["/v1/surveys/Unit%204%2FNE"] * 2


def test_delete_all_surveys_needs_confirmation(client, httpserver):
    httpserver.expect_request("/v1/surveys", method="DELETE", query_string="confirm=all").respond_with_json({"deleted": 3})

    with pytest.raises(ValueError):
        client.delete_all_surveys()
    assert client.delete_all_surveys(confirm=True).deleted == 3


def test_survey_report(client, httpserver):
    group = {
        "species_code": "PSME",
        "planting_method": "manual",
        "age_band": None,
        "plots": 1,
        "observed_survival": 0.775,
        "observed_interval": {"low": 0.65, "high": 0.87},
        "differs": True,
    }
    httpserver.expect_request("/v1/surveys/report", query_string="model_version=0.2%2Bcal.1").respond_with_json(
        {
            "model_version": "0.2+cal.1",
            "overall": {**group, "species_code": None, "planting_method": None},
            "groups": [group],
            "reliability": [{"bin": "0.8-0.9", "plots": 1, "trees": 40, "mean_predicted": 0.89, "observed": 0.775}],
            "scores": None,
        }
    )

    report = client.survey_report(model_version="0.2+cal.1")

    assert isinstance(report, SurveyReport)
    table = report.to_dataframe()
    assert table.shape[0] == 2
    assert table.loc[1, "observed_interval_low"] == 0.65
    assert report.reliability_dataframe().shape == (1, 5)


def test_upload_surveys_streams_a_file(client, httpserver, tmp_path):
    plots = tmp_path / "plots.csv"
    plots.write_text("plot_id,latitude\nU4-01,44.6\n")
    httpserver.expect_request(
        "/v1/surveys/uploads", method="POST", query_string="skip_invalid=true", headers={"Content-Type": "text/csv"},
        data=plots.read_text(),
    ).respond_with_json({"upload_id": "upl_1", "status": "committed", "stored": 1}, status=201)
    httpserver.expect_request("/v1/surveys/uploads/upl_1", query_string="limit=10").respond_with_json(
        {"upload_id": "upl_1", "refused": [], "next_cursor": None}
    )

    upload = client.upload_surveys(plots, skip_invalid=True)
    again = client.survey_upload("upl_1", limit=10)

    assert upload.status == "committed"
    assert again.refused == []


def test_models_list_and_one_version(client, httpserver):
    httpserver.expect_request("/v1/models").respond_with_json({"models": [CALIBRATED, BASE_MODEL]})
    httpserver.expect_request("/v1/models/0.2+cal.159a5350").respond_with_json(CALIBRATED)

    models = client.models()
    one = client.model("0.2+cal.159a5350")

    assert isinstance(models, ModelList)
    table = models.to_dataframe()
    assert list(table["version"]) == ["0.2+cal.159a5350", "0.2"]
    assert "fit" not in table.columns
    assert table.loc[1, "uncertainty_site_sd"] == 0.5
    assert one.fit.method == "offsets-eb-2"
    assert raw_path(httpserver.log[1][0]) == "/v1/models/0.2%2Bcal.159a5350"


def test_set_default_model_sends_the_version_or_null(client, httpserver):
    httpserver.expect_ordered_request(
        "/v1/models/default", method="PUT", json={"model_version": "0.2+cal.159a5350"}
    ).respond_with_json({**CALIBRATED, "default": True})
    httpserver.expect_ordered_request("/v1/models/default", method="PUT", json={"model_version": None}).respond_with_json(
        BASE_MODEL
    )

    assert client.set_default_model("0.2+cal.159a5350").default is True
    assert client.set_default_model(None).version == "0.2"


def test_calibrate_waits_for_a_long_fit(client, httpserver, sleeps):
    httpserver.expect_ordered_request(
        "/v1/models/calibrations", method="POST", json={"species_code": "PSME", "bbox": [-124, 44, -121, 46]}
    ).respond_with_json(calibration("running"), status=202)
    path = "/v1/models/calibrations/f39b85dd-052c-41fa-b012-87623143d24e"
    httpserver.expect_ordered_request(path).respond_with_json(calibration("running"))
    httpserver.expect_ordered_request(path).respond_with_json(calibration("succeeded"))
    stages = []

    run = client.calibrate(
        species_code="PSME", bbox=(-124, 44, -121, 46), poll_interval=0.5,
        on_progress=lambda r: stages.append(r.progress.stages_done),
    )

    assert isinstance(run, CalibrationRun)
    assert run.succeeded
    assert run.model_version == "0.2+cal.159a5350"
    assert stages == [2, 6]
    assert sleeps.calls == [0.5]


def test_calibrate_finished_at_once_is_not_polled(client, httpserver):
    httpserver.expect_request("/v1/models/calibrations", method="POST", json={}).respond_with_json(
        calibration("succeeded"), status=201
    )

    run = client.calibrate()

    assert run.succeeded
    assert len(httpserver.log) == 1
    assert json.loads(last_request(httpserver).get_data()) == {}
