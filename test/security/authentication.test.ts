import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setKeyStatus } from '../../src/db/keys.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { predictBody } from '../support/sites.ts'
import { createMigratedDatabase, ROOT, type RunningApp, startApp } from './support.ts'

/**
 * OWASP API2, broken authentication: what a caller without a working key can learn, and where keys and
 * other secrets could leak (logs).
 */
let db: TestDatabase
let running: RunningApp
let revoked: string

beforeAll(async () => {
  db = await createMigratedDatabase()
  running = await startApp({ database: db, keyCacheMs: 0 })
  const issued = await issueKey(db, 'mycel')
  await setKeyStatus(db.sql, issued.id, 'revoke')
  revoked = issued.key
})

afterAll(async () => {
  await running?.close()
  await db?.drop()
})

/** Keys that must all be refused alike: nothing tells a caller which of them came closest. */
const REFUSED: [string, string | undefined][] = [
  ['no header', undefined],
  ['an empty header', ''],
  ['an unknown well-formed key', `tsp_live_${'0123456789abcdef'.repeat(2)}`],
  ['a wrong prefix', `tsp_test_${'a'.repeat(32)}`],
  ['one hex character short', `tsp_live_${'a'.repeat(31)}`],
  ['uppercase hex', `tsp_live_${'A'.repeat(32)}`],
  ['garbage', 'not a key'],
  ['8 KB of key', `tsp_live_${'a'.repeat(8000)}`],
  ['a revoked key', 'REVOKED'],
]

/** Status, body and header names (not the per-request id or the date) of one answer. */
async function answer(path: string, key: string | undefined, init: RequestInit = {}) {
  const actual = key === 'REVOKED' ? revoked : key
  const response = await fetch(`${running.url}${path}`, {
    ...init,
    headers: {
      ...(init.headers as Record<string, string>),
      ...(actual === undefined ? {} : { 'x-api-key': actual }),
    },
  })
  const names = [...response.headers.keys()].filter((name) => !['request-id', 'date'].includes(name))
  return { status: response.status, body: await response.text(), headers: names.sort() }
}

describe('API2: refused keys are indistinguishable', () => {
  const requests: [string, string, RequestInit][] = [
    ['REST GET', '/v1/methods', {}],
    [
      'REST POST',
      '/v1/predict',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(predictBody()),
      },
    ],
    [
      'GraphQL',
      '/graphql',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ species { code } }' }),
      },
    ],
  ]

  it.each(requests)(
    '%s: missing, malformed, unknown and revoked keys get one identical answer',
    async (_door, path, init) => {
      const answers = await Promise.all(REFUSED.map(([, key]) => answer(path, key, init)))
      const [first] = answers
      expect(first?.status).toBe(401)
      expect(first?.body).toContain('invalid_api_key')
      answers.forEach((each, index) => {
        expect(each, REFUSED[index]?.[0]).toEqual(first)
      })
    },
  )
})

/** Runs createLogger in a process of its own and returns the JSON lines it wrote to stdout. */
async function logLines(statements: string): Promise<string> {
  const script = `
    const { createLogger } = await import(${JSON.stringify(`${ROOT}src/logging/logger.ts`)})
    const logger = createLogger({ level: 'info' })
    ${statements}
  `
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'info' } },
  )
  return stdout
}

describe('API2: secrets never reach a log line', () => {
  it('keys, the metrics token and email addresses are redacted at the top level and one object down', async () => {
    const key = `tsp_live_${'5'.repeat(32)}`
    const token = 'metrics-token-0123456789'
    const email = 'holder@example.org'
    const stdout = await logLines(`
      const key = ${JSON.stringify(key)}, token = ${JSON.stringify(token)}, email = ${JSON.stringify(email)}
      logger.info({ key }, 'top-level key')
      logger.info({ apiKey: key }, 'top-level apiKey')
      logger.info({ caller: { key } }, 'nested key')
      logger.info({ context: { apiKey: key } }, 'GraphQL context')
      logger.info({ headers: { 'x-api-key': key, authorization: 'Bearer ' + token } }, 'headers')
      logger.info({ req: { headers: { 'x-api-key': key, authorization: 'Bearer ' + token } } }, 'request')
      logger.info({ email }, 'top-level email')
      logger.info({ request: { email, name: 'nursery' } }, 'key request')
    `)
    const lines = stdout.split('\n').filter(Boolean)
    expect(lines).toHaveLength(8)
    expect(stdout).not.toContain(key)
    expect(stdout).not.toContain(token)
    expect(stdout).not.toContain(email)
    expect(stdout.match(/\[redacted\]/g)?.length).toBe(10)
    // What is not secret is kept.
    expect(stdout).toContain('"name":"nursery"')
  })
})
