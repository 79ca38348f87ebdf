import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { connect, type Socket } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_BODY_BYTES } from '../../src/http-body/body.ts'
import { LINGER } from '../../src/http-body/lingering-close.ts'
import { MAX_UPLOAD_BYTES } from '../../src/rest/streamed-upload.ts'
import { type SeededServer, startSeededServer, stopSeededServer } from '../support/seeded-server.ts'

/**
 * A body over the limit is answered 413 before it has all arrived. Whatever the client — one that reads
 * while it writes, or one that writes everything before it reads — it must read that answer, never a
 * reset or EPIPE: the server drops the rest of the body and closes only once the client has sent it
 * (src/http-body/lingering-close.ts), within bounds. The clients here write their bodies a piece a turn
 * of the event loop, as a body arrives over a real network, which is when closing at once loses the
 * answer almost every time.
 */

const MIB = 1024 * 1024
const BODY_BYTES = 3 * MIB
const PIECE_BYTES = 64 * 1024
const ROUNDS = 30

let running: SeededServer
let port: number

beforeAll(async () => {
  running = await startSeededServer()
  port = Number(new URL(running.server.url).port)
})

afterAll(() => stopSeededServer(running))

/** What a client got: the answer, or the socket error that took its place. */
interface Outcome {
  status: number
  headers: Record<string, string>
  body: string
  error?: string
}

interface Target {
  path: string
  headers: () => Record<string, string>
  /** The body's pieces: 3 MiB in all. */
  pieces: Buffer[]
  /** How long a paced client waits between two pieces (0: a turn of the event loop). */
  pauseMs: number
  limit: number
  /** The error code an answer carries: the REST envelope, or GraphQL's errors. */
  code: (body: unknown) => unknown
}

function piecesOf(body: Buffer): Buffer[] {
  return Array.from({ length: Math.ceil(body.length / PIECE_BYTES) }, (_, i) =>
    body.subarray(i * PIECE_BYTES, (i + 1) * PIECE_BYTES),
  )
}

const spaces = piecesOf(Buffer.alloc(BODY_BYTES, 0x20))
const restCode = (body: unknown) => {
  const error = (body as { error?: { code?: string; details?: unknown } }).error
  return error && { code: error.code, details: error.details }
}
const json = () => ({ 'content-type': 'application/json', 'x-api-key': running.key })

/**
 * A job upload is limited after gunzip (512 MiB): gzip members that each inflate to 16 MiB of blank
 * NDJSON lines, 3 MiB of them on the wire, pass it about a sixth of the way in.
 */
function gzipBomb(): Buffer {
  const line = Buffer.from(`${' '.repeat(32 * 1024 - 1)}\n`)
  const member = gzipSync(Buffer.concat(Array.from({ length: 512 }, () => line)), { level: 9 })
  return Buffer.concat(Array.from({ length: Math.ceil(BODY_BYTES / member.length) }, () => member))
}

const TARGETS: Target[] = [
  { path: '/v1/predict', headers: json, pieces: spaces, pauseMs: 0, limit: MAX_BODY_BYTES, code: restCode },
  {
    path: '/v1/predict/batch',
    headers: json,
    pieces: spaces,
    pauseMs: 0,
    limit: MAX_BODY_BYTES,
    code: restCode,
  },
  {
    path: '/graphql',
    headers: () => ({ 'content-type': 'application/json', accept: 'application/graphql-response+json' }),
    pieces: spaces,
    pauseMs: 0,
    limit: MAX_BODY_BYTES,
    code: (body) => {
      const error = (body as { errors?: { extensions?: { code?: string; details?: unknown } }[] }).errors?.[0]
      return error && { code: error.extensions?.code, details: error.extensions?.details }
    },
  },
]

const JOB_UPLOAD: Target = {
  path: '/v1/jobs',
  headers: () => ({
    'content-type': 'application/x-ndjson',
    'content-encoding': 'gzip',
    'x-api-key': running.key,
  }),
  pieces: piecesOf(gzipBomb()),
  // The 413 comes once 512 MiB are inflated, seconds in: the client must still be sending by then.
  pauseMs: 100,
  limit: MAX_UPLOAD_BYTES,
  code: restCode,
}

function bytesOf(pieces: Buffer[]): number {
  return pieces.reduce((sum, piece) => sum + piece.length, 0)
}

/** The wait between two pieces of a body, as when it arrives over a network. */
function pause(target: Target) {
  return new Promise((resolve) =>
    target.pauseMs ? setTimeout(resolve, target.pauseMs) : setImmediate(resolve),
  )
}

function drainedOrClosed(stream: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done).off('close', done)
      resolve()
    }
    stream.on('drain', done).on('close', done)
  })
}

function errorCode(error: unknown): string {
  const { code, cause } = error as { code?: string; cause?: { code?: string } }
  return cause?.code ?? code ?? String(error)
}

/** undici, the body handed over whole (sent with its Content-Length). */
async function viaFetch(target: Target): Promise<Outcome> {
  try {
    const response = await fetch(`${running.server.url}${target.path}`, {
      method: 'POST',
      headers: target.headers(),
      body: new Uint8Array(Buffer.concat(target.pieces)),
    })
    const body = await response.text()
    return { status: response.status, headers: Object.fromEntries(response.headers), body }
  } catch (error) {
    return { status: 0, headers: {}, body: '', error: errorCode(error) }
  }
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(', ') : `${value}`,
    ]),
  )
}

/** node:http on a fresh connection, reading while it writes; an error once the answer was read is no loss. */
function viaNodeHttp(target: Target, framing: 'content-length' | 'chunked'): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false
    const settle = (outcome: Outcome) => {
      if (!settled) resolve(outcome)
      settled = true
    }
    const framingHeader =
      framing === 'chunked'
        ? { 'transfer-encoding': 'chunked' }
        : { 'content-length': String(bytesOf(target.pieces)) }
    const headers = { ...target.headers(), ...framingHeader }
    const url = `${running.server.url}${target.path}`
    const req = httpRequest(url, { method: 'POST', headers, agent: false }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.on('end', () =>
        settle({
          status: res.statusCode ?? 0,
          headers: flatHeaders(res.headers),
          body: Buffer.concat(parts).toString(),
        }),
      )
      res.on('error', (error) => settle({ status: 0, headers: {}, body: '', error: errorCode(error) }))
    })
    req.on('error', (error) => settle({ status: 0, headers: {}, body: '', error: errorCode(error) }))
    ;(async () => {
      for (const piece of target.pieces) {
        if (req.destroyed) return
        if (!req.write(piece)) await drainedOrClosed(req)
        await pause(target)
      }
      req.end()
    })()
  })
}

/** A raw socket that writes the request whole and only then reads: any error means the answer was lost. */
function viaRawSocket(target: Target): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const parts: Buffer[] = []
    let error: string | undefined
    socket.on('error', (cause) => {
      error ??= errorCode(cause)
    })
    socket.on('close', () => resolve({ ...parseResponse(Buffer.concat(parts)), ...(error ? { error } : {}) }))
    ;(async () => {
      const headers = Object.entries({ ...target.headers(), 'content-length': bytesOf(target.pieces) })
      socket.write(
        `POST ${target.path} HTTP/1.1\r\nhost: localhost\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`,
      )
      for (const piece of target.pieces) {
        if (socket.destroyed) return
        if (!socket.write(piece)) await drainedOrClosed(socket)
        await pause(target)
      }
      socket.on('data', (part: Buffer) => parts.push(part))
    })()
  })
}

/** One HTTP/1.1 response as read off a socket (its body sized by Content-Length, chunked, or the close). */
function parseResponse(raw: Buffer): Omit<Outcome, 'error'> {
  const end = raw.indexOf('\r\n\r\n')
  if (end < 0) return { status: 0, headers: {}, body: '' }
  const [statusLine = '', ...lines] = raw.subarray(0, end).toString().split('\r\n')
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  )
  let body = raw.subarray(end + 4)
  if (headers['transfer-encoding'] === 'chunked') {
    const pieces: Buffer[] = []
    for (let at = 0, size = 1; size > 0; ) {
      const lineEnd = body.indexOf('\r\n', at)
      size = Number.parseInt(body.subarray(at, lineEnd).toString(), 16)
      pieces.push(body.subarray(lineEnd + 2, lineEnd + 2 + size))
      at = lineEnd + 2 + size + 2
    }
    body = Buffer.concat(pieces)
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.toString() }
}

const CLIENTS: [string, (target: Target) => Promise<Outcome>][] = [
  ['fetch (undici)', viaFetch],
  ['node:http with Content-Length', (target) => viaNodeHttp(target, 'content-length')],
  ['node:http chunked', (target) => viaNodeHttp(target, 'chunked')],
  ['a raw socket that writes it all before reading', viaRawSocket],
]

/** One line per kind of answer: '413 payload_too_large' is the only right one. */
function describeOutcome(target: Target, outcome: Outcome): string {
  if (outcome.error) return `${outcome.status || 'no answer'}, then ${outcome.error}`
  let body: unknown
  try {
    body = JSON.parse(outcome.body)
  } catch {
    return `${outcome.status} with a body that is not JSON`
  }
  const found = target.code(body) as { code?: string; details?: unknown } | undefined
  const closes = outcome.headers.connection === 'close' ? '' : ' without Connection: close'
  const details =
    JSON.stringify(found?.details) === JSON.stringify({ limit_bytes: target.limit }) ? '' : ' (details?)'
  return `${outcome.status} ${found?.code}${details}${closes}`
}

async function tally(target: Target, client: (target: Target) => Promise<Outcome>, rounds: number) {
  const seen: Record<string, number> = {}
  for (let round = 0; round < rounds; round++) {
    const line = describeOutcome(target, await client(target))
    seen[line] = (seen[line] ?? 0) + 1
  }
  return seen
}

describe(`a 3 MiB body is answered 413 payload_too_large, and every client reads it (${ROUNDS} times each)`, () => {
  for (const target of TARGETS) {
    it.each(CLIENTS)(`${target.path}: %s`, async (_name, client) => {
      expect(await tally(target, client, ROUNDS)).toEqual({ '413 payload_too_large': ROUNDS })
    })
  }

  // Each of these inflates 512 MiB on the server (about 2 s of CPU) and takes 5 s to send: one round.
  it.each(CLIENTS)('/v1/jobs, gzip over the upload limit: %s', async (_name, client) => {
    expect(await tally(JOB_UPLOAD, client, 1)).toEqual({ '413 payload_too_large': 1 })
  })
})

/** A raw socket that reads as it writes and keeps sending after the server stops (half-open). */
function halfOpen(): Socket {
  return connect({ port, host: '127.0.0.1', allowHalfOpen: true })
}

interface Lingered {
  status: number
  /** From the answer's arrival to the connection's close, ms. */
  heldMs: number
}

/**
 * Sends a body declared far over the limit, one piece every `every` ms; stops after `pieces` (or never).
 * Timed on the server's side: a half-open client that has stopped writing cannot see the close.
 */
function lingerWith(every: number, pieces = Number.POSITIVE_INFINITY): Promise<Lingered> {
  return new Promise((resolve) => {
    let answeredAt = 0
    let status = 0
    running.server.app.server.once('connection', (accepted: Socket) =>
      accepted.once('close', () => {
        resolve({ status, heldMs: performance.now() - answeredAt })
        socket.destroy()
      }),
    )
    const socket = halfOpen()
    socket.on('error', () => {})
    socket.once('data', (part: Buffer) => {
      answeredAt = performance.now()
      status = Number(part.toString().split(' ')[1])
    })
    socket.resume()
    ;(async () => {
      socket.write(
        `POST /v1/predict HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\nx-api-key: ${running.key}\r\ncontent-length: 1000000000000\r\n\r\n`,
      )
      const piece = Buffer.alloc(16 * 1024, 0x20)
      for (let sent = 0; sent < pieces && socket.writable && !socket.destroyed; sent++) {
        if (!socket.write(piece)) await drainedOrClosed(socket)
        await new Promise((next) => (every ? setTimeout(next, every) : setImmediate(next)))
      }
    })()
  })
}

describe('the lingering close is bounded', () => {
  it(`cuts off a client that keeps sending as fast as it can (after ${LINGER.bytes / MIB} MiB)`, async () => {
    const { status, heldMs } = await lingerWith(0)
    expect(status).toBe(413)
    expect(heldMs).toBeLessThan(LINGER.totalMs)
  })

  it(`cuts off a client that keeps sending slowly after ${LINGER.totalMs} ms`, async () => {
    const { status, heldMs } = await lingerWith(50)
    expect(status).toBe(413)
    expect(heldMs).toBeGreaterThan(LINGER.totalMs - 200)
    expect(heldMs).toBeLessThan(LINGER.totalMs + 1000)
  })

  it(`closes ${LINGER.idleMs} ms after a client stops sending`, async () => {
    const { status, heldMs } = await lingerWith(0, 8)
    expect(status).toBe(413)
    expect(heldMs).toBeGreaterThan(LINGER.idleMs - 200)
    expect(heldMs).toBeLessThan(LINGER.idleMs + 1000)
  })

  it('serves the next request as usual', async () => {
    const response = await fetch(`${running.server.url}/v1/health`)
    expect(response.status).toBe(200)
  })
})
