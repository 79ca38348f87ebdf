import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { firstError, type GraphQLResult, graphql } from '../support/graphql-helpers.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

/**
 * survivalMap against a seeded PostgreSQL: every site evaluated, aggregated into H3 cells, cached
 * until the site table changes; one request against the quota; throttled per key per minute.
 */
let db: TestDatabase
/** Throttle out of the way (1000 a minute). */
let server: TestServer
/** The production throttle: 10 a minute per key. */
let throttled: TestServer
let key: string

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({ database: db, survivalMapPerMinute: 1000 })
  throttled = await startTestServer({ database: db })
  key = (await issueKey(db, 'hypha')).key
})

afterAll(async () => {
  await server?.close()
  await throttled?.close()
  await db?.drop()
})

const MAP_FIELDS = `species { code } plantingMethod horizonYears cellKm h3Resolution siteCount
  cells { h3Index latitude longitude boundary meanSurvival minSurvival maxSurvival sites }
  model { series version } generatedAt`

function mapQuery(args: string, selection = MAP_FIELDS, alias = ''): string {
  return `${alias ? `${alias}: ` : ''}survivalMap(${args}) { ${selection} }`
}

const PSME = 'speciesCode: "PSME", plantingMethod: MANUAL, horizon: 5'

interface Cell {
  h3Index: string
  latitude: number
  longitude: number
  boundary: [number, number][]
  meanSurvival: number
  minSurvival: number
  maxSurvival: number
  sites: number
}

async function siteCount(): Promise<number> {
  const [row] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM sites`
  return row?.n ?? 0
}

function expectApiError(result: GraphQLResult, code: string, status: number) {
  expect(result.status, JSON.stringify(result.body).slice(0, 500)).toBe(status)
  const error = firstError(result)
  expect(error.extensions?.code).toBe(code)
  return error
}

describe('survivalMap', () => {
  it('evaluates every site and aggregates them into H3 cells; a second call is answered from the cache', async () => {
    let started = performance.now()
    const first = await graphql(server.url, `{ ${mapQuery(PSME)} }`, { key })
    const firstMs = performance.now() - started
    expect(first.status, JSON.stringify(first.body).slice(0, 500)).toBe(200)
    const map = first.body.data.survivalMap
    expect(map).toMatchObject({
      species: { code: 'PSME' },
      plantingMethod: 'MANUAL',
      horizonYears: 5,
      cellKm: 25,
      h3Resolution: 5,
      model: { series: 'mycel', version: '0.2' },
    })
    const total = await siteCount()
    expect(total).toBeGreaterThan(15_000)
    expect(map.siteCount).toBe(total)
    const cells = map.cells as Cell[]
    expect(cells.reduce((n, c) => n + c.sites, 0)).toBe(total)
    expect(cells.length).toBeGreaterThan(500)
    expect(cells.map((c) => c.h3Index)).toEqual([...cells.map((c) => c.h3Index)].sort())
    for (const cell of cells) {
      expect(cell.sites).toBeGreaterThan(0)
      expect(cell.minSurvival).toBeGreaterThanOrEqual(0)
      expect(cell.maxSurvival).toBeLessThanOrEqual(1)
      expect(cell.meanSurvival).toBeGreaterThanOrEqual(cell.minSurvival)
      expect(cell.meanSurvival).toBeLessThanOrEqual(cell.maxSurvival)
      expect(cell.boundary.length).toBeGreaterThanOrEqual(6)
      expect(cell.boundary.at(-1)).toEqual(cell.boundary[0])
      const [longitude, latitude] = cell.boundary[0] as [number, number]
      expect(longitude).toBeLessThan(-115)
      expect(latitude).toBeGreaterThan(41)
      expect(Math.abs(longitude - cell.longitude)).toBeLessThan(0.5)
      expect(Math.abs(latitude - cell.latitude)).toBeLessThan(0.5)
    }

    started = performance.now()
    const second = await graphql(server.url, `{ ${mapQuery(PSME)} }`, { key })
    const secondMs = performance.now() - started
    expect(second.status).toBe(200)
    expect(second.body.data.survivalMap.cells).toEqual(cells)
    console.info(
      `survivalMap on ${total} sites: first ${firstMs.toFixed(0)} ms, cached ${secondMs.toFixed(0)} ms`,
    )
    expect(secondMs).toBeLessThan(1000)
  })

  it('a cell holds what predict says of its sites (the extremes are real sites’ predictions)', async () => {
    const result = await graphql(server.url, `{ ${mapQuery(`${PSME}, cellKm: 100`)} }`, { key })
    expect(result.body.data.survivalMap.h3Resolution).toBe(3)
    const cells = result.body.data.survivalMap.cells as Cell[]
    const busiest = cells.reduce((a, b) => (b.sites > a.sites ? b : a))
    // Predict at one of the sites and check it lies within its cell's range (the cell has many sites).
    const [site] = await db.sql<{ latitude: number; longitude: number }[]>`
      SELECT latitude, longitude FROM sites
      ORDER BY (latitude - ${busiest.latitude})^2 + (longitude - ${busiest.longitude})^2 LIMIT 1`
    const predicted = await graphql(
      server.url,
      `{ predict(input: { latitude: ${site?.latitude}, longitude: ${site?.longitude}, speciesCode: "PSME", plantingMethod: MANUAL, horizons: [5] }) { site { matchDistanceKm } predictions { survivalProbability } } }`,
      { key },
    )
    expect(predicted.body.data.predict.site.matchDistanceKm).toBeLessThan(0.001)
    const p = predicted.body.data.predict.predictions[0].survivalProbability as number
    expect(p).toBeGreaterThanOrEqual(busiest.minSurvival)
    expect(p).toBeLessThanOrEqual(busiest.maxSurvival)
  })

  it('counts as exactly one request against the daily quota', async () => {
    const { key: spore } = await issueKey(db, 'spore')
    const first = await graphql(server.url, '{ species { code } }', { key: spore })
    const remaining = Number(first.headers.get('x-ratelimit-remaining'))
    const map = await graphql(server.url, `{ ${mapQuery(PSME, 'siteCount')} }`, { key: spore })
    expect(map.status).toBe(200)
    expect(Number(map.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1)
    expect(
      (map.body as { extensions?: { rateLimit?: { remaining: number } } }).extensions?.rateLimit?.remaining,
    ).toBe(remaining - 1)
  })

  it('is not refused for batch size on the smallest tier; aliases count like aliased predicts', async () => {
    const { key: spore } = await issueKey(db, 'spore')
    const one = await graphql(server.url, `{ ${mapQuery(PSME, 'siteCount')} }`, { key: spore })
    expect(one.status).toBe(200)
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => mapQuery(PSME, 'siteCount', `m${i}`)).join(' ')} }`
    expect((await graphql(server.url, aliases(10), { key: spore })).status).toBe(200)
    const error = expectApiError(
      await graphql(server.url, aliases(11), { key: spore }),
      'batch_too_large',
      422,
    )
    expect(error.extensions?.details).toEqual({ submitted: 11, tier_limit: 10, tier: 'spore' })
  })

  it.each([
    ['cellKm 5', `${PSME}, cellKm: 5`, 'cellKm'],
    ['cellKm 201', `${PSME}, cellKm: 201`, 'cellKm'],
    ['horizon 2', 'speciesCode: "PSME", plantingMethod: MANUAL, horizon: 2', 'horizon'],
  ])('%s → invalid_request (400) naming the argument', async (_name, args, field) => {
    const error = expectApiError(
      await graphql(server.url, `{ ${mapQuery(args, 'siteCount')} }`, { key }),
      'invalid_request',
      400,
    )
    expect(error.extensions?.details?.field).toBe(field)
  })

  it('an unknown species is invalid_species (422), an unknown method a validation error (400)', async () => {
    const species = expectApiError(
      await graphql(
        server.url,
        `{ ${mapQuery('speciesCode: "PSMA", plantingMethod: MANUAL, horizon: 5', 'siteCount')} }`,
        { key },
      ),
      'invalid_species',
      422,
    )
    expect(species.message).toContain('PSME')
    const method = await graphql(
      server.url,
      `{ ${mapQuery('speciesCode: "PSME", plantingMethod: HELICOPTER, horizon: 5', 'siteCount')} }`,
      { key },
    )
    expect(method.status).toBe(400)
    expect(firstError(method).message).toContain('HELICOPTER')
  })

  it('needs a key', async () => {
    expectApiError(await graphql(server.url, `{ ${mapQuery(PSME, 'siteCount')} }`), 'invalid_api_key', 401)
  })
})

describe('survivalMap throttle (10 a minute per key by default)', () => {
  it('the 11th call within a minute is rate_limit_exceeded (429) with the wait; other keys are unaffected', async () => {
    const { key: mine } = await issueKey(db, 'mycel')
    const query = `{ ${mapQuery('speciesCode: "TSHE", plantingMethod: MANUAL, horizon: 3', 'siteCount')} }`
    for (let i = 0; i < 10; i++) {
      const ok = await graphql(throttled.url, query, { key: mine })
      expect(ok.status, `call ${i + 1}`).toBe(200)
    }
    const refused = await graphql(throttled.url, query, { key: mine })
    const error = expectApiError(refused, 'rate_limit_exceeded', 429)
    expect(refused.body.data ?? null).toBeNull()
    const wait = error.extensions?.retryAfterSeconds as number
    expect(wait).toBeGreaterThanOrEqual(1)
    expect(wait).toBeLessThanOrEqual(60)
    expect(Number(refused.headers.get('retry-after'))).toBe(wait)
    expect(error.message).toMatch(/survivalMap is limited to 10 calls a minute/)
    expect(error.path).toEqual(['survivalMap'])
    // The refusal is an admitted request: it carries (and counted against) the daily quota.
    expect(refused.headers.get('x-ratelimit-remaining')).toBe(String(10_000 - 11))

    // Other fields of the same key are not throttled; another key has its own allowance.
    expect((await graphql(throttled.url, '{ species { code } }', { key: mine })).status).toBe(200)
    const { key: other } = await issueKey(db, 'mycel')
    expect((await graphql(throttled.url, query, { key: other })).status).toBe(200)
  })

  it('counts each alias', async () => {
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => mapQuery(PSME, 'siteCount', `m${i}`)).join(' ')} }`
    const ten = await graphql(throttled.url, aliases(10), { key: (await issueKey(db, 'hypha')).key })
    expect(ten.status).toBe(200)
    expect(Object.keys(ten.body.data)).toHaveLength(10)
    const eleven = await graphql(throttled.url, aliases(11), { key: (await issueKey(db, 'hypha')).key })
    expect(firstError(eleven).path).toEqual(['m10'])
    expectApiError(eleven, 'rate_limit_exceeded', 429)
  })
})

describe('survivalMap after the site table changes (e.g. a reseed from another process)', () => {
  it('the next call reflects the change', async () => {
    const before = await graphql(
      server.url,
      `{ ${mapQuery(PSME, 'siteCount cells { h3Index sites latitude meanSurvival }')} }`,
      {
        key,
      },
    )
    const total = before.body.data.survivalMap.siteCount as number
    const other = postgres(db.url, { max: 1, onnotice: () => {} })
    try {
      // Harsh conditions in the north, and the south-west corner gone.
      await other`UPDATE sites SET summer_water_deficit_mm = 650, vegetation_cover_pct = 100 WHERE latitude > 47.5`
      const [gone] = await other<{ n: number }[]>`
        WITH deleted AS (DELETE FROM sites WHERE latitude < 42.8 AND longitude < -123 RETURNING 1)
        SELECT count(*)::int AS n FROM deleted`
      expect(gone?.n).toBeGreaterThan(0)
      const after = await graphql(
        server.url,
        `{ ${mapQuery(PSME, 'siteCount cells { h3Index sites latitude longitude meanSurvival }')} }`,
        {
          key,
        },
      )
      expect(after.body.data.survivalMap.siteCount).toBe(total - (gone?.n ?? 0))
      const cells = after.body.data.survivalMap.cells as Cell[]
      expect(cells.some((c) => c.latitude < 42.65 && c.longitude < -123.15)).toBe(false)
      const north = (list: Cell[]) => {
        const northern = list.filter((c) => c.latitude > 47.7)
        return (
          northern.reduce((t, c) => t + c.meanSurvival * c.sites, 0) /
          northern.reduce((t, c) => t + c.sites, 0)
        )
      }
      expect(north(cells)).toBeLessThan(north(before.body.data.survivalMap.cells) - 0.05)
    } finally {
      await other.end()
    }
  })
})
