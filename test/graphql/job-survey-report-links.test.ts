import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { finished } from '../jobs/geojson-jobs.ts'
import { expectError, rest, restBytes } from '../rest/client.ts'
import { calibrationSurveys } from '../support/calibration-surveys.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { firstError, graphql } from '../support/graphql-helpers.ts'
import { pdfInfo, pdfText } from '../support/pdf-tools.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { forestGrid } from '../support/sites.ts'

/**
 * reportLink on a finished job (`job(id)`) and on the survey check (`surveyReport`), end to end with a
 * clock the tests move (docs/reports.md → GraphQL report links): the link GETs, with no key, the very
 * PDF that GET /v1/jobs/{id}/report.pdf or GET /v1/surveys/report answers (byte for byte with the same
 * Request-Id); it is bound to the account that asked, expires after 15 minutes, and an altered token is
 * 403 invalid_report_link; another account's job is not_found, an unfinished one job_not_finished.
 */

const START = new Date('2026-03-14T09:26:53.000Z')
let now = START

let db: TestDatabase
let server: TestServer
let owner: string
let other: string
let jobId: string

const JOB = `query Job($id: ID!, $language: String, $paper: ReportPaper) {
  job(id: $id) {
    id status rowsTotal rowsFailed
    reportLink(language: $language, paper: $paper) { path expiresAt language paper }
  }
}`

const SURVEYS = `query Surveys($filter: SurveyFilterInput, $version: String, $language: String) {
  surveyReport(filter: $filter, modelVersion: $version) {
    modelVersion
    overall { plots observedSurvival }
    reportLink(language: $language) { path expiresAt language paper }
  }
}`

async function uploadJob(key: string, rows: number): Promise<string> {
  const csv = [
    'latitude,longitude,species_code,planting_method',
    ...forestGrid(rows).map((p) => `${p.latitude},${p.longitude},PSME,manual`),
    '',
  ].join('\n')
  const accepted = await rest(server.url, 'POST', '/v1/jobs', { key, raw: csv, contentType: 'text/csv' })
  expect(accepted.status, accepted.text).toBe(202)
  expect((await finished(server.url, key, accepted.body.id)).status).toBe('succeeded')
  return accepted.body.id
}

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({ database: db, now: () => now, jobChunkRows: 40 })
  owner = (await issueKey(db, 'mycel')).key
  other = (await issueKey(db, 'mycel')).key
  jobId = await uploadJob(owner, 150)
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
})

async function linkOf(text: string, variables: Record<string, unknown>, key = owner) {
  const result = await graphql(server.url, text, { key, variables })
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined()
  return result.body.data
}

const fetchLink = (path: string, headers: Record<string, string> = {}) =>
  restBytes(server.url, 'GET', path, { headers })

describe('job(id) { reportLink }', () => {
  it('the owner’s link GETs, with no key, the same PDF as GET /v1/jobs/{id}/report.pdf', async () => {
    const { job } = await linkOf(JOB, { id: jobId, language: 'es' })
    expect(job).toMatchObject({ id: jobId, status: 'SUCCEEDED', rowsTotal: 150 })
    expect(job.reportLink).toMatchObject({ language: 'es', paper: 'A4' })
    expect(job.reportLink.expiresAt).toBe(new Date(START.getTime() + 15 * 60_000).toISOString())
    const linked = await fetchLink(job.reportLink.path, { 'request-id': 'job-link-1' })
    expect(linked.status, linked.text.slice(0, 300)).toBe(200)
    expect(linked.headers.get('content-disposition')).toBe('inline; filename="job-report.pdf"')
    expect(linked.headers.get('content-language')).toBe('es')
    expect(linked.headers.get('cache-control')).toBe('no-store')
    const info = await pdfInfo(linked.bytes)
    expect(info.title).toContain(jobId)
    expect(info.pageSize).toMatch(/\(A4\)/)
    expect(await pdfText(linked.bytes)).toContain(`/v1/jobs/${jobId}/report.pdf?paper=a4`)
    const direct = await restBytes(server.url, 'GET', `/v1/jobs/${jobId}/report.pdf?paper=a4`, {
      key: owner,
      headers: { 'accept-language': 'es', 'request-id': 'job-link-1' },
    })
    expect(direct.status).toBe(200)
    expect(Buffer.from(linked.bytes).equals(Buffer.from(direct.bytes))).toBe(true)
  })

  it('expires after 15 minutes, and an altered token is refused: 403 invalid_report_link', async () => {
    const { job } = await linkOf(JOB, { id: jobId, paper: 'LETTER' })
    const token = /^\/v1\/reports\/(.+)\.pdf$/.exec(job.reportLink.path)?.[1] ?? ''
    const flipped = `${token.slice(0, 8)}${token[8] === 'A' ? 'B' : 'A'}${token.slice(9)}`
    const altered = await fetchLink(`/v1/reports/${flipped}.pdf`)
    expectError(altered, 403, 'invalid_report_link')
    try {
      now = new Date(START.getTime() + 15 * 60_000)
      const expired = await fetchLink(job.reportLink.path)
      expectError(expired, 403, 'invalid_report_link')
      expect(expired.body.error.message).toContain('expired at')
    } finally {
      now = START
    }
  })

  it('another account’s job is not_found, and says nothing of it', async () => {
    const result = await graphql(server.url, JOB, { key: other, variables: { id: jobId } })
    expect(firstError(result).extensions?.code).toBe('not_found')
    expect(result.body.data).toBeNull()
    expect(JSON.stringify(result.body)).not.toContain('rowsTotal')
  })

  it('a link is bound to the account that asked: the owner’s job deleted, it is not_found', async () => {
    const doomed = await uploadJob(owner, 20)
    const { job } = await linkOf(JOB, { id: doomed })
    const removed = await rest(server.url, 'DELETE', `/v1/jobs/${doomed}`, { key: owner })
    expect(removed.status).toBe(204)
    expectError(await fetchLink(job.reportLink.path), 404, 'not_found')
  })

  it('a job that has not succeeded: job_not_finished, naming its status', async () => {
    const running = await uploadJob(owner, 10)
    await db.sql`UPDATE jobs SET status = 'running', finished_at = NULL WHERE id = ${running}`
    const result = await graphql(
      server.url,
      `query { job(id: "${running}") { status reportLink { path } } }`,
      {
        key: owner,
      },
    )
    const error = firstError(result)
    expect(error.extensions?.code).toBe('job_not_finished')
    expect(error.message).toContain('is running')
    expect(error.path).toEqual(['job', 'reportLink'])
  })
})

describe('surveyReport { reportLink }', () => {
  beforeAll(async () => {
    // Plain fetch: this suite checks the reports, not the survey answer's shape.
    const sent = await fetch(`${server.url}/v1/surveys`, {
      method: 'POST',
      headers: { 'x-api-key': owner, 'content-type': 'application/json' },
      body: JSON.stringify({ plots: calibrationSurveys() }),
    })
    expect(sent.status).toBe(200)
  })

  it('the same PDF as GET /v1/surveys/report for the same filter and version', async () => {
    const filter = { speciesCode: 'PSME', bbox: [-125, 41.5, -116, 49.5] }
    const { surveyReport } = await linkOf(SURVEYS, { filter, version: '0.2', language: 'en-GB' })
    expect(surveyReport.overall.plots).toBeGreaterThan(0)
    expect(surveyReport.reportLink).toMatchObject({ language: 'en', paper: 'A4' })
    const linked = await fetchLink(surveyReport.reportLink.path, { 'request-id': 'survey-link-1' })
    expect(linked.status, linked.text.slice(0, 300)).toBe(200)
    expect(linked.headers.get('content-disposition')).toBe('inline; filename="survey-report.pdf"')
    expect(await pdfText(linked.bytes)).toContain('Surveys against the model: 0.2')
    const query = 'species_code=PSME&bbox=-125%2C41.5%2C-116%2C49.5&model_version=0.2&paper=a4'
    const direct = await restBytes(server.url, 'GET', `/v1/surveys/report?${query}`, {
      key: owner,
      headers: { accept: 'application/pdf', 'accept-language': 'en-GB', 'request-id': 'survey-link-1' },
    })
    expect(direct.status, direct.text.slice(0, 300)).toBe(200)
    expect(Buffer.from(linked.bytes).equals(Buffer.from(direct.bytes))).toBe(true)
  })

  it('another account’s link reports that account’s surveys only', async () => {
    const { surveyReport } = await linkOf(SURVEYS, {}, other)
    expect(surveyReport.overall).toBeNull()
    const linked = await fetchLink(surveyReport.reportLink.path)
    expect(linked.status).toBe(200)
    expect(await pdfText(linked.bytes)).toContain('No plot matches: there is nothing to compare.')
  })
})
