import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { afterAll, beforeAll } from 'vitest'
import { type Database, openDatabase } from '../../src/db/connect.ts'
import { migrate } from '../../src/db/migrate.ts'
import { ADMIN_DATABASE_URL } from './services.ts'

export interface TestDatabase extends Database {
  url: string
  drop(): Promise<void>
}

/** Creates a fresh PostgreSQL database for one test file; drop() closes the pool and removes it. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `survival_test_${randomBytes(6).toString('hex')}`
  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(ADMIN_DATABASE_URL)
  url.pathname = `/${name}`
  const database = await openDatabase({ DATABASE_URL: url.toString(), DB_POOL_MAX: 4 })
  return {
    ...database,
    url: url.toString(),
    drop: async () => {
      await database.close()
      const cleanup = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} })
      try {
        await cleanup.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await cleanup.end()
      }
    },
  }
}

/** The embedded PGlite path, exactly as the server opens it when DATABASE_URL is unset. */
export function openEmbeddedDatabase(): Promise<Database> {
  return openDatabase({ DATABASE_URL: undefined, DB_POOL_MAX: 1 })
}

/** Done with a database a contract test opened: a test database is dropped, any other only closed. */
export function release(db: Database | TestDatabase | undefined): Promise<void> {
  if (!db) return Promise.resolve()
  return 'drop' in db ? db.drop() : db.close()
}

/** Both engines a store test runs on: real PostgreSQL and the embedded PGlite path. */
export const ENGINES = [
  ['PostgreSQL', createTestDatabase],
  ['embedded PGlite', openEmbeddedDatabase],
] as const

/**
 * For the describe block it is called in: a database opened with `open` and migrated before its
 * tests (and `prepare`d, e.g. seeded), released after them. The database, once open.
 */
export function databaseForBlock(
  open: () => Promise<Database>,
  prepare: (db: Database) => Promise<unknown> = async () => {},
): () => Database {
  let db: Database | undefined
  beforeAll(async () => {
    db = await open()
    await migrate(db.sql)
    await prepare(db)
  }, 180_000)
  afterAll(() => release(db))
  return () => {
    if (!db) throw new Error('the database is opened before the block’s tests')
    return db
  }
}
