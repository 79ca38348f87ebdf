import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import type { IncomingHttpHeaders } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { createGzip } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type SeededServer,
  startSeededServer,
  stopSeededServer,
} from '../../../test/support/seeded-server.ts'
import { FOREST_POINTS } from '../../../test/support/sites.ts'
import {
  createSurvivalClient,
  type SurveyRefusedRow,
  type SurveyUploadRefusedDetails,
  SurvivalApiError,
} from '../src/client.ts'
import { answerError, startProxy } from './support.ts'
import { SURVEY_HEADER, surveyCsv, surveyCsvRow, surveyPlot } from './survey-files.ts'

/** The client's survey uploads against a live server (real PostgreSQL and Redis). */

async function caught(promise: Promise<unknown>): Promise<SurvivalApiError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof SurvivalApiError) return error
    throw error
  }
  throw new Error('expected a SurvivalApiError')
}

describe('survey uploads through the typed client', () => {
  let running: SeededServer
  let dir: string
  beforeAll(async () => {
    running = await startSeededServer({}, 'mycel')
    dir = mkdtempSync(join(tmpdir(), 'client-survey-uploads-'))
  })
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    await stopSeededServer(running)
  })
  const client = () => createSurvivalClient({ baseUrl: running.server.url, apiKey: running.key })
  const storedIds = async (prefix: string) =>
    (await client().surveys({ limit: 1000 })).plots
      .map((plot) => plot.plot_id)
      .filter((id) => id.startsWith(prefix))

  it('uploadSurveys streams a CSV file (chunked text/csv) and returns the committed upload, typed', async () => {
    const file = join(dir, 'plots.csv')
    writeFileSync(
      file,
      [`${SURVEY_HEADER},crew`, `${surveyCsvRow('file-1')},north`, `${surveyCsvRow('file-2')},south`].join(
        '\n',
      ),
    )
    let headers: IncomingHttpHeaders = {}
    const proxy = await startProxy(running.server.url, {
      answer: (req) => {
        headers = { ...req.headers }
        return false
      },
    })
    try {
      const api = createSurvivalClient({ baseUrl: proxy.url, apiKey: running.key })
      const progress: number[] = []
      const upload = await api.uploadSurveys(file, {
        contentType: 'text/csv',
        onProgress: (bytes) => progress.push(bytes),
        requestId: 'survey-upload-1',
      })
      expect(upload).toMatchObject({
        status: 'committed',
        format: 'csv',
        skip_invalid: false,
        rows: 2,
        valid_rows: 2,
        refused_rows: 0,
        stored: 2,
        ignored_columns: ['crew'],
        failure: null,
        refused: [],
        next_cursor: null,
      })
      expect(upload.upload_id).toMatch(/^upl_[0-9a-f]{24}$/)
      expect(proxy.requests).toEqual(['POST /v1/surveys/uploads'])
      expect(headers).toMatchObject({
        'content-type': 'text/csv',
        'transfer-encoding': 'chunked',
        'request-id': 'survey-upload-1',
      })
      expect(headers['content-length']).toBeUndefined()
      expect(headers['content-encoding']).toBeUndefined()
      expect(progress.at(-1)).toBe(statSync(file).size)
    } finally {
      await proxy.close()
    }
    expect(await storedIds('file-')).toEqual(['file-1', 'file-2'])
  })

  it('takes a gzipped Node stream, a Blob and an AsyncIterable of bytes; skipInvalid reports the refused rows', async () => {
    const seen: IncomingHttpHeaders[] = []
    const proxy = await startProxy(running.server.url, {
      answer: (req) => {
        seen.push({ ...req.headers })
        return false
      },
    })
    try {
      const api = createSurvivalClient({ baseUrl: proxy.url, apiKey: running.key })
      const ndjson = [JSON.stringify(surveyPlot('stream-1')), 'not json', ''].join('\n')
      const zipped = Readable.from([Buffer.from(ndjson)]).pipe(createGzip())
      const lines = await api.uploadSurveys(zipped, {
        contentType: 'application/x-ndjson',
        gzip: true,
        skipInvalid: true,
      })
      expect(lines).toMatchObject({ status: 'committed', format: 'ndjson', rows: 2, stored: 1 })
      expect(lines.refused).toEqual([
        { row: 2, plot_id: null, field: '(row)', code: 'invalid_json', reason: 'is not valid JSON' },
      ] satisfies SurveyRefusedRow[])
      expect(seen[0]).toMatchObject({ 'content-encoding': 'gzip', 'content-type': 'application/x-ndjson' })
      expect(proxy.requests[0]).toBe('POST /v1/surveys/uploads?skip_invalid=true')

      const { latitude: _, longitude: __, ...properties } = surveyPlot('blob-1')
      const { longitude, latitude } = FOREST_POINTS.coastRange
      const collection = {
        type: 'FeatureCollection',
        features: [
          { type: 'Feature', geometry: { type: 'Point', coordinates: [longitude, latitude] }, properties },
        ],
      }
      const features = await api.uploadSurveys(new Blob([JSON.stringify(collection)]), {
        contentType: 'application/geo+json',
      })
      expect(features).toMatchObject({ status: 'committed', format: 'geojson', rows: 1, stored: 1 })

      async function* chunks(): AsyncGenerator<Uint8Array> {
        const text = surveyCsv(['iter-1', 'iter-2'])
        for (let at = 0; at < text.length; at += 50) yield new TextEncoder().encode(text.slice(at, at + 50))
      }
      const iterated = await api.uploadSurveys(chunks(), { contentType: 'text/csv' })
      expect(iterated).toMatchObject({ status: 'committed', rows: 2, stored: 2 })
    } finally {
      await proxy.close()
    }
    expect(await storedIds('blob-')).toEqual(['blob-1'])
    expect(await storedIds('iter-')).toEqual(['iter-1', 'iter-2'])
  })

  it('rows refused without skipInvalid: 422 survey_upload_refused, nothing stored; the refused rows read back page by page', async () => {
    const api = client()
    const body = surveyCsv(['refused-ok'], ['refused-1', 'refused-2', 'refused-3', 'refused-4', 'refused-5'])
    const error = await caught(api.uploadSurveys(new Blob([body]), { contentType: 'text/csv' }))
    expect(error).toMatchObject({ status: 422, code: 'survey_upload_refused' })
    const details = error.details as SurveyUploadRefusedDetails
    expect(details).toMatchObject({ rows: 6, refused_rows: 5 })
    expect(details.refused.map((row) => [row.row, row.plot_id, row.field])).toEqual([
      [2, 'refused-1', 'alive'],
      [3, 'refused-2', 'alive'],
      [4, 'refused-3', 'alive'],
      [5, 'refused-4', 'alive'],
      [6, 'refused-5', 'alive'],
    ])
    expect(await storedIds('refused-')).toEqual([])

    const page = await api.surveyUpload(details.upload_id, { limit: 2 })
    expect(page).toMatchObject({
      upload_id: details.upload_id,
      status: 'refused',
      stored: 0,
      failure: { code: 'survey_upload_refused' },
    })
    expect(page.refused).toEqual(details.refused.slice(0, 2))
    expect(page.next_cursor).toEqual(expect.any(String))
    const next = await api.surveyUpload(details.upload_id, { limit: 2, cursor: page.next_cursor })
    expect(next.refused).toEqual(details.refused.slice(2, 4))

    const proxy = await startProxy(running.server.url)
    try {
      const proxied = createSurvivalClient({ baseUrl: proxy.url, apiKey: running.key })
      const all: SurveyRefusedRow[] = []
      for await (const row of proxied.surveyUploadRefusals(details.upload_id, { limit: 2 })) all.push(row)
      expect(all).toEqual(details.refused)
      expect(proxy.requests).toHaveLength(3)
      expect(proxy.requests[0]).toBe(`GET /v1/surveys/uploads/${details.upload_id}?limit=2`)
      expect(proxy.requests.slice(1).every((line) => line.includes('?limit=2&cursor='))).toBe(true)
    } finally {
      await proxy.close()
    }
    expect(await caught(api.surveyUpload('upl_000000000000000000000000'))).toMatchObject({
      status: 404,
      code: 'not_found',
    })
  })

  it('after a 503, a file (path) or a Blob is sent again whole; a stream is sent once', async () => {
    const file = join(dir, 'retry.csv')
    writeFileSync(file, surveyCsv(['retry-1']))
    const proxy = await startProxy(running.server.url, {
      answer: (req, res, seen) =>
        req.method === 'POST' &&
        seen % 2 === 1 &&
        answerError(res, 503, 'service_unavailable', { 'retry-after': '0' }),
    })
    try {
      const api = createSurvivalClient({ baseUrl: proxy.url, apiKey: running.key })
      expect(await api.uploadSurveys(file, { contentType: 'text/csv' })).toMatchObject({ stored: 1 })
      expect(proxy.requests).toEqual(['POST /v1/surveys/uploads', 'POST /v1/surveys/uploads'])
      const blob = new Blob([surveyCsv(['retry-2'])])
      expect(await api.uploadSurveys(blob, { contentType: 'text/csv' })).toMatchObject({ stored: 1 })
      expect(proxy.requests).toHaveLength(4)

      const stream = Readable.from([Buffer.from(surveyCsv(['retry-3']))])
      const refused = await caught(api.uploadSurveys(stream, { contentType: 'text/csv' }))
      expect(refused).toMatchObject({ status: 503, code: 'service_unavailable' })
      expect(proxy.requests).toHaveLength(5)
    } finally {
      await proxy.close()
    }
    expect(await storedIds('retry-')).toEqual(['retry-1', 'retry-2'])
  })
})
