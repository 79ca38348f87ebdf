import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from '../../src/db/connect.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import {
  aliasedPredicts,
  batchInputTypeName,
  batchQuery,
  graphql,
  predictField,
} from '../support/graphql-helpers.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS, forestGrid, predictionInputs } from '../support/sites.ts'

let db: TestDatabase
let counted: Database
let server: TestServer
let key: string
let batchType: string
const statements: string[] = []

/** The nearest-site statements (the usage flush also writes with unnest; it is not one of them). */
const knnStatements = () => statements.filter((s) => s.includes('WITH ORDINALITY'))
/**
 * Those of them that read the sites in full: only for sites this process does not hold yet
 * (src/db/site-cache.ts), after the statement that found their ids.
 */
const fullSiteStatements = () => knnStatements().filter((s) => s.includes('s.latitude'))

beforeAll(async () => {
  db = await createSeededDatabase()
  counted = await openDatabase(
    { DATABASE_URL: db.url, DB_POOL_MAX: 4 },
    { onQuery: (q) => statements.push(q) },
  )
  // Statements are what is counted: the nearest-site index in memory would answer without any.
  server = await startTestServer({ database: counted, siteIndex: 'off' })
  key = (await issueKey(db, 'hypha')).key
  batchType = await batchInputTypeName(server.url)
  // Warm-up: the first statement on a connection is described before it runs.
  const warm = await graphql(server.url, `{ ${predictField(FOREST_POINTS.coastRange)} }`, { key })
  expect(warm.status).toBe(200)
})

afterAll(async () => {
  await server?.close()
  await counted?.close()
  await db?.drop()
})

describe('nearest-site lookups are batched per request', () => {
  it('a 500-site predictBatch issues exactly one nearest-site statement, answers in order', async () => {
    const sites = predictionInputs(500)
    statements.length = 0
    const result = await graphql(server.url, batchQuery(batchType), { key, variables: { sites } })
    expect(result.status).toBe(200)
    // Cold: one statement finds the nearest sites' ids, one more reads the sites not held yet.
    expect(knnStatements()).toHaveLength(2)
    expect(fullSiteStatements()).toHaveLength(1)
    statements.length = 0
    const again = await graphql(server.url, batchQuery(batchType), { key, variables: { sites } })
    expect(again.body).toEqual(result.body)
    expect(knnStatements()).toHaveLength(1)
    expect(fullSiteStatements()).toHaveLength(0)
    const items = result.body.data.predictBatch
    expect(items).toHaveLength(500)
    let answered = 0
    for (const [index, item] of items.entries()) {
      expect(item.index).toBe(index)
      if (item.error) {
        expect(item.error.code).toBe('no_nearby_data')
        continue
      }
      answered++
      expect(item.prediction.site.latitude).toBe(sites[index]?.latitude)
      expect(item.prediction.site.longitude).toBe(sites[index]?.longitude)
      expect(Math.abs(item.prediction.site.matchedLatitude - (sites[index]?.latitude ?? 0))).toBeLessThan(0.1)
    }
    expect(answered).toBeGreaterThan(400)
  })

  it('a query with 100 aliased predicts issues exactly one nearest-site statement', async () => {
    statements.length = 0
    const result = await graphql(server.url, aliasedPredicts(100, 'site { latitude longitude }'), { key })
    expect(result.status).toBe(200)
    expect(knnStatements()).toHaveLength(1)
    const grid = forestGrid(100)
    for (const [index, point] of grid.entries()) {
      expect(result.body.data[`p${index}`].site).toEqual(point)
    }
  })

  it('repeated runs stay at one statement each (no warm-up artefact)', async () => {
    for (let round = 0; round < 3; round++) {
      statements.length = 0
      const result = await graphql(server.url, batchQuery(batchType), {
        key,
        variables: { sites: predictionInputs(50) },
      })
      expect(result.status).toBe(200)
      expect(knnStatements()).toHaveLength(1)
    }
  })

  it('predicts, comparisons and a batch in one operation share one statement', async () => {
    const [a, b, c] = forestGrid(3) as { latitude: number; longitude: number }[]
    statements.length = 0
    const result = await graphql(
      server.url,
      `query Mixed($sites: [${batchType}!]!) {
        one: ${predictField(a as { latitude: number; longitude: number })}
        cmp: compareMethods(input: { latitude: ${b?.latitude}, longitude: ${b?.longitude}, speciesCode: "PSME" }) { species { code } }
        predictBatch(sites: $sites) { index error { code } }
      }`,
      {
        key,
        variables: {
          sites: [{ ...c, speciesCode: 'PSME', plantingMethod: 'manual' }, ...predictionInputs(20)],
        },
      },
    )
    expect(result.status).toBe(200)
    expect(knnStatements()).toHaveLength(1)
  })

  it('equal coordinates share one lookup and get identical answers', async () => {
    const point = FOREST_POINTS.westCascades
    const sites = Array.from({ length: 20 }, () => ({
      ...point,
      speciesCode: 'PSME',
      plantingMethod: 'manual',
    }))
    statements.length = 0
    const result = await graphql(server.url, batchQuery(batchType), { key, variables: { sites } })
    // One lookup of the one point (and one read of its site, not held before).
    expect(knnStatements().length - fullSiteStatements().length).toBe(1)
    expect(fullSiteStatements().length).toBeLessThanOrEqual(1)
    const matched = new Set(
      result.body.data.predictBatch.map(
        (item: { prediction: { site: { matchedLatitude: number } } }) => item.prediction.site.matchedLatitude,
      ),
    )
    expect(matched.size).toBe(1)
  })

  it('nothing is cached across requests: the next request looks up again', async () => {
    statements.length = 0
    await graphql(server.url, `{ ${predictField(FOREST_POINTS.coastRange)} }`, { key })
    await graphql(server.url, `{ ${predictField(FOREST_POINTS.coastRange)} }`, { key })
    expect(knnStatements()).toHaveLength(2)
  })

  it('with the site cache off (SITE_CACHE_SITES=0) each lookup is one full statement, with the same answers', async () => {
    // A pool of its own, so that only this server's statements are counted.
    const own: string[] = []
    const pool = await openDatabase({ DATABASE_URL: db.url, DB_POOL_MAX: 4 }, { onQuery: (q) => own.push(q) })
    const uncached = await startTestServer({ database: pool, siteCacheSites: 0 })
    try {
      const sites = predictionInputs(200)
      const cached = await graphql(server.url, batchQuery(batchType), { key, variables: { sites } })
      for (let round = 0; round < 3; round++) {
        own.length = 0
        const result = await graphql(uncached.url, batchQuery(batchType), { key, variables: { sites } })
        expect(result.status).toBe(200)
        const nearest = own.filter((s) => s.includes('WITH ORDINALITY'))
        expect(nearest).toHaveLength(1)
        expect(nearest[0]).toContain('s.latitude')
        expect(result.body).toEqual(cached.body)
      }
    } finally {
      await uncached.close()
      await pool.close()
    }
  })

  it('requests that fail before the lookup (outside coverage, bad species) send no nearest-site statement', async () => {
    statements.length = 0
    const result = await graphql(server.url, `{ ${predictField({ latitude: 43.6, longitude: -116.2 })} }`, {
      key,
    })
    expect(result.status).toBe(422)
    expect(knnStatements()).toHaveLength(0)
  })
})
