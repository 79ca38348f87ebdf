import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_DATABASE_URL } from '../../test/support/services.ts'
import { startTcpProxy, type TcpProxy } from '../../test/support/tcp-proxy.ts'

const run = promisify(execFile)

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
  let cutter: TcpProxy

  beforeAll(async () => {
    // Each connection starts up, then is reset at the first query the driver sends.
    const target = new URL(ADMIN_DATABASE_URL)
    cutter = await startTcpProxy(
      { host: target.hostname, port: Number(target.port || 5432) },
      { resetAfterFirstMessage: true },
    )
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
