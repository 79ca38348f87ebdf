import type { JobStatus } from './api.ts'
import { count } from './format.ts'

/**
 * A GeoJSON job's results as the explorer reads them (docs/jobs.md, "GeoJSON jobs"): a
 * FeatureCollection whose points carry `survival_1y/3y/5y` and `top_factor_*`, whose stands (Polygon,
 * MultiPolygon) carry the stocking plan's `meets_probability`, `confidence`, `required_trees_per_acre`
 * and the expected survivors, and whose failed features carry `error_code` and `error_message` (their
 * geometry may be null). No DOM and no Leaflet here: what is a point, a stand or a failure, the colour
 * classes and the summaries the page shows.
 */

export const RESULT_HORIZONS = [1, 3, 5] as const
export type ResultHorizon = (typeof RESULT_HORIZONS)[number]

/** A results file larger than this is not read in the browser (GDAL or QGIS open it). */
export const RESULTS_FILE_MAX_BYTES = 128 * 1024 * 1024
/** More features than this are not drawn in the browser. */
export const RESULTS_MAX_FEATURES = 250_000

export type ResultFeature = GeoJSON.Feature<GeoJSON.Geometry | null, Record<string, unknown> | null>
export interface ResultsCollection {
  type: 'FeatureCollection'
  features: ResultFeature[]
}

/** What a feature is on the map: a point, a stand, a failure (listed, not drawn) or something else. */
export type ResultKind = 'point' | 'stand' | 'failed' | 'other'

/** A file or an answer that is not a job's GeoJSON results, in words for the page. */
export class ResultsFileError extends Error {}

/** The properties the API adds to a GeoJSON job's features: any of them marks a results file. */
const RESULT_PROPERTIES = [
  'feature_index',
  'survival_1y',
  'survival_3y',
  'survival_5y',
  'meets_probability',
  'error_code',
] as const

const RESULT_PROPERTY_PATTERN = new RegExp(`"(${RESULT_PROPERTIES.join('|')})"\\s*:`)

/**
 * Whether the start of a file reads like a job's results (a results property in its first features):
 * a file dropped on the map goes to the results layer then, and to the Plan tab (a stand) otherwise.
 */
export function looksLikeResults(head: string): boolean {
  return RESULT_PROPERTY_PATTERN.test(head)
}

/** How much of a dropped file is read to tell results from a stand. */
export const SNIFF_BYTES = 64 * 1024

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The parsed JSON as a results collection, as it is (nothing copied): a FeatureCollection of which at
 * least one feature carries results. Anything else is a ResultsFileError saying what it is instead.
 */
export function resultsCollection(value: unknown): ResultsCollection {
  if (!isRecord(value) || typeof value.type !== 'string')
    throw new ResultsFileError('This is not GeoJSON: it has no "type".')
  if (value.type !== 'FeatureCollection' || !Array.isArray(value.features))
    throw new ResultsFileError(
      `This GeoJSON is a ${value.type}, not a FeatureCollection: a job's results are a FeatureCollection.`,
    )
  const features = value.features as unknown[]
  if (features.length > RESULTS_MAX_FEATURES)
    throw new ResultsFileError(
      `This FeatureCollection has ${features.length.toLocaleString('en-US')} features; the browser draws at most ${RESULTS_MAX_FEATURES.toLocaleString('en-US')}. Open it in QGIS or with GDAL instead.`,
    )
  let withResults = false
  for (const feature of features) {
    if (!isRecord(feature) || feature.type !== 'Feature')
      throw new ResultsFileError('This FeatureCollection holds something that is not a Feature.')
    const properties = feature.properties
    if (!withResults && isRecord(properties))
      withResults = RESULT_PROPERTIES.some((name) => name in properties)
  }
  if (features.length > 0 && !withResults)
    throw new ResultsFileError(
      'No feature here carries results (survival_1y/3y/5y, meets_probability or error_code): is this the upload rather than the job’s results?',
    )
  return value as unknown as ResultsCollection
}

/** The text of a results file, parsed and checked. */
export function resultsFromText(text: string): ResultsCollection {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new ResultsFileError('This file is not GeoJSON: it is not valid JSON.')
  }
  return resultsCollection(value)
}

export function propertiesOf(feature: ResultFeature): Record<string, unknown> {
  return feature.properties ?? {}
}

function finite(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

export function kindOf(feature: ResultFeature): ResultKind {
  const code = propertiesOf(feature).error_code
  if (typeof code === 'string' && code !== '') return 'failed'
  const type = feature.geometry?.type
  if (type === 'Point') return 'point'
  if (type === 'Polygon' || type === 'MultiPolygon') return 'stand'
  return 'other'
}

/** A point's survival at a horizon, or null when the job did not ask for that horizon. */
export function survivalAt(feature: ResultFeature, horizon: ResultHorizon): number | null {
  const value = finite(propertiesOf(feature)[`survival_${horizon}y`])
  return value !== null && value >= 0 && value <= 1 ? value : null
}

/** The classes points are coloured by, best first: ColorBrewer's RdYlGn in six steps. */
export const SURVIVAL_CLASSES = [
  { min: 0.9, label: '90% or more', colour: '#1a9850' },
  { min: 0.8, label: '80–90%', colour: '#91cf60' },
  { min: 0.7, label: '70–80%', colour: '#d9ef8b' },
  { min: 0.6, label: '60–70%', colour: '#fee08b' },
  { min: 0.5, label: '50–60%', colour: '#fc8d59' },
  { min: 0, label: 'under 50%', colour: '#d73027' },
] as const
/** A point without survival at the chosen horizon (a job that asked for other horizons). */
export const NO_SURVIVAL_COLOUR = '#9e9e9e'

/** The class (an index into SURVIVAL_CLASSES) of a survival, or -1 for none. */
export function survivalClass(survival: number | null): number {
  if (survival === null) return -1
  return SURVIVAL_CLASSES.findIndex((c) => survival >= c.min)
}

export function survivalColour(survival: number | null): string {
  const index = survivalClass(survival)
  return index < 0 ? NO_SURVIVAL_COLOUR : (SURVIVAL_CLASSES[index]?.colour ?? NO_SURVIVAL_COLOUR)
}

export type Verdict = 'meets' | 'fails' | 'unknown'

/** A stand meets the standard when the probability of meeting it is at least the plan's confidence. */
export function verdictOf(feature: ResultFeature): Verdict {
  const properties = propertiesOf(feature)
  const probability = finite(properties.meets_probability)
  const confidence = finite(properties.confidence)
  if (probability === null || confidence === null) return 'unknown'
  return probability >= confidence ? 'meets' : 'fails'
}

/** How stands are drawn: blue and solid when they meet, magenta and dashed when they do not. */
export const VERDICT_STYLES: Record<
  Verdict,
  { label: string; fill: string; line: string; dashArray: string | null }
> = {
  meets: { label: 'Meets the standard', fill: '#2166ac', line: '#0b3c6e', dashArray: null },
  fails: { label: 'Does not meet it', fill: '#c51b7d', line: '#6d0a43', dashArray: '6 4' },
  unknown: { label: 'No plan result', fill: '#9e9e9e', line: '#555555', dashArray: '2 3' },
}

/** What a collection holds, counted once when it is loaded (failures listed, at most `listed`). */
export interface ResultsSummary {
  points: number
  stands: number
  failed: number
  /** Features neither failed nor a point or a stand (another geometry, or none): not drawn. */
  other: number
  verdicts: Record<Verdict, number>
  /** Failed features by error code, most first. */
  errors: [string, number][]
  /** The first failed features, in input order. */
  failures: { index: number; id: string | null; code: string; message: string }[]
}

export function summarize(collection: ResultsCollection, listed = 10): ResultsSummary {
  const summary: ResultsSummary = {
    points: 0,
    stands: 0,
    failed: 0,
    other: 0,
    verdicts: { meets: 0, fails: 0, unknown: 0 },
    errors: [],
    failures: [],
  }
  const errors = new Map<string, number>()
  collection.features.forEach((feature, position) => {
    const kind = kindOf(feature)
    if (kind === 'point') summary.points += 1
    else if (kind === 'stand') {
      summary.stands += 1
      summary.verdicts[verdictOf(feature)] += 1
    } else if (kind === 'other') summary.other += 1
    else {
      summary.failed += 1
      const properties = propertiesOf(feature)
      const code = String(properties.error_code)
      errors.set(code, (errors.get(code) ?? 0) + 1)
      if (summary.failures.length < listed)
        summary.failures.push({
          index: featureIndex(feature) ?? position,
          id: featureId(feature),
          code,
          message: typeof properties.error_message === 'string' ? properties.error_message : '',
        })
    }
  })
  summary.errors = [...errors].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  return summary
}

/** Points per survival class at a horizon (the last entry: points without survival there). */
export function classCounts(collection: ResultsCollection, horizon: ResultHorizon): number[] {
  const counts = new Array<number>(SURVIVAL_CLASSES.length + 1).fill(0)
  for (const feature of collection.features) {
    if (kindOf(feature) !== 'point') continue
    const index = survivalClass(survivalAt(feature, horizon))
    const slot = index < 0 ? SURVIVAL_CLASSES.length : index
    counts[slot] = (counts[slot] ?? 0) + 1
  }
  return counts
}

export function featureId(feature: ResultFeature): string | null {
  const id = feature.id ?? propertiesOf(feature).id
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null
}

export function featureIndex(feature: ResultFeature): number | null {
  const index = finite(propertiesOf(feature).feature_index)
  return index !== null && Number.isInteger(index) ? index : null
}

/** A feature by its id, else (a whole number) by its feature_index. */
export function findFeature(collection: ResultsCollection, query: string): ResultFeature | undefined {
  const wanted = query.trim()
  if (wanted === '') return undefined
  const byId = collection.features.find((feature) => featureId(feature) === wanted)
  if (byId) return byId
  const index = /^#?\d+$/.test(wanted) ? Number(wanted.replace('#', '')) : null
  if (index === null) return undefined
  return (
    collection.features.find((feature) => featureIndex(feature) === index) ?? collection.features[index] // a collection without feature_index: by position
  )
}

// ----- a feature's properties, as its popup lists them -----

const percentText = (p: number): string => {
  if (p > 0 && p < 0.001) return 'under 0.1%'
  if (p < 1 && p > 0.999) return 'over 99.9%'
  return `${(p * 100).toFixed(1)}%`
}
const treesText = (n: number): string => `${Math.round(n).toLocaleString('en-US')} per acre`

/** Properties the popup writes in its own words, in this order (results first). */
const POINT_ROWS: [string, string, (value: never) => string][] = [
  ['survival_1y', 'Survival, 1 year', percentText],
  ['survival_3y', 'Survival, 3 years', percentText],
  ['survival_5y', 'Survival, 5 years', percentText],
  ['top_factor_1y', 'Top factor, 1 year', String],
  ['top_factor_3y', 'Top factor, 3 years', String],
  ['top_factor_5y', 'Top factor, 5 years', String],
]
const STAND_ROWS: [string, string, (value: never) => string][] = [
  ['meets_probability', 'Probability of meeting it', percentText],
  ['confidence', 'Confidence asked', (v: number) => `${Math.round(v * 100)}%`],
  ['required_trees_per_acre', 'Required density', treesText],
  ['planted_trees_per_acre', 'Planted', treesText],
  ['target_trees_per_acre', 'Standard’s target', treesText],
  ['expected_trees_per_acre', 'Expected survivors', treesText],
  ['lower_trees_per_acre', 'Interval, lower', treesText],
  ['upper_trees_per_acre', 'Interval, upper', treesText],
  ['rule_set', 'Rule set', String],
  ['rule_horizon_years', 'Rule’s horizon', (v: number) => `${v} year${v === 1 ? '' : 's'}`],
]
const FAILED_ROWS: [string, string, (value: never) => string][] = [
  ['error_code', 'Error code', String],
  ['error_message', 'Error', String],
]

/** Any other property as it was: text as text, anything else as JSON. */
function plain(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && !Number.isInteger(value)) return String(Number(value.toPrecision(6)))
  return JSON.stringify(value)
}

/**
 * A feature's title, a stand's verdict, and its properties as label and text: the results first, then
 * what was uploaded.
 */
export function describeFeature(feature: ResultFeature): {
  title: string
  verdict: string | null
  rows: [string, string][]
} {
  const properties = propertiesOf(feature)
  const kind = kindOf(feature)
  const id = featureId(feature)
  const index = featureIndex(feature)
  const name = { point: 'Point', stand: 'Stand', failed: 'Failed feature', other: 'Feature' }[kind]
  const title = `${name}${id !== null ? ` ${id}` : ''}${index !== null ? ` (feature ${index})` : ''}`
  const rows: [string, string][] = []
  const verdict = kind === 'stand' ? verdictOf(feature) : 'unknown'
  const confidence = finite(properties.confidence)
  const at = confidence === null ? '' : ` at ${Math.round(confidence * 100)}% confidence`
  const own =
    kind === 'point' ? POINT_ROWS : kind === 'stand' ? STAND_ROWS : kind === 'failed' ? FAILED_ROWS : []
  const shown = new Set<string>(['feature_index', 'id'])
  for (const [key, label, format] of own) {
    shown.add(key)
    const value = properties[key]
    if (value === null || value === undefined || value === '') continue
    rows.push([label, format(value as never)])
  }
  for (const [key, value] of Object.entries(properties)) {
    if (shown.has(key) || value === null || value === undefined) continue
    rows.push([key, plain(value)])
  }
  return {
    title,
    verdict:
      verdict === 'unknown'
        ? null
        : verdict === 'meets'
          ? `Meets the standard${at}`
          : `Does not meet the standard${at}`,
    rows,
  }
}

const FORMAT_NAMES: Record<JobStatus['format'], string> = { csv: 'CSV', ndjson: 'NDJSON', geojson: 'GeoJSON' }

/** Why a job's results cannot be shown (not GeoJSON, not finished, too large), or null when they can. */
export function jobRefusal(job: JobStatus): string | null {
  const id = job.id
  if (job.format !== 'geojson')
    return `Job ${id} is a ${FORMAT_NAMES[job.format] ?? job.format} job, not a GeoJSON job: its results have no geometry to draw (GET /v1/jobs/${id}/results downloads them).`
  switch (job.status) {
    case 'succeeded':
      break
    case 'queued':
    case 'running':
      return `Job ${id} is not finished: it is ${job.status}, ${job.rows_done.toLocaleString('en-US')} of ${count(job.rows_total, 'feature')} done. Its results can be shown once it has succeeded; press Show job again then.`
    case 'cancelled':
      return `Job ${id} was cancelled: it has no results to show.`
    default:
      return `Job ${id} failed${typeof job.failure === 'string' && job.failure ? ` (${job.failure})` : ''}: it has no results to show.`
  }
  if (job.rows_total > RESULTS_MAX_FEATURES)
    return `Job ${id} has ${count(job.rows_total, 'feature')}; the browser draws at most ${RESULTS_MAX_FEATURES.toLocaleString('en-US')}. Download its results and open them in QGIS or with GDAL.`
  return null
}
