import type { FeatureOutcome, InputRow } from '../domain/jobs/file-formats.ts'
import type { StockingPlan } from '../domain/stocking/stocking-types.ts'
import type { FactorContribution, Horizon, HorizonPrediction, JobResultChunk } from '../types.ts'
import { messageInContractNames } from './contract-names.ts'
import { GEOJSON_COLUMNS } from './job-features.ts'
import { csvCell } from './job-output.ts'

/**
 * How a GeoJSON job's results read. As GeoJSON: each feature with its input geometry, id and
 * properties, and the results as flat properties (a point's survival and top factor per horizon; a
 * stand's rule, probability of meeting it, required density and expected survivors with their interval
 * at the rule's horizon; error_code and error_message on a feature that failed). As CSV and NDJSON: the
 * same results without geometry, a stand by its centre.
 */
export const FEATURE_RESULT_COLUMNS = [
  'survival_1y',
  'survival_3y',
  'survival_5y',
  'top_factor_1y',
  'top_factor_3y',
  'top_factor_5y',
  'rule_set',
  'rule_horizon_years',
  'target_trees_per_acre',
  'planted_trees_per_acre',
  'confidence',
  'meets_probability',
  'required_trees_per_acre',
  'expected_trees_per_acre',
  'lower_trees_per_acre',
  'upper_trees_per_acre',
  'error_code',
  'error_message',
] as const

/** The opening and the close around a GeoJSON job's features. */
export const GEOJSON_OPENING = '{"type":"FeatureCollection","features":[\n'
export const GEOJSON_CLOSE = '\n]}\n'

type Results = Partial<Record<(typeof FEATURE_RESULT_COLUMNS)[number], unknown>>

const HORIZON_NAMES: Record<Horizon, '1y' | '3y' | '5y'> = { 1: '1y', 3: '3y', 5: '5y' }

function predictionResults(predictions: readonly HorizonPrediction[]): Results {
  const results: Results = {}
  for (const prediction of predictions) {
    const name = HORIZON_NAMES[prediction.horizonYears]
    results[`survival_${name}`] = prediction.survivalProbability
    results[`top_factor_${name}`] =
      (prediction.topContributions(1)[0] as FactorContribution | undefined)?.factor ?? null
  }
  return results
}

function planResults(plan: StockingPlan): Results {
  const atRule = plan.horizons.find((h) => h.horizonYears === plan.rule.horizonYears)
  return {
    rule_set: plan.rule.id,
    rule_horizon_years: plan.rule.horizonYears,
    target_trees_per_acre: plan.rule.targetTreesPerAcre,
    planted_trees_per_acre: plan.planted.treesPerAcre,
    confidence: plan.confidence,
    meets_probability: plan.meetsStandard.probability,
    required_trees_per_acre: plan.required.treesPerAcre,
    expected_trees_per_acre: atRule?.expectedTreesPerAcre ?? null,
    lower_trees_per_acre: atRule?.lower ?? null,
    upper_trees_per_acre: atRule?.upper ?? null,
  }
}

function outcomeResults(row: InputRow, outcome: FeatureOutcome | undefined): Results {
  if (row.e) return { error_code: row.e.code, error_message: row.e.message }
  if (!outcome) throw new Error('fewer results than features to score')
  if (outcome.kind === 'plan') return planResults(outcome.plan)
  if (outcome.kind === 'plan_failed')
    return { error_code: outcome.error.code, error_message: messageInContractNames(outcome.error) }
  const { result } = outcome
  return result.ok
    ? predictionResults(result.prediction.predictions)
    : { error_code: result.error.code, error_message: result.error.message }
}

/**
 * Renders a chunk of a GeoJSON job in input order, in all three formats. `outcomes` holds one entry per
 * feature that passed its checks at upload, in order. The very first feature of the job (chunk 0, its
 * first row) has no comma before it, so the chunks joined between the opening and the close are a
 * FeatureCollection.
 */
export function renderFeatureChunk(
  rows: readonly InputRow[],
  outcomes: Iterator<FeatureOutcome>,
  chunkIndex: number,
): JobResultChunk {
  let csv = ''
  let ndjson = ''
  let geojson = ''
  let rowsFailed = 0
  const errors: Record<string, number> = {}
  rows.forEach((row, position) => {
    const results = outcomeResults(row, row.e ? undefined : outcomes.next().value)
    const code = results.error_code as string | undefined
    if (code) {
      rowsFailed += 1
      errors[code] = (errors[code] ?? 0) + 1
    }
    const values = [
      ...GEOJSON_COLUMNS.map((_, index) => row.c[index] ?? null),
      ...FEATURE_RESULT_COLUMNS.map((name) => results[name] ?? null),
    ]
    csv += `${values.map(csvCell).join(',')}\r\n`
    const line: Record<string, unknown> = { row: row.r }
    ;[...GEOJSON_COLUMNS, ...FEATURE_RESULT_COLUMNS].forEach((name, index) => {
      line[name] = values[index] ?? null
    })
    ndjson += `${JSON.stringify(line)}\n`
    const id = row.c[0]
    // Every result column is there (null where it does not apply), so an input property of the same
    // name is never passed off as a result, and GIS tools see one schema.
    const resultProperties: Record<string, unknown> = {}
    for (const name of FEATURE_RESULT_COLUMNS) resultProperties[name] = results[name] ?? null
    const feature = {
      type: 'Feature',
      ...(id !== null && id !== undefined ? { id } : {}),
      geometry: row.g ?? null,
      properties: { ...row.o, feature_index: row.c[1], ...resultProperties },
    }
    geojson += `${chunkIndex === 0 && position === 0 ? '' : ',\n'}${JSON.stringify(feature)}`
  })
  return { csv, ndjson, geojson, rowsDone: rows.length, rowsFailed, errors }
}

/** The CSV header of a GeoJSON job's results. */
export function featureCsvHeader(): string {
  return `${[...GEOJSON_COLUMNS, ...FEATURE_RESULT_COLUMNS].join(',')}\r\n`
}
