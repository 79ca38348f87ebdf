import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setKeyStatus } from '../../src/db/keys.ts'
import { reportLinkSecret } from '../../src/domain/reports/report-links.ts'
import { expectError, restBytes } from '../rest/client.ts'
import { TEST_ADDRESS_HASH_KEY } from '../support/address-hash-key.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { firstError, graphql } from '../support/graphql-helpers.ts'
import { pdfInfo, pdfText } from '../support/pdf-tools.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { FOREST_POINTS } from '../support/sites.ts'

/**
 * GraphQL reportLink (docs/reports.md → GraphQL report links) end to end, on a seeded PostgreSQL and
 * the test Redis with a clock the tests move: a query's link GETs, with no key, the very PDF that POST
 * with Accept: application/pdf answers for the same request and model version (byte for byte, with
 * the same Request-Id), whose text holds the GraphQL answer's numbers; each GET counts one request on
 * the account that asked; an expired, altered or foreign token is 403 invalid_report_link.
 */

const START = new Date('2026-03-14T09:26:53.000Z')
let now = START

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer({ now: () => now }, 'hypha'))
})

afterAll(() => stopSeededServer({ db, server }))

// biome-ignore lint/suspicious/noExplicitAny: GraphQL answers are read freely
type Json = any

const LINK = 'path expiresAt language paper'

const COMPARE = `query Compare($input: ComparisonInput!, $language: String) {
  compareMethods(input: $input) {
    manual { horizonYears survivalProbability }
    droneSeeded { horizonYears survivalProbability }
    methodDifferential { horizonYears manual droneSeeded difference }
    model { version }
    reportLink(language: $language) { ${LINK} }
  }
}`

const RANK = `query Rank($language: String, $paper: ReportPaper) {
  speciesRanking(latitude: ${FOREST_POINTS.eastCascades.latitude}, longitude: ${FOREST_POINTS.eastCascades.longitude},
      plantingMethod: MANUAL, horizon: 3) {
    ranking { rank survivalProbability species { code } }
    model { version }
    reportLink(language: $language, paper: $paper) { ${LINK} }
  }
}`

const PLAN = `query Plan($input: StockingPlanInput!) {
  stockingPlan(input: $input) {
    meetsProbability requiredTreesPerAcre
    horizons { horizonYears survivalProbability expectedTreesPerAcre lower upper }
    model { version }
    reportLink(language: "es-MX") { ${LINK} }
  }
}`

const COMPARE_INPUT = {
  ...FOREST_POINTS.westCascades,
  speciesCode: 'TSHE',
  horizons: [1, 3, 5],
  climate: { period: '2071-2100', scenario: 'ssp585' },
}

const STAND = {
  type: 'Feature',
  properties: { name: 'Unidad 7 — Cañada del Norte' },
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
}

const PLAN_INPUT = {
  stand: STAND,
  plantingMethod: 'MANUAL',
  speciesMix: [
    { speciesCode: 'PSME', share: 0.7 },
    { speciesCode: 'THPL', share: 0.3 },
  ],
  treesPerAcre: 300,
  confidence: 0.9,
}

async function query(text: string, variables: Record<string, unknown> = {}, withKey = key) {
  const result = await graphql(server.url, text, { key: withKey, variables })
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined()
  return result
}

/** GETs a link's path with no key (the token is the credential). */
function fetchLink(path: string, headers: Record<string, string> = {}) {
  return restBytes(server.url, 'GET', path, { headers })
}

const tokenOf = (path: string) => (/^\/v1\/reports\/([^/]+)\.pdf$/.exec(path)?.[1] ?? '') as string

/** A probability as an English report prints it (docs/reports.md → Numbers: 3 decimals). */
const p3 = (value: number, language: 'en' | 'es' = 'en') =>
  new Intl.NumberFormat(language === 'es' ? 'es-ES' : 'en-US', {
    minimumFractionDigits: 3,
    maximumFractionDigits: 3,
  })
    .format(value)
    .replace(/^-(0[.,]000)$/, '$1')

/** Trees per acre as a report prints them: at most one decimal. */
const tpa = (value: number, language: 'en' | 'es' = 'en') =>
  new Intl.NumberFormat(language === 'es' ? 'es-ES' : 'en-US', { maximumFractionDigits: 1 }).format(value)

function expectNumbers(text: string, printed: string[]) {
  const flat = text.replace(/\s+/g, ' ')
  const missing = printed.filter(
    (number) => !new RegExp(`(?<![\\d.,])${number.replace(/[.,]/g, '\\$&')}(?![\\d]|[.,]\\d)`).test(flat),
  )
  expect(missing).toEqual([])
}

describe('reportLink → GET → the same PDF', () => {
  it('compareMethods: a Spanish Letter report (es-MX) equal byte for byte to POST with Accept: application/pdf', async () => {
    const { body } = await query(COMPARE, { input: COMPARE_INPUT, language: 'es-MX' })
    const answer: Json = body.data.compareMethods
    const link = answer.reportLink
    expect(link).toMatchObject({ language: 'es', paper: 'LETTER' })
    expect(link.expiresAt).toBe(new Date(START.getTime() + 15 * 60_000).toISOString())
    expect(link.path).toMatch(/^\/v1\/reports\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}\.pdf$/)

    const report = await fetchLink(link.path, { 'request-id': 'report-link-compare-1' })
    expect(report.status, report.text.slice(0, 300)).toBe(200)
    expect(report.headers.get('content-type')).toBe('application/pdf')
    expect(report.headers.get('content-language')).toBe('es')
    expect(report.headers.get('content-disposition')).toBe('inline; filename="method-comparison.pdf"')
    expect(report.headers.get('cache-control')).toBe('no-store')

    const text = await pdfText(report.bytes)
    expectNumbers(
      text,
      answer.methodDifferential.flatMap((row: Json) =>
        [row.manual, row.droneSeeded, row.difference].map((value: number) => p3(value, 'es')),
      ),
    )
    expect((await pdfInfo(report.bytes)).pageSize).toMatch(/\(letter\)/)
    // The REST request it prints, with the model version that answered pinned.
    const rest = {
      latitude: COMPARE_INPUT.latitude,
      longitude: COMPARE_INPUT.longitude,
      species_code: 'TSHE',
      horizons: [1, 3, 5],
      climate: COMPARE_INPUT.climate,
      model_version: answer.model.version,
    }
    const posted = await restBytes(server.url, 'POST', '/v1/predict/compare', {
      json: rest,
      key,
      headers: {
        accept: 'application/pdf',
        'accept-language': 'es-MX',
        'request-id': 'report-link-compare-1',
      },
    })
    expect(posted.status).toBe(200)
    expect(Buffer.from(report.bytes).equals(Buffer.from(posted.bytes))).toBe(true)
  })

  it('speciesRanking: English, and the paper argument over the language tag’s region', async () => {
    const { body } = await query(RANK, { language: 'en-US', paper: 'A4' })
    const answer: Json = body.data.speciesRanking
    expect(answer.reportLink).toMatchObject({ language: 'en', paper: 'A4' })
    const report = await fetchLink(answer.reportLink.path)
    expect(report.status, report.text.slice(0, 300)).toBe(200)
    expect(report.headers.get('content-disposition')).toBe('inline; filename="species-ranking.pdf"')
    const text = await pdfText(report.bytes)
    expect(text).toContain('Species ranked by survival')
    expectNumbers(
      text,
      answer.ranking.map((row: Json) => p3(row.survivalProbability)),
    )
    expect((await pdfInfo(report.bytes)).pageSize).toMatch(/\(A4\)/)
  })

  it('stockingPlan of a named stand: the stand’s name as the title, every number of the answer', async () => {
    const { body } = await query(PLAN, { input: PLAN_INPUT })
    const answer: Json = body.data.stockingPlan
    const report = await fetchLink(answer.reportLink.path)
    expect(report.status, report.text.slice(0, 300)).toBe(200)
    expect(report.headers.get('content-disposition')).toBe('inline; filename="stocking-plan.pdf"')
    expect((await pdfInfo(report.bytes)).title).toContain('Unidad 7 — Cañada del Norte')
    const text = await pdfText(report.bytes)
    expectNumbers(text, [
      p3(answer.meetsProbability, 'es'),
      ...answer.horizons.flatMap((row: Json) => [
        p3(row.survivalProbability, 'es'),
        tpa(row.expectedTreesPerAcre, 'es'),
        tpa(row.lower, 'es'),
        tpa(row.upper, 'es'),
      ]),
    ])
  })

  it('each GET counts one request on the account that asked, and none is counted for the link', async () => {
    const spore = (await issueKey(db, 'spore')).key
    const { headers, body } = await query(COMPARE, { input: COMPARE_INPUT }, spore)
    const afterQuery = Number(headers.get('x-ratelimit-remaining'))
    const path = body.data.compareMethods.reportLink.path
    const first = await fetchLink(path)
    expect(first.status).toBe(200)
    expect(Number(first.headers.get('x-ratelimit-remaining'))).toBe(afterQuery - 1)
    const second = await fetchLink(path)
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(afterQuery - 2)
    const usage = await restBytes(server.url, 'GET', '/v1/usage', { key: spore })
    expect(Number(usage.headers.get('x-ratelimit-remaining'))).toBe(afterQuery - 3)
  })
})

describe('refused links', () => {
  async function compareLink(withKey = key): Promise<string> {
    const { body } = await query(COMPARE, { input: COMPARE_INPUT }, withKey)
    return body.data.compareMethods.reportLink.path
  }

  it('an expired link: 403 invalid_report_link saying when, at its expiry and after', async () => {
    const path = await compareLink()
    try {
      now = new Date(START.getTime() + 15 * 60_000 - 1000)
      expect((await fetchLink(path)).status).toBe(200)
      now = new Date(START.getTime() + 15 * 60_000)
      const expired = await fetchLink(path)
      expectError(expired, 403, 'invalid_report_link')
      expect(expired.body.error.message).toContain(
        `expired at ${new Date(START.getTime() + 15 * 60_000).toISOString()}`,
      )
    } finally {
      now = START
    }
  })

  it('a token altered in its payload or its signature, cut, or too long: 403 invalid_report_link', async () => {
    const token = tokenOf(await compareLink())
    const [payload, signature] = token.split('.') as [string, string]
    const flip = (text: string, at: number) =>
      `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`
    for (const bad of [
      `${flip(payload, 5)}.${signature}`,
      `${payload}.${flip(signature, 10)}`,
      `${payload.slice(0, -2)}.${signature}`,
      `${payload}.${signature.slice(0, -1)}`,
      `${'A'.repeat(5000)}.${signature}`,
    ]) {
      const refused = await fetchLink(`/v1/reports/${bad}.pdf`)
      expectError(refused, 403, 'invalid_report_link')
      expect(refused.body.error.message).toContain('not one the service handed out')
    }
  })

  it('the same payload signed under another server secret: 403 invalid_report_link', async () => {
    const [payload] = tokenOf(await compareLink()).split('.') as [string]
    const sign = (secret: Buffer) =>
      createHmac('sha256', secret).update('report-link.1.').update(payload).digest('base64url')
    const other = reportLinkSecret('another-server-secret-0123456789abcdef0123456789')
    expectError(await fetchLink(`/v1/reports/${payload}.${sign(other)}.pdf`), 403, 'invalid_report_link')
    // Signed as the server signs it, the same payload works: the test signs as the server does.
    expect(
      (await fetchLink(`/v1/reports/${payload}.${sign(reportLinkSecret(TEST_ADDRESS_HASH_KEY))}.pdf`)).status,
    ).toBe(200)
  })

  it('a link whose key was revoked or deactivated since is refused as the key would be', async () => {
    const revoked = await issueKey(db, 'mycel')
    const revokedPath = await compareLink(revoked.key)
    const deactivated = await issueKey(db, 'mycel')
    const deactivatedPath = await compareLink(deactivated.key)
    await setKeyStatus(db.sql, revoked.id, 'revoke')
    await setKeyStatus(db.sql, deactivated.id, 'deactivate')
    expectError(await fetchLink(revokedPath), 401, 'invalid_api_key')
    expectError(await fetchLink(deactivatedPath), 403, 'key_inactive')
  })

  it('a query string: 400 invalid_request', async () => {
    const path = await compareLink()
    expectError(await fetchLink(`${path}?paper=a4`), 400, 'invalid_request')
  })

  it('a language tag that is not one: invalid_request on the argument', async () => {
    const result = await graphql(server.url, COMPARE, {
      key,
      variables: { input: COMPARE_INPUT, language: 'not a tag!' },
    })
    expect(firstError(result).extensions?.code).toBe('invalid_request')
    expect(result.body.data.compareMethods).toBeNull()
  })
})
