import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type EmbeddedPostgres, startEmbeddedPostgres } from './embedded.ts'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Another local user of the machine: `nobody`. Becoming it takes root, as CI runs. */
const OTHER_USER = { uid: 65534, gid: 65534 }
const isRoot = process.getuid?.() === 0

/**
 * A PostgreSQL client with no credentials (no password: none exists to give) that tries the
 * embedded store where it listens, and says whether it was let in.
 */
const INTRUDER = `
  import postgres from 'postgres'
  const sql = postgres({ ...JSON.parse(process.env.STORE), username: 'postgres', database: 'postgres',
    max: 1, connect_timeout: 5, onnotice: () => {} })
  const outcome = await sql\`SELECT current_user AS who\`.then(
    ([row]) => ({ admitted: row.who }),
    (error) => ({ refused: error.code ?? error.message }),
  )
  console.log(JSON.stringify(outcome))
  await sql.end({ timeout: 1 })
`

describe('the embedded store (no DATABASE_URL)', () => {
  let store: EmbeddedPostgres

  beforeAll(async () => {
    store = await startEmbeddedPostgres()
  }, 120_000)

  afterAll(async () => {
    await store?.stop()
  })

  /** The server's own connection, as src/db/connect.ts opens it. */
  async function ownConnection(): Promise<string> {
    const sql = postgres({ ...store.connection, username: 'postgres', database: 'postgres', max: 1 })
    try {
      const [row] = await sql<{ who: string }[]>`SELECT current_user AS who`
      return row?.who ?? ''
    } finally {
      await sql.end({ timeout: 1 })
    }
  }

  it('listens on no TCP port: on a Unix socket (0600) in a directory of its own that only this user may enter (0700)', async () => {
    expect(Object.keys(store.connection)).toEqual(['path'])
    const socket = await stat(store.connection.path)
    const dir = await stat(dirname(store.connection.path))
    expect(socket.isSocket()).toBe(true)
    expect(socket.mode & 0o777).toBe(0o600)
    expect(dir.mode & 0o777).toBe(0o700)
    expect(dir.uid).toBe(process.getuid?.())
    expect(await ownConnection()).toBe('postgres')
  })

  it.runIf(isRoot)(
    'refuses a connection from another local user, who has no credentials, while the server’s own works',
    async () => {
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', INTRUDER], {
        cwd: ROOT,
        ...OTHER_USER,
        env: { PATH: process.env.PATH, STORE: JSON.stringify(store.connection) },
        timeout: 30_000,
      })
      expect(JSON.parse(stdout)).toEqual({ refused: 'EACCES' })
      expect(await ownConnection()).toBe('postgres')
    },
  )

  it('removes its directory when it stops', async () => {
    const other = await startEmbeddedPostgres()
    const dir = dirname(other.connection.path)
    expect(existsSync(dir)).toBe(true)
    await other.stop()
    expect(existsSync(dir)).toBe(false)
  }, 120_000)
})
