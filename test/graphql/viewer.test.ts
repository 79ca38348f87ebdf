import { print } from 'graphql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey } from '../../src/db/keys.ts'
import { addUsage } from '../../src/db/usage.ts'
import type { TierName } from '../../src/types.ts'
import { issueKey } from '../support/fixtures.ts'
import { firstError, type GraphQLResult, graphql } from '../support/graphql-helpers.ts'
import { type SeededServer, startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import { simultaneously } from '../support/waiting.ts'
import { ViewerDocument, type ViewerQuery } from './generated/operations.ts'

const VIEWER = print(ViewerDocument)
const DAY_MS = 86_400_000

let running: SeededServer

beforeAll(async () => {
  running = await startSeededServer()
})

afterAll(() => stopSeededServer(running))

/** The UTC day `daysAgo` days before the day that ends at `resetsAt` (the next midnight UTC). */
function dayBefore(resetsAt: string, daysAgo: number): string {
  return new Date(Date.parse(resetsAt) - (daysAgo + 1) * DAY_MS).toISOString().slice(0, 10)
}

/** The response's top-level `extensions` (the shared helper's body type leaves them out). */
function extensionsOf(result: GraphQLResult): unknown {
  return (result.body as { extensions?: unknown }).extensions
}

async function viewer(key?: string): Promise<GraphQLResult & { viewer: ViewerQuery['viewer'] }> {
  const result = await graphql(running.server.url, VIEWER, { key })
  return { ...result, viewer: result.body.data?.viewer }
}

async function freshKey(tier: TierName): Promise<{ id: string; key: string }> {
  return issueKey(running.db, tier)
}

describe('viewer', () => {
  it('shows the calling key, its tier’s limits and today’s count, as extensions.rateLimit does', async () => {
    const before = Date.now()
    const { id, key } = await freshKey('spore')
    for (let i = 0; i < 3; i += 1) {
      expect((await graphql(running.server.url, '{ species { code } }', { key })).status).toBe(200)
    }

    const result = await viewer(key)
    expect(result.status).toBe(200)
    expect(result.body.errors).toBeUndefined()
    const { viewer: usage } = result
    expect(usage.key).toMatchObject({
      id,
      tier: 'SPORE',
      status: 'ACTIVE',
      name: 'test spore',
      expiresAt: null,
    })
    expect(Date.parse(usage.key.createdAt)).toBeLessThanOrEqual(Date.now())
    // This server saw the key used just now, flushed to the database or not.
    expect(Date.parse(usage.key.lastUsedAt ?? '')).toBeGreaterThanOrEqual(before - 1000)
    expect(usage.limits).toEqual({ requestsPerDay: 100, batchSize: 10 })
    // Three requests, then this one.
    expect(usage.today).toMatchObject({ used: 4, remaining: 96 })
    expect(Date.parse(usage.today.resetsAt) % DAY_MS).toBe(0)
    expect(extensionsOf(result)).toEqual({
      rateLimit: { limit: 100, remaining: 96, resetAt: usage.today.resetsAt },
    })
    expect(result.headers.get('x-ratelimit-remaining')).toBe('96')
  })

  it('has 30 days of history, oldest first, today last and counting every request at once', async () => {
    const { id, key } = await freshKey('mycel')
    const first = await viewer(key)
    const { history, today } = first.viewer
    expect(history).toHaveLength(30)
    expect(history.map((d) => d.date)).toEqual(
      Array.from({ length: 30 }, (_, i) => dayBefore(today.resetsAt, 29 - i)),
    )
    expect(history.at(-1)).toEqual({ date: dayBefore(today.resetsAt, 0), requests: 1 })
    expect(history.slice(0, -1).every((d) => d.requests === 0)).toBe(true)

    // Days already written to PostgreSQL show up next to today's, which is partly not flushed yet.
    await addUsage(running.db.sql, [
      { accountId: id, day: dayBefore(today.resetsAt, 29), requests: 7 },
      { accountId: id, day: dayBefore(today.resetsAt, 3), requests: 250 },
      { accountId: id, day: dayBefore(today.resetsAt, 30), requests: 99 },
    ])
    await simultaneously(5, () => graphql(running.server.url, '{ species { code } }', { key }))
    const second = await viewer(key)
    expect(second.viewer.today).toMatchObject({ used: 7, remaining: 9993 })
    expect(second.viewer.history.at(-1)?.requests).toBe(7)
    expect(second.viewer.history[0]).toEqual({ date: dayBefore(today.resetsAt, 29), requests: 7 })
    expect(second.viewer.history[26]).toEqual({ date: dayBefore(today.resetsAt, 3), requests: 250 })
    expect(second.viewer.history.reduce((sum, d) => sum + d.requests, 0)).toBe(7 + 250 + 7)
    expect(extensionsOf(second)).toEqual({
      rateLimit: { limit: 10_000, remaining: 9993, resetAt: today.resetsAt },
    })
  })

  it('shows a key’s expiry and the unlimited hypha tier as nulls where there is no limit', async () => {
    const expiresAt = new Date(Date.now() + 10 * DAY_MS)
    const { key } = await createKey(running.db.sql, { tier: 'hypha', name: null, expiresAt })
    const result = await viewer(key)
    expect(result.viewer.key).toMatchObject({ tier: 'HYPHA', name: null, expiresAt: expiresAt.toISOString() })
    expect(result.viewer.limits).toEqual({ requestsPerDay: null, batchSize: 500 })
    expect(result.viewer.today).toMatchObject({ used: 1, remaining: null })
    expect(extensionsOf(result)).toEqual({
      rateLimit: { limit: null, remaining: null, resetAt: result.viewer.today.resetsAt },
    })
    // Within 14 days of its end, the response says when the key stops working.
    expect(result.headers.get('api-key-expires')).toBe(expiresAt.toUTCString())
  })

  it('is the same data as GET /v1/usage', async () => {
    const { key } = await freshKey('spore')
    const rest = await fetch(`${running.server.url}/v1/usage`, { headers: { 'x-api-key': key } })
    expect(rest.status).toBe(200)
    const body = (await rest.json()) as {
      key: Record<string, unknown>
      limits: Record<string, unknown>
      today: Record<string, unknown>
      history: { date: string; requests: number }[]
    }
    const { viewer: usage } = await viewer(key)
    expect(usage.key).toMatchObject({
      id: body.key.id,
      tier: String(body.key.tier).toUpperCase(),
      status: String(body.key.status).toUpperCase(),
      name: body.key.name,
      createdAt: body.key.created_at,
      expiresAt: body.key.expires_at,
    })
    expect(usage.limits).toEqual({
      requestsPerDay: body.limits.requests_per_day,
      batchSize: body.limits.batch_size,
    })
    // One request later.
    expect(usage.today).toEqual({
      used: Number(body.today.used) + 1,
      remaining: Number(body.today.remaining) - 1,
      resetsAt: body.today.resets_at,
    })
    expect(usage.history.slice(0, -1)).toEqual(body.history.slice(0, -1))
    expect(usage.history.at(-1)?.requests).toBe((body.history.at(-1)?.requests ?? 0) + 1)
  })

  it('needs a key: 401 invalid_api_key without one, and no rate limit', async () => {
    for (const key of [undefined, `tsp_live_${'a'.repeat(32)}`]) {
      const result = await viewer(key)
      expect(result.status).toBe(401)
      expect(firstError(result).extensions).toMatchObject({ code: 'invalid_api_key', status: 401 })
      expect(result.body.data ?? null).toBeNull()
      expect(extensionsOf(result)).toBeUndefined()
    }
  })

  it('counts as a request: refused with 429 and a spent rate limit once the day’s are used', async () => {
    const { key } = await freshKey('spore')
    await simultaneously(100, () => graphql(running.server.url, '{ species { code } }', { key }))
    const refused = await viewer(key)
    expect(refused.status).toBe(429)
    expect(firstError(refused).extensions).toMatchObject({ code: 'rate_limit_exceeded' })
    expect(extensionsOf(refused)).toEqual({
      rateLimit: {
        limit: 100,
        remaining: 0,
        resetAt: new Date(Number(refused.headers.get('x-ratelimit-reset')) * 1000).toISOString(),
      },
    })
  })
})

describe('extensions.rateLimit on both ways in', () => {
  it('is the same through the direct JSON path and through yoga (GET)', async () => {
    const { key } = await freshKey('spore')
    const direct = await graphql(running.server.url, '{ species { code } }', { key })
    const url = new URL('/graphql', running.server.url)
    url.searchParams.set('query', '{ species { code } }')
    const response = await fetch(url, {
      headers: { 'x-api-key': key, accept: 'application/graphql-response+json' },
    })
    const viaYoga = (await response.json()) as { extensions?: unknown }
    const resetAt = new Date(Number(direct.headers.get('x-ratelimit-reset')) * 1000).toISOString()
    expect(extensionsOf(direct)).toEqual({ rateLimit: { limit: 100, remaining: 99, resetAt } })
    expect(response.status).toBe(200)
    expect(viaYoga.extensions).toEqual({ rateLimit: { limit: 100, remaining: 98, resetAt } })
  })

  it('is absent from public operations', async () => {
    for (const query of ['{ health { status } }', '{ model { version } }', '{ __typename }']) {
      const result = await graphql(running.server.url, query, { key: running.key })
      expect(result.status, query).toBe(200)
      expect(extensionsOf(result), query).toBeUndefined()
    }
  })
})
