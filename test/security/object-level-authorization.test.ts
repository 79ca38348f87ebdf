import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type IssuedKey, setKeyStatus } from '../../src/db/keys.ts'
import { encodeCursor } from '../../src/domain/audit-service.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { graphql } from '../support/graphql-helpers.ts'
import { eventually } from '../support/waiting.ts'
import { createMigratedDatabase, type RunningApp, startApp } from './support.ts'

/**
 * OWASP API1, broken object level authorization: a job, a key's usage and the audit log belong to the
 * key's account. Another account's job answers exactly as a job that does not exist, another account's
 * audit cursor exactly as one that never existed, and usage and the audit log have no way to name
 * another key or account at all.
 */
let db: TestDatabase
let running: RunningApp
let owner: IssuedKey
let stranger: IssuedKey

beforeAll(async () => {
  db = await createMigratedDatabase()
  running = await startApp({ database: db })
  owner = await issueKey(db, 'mycel')
  stranger = await issueKey(db, 'hypha')
})

afterAll(async () => {
  await running?.close()
  await db?.drop()
})

function call(method: string, path: string, key: string, body?: string) {
  return fetch(`${running.url}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'text/csv' } : {}) },
    body,
  })
}

/** What a refusal looks like without what differs by nature: the id asked for, the request id, the date. */
async function shape(response: Response, id: string) {
  const text = await response.text()
  const names = [...response.headers.keys()].filter((name) => !['request-id', 'date'].includes(name))
  return { status: response.status, body: text.replaceAll(id, '<id>'), headers: names.sort() }
}

async function jobOf(key: string): Promise<string> {
  const csv =
    'latitude,longitude,species_code,planting_method\n44.6,-123.6,PSME,manual\n44.2,-122.2,TSHE,manual\n'
  const created = await call('POST', '/v1/jobs', key, csv)
  expect(created.status, await created.clone().text()).toBe(202)
  const { id } = (await created.json()) as { id: string }
  const finished = await eventually(async () => {
    const job = (await (await call('GET', `/v1/jobs/${id}`, key)).json()) as { status: string }
    return job.status === 'succeeded'
  }, 20_000)
  expect(finished).toBe(true)
  return id
}

describe('API1: jobs belong to the account that uploaded them', () => {
  it("another account's job answers status, results and cancel exactly as a job that does not exist", async () => {
    const id = await jobOf(owner.key)
    const never = `job_${randomBytes(12).toString('hex')}`
    for (const [method, path] of [
      ['GET', '/v1/jobs/{id}'],
      ['GET', '/v1/jobs/{id}/results'],
      ['DELETE', '/v1/jobs/{id}'],
    ] as const) {
      const theirs = await shape(await call(method, path.replace('{id}', id), stranger.key), id)
      const nobodys = await shape(await call(method, path.replace('{id}', never), stranger.key), never)
      expect(theirs.status, `${method} ${path}`).toBe(404)
      expect(theirs, `${method} ${path}`).toEqual(nobodys)
      expect(theirs.body).toContain('"code":"not_found"')
    }
    // The stranger's DELETE neither cancelled nor removed it: its owner still reads it and its results.
    const status = (await (await call('GET', `/v1/jobs/${id}`, owner.key)).json()) as { status: string }
    expect(status.status).toBe('succeeded')
    const results = await call('GET', `/v1/jobs/${id}/results`, owner.key)
    expect(results.status).toBe(200)
    expect((await results.text()).split('\n').filter(Boolean)).toHaveLength(3)
  })

  it('job ids are random (job_ + 24 hex characters, 96 bits), not a sequence a caller could walk', async () => {
    const first = await jobOf(owner.key)
    const second = await jobOf(owner.key)
    for (const id of [first, second]) expect(id).toMatch(/^job_[0-9a-f]{24}$/)
    expect(first.slice(4, 12)).not.toBe(second.slice(4, 12))
  })
})

describe('API1: usage is only ever the calling key’s own', () => {
  it('GET /v1/usage names the calling key and counts its account alone, whatever the query string asks', async () => {
    const mine = await issueKey(db, 'spore')
    const theirs = await issueKey(db, 'spore')
    for (let i = 0; i < 3; i++) expect((await call('GET', '/v1/methods', theirs.key)).status).toBe(200)
    for (const query of ['', `?key_id=${theirs.id}`, `?id=${theirs.id}`, `?account_id=${theirs.id}`]) {
      const response = await call('GET', `/v1/usage${query}`, mine.key)
      expect(response.status, query).toBe(200)
      const usage = (await response.json()) as { key: { id: string }; today: { used: number } }
      expect(usage.key.id, query).toBe(mine.id)
      expect(JSON.stringify(usage), query).not.toContain(theirs.id)
    }
    const own = (await (await call('GET', '/v1/usage', mine.key)).json()) as { today: { used: number } }
    // Four usage calls of its own, this one included; none of the other key's three requests.
    expect(own.today.used).toBe(5)
  })

  it('GraphQL viewer takes no argument naming a key, and shows the calling one', async () => {
    const mine = await issueKey(db, 'spore')
    const theirs = await issueKey(db, 'spore')
    const viewer = await graphql(running.url, '{ viewer { key { id } today { used } } }', { key: mine.key })
    expect(viewer.status).toBe(200)
    expect(viewer.body.data.viewer.key.id).toBe(mine.id)
    const naming = await graphql(running.url, `{ viewer(id: "${theirs.id}") { key { id } } }`, {
      key: mine.key,
    })
    expect(naming.body.data).toBeUndefined()
    expect(naming.body.errors?.[0]?.message).toMatch(/Unknown argument "id"/)
  })
})

describe('API1: the audit log is only ever the calling account’s own', () => {
  interface AuditAnswer {
    events: { id: string; key_id: string | null; details: Record<string, unknown> }[]
    next_cursor: string | null
  }
  const auditOf = async (key: string, query = '') => {
    const response = await call('GET', `/v1/audit${query}`, key)
    return { status: response.status, text: await response.clone().text(), response }
  }

  it('GET /v1/audit shows the caller’s account alone, whatever the query string asks', async () => {
    const mine = await issueKey(db, 'mycel')
    await setKeyStatus(db.sql, mine.id, 'deactivate')
    await setKeyStatus(db.sql, mine.id, 'activate')
    const rolled = await call('POST', '/v1/keys/rotate', mine.key)
    expect(rolled.status).toBe(201)
    const { id: newId, key: myNewKey } = (await rolled.json()) as { id: string; key: string }
    const theirs = await issueKey(db, 'spore')

    const own = JSON.parse((await auditOf(myNewKey)).text) as AuditAnswer
    expect(own.events).toHaveLength(4)
    const myEventIds = own.events.map((event) => event.id)

    const seen = await auditOf(theirs.key)
    expect(seen.status).toBe(200)
    const answer = JSON.parse(seen.text) as AuditAnswer
    // Their own key.created, and nothing of the other account: no event, no key id.
    expect(answer.events.map((event) => event.details.key_id)).toEqual([theirs.id])
    for (const id of [...myEventIds, mine.id, newId]) expect(seen.text).not.toContain(id)
    for (const query of [`?account_id=${mine.id}`, `?key_id=${mine.id}`, `?id=${mine.id}`]) {
      const named = await auditOf(theirs.key, query)
      expect(named.status, query).toBe(400)
      expect(named.text, query).not.toContain(myEventIds[0] as string)
    }
  })

  it('another account’s cursor answers exactly as a cursor that never existed, and pages nothing of it', async () => {
    const mine = await issueKey(db, 'mycel')
    await setKeyStatus(db.sql, mine.id, 'deactivate')
    await setKeyStatus(db.sql, mine.id, 'activate')
    const page = JSON.parse((await auditOf(mine.key, '?limit=1')).text) as AuditAnswer
    const cursor = page.next_cursor as string
    expect(cursor).toBeTruthy()
    const theirs = await issueKey(db, 'hypha')
    const never = encodeCursor(`evt_${randomBytes(12).toString('hex')}`)
    const withMine = await shape((await auditOf(theirs.key, `?cursor=${cursor}`)).response, cursor)
    const withNone = await shape((await auditOf(theirs.key, `?cursor=${never}`)).response, never)
    expect(withMine.status).toBe(400)
    expect(withMine).toEqual(withNone)
    expect(withMine.body).toContain('"field":"cursor"')
    // The owner's cursor still pages the owner's log.
    const next = JSON.parse((await auditOf(mine.key, `?limit=1&cursor=${cursor}`)).text) as AuditAnswer
    expect(next.events).toHaveLength(1)
    expect(next.events[0]?.id).not.toBe(page.events[0]?.id)
  })
})
