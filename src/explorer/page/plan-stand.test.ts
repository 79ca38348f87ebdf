import { describe, expect, it } from 'vitest'
import {
  polygonOfVertices,
  positionCount,
  StandFileError,
  standFromGeoJson,
  standFromText,
} from './plan-stand.ts'

const ring = [
  [-122.2, 44.2],
  [-122.1, 44.2],
  [-122.1, 44.3],
  [-122.2, 44.2],
]
const polygon = { type: 'Polygon', coordinates: [ring] }

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
