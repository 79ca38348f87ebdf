import { describe, expect, it } from 'vitest'
import {
  formatShare,
  mixProblem,
  planFieldOf,
  polygonOfVertices,
  positionCount,
  StandFileError,
  standFromGeoJson,
  standFromText,
} from './plan-input.ts'

const ring = [
  [-122.2, 44.2],
  [-122.1, 44.2],
  [-122.1, 44.3],
  [-122.2, 44.2],
]
const polygon = { type: 'Polygon', coordinates: [ring] }
const name = (code: string) => ({ PSME: 'Douglas-fir', TSHE: 'western hemlock' })[code] ?? code

describe('a stand from a GeoJSON file', () => {
  it('takes a Polygon, a MultiPolygon, or a Feature holding one, as it is', () => {
    expect(standFromGeoJson(polygon)).toEqual(polygon)
    const multi = { type: 'MultiPolygon', coordinates: [[ring], [ring]] }
    expect(standFromGeoJson(multi)).toEqual(multi)
    expect(standFromGeoJson({ type: 'Feature', properties: { id: 1 }, geometry: polygon })).toEqual(polygon)
  })

  it('makes one stand of the polygons of a FeatureCollection, skipping what is not an area', () => {
    const collection = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: {}, geometry: polygon },
        { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [-122, 44] } },
        { type: 'Feature', properties: {}, geometry: { type: 'MultiPolygon', coordinates: [[ring]] } },
      ],
    }
    expect(standFromGeoJson(collection)).toEqual({ type: 'MultiPolygon', coordinates: [[ring], [ring]] })
    expect(standFromGeoJson({ ...collection, features: collection.features.slice(0, 2) })).toEqual(polygon)
  })

  it('says why a file is no stand', () => {
    expect(() => standFromText('{ not json')).toThrow(
      new StandFileError('This file is not GeoJSON: it is not valid JSON.'),
    )
    expect(() => standFromText('[1, 2]')).toThrow(/has no "type"/)
    expect(() => standFromGeoJson({ type: 'Point', coordinates: [-122, 44] })).toThrow(
      'This GeoJSON holds no Polygon or MultiPolygon (found Point): a stand is an area.',
    )
    expect(() => standFromGeoJson({ type: 'FeatureCollection', features: [] })).toThrow(
      'This GeoJSON holds no Polygon or MultiPolygon: a stand is an area.',
    )
    const huge = { type: 'Polygon', coordinates: [Array.from({ length: 10_001 }, () => [-122, 44])] }
    expect(() => standFromGeoJson(huge)).toThrow(/10,001 positions; a stand may have at most 10,000/)
  })

  it('closes a ring drawn on the map, in [longitude, latitude]', () => {
    const drawn = polygonOfVertices([
      { latitude: 44.1, longitude: -122.3 },
      { latitude: 44.2, longitude: -122.1 },
      { latitude: 44.0, longitude: -122.0 },
    ])
    expect(drawn).toEqual({
      type: 'Polygon',
      coordinates: [
        [
          [-122.3, 44.1],
          [-122.1, 44.2],
          [-122.0, 44.0],
          [-122.3, 44.1],
        ],
      ],
    })
    expect(positionCount(drawn)).toBe(4)
  })
})

describe('the species mix', () => {
  it('passes shares summing to 1, within the API’s tolerance', () => {
    expect(mixProblem([{ speciesCode: 'PSME', share: 1 }], name)).toBeNull()
    expect(
      mixProblem(
        [
          { speciesCode: 'PSME', share: 0.333 },
          { speciesCode: 'TSHE', share: 0.333 },
          { speciesCode: 'THPL', share: 0.334 },
        ],
        name,
      ),
    ).toBeNull()
  })

  it('names what is wrong: the sum, a share out of range, a species twice', () => {
    expect(
      mixProblem(
        [
          { speciesCode: 'PSME', share: 0.6 },
          { speciesCode: 'TSHE', share: 0.3 },
        ],
        name,
      ),
    ).toEqual({
      message: 'The shares of the species mix sum to 0.90; they must sum to 1.',
      rows: [0, 1],
      kind: 'sum',
    })
    expect(mixProblem([{ speciesCode: 'PSME', share: Number.NaN }], name)?.message).toBe(
      'The share of species 1 (Douglas-fir) must be above 0 and at most 1.',
    )
    expect(
      mixProblem(
        [
          { speciesCode: 'PSME', share: 1 },
          { speciesCode: 'TSHE', share: 0 },
        ],
        name,
      )?.rows,
    ).toEqual([1])
    expect(
      mixProblem(
        [
          { speciesCode: 'PSME', share: 0.5 },
          { speciesCode: 'PSME', share: 0.5 },
        ],
        name,
      ),
    ).toMatchObject({
      kind: 'species',
      rows: [0, 1],
      message: expect.stringMatching(/^Douglas-fir is in the mix twice/),
    })
    expect(mixProblem([], name)?.kind).toBe('species')
  })

  it('writes a sum with the digits that show how far it is from 1', () => {
    expect(formatShare(1)).toBe('1.00')
    expect(formatShare(0.9)).toBe('0.90')
    expect(formatShare(0.999)).toBe('0.999')
  })
})

describe('the input an API error is about', () => {
  it('reads GraphQL and REST field paths', () => {
    expect(planFieldOf('input.speciesMix')).toBe('mix')
    expect(planFieldOf('species_mix[1].species_code')).toBe('mix')
    expect(planFieldOf('input.stand.coordinates[0]')).toBe('stand')
    expect(planFieldOf('input.treesPerHectare')).toBe('density')
    expect(planFieldOf('input.confidence')).toBe('confidence')
    expect(planFieldOf('input.siteClass')).toBe('siteClass')
    expect(planFieldOf('input.somethingElse')).toBeNull()
    expect(planFieldOf(undefined)).toBeNull()
  })
})
