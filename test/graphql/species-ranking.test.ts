import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { firstError, type GraphQLResult, graphql, predictField } from '../support/graphql-helpers.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { FOREST_POINTS, forestGrid, OUTSIDE_POINTS, WASHINGTON_POINTS } from '../support/sites.ts'

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer({}, 'mycel'))
})

afterAll(() => stopSeededServer({ db, server }))

const SEATTLE_DOWNTOWN = { latitude: 47.6062, longitude: -122.3321 }

const RANKING_FIELDS = `site { latitude longitude matchedLatitude matchedLongitude matchDistanceKm region zone state }
  plantingMethod horizonYears
  ranking { rank species { code commonName rangeZones rangeStates } survivalProbability nativeRange
    topFactor { factor key impact magnitude contribution } }
  model { version codename series } generatedAt`

interface Args {
  latitude: number
  longitude: number
  plantingMethod?: string
  horizon?: number
}

function rankingField(args: Args, selection = RANKING_FIELDS, alias?: string): string {
  return `${alias ? `${alias}: ` : ''}speciesRanking(latitude: ${args.latitude}, longitude: ${args.longitude}, plantingMethod: ${args.plantingMethod ?? 'MANUAL'}, horizon: ${args.horizon ?? 5}) { ${selection} }`
}

const rank = (args: Args, selection?: string, apiKey = key) =>
  graphql(server.url, `{ ${rankingField(args, selection)} }`, { key: apiKey })

interface Ranked {
  rank: number
  species: { code: string; commonName: string; rangeZones: string[]; rangeStates: string[] }
  survivalProbability: number
  nativeRange: boolean
  topFactor: { factor: string; key: string; impact: string; magnitude: number; contribution: number }
}

function expectApiError(result: GraphQLResult, code: string, status: number) {
  expect(result.status, JSON.stringify(result.body).slice(0, 500)).toBe(status)
  expect(result.body.data?.speciesRanking ?? null).toBeNull()
  const error = firstError(result)
  expect(error.extensions?.code).toBe(code)
  return error
}

describe('speciesRanking', () => {
  it('ranks all 20 species by survival, ties by code, from rank 1', async () => {
    const result = await rank({ ...FOREST_POINTS.eastCascades, plantingMethod: 'DRONE_SEEDED', horizon: 3 })
    expect(result.status, JSON.stringify(result.body).slice(0, 500)).toBe(200)
    const answer = result.body.data.speciesRanking
    expect(answer).toMatchObject({
      plantingMethod: 'DRONE_SEEDED',
      horizonYears: 3,
      model: { version: '0.2', series: 'mycel' },
      site: { ...FOREST_POINTS.eastCascades, region: 'pnw' },
    })
    expect(answer.site.matchDistanceKm).toBeLessThanOrEqual(10)
    const ranking = answer.ranking as Ranked[]
    expect(ranking).toHaveLength(20)
    expect(new Set(ranking.map((r) => r.species.code)).size).toBe(20)
    expect(ranking.map((r) => r.rank)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    for (let i = 1; i < ranking.length; i++) {
      const [a, b] = [ranking[i - 1] as Ranked, ranking[i] as Ranked]
      const ordered =
        a.survivalProbability > b.survivalProbability ||
        (a.survivalProbability === b.survivalProbability && a.species.code < b.species.code)
      expect(ordered, `${a.species.code} before ${b.species.code}`).toBe(true)
    }
  })

  it('each entry is what predict says at the same point and horizon; topFactor is its first risk factor', async () => {
    const point = FOREST_POINTS.coastRange
    const ranking = (await rank({ ...point, horizon: 1 })).body.data.speciesRanking.ranking as Ranked[]
    const predictions = await graphql(
      server.url,
      `{ ${ranking
        .map((r, i) =>
          predictField(
            { ...point, speciesCode: r.species.code, horizons: [1] },
            'predictions { survivalProbability riskFactors(limit: 1) { factor key impact magnitude contribution } }',
            `p${i}`,
          ),
        )
        .join(' ')} }`,
      { key },
    )
    ranking.forEach((entry, i) => {
      const predicted = predictions.body.data[`p${i}`].predictions[0]
      expect(entry.survivalProbability).toBe(predicted.survivalProbability)
      expect(entry.topFactor).toEqual(predicted.riskFactors[0])
    })
  })

  it('nativeRange: the matched site’s zone is one of the species’ range zones and its state one of its states', async () => {
    for (const point of [...Object.values(FOREST_POINTS), ...Object.values(WASHINGTON_POINTS)]) {
      const answer = (await rank(point)).body.data.speciesRanking
      const ranking = answer.ranking as Ranked[]
      expect(['OR', 'WA']).toContain(answer.site.state)
      for (const entry of ranking) {
        expect(entry.nativeRange, `${entry.species.code} in ${answer.site.zone}, ${answer.site.state}`).toBe(
          entry.species.rangeZones.includes(answer.site.zone) &&
            entry.species.rangeStates.includes(answer.site.state),
        )
      }
      expect(ranking.some((r) => r.nativeRange)).toBe(true)
      expect(ranking.some((r) => !r.nativeRange)).toBe(true)
    }
  })

  it('counts as exactly one request', async () => {
    const { key: spore } = await issueKey(db, 'spore')
    const first = await graphql(server.url, '{ species { code } }', { key: spore })
    const remaining = Number(first.headers.get('x-ratelimit-remaining'))
    const ranked = await rank(FOREST_POINTS.coastRange, 'horizonYears', spore)
    expect(ranked.status).toBe(200)
    expect(Number(ranked.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1)
  })

  it('counts as one site prediction: 10 aliases pass on a spore key, 11 (or 10 + a predict) are batch_too_large', async () => {
    const { key: spore } = await issueKey(db, 'spore')
    const aliases = (n: number) => forestGrid(n).map((p, i) => rankingField(p, 'horizonYears', `r${i}`))
    const ten = await graphql(server.url, `{ ${aliases(10).join(' ')} }`, { key: spore })
    expect(ten.status).toBe(200)
    expect(Object.keys(ten.body.data)).toHaveLength(10)
    const eleven = await graphql(server.url, `{ ${aliases(11).join(' ')} }`, { key: spore })
    expect(eleven.status).toBe(422)
    expect(firstError(eleven).extensions?.details).toEqual({ submitted: 11, tier_limit: 10, tier: 'spore' })
    const mixed = await graphql(
      server.url,
      `{ ${aliases(10).join(' ')} ${predictField(FOREST_POINTS.coastRange, 'speciesCode', 'p')} }`,
      { key: spore },
    )
    expect(firstError(mixed).extensions?.code).toBe('batch_too_large')
  })
})

describe('speciesRanking errors', () => {
  it.each([
    ['horizon 2', { ...FOREST_POINTS.coastRange, horizon: 2 }, 'horizon'],
    ['horizon 0', { ...FOREST_POINTS.coastRange, horizon: 0 }, 'horizon'],
    ['latitude 91', { ...FOREST_POINTS.coastRange, latitude: 91 }, 'latitude'],
    ['longitude -181', { ...FOREST_POINTS.coastRange, longitude: -181 }, 'longitude'],
  ])('%s → invalid_request (400) naming the argument, as predict', async (_name, args, field) => {
    const error = expectApiError(await rank(args), 'invalid_request', 400)
    expect(error.extensions?.details?.field).toBe(field)
  })

  it('an unknown planting method is a validation error (400) naming the value, as predict', async () => {
    const result = await rank({ ...FOREST_POINTS.coastRange, plantingMethod: 'HELICOPTER' })
    expect(result.status).toBe(400)
    expect(firstError(result).message).toContain('HELICOPTER')
  })

  it('outside Oregon/Washington → outside_coverage (422) with the suggestion', async () => {
    for (const point of Object.values(OUTSIDE_POINTS)) {
      const error = expectApiError(await rank(point), 'outside_coverage', 422)
      expect(String(error.extensions?.details?.suggestion)).toContain('/v1/coverage')
    }
  })

  it('downtown Seattle → no_nearby_data (422)', async () => {
    expectApiError(await rank(SEATTLE_DOWNTOWN), 'no_nearby_data', 422)
  })

  it('one alias failing leaves the others answered', async () => {
    const result = await graphql(
      server.url,
      `{ ${rankingField(SEATTLE_DOWNTOWN, 'horizonYears', 'city')} ${rankingField(FOREST_POINTS.coastRange, 'horizonYears', 'forest')} }`,
      { key },
    )
    expect(result.status).toBe(200)
    expect(result.body.data).toEqual({ city: null, forest: { horizonYears: 5 } })
    expect(firstError(result).extensions?.code).toBe('no_nearby_data')
  })

  it('variables are validated the same way', async () => {
    const result = await graphql(
      server.url,
      'query R($h: Int!) { speciesRanking(latitude: 44.6, longitude: -123.6, plantingMethod: MANUAL, horizon: $h) { horizonYears } }',
      { key, variables: { h: 4 } },
    )
    expect(result.status).toBe(400)
    expect(firstError(result).extensions?.code).toBe('invalid_request')
    expect(firstError(result).extensions?.details?.field).toBe('horizon')
  })

  it('needs a key', async () => {
    expectApiError(
      await graphql(server.url, `{ ${rankingField(FOREST_POINTS.coastRange, 'horizonYears')} }`),
      'invalid_api_key',
      401,
    )
  })
})
