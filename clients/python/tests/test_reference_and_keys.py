"""Reference data, health, usage, audit, keys, and the client's own settings."""

from __future__ import annotations

import json
import re

import requests
from fakes import API_KEY, last_request

from survival_api import Client, Coverage, SpeciesList, Usage, __version__

SPECIES = {
    "species": [
        {"code": "ALRU", "common_name": "red alder", "group": "hardwood", "range_zones": ["coast"]},
        {"code": "ACMA", "common_name": "bigleaf maple", "group": "hardwood", "range_zones": ["coast"]},
    ],
    "count": 2,
}
USAGE = {
    "key": {"id": "key_42f97698059ecefd", "tier": "hypha", "status": "active", "name": "demo"},
    "limits": {"requests_per_day": None, "batch_size": 500},
    "today": {"used": 5, "remaining": None, "resets_at": "2026-11-28T00:00:00.000Z"},
    "history": [{"date": "2026-11-26", "requests": 0}, {"date": "2026-11-27", "requests": 5}],
}


def test_species_with_filters(client, httpserver):
    httpserver.expect_request("/v1/species", query_string="group=hardwood&search=al").respond_with_json(SPECIES)

    species = client.species(group="hardwood", search="al")

    assert isinstance(species, SpeciesList)
    assert species.count == 2
    assert list(species.to_dataframe()["code"]) == ["ALRU", "ACMA"]


def test_methods_climate_and_health(client, httpserver):
    httpserver.expect_request("/v1/methods").respond_with_json({"methods": [{"id": "manual", "name": "Hand planting"}]})
    httpserver.expect_request("/v1/climate").respond_with_json({"baseline_period": "1991_2020", "periods": []})
    httpserver.expect_request("/v1/treatments").respond_with_json(
        {"data_version": "treatments-0123456789ab", "treatments": [], "effects": [{"id": "tubes", "sources": []}]}
    )
    httpserver.expect_request("/v1/health").respond_with_json({"status": "healthy", "database": "connected"})
    httpserver.expect_request("/v1/health/live").respond_with_json({"status": "alive"})

    assert client.methods().methods[0].id == "manual"
    assert client.climate().baseline_period == "1991_2020"
    assert client.treatments().effects[0].id == "tubes"
    assert client.health().status == "healthy"
    assert "X-API-Key" not in last_request(httpserver).headers  # health needs no key
    assert client.live().status == "alive"
    assert "X-API-Key" not in last_request(httpserver).headers


def test_coverage_as_polygons(client, httpserver):
    square = [[[-124, 42], [-117, 42], [-117, 49], [-124, 49], [-124, 42]]]
    httpserver.expect_request("/v1/coverage").respond_with_data(
        json.dumps(
            {
                "type": "FeatureCollection",
                "region": "pnw",
                "features": [
                    {"type": "Feature", "properties": {"name": "Oregon"}, "geometry": {"type": "Polygon", "coordinates": square}}
                ],
            }
        ),
        content_type="application/geo+json",
    )

    coverage = client.coverage()
    polygons = coverage.to_geodataframe()

    assert isinstance(coverage, Coverage)
    assert coverage.region == "pnw"
    assert polygons.crs.to_epsg() == 4326
    assert polygons.geometry[0].geom_type == "Polygon"


def test_usage_history_as_a_frame(client, httpserver):
    httpserver.expect_request("/v1/usage").respond_with_json(USAGE)

    usage = client.usage()

    assert isinstance(usage, Usage)
    assert usage.today.used == 5
    assert usage.limits.requests_per_day is None
    assert usage.to_dataframe().shape == (2, 2)


def test_audit_log_pages(client, httpserver):
    httpserver.expect_request("/v1/audit", query_string="limit=20&cursor=c1").respond_with_json(
        {"events": [{"id": "e1", "kind": "key.rotated"}], "next_cursor": None}
    )

    assert client.audit_log(limit=20, cursor="c1").events[0].kind == "key.rotated"


def test_rotate_key_switches_to_the_new_key(client, httpserver):
    new_key = "tsp_live_ffffffffffffffffffffffffffffffff"
    httpserver.expect_request(
        "/v1/keys/rotate", method="POST", headers={"X-API-Key": API_KEY}, json={"grace_seconds": 3600}
    ).respond_with_json({"id": "key_2", "key": new_key, "tier": "spore", "status": "active"}, status=201)
    httpserver.expect_request("/v1/usage", headers={"X-API-Key": new_key}).respond_with_json(USAGE)

    rotated = client.rotate_key(grace_seconds=3600)
    client.usage()

    assert rotated.key == new_key
    assert new_key not in repr(rotated)  # a key never lands in a log through repr
    assert client.api_key == new_key


def test_request_key_sends_no_key(client, httpserver):
    httpserver.expect_request(
        "/keys", method="POST", json={"email": "ana@example.org", "name": "nursery"}
    ).respond_with_json({"status": "check_your_email"}, status=202)

    assert client.request_key("ana@example.org", name="nursery").status == "check_your_email"
    assert "X-API-Key" not in last_request(httpserver).headers


def test_user_agent_names_the_package_and_version(client, httpserver):
    httpserver.expect_request("/v1/methods").respond_with_json({"methods": []})

    client.methods()

    agent = last_request(httpserver).headers["User-Agent"]
    assert agent.startswith(f"survival-api-python/{__version__} ")


def test_settings_come_from_the_environment(httpserver, monkeypatch):
    monkeypatch.setenv("SURVIVAL_API_KEY", "tsp_live_from_env")
    monkeypatch.setenv("SURVIVAL_API_URL", httpserver.url_for("/"))
    httpserver.expect_request("/v1/methods", headers={"X-API-Key": "tsp_live_from_env"}).respond_with_json({"methods": []})

    client = Client()

    client.methods()
    assert client.base_url == httpserver.url_for("/").rstrip("/")


def test_arguments_win_over_the_environment(monkeypatch):
    monkeypatch.setenv("SURVIVAL_API_KEY", "from-env")
    monkeypatch.setenv("SURVIVAL_API_URL", "http://env.example:1")

    client = Client(api_key="given", base_url="http://given.example:2/")

    assert (client.api_key, client.base_url) == ("given", "http://given.example:2")


def test_the_default_url_is_localhost_8080():
    assert Client().base_url == "http://localhost:8080"


def test_repr_never_shows_the_key():
    client = Client(api_key=API_KEY)

    assert API_KEY not in repr(client)
    assert re.search(r"api key set", repr(client))


def test_a_given_session_is_used_and_left_open(httpserver):
    session = requests.Session()
    session.headers["X-Trace"] = "mine"
    httpserver.expect_request("/v1/methods", headers={"X-Trace": "mine"}).respond_with_json({"methods": []})

    with Client(api_key="k", base_url=httpserver.url_for("/"), session=session) as client:
        client.methods()

    session.get(httpserver.url_for("/v1/methods"))  # still usable: the client closed only its own
