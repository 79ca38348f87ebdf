import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { FOREST_POINTS, predictBody } from '../support/sites.ts'
import { expectError, expectInvalidRequest, post, rest } from './client.ts'

/** Model versions over HTTP: the registry, and every prediction path pinned to a version. */
let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer())
})

afterAll(() => stopSeededServer({ db, server }))

const point = FOREST_POINTS.coastRange
/** The answer without its clock: two answers of the same request differ only in generated_at. */
const timeless = (text: string) => text.replace(/"generated_at":"[^"]+"/g, '')

describe('GET /v1/models', () => {
  it('lists the shipped base version, current and default, with its stated uncertainty', async () => {
    const result = await rest(server.url, 'GET', '/v1/models', { key })
    expect(result.status, result.text).toBe(200)
    expect(result.body.models).toEqual([
      {
        version: '0.2',
        series: 'mycel',
        codename: 'chanterelle',
        kind: 'base',
        parent: null,
        created_at: '2026-11-24T00:00:00.000Z',
        default: true,
        uncertainty: { planting_year_sd: 0.8, site_sd: 0.5, clumping_dispersion: 2, status: 'assumption' },
      },
    ])
    expectInvalidRequest(await rest(server.url, 'GET', '/v1/models?kind=base', { key }), 'query string')
    expectError(await rest(server.url, 'GET', '/v1/models', {}), 401, 'invalid_api_key')
  })

  it('shows one version, and answers invalid_model_version for one there is not', async () => {
    const one = await rest(server.url, 'GET', '/v1/models/0.2', { key })
    expect(one.status, one.text).toBe(200)
    expect(one.body).toMatchObject({ version: '0.2', kind: 'base', default: true })
    const unknown = await rest(server.url, 'GET', `/v1/models/${encodeURIComponent('0.2+cal.00000000')}`, {
      key,
    })
    expectError(unknown, 422, 'invalid_model_version')
    expect(unknown.body.error.details).toEqual({
      model_version: '0.2+cal.00000000',
      suggestion: 'GET /v1/models lists the versions this key may use',
    })
  })
})

describe('model_version on every prediction path', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['/v1/predict', predictBody()],
    ['/v1/predict/compare', { ...point, species_code: 'PSME' }],
    ['/v1/predict/rank', { ...point, planting_method: 'manual', horizon: 5 }],
    ['/v1/predict/batch', { sites: [predictBody(), predictBody({ species_code: 'THPL' })] }],
    [
      '/v1/plans/stocking',
      {
        ...point,
        planting_method: 'manual',
        species_mix: [{ species_code: 'PSME', share: 1 }],
        trees_per_acre: 300,
      },
    ],
  ]

  it.each(cases)(
    '%s pinned to the base version answers byte for byte as without a version',
    async (path, body) => {
      const plain = await post(server.url, path, body, key)
      const pinned = await post(server.url, path, { ...body, model_version: '0.2' }, key)
      expect(pinned.status, pinned.text).toBe(200)
      expect(timeless(pinned.text)).toBe(timeless(plain.text))
    },
  )

  it.each(cases)(
    '%s refuses a version the account cannot use: 422 invalid_model_version',
    async (path, body) => {
      const refused = await post(server.url, path, { ...body, model_version: '9.9' }, key)
      expectError(refused, 422, 'invalid_model_version')
      expect(refused.body.error.details.model_version).toBe('9.9')
    },
  )

  it('checks the version after the body’s shape and before the species', async () => {
    const shape = await post(
      server.url,
      '/v1/predict',
      { ...predictBody(), horizons: [2], model_version: '9.9' },
      key,
    )
    expectInvalidRequest(shape, 'horizons')
    const species = await post(
      server.url,
      '/v1/predict',
      predictBody({ species_code: 'XXXX', model_version: '9.9' }),
      key,
    )
    expectError(species, 422, 'invalid_model_version')
  })

  it('refuses a version that is not a short string, and one on a batch item (the batch’s applies)', async () => {
    expectInvalidRequest(
      await post(server.url, '/v1/predict', predictBody({ model_version: 2 }), key),
      'model_version',
    )
    expectInvalidRequest(
      await post(server.url, '/v1/predict', predictBody({ model_version: 'v'.repeat(65) }), key),
      'model_version',
    )
    expectInvalidRequest(
      await post(server.url, '/v1/predict', predictBody({ model_version: '' }), key),
      'model_version',
    )
    const item = await post(
      server.url,
      '/v1/predict/batch',
      { sites: [predictBody({ model_version: '0.2' })] },
      key,
    )
    expectInvalidRequest(item, 'sites[0].model_version')
  })
})
