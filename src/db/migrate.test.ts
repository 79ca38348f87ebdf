import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, openEmbeddedDatabase, type TestDatabase } from '../../test/support/database.ts'
import { generateApiKey, hashApiKey } from '../access/api-key.ts'
import { type Database, openDatabase } from './connect.ts'
import { migrate, readMigrations } from './migrate.ts'

describe('migrations on PostgreSQL', () => {
  let db: TestDatabase
  beforeAll(async () => {
    db = await createTestDatabase()
  })
  afterAll(() => db.drop())

  it('applies every numbered file once, recorded in schema_migrations, even from two instances at once', async () => {
    const second = await openDatabase({ DATABASE_URL: db.url, DB_POOL_MAX: 2 })
    try {
      const [a, b] = await Promise.all([migrate(db.sql), migrate(second.sql)])
      const files = (await readMigrations()).map((m) => m.name)
      expect([...a, ...b].sort()).toEqual(files)
      const rows = await db.sql<{ name: string }[]>`SELECT name FROM schema_migrations ORDER BY version`
      expect(rows.map((r) => r.name)).toEqual(files)
    } finally {
      await second.close()
    }
  })

  it('is idempotent', async () => {
    expect(await migrate(db.sql)).toEqual([])
  })

  it('seeds the three tiers', async () => {
    const tiers =
      await db.sql`SELECT name, daily_request_limit, batch_size_limit FROM tiers ORDER BY batch_size_limit`
    expect(tiers).toEqual([
      { name: 'spore', dailyRequestLimit: 100, batchSizeLimit: 10 },
      { name: 'mycel', dailyRequestLimit: 10000, batchSizeLimit: 100 },
      { name: 'hypha', dailyRequestLimit: null, batchSizeLimit: 500 },
    ])
  })

  it('rolls back a failing migration as a whole', async () => {
    const broken = [
      { version: 900, name: '900_broken.sql', statements: 'CREATE TABLE half_done (id int); SELECT 1/0;' },
    ]
    await expect(migrate(db.sql, broken)).rejects.toThrow(/division by zero/)
    const [table] = await db.sql`SELECT to_regclass('half_done') AS t`
    expect(table?.t).toBeNull()
    const [recorded] = await db.sql`SELECT count(*)::int AS n FROM schema_migrations WHERE version = 900`
    expect(recorded?.n).toBe(0)
  })
})

describe('sql/010_keyed_address_hashes.sql', () => {
  let db: TestDatabase
  beforeAll(async () => {
    db = await createTestDatabase()
  })
  afterAll(() => db.drop())

  it('clears the plain SHA-256 client addresses written before it, and leaves the keys', async () => {
    const migrations = await readMigrations()
    const before = migrations.filter((m) => m.version < 10)
    expect(migrations.map((m) => m.name)).toContain('010_keyed_address_hashes.sql')
    await migrate(db.sql, before)
    const plain = createHash('sha256').update('203.0.113.7').digest('hex')
    // Keys as the code of that schema wrote them (today's also writes the audit log of migration 011).
    const oldKey = async (id: string, tier: string, email: string | null, issuedFrom: string | null) => {
      const key = generateApiKey()
      await db.sql`
        INSERT INTO api_keys (id, key_hash, key_hint, tier, account_id, email, issued_from)
        VALUES (${id}, ${hashApiKey(key)}, ${key.slice(-4)}, ${tier}, ${id}, ${email}, ${issuedFrom})`
      return { id }
    }
    const issued = await oldKey('key_00000000000010a1', 'spore', 'old@example.org', plain)
    const operators = await oldKey('key_00000000000010b2', 'mycel', null, null)

    expect(await migrate(db.sql)).toEqual(migrations.filter((m) => m.version >= 10).map((m) => m.name))
    const rows = await db.sql<
      { id: string; issuedFrom: string | null; email: string | null; status: string }[]
    >`
      SELECT id, issued_from, email, status FROM api_keys ORDER BY created_at, id`
    expect(rows).toEqual(
      expect.arrayContaining([
        { id: issued.id, issuedFrom: null, email: 'old@example.org', status: 'active' },
        { id: operators.id, issuedFrom: null, email: null, status: 'active' },
      ]),
    )
    const [left] = await db.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM api_keys WHERE issued_from = ${plain}`
    expect(left?.n).toBe(0)
  })
})

describe('migrations on embedded PGlite', () => {
  let db: Database
  beforeAll(async () => {
    db = await openEmbeddedDatabase()
  })
  afterAll(() => db.close())

  it('runs the same files and is idempotent', async () => {
    const files = (await readMigrations()).map((m) => m.name)
    expect(await migrate(db.sql)).toEqual(files)
    expect(await migrate(db.sql)).toEqual([])
    const [count] = await db.sql`SELECT count(*)::int AS n FROM tiers`
    expect(count?.n).toBe(3)
  })
})
