import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FOREST_POINTS } from '../../test/support/fakes.ts'
import { failed, point, stand } from '../../test/support/feature-fixtures.ts'
import { ApiError } from '../domain/errors.ts'
import { FEATURE_DEFAULT_FIELDS, featureDefaults } from './feature-defaults.ts'
import { featureRow } from './job-features.ts'

const { coastRange } = FOREST_POINTS

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
      ...coastRange,
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

  // BUG (a judgment call on "a feature's own value wins"): src/job-files/feature-checks.ts
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

  // BUG: src/job-files/stand-feature.ts (standRow): the query's default
  // trees_per_acre is merged into the properties (`{ ...defaults, ...properties }`) even when
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

  // BUG (a judgment call on "properties a feature lacks"): src/job-files/feature-defaults.ts merges
  // `{ ...defaults, ...properties }`, so an attribute that is null overrides the query's default, and
  // PointProperties/StandProperties (point-feature.ts, stand-feature.ts) refuse null for id, species_code, planting_method,
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

  // BUG: src/job-files/feature-defaults.ts (featureDefaults): `DEFAULTS[name]` is looked up on a
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
