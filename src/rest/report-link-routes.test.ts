import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import type { Admission } from '../access/auth/access-control.ts'
import { ReportLinks, reportLinkSecret } from '../domain/reports/report-links.ts'
import type { ReportRequest } from '../domain/reports/report-request.ts'
import { createRequestContext } from '../observability/request-context.ts'
import { REPORT_LINK_ROUTES } from './report-link-routes.ts'
import type { RestDeps } from './route.ts'

/**
 * GET /v1/reports/{token}.pdf with the services faked: the answer is made again with the model version
 * the link pinned, whatever the account's default is now, for the key and account the link names, and
 * the report prints the REST request that gives the same answer.
 */

const NOW = new Date('2026-05-02T10:00:00.000Z')
const links = new ReportLinks(reportLinkSecret('a-server-secret-of-at-least-32-characters'), () => NOW)
const route = REPORT_LINK_ROUTES[0]
if (!route || route.authenticated) throw new Error('the report link route is a public one')

function fakes() {
  const seen: {
    admitted?: [string, string]
    resolved?: [string, string | null | undefined]
    printed?: ReportRequest
  } = {}
  const deps = {
    reportLinks: links,
    access: {
      admitKeyId: async (keyId: string, accountId: string) => {
        seen.admitted = [keyId, accountId]
        return {
          caller: { keyId, accountId, expiresAt: null },
          quota: QUOTA,
          at: NOW,
        } as unknown as Admission
      },
    },
    models: {
      // The account's default is now another version: the link's must be the one asked for.
      resolve: async (accountId: string, version: string | null | undefined) => {
        seen.resolved = [accountId, version]
        return { version: version ?? 'the-default-now' }
      },
    },
    predictions: {
      compare: async (_request: unknown, model: { version: string }) => ({
        site: { dataVersion: 'sites_000000000000' },
        model,
      }),
    },
    reports: {
      comparison: async (_comparison: unknown, printed: ReportRequest) => {
        seen.printed = printed
        return {
          bytes: new Uint8Array([37, 80, 68, 70, 45]),
          fileName: 'method-comparison.pdf',
          language: 'es',
        }
      },
    },
  } as unknown as RestDeps
  return { deps, seen }
}

const QUOTA = {
  tierName: 'mycel',
  limit: 10_000,
  used: 8,
  remaining: 9_992,
  resetSeconds: 50_400,
  resetAt: new Date('2026-05-03T00:00:00.000Z'),
  countedAt: NOW,
}

describe('GET /v1/reports/{token}.pdf', () => {
  it('makes the answer again with the pinned version, for the link’s key, and prints the REST request', async () => {
    const link = links.issue({
      operation: 'comparison',
      request: {
        latitude: 44.2,
        longitude: -122.2,
        speciesCode: 'TSHE',
        climate: { period: '2041-2070', scenario: 'ssp245' },
        treatments: { vegetationControl: 'release_1yr', animalProtection: null },
      },
      holder: { keyId: 'key_7', accountId: 'acc_7' },
      modelVersion: '0.2+cal.0000abcd',
      language: 'es',
      paper: 'a4',
    })
    const token = /^\/v1\/reports\/(.+)\.pdf$/.exec(link.path)?.[1] ?? ''
    const { deps, seen } = fakes()
    const request = createRequestContext('req-link-1', '/v1/reports/{token}.pdf')
    const response = await route.handle(
      {} as IncomingMessage,
      new URL(`http://localhost${link.path}`),
      deps,
      { token },
      request,
    )
    expect(seen.admitted).toEqual(['key_7', 'acc_7'])
    expect(seen.resolved).toEqual(['acc_7', '0.2+cal.0000abcd'])
    expect(seen.printed).toEqual({
      language: 'es',
      paper: 'a4',
      requestId: 'req-link-1',
      method: 'POST',
      path: '/v1/predict/compare',
      body: {
        latitude: 44.2,
        longitude: -122.2,
        species_code: 'TSHE',
        climate: { period: '2041-2070', scenario: 'ssp245' },
        treatments: { vegetation_control: 'release_1yr' },
        model_version: '0.2+cal.0000abcd',
      },
    })
    expect(response).toMatchObject({ status: 200, contentType: 'application/pdf' })
    expect(response.headers).toMatchObject({
      'cache-control': 'no-store',
      'content-language': 'es',
      'x-ratelimit-remaining': '9992',
      'survival-data-version': 'sites_000000000000',
    })
    expect(response.headers?.vary).toBeUndefined()
  })

  it('a job’s link: the job read as the link’s account, and the REST GET that gives the same report', async () => {
    const jobId = `job_${'cd'.repeat(12)}`
    const link = links.issue({
      operation: 'job',
      request: { jobId },
      holder: { keyId: 'key_8', accountId: 'acc_8' },
      modelVersion: '0.2',
      language: 'en',
      paper: 'letter',
    })
    const token = /^\/v1\/reports\/(.+)\.pdf$/.exec(link.path)?.[1] ?? ''
    const { deps, seen } = fakes()
    let owner: unknown
    Object.assign(deps, {
      jobs: {
        resultsSummary: async (asked: unknown, id: string) => {
          owner = asked
          return { job: { id }, summary: {} }
        },
      },
      reports: {
        job: async (_job: unknown, _summary: unknown, printed: ReportRequest) => {
          seen.printed = printed
          return { bytes: new Uint8Array([37]), fileName: 'job-report.pdf', language: 'en' }
        },
      },
    })
    const request = createRequestContext('req-link-3', '/v1/reports/{token}.pdf')
    const response = await route.handle(
      {} as IncomingMessage,
      new URL(`http://localhost${link.path}`),
      deps,
      { token },
      request,
    )
    expect(owner).toMatchObject({ accountId: 'acc_8', keyId: 'key_8' })
    expect(seen.resolved).toBeUndefined()
    expect(seen.printed).toMatchObject({
      method: 'GET',
      path: `/v1/jobs/${jobId}/report.pdf?paper=letter`,
      body: null,
    })
    expect(response.headers).toMatchObject({ 'content-disposition': 'inline; filename="job-report.pdf"' })
  })

  it('a survey check’s link: its filter and version, printed as GET /v1/surveys/report’s query', async () => {
    const filter = { speciesCode: 'PSME', bbox: [-124, 42, -116.5, 49] as const, surveyedTo: '2026-01-31' }
    const link = links.issue({
      operation: 'survey',
      request: { filter },
      holder: { keyId: 'key_9', accountId: 'acc_9' },
      modelVersion: '0.2+cal.0000abcd',
      language: 'es',
      paper: 'a4',
    })
    const token = /^\/v1\/reports\/(.+)\.pdf$/.exec(link.path)?.[1] ?? ''
    const { deps, seen } = fakes()
    let asked: unknown[] = []
    Object.assign(deps, {
      surveys: {
        report: async (...args: unknown[]) => {
          asked = args
          return { modelVersion: args[2], report: null }
        },
      },
      reports: {
        survey: async (_report: unknown, printed: ReportRequest) => {
          seen.printed = printed
          return { bytes: new Uint8Array([37]), fileName: 'survey-report.pdf', language: 'es' }
        },
      },
    })
    const request = createRequestContext('req-link-4', '/v1/reports/{token}.pdf')
    await route.handle(
      {} as IncomingMessage,
      new URL(`http://localhost${link.path}`),
      deps,
      { token },
      request,
    )
    expect(asked).toEqual(['acc_9', { ...filter, bbox: [...filter.bbox] }, '0.2+cal.0000abcd'])
    const query = {
      species_code: 'PSME',
      bbox: '-124,42,-116.5,49',
      surveyed_to: '2026-01-31',
      model_version: '0.2+cal.0000abcd',
    }
    expect(seen.printed).toMatchObject({
      method: 'GET',
      path: `/v1/surveys/report?${new URLSearchParams({ ...query, paper: 'a4' })}`,
      body: query,
    })
  })

  it('refuses a bad token before it looks at the key or counts anything', async () => {
    const { deps, seen } = fakes()
    const request = createRequestContext('req-link-2', '/v1/reports/{token}.pdf')
    await expect(
      route.handle(
        {} as IncomingMessage,
        new URL('http://localhost/v1/reports/abc.def.pdf'),
        deps,
        { token: 'abc.def' },
        request,
      ),
    ).rejects.toMatchObject({ code: 'invalid_report_link', status: 403 })
    expect(seen).toEqual({})
  })
})
