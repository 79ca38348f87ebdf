import { type Agent, request as httpRequest } from 'node:http'
import { expect } from 'vitest'
import { FOREST_POINTS } from '../support/fixtures.ts'

/** A parsed /v1 response; tests read into the body freely. */
export interface RestResult {
  status: number
  headers: Headers
  text: string
  // biome-ignore lint/suspicious/noExplicitAny: response shapes vary per endpoint in tests
  body: any
}

export interface RestOptions {
  key?: string
  /** Serialised with JSON.stringify and sent as application/json unless contentType says otherwise. */
  json?: unknown
  /** Sent verbatim; no Content-Type unless contentType is given. */
  raw?: string | Uint8Array
  /** Content-Type to send; null sends none at all. */
  contentType?: string | null
  headers?: Record<string, string>
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Calls a /v1 endpoint with fetch; `body` is the parsed JSON or undefined when the body is not JSON. */
export async function rest(url: string, method: string, path: string, options: RestOptions = {}) {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key !== undefined) headers['x-api-key'] = options.key
  let body: string | Uint8Array<ArrayBuffer> | undefined
  if (options.json !== undefined) {
    body = JSON.stringify(options.json)
    headers['content-type'] = 'application/json'
  } else if (options.raw !== undefined) {
    // A Uint8Array body makes fetch send no Content-Type of its own.
    body = new Uint8Array(
      typeof options.raw === 'string' ? new TextEncoder().encode(options.raw) : options.raw,
    )
  }
  if (options.contentType === null) delete headers['content-type']
  else if (options.contentType !== undefined) headers['content-type'] = options.contentType
  const response = await fetch(`${url}${path}`, { method, headers, body })
  const text = await response.text()
  return { status: response.status, headers: response.headers, text, body: parse(text) } as RestResult
}

export const post = (url: string, path: string, json: unknown, key?: string) =>
  rest(url, 'POST', path, { json, key })

export const get = (url: string, path: string, key?: string) => rest(url, 'GET', path, { key })

/**
 * A request over a raw node:http socket, for bodies the server may refuse before reading them all
 * (413): the response is kept even when the upload is cut short.
 */
export function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string | number>,
  chunks: (string | Buffer)[],
  /** Default: a fresh connection per request. */
  agent: Agent | false = false,
): Promise<RestResult> {
  return new Promise((resolve, reject) => {
    let answered = false
    const req = httpRequest(`${url}${path}`, { method, headers, agent }, (res) => {
      answered = true
      const parts: Buffer[] = []
      res.on('data', (chunk: Buffer) => parts.push(chunk))
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8')
        const responseHeaders = new Headers()
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value)
        }
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, text, body: parse(text) })
      })
      res.on('error', reject)
    })
    req.on('error', (error) => {
      if (!answered) reject(error)
    })
    ;(async () => {
      for (const chunk of chunks) {
        if (req.destroyed) return
        if (!req.write(chunk)) await new Promise((r) => req.once('drain', r).once('close', r))
      }
      req.end()
    })().catch(() => {})
  })
}

export const KEY_HEADER_NAMES = ['x-api-key'] as const

/** The problems with an error envelope: exactly `{"error": {code, message, details?}}`. */
export function envelopeProblems(body: unknown): string[] {
  const problems: string[] = []
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['body is not a JSON object']
  const keys = Object.keys(body)
  if (keys.length !== 1 || keys[0] !== 'error') problems.push(`top-level keys ${JSON.stringify(keys)}`)
  const error = (body as { error?: unknown }).error
  if (typeof error !== 'object' || error === null || Array.isArray(error))
    return [...problems, 'no error object']
  const inner = error as Record<string, unknown>
  for (const key of Object.keys(inner)) {
    if (!['code', 'message', 'details'].includes(key)) problems.push(`unexpected error.${key}`)
  }
  if (typeof inner.code !== 'string' || !/^[a-z_]+$/.test(inner.code)) problems.push('error.code')
  if (typeof inner.message !== 'string' || inner.message.length === 0) problems.push('error.message')
  if (
    'details' in inner &&
    (typeof inner.details !== 'object' || inner.details === null || Array.isArray(inner.details))
  ) {
    problems.push('error.details is not an object')
  }
  return problems
}

/** Asserts the exact error envelope, the status and the code; returns the inner error. */
export function expectError(result: RestResult, status: number, code: string) {
  expect(result.status, result.text).toBe(status)
  expect(result.headers.get('content-type')).toMatch(/^application\/json/)
  expect(envelopeProblems(result.body), result.text).toEqual([])
  expect(result.body.error.code, result.text).toBe(code)
  return result.body.error as { code: string; message: string; details?: Record<string, unknown> }
}

/** An invalid_request naming the field, with a reason. */
export function expectInvalidRequest(result: RestResult, field: string) {
  const error = expectError(result, 400, 'invalid_request')
  expect(error.details?.field, result.text).toBe(field)
  expect(typeof error.details?.reason, result.text).toBe('string')
  return error
}

export const SPECIES_CODES = [
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
] as const

export function predictBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...FOREST_POINTS.coastRange, species_code: 'PSME', planting_method: 'manual', ...overrides }
}

export function compareBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...FOREST_POINTS.coastRange, species_code: 'PSME', ...overrides }
}

/** `count` predict bodies at distinct forest points of the Coast Range. */
export function batchSites(count: number, overrides: Record<string, unknown> = {}) {
  const base = FOREST_POINTS.coastRange
  const side = Math.ceil(Math.sqrt(count))
  return Array.from({ length: count }, (_, index) =>
    predictBody({
      latitude: Number((base.latitude - 0.2 + (index % side) * 0.01).toFixed(5)),
      longitude: Number((base.longitude - 0.1 + Math.floor(index / side) * 0.01).toFixed(5)),
      ...overrides,
    }),
  )
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function exactKeys(problems: string[], where: string, value: unknown, keys: readonly string[]): boolean {
  if (!isObject(value)) {
    problems.push(`${where} is not an object`)
    return false
  }
  const actual = Object.keys(value).sort()
  const wanted = [...keys].sort()
  if (JSON.stringify(actual) !== JSON.stringify(wanted)) {
    problems.push(`${where} keys ${JSON.stringify(actual)} ≠ ${JSON.stringify(wanted)}`)
  }
  return true
}

const isProbability = (value: unknown) => typeof value === 'number' && value >= 0 && value <= 1

function siteProblems(problems: string[], site: unknown): void {
  if (
    !exactKeys(problems, 'site', site, [
      'latitude',
      'longitude',
      'matched_latitude',
      'matched_longitude',
      'match_distance_km',
      'region',
    ])
  )
    return
  const s = site as Record<string, unknown>
  for (const field of ['latitude', 'matched_latitude'] as const) {
    if (typeof s[field] !== 'number' || Math.abs(s[field] as number) > 90) problems.push(`site.${field}`)
  }
  for (const field of ['longitude', 'matched_longitude'] as const) {
    if (typeof s[field] !== 'number' || Math.abs(s[field] as number) > 180) problems.push(`site.${field}`)
  }
  if (typeof s.match_distance_km !== 'number' || s.match_distance_km < 0)
    problems.push('site.match_distance_km')
  if (s.region !== 'pnw') problems.push('site.region')
}

function modelProblems(problems: string[], model: unknown): void {
  if (!exactKeys(problems, 'model', model, ['version', 'codename', 'series'])) return
  const m = model as Record<string, unknown>
  if (m.version !== '0.2') problems.push('model.version')
  if (typeof m.codename !== 'string' || m.codename === '') problems.push('model.codename')
  if (m.series !== 'mycel') problems.push('model.series')
}

/** Problems with a list of horizon predictions: ascending horizons, exactly 3 ranked risk factors each. */
export function horizonListProblems(where: string, list: unknown, horizons?: readonly number[]): string[] {
  const problems: string[] = []
  if (!Array.isArray(list) || list.length === 0) return [`${where} is not a non-empty array`]
  list.forEach((entry, index) => {
    const at = `${where}[${index}]`
    if (!exactKeys(problems, at, entry, ['horizon_years', 'survival_probability', 'risk_factors'])) return
    const e = entry as Record<string, unknown>
    if (![1, 3, 5].includes(e.horizon_years as number)) problems.push(`${at}.horizon_years`)
    if (!isProbability(e.survival_probability)) problems.push(`${at}.survival_probability`)
    const factors = e.risk_factors
    if (!Array.isArray(factors) || factors.length !== 3) {
      problems.push(`${at}.risk_factors is not 3 long`)
      return
    }
    factors.forEach((factor, i) => {
      const fat = `${at}.risk_factors[${i}]`
      if (!exactKeys(problems, fat, factor, ['factor', 'impact', 'magnitude'])) return
      const f = factor as Record<string, unknown>
      if (typeof f.factor !== 'string' || f.factor === '') problems.push(`${fat}.factor`)
      if (f.impact !== 'negative' && f.impact !== 'positive') problems.push(`${fat}.impact`)
      if (typeof f.magnitude !== 'number' || f.magnitude < 0) problems.push(`${fat}.magnitude`)
    })
    const magnitudes = factors.map((f) => (f as { magnitude: number }).magnitude)
    if (magnitudes.some((m, i) => i > 0 && m > (magnitudes[i - 1] as number))) {
      problems.push(`${at}.risk_factors not ranked by magnitude`)
    }
  })
  const years = list.map((e) => (e as { horizon_years?: number }).horizon_years)
  const wanted = horizons ?? [...new Set(years as number[])].sort((a, b) => a - b)
  if (JSON.stringify(years) !== JSON.stringify(wanted))
    problems.push(`${where} horizons ${JSON.stringify(years)}`)
  return problems
}

export interface PredictionExpectation {
  species_code?: string
  planting_method?: string
  horizons?: readonly number[]
  latitude?: number
  longitude?: number
}

/** Problems with a single-site prediction response (spec §2), [] when it is exactly right. */
export function predictionProblems(body: unknown, expected: PredictionExpectation = {}): string[] {
  const problems: string[] = []
  if (
    !exactKeys(problems, 'prediction', body, [
      'site',
      'species_code',
      'species_common_name',
      'planting_method',
      'predictions',
      'model',
      'generated_at',
    ])
  )
    return problems
  const p = body as Record<string, unknown>
  siteProblems(problems, p.site)
  if (typeof p.species_code !== 'string' || !/^[A-Z]{4}$/.test(p.species_code)) problems.push('species_code')
  if (typeof p.species_common_name !== 'string' || p.species_common_name === '')
    problems.push('species_common_name')
  if (p.planting_method !== 'manual' && p.planting_method !== 'drone_seeded') problems.push('planting_method')
  problems.push(...horizonListProblems('predictions', p.predictions, expected.horizons))
  modelProblems(problems, p.model)
  if (typeof p.generated_at !== 'string' || !ISO_UTC.test(p.generated_at)) problems.push('generated_at')
  if (expected.species_code !== undefined && p.species_code !== expected.species_code)
    problems.push('species_code ≠')
  if (expected.planting_method !== undefined && p.planting_method !== expected.planting_method)
    problems.push('planting_method ≠')
  const site = p.site as Record<string, unknown> | undefined
  if (expected.latitude !== undefined && site?.latitude !== expected.latitude)
    problems.push('site.latitude ≠')
  if (expected.longitude !== undefined && site?.longitude !== expected.longitude)
    problems.push('site.longitude ≠')
  return problems
}

/** Problems with a compare response (layout documented in the README). */
export function comparisonProblems(body: unknown, expected: PredictionExpectation = {}): string[] {
  const problems: string[] = []
  if (
    !exactKeys(problems, 'comparison', body, [
      'site',
      'species_code',
      'species_common_name',
      'predictions',
      'method_differential',
      'model',
      'generated_at',
    ])
  )
    return problems
  const c = body as Record<string, unknown>
  siteProblems(problems, c.site)
  if (typeof c.species_code !== 'string' || !/^[A-Z]{4}$/.test(c.species_code)) problems.push('species_code')
  if (expected.species_code !== undefined && c.species_code !== expected.species_code)
    problems.push('species_code ≠')
  if (typeof c.species_common_name !== 'string') problems.push('species_common_name')
  modelProblems(problems, c.model)
  if (typeof c.generated_at !== 'string' || !ISO_UTC.test(c.generated_at)) problems.push('generated_at')
  if (!exactKeys(problems, 'predictions', c.predictions, ['manual', 'drone_seeded'])) return problems
  const predictions = c.predictions as Record<string, unknown>
  problems.push(...horizonListProblems('predictions.manual', predictions.manual, expected.horizons))
  problems.push(
    ...horizonListProblems('predictions.drone_seeded', predictions.drone_seeded, expected.horizons),
  )
  const manual = predictions.manual as { horizon_years: number; survival_probability: number }[]
  const drone = predictions.drone_seeded as { horizon_years: number; survival_probability: number }[]
  const differential = c.method_differential
  if (!Array.isArray(differential) || !Array.isArray(manual) || differential.length !== manual.length) {
    problems.push('method_differential length')
    return problems
  }
  differential.forEach((entry, index) => {
    const at = `method_differential[${index}]`
    if (!exactKeys(problems, at, entry, ['horizon_years', 'manual', 'drone_seeded', 'difference'])) return
    const d = entry as Record<string, number>
    if (d.horizon_years !== manual[index]?.horizon_years) problems.push(`${at}.horizon_years`)
    if (d.manual !== manual[index]?.survival_probability) problems.push(`${at}.manual`)
    if (d.drone_seeded !== drone[index]?.survival_probability) problems.push(`${at}.drone_seeded`)
    if (
      typeof d.difference !== 'number' ||
      Math.abs(d.difference - ((d.manual ?? 0) - (d.drone_seeded ?? 0))) > 1e-9
    )
      problems.push(`${at}.difference ≠ manual − drone_seeded`)
  })
  return problems
}

/** Problems with a batch response: `{"results": [{index, prediction} | {index, error}]}` in order. */
export function batchProblems(body: unknown, submitted: number): string[] {
  const problems: string[] = []
  if (!exactKeys(problems, 'batch', body, ['results'])) return problems
  const results = (body as { results: unknown }).results
  if (!Array.isArray(results) || results.length !== submitted) return [`results is not ${submitted} long`]
  results.forEach((item, index) => {
    if (!isObject(item)) {
      problems.push(`results[${index}] is not an object`)
      return
    }
    if (item.index !== index) problems.push(`results[${index}].index = ${String(item.index)}`)
    if ('prediction' in item) {
      exactKeys(problems, `results[${index}]`, item, ['index', 'prediction'])
      problems.push(...predictionProblems(item.prediction).map((p) => `results[${index}].${p}`))
    } else {
      exactKeys(problems, `results[${index}]`, item, ['index', 'error'])
      problems.push(...envelopeProblems({ error: item.error }).map((p) => `results[${index}] ${p}`))
    }
  })
  return problems
}
