"""to_dataframe / to_geodataframe: columns, shapes, CRS, and the message when an extra is missing."""

from __future__ import annotations

import sys

import pytest
from fakes import SITE, batch_answer, prediction, ranking_answer

from survival_api import ApiObject, BatchResult, Comparison, Prediction, Ranking, Surveys
from survival_api.dataframes import BATCH_COLUMNS, PREDICTION_COLUMNS, RANKING_COLUMNS

SENT = [
    {"latitude": 44.6, "longitude": -123.6, "species_code": "PSME", "planting_method": "manual", "horizons": [5]},
    {"latitude": 43.6, "longitude": -116.2, "species_code": "PIPO", "planting_method": "drone_seeded"},
]


def test_batch_frame_has_a_row_per_site_with_errors_in_place():
    table = BatchResult(batch_answer(), sites=SENT).to_dataframe()

    assert table.shape == (2, len(BATCH_COLUMNS))
    assert list(table.columns) == list(BATCH_COLUMNS)
    scored, failed = table.iloc[0], table.iloc[1]
    assert scored["survival_5y"] == 0.86
    assert scored["top_factor_5y"] == "Competing vegetation"
    assert scored["survival_1y"] is None or scored["survival_1y"] != scored["survival_1y"]  # None or NaN
    assert scored["error_code"] is None
    assert (failed["latitude"], failed["longitude"], failed["species_code"]) == (43.6, -116.2, "PIPO")
    assert failed["error_code"] == "outside_coverage"


def test_batch_geoframe_places_every_site_it_was_sent():
    points = BatchResult(batch_answer(), sites=SENT).to_geodataframe()

    assert points.crs.to_epsg() == 4326
    assert len(points) == 2
    assert (points.geometry.x[1], points.geometry.y[1]) == (-116.2, 43.6)


def test_prediction_frame_is_one_wide_row():
    table = Prediction(prediction()).to_dataframe()

    assert list(table.columns) == list(PREDICTION_COLUMNS)
    assert table.shape == (1, len(PREDICTION_COLUMNS))
    assert table.loc[0, "survival_3y"] == 0.9
    assert table.loc[0, "model_version"] == "0.2"


def test_ranking_frame_is_ranked():
    ranking = Ranking(ranking_answer())
    table = ranking.to_dataframe()

    assert list(table.columns) == list(RANKING_COLUMNS)
    assert list(table["rank"]) == [1, 2, 3]
    assert list(table["species_code"]) == ["CADE", "ABGR", "PSME"]
    assert ranking.to_geodataframe().crs.to_epsg() == 4326


def test_comparison_frame_has_a_row_per_horizon():
    comparison = Comparison(
        {
            "site": SITE,
            "species_code": "PSME",
            "method_differential": [
                {"horizon_years": h, "manual": 0.9, "drone_seeded": 0.8, "difference": 0.1} for h in (1, 3, 5)
            ],
        }
    )

    table = comparison.to_dataframe()

    assert table.shape == (3, 7)
    assert list(table["horizon_years"]) == [1, 3, 5]
    assert comparison.to_geodataframe().geometry.x.tolist() == [-123.6] * 3


def test_survey_page_geoframe_uses_the_plots_own_coordinates():
    plot = {"plot_id": "A", "latitude": 44.0, "longitude": -122.0, "site": {"site_id": 1, "matched_latitude": 44.01}}
    points = Surveys({"plots": [plot, {**plot, "plot_id": "B", "latitude": 45.0}], "next_cursor": None}).to_geodataframe()

    assert list(points["plot_id"]) == ["A", "B"]
    assert points.geometry.y.tolist() == [44.0, 45.0]
    assert points.crs.to_epsg() == 4326


def test_an_empty_batch_keeps_its_columns():
    table = BatchResult({"results": []}, sites=[]).to_dataframe()

    assert table.shape == (0, len(BATCH_COLUMNS))


def test_missing_pandas_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # makes `import pandas` fail

    with pytest.raises(ImportError, match=r'pip install "survival-api\[dataframes\]"'):
        Prediction(prediction()).to_dataframe()


def test_missing_geopandas_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "geopandas", None)

    with pytest.raises(ImportError, match=r'pip install "survival-api\[geo\]"'):
        Prediction(prediction()).to_geodataframe()


def test_api_object_reads_like_json():
    obj = ApiObject({"site": {"region": "pnw"}, "list": [{"a": 1}], "items": 3})

    assert obj.site.region == "pnw"
    assert obj["list"][0].a == 1
    assert obj["items"] == 3  # a field named like a method is read by key
    assert obj == {"site": {"region": "pnw"}, "list": [{"a": 1}], "items": 3}
    assert obj.to_dict() is not obj.raw
    with pytest.raises(AttributeError, match="no field 'nope'"):
        obj.nope
