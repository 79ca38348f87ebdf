import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { calibrationSurveys } from '../../../test/support/calibration-surveys.ts'
import {
  type SeededServer,
  startSeededServer,
  stopSeededServer,
} from '../../../test/support/seeded-server.ts'
import {
  type CalibrationFailedDetails,
  type CalibrationRun,
  createSurvivalClient,
  type PredictRequest,
  type SurveyPlotInput,
  SurvivalApiError,
  type SurvivalClient,
} from '../src/client.ts'
import { startProxy, type TestProxy } from './support.ts'

/**
 * Calibrations through the typed client: against a live server (real PostgreSQL and Redis), whose fit
 * on these surveys ends within its wait (201); the 202 path through a proxy that answers the start as
 * still running and the first polls likewise before letting the server's status through; failures,
 * aborts and timeouts against a stub.
 */

const PLOTS = calibrationSurveys() as unknown as SurveyPlotInput[]
const VERSION = /^0\.2\+cal\.[0-9a-f]{8}$/
/** A Douglas-fir planted by hand on the first surveyed point: its calibration has 144 plots behind it. */
const site = (): PredictRequest => ({
  latitude: PLOTS[0]?.latitude ?? 0,
  longitude: PLOTS[0]?.longitude ?? 0,
  species_code: 'PSME',
  planting_method: 'manual',
})

async function caught(promise: Promise<unknown>): Promise<SurvivalApiError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof SurvivalApiError) return error
    throw error
  }
  throw new Error('expected a SurvivalApiError')
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error('expected a rejection')
}

function answerJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
  return true
}

/** The run as it stood while running: what a 202 and an early poll answer. */
function stillRunning(run: CalibrationRun): CalibrationRun {
  return {
    ...run,
    status: 'running',
    progress: { ...run.progress, stages_done: 2 },
    model_version: null,
    model: null,
    finished_at: null,
    links: { ...run.links, model: null },
  }
}

describe('calibrations against a live server', () => {
  let running: SeededServer
  let api: SurvivalClient
  let version: string
  let calibrationId: string
  beforeAll(async () => {
    running = await startSeededServer({}, 'mycel')
    api = createSurvivalClient({ baseUrl: running.server.url, apiKey: running.key })
    expect((await api.storeSurveys(PLOTS)).stored).toBe(288)
  })
  afterAll(() => stopSeededServer(running))

  it('calibrate: a fit within the server’s wait (201) resolves at once with its version and fit', async () => {
    const seen: string[] = []
    const made = await api.calibrate(undefined, { onProgress: (run) => seen.push(run.status) })
    expect(seen).toEqual(['succeeded'])
    expect(made).toMatchObject({ status: 'succeeded', error: null, progress: { stages: 6, plots: 288 } })
    expect(made.model_version).toMatch(VERSION)
    version = made.model_version
    calibrationId = made.id
    expect(made.model).toMatchObject({ version, kind: 'calibrated', parent: '0.2', default: false })
    expect(made.model.fit.offsets).toHaveLength(40)
    expect(made.model.fit.cross_validation.beats_base).toBe(true)
    expect((await api.model(version)).fit?.offsets).toEqual(made.model.fit.offsets)
    expect((await api.models()).models[0]?.version).toBe(version)
  })

  it('calibrate sends the filter; too few plots is not_enough_surveys', async () => {
    const psme = await api.calibrate({ species_code: 'PSME', bbox: [-125, 42, -116, 49] })
    expect(psme.model_version).toMatch(VERSION)
    expect(psme.model_version).not.toBe(version)
    expect(psme.model.fit.surveys).toMatchObject({
      filter: { species_code: 'PSME', bbox: [-125, 42, -116, 49] },
      plots: 144,
    })
    const none = await caught(api.calibrate({ species_code: 'TSHE' }))
    expect(none).toMatchObject({ status: 422, code: 'not_enough_surveys' })
  })

  it('a calibrated version pins a prediction and the survey report', async () => {
    const pinned = await api.predict({ ...site(), model_version: version })
    expect(pinned.model.version).toBe(version)
    expect(pinned.calibration).toMatchObject({ interval_level: 0.9, plots: 144 })
    const report = await api.surveyReport({ species_code: 'PSME' }, { modelVersion: version })
    expect(report.model_version).toBe(version)
    expect((await api.surveyReport({ species_code: 'PSME' })).model_version).toBe('0.2')
  })

  it('setDefaultModel: a calibrated version answers unpinned requests, null goes back', async () => {
    const chosen = await api.setDefaultModel(version)
    expect(chosen).toMatchObject({ version, kind: 'calibrated', default: true })
    expect((await api.models()).models.find((m) => m.default)?.version).toBe(version)
    const unpinned = await api.predict(site())
    expect(unpinned.model.version).toBe(version)
    expect((await api.surveyReport()).model_version).toBe(version)

    const base = await api.setDefaultModel(null)
    expect(base).toMatchObject({ version: '0.2', kind: 'base', default: true })
    expect((await api.predict(site())).model.version).toBe('0.2')
    const refused = await caught(api.setDefaultModel('9.9'))
    expect(refused).toMatchObject({ status: 422, code: 'invalid_model_version' })
    expect((await api.model('0.2')).default).toBe(true)
  })

  it('calibration(id): the run as it stands; an unknown id is not_found', async () => {
    const run = await api.calibration(calibrationId)
    expect(run).toMatchObject({ id: calibrationId, status: 'succeeded', model_version: version })
    expect(await caught(api.calibration(randomUUID()))).toMatchObject({ status: 404, code: 'not_found' })
    expect(await caught(api.calibration('not-a-uuid'))).toMatchObject({ status: 404, code: 'not_found' })
  })

  it('calibrate: a 202 is polled with backoff until the server’s status says succeeded', async () => {
    const upstream = running.server.url
    const key = running.key
    const polledAt: number[] = []
    let started: CalibrationRun | null = null
    const proxy = await startProxy(upstream, {
      answer: (req, res, seen) => {
        if (req.method === 'POST' && req.url === '/v1/models/calibrations') {
          // The server's own start, answered as if its fit had outlasted the wait.
          void startUpstream(req, upstream, key).then((run) => {
            started = run
            answerJson(res, 202, stillRunning(run), { location: run.links.self, 'request-id': 'proxy-202' })
          })
          return true
        }
        if (req.method === 'GET' && req.url?.startsWith('/v1/models/calibrations/')) {
          polledAt.push(Date.now())
          if (seen <= 2 && started) return answerJson(res, 200, stillRunning(started))
        }
        return false
      },
    })
    try {
      const client = createSurvivalClient({ baseUrl: proxy.url, apiKey: key })
      const statuses: string[] = []
      const made = await client.calibrate(
        {},
        { pollMs: 100, backoff: 2, onProgress: (run) => statuses.push(run.status) },
      )
      expect(statuses).toEqual(['running', 'running', 'running', 'succeeded'])
      expect(made).toMatchObject({ status: 'succeeded', model_version: version, model: { version } })
      const self = `GET /v1/models/calibrations/${made.id}`
      expect(proxy.requests).toEqual(['POST /v1/models/calibrations', self, self, self])
      const gaps = polledAt.slice(1).map((at, i) => at - (polledAt[i] ?? 0))
      expect(gaps[0]).toBeGreaterThanOrEqual(190) // 100 ms, then 200 ms, then 400 ms
      expect(gaps[1]).toBeGreaterThanOrEqual(390)
    } finally {
      await proxy.close()
    }
  })
})

/** Sends the proxied start to the server itself and returns its answer (a 201: the fit is quick). */
async function startUpstream(req: IncomingMessage, upstream: string, key: string): Promise<CalibrationRun> {
  const chunks: Buffer[] = []
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk)
  const answer = await fetch(`${upstream}/v1/models/calibrations`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: Buffer.concat(chunks),
  })
  expect(answer.status).toBe(201)
  return (await answer.json()) as CalibrationRun
}

describe('calibrate’s wait, against a stub', () => {
  const id = randomUUID()
  const run: CalibrationRun = {
    id,
    status: 'running',
    filter: { species_code: null, planting_method: null, bbox: null, surveyed_from: null, surveyed_to: null },
    progress: { stages_done: 1, stages: 6, plots: 300 },
    model_version: null,
    error: null,
    created_at: '2026-11-27T05:07:03.595Z',
    finished_at: null,
    links: { self: `/v1/models/calibrations/${id}`, model: null },
    model: null,
  }
  const failed: CalibrationRun = {
    ...run,
    status: 'failed',
    error: { code: 'interrupted', message: 'The server running it stopped' },
    finished_at: '2026-11-27T05:07:09.000Z',
  }
  let stub: TestProxy
  /** What the stub answers the n-th poll with (the start is always a 202). */
  let poll: (n: number) => CalibrationRun
  beforeAll(async () => {
    stub = await startProxy('http://127.0.0.1:9', {
      answer: (req, res, seen) => {
        if (req.method === 'POST') return answerJson(res, 202, run, { location: run.links.self })
        return answerJson(res, 200, poll(seen), { 'request-id': `poll-${seen}` })
      },
    })
  })
  afterAll(() => stub.close())
  const client = () => createSurvivalClient({ baseUrl: stub.url, apiKey: 'tsp_live_stub' })
  const polls = () => stub.requests.filter((line) => line.startsWith('GET')).length

  it('a calibration that fails rejects with calibration_failed, the run in its details', async () => {
    stub.requests.length = 0
    poll = (n) => (n < 3 ? run : failed)
    const error = await caught(client().calibrate({ species_code: 'PSME' }, { pollMs: 10 }))
    expect(error).toMatchObject({ status: 200, code: 'calibration_failed', requestId: 'poll-3' })
    expect(error.message).toContain(id)
    expect(error.message).toContain('interrupted')
    const details = error.details as unknown as CalibrationFailedDetails
    expect(details).toMatchObject({ calibration: id, reason: 'interrupted', run: { status: 'failed' } })
    expect(polls()).toBe(3)
  })

  it('a start answered as failed (201) rejects without polling', async () => {
    const once = await startProxy('http://127.0.0.1:9', {
      answer: (_req, res) => answerJson(res, 201, failed, { location: run.links.self }),
    })
    try {
      const api = createSurvivalClient({ baseUrl: once.url, apiKey: 'tsp_live_stub' })
      const error = await caught(api.calibrate())
      expect(error).toMatchObject({ status: 201, code: 'calibration_failed' })
      expect(once.requests).toEqual(['POST /v1/models/calibrations'])
    } finally {
      await once.close()
    }
  })

  it('an abort ends the wait with the AbortError, and the polling with it', async () => {
    stub.requests.length = 0
    poll = () => run
    const controller = new AbortController()
    const waiting = client().calibrate(
      {},
      {
        pollMs: 20,
        signal: controller.signal,
        onProgress: () => {
          if (polls() === 2) controller.abort()
        },
      },
    )
    const error = await rejection(waiting)
    expect(error).not.toBeInstanceOf(SurvivalApiError)
    expect(error.name).toBe('AbortError')
    const after = polls()
    expect(after).toBe(2)
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect(polls()).toBe(after)
  })

  it('timeoutMs ends the wait with a TimeoutError naming the calibration', async () => {
    stub.requests.length = 0
    poll = () => run
    const started = Date.now()
    const error = await rejection(client().calibrate({}, { pollMs: 20, backoff: 1, timeoutMs: 250 }))
    expect(error.name).toBe('TimeoutError')
    expect(error.message).toContain(`calibration ${id}`)
    expect(Date.now() - started).toBeLessThan(2000)
    const after = polls()
    expect(after).toBeGreaterThanOrEqual(5)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(polls()).toBe(after)
  })
})
