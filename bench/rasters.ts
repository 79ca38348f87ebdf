/**
 * GET /v1/rasters/survival.tif timed call by call (no load), at 0.01° and 0.005°, each resolution in a
 * fresh server process (compiled, as `npm run start:prod` runs it): the process's first raster (the
 * sites read, every pixel's site found, the model at every site, the encoding), the first raster of
 * another species at the same resolution (the model and the encoding only), and a raster already made
 * (the cache), median of BENCH_RASTER_REPEATS (20). Each process first answers one prediction, so the key
 * and the pipeline are warm. Times are the client's, from the request to the last byte.
 *
 * Run: `npm run bench:rasters`. Env: BENCH_RASTER_REPEATS (20), BENCH_ADMIN_DATABASE_URL,
 * BENCH_REDIS_URL. Targets: a first raster at 0.01° ≤ 3 s, a cached one ≤ 50 ms.
 */
import { seededDatabase } from './seeded-database.ts'
import { buildProject, type MeasuredProcess, startProjectServer } from './servers.ts'
import {
  deleteRedisKeys,
  listRedisKeys,
  loadAverages,
  median,
  REDIS_URL,
  randomSuffix,
  round,
} from './support.ts'

const REPEATS = Math.max(1, Number(process.env.BENCH_RASTER_REPEATS ?? 20))
const RESOLUTIONS = [0.01, 0.005]
const TARGETS = { firstMs: 3000, cachedMs: 50 }

type Log = (message: string) => void

/** One raster, timed to its last byte. */
async function timedRaster(server: MeasuredProcess, query: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now()
  const response = await fetch(`${server.url}/v1/rasters/survival.tif?${query}`, {
    headers: { 'x-api-key': server.apiKey },
  })
  const body = await response.arrayBuffer()
  const ms = performance.now() - started
  if (response.status !== 200)
    throw new Error(`raster ${query} → ${response.status}: ${Buffer.from(body).toString().slice(0, 300)}`)
  return { ms, bytes: body.byteLength }
}

interface Figures {
  resolution: number
  firstMs: number
  anotherSeriesMs: number
  cachedMs: number
  bytes: number
}

async function measure(
  database: { url: string; apiKeys: string[] },
  resolution: number,
  log: Log,
): Promise<Figures> {
  const quotaKeyPrefix = `bench:${randomSuffix()}:`
  const server = await startProjectServer(
    'server',
    {
      databaseUrl: database.url,
      apiKey: database.apiKeys[0] as string,
      quotaKeyPrefix,
      metricsToken: `bench-${randomSuffix()}${randomSuffix()}`,
    },
    { REDIS_URL },
    () => {},
  )
  try {
    const warm = await fetch(`${server.url}/v1/predict`, {
      method: 'POST',
      headers: { 'x-api-key': server.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        latitude: 44.6,
        longitude: -123.6,
        species_code: 'PSME',
        planting_method: 'manual',
      }),
    })
    if (warm.status !== 200) throw new Error(`the warm-up prediction answered ${warm.status}`)
    const query = (species: string) => `species=${species}&method=manual&horizon=5&resolution=${resolution}`
    const first = await timedRaster(server, query('PSME'))
    const another = await timedRaster(server, query('TSHE'))
    const cached: number[] = []
    for (let run = 0; run < REPEATS; run++) cached.push((await timedRaster(server, query('PSME'))).ms)
    const figures = {
      resolution,
      firstMs: round(first.ms, 0),
      anotherSeriesMs: round(another.ms, 0),
      cachedMs: round(median(cached), 1),
      bytes: first.bytes,
    }
    log(`${resolution}°: ${JSON.stringify(figures)} (peak RSS ${round(server.rss.max(), 1)} MB)`)
    return figures
  } finally {
    server.rss.stop()
    await server.child.stop()
    await deleteRedisKeys(REDIS_URL, await listRedisKeys(REDIS_URL, `${quotaKeyPrefix}*`))
  }
}

async function main(): Promise<void> {
  const started = performance.now()
  const log: Log = (message) =>
    console.error(`[rasters ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}`)
  const database = await seededDatabase('survival_bench_rasters', log)
  try {
    buildProject(log)
    const results: Figures[] = []
    for (const resolution of RESOLUTIONS) results.push(await measure(database, resolution, log))
    console.log(
      `\nGET /v1/rasters/survival.tif, PSME manual 5 years (load average ${loadAverages()
        .map((l) => round(l, 2))
        .join(', ')}):`,
    )
    console.log('  resolution  first in process  another species  cached (median)  file')
    for (const r of results)
      console.log(
        `  ${`${r.resolution}°`.padEnd(10)}  ${`${r.firstMs} ms`.padStart(16)}  ${`${r.anotherSeriesMs} ms`.padStart(15)}  ${`${r.cachedMs} ms`.padStart(15)}  ${round(r.bytes / 1e6, 2)} MB`,
      )
    console.log('\nraster targets (bench/rasters.ts):')
    const at = results.find((r) => r.resolution === 0.01)
    if (at) {
      console.log(
        `  ${at.firstMs <= TARGETS.firstMs ? 'PASS' : 'FAIL'}  first raster at 0.01° ≤ 3 s: ${at.firstMs} ms`,
      )
      console.log(
        `  ${at.cachedMs <= TARGETS.cachedMs ? 'PASS' : 'FAIL'}  cached raster ≤ 50 ms: ${at.cachedMs} ms`,
      )
    }
  } finally {
    await database.drop()
    log('dropped the database')
  }
}

await main()
