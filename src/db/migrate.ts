import { readdir, readFile } from 'node:fs/promises'
import { projectFile } from '../project-files.ts'
import type { Sql } from './connect.ts'

const MIGRATIONS_DIR = projectFile('sql/')
const MIGRATION_FILE = /^(\d{3})_[a-z0-9_]+\.sql$/
/** Arbitrary constant shared by every instance: serialises concurrent migrators. */
const MIGRATION_LOCK_ID = 727_001

export interface Migration {
  version: number
  name: string
  statements: string
}

export async function readMigrations(dir: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => MIGRATION_FILE.test(file)).sort()
  return Promise.all(
    files.map(async (file) => ({
      version: Number(file.slice(0, 3)),
      name: file,
      statements: await readFile(new URL(file, dir), 'utf8'),
    })),
  )
}

/**
 * Applies pending migrations, each in its own transaction under a transaction-scoped advisory lock,
 * so two instances starting at once apply each file exactly once. Returns the names applied now.
 */
export async function migrate(sql: Sql, migrations?: Migration[]): Promise<string[]> {
  const pending = migrations ?? (await readMigrations())
  const applied: string[] = []
  for (const migration of pending) {
    const ran = await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`
      await tx`
        CREATE TABLE IF NOT EXISTS schema_migrations (
          version    integer PRIMARY KEY,
          name       text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`
      const [done] = await tx`SELECT 1 FROM schema_migrations WHERE version = ${migration.version}`
      if (done) return false
      await tx.unsafe(migration.statements)
      await tx`INSERT INTO schema_migrations (version, name) VALUES (${migration.version}, ${migration.name})`
      return true
    })
    if (ran) applied.push(migration.name)
  }
  return applied
}
