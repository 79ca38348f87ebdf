import type { ViewState } from './state.ts'

/*
 * Where a GIS finds the surface on screen: the OGC API – Features items of the survival map's hexagons,
 * and the survival raster (a Cloud-Optimized GeoTIFF), for the view's species, method, horizon,
 * climate and model version. The API key is never part of either: a GIS sends it itself.
 */

type SurfaceView = Pick<ViewState, 'species' | 'method' | 'horizon' | 'climate' | 'model' | 'mapCellKm'>

/** The cell size a map link names while the layer is off: the layer's own default. */
const DEFAULT_CELL_KM = 25

function surfaceParameters(view: SurfaceView): URLSearchParams {
  const params = new URLSearchParams({
    species: view.species,
    method: view.method,
    horizon: String(view.horizon),
  })
  if (view.climate) {
    params.set('period', view.climate.period)
    params.set('scenario', view.climate.scenario)
  }
  if (view.model !== null) params.set('model_version', view.model)
  return params
}

/** The survival-hexagons items of the map on screen (QGIS, GDAL: add as an OGC API – Features layer). */
export function ogcItemsUrl(origin: string, view: SurfaceView): string {
  const params = surfaceParameters(view)
  params.set('cell_km', String(view.mapCellKm ?? DEFAULT_CELL_KM))
  return `${origin}/ogc/collections/survival-hexagons/items?${params}`
}

/** GET /v1/rasters/survival.tif for the view: survival at the chosen horizon at every pixel. */
export function rasterPath(view: SurfaceView): string {
  return `/v1/rasters/survival.tif?${surfaceParameters(view)}`
}

/** The name a downloaded raster is saved under, e.g. survival-PSME-manual-5y-2071-2100-ssp585.tif. */
export function rasterFileName(view: SurfaceView): string {
  const climate = view.climate ? `-${view.climate.period}-${view.climate.scenario}` : ''
  return `survival-${view.species}-${view.method}-${view.horizon}y${climate}.tif`
}
