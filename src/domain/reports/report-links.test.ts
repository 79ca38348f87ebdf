import { createHmac } from 'node:crypto'
import { deflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { REPORT_LINK_SETTINGS, type ReportLinkOrder, ReportLinks, reportLinkSecret } from './report-links.ts'

/** Report links: what a token holds, and every way one is refused (docs/security.md → Report links). */

const NOW = new Date('2026-05-02T10:00:00.000Z')
const SECRET = reportLinkSecret('a-server-secret-of-at-least-32-characters')

const ORDER: ReportLinkOrder = {
  operation: 'comparison',
  request: {
    latitude: 44.6,
    longitude: -123.6,
    speciesCode: 'PSME',
    horizons: [1, 5],
    climate: { period: '2041-2070', scenario: 'ssp245' },
    treatments: null,
  },
  holder: { keyId: 'key_1', accountId: 'acc_1' },
  modelVersion: '0.2',
  language: 'es',
  paper: 'letter',
}

function links(at: () => Date = () => NOW, secret = SECRET) {
  return new ReportLinks(secret, at)
}

const tokenOf = (path: string) => {
  const match = /^\/v1\/reports\/([^/]+)\.pdf$/.exec(path)
  if (!match?.[1]) throw new Error(`not a report link path: ${path}`)
  return match[1]
}

/** The error a call throws, or fails when it throws none. */
function refusal(call: () => unknown): { code: string; message: string } {
  try {
    call()
  } catch (error) {
    return error as { code: string; message: string }
  }
  throw new Error('expected the call to be refused')
}

describe('ReportLinks', () => {
  it('hands out a path that redeems to the same order, with its expiry 15 minutes on', () => {
    const link = links().issue(ORDER)
    expect(link.expiresAt).toEqual(new Date(NOW.getTime() + 15 * 60_000))
    expect(link).toMatchObject({ language: 'es', paper: 'letter' })
    expect(links().redeem(tokenOf(link.path))).toEqual({ ...ORDER, expiresAt: link.expiresAt })
  })

  it('pins the model version it is given, not one the request named', () => {
    const order = { ...ORDER, request: { ...ORDER.request, modelVersion: '9.9' } } as ReportLinkOrder
    const redeemed = links().issue(order)
    expect(links().redeem(tokenOf(redeemed.path))).toMatchObject({
      modelVersion: '0.2',
      request: ORDER.request,
    })
  })

  it('keeps of a stand’s properties only the name a report is titled with', () => {
    const geometry = {
      type: 'Polygon' as const,
      coordinates: [
        [
          [-123.6, 44.6],
          [-123.5, 44.6],
          [-123.5, 44.7],
          [-123.6, 44.6],
        ],
      ],
    }
    const plan = (properties: unknown): ReportLinkOrder => ({
      ...ORDER,
      operation: 'stocking-plan',
      request: {
        stand: { type: 'Feature', properties, geometry },
        plantingMethod: 'manual',
        speciesMix: [{ speciesCode: 'PSME', share: 1 }],
      },
    })
    const redeemed = (properties: unknown) =>
      links().redeem(tokenOf(links().issue(plan(properties)).path)).request as { stand: unknown }
    expect(redeemed({ name: 'North unit', owner: 'x'.repeat(3000) }).stand).toEqual({
      type: 'Feature',
      properties: { name: 'North unit' },
      geometry,
    })
    expect(redeemed({ owner: 'nobody' }).stand).toEqual({ type: 'Feature', geometry })
  })

  it('carries a finished job’s id, and a survey check’s filter and version, as they were asked', () => {
    const job: ReportLinkOrder = { ...ORDER, operation: 'job', request: { jobId: `job_${'ab'.repeat(12)}` } }
    expect(links().redeem(tokenOf(links().issue(job).path))).toMatchObject({
      operation: 'job',
      request: job.request,
      holder: ORDER.holder,
    })
    const filter = { speciesCode: 'PSME', bbox: [-124, 42, -116, 49] as const, surveyedFrom: '2025-01-01' }
    const survey: ReportLinkOrder = { ...ORDER, operation: 'survey', request: { filter }, modelVersion: '' }
    expect(links().redeem(tokenOf(links().issue(survey).path))).toMatchObject({
      operation: 'survey',
      request: { filter: { ...filter, bbox: [...filter.bbox] } },
      modelVersion: '',
    })
  })

  it('works until its expiry and is refused from then on, saying when it expired', () => {
    let now = NOW
    const clock = () => now
    const link = links(clock).issue(ORDER)
    now = new Date(link.expiresAt.getTime() - 1)
    expect(links(clock).redeem(tokenOf(link.path)).operation).toBe('comparison')
    now = link.expiresAt
    const error = refusal(() => links(clock).redeem(tokenOf(link.path)))
    expect(error.code).toBe('invalid_report_link')
    expect(error.message).toContain(`expired at ${link.expiresAt.toISOString()}`)
  })

  it('refuses a token changed at any character', () => {
    const token = tokenOf(links().issue(ORDER).path)
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    for (let at = 0; at < token.length; at++) {
      if (token[at] === '.') continue
      const other = alphabet[(alphabet.indexOf(token[at] as string) + 1) % alphabet.length]
      const changed = `${token.slice(0, at)}${other}${token.slice(at + 1)}`
      expect(refusal(() => links().redeem(changed)).code, `changed at ${at}`).toBe('invalid_report_link')
    }
  })

  it('refuses a token signed under another secret, even a well-formed one', () => {
    const forged = tokenOf(
      links(() => NOW, reportLinkSecret('another-server-secret-of-32-characters!')).issue(ORDER).path,
    )
    const error = refusal(() => links().redeem(forged))
    expect(error).toMatchObject({ code: 'invalid_report_link' })
    expect(error.message).toContain('not one the service handed out')
  })

  it('refuses what is not a token: empty, cut, no signature, too long, not base64url', () => {
    const token = tokenOf(links().issue(ORDER).path)
    for (const bad of [
      '',
      '.',
      token.split('.')[0] as string,
      `${token.split('.')[0]}.`,
      token.slice(0, -1),
      `${token}A`,
      `${'A'.repeat(REPORT_LINK_SETTINGS.maxTokenLength)}.${token.split('.')[1]}`,
      token.replace('.', '!'),
    ])
      expect(refusal(() => links().redeem(bad)).code, bad.slice(0, 40)).toBe('invalid_report_link')
  })

  it('refuses a signed token that holds no order of this format', () => {
    // Signed as the service signs, but its payload is not one it writes: read only after the signature.
    const sign = (body: string) =>
      createHmac('sha256', SECRET).update('report-link.1.').update(body).digest('base64url')
    for (const payload of ['{"v":2}', 'not json', JSON.stringify({ v: 1, k: 'key_1' })]) {
      const body = deflateRawSync(payload).toString('base64url')
      expect(refusal(() => links().redeem(`${body}.${sign(body)}`)).code).toBe('invalid_report_link')
    }
    const notDeflated = Buffer.from('{}').toString('base64url')
    expect(refusal(() => links().redeem(`${notDeflated}.${sign(notDeflated)}`)).code).toBe(
      'invalid_report_link',
    )
  })

  it('refuses to hand out a link for a request too large for a URL, naming reportLink', () => {
    // A stand of many irregular vertices: its link would pass the longest token handed out.
    const ring = Array.from({ length: 600 }, (_, i) => {
      const angle = (i / 600) * 2 * Math.PI
      const radius = 0.02 + 0.01 * Math.sin(i * 7.3)
      return [-123.6 + radius * Math.cos(angle), 44.6 + radius * Math.sin(angle)]
    })
    ring.push(ring[0] as number[])
    const error = refusal(() =>
      links().issue({
        ...ORDER,
        operation: 'stocking-plan',
        request: {
          stand: { type: 'Polygon', coordinates: [ring as [number, number][]] },
          plantingMethod: 'manual',
          speciesMix: [{ speciesCode: 'PSME', share: 1 }],
        },
      }),
    ) as { code: string; details?: { field?: string } }
    expect(error.code).toBe('invalid_request')
    expect(error.details?.field).toBe('reportLink')
  })

  it('stays within the longest token for a point request, and is the same for the same order and time', () => {
    const first = links().issue(ORDER)
    expect(tokenOf(first.path).length).toBeLessThan(REPORT_LINK_SETTINGS.maxTokenLength)
    expect(links().issue(ORDER).path).toBe(first.path)
  })

  it('needs a secret of at least 32 bytes', () => {
    expect(() => new ReportLinks(Buffer.alloc(16))).toThrow(/at least 32 bytes/)
  })
})
