import type { Position } from 'geojson'
import { describe, expect, it } from 'vitest'
import { FakeSiteLookup, FOREST_POINTS } from '../../test/support/fakes.ts'
import { ApiError } from '../domain/errors.ts'
import type { FeatureOutcome, InputRow } from '../domain/jobs/file-formats.ts'
import { PredictionService } from '../domain/prediction-service.ts'
import type { BatchItemResult } from '../domain/prediction-types.ts'
import { SPECIES } from '../domain/species.ts'
import { StockingPlanService } from '../domain/stocking/stocking-service.ts'
import { loadSurvivalModel } from '../model/index.ts'
import type { JobResultChunk } from '../types.ts'
import { featureDefaults } from './feature-defaults.ts'
import {
  FEATURE_RESULT_COLUMNS,
  GEOJSON_CLOSE,
  GEOJSON_OPENING,
  renderFeatureChunk,
} from './feature-output.ts'
import { featureRow } from './job-features.ts'

const NOW = new Date('2026-11-24T12:00:00Z')
const model = loadSurvivalModel(SPECIES)
const predictions = new PredictionService(model, new FakeSiteLookup(), () => NOW)
const plans = new StockingPlanService(model, new FakeSiteLookup(), { within: async () => [] }, () => NOW)

const { coastRange, westCascades } = FOREST_POINTS

function square(west: number, south: number, side = 0.01): Position[] {
  return [
    [west, south],
    [west + side, south],
    [west + side, south + side],
    [west, south + side],
    [west, south],
  ]
}

const at = (point: { latitude: number; longitude: number }) => ({
  type: 'Point',
  coordinates: [point.longitude, point.latitude],
})
const polygon = (west: number, south: number) => ({ type: 'Polygon', coordinates: [square(west, south)] })

/** The features as a job renders them: checked and stored, then points scored in one batch, stands planned. */
async function rendered(features: readonly unknown[]): Promise<JobResultChunk> {
  const defaults = featureDefaults({ planting_method: 'manual' })
  const rows = JSON.parse(
    JSON.stringify(features.map((feature, i) => featureRow(i + 1, feature, defaults))),
  ) as InputRow[]
  const requests = rows.flatMap((row) => (row.q ? [row.q] : []))
  const scored: BatchItemResult[] = requests.length > 0 ? [...(await predictions.scoreRows(requests))] : []
  let next = 0
  const outcomes: FeatureOutcome[] = []
  for (const row of rows) {
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
  return renderFeatureChunk(rows, outcomes[Symbol.iterator](), 0)
}

function collection(chunk: JobResultChunk): { properties: Record<string, unknown> }[] {
  return (JSON.parse(`${GEOJSON_OPENING}${chunk.geojson}${GEOJSON_CLOSE}`) as { features: [] }).features
}

function ndjsonOf(chunk: JobResultChunk): Record<string, unknown>[] {
  return chunk.ndjson
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

describe('renderFeatureChunk: a feature’s own properties', () => {
  it('echoes a feature’s own properties; feature_index and the results win over the same names', async () => {
    const features = [
      {
        type: 'Feature',
        geometry: at(coastRange),
        properties: {
          species_code: 'PSME',
          horizons: [1],
          feature_index: 99,
          survival_1y: 'mine',
          top_factor_1y: 'mine',
          nested: { a: [1, 2] },
        },
      },
      {
        type: 'Feature',
        geometry: polygon(coastRange.longitude, coastRange.latitude),
        properties: { species_code: 'PSME', trees_per_acre: 400, rule_set: null, meets_probability: 2 },
      },
      {
        type: 'Feature',
        geometry: at(westCascades),
        properties: { species_code: 'NOPE', error_code: 'mine' },
      },
    ]
    const chunk = await rendered(features)
    const [pointFeature, standFeature, failedFeature] = collection(chunk)
    expect(pointFeature?.properties.feature_index).toBe(0)
    expect(typeof pointFeature?.properties.survival_1y).toBe('number')
    expect(pointFeature?.properties.top_factor_1y).not.toBe('mine')
    expect(pointFeature?.properties.nested).toEqual({ a: [1, 2] })
    expect(standFeature?.properties.rule_set).toBe('or_fpa')
    expect(standFeature?.properties.meets_probability).toBeLessThanOrEqual(1)
    expect(failedFeature?.properties.error_code).toBe('invalid_species')
  })

  // An input property named like a result column (a GIS layer re-uploaded with a previous run's results)
  // is never given back as a result: every result column is the result's, null where it has none.
  it('never passes an input property off as a result: each result name says what CSV and NDJSON say', async () => {
    const features = [
      {
        type: 'Feature',
        geometry: at(coastRange),
        properties: {
          species_code: 'PSME',
          horizons: [1],
          survival_5y: 0.99,
          top_factor_5y: 'from last year',
          error_code: 'stale',
          error_message: 'from a previous run',
          rule_set: 'wa_fpa_west',
        },
      },
    ]
    const chunk = await rendered(features)
    const [line] = ndjsonOf(chunk)
    const [feature] = collection(chunk)
    expect(line?.error_code).toBeNull()
    for (const name of FEATURE_RESULT_COLUMNS)
      expect(feature?.properties[name] ?? null, name).toEqual(line?.[name])
  })
})
