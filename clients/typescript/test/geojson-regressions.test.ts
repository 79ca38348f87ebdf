import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type SeededServer,
  startSeededServer,
  stopSeededServer,
} from '../../../test/support/seeded-server.ts'
import { FOREST_POINTS } from '../../../test/support/sites.ts'
import {
  createSurvivalClient,
  type GeoJsonJobDefaults,
  type JobFeatureCollection,
  type JobResultFeature,
  type SurvivalClient,
} from '../src/client.ts'

/**
 * GeoJSON jobs as docs/jobs.md ("GeoJSON jobs") describes them, in the places where the first server
 * version (commit 5f66909: src/domain/jobs/job-features.ts, feature-output.ts) did otherwise: a
 * feature's own density, null attributes and own climate against the query's defaults, a failed
 * feature's own properties, and results next to same-named own properties. Through the client, as a
 * GIS user meets them.
 */

const { coastRange } = FOREST_POINTS
const POINT = { type: 'Point', coordinates: [coastRange.longitude, coastRange.latitude] }
const STAND: { type: 'Polygon'; coordinates: number[][][] } = {
  type: 'Polygon',
  coordinates: [
    [
      [coastRange.longitude - 0.02, coastRange.latitude - 0.02],
      [coastRange.longitude + 0.02, coastRange.latitude - 0.02],
      [coastRange.longitude + 0.02, coastRange.latitude + 0.02],
      [coastRange.longitude - 0.02, coastRange.latitude + 0.02],
      [coastRange.longitude - 0.02, coastRange.latitude - 0.02],
    ],
  ],
}

describe('GeoJSON jobs: defaults, failed features and results as docs/jobs.md says', () => {
  let running: SeededServer
  let api: SurvivalClient
  beforeAll(async () => {
    running = await startSeededServer({}, 'mycel')
    api = createSurvivalClient({ baseUrl: running.server.url, apiKey: running.key })
  })
  afterAll(() => stopSeededServer(running))

  /** Uploads `features` with `defaults`, waits, and gives back the results' features. */
  async function scored(
    features: unknown[],
    defaults?: GeoJsonJobDefaults,
  ): Promise<JobResultFeature['properties'][]> {
    const upload = { type: 'FeatureCollection', features } as JobFeatureCollection
    const { id } = await api.uploadGeoJsonJob(upload, defaults ? { defaults } : {})
    await api.waitForJob(id, { pollMs: 50 })
    return (await api.geoJsonResults(id)).features.map((feature) => feature.properties)
  }

  it("a stand's own density wins over the default of the other unit", async () => {
    // ?trees_per_acre=400, and a stand planted at its own 990 trees per hectare: the stand's own value
    // should win, as its own species_mix wins over a default species_code. At first both densities
    // reached the plan and the stand failed: "trees_per_hectare is given with trees_per_acre".
    const [stand] = await scored(
      [{ type: 'Feature', geometry: STAND, properties: { species_code: 'PSME', trees_per_hectare: 990 } }],
      { planting_method: 'manual', trees_per_acre: 400 },
    )
    expect(stand?.error_message ?? null).toBeNull()
    const { data } = await api.raw.POST('/v1/plans/stocking', {
      body: {
        stand: STAND,
        species_mix: [{ species_code: 'PSME', share: 1 }],
        planting_method: 'manual',
        trees_per_hectare: 990,
      },
    })
    expect(stand?.planted_trees_per_acre).toBe(data?.planted.trees_per_acre)
  })

  it('a property given as null takes the default, as a missing one does', async () => {
    // A GIS export writes `null` for an empty attribute; in this API null is "not given". At first the
    // null replaced the query's default: "properties.planting_method must be a string", and a stand
    // whose trees_per_acre is null loses ?trees_per_acre=400 (then neither density is given).
    const [point, stand] = await scored(
      [
        { type: 'Feature', geometry: POINT, properties: { species_code: 'PSME', planting_method: null } },
        { type: 'Feature', geometry: STAND, properties: { species_code: 'PSME', trees_per_acre: null } },
      ],
      { planting_method: 'manual', trees_per_acre: 400 },
    )
    expect(point?.error_message ?? null).toBeNull()
    expect(typeof point?.survival_5y).toBe('number')
    expect(stand?.error_message ?? null).toBeNull()
    expect(stand?.planted_trees_per_acre).toBe(400)
  })

  it("a feature's own climate object wins whole over the period/scenario defaults", async () => {
    // Under ?period=2071-2100&scenario=ssp585, a feature that asks for today's climate with
    // `climate: {period: "1991_2020"}` (or even `scenario: null` in it) gets the default scenario
    // filled in per field, 1991_2020 + ssp585, and failed with invalid_climate.
    const [today, explicit] = await scored(
      [
        {
          type: 'Feature',
          geometry: POINT,
          properties: { species_code: 'PSME', climate: { period: '1991_2020' } },
        },
        {
          type: 'Feature',
          geometry: POINT,
          properties: { species_code: 'PSME', climate: { period: '1991_2020', scenario: null } },
        },
      ],
      { planting_method: 'manual', period: '2071-2100', scenario: 'ssp585' },
    )
    const now = await api.predict({ ...coastRange, species_code: 'PSME', planting_method: 'manual' })
    for (const feature of [today, explicit]) {
      expect(feature?.error_code ?? null).toBeNull()
      expect(feature?.survival_5y).toBe(now.predictions[2]?.survival_probability)
    }
  })

  it('a feature that fails its checks at upload keeps its own properties', async () => {
    // docs/jobs.md: "each feature has its input geometry, its id, its own properties, feature_index,
    // and the results". At first a feature refused at upload came back without them: exactly the
    // features a GIS user must find and fix, without their attributes (unit name, owner…).
    const [failed] = await scored(
      [{ type: 'Feature', geometry: POINT, properties: { unit: 'north block 7', species_code: 42 } }],
      { planting_method: 'manual' },
    )
    expect(failed?.error_code).toBe('invalid_request')
    expect(failed?.unit).toBe('north block 7')
  })

  it('results replace own properties of the same name: a re-uploaded results file', async () => {
    // The GIS round trip: download planned.geojson, fix a feature, upload the file again. Its features
    // then carry the first run's results as their own properties; at first the new results kept those
    // they did not set: a feature that now succeeds still said error_code invalid_species, and one that
    // now asks only for 1 year still showed last run's survival_5y.
    const [fixed, fewer] = await scored(
      [
        {
          type: 'Feature',
          geometry: POINT,
          properties: {
            species_code: 'PSME',
            feature_index: 0,
            error_code: 'invalid_species',
            error_message: 'Species code "PSMA" is not recognized.',
          },
        },
        {
          type: 'Feature',
          geometry: POINT,
          properties: { species_code: 'PSME', horizons: [1], feature_index: 1, survival_5y: 0.123 },
        },
      ],
      { planting_method: 'manual' },
    )
    expect(typeof fixed?.survival_1y).toBe('number')
    expect(fixed?.error_code ?? null).toBeNull()
    expect(fixed?.error_message ?? null).toBeNull()
    expect(typeof fewer?.survival_1y).toBe('number')
    expect(fewer?.survival_5y ?? null).toBeNull()
  })
})
