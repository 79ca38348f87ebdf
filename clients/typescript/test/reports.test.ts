import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pdfInfo, pdfText } from '../../../test/support/pdf-tools.ts'
import {
  type SeededServer,
  startSeededServer,
  stopSeededServer,
} from '../../../test/support/seeded-server.ts'
import { FOREST_POINTS, OUTSIDE_POINTS } from '../../../test/support/sites.ts'
import { createSurvivalClient, type StockingPlanRequest, SurvivalApiError } from '../src/client.ts'
import { answerError, startProxy } from './support.ts'

/**
 * The typed client's PDF reports (comparePdf, rankPdf, stockingPlanPdf) against a live server: the
 * bytes of the report of the same request as the JSON method's, in the language and on the paper
 * asked for; the API's errors thrown as SurvivalApiError, and a 503 retried as any call is.
 */

const NOW = new Date('2026-04-02T08:00:00.000Z')

async function caught(promise: Promise<unknown>): Promise<SurvivalApiError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof SurvivalApiError) return error
    throw error
  }
  throw new Error('expected a SurvivalApiError')
}

/** A probability as the report prints it: 3 decimals in its language. */
const p3 = (value: number, language: 'en' | 'es') =>
  new Intl.NumberFormat(language === 'es' ? 'es-ES' : 'en-US', {
    minimumFractionDigits: 3,
    maximumFractionDigits: 3,
  })
    .format(value)
    .replace(/^-(0[.,]000)$/, '$1')

const isPdf = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, 5)).toString() === '%PDF-'

const STAND_PLAN: StockingPlanRequest = {
  stand: {
    type: 'Feature',
    properties: { name: 'North unit' },
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [-123.63, 44.57],
          [-123.57, 44.57],
          [-123.57, 44.63],
          [-123.63, 44.63],
          [-123.63, 44.57],
        ],
      ],
    },
  },
  planting_method: 'manual',
  species_mix: [{ species_code: 'PSME', share: 1 }],
  trees_per_acre: 300,
}

describe('typed client: PDF reports against a live server', () => {
  let running: SeededServer
  beforeAll(async () => {
    running = await startSeededServer({ now: () => NOW }, 'mycel')
  })
  afterAll(() => stopSeededServer(running))
  const client = (baseUrl = running.server.url) => createSurvivalClient({ baseUrl, apiKey: running.key })

  it('comparePdf: the comparison’s report in Spanish on the region’s paper, its numbers the JSON answer’s', async () => {
    const request = { ...FOREST_POINTS.westCascades, species_code: 'TSHE' }
    const json = await client().compare(request)
    const pdf = await client().comparePdf(request, { language: 'es-MX' })
    expect(pdf).toBeInstanceOf(Uint8Array)
    expect(isPdf(pdf)).toBe(true)
    const text = (await pdfText(pdf)).replace(/\s+/g, ' ')
    expect(text).toContain('Comparación de métodos de plantación')
    for (const row of json.method_differential)
      for (const value of [row.manual, row.drone_seeded, row.difference])
        expect(text).toContain(p3(value, 'es'))
    expect((await pdfInfo(pdf)).pageSize).toMatch(/\(letter\)/)
  })

  it('rankPdf: English by default, on the paper asked for', async () => {
    const request = { ...FOREST_POINTS.eastCascades, planting_method: 'manual' as const, horizon: 3 as const }
    const json = await client().rank(request)
    const pdf = await client().rankPdf(request, { paper: 'a4', requestId: 'client-rank-report-1' })
    const text = (await pdfText(pdf)).replace(/\s+/g, ' ')
    expect(text).toContain('Species ranked by survival')
    expect(text).toContain('client-rank-report-1')
    for (const row of json.ranking) expect(text).toContain(p3(row.survival_probability, 'en'))
    expect((await pdfInfo(pdf)).pageSize).toMatch(/\(A4\)/)
  })

  it('stockingPlanPdf: a named stand’s plan, titled with the stand’s name; stockingPlan answers its JSON', async () => {
    const json = await client().stockingPlan(STAND_PLAN)
    const pdf = await client().stockingPlanPdf(STAND_PLAN, { language: 'en-GB' })
    expect((await pdfInfo(pdf)).title).toContain('North unit')
    expect((await pdfInfo(pdf)).pageSize).toMatch(/\(A4\)/)
    const text = (await pdfText(pdf)).replace(/\s+/g, ' ')
    if (!('meets_standard' in json)) throw new Error('expected a stocking plan')
    expect(text).toContain(p3(json.meets_standard.probability, 'en'))
    for (const horizon of json.horizons) expect(text).toContain(p3(horizon.survival_probability, 'en'))
  })

  it('errors stay the client’s typed errors, with the API’s codes', async () => {
    const outside = await caught(
      client().comparePdf({ ...OUTSIDE_POINTS.boise, species_code: 'PSME' }, { language: 'es' }),
    )
    expect(outside).toMatchObject({ status: 422, code: 'outside_coverage' })
    const invalid = await caught(
      client().stockingPlanPdf({ ...STAND_PLAN, species_mix: [{ species_code: 'PSME', share: 0.5 }] }),
    )
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request' })
    const unkeyed = createSurvivalClient({ baseUrl: running.server.url, apiKey: 'sk_live_not_a_key' })
    expect(
      await caught(unkeyed.rankPdf({ ...FOREST_POINTS.coastRange, planting_method: 'manual', horizon: 5 })),
    ).toMatchObject({
      status: 401,
      code: 'invalid_api_key',
    })
  })

  it('retries a 503 as any call does, then returns the PDF', async () => {
    const proxy = await startProxy(running.server.url, {
      answer: (req, res, seen) =>
        req.url === '/v1/predict/compare' &&
        seen === 1 &&
        answerError(res, 503, 'service_unavailable', { 'retry-after': '1' }),
    })
    try {
      const pdf = await client(proxy.url).comparePdf({ ...FOREST_POINTS.coastRange, species_code: 'PSME' })
      expect(isPdf(pdf)).toBe(true)
      expect(proxy.requests.filter((line) => line === 'POST /v1/predict/compare')).toHaveLength(2)
    } finally {
      await proxy.close()
    }
  })
})
