"""The raster calls: a survival surface as a Cloud-Optimized GeoTIFF, downloaded or read in place."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlencode

from ._common import Treatments, _mapping
from ._core import ClientCore
from ._downloads import stream_to_file
from .bodies import Climate, climate_field
from .transport import _query

RASTER_PATH = "/v1/rasters/survival.tif"


@dataclass(frozen=True)
class RasterSource:
    """A survival raster to read in place through GDAL (rasterio, ``gdalinfo``, QGIS, terra).

    ``path`` is the ``/vsicurl/`` name GDAL opens; ``gdal_options`` are the GDAL settings that send
    the key with each request (``rasterio.Env(**source.gdal_options)``). They hold the key, so the
    repr leaves them out. Reading counts one request however GDAL splits it (docs/rasters.md).
    """

    url: str
    gdal_options: Mapping[str, str] = field(repr=False)

    @property
    def path(self) -> str:
        return f"/vsicurl/{self.url}"


class RasterCalls(ClientCore):
    """``GET /v1/rasters/survival.tif``: survival at every pixel of Oregon and Washington."""

    def download_survival_raster(
        self,
        species_code: str,
        planting_method: str,
        horizon: int,
        path: str | Path,
        *,
        climate: Climate = None,
        treatments: Treatments = None,
        model_version: str | None = None,
        resolution: float | None = None,
        resume: bool = True,
    ) -> Path:
        """Streams the survival raster to ``path``: a Float32 Cloud-Optimized GeoTIFF in EPSG:4326,
        nodata ``-9999`` (docs/rasters.md). Counts one request.

        Args:
            horizon: 1, 3 or 5 years.
            climate: a future climate, as for :meth:`predict` (``("2041-2070", "ssp245")``).
            treatments: establishment treatments; the pixels are then the treated survival.
            model_version: a version of :meth:`models`; default the account's.
            resolution: degrees per pixel (0.005 to 0.5, at most 4 decimals); default 0.01.
            resume: continue a download that was cut (its ``<path>.part``) with a range request.

        The bytes go to ``<path>.part`` and are renamed when whole. Returns ``path``.
        """
        params = _raster_query(
            species_code, planting_method, horizon, climate, treatments, model_version, resolution
        )
        return stream_to_file(
            self._transport,
            RASTER_PATH,
            path,
            params=params,
            headers={"Accept": "image/tiff, application/json"},
            resume=resume,
        )

    def survival_raster_source(
        self,
        species_code: str,
        planting_method: str,
        horizon: int,
        *,
        climate: Climate = None,
        treatments: Treatments = None,
        model_version: str | None = None,
        resolution: float | None = None,
    ) -> RasterSource:
        """The survival raster to read in place, only the tiles needed, without downloading it.

        Nothing is sent until GDAL opens it::

            source = client.survival_raster_source("PSME", "manual", 5)
            with rasterio.Env(**source.gdal_options), rasterio.open(source.path) as raster:
                value = next(raster.sample([(-123.6, 44.6)]))[0]

        The arguments are those of :meth:`download_survival_raster`.
        """
        params = _raster_query(
            species_code, planting_method, horizon, climate, treatments, model_version, resolution
        )
        url = f"{self.base_url}{RASTER_PATH}?{urlencode(_query(params) or {})}"
        options = {
            # GDAL needs no listing of /v1/rasters/ to read one file; the server answers it 404 anyway.
            "GDAL_DISABLE_READDIR_ON_OPEN": "EMPTY_DIR",
        }
        if self.api_key:
            options["GDAL_HTTP_HEADERS"] = f"X-API-Key: {self.api_key}"
        return RasterSource(url=url, gdal_options=options)


def _raster_query(
    species_code: str,
    planting_method: str,
    horizon: int,
    climate: Climate,
    treatments: Treatments,
    model_version: str | None,
    resolution: float | None,
) -> dict[str, Any]:
    if isinstance(horizon, bool) or not isinstance(horizon, int):
        raise TypeError(f"horizon is 1, 3 or 5 (an int), not {horizon!r}")
    return {
        "species": species_code,
        "method": planting_method,
        "horizon": horizon,
        **(climate_field(climate) or {}),
        **(_mapping(treatments) or {}),
        "model_version": model_version,
        "resolution": resolution,
    }
