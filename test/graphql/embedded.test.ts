import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from '../../src/db/connect.ts'
import { createKey } from '../../src/db/keys.ts'
import { migrate } from '../../src/db/migrate.ts'
import { seedAll } from '../../src/seed/seed-all.ts'
import {
  batchInputTypeName,
  batchQuery,
  firstError,
  graphql,
  outcomeCounts,
  predictField,
} from '../support/graphql-helpers.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS, NO_DATA_POINTS, OUTSIDE_POINTS, predictionInputs } from '../support/sites.ts'
import { eventually, simultaneously } from '../support/waiting.ts'

/**
 * The embedded path (no DATABASE_URL, no REDIS_URL): PGlite behind a private Unix socket and the
 * in-process quota store, exactly as `npm start` runs without configuration.
 */
let db: Database
let server: TestServer
let batchType: string
const statements: string[] = []

beforeAll(async () => {
  db = await openDatabase({ DATABASE_URL: undefined, DB_POOL_MAX: 1 }, { onQuery: (q) => statements.push(q) })
  expect(db.mode).toBe('embedded')
  await migrate(db.sql)
  await seedAll(db.sql)
  server = await startTestServer({ database: db, quota: 'memory' })
  batchType = await batchInputTypeName(server.url)
}, 180_000)

afterAll(async () => {
  await server?.close()
  await db?.close()
})

const issue = async (tier: 'spore' | 'mycel' | 'hypha') => (await createKey(db.sql, { tier })).key

describe('GraphQL on the embedded store', () => {
  it('health reports the embedded database connected', async () => {
    const result = await graphql(server.url, '{ health { status database } }')
    expect(result.body.data.health).toEqual({ status: 'healthy', database: 'connected' })
  })

  it('predict answers with site attributes and explanations', async () => {
    const key = await issue('mycel')
    const result = await graphql(
      server.url,
      `{ ${predictField(
        FOREST_POINTS.coastRange,
        'site { matchedLatitude matchDistanceKm zone elevationM } predictions { horizonYears survivalProbability baselineLogOdds logOdds riskFactors { key } allFactors { contribution } }',
      )} }`,
      { key },
    )
    expect(result.status).toBe(200)
    const p = result.body.data.predict
    expect(p.site.matchDistanceKm).toBeLessThanOrEqual(10)
    expect(p.predictions).toHaveLength(3)
    for (const h of p.predictions) {
      expect(h.riskFactors).toHaveLength(3)
      const sum = h.allFactors.reduce((t: number, f: { contribution: number }) => t + f.contribution, 0)
      expect(h.baselineLogOdds + sum).toBeCloseTo(h.logOdds, 9)
    }
  })

  it('raises the same domain errors', async () => {
    const key = await issue('mycel')
    for (const [point, code] of [
      [OUTSIDE_POINTS.openPacific, 'outside_coverage'],
      [NO_DATA_POINTS.downtownPortland, 'no_nearby_data'],
    ] as const) {
      const result = await graphql(server.url, `{ ${predictField(point)} }`, { key })
      expect(result.status).toBe(422)
      expect(firstError(result).extensions?.code).toBe(code)
    }
    const species = await graphql(
      server.url,
      `{ ${predictField({ ...FOREST_POINTS.coastRange, speciesCode: 'PSMA' })} }`,
      { key },
    )
    expect(firstError(species).message).toContain('PSME (Douglas-fir)')
    const anonymous = await graphql(server.url, '{ species { code } }')
    expect(anonymous.status).toBe(401)
  })

  it('a 500-site batch reads the sites it does not hold in one statement, and none once it holds them', async () => {
    const key = await issue('hypha')
    const knnStatements = () => statements.filter((s) => s.includes('WITH ORDINALITY'))
    const batch = () =>
      graphql(server.url, batchQuery(batchType), { key, variables: { sites: predictionInputs(500) } })
    const heldPoint = () => graphql(server.url, `{ ${predictField(FOREST_POINTS.coastRange)} }`, { key })
    await heldPoint()
    // The nearest-site index is read into memory in the background: from then on a held site costs nothing.
    const askedNothing = async () => {
      statements.length = 0
      await heldPoint()
      return knnStatements().length === 0
    }
    expect(await eventually(askedNothing, 2000)).toBe(true)
    statements.length = 0
    const result = await batch()
    expect(result.status).toBe(200)
    expect(result.body.data.predictBatch).toHaveLength(500)
    expect(knnStatements()).toHaveLength(1)
    statements.length = 0
    expect((await batch()).body).toEqual(result.body)
    expect(knnStatements()).toHaveLength(0)
  })

  it('150 simultaneous requests on a fresh spore key: exactly 100 succeed (in-process quota store)', async () => {
    const key = await issue('spore')
    const results = await simultaneously(150, (i) =>
      graphql(
        server.url,
        i % 2 ? '{ species { code } }' : `{ ${predictField(FOREST_POINTS.eastCascades)} }`,
        {
          key,
        },
      ),
    )
    expect(outcomeCounts(results)).toEqual({ '200:data': 100, '429:rate_limit_exceeded': 50 })
    const refused = results.find((r) => r.status === 429)
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0)
  })

  it('survivalMap: every site into H3 cells, from the cache the second time, recomputed after a change', async () => {
    const key = await issue('hypha')
    const query = `{ survivalMap(speciesCode: "PIPO", plantingMethod: DRONE_SEEDED, horizon: 3, cellKm: 50) {
      h3Resolution siteCount cells { h3Index sites meanSurvival minSurvival maxSurvival } } }`
    const [{ n: total } = { n: 0 }] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM sites`
    let started = performance.now()
    const first = await graphql(server.url, query, { key })
    const firstMs = performance.now() - started
    expect(first.status, JSON.stringify(first.body).slice(0, 300)).toBe(200)
    const map = first.body.data.survivalMap
    expect(map.h3Resolution).toBe(4)
    expect(map.siteCount).toBe(total)
    expect(map.cells.reduce((t: number, c: { sites: number }) => t + c.sites, 0)).toBe(total)
    started = performance.now()
    const second = await graphql(server.url, query, { key })
    const secondMs = performance.now() - started
    expect(second.body.data.survivalMap).toEqual(map)
    console.info(
      `embedded survivalMap on ${total} sites: first ${firstMs.toFixed(0)} ms, cached ${secondMs.toFixed(0)} ms`,
    )
    expect(secondMs).toBeLessThan(1000)

    const [{ n: removed } = { n: 0 }] = await db.sql<{ n: number }[]>`
      WITH gone AS (DELETE FROM sites WHERE latitude > 48 RETURNING 1) SELECT count(*)::int AS n FROM gone`
    expect(removed).toBeGreaterThan(0)
    const after = await graphql(server.url, query, { key })
    expect(after.body.data.survivalMap.siteCount).toBe(total - removed)
  })

  it('batch_too_large per tier', async () => {
    const key = await issue('spore')
    const result = await graphql(server.url, batchQuery(batchType), {
      key,
      variables: { sites: predictionInputs(11) },
    })
    expect(result.status).toBe(422)
    expect(firstError(result).extensions?.details).toEqual({ submitted: 11, tier_limit: 10, tier: 'spore' })
  })

  it('climates: GET /v1/climate, a future climate on REST and GraphQL, the state of each site and invalid_climate', async () => {
    const key = await issue('hypha')
    const catalogue = await fetch(`${server.url}/v1/climate`, { headers: { 'x-api-key': key } })
    expect(catalogue.status).toBe(200)
    expect((await catalogue.json()).deltas).toHaveLength(72)
    const point = FOREST_POINTS.coastRange
    const climate = { period: '2041-2070', scenario: 'ssp370' }
    const rest = await fetch(`${server.url}/v1/predict`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ ...point, species_code: 'PSME', planting_method: 'manual', climate }),
    }).then((r) => r.json())
    expect(rest.climate).toMatchObject(climate)
    const result = await graphql(
      server.url,
      `{ predict(input: { latitude: ${point.latitude}, longitude: ${point.longitude}, speciesCode: "PSME", plantingMethod: MANUAL,
          climate: { period: "2041-2070", scenario: "ssp370" } }) {
          site { state } predictions { survivalProbability } changeFromToday { change } } }`,
      { key },
    )
    expect(result.body.data.predict.site.state).toBe('OR')
    expect(
      result.body.data.predict.predictions.map((p: { survivalProbability: number }) => p.survivalProbability),
    ).toEqual(rest.predictions.map((p: { survival_probability: number }) => p.survival_probability))
    expect(result.body.data.predict.changeFromToday).toHaveLength(3)
    const bad = await graphql(
      server.url,
      `{ ${predictField({ ...point, speciesCode: 'PSME' })} }`.replace(
        'plantingMethod: MANUAL',
        'plantingMethod: MANUAL, climate: { period: "2041-2070" }',
      ),
      { key },
    )
    expect(firstError(bad).extensions?.code).toBe('invalid_climate')
  })
})
