import { createServer, type IncomingMessage, type Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type LingerBounds, lingeringClose } from './lingering-close.ts'

const BOUNDS: LingerBounds = { totalMs: 800, idleMs: 300, bytes: 4 * 1024 * 1024 }
const ANSWER = '{"error":{"code":"payload_too_large"}}'
const PIECE = Buffer.alloc(16 * 1024, 0x20)

interface Refusing {
  server: Server
  port: number
  /** When the server's side of the one connection closed (ms after the refusal was written). */
  closed: Promise<number>
}

let running: Server | undefined

afterEach(async () => {
  running?.closeAllConnections()
  await new Promise((resolve) => running?.close(resolve) ?? resolve(undefined))
  running = undefined
})

/** A server that refuses every body at once, as a 413 does, with `arm` deciding whether to linger. */
async function refusing(arm = true, bounds = BOUNDS): Promise<Refusing> {
  let settle: (ms: number) => void = () => {}
  const closed = new Promise<number>((resolve) => {
    settle = resolve
  })
  const server = createServer((req: IncomingMessage, res) => {
    if (arm) lingeringClose(req, bounds)
    const answeredAt = performance.now()
    req.socket.once('close', () => settle(performance.now() - answeredAt))
    res.writeHead(413, { connection: 'close', 'content-length': ANSWER.length }).end(ANSWER)
  })
  running = server
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as { port: number }).port, closed }
}

const head = (headers: string) => `POST / HTTP/1.1\r\nhost: x\r\n${headers}\r\n\r\n`

interface Outcome {
  /** Everything read from the server, as text. */
  text: string
  /** The socket error, if any (a reset or EPIPE). */
  error?: string
}

/** Writes `pieces` (one a turn of the event loop, awaiting drain) and only then reads the answer. */
function sendThenRead(port: number, headers: string, pieces: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const parts: Buffer[] = []
    let error: string | undefined
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code
    })
    socket.on('close', () => resolve({ text: Buffer.concat(parts).toString(), error }))
    ;(async () => {
      socket.write(head(headers))
      for (let i = 0; i < pieces && !socket.destroyed; i++) {
        if (!socket.write(PIECE)) await drainedOrClosed(socket)
        await new Promise((next) => setImmediate(next))
      }
      socket.on('data', (chunk: Buffer) => parts.push(chunk))
    })()
  })
}

/**
 * Reads, and writes pieces `every` ms (0: as fast as the socket takes them) until the server cuts it
 * off. Half-open: the server's end of writing does not end its own, as it does for a Node socket.
 */
function sendForever(port: number, every: number): Promise<{ sent: number }> {
  return new Promise((resolve) => {
    const socket = halfOpen(port)
    let sent = 0
    socket.on('error', () => {})
    socket.on('close', () => resolve({ sent }))
    socket.resume()
    ;(async () => {
      socket.write(head('content-length: 1000000000000'))
      while (!socket.destroyed && socket.writable) {
        sent += PIECE.length
        if (!socket.write(PIECE)) await drainedOrClosed(socket)
        await new Promise((next) => (every ? setTimeout(next, every) : setImmediate(next)))
      }
    })()
  })
}

function halfOpen(port: number): Socket {
  return connect({ port, host: '127.0.0.1', allowHalfOpen: true })
}

function drainedOrClosed(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done).off('close', done)
      resolve()
    }
    socket.on('drain', done).on('close', done)
  })
}

describe('lingeringClose', () => {
  it('lets a client that writes its whole body before reading read the answer, without a reset', async () => {
    const { port, closed } = await refusing()
    const outcome = await sendThenRead(port, `content-length: ${64 * PIECE.length}`, 64)
    expect(outcome.error).toBeUndefined()
    expect(outcome.text).toMatch(/^HTTP\/1\.1 413 /)
    expect(outcome.text.endsWith(ANSWER)).toBe(true)
    // The rest arrived before any bound: closed as soon as it had.
    expect(await closed).toBeLessThan(BOUNDS.idleMs)
  })

  it('does the same for a chunked body', async () => {
    const { port } = await refusing()
    // One endless chunk: the client is cut off by the bounds, after it has read the answer.
    const outcome = await sendThenRead(
      port,
      `transfer-encoding: chunked\r\n\r\n${(1 << 30).toString(16)}`,
      64,
    )
    expect(outcome.text).toMatch(/^HTTP\/1\.1 413 /)
    expect(outcome.text.endsWith(ANSWER)).toBe(true)
  })

  it('without it, the same client meets a reset or EPIPE (what it is for)', async () => {
    const { port } = await refusing(false)
    const outcome = await sendThenRead(port, `content-length: ${64 * PIECE.length}`, 64)
    expect(outcome.error).toMatch(/^(ECONNRESET|EPIPE)$/)
  })

  it('cuts off a client that keeps sending, at the byte bound', async () => {
    const { port, closed } = await refusing()
    const { sent } = await sendForever(port, 0)
    expect(await closed).toBeLessThan(BOUNDS.totalMs)
    expect(sent).toBeGreaterThan(BOUNDS.bytes)
    expect(sent).toBeLessThan(BOUNDS.bytes + 16 * 1024 * 1024)
  })

  it('cuts off a client that keeps sending slowly, at the time bound', async () => {
    const { port, closed } = await refusing()
    await sendForever(port, 20)
    const ms = await closed
    expect(ms).toBeGreaterThanOrEqual(BOUNDS.totalMs - 10)
    expect(ms).toBeLessThan(BOUNDS.totalMs + 200)
  })

  it('closes once a client that stopped sending has been silent for the idle bound', async () => {
    const { port, closed } = await refusing()
    const socket = halfOpen(port).on('connect', () => socket.write(`${head('content-length: 100000')}{"a":`))
    socket.on('error', () => {})
    socket.resume()
    const ms = await closed
    expect(ms).toBeGreaterThanOrEqual(BOUNDS.idleMs - 10)
    expect(ms).toBeLessThan(BOUNDS.totalMs)
  })

  it('closes at once when the client hangs up', async () => {
    const { port, closed } = await refusing()
    const socket = halfOpen(port).on('connect', () => socket.write(`${head('content-length: 100000')}{"a":`))
    socket.on('error', () => {})
    socket.on('data', () => socket.end())
    expect(await closed).toBeLessThan(BOUNDS.idleMs)
  })

  it('keeps no process alive: its timers are unref’d, and closeAllConnections() ends it at once', async () => {
    const long = { ...BOUNDS, totalMs: 60_001, idleMs: 60_002 }
    const timers = vi.spyOn(globalThis, 'setTimeout')
    try {
      const { server, port, closed } = await refusing(true, long)
      const socket = halfOpen(port).on('connect', () =>
        socket.write(`${head('content-length: 100000')}{"a":`),
      )
      socket.on('error', () => {})
      await new Promise((answered) => socket.once('data', answered))
      await new Promise((resolve) => setTimeout(resolve, 50))
      const ours = timers.mock.results.filter((_, i) =>
        [60_001, 60_002].includes(timers.mock.calls[i]?.[1] ?? 0),
      )
      expect(ours).toHaveLength(2)
      for (const timer of ours) expect((timer.value as NodeJS.Timeout).hasRef()).toBe(false)
      server.closeAllConnections()
      expect(await closed).toBeLessThan(1000)
    } finally {
      timers.mockRestore()
    }
  })

  it('lets server.close() finish within the time bound, even with a client that keeps sending', async () => {
    const { server, port } = await refusing()
    const sending = sendForever(port, 20)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const started = performance.now()
    await new Promise((resolve) => server.close(resolve))
    expect(performance.now() - started).toBeLessThan(BOUNDS.totalMs + 200)
    await sending
  })
})
