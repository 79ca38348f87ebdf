import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, expectInvalidRequest, restBytes } from '../rest/client.ts'
import type { TestDatabase } from '../support/database.ts'
import { graphql } from '../support/graphql-helpers.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'

/*
 * Treatments on the surfaces drawn from every site, over real PostgreSQL and Redis: GraphQL's
 * survivalMap, /ogc's survival and survival-hexagons, and GET /v1/rasters/survival.tif. Treated at or
 * above untreated everywhere, cached apart, and untreated answers as they were.
 */

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer())
})

afterAll(() => stopSeededServer({ db, server }))

const TREATED = 'vegetation_control=release_2yr&animal_protection=mesh_tubes'

// biome-ignore lint/suspicious/noExplicitAny: OGC documents vary by route
async function ogc(path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}${path}`, { headers: { 'x-api-key': key } })
  return { status: response.status, body: await response.json() }
}

interface Cell {
  h3Index: string
  meanSurvival: number
  minSurvival: number
}

async function graphqlMap(args: string) {
  const result = await graphql(
    server.url,
    `{ survivalMap(speciesCode: "PSME", plantingMethod: MANUAL, horizon: 5, cellKm: 50${args}) {
        cells { h3Index meanSurvival minSurvival } treatments { vegetationControl animalProtection dataVersion } } }`,
    { key },
  )
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined()
  return result.body.data.survivalMap as { cells: Cell[]; treatments: Record<string, string> | null }
}

describe('survivalMap (GraphQL) with treatments', () => {
  it('maps treated survival at or above the untreated in every cell, and says which treatments', async () => {
    const plain = await graphqlMap('')
    const treated = await graphqlMap(
      ', treatments: { vegetationControl: RELEASE_2YR, animalProtection: MESH_TUBES }',
    )
    expect(plain.treatments).toBeNull()
    expect(treated.treatments).toMatchObject({
      vegetationControl: 'release_2yr',
      animalProtection: 'mesh_tubes',
    })
    expect(treated.cells.map((c) => c.h3Index)).toEqual(plain.cells.map((c) => c.h3Index))
    treated.cells.forEach((cell, i) => {
      expect(cell.meanSurvival).toBeGreaterThanOrEqual(plain.cells[i]?.meanSurvival ?? 1)
      expect(cell.minSurvival).toBeGreaterThanOrEqual(plain.cells[i]?.minSurvival ?? 1)
    })
    expect(treated.cells.some((c, i) => c.meanSurvival > (plain.cells[i]?.meanSurvival ?? 1))).toBe(true)
    // Asked again untreated, from its own cache entry: the same cells.
    expect((await graphqlMap(', treatments: { vegetationControl: NONE }')).cells).toEqual(plain.cells)
  })

  it('refuses tubes for drone seeding with invalid_treatment', async () => {
    const result = await graphql(
      server.url,
      '{ survivalMap(speciesCode: "PSME", plantingMethod: DRONE_SEEDED, horizon: 5, treatments: { animalProtection: MESH_TUBES }) { siteCount } }',
      { key },
    )
    expect(result.body.errors?.[0]?.extensions?.code).toBe('invalid_treatment')
  })
})

describe('/ogc survival collections with treatments', () => {
  it('survival-hexagons: treated cells at or above the untreated, with the treatments as properties', async () => {
    const base = '/ogc/collections/survival-hexagons/items?limit=10000&cell_km=50'
    const plain = await ogc(base)
    const treated = await ogc(`${base}&${TREATED}`)
    expect(treated.status, JSON.stringify(treated.body)).toBe(200)
    const before = plain.body.features
    treated.body.features.forEach((f: { id: string; properties: Record<string, number> }, i: number) => {
      expect(f.id).toBe(before[i].id)
      expect(f.properties.mean_survival).toBeGreaterThanOrEqual(before[i].properties.mean_survival)
    })
    expect(treated.body.features[0].properties).toMatchObject({
      vegetation_control: 'release_2yr',
      animal_protection: 'mesh_tubes',
      treatments_data_version: expect.stringMatching(/^treatments-[0-9a-f]{12}$/),
    })
    expect(before[0].properties).not.toHaveProperty('vegetation_control')
    const none = await ogc(`${base}&vegetation_control=none`)
    expect(none.body.features).toEqual(before)
  })

  it('survival: each treated feature at or above its untreated one; tubes over both methods is invalid_treatment', async () => {
    const base = '/ogc/collections/survival/items?limit=50&species=PSME&method=manual'
    const plain = (await ogc(base)).body.features
    const treated = (await ogc(`${base}&${TREATED}`)).body.features
    treated.forEach((f: { id: string; properties: Record<string, number> }, i: number) => {
      expect(f.id).toBe(plain[i].id)
      for (const h of ['survival_1y', 'survival_3y', 'survival_5y'])
        expect(f.properties[h]).toBeGreaterThanOrEqual(plain[i].properties[h])
    })
    const one = await ogc(`/ogc/collections/survival/items/${plain[0].id}?${TREATED}`)
    expect(one.body.properties.survival_5y).toBe(treated[0].properties.survival_5y)
    const both = await ogc(
      '/ogc/collections/survival/items?limit=5&species=PSME&animal_protection=mesh_tubes',
    )
    // /ogc answers the API's 422s as 400, keeping their codes.
    expect([both.status, both.body.code]).toEqual([400, 'invalid_treatment'])
    const bad = await ogc('/ogc/collections/survival/items?limit=5&shade=umbrella')
    expect([bad.status, bad.body.code, bad.body.description]).toEqual([
      400,
      'InvalidParameterValue',
      'shade must be one of none, shade_cards',
    ])
  })
})

describe('GET /v1/rasters/survival.tif with treatments', () => {
  const base = '/v1/rasters/survival.tif?species=PSME&method=manual&horizon=5&resolution=0.1'
  const raster = (query: string) => restBytes(server.url, 'GET', `${base}${query}`, { key })

  it('draws a treated raster of its own, named so; only none values give the untreated bytes', async () => {
    const plain = await raster('')
    const treated = await raster(`&${TREATED}`)
    expect(treated.status).toBe(200)
    expect(treated.headers.get('content-disposition')).toBe(
      'attachment; filename="survival-PSME-manual-5y-release_2yr-mesh_tubes.tif"',
    )
    expect(treated.headers.get('etag')).not.toBe(plain.headers.get('etag'))
    const none = await raster('&vegetation_control=none&animal_protection=none')
    expect(none.headers.get('etag')).toBe(plain.headers.get('etag'))
    expect(Buffer.from(none.bytes).equals(Buffer.from(plain.bytes))).toBe(true)
  })

  it('refuses a bad value (400, naming it) and tubes with drone seeding (422 invalid_treatment)', async () => {
    expectInvalidRequest(await raster('&stock_type=plug'), 'stock_type')
    const drone = await restBytes(
      server.url,
      'GET',
      '/v1/rasters/survival.tif?species=PSME&method=drone_seeded&horizon=5&resolution=0.1&animal_protection=mesh_tubes',
      { key },
    )
    expectError(drone, 422, 'invalid_treatment')
  })
})
