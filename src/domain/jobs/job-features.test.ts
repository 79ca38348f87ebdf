import fc from 'fast-check'
import type { MultiPolygon, Polygon, Position } from 'geojson'
import { describe, expect, it } from 'vitest'
import { FakeSiteLookup, FOREST_POINTS } from '../../../test/support/fakes.ts'
import { loadSurvivalModel } from '../../model/index.ts'
import { ApiError } from '../errors.ts'
import { SPECIES } from '../species.ts'
import { StockingPlanService } from '../stocking/stocking-service.ts'
import { FEATURE_DEFAULT_FIELDS, featureDefaults, featureRow, GEOJSON_COLUMNS } from './job-features.ts'
import type { InputRow } from './job-rows.ts'

const { coastRange } = FOREST_POINTS

function square(west: number, south: number, side = 0.01): Position[] {
  return [
    [west, south],
    [west + side, south],
    [west + side, south + side],
    [west, south + side],
    [west, south],
  ]
}

const POLYGON: Polygon = { type: 'Polygon', coordinates: [square(coastRange.longitude, coastRange.latitude)] }
const MULTI: MultiPolygon = {
  type: 'MultiPolygon',
  coordinates: [
    [square(coastRange.longitude, coastRange.latitude)],
    [square(coastRange.longitude + 0.1, coastRange.latitude, 0.02)],
  ],
}
const POINT = { type: 'Point', coordinates: [coastRange.longitude, coastRange.latitude] }

const feature = (geometry: unknown, properties: unknown = {}, extra: Record<string, unknown> = {}) => ({
  type: 'Feature',
  geometry,
  properties,
  ...extra,
})
const point = (properties: unknown = { species_code: 'PSME', planting_method: 'manual' }, extra = {}) =>
  feature(POINT, properties, extra)
const stand = (
  properties: unknown = { species_code: 'PSME', planting_method: 'manual', trees_per_acre: 400 },
  geometry: unknown = POLYGON,
  extra = {},
) => feature(geometry, properties, extra)

/** The failure of a row (fails the test when the row did not fail at upload). */
function failed(row: InputRow): string {
  expect(row.e, JSON.stringify(row)).toBeDefined()
  expect(row.q).toBeUndefined()
  expect(row.p).toBeUndefined()
  expect(row.e?.code).toBe('invalid_request')
  return row.e?.message ?? ''
}

/** The ApiError featureDefaults throws for a query (fails the test when it throws anything else). */
function defaultsError(query: Record<string, string>): ApiError {
  let thrown: unknown
  try {
    featureDefaults(query)
  } catch (error) {
    thrown = error
  }
  expect(thrown, `query ${JSON.stringify(query)}`).toBeInstanceOf(ApiError)
  return thrown as ApiError
}

const BLANK = (index: number) => [null, index, null, null, null, null, null, null, null]

describe('featureRow: features that fail alone at upload', () => {
  it('refuses anything that is not an object, with blank cells but its feature_index', () => {
    for (const value of [null, undefined, 42, 'Feature', true, [], [point()]]) {
      const row = featureRow(3, value, {})
      expect(failed(row)).toBe('feature 2 must be a GeoJSON Feature object')
      expect(row.r).toBe(3)
      expect(row.c).toEqual(BLANK(2))
      expect(row.g).toBeUndefined()
    }
  })

  it('refuses an object whose type is not "Feature"', () => {
    for (const type of ['feature', 'FeatureCollection', 'Point', undefined, 7]) {
      const row = featureRow(1, { ...point(), type }, {})
      expect(failed(row)).toBe('feature 0: feature.type must be "Feature"')
      expect(row.c).toEqual(BLANK(0))
    }
  })

  it('refuses a feature without a geometry (missing or null), or whose geometry names no type', () => {
    const { geometry: _, ...withoutGeometry } = point()
    expect(failed(featureRow(1, withoutGeometry, {}))).toBe('feature 0: feature.geometry is required')
    expect(failed(featureRow(1, { ...point(), geometry: null }, {}))).toBe(
      'feature 0: feature.geometry is required',
    )
    expect(failed(featureRow(1, feature({ coordinates: [0, 0] }), {}))).toBe(
      'feature 0: feature.geometry.type is required',
    )
    expect(failed(featureRow(1, feature({ type: 5 }), {}))).toBe(
      'feature 0: feature.geometry.type must name a geometry type',
    )
    expect(failed(featureRow(1, feature('Point'), {}))).toMatch(/^feature 0: feature\.geometry /)
  })

  it('refuses a LineString and every other geometry but Point, Polygon and MultiPolygon, echoing its type and id', () => {
    for (const type of ['LineString', 'MultiLineString', 'MultiPoint', 'GeometryCollection', 'point']) {
      const row = featureRow(
        8,
        feature({ type, coordinates: [[0, 0]] }, { id: 'line', species_code: 'PSME' }),
        {},
      )
      expect(failed(row)).toBe(
        `feature 7: geometry.type ${JSON.stringify(type)} is not a Point, Polygon or MultiPolygon`,
      )
      expect(row.c).toEqual(['line', 7, type, null, null, null, null, null, null])
      expect(row.g).toBeUndefined()
    }
  })

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

  it('refuses a polygon without species (no species_mix, no species_code, no default), keeping its geometry', () => {
    const row = featureRow(2, stand({ planting_method: 'manual', trees_per_acre: 400 }), {})
    expect(failed(row)).toBe('feature 1: properties.species_mix (or species_code) is required')
    expect(row.g).toEqual(POLYGON)
    expect(row.c.slice(0, 3)).toEqual([null, 1, 'Polygon'])
    for (const geometry of [POLYGON, MULTI]) {
      const multi = featureRow(1, stand({ planting_method: 'manual' }, geometry), {})
      expect(failed(multi)).toMatch(/species_mix \(or species_code\) is required$/)
      expect(multi.g).toEqual(geometry)
    }
  })

  it('refuses a species_mix of the wrong shape, naming the path', () => {
    const cases: [unknown, RegExp][] = [
      ['PSME', /^properties\.species_mix must be an array of \{species_code, share\}$/],
      [{ species_code: 'PSME', share: 1 }, /^properties\.species_mix must be an array/],
      [['PSME'], /^properties\.species_mix\[0\]/],
      [[{ species_code: 'PSME' }], /^properties\.species_mix\[0\]\.share is required$/],
      [[{ share: 1 }], /^properties\.species_mix\[0\]\.species_code is required$/],
      [[{ species_code: 'PSME', share: 1, note: 'x' }], /^properties\.species_mix\[0\] /],
      [[{ species_code: 'PSME', share: 0 }], /^properties\.species_mix\[0\]\.share must be above 0/],
      [[{ species_code: 'PSME', share: 1.5 }], /^properties\.species_mix\[0\]\.share must be above 0/],
      [[{ species_code: 'PSME', share: '1' }], /^properties\.species_mix\[0\]\.share must be a number$/],
      [[], /^properties\.species_mix must hold at least one species$/],
      [
        Array.from({ length: 21 }, (_, i) => ({ species_code: `S${i}`, share: 1 / 21 })),
        /^properties\.species_mix may hold at most 20 species$/,
      ],
    ]
    for (const [mix, reason] of cases) {
      const row = featureRow(
        1,
        stand({ species_mix: mix, planting_method: 'manual', trees_per_acre: 400 }),
        {},
      )
      const message = failed(row)
      expect(message.startsWith('feature 0: '), message).toBe(true)
      expect(message.slice('feature 0: '.length), JSON.stringify(mix)).toMatch(reason)
      expect(row.g).toEqual(POLYGON)
    }
  })

  it('refuses a stand property out of range at upload (density, confidence, target, names too long)', () => {
    const base = { species_code: 'PSME', planting_method: 'manual' }
    const cases: [Record<string, unknown>, string][] = [
      [{ trees_per_acre: 0 }, 'properties.trees_per_acre must be above 0 and at most 5000'],
      [{ trees_per_acre: '400' }, 'properties.trees_per_acre must be a number'],
      [{ trees_per_hectare: 20_000 }, 'properties.trees_per_hectare must be above 0 and at most 12355'],
      [{ confidence: 0.2 }, 'properties.confidence must be from 0.5 to 0.99'],
      [{ target_trees_per_acre: -1 }, 'properties.target_trees_per_acre must be above 0 and at most 5000'],
      [{ rule_set: 'x'.repeat(41) }, 'properties.rule_set is too long'],
      [{ site_class: 3 }, 'properties.site_class must be a string'],
    ]
    for (const [extra, reason] of cases) {
      const row = featureRow(1, stand({ ...base, ...extra }), {})
      expect(failed(row), JSON.stringify(extra)).toBe(`feature 0: ${reason}`)
    }
  })

  it('refuses a polygon geometry whose JSON shape is wrong, without a geometry to give back', () => {
    const properties = { species_code: 'PSME', planting_method: 'manual', trees_per_acre: 400 }
    const cases: [unknown, RegExp][] = [
      [{ type: 'Polygon', coordinates: 'x' }, /^feature 0: geometry /],
      [{ type: 'Polygon', coordinates: [] }, /^feature 0: geometry\.coordinates must hold an exterior ring$/],
      [{ type: 'Polygon' }, /^feature 0: geometry/],
      [
        {
          type: 'Polygon',
          coordinates: [
            [
              [0, 95],
              [1, 1],
              [1, 0],
              [0, 95],
            ],
          ],
        },
        /^feature 0: geometry\.coordinates\[0\]\[0\] has a latitude outside -90 to 90$/,
      ],
      [
        { type: 'MultiPolygon', coordinates: [] },
        /^feature 0: geometry\.coordinates must hold at least one polygon$/,
      ],
    ]
    for (const [geometry, reason] of cases) {
      const row = featureRow(1, stand(properties, geometry), {})
      expect(failed(row), JSON.stringify(geometry)).toMatch(reason)
      expect(row.g).toBeUndefined()
    }
  })

  it("leaves a ring's own checks (closed, four positions, no crossing, size) to the plan", () => {
    const properties = { species_code: 'PSME', planting_method: 'manual', trees_per_acre: 400 }
    const open: Polygon = { type: 'Polygon', coordinates: [square(-123.6, 44.6).slice(0, 4)] }
    const row = featureRow(1, stand(properties, open), {})
    expect(row.e).toBeUndefined()
    expect(row.p?.stand).toEqual(open)
  })

  it('passes trees_per_acre with trees_per_hectare to the plan, which refuses it when scored (not at upload)', async () => {
    const row = featureRow(
      1,
      stand({ species_code: 'PSME', planting_method: 'manual', trees_per_acre: 400, trees_per_hectare: 988 }),
      {},
    )
    expect(row.e).toBeUndefined()
    expect(row.p).toMatchObject({ treesPerAcre: 400, treesPerHectare: 988 })
    const plans = new StockingPlanService(loadSurvivalModel(SPECIES), new FakeSiteLookup(), {
      within: async () => [],
    })
    const refused = await plans.plan(row.p as NonNullable<InputRow['p']>).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toBeInstanceOf(ApiError)
    expect((refused as ApiError).code).toBe('invalid_request')
    expect((refused as ApiError).details).toEqual({
      field: 'trees_per_hectare',
      reason: 'is given with trees_per_acre; send one or the other',
    })
  })
})

describe('featureRow: what a feature becomes', () => {
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
        latitude: coastRange.latitude,
        longitude: coastRange.longitude,
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

  it('makes a Polygon a plan, by the centre of its outer ring, a mix as code:share|code:share', () => {
    const mix = [
      { species_code: 'PSME', share: 0.8 },
      { species_code: 'ALRU', share: 0.2 },
    ]
    const row = featureRow(
      1,
      stand({
        species_mix: mix,
        planting_method: 'manual',
        trees_per_hectare: 988,
        confidence: 0.8,
        rule_set: 'or_fpa',
        site_class: 'I-III',
        target_trees_per_acre: 250,
        period: '2071-2100',
        scenario: 'ssp585',
      }),
      {},
    )
    expect(row.e).toBeUndefined()
    expect(row.c).toEqual([
      null,
      0,
      'Polygon',
      Math.round((coastRange.latitude + 0.005) * 1e6) / 1e6,
      Math.round((coastRange.longitude + 0.005) * 1e6) / 1e6,
      'PSME:0.8|ALRU:0.2',
      'manual',
      '2071-2100',
      'ssp585',
    ])
    expect(row.p).toEqual({
      stand: POLYGON,
      plantingMethod: 'manual',
      speciesMix: [
        { speciesCode: 'PSME', share: 0.8 },
        { speciesCode: 'ALRU', share: 0.2 },
      ],
      treesPerAcre: undefined,
      treesPerHectare: 988,
      confidence: 0.8,
      ruleSet: 'or_fpa',
      siteClass: 'I-III',
      targetTreesPerAcre: 250,
      climate: { period: '2071-2100', scenario: 'ssp585' },
    })
    expect(row.g).toEqual(POLYGON)
    expect(row.q).toBeUndefined()
  })

  it('makes a MultiPolygon a plan, by the area-weighted centre of its outer rings', () => {
    const row = featureRow(1, stand(undefined, MULTI), {})
    expect(row.e).toBeUndefined()
    expect(row.c[2]).toBe('MultiPolygon')
    // A 0.01° square and a 0.02° square (four times the area) 0.1° east.
    const lon = (coastRange.longitude + 0.005 + 4 * (coastRange.longitude + 0.1 + 0.01)) / 5
    const lat = (coastRange.latitude + 0.005 + 4 * (coastRange.latitude + 0.01)) / 5
    expect(row.c[3]).toBeCloseTo(lat, 5)
    expect(row.c[4]).toBeCloseTo(lon, 5)
    expect(row.p?.stand).toEqual(MULTI)
    expect(row.g).toEqual(MULTI)
  })

  it('takes the id from feature.id, else properties.id, else none; refuses an id that is no string or number', () => {
    const properties = { species_code: 'PSME', planting_method: 'manual' }
    expect(featureRow(1, point({ ...properties, id: 'prop' }, { id: 'own' }), {}).c[0]).toBe('own')
    expect(featureRow(1, point({ ...properties, id: 'prop' }, { id: 7 }), {}).c[0]).toBe(7)
    expect(featureRow(1, point({ ...properties, id: 'prop' }), {}).c[0]).toBe('prop')
    expect(featureRow(1, point({ ...properties, id: 12 }), {}).c[0]).toBe(12)
    expect(featureRow(1, point(properties), {}).c[0]).toBeNull()
    expect(featureRow(1, stand(undefined, POLYGON, { id: 'unit-9' }), {}).c[0]).toBe('unit-9')
    expect(failed(featureRow(1, point(properties, { id: { a: 1 } }), {}))).toMatch(/^feature 0: feature\.id /)
    expect(failed(featureRow(1, point(properties, { id: 'x'.repeat(201) }), {}))).toBe(
      'feature 0: feature.id must be at most 200 characters',
    )
    expect(featureRow(1, point(properties, { id: 'x'.repeat(200) }), {}).e).toBeUndefined()
  })

  // BUG: src/domain/jobs/job-features.ts:128-130 (failure) and 159-162 (featureRow): a feature refused
  // at upload is given back without its own properties (`failure` never sets `o`), and one refused by
  // the Feature shape check — a null geometry (an unlocated feature, legal in RFC 7946), a geometry
  // type that is not a string, properties of the wrong type — without its id too (`blank` cells). So
  // in the GeoJSON (and CSV/NDJSON) results the planting unit that failed cannot be told by its id or
  // its attributes, only by its position in the upload. docs/jobs.md: "each feature has its input
  // geometry, its id (the feature's, else properties.id), its own properties, feature_index, and the
  // results ... error_code and error_message on a feature that failed". Expected: the id and own
  // properties of any Feature object that has them, refused or not.
  it('keeps the id and own properties of a Feature refused at upload, to give back with its error', () => {
    const own = { unit: 'North 12', species_code: 'PSME', planting_method: 'manual' }
    const cases: [string, unknown][] = [
      ['null geometry', feature(null, own, { id: 'u-1' })],
      ['LineString', feature({ type: 'LineString', coordinates: [] }, own, { id: 'u-1' })],
      ['latitude out of range', feature({ type: 'Point', coordinates: [0, 95] }, own, { id: 'u-1' })],
      ['bad horizons', point({ ...own, horizons: [7] }, { id: 'u-1' })],
      [
        'stand without species',
        stand({ unit: 'North 12', planting_method: 'manual' }, POLYGON, { id: 'u-1' }),
      ],
    ]
    for (const [name, value] of cases) {
      const row = featureRow(1, value, {})
      expect(row.e, name).toBeDefined()
      expect(row.c[0], name).toBe('u-1')
      expect(row.o, name).toEqual((value as { properties: unknown }).properties)
    }
  })

  it('names the feature_index (row − 1) in every message, and puts it in the second cell', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom<unknown>(
          null,
          { type: 'Feature' },
          feature({ type: 'LineString', coordinates: [] }),
          point({ planting_method: 'manual' }),
          stand({ planting_method: 'manual' }),
          point({ species_code: 'PSME', planting_method: 'manual' }, { id: [] }),
        ),
        (row, value) => {
          const made = featureRow(row, value, {})
          expect(made.r).toBe(row)
          expect(made.c[1]).toBe(row - 1)
          expect(made.e?.message).toMatch(new RegExp(`^feature ${row - 1}[: ]`))
        },
      ),
    )
  })
})

describe('featureRow: defaults from the query string', () => {
  it("fills a point's missing properties, and the point's own values win", () => {
    const defaults = featureDefaults({
      species_code: 'PSME',
      planting_method: 'manual',
      horizons: '1|5',
      period: '2041-2070',
      scenario: 'ssp245',
    })
    const bare = featureRow(1, point({}), defaults)
    expect(bare.e).toBeUndefined()
    expect(bare.q).toEqual({
      latitude: coastRange.latitude,
      longitude: coastRange.longitude,
      speciesCode: 'PSME',
      plantingMethod: 'manual',
      horizons: [1, 5],
      climate: { period: '2041-2070', scenario: 'ssp245' },
    })
    expect(bare.c.slice(5)).toEqual(['PSME', 'manual', '2041-2070', 'ssp245'])
    // Only its own properties are echoed back: none here.
    expect(bare.o).toBeUndefined()

    const own = featureRow(
      1,
      point({
        species_code: 'TSHE',
        planting_method: 'drone_seeded',
        horizons: [3],
        climate: { period: '2071-2100', scenario: 'ssp585' },
      }),
      defaults,
    )
    expect(own.q).toMatchObject({
      speciesCode: 'TSHE',
      plantingMethod: 'drone_seeded',
      horizons: [3],
      climate: { period: '2071-2100', scenario: 'ssp585' },
    })
    expect(own.o).toEqual({
      species_code: 'TSHE',
      planting_method: 'drone_seeded',
      horizons: [3],
      climate: { period: '2071-2100', scenario: 'ssp585' },
    })
    // Its own flat period and scenario win too.
    expect(featureRow(1, point({ period: '2071-2100', scenario: 'ssp126' }), defaults).q?.climate).toEqual({
      period: '2071-2100',
      scenario: 'ssp126',
    })
  })

  // BUG (a judgment call on "a feature's own value wins"): src/domain/jobs/job-features.ts:144-145
  // (climateOf): a feature's own `climate` object is merged field by field with the query's default
  // `period`/`scenario` through `??`, so `climate: {period: "1991_2020", scenario: null}` (today's
  // climate, as POST /v1/predict reads it) under `?scenario=ssp245` becomes {1991_2020, ssp245}: a
  // baseline with a scenario, which the climate catalogue refuses when scored (invalid_climate). The
  // feature's own climate should be taken whole, as its own species_mix replaces a default species_code.
  it("takes a feature's own climate object whole, a default period or scenario not mixed into it", () => {
    const defaults = featureDefaults({ species_code: 'PSME', planting_method: 'manual', scenario: 'ssp245' })
    const today = featureRow(1, point({ climate: { period: '1991_2020', scenario: null } }), defaults)
    expect(today.q?.climate).toEqual({ period: '1991_2020', scenario: null })
  })

  it('gives a stand the default species_code unless it names its own species_mix or species_code', () => {
    const defaults = featureDefaults({
      species_code: 'PSME',
      planting_method: 'manual',
      trees_per_acre: '400',
    })
    const bare = featureRow(1, stand({}), defaults)
    expect(bare.p).toMatchObject({
      speciesMix: [{ speciesCode: 'PSME', share: 1 }],
      plantingMethod: 'manual',
      treesPerAcre: 400,
    })
    expect(bare.c[5]).toBe('PSME')

    const ownCode = featureRow(1, stand({ species_code: 'ALRU' }), defaults)
    expect(ownCode.p?.speciesMix).toEqual([{ speciesCode: 'ALRU', share: 1 }])
    expect(ownCode.c[5]).toBe('ALRU')

    const mix = [
      { species_code: 'THPL', share: 0.5 },
      { species_code: 'TSHE', share: 0.5 },
    ]
    const ownMix = featureRow(1, stand({ species_mix: mix }), defaults)
    expect(ownMix.p?.speciesMix).toEqual([
      { speciesCode: 'THPL', share: 0.5 },
      { speciesCode: 'TSHE', share: 0.5 },
    ])
    expect(ownMix.c[5]).toBe('THPL:0.5|TSHE:0.5')

    // Both of its own: the mix.
    const both = featureRow(1, stand({ species_mix: mix, species_code: 'ALRU' }), defaults)
    expect(both.p?.speciesMix).toEqual([
      { speciesCode: 'THPL', share: 0.5 },
      { speciesCode: 'TSHE', share: 0.5 },
    ])

    const ownDensity = featureRow(
      1,
      stand({ trees_per_acre: 300, planting_method: 'drone_seeded' }),
      defaults,
    )
    expect(ownDensity.p).toMatchObject({ treesPerAcre: 300, plantingMethod: 'drone_seeded' })
  })

  it('gives stands the default confidence, rule set, site class, target and climate; their own win', () => {
    const defaults = featureDefaults({
      species_code: 'PSME',
      planting_method: 'manual',
      trees_per_acre: '400',
      confidence: '0.8',
      rule_set: 'or_fpa',
      site_class: 'IV-V',
      target_trees_per_acre: '150',
      period: '2041-2070',
      scenario: 'ssp370',
    })
    expect(featureRow(1, stand({}), defaults).p).toMatchObject({
      confidence: 0.8,
      ruleSet: 'or_fpa',
      siteClass: 'IV-V',
      targetTreesPerAcre: 150,
      climate: { period: '2041-2070', scenario: 'ssp370' },
    })
    expect(
      featureRow(
        1,
        stand({
          confidence: 0.95,
          rule_set: 'wa_fpa_west',
          site_class: 'VI',
          target_trees_per_acre: 190,
          climate: { period: '2071-2100', scenario: 'ssp585' },
        }),
        defaults,
      ).p,
    ).toMatchObject({
      confidence: 0.95,
      ruleSet: 'wa_fpa_west',
      siteClass: 'VI',
      targetTreesPerAcre: 190,
      climate: { period: '2071-2100', scenario: 'ssp585' },
    })
  })

  // BUG: src/domain/jobs/job-features.ts:269-270 (featureRow, stand branch): the query's default
  // trees_per_acre is merged into the properties (line 163, `{ ...defaults, ...properties }`) even when
  // the feature gives its own trees_per_hectare, so the plan gets both and StockingPlanService refuses
  // it when scored ("trees_per_hectare is given with trees_per_acre; send one or the other"). The
  // documented example (`?planting_method=manual&trees_per_acre=400`) thus fails every stand that
  // states its density per hectare. docs/jobs.md: "a feature's own value wins" — as its own
  // species_mix replaces a default species_code, its own trees_per_hectare should replace a default
  // trees_per_acre (and the other way round).
  it("lets a stand's own trees_per_hectare replace a default trees_per_acre (and the other way round)", () => {
    const perAcre = featureDefaults({
      species_code: 'PSME',
      planting_method: 'manual',
      trees_per_acre: '400',
    })
    const ownPerHectare = featureRow(1, stand({ trees_per_hectare: 988 }), perAcre)
    expect(ownPerHectare.e).toBeUndefined()
    expect(ownPerHectare.p?.treesPerHectare).toBe(988)
    expect(ownPerHectare.p?.treesPerAcre ?? null).toBeNull()

    const perHectare = featureDefaults({
      species_code: 'PSME',
      planting_method: 'manual',
      trees_per_hectare: '988',
    })
    const ownPerAcre = featureRow(1, stand({ trees_per_acre: 300 }), perHectare)
    expect(ownPerAcre.p?.treesPerAcre).toBe(300)
    expect(ownPerAcre.p?.treesPerHectare ?? null).toBeNull()
  })

  // BUG (a judgment call on "properties a feature lacks"): src/domain/jobs/job-features.ts:163 merges
  // `{ ...defaults, ...properties }`, so an attribute that is null overrides the query's default, and
  // PointProperties/StandProperties (lines 95-121) refuse null for id, species_code, planting_method,
  // horizons and species_mix ("properties.species_code must be a string", "properties.id Invalid
  // input"). A GIS layer has every attribute on every feature, null where empty, and that is how GDAL
  // writes it (ogr2ogr from a GeoPackage with a NULL species_code gives `"species_code": null`). So with
  // `?species_code=PSME&planting_method=manual&trees_per_acre=400`, a layer whose empty cells are null
  // fails those features (or, for trees_per_acre, every such stand when planned: "is required"), and a
  // stand with a species_mix fails for a null species_code column beside it. Expected: a null
  // property is no value — the default fills it, and an id of null is no id.
  it('takes a null property (an empty GIS attribute, as GDAL writes it) as missing: the default fills it', () => {
    const defaults = featureDefaults({
      species_code: 'PSME',
      planting_method: 'manual',
      trees_per_acre: '400',
      horizons: '1|5',
    })
    const pointRow = featureRow(
      1,
      point({ id: null, species_code: null, planting_method: null, horizons: null }),
      defaults,
    )
    expect(pointRow.e?.message).toBeUndefined()
    expect(pointRow.q).toMatchObject({ speciesCode: 'PSME', plantingMethod: 'manual', horizons: [1, 5] })
    expect(pointRow.c[0]).toBeNull()

    const mix = [{ species_code: 'ALRU', share: 1 }]
    const standRow = featureRow(
      1,
      stand({ species_code: null, species_mix: mix, trees_per_acre: null }),
      defaults,
    )
    expect(standRow.e?.message).toBeUndefined()
    expect(standRow.p).toMatchObject({ speciesMix: [{ speciesCode: 'ALRU', share: 1 }], treesPerAcre: 400 })

    const noMix = featureRow(1, stand({ species_mix: null }), defaults)
    expect(noMix.e?.message).toBeUndefined()
    expect(noMix.p?.speciesMix).toEqual([{ speciesCode: 'PSME', share: 1 }])
  })

  it('fails a feature alone when a default is of the wrong kind (text where a number belongs)', () => {
    const defaults = featureDefaults({
      species_code: 'PSME',
      planting_method: 'manual',
      trees_per_acre: 'many',
    })
    expect(failed(featureRow(1, stand({}), defaults))).toBe(
      'feature 0: properties.trees_per_acre must be a number',
    )
    // A point does not read a stand's fields.
    expect(featureRow(1, point({}), defaults).e).toBeUndefined()
    const badHorizons = featureDefaults({ species_code: 'PSME', planting_method: 'manual', horizons: '1|2' })
    expect(failed(featureRow(1, point({}), badHorizons))).toBe(
      'feature 0: properties.horizons may only contain 1, 3 and 5',
    )
  })
})

describe('featureDefaults', () => {
  it('reads numbers as numbers, names as text, horizons as a list split on | , ; or spaces', () => {
    expect(featureDefaults({})).toEqual({})
    expect(
      featureDefaults({
        species_code: '123',
        planting_method: 'manual',
        horizons: '1|5',
        period: '2041-2070',
        scenario: 'ssp245',
        trees_per_acre: '400',
        trees_per_hectare: '988.4',
        confidence: '0.9',
        rule_set: 'or_fpa',
        site_class: 'I-III',
        target_trees_per_acre: '1e2',
      }),
    ).toEqual({
      species_code: '123',
      planting_method: 'manual',
      horizons: [1, 5],
      period: '2041-2070',
      scenario: 'ssp245',
      trees_per_acre: 400,
      trees_per_hectare: 988.4,
      confidence: 0.9,
      rule_set: 'or_fpa',
      site_class: 'I-III',
      target_trees_per_acre: 100,
    })
    for (const text of ['1,3,5', '1;3;5', '1 3 5', '1|3, 5']) {
      expect(featureDefaults({ horizons: text }).horizons, text).toEqual([1, 3, 5])
    }
    expect(featureDefaults({ horizons: '3' }).horizons).toEqual([3])
    // Not a number: kept as sent, for the feature's check to refuse.
    expect(featureDefaults({ trees_per_acre: 'abc', confidence: '' })).toEqual({
      trees_per_acre: 'abc',
      confidence: '',
    })
  })

  it('takes every documented name', () => {
    expect(FEATURE_DEFAULT_FIELDS).toEqual([
      'species_code',
      'planting_method',
      'horizons',
      'period',
      'scenario',
      'trees_per_acre',
      'trees_per_hectare',
      'confidence',
      'rule_set',
      'site_class',
      'target_trees_per_acre',
    ])
    for (const name of FEATURE_DEFAULT_FIELDS)
      expect(Object.keys(featureDefaults({ [name]: '1' }))).toEqual([name])
  })

  it('refuses an unknown name with 400 invalid_request naming query.<name> and the names it takes', () => {
    const error = defaultsError({ species_code: 'PSME', specie_code: 'PSME' })
    expect(error.code).toBe('invalid_request')
    expect(error.status).toBe(400)
    expect(error.details).toEqual({
      field: 'query.specie_code',
      reason: `is not a default a GeoJSON job takes (${FEATURE_DEFAULT_FIELDS.join(', ')})`,
    })
    for (const name of ['latitude', 'id', 'species_mix', 'Species_Code', 'climate', 'format', ''])
      expect(defaultsError({ [name]: 'x' }).details).toMatchObject({ field: `query.${name}` })
  })

  it('refuses any name it does not list', () => {
    fc.assert(
      fc.property(
        // Names of Object.prototype members: the test after this one (a bug of their own).
        fc.string().filter((name) => !FEATURE_DEFAULT_FIELDS.includes(name) && !(name in Object.prototype)),
        fc.string(),
        (name, value) => {
          expect(defaultsError({ [name]: value }).details).toMatchObject({ field: `query.${name}` })
        },
      ),
    )
  })

  // BUG: src/domain/jobs/job-features.ts:68 (featureDefaults): `DEFAULTS[name]` is looked up on a
  // plain object literal, so a query parameter named after an Object.prototype member finds that
  // member: `?constructor=x`, `?toString=x` and `?isPrototypeOf=x` are taken as defaults (the upload is
  // accepted where docs/jobs.md promises 400 invalid_request for any other parameter), while
  // `?__proto__=x`, `?valueOf=x` and `?hasOwnProperty=x` throw a TypeError ("read is not a function",
  // "Cannot convert undefined or null to object"): an unhandled error, a 500 for POST /v1/jobs.
  // Expected: 400 invalid_request `query.<name>` for each (look the name up with Object.hasOwn, or
  // keep DEFAULTS in a Map / a null-prototype object).
  it('refuses names of Object.prototype members like any other unknown name', () => {
    for (const name of [
      'constructor',
      'toString',
      'isPrototypeOf',
      '__proto__',
      'valueOf',
      'hasOwnProperty',
    ]) {
      expect(defaultsError({ [name]: 'x' }).details, name).toMatchObject({ field: `query.${name}` })
    }
  })
})

/** Any JSON value, and objects shaped like features with odd parts (what a GIS export might hold). */
const jsonValue = fc.jsonValue({ maxDepth: 4 })
const coordinate = fc.oneof(
  fc.double({ min: -200, max: 200, noNaN: true }),
  fc.integer({ min: -181, max: 181 }),
  jsonValue,
)
const position = fc.oneof(fc.array(coordinate, { maxLength: 4 }), jsonValue)
const ring = fc.oneof(fc.array(position, { maxLength: 6 }), jsonValue)
const geometry = fc.oneof(
  fc.record({ type: fc.constant('Point'), coordinates: position }),
  fc.record({
    type: fc.constant('Polygon'),
    coordinates: fc.oneof(fc.array(ring, { maxLength: 3 }), jsonValue),
  }),
  fc.record({
    type: fc.constant('MultiPolygon'),
    coordinates: fc.oneof(fc.array(fc.array(ring, { maxLength: 2 }), { maxLength: 3 }), jsonValue),
  }),
  fc.record({ type: fc.constantFrom('LineString', 'Feature', 'GeometryCollection'), coordinates: jsonValue }),
  jsonValue,
)
const knownProperty = fc.constantFrom(
  'id',
  'species_code',
  'species_mix',
  'planting_method',
  'horizons',
  'period',
  'scenario',
  'climate',
  'trees_per_acre',
  'trees_per_hectare',
  'confidence',
  'rule_set',
  'site_class',
  'target_trees_per_acre',
  '__proto__',
  'constructor',
)
const propertyValue = fc.oneof(
  jsonValue,
  fc.constantFrom('PSME', 'manual', 400, 0.9, [1, 5], { period: '2041-2070', scenario: 'ssp245' }),
  fc.array(
    fc.record({ species_code: fc.constantFrom('PSME', 'ALRU', 1), share: fc.oneof(fc.double(), jsonValue) }),
  ),
)
const properties = fc.oneof(fc.dictionary(fc.oneof(knownProperty, fc.string()), propertyValue), jsonValue)
const featureLike = fc.oneof(
  jsonValue,
  fc.record(
    {
      type: fc.oneof(fc.constant('Feature'), jsonValue),
      id: fc.oneof(fc.string(), fc.integer(), fc.double(), jsonValue),
      geometry,
      properties,
    },
    { requiredKeys: ['type'] },
  ),
)
const someDefaults = fc.dictionary(
  fc.constantFrom(...FEATURE_DEFAULT_FIELDS),
  fc.oneof(fc.string(), fc.constantFrom('PSME', 'manual', '400', '1|5', '0.9', '2041-2070', 'ssp245')),
)

describe('featureRow: any input', () => {
  it('never throws, and always gives one row: r, nine cells with the feature_index, and exactly one of q, p, e', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), featureLike, someDefaults, (row, value, query) => {
        const made = featureRow(row, value, featureDefaults(query))
        expect(made.r).toBe(row)
        expect(made.c).toHaveLength(9)
        expect(made.c[1]).toBe(row - 1)
        expect([made.q, made.p, made.e].filter((part) => part !== undefined)).toHaveLength(1)
        if (made.e) {
          expect(made.e.code).toBe('invalid_request')
          expect(made.e.message).toMatch(new RegExp(`^feature ${row - 1}[: ]`))
        }
        // A row is kept as JSON with its job: it must survive the round trip as it reads.
        const stored = JSON.parse(JSON.stringify(made)) as InputRow
        expect(stored.r).toBe(row)
        expect(stored.c).toHaveLength(9)
        if (made.q) {
          expect(made.c[2]).toBe('Point')
          expect(made.g).toBeDefined()
        }
        if (made.p) {
          expect(['Polygon', 'MultiPolygon']).toContain(made.c[2])
          expect(made.p.speciesMix.length).toBeGreaterThan(0)
          expect(made.g).toBe((value as { geometry: unknown }).geometry)
        }
      }),
      { numRuns: 400 },
    )
  })

  it('never throws on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const made = featureRow(1, value, {})
        expect(made.c).toHaveLength(9)
        expect(made.r).toBe(1)
      }),
      { numRuns: 300 },
    )
  })
})
