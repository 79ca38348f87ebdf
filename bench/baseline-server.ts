/**
 * The bench's own lean server, on the project's schema, data, model and coverage check: POST /v1/predict
 * and /v1/predict/batch written straight on node:http, postgres.js and ioredis (SHA-256 key lookup cached
 * in memory, an atomic quota check-and-INCR in one Lua script over an auto-pipelined connection, one KNN
 * statement per request with the query point's cube computed once in SQL, the model, JSON of the API's
 * shape) and nothing else. `npm run bench` compares with it when the reference server in bench/reference/
 * is absent, and runs it beside the reference server with BENCH_BASELINE=1 (it should reach ≥ 0.95× the
 * reference server's rps there).
 *
 * Env: PORT, DATABASE_URL, REDIS_URL, QUOTA_KEY_PREFIX, SEARCH_RADIUS_KM (10), DB_POOL_MAX (4).
 */
import { createHash, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { Redis } from 'ioredis'
import postgres from 'postgres'
import { findSpecies, SPECIES } from '../src/domain/species.ts'
import { isInCoverage } from '../src/geo/coverage.ts'
import { loadSurvivalModel } from '../src/model/index.ts'
import type { Horizon, HorizonPrediction, PlantingMethod, Site, Species } from '../src/types.ts'

const PORT = Number(process.env.PORT ?? 8090)
const DATABASE_URL = process.env.DATABASE_URL
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const QUOTA_KEY_PREFIX = process.env.QUOTA_KEY_PREFIX ?? 'bench:baseline:'
const SEARCH_RADIUS_KM = Number(process.env.SEARCH_RADIUS_KM ?? 10)
// The reference server's pool size: fewer connections carry more pipelined statements per write and wake-up.
const DB_POOL_MAX = Number(process.env.DB_POOL_MAX ?? 4)
const KEY_CACHE_MS = 60_000
const MAX_BODY_BYTES = 1024 * 1024
const HORIZONS: readonly Horizon[] = [1, 3, 5]
const KEY_PATTERN = /^tsp_live_[0-9a-f]{32}$/

if (!DATABASE_URL) throw new Error('DATABASE_URL is required')

// Same client options as src/db/connect.ts (camelCase rows), so the same SQL yields the same rows.
const sql = postgres(DATABASE_URL, {
  max: DB_POOL_MAX,
  transform: { column: { from: postgres.toCamel, to: postgres.fromCamel } },
  onnotice: () => {},
  connection: { application_name: 'survival-bench-baseline' },
})

const CONSUME_SCRIPT = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if ARGV[1] ~= '' and used >= tonumber(ARGV[1]) then
  return {0, used}
end
used = redis.call('INCR', KEYS[1])
if used == 1 then
  redis.call('EXPIREAT', KEYS[1], ARGV[2])
end
return {1, used}
`
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, enableAutoPipelining: true }) as Redis & {
  consumeQuota(key: string, limit: string, expireAt: number): Promise<[number, number]>
}
redis.defineCommand('consumeQuota', { numberOfKeys: 1, lua: CONSUME_SCRIPT })

const model = loadSurvivalModel(SPECIES)
const MODEL_INFO = { version: model.version, codename: model.codename, series: model.series }

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

// --- keys and tiers --------------------------------------------------------------------------------

interface Tier {
  name: string
  dailyRequestLimit: number | null
  batchSizeLimit: number
}
interface KeyRecord {
  id: string
  tier: string
  status: string
}

const keyCache = new Map<string, { record: KeyRecord | null; expiresAt: number }>()
let tiers: Map<string, Tier> | null = null

async function authenticate(presented: string | undefined): Promise<{ keyId: string; tier: Tier }> {
  if (!presented || !KEY_PATTERN.test(presented))
    throw new HttpError(401, 'invalid_api_key', 'A valid API key is required')
  const hash = createHash('sha256').update(presented).digest('hex')
  let cached = keyCache.get(hash)
  if (!cached || cached.expiresAt <= Date.now()) {
    const [record] = await sql<KeyRecord[]>`SELECT id, tier, status FROM api_keys WHERE key_hash = ${hash}`
    cached = { record: record ?? null, expiresAt: Date.now() + KEY_CACHE_MS }
    keyCache.set(hash, cached)
  }
  const record = cached.record
  if (!record || record.status === 'rotated' || record.status === 'revoked')
    throw new HttpError(401, 'invalid_api_key', 'A valid API key is required')
  if (record.status === 'inactive') throw new HttpError(403, 'key_inactive', 'This API key is deactivated')
  if (!tiers) {
    const rows = await sql<Tier[]>`SELECT name, daily_request_limit, batch_size_limit FROM tiers`
    tiers = new Map(rows.map((t) => [t.name, t]))
  }
  const tier = tiers.get(record.tier)
  if (!tier) throw new Error(`unknown tier ${record.tier}`)
  return { keyId: record.id, tier }
}

async function consumeQuota(keyId: string, tier: Tier): Promise<Record<string, string>> {
  const now = Date.now()
  const midnight = Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000
  const day = new Date(now).toISOString().slice(0, 10)
  const limit = tier.dailyRequestLimit
  const [allowed, used] = await redis.consumeQuota(
    `${QUOTA_KEY_PREFIX}${keyId}:${day}`,
    limit === null ? '' : String(limit),
    midnight / 1000 + 3600,
  )
  const reset = String(midnight / 1000)
  const headers: Record<string, string> =
    limit === null
      ? { 'x-ratelimit-limit': 'unlimited', 'x-ratelimit-used': String(used), 'x-ratelimit-reset': reset }
      : {
          'x-ratelimit-limit': String(limit),
          'x-ratelimit-remaining': String(Math.max(0, limit - used)),
          'x-ratelimit-reset': reset,
        }
  if (allowed !== 1) {
    throw new HttpError(429, 'rate_limit_exceeded', 'Daily request limit reached', {
      ...headers,
      'retry-after': String(Math.max(1, Math.ceil((midnight - now) / 1000))),
    })
  }
  return headers
}

// --- input -----------------------------------------------------------------------------------------

interface PredictItem {
  latitude: number
  longitude: number
  species: Species
  method: PlantingMethod
  horizons: Horizon[]
}

function invalid(field: string, reason: string): HttpError {
  return new HttpError(400, 'invalid_request', `${field} ${reason}`)
}

/** Shape checks (400, whole request) first; domain checks (422) come back as an HttpError value. */
function parseItem(value: unknown, path: string): PredictItem | HttpError {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(path, 'must be an object')
  const body = value as Record<string, unknown>
  for (const key of Object.keys(body)) {
    if (!['latitude', 'longitude', 'species_code', 'planting_method', 'horizons'].includes(key))
      throw invalid(`${path}${key}`, 'is not a known field')
  }
  const { latitude, longitude, species_code: code, planting_method: method, horizons } = body
  if (typeof latitude !== 'number' || latitude < -90 || latitude > 90)
    throw invalid(`${path}latitude`, 'must be a number from -90 to 90')
  if (typeof longitude !== 'number' || longitude < -180 || longitude > 180)
    throw invalid(`${path}longitude`, 'must be a number from -180 to 180')
  if (typeof code !== 'string') throw invalid(`${path}species_code`, 'must be a string')
  if (typeof method !== 'string') throw invalid(`${path}planting_method`, 'must be a string')
  let wanted: Horizon[] = [...HORIZONS]
  if (horizons !== undefined) {
    if (
      !Array.isArray(horizons) ||
      horizons.length === 0 ||
      !horizons.every((h) => h === 1 || h === 3 || h === 5)
    )
      throw invalid(`${path}horizons`, 'may only contain 1, 3 and 5')
    wanted = HORIZONS.filter((h) => horizons.includes(h))
  }
  const species = findSpecies(code)
  if (!species) return new HttpError(422, 'invalid_species', `Species code "${code}" is not recognized.`)
  if (method !== 'manual' && method !== 'drone_seeded')
    return new HttpError(422, 'invalid_method', `Planting method "${method}" is not available`)
  if (!isInCoverage(latitude, longitude))
    return new HttpError(422, 'outside_coverage', 'The coordinates lie outside the coverage region')
  return { latitude, longitude, species, method, horizons: wanted }
}

/** The body as JSON, read with data events (an async iterator costs a promise per chunk). */
function readJson(req: IncomingMessage): Promise<unknown> {
  if (!(req.headers['content-type'] ?? '').includes('application/json'))
    return Promise.reject(new HttpError(415, 'unsupported_media_type', 'Send Content-Type: application/json'))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, 'payload_too_large', 'Body over 1 MiB'))
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => {
      try {
        resolve(JSON.parse((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))?.toString('utf8') ?? ''))
      } catch {
        reject(new HttpError(400, 'invalid_json', 'The body is not valid JSON'))
      }
    })
    req.on('error', reject)
  })
}

// --- the KNN statements ------------------------------------------------------------------------------

type NearestRow = Site & { distanceM: number | null }

/**
 * The nearest site: the query point's cube from cosd/sind on earth()'s radius (what ll_to_earth() gives,
 * without its domain checks), ordered by the chord (<->), which within the search radius is the
 * great-circle distance to a few metres. ORDER BY the output column keeps the GiST index's ordered scan.
 */
async function nearestSite(point: PredictItem): Promise<NearestRow | undefined> {
  const [row] = await sql<NearestRow[]>`
    SELECT s.id, s.latitude, s.longitude, s.region_id, s.zone, s.elevation_m, s.slope_deg, s.aspect_deg,
           s.heat_load_index, s.soil_depth_cm, s.rock_fraction_pct, s.vegetation_cover_pct,
           s.annual_precip_mm, s.summer_water_deficit_mm, s.growing_season_frost_days,
           s.browse_pressure_index,
           s.earth_point <-> cube(array[6378168 * cosd(${point.latitude}::float8) * cosd(${point.longitude}::float8),
                                        6378168 * cosd(${point.latitude}::float8) * sind(${point.longitude}::float8),
                                        6378168 * sind(${point.latitude}::float8)]) AS distance_m
    FROM sites s
    ORDER BY distance_m
    LIMIT 1`
  return row
}

/** One statement for the whole batch; rows in the order of `points` (null columns when none is near). */
async function nearestSites(points: readonly PredictItem[]): Promise<NearestRow[]> {
  const latitudes = points.map((point) => point.latitude)
  const longitudes = points.map((point) => point.longitude)
  return sql<NearestRow[]>`
    SELECT nearest.*
    FROM unnest(${latitudes}::float8[], ${longitudes}::float8[]) WITH ORDINALITY AS q (lat, lon, ord)
    LEFT JOIN LATERAL (
      SELECT s.id, s.latitude, s.longitude, s.region_id, s.zone, s.elevation_m, s.slope_deg, s.aspect_deg,
             s.heat_load_index, s.soil_depth_cm, s.rock_fraction_pct, s.vegetation_cover_pct,
             s.annual_precip_mm, s.summer_water_deficit_mm, s.growing_season_frost_days,
             s.browse_pressure_index,
             s.earth_point <-> cube(array[6378168 * cosd(q.lat) * cosd(q.lon),
                                          6378168 * cosd(q.lat) * sind(q.lon),
                                          6378168 * sind(q.lat)]) AS distance_m
      FROM sites s
      ORDER BY distance_m
      LIMIT 1
    ) nearest ON true
    ORDER BY q.ord`
}

// --- output ----------------------------------------------------------------------------------------

function horizonJson(prediction: HorizonPrediction) {
  return {
    horizon_years: prediction.horizonYears,
    survival_probability: prediction.survivalProbability,
    risk_factors: prediction.contributions.slice(0, 3).map((f) => ({
      factor: f.factor,
      impact: f.impact,
      magnitude: f.magnitude,
    })),
  }
}

function predictionJson(item: PredictItem, row: NearestRow | undefined, generatedAt: string) {
  if (!row || row.distanceM === null || row.distanceM > SEARCH_RADIUS_KM * 1000)
    return new HttpError(422, 'no_nearby_data', 'No forest data point lies within the search radius')
  return {
    site: {
      latitude: item.latitude,
      longitude: item.longitude,
      matched_latitude: row.latitude,
      matched_longitude: row.longitude,
      match_distance_km: row.distanceM / 1000,
      region: 'pnw',
    },
    species_code: item.species.code,
    species_common_name: item.species.commonName,
    planting_method: item.method,
    predictions: model.predict(row, item.species, item.method, item.horizons).map(horizonJson),
    model: MODEL_INFO,
    generated_at: generatedAt,
  }
}

function errorJson(error: HttpError) {
  return { code: error.code, message: error.message }
}

// --- handlers --------------------------------------------------------------------------------------

async function predict(req: IncomingMessage): Promise<unknown> {
  const item = parseItem(await readJson(req), '')
  if (item instanceof HttpError) throw item
  const row = await nearestSite(item)
  const answer = predictionJson(item, row, new Date().toISOString())
  if (answer instanceof HttpError) throw answer
  return answer
}

async function batch(req: IncomingMessage, tier: Tier): Promise<unknown> {
  const body = (await readJson(req)) as { sites?: unknown }
  if (typeof body !== 'object' || body === null || !Array.isArray(body.sites))
    throw invalid('sites', 'must be an array of predict bodies')
  const sites = body.sites
  if (sites.length === 0) throw invalid('sites', 'must hold at least one site')
  if (sites.length > tier.batchSizeLimit)
    throw new HttpError(422, 'batch_too_large', `The ${tier.name} tier allows ${tier.batchSizeLimit} sites`)
  const items = sites.map((site, index) => parseItem(site, `sites[${index}].`))
  const located = items.filter((item): item is PredictItem => !(item instanceof HttpError))
  const rows = located.length > 0 ? await nearestSites(located) : []
  const generatedAt = new Date().toISOString()
  let next = 0
  return {
    results: items.map((item, index) => {
      if (item instanceof HttpError) return { index, error: errorJson(item) }
      const answer = predictionJson(item, rows[next++], generatedAt)
      return answer instanceof HttpError ? { index, error: errorJson(answer) } : { index, prediction: answer }
    }),
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const payload = JSON.stringify(body)
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  })
  res.end(payload)
}

const server = createServer((req, res) => {
  const headers: Record<string, string> = { 'request-id': randomUUID() }
  const path = req.url ?? '/'
  const handle = async (): Promise<unknown> => {
    if (path === '/v1/health' && req.method === 'GET') return { status: 'healthy' }
    if (req.method !== 'POST' || (path !== '/v1/predict' && path !== '/v1/predict/batch'))
      throw new HttpError(404, 'not_found', `No endpoint at ${path}`)
    const caller = await authenticate(req.headers['x-api-key'] as string | undefined)
    Object.assign(headers, await consumeQuota(caller.keyId, caller.tier))
    return path === '/v1/predict' ? predict(req) : batch(req, caller.tier)
  }
  handle().then(
    (body) => send(res, 200, body, headers),
    (error: unknown) => {
      if (error instanceof HttpError) {
        send(res, error.status, { error: errorJson(error) }, { ...headers, ...error.headers })
      } else if (!req.destroyed) {
        // (a client that hung up mid-body is no failure of ours)
        console.error(error)
        send(res, 500, { error: { code: 'internal_error', message: 'Unexpected server failure' } }, headers)
      }
    },
  )
})

server.listen(PORT, '127.0.0.1', () => {
  process.stderr.write(`baseline listening on 127.0.0.1:${PORT}\n`)
})

async function shutdown(): Promise<void> {
  server.close()
  server.closeAllConnections()
  redis.disconnect()
  await sql.end({ timeout: 2 })
  process.exit(0)
}
process.on('SIGTERM', () => void shutdown())
process.on('SIGINT', () => void shutdown())
