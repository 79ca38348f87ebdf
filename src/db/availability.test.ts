import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts'
import { isDatabaseUnavailable, withDeadline } from './availability.ts'

describe('a query past its deadline', () => {
  let db: TestDatabase
  let one: postgres.Sql
  beforeAll(async () => {
    db = await createTestDatabase()
    // One connection: queries sent while one runs are pipelined behind it.
    one = postgres(db.url, { max: 1, onnotice: () => {} })
  })
  afterAll(async () => {
    await one?.end()
    await db?.drop()
  })

  it('fails its caller alone: the queries pipelined behind it on its connection get their own answers', async () => {
    for (let round = 0; round < 5; round++) {
      // postgres.js sends a query when it is first awaited: these go out in this order.
      const slow = one`SELECT pg_sleep(0.2), 'slow' AS answer`.execute()
      const late = withDeadline(
        one<{ answer: string }[]>`SELECT ${`late ${round}`}::text AS answer`.execute(),
        20,
      )
      const next = one<{ answer: string }[]>`SELECT ${`next ${round}`}::text AS answer`.execute()
      const failure = await late.then(
        () => null,
        (error: unknown) => error,
      )
      expect(failure).toMatchObject({ code: 'QUERY_DEADLINE' })
      expect(isDatabaseUnavailable(failure)).toBe(true)
      expect((await slow)[0]?.answer).toBe('slow')
      expect((await next)[0]?.answer).toBe(`next ${round}`)
    }
  })
})
