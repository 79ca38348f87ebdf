/**
 * The scorer's input: a CSV (header with latitude, longitude, species_code, planting_method; optional
 * horizons `1|3|5` and id; other columns echoed) or NDJSON (one predict body per line, optional id),
 * read as a stream, row by row. Each row is checked by the rules the jobs API applies to an upload
 * row, so a row that breaks one fails alone with `invalid_request` (or `invalid_json`) exactly as it
 * would in a job; species and method are judged by the server.
 */
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { parse } from 'csv-parse'
import type { PredictRequest } from '../client.ts'

export type InputFormat = 'csv' | 'ndjson'

export const REQUIRED_COLUMNS = ['latitude', 'longitude', 'species_code', 'planting_method'] as const
/** The columns an NDJSON input echoes, in this order (as the jobs API does). */
export const NDJSON_COLUMNS = ['id', 'latitude', 'longitude', 'species_code', 'planting_method', 'horizons']
const NDJSON_FIELDS = new Set(NDJSON_COLUMNS)
const MAX_ID_LENGTH = 200
const MAX_CODE_LENGTH = 100

/** One input row: its number (1 = first data row), its cells to echo, and what to score or why not. */
export interface InputRow {
  row: number
  cells: unknown[]
  request?: PredictRequest
  error?: { code: 'invalid_request' | 'invalid_json'; message: string }
}

export class InputError extends Error {}

export function inputFormatOf(file: string): InputFormat {
  return /\.(nd)?jsonl?$/i.test(file) ? 'ndjson' : 'csv'
}

/** The column names of the input, as its results echo them (reads only the first line of a CSV). */
export async function readColumns(file: string, format: InputFormat): Promise<string[]> {
  if (format === 'ndjson') return NDJSON_COLUMNS
  for await (const header of csvRecords(file)) return layoutOf(header).columns
  throw new InputError(`${file} is empty: it needs a header row with ${REQUIRED_COLUMNS.join(', ')}`)
}

/** The data rows of the input, in order, checked. */
export async function* readRows(file: string, format: InputFormat): AsyncGenerator<InputRow> {
  if (format === 'ndjson') {
    let row = 0
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
      if (line.trim() === '') continue
      row += 1
      yield ndjsonRow(row, line)
    }
    return
  }
  let layout: Layout | null = null
  let row = 0
  for await (const record of csvRecords(file)) {
    if (!layout) {
      layout = layoutOf(record)
      continue
    }
    row += 1
    yield csvRow(layout, row, record)
  }
}

/** How many data rows the input has, counting no further than `limit` (a streamed count, nothing kept). */
export async function countRows(file: string, format: InputFormat, limit = Number.POSITIVE_INFINITY) {
  let count = 0
  if (format === 'ndjson') {
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
      if (line.trim() !== '') count += 1
      if (count >= limit) break
    }
    return count
  }
  for await (const _ of csvRecords(file)) {
    count += 1
    if (count - 1 >= limit) break
  }
  return Math.max(0, count - 1)
}

function csvRecords(file: string): AsyncIterable<string[]> {
  return createReadStream(file).pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: true }),
  ) as AsyncIterable<string[]>
}

interface Layout {
  columns: string[]
  at: Record<string, number>
}

/** The header: the four required columns in any order (any letter case), horizons and id optional. */
function layoutOf(header: readonly string[]): Layout {
  const names = header.map((name) => name.trim().toLowerCase())
  const at: Record<string, number> = {}
  for (const [index, name] of names.entries()) {
    if (name === '') throw new InputError(`the header's column ${index + 1} has no name`)
    if (names.indexOf(name) !== index) throw new InputError(`the header repeats the column "${name}"`)
    at[name] = index
  }
  const missing = REQUIRED_COLUMNS.filter((name) => at[name] === undefined)
  if (missing.length > 0) {
    throw new InputError(
      `the header lacks ${missing.join(', ')} (it needs ${REQUIRED_COLUMNS.join(', ')}; horizons and id are optional)`,
    )
  }
  return { columns: header.map((name) => name.trim()), at }
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/

/** A number cell as a number; empty as absent; anything else as the text, for the rule to refuse. */
function numberCell(cell: string | undefined): number | string | undefined {
  const text = cell?.trim() ?? ''
  if (text === '') return undefined
  return DECIMAL.test(text) ? Number(text) : text
}

function csvRow(layout: Layout, row: number, cells: string[]): InputRow {
  if (cells.length !== layout.columns.length) {
    const message = `the row has ${cells.length} cells; the header has ${layout.columns.length}`
    return { row, cells, error: { code: 'invalid_request', message } }
  }
  const cell = (name: string) => {
    const index = layout.at[name]
    return index === undefined ? undefined : cells[index]
  }
  const horizons = cell('horizons')?.trim()
  const id = cell('id')?.trim()
  return checked(row, cells, {
    latitude: numberCell(cell('latitude')),
    longitude: numberCell(cell('longitude')),
    species_code: cell('species_code')?.trim() ?? '',
    planting_method: cell('planting_method')?.trim() ?? '',
    ...(horizons ? { horizons: horizons.split(/[|;\s]+/).map((part) => numberCell(part)) } : {}),
    ...(id ? { id } : {}),
  })
}

function ndjsonRow(row: number, line: string): InputRow {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return { row, cells: [], error: { code: 'invalid_json', message: 'the line is not valid JSON' } }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { row, cells: [], error: { code: 'invalid_request', message: 'the line must be a JSON object' } }
  }
  const object = value as Record<string, unknown>
  return checked(
    row,
    NDJSON_COLUMNS.map((name) => object[name] ?? null),
    object,
  )
}

/** The jobs API's row rules (and /v1/predict's field rules), first broken rule named. */
function checked(row: number, cells: unknown[], input: Record<string, unknown>): InputRow {
  const problem = firstProblem(input)
  if (problem) return { row, cells, error: { code: 'invalid_request', message: problem } }
  const request: PredictRequest = {
    latitude: input.latitude as number,
    longitude: input.longitude as number,
    species_code: input.species_code as string,
    planting_method: input.planting_method as string,
  }
  if (input.horizons !== undefined) request.horizons = input.horizons as PredictRequest['horizons']
  return { row, cells, request }
}

function firstProblem(input: Record<string, unknown>): string | null {
  const unknown = Object.keys(input).find((key) => !NDJSON_FIELDS.has(key))
  if (unknown !== undefined) return `${unknown} is not a recognized field`
  const { id, latitude, longitude, species_code, planting_method, horizons } = input
  if (id !== undefined) {
    if (typeof id === 'string') {
      if (id.length > MAX_ID_LENGTH) return `id must be at most ${MAX_ID_LENGTH} characters`
    } else if (typeof id !== 'number' || !Number.isInteger(id)) return 'id must be a whole number or a string'
  }
  for (const [name, value, limit] of [
    ['latitude', latitude, 90],
    ['longitude', longitude, 180],
  ] as const) {
    if (value === undefined) return `${name} is required`
    if (typeof value !== 'number') return `${name} must be a number`
    if (value < -limit || value > limit) return `${name} must be from -${limit} to ${limit}`
  }
  for (const [name, value] of [
    ['species_code', species_code],
    ['planting_method', planting_method],
  ] as const) {
    if (value === undefined) return `${name} is required`
    if (typeof value !== 'string') return `${name} must be a string`
    if (value.length > MAX_CODE_LENGTH) return `${name} is too long`
    if (value.length === 0) return `${name} is required`
  }
  if (horizons !== undefined) {
    if (!Array.isArray(horizons)) return 'horizons must be an array of 1, 3 and 5'
    if (horizons.length === 0) return 'horizons must hold at least one of 1, 3, 5'
    if (horizons.length > 10) return 'horizons must hold at most 10 entries'
    for (const [index, value] of horizons.entries()) {
      if (typeof value !== 'number') return `horizons[${index}] must be a number`
      if (!Number.isInteger(value)) return `horizons[${index}] must be 1, 3 or 5`
    }
    if (!horizons.every((value) => value === 1 || value === 3 || value === 5))
      return 'horizons may only contain 1, 3 and 5'
  }
  return null
}
