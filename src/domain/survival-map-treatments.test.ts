import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { FakeSiteTable, forestSite } from '../../test/support/fakes.ts'
import { loadHexagons } from '../geo/hexagons.ts'
import { loadSurvivalModel } from '../model/index.ts'
import type { Site, SurvivalModel } from '../types.ts'
import { ApiError } from './errors.ts'
import type { SurvivalMapRequest } from './prediction-types.ts'
import { SPECIES } from './species.ts'
import { SurvivalMapService, seriesKey } from './survival-map.ts'
import {
  ANIMAL_PROTECTION,
  SHADE,
  STOCK_TYPES,
  type TreatmentsRequest,
  VEGETATION_CONTROL,
} from './treatment-values.ts'
import { TREATMENTS } from './treatments.ts'

beforeAll(loadHexagons)

const model = loadSurvivalModel(SPECIES)

function countingModel(): SurvivalModel & { calls: number } {
  const counted = {
    ...model,
    calls: 0,
    predict: (...args: Parameters<SurvivalModel['predict']>) => {
      counted.calls += 1
      return model.predict(...args)
    },
  }
  return counted
}

/** Sites over the Oregon Cascades whose cover and browse vary, some with neither. */
function sites(): Site[] {
  return Array.from({ length: 40 }, (_, i) => {
    const point = { latitude: 43.5 + Math.floor(i / 10) * 0.2, longitude: -123 + (i % 10) * 0.2 }
    return {
      ...forestSite(point, {
        vegetationCoverPct: (i * 13) % 90,
        browsePressureIndex: (i % 4) * 0.25,
        heatLoadIndex: 0.3 + (i % 5) * 0.15,
      }),
      ...point,
      id: 1 + i,
    }
  })
}

const request: SurvivalMapRequest = { speciesCode: 'PSME', plantingMethod: 'manual', horizon: 5, cellKm: 25 }
const TREATED: TreatmentsRequest = { vegetationControl: 'release_2yr', animalProtection: 'mesh_tubes' }

function service() {
  const counted = countingModel()
  return { maps: new SurvivalMapService(counted, new FakeSiteTable(sites()), { cacheEntries: 8 }), counted }
}

const timeless = ({ generatedAt: _at, ...map }: Awaited<ReturnType<SurvivalMapService['map']>>) => map

describe('SurvivalMapService with treatments', () => {
  it('maps treated survival at or above the untreated in every cell, above it somewhere, and says what it applied', async () => {
    const { maps } = service()
    const plain = await maps.map(request)
    const treated = await maps.map({ ...request, treatments: TREATED })
    expect(plain.treatments).toBeUndefined()
    expect(treated.treatments?.values).toMatchObject({
      vegetation_control: 'release_2yr',
      animal_protection: 'mesh_tubes',
    })
    expect(treated.cells.map((c) => c.h3Index)).toEqual(plain.cells.map((c) => c.h3Index))
    treated.cells.forEach((cell, i) => {
      const before = plain.cells[i]
      expect(cell.meanSurvival).toBeGreaterThanOrEqual(before?.meanSurvival ?? 1)
      expect(cell.minSurvival).toBeGreaterThanOrEqual(before?.minSurvival ?? 1)
    })
    expect(treated.cells.some((cell, i) => cell.meanSurvival > (plain.cells[i]?.meanSurvival ?? 1))).toBe(
      true,
    )
  })

  it('answers exactly the untreated map for null, {} and only none values, from the untreated cache', async () => {
    const { maps, counted } = service()
    const plain = timeless(await maps.map(request))
    const calls = counted.calls
    for (const treatments of [null, {}, { vegetationControl: 'none', shade: 'none' }])
      expect(timeless(await maps.map({ ...request, treatments }))).toEqual(plain)
    expect(counted.calls).toBe(calls)
  })

  it('caches a treated map apart from the untreated one and from other treatments', async () => {
    const { maps, counted } = service()
    await maps.map(request)
    const untreatedCalls = counted.calls
    const first = await maps.map({ ...request, treatments: TREATED })
    const treatedCalls = counted.calls
    expect(treatedCalls).toBeGreaterThan(untreatedCalls)
    expect((await maps.map({ ...request, treatments: TREATED })).cells).toBe(first.cells)
    expect(counted.calls).toBe(treatedCalls)
    await maps.map({ ...request, treatments: { vegetationControl: 'release_2yr' } })
    expect(counted.calls).toBeGreaterThan(treatedCalls)
  })

  it('refuses a hand-planting treatment for drone seeding (invalid_treatment) and a bad value (invalid_request)', async () => {
    const { maps } = service()
    const drone = { ...request, plantingMethod: 'drone_seeded' }
    const tubes = await maps.map({ ...drone, treatments: { animalProtection: 'mesh_tubes' } }).catch((e) => e)
    expect(tubes).toBeInstanceOf(ApiError)
    expect((tubes as ApiError).code).toBe('invalid_treatment')
    const control = await maps.map({ ...drone, treatments: { vegetationControl: 'release_2yr' } })
    expect(control.treatments?.effects[0]?.status).toBe('assumption')
    const bad = await maps.map({ ...request, treatments: { shade: 'umbrella' } }).catch((e) => e)
    expect((bad as ApiError).details).toMatchObject({ field: 'treatments.shade' })
  })

  it('keys every combination of treatments apart, and every untreated one as before treatments', () => {
    const series = {
      species: SPECIES[0] as (typeof SPECIES)[number],
      method: 'manual' as const,
      horizon: 5 as const,
      climate: null,
      model,
    }
    const untreatedKey = seriesKey(series)
    expect(untreatedKey).toBe(`${model.version}:${series.species.code}:manual:5:today`)
    const keys = new Map<string, string>()
    fc.assert(
      fc.property(
        fc.constantFrom(...VEGETATION_CONTROL),
        fc.constantFrom(...ANIMAL_PROTECTION),
        fc.constantFrom(...STOCK_TYPES, null),
        fc.constantFrom(...SHADE),
        (vegetationControl, animalProtection, stockType, shade) => {
          const applied = TREATMENTS.resolve(
            { vegetationControl, animalProtection, stockType, shade },
            'manual',
          )
          const key = seriesKey({ ...series, treatments: applied })
          const what = applied ? applied.effects.map((e) => `${e.treatment}=${e.value}`).join(',') : ''
          if (!applied) expect(key).toBe(untreatedKey)
          else expect(key).not.toBe(untreatedKey)
          const seen = keys.get(key)
          if (seen !== undefined) expect(seen).toBe(what)
          keys.set(key, what)
        },
      ),
    )
  })
})
