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
