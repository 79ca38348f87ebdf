import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { firstError, graphql } from '../support/graphql-helpers.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS } from '../support/sites.ts'

/** The climate arguments of every GraphQL prediction path, climateScenarios, and the change against today. */
let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({ database: db, survivalMapPerMinute: 1000 })
  key = (await issueKey(db, 'hypha')).key
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
})

const FUTURE = '{ period: "2071-2100", scenario: "ssp585" }'
const POINT = `latitude: ${FOREST_POINTS.coastRange.latitude}, longitude: ${FOREST_POINTS.coastRange.longitude}`
const query = (text: string) => graphql(server.url, text, { key })

describe('climateScenarios', () => {
  it('lists the periods, scenarios, deltas by zone, version and sources, as GET /v1/climate does', async () => {
    const result =
      await query(`{ climateScenarios { baselinePeriod periods scenarios { id name } dataVersion note
      deltas { period scenario zone deltas { meanAnnualTemperatureC waterDeficitMm } } sources { what source } } }`)
    expect(result.status, JSON.stringify(result.body).slice(0, 400)).toBe(200)
    const c = result.body.data.climateScenarios
    expect(c.baselinePeriod).toBe('1991_2020')
    expect(c.scenarios.map((s: { id: string }) => s.id)).toEqual(['ssp245', 'ssp370', 'ssp585'])
    expect(c.deltas).toHaveLength(72)
    expect(c.note).toMatch(/synthesis/)
    const rest = await fetch(`${server.url}/v1/climate`, { headers: { 'x-api-key': key } }).then((r) =>
      r.json(),
    )
    expect(c.dataVersion).toBe(rest.data.version)
    expect(c.deltas[0].deltas.waterDeficitMm).toBe(rest.deltas[0].water_deficit_mm)
  })
})

describe('predict, compareMethods, predictBatch and speciesRanking with a climate', () => {
  const predict = (climate: string) =>
    query(`{ predict(input: { ${POINT}, speciesCode: "TSHE", plantingMethod: MANUAL${climate} }) {
      predictions { horizonYears survivalProbability }
      climate { period scenario dataVersion note deltas { meanAnnualTemperatureC } projected { thermalElevationM } }
      changeFromToday { horizonYears survivalProbability todaySurvivalProbability change
        factors { key contribution todayContribution change } } } }`)

  it('no climate or the baseline: today’s answer, no climate block, no change', async () => {
    const today = await predict('')
    for (const climate of [', climate: null', ', climate: { period: "1991_2020" }']) {
      const answer = await predict(climate)
      expect(answer.body.data.predict).toEqual(today.body.data.predict)
    }
    expect(today.body.data.predict.climate).toBeNull()
    expect(today.body.data.predict.changeFromToday).toBeNull()
  })

  it('a future climate: the projection, and each horizon and factor against today', async () => {
    const today = (await predict('')).body.data.predict
    const future = (await predict(`, climate: ${FUTURE}`)).body.data.predict
    expect(future.climate).toMatchObject({
      period: '2071-2100',
      scenario: 'ssp585',
      deltas: { meanAnnualTemperatureC: 4.2 },
    })
    expect(future.changeFromToday).toHaveLength(3)
    future.changeFromToday.forEach(
      (
        h: {
          survivalProbability: number
          todaySurvivalProbability: number
          change: number
          factors: { key: string; contribution: number; todayContribution: number; change: number }[]
        },
        i: number,
      ) => {
        expect(h.survivalProbability).toBe(future.predictions[i].survivalProbability)
        expect(h.todaySurvivalProbability).toBe(today.predictions[i].survivalProbability)
        expect(h.change).toBeCloseTo(h.survivalProbability - h.todaySurvivalProbability, 12)
        for (const f of h.factors) expect(f.change).toBeCloseTo(f.contribution - f.todayContribution, 12)
        const sizes = h.factors.map((f) => Math.abs(f.change))
        expect(sizes).toEqual([...sizes].sort((a, b) => b - a))
        expect(h.factors.find((f) => f.key === 'summer_water_deficit')?.change).toBeLessThan(0)
      },
    )
  })

  it('an unknown climate is invalid_climate with the allowed values', async () => {
    const result = await predict(', climate: { period: "2071-2100", scenario: "rcp85" }')
    const error = firstError(result)
    expect(error.extensions?.code).toBe('invalid_climate')
    expect(error.extensions?.details).toMatchObject({ allowed_scenarios: ['ssp245', 'ssp370', 'ssp585'] })
    expect(result.body.data.predict).toBeNull()
  })

  it('compareMethods, speciesRanking and predictBatch take the same climate', async () => {
    const result = await query(`{
      compareMethods(input: { ${POINT}, speciesCode: "TSHE", climate: ${FUTURE} }) {
        manual { survivalProbability } climate { period scenario } }
      speciesRanking(${POINT}, plantingMethod: MANUAL, horizon: 5, climate: ${FUTURE}) {
        climate { period } ranking { species { code } survivalProbability } }
      predictBatch(sites: [
        { ${POINT}, speciesCode: "TSHE", plantingMethod: "manual", climate: ${FUTURE} },
        { ${POINT}, speciesCode: "TSHE", plantingMethod: "manual", climate: { period: "2050" } }
      ]) { prediction { climate { period } predictions { survivalProbability } } error { code } }
      predict(input: { ${POINT}, speciesCode: "TSHE", plantingMethod: MANUAL, climate: ${FUTURE} }) {
        predictions { survivalProbability } }
    }`)
    expect(result.status, JSON.stringify(result.body).slice(0, 600)).toBe(200)
    const d = result.body.data
    const single = d.predict.predictions.map((p: { survivalProbability: number }) => p.survivalProbability)
    expect(d.compareMethods.climate).toEqual({ period: '2071-2100', scenario: 'ssp585' })
    expect(
      d.compareMethods.manual.map((p: { survivalProbability: number }) => p.survivalProbability),
    ).toEqual(single)
    expect(d.speciesRanking.climate.period).toBe('2071-2100')
    const hemlock = d.speciesRanking.ranking.find(
      (r: { species: { code: string } }) => r.species.code === 'TSHE',
    )
    expect(hemlock.survivalProbability).toBe(single[2])
    const [ok, bad] = d.predictBatch
    expect(ok.prediction.climate.period).toBe('2071-2100')
    expect(
      ok.prediction.predictions.map((p: { survivalProbability: number }) => p.survivalProbability),
    ).toEqual(single)
    expect(bad.error.code).toBe('invalid_climate')
  })
})

describe('survivalMap with a climate', () => {
  const map = (climate: string) =>
    query(`{ survivalMap(speciesCode: "TSHE", plantingMethod: MANUAL, horizon: 5, cellKm: 50${climate}) {
      climate { period scenario dataVersion } siteCount cells { h3Index meanSurvival sites changeFromToday } } }`)

  it('each cell gives its change against today; today’s map gives none', async () => {
    const today = (await map('')).body.data.survivalMap
    const future = (await map(`, climate: ${FUTURE}`)).body.data.survivalMap
    expect(today.climate).toBeNull()
    expect(today.cells.every((c: { changeFromToday: number | null }) => c.changeFromToday === null)).toBe(
      true,
    )
    expect(future.climate).toMatchObject({ period: '2071-2100', scenario: 'ssp585' })
    expect(future.cells.map((c: { h3Index: string }) => c.h3Index)).toEqual(
      today.cells.map((c: { h3Index: string }) => c.h3Index),
    )
    future.cells.forEach((cell: { meanSurvival: number; changeFromToday: number }, i: number) => {
      expect(cell.changeFromToday).toBeCloseTo(cell.meanSurvival - today.cells[i].meanSurvival, 9)
    })
    // Western hemlock loses survival almost everywhere under the hottest, driest future.
    const falling = future.cells.filter((c: { changeFromToday: number }) => c.changeFromToday < 0).length
    expect(falling / future.cells.length).toBeGreaterThan(0.8)
    expect(firstError(await map(', climate: { period: "2071-2100" }')).extensions?.code).toBe(
      'invalid_climate',
    )
  })

  it('without changeFromToday selected, the climate map is the same cells (today’s pass is only made when asked)', async () => {
    const result =
      await query(`{ survivalMap(speciesCode: "PSME", plantingMethod: DRONE_SEEDED, horizon: 3, cellKm: 100,
      climate: { period: "2041-2070", scenario: "ssp245" }) { cells { h3Index meanSurvival } } }`)
    const withChange =
      await query(`query WithChange { survivalMap(speciesCode: "PSME", plantingMethod: DRONE_SEEDED, horizon: 3,
      cellKm: 100, climate: { period: "2041-2070", scenario: "ssp245" }) { cells { h3Index meanSurvival ...Change } } }
      fragment Change on SurvivalCell { changeFromToday }`)
    const plain = result.body.data.survivalMap.cells
    const changed = withChange.body.data.survivalMap.cells
    expect(
      changed.map((c: { h3Index: string; meanSurvival: number }) => [c.h3Index, c.meanSurvival]),
    ).toEqual(plain.map((c: { h3Index: string; meanSurvival: number }) => [c.h3Index, c.meanSurvival]))
    expect(
      changed.every((c: { changeFromToday: number | null }) => typeof c.changeFromToday === 'number'),
    ).toBe(true)
  })
})
