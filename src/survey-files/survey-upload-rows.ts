import { ApiError } from '../domain/errors.ts'
import type { SurveyRefusal } from '../domain/ports/survey-uploads.ts'
import type { StreamedUpload } from '../domain/streamed-upload.ts'
import { readSurveyPlot } from '../domain/surveys/survey-plot-reader.ts'
import type { SurveyFileFormats, SurveyUploadItem } from '../domain/surveys/survey-upload-service.ts'
import { TREATMENT_NAMES } from '../domain/treatment-values.ts'
import { numberCell, readCsvHeader } from '../job-files/csv-cells.ts'
import { isObject } from '../job-files/feature-checks.ts'

/*
 * The survey upload files of the API contract (docs/surveys.md): CSV with a header, NDJSON plots, or a
 * GeoJSON FeatureCollection of points. Each row becomes a plot under the same rule as POST /v1/surveys
 * reads one (readSurveyPlot), or a refusal naming its row, field and reason; only an upload that cannot
 * be read as a whole (its header, its syntax) fails as one.
 */

export const SURVEY_REQUIRED_COLUMNS = [
  'plot_id',
  'latitude',
  'longitude',
  'species_code',
  'planting_method',
  'planted_on',
  'surveyed_on',
  'planted',
  'alive',
] as const
export const SURVEY_OPTIONAL_COLUMNS = [
  'plot_area_m2',
  'protocol',
  'vegetation_control',
  'animal_protection',
  'stock_type',
  'shade',
] as const
type Column = (typeof SURVEY_REQUIRED_COLUMNS)[number] | (typeof SURVEY_OPTIONAL_COLUMNS)[number]

const NUMBER_COLUMNS: readonly Column[] = ['latitude', 'longitude', 'planted', 'alive', 'plot_area_m2']

/** A row's plot, or its refusal: the rule's field and reason under the contract's names. */
function plotOrRefusal(row: number, raw: unknown): SurveyUploadItem {
  try {
    return { row, plot: readSurveyPlot(raw, row) }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    const { field, reason } = error.details as { field: string; reason: string }
    return { row, refused: { plotId: plotIdOf(raw), field, code: error.code, reason } }
  }
}

/** The row's plot id when it has a readable one, to name it beside the row number. */
function plotIdOf(raw: unknown): string | null {
  const id = isObject(raw) ? raw.plot_id : undefined
  return typeof id === 'string' && id.length <= 64 ? id : null
}

/**
 * A row's treatments named flat (CSV columns, GeoJSON properties) as the plot's `treatments` object,
 * as POST /v1/surveys takes it. A GeoJSON feature naming them both ways is refused, as a job's row is.
 */
function withTreatmentsObject(raw: Record<string, unknown>): Record<string, unknown> | string {
  const plot: Record<string, unknown> = {}
  const treatments: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(raw)) {
    if (!(TREATMENT_NAMES as readonly string[]).includes(field)) plot[field] = value
    else if (value != null) treatments[field] = value
  }
  // Empty cells (and null properties) name nothing: the row is as if it had no such columns.
  if (Object.keys(treatments).length === 0) return plot
  if (raw.treatments != null)
    return 'cannot be given with vegetation_control, animal_protection, stock_type or shade'
  return { ...plot, treatments }
}

/** The row's plot with its flat treatments gathered, or its refusal. */
function flatRowItem(row: number, raw: Record<string, unknown>): SurveyUploadItem {
  const gathered = withTreatmentsObject(raw)
  if (typeof gathered === 'string') return refusal(row, 'treatments', 'invalid_request', gathered, raw)
  return plotOrRefusal(row, gathered)
}

function refusal(row: number, field: string, code: string, reason: string, raw?: unknown): SurveyUploadItem {
  const refused: Omit<SurveyRefusal, 'row'> = { plotId: plotIdOf(raw), field, code, reason }
  return { row, refused }
}

async function* csvItems(records: AsyncIterable<string[]>): AsyncGenerator<SurveyUploadItem> {
  let header: ReturnType<typeof readCsvHeader<Column>> | undefined
  let row = 0
  for await (const cells of records) {
    if (!header) {
      header = readCsvHeader(cells, SURVEY_REQUIRED_COLUMNS, SURVEY_OPTIONAL_COLUMNS)
      const known = new Set(Object.values(header.at))
      yield { ignoredColumns: header.columns.filter((_, index) => !known.has(index)) }
      continue
    }
    row += 1
    const raw: Record<string, unknown> = {}
    for (const [name, index] of Object.entries(header.at) as [Column, number][]) {
      const cell = cells[index]
      if (NUMBER_COLUMNS.includes(name)) raw[name] = numberCell(cell)
      else raw[name] = cell?.trim() || undefined
    }
    if (cells.length !== header.columns.length)
      yield refusal(
        row,
        '(row)',
        'invalid_request',
        `has ${cells.length} cells; the header has ${header.columns.length}`,
        raw,
      )
    else yield flatRowItem(row, raw)
  }
}

/** NDJSON plots, numbered by line; blank lines are skipped but keep their numbers. */
async function* ndjsonItems(lines: AsyncIterable<string>): AsyncGenerator<SurveyUploadItem> {
  let row = 0
  for await (const line of lines) {
    row += 1
    if (line.trim() === '') continue
    let raw: unknown
    try {
      raw = JSON.parse(line)
    } catch {
      yield refusal(row, '(row)', 'invalid_json', 'is not valid JSON')
      continue
    }
    yield plotOrRefusal(row, raw)
  }
}

/** A Point feature's plot: its position from the geometry, its other fields from its properties. */
function featureItem(row: number, feature: unknown): SurveyUploadItem {
  if (!isObject(feature) || feature.type !== 'Feature')
    return refusal(row, '(feature)', 'invalid_request', 'must be a GeoJSON Feature')
  const properties = feature.properties
  if (!isObject(properties))
    return refusal(row, 'properties', 'invalid_request', 'must be an object holding the plot fields')
  const geometry = feature.geometry
  if (!isObject(geometry) || geometry.type !== 'Point')
    return refusal(row, 'geometry', 'invalid_request', 'must be a Point: a plot is one position', properties)
  const position = geometry.coordinates
  if (
    !Array.isArray(position) ||
    position.length < 2 ||
    position.length > 3 ||
    !position.every((value) => typeof value === 'number')
  )
    return refusal(
      row,
      'geometry.coordinates',
      'invalid_request',
      'must be a position [longitude, latitude]',
      properties,
    )
  for (const field of ['latitude', 'longitude'])
    if (field in properties)
      return refusal(
        row,
        `properties.${field}`,
        'invalid_request',
        'must not be given: the Point geometry places the plot',
        properties,
      )
  const [longitude, latitude] = position as [number, number]
  return flatRowItem(row, { ...properties, latitude, longitude })
}

async function* geojsonItems(features: AsyncIterable<unknown>): AsyncGenerator<SurveyUploadItem> {
  let row = 0
  for await (const feature of features) {
    row += 1
    yield featureItem(row, feature)
  }
}

/** The survey upload formats: the domain's SurveyFileFormats port. */
export const surveyFileFormats: SurveyFileFormats = {
  read(upload: StreamedUpload) {
    if (upload.format === 'csv') return csvItems(upload.records)
    if (upload.format === 'ndjson') return ndjsonItems(upload.records)
    return geojsonItems(upload.records)
  },
}
