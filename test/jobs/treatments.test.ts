import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, expectInvalidRequest, rest } from '../rest/client.ts'
import type { TestDatabase } from '../support/database.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { FOREST_POINTS } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'

/*
 * Treatments in portfolio jobs over real PostgreSQL and Redis (docs/jobs.md → Treatments): per-row
 * columns and properties, the query string's defaults, each row failing alone, and untreated jobs
 * answering as before. Every answer is checked against schema/openapi.yaml by the REST client.
 */

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer({ jobChunkRows: 3 }))
})

afterAll(() => stopSeededServer({ db, server }))

const { coastRange } = FOREST_POINTS
const at = `${coastRange.latitude},${coastRange.longitude}`

async function run(body: string, contentType: string, query = ''): Promise<string> {
  const created = await rest(server.url, 'POST', `/v1/jobs${query}`, { key, raw: body, contentType })
  expect(created.status, created.text).toBe(202)
  const id = created.body.id as string
  await eventually(async () => {
    const status = await rest(server.url, 'GET', `/v1/jobs/${id}`, { key })
    return status.body.status === 'succeeded'
  }, 30_000)
  const results = await rest(server.url, 'GET', `/v1/jobs/${id}/results`, {
    key,
    headers: { accept: contentType === 'text/csv' ? 'text/csv' : contentType },
  })
  expect(results.status).toBe(200)
  return results.text
}

type Row = Record<string, string>
const rows = (text: string) => parse(text, { columns: true }) as Row[]

describe('POST /v1/jobs with treatments', () => {
  it('scores each CSV row with its own treatments over the query’s defaults, failing bad rows alone', async () => {
    const csv = [
      'id,latitude,longitude,species_code,planting_method,vegetation_control,animal_protection',
      `defaults,${at},PSME,manual,,`,
      `own,${at},PSME,manual,release_1yr,none`,
      `untreated,${at},PSME,manual,none,none`,
      `bad,${at},PSME,manual,spray,`,
      `drone,${at},PSME,drone_seeded,,`,
      `drone_ok,${at},PSME,drone_seeded,,none`,
      '',
    ].join('\n')
    const text = await run(csv, 'text/csv', '?vegetation_control=release_2yr&animal_protection=mesh_tubes')
    const [defaults, own, untreated, bad, drone, droneOk] = rows(text)
    const s = (row: Row | undefined) => Number(row?.survival_5y)
    expect(s(defaults)).toBeGreaterThan(s(own))
    expect(s(own)).toBeGreaterThan(s(untreated))
    expect(bad).toMatchObject({ error_code: 'invalid_request', survival_5y: '' })
    expect(drone).toMatchObject({ error_code: 'invalid_treatment', survival_5y: '' })
    expect(droneOk?.error_code).toBe('')

    // The untreated row is what a job without any treatment answers.
    const plain = rows(
      await run(`id,latitude,longitude,species_code,planting_method\nx,${at},PSME,manual\n`, 'text/csv'),
    )
    expect(untreated?.survival_5y).toBe(plain[0]?.survival_5y)
  })

  it('answers an untreated job byte for byte whether it names no treatment or only none', async () => {
    const csv = `id,latitude,longitude,species_code,planting_method\na,${at},PSME,manual\nb,${at},TSHE,drone_seeded\n`
    const plain = await run(csv, 'text/csv')
    expect(await run(csv, 'text/csv', '?vegetation_control=none&shade=none')).toBe(plain)
  })

  it('takes treatments in GeoJSON points and stands, the query’s as defaults', async () => {
    const stand = {
      type: 'Polygon',
      coordinates: [
        [
          [-123.66, 44.56],
          [-123.54, 44.56],
          [-123.54, 44.64],
          [-123.66, 44.64],
          [-123.66, 44.56],
        ],
      ],
    }
    const feature = (geometry: object, properties: object) => ({ type: 'Feature', geometry, properties })
    const point = { type: 'Point', coordinates: [coastRange.longitude, coastRange.latitude] }
    const collection = {
      type: 'FeatureCollection',
      features: [
        feature(point, { planting_method: 'manual' }),
        feature(point, { planting_method: 'manual', animal_protection: 'none' }),
        feature(stand, { planting_method: 'manual', trees_per_acre: 300 }),
        feature(stand, {
          planting_method: 'manual',
          trees_per_acre: 300,
          treatments: { animal_protection: 'none' },
        }),
        feature(point, { planting_method: 'drone_seeded' }),
      ],
    }
    const text = await run(
      JSON.stringify(collection),
      'application/geo+json',
      '?species_code=PSME&animal_protection=mesh_tubes',
    )
    const [tubes, none, standTubes, standNone, drone] = JSON.parse(text).features.map(
      (f: { properties: Record<string, unknown> }) => f.properties,
    )
    expect(tubes.survival_5y).toBeGreaterThan(none.survival_5y)
    expect(standTubes.meets_probability).toBeGreaterThanOrEqual(standNone.meets_probability)
    expect(standTubes.required_trees_per_acre).toBeLessThan(standNone.required_trees_per_acre)
    expect(drone.error_code).toBe('invalid_treatment')
    // A feature's own properties are echoed as sent; the defaults are not added to them.
    expect(none.animal_protection).toBe('none')
    expect(tubes).not.toHaveProperty('animal_protection')
  })

  it('refuses a bad default before reading the body, naming the parameter', async () => {
    const csv = `latitude,longitude,species_code,planting_method\n${at},PSME,manual\n`
    const post = (query: string) =>
      rest(server.url, 'POST', `/v1/jobs${query}`, { key, raw: csv, contentType: 'text/csv' })
    expectInvalidRequest(await post('?shade=umbrella'), 'shade')
    expectInvalidRequest(await post('?shade=none&shade=shade_cards'), 'shade')
    expectError(await post('?stock_type='), 400, 'invalid_request')
  })
})
