import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HealthMonitor } from '../../src/domain/health.ts'
import { MAX_GRAPHQL_BODY_BYTES } from '../../src/graphql/yoga.ts'
import { MAX_BODY_BYTES } from '../../src/rest/json-body.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { graphql } from '../support/graphql-helpers.ts'
import { eventually } from '../support/waiting.ts'
import { createMigratedDatabase, type RunningApp, raw, startApp } from './support.ts'

/**
 * OWASP API4, unrestricted resource consumption: what one request may make the server hold (body
 * sizes on both doors, one GraphQL operation per request), and how many requests a process serves at
 * once (MAX_IN_FLIGHT) and for how long (timeouts).
 */
let db: TestDatabase
let running: RunningApp
/** The body deadline of every request but a job upload, shortened for the test (30 s in service). */
const BODY_TIMEOUT_MS = 400
let key: string

beforeAll(async () => {
  db = await createMigratedDatabase()
  running = await startApp({ database: db, env: { MAX_IN_FLIGHT: '3' }, bodyTimeoutMs: BODY_TIMEOUT_MS })
  key = (await issueKey(db, 'hypha')).key
})

afterAll(async () => {
  await running?.close()
  await db?.drop()
})

/** A GraphQL request body of exactly `bytes` bytes (padded with JSON whitespace). */
function graphqlBody(bytes: number): string {
  const body = JSON.stringify({ query: '{ __typename }' })
  return body.slice(0, -1) + ' '.repeat(bytes - Buffer.byteLength(body)) + body.slice(-1)
}

describe('API4: request bodies on /graphql are capped like those on /v1 (1 MiB)', () => {
  it('the two doors share one limit', () => {
    expect(MAX_GRAPHQL_BODY_BYTES).toBe(1024 * 1024)
    expect(MAX_GRAPHQL_BODY_BYTES).toBe(MAX_BODY_BYTES)
  })

  it('a body of exactly 1 MiB is answered', async () => {
    const body = graphqlBody(MAX_GRAPHQL_BODY_BYTES)
    const response = await raw(
      running.url,
      'POST',
      '/graphql',
      { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      [body],
    )
    expect(response.status, response.text).toBe(200)
    expect(JSON.parse(response.text)).toEqual({ data: { __typename: 'Query' } })
  })

  it('one byte more, declared in Content-Length, is 413 (and so are 5 MB)', async () => {
    for (const size of [MAX_GRAPHQL_BODY_BYTES + 1, 5_000_000]) {
      const body = graphqlBody(size)
      const response = await raw(
        running.url,
        'POST',
        '/graphql',
        { 'content-type': 'application/json', 'content-length': size },
        [body],
      ).catch((error: Error) => ({ status: 0, text: error.message, headers: {} }))
      // A server may refuse before reading the body and close: either way, never a 200.
      expect(response.status, `${size} bytes`).toBe(413)
    }
  })

  it('a chunked body (no Content-Length) is cut at the limit with 413', async () => {
    const body = graphqlBody(MAX_GRAPHQL_BODY_BYTES + 64 * 1024)
    const pieces = Array.from({ length: Math.ceil(body.length / 65_536) }, (_, i) =>
      body.slice(i * 65_536, (i + 1) * 65_536),
    )
    const response = await raw(
      running.url,
      'POST',
      '/graphql',
      { 'content-type': 'application/json' },
      pieces,
    )
    expect(response.status, response.text).toBe(413)
  })

  it('one operation per request: a batched (array) body is refused', async () => {
    const response = await raw(running.url, 'POST', '/graphql', { 'content-type': 'application/json' }, [
      JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]),
    ])
    expect(response.status).toBe(400)
    expect(response.text).toMatch(/Batching is not supported/)
  })
})

/** Opens a request that stays in flight: headers and part of a body, the rest never sent. */
function heldRequest(url: string): Promise<Socket> {
  const target = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname, () => {
      socket.write(
        `POST /v1/predict HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\nX-API-Key: ${key}\r\nContent-Length: 1000\r\n\r\n{"latitude": `,
      )
      resolve(socket)
    })
    socket.on('error', reject)
  })
}

describe('API4: load shedding and time limits', () => {
  it('past MAX_IN_FLIGHT requests at once, a process answers 503 with Retry-After at once, health excepted', async () => {
    const held = await Promise.all([
      heldRequest(running.url),
      heldRequest(running.url),
      heldRequest(running.url),
    ])
    try {
      // The held requests are in the handler (waiting for their bodies) once they are counted.
      expect(
        await eventually(async () => {
          const response = await fetch(`${running.url}/v1/methods`, { headers: { 'x-api-key': key } })
          await response.arrayBuffer()
          return response.status === 503
        }),
      ).toBe(true)
      const shed = await fetch(`${running.url}/v1/methods`, { headers: { 'x-api-key': key } })
      expect(shed.status).toBe(503)
      expect(shed.headers.get('retry-after')).toBe('1')
      expect(((await shed.json()) as { error: { code: string } }).error.code).toBe('service_unavailable')
      const graphql = await fetch(`${running.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ query: '{ __typename }' }),
      })
      expect(graphql.status).toBe(503)
      const health = await fetch(`${running.url}/v1/health`)
      expect(health.status).toBe(200)
    } finally {
      for (const socket of held) socket.destroy()
    }
    expect(
      await eventually(async () => {
        const response = await fetch(`${running.url}/v1/methods`, { headers: { 'x-api-key': key } })
        await response.arrayBuffer()
        return response.status === 200
      }),
    ).toBe(true)
  })

  it('a request must arrive within bounded times: its headers within 10 s, the whole of it within a limit', () => {
    const { server } = running.app
    // Node's 0 means "no limit": a slow client (slowloris) could then hold a connection forever.
    expect(server.headersTimeout).toBeGreaterThan(0)
    expect(server.headersTimeout).toBeLessThanOrEqual(10_000)
    expect(server.requestTimeout).toBeGreaterThan(0)
    expect(Number.isFinite(server.requestTimeout)).toBe(true)
  })

  /** Sends the headers and the start of a body, then a byte every `everyMs`; resolves with what came back. */
  function trickle(path: string, contentType: string, everyMs: number, forMs: number): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect(Number(new URL(running.url).port), '127.0.0.1')
      let answer = ''
      let timer: NodeJS.Timeout | undefined
      const started = Date.now()
      socket.on('data', (chunk) => {
        answer += chunk.toString()
      })
      socket.on('close', () => {
        clearInterval(timer)
        resolve(answer)
      })
      socket.on('error', () => {})
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: ${contentType}\r\nContent-Length: 100000\r\n\r\n{`,
      )
      timer = setInterval(() => {
        if (Date.now() - started > forMs) {
          clearInterval(timer)
          socket.destroy()
          return
        }
        socket.write(' ')
      }, everyMs)
    })
  }

  it('a body other than a streamed upload still arriving after the body deadline is answered 408 and closed', async () => {
    const started = Date.now()
    const answer = await trickle('/v1/predict', 'application/json', 50, 10_000)
    expect(answer).toMatch(/^HTTP\/1\.1 408 /)
    expect(Date.now() - started).toBeLessThan(BODY_TIMEOUT_MS + 2_000)
  })

  it.each(['/v1/jobs', '/v1/surveys/uploads'])(
    'a streamed upload (%s) may take longer than that deadline: it is not cut while it arrives',
    async (path) => {
      const answer = await trickle(path, 'text/csv', 50, BODY_TIMEOUT_MS * 3)
      // Closed by the client with the body unfinished: never a 408 from the server meanwhile.
      expect(answer).not.toMatch(/408/)
    },
  )

  it('and so may one sent to a survey upload ticket’s path', async () => {
    const ticket = await graphql(running.url, 'mutation { surveyUploadTicket { path } }', { key })
    const path = ticket.body.data.surveyUploadTicket.path as string
    const answer = await trickle(path, 'text/csv', 50, BODY_TIMEOUT_MS * 3)
    // Nothing at all: the ticket was taken and the upload was still reading when the client left.
    expect(answer).toBe('')
  })
})

describe('API4: health needs no key and is never shed, so it costs one database probe at a time', () => {
  it('checks that arrive together share one probe; a later check probes afresh', async () => {
    let probes = 0
    let answer: (connected: boolean) => void = () => {}
    const health = new HealthMonitor({
      databaseAnswers: () => {
        probes += 1
        return new Promise<boolean>((resolve) => {
          answer = resolve
        })
      },
      model: { series: 'mycel', version: '0.2', codename: 'test' },
      quotaStoreState: () => 'not_configured',
    })
    const together = Array.from({ length: 200 }, () => health.check())
    expect(probes).toBe(1)
    answer(true)
    const reports = await Promise.all(together)
    expect(reports.every((report) => report.database === 'connected')).toBe(true)
    const later = health.check()
    expect(probes).toBe(2)
    answer(false)
    expect((await later).status).toBe('unavailable')
  })

  it('a burst of health requests past MAX_IN_FLIGHT is answered, all of it', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => fetch(`${running.url}/v1/health`).then((r) => r.status)),
    )
    expect(answers.every((status) => status === 200)).toBe(true)
  })
})
