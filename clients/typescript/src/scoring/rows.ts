/**
 * The scorer's input: a CSV (header with latitude, longitude, species_code, planting_method; optional
 * horizons `1|3|5`, id, period, scenario and the treatments vegetation_control, animal_protection,
 * stock_type, shade; other columns echoed) or NDJSON (one predict body per line, optional id, the
 * climate as `period`/`scenario` or `climate`, the treatments as those four fields or `treatments`),
 * read as a stream, row by row.
 * A GeoJSON FeatureCollection (`.geojson`) is not read here: it goes up to a job as it is.
 * Each row is checked by the rules the jobs API applies to an upload row, so a row that breaks one
 * fails alone with `invalid_request` (or `invalid_json`) exactly as it would in a job; species,
 * method, climate and whether a treatment applies to the method (`invalid_treatment`) are judged by
 * the server. A row's treatments go in its request as `treatments`, only those it names (a row naming
 * none sends none, its request as before treatments).
 *
 * `--period`/`--scenario` (`ClimateDefaults`) give a climate to the rows that name none: the rows are
 * read as if the file had it (a CSV without the columns gains them at the end of its header), so the
 * batch path sends it and the job path uploads it, and both echo it the same.
 */
import { createReadStream, type ReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { parse } from 'csv-parse'
import type { PredictRequest } from '../client.ts'

/** The inputs read row by row (and scored through batch calls or a job). */
export type RowFormat = 'csv' | 'ndjson'
/** GeoJSON input always goes through a job, as the file is. */
export type InputFormat = RowFormat | 'geojson'

export const REQUIRED_COLUMNS = ['latitude', 'longitude', 'species_code', 'planting_method'] as const
/** A row's climate, flat: CSV columns, NDJSON fields (or a predict body's `climate`). */
export const CLIMATE_COLUMNS = ['period', 'scenario'] as const
/** The columns an NDJSON input echoes, in this order (as the jobs API does; the climate after the results). */
export const NDJSON_COLUMNS = [
  'id',
  'latitude',
  'longitude',
  'species_code',
  'planting_method',
  'horizons',
  ...CLIMATE_COLUMNS,
]
/**
 * The establishment treatments a row may name (CSV columns, NDJSON fields or a `treatments` object),
 * each with the values it takes: the server's lists (src/domain/treatment-values.ts; a test keeps them equal).
 */
export const TREATMENT_VALUES = {
  vegetation_control: [
    'none',
    'site_prep',
    'release_1yr',
    'release_2yr',
    'site_prep_release_1yr',
    'site_prep_release_2yr',
  ],
  animal_protection: ['none', 'mesh_tubes'],
  stock_type: ['bareroot', 'container'],
  shade: ['none', 'shade_cards'],
} as const
type TreatmentName = keyof typeof TREATMENT_VALUES
/** The four treatments by their API names (CSV columns, NDJSON fields, keys of `treatments`). */
export const TREATMENT_COLUMNS = Object.keys(TREATMENT_VALUES) as TreatmentName[]
type Treatments = NonNullable<PredictRequest['treatments']>
const NDJSON_FIELDS = new Set<string>([...NDJSON_COLUMNS, 'climate', ...TREATMENT_COLUMNS, 'treatments'])
const MAX_ID_LENGTH = 200
const MAX_CODE_LENGTH = 100
const MAX_CLIMATE_LENGTH = 40

/** The climate of the rows that name none (`--period`, `--scenario`); a row's own climate wins. */
export interface ClimateDefaults {
  period?: string
  scenario?: string
}

/**
 * The treatments of the rows that name none (`--default vegetation_control=…`), one treatment at a
 * time: a row's own value wins, `none` included; as a job reads its query parameters.
 */
export type TreatmentDefaults = { [N in TreatmentName]?: (typeof TREATMENT_VALUES)[N][number] }

export interface ReadOptions {
  climate?: ClimateDefaults
  treatments?: TreatmentDefaults
  /** Bytes of the file read so far, after each row (for progress). */
  onBytesRead?: (bytes: number) => void
}

const hasDefaults = (climate: ClimateDefaults | undefined): climate is ClimateDefaults =>
  Boolean(climate?.period || climate?.scenario)

/** One input row: its number (1 = first data row), its cells to echo, and what to score or why not. */
export interface InputRow {
  row: number
  cells: unknown[]
  request?: PredictRequest
  error?: { code: 'invalid_request' | 'invalid_json'; message: string }
}

export class InputError extends Error {}

export function inputFormatOf(file: string): InputFormat {
  if (/\.geojson$/i.test(file)) return 'geojson'
  return /\.(nd)?jsonl?$/i.test(file) ? 'ndjson' : 'csv'
}

/**
 * A GeoJSON input's first look, without reading it whole: it must open as a JSON object (the server
 * reads it, feature by feature, and answers for the rest).
 */
export async function checkGeoJson(file: string): Promise<void> {
  const stream = createReadStream(file, { end: 64 * 1024 - 1 })
  let head = ''
  try {
    for await (const chunk of stream) {
      head += String(chunk)
      if (head.replace(/^\uFEFF/, '').trim() !== '') break
    }
  } finally {
    stream.destroy()
  }
  const start = head.replace(/^\uFEFF/, '').trimStart()
  if (start === '') throw new InputError('is empty: it needs a GeoJSON FeatureCollection')
  if (!start.startsWith('{'))
    throw new InputError(
      'is not GeoJSON: a FeatureCollection opens with {"type": "FeatureCollection", "features": [...]}',
    )
}

/** The column names of the input, as its results echo them (reads only the first line of a CSV). */
export async function readColumns(
  file: string,
  format: RowFormat,
  climate?: ClimateDefaults,
): Promise<string[]> {
  if (format === 'ndjson') return NDJSON_COLUMNS
  for await (const header of csvRecords(createReadStream(file))) return layoutOf(header, climate).columns
  throw new InputError(`${file} is empty: it needs a header row with ${REQUIRED_COLUMNS.join(', ')}`)
}

/** A row as read, and its text as a job upload carries it (the climate defaults applied). */
interface SourceRow {
  row: InputRow
  text: string
}

async function* sourceRows(
  file: string,
  format: RowFormat,
  options: ReadOptions,
): AsyncGenerator<SourceRow | { header: string }> {
  const stream = createReadStream(file)
  const read = () => options.onBytesRead?.(stream.bytesRead)
  try {
    if (format === 'ndjson') {
      let row = 0
      for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
        if (line.trim() === '') continue
        row += 1
        const text = hasDefaults(options.climate) ? ndjsonWithDefaults(line, options.climate) : line
        yield { row: ndjsonRow(row, text, options.treatments), text: `${text}\n` }
        read()
      }
      return
    }
    let layout: Layout | null = null
    let row = 0
    for await (const record of csvRecords(stream)) {
      if (!layout) {
        layout = layoutOf(record, options.climate)
        yield { header: csvLine(layout.columns) }
        continue
      }
      row += 1
      const cells = hasDefaults(options.climate) ? csvWithDefaults(layout, record, options.climate) : record
      yield { row: csvRow(layout, row, cells, options.treatments), text: csvLine(cells) }
      read()
    }
  } finally {
    // Stopped early (Ctrl-C, a refused upload): the file is closed now, not when collected.
    stream.destroy()
  }
}

/** The data rows of the input, in order, checked. */
export async function* readRows(
  file: string,
  format: RowFormat,
  options: ReadOptions = {},
): AsyncGenerator<InputRow> {
  for await (const item of sourceRows(file, format, options)) if ('row' in item) yield item.row
}

/**
 * The input as a job upload of the same rows, with the climate defaults applied: what the server
 * then reads row by row is what `readRows` reads.
 */
export async function* uploadText(
  file: string,
  format: RowFormat,
  options: ReadOptions = {},
): AsyncGenerator<string> {
  for await (const item of sourceRows(file, format, options)) yield 'row' in item ? item.text : item.header
}

/** How many data rows the input has, counting no further than `limit` (a streamed count, nothing kept). */
export async function countRows(file: string, format: RowFormat, limit = Number.POSITIVE_INFINITY) {
  let count = 0
  if (format === 'ndjson') {
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
      if (line.trim() !== '') count += 1
      if (count >= limit) break
    }
    return count
  }
  for await (const _ of csvRecords(createReadStream(file))) {
    count += 1
    if (count - 1 >= limit) break
  }
  return Math.max(0, count - 1)
}

function csvRecords(stream: ReadStream): AsyncIterable<string[]> {
  return stream.pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true })) as AsyncIterable<
    string[]
  >
}

/** A CSV line (RFC 4180 quoting where needed). */
function csvLine(cells: readonly string[]): string {
  return `${cells.map((cell) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell)).join(',')}\r\n`
}

interface Layout {
  columns: string[]
  at: Record<string, number>
  /** Columns the climate defaults added at the end of the header (none without defaults). */
  added: number
}

/**
 * The header: the four required columns in any order (any letter case), horizons, id, period and
 * scenario optional. With climate defaults, a header without period or scenario gains them at its end.
 */
function layoutOf(header: readonly string[], climate?: ClimateDefaults): Layout {
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
      `the header lacks ${missing.join(', ')} (it needs ${REQUIRED_COLUMNS.join(', ')}; horizons, id, period, scenario, ${TREATMENT_COLUMNS.join(', ')} are optional)`,
    )
  }
  const columns = header.map((name) => name.trim())
  const added = hasDefaults(climate) ? CLIMATE_COLUMNS.filter((name) => at[name] === undefined) : []
  for (const name of added) at[name] = columns.push(name) - 1
  return { columns, at, added: added.length }
}

/**
 * A CSV row with the climate defaults: the added columns' cells, and the defaults where the row names
 * no climate. A row with the wrong number of cells gets empty cells, so that it still has the wrong
 * number (it fails alone, as it would have).
 */
function csvWithDefaults(layout: Layout, cells: readonly string[], climate: ClimateDefaults): string[] {
  const wide = [...cells, ...Array<string>(layout.added).fill('')]
  if (wide.length !== layout.columns.length) return wide
  const period = layout.at.period as number
  const scenario = layout.at.scenario as number
  if (wide[period]?.trim() || wide[scenario]?.trim()) return wide
  wide[period] = climate.period ?? ''
  wide[scenario] = climate.scenario ?? ''
  return wide
}

/** An NDJSON line with the climate defaults, when it is an object that names no climate; else as it is. */
function ndjsonWithDefaults(line: string, climate: ClimateDefaults): string {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return line
  }
  if (!isObject(value) || value.period != null || value.scenario != null || value.climate != null) return line
  return JSON.stringify({
    ...value,
    ...(climate.period ? { period: climate.period } : {}),
    ...(climate.scenario ? { scenario: climate.scenario } : {}),
  })
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/

/** A number cell as a number; empty as absent; anything else as the text, for the rule to refuse. */
function numberCell(cell: string | undefined): number | string | undefined {
  const text = cell?.trim() ?? ''
  if (text === '') return undefined
  return DECIMAL.test(text) ? Number(text) : text
}

function csvRow(layout: Layout, row: number, cells: string[], defaults?: TreatmentDefaults): InputRow {
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
  const period = cell('period')?.trim()
  const scenario = cell('scenario')?.trim()
  const input: Record<string, unknown> = {
    latitude: numberCell(cell('latitude')),
    longitude: numberCell(cell('longitude')),
    species_code: cell('species_code')?.trim() ?? '',
    planting_method: cell('planting_method')?.trim() ?? '',
    ...(horizons ? { horizons: horizons.split(/[|;\s]+/).map((part) => numberCell(part)) } : {}),
    ...(id ? { id } : {}),
    ...(period ? { period } : {}),
    ...(scenario ? { scenario } : {}),
  }
  // A treatment cell trimmed; empty (or no such column) names none.
  for (const name of TREATMENT_COLUMNS) {
    const value = cell(name)?.trim()
    if (value) input[name] = value
  }
  return checked(row, cells, input, defaults)
}

function ndjsonRow(row: number, line: string, defaults?: TreatmentDefaults): InputRow {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return { row, cells: [], error: { code: 'invalid_json', message: 'the line is not valid JSON' } }
  }
  if (!isObject(value)) {
    return { row, cells: [], error: { code: 'invalid_request', message: 'the line must be a JSON object' } }
  }
  // A predict body's climate object is echoed flat, like period and scenario fields.
  const nested = isObject(value.climate) ? value.climate : {}
  const echoed: Record<string, unknown> = {
    ...value,
    period: value.period ?? nested.period,
    scenario: value.scenario ?? nested.scenario,
  }
  return checked(
    row,
    NDJSON_COLUMNS.map((name) => echoed[name] ?? null),
    value,
    defaults,
  )
}

/** The jobs API's row rules (and /v1/predict's field rules), first broken rule named. */
function checked(
  row: number,
  cells: unknown[],
  input: Record<string, unknown>,
  defaults?: TreatmentDefaults,
): InputRow {
  const problem = firstProblem(input)
  if (problem) return { row, cells, error: { code: 'invalid_request', message: problem } }
  const request: PredictRequest = {
    latitude: input.latitude as number,
    longitude: input.longitude as number,
    species_code: input.species_code as string,
    planting_method: input.planting_method as string,
  }
  if (input.horizons !== undefined) request.horizons = input.horizons as PredictRequest['horizons']
  const nested = isObject(input.climate) ? input.climate : {}
  const period = (nested.period ?? input.period ?? null) as string | null
  const scenario = (nested.scenario ?? input.scenario ?? null) as string | null
  // Whether it names a known future is the server's question (invalid_climate).
  if (period !== null || scenario !== null) request.climate = { period, scenario }
  // Whether they apply to the planting method is the server's question (invalid_treatment).
  const treatments = treatmentsOf(input, defaults)
  if (treatments) request.treatments = treatments
  return { row, cells, request }
}

/**
 * A checked row's treatments: its `treatments` object, else its flat fields, the ones named (not null),
 * each else its default; undefined when none is named, so an untreated row's request is as it was
 * before treatments.
 */
function treatmentsOf(
  input: Record<string, unknown>,
  defaults: TreatmentDefaults = {},
): Treatments | undefined {
  const fields = isObject(input.treatments) ? input.treatments : input
  const named: Record<string, unknown> = {}
  for (const name of TREATMENT_COLUMNS) {
    const value = fields[name] ?? defaults[name]
    if (value != null) named[name] = value
  }
  return Object.keys(named).length > 0 ? (named as Treatments) : undefined
}

/** The defaults' first problem (`--default name=value`), in the words a row's field would get. */
export function treatmentDefaultsProblem(defaults: Readonly<Record<string, unknown>>): string | null {
  for (const name of TREATMENT_COLUMNS) {
    const problem = treatmentFieldProblem(name, name, defaults[name])
    if (problem) return problem
  }
  return null
}

/** A treatment value's problem, if it has one (absent and null are fine). */
function treatmentFieldProblem(field: string, name: TreatmentName, value: unknown): string | null {
  if (value === undefined || value === null) return null
  const values: readonly string[] = TREATMENT_VALUES[name]
  return typeof value === 'string' && values.includes(value)
    ? null
    : `${field} must be one of ${values.join(', ')}`
}

/** A climate identifier's problem, if it has one (absent and null are fine). */
function climateFieldProblem(name: string, value: unknown): string | null {
  if (value === undefined || value === null) return null
  if (typeof value !== 'string') return `${name} must be a string`
  if (value.length > MAX_CLIMATE_LENGTH) return `${name} is too long`
  return null
}

/**
 * The first problem in the order the server's schema reports them: the fields in turn (the climate's,
 * then the treatments'), then a field it does not know, then the climate or the treatments given both ways.
 */
function firstProblem(input: Record<string, unknown>): string | null {
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
  const fields = climateProblem(input) ?? treatmentsProblem(input)
  if (fields) return fields
  const unknown = Object.keys(input).find((key) => !NDJSON_FIELDS.has(key))
  if (unknown !== undefined) return `${unknown} is not a recognized field`
  const { period, scenario, climate, treatments } = input
  if (climate != null && (period != null || scenario != null))
    return 'climate cannot be given with period or scenario'
  if (treatments != null && TREATMENT_COLUMNS.some((name) => input[name] != null))
    return 'treatments cannot be given with vegetation_control, animal_protection, stock_type or shade'
  return null
}

/** The climate fields' problem, if any: `period`, `scenario`, then the `climate` object. */
function climateProblem(input: Record<string, unknown>): string | null {
  const { period, scenario, climate } = input
  const flat = climateFieldProblem('period', period) ?? climateFieldProblem('scenario', scenario)
  if (flat) return flat
  if (climate === undefined || climate === null) return null
  if (!isObject(climate)) return 'climate must be an object {period, scenario}'
  const nested =
    climateFieldProblem('climate.period', climate.period) ??
    climateFieldProblem('climate.scenario', climate.scenario)
  if (nested) return nested
  const other = Object.keys(climate).find((key) => key !== 'period' && key !== 'scenario')
  if (other !== undefined) return `climate.${other} is not a recognized field`
  return null
}

/** The treatment fields' problem, if any: the four flat fields, then the `treatments` object. */
function treatmentsProblem(input: Record<string, unknown>): string | null {
  for (const name of TREATMENT_COLUMNS) {
    const problem = treatmentFieldProblem(name, name, input[name])
    if (problem) return problem
  }
  const { treatments } = input
  if (treatments === undefined || treatments === null) return null
  if (!isObject(treatments)) return `treatments must be an object {${TREATMENT_COLUMNS.join(', ')}}`
  for (const name of TREATMENT_COLUMNS) {
    const problem = treatmentFieldProblem(`treatments.${name}`, name, treatments[name])
    if (problem) return problem
  }
  const other = Object.keys(treatments).find((key) => !(TREATMENT_COLUMNS as string[]).includes(key))
  if (other !== undefined) return `treatments.${other} is not a recognized field`
  return null
}
