import { z } from 'zod'
import { catalogueCode, climate, fieldPath, horizons, latitude, longitude } from '../domain/input-rules.ts'
import type { InputRow } from '../domain/jobs/file-formats.ts'
import type { PredictionRequest } from '../domain/prediction-types.ts'
import {
  namesTreatmentsOnce,
  oneTreatments,
  rowTreatments,
  TREATMENT_FIELDS,
  treatmentsObject,
} from '../domain/treatment-fields.ts'
import { type CsvHeader, numberCell, readCsvHeader } from './csv-cells.ts'

/**
 * The rows of a job upload, checked one by one: a row that breaks a rule fails alone, with its row
 * number; only a header that cannot be read fails the whole upload. Species, method and climate are
 * judged later, when the row is scored (invalid_species, invalid_method, invalid_climate), like a
 * batch item.
 */

export const REQUIRED_COLUMNS = ['latitude', 'longitude', 'species_code', 'planting_method'] as const
export const OPTIONAL_COLUMNS = [
  'horizons',
  'id',
  'period',
  'scenario',
  ...(Object.keys(TREATMENT_FIELDS) as (keyof typeof TREATMENT_FIELDS)[]),
] as const
/** The climate a row names, flat: CSV columns, NDJSON fields (or a predict body's `climate`). */
export const CLIMATE_COLUMNS = ['period', 'scenario'] as const
/**
 * The columns of an NDJSON job, as its results echo them; `period` and `scenario` come after the
 * result columns (job-output.ts, `resultsAt`). Jobs uploaded before climate input have the first six.
 */
export const NDJSON_COLUMNS = [
  'id',
  'latitude',
  'longitude',
  'species_code',
  'planting_method',
  'horizons',
  ...CLIMATE_COLUMNS,
]
const MAX_ID_LENGTH = 200

const id = z.union([
  z.string().max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`),
  z.number().int('must be a whole number or a string'),
])

/**
 * A row: a predict body plus an optional id. Its climate comes flat (`period`, `scenario`: CSV
 * columns, NDJSON fields) or, in NDJSON, as a predict body's `climate` object; not both. Its
 * treatments likewise: flat (`vegetation_control`…) or a `treatments` object.
 */
const JobRow = z
  .strictObject({
    id: id.optional(),
    latitude,
    longitude,
    species_code: catalogueCode.min(1, 'is required'),
    planting_method: catalogueCode.min(1, 'is required'),
    horizons: horizons.optional(),
    period: climate.shape.period,
    scenario: climate.shape.scenario,
    climate: climate.nullish(),
    ...TREATMENT_FIELDS,
    treatments: treatmentsObject.nullish(),
  })
  .refine((row) => !row.climate || (row.period == null && row.scenario == null), {
    path: ['climate'],
    message: 'cannot be given with period or scenario',
  })
  .refine(namesTreatmentsOnce, oneTreatments)

type JobRowInput = z.infer<typeof JobRow>

export type CsvLayout = CsvHeader<(typeof REQUIRED_COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number]>

/** Reads a CSV header: the four required columns in any order, horizons and id optional, others echoed. */
export function csvLayout(header: readonly string[]): CsvLayout {
  return readCsvHeader(header, REQUIRED_COLUMNS, OPTIONAL_COLUMNS)
}

function horizonsCell(cell: string | undefined): unknown[] | undefined {
  const text = cell?.trim() ?? ''
  if (text === '') return undefined
  return text.split(/[|;\s]+/).map((part) => numberCell(part))
}

function rowError(error: z.ZodError): InputRow['e'] {
  const issue = error.issues[0]
  if (!issue) return { code: 'invalid_request', message: 'the row is invalid' }
  const field =
    fieldPath(issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path) ||
    '(row)'
  const reason =
    issue.code === 'unrecognized_keys'
      ? 'is not a recognized field'
      : issue.code === 'invalid_type' && issue.input === undefined
        ? 'is required'
        : issue.message
  return { code: 'invalid_request', message: `${field} ${reason}` }
}

function checked(row: number, cells: unknown[], input: unknown): InputRow {
  const parsed = JobRow.safeParse(input, { reportInput: true })
  if (!parsed.success) return { r: row, c: cells, e: rowError(parsed.error) }
  return { r: row, c: cells, q: request(parsed.data) }
}

/** The request of a row; a row naming no climate asks for none, exactly as before climate input. */
function request(row: JobRowInput): PredictionRequest {
  const asked: PredictionRequest = {
    latitude: row.latitude,
    longitude: row.longitude,
    speciesCode: row.species_code,
    plantingMethod: row.planting_method,
    horizons: row.horizons ?? null,
  }
  const period = row.climate?.period ?? row.period ?? null
  const scenario = row.climate?.scenario ?? row.scenario ?? null
  // Whether it names a known future is the climate catalogue's question, asked when the row is scored.
  if (period !== null || scenario !== null) asked.climate = { period, scenario }
  // A row naming none leaves the request as it was before treatments (and its job's default to apply).
  const treatments = rowTreatments(row)
  if (treatments) asked.treatments = treatments
  return asked
}

export function csvRow(layout: CsvLayout, row: number, cells: string[]): InputRow {
  if (cells.length !== layout.columns.length)
    return {
      r: row,
      c: cells,
      e: {
        code: 'invalid_request',
        message: `the row has ${cells.length} cells; the header has ${layout.columns.length}`,
      },
    }
  const cell = (name: keyof CsvLayout['at']) => {
    const index = layout.at[name]
    return index === undefined ? undefined : cells[index]
  }
  /** A text cell trimmed; empty (or no such column) as absent. */
  const text = (name: keyof CsvLayout['at']) => cell(name)?.trim() || undefined
  return checked(row, cells, {
    latitude: numberCell(cell('latitude')),
    longitude: numberCell(cell('longitude')),
    species_code: cell('species_code')?.trim() ?? '',
    planting_method: cell('planting_method')?.trim() ?? '',
    horizons: horizonsCell(cell('horizons')),
    id: text('id'),
    period: text('period'),
    scenario: text('scenario'),
    vegetation_control: text('vegetation_control'),
    animal_protection: text('animal_protection'),
    stock_type: text('stock_type'),
    shade: text('shade'),
  })
}

/** One NDJSON line: a predict body (+ optional id) as a JSON object. */
export function ndjsonRow(row: number, line: string): InputRow {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return { r: row, c: [], e: { code: 'invalid_json', message: 'the line is not valid JSON' } }
  }
  if (!isObject(value))
    return { r: row, c: [], e: { code: 'invalid_request', message: 'the line must be a JSON object' } }
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
  )
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
