import { mkdirSync } from 'node:fs'
import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collectionText, finished, mixedFeatures, ndjsonRecords, QUERY } from '../jobs/geojson-jobs.ts'
import { calibrationSurveys } from '../support/calibration-surveys.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { pdfInfo, pdfPages, pdfText } from '../support/pdf-tools.ts'
import { deleteKeysWithPrefix } from '../support/redis.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { forestGrid, NO_DATA_POINTS, OUTSIDE_POINTS } from '../support/sites.ts'
import { expectError, type RestResult, rest, restBytes } from './client.ts'

/**
 * PDF reports of a finished job (GET /v1/jobs/{id}/report.pdf) and of the survey check
 * (GET /v1/surveys/report with `Accept: application/pdf`), end to end on a seeded PostgreSQL with a
 * fixed clock (docs/reports.md). Each is read back with poppler-utils: a job's report holds the
 * numbers summed independently here from its downloaded results, a survey report every number of the
 * JSON answer to the same query, in English and Spanish; pdfinfo shows pages, title, language and
 * tags; every page renders (kept in REPORT_PNG_DIR when set).
 */

const NOW = new Date('2026-03-14T09:26:53.000Z')
const PNG_DIR = process.env.REPORT_PNG_DIR
/** Rows of the CSV job: 25 chunks of 50, read by the report in pages of 16 chunks. */
const JOB_ROWS = 1_245

type Language = 'en' | 'es'
// biome-ignore lint/suspicious/noExplicitAny: JSON answers are walked freely
type Json = any

let db: TestDatabase
let server: TestServer
let owner: string
let other: string

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({
    database: db,
    now: () => NOW,
    jobChunkRows: 50,
    calibrationWaitMs: 60_000,
  })
  owner = (await issueKey(db, 'mycel')).key
  other = (await issueKey(db, 'mycel')).key
  if (PNG_DIR) mkdirSync(PNG_DIR, { recursive: true })
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
})

const LANGUAGE_HEADERS: Record<Language, string> = { en: 'en-US,en;q=0.9', es: 'es-ES,es;q=0.9' }

function get(path: string, headers: Record<string, string> = {}, key = owner) {
  return restBytes(server.url, 'GET', path, { key, headers })
}

function format(value: number, language: Language, decimals: { fixed?: number; upTo?: number }) {
  const text = new Intl.NumberFormat(language === 'es' ? 'es-ES' : 'en-US', {
    minimumFractionDigits: decimals.fixed ?? 0,
    maximumFractionDigits: decimals.fixed ?? decimals.upTo ?? 0,
  }).format(value)
  return /^-0([.,]0*)?$/.test(text) ? text.slice(1) : text
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Whether `printed` stands alone in the text: no digit, nor a decimal mark and digit, around it. */
function standsAlone(text: string, printed: string): boolean {
  return new RegExp(`(?<![\\d.,])${escapeRegExp(printed)}(?![\\d]|[.,]\\d)`).test(text.replace(/\s+/g, ' '))
}

/** The report's text before its reproduction section (which repeats the request). */
function beforeReproduction(text: string, language: Language): string {
  const at = text.lastIndexOf(language === 'es' ? 'Cómo reproducir este informe' : 'Reproduce this report')
  expect(at, 'the report has a reproduction section').toBeGreaterThan(0)
  return text.slice(0, at)
}

async function expectWellFormed(
  result: RestResult & { bytes: Uint8Array },
  language: Language,
  name: string,
) {
  expect(result.status, result.text.slice(0, 300)).toBe(200)
  expect(result.headers.get('content-type')).toBe('application/pdf')
  expect(result.headers.get('content-language')).toBe(language)
  expect(Buffer.from(result.bytes.subarray(0, 5)).toString()).toBe('%PDF-')
  const info = await pdfInfo(result.bytes)
  expect(info.pages).toBeGreaterThanOrEqual(1)
  expect(info.pages).toBeLessThanOrEqual(3)
  expect(info.tagged).toBe(true)
  expect(info.metadata).toContain(`<rdf:li>${language}</rdf:li>`)
  expect(Buffer.from(result.bytes).toString('latin1')).toContain(`/Lang (${language})`)
  const text = await pdfText(result.bytes)
  expect(text.replace(/\s+/g, ' ')).toContain(info.title)
  expect(text).toContain(result.headers.get('request-id'))
  expect(text).toContain(NOW.toISOString())
  const pages = await pdfPages(result.bytes, PNG_DIR ? 70 : 30, PNG_DIR ? { dir: PNG_DIR, name } : undefined)
  expect(pages).toHaveLength(info.pages)
  for (const page of pages) expect(page.subarray(1, 4).toString()).toBe('PNG')
  return { info, text }
}

function expectJsonError(result: RestResult, status: number, code: string) {
  expect(result.headers.get('content-type')).toMatch(/^application\/json/)
  return expectError(result, status, code)
}

/** What the report of a job must say, summed here from its CSV results with plain comparisons. */
function expectedOfResults(rows: Record<string, string>[]) {
  const failed = rows.filter((row) => row.error_code !== '')
  const errors = new Map<string, number>()
  for (const row of failed)
    errors.set(row.error_code as string, (errors.get(row.error_code as string) ?? 0) + 1)
  const horizons = (['1y', '3y', '5y'] as const).map((name) => {
    const values = rows
      .filter((row) => row.error_code === '' && row[`survival_${name}`] !== '')
      .map((row) => Number(row[`survival_${name}`]))
    const bins = Array.from(
      { length: 10 },
      (_, k) => values.filter((v) => v >= k / 10 && (k === 9 ? v <= 1 : v < (k + 1) / 10)).length,
    )
    return {
      name,
      rows: values.length,
      bins,
      mean: values.reduce((sum, v) => sum + v, 0) / (values.length || 1),
      lowest: Math.min(...values),
      highest: Math.max(...values),
    }
  })
  return { rows: rows.length, failed: failed.length, errors, horizons }
}

describe('GET /v1/jobs/{id}/report.pdf', () => {
  let jobId: string
  let expected: ReturnType<typeof expectedOfResults>
  let status: Json

  beforeAll(async () => {
    const grid = forestGrid(JOB_ROWS - 3)
    const csv = [
      'id,latitude,longitude,species_code,planting_method,horizons,note',
      ...grid.map(
        (p, i) =>
          `r${i + 1},${p.latitude},${p.longitude},${i % 4 === 0 ? 'TSHE' : 'PSME'},manual,${
            ['1|3|5', '1|5', '3'][i % 3]
          },row ${i}`,
      ),
      `bad1,${NO_DATA_POINTS.downtownPortland.latitude},${NO_DATA_POINTS.downtownPortland.longitude},PSME,manual,,city`,
      `bad2,${OUTSIDE_POINTS.boise.latitude},${OUTSIDE_POINTS.boise.longitude},PSME,manual,,idaho`,
      `bad3,44.6,-123.6,XXXX,manual,,unknown species`,
      '',
    ].join('\n')
    const accepted = await rest(server.url, 'POST', '/v1/jobs', {
      key: owner,
      raw: csv,
      contentType: 'text/csv',
    })
    expect(accepted.status, accepted.text).toBe(202)
    jobId = accepted.body.id
    const done = await finished(server.url, owner, jobId)
    expect(done.status).toBe('succeeded')
    status = (await rest(server.url, 'GET', `/v1/jobs/${jobId}`, { key: owner })).body
    const results = await rest(server.url, 'GET', `/v1/jobs/${jobId}/results`, {
      key: owner,
      headers: { accept: 'text/csv' },
    })
    expected = expectedOfResults(parse(results.text, { columns: true }) as Record<string, string>[])
    expect(expected.rows).toBe(JOB_ROWS)
    expect(expected.failed).toBeGreaterThanOrEqual(3)
  })

  for (const language of ['en', 'es'] as const)
    it(`(${language}) holds the job's counts, failures, survival bins and statistics, from its results`, async () => {
      const report = await get(`/v1/jobs/${jobId}/report.pdf`, {
        'accept-language': LANGUAGE_HEADERS[language],
      })
      expect(report.headers.get('content-disposition')).toBe('inline; filename="job-report.pdf"')
      const { info, text } = await expectWellFormed(report, language, `job-${language}`)
      expect(info.title).toContain(jobId)
      expect(info.pageSize).toMatch(language === 'en' ? /\(letter\)/ : /\(A4\)/)
      const answer = beforeReproduction(text, language)
      const flat = answer.replace(/\s+/g, ' ')
      const count = (value: number) => format(value, language, { upTo: 0 })
      const p = (value: number) => format(value, language, { fixed: 3 })

      // The job's status: rows, rows failed, each error code's rows; the model and data versions.
      const missing: string[] = []
      const need = (what: string, printed: string) => {
        if (!standsAlone(answer, printed)) missing.push(`${what}: ${printed}`)
      }
      need('rows_total', count(status.rows_total))
      need('rows_failed', count(status.rows_failed))
      need('rows scored', count(status.rows_total - status.rows_failed))
      expect(status.rows_failed).toBe(expected.failed)
      for (const [code, rows] of Object.entries(status.errors_by_code as Record<string, number>)) {
        expect(expected.errors.get(code)).toBe(rows)
        expect(flat).toMatch(
          new RegExp(`${code} ${escapeRegExp(count(rows))} ${escapeRegExp(p(rows / JOB_ROWS))}`),
        )
      }
      expect(text).toContain(status.model_version)
      for (const version of status.data_versions) expect(text).toContain(version)
      // Each bin's row of the table: its range, then its count at each horizon with rows.
      const present = expected.horizons.filter((h) => h.rows > 0)
      expect(present.map((h) => h.name)).toEqual(['1y', '3y', '5y'])
      for (let k = 0; k < 10; k++) {
        const range = `${format(k / 10, language, { fixed: 1 })}–${format((k + 1) / 10, language, { fixed: 1 })}`
        const counts = present.map((h) => escapeRegExp(count(h.bins[k] ?? 0))).join(' ')
        expect(flat, `bin ${range}`).toMatch(new RegExp(`${escapeRegExp(range)} ${counts}(?![\\d])`))
      }
      // Each horizon's rows, mean, lowest and highest.
      for (const [index, h] of present.entries()) {
        const years = [1, 3, 5][index]
        expect(flat, `horizon ${years}`).toMatch(
          new RegExp(
            `${years} ${[count(h.rows), p(h.mean), p(h.lowest), p(h.highest)].map(escapeRegExp).join(' ')}`,
          ),
        )
      }
      expect(missing).toEqual([])
      expect(text).toContain(language === 'es' ? 'Datos sintéticos' : 'Synthetic data')
    })

  it('on the other paper, and the same bytes for the same request with a fixed clock', async () => {
    const a4 = await get(`/v1/jobs/${jobId}/report.pdf?paper=a4`, { 'accept-language': 'en-US' })
    const { info } = await expectWellFormed(a4, 'en', 'job-en-a4')
    expect(info.pageSize).toMatch(/\(A4\)/)
    const letter = await get(`/v1/jobs/${jobId}/report.pdf?paper=letter`, { 'accept-language': 'es-ES' })
    expect((await expectWellFormed(letter, 'es', 'job-es-letter')).info.pageSize).toMatch(/\(letter\)/)
    const same = { 'accept-language': 'es-ES', 'request-id': 'job-report-determinism' }
    const first = await get(`/v1/jobs/${jobId}/report.pdf`, same)
    const second = await get(`/v1/jobs/${jobId}/report.pdf`, same)
    expect(first.status).toBe(200)
    expect(Buffer.from(second.bytes).equals(Buffer.from(first.bytes))).toBe(true)
  })

  it('counts one request; its status counts none', async () => {
    const remaining = (result: RestResult) =>
      Number(result.headers.get('x-ratelimit-remaining') ?? Number.NaN)
    const before = remaining(await get(`/v1/jobs/${jobId}/report.pdf`))
    expect(before).toBeGreaterThan(0)
    expect(remaining(await rest(server.url, 'GET', `/v1/jobs/${jobId}`, { key: owner }))).toBe(before)
    expect(remaining(await get(`/v1/jobs/${jobId}/report.pdf`))).toBe(before - 1)
  })

  it.each([
    ['another account’s job', () => `/v1/jobs/${jobId}/report.pdf`, () => other, 404, 'not_found'],
    [
      'a job that never was',
      () => `/v1/jobs/job_${'0'.repeat(24)}/report.pdf`,
      () => owner,
      404,
      'not_found',
    ],
    ['an id that is not a job’s', () => '/v1/jobs/nope/report.pdf', () => owner, 404, 'not_found'],
    ['a bad paper', () => `/v1/jobs/${jobId}/report.pdf?paper=a3`, () => owner, 400, 'invalid_request'],
    [
      'paper twice',
      () => `/v1/jobs/${jobId}/report.pdf?paper=a4&paper=a4`,
      () => owner,
      400,
      'invalid_request',
    ],
    [
      'another parameter',
      () => `/v1/jobs/${jobId}/report.pdf?format=csv`,
      () => owner,
      400,
      'invalid_request',
    ],
  ])('%s: the JSON error', async (_name, path, key, code, errorCode) => {
    expectJsonError(await get(path(), { accept: 'application/pdf' }, key()), code, errorCode)
  })

  it('no key: 401', async () => {
    expectJsonError(
      await restBytes(server.url, 'GET', `/v1/jobs/${jobId}/report.pdf`, {}),
      401,
      'invalid_api_key',
    )
  })

  it('a GeoJSON job: its defaults, and its stands meeting and failing the standard', async () => {
    const accepted = await rest(server.url, 'POST', `/v1/jobs?${QUERY}`, {
      key: owner,
      raw: collectionText(mixedFeatures(40)),
      contentType: 'application/geo+json',
    })
    expect(accepted.status, accepted.text).toBe(202)
    const id = accepted.body.id
    expect((await finished(server.url, owner, id)).status).toBe('succeeded')
    const results = await rest(server.url, 'GET', `/v1/jobs/${id}/results`, {
      key: owner,
      headers: { accept: 'application/x-ndjson' },
    })
    const stands = ndjsonRecords(results.text).filter(
      (row) => typeof row.meets_probability === 'number' && row.error_code === null,
    )
    const meeting = stands.filter((row) => (row.meets_probability as number) >= (row.confidence as number))
    expect(stands.length).toBeGreaterThanOrEqual(2)
    for (const language of ['en', 'es'] as const) {
      const report = await get(`/v1/jobs/${id}/report.pdf`, { 'accept-language': LANGUAGE_HEADERS[language] })
      const { text } = await expectWellFormed(report, language, `job-geojson-${language}`)
      const flat = text.replace(/\s+/g, ' ')
      for (const pair of [
        'planting_method=manual',
        'species_code=PSME',
        'trees_per_acre=400',
        'horizons=1|5',
      ])
        expect(flat).toContain(pair)
      const planned = language === 'es' ? 'Rodales planificados' : 'Stands planned'
      const meets =
        language === 'es' ? 'Cumplen la norma con su confianza' : 'Meeting the standard at their confidence'
      const fails = language === 'es' ? 'No la cumplen' : 'Not meeting it'
      expect(flat).toContain(`${planned} ${stands.length}`)
      expect(flat).toContain(`${meets} ${meeting.length}`)
      expect(flat).toContain(`${fails} ${stands.length - meeting.length}`)
    }
  })
})

describe('GET /v1/jobs/{id}/report.pdf of a job not finished (BullMQ queue, no worker)', () => {
  let queuedDb: TestDatabase
  let queued: TestServer
  let key: string

  beforeAll(async () => {
    queuedDb = await createSeededDatabase()
    queued = await startTestServer({ database: queuedDb, jobQueue: 'redis', jobWorkers: false })
    key = (await issueKey(queuedDb, 'mycel')).key
  })

  afterAll(async () => {
    await queued?.close()
    await deleteKeysWithPrefix(`${queued?.quotaPrefix}bull`)
    await queuedDb?.drop()
  })

  it('answers 409 job_not_finished, as its results do', async () => {
    const csv = ['latitude,longitude,species_code,planting_method', '44.6,-123.6,PSME,manual', ''].join('\n')
    const accepted = await rest(queued.url, 'POST', '/v1/jobs', { key, raw: csv, contentType: 'text/csv' })
    expect(accepted.status).toBe(202)
    const report = await restBytes(queued.url, 'GET', `/v1/jobs/${accepted.body.id}/report.pdf`, {
      key,
      headers: { accept: 'application/pdf' },
    })
    expectJsonError(report, 409, 'job_not_finished')
  })
})

/** How docs/reports.md prints a survey report's number, by its field. */
function surveyPrinted(path: string): { fixed?: number; upTo?: number } {
  const field =
    path
      .split('.')
      .at(-1)
      ?.replace(/\[\d+\]$/, '') ?? ''
  if (/^(plots|trees_planted|trees_alive|trees)$/.test(field)) return { upTo: 0 }
  if (field === 'from' || field === 'to') return { fixed: 1 }
  return { fixed: 3 }
}

function numbersOf(value: Json, path = ''): { path: string; value: number }[] {
  if (typeof value === 'number') return [{ path, value }]
  if (Array.isArray(value)) return value.flatMap((item, index) => numbersOf(item, `${path}[${index}]`))
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([name, item]) => numbersOf(item, path ? `${path}.${name}` : name))
  return []
}

describe('GET /v1/surveys/report as a PDF', () => {
  let calibrated: string

  beforeAll(async () => {
    const sent = await rest(server.url, 'POST', '/v1/surveys', {
      key: owner,
      json: { plots: calibrationSurveys() },
    })
    expect(sent.status, sent.text).toBe(200)
    const made = await rest(server.url, 'POST', '/v1/models/calibrations', { key: owner, json: {} })
    expect(made.status, made.text).toBe(201)
    calibrated = made.body.model_version
  })

  const pdf = (query: string, language: Language, headers: Record<string, string> = {}) =>
    get(`/v1/surveys/report${query}`, {
      accept: 'application/pdf',
      'accept-language': LANGUAGE_HEADERS[language],
      ...headers,
    })

  const cases: [string, string, () => string][] = [
    ['the base version', 'base', () => '?model_version=0.2'],
    ['a calibration', 'calibrated', () => `?model_version=${encodeURIComponent(calibrated)}`],
    ['the account’s default, Douglas-fir only', 'psme', () => '?species_code=PSME'],
  ]
  for (const [name, slug, query] of cases)
    for (const language of ['en', 'es'] as const)
      it(`${name} (${language}): every number of the JSON answer, its diagram, 1 to 3 pages`, async () => {
        const json = await get(`/v1/surveys/report${query()}`)
        expect(json.status, json.text).toBe(200)
        const report = await pdf(query(), language)
        expect(report.headers.get('content-disposition')).toBe('inline; filename="survey-report.pdf"')
        const { info, text } = await expectWellFormed(report, language, `survey-${slug}-${language}`)
        expect(info.title).toContain(json.body.model_version)
        const answer = beforeReproduction(text, language)
        const missing = numbersOf(json.body).flatMap(({ path, value }) => {
          const printed = format(value, language, surveyPrinted(path))
          return standsAlone(answer, printed) ? [] : [`${path} = ${value}, printed ${printed}`]
        })
        expect(missing).toEqual([])
        expect(json.body.reliability.length).toBe(10)
        expect(text).toContain(language === 'es' ? 'Diagrama de fiabilidad' : 'Reliability diagram')
      })

  it('base and calibration differ as their JSON answers do', async () => {
    const base = await pdfText((await pdf('?model_version=0.2', 'en')).bytes)
    const cal = await pdfText((await pdf(`?model_version=${encodeURIComponent(calibrated)}`, 'en')).bytes)
    expect(base).toContain('Surveys against the model: 0.2')
    expect(cal).toContain(`Surveys against the model: ${calibrated}`)
    const baseJson = (await get('/v1/surveys/report?model_version=0.2')).body
    const calJson = (await get(`/v1/surveys/report?model_version=${encodeURIComponent(calibrated)}`)).body
    const brier = (json: Json) => format(json.scores.brier, 'en', { fixed: 3 })
    expect(standsAlone(beforeReproduction(base, 'en'), brier(baseJson))).toBe(true)
    expect(standsAlone(beforeReproduction(cal, 'en'), brier(calJson))).toBe(true)
  })

  it('on A4 and Letter, and the same bytes for the same request', async () => {
    const a4 = await pdf('?paper=a4', 'en')
    expect((await expectWellFormed(a4, 'en', 'survey-en-a4')).info.pageSize).toMatch(/\(A4\)/)
    const letter = await pdf('?paper=letter', 'es')
    expect((await expectWellFormed(letter, 'es', 'survey-es-letter')).info.pageSize).toMatch(/\(letter\)/)
    const first = await pdf('', 'es', { 'request-id': 'survey-report-determinism' })
    const second = await pdf('', 'es', { 'request-id': 'survey-report-determinism' })
    expect(Buffer.from(second.bytes).equals(Buffer.from(first.bytes))).toBe(true)
  })

  it('no survey matching: a report that says so', async () => {
    const json = await get('/v1/surveys/report?species_code=QUGA')
    expect(json.body.overall).toBeNull()
    const report = await pdf('?species_code=QUGA', 'en')
    const { text } = await expectWellFormed(report, 'en', 'survey-empty-en')
    expect(text).toContain('No plot matches: there is nothing to compare.')
  })

  it('JSON stays the default, and a paper is taken on the JSON answer too', async () => {
    const json = await get('/v1/surveys/report?paper=a4')
    expect(json.status).toBe(200)
    expect(json.headers.get('content-type')).toMatch(/^application\/json/)
  })

  it.each([
    ['a bad paper', '?paper=a3', 400, 'invalid_request'],
    ['an unknown parameter', '?colour=red', 400, 'invalid_request'],
    ['a bad filter', '?surveyed_from=yesterday', 400, 'invalid_request'],
    ['an unknown model version', '?model_version=9.9', 422, 'invalid_model_version'],
    [
      'another account’s calibration',
      () => `?model_version=${encodeURIComponent(calibrated)}`,
      422,
      'invalid_model_version',
    ],
  ] as [string, string | (() => string), number, string][])(
    '%s: the JSON error',
    async (name, query, status, code) => {
      const key = name.startsWith('another') ? other : owner
      const result = await get(
        `/v1/surveys/report${typeof query === 'string' ? query : query()}`,
        { accept: 'application/pdf', 'accept-language': 'es-ES' },
        key,
      )
      expectJsonError(result, status, code)
    },
  )
})
