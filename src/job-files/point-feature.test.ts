import { describe, expect, it } from 'vitest'
import { FOREST_POINTS } from '../../test/support/fakes.ts'
import { failed, feature, POINT, point } from '../../test/support/feature-fixtures.ts'
import { featureRow, GEOJSON_COLUMNS } from './job-features.ts'

const { coastRange } = FOREST_POINTS

describe('featureRow: a Point that fails alone at upload', () => {
  it('refuses a Point that is not a position [longitude, latitude] (1 or 4 numbers, text, none)', () => {
    const message = 'feature 0: geometry.coordinates must be a position [longitude, latitude]'
    for (const coordinates of [
      [-123.6],
      [-123.6, 44.6, 100, 1],
      [],
      ['-123.6', 44.6],
      [-123.6, null],
      { longitude: -123.6, latitude: 44.6 },
      undefined,
      [[-123.6, 44.6]],
    ]) {
      const row = featureRow(1, feature({ type: 'Point', coordinates }), {})
      expect(failed(row), JSON.stringify(coordinates)).toBe(message)
      expect(row.c[2]).toBe('Point')
      // Not a usable geometry: none to give back.
      expect(row.g).toBeUndefined()
    }
  })

  it('takes a Point with an altitude, which is ignored', () => {
    const row = featureRow(
      1,
      feature({ type: 'Point', coordinates: [-123.6, 44.6, 120] }, point().properties),
      {},
    )
    expect(row.e).toBeUndefined()
    expect(row.q).toMatchObject({ latitude: 44.6, longitude: -123.6 })
    expect(row.g).toEqual({ type: 'Point', coordinates: [-123.6, 44.6, 120] })
  })

  it('refuses a latitude or longitude out of range, echoing the position it was given', () => {
    const properties = { species_code: 'PSME', planting_method: 'manual' }
    const cases: [number[], RegExp][] = [
      [[-123.6, 90.0001], /latitude outside -90 to 90/],
      [[-123.6, -91], /latitude outside -90 to 90/],
      [[180.5, 44.6], /longitude outside -180 to 180/],
      [[-181, 44.6], /longitude outside -180 to 180/],
    ]
    for (const [coordinates, reason] of cases) {
      const row = featureRow(5, feature({ type: 'Point', coordinates }, properties), {})
      const message = failed(row)
      expect(message).toMatch(/^feature 4: geometry\.coordinates/)
      expect(message).toMatch(reason)
      expect(row.c.slice(2, 5)).toEqual(['Point', coordinates[1], coordinates[0]])
    }
    // The edges themselves are positions.
    for (const coordinates of [
      [-180, -90],
      [180, 90],
    ])
      expect(featureRow(1, feature({ type: 'Point', coordinates }, properties), {}).e).toBeUndefined()
  })

  it('refuses properties that are not an object; takes none (missing or null) when the defaults suffice', () => {
    for (const properties of [[1], 'species_code=PSME', 5, true]) {
      const row = featureRow(1, point(properties), {})
      expect(failed(row)).toMatch(/^feature 0: feature\.properties /)
    }
    const defaults = { species_code: 'PSME', planting_method: 'manual' }
    const { properties: _, ...bare } = point()
    for (const value of [bare, point(null)]) {
      const row = featureRow(1, value, defaults)
      expect(row.e).toBeUndefined()
      expect(row.q).toMatchObject({ speciesCode: 'PSME', plantingMethod: 'manual' })
      // No properties of its own to echo.
      expect(row.o).toBeUndefined()
    }
    expect(failed(featureRow(1, point(null), {}))).toBe('feature 0: properties.species_code is required')
  })

  it('refuses a point whose properties break a rule, naming the path; its geometry is kept', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ planting_method: 'manual' }, 'properties.species_code is required'],
      [{ species_code: 'PSME' }, 'properties.planting_method is required'],
      [{ species_code: 7, planting_method: 'manual' }, 'properties.species_code must be a string'],
      [{ species_code: '', planting_method: 'manual' }, 'properties.species_code is required'],
      [
        { species_code: 'PSME', planting_method: 'manual', horizons: [2] },
        'properties.horizons may only contain 1, 3 and 5',
      ],
      [
        { species_code: 'PSME', planting_method: 'manual', horizons: '1|5' },
        'properties.horizons must be an array of 1, 3 and 5',
      ],
      [
        { species_code: 'PSME', planting_method: 'manual', period: 2050 },
        'properties.period must be a string',
      ],
      [
        { species_code: 'PSME', planting_method: 'manual', climate: 'ssp245' },
        'properties.climate must be an object {period, scenario}',
      ],
      [{ species_code: 'PSME', planting_method: 'manual', id: { plot: 1 } }, 'properties.id Invalid input'],
    ]
    for (const [properties, reason] of cases) {
      const row = featureRow(13, point(properties), {})
      expect(failed(row), JSON.stringify(properties)).toBe(`feature 12: ${reason}`)
      expect(row.g).toEqual(POINT)
      expect(row.c.slice(1, 5)).toEqual([12, 'Point', coastRange.latitude, coastRange.longitude])
    }
  })

  it('judges species, method and climate names later, when scored (as the endpoints do)', () => {
    const row = featureRow(
      1,
      point({ species_code: 'NOPE', planting_method: 'by_catapult', period: '2050s', scenario: 'ssp999' }),
      {},
    )
    expect(row.e).toBeUndefined()
    expect(row.q).toMatchObject({
      speciesCode: 'NOPE',
      plantingMethod: 'by_catapult',
      climate: { period: '2050s', scenario: 'ssp999' },
    })
  })
})

describe('featureRow: a Point', () => {
  it('makes a Point a prediction, echoing id, index, type, position, species, method and climate', () => {
    const row = featureRow(
      4,
      point(
        {
          species_code: 'TSHE',
          planting_method: 'drone_seeded',
          horizons: [5, 1],
          climate: { period: '2041-2070', scenario: 'ssp245' },
          note: 'ridge',
        },
        { id: 'p-4' },
      ),
      {},
    )
    expect(row).toEqual({
      r: 4,
      c: [
        'p-4',
        3,
        'Point',
        coastRange.latitude,
        coastRange.longitude,
        'TSHE',
        'drone_seeded',
        '2041-2070',
        'ssp245',
      ],
      q: {
        ...coastRange,
        speciesCode: 'TSHE',
        plantingMethod: 'drone_seeded',
        horizons: [5, 1],
        climate: { period: '2041-2070', scenario: 'ssp245' },
      },
      g: POINT,
      o: {
        species_code: 'TSHE',
        planting_method: 'drone_seeded',
        horizons: [5, 1],
        climate: { period: '2041-2070', scenario: 'ssp245' },
        note: 'ridge',
      },
    })
    expect(row.c).toHaveLength(GEOJSON_COLUMNS.length)
  })
})
