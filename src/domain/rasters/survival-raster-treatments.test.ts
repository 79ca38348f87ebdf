import { describe, expect, it, vi } from 'vitest'
import { FakeSiteTable, forestSite } from '../../../test/support/fakes.ts'
import { loadSurvivalModel } from '../../model/index.ts'
import type { Site } from '../../types.ts'
import { ApiError } from '../errors.ts'
import { SPECIES } from '../species.ts'
import { SurvivalMapService } from '../survival-map.ts'
import {
  RASTER_NODATA,
  type SurvivalGrid,
  type SurvivalRasterRequest,
  SurvivalRasterService,
} from './survival-raster-service.ts'

const model = loadSurvivalModel(SPECIES)

function sites(): Site[] {
  return Array.from({ length: 42 }, (_, i) => {
    const point = { latitude: 43.5 + Math.floor(i / 7) * 0.2, longitude: -123 + (i % 7) * 0.2 }
    return {
      ...forestSite(point, { vegetationCoverPct: (i * 11) % 90, browsePressureIndex: (i % 3) * 0.4 }),
      ...point,
      id: 1 + i,
    }
  })
}

function setup() {
  const maps = new SurvivalMapService(model, new FakeSiteTable(sites()), { cacheEntries: 8 })
  const written: SurvivalGrid[] = []
  const writer = vi.fn(async (grid: SurvivalGrid) => {
    written.push(grid)
    return Buffer.from(grid.values.buffer.slice(0))
  })
  return { rasters: new SurvivalRasterService(maps, writer, { searchRadiusKm: 10 }), written, writer }
}

const request: SurvivalRasterRequest = {
  speciesCode: 'PSME',
  plantingMethod: 'manual',
  horizon: 5,
  climate: null,
  resolution: 0.05,
}
const treatments = { vegetationControl: 'release_2yr', animalProtection: 'mesh_tubes' }

describe('SurvivalRasterService with treatments', () => {
  it('draws treated survival at or above the untreated in every pixel, nodata in the same places', async () => {
    const { rasters, written } = setup()
    const plain = await (await rasters.order(request, model)).raster()
    const treated = await (await rasters.order({ ...request, treatments }, model)).raster()
    const [before, after] = written
    if (!before || !after) throw new Error('not written')
    let higher = 0
    for (let i = 0; i < before.values.length; i++) {
      const [a, b] = [before.values[i] as number, after.values[i] as number]
      if (a === RASTER_NODATA) expect(b).toBe(RASTER_NODATA)
      else expect(b).toBeGreaterThanOrEqual(a)
      if (b > a) higher += 1
    }
    expect(higher).toBeGreaterThan(0)
    expect(plain.fileName).toBe('survival-PSME-manual-5y.tif')
    expect(treated.fileName).toBe('survival-PSME-manual-5y-release_2yr-mesh_tubes.tif')
    expect(before.metadata.treatments).toBeUndefined()
    expect(after.metadata).toMatchObject({
      treatments: 'vegetation_control=release_2yr, animal_protection=mesh_tubes',
      treatments_data_version: expect.stringMatching(/^treatments-[0-9a-f]{12}$/),
    })
    expect(treated.etag).not.toBe(plain.etag)
  })

  it('keys a treated raster apart; untreated (none, null, {}) keeps its key and its bytes', async () => {
    const { rasters, writer } = setup()
    const plain = await rasters.order(request, model)
    const bytes = (await plain.raster()).bytes
    expect(plain.key.split('|')).toHaveLength(8)
    for (const none of [null, {}, { vegetationControl: 'none', animalProtection: 'none' }]) {
      const again = await rasters.order({ ...request, treatments: none }, model)
      expect(again.key).toBe(plain.key)
      expect(again.ready?.bytes).toBe(bytes)
    }
    const treated = await rasters.order({ ...request, treatments }, model)
    expect(treated.key).not.toBe(plain.key)
    expect(treated.ready).toBeUndefined()
    const other = await rasters.order({ ...request, treatments: { vegetationControl: 'release_2yr' } }, model)
    expect(new Set([plain.key, treated.key, other.key]).size).toBe(3)
    expect(writer).toHaveBeenCalledTimes(1)
  })

  it('refuses tubes for drone seeding (invalid_treatment) before reading the sites', async () => {
    const { rasters } = setup()
    const error = await rasters
      .order(
        { ...request, plantingMethod: 'drone_seeded', treatments: { animalProtection: 'mesh_tubes' } },
        model,
      )
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).code).toBe('invalid_treatment')
    expect((error as ApiError).details).toEqual({
      treatment: 'animal_protection',
      value: 'mesh_tubes',
      planting_method: 'drone_seeded',
    })
  })
})
