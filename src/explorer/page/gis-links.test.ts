import { describe, expect, it } from 'vitest'
import { ogcItemsUrl, rasterFileName, rasterPath } from './gis-links.ts'

const today = {
  species: 'PSME',
  method: 'manual',
  horizon: 5,
  climate: null,
  model: null,
  mapCellKm: null,
} as const

describe('the links a GIS is given', () => {
  it('names the map on screen in the OGC items URL, the cell size defaulting to the layer’s', () => {
    expect(ogcItemsUrl('http://localhost:8080', today)).toBe(
      'http://localhost:8080/ogc/collections/survival-hexagons/items?species=PSME&method=manual&horizon=5&cell_km=25',
    )
    const future = {
      ...today,
      method: 'drone_seeded',
      horizon: 3,
      climate: { period: '2071-2100', scenario: 'ssp585' },
      model: '0.2+cal.3f9a1c2e',
      mapCellKm: 50,
    } as const
    expect(ogcItemsUrl('https://api.example.org', future)).toBe(
      'https://api.example.org/ogc/collections/survival-hexagons/items?species=PSME&method=drone_seeded&horizon=3&period=2071-2100&scenario=ssp585&model_version=0.2%2Bcal.3f9a1c2e&cell_km=50',
    )
    expect(rasterPath(future)).toBe(
      '/v1/rasters/survival.tif?species=PSME&method=drone_seeded&horizon=3&period=2071-2100&scenario=ssp585&model_version=0.2%2Bcal.3f9a1c2e',
    )
    expect(rasterFileName(future)).toBe('survival-PSME-drone_seeded-3y-2071-2100-ssp585.tif')
    expect(rasterFileName(today)).toBe('survival-PSME-manual-5y.tif')
  })
})
