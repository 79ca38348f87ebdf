import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type SeededServer,
  startSeededServer,
  stopSeededServer,
} from '../../../test/support/seeded-server.ts'
import { FOREST_POINTS } from '../../../test/support/sites.ts'
import {
  createSurvivalClient,
  type SurveyPlot,
  type SurveyPlotInput,
  SurvivalApiError,
} from '../src/client.ts'
import { startProxy } from './support.ts'

/** The client's survey methods against a live server (real PostgreSQL and Redis). */

const SLASHED = 'Unit 4/NE corner'

const plot = (plotId: string, overrides: Partial<SurveyPlotInput> = {}): SurveyPlotInput => ({
  plot_id: plotId,
  ...FOREST_POINTS.coastRange,
  species_code: 'PSME',
  planting_method: 'manual',
  planted_on: '2021-03-15',
  surveyed_on: '2024-03-15',
  planted: 40,
  alive: 31,
  ...overrides,
})

/** Five plots: three Douglas-fir in the Coast Range (one id with a space and a slash), two hemlock. */
const PLOTS: SurveyPlotInput[] = [
  plot(SLASHED, { protocol: 'or_fpa_stocking' }),
  plot('U4-01', { alive: 28 }),
  plot('U4-02', { planted_on: '2022', surveyed_on: '2025-03-01' }),
  plot('W-1', { ...FOREST_POINTS.westCascades, species_code: 'TSHE', planted: 60, alive: 45 }),
  plot('W-2', { ...FOREST_POINTS.westCascades, species_code: 'TSHE', planted: 50, alive: 20 }),
]

async function caught(promise: Promise<unknown>): Promise<SurvivalApiError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof SurvivalApiError) return error
    throw error
  }
  throw new Error('expected a SurvivalApiError')
}

describe('survey methods against a live server', () => {
  let running: SeededServer
  beforeAll(async () => {
    running = await startSeededServer({}, 'mycel')
  })
  afterAll(() => stopSeededServer(running))
  const client = () => createSurvivalClient({ baseUrl: running.server.url, apiKey: running.key })

  it('storeSurveys: every plot as kept, with its site and predicted survival', async () => {
    const stored = await client().storeSurveys(PLOTS, { requestId: 'surveys-store-1' })
    expect(stored.stored).toBe(5)
    expect(stored.plots.map((p) => p.plot_id)).toEqual(PLOTS.map((p) => p.plot_id))
    const [first] = stored.plots
    expect(first).toMatchObject({ plot_id: SLASHED, observed_survival: 31 / 40, protocol: 'or_fpa_stocking' })
    expect(first?.predicted_survival).toBeGreaterThan(0)
    expect(first?.predicted_survival).toBeLessThan(1)
    expect(first?.site.match_distance_km).toBeGreaterThanOrEqual(0)
    expect(stored.plots[2]?.planted_on).toBe('2022-03-01')
  })

  it('allSurveys: follows next_cursor page by page (limit 2 over 5 plots), one page at a time', async () => {
    const proxy = await startProxy(running.server.url)
    try {
      const api = createSurvivalClient({ baseUrl: proxy.url, apiKey: running.key })
      const seen: SurveyPlot[] = []
      for await (const kept of api.allSurveys({ limit: 2 })) seen.push(kept)
      expect(seen.map((p) => p.plot_id).sort()).toEqual(PLOTS.map((p) => p.plot_id).sort())
      expect(proxy.requests).toHaveLength(3)
      expect(proxy.requests[0]).toBe('GET /v1/surveys?limit=2')
      expect(proxy.requests.slice(1).every((line) => /^GET \/v1\/surveys\?limit=2&cursor=./.test(line))).toBe(
        true,
      )

      // Lazy: the second page is asked for only when the first is used up.
      proxy.requests.length = 0
      for await (const _kept of api.allSurveys({ limit: 2 })) break
      expect(proxy.requests).toHaveLength(1)

      // The same order as the pages of `surveys`.
      const firstPage = await api.surveys({ limit: 2 })
      expect(firstPage.plots.map((p) => p.plot_id)).toEqual(seen.slice(0, 2).map((p) => p.plot_id))
      expect(firstPage.next_cursor).toEqual(expect.any(String))
    } finally {
      await proxy.close()
    }
  })

  it('surveys: the filters, bbox as "west,south,east,north"', async () => {
    const api = client()
    const hemlock = await api.surveys({ species_code: 'TSHE' })
    expect(hemlock.plots.map((p) => p.plot_id)).toEqual(['W-1', 'W-2'])
    expect(hemlock.next_cursor).toBeNull()
    const { latitude, longitude } = FOREST_POINTS.westCascades
    const bbox = `${longitude - 0.01},${latitude - 0.01},${longitude + 0.01},${latitude + 0.01}`
    expect((await api.surveys({ bbox })).plots.map((p) => p.species_code)).toEqual(['TSHE', 'TSHE'])
    const recent = await api.surveys({ surveyed_from: '2025-01-01', surveyed_to: '2025-12-31' })
    expect(recent.plots.map((p) => p.plot_id)).toEqual(['U4-02'])
  })

  it('surveyPlot: percent-encodes an id with a space and a slash', async () => {
    const proxy = await startProxy(running.server.url)
    try {
      const api = createSurvivalClient({ baseUrl: proxy.url, apiKey: running.key })
      const read = await api.surveyPlot(SLASHED)
      expect(read.plot_id).toBe(SLASHED)
      expect(read.surveys.map((s) => [s.plot_id, s.surveyed_on])).toEqual([[SLASHED, '2024-03-15']])
      expect(proxy.requests).toEqual(['GET /v1/surveys/Unit%204%2FNE%20corner'])
    } finally {
      await proxy.close()
    }
    const missing = await caught(client().surveyPlot('never-stored'))
    expect(missing).toMatchObject({ status: 404, code: 'not_found' })
  })

  it('surveyReport: the overall count, and the same filters as the list', async () => {
    const api = client()
    const report = await api.surveyReport()
    expect(report.interval_level).toBe(0.9)
    expect(report.overall?.plots).toBe(5)
    expect(report.overall?.trees_planted).toBe(40 * 3 + 60 + 50)
    expect(report.reliability).toHaveLength(10)
    const hemlock = await api.surveyReport({ species_code: 'TSHE' })
    expect(hemlock.overall?.plots).toBe(2)
    expect(new Set(hemlock.groups.map((g) => g.species_code))).toEqual(new Set(['TSHE']))
  })

  it('an invalid plot: SurvivalApiError 400 invalid_request naming its index, nothing stored', async () => {
    const api = client()
    const refused = await caught(
      api.storeSurveys([plot('never-kept'), plot('bad', { alive: 41 })], { requestId: 'surveys-bad-1' }),
    )
    expect(refused).toMatchObject({
      status: 400,
      code: 'invalid_request',
      requestId: 'surveys-bad-1',
      details: { index: 1, field: 'alive' },
    })
    expect(await caught(api.surveyPlot('never-kept'))).toMatchObject({ status: 404 })
  })

  it('deleteSurveyPlot, then deleteAllSurveys', async () => {
    const api = client()
    expect(await api.deleteSurveyPlot(SLASHED)).toEqual({ plot_id: SLASHED, deleted: 1 })
    expect(await caught(api.surveyPlot(SLASHED))).toMatchObject({ status: 404, code: 'not_found' })
    expect(await caught(api.deleteSurveyPlot(SLASHED))).toMatchObject({ status: 404, code: 'not_found' })
    expect(await api.deleteAllSurveys()).toEqual({ deleted: 4 })
    expect(await api.surveys()).toEqual({ plots: [], next_cursor: null })
    expect((await api.surveyReport()).overall).toBeNull()
    expect(await api.deleteAllSurveys()).toEqual({ deleted: 0 })
  })
})
