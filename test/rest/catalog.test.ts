import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { expectError, expectInvalidRequest, get, type RestResult, rest, SPECIES_CODES } from './client.ts'

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer())
})

afterAll(() => stopSeededServer({ db, server }))

const SPECIES_FIELDS = [
  'code',
  'common_name',
  'scientific_name',
  'group',
  'elevation_min_m',
  'elevation_max_m',
  'precipitation_min_mm',
  'precipitation_max_mm',
  'drought_tolerance',
  'shade_tolerance',
  'frost_tolerance',
  'range_zones',
  'range_states',
  'notes',
].sort()

interface SpeciesRecord {
  code: string
  common_name: string
  scientific_name: string
  group: string
  range_zones: string[]
  [field: string]: unknown
}

const species = (query = ''): Promise<RestResult> => get(server.url, `/v1/species${query}`, key)
const codes = (result: RestResult) => result.body.species.map((s: SpeciesRecord) => s.code)

describe('GET /v1/species', () => {
  it('lists the 20 species (16 conifers, 4 hardwoods) as {species, count} with snake_case fields', async () => {
    const result = await species()
    expect(result.status, result.text).toBe(200)
    expect(result.headers.get('content-type')).toMatch(/^application\/json/)
    expect(Object.keys(result.body).sort()).toEqual(['count', 'species'])
    expect(result.body.count).toBe(20)
    expect(result.body.species).toHaveLength(20)
    expect([...codes(result)].sort()).toEqual([...SPECIES_CODES].sort())
    const groups = result.body.species.map((s: SpeciesRecord) => s.group)
    expect(groups.filter((g: string) => g === 'conifer')).toHaveLength(16)
    expect(groups.filter((g: string) => g === 'hardwood')).toHaveLength(4)
    for (const record of result.body.species as SpeciesRecord[]) {
      expect(Object.keys(record).sort()).toEqual(SPECIES_FIELDS)
      expect(record.code).toMatch(/^[A-Z]{4}$/)
      expect(typeof record.common_name).toBe('string')
      expect(typeof record.scientific_name).toBe('string')
      expect(Array.isArray(record.range_zones)).toBe(true)
      expect(record.range_states).toEqual(record.code === 'CADE' ? ['OR'] : ['OR', 'WA'])
      for (const field of [
        'elevation_min_m',
        'elevation_max_m',
        'precipitation_min_mm',
        'precipitation_max_mm',
      ]) {
        expect(typeof record[field], field).toBe('number')
      }
      for (const field of ['drought_tolerance', 'shade_tolerance', 'frost_tolerance']) {
        expect(record[field], field).toMatch(/^[a-z_]+$/)
      }
    }
    const douglas = result.body.species.find((s: SpeciesRecord) => s.code === 'PSME')
    expect(douglas).toMatchObject({ common_name: 'Douglas-fir', group: 'conifer' })
  })

  it.each([
    ['conifer', 16],
    ['hardwood', 4],
  ])('group=%s → %d species, all of that group', async (group, count) => {
    const result = await species(`?group=${group}`)
    expect(result.status, result.text).toBe(200)
    expect(result.body.count).toBe(count)
    expect(result.body.species).toHaveLength(count)
    for (const record of result.body.species as SpeciesRecord[]) expect(record.group).toBe(group)
  })

  it('group=shrub → 400 invalid_request naming group', async () => {
    expectInvalidRequest(await species('?group=shrub'), 'group')
  })

  it('search matches code, common or scientific name, case-insensitively', async () => {
    const fir = await species('?search=FIR')
    expect(fir.status, fir.text).toBe(200)
    expect(codes(fir)).toContain('PSME')
    expect(codes(fir)).toContain('ABGR')
    expect(fir.body.count).toBe(fir.body.species.length)
    for (const record of fir.body.species as SpeciesRecord[]) {
      expect(`${record.code} ${record.common_name} ${record.scientific_name}`.toLowerCase()).toContain('fir')
    }
    expect(codes(await species('?search=psme'))).toEqual(['PSME'])
    expect(codes(await species('?search=Quercus'))).toEqual(['QUGA'])
    expect((await species('?search=no-such-tree')).body).toEqual({ species: [], count: 0 })
  })

  it('zone keeps the species native to that zone', async () => {
    const coast = await species('?zone=coast')
    expect(coast.status, coast.text).toBe(200)
    expect(coast.body.count).toBeGreaterThan(0)
    expect(coast.body.count).toBeLessThan(20)
    for (const record of coast.body.species as SpeciesRecord[]) expect(record.range_zones).toContain('coast')
    expect(codes(coast)).toContain('PISI')
  })

  it('filters combine', async () => {
    const result = await species('?group=hardwood&zone=coast')
    expect(result.status, result.text).toBe(200)
    for (const record of result.body.species as SpeciesRecord[]) {
      expect(record.group).toBe('hardwood')
      expect(record.range_zones).toContain('coast')
    }
    const all = await species('?zone=coast')
    const hardwoods = (all.body.species as SpeciesRecord[]).filter((s) => s.group === 'hardwood')
    expect(codes(result)).toEqual(hardwoods.map((s) => s.code))
  })

  it('HEAD answers like GET without a body', async () => {
    const result = await rest(server.url, 'HEAD', '/v1/species', { key })
    expect(result.status).toBe(200)
    expect(result.text).toBe('')
    expect(result.headers.get('content-type')).toMatch(/^application\/json/)
  })
})

describe('GET /v1/methods', () => {
  it('lists manual and drone_seeded as {methods: [...]}', async () => {
    const result = await get(server.url, '/v1/methods', key)
    expect(result.status, result.text).toBe(200)
    expect(result.headers.get('content-type')).toMatch(/^application\/json/)
    expect(Object.keys(result.body)).toEqual(['methods'])
    expect(result.body.methods.map((m: { id: string }) => m.id)).toEqual(['manual', 'drone_seeded'])
    for (const method of result.body.methods) {
      expect(Object.keys(method).sort()).toEqual(['description', 'id', 'name'])
      expect(typeof method.name).toBe('string')
      expect(typeof method.description).toBe('string')
    }
  })
})

describe('GET /v1/coverage', () => {
  it('is an RFC 7946 FeatureCollection served as application/geo+json, with the search radius', async () => {
    const result = await get(server.url, '/v1/coverage', key)
    expect(result.status, result.text.slice(0, 300)).toBe(200)
    expect(result.headers.get('content-type')).toMatch(/^application\/geo\+json/)
    expect(result.body.type).toBe('FeatureCollection')
    expect(typeof result.body.search_radius_km).toBe('number')
    expect(result.body.search_radius_km).toBeGreaterThan(0)
    expect(Array.isArray(result.body.features)).toBe(true)
    expect(result.body.features.length).toBeGreaterThan(0)
    const positions: number[][] = []
    const collect = (value: unknown): void => {
      if (Array.isArray(value) && typeof value[0] === 'number') positions.push(value as number[])
      else if (Array.isArray(value)) for (const inner of value) collect(inner)
    }
    for (const feature of result.body.features) {
      expect(feature.type).toBe('Feature')
      expect(['Polygon', 'MultiPolygon']).toContain(feature.geometry.type)
      expect(typeof feature.properties).toBe('object')
      collect(feature.geometry.coordinates)
    }
    expect(positions.length).toBeGreaterThan(3)
    // [longitude, latitude] order, around Oregon and Washington
    for (const [lon, lat] of positions) {
      expect(lon).toBeGreaterThan(-126)
      expect(lon).toBeLessThan(-116)
      expect(lat).toBeGreaterThan(41.5)
      expect(lat).toBeLessThan(49.5)
    }
  })
})

// The spec's six fields, exactly, plus `redis` (the production-readiness issue asks for the quota store's state).
const HEALTH_FIELDS = [
  'coverage_regions',
  'database',
  'model',
  'redis',
  'site_data',
  'status',
  'timestamp',
  'version',
]

describe('GET /v1/health (spec §4)', () => {
  it('needs no key and has exactly the spec fields plus redis and site_data', async () => {
    const result = await get(server.url, '/v1/health')
    expect(result.status, result.text).toBe(200)
    expect(result.headers.get('content-type')).toMatch(/^application\/json/)
    expect(Object.keys(result.body).sort()).toEqual(HEALTH_FIELDS)
  })

  it('reports healthy, version 1.0.0, the mycel 0.2 model, pnw, a connected database and a UTC timestamp', async () => {
    const before = Date.now()
    const { body } = await get(server.url, '/v1/health')
    expect(body.status).toBe('healthy')
    expect(body.version).toBe('1.0.0')
    expect(Object.keys(body.model).sort()).toEqual(['codename', 'series', 'version'])
    expect(body.model.version).toBe('0.2')
    expect(body.model.series).toBe('mycel')
    expect(typeof body.model.codename).toBe('string')
    expect(body.model.codename.length).toBeGreaterThan(0)
    expect(body.coverage_regions).toEqual(['pnw'])
    expect(body.database).toBe('connected')
    expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/)
    expect(Date.parse(body.timestamp)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000)
  })

  it('reports the same model as the prediction responses', async () => {
    const health = await get(server.url, '/v1/health')
    const methods = await rest(server.url, 'POST', '/v1/predict', {
      key,
      json: { latitude: 44.6, longitude: -123.6, species_code: 'PSME', planting_method: 'manual' },
    })
    expect(methods.body.model).toEqual(health.body.model)
  })

  it('ignores a key, even an invalid one, and carries no rate-limit fields', async () => {
    const result = await rest(server.url, 'GET', '/v1/health', { key: 'not-a-key' })
    expect(result.status).toBe(200)
    expect(result.headers.get('x-ratelimit-limit')).toBeNull()
    expect(result.headers.get('ratelimit')).toBeNull()
  })

  it('POST → 405 with Allow: GET, HEAD', async () => {
    const result = await rest(server.url, 'POST', '/v1/health', { json: {} })
    expectError(result, 405, 'method_not_allowed')
    expect(result.headers.get('allow')).toBe('GET, HEAD')
  })
})

describe('GET /v1/openapi.json', () => {
  it('serves the OpenAPI 3.1 document without a key', async () => {
    const result = await get(server.url, '/v1/openapi.json')
    expect(result.status).toBe(200)
    expect(result.headers.get('content-type')).toMatch(/^application\/json/)
    expect(String(result.body.openapi)).toMatch(/^3\.1/)
    expect(Object.keys(result.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/predict',
        '/v1/predict/compare',
        '/v1/predict/batch',
        '/v1/species',
        '/v1/methods',
        '/v1/coverage',
        '/v1/health',
      ]),
    )
  })
})
