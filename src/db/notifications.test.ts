import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts'
import { ADMIN_DATABASE_URL } from '../../test/support/services.ts'
import { eventually } from '../../test/support/waiting.ts'
import { type ChannelFollower, followChannel } from './notifications.ts'

/** What a follower was told, in order. */
function recorder() {
  const events: string[] = []
  return {
    events,
    handlers: {
      notice: (payload: string) => events.push(`notice:${payload}`),
      listening: () => events.push('listening'),
      lost: () => events.push('lost'),
    },
  }
}

const APPLICATION = 'notifications-test'

describe('followChannel (real PostgreSQL)', () => {
  let db: TestDatabase
  let admin: postgres.Sql
  const followers: ChannelFollower[] = []

  beforeAll(async () => {
    db = await createTestDatabase()
    admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} })
  })
  afterAll(async () => {
    await Promise.all(followers.map((f) => f.close()))
    await admin?.end()
    await db?.drop()
  })

  function follow(channel: string, handlers: ReturnType<typeof recorder>['handlers']) {
    const follower = followChannel(db.url, channel, handlers, { retryMs: 50, applicationName: APPLICATION })
    followers.push(follower)
    return follower
  }

  /** Ends the follower's connection from the server side, as a failover or a network cut would. */
  async function cutListeners(): Promise<number> {
    const cut = await admin`
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE application_name = ${APPLICATION} AND datname = ${db.url.split('/').pop() ?? ''}`
    return cut.length
  }

  it('hears notices sent on its channel, and only those, once a transaction commits', async () => {
    const seen = recorder()
    const follower = follow('test_channel_a', seen.handlers)
    expect(await eventually(() => follower.listening)).toBe(true)
    await db.sql.begin(async (tx) => {
      await tx`SELECT pg_notify('test_channel_a', 'first')`
      await tx`SELECT pg_notify('another_channel', 'not for us')`
      expect(seen.events).toEqual(['listening'])
    })
    await db.sql
      .begin(async (tx) => {
        await tx`SELECT pg_notify('test_channel_a', 'rolled back')`
        throw new Error('roll back')
      })
      .catch(() => {})
    await db.sql`SELECT pg_notify('test_channel_a', 'second')`
    expect(await eventually(() => seen.events.length === 3)).toBe(true)
    expect(seen.events).toEqual(['listening', 'notice:first', 'notice:second'])
  })

  it('listens again after its connection is cut, says it lost the gap, and hears what follows', async () => {
    const seen = recorder()
    const follower = follow('test_channel_b', seen.handlers)
    expect(await eventually(() => follower.listening)).toBe(true)
    expect(await cutListeners()).toBeGreaterThan(0)
    expect(await eventually(() => seen.events.filter((e) => e === 'listening').length === 2)).toBe(true)
    expect(seen.events).toEqual(['listening', 'lost', 'listening'])
    await db.sql`SELECT pg_notify('test_channel_b', 'after')`
    expect(await eventually(() => seen.events.includes('notice:after'))).toBe(true)
  })

  it('keeps trying while the database refuses connections, and listens once it accepts them', async () => {
    const seen = recorder()
    const follower = follow('test_channel_c', seen.handlers)
    expect(await eventually(() => follower.listening)).toBe(true)
    const name = db.url.split('/').pop() ?? ''
    await admin.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`)
    try {
      await cutListeners()
      expect(await eventually(() => !follower.listening)).toBe(true)
      // Several attempts fail meanwhile (retry every 50 ms).
      await new Promise((resolve) => setTimeout(resolve, 400))
      expect(follower.listening).toBe(false)
    } finally {
      await admin.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`)
    }
    expect(await eventually(() => follower.listening)).toBe(true)
    expect(seen.events).toEqual(['listening', 'lost', 'listening'])
    await db.sql`SELECT pg_notify('test_channel_c', 'back')`
    expect(await eventually(() => seen.events.includes('notice:back'))).toBe(true)
  })

  it('stops for good when closed', async () => {
    const seen = recorder()
    const follower = follow('test_channel_d', seen.handlers)
    expect(await eventually(() => follower.listening)).toBe(true)
    await follower.close()
    expect(follower.listening).toBe(false)
    await db.sql`SELECT pg_notify('test_channel_d', 'too late')`
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(seen.events).toEqual(['listening'])
  })
})
