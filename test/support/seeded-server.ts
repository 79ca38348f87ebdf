import type { TierName } from '../../src/types.ts'
import type { TestDatabase } from './database.ts'
import { createSeededDatabase, issueKey } from './fixtures.ts'
import { startTestServer, type TestServer, type TestServerOptions } from './server.ts'

export interface SeededServer {
  db: TestDatabase
  server: TestServer
  /** A key of `tier` (hypha by default: unlimited, so the quota never interferes). */
  key: string
}

/** A seeded throwaway database, the app serving it, and one key: the usual setup of an API test file. */
export async function startSeededServer(
  options: Omit<TestServerOptions, 'database'> = {},
  tier: TierName = 'hypha',
): Promise<SeededServer> {
  const db = await createSeededDatabase()
  const server = await startTestServer({ ...options, database: db })
  return { db, server, key: (await issueKey(db, tier)).key }
}

export async function stopSeededServer(running: Partial<SeededServer>): Promise<void> {
  await running.server?.close()
  await running.db?.drop()
}
