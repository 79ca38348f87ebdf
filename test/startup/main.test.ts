import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { migrate } from '../../src/db/migrate.ts'
import { get, post } from '../rest/client.ts'
import { createTestDatabase, type TestDatabase } from '../support/database.ts'
import { type ServerProcess, startServerProcess } from '../support/process.ts'
import { predictBody } from '../support/sites.ts'

describe('npm start', () => {
  let running: ServerProcess | undefined
  afterEach(async () => {
    await running?.stop()
    running = undefined
  })

  it('boots on the embedded store, seeds it, prints demo keys and serves them', async () => {
    running = await startServerProcess({ EMBEDDED_CACHE_DIR: 'off' })
    const health = (await get(running.url, '/v1/health')).body
    expect(health).toMatchObject({ status: 'healthy', database: 'connected', coverage_regions: ['pnw'] })
    const output = running.output()
    expect(output).toMatch(/Demo API keys/)
    const keys = output.match(/tsp_live_[0-9a-f]{32}/g) ?? []
    expect(keys).toHaveLength(3)
    expect((await post(running.url, '/v1/predict', predictBody(), keys[0])).status).toBe(200)
    expect(await running.stop()).toBe(0)
    running = undefined
  })

  it('caches the migrated and seeded embedded store, and starts from it next time', async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'survival-embedded-'))
    try {
      running = await startServerProcess({ EMBEDDED_CACHE_DIR: cacheDir, LOG_LEVEL: 'info' })
      expect(running.output()).toMatch(/embedded store snapshot cached/)
      await running.stop()
      expect((await readdir(cacheDir)).filter((f) => f.endsWith('.tar.gz'))).toHaveLength(1)

      running = await startServerProcess({ EMBEDDED_CACHE_DIR: cacheDir, LOG_LEVEL: 'info' })
      expect(running.output()).toMatch(/started from its cached snapshot/)
      const key = running.output().match(/tsp_live_[0-9a-f]{32}/)?.[0] ?? ''
      expect((await post(running.url, '/v1/predict', predictBody(), key)).status).toBe(200)
    } finally {
      await rm(cacheDir, { recursive: true, force: true })
    }
  })

  describe('with DATABASE_URL', () => {
    let db: TestDatabase
    beforeAll(async () => {
      db = await createTestDatabase()
      await migrate(db.sql)
    })
    afterAll(() => db.drop())

    it('never creates a key implicitly', async () => {
      running = await startServerProcess({ DATABASE_URL: db.url })
      expect(running.output()).not.toMatch(/tsp_live_/)
      const [count] = await db.sql`SELECT count(*)::int AS n FROM api_keys`
      expect(count?.n).toBe(0)
    })

    it('refuses to start without ADDRESS_HASH_KEY, or with a short one, saying how to make one', async () => {
      await expect(
        startServerProcess({ DATABASE_URL: db.url, ADDRESS_HASH_KEY: undefined }, 20_000),
      ).rejects.toThrow(/ADDRESS_HASH_KEY: required with DATABASE_URL.*openssl rand -hex 32/)
      await expect(
        startServerProcess({ DATABASE_URL: db.url, ADDRESS_HASH_KEY: 'too-short-a-secret' }, 20_000),
      ).rejects.toThrow(/ADDRESS_HASH_KEY: must be at least 32 characters.*openssl rand -hex 32/)
    })
  })

  it('refuses invalid configuration with a message naming the variable', async () => {
    await expect(startServerProcess({ PORT: 'x', SEARCH_RADIUS_KM: '-3' }, 20_000)).rejects.toThrow(
      /SEARCH_RADIUS_KM/,
    )
  })
})
