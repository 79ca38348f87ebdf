import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'

/*
 * OGC API – Features at /ogc over real PostgreSQL and Redis: the documents, credentials, paging, filters,
 * errors and what each call costs. The requirements of Part 1 Core each test names are listed in
 * docs/ogc.md.
 */

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer())
})

afterAll(() => stopSeededServer({ db, server }))

interface Answer {
  status: number
  headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: OGC documents vary by route
  body: any
}

async function ogc(path: string, headers: Record<string, string> = { 'x-api-key': key }): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, { headers })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null }
}

const basic = (secret: string, user = 'qgis') => ({
  authorization: `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`,
})

async function sitesInBox(west: number, south: number, east: number, north: number): Promise<number> {
  const [row] = await db.sql<{ count: number }[]>`
    SELECT count(*)::int AS count FROM sites
    WHERE latitude BETWEEN ${south} AND ${north} AND longitude BETWEEN ${west} AND ${east}`
  return row?.count ?? 0
}

async function siteCount(): Promise<number> {
  const [row] = await db.sql<{ count: number }[]>`SELECT count(*)::int AS count FROM sites`
  return row?.count ?? 0
}

/** Every page from `path` on, following next links. */
async function allPages(path: string, headers?: Record<string, string>): Promise<Answer[]> {
  const pages: Answer[] = []
  let next: string | undefined = path
  while (next) {
    const page = await ogc(next, headers)
    expect(page.status, JSON.stringify(page.body)).toBe(200)
    pages.push(page)
    const link = page.body.links.find((l: { rel: string }) => l.rel === 'next')
    next = link ? link.href.slice(server.url.length) : undefined
  }
  return pages
}

describe('the documents (free, no key)', () => {
  it('the landing page links self, service-desc, conformance and data (/req/core/root-success)', async () => {
    const landing = await ogc('/ogc', {})
    expect(landing.status).toBe(200)
    expect(landing.headers.get('content-type')).toMatch(/^application\/json/)
    const rels = Object.fromEntries(
      landing.body.links.map((l: { rel: string; href: string }) => [l.rel, l.href]),
    )
    expect(rels).toEqual({
      self: `${server.url}/ogc`,
      'service-desc': `${server.url}/ogc/api`,
      conformance: `${server.url}/ogc/conformance`,
      data: `${server.url}/ogc/collections`,
    })
    expect((await ogc('/ogc/', {})).status).toBe(200)
  })

  it('declares Core, GeoJSON and OpenAPI 3.0 (/req/core/conformance-success)', async () => {
    const conformance = await ogc('/ogc/conformance', {})
    expect(conformance.status).toBe(200)
    expect(conformance.body.conformsTo).toEqual([
      'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
      'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
      'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30',
    ])
  })

  it('serves its OpenAPI 3.0 document, each items path declaring its query parameters (/req/oas30/oas-impl)', async () => {
    const api = await ogc('/ogc/api', {})
    expect(api.status).toBe(200)
    expect(api.headers.get('content-type')).toMatch(/^application\/vnd\.oai\.openapi\+json;version=3\.0/)
    expect(api.body.openapi).toMatch(/^3\.0\./)
    expect(api.body.servers).toEqual([{ url: `${server.url}/ogc` }])
    const names = (path: string) =>
      api.body.paths[path].get.parameters.map((p: { $ref: string }) => {
        const [, , , name] = p.$ref.split('/')
        return api.body.components.parameters[name as string].name
      })
    expect(names('/collections/survival/items')).toEqual([
      'limit',
      'bbox',
      'bbox-crs',
      'cursor',
      'offset',
      'resultType',
      'species',
      'method',
      'period',
      'scenario',
      'model_version',
      'vegetation_control',
      'animal_protection',
      'stock_type',
      'shade',
    ])
    // A collection's own document takes its filters too (checked): a GIS opens the collection's URL with them.
    expect(names('/collections/survival')).toEqual(names('/collections/survival/items').slice(6))
    expect(names('/collections/sites/items')).toEqual([
      'limit',
      'bbox',
      'bbox-crs',
      'cursor',
      'offset',
      'resultType',
    ])
    expect(api.body.components.parameters.limit.schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 10000,
      default: 100,
    })
  })

  it('lists the collections with their extent in CRS84 and items links (/req/core/fc-md-items)', async () => {
    const collections = await ogc('/ogc/collections', {})
    expect(collections.status).toBe(200)
    expect(collections.body.collections.map((c: { id: string }) => c.id)).toEqual([
      'sites',
      'survival',
      'survival-hexagons',
    ])
    for (const collection of collections.body.collections) {
      const [west, south, east, north] = collection.extent.spatial.bbox[0]
      expect(west).toBeLessThan(-124)
      expect(east).toBeGreaterThan(-117)
      expect(south).toBeLessThan(42.1)
      expect(north).toBeGreaterThan(48.9)
      expect(collection.links).toContainEqual(
        expect.objectContaining({
          rel: 'items',
          type: 'application/geo+json',
          href: `${server.url}/ogc/collections/${collection.id}/items`,
        }),
      )
      const one = await ogc(`/ogc/collections/${collection.id}`, {})
      expect(one.status).toBe(200)
      expect(one.body).toEqual(collection)
    }
  })

  it('an unknown collection, path or feature is 404 and a write 405, as OGC exceptions (/req/core/fc-md-success)', async () => {
    for (const path of ['/ogc/collections/nope', '/ogc/collections/nope/items', '/ogc/nothing']) {
      const missing = await ogc(path, {})
      expect(missing.status, path).toBe(404)
      expect(missing.body.code).toBe('NotFound')
    }
    expect((await ogc('/ogc/collections/sites/items/999999999')).status).toBe(404)
    expect((await ogc('/ogc/collections/survival/items/1-NOPE-manual')).status).toBe(404)
    const post = await fetch(`${server.url}/ogc/collections/sites/items`, {
      method: 'POST',
      headers: { 'x-api-key': key },
    })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD')
  })
})

describe('credentials', () => {
  it('items without a key answer 401 asking for Basic credentials', async () => {
    const answer = await ogc('/ogc/collections/sites/items', {})
    expect(answer.status).toBe(401)
    expect(answer.headers.get('www-authenticate')).toMatch(/^Basic realm="survival"/)
    expect(answer.body.code).toBe('invalid_api_key')
  })

  it('takes the key as X-API-Key or as the Basic password (any user name), and refuses a wrong one', async () => {
    expect((await ogc('/ogc/collections/sites/items?limit=1', { 'x-api-key': key })).status).toBe(200)
    expect((await ogc('/ogc/collections/sites/items?limit=1', basic(key))).status).toBe(200)
    expect((await ogc('/ogc/collections/sites/items?limit=1', basic(key, ''))).status).toBe(200)
    const wrong = await ogc(
      '/ogc/collections/sites/items?limit=1',
      basic('tsp_live_00000000000000000000000000000000'),
    )
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic realm="survival"/)
    expect((await ogc('/ogc/collections/sites/items?limit=1', { authorization: 'Basic !!!' })).status).toBe(
      401,
    )
  })

  it('counts each items page as one request; the documents and 404s are free', async () => {
    const { key: spore } = await issueKey(db, 'spore')
    const remaining = (answer: Answer) => Number(/r=(\d+)/.exec(answer.headers.get('ratelimit') ?? '')?.[1])
    const first = await ogc('/ogc/collections/sites/items?limit=5', basic(spore))
    for (const path of [
      '/ogc',
      '/ogc/api',
      '/ogc/conformance',
      '/ogc/collections',
      '/ogc/collections/sites',
      '/ogc/nope',
    ])
      await ogc(path, basic(spore))
    await ogc('/ogc/collections/sites/items?limit=5&bogus=1', basic(spore))
    const second = await ogc('/ogc/collections/survival/items?limit=5', basic(spore))
    expect(remaining(first) - remaining(second)).toBe(1)
  })
})

describe('items', () => {
  it('pages every site by next links: numberMatched, numberReturned, timeStamp, no next on the last (/req/core/fc-links, fc-response)', async () => {
    const total = await siteCount()
    const pages = await allPages('/ogc/collections/sites/items?limit=2500')
    const ids = pages.flatMap((page) => page.body.features.map((f: { id: number }) => f.id))
    expect(ids).toHaveLength(total)
    expect(new Set(ids).size).toBe(total)
    expect([...ids].sort((a, b) => a - b)).toEqual(ids)
    for (const page of pages) {
      expect(page.headers.get('content-type')).toMatch(/^application\/geo\+json/)
      expect(page.body.type).toBe('FeatureCollection')
      expect(page.body.numberMatched).toBe(total)
      expect(page.body.numberReturned).toBe(page.body.features.length)
      expect(Date.parse(page.body.timeStamp)).not.toBeNaN()
      expect(page.body.links.find((l: { rel: string }) => l.rel === 'self').type).toBe('application/geo+json')
    }
    expect(pages.at(-1)?.body.links.some((l: { rel: string }) => l.rel === 'next')).toBe(false)
  })

  it('keeps to the bbox, with commas as %2C (/req/core/fc-bbox-response)', async () => {
    const box = [-123.2, 44.1, -122.4, 44.9] as const
    const expected = await sitesInBox(...box)
    expect(expected).toBeGreaterThan(20)
    const pages = await allPages(`/ogc/collections/sites/items?limit=50&bbox=${box.join('%2C')}`)
    const features = pages.flatMap((page) => page.body.features)
    expect(features).toHaveLength(expected)
    expect(pages[0]?.body.numberMatched).toBe(expected)
    for (const feature of features) {
      const [lon, lat] = feature.geometry.coordinates
      expect(lon).toBeGreaterThanOrEqual(box[0])
      expect(lon).toBeLessThanOrEqual(box[2])
      expect(lat).toBeGreaterThanOrEqual(box[1])
      expect(lat).toBeLessThanOrEqual(box[3])
    }
  })

  it('a site feature carries the data dictionary attributes and the data version', async () => {
    const page = await ogc('/ogc/collections/sites/items?limit=1')
    const [feature] = page.body.features
    expect(Object.keys(feature.properties)).toEqual([
      'region_id',
      'zone',
      'state',
      'elevation_m',
      'slope_deg',
      'aspect_deg',
      'heat_load_index',
      'soil_depth_cm',
      'rock_fraction_pct',
      'vegetation_cover_pct',
      'annual_precip_mm',
      'summer_water_deficit_mm',
      'growing_season_frost_days',
      'browse_pressure_index',
      'data_version',
    ])
    expect(feature.properties.data_version).toMatch(/^sites_[0-9a-f]{12}$/)
    expect(page.headers.get('survival-data-version')).toBe(feature.properties.data_version)
    const one = await ogc(`/ogc/collections/sites/items/${feature.id}`)
    expect(one.status).toBe(200)
    expect(one.body).toEqual(feature)
  })

  it('survival is site × species × method: filters narrow it, offset and cursor page it alike', async () => {
    const total = await siteCount()
    expect((await ogc('/ogc/collections/survival/items?resultType=hits')).body.numberMatched).toBe(total * 40)
    const psme = await ogc('/ogc/collections/survival/items?resultType=hits&species=PSME')
    expect(psme.body).toMatchObject({ numberMatched: total * 2, numberReturned: 0, features: [] })
    const narrow = '/ogc/collections/survival/items?species=PSME&method=manual&bbox=-123.2,44.1,-122.4,44.9'
    const byCursor = (await allPages(`${narrow}&limit=7`)).flatMap((page) => page.body.features)
    expect(byCursor).toHaveLength(await sitesInBox(-123.2, 44.1, -122.4, 44.9))
    const byOffset = await ogc(`${narrow}&limit=7&offset=14`)
    expect(byOffset.body.features).toEqual(byCursor.slice(14, 21))
    // Pages that end inside a site's 40 features go on where they stopped.
    const mixed = (
      await allPages('/ogc/collections/survival/items?bbox=-123.2,44.1,-122.9,44.3&limit=33')
    ).flatMap((page) => page.body.features.map((f: { id: string }) => f.id))
    expect(mixed).toHaveLength((await sitesInBox(-123.2, 44.1, -122.9, 44.3)) * 40)
    expect(new Set(mixed).size).toBe(mixed.length)
  })

  it('each survival value equals POST /v1/predict at the site’s point, today and under a future climate', async () => {
    for (const climate of [null, { period: '2071-2100', scenario: 'ssp585' }]) {
      const query = climate ? `&period=${climate.period}&scenario=${climate.scenario}` : ''
      const page = await ogc(`/ogc/collections/survival/items?limit=6&bbox=-122,45,-121.5,45.5${query}`)
      expect(page.body.features).toHaveLength(6)
      for (const feature of page.body.features) {
        const { species, method, survival_1y, survival_3y, survival_5y } = feature.properties
        const [longitude, latitude] = feature.geometry.coordinates
        const response = await fetch(`${server.url}/v1/predict`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({
            latitude,
            longitude,
            species_code: species,
            planting_method: method,
            ...(climate ? { climate } : {}),
          }),
        })
        const prediction = await response.json()
        expect([prediction.site.matched_longitude, prediction.site.matched_latitude]).toEqual([
          longitude,
          latitude,
        ])
        expect(prediction.site.match_distance_km).toBe(0)
        expect(
          prediction.predictions.map((p: { survival_probability: number }) => p.survival_probability),
        ).toEqual([survival_1y, survival_3y, survival_5y])
        expect(feature.properties).toMatchObject({
          period: climate?.period ?? '1991_2020',
          scenario: climate?.scenario ?? null,
          model_version: prediction.model.version,
        })
      }
      const [first] = page.body.features
      const one = await ogc(`/ogc/collections/survival/items/${first.id}?${query.slice(1)}`)
      expect(one.body).toEqual(first)
    }
  })

  it('a limit above the maximum is the maximum (/req/core/fc-limit-response-1)', async () => {
    const page = await ogc('/ogc/collections/survival/items?limit=20000')
    expect(page.status).toBe(200)
    expect(page.body.numberReturned).toBe(10000)
  })
})

describe('survival-hexagons', () => {
  async function graphqlMap(args: string) {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `{ survivalMap(${args}) { cells { h3Index meanSurvival minSurvival maxSurvival sites changeFromToday boundary } } }`,
      }),
    })
    return (await response.json()).data.survivalMap.cells as {
      h3Index: string
      meanSurvival: number
      minSurvival: number
      maxSurvival: number
      sites: number
      changeFromToday: number | null
      boundary: number[][]
    }[]
  }

  it('is the survival map’s cells as polygons, Douglas-fir by hand at 5 years and 25 km unless named', async () => {
    const cells = await graphqlMap('speciesCode: "PSME", plantingMethod: MANUAL, horizon: 5, cellKm: 25')
    const pages = await allPages('/ogc/collections/survival-hexagons/items?limit=400')
    const features = pages.flatMap((page) => page.body.features)
    expect(pages.length).toBeGreaterThan(1)
    expect(pages[0]?.body.numberMatched).toBe(cells.length)
    expect(features.map((f: { id: string }) => f.id)).toEqual(cells.map((c) => c.h3Index))
    for (const [i, feature] of features.entries()) {
      const cell = cells[i] as (typeof cells)[number]
      expect(feature.geometry).toEqual({ type: 'Polygon', coordinates: [cell.boundary] })
      expect(feature.properties).toMatchObject({
        h3_index: cell.h3Index,
        species: 'PSME',
        method: 'manual',
        horizon: 5,
        cell_km: 25,
        period: '1991_2020',
        scenario: null,
        mean_survival: cell.meanSurvival,
        min_survival: cell.minSurvival,
        max_survival: cell.maxSurvival,
        sites: cell.sites,
        change_from_today: null,
      })
    }
    const one = await ogc(`/ogc/collections/survival-hexagons/items/${features[3].id}`)
    expect(one.body).toEqual(features[3])
  })

  it('maps the species, method, horizon, cell size and climate named, with each cell’s change from today', async () => {
    const cells = await graphqlMap(
      'speciesCode: "TSHE", plantingMethod: DRONE_SEEDED, horizon: 3, cellKm: 50, climate: { period: "2041-2070", scenario: "ssp370" }',
    )
    const query = 'species=TSHE&method=drone_seeded&horizon=3&cell_km=50&period=2041-2070&scenario=ssp370'
    const page = await ogc(`/ogc/collections/survival-hexagons/items?limit=10000&${query}`)
    expect(
      page.body.features.map(
        (f: { properties: { change_from_today: number } }) => f.properties.change_from_today,
      ),
    ).toEqual(cells.map((c) => c.changeFromToday))
    expect(page.body.features[0].properties).toMatchObject({
      species: 'TSHE',
      method: 'drone_seeded',
      horizon: 3,
      cell_km: 50,
      period: '2041-2070',
      scenario: 'ssp370',
    })
    const box = '-123.2,44.1,-122.4,44.9'
    const inBox = await ogc(`/ogc/collections/survival-hexagons/items?${query}&bbox=${box}`)
    expect(inBox.body.numberMatched).toBeGreaterThan(0)
    expect(inBox.body.numberMatched).toBeLessThan(page.body.numberMatched)
  })

  it('refuses a horizon, cell size or cursor it cannot take', async () => {
    for (const query of ['horizon=2', 'horizon=x', 'cell_km=5', 'cell_km=500', 'cursor=1.0', 'species=NOPE'])
      expect((await ogc(`/ogc/collections/survival-hexagons/items?${query}`)).status, query).toBe(400)
  })
})

describe('bad parameters answer 400 with the OGC exception body (/req/core/query-param-invalid, query-param-unknown)', () => {
  const cases: [string, string][] = [
    ['limit=0', 'InvalidParameterValue'],
    ['limit=ten', 'InvalidParameterValue'],
    ['bbox=1,2,3', 'InvalidParameterValue'],
    ['bbox=-122,46,-123,45', 'InvalidParameterValue'],
    ['bbox=a,b,c,d', 'InvalidParameterValue'],
    ['bbox-crs=EPSG:3857&bbox=1,2,3,4', 'InvalidParameterValue'],
    ['offset=-1', 'InvalidParameterValue'],
    ['cursor=abc', 'InvalidParameterValue'],
    ['cursor=1.0&offset=3', 'InvalidParameterValue'],
    ['resultType=all', 'InvalidParameterValue'],
    ['limit=1&limit=2', 'InvalidParameterValue'],
    ['nope=1', 'InvalidParameterValue'],
    ['f=html', 'InvalidParameterValue'],
    ['species=XXXX', 'invalid_species'],
    ['method=helicopter', 'invalid_method'],
    ['period=2200', 'invalid_climate'],
    ['scenario=ssp585', 'invalid_climate'],
    ['model_version=9.9', 'invalid_model_version'],
  ]
  for (const [query, code] of cases) {
    it(`${query} → ${code}`, async () => {
      const answer = await ogc(`/ogc/collections/survival/items?${query}`)
      expect(answer.status, JSON.stringify(answer.body)).toBe(400)
      expect(answer.body.code).toBe(code)
      expect(typeof answer.body.description).toBe('string')
    })
  }

  it('a collection’s document takes its items’ filters, checked: a GIS opens its URL with them', async () => {
    const plain = await ogc('/ogc/collections/survival', {})
    const filtered = await ogc('/ogc/collections/survival?species=PSME&vegetation_control=release_2yr', {})
    expect(filtered.status, JSON.stringify(filtered.body)).toBe(200)
    expect(filtered.body).toEqual(plain.body)
    // A bad filter is refused as its items refuse it; a paging parameter is no filter.
    for (const query of ['vegetation_control=weeding', 'species=XXXX', 'species=PSME&species=TSHE']) {
      const answer = await ogc(`/ogc/collections/survival?${query}`, {})
      const items = await ogc(`/ogc/collections/survival/items?${query}`)
      expect(answer.status, query).toBe(400)
      expect(answer.body, query).toEqual(items.body)
    }
    expect((await ogc('/ogc/collections/survival?limit=5', {})).body.code).toBe('InvalidParameterValue')
    expect((await ogc('/ogc/collections/sites?species=PSME', {})).status).toBe(400)
  })

  it('the service’s documents take any collection’s filters, checked: QGIS sends its URL’s query to each', async () => {
    for (const path of ['/ogc', '/ogc/conformance', '/ogc/api', '/ogc/collections']) {
      const plain = await ogc(path, {})
      const query = 'species=PSME&method=manual&vegetation_control=release_2yr&horizon=5&cell_km=10'
      const filtered = await ogc(`${path}?${query}`, {})
      expect(filtered.status, `${path} ${JSON.stringify(filtered.body)}`).toBe(200)
      expect(filtered.body, path).toEqual(plain.body)
      // A bad value is refused as the collection that takes it refuses it; a paging parameter is no filter.
      for (const [bad, collection] of [
        ['vegetation_control=weeding', 'survival'],
        ['species=XXXX', 'survival'],
        ['horizon=2', 'survival-hexagons'],
        ['cell_km=1000', 'survival-hexagons'],
      ]) {
        const answer = await ogc(`${path}?${bad}`, {})
        const items = await ogc(`/ogc/collections/${collection}/items?${bad}`)
        expect(answer.status, `${path}?${bad}`).toBe(400)
        expect(answer.body, `${path}?${bad}`).toEqual(items.body)
      }
      expect((await ogc(`${path}?limit=5`, {})).body.code, path).toBe('InvalidParameterValue')
      expect((await ogc(`${path}?colour=red`, {})).status, path).toBe(400)
    }
    // The API document declares them on each of those paths.
    const api = (await ogc('/ogc/api', {})).body
    for (const path of ['/', '/conformance', '/api', '/collections']) {
      const declared = api.paths[path].get.parameters.map((p: { $ref: string }) => p.$ref.split('/').at(-1))
      expect(declared, path).toEqual(
        expect.arrayContaining(['survival-vegetation_control', 'survival-hexagons-horizon']),
      )
    }
  })

  it('the sites collection takes no survival parameter', async () => {
    expect((await ogc('/ogc/collections/sites/items?species=PSME')).status).toBe(400)
  })
})
