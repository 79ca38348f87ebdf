import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { FakeSiteTable, forestSite } from '../../test/support/fakes.ts'
import { cellBoundary, cellCentre, cellOf, loadHexagons } from '../geo/hexagons.ts'
import { loadSurvivalModel } from '../model/index.ts'
import type { Site, SurvivalModel } from '../types.ts'
import { CLIMATE_FUTURES } from './climate.ts'
import { ApiError } from './errors.ts'
import type { SurvivalMapRequest } from './prediction-types.ts'
import { findSpecies, SPECIES } from './species.ts'
import { aggregateCells, cellsOfSites, SurvivalMapService } from './survival-map.ts'

beforeAll(loadHexagons)

const NOW = new Date('2026-11-22T12:00:00Z')
const model = loadSurvivalModel(SPECIES)

/** The real model, counting the sites it is asked about. */
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

/** `count` sites on a grid over the Oregon Cascades (~0.2° apart), attributes varying with position. */
function gridSites(count: number, firstId = 1): Site[] {
  return Array.from({ length: count }, (_, i) => {
    const point = { latitude: 43.5 + Math.floor(i / 10) * 0.2, longitude: -123 + (i % 10) * 0.2 }
    return {
      ...forestSite(point, {
        elevationM: 200 + ((i * 97) % 1800),
        summerWaterDeficitMm: (i * 37) % 400,
        zone: i % 3 === 0 ? 'westside_cascades' : 'westside_lowland',
      }),
      ...point,
      id: firstId + i,
    }
  })
}

const request: SurvivalMapRequest = { speciesCode: 'PSME', plantingMethod: 'manual', horizon: 5, cellKm: 25 }

function service(sites: Site[] = gridSites(60), cacheEntries = 8) {
  const table = new FakeSiteTable(sites)
  const counted = countingModel()
  return { maps: new SurvivalMapService(counted, table, { cacheEntries }, () => NOW), table, model: counted }
}

describe('aggregateCells', () => {
  it('per cell: mean, minimum, maximum and count of its sites’ values', () => {
    const a = cellOf(44.6, -123.6, 5)
    const b = cellOf(46.0, -121.5, 5)
    const cells = aggregateCells([a, b, a, a], [0.2, 0.5, 0.4, 0.9])
    const [first, second] = [a, b].sort()
    expect(cells.map((c) => c.h3Index)).toEqual([first, second])
    const cellA = cells.find((c) => c.h3Index === a)
    expect(cellA).toMatchObject({ minSurvival: 0.2, maxSurvival: 0.9, sites: 3 })
    expect(cellA?.meanSurvival).toBeCloseTo(0.5, 12)
    expect(cells.find((c) => c.h3Index === b)).toMatchObject({
      meanSurvival: 0.5,
      minSurvival: 0.5,
      maxSurvival: 0.5,
      sites: 1,
    })
    expect(cellA).toMatchObject({ ...cellCentre(a), boundary: cellBoundary(a) })
  })

  it('agrees with a plain per-cell computation for any sites and values', () => {
    const pool = [
      cellOf(44.6, -123.6, 4),
      cellOf(45.5, -121.9, 4),
      cellOf(47.2, -120.1, 4),
      cellOf(42.3, -117.8, 4),
    ]
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...pool), fc.double({ min: 0, max: 1, noNaN: true })), {
          minLength: 0,
          maxLength: 200,
        }),
        (entries) => {
          const cells = aggregateCells(
            entries.map(([cell]) => cell),
            entries.map(([, value]) => value),
          )
          const expected = [...new Set(entries.map(([cell]) => cell))].sort()
          expect(cells.map((c) => c.h3Index)).toEqual(expected)
          expect(cells.reduce((n, c) => n + c.sites, 0)).toBe(entries.length)
          for (const cell of cells) {
            const values = entries.filter(([c]) => c === cell.h3Index).map(([, v]) => v)
            expect(cell.sites).toBe(values.length)
            expect(cell.minSurvival).toBe(Math.min(...values))
            expect(cell.maxSurvival).toBe(Math.max(...values))
            expect(cell.meanSurvival).toBeCloseTo(values.reduce((t, v) => t + v, 0) / values.length, 12)
            expect(cell.meanSurvival).toBeGreaterThanOrEqual(cell.minSurvival)
            expect(cell.meanSurvival).toBeLessThanOrEqual(cell.maxSurvival)
          }
        },
      ),
    )
  })

  it('needs one value per site', () => {
    expect(() => aggregateCells(['a'], [])).toThrow(RangeError)
  })
})

describe('SurvivalMapService.map', () => {
  it('evaluates every site once and aggregates them into cells of the chosen resolution', async () => {
    const sites = gridSites(60)
    const { maps, model: counted } = service(sites)
    const map = await maps.map(request)
    expect(counted.calls).toBe(60)
    expect(map).toMatchObject({
      plantingMethod: 'manual',
      horizonYears: 5,
      cellKm: 25,
      h3Resolution: 5,
      siteCount: 60,
      generatedAt: NOW,
      model: { version: model.version, codename: model.codename, series: model.series },
    })
    expect(map.species).toBe(findSpecies('PSME'))
    expect(map.cells.reduce((n, c) => n + c.sites, 0)).toBe(60)
    const survival = sites.map(
      (site) => model.predict(site, map.species, 'manual', [5])[0]?.survivalProbability ?? Number.NaN,
    )
    expect(map.cells).toEqual(aggregateCells(cellsOfSites(sites, 5), survival))
  })

  it('under a climate, each site is the model at that site as projected on its own', async () => {
    const sites = gridSites(60)
    const { maps } = service(sites)
    const climate = { period: '2071-2100', scenario: 'ssp585' } as const
    const map = await maps.map({ ...request, climate })
    // Each site projected into an object of its own: the map's one reused projection must give the same.
    const future = sites.map(
      (site) =>
        model.predict(CLIMATE_FUTURES.project(site, climate).site, map.species, 'manual', [5])[0]
          ?.survivalProbability ?? Number.NaN,
    )
    const today = sites.map(
      (site) => model.predict(site, map.species, 'manual', [5])[0]?.survivalProbability ?? Number.NaN,
    )
    expect(future).not.toEqual(today)
    expect(map.cells).toEqual(aggregateCells(cellsOfSites(sites, 5), future))
    expect(await map.cellsWithChange?.()).toEqual(aggregateCells(cellsOfSites(sites, 5), future, today))
  })

  it('answers again from its caches: one revision read per call, no site read, no model call', async () => {
    const { maps, table, model: counted } = service()
    const first = await maps.map(request)
    counted.calls = 0
    const second = await maps.map(request)
    expect(counted.calls).toBe(0)
    expect(second.cells).toBe(first.cells)
    expect(table.reads).toBe(1)
    expect(table.revisionReads).toBe(2)
  })

  it('another cell size reuses the per-site survival (same resolution: the same cells)', async () => {
    const { maps, model: counted } = service()
    const at25 = await maps.map(request)
    counted.calls = 0
    const at20 = await maps.map({ ...request, cellKm: 20 })
    expect(at20.cells).toBe(at25.cells)
    expect(at20.cellKm).toBe(20)
    const at100 = await maps.map({ ...request, cellKm: 100 })
    expect(at100.h3Resolution).toBe(3)
    expect(at100.cells.length).toBeLessThan(at25.cells.length)
    expect(counted.calls).toBe(0)
  })

  it('maps at one resolution share each cell’s outline, worked out once', async () => {
    const { maps } = service()
    const psme = await maps.map(request)
    const tshe = await maps.map({ ...request, speciesCode: 'TSHE', horizon: 1 })
    expect(tshe.cells.map((cell) => cell.h3Index)).toEqual(psme.cells.map((cell) => cell.h3Index))
    for (const [index, cell] of tshe.cells.entries()) {
      expect(cell.boundary).toBe(psme.cells[index]?.boundary)
      expect(cell.boundary).toEqual(cellBoundary(cell.h3Index))
      expect({ latitude: cell.latitude, longitude: cell.longitude }).toEqual(cellCentre(cell.h3Index))
    }
  })

  it('keys the cache by species, method and horizon', async () => {
    const { maps, model: counted } = service(gridSites(30))
    await maps.map(request)
    await maps.map({ ...request, horizon: 1 })
    await maps.map({ ...request, plantingMethod: 'drone_seeded' })
    await maps.map({ ...request, speciesCode: 'TSHE' })
    expect(counted.calls).toBe(4 * 30)
  })

  it('is bounded: beyond cacheEntries the least recently used is computed again', async () => {
    const { maps, model: counted } = service(gridSites(10), 2)
    await maps.map({ ...request, speciesCode: 'PSME' })
    await maps.map({ ...request, speciesCode: 'TSHE' })
    await maps.map({ ...request, speciesCode: 'THPL' })
    counted.calls = 0
    await maps.map({ ...request, speciesCode: 'THPL' })
    expect(counted.calls).toBe(0)
    await maps.map({ ...request, speciesCode: 'PSME' })
    expect(counted.calls).toBe(10)
  })

  it('starts over when the site table changes (a reseed from another process)', async () => {
    const { maps, table, model: counted } = service(gridSites(40))
    const before = await maps.map(request)
    expect(before.siteCount).toBe(40)
    table.replace(gridSites(25, 1000))
    counted.calls = 0
    const after = await maps.map(request)
    expect(table.reads).toBe(2)
    expect(counted.calls).toBe(25)
    expect(after.siteCount).toBe(25)
    expect(after.cells.reduce((n, c) => n + c.sites, 0)).toBe(25)
  })

  it('concurrent calls share one read of the sites and one evaluation', async () => {
    const { maps, table, model: counted } = service(gridSites(50))
    const results = await Promise.all([
      maps.map(request),
      maps.map(request),
      maps.map({ ...request, cellKm: 60 }),
    ])
    expect(table.reads).toBe(1)
    expect(counted.calls).toBe(50)
    expect(results[0].cells).toBe(results[1].cells)
  })

  it('evaluates a large table a slice at a time, letting other work run in between', async () => {
    const { maps } = service(gridSites(5000))
    let ticks = 0
    const ticker = setInterval(() => {
      ticks += 1
    }, 0)
    try {
      const map = await maps.map(request)
      expect(map.siteCount).toBe(5000)
    } finally {
      clearInterval(ticker)
    }
    expect(ticks).toBeGreaterThan(0)
  })

  it('checks species, then method, before touching the site table', async () => {
    const { maps, table } = service()
    const species = await maps.map({ ...request, speciesCode: 'PSMA', plantingMethod: 'x' }).catch((e) => e)
    expect(species).toBeInstanceOf(ApiError)
    expect((species as ApiError).code).toBe('invalid_species')
    const method = await maps.map({ ...request, plantingMethod: 'helicopter' }).catch((e) => e)
    expect((method as ApiError).code).toBe('invalid_method')
    expect(table.revisionReads).toBe(0)
  })

  it('a failed read of the sites fails the call; the next call reads again', async () => {
    const { maps, table } = service()
    const all = table.all.bind(table)
    table.all = () => Promise.reject(new Error('database away'))
    await expect(maps.map(request)).rejects.toThrow('database away')
    table.all = all
    expect((await maps.map(request)).siteCount).toBe(60)
  })

  it('an empty table is an empty map', async () => {
    const { maps } = service([])
    const map = await maps.map(request)
    expect(map.siteCount).toBe(0)
    expect(map.cells).toEqual([])
  })
})
