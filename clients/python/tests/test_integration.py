"""End to end against the real API: started from the repository with its embedded database.

``npx tsx src/wiring/main.ts`` without ``DATABASE_URL`` runs an embedded PostgreSQL, migrates and
seeds it, and prints one demo key per tier on stdout; the test reads those keys, waits for
``GET /v1/health``, talks to the server through the client, and stops the server's process group.
Skipped only when node or npx is not installed.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest
import requests

from survival_api import Client, Job, JobResults, ValidationError

REPOSITORY = Path(__file__).resolve().parents[3]
STARTUP_SECONDS = float(os.environ.get("SURVIVAL_API_TEST_STARTUP_SECONDS", "180"))
DEMO_KEY = re.compile(r"^\s+(spore|mycel|hypha)\s+(\S+_live_[0-9a-f]{32})\s*$", re.MULTILINE)
# Settings that would take the server off its embedded store or in-process quota.
UNSET = ("DATABASE_URL", "REDIS_URL", "REDIS_CLUSTER_NODES", "WEB_CONCURRENCY", "METRICS_PORT", "DATABASE_REPLICA_URLS")

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        shutil.which("node") is None or shutil.which("npx") is None, reason="node and npx are needed to run the API"
    ),
]


class RunningServer:
    def __init__(self, base_url: str, keys: dict[str, str]) -> None:
        self.base_url = base_url
        self.keys = keys

    def client(self, tier: str) -> Client:
        return Client(api_key=self.keys[tier], base_url=self.base_url, timeout=60)


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    port = _free_port()
    env = {name: value for name, value in os.environ.items() if name not in UNSET}
    env.update(PORT=str(port), HOST="127.0.0.1", LOG_LEVEL="warn")
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(
            ["npx", "tsx", "src/wiring/main.ts"],
            cwd=REPOSITORY,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so npx's children stop with it
        )
        try:
            base_url = f"http://127.0.0.1:{port}"
            keys = _wait_until_ready(process, output, base_url)
            yield RunningServer(base_url, keys)
        finally:
            _stop(process)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _read(output) -> str:
    output.seek(0)
    return output.read().decode("utf-8", errors="replace")


def _wait_until_ready(process: subprocess.Popen, output, base_url: str) -> dict[str, str]:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the API exited with {process.returncode} while starting:\n{_read(output)[-3000:]}")
        keys = dict(DEMO_KEY.findall(_read(output)))
        if len(keys) == 3:
            try:
                health = requests.get(f"{base_url}/v1/health", timeout=5)
                if health.status_code == 200 and health.json().get("status") == "healthy":
                    return keys
            except requests.RequestException:
                pass
        time.sleep(0.5)
    pytest.fail(f"the API was not healthy within {STARTUP_SECONDS:.0f} s:\n{_read(output)[-3000:]}")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    group = os.getpgid(process.pid)
    os.killpg(group, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(group, signal.SIGKILL)
        process.wait(timeout=10)
    # npx may exit before the node process it started: make sure the group is gone.
    try:
        os.killpg(group, signal.SIGKILL)
    except ProcessLookupError:
        pass


def test_predictions_end_to_end(server):
    with server.client("hypha") as client:
        assert client.health().database == "connected"

        prediction = client.predict(44.6, -123.6, "PSME", "manual", horizons=[1, 5], model_version="0.2")
        assert [p.horizon_years for p in prediction.predictions] == [1, 5]
        assert 0 < prediction.survival(5) < 1
        assert prediction.meta.request_id

        comparison = client.compare(44.6, -123.6, "PSME")
        differential = comparison.to_dataframe()
        assert list(differential["horizon_years"]) == [1, 3, 5]

        ranking = client.rank(44.2, -122.2, "manual", 5)
        ranked = ranking.to_dataframe()
        assert len(ranked) == 20
        assert ranked["survival_probability"].is_monotonic_decreasing

        batch = client.predict_batch(
            [
                {"latitude": 44.6, "longitude": -123.6, "species_code": "PSME", "planting_method": "manual"},
                {"latitude": 43.6, "longitude": -116.2, "species_code": "PIPO", "planting_method": "drone_seeded"},
                {"latitude": 44.2, "longitude": -122.2, "species_code": "TSHE", "planting_method": "manual",
                 "climate": ("2041-2070", "ssp245")},
            ]
        )
        table = batch.to_dataframe()
        assert table.shape[0] == 3
        assert table.loc[1, "error_code"] == "outside_coverage"
        assert table["survival_5y"].notna().tolist() == [True, False, True]
        assert batch.to_geodataframe().crs.to_epsg() == 4326

        species = client.species(group="conifer")
        assert species.count == 16

        models = client.models().to_dataframe()
        assert "0.2" in set(models["version"])

        usage = client.usage()
        assert usage.key.tier == "hypha"
        assert usage.today.used >= 7


def test_pdf_reports_end_to_end(server, tmp_path):
    """Each report is a PDF of the same answer: the JSON answer's numbers are in its text (pdftotext)."""
    with server.client("hypha") as client:
        comparison = client.compare(44.2, -122.2, "TSHE", model_version="0.2")
        pdf = client.compare_pdf(44.2, -122.2, "TSHE", model_version="0.2", language="es-MX")
        assert pdf.startswith(b"%PDF-")
        text = _pdf_text(pdf, tmp_path)
        assert "Comparación de métodos de plantación" in text
        for row in comparison.method_differential:
            assert f"{row.manual:.3f}".replace(".", ",") in text

        ranking = client.rank(44.0, -121.6, "manual", 3)
        target = tmp_path / "ranking.pdf"
        pdf = client.rank_pdf(44.0, -121.6, "manual", 3, paper="a4", path=target)
        assert target.read_bytes() == pdf
        text = _pdf_text(pdf, tmp_path)
        assert "Species ranked by survival" in text
        for row in ranking.ranking:
            assert f"{row.survival_probability:.3f}" in text

        stand = {
            "type": "Feature",
            "properties": {"name": "North unit"},
            "geometry": {
                "type": "Polygon",
                "coordinates": [[[-123.63, 44.57], [-123.57, 44.57], [-123.57, 44.63], [-123.63, 44.63],
                                 [-123.63, 44.57]]],
            },
        }
        plan = client.stocking_plan("manual", "PSME", stand=stand, trees_per_acre=300)
        pdf = client.stocking_plan_pdf("manual", "PSME", stand=stand, trees_per_acre=300)
        text = _pdf_text(pdf, tmp_path)
        assert "North unit" in text
        assert f"{plan.meets_standard.probability:.3f}" in text

        with pytest.raises(ValidationError) as caught:
            client.compare_pdf(43.6, -116.2, "PSME")
        assert caught.value.code == "outside_coverage"


def _pdf_text(pdf: bytes, directory: Path) -> str:
    """The PDF's text as poppler-utils' pdftotext reads it, with runs of white space as one space."""
    if shutil.which("pdftotext") is None:
        pytest.fail("pdftotext is missing: apt-get install poppler-utils")
    source = directory / "report.pdf"
    source.write_bytes(pdf)
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(source), "-"], check=True, capture_output=True).stdout
    return " ".join(text.decode("utf-8").split())


def test_treatments_costs_and_planting_options_end_to_end(server):
    with server.client("hypha") as client:
        plan = client.stocking_plan(
            "manual",
            "PSME",
            latitude=44.6,
            longitude=-123.6,
            trees_per_acre=300,
            treatments={"animal_protection": "mesh_tubes"},
            costs={"tubes_per_tree": 2.9},
        )
        tubes = [part for part in plan.cost.parts if part.item == "tubes"]
        assert [(part.unit_cost, part.status) for part in tubes] == [(2.9, "given")]

        found = client.planting_options("PSME", latitude=44.6, longitude=-123.6, confidence=0.9)
        costs = [option.cost.per_acre for option in found.options]
        assert costs and costs == sorted(costs)
        assert all(option.probability >= 0.9 for option in found.options)
        assert list(found.to_dataframe()["cost_per_acre"]) == costs

        with pytest.raises(ValidationError) as refused:
            client.planting_options(
                "PSME",
                latitude=44.6,
                longitude=-123.6,
                methods="drone_seeded",
                treatments={"vegetation_control": "none", "animal_protection": "mesh_tubes"},
            )
        assert refused.value.code == "invalid_treatment"


def test_a_bad_species_is_a_validation_error(server):
    with server.client("spore") as client:
        with pytest.raises(ValidationError) as caught:
            client.predict(44.6, -123.6, "PSMA", "manual")

    error = caught.value
    assert (error.status, error.code) == (422, "invalid_species")
    assert error.details.get("closest_code") == "PSME"
    assert error.request_id


def test_a_small_job_end_to_end(server, tmp_path):
    rows = [
        {"id": "stand-1", "latitude": 44.6, "longitude": -123.6, "species_code": "PSME", "planting_method": "manual"},
        {"id": "stand-2", "latitude": 44.2, "longitude": -122.2, "species_code": "TSHE", "planting_method": "drone_seeded",
         "horizons": [1, 5]},
        {"id": "stand-3", "latitude": 43.6, "longitude": -116.2, "species_code": "PIPO", "planting_method": "manual"},
    ]
    seen: list[str] = []
    with server.client("mycel") as client:
        accepted = client.submit_job(rows)
        assert isinstance(accepted, Job) and accepted.rows == 3

        done = client.wait_for_job(accepted, poll_interval=0.25, timeout=60, on_progress=lambda j: seen.append(j.status))
        assert done.succeeded, done
        assert (done.rows_done, done.rows_failed) == (3, 1)
        assert seen[-1] == "succeeded"

        saved = client.download_job_results(accepted.id, tmp_path / "scored.ndjson")
        client.cancel_job(accepted)  # a finished job: deleted with its results

    table = JobResults.from_file(saved).to_dataframe()
    assert list(table["id"]) == ["stand-1", "stand-2", "stand-3"]
    assert table.loc[2, "error_code"] == "outside_coverage"
    assert 0 < table.loc[0, "survival_5y"] < 1


def test_a_survival_raster_downloaded_and_read_in_place_end_to_end(server, tmp_path):
    import numpy
    import rasterio  # Debian's python3-rasterio: GDAL reads what the client fetched

    with server.client("hypha") as client:
        saved = client.download_survival_raster(
            "PSME", "manual", 5, tmp_path / "psme.tif", treatments={"animal_protection": "mesh_tubes"}, resolution=0.05
        )
        source = client.survival_raster_source(
            "PSME", "manual", 5, treatments={"animal_protection": "mesh_tubes"}, resolution=0.05
        )
        with rasterio.open(saved) as downloaded:
            assert downloaded.crs.to_epsg() == 4326
            assert downloaded.nodata == -9999
            assert "mesh_tubes" in downloaded.tags()["treatments"]
            row, col = downloaded.index(-123.6, 44.6)
            lon, lat = downloaded.xy(row, col)
            pixel = downloaded.read(1)[row, col]
            with rasterio.Env(**source.gdal_options), rasterio.open(source.path) as in_place:
                assert numpy.array_equal(in_place.read(1), downloaded.read(1))
        # A pixel is what predict answers at its centre, as Float32.
        at_centre = client.predict(lat, lon, "PSME", "manual", treatments={"animal_protection": "mesh_tubes"})
        assert pixel == numpy.float32(at_centre.survival(5))

        with pytest.raises(ValidationError) as refused:
            client.download_survival_raster("PSME", "drone_seeded", 5, tmp_path / "x.tif",
                                            treatments={"animal_protection": "mesh_tubes"})
        assert refused.value.code == "invalid_treatment"
        assert not (tmp_path / "x.tif").exists()
