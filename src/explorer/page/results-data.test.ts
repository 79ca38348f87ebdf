import { describe, expect, it } from 'vitest'
import {
  classCounts,
  describeFeature,
  findFeature,
  kindOf,
  looksLikeResults,
  NO_SURVIVAL_COLOUR,
  type ResultFeature,
  ResultsFileError,
  resultsCollection,
  resultsFromText,
  SURVIVAL_CLASSES,
  summarize,
  survivalAt,
  survivalColour,
  verdictOf,
} from './results-data.ts'

const point = (id: string, index: number, properties: Record<string, unknown>): ResultFeature => ({
  type: 'Feature',
  id,
  geometry: { type: 'Point', coordinates: [-122.2, 44.2] },
  properties: { feature_index: index, ...properties },
})
const square = {
  type: 'Polygon' as const,
  coordinates: [
    [
      [-122.2, 44.2],
      [-122.1, 44.2],
      [-122.1, 44.3],
      [-122.2, 44.2],
    ],
  ],
}
const stand = (id: string, index: number, probability: number, confidence = 0.9): ResultFeature => ({
  type: 'Feature',
  id,
  geometry: square,
  properties: {
    feature_index: index,
    trees_per_acre: 400,
    rule_set: 'or_fpa',
    confidence,
    meets_probability: probability,
    required_trees_per_acre: 275,
  },
})
const failed = (index: number, code: string, geometry: ResultFeature['geometry'] = null): ResultFeature => ({
  type: 'Feature',
  geometry,
  properties: { feature_index: index, error_code: code, error_message: `feature ${index}: wrong` },
})

const collection = {
  type: 'FeatureCollection' as const,
  features: [
    point('a', 0, {
      survival_1y: 0.95,
      survival_3y: 0.91,
      survival_5y: 0.85,
      top_factor_5y: 'Frost exposure',
    }),
    point('b', 1, { survival_1y: 0.4, survival_5y: 0.2 }),
    stand('s1', 2, 0.97),
    stand('s2', 3, 0.5),
    stand('s3', 4, 0.9),
    failed(5, 'invalid_request'),
    failed(6, 'outside_coverage', { type: 'Point', coordinates: [-116.2, 43.6] }),
    failed(7, 'invalid_request'),
  ],
}

describe('a GeoJSON job’s results, read in the page', () => {
  it('tells results from a stand by the properties the API adds', () => {
    expect(looksLikeResults('{"type":"FeatureCollection","features":[{"properties":{"feature_index":0')).toBe(
      true,
    )
    expect(looksLikeResults('{"properties": {"survival_5y" : 0.8}}')).toBe(true)
    expect(looksLikeResults('{"type":"Feature","properties":{"name":"stand"},"geometry":{}}')).toBe(false)
  })

  it('takes a FeatureCollection with results as it is, and says what anything else is', () => {
    expect(resultsCollection(collection)).toBe(collection)
    expect(() => resultsFromText('{"type":')).toThrow('not valid JSON')
    expect(() => resultsCollection([])).toThrow(ResultsFileError)
    expect(() => resultsCollection({ type: 'Feature', geometry: null, properties: {} })).toThrow(
      'This GeoJSON is a Feature, not a FeatureCollection',
    )
    expect(() =>
      resultsCollection({
        type: 'FeatureCollection',
        features: [{ type: 'Feature', properties: { id: 1 } }],
      }),
    ).toThrow('No feature here carries results')
    expect(() => resultsCollection({ type: 'FeatureCollection', features: [42] })).toThrow('not a Feature')
    expect(resultsCollection({ type: 'FeatureCollection', features: [] }).features).toEqual([])
  })

  it('sorts features into points, stands and failures (a failed point is not drawn)', () => {
    expect(collection.features.map(kindOf)).toEqual([
      'point',
      'point',
      'stand',
      'stand',
      'stand',
      'failed',
      'failed',
      'failed',
    ])
    expect(
      kindOf({ type: 'Feature', geometry: { type: 'LineString', coordinates: [] }, properties: {} }),
    ).toBe('other')
  })

  it('colours a point by its survival class at a horizon, grey without one', () => {
    const [a, b] = collection.features as [ResultFeature, ResultFeature]
    expect(survivalAt(a, 5)).toBe(0.85)
    expect(survivalAt(b, 3)).toBeNull()
    expect(survivalColour(0.95)).toBe(SURVIVAL_CLASSES[0].colour)
    expect(survivalColour(0.9)).toBe(SURVIVAL_CLASSES[0].colour)
    expect(survivalColour(0.85)).toBe(SURVIVAL_CLASSES[1].colour)
    expect(survivalColour(0.2)).toBe(SURVIVAL_CLASSES[5].colour)
    expect(survivalColour(null)).toBe(NO_SURVIVAL_COLOUR)
    expect(classCounts(collection, 5)).toEqual([0, 1, 0, 0, 0, 1, 0])
    expect(classCounts(collection, 3)).toEqual([1, 0, 0, 0, 0, 0, 1])
  })

  it('says a stand meets the standard when the probability is at least the confidence', () => {
    const [, , s1, s2, s3] = collection.features as ResultFeature[]
    expect([s1, s2, s3].map((s) => verdictOf(s as ResultFeature))).toEqual(['meets', 'fails', 'meets'])
    expect(verdictOf(point('p', 9, {}))).toBe('unknown')
  })

  it('counts failures by error code, most first, and lists the first ones', () => {
    const summary = summarize(collection, 2)
    expect(summary).toMatchObject({
      points: 2,
      stands: 3,
      failed: 3,
      other: 0,
      verdicts: { meets: 2, fails: 1, unknown: 0 },
      errors: [
        ['invalid_request', 2],
        ['outside_coverage', 1],
      ],
    })
    expect(summary.failures).toEqual([
      { index: 5, id: null, code: 'invalid_request', message: 'feature 5: wrong' },
      { index: 6, id: null, code: 'outside_coverage', message: 'feature 6: wrong' },
    ])
  })

  it('finds a feature by id, else by feature index', () => {
    expect(findFeature(collection, 's2')?.id).toBe('s2')
    expect(findFeature(collection, '6')?.properties?.error_code).toBe('outside_coverage')
    expect(findFeature(collection, '#0')?.id).toBe('a')
    expect(findFeature(collection, 'nothing')).toBeUndefined()
    expect(findFeature(collection, ' ')).toBeUndefined()
  })

  it('describes a feature: the results in words first, then what was uploaded', () => {
    const described = describeFeature(collection.features[2] as ResultFeature)
    expect(described.title).toBe('Stand s1 (feature 2)')
    expect(described.verdict).toBe('Meets the standard at 90% confidence')
    expect(described.rows).toEqual([
      ['Probability of meeting it', '97.0%'],
      ['Confidence asked', '90%'],
      ['Required density', '275 per acre'],
      ['Rule set', 'or_fpa'],
      ['trees_per_acre', '400'],
    ])
    const pointRows = describeFeature(collection.features[0] as ResultFeature).rows
    expect(pointRows[0]).toEqual(['Survival, 1 year', '95.0%'])
    expect(pointRows).toContainEqual(['Top factor, 5 years', 'Frost exposure'])
    expect(describeFeature(stand('x', 1, 1e-13)).rows[0]).toEqual(['Probability of meeting it', 'under 0.1%'])
    expect(describeFeature(failed(5, 'invalid_request')).rows).toEqual([
      ['Error code', 'invalid_request'],
      ['Error', 'feature 5: wrong'],
    ])
  })
})
