import { execFile } from 'node:child_process'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_DATABASE_URL } from '../../test/support/services.ts'

const run = promisify(execFile)

/**
 * A proxy to PostgreSQL that lets each connection start, then resets it (TCP RST) as the client sends
 * its first message after start-up: whatever the driver asks first is cut mid-flight.
 */
async function startFirstQueryCutter(target: URL): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    let startedUp = false
    client.on('data', (chunk) => {
      if (startedUp) {
        client.resetAndDestroy()
        upstream.destroy()
        return
      }
      startedUp = true
      upstream.write(chunk)
    })
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Opens the pool as servers do, asks one query through the cutter, then lingers to let a stray rejection surface. */
const CHILD = `
  import { openDatabase } from './src/db/connect.ts'
  const db = await openDatabase({ DATABASE_URL: process.env.CUT_URL, DB_POOL_MAX: 2 })
  const outcome = await db.sql\`SELECT 1 AS one\`.then(() => 'answered', (error) => 'refused: ' + error.code)
  console.log(outcome)
  await new Promise((resolve) => setTimeout(resolve, 500))
  await db.sql.end({ timeout: 1 })
  console.log('alive')
`

describe('a connection reset during a new connection’s first query', () => {
  let cutter: Awaited<ReturnType<typeof startFirstQueryCutter>>

  beforeAll(async () => {
    cutter = await startFirstQueryCutter(new URL(ADMIN_DATABASE_URL))
  })
  afterAll(async () => {
    await cutter?.close()
  })

  it('fails that query and leaves the process running (no unhandled rejection)', async () => {
    const url = new URL(ADMIN_DATABASE_URL)
    url.hostname = '127.0.0.1'
    url.port = String(cutter.port)
    const child = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { ...process.env, CUT_URL: url.toString() },
      timeout: 30_000,
    }).catch((error: { code?: number; stdout?: string; stderr?: string }) => error)
    expect(child.stderr).not.toMatch(/unhandled|ECONNRESET/i)
    expect(child.stdout).toBe('refused: ECONNRESET\nalive\n')
  })
})
