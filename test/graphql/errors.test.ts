import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrate } from '../../src/db/migrate.ts'
import { resolvePlantingMethod } from '../../src/domain/catalogue.ts'
import { ApiError } from '../../src/domain/errors.ts'
import { createTestDatabase, type TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import {
  batchInputTypeName,
  batchQuery,
  firstError,
  type GraphQLResult,
  graphql,
  predictField,
} from '../support/graphql-helpers.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS, NO_DATA_POINTS, OUTSIDE_POINTS, predictionInputs } from '../support/sites.ts'

let db: TestDatabase
let server: TestServer
let keys: Record<'spore' | 'mycel' | 'hypha', string>
let batchType: string

beforeAll(async () => {
  ;({ db, server } = await startSeededServer())
  keys = {
    spore: (await issueKey(db, 'spore')).key,
    mycel: (await issueKey(db, 'mycel')).key,
    hypha: (await issueKey(db, 'hypha')).key,
  }
  batchType = await batchInputTypeName(server.url)
})

afterAll(() => stopSeededServer({ db, server }))

function expectApiError(result: GraphQLResult, code: string, status: number) {
  expect(result.status, JSON.stringify(result.body)).toBe(status)
  const error = firstError(result)
  expect(error.extensions?.code).toBe(code)
  expect(error.extensions?.status).toBe(status)
  // yoga's private http extension never reaches the client
  expect(error.extensions?.http).toBeUndefined()
  return error
}

const predict = (args: Parameters<typeof predictField>[0]) =>
  graphql(server.url, `{ ${predictField(args)} }`, { key: keys.mycel })

describe('domain errors on predict', () => {
  it.each(Object.entries(OUTSIDE_POINTS))(
    'outside_coverage (422) with a suggestion: %s',
    async (_name, point) => {
      const error = expectApiError(await predict(point), 'outside_coverage', 422)
      expect(error.message).toMatch(/coverage/i)
      expect(error.extensions?.details?.suggestion).toMatch(/\/v1\/coverage/)
      expect(error.path).toEqual(['predict'])
    },
  )

  it.each(Object.entries(NO_DATA_POINTS))('no_nearby_data (422): %s', async (_name, point) => {
    const error = expectApiError(await predict(point), 'no_nearby_data', 422)
    expect(error.message.length).toBeGreaterThan(0)
  })

  it('invalid_species (422): "PSMA" suggests PSME (Douglas-fir) and points to the species list', async () => {
    const error = expectApiError(
      await predict({ ...FOREST_POINTS.coastRange, speciesCode: 'PSMA' }),
      'invalid_species',
      422,
    )
    expect(error.message).toContain('PSMA')
    expect(error.message).toContain('PSME (Douglas-fir)')
    expect(error.extensions?.details?.suggestion).toMatch(/\/v1\/species/)
  })

  it('invalid_species (422) without a close code for something far off', async () => {
    const error = expectApiError(
      await predict({ ...FOREST_POINTS.coastRange, speciesCode: 'ZZZZZZZZ' }),
      'invalid_species',
      422,
    )
    expect(error.message).not.toMatch(/did you mean/i)
    expect(error.extensions?.details?.suggestion).toMatch(/\/v1\/species/)
  })

  it('invalid_species on compareMethods too', async () => {
    const { latitude, longitude } = FOREST_POINTS.coastRange
    const result = await graphql(
      server.url,
      `{ compareMethods(input: { latitude: ${latitude}, longitude: ${longitude}, speciesCode: "PSMA" }) { species { code } } }`,
      { key: keys.mycel },
    )
    expect(expectApiError(result, 'invalid_species', 422).message).toContain('PSME (Douglas-fir)')
  })

  it('outside_coverage and no_nearby_data on compareMethods', async () => {
    for (const [point, code] of [
      [OUTSIDE_POINTS.boise, 'outside_coverage'],
      [NO_DATA_POINTS.openPugetSound, 'no_nearby_data'],
    ] as const) {
      const result = await graphql(
        server.url,
        `{ compareMethods(input: { latitude: ${point.latitude}, longitude: ${point.longitude}, speciesCode: "PSME" }) { species { code } } }`,
        { key: keys.mycel },
      )
      expectApiError(result, code, 422)
    }
  })
})

describe('invalid_method', () => {
  it('an unknown PlantingMethod enum value is a GraphQL validation error (400) naming the value', async () => {
    const result = await predict({ ...FOREST_POINTS.coastRange, plantingMethod: 'HELICOPTER' })
    expect(result.status).toBe(400)
    expect(result.body.data).toBeUndefined()
    expect(firstError(result).message).toContain('HELICOPTER')
  })

  it('an unknown enum value in variables is refused with 400 naming the value', async () => {
    const result = await graphql(
      server.url,
      'query P($input: PredictionInput!) { predict(input: $input) { speciesCode } }',
      {
        key: keys.mycel,
        variables: {
          input: { ...FOREST_POINTS.coastRange, speciesCode: 'PSME', plantingMethod: 'helicopter' },
        },
      },
    )
    expect(result.status).toBe(400)
    expect(firstError(result).message).toContain('helicopter')
  })

  it('an unknown method on a batch item fails that item alone, as invalid_method', async () => {
    const sites = predictionInputs(3)
    sites[1] = { ...(sites[1] as (typeof sites)[number]), plantingMethod: 'helicopter' }
    const result = await graphql(server.url, batchQuery(batchType), { key: keys.mycel, variables: { sites } })
    expect(result.status, JSON.stringify(result.body)).toBe(200)
    const items = result.body.data.predictBatch
    expect(items[1].error.code).toBe('invalid_method')
    expect(items[1].error.message).toContain('helicopter')
    expect(items[0].error?.code).not.toBe('invalid_method')
    expect(items[2].error?.code).not.toBe('invalid_method')
  })

  it('resolvePlantingMethod accepts the two methods and raises invalid_method (422) otherwise', () => {
    expect(resolvePlantingMethod('manual')).toBe('manual')
    expect(resolvePlantingMethod('drone_seeded')).toBe('drone_seeded')
    for (const bad of ['helicopter', 'MANUAL', 'Manual', '', 'drone-seeded', ' manual']) {
      let caught: unknown
      try {
        resolvePlantingMethod(bad)
      } catch (error) {
        caught = error
      }
      expect(caught, JSON.stringify(bad)).toBeInstanceOf(ApiError)
      const error = caught as ApiError
      expect(error.code).toBe('invalid_method')
      expect(error.status).toBe(422)
      expect(error.message).toContain(`"${bad}"`)
      expect(error.message).toContain('manual')
      expect(error.message).toContain('drone_seeded')
    }
  })
})

describe('invalid_request from input validation', () => {
  it.each([
    ['latitude', { ...FOREST_POINTS.coastRange, latitude: 91 }],
    ['latitude', { ...FOREST_POINTS.coastRange, latitude: -90.5 }],
    ['longitude', { ...FOREST_POINTS.coastRange, longitude: -181 }],
    ['longitude', { ...FOREST_POINTS.coastRange, longitude: 180.01 }],
    ['horizons', { ...FOREST_POINTS.coastRange, horizons: [2] }],
    ['horizons', { ...FOREST_POINTS.coastRange, horizons: [1, 3, 7] }],
  ])('names the field (%s) with code invalid_request and HTTP 400', async (field, args) => {
    const error = expectApiError(await predict(args), 'invalid_request', 400)
    expect(String(error.extensions?.details?.field)).toContain(field)
    expect(error.message).toContain(field)
    expect(error.message).not.toMatch(/unexpected error/i)
  })

  it('an empty horizons list is invalid_request naming horizons', async () => {
    const error = expectApiError(
      await predict({ ...FOREST_POINTS.coastRange, horizons: [] }),
      'invalid_request',
      400,
    )
    expect(String(error.extensions?.details?.field)).toContain('horizons')
  })

  it('validates input passed as variables the same way', async () => {
    const result = await graphql(
      server.url,
      'query P($input: PredictionInput!) { predict(input: $input) { speciesCode } }',
      {
        key: keys.mycel,
        variables: {
          input: { latitude: 91, longitude: -123.6, speciesCode: 'PSME', plantingMethod: 'MANUAL' },
        },
      },
    )
    const error = expectApiError(result, 'invalid_request', 400)
    expect(String(error.extensions?.details?.field)).toContain('latitude')
  })

  it('validates compareMethods input', async () => {
    const result = await graphql(
      server.url,
      '{ compareMethods(input: { latitude: 44.6, longitude: -181, speciesCode: "PSME" }) { species { code } } }',
      { key: keys.mycel },
    )
    const error = expectApiError(result, 'invalid_request', 400)
    expect(String(error.extensions?.details?.field)).toContain('longitude')
  })

  it('validates batch items and names the item', async () => {
    const sites = predictionInputs(3)
    sites[1] = { ...(sites[1] as (typeof sites)[number]), latitude: 91 }
    const result = await graphql(server.url, batchQuery(batchType), { key: keys.mycel, variables: { sites } })
    const error = expectApiError(result, 'invalid_request', 400)
    expect(error.extensions?.details).toEqual({
      field: 'sites[1].latitude',
      reason: 'must be from -90 to 90',
    })
  })

  it('reports the first bad item of a batch, and takes null horizons as all three', async () => {
    const sites = predictionInputs(4).map((site) => ({ ...site, horizons: null }))
    sites[2] = { ...(sites[2] as (typeof sites)[number]), horizons: [] as never }
    sites[3] = { ...(sites[3] as (typeof sites)[number]), longitude: 200 }
    const result = await graphql(server.url, batchQuery(batchType), { key: keys.mycel, variables: { sites } })
    const error = expectApiError(result, 'invalid_request', 400)
    expect(error.extensions?.details).toEqual({
      field: 'sites[2].horizons',
      reason: 'must hold at least one of 1, 3, 5',
    })
    const fine = await graphql(server.url, batchQuery(batchType), {
      key: keys.mycel,
      variables: { sites: sites.slice(0, 2) },
    })
    expect(fine.status).toBe(200)
    expect(fine.body.errors).toBeUndefined()
  })

  it('an empty batch is invalid_request', async () => {
    const result = await graphql(server.url, batchQuery(batchType), {
      key: keys.mycel,
      variables: { sites: [] },
    })
    const error = expectApiError(result, 'invalid_request', 400)
    expect(String(error.extensions?.details?.field)).toContain('sites')
  })
})

describe('batch_too_large', () => {
  it.each([
    ['spore', 10],
    ['mycel', 100],
    ['hypha', 500],
  ] as const)(
    '%s: a batch of exactly %i passes, one more is refused with submitted/tier_limit/tier',
    async (tier, limit) => {
      const atLimit = await graphql(server.url, batchQuery(batchType), {
        key: keys[tier],
        variables: { sites: predictionInputs(limit) },
      })
      expect(atLimit.status, JSON.stringify(atLimit.body.errors)).toBe(200)
      expect(atLimit.body.errors).toBeUndefined()
      expect(atLimit.body.data.predictBatch).toHaveLength(limit)

      const over = await graphql(server.url, batchQuery(batchType), {
        key: keys[tier],
        variables: { sites: predictionInputs(limit + 1) },
      })
      const error = expectApiError(over, 'batch_too_large', 422)
      expect(error.extensions?.details).toEqual({ submitted: limit + 1, tier_limit: limit, tier })
      expect(error.message).toContain(tier)
      expect(over.body.data ?? null).toBeNull()
    },
  )
})

describe('internal errors', () => {
  let broken: TestDatabase
  let brokenServer: TestServer
  let brokenKey: string

  beforeAll(async () => {
    // Migrated (tiers and keys work) but without the sites table: every lookup fails in SQL.
    broken = await createTestDatabase()
    await migrate(broken.sql)
    brokenKey = (await issueKey(broken, 'mycel')).key
    await broken.sql`DROP TABLE sites CASCADE`
    brokenServer = await startTestServer({ database: broken })
  })

  afterAll(async () => {
    await brokenServer?.close()
    await broken?.drop()
  })

  it('masks an unexpected failure as internal_error (500) with no stack, SQL or internals', async () => {
    const result = await graphql(brokenServer.url, `{ ${predictField(FOREST_POINTS.coastRange)} }`, {
      key: brokenKey,
    })
    const error = expectApiError(result, 'internal_error', 500)
    expect(error.extensions?.details).toBeUndefined()
    expect(Object.keys(error.extensions ?? {}).sort()).toEqual(['code', 'status'])
    const text = JSON.stringify(result.body)
    for (const leak of ['sites', 'relation', 'at ', 'SELECT', 'unnest', '.ts:', 'stack', 'postgres']) {
      expect(text, leak).not.toContain(leak)
    }
    expect(result.headers.get('request-id')).toBeTruthy()
  })

  it('masks failures inside a batch too', async () => {
    const result = await graphql(brokenServer.url, batchQuery(batchType), {
      key: brokenKey,
      variables: { sites: predictionInputs(2) },
    })
    expectApiError(result, 'internal_error', 500)
    const text = JSON.stringify(result.body)
    for (const leak of ['sites', 'relation', 'at ', 'SELECT']) expect(text, leak).not.toContain(leak)
  })

  it('the server keeps answering afterwards', async () => {
    const result = await graphql(brokenServer.url, '{ health { status database } }')
    expect(result.status).toBe(200)
    expect(result.body.data.health.database).toBe('connected')
  })
})

describe('variables that do not coerce: graphql-js’s words and 400, though the query runs compiled', () => {
  const PREDICT = `query P($input: PredictionInput!) { predict(input: $input) { speciesCode } }`
  const INPUT = { ...FOREST_POINTS.coastRange, speciesCode: 'PSME', plantingMethod: 'MANUAL' }

  it.each([
    ['missing', {}, /^Variable "\$input" of required type "PredictionInput!" was not provided\.$/],
    [
      'a latitude that is not a number',
      { input: { ...INPUT, latitude: 'north' } },
      /^Variable "\$input" got invalid value "north" at "input\.latitude"; Float cannot represent/,
    ],
    [
      'a planting method the enum lacks',
      { input: { ...INPUT, plantingMethod: 'HELICOPTER' } },
      /^Variable "\$input" got invalid value "HELICOPTER" at "input\.plantingMethod"; Value "HELICOPTER" does not exist in "PlantingMethod" enum\./,
    ],
  ])('%s', async (_name, variables, message) => {
    const result = await graphql(server.url, PREDICT, { key: keys.mycel, variables })
    expect(result.status, JSON.stringify(result.body)).toBe(400)
    expect(result.body.data).toBeUndefined()
    expect(firstError(result).message).toMatch(message)
  })

  it('and the same document with good variables answers, compiled, after them', async () => {
    const result = await graphql(server.url, PREDICT, { key: keys.mycel, variables: { input: INPUT } })
    expect(result.status, JSON.stringify(result.body)).toBe(200)
    expect(result.body.data.predict.speciesCode).toBe('PSME')
  })
})
