import { invalidField } from '../domain/errors.ts'
import type { InputRow, JobColumns, JobFileFormats } from '../domain/jobs/file-formats.ts'
import type { StreamedUpload } from '../domain/streamed-upload.ts'
import { featureDefaults } from './feature-defaults.ts'
import { featureCsvHeader, GEOJSON_CLOSE, GEOJSON_OPENING, renderFeatureChunk } from './feature-output.ts'
import { featureRow, GEOJSON_COLUMNS } from './job-features.ts'
import { csvHeader, renderChunk, resultsAt } from './job-output.ts'
import { type CsvLayout, csvLayout, csvRow, NDJSON_COLUMNS, ndjsonRow } from './job-rows.ts'
import { resultOutcomes } from './result-outcomes.ts'

/** A GeoJSON upload's rows: its defaults read first, then each feature. */
async function* featureRows(upload: Extract<StreamedUpload, { format: 'geojson' }>) {
  const defaults = featureDefaults(upload.defaults)
  yield { columns: GEOJSON_COLUMNS }
  let row = 0
  for await (const feature of upload.records) {
    row += 1
    yield featureRow(row, feature, defaults)
  }
  // Its columns stand for a header, so an empty collection is answered as a CSV of a header alone.
  if (row === 0) throw invalidField('body', 'has a header but no rows')
}

/** An NDJSON upload's rows: each line that is not blank. */
async function* ndjsonRows(upload: Extract<StreamedUpload, { format: 'ndjson' }>) {
  yield { columns: NDJSON_COLUMNS }
  let row = 0
  for await (const line of upload.records) {
    if (line.trim() === '') continue
    row += 1
    yield ndjsonRow(row, line)
  }
  if (row === 0) throw invalidField('body', 'holds no rows')
}

/** A CSV upload's rows, read by its header. */
async function* csvRows(upload: Extract<StreamedUpload, { format: 'csv' }>) {
  let layout: CsvLayout | undefined
  let row = 0
  for await (const cells of upload.records) {
    if (!layout) {
      layout = csvLayout(cells)
      yield { columns: layout.columns }
      continue
    }
    row += 1
    yield csvRow(layout, row, cells)
  }
  if (!layout) throw invalidField('body', 'holds no header row')
  if (row === 0) throw invalidField('body', 'has a header but no rows')
}

/** The job files of the API contract: CSV, NDJSON and GeoJSON uploads and results. */
export const JOB_FILE_FORMATS: JobFileFormats = {
  read(upload): AsyncIterable<JobColumns | InputRow> {
    if (upload.format === 'geojson') return featureRows(upload)
    if (upload.format === 'ndjson') return ndjsonRows(upload)
    return csvRows(upload)
  },

  resultsFrame(job, format) {
    const header =
      format === 'geojson'
        ? GEOJSON_OPENING
        : format !== 'csv'
          ? ''
          : job.format === 'geojson'
            ? featureCsvHeader()
            : csvHeader(job.columns, resultsAt(job.format, job.columns))
    return { header, trailer: format === 'geojson' ? GEOJSON_CLOSE : '' }
  },

  renderRows(job, rows, scored) {
    return renderChunk(job.columns, rows, scored, resultsAt(job.format, job.columns))
  },

  renderFeatures: renderFeatureChunk,

  resultOutcomes,
}
