import { describe, expect, it } from 'vitest'
import { freePort } from '../../test/support/net.ts'
import { ADMIN_DATABASE_URL } from '../../test/support/services.ts'
import { openDatabase } from './connect.ts'
import { replicaName } from './read-replicas.ts'

/**
 * The replica pool against servers that cannot serve as replicas: the machine's own PostgreSQL (a
 * primary, named as a replica by mistake) and a port nothing listens on. The rotation itself (a
 * streaming replica served from, lagging, stopped and back) is tested on a real primary and replica in
 * test/engines/read-replicas.test.ts.
 */

/** `url` with a user and password of the test's own: trust auth takes any password. */
function withCredentials(url: string, user = 'postgres'): string {
  const parsed = new URL(url)
  parsed.username = user
  parsed.password = 'not-for-display'
  return parsed.toString()
}

describe('replicaName', () => {
  it('is host:port/database: no user, no password, no query string', () => {
    expect(
      replicaName('postgres://reader:s3cret@replica-1.internal:5433/survival?sslmode=require&password=x'),
    ).toBe('replica-1.internal:5433/survival')
    expect(replicaName('postgresql://replica-2/survival')).toBe('replica-2:5432/survival')
    expect(replicaName('postgres://u:p@[::1]:6543/db')).toBe('[::1]:6543/db')
  })
})

describe('ReadReplicas with no usable replica', () => {
  const settings = { DATABASE_URL: ADMIN_DATABASE_URL, DB_POOL_MAX: 2, REPLICA_CHECK_MS: 100 }

  it('a primary named as a replica by mistake is kept out (not in recovery): the primary answers', async () => {
    const url = withCredentials(ADMIN_DATABASE_URL)
    const db = await openDatabase({ ...settings, DATABASE_REPLICA_URLS: [url] }, { readReplicas: true })
    try {
      const down = {
        name: replicaName(url),
        state: 'down',
        lagMs: null,
        reason: 'not in recovery: this server is not a standby',
        reads: 0,
        retriedOnPrimary: 0,
      }
      expect(db.reads.replicas()).toEqual([down])
      const [row] = await db.reads.read(
        (sql) => sql<{ standby: boolean }[]>`SELECT pg_is_in_recovery() AS standby`,
      )
      expect(row?.standby).toBe(false)
      expect(db.reads.primaryReads()).toBe(1)
      // Checked again every 100 ms, with the same outcome.
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(db.reads.replicas()).toEqual([down])
      expect(JSON.stringify(db.reads.replicas())).not.toContain('not-for-display')
    } finally {
      await db.close()
    }
  })

  it('an unreachable replica does not keep the database from opening: down, and the primary answers', async () => {
    const url = `postgres://reader:not-for-display@127.0.0.1:${await freePort()}/survival`
    const started = performance.now()
    const db = await openDatabase({ ...settings, DATABASE_REPLICA_URLS: [url] }, { readReplicas: true })
    try {
      expect(performance.now() - started).toBeLessThan(2000)
      expect(db.reads.replicas()).toEqual([
        {
          name: `127.0.0.1:${new URL(url).port}/survival`,
          state: 'down',
          lagMs: null,
          reason: 'health check failed: ECONNREFUSED',
          reads: 0,
          retriedOnPrimary: 0,
        },
      ])
      expect(await db.reads.read((sql) => sql`SELECT 1 AS one`)).toEqual([{ one: 1 }])
      expect(db.reads.primaryReads()).toBe(1)
      expect(JSON.stringify(db.reads.replicas())).not.toMatch(/reader|not-for-display/)
    } finally {
      await db.close()
    }
  })

  it('without readReplicas (the CLIs) or without URLs, every read is the primary’s', async () => {
    const cli = await openDatabase({ ...settings, DATABASE_REPLICA_URLS: [ADMIN_DATABASE_URL] })
    const none = await openDatabase({ ...settings, DATABASE_REPLICA_URLS: [] }, { readReplicas: true })
    try {
      for (const db of [cli, none]) {
        expect(db.reads.replicas()).toEqual([])
        expect(await db.reads.read((sql) => sql`SELECT 1 AS one`)).toEqual([{ one: 1 }])
        expect(db.reads.primaryReads()).toBe(1)
      }
    } finally {
      await cli.close()
      await none.close()
    }
  })
})
