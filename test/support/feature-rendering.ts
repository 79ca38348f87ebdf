import { ApiError } from '../../src/domain/errors.ts'
import type { FeatureOutcome, InputRow } from '../../src/domain/jobs/file-formats.ts'
import { PredictionService } from '../../src/domain/prediction-service.ts'
import type { BatchItemResult } from '../../src/domain/prediction-types.ts'
import { StockingPlanService } from '../../src/domain/stocking/stocking-service.ts'
import { featureDefaults } from '../../src/job-files/feature-defaults.ts'
import { featureRow } from '../../src/job-files/job-features.ts'
import type { JobResultChunk } from '../../src/types.ts'
import { FakeSiteLookup } from './fakes.ts'
import { model } from './survival-model.ts'

/** A GeoJSON job's features scored as JobService scores them, over the fakes: for the feature-output tests. */

/** The services' clock. */
export const NOW = new Date('2026-11-24T12:00:00Z')
export const predictions = new PredictionService(model, new FakeSiteLookup(), () => NOW)
// No data site inside any stand: each is planned from the site nearest its centre.
export const plans = new StockingPlanService(
  model,
  new FakeSiteLookup(),
  { within: async () => ({ sites: [], dataVersion: null }) },
  () => NOW,
)

/** The defaults of a job uploaded with planting_method=manual. */
export const DEFAULTS = featureDefaults({ planting_method: 'manual' })

/** The rows as a job keeps them: checked at upload, then stored as JSON and read back. */
export function rowsOf(features: readonly unknown[], defaults = DEFAULTS): InputRow[] {
  return JSON.parse(JSON.stringify(features.map((f, i) => featureRow(i + 1, f, defaults)))) as InputRow[]
}

/** Each checked feature's outcome, as JobService.runChunk makes them: points in one batch, stands one by one. */
export async function outcomesOf(rows: readonly InputRow[]): Promise<FeatureOutcome[]> {
  const requests = rows.flatMap((row) => (row.q ? [row.q] : []))
  const scored: BatchItemResult[] = requests.length > 0 ? [...(await predictions.scoreRows(requests))] : []
  let next = 0
  const outcomes: FeatureOutcome[] = []
  for (const row of rows) {
    if (row.e) continue
    if (row.q) outcomes.push({ kind: 'prediction', result: scored[next++] as BatchItemResult })
    else if (row.p) {
      try {
        outcomes.push({ kind: 'plan', plan: await plans.plan(row.p) })
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        outcomes.push({ kind: 'plan_failed', error })
      }
    }
  }
  return outcomes
}

/** The lines of a chunk's NDJSON, parsed. */
export function ndjsonLines(chunk: JobResultChunk): Record<string, unknown>[] {
  return chunk.ndjson
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}
