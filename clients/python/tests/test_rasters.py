"""The raster calls against a fake API: the query they send, the file they write, the source they give."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from fakes import API_KEY, last_request
from werkzeug import Response

from survival_api import RasterSource, ValidationError

TIFF = b"II*\x00" + bytes(range(256)) * 400  # not a real GeoTIFF: the client only moves bytes


def test_download_sends_every_choice_as_the_query_and_writes_the_whole_file(client, httpserver, tmp_path):
    httpserver.expect_request("/v1/rasters/survival.tif").respond_with_data(TIFF, content_type="image/tiff")

    written = client.download_survival_raster(
        "PSME",
        "manual",
        5,
        tmp_path / "psme.tif",
        climate=("2041-2070", "ssp245"),
        treatments={"vegetation_control": "release_2yr", "animal_protection": "mesh_tubes"},
        model_version="0.2",
        resolution=0.05,
    )

    assert written == tmp_path / "psme.tif"
    assert written.read_bytes() == TIFF
    assert not (tmp_path / "psme.tif.part").exists()
    request = last_request(httpserver)
    assert request.args.to_dict() == {
        "species": "PSME",
        "method": "manual",
        "horizon": "5",
        "period": "2041-2070",
        "scenario": "ssp245",
        "vegetation_control": "release_2yr",
        "animal_protection": "mesh_tubes",
        "model_version": "0.2",
        "resolution": "0.05",
    }
    assert request.headers["X-API-Key"] == API_KEY


def test_download_leaves_out_what_is_not_chosen(client, httpserver, tmp_path):
    httpserver.expect_request("/v1/rasters/survival.tif").respond_with_data(TIFF, content_type="image/tiff")

    client.download_survival_raster("TSHE", "drone_seeded", 1, tmp_path / "tshe.tif")

    assert last_request(httpserver).args.to_dict() == {"species": "TSHE", "method": "drone_seeded", "horizon": "1"}


def test_a_cut_download_resumes_with_a_range(client, httpserver, tmp_path):
    (tmp_path / "psme.tif.part").write_bytes(TIFF[:1000])
    httpserver.expect_request("/v1/rasters/survival.tif", headers={"Range": "bytes=1000-"}).respond_with_response(
        Response(TIFF[1000:], status=206, headers={"Content-Range": f"bytes 1000-{len(TIFF) - 1}/{len(TIFF)}"})
    )

    client.download_survival_raster("PSME", "manual", 5, tmp_path / "psme.tif")

    assert (tmp_path / "psme.tif").read_bytes() == TIFF


def test_a_refused_raster_is_the_api_error_and_writes_nothing(client, httpserver, tmp_path):
    httpserver.expect_request("/v1/rasters/survival.tif").respond_with_json(
        {"error": {"code": "invalid_species", "message": "Unknown species code XXXX"}}, status=422
    )

    with pytest.raises(ValidationError) as caught:
        client.download_survival_raster("XXXX", "manual", 5, tmp_path / "x.tif")

    assert caught.value.code == "invalid_species"
    assert list(tmp_path.iterdir()) == []


def test_a_horizon_is_an_int(client, tmp_path):
    for horizon in ("5", 5.0, True):
        with pytest.raises(TypeError, match="horizon"):
            client.download_survival_raster("PSME", "manual", horizon, tmp_path / "x.tif")  # type: ignore[arg-type]


def test_a_source_reads_in_place_with_the_key_in_gdal_options_only(client, httpserver):
    source = client.survival_raster_source("PSME", "manual", 3, treatments={"shade": "shade_cards"})

    assert isinstance(source, RasterSource)
    assert source.path == f"/vsicurl/{source.url}"
    parts = urlsplit(source.url)
    assert f"{parts.scheme}://{parts.netloc}" == client.base_url
    assert parts.path == "/v1/rasters/survival.tif"
    assert parse_qs(parts.query) == {"species": ["PSME"], "method": ["manual"], "horizon": ["3"], "shade": ["shade_cards"]}
    assert source.gdal_options["GDAL_HTTP_HEADERS"] == f"X-API-Key: {API_KEY}"
    # The key is never in the URL nor in what the source prints; nothing was sent.
    assert API_KEY not in source.url
    assert API_KEY not in repr(source)
    assert httpserver.log == []
