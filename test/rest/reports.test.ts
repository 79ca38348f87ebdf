import { mkdirSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { messagesFor, textOr } from '../../src/domain/reports/report-messages.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { pdfInfo, pdfPages, pdfText } from '../support/pdf-tools.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { FOREST_POINTS, NO_DATA_POINTS, OUTSIDE_POINTS } from '../support/sites.ts'
import { expectError, type RestResult, restBytes } from './client.ts'

/**
 * PDF reports end to end (docs/reports.md): `Accept: application/pdf` on the stocking plan, the method
 * comparison and the species ranking, against the whole app on a seeded PostgreSQL and the test Redis,
 * with a fixed clock. Each report is read back with poppler-utils: its text holds every number of the
 * JSON answer to the same request, rounded as docs/reports.md says it is printed, in English and in
 * Spanish; pdfinfo shows its pages, title, language and tags; every page renders. Set REPORT_PNG_DIR
 * to keep the rendered pages.
 */

const NOW = new Date('2026-03-14T09:26:53.000Z')
const PNG_DIR = process.env.REPORT_PNG_DIR

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer({ now: () => NOW }, 'hypha'))
  if (PNG_DIR) mkdirSync(PNG_DIR, { recursive: true })
})

afterAll(() => stopSeededServer({ db, server }))

type Language = 'en' | 'es'
// biome-ignore lint/suspicious/noExplicitAny: JSON answers are walked freely
type Json = any

function post(path: string, body: unknown, headers: Record<string, string> = {}, withKey = key) {
  return restBytes(server.url, 'POST', path, { json: body, key: withKey, headers })
}

function pdf(path: string, body: unknown, language: Language, headers: Record<string, string> = {}) {
  return post(path, body, {
    accept: 'application/pdf',
    'accept-language': language === 'es' ? 'es-ES,es;q=0.9' : 'en-US,en;q=0.9',
    ...headers,
  })
}

const STAND_NAME = 'Unidad 7 — Cañada del Norte'

/** A square stand in the Coast Range, `half` degrees each way, as a named GeoJSON Feature. */
function namedStand(half = 0.03) {
  const { latitude, longitude } = FOREST_POINTS.coastRange
  return {
    type: 'Feature',
    properties: { name: STAND_NAME },
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [longitude - half, latitude - half],
          [longitude + half, latitude - half],
          [longitude + half, latitude + half],
          [longitude - half, latitude + half],
          [longitude - half, latitude - half],
        ],
      ],
    },
  }
}

const REPORTS = {
  'point plan': {
    path: '/v1/plans/stocking',
    body: {
      ...FOREST_POINTS.coastRange,
      planting_method: 'manual',
      species_mix: [
        { species_code: 'PSME', share: 0.7 },
        { species_code: 'THPL', share: 0.2 },
        { species_code: 'ALRU', share: 0.1 },
      ],
      trees_per_acre: 300,
      confidence: 0.9,
    },
  },
  'stand plan': {
    path: '/v1/plans/stocking',
    body: {
      stand: namedStand(),
      planting_method: 'drone_seeded',
      species_mix: [{ species_code: 'PSME', share: 1 }],
      trees_per_hectare: 990,
      climate: { period: '2041-2070', scenario: 'ssp245' },
    },
  },
  comparison: {
    path: '/v1/predict/compare',
    body: {
      ...FOREST_POINTS.westCascades,
      species_code: 'TSHE',
      climate: { period: '2071-2100', scenario: 'ssp585' },
    },
  },
  ranking: {
    path: '/v1/predict/rank',
    body: { ...FOREST_POINTS.eastCascades, planting_method: 'manual', horizon: 3 },
  },
  // With treatments (docs/treatments.md): the treatments asked for, each effect and its status, and the
  // treated and untreated survival the answer carries.
  'treated plan': {
    path: '/v1/plans/stocking',
    body: {
      ...FOREST_POINTS.coastRange,
      planting_method: 'manual',
      species_mix: [{ species_code: 'PSME', share: 1 }],
      trees_per_acre: 300,
      treatments: { vegetation_control: 'release_2yr', animal_protection: 'mesh_tubes' },
    },
  },
  'treated comparison': {
    path: '/v1/predict/compare',
    body: {
      ...FOREST_POINTS.coastRange,
      species_code: 'PSME',
      treatments: { vegetation_control: 'site_prep_release_1yr' },
    },
  },
  'treated ranking': {
    path: '/v1/predict/rank',
    body: {
      ...FOREST_POINTS.coastRange,
      planting_method: 'manual',
      horizon: 5,
      treatments: { vegetation_control: 'release_1yr', stock_type: 'container', shade: 'shade_cards' },
    },
  },
} as const

/**
 * How docs/reports.md says a number of the JSON answer is printed, by its field: the decimals (exact,
 * or at most), and whether it is an id.
 */
function printedAs(path: string): { fixed?: number; upTo?: number; id?: true } {
  const field =
    path
      .replace(/\[\d+\]$/, '')
      .split('.')
      .at(-1) ?? ''
  if (/^interval\[\d+\]$/.test(path.split('.').at(-1) ?? '')) return { fixed: 3 }
  if (field === 'site_id' || field === 'year' || field === 'price_year') return { id: true }
  // Money to the cent; a part's quantity (trees, pods or applications per acre) to 2 places.
  if (path.startsWith('cost.')) {
    if (/^(per_acre|unit_cost|per_established_tree|lower|upper)$/.test(field)) return { fixed: 2 }
    if (field === 'quantity') return { upTo: 2 }
  }
  // A treatment's figure and odds ratio, with their ranges: at most 3 decimals.
  if (/\.figure\.(value|range\[\d+\])$/.test(path) || /^odds_ratio(_range)?$/.test(field)) return { upTo: 3 }
  if (path.startsWith('climate.deltas.') || path.startsWith('climate.projected.')) return { upTo: 1 }
  if (path === 'planted.trees_per_acre' || /planted_trees_per_acre$/.test(field)) return { upTo: 2 }
  if (/latitude|longitude/.test(field)) return { upTo: 5 }
  if (/distance_km$/.test(field)) return { fixed: 2 }
  if (field === 'area_ha') return { upTo: 2 }
  if (field === 'overplanting_factor') return { upTo: 3 }
  if (
    /^(survival_probability|share|confidence|probability|difference|manual|drone_seeded|hardwood_share_cap|ninety_percent_half_width_share|interval_level|level|magnitude|offset|untreated_survival_probability|contribution|untreated_contribution|reduction|reduction_range|reduction_sd|effect_sd)$/.test(
      field,
    )
  )
    return { fixed: 3 }
  return { upTo: 1 }
}

function format(value: number, language: Language, rule: ReturnType<typeof printedAs>): string {
  if (rule.id) return String(value)
  const text = new Intl.NumberFormat(language === 'es' ? 'es-ES' : 'en-US', {
    minimumFractionDigits: rule.fixed ?? 0,
    maximumFractionDigits: rule.fixed ?? rule.upTo ?? 0,
  }).format(value)
  return /^-0([.,]0*)?$/.test(text) ? text.slice(1) : text
}

/** Every number of a JSON answer with its path (`horizons[0].by_species[1].share`). */
function numbersOf(value: Json, path = ''): { path: string; value: number }[] {
  if (typeof value === 'number') return [{ path, value }]
  if (Array.isArray(value)) return value.flatMap((item, index) => numbersOf(item, `${path}[${index}]`))
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([name, item]) => numbersOf(item, path ? `${path}.${name}` : name))
  return []
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The numbers missing from the text: each must stand alone (no digit, or decimal mark and digit, around it). */
function missingNumbers(answer: Json, text: string, language: Language): string[] {
  const flat = text.replace(/\s+/g, ' ')
  return numbersOf(answer).flatMap(({ path, value }) => {
    const printed = format(value, language, printedAs(path))
    const found = new RegExp(`(?<![\\d.,])${escapeRegExp(printed)}(?![\\d]|[.,]\\d)`).test(flat)
    return found ? [] : [`${path} = ${value}, printed ${printed}`]
  })
}

/** The report's text before its reproduction section (which repeats the request's own numbers). */
function answerText(text: string, language: Language): string {
  const heading = language === 'es' ? 'Cómo reproducir este informe' : 'Reproduce this report'
  const at = text.lastIndexOf(heading)
  expect(at, 'the report has a reproduction section').toBeGreaterThan(0)
  return text.slice(0, at)
}

async function keepPages(bytes: Uint8Array, name: string) {
  const pages = await pdfPages(bytes, PNG_DIR ? 70 : 30, PNG_DIR ? { dir: PNG_DIR, name } : undefined)
  return pages
}

describe('a PDF report holds the JSON answer', () => {
  for (const [name, { path, body }] of Object.entries(REPORTS))
    for (const language of ['en', 'es'] as const)
      it(`${name} (${language}): every number, the title, language, tags, 1 to 3 pages that render`, async () => {
        const json = await post(path, body)
        expect(json.status, json.text).toBe(200)
        const report = await pdf(path, body, language)
        expect(report.status, report.text.slice(0, 300)).toBe(200)
        expect(report.headers.get('content-type')).toBe('application/pdf')
        expect(report.headers.get('content-language')).toBe(language)
        expect(report.headers.get('survival-data-version')).toBe(json.headers.get('survival-data-version'))
        expect(Buffer.from(report.bytes.subarray(0, 5)).toString()).toBe('%PDF-')

        const text = await pdfText(report.bytes)
        const { generated_at: _at, ...answer } = json.body
        expect(missingNumbers(answer, answerText(text, language), language)).toEqual([])
        if (json.body.treatments) {
          // Each effect's treatment, value and status, in the report's words (a value by its name).
          const blocks =
            'manual' in json.body.treatments ? Object.values(json.body.treatments) : [json.body.treatments]
          const status: Record<string, string> =
            language === 'es'
              ? { published: 'publicada', synthesis: 'síntesis', assumption: 'supuesto' }
              : { published: 'published', synthesis: 'synthesis', assumption: 'assumption' }
          const flat = text.replace(/\s+/g, ' ')
          for (const block of blocks as Json[])
            for (const effect of block.effects) {
              expect(flat).toContain(
                `: ${textOr(messagesFor(language), `treatmentValue.${effect.value}`, effect.value)}`,
              )
              expect(flat).toContain(status[effect.status])
            }
          // The untreated survival beside the treated, where the answer carries it (not a plan's).
          if (JSON.stringify(json.body).includes('untreated_survival_probability'))
            // (A column header may wrap: "Sin" and "tratar" on two lines.)
            expect(flat).toMatch(language === 'es' ? /\bSin\b[\s\S]*\btratar\b/ : /\bUntreated\b/)
        }

        const info = await pdfInfo(report.bytes)
        expect(info.pages).toBeGreaterThanOrEqual(1)
        expect(info.pages).toBeLessThanOrEqual(3)
        expect(info.tagged).toBe(true)
        expect(info.metadata).toContain(`<rdf:li>${language}</rdf:li>`)
        expect(Buffer.from(report.bytes).toString('latin1')).toContain(`/Lang (${language})`)
        if (name === 'stand plan') expect(info.title).toContain(STAND_NAME)
        expect(text.replace(/\s+/g, ' ')).toContain(info.title)
        // The synthetic sites' warning, the model and data versions, the request id in the footer.
        expect(text).toContain(language === 'es' ? 'Datos sintéticos' : 'Synthetic data')
        expect(text).toContain(json.body.model.version)
        expect(text).toContain(json.headers.get('survival-data-version'))
        expect(text).toContain(report.headers.get('request-id'))
        expect(text).toContain(NOW.toISOString())

        const pages = await keepPages(report.bytes, `${name.replace(' ', '-')}-${language}`)
        expect(pages).toHaveLength(info.pages)
        for (const page of pages) expect(page.subarray(1, 4).toString()).toBe('PNG')
      })
})

describe('paper', () => {
  const compare = REPORTS.comparison
  const cases: [string, Record<string, string>, string, RegExp][] = [
    ['en-US', { 'accept-language': 'en-US' }, '', /\(letter\)/],
    ['en-GB', { 'accept-language': 'en-GB' }, '', /\(A4\)/],
    ['es (no region)', { 'accept-language': 'es' }, '', /\(A4\)/],
    ['en (no region)', { 'accept-language': 'en' }, '', /\(letter\)/],
    ['es-MX', { 'accept-language': 'es-MX' }, '', /\(letter\)/],
    ['fr-CA (an English report)', { 'accept-language': 'fr-CA' }, '', /\(letter\)/],
    ['no Accept-Language', {}, '', /\(letter\)/],
    ['?paper=a4 over en-US', { 'accept-language': 'en-US' }, '?paper=a4', /\(A4\)/],
    ['?paper=letter over es-ES', { 'accept-language': 'es-ES' }, '?paper=letter', /\(letter\)/],
  ]
  for (const [name, headers, query, size] of cases)
    it(name, async () => {
      const report = await post(`${compare.path}${query}`, compare.body, {
        accept: 'application/pdf',
        ...headers,
      })
      expect(report.status, report.text.slice(0, 300)).toBe(200)
      expect((await pdfInfo(report.bytes)).pageSize).toMatch(size)
    })

  it('renders the plan, comparison and ranking on the other paper too', async () => {
    for (const [name, { path, body }] of Object.entries(REPORTS)) {
      const report = await pdf(`${path}?paper=a4`, body, 'en')
      expect(report.status, report.text.slice(0, 300)).toBe(200)
      const info = await pdfInfo(report.bytes)
      expect(info.pageSize).toMatch(/\(A4\)/)
      expect(info.pages).toBeLessThanOrEqual(3)
      expect(await keepPages(report.bytes, `${name.replace(' ', '-')}-en-a4`)).toHaveLength(info.pages)
    }
  })
})

describe('negotiation', () => {
  const { path, body } = REPORTS.ranking
  const kind = (result: RestResult) => result.headers.get('content-type')?.split(';')[0]
  it.each([
    ['application/pdf', 'application/pdf'],
    ['application/json', 'application/json'],
    ['*/*', 'application/json'],
    ['application/*', 'application/json'],
    ['text/html', 'application/json'],
    ['application/pdf;q=0', 'application/json'],
    ['application/json;q=0.5, application/pdf', 'application/pdf'],
    ['application/pdf;q=0.4, application/json;q=0.8', 'application/json'],
    ['application/pdf, */*;q=0.1', 'application/pdf'],
  ])('Accept: %s → %s', async (accept, expected) => {
    const result = await post(path, body, { accept })
    expect(result.status).toBe(200)
    expect(kind(result)).toBe(expected)
  })

  it('no Accept: JSON', async () => {
    const result = await post(path, body)
    expect(kind(result)).toBe('application/json')
  })

  it.each([
    ['es;q=0.8, en;q=0.4', 'es'],
    ['en;q=0.9, es;q=0.95', 'es'],
    ['de-DE, es;q=0.5', 'es'],
    ['de-DE', 'en'],
    ['es;q=0, *', 'en'],
    ['es-419', 'es'],
  ])('Accept-Language: %s → %s', async (acceptLanguage, language) => {
    const result = await post(path, body, { accept: 'application/pdf', 'accept-language': acceptLanguage })
    expect(result.headers.get('content-language')).toBe(language)
    expect(await pdfText(result.bytes)).toContain(
      language === 'es' ? 'Especies ordenadas por supervivencia' : 'Species ranked by survival',
    )
  })
})

describe('the same request gives the same bytes', () => {
  it('with a fixed clock and the same Request-Id, byte for byte; another language, other bytes', async () => {
    for (const { path, body } of Object.values(REPORTS)) {
      const first = await pdf(path, body, 'es', { 'request-id': 'report-determinism-1' })
      const second = await pdf(path, body, 'es', { 'request-id': 'report-determinism-1' })
      expect(first.status).toBe(200)
      expect(Buffer.from(second.bytes).equals(Buffer.from(first.bytes))).toBe(true)
      const english = await pdf(path, body, 'en', { 'request-id': 'report-determinism-1' })
      expect(Buffer.from(english.bytes).equals(Buffer.from(first.bytes))).toBe(false)
    }
  })
})

describe('errors stay JSON', () => {
  const asPdf = { accept: 'application/pdf', 'accept-language': 'es-ES' }
  const plan = REPORTS['point plan']
  const expectJsonError = (result: RestResult, status: number, code: string) => {
    expect(result.headers.get('content-type')).toMatch(/^application\/json/)
    return expectError(result, status, code)
  }

  it.each([
    ['a bad paper', '/v1/predict/compare?paper=a3', REPORTS.comparison.body, 400, 'invalid_request'],
    [
      'paper twice',
      '/v1/predict/compare?paper=a4&paper=letter',
      REPORTS.comparison.body,
      400,
      'invalid_request',
    ],
    ['a missing field', '/v1/predict/compare', { latitude: 44.6, longitude: -123.6 }, 400, 'invalid_request'],
    [
      'an unknown field',
      '/v1/predict/rank',
      { ...REPORTS.ranking.body, colour: 'red' },
      400,
      'invalid_request',
    ],
    ['a bad horizon', '/v1/predict/rank', { ...REPORTS.ranking.body, horizon: 2 }, 400, 'invalid_request'],
    [
      'an unknown species',
      '/v1/predict/compare',
      { ...REPORTS.comparison.body, species_code: 'XXXX' },
      422,
      'invalid_species',
    ],
    [
      'an unknown method',
      '/v1/predict/rank',
      { ...REPORTS.ranking.body, planting_method: 'cannon' },
      422,
      'invalid_method',
    ],
    [
      'an unknown climate',
      '/v1/predict/compare',
      { ...REPORTS.comparison.body, climate: { period: '1900' } },
      422,
      'invalid_climate',
    ],
    [
      'outside coverage',
      '/v1/predict/rank',
      { ...REPORTS.ranking.body, ...OUTSIDE_POINTS.boise },
      422,
      'outside_coverage',
    ],
    [
      'no nearby data',
      '/v1/predict/compare',
      { ...REPORTS.comparison.body, ...NO_DATA_POINTS.downtownPortland },
      422,
      'no_nearby_data',
    ],
    [
      'shares not summing to 1',
      plan.path,
      { ...plan.body, species_mix: [{ species_code: 'PSME', share: 0.5 }] },
      400,
      'invalid_request',
    ],
    [
      'a stand ring not closed',
      plan.path,
      {
        ...REPORTS['stand plan'].body,
        stand: {
          type: 'Polygon',
          coordinates: [
            [
              [-123.6, 44.6],
              [-123.5, 44.6],
              [-123.5, 44.7],
              [-123.6, 44.7],
            ],
          ],
        },
      },
      400,
      'invalid_request',
    ],
    ['a bad model version', plan.path, { ...plan.body, model_version: 'nope' }, 422, 'invalid_model_version'],
  ])('%s', async (_name, path, body, status, code) => {
    expectJsonError(await post(path, body, asPdf), status, code)
  })

  it('a body that is not JSON', async () => {
    const result = await restBytes(server.url, 'POST', plan.path, {
      raw: '{"latitude": 44.6,',
      contentType: 'application/json',
      key,
      headers: asPdf,
    })
    expectJsonError(result, 400, 'invalid_json')
  })

  it('no key', async () => {
    const result = await restBytes(server.url, 'POST', plan.path, { json: plan.body, headers: asPdf })
    expectJsonError(result, 401, 'invalid_api_key')
  })

  it('a bad paper is refused on a JSON answer too', async () => {
    expectJsonError(
      await post('/v1/predict/rank?paper=tabloid', REPORTS.ranking.body),
      400,
      'invalid_request',
    )
  })
})

describe('counting and limits', () => {
  it('a PDF counts one request, as the JSON answer does', async () => {
    const mycel = (await issueKey(db, 'mycel')).key
    const { path, body } = REPORTS.comparison
    const used = async (headers: Record<string, string>) => {
      const result = await post(path, body, headers, mycel)
      expect(result.status).toBe(200)
      return Number(result.headers.get('x-ratelimit-used') ?? Number.NaN)
    }
    const first = await used({})
    expect(await used({ accept: 'application/pdf' })).toBe(first + 1)
    expect(await used({})).toBe(first + 2)
  })

  it('a stand of 10,000 positions and 20 species stays within 3 pages and 1 MiB, its request attached whole', async () => {
    const { latitude, longitude } = FOREST_POINTS.coastRange
    const ring = Array.from({ length: 9_999 }, (_, i) => {
      const angle = (2 * Math.PI * i) / 9_999
      return [
        Number((longitude + 0.04 * Math.cos(angle)).toFixed(6)),
        Number((latitude + 0.03 * Math.sin(angle)).toFixed(6)),
      ]
    })
    const species = [
      'PSME',
      'TSHE',
      'THPL',
      'PIPO',
      'PICO',
      'PISI',
      'ABGR',
      'ABAM',
      'ABPR',
      'ABLA',
      'LAOC',
      'PIEN',
      'PIMO',
      'CADE',
      'TSME',
      'CHNO',
      'ALRU',
      'ACMA',
      'QUGA',
      'POTR',
    ]
    const body = {
      stand: {
        type: 'Feature',
        properties: { name: 'Round unit' },
        geometry: { type: 'Polygon', coordinates: [[...ring, ring[0]]] },
      },
      planting_method: 'manual',
      species_mix: species.map((code) => ({ species_code: code, share: 0.05 })),
      trees_per_acre: 400,
    }
    const report = await pdf(REPORTS['stand plan'].path, body, 'es')
    expect(report.status, report.text.slice(0, 300)).toBe(200)
    expect(report.bytes.length).toBeLessThan(1024 * 1024)
    const info = await pdfInfo(report.bytes)
    expect(info.pages).toBeLessThanOrEqual(3)
    const json = await post(REPORTS['stand plan'].path, body)
    const { generated_at: _at, ...answer } = json.body
    expect(missingNumbers(answer, answerText(await pdfText(report.bytes), 'es'), 'es')).toEqual([])
    await keepPages(report.bytes, 'stand-10000-es')
  })
})
