"""Fixtures shared by the unit tests: a client pointed at a pytest-httpserver, with recorded sleeps."""

from __future__ import annotations

from typing import Any

import pytest
from fakes import API_KEY, SleepRecorder

from survival_api import Client


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def client(httpserver: Any, sleeps: SleepRecorder) -> Client:
    with Client(api_key=API_KEY, base_url=httpserver.url_for("/"), sleep=sleeps) as made:
        yield made


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's own key or URL in the environment must not leak into the unit tests."""
    monkeypatch.delenv("SURVIVAL_API_KEY", raising=False)
    monkeypatch.delenv("SURVIVAL_API_URL", raising=False)
