import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SPECIES } from '../../src/domain/species.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import {
  FOREST_POINTS,
  NO_DATA_POINTS,
  OUTSIDE_POINTS,
  predictBody,
  WASHINGTON_POINTS,
} from '../support/sites.ts'
import { expectError, expectInvalidRequest, post, type RestResult, rest, SPECIES_CODES } from './client.ts'

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer({}, 'mycel'))
})

afterAll(() => stopSeededServer({ db, server }))

const SEATTLE_DOWNTOWN = { latitude: 47.6062, longitude: -122.3321 }

function rankBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...FOREST_POINTS.coastRange, planting_method: 'manual', horizon: 5, ...overrides }
}

const rank = (body: unknown, apiKey = key): Promise<RestResult> =>
  post(server.url, '/v1/predict/rank', body, apiKey)

interface Ranked {
  species_code: string
  species_common_name: string
  survival_probability: number
  native_range: boolean
  top_factor: { factor: string; impact: string; magnitude: number }
}

describe('POST /v1/predict/rank', () => {
  it('answers every species by survival descending, ties by code (the document checks the shape)', async () => {
    const result = await rank(
      rankBody({ ...FOREST_POINTS.westCascades, planting_method: 'drone_seeded', horizon: 3 }),
    )
    expect(result.status, result.text).toBe(200)
    expect(result.body).toMatchObject({
      planting_method: 'drone_seeded',
      horizon_years: 3,
      model: { version: '0.2', series: 'mycel' },
      site: { ...FOREST_POINTS.westCascades, region: 'pnw' },
    })
    const ranking = result.body.ranking as Ranked[]
    expect(ranking.map((r) => r.species_code).sort()).toEqual([...SPECIES_CODES].sort())
    for (let i = 1; i < ranking.length; i++) {
      const [a, b] = [ranking[i - 1] as Ranked, ranking[i] as Ranked]
      expect(
        a.survival_probability > b.survival_probability ||
          (a.survival_probability === b.survival_probability && a.species_code < b.species_code),
      ).toBe(true)
    }
    for (const entry of ranking) {
      expect(entry.species_common_name).toBe(SPECIES.find((s) => s.code === entry.species_code)?.commonName)
    }
    expect(new Date(result.body.generated_at).toISOString()).toBe(result.body.generated_at)
  })

  it('site and model as /v1/predict gives them; each entry’s probability and top factor as /v1/predict says', async () => {
    const result = await rank(rankBody({ horizon: 1 }))
    const ranking = result.body.ranking as Ranked[]
    for (const entry of ranking.slice(0, 5)) {
      const predicted = await post(
        server.url,
        '/v1/predict',
        predictBody({ species_code: entry.species_code, horizons: [1] }),
        key,
      )
      expect(result.body.site).toEqual(predicted.body.site)
      expect(result.body.model).toEqual(predicted.body.model)
      expect(entry.survival_probability).toBe(predicted.body.predictions[0].survival_probability)
      expect(entry.top_factor).toEqual(predicted.body.predictions[0].risk_factors[0])
    }
  })

  it('native_range: the matched site’s zone is in the species’ range_zones and its state in its range_states', async () => {
    const species = await rest(server.url, 'GET', '/v1/species', { key })
    const rangeOf = new Map<string, { zones: string[]; states: string[] }>(
      species.body.species.map((s: { code: string; range_zones: string[]; range_states: string[] }) => [
        s.code,
        { zones: s.range_zones, states: s.range_states },
      ]),
    )
    for (const point of [FOREST_POINTS.eastCascades, WASHINGTON_POINTS.eastCascades]) {
      const [site] = await db.sql<{ zone: string; state: string }[]>`
        SELECT zone, state FROM sites ORDER BY earth_point <-> ll_to_earth(${point.latitude}, ${point.longitude})::cube LIMIT 1`
      const ranking = (await rank(rankBody(point))).body.ranking as Ranked[]
      for (const entry of ranking) {
        const range = rangeOf.get(entry.species_code)
        expect(entry.native_range, entry.species_code).toBe(
          Boolean(range?.zones.includes(site?.zone ?? '') && range.states.includes(site?.state ?? '')),
        )
      }
    }
  })

  it('incense-cedar is native in the eastern Cascades of Oregon, not in those of Washington', async () => {
    const nativeAt = async (point: { latitude: number; longitude: number }) => {
      const ranking = (await rank(rankBody(point))).body.ranking as Ranked[]
      return ranking.find((entry) => entry.species_code === 'CADE')?.native_range
    }
    expect(await nativeAt(FOREST_POINTS.eastCascades)).toBe(true)
    expect(await nativeAt(WASHINGTON_POINTS.eastCascades)).toBe(false)
  })

  it('counts as exactly one request', async () => {
    const { key: spore } = await issueKey(db, 'spore')
    const first = await rank(rankBody(), spore)
    expect(first.headers.get('x-ratelimit-remaining')).toBe('99')
    const second = await rank(rankBody({ horizon: 3 }), spore)
    expect(second.headers.get('x-ratelimit-remaining')).toBe('98')
  })
})

describe('POST /v1/predict/rank errors (the spec’s envelope)', () => {
  it.each([
    ['horizon', rankBody({ horizon: 2 })],
    ['horizon', rankBody({ horizon: 1.5 })],
    ['horizon', rankBody({ horizon: '5' })],
    ['horizon', { ...FOREST_POINTS.coastRange, planting_method: 'manual' }],
    ['latitude', rankBody({ latitude: 91 })],
    ['planting_method', rankBody({ planting_method: 7 })],
    ['horizons', rankBody({ horizons: [1] })],
    ['species_code', rankBody({ species_code: 'PSME' })],
  ])('400 invalid_request naming %s', async (field, body) => {
    expectInvalidRequest(await rank(body), field)
  })

  it('an unknown planting method is 422 invalid_method', async () => {
    const error = expectError(await rank(rankBody({ planting_method: 'helicopter' })), 422, 'invalid_method')
    expect(error.message).toContain('helicopter')
  })

  it('outside Oregon/Washington is 422 outside_coverage', async () => {
    expectError(await rank(rankBody(OUTSIDE_POINTS.boise)), 422, 'outside_coverage')
    expectError(await rank(rankBody(OUTSIDE_POINTS.openPacific)), 422, 'outside_coverage')
  })

  it('a city or open water is 422 no_nearby_data', async () => {
    expectError(await rank(rankBody(SEATTLE_DOWNTOWN)), 422, 'no_nearby_data')
    expectError(await rank(rankBody(NO_DATA_POINTS.openPugetSound)), 422, 'no_nearby_data')
  })

  it('needs a key; malformed JSON is 400 invalid_json', async () => {
    expectError(await rank(rankBody(), ''), 401, 'invalid_api_key')
    expectError(
      await rest(server.url, 'POST', '/v1/predict/rank', {
        key,
        raw: '{"latitude":',
        contentType: 'application/json',
      }),
      400,
      'invalid_json',
    )
    expectError(await rest(server.url, 'GET', '/v1/predict/rank', { key }), 405, 'method_not_allowed')
  })
})
