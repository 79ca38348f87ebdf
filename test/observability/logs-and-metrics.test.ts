import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryQuotaStore } from '../../src/access/quota/memory-quota-store.ts'
import { createApp } from '../../src/wiring/app.ts'
import { TEST_ADDRESS_HASH_KEY } from '../support/address-hash-key.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { FOREST_POINTS } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'

describe('request logs and metrics', () => {
  let db: TestDatabase
  let url: string
  let close: () => Promise<void>
  let key: string
  let keyId: string
  const lines: Record<string, unknown>[] = []

  beforeAll(async () => {
    db = await createSeededDatabase()
    const issued = await issueKey(db, 'spore')
    key = issued.key
    keyId = issued.id
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
        done()
      },
    })
    const app = createApp({
      config: {
        REDIS_URL: undefined,
        QUOTA_KEY_PREFIX: 'unused:',
        SEARCH_RADIUS_KM: 10,
        GRAPHIQL: false,
        DB_QUERY_TIMEOUT_MS: 3000,
        REDIS_TIMEOUT_MS: 250,
        SPORE_KEYS_PER_ADDRESS_PER_HOUR: 5,
        SPORE_KEYS_PER_HOUR: 500,
        USAGE_FLUSH_MS: 60_000,
        METRICS_TOKEN: 'a-long-enough-metrics-token',
        ADDRESS_HASH_KEY: TEST_ADDRESS_HASH_KEY,
      },
      database: db,
      logger: pino({ level: 'info' }, sink),
      quotaStore: new MemoryQuotaStore(),
    })
    await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
    close = () => app.close()
  })
  afterAll(async () => {
    await close?.()
    await db?.drop()
  })

  const waitForLine = async (requestId: string) => {
    await eventually(() => lines.some((l) => l.requestId === requestId), 1000, 20)
    return lines.filter((l) => l.requestId === requestId)
  }

  it('writes one line per request with id, route, status, duration, key id and tier, never the key', async () => {
    const response = await fetch(`${url}/v1/predict`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'request-id': 'trace-abc-123' },
      body: JSON.stringify({ ...FOREST_POINTS.coastRange, species_code: 'PSMA', planting_method: 'manual' }),
    })
    expect(response.status).toBe(422)
    expect(response.headers.get('request-id')).toBe('trace-abc-123')
    const requestLines = await waitForLine('trace-abc-123')
    expect(requestLines).toHaveLength(1)
    expect(requestLines[0]).toMatchObject({
      msg: 'request',
      method: 'POST',
      route: '/v1/predict',
      status: 422,
      keyId,
      tier: 'spore',
      errorCode: 'invalid_species',
      durationMs: expect.any(Number),
    })
    expect(JSON.stringify(lines)).not.toContain(key)
  })

  it('names the GraphQL operation', async () => {
    await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'request-id': 'trace-gql-1' },
      body: JSON.stringify({ query: 'query Catalog { species { code } }' }),
    })
    const [line] = await waitForLine('trace-gql-1')
    expect(line).toMatchObject({ route: '/graphql', operation: 'Catalog', status: 200, tier: 'spore' })
  })

  it('serves Prometheus metrics behind the token', async () => {
    expect((await fetch(`${url}/metrics`)).status).toBe(401)
    const response = await fetch(`${url}/metrics`, {
      headers: { authorization: 'Bearer a-long-enough-metrics-token' },
    })
    expect(response.status).toBe(200)
    const text = await response.text()
    expect(text).toMatch(
      /survival_http_requests_total\{route="\/v1\/predict",operation="",method="POST",status="422"\} 1/,
    )
    // GraphQL requests are labelled by the schema field asked for, never by the client's operation name.
    expect(text).toMatch(
      /survival_http_requests_total\{route="\/graphql",operation="species",method="POST",status="200"\} 1/,
    )
    expect(text).not.toMatch(/operation="Catalog"/)
    expect(text).toMatch(/survival_http_request_duration_seconds_bucket/)
    expect(text).toMatch(/survival_nearest_site_batch_size_count/)
    expect(text).toMatch(/survival_db_queries_in_flight 0/)
  })

  it('counts the points whose site was not held yet and was read in full (the site cache)', async () => {
    const scrape = async () => {
      const response = await fetch(`${url}/metrics`, {
        headers: { authorization: 'Bearer a-long-enough-metrics-token' },
      })
      return Number(/^survival_site_cache_misses_total (\d+)$/m.exec(await response.text())?.[1])
    }
    const predict = async () => {
      const response = await fetch(`${url}/v1/predict`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({
          ...FOREST_POINTS.westCascades,
          species_code: 'PSME',
          planting_method: 'manual',
        }),
      })
      expect(response.status).toBe(200)
    }
    const before = await scrape()
    await predict()
    expect(await scrape()).toBe(before + 1)
    await predict()
    expect(await scrape()).toBe(before + 1)
  })
})
