import type postgres from 'postgres'
import { parse as parseArrayLiteral } from 'postgres-array'

/**
 * PostgreSQL arrays, read and written without postgres.js's start-up type query (`fetch_types`).
 *
 * That query runs on every new connection, and its promise is dropped: a connection reset while it is
 * in flight becomes an unhandled rejection, which ends a Node process (porsager/postgres#1192). The
 * pools open with `fetch_types: false` and these handlers instead; the array types' OIDs are fixed
 * by PostgreSQL (pg_type.typarray of built-in types), so nothing needs asking.
 *
 * Elements are read as postgres.js reads the scalar types: int8 and numeric stay strings.
 */
const ARRAY_OIDS = {
  bool: 1000,
  int2: 1005,
  int4: 1007,
  text: 1009,
  varchar: 1015,
  int8: 1016,
  float4: 1021,
  float8: 1022,
  timestamp: 1115,
  date: 1182,
  timestamptz: 1185,
  numeric: 1231,
} as const

type ArrayType = postgres.PostgresType<unknown[]>

function arrayType(oids: readonly number[], parse: (literal: string) => unknown[]): ArrayType {
  return { to: oids[0] as number, from: [...oids], serialize: arrayLiteral, parse }
}

const toNumber = (element: string) => Number(element)
const toDate = (element: string) => new Date(element)

export const ARRAY_TYPES = {
  textArray: arrayType(
    [ARRAY_OIDS.text, ARRAY_OIDS.varchar, ARRAY_OIDS.int8, ARRAY_OIDS.numeric],
    (literal) => parseArrayLiteral(literal),
  ),
  numberArray: arrayType(
    [ARRAY_OIDS.float8, ARRAY_OIDS.float4, ARRAY_OIDS.int4, ARRAY_OIDS.int2],
    (literal) => parseArrayLiteral(literal, toNumber),
  ),
  dateArray: arrayType([ARRAY_OIDS.timestamptz, ARRAY_OIDS.timestamp, ARRAY_OIDS.date], (literal) =>
    parseArrayLiteral(literal, toDate),
  ),
  boolArray: arrayType([ARRAY_OIDS.bool], (literal) =>
    parseArrayLiteral(literal, (element) => element === 't'),
  ),
} satisfies Record<string, ArrayType>

/** A JavaScript array as a PostgreSQL array literal: every element quoted, so no text needs guessing. */
export function arrayLiteral(values: unknown): string {
  if (!Array.isArray(values)) return String(values)
  let literal = '{'
  for (let i = 0; i < values.length; i++) {
    if (i) literal += ','
    literal += elementLiteral(values[i])
  }
  return `${literal}}`
}

function elementLiteral(value: unknown): string {
  if (value === null) return 'NULL'
  if (value === undefined) throw new TypeError('an array parameter holds undefined; pass null for NULL')
  if (Array.isArray(value)) return arrayLiteral(value)
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  if (typeof value === 'boolean') return value ? 't' : 'f'
  const text = value instanceof Date ? value.toISOString() : String(value)
  return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
}
