/**
 * `npm run bench:scale`: how the cost of a nearest-site lookup grows with the data set. The same
 * generator on denser grids (×10 and ×100 the sites: 3.5 km / √10 and / 10 spacing) is seeded into a
 * database of its own per size; for each size it times the KNN statement for batches of 1, 10, 100
 * and 500 points (median of BENCH_SCALE_REPEATS calls) and loads REST /v1/predict on the production
 * build for BENCH_DURATION s. Target: one lookup at 1.8M sites costs at most 2× what it costs at 18k.
 *
 * Env: BENCH_SCALES (factors, default "1,10,100"), BENCH_SCALE_REPEATS (40), BENCH_DURATION (8),
 * BENCH_ADMIN_DATABASE_URL.
 */
import { execFileSync } from 'node:child_process'
import autocannon, { type AutocannonResult } from 'autocannon'
import { openDatabase, type Sql } from '../src/db/connect.ts'
import { createKey } from '../src/db/keys.ts'
import { migrate } from '../src/db/migrate.ts'
import { findNearestSites } from '../src/db/sites.ts'
import { forestSites, SITE_SPACING_KM } from '../src/seed/generate-sites.ts'
import { insertSiteChunk, seedSpecies } from '../src/seed/load.ts'
import type { Coordinates, Site } from '../src/types.ts'
import { productionCommand } from './production-command.ts'
import { BENCH_ADDRESS_HASH_KEY } from './servers.ts'
import {
  createDatabase,
  freePort,
  median,
  ROOT,
  randomSuffix,
  round,
  spawnNode,
  waitForHealthy,
} from './support.ts'

const FACTORS = (process.env.BENCH_SCALES ?? '1,10,100')
  .split(',')
  .map(Number)
  .filter((f) => f >= 1)
const REPEATS = Math.max(5, Number(process.env.BENCH_SCALE_REPEATS ?? 40))
const DURATION_S = Number(process.env.BENCH_DURATION ?? 8)
const BATCH_SIZES = [1, 10, 100, 500] as const
const INSERT_CHUNK = 5000
const SEARCH_RADIUS_KM = 10
const LOOKUP_GROWTH_LIMIT = 2

const log = (message: string) => process.stderr.write(`[scale] ${message}\n`)

/** Points a few hundred metres off real forest sites of the served (18k) data set: all answerable. */
function probePoints(count: number): Coordinates[] {
  const sites = [...forestSites()]
  let state = 7
  const next = () => {
    state = (state * 48271) % 2147483647
    return state / 2147483647
  }
  return Array.from({ length: count }, () => {
    const site = sites[Math.floor(next() * sites.length)] as Site
    return {
      latitude: site.latitude + (next() - 0.5) * 0.006,
      longitude: site.longitude + (next() - 0.5) * 0.008,
    }
  })
}

async function seedScaled(sql: Sql, factor: number): Promise<{ sites: number; seconds: number }> {
  const started = performance.now()
  const spacingKm = SITE_SPACING_KM / Math.sqrt(factor)
  const expected = 17_884 * factor
  let chunk: Site[] = []
  let count = 0
  let reported = 0
  for (const site of forestSites({ spacingKm })) {
    chunk.push(site)
    if (chunk.length === INSERT_CHUNK) {
      await insertSiteChunk(sql, chunk)
      count += chunk.length
      chunk = []
      const share = Math.floor((count / expected) * 10)
      if (share > reported) {
        reported = share
        log(`×${factor}: ${count.toLocaleString('en-US')} sites inserted (~${Math.min(100, share * 10)} %)`)
      }
    }
  }
  if (chunk.length > 0) await insertSiteChunk(sql, chunk)
  count += chunk.length
  await sql`ANALYZE sites`
  return { sites: count, seconds: (performance.now() - started) / 1000 }
}

async function lookupCosts(sql: Sql, points: readonly Coordinates[]): Promise<Record<number, number>> {
  const costs: Record<number, number> = {}
  for (const size of BATCH_SIZES) {
    const timings: number[] = []
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      const offset = ((repeat * size) % (points.length - size)) | 0
      const batch = points.slice(offset, offset + size)
      const started = performance.now()
      await findNearestSites(sql, batch, SEARCH_RADIUS_KM)
      timings.push(performance.now() - started)
    }
    costs[size] = median(timings)
  }
  return costs
}

async function restPredictRps(
  databaseUrl: string,
  apiKey: string,
  points: readonly Coordinates[],
): Promise<number> {
  const port = await freePort()
  const { env, nodeArgs, entry } = productionCommand()
  const server = spawnNode(
    'server',
    entry,
    {
      ...env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      GRAPHIQL: 'false',
      // With DATABASE_URL a server will not start with /metrics open; nothing here reads it.
      METRICS_TOKEN: `bench-${randomSuffix()}${randomSuffix()}`,
      // Required with DATABASE_URL: the secret client addresses are hashed under.
      ADDRESS_HASH_KEY: BENCH_ADDRESS_HASH_KEY,
    },
    { nodeArgs, maxLines: 20 },
  )
  const url = `http://127.0.0.1:${port}`
  try {
    await waitForHealthy(`${url}/v1/health`, server, 60_000)
    const bodies = points.map((point) =>
      JSON.stringify({ ...point, species_code: 'PSME', planting_method: 'manual' }),
    )
    let next = 0
    const result = await new Promise<AutocannonResult>((resolve, reject) => {
      autocannon(
        {
          url,
          connections: 32,
          duration: DURATION_S,
          requests: [
            {
              method: 'POST',
              path: '/v1/predict',
              headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
              setupRequest: (request) => {
                request.body = bodies[next++ % bodies.length]
                return request
              },
            },
          ],
        },
        (error, outcome) => (error ? reject(error) : resolve(outcome)),
      )
    })
    if (result.non2xx > 0) log(`warning: ${result.non2xx} non-2xx answers`)
    return result.requests.average
  } finally {
    await server.stop()
  }
}

interface ScaleRow {
  factor: number
  sites: number
  seedSeconds: number
  lookupMs: Record<number, number>
  restRps: number
}

function printTable(rows: readonly ScaleRow[]): void {
  const header = ['sites', 'seed s', ...BATCH_SIZES.map((n) => `KNN ${n} pt ms`), 'µs/pt @500', 'REST rps']
  const lines = rows.map((row) => [
    row.sites.toLocaleString('en-US'),
    String(round(row.seedSeconds, 1)),
    ...BATCH_SIZES.map((n) => String(round(row.lookupMs[n] ?? 0, 3))),
    String(round(((row.lookupMs[500] ?? 0) / 500) * 1000, 1)),
    String(round(row.restRps, 0)),
  ])
  const widths = header.map((title, i) =>
    Math.max(title.length, ...lines.map((line) => (line[i] ?? '').length)),
  )
  const format = (cells: readonly string[]) =>
    cells.map((cell, i) => cell.padStart(widths[i] ?? 0)).join('  ')
  process.stdout.write(`\n${format(header)}\n${lines.map(format).join('\n')}\n\n`)
  const smallest = rows[0]
  const largest = rows.at(-1)
  if (smallest && largest && largest !== smallest) {
    const growth = (largest.lookupMs[1] ?? 0) / (smallest.lookupMs[1] ?? 1)
    const verdict = growth <= LOOKUP_GROWTH_LIMIT ? 'PASS' : 'FAIL'
    process.stdout.write(
      `  ${verdict}  one KNN lookup at ${largest.sites.toLocaleString('en-US')} sites ≤ ${LOOKUP_GROWTH_LIMIT}× its cost at ${smallest.sites.toLocaleString('en-US')}: ${round(growth, 2)}×\n`,
    )
  }
}

async function main(): Promise<void> {
  log('npm run build')
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' })
  const points = probePoints(5000)
  const rows: ScaleRow[] = []
  for (const factor of FACTORS) {
    const database = await createDatabase(`survival_bench_scale_${factor}x`)
    const db = await openDatabase({ DATABASE_URL: database.url, DB_POOL_MAX: 2 })
    try {
      await migrate(db.sql)
      await seedSpecies(db.sql)
      const { sites, seconds } = await seedScaled(db.sql, factor)
      log(`×${factor}: ${sites.toLocaleString('en-US')} sites in ${round(seconds, 1)} s; timing lookups`)
      const lookupMs = await lookupCosts(db.sql, points)
      const apiKey = (await createKey(db.sql, { tier: 'hypha', name: 'bench scale' })).key
      log(`×${factor}: REST /v1/predict for ${DURATION_S} s`)
      const restRps = await restPredictRps(database.url, apiKey, points)
      rows.push({ factor, sites, seedSeconds: seconds, lookupMs, restRps })
    } finally {
      await db.close()
      await database.drop()
    }
  }
  printTable(rows)
}

await main()
