"""Portfolio jobs: submit from a file or rows, status, wait with progress, download, cancel."""

from __future__ import annotations

import gzip
import io
import json

import pytest
from fakes import API_KEY, job_status, last_request
from werkzeug.wrappers import Response

from survival_api import ApiConnectionError, ConflictError, Job, JobProgressPrinter, JobResults

JOB_ID = "job_0123456789abcdef01234567"
ACCEPTED = {
    "id": JOB_ID,
    "status": "queued",
    "rows": 2,
    "links": {"self": f"/v1/jobs/{JOB_ID}", "results": f"/v1/jobs/{JOB_ID}/results"},
}
CSV_INPUT = "id,latitude,longitude,species_code,planting_method,horizons\nA,44.6,-123.6,PSME,manual,1|5\nB,43.6,-116.2,PIPO,drone_seeded,\n"
CSV_RESULTS = (
    "id,latitude,longitude,species_code,planting_method,horizons,survival_1y,survival_3y,survival_5y,"
    "top_factor_1y,top_factor_3y,top_factor_5y,error_code\r\n"
    "007,44.6,-123.6,PSME,manual,1|5,0.94,,0.86,Competing vegetation,,Competing vegetation,\r\n"
    "B,43.6,-116.2,PIPO,drone_seeded,,,,,,,,outside_coverage\r\n"
)
ROWS = [
    {"id": "a", "latitude": 44.6, "longitude": -123.6, "species_code": "PSME", "planting_method": "manual"},
    {"id": "b", "latitude": 44.2, "longitude": -122.2, "species_code": "TSHE", "planting_method": "drone_seeded",
     "climate": ("2041-2070", "ssp245")},
]


def test_submit_streams_a_csv_file(client, httpserver, tmp_path):
    sites = tmp_path / "sites.csv"
    sites.write_text(CSV_INPUT)
    httpserver.expect_request(
        "/v1/jobs",
        method="POST",
        headers={"Content-Type": "text/csv", "X-API-Key": API_KEY},
        data=CSV_INPUT,
    ).respond_with_json(ACCEPTED, status=202, headers={"Location": f"/v1/jobs/{JOB_ID}"})

    job = client.submit_job(sites)

    assert isinstance(job, Job)
    assert (job.id, job.status, job.rows) == (JOB_ID, "queued", 2)
    assert not job.finished


def test_submit_sends_a_gzip_file_as_it_is(client, httpserver, tmp_path):
    sites = tmp_path / "sites.ndjson.gz"
    sites.write_bytes(gzip.compress(b'{"latitude":44.6}\n'))
    httpserver.expect_request(
        "/v1/jobs",
        method="POST",
        headers={"Content-Type": "application/x-ndjson", "Content-Encoding": "gzip"},
        data=sites.read_bytes(),
    ).respond_with_json(ACCEPTED, status=202)

    client.submit_job(str(sites))


def test_submit_rows_as_ndjson_with_model_version(client, httpserver):
    httpserver.expect_request(
        "/v1/jobs", method="POST", headers={"Content-Type": "application/x-ndjson"}
    ).respond_with_json(ACCEPTED, status=202)

    client.submit_job(iter(ROWS), model_version="0.2+cal.159a5350")

    request = last_request(httpserver)
    assert request.args["model_version"] == "0.2+cal.159a5350"
    lines = [json.loads(line) for line in request.get_data().decode().splitlines()]
    assert lines == [ROWS[0], {**ROWS[1], "climate": {"period": "2041-2070", "scenario": "ssp245"}}]


def test_submit_rows_with_treatment_defaults(client, httpserver):
    httpserver.expect_request("/v1/jobs", method="POST").respond_with_json(ACCEPTED, status=202)

    client.submit_job(ROWS, defaults={"vegetation_control": "release_2yr", "animal_protection": "mesh_tubes"})

    request = last_request(httpserver)
    assert request.args.to_dict() == {"vegetation_control": "release_2yr", "animal_protection": "mesh_tubes"}
    assert [json.loads(line)["id"] for line in request.get_data().decode().splitlines()] == ["a", "b"]


def test_submit_rows_gzipped_on_the_way(client, httpserver):
    httpserver.expect_request(
        "/v1/jobs", method="POST", headers={"Content-Encoding": "gzip"}
    ).respond_with_json(ACCEPTED, status=202)

    client.submit_job(ROWS, compress=True)

    body = gzip.decompress(last_request(httpserver).get_data())
    assert [json.loads(line)["id"] for line in body.splitlines()] == ["a", "b"]


def test_submit_a_dataframe_as_csv(client, httpserver):
    import pandas

    table = pandas.read_csv(io.StringIO(CSV_INPUT), dtype=str)
    httpserver.expect_request(
        "/v1/jobs", method="POST", headers={"Content-Type": "text/csv"}
    ).respond_with_json(ACCEPTED, status=202)

    client.submit_job(table)

    assert last_request(httpserver).get_data().decode() == table.to_csv(index=False)


def test_submit_geojson_with_query_defaults(client, httpserver):
    collection = {"type": "FeatureCollection", "features": []}
    httpserver.expect_request(
        "/v1/jobs", method="POST", headers={"Content-Type": "application/geo+json"}
    ).respond_with_json(ACCEPTED, status=202)

    client.submit_job(
        io.BytesIO(json.dumps(collection).encode()),
        format="geojson",
        defaults={"planting_method": "manual", "trees_per_acre": 400, "horizons": [1, 5]},
    )

    request = last_request(httpserver)
    assert request.args.to_dict() == {"planting_method": "manual", "trees_per_acre": "400", "horizons": "1|5"}
    assert json.loads(request.get_data()) == collection


def test_job_status(client, httpserver):
    httpserver.expect_request(f"/v1/jobs/{JOB_ID}", method="GET").respond_with_json(job_status("running", 2))

    job = client.job(JOB_ID)

    assert job.rows_done == 2
    assert job.fraction_done == 0.5


def test_wait_for_job_reports_progress(client, httpserver, sleeps):
    for state, done in (("queued", 0), ("running", 2), ("succeeded", 4)):
        httpserver.expect_ordered_request(f"/v1/jobs/{JOB_ID}").respond_with_json(
            job_status(state, done, eta_seconds=3 if state == "running" else None)
        )
    seen = []
    printed = io.StringIO()

    job = client.wait_for_job(
        JOB_ID,
        poll_interval=2,
        on_progress=lambda j: seen.append((j.status, j.rows_done)),
        progress=printed,
    )

    assert job.succeeded
    assert seen == [("queued", 0), ("running", 2), ("succeeded", 4)]
    assert sleeps.calls == [2, 2]
    assert printed.getvalue().splitlines() == [
        f"{JOB_ID}: queued 0/4 rows (0%)",
        f"{JOB_ID}: running 2/4 rows (50%), about 3 s left",
        f"{JOB_ID}: succeeded 4/4 rows (100%)",
    ]


def test_wait_for_job_accepts_the_job_object_and_prints_to_stderr(client, httpserver, capsys):
    httpserver.expect_request(f"/v1/jobs/{JOB_ID}").respond_with_json(job_status("failed", 4, failure="chunk 0"))

    job = client.wait_for_job(Job(ACCEPTED), progress=True)

    assert job.status == "failed"
    assert f"{JOB_ID}: failed 4/4 rows (100%)" in capsys.readouterr().err


def test_wait_for_job_times_out(client, httpserver):
    httpserver.expect_request(f"/v1/jobs/{JOB_ID}").respond_with_json(job_status("running", 1))

    with pytest.raises(TimeoutError):
        client.wait_for_job(JOB_ID, timeout=0)


def test_progress_printer_prints_only_changes():
    out = io.StringIO()
    printer = JobProgressPrinter(out)

    for done in (1, 1, 2):
        printer(job_status("running", done))

    assert len(out.getvalue().splitlines()) == 2


def test_download_streams_results_to_a_file(client, httpserver, tmp_path):
    content = CSV_RESULTS.encode() * 5000  # ~1 MB, many chunks
    httpserver.expect_request(f"/v1/jobs/{JOB_ID}/results").respond_with_data(
        content, content_type="text/csv; charset=utf-8"
    )
    target = tmp_path / "scored.csv"

    returned = client.download_job_results(JOB_ID, target, chunk_size=4096)

    assert returned == target
    assert target.read_bytes() == content
    assert not (tmp_path / "scored.csv.part").exists()
    assert last_request(httpserver).headers["Accept"] == "*/*"


def test_download_resumes_a_cut_download(client, httpserver, tmp_path):
    content = CSV_RESULTS.encode()
    (tmp_path / "scored.csv.part").write_bytes(content[:100])
    httpserver.expect_request(
        f"/v1/jobs/{JOB_ID}/results", headers={"Range": "bytes=100-", "Accept": "text/csv"}
    ).respond_with_response(
        Response(content[100:], status=206, headers={"Content-Range": f"bytes 100-{len(content) - 1}/{len(content)}"})
    )

    client.download_job_results(JOB_ID, tmp_path / "scored.csv", format="csv")

    assert (tmp_path / "scored.csv").read_bytes() == content


def test_download_before_the_job_succeeded_is_a_conflict(client, httpserver, tmp_path):
    httpserver.expect_request(f"/v1/jobs/{JOB_ID}/results").respond_with_json(
        {"error": {"code": "job_not_finished", "message": "The job is running"}}, status=409
    )

    with pytest.raises(ConflictError) as caught:
        client.download_job_results(JOB_ID, tmp_path / "scored.csv")

    assert caught.value.code == "job_not_finished"
    assert not (tmp_path / "scored.csv").exists()


def test_job_results_to_dataframe_keeps_ids_as_text(client, httpserver):
    httpserver.expect_request(f"/v1/jobs/{JOB_ID}/results").respond_with_data(
        CSV_RESULTS, content_type="text/csv; charset=utf-8"
    )

    results = client.job_results(JOB_ID)
    table = results.to_dataframe()

    assert isinstance(results, JobResults)
    assert table.shape == (2, 13)
    assert list(table["id"]) == ["007", "B"]
    assert table.loc[0, "survival_5y"] == 0.86
    assert table.loc[1, "error_code"] == "outside_coverage"


def test_job_results_from_ndjson_and_a_saved_file(client, httpserver, tmp_path):
    lines = [
        {"row": 1, "id": "a", "latitude": 44.6, "longitude": -123.6, "survival_5y": 0.86, "error_code": None},
        {"row": 2, "id": "b", "latitude": 44.2, "longitude": -122.2, "survival_5y": None, "error_code": "no_nearby_data"},
    ]
    payload = "".join(json.dumps(line) + "\n" for line in lines)
    httpserver.expect_request(f"/v1/jobs/{JOB_ID}/results", headers={"Accept": "application/x-ndjson"}).respond_with_data(
        payload, content_type="application/x-ndjson"
    )

    table = client.job_results(JOB_ID, format="ndjson").to_dataframe()
    saved = tmp_path / "scored.ndjson"
    saved.write_text(payload)
    points = JobResults.from_file(saved).to_geodataframe()

    assert list(table["id"]) == ["a", "b"]
    assert points.crs.to_epsg() == 4326
    assert (points.geometry.x[0], points.geometry.y[0]) == (-123.6, 44.6)


def test_cancel_a_running_job_returns_it(client, httpserver):
    httpserver.expect_request(f"/v1/jobs/{JOB_ID}", method="DELETE").respond_with_json(job_status("cancelled", 1))

    job = client.cancel_job(JOB_ID)

    assert job.status == "cancelled"


def test_cancel_a_finished_job_deletes_it(client, httpserver):
    httpserver.expect_request(f"/v1/jobs/{JOB_ID}", method="DELETE").respond_with_data("", status=204)

    assert client.cancel_job(JOB_ID) is None


def test_unknown_extension_is_refused_before_sending(client, tmp_path):
    sites = tmp_path / "sites.xlsx"
    sites.write_bytes(b"PK")

    with pytest.raises(ValueError, match="format"):
        client.submit_job(sites)


def test_a_cut_download_keeps_the_part_file_for_resuming(client, httpserver, tmp_path):
    content = CSV_RESULTS.encode()

    def cut_short(request):
        # Announces more bytes than it sends (an iterable body keeps werkzeug from fixing the length).
        return Response(iter([content[:50]]), headers={"Content-Length": str(len(content))})

    httpserver.expect_request(f"/v1/jobs/{JOB_ID}/results").respond_with_handler(cut_short)

    with pytest.raises(ApiConnectionError, match="resume"):
        client.download_job_results(JOB_ID, tmp_path / "scored.csv")

    assert not (tmp_path / "scored.csv").exists()
    assert (tmp_path / "scored.csv.part").read_bytes() == content[:50]
