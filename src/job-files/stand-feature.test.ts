import type { MultiPolygon, Polygon } from 'geojson'
import { describe, expect, it } from 'vitest'
import { FakeSiteLookup, FOREST_POINTS } from '../../test/support/fakes.ts'
import { failed, POLYGON, stand } from '../../test/support/feature-fixtures.ts'
import { square } from '../../test/support/geometry.ts'
import { ApiError } from '../domain/errors.ts'
import type { InputRow } from '../domain/jobs/file-formats.ts'
import { SPECIES } from '../domain/species.ts'
import { StockingPlanService } from '../domain/stocking/stocking-service.ts'
import { loadSurvivalModel } from '../model/index.ts'
import { messageInContractNames } from './contract-names.ts'
import { featureRow } from './job-features.ts'

const { coastRange } = FOREST_POINTS

const MULTI: MultiPolygon = {
  type: 'MultiPolygon',
  coordinates: [
    [square(coastRange.longitude, coastRange.latitude)],
    [square(coastRange.longitude + 0.1, coastRange.latitude, 0.02)],
  ],
}

describe('featureRow: a stand that fails alone at upload', () => {
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
      within: async () => ({ sites: [], dataVersion: null }),
    })
    const refused = await plans.plan(row.p as NonNullable<InputRow['p']>).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toBeInstanceOf(ApiError)
    expect((refused as ApiError).code).toBe('invalid_request')
    expect((refused as ApiError).details).toEqual({
      field: 'treesPerHectare',
      reason: 'is given with treesPerAcre; send one or the other',
    })
    // The results name the fields as the feature's properties do.
    expect(messageInContractNames(refused as ApiError)).toBe(
      'trees_per_hectare is given with trees_per_acre; send one or the other',
    )
  })
})

describe('featureRow: a stand', () => {
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
})
