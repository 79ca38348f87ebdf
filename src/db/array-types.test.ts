import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, openEmbeddedDatabase, release } from '../../test/support/database.ts'
import { arrayLiteral } from './array-types.ts'
import type { Database } from './connect.ts'

const AWKWARD_TEXTS = [
  '',
  'NULL',
  'null',
  'a,b',
  '{x}',
  'say "hi"',
  'back\\slash',
  ' padded ',
  'tab\there',
  'é 木 🌲',
]

describe.each([
  ['PostgreSQL', async () => createTestDatabase()],
  ['PGlite', async () => openEmbeddedDatabase()],
] as const)('arrays without the start-up type query (%s)', (_engine, open) => {
  let db: Database

  beforeAll(async () => {
    db = await open()
  }, 60_000)
  afterAll(async () => {
    await release(db)
  })

  it('sends and reads text[] whatever the text holds, NULL elements included', async () => {
    const values = [...AWKWARD_TEXTS, null]
    const [row] = await db.sql<{ values: (string | null)[]; count: number }[]>`
      SELECT ${values}::text[] AS values, cardinality(${values}::text[]) AS count`
    expect(row?.values).toEqual(values)
    expect(row?.count).toBe(values.length)
  })

  it('reads an array the database built as a JavaScript array of the same elements', async () => {
    const [row] = await db.sql<{ texts: string[]; ints: number[]; floats: number[]; big: string[] }[]>`
      SELECT ARRAY['OR', 'WA'] AS texts, ARRAY[1, -2, 3]::int4[] AS ints, ARRAY[0.5, -1e-3]::float8[] AS floats,
             ARRAY[9007199254740993]::int8[] AS big`
    expect(row).toEqual({
      texts: ['OR', 'WA'],
      ints: [1, -2, 3],
      floats: [0.5, -0.001],
      big: ['9007199254740993'],
    })
  })

  it('sends numbers, dates and day strings into unnest as the statement casts them', async () => {
    const at = new Date('2026-11-25T10:00:00.123Z')
    const rows = await db.sql<{ day: string; requests: string; at: Date }[]>`
      SELECT to_char(day, 'YYYY-MM-DD') AS day, requests::text AS requests, at
      FROM unnest(${['2026-11-24', '2026-11-25']}::date[], ${[1, 9007199254740]}::bigint[],
                  ${[at.toISOString(), at.toISOString()]}::timestamptz[]) AS u (day, requests, at)`
    expect(rows.map((row) => ({ ...row }))).toEqual([
      { day: '2026-11-24', requests: '1', at },
      { day: '2026-11-25', requests: '9007199254740', at },
    ])
    const [read] = await db.sql<{ flags: boolean[]; days: Date[] }[]>`
      SELECT ARRAY[true, false, NULL] AS flags, ARRAY['2026-11-25']::date[] AS days`
    expect(read).toEqual({ flags: [true, false, null], days: [new Date('2026-11-25')] })
  })

  it('round-trips any array of text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(fc.string({ unit: 'grapheme' }), { nil: null }), { maxLength: 8 }),
        async (values) => {
          const texts = values.map((value) => (value === null ? null : value.replaceAll('\u0000', '')))
          const [row] = await db.sql<{ values: (string | null)[] }[]>`SELECT ${texts}::text[] AS values`
          expect(row?.values).toEqual(texts)
        },
      ),
      { numRuns: 60 },
    )
  })
})

describe('arrayLiteral', () => {
  it('quotes text, leaves numbers bare and spells NULL', () => {
    expect(arrayLiteral(['a"b', 'c\\d', null, 2, true])).toBe('{"a\\"b","c\\\\d",NULL,2,t}')
    expect(arrayLiteral([])).toBe('{}')
    expect(arrayLiteral([[1, 2], [3]])).toBe('{{1,2},{3}}')
  })

  it('refuses undefined rather than store it as NULL', () => {
    expect(() => arrayLiteral(['a', undefined])).toThrow(/undefined/)
  })
})
