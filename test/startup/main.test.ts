import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { migrate } from '../../src/db/migrate.ts'
import { createTestDatabase, type TestDatabase } from '../support/database.ts'

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

interface Started {
  child: ChildProcess
  url: string
  stdout: () => string
}

/** `npm start`'s entry point in a child process; resolves once /v1/health answers (bounded). */
async function start(env: Record<string, string | undefined>): Promise<Started> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: undefined,
      REDIS_URL: undefined,
      LOG_LEVEL: 'warn',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk) => {
    output += chunk
  })
  child.stderr?.on('data', (chunk) => {
    output += chunk
  })
  const url = `http://127.0.0.1:${port}`
  for (let attempt = 0; attempt < 240; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`)
    try {
      const response = await fetch(`${url}/v1/health`)
      if (response.ok) return { child, url, stdout: () => output }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  child.kill('SIGKILL')
  throw new Error(`server did not answer /v1/health within 60 s:\n${output}`)
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode)
    child.once('exit', (code) => resolve(code))
    child.kill('SIGTERM')
  })
}

describe('npm start', () => {
  let running: Started | undefined
  afterEach(async () => {
    if (running) await stop(running.child)
    running = undefined
  })

  it('boots on the embedded store, seeds it, prints demo keys and serves them', async () => {
    running = await start({})
    const health = await (await fetch(`${running.url}/v1/health`)).json()
    expect(health).toMatchObject({ status: 'healthy', database: 'connected', coverage_regions: ['pnw'] })
    const output = running.stdout()
    expect(output).toMatch(/Demo API keys/)
    const keys = output.match(/tsp_live_[0-9a-f]{32}/g) ?? []
    expect(keys).toHaveLength(3)
    const response = await fetch(`${running.url}/v1/predict`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': keys[0] ?? '' },
      body: JSON.stringify({
        latitude: 44.6,
        longitude: -123.6,
        species_code: 'PSME',
        planting_method: 'manual',
      }),
    })
    expect(response.status).toBe(200)
    expect(await stop(running.child)).toBe(0)
    running = undefined
  })

  describe('with DATABASE_URL', () => {
    let db: TestDatabase
    beforeAll(async () => {
      db = await createTestDatabase()
      await migrate(db.sql)
    })
    afterAll(() => db.drop())

    it('never creates a key implicitly', async () => {
      running = await start({ DATABASE_URL: db.url })
      expect(running.stdout()).not.toMatch(/tsp_live_/)
      const [count] = await db.sql`SELECT count(*)::int AS n FROM api_keys`
      expect(count?.n).toBe(0)
    })
  })

  it('refuses invalid configuration with a message naming the variable', async () => {
    await expect(start({ PORT: 'x', SEARCH_RADIUS_KM: '-3' })).rejects.toThrow(/SEARCH_RADIUS_KM/)
  })
})
