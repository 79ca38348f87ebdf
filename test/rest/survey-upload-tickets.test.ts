import { hash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setKeyStatus } from '../../src/db/keys.ts'
import type { IssuedKey } from '../../src/types.ts'
import { recordingLogger } from '../security/support.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { firstError, graphql } from '../support/graphql-helpers.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS } from '../support/sites.ts'
import { expectError, rest } from './client.ts'

/**
 * A survey upload by a GraphQL client: surveyUploadTicket hands out a one-time path, and the file
 * is streamed to it with no key, against real PostgreSQL and Redis. A ticket is a credential: it works
 * once, while its key works, until it expires, and is kept only as its hash.
 */
let db: TestDatabase
let server: TestServer
let mycel: IssuedKey
let other: IssuedKey
const { logger, lines: entries } = recordingLogger()

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({ database: db, keyCacheMs: 0, logger })
  mycel = await issueKey(db, 'mycel')
  other = await issueKey(db, 'mycel')
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
})

const HEADER = 'plot_id,latitude,longitude,species_code,planting_method,planted_on,surveyed_on,planted,alive'
const { latitude, longitude } = FOREST_POINTS.coastRange
const row = (plotId: string, alive = 31) =>
  `${plotId},${latitude},${longitude},PSME,manual,2021-03-15,2024-03-15,40,${alive}`

const TICKET = `mutation Ticket($skipInvalid: Boolean) {
  surveyUploadTicket(skipInvalid: $skipInvalid) { path expiresAt skipInvalid } }`

async function ticketFor(key: string, skipInvalid?: boolean) {
  const result = await graphql(server.url, TICKET, { key, variables: { skipInvalid } })
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined()
  return {
    ...(result.body.data.surveyUploadTicket as {
      path: string
      expiresAt: string
      skipInvalid: boolean
    }),
    remaining: Number(result.headers.get('x-ratelimit-remaining')),
  }
}

const send = (path: string, body: string, contentType = 'text/csv') =>
  rest(server.url, 'POST', path, { raw: body, contentType })

const remainingFor = async (key: string) =>
  Number((await rest(server.url, 'GET', '/v1/usage', { key })).headers.get('x-ratelimit-remaining'))

describe('surveyUploadTicket, then POST the file to its path', () => {
  it('stores the file as POST /v1/surveys/uploads would, for the ticket’s key, counted once', async () => {
    const before = await remainingFor(mycel.key)
    const ticket = await ticketFor(mycel.key)
    expect(ticket.path).toMatch(/^\/v1\/surveys\/uploads\/tickets\/sut_[A-Za-z0-9_-]{43}$/)
    expect(ticket.skipInvalid).toBe(false)
    const lifetime = Date.parse(ticket.expiresAt) - Date.now()
    expect(lifetime).toBeGreaterThan(14 * 60_000)
    expect(lifetime).toBeLessThanOrEqual(15 * 60_000)

    const stored = await send(ticket.path, [HEADER, row('t-1'), row('t-2')].join('\n'))
    expect(stored.status, stored.text).toBe(201)
    expect(stored.body).toMatchObject({ status: 'committed', rows: 2, stored: 2, skip_invalid: false })
    expect(stored.headers.get('location')).toBe(`/v1/surveys/uploads/${stored.body.upload_id}`)
    expect(stored.headers.get('cache-control')).toBe('no-store')
    // The mutation counted one request; the file's POST none.
    expect(ticket.remaining).toBe(before - 1)
    expect(Number(stored.headers.get('x-ratelimit-remaining'))).toBe(ticket.remaining)

    const read = await graphql(
      server.url,
      'query Read($id: String!) { surveyUpload(uploadId: $id) { status stored } }',
      { key: mycel.key, variables: { id: stored.body.upload_id } },
    )
    expect(read.body.data.surveyUpload).toEqual({ status: 'committed', stored: 2 })
    const page = await rest(server.url, 'GET', '/v1/surveys?limit=100', { key: mycel.key })
    expect(page.body.plots.map((plot: { plot_id: string }) => plot.plot_id)).toEqual(
      expect.arrayContaining(['t-1', 't-2']),
    )
    expectError(
      await rest(server.url, 'GET', `/v1/surveys/uploads/${stored.body.upload_id}`, { key: other.key }),
      404,
      'not_found',
    )
  })

  it('works once: the same ticket again is not_found, and stores nothing', async () => {
    const ticket = await ticketFor(mycel.key)
    expect((await send(ticket.path, [HEADER, row('once-1')].join('\n'))).status).toBe(201)
    const again = await send(ticket.path, [HEADER, row('once-2')].join('\n'))
    expectError(again, 404, 'not_found')
    expect(again.body.error.message).toMatch(/ticket/)
    const page = await rest(server.url, 'GET', '/v1/surveys?limit=1000', { key: mycel.key })
    expect(page.body.plots.some((plot: { plot_id: string }) => plot.plot_id === 'once-2')).toBe(false)
  })

  it('carries skipInvalid: with it the valid rows are stored, without it a refused row stores nothing', async () => {
    const body = [HEADER, row('skip-1'), row('skip-2', 41)].join('\n')
    const skipping = await send((await ticketFor(mycel.key, true)).path, body)
    expect(skipping.status, skipping.text).toBe(201)
    expect(skipping.body).toMatchObject({ skip_invalid: true, stored: 1, refused_rows: 1 })
    const strict = await send((await ticketFor(mycel.key)).path, body)
    expectError(strict, 422, 'survey_upload_refused')
  })

  it('refuses a ticket that expired, was never issued, or is not a ticket; and query parameters', async () => {
    const expired = await ticketFor(mycel.key)
    const token = expired.path.split('/').at(-1) as string
    await db.sql`UPDATE survey_upload_tickets SET expires_at = now() - interval '1 second'
      WHERE token_hash = ${hash('sha256', token, 'hex')}`
    expectError(await send(expired.path, [HEADER, row('late-1')].join('\n')), 404, 'not_found')
    const forged = `/v1/surveys/uploads/tickets/sut_${'A'.repeat(43)}`
    expectError(await send(forged, [HEADER, row('forged-1')].join('\n')), 404, 'not_found')
    expectError(await send('/v1/surveys/uploads/tickets/x', [HEADER].join('\n')), 404, 'not_found')
    const live = await ticketFor(mycel.key)
    expectError(
      await send(`${live.path}?skip_invalid=true`, [HEADER, row('query-1')].join('\n')),
      400,
      'invalid_request',
    )
  })

  it('stops working with its key: a ticket of a key revoked since is invalid_api_key', async () => {
    const doomed = await issueKey(db, 'mycel')
    const ticket = await ticketFor(doomed.key)
    await setKeyStatus(db.sql, doomed.id, 'revoke')
    expectError(await send(ticket.path, [HEADER, row('revoked-1')].join('\n')), 401, 'invalid_api_key')
  })

  it('keeps only the ticket’s hash, and never logs the ticket', async () => {
    const ticket = await ticketFor(mycel.key)
    const token = ticket.path.split('/').at(-1) as string
    expect((await send(ticket.path, [HEADER, row('hash-1')].join('\n'))).status).toBe(201)
    const kept = await db.sql<{ tokenHash: string }[]>`SELECT token_hash FROM survey_upload_tickets`
    expect(kept.map((t) => t.tokenHash)).toContain(hash('sha256', token, 'hex'))
    expect(JSON.stringify(kept)).not.toContain(token)
    expect(JSON.stringify(entries)).not.toContain(token)
    expect(
      entries.some((entry) => JSON.stringify(entry).includes('/v1/surveys/uploads/tickets/{ticket}')),
    ).toBe(true)
  })

  it('needs a key to ask, and is once per operation', async () => {
    const anonymous = await graphql(server.url, TICKET, {})
    expect(firstError(anonymous).extensions?.code).toBe('invalid_api_key')
    const twice = await graphql(
      server.url,
      'mutation { a: surveyUploadTicket { path } b: surveyUploadTicket { path } }',
      { key: mycel.key },
    )
    expect(firstError(twice).extensions?.code).toBe('invalid_request')
  })
})
