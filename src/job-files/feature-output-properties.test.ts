import { describe, expect, it } from 'vitest'
import { FOREST_POINTS } from '../../test/support/fakes.ts'
import { at, squarePolygon } from '../../test/support/feature-fixtures.ts'
import { ndjsonLines, outcomesOf, rowsOf } from '../../test/support/feature-rendering.ts'
import type { JobResultChunk } from '../types.ts'
import {
  FEATURE_RESULT_COLUMNS,
  GEOJSON_CLOSE,
  GEOJSON_OPENING,
  renderFeatureChunk,
} from './feature-output.ts'

const { coastRange, westCascades } = FOREST_POINTS

/** The features as a job renders them: checked and stored, then points scored in one batch, stands planned. */
async function rendered(features: readonly unknown[]): Promise<JobResultChunk> {
  const rows = rowsOf(features)
  return renderFeatureChunk(rows, (await outcomesOf(rows))[Symbol.iterator](), 0)
}

function collection(chunk: JobResultChunk): { properties: Record<string, unknown> }[] {
  return (JSON.parse(`${GEOJSON_OPENING}${chunk.geojson}${GEOJSON_CLOSE}`) as { features: [] }).features
}

/** A Douglas-fir point in the Coast Range asking for the first year, with more properties of its own. */
const coastPoint = (own: Record<string, unknown>) => ({
  type: 'Feature',
  geometry: at(coastRange),
  properties: { species_code: 'PSME', horizons: [1], ...own },
})

describe('renderFeatureChunk: a feature’s own properties', () => {
  it('echoes a feature’s own properties; feature_index and the results win over the same names', async () => {
    const features = [
      coastPoint({ feature_index: 99, survival_1y: 'mine', top_factor_1y: 'mine', nested: { a: [1, 2] } }),
      {
        type: 'Feature',
        geometry: squarePolygon(coastRange.longitude, coastRange.latitude),
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
      coastPoint({
        survival_5y: 0.99,
        top_factor_5y: 'from last year',
        error_code: 'stale',
        error_message: 'from a previous run',
        rule_set: 'wa_fpa_west',
      }),
    ]
    const chunk = await rendered(features)
    const [line] = ndjsonLines(chunk)
    const [feature] = collection(chunk)
    expect(line?.error_code).toBeNull()
    for (const name of FEATURE_RESULT_COLUMNS)
      expect(feature?.properties[name] ?? null, name).toEqual(line?.[name])
  })
})
