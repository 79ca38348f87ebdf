import { type Agent, type ClientRequest, request as httpRequest } from 'node:http'
import { expect } from 'vitest'
import { loadOpenApiDocument, OpenApiValidator } from '../openapi/openapi-validator.ts'

/**
 * The REST test client. Every response it hands a test has been checked against schema/openapi.yaml
 * for its method, path and status (status documented, media type, body schema with exact field sets,
 * types, ranges, enums and error codes, headers), and the call throws when it does not conform. The
 * helpers below add only what the document cannot express: exact values, order, and relations
 * between fields.
 */

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

let validator: OpenApiValidator | undefined

/** Throws unless `result` is what the OpenAPI document allows as the answer to `method target`. */
function conforming(method: string, target: string, result: RestResult): RestResult {
  validator ??= new OpenApiValidator(loadOpenApiDocument())
  const problems = validator.checkExchange(method, target, result)
  if (problems.length > 0) {
    throw new Error(
      `${method} ${target} → ${result.status} does not conform to schema/openapi.yaml:\n  ${problems.join('\n  ')}\n` +
        `body: ${result.text.slice(0, 500)}`,
    )
  }
  return result
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
  const { bytes: _bytes, ...result } = await restBytes(url, method, path, options)
  return result
}

/** As `rest`, keeping the body's bytes too (a PDF report). */
export async function restBytes(
  url: string,
  method: string,
  path: string,
  options: RestOptions = {},
): Promise<RestResult & { bytes: Uint8Array }> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key !== undefined) headers['x-api-key'] = options.key
  const raw = options.json !== undefined ? JSON.stringify(options.json) : options.raw
  if (options.json !== undefined) headers['content-type'] = 'application/json'
  // Bytes, not a string: fetch would add `Content-Type: text/plain` to a string body.
  const body =
    raw === undefined
      ? undefined
      : new Uint8Array(typeof raw === 'string' ? new TextEncoder().encode(raw) : raw)
  if (options.contentType === null) delete headers['content-type']
  else if (options.contentType !== undefined) headers['content-type'] = options.contentType
  const response = await fetch(`${url}${path}`, { method, headers, body })
  const bytes = new Uint8Array(await response.arrayBuffer())
  const text = new TextDecoder().decode(bytes)
  const result = { status: response.status, headers: response.headers, text, body: parse(text) }
  return { ...conforming(method, path, result), bytes }
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
        const result = { status: res.statusCode ?? 0, headers: responseHeaders, text, body: parse(text) }
        try {
          resolve(conforming(method, path, result))
        } catch (error) {
          reject(error)
        }
      })
      res.on('error', reject)
    })
    req.on('error', (error) => {
      if (!answered) reject(error)
    })
    ;(async () => {
      for (const chunk of chunks) {
        if (req.destroyed) return
        if (!req.write(chunk)) await drainedOrClosed(req)
      }
      req.end()
    })().catch(() => {})
  })
}

/** Waits until a request can take more body, or is gone; leaves no listener behind. */
function drainedOrClosed(req: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done).off('close', done)
      resolve()
    }
    req.on('drain', done).on('close', done)
  })
}

/** What the document cannot say about an error envelope: its message is not empty. */
export function envelopeProblems(body: { error?: { message?: unknown } } | undefined): string[] {
  const message = body?.error?.message
  return typeof message === 'string' && message.length > 0 ? [] : ['error.message is empty']
}

/** Asserts the status and the error code (the envelope itself was checked on receipt); returns the error. */
export function expectError(result: RestResult, status: number, code: string) {
  expect(result.status, result.text).toBe(status)
  expect(result.body?.error?.code, result.text).toBe(code)
  expect(envelopeProblems(result.body), result.text).toEqual([])
  return result.body.error as { code: string; message: string; details?: Record<string, unknown> }
}

/** An invalid_request naming the field (the document requires a reason with it). */
export function expectInvalidRequest(result: RestResult, field: string) {
  const error = expectError(result, 400, 'invalid_request')
  expect(error.details?.field, result.text).toBe(field)
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

/**
 * An ISO 8601 UTC timestamp with an upper-case `T`: stricter than the document's `date-time`, which
 * also admits a space or a lower-case `t`.
 */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

interface HorizonPrediction {
  horizon_years: number
  survival_probability: number
  risk_factors: { factor: string; impact: string; magnitude: number }[]
}

interface Model {
  version: string
  codename: string
  series: string
}

/** A prediction or comparison body, already checked against the document. */
interface PredictionLike {
  site: { latitude: number; longitude: number }
  species_code: string
  species_common_name: string
  planting_method?: string
  model: Model
  generated_at: string
}

export interface PredictionExpectation {
  species_code?: string
  planting_method?: string
  horizons?: readonly number[]
  latitude?: number
  longitude?: number
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Beyond the document, for a list of horizon predictions: the horizons are the requested ones (or
 * distinct), ascending; the risk factors are named and ranked by magnitude, largest first.
 */
function horizonListProblems(where: string, list: unknown, horizons?: readonly number[]): string[] {
  if (!Array.isArray(list)) return [`${where} is not a list`]
  const problems: string[] = []
  ;(list as HorizonPrediction[]).forEach((entry, index) => {
    const at = `${where}[${index}]`
    const factors = entry.risk_factors ?? []
    factors.forEach((factor, i) => {
      if (factor.factor === '') problems.push(`${at}.risk_factors[${i}].factor is empty`)
    })
    if (factors.some((factor, i) => i > 0 && factor.magnitude > (factors[i - 1]?.magnitude ?? 0))) {
      problems.push(`${at}.risk_factors not ranked by magnitude`)
    }
  })
  const years = (list as HorizonPrediction[]).map((entry) => entry.horizon_years)
  const wanted = horizons ?? [...new Set(years)].sort((a, b) => a - b)
  if (JSON.stringify(years) !== JSON.stringify(wanted)) {
    problems.push(`${where} horizons ${JSON.stringify(years)} ≠ ${JSON.stringify(wanted)}`)
  }
  return problems
}

/** Beyond the document, for what a prediction and a comparison share: values the document leaves open. */
function commonProblems(body: PredictionLike, expected: PredictionExpectation): string[] {
  const problems: string[] = []
  if (body.species_common_name === '') problems.push('species_common_name is empty')
  if (body.model?.version !== '0.2') problems.push('model.version')
  if (body.model?.series !== 'mycel') problems.push('model.series')
  if (body.model?.codename === '') problems.push('model.codename is empty')
  if (!ISO_UTC.test(String(body.generated_at))) problems.push('generated_at')
  if (expected.species_code !== undefined && body.species_code !== expected.species_code)
    problems.push('species_code ≠')
  if (expected.planting_method !== undefined && body.planting_method !== expected.planting_method)
    problems.push('planting_method ≠')
  if (expected.latitude !== undefined && body.site?.latitude !== expected.latitude)
    problems.push('site.latitude ≠')
  if (expected.longitude !== undefined && body.site?.longitude !== expected.longitude)
    problems.push('site.longitude ≠')
  return problems
}

/** Problems with a single-site prediction response (spec §2) beyond its schema; [] when it is right. */
export function predictionProblems(body: unknown, expected: PredictionExpectation = {}): string[] {
  if (!isObject(body)) return ['prediction is not an object']
  return [
    ...commonProblems(body as unknown as PredictionLike, expected),
    ...horizonListProblems('predictions', body.predictions, expected.horizons),
  ]
}

/**
 * Problems with a compare response beyond its schema: both lists as for a prediction, and one
 * differential per horizon with `difference` = manual − drone_seeded.
 */
export function comparisonProblems(body: unknown, expected: PredictionExpectation = {}): string[] {
  if (!isObject(body)) return ['comparison is not an object']
  const { predictions, method_differential: differential } = body as {
    predictions?: { manual?: HorizonPrediction[]; drone_seeded?: HorizonPrediction[] }
    method_differential?: {
      horizon_years: number
      manual: number
      drone_seeded: number
      difference: number
    }[]
  }
  const manual = predictions?.manual ?? []
  const drone = predictions?.drone_seeded ?? []
  const problems = [
    ...commonProblems(body as unknown as PredictionLike, expected),
    ...horizonListProblems('predictions.manual', predictions?.manual, expected.horizons),
    ...horizonListProblems('predictions.drone_seeded', predictions?.drone_seeded, expected.horizons),
  ]
  if (!Array.isArray(differential) || differential.length !== manual.length) {
    return [...problems, 'method_differential length']
  }
  differential.forEach((d, index) => {
    const at = `method_differential[${index}]`
    if (d.horizon_years !== manual[index]?.horizon_years) problems.push(`${at}.horizon_years`)
    if (d.manual !== manual[index]?.survival_probability) problems.push(`${at}.manual`)
    if (d.drone_seeded !== drone[index]?.survival_probability) problems.push(`${at}.drone_seeded`)
    if (Math.abs(d.difference - (d.manual - d.drone_seeded)) > 1e-9)
      problems.push(`${at}.difference ≠ manual − drone_seeded`)
  })
  return problems
}

/**
 * Problems with a batch response beyond its schema: one result per submitted site, in order, each
 * with its own index; predictions and errors checked as above.
 */
export function batchProblems(body: unknown, submitted: number): string[] {
  const results = isObject(body) ? body.results : undefined
  if (!Array.isArray(results) || results.length !== submitted) return [`results is not ${submitted} long`]
  const problems: string[] = []
  results.forEach((item: { index?: number; prediction?: unknown; error?: { message?: unknown } }, index) => {
    if (item.index !== index) problems.push(`results[${index}].index = ${String(item.index)}`)
    const found =
      'prediction' in item ? predictionProblems(item.prediction) : envelopeProblems({ error: item.error })
    problems.push(...found.map((problem) => `results[${index}].${problem}`))
  })
  return problems
}
